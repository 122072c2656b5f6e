/* state_dir.c - the directory of state files: $ERGO_STATE_DIR, else /run/ergo (root), else
 * /tmp/ergo-UID, and only a directory nobody else can write into (checked at every use). */
#include "knobs/state_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* NULL when `dir` is a directory (not a symlink) of ours that nobody else may write, so no one
 * can plant a state file for `ergo restore` to obey; else why not, in why. */
static const char *unsafe_dir(const char *dir, char *why, size_t n) {
  struct stat st;
  if (lstat(dir, &st) != 0)
    snprintf(why, n, "cannot use %s: %s", dir, strerror(errno));
  else if (S_ISLNK(st.st_mode))
    snprintf(why, n, "%s is a symbolic link", dir);
  else if (!S_ISDIR(st.st_mode))
    snprintf(why, n, "%s is not a directory", dir);
  else if (st.st_uid != geteuid())
    snprintf(why, n, "%s belongs to uid %u, not to this user (uid %u)", dir, (unsigned)st.st_uid,
             (unsigned)geteuid());
  else if (st.st_mode & 022)
    snprintf(why, n, "%s is writable by group or others (mode %03o)", dir,
             (unsigned)(st.st_mode & 0777));
  else
    return NULL;
  return why;
}

int ergo__state_pick_dir(char *buf, size_t n, char *why, size_t whylen) {
  const char *env = getenv("ERGO_STATE_DIR");
  if (env && *env) {
    snprintf(buf, n, "%s", env);
    if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
      snprintf(why, whylen, "cannot create ERGO_STATE_DIR=%s: %s", buf, strerror(errno));
      return -1;
    }
    /* The same rule as for the defaults: `ergo restore` obeys what it finds there, so a
     * directory another user can write (or swap) would let them choose what root writes. */
    char unsafe[WHY_LEN / 2];
    if (unsafe_dir(buf, unsafe, sizeof unsafe)) {
      snprintf(why, whylen,
               "refusing ERGO_STATE_DIR=%s as the state directory: %s (fix: point it at a "
               "directory of this user's, mode 0700)",
               buf, unsafe);
      return -1;
    }
    if (access(buf, W_OK | X_OK) != 0) {
      snprintf(why, whylen, "ERGO_STATE_DIR=%s is not a writable directory: %s", buf,
               strerror(errno));
      return -1;
    }
    return 0;
  }
  /* Root's choice: tmpfs, gone at reboot exactly when the settings are. */
  snprintf(buf, n, "/run/ergo");
  if ((mkdir(buf, 0700) == 0 || errno == EEXIST) && !unsafe_dir(buf, why, whylen) &&
      access(buf, W_OK | X_OK) == 0)
    return 0;
  snprintf(buf, n, "/tmp/ergo-%u", (unsigned)geteuid());
  if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
    snprintf(why, whylen, "cannot create %s: %s (fix: set ERGO_STATE_DIR to a private directory)",
             buf, strerror(errno));
    return -1;
  }
  char unsafe[WHY_LEN / 2]; /* leaves room for the path and the fix in why */
  if (unsafe_dir(buf, unsafe, sizeof unsafe)) {
    snprintf(why, whylen,
             "refusing %s as the state directory: %s (fix: remove it, or set ERGO_STATE_DIR to "
             "a private directory)",
             buf, unsafe);
    return -1;
  }
  return 0;
}

const char *ergo__state_dir(void) {
  static char dir[PATH_MAX];
  char why[WHY_LEN];
  /* On failure the caller's own line says so. */
  (void)ergo__state_pick_dir(dir, sizeof dir, why, sizeof why);
  return dir;
}
