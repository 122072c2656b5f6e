/* path.c - output paths: writable or why not, one file or two, and the fallback in $TMPDIR. */
#include "util/path.h"

#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory part of path ("." when it has none, "/" for "/x") into dir. */
static void dir_of(const char *path, char *dir, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dir, len, ".");
    return;
  }
  size_t n = (size_t)(slash - path);
  if (n == 0) n = 1; /* "/x" */
  if (n >= len) n = len - 1;
  memcpy(dir, path, n);
  dir[n] = '\0';
}

static const char *base_of(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

int ergo__path_writable_as(const char *path, int create, char *why, size_t whylen) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(why, whylen, "it is a directory");
    return -1;
  }
  /* The writers refuse these (util/atomic_file.h): say so at the start. */
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    snprintf(why, whylen, "it is a symbolic link, which ergo never writes through");
    return -1;
  }
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    snprintf(why, whylen, "it is not a regular file");
    return -1;
  }
  if (ergo__path_links_trusted(path) != 0) {
    snprintf(why, whylen,
             "a directory on its way is a symbolic link another user owns, which "
             "ergo never follows when it runs as root");
    return -1;
  }
  char dir[PATH_MAX];
  dir_of(path, dir, sizeof dir);
  if (stat(dir, &st) != 0) {
    snprintf(why, whylen, "directory '%s' %s", dir,
             errno == ENOENT ? "does not exist" : strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(why, whylen, "'%s' is not a directory", dir);
    return -1;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    snprintf(why, whylen, "directory '%s' is not writable: %s", dir, strerror(errno));
    return -1;
  }
  /* access() answers for the permissions only: root passes it everywhere, and a directory of
   * /proc or /sys, or a full or read-only mount, still refuses a new file.  One is made as the
   * writers make theirs, and removed (where `create`: one process of a job, not each of 10,000
   * ranks at once on a parallel file system's metadata server). */
  if (!create) return 0;
  char *tmp = NULL;
  int fd = ergo__tmp_create(path, 0600, &tmp);
  if (fd < 0) {
    snprintf(why, whylen, "no file can be created in directory '%s': %s", dir, strerror(errno));
    return -1;
  }
  close(fd);
  unlink(tmp);
  free(tmp);
  return 0;
}

int ergo__path_writable(const char *path, char *why, size_t whylen) {
  return ergo__path_writable_as(path, 1, why, whylen);
}

/* Drop "./" segments and repeated slashes, in place. */
static void tidy(char *s) {
  char *o = s;
  for (const char *p = s; *p;) {
    if (p[0] == '/' && o > s && o[-1] == '/') {
      p++;
    } else if (p[0] == '.' && p[1] == '/' && (p == s || p[-1] == '/')) {
      p += 2;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
}

/* The one name of path's file into out (PATH_MAX bytes). */
static void canon(const char *path, char *out) {
  if (realpath(path, out)) return;
  char dir[PATH_MAX], real[PATH_MAX];
  dir_of(path, dir, sizeof dir);
  const char *base = base_of(path);
  size_t lr, lb = strlen(base);
  if (realpath(dir, real) && (lr = strcmp(real, "/") ? strlen(real) : 0) + 1 + lb < PATH_MAX) {
    memcpy(out, real, lr);
    out[lr] = '/';
    memcpy(out + lr + 1, base, lb + 1);
  } else {
    snprintf(out, PATH_MAX, "%s", path);
  }
  tidy(out);
}

int ergo__path_same(const char *a, const char *b) {
  if (!a || !b) return 0;
  char ca[PATH_MAX], cb[PATH_MAX];
  canon(a, ca);
  canon(b, cb);
  return strcmp(ca, cb) == 0;
}

int ergo__path_fallback(const char *path, char *out, size_t outlen) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  int n = snprintf(out, outlen, "%s/ergo-%ld-%s", tmp, (long)getpid(), base_of(path));
  if (n < 0 || (size_t)n >= outlen) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

int ergo__path_links_trusted(const char *path) {
  uid_t me = geteuid();
  if (me != 0 || !path) return 0; /* only a root run can be led somewhere it should not write */
  char prefix[PATH_MAX];
  size_t n = strlen(path);
  if (n >= sizeof prefix) return 0;
  /* Every directory on the way: path's prefixes up to each '/', relative ones from the cwd. */
  for (size_t i = 1; i < n; i++) {
    if (path[i] != '/') continue;
    memcpy(prefix, path, i);
    prefix[i] = '\0';
    struct stat st;
    if (lstat(prefix, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != 0 && st.st_uid != me) {
      errno = EMLINK;
      return -1;
    }
  }
  return 0;
}
