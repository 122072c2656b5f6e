/* state_claim.c - claims: which live ergo process tunes a sysfs directory (a cpufreq policy, an
 * uncore die).  A claim is a file claim-<hash> in the state directory, made with O_EXCL under a
 * lock on the directory, that holds its owner's pid, start time and program image id.  The first
 * process to track a file of a directory claims it; another leaves that directory alone while
 * the owner lives, and once the owner is gone (kill -9, its pid reused, or exec into another
 * program) restores the owner's state file before taking the claim, so the original it saves is
 * the true one. */
#include "knobs/state_internal.h"

#include "ergo.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

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

/* The first time this image claims anything: a state file under our own pid that this image did
 * not write is an earlier program image's (exec) or an earlier process's (pid reuse), whose
 * restore paths never ran: put its files back first, or our originals would be its values. */
static void take_over_own(const char *dir) {
  static pid_t checked;
  if (checked == getpid()) return;
  checked = getpid();
  char msg[WHY_LEN];
  ergo__claim_owner me = {.pid = (long)getpid(), .start = -1};
  if (ergo__state_restore_owner(dir, &me, ergo__state_instance(), msg, sizeof msg) > 0)
    ergo__warn("%s", msg);
  else if (msg[0])
    ergo__note("%s", msg);
}

int ergo__state_claim(const char *domain, const char *path, char *claim, size_t n, long *holder) {
  char dir[PATH_MAX], why[WHY_LEN];
  claim[0] = '\0';
  /* No usable state directory: the commit refuses, says why, and nothing is written. */
  if (ergo__state_pick_dir(dir, sizeof dir, why, sizeof why) != 0) return 0;
  if (ergo__state_claim_path(dir, domain, claim, n) != 0) {
    claim[0] = '\0';
    return 0;
  }
  int lock = ergo__state_lock_dir(dir);
  if (lock < 0) {
    ergo__warn("cannot lock the state directory %s to claim %s: %s; not changing it (fix: if an "
               "ergo process is stopped, resume or end it)",
               dir, domain, strerror(errno));
    claim[0] = '\0';
    return ERGO_EIO;
  }
  take_over_own(dir);
  if (ergo__st.claims_pid != getpid()) {
    char state;
    long long start = 0;
    if (ergo__state_proc_stat(0, &state, &start) != 0) start = 0;
    int len = snprintf(ergo__st.claim_prefix, sizeof ergo__st.claim_prefix, "%ld %lld %016llx %s ",
                       (long)getpid(), start, (unsigned long long)ergo__state_instance(),
                       ergo__state_host());
    ergo__st.claim_prefix_len = (size_t)len;
    ergo__st.claims_pid = getpid();
  }
  int rc = ERGO_EIO;
  for (int attempt = 0; attempt < 4; attempt++) {
    int fd = open(claim, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd >= 0) {
      char line[PATH_MAX + 96];
      int len = snprintf(line, sizeof line, "%s%s\n", ergo__st.claim_prefix, domain);
      ssize_t w = write(fd, line, (size_t)len);
      int err = w == len ? 0 : w < 0 ? errno : EIO;
      if (close(fd) != 0 && !err) err = errno;
      if (err) {
        unlink(claim);
        ergo__warn("cannot write the claim %s for %s: %s; not changing it", claim, path,
                   strerror(err));
        break;
      }
      rc = 0;
      break;
    }
    if (errno != EEXIST) {
      ergo__warn("cannot create the claim %s for %s: %s; not changing it", claim, path,
                 strerror(errno));
      break;
    }
    ergo__claim_owner o;
    int got = ergo__state_claim_read(claim, &o);
    if (got == 0) continue; /* released meanwhile (by a handler, which takes no lock) */
    if (got == 1 && o.pid == (long)getpid() && o.instance == ergo__state_instance()) {
      rc = 0; /* ours already (another spelling of the same directory) */
      break;
    }
    if (got == 1 && ergo__state_owner_alive(o.pid, o.start, o.instance)) {
      if (holder) *holder = o.pid;
      rc = ERGO_EBUSY;
      break;
    }
    if (got == 1) {
      /* Its owner is gone: its state file holds the true original; put it back first. */
      char msg[WHY_LEN];
      if (ergo__state_restore_owner(dir, &o, 0, msg, sizeof msg) > 0) {
        ergo__warn("%s; not changing %s", msg, path);
        break;
      }
      if (msg[0]) ergo__note("%s", msg);
    }
    /* Gone, or half made by a process that died making it (we hold the lock it held). */
    if (unlink(claim) != 0 && errno != ENOENT) {
      ergo__warn("cannot remove the stale claim %s: %s; not changing %s", claim, strerror(errno),
                 path);
      break;
    }
  }
  close(lock);
  if (rc) claim[0] = '\0';
  return rc;
}
