/* state_claim.c - claims: which live ergo process tunes a sysfs directory (a cpufreq policy, an
 * uncore die).  A claim is a file claim-<hash> in the state directory, made with O_EXCL under a
 * lock on the directory, that holds its owner's pid, start time and program image id (its file
 * and owner: state_owner.c).  The first
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
