/* state_track.c - tracking a file before ergo first writes it: its original contents, read once
 * (the first reading is the original; later ones may be ours) and kept in tracking order. */
#include "knobs/state_internal.h"

#include "ergo.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Text a state file can hold and sysfs would accept back: no NUL, valid UTF-8. */
static int is_text(const char *s, size_t len) {
  if (memchr(s, '\0', len)) return 0;
  json_t *j = json_stringn(s, len);
  json_decref(j);
  return j != NULL;
}

/* The whole file, up to CONTENT_MAX bytes: 0, -1 with errno, or -2 when longer. */
static int read_whole(const char *path, char *buf, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -1;
  size_t off = 0;
  for (;;) {
    ssize_t r = read(fd, buf + off, CONTENT_MAX + 1 - off);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int err = errno;
      close(fd);
      errno = err;
      return -1;
    }
    if (r == 0) break;
    off += (size_t)r;
    if (off > CONTENT_MAX) {
      close(fd);
      return -2;
    }
  }
  close(fd);
  *len = off;
  return 0;
}

int ergo__state_track(const char *path) {
  if (!path || path[0] != '/') {
    ergo__warn("cannot save '%s': not an absolute path; not changing it", path ? path : "(null)");
    return ERGO_EINVAL;
  }
  ergo__state_once();
  pthread_mutex_lock(&ergo__st.lock);
  ergo__state_forget_if_forked();
  for (size_t i = 0; i < ergo__st.ntracked; i++)
    if (strcmp(ergo__st.tracked[i]->path, path) == 0) {
      pthread_mutex_unlock(&ergo__st.lock);
      return 0; /* the first reading is the original; later ones may be ours */
    }
  char buf[CONTENT_MAX + 1];
  size_t len = 0;
  int rc = read_whole(path, buf, &len);
  if (rc == -1) {
    ergo__warn("cannot read %s to save its original value: %s; not changing it", path,
               strerror(errno));
    pthread_mutex_unlock(&ergo__st.lock);
    return ERGO_EIO;
  }
  if (rc == -2 || !is_text(buf, len)) {
    ergo__warn("%s is %s, not a setting ergo can save and write back; not changing it", path,
               rc == -2 ? "longer than 4096 bytes" : "not text");
    pthread_mutex_unlock(&ergo__st.lock);
    return ERGO_EFORMAT;
  }
  state_entry *e = ergo__state_entry_new(path, buf, len);
  char msg[PATH_MAX + 160];
  int mlen = snprintf(msg, sizeof msg,
                      "ergo: error: cannot restore %s after a fatal signal (fix: run `ergo "
                      "restore` once this process is gone)\n",
                      path);
  if (e) {
    e->failmsg = strdup(msg);
    e->failmsg_len = e->failmsg ? (size_t)mlen : 0;
  }
  if (e && ergo__st.ntracked == ergo__st.tracked_cap) {
    size_t cap = ergo__st.tracked_cap ? 2 * ergo__st.tracked_cap : 16;
    state_entry **grown = realloc(ergo__st.tracked, cap * sizeof *grown);
    if (grown) {
      ergo__st.tracked = grown;
      ergo__st.tracked_cap = cap;
    }
  }
  if (!e || !e->failmsg || ergo__st.ntracked == ergo__st.tracked_cap) {
    ergo__state_entry_free(e);
    pthread_mutex_unlock(&ergo__st.lock);
    ergo__warn("out of memory saving %s; not changing it", path);
    return ERGO_ENOMEM;
  }
  ergo__st.tracked[ergo__st.ntracked++] = e;
  pthread_mutex_unlock(&ergo__st.lock);
  return 0;
}
