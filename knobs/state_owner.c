/* state_owner.c - who holds what: this process's identity (pid start time, program image id,
 * host), the claim files that say which live process tunes a sysfs directory, whether their owner
 * still runs, and the state directory's lock.  The pieces state_claim.c (taking a claim),
 * state_restore_dead.c (`ergo restore`) and the restore paths (releasing our claims) share; it
 * calls none of them. */
#include "knobs/state_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int ergo__state_proc_stat(long pid, char *state, long long *starttime) {
  char path[64], buf[1024];
  if (pid == 0)
    snprintf(path, sizeof path, "/proc/self/stat");
  else
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  /* The command name (field 2) may hold spaces and parentheses: count from the last ')'. */
  char *p = strrchr(buf, ')');
  if (!p) return -1;
  p++;
  for (int field = 3; field <= 22; field++) {
    while (*p == ' ') p++;
    if (!*p) return -1;
    if (field == 3) *state = *p;
    if (field == 22) {
      char *end;
      errno = 0;
      *starttime = strtoll(p, &end, 10);
      return errno || end == p ? -1 : 0;
    }
    while (*p && *p != ' ') p++;
  }
  return -1;
}

/* How long a process waits for another holding the state directory's lock (a few writes). */
#define LOCK_WAIT_MS 5000

uint64_t ergo__state_instance(void) {
  static _Atomic uint64_t id;
  uint64_t v = atomic_load(&id);
  if (v) return v;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 16) ^
        (uint64_t)(uintptr_t)&id;
  }
  if (!v) v = 1;
  uint64_t none = 0;
  return atomic_compare_exchange_strong(&id, &none, v) ? v : none;
}

const char *ergo__state_host(void) {
  static char host[256];
  if (!host[0] && (gethostname(host, sizeof host - 1) != 0 || !host[0]))
    snprintf(host, sizeof host, "unknown");
  for (char *c = host; *c; c++)
    if (*c == ' ' || *c == '\n') *c = '_'; /* one word in a claim's line */
  return host;
}

int ergo__state_claim_path(const char *dir, const char *domain, char *buf, size_t n) {
  /* FNV-1a of host and directory: a state directory shared by several hosts keeps theirs apart. */
  uint64_t h = 1469598103934665603ull;
  const char *parts[3] = {ergo__state_host(), ":", domain};
  for (int k = 0; k < 3; k++)
    for (const unsigned char *p = (const unsigned char *)parts[k]; *p; p++) {
      h ^= *p;
      h *= 1099511628211ull;
    }
  return snprintf(buf, n, "%s/claim-%016llx", dir, (unsigned long long)h) < (int)n ? 0 : -1;
}

int ergo__state_domain(const char *path, char *buf) {
  char real[PATH_MAX];
  if (!realpath(path, real)) return -1;
  char *slash = strrchr(real, '/');
  if (!slash || slash == real) {
    errno = EINVAL;
    return -1;
  }
  *slash = '\0';
  memcpy(buf, real, (size_t)(slash - real) + 1);
  return 0;
}

int ergo__state_claim_read(const char *claim, ergo__claim_owner *o) {
  int fd = open(claim, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return errno == ENOENT ? 0 : -1;
  char buf[PATH_MAX + 96];
  ssize_t r = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (r <= 0) return -1;
  buf[r] = '\0';
  unsigned long long inst = 0;
  int off = 0;
  if (sscanf(buf, "%ld %lld %llx %255s %n", &o->pid, &o->start, &inst, o->host, &off) != 4 ||
      off == 0 || o->pid <= 0 || o->pid > INT_MAX)
    return -1;
  char *nl = strchr(buf + off, '\n');
  if (!nl) return -1;
  *nl = '\0';
  snprintf(o->domain, sizeof o->domain, "%s", buf + off);
  o->instance = inst;
  return 1;
}

int ergo__state_owner_alive(long pid, long long starttime, uint64_t instance) {
  char state = '?';
  long long start = -1;
  if (pid == (long)getpid()) {
    /* Our pid: this image, or an earlier process or program image that had it. */
    if (starttime > 0 && ergo__state_proc_stat(0, &state, &start) == 0 && start != starttime)
      return 0;
    return instance == 0 || instance == ergo__state_instance();
  }
  if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return 0;
  /* It exists and we cannot tell: keep off. */
  if (ergo__state_proc_stat(pid, &state, &start) != 0) return 1;
  if (state == 'Z' || state == 'X') return 0;
  if (starttime <= 0) return 1; /* the writer could not read its own: same caution */
  return start == starttime;
}

int ergo__state_lock_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  for (int waited = 0;; waited++) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
    if ((errno != EWOULDBLOCK && errno != EINTR) || waited == LOCK_WAIT_MS) break;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  int err = errno;
  close(fd);
  errno = err;
  return -1;
}

void ergo__state_release(char *const *claims, size_t n, const char *prefix, size_t plen) {
  for (size_t i = 0; i < n && plen; i++) {
    char buf[384];
    int fd = open(claims[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) continue;
    ssize_t r = read(fd, buf, sizeof buf);
    close(fd);
    /* Only our own: a claim taken over by someone who found us gone is theirs. */
    if (r >= (ssize_t)plen && memcmp(buf, prefix, plen) == 0) unlink(claims[i]);
  }
}
