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

/* The checks both ways of picking share, on a directory that exists: 0, or -1 with why.  `name`
 * is how the line names it ("ERGO_STATE_DIR=/x" or "/tmp/ergo-1000"); `fix` ends a refusal. */
static int usable_dir(const char *dir, const char *name, const char *fix, char *why,
                      size_t whylen) {
  /* `ergo restore` obeys what it finds there, so a directory another user can write (or swap)
   * would let them choose what root writes. */
  char unsafe[WHY_LEN / 2]; /* leaves room for the path and the fix in why */
  if (unsafe_dir(dir, unsafe, sizeof unsafe)) {
    snprintf(why, whylen, "refusing %s as the state directory: %s (fix: %s)", name, unsafe, fix);
    return -1;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    snprintf(why, whylen, "%s is not a writable directory: %s (fix: %s)", name, strerror(errno),
             fix);
    return -1;
  }
  return 0;
}

#define ENV_FIX "point it at a directory of this user's, mode 0700"
#define DEFAULT_FIX "remove it, or set ERGO_STATE_DIR to a private directory"

int ergo__state_pick_dir(char *buf, size_t n, char *why, size_t whylen) {
  const char *env = getenv("ERGO_STATE_DIR");
  char name[PATH_MAX + 32];
  if (env && *env) {
    snprintf(buf, n, "%s", env);
    snprintf(name, sizeof name, "ERGO_STATE_DIR=%s", buf);
    if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
      snprintf(why, whylen, "cannot create %s: %s (fix: " ENV_FIX ")", name, strerror(errno));
      return -1;
    }
    return usable_dir(buf, name, ENV_FIX, why, whylen);
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
  return usable_dir(buf, buf, DEFAULT_FIX, why, whylen);
}

int ergo__state_find_dir(char *buf, size_t n, char *why, size_t whylen) {
  const char *env = getenv("ERGO_STATE_DIR");
  char name[PATH_MAX + 32];
  struct stat st;
  if (env && *env) {
    snprintf(buf, n, "%s", env);
    snprintf(name, sizeof name, "ERGO_STATE_DIR=%s", buf);
    if (lstat(buf, &st) != 0 && errno == ENOENT) {
      snprintf(why, whylen, "%s", name);
      return 1;
    }
    return usable_dir(buf, name, ENV_FIX, why, whylen);
  }
  /* Where pick_dir would have saved: /run/ergo when it exists and is usable or could be made
   * (root), else /tmp/ergo-UID. */
  snprintf(buf, n, "/run/ergo");
  if (lstat(buf, &st) == 0 ? !unsafe_dir(buf, why, whylen) && access(buf, W_OK | X_OK) == 0
                           : errno == ENOENT && access("/run", W_OK | X_OK) == 0) {
    if (access(buf, F_OK) == 0) return 0;
    snprintf(why, whylen, "%s", buf);
    return 1;
  }
  snprintf(buf, n, "/tmp/ergo-%u", (unsigned)geteuid());
  if (lstat(buf, &st) != 0 && errno == ENOENT) {
    snprintf(why, whylen, "%s", buf);
    return 1;
  }
  return usable_dir(buf, buf, DEFAULT_FIX, why, whylen);
}

const char *ergo__state_dir(void) {
  static char dir[PATH_MAX];
  char why[WHY_LEN];
  /* On failure the caller's own line says so. */
  (void)ergo__state_pick_dir(dir, sizeof dir, why, sizeof why);
  return dir;
}
