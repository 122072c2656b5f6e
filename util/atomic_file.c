/* atomic_file.c - write a whole file so readers see the old or the new one, never half. */
#include "util/atomic_file.h"

#include "ergo.h"
#include "util/log.h"

#include <stdio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ergo__atomic_write(const char *path, const char *data, size_t len) {
  if (!path || !*path) return ERGO_EINVAL;
  size_t n = strlen(path);
  char *tmp = malloc(n + 32);
  if (!tmp) return ERGO_ENOMEM;
  snprintf(tmp, n + 32, "%s.tmp.%ld", path, (long)getpid());
  /* A fresh temp file: a stale one (or a link planted in a shared directory such as /tmp, where
   * a fallback goes) is removed, never written through. */
  unlink(tmp);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    ergo__error("cannot write '%s': %s (fix: make its directory writable or choose another path)",
                path, strerror(errno));
    free(tmp);
    return ERGO_EIO;
  }
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(fd, data + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += (size_t)w;
  }
  int err = off < len ? errno : 0;
  if (!err && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && rename(tmp, path) != 0) err = errno;
  if (err) {
    ergo__error("cannot write '%s': %s; the previous file, if any, is unchanged (fix: check free "
                "space and permissions)",
                path, strerror(err ? err : EIO));
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
