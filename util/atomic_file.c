/* atomic_file.c - output files that no one else can redirect: whole files written to a fresh
 * temporary file and renamed (readers see the old or the new one, never half), and growing files
 * opened without following links. */
#include "util/atomic_file.h"

#include "ergo.h"
#include "util/log.h"
#include "util/path.h"

#include <stdio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How often a fresh name is drawn when another file holds one: 2^64 names make a clash all but
 * impossible, so running out means something else is wrong. */
#define TMP_TRIES 16

/* 64 unpredictable bits: a planted file cannot be waiting under the temporary name. */
static uint64_t random_bits(void) {
  uint64_t r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r) return r;
  /* No entropy yet (early boot): still unique, O_EXCL keeps it safe. */
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  static _Atomic uint64_t counter;
  r = ((uint64_t)t.tv_nsec << 20) ^ (uint64_t)t.tv_sec ^ ((uint64_t)getpid() << 40) ^
      (counter++ * 0x9e3779b97f4a7c15ull);
  return r;
}

int ergo__tmp_create(const char *path, mode_t mode, char **tmp) {
  if (ergo__path_links_trusted(path) != 0) return -1;
  size_t n = strlen(path) + 32;
  char *name = malloc(n);
  if (!name) {
    errno = ENOMEM;
    return -1;
  }
  for (int i = 0; i < TMP_TRIES; i++) {
    snprintf(name, n, "%s.tmp.%016llx", path, (unsigned long long)random_bits());
    /* O_EXCL|O_NOFOLLOW: a name that exists, link or file, is never opened. */
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
    if (fd >= 0) {
      *tmp = name;
      return fd;
    }
    if (errno != EEXIST) break;
  }
  int e = errno;
  free(name);
  errno = e;
  return -1;
}

/* 0 when `path` may be replaced: missing, or a regular file.  A symlink is refused rather than
 * replaced: whoever made it meant something, and the run should say so. */
static int replaceable(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  if (S_ISLNK(st.st_mode))
    errno = ELOOP;
  else if (S_ISDIR(st.st_mode))
    errno = EISDIR;
  else if (!S_ISREG(st.st_mode))
    errno = EEXIST;
  else
    return 0;
  return -1;
}

const char *ergo__file_why(int err) {
  return err == EMLINK   ? "a directory on its way is a symbolic link another user owns, which "
                           "ergo never follows when it runs as root"
         : err == ELOOP  ? "it is a symbolic link, which ergo never writes through"
         : err == EEXIST ? "it exists and is not a regular file"
                         : strerror(err);
}

static void sync_dir(const char *path) {
  const char *slash = strrchr(path, '/');
  char dir[4096];
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd); /* best effort: the data itself was synced */
  close(fd);
}

int ergo__tmp_publish(const char *tmp, const char *path) {
  if (replaceable(path) != 0) return -1;
  /* rename replaces the name itself: even a link made since the check is replaced, not followed. */
  if (rename(tmp, path) != 0) return -1;
  sync_dir(path);
  return 0;
}

int ergo__atomic_write(const char *path, const char *data, size_t len) {
  if (!path || !*path) return ERGO_EINVAL;
  if (replaceable(path) != 0) {
    int err = errno;
    ergo__error("cannot write '%s': %s (fix: %s)", path, ergo__file_why(err),
                err == EISDIR ? "name a file, not a directory"
                              : "remove it or choose another path");
    return ERGO_EIO;
  }
  char *tmp = NULL;
  int fd = ergo__tmp_create(path, 0644, &tmp);
  if (fd < 0) {
    if (errno == ENOMEM) return ERGO_ENOMEM;
    ergo__error("cannot write '%s': %s (fix: make its directory writable or choose another path)",
                path, ergo__file_why(errno));
    return ERGO_EIO;
  }
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(fd, data + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += (size_t)w;
  }
  int err = off < len ? (errno ? errno : EIO) : 0;
  if (!err && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && ergo__tmp_publish(tmp, path) != 0) err = errno;
  if (err) {
    ergo__error("cannot write '%s': %s; the previous file, if any, is unchanged (fix: %s)", path,
                ergo__file_why(err),
                err == ELOOP || err == EEXIST || err == EISDIR
                    ? "remove it or choose another path"
                    : "check free space and permissions");
    unlink(tmp);
    free(tmp);
    return ERGO_EIO;
  }
  free(tmp);
  return 0;
}

int ergo__write_json_text(const char *path, char *text) {
  /* A text file ends with a newline; jansson leaves it off. */
  size_t len = strlen(text);
  char *nl = realloc(text, len + 2);
  if (!nl) {
    free(text);
    return ERGO_ENOMEM;
  }
  nl[len] = '\n';
  nl[len + 1] = '\0';
  int rc = ergo__atomic_write(path, nl, len + 1);
  free(nl);
  return rc;
}

int ergo__open_growing(const char *path, int truncate, char *why, size_t whylen) {
  if (ergo__path_links_trusted(path) != 0) {
    snprintf(why, whylen, "%s", ergo__file_why(EMLINK));
    return -1;
  }
  /* O_NONBLOCK: a FIFO planted under the name fails or is refused below instead of hanging. */
  int fd = open(
      path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
  if (fd < 0) {
    int e = errno;
    struct stat st;
    if (e == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
      snprintf(why, whylen, "it is a symbolic link, which ergo never writes through");
    else
      snprintf(why, whylen, "%s", strerror(e));
    return -1;
  }
  struct stat st;
  uid_t me = geteuid();
  if (fstat(fd, &st) != 0)
    snprintf(why, whylen, "%s", strerror(errno));
  else if (!S_ISREG(st.st_mode))
    snprintf(why, whylen, "it is not a regular file");
  else if (st.st_nlink > 1)
    snprintf(why, whylen, "it has %lu hard links: another name may be a file ergo must not change",
             (unsigned long)st.st_nlink);
  else if (me == 0 && st.st_uid != me)
    snprintf(why, whylen, "it belongs to uid %u and ergo runs as root", (unsigned)st.st_uid);
  else if (fcntl(fd, F_SETFL, O_APPEND) != 0 || (truncate && ftruncate(fd, 0) != 0))
    snprintf(why, whylen, "%s", strerror(errno));
  else
    return fd;
  close(fd);
  return -1;
}
