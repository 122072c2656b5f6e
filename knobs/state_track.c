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

/* Room for one more element in the array *arr of *cap elements, n used: doubled (first: `first`
 * elements) when full.  0 when it cannot grow (the array is as it was). */
static int room_for_one(void **arr, size_t *cap, size_t n, size_t elem, size_t first) {
  if (n < *cap) return 1;
  size_t want = *cap ? 2 * *cap : first;
  void *grown = realloc(*arr, want * elem);
  if (!grown) return 0;
  *arr = grown;
  *cap = want;
  return 1;
}

/* Claim the directory of `path` unless this process already holds it; *fresh = 1 when the claim
 * is new (the last of ergo__st.claims).  0 or ERGO_E* (EBUSY: a live process holds it, nothing
 * said).  Under the lock. */
static int claim_domain(const char *path, long *holder, int *fresh) {
  char domain[PATH_MAX], claim[PATH_MAX + 64];
  if (ergo__state_domain(path, domain) != 0) {
    ergo__warn("cannot read %s to save its original value: %s; not changing it", path,
               strerror(errno));
    return ERGO_EIO;
  }
  int rc = ergo__state_claim(domain, path, claim, sizeof claim, holder);
  if (rc || !claim[0]) return rc;
  for (size_t i = 0; i < ergo__st.nclaims; i++)
    if (strcmp(ergo__st.claims[i], claim) == 0) return 0;
  char *copy = strdup(claim);
  if (!copy || !room_for_one((void **)&ergo__st.claims, &ergo__st.claims_cap, ergo__st.nclaims,
                             sizeof *ergo__st.claims, 8)) {
    free(copy);
    char *const one[1] = {claim};
    ergo__state_release(one, 1, ergo__st.claim_prefix, ergo__st.claim_prefix_len);
    ergo__warn("out of memory saving %s; not changing it", path);
    return ERGO_ENOMEM;
  }
  ergo__st.claims[ergo__st.nclaims++] = copy;
  *fresh = 1;
  return 0;
}

/* A file not tracked after all: a claim taken for it alone goes again. */
static void unclaim(int fresh) {
  if (!fresh) return;
  char *last = ergo__st.claims[--ergo__st.nclaims];
  ergo__state_release(&last, 1, ergo__st.claim_prefix, ergo__st.claim_prefix_len);
  free(last);
}

int ergo__state_track(const char *path, long *holder) {
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
  /* Claimed before it is read: a claim taken over from a process that is gone puts its
   * original back first. */
  int fresh = 0;
  int rc = claim_domain(path, holder, &fresh);
  if (rc) {
    pthread_mutex_unlock(&ergo__st.lock);
    return rc;
  }
  char buf[CONTENT_MAX + 1];
  size_t len = 0;
  rc = read_whole(path, buf, &len);
  if (rc == -1) {
    ergo__warn("cannot read %s to save its original value: %s; not changing it", path,
               strerror(errno));
    unclaim(fresh);
    pthread_mutex_unlock(&ergo__st.lock);
    return ERGO_EIO;
  }
  if (rc == -2 || !is_text(buf, len)) {
    unclaim(fresh);
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
  if (!e || !e->failmsg ||
      !room_for_one((void **)&ergo__st.tracked, &ergo__st.tracked_cap, ergo__st.ntracked,
                    sizeof *ergo__st.tracked, 16)) {
    ergo__state_entry_free(e);
    unclaim(fresh);
    pthread_mutex_unlock(&ergo__st.lock);
    ergo__warn("out of memory saving %s; not changing it", path);
    return ERGO_ENOMEM;
  }
  ergo__st.tracked[ergo__st.ntracked++] = e;
  pthread_mutex_unlock(&ergo__st.lock);
  return 0;
}
