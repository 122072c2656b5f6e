/* state.h - the saved original values of every file ergo writes, and how they come back:
 * at finalize, at exit, on fatal signals (async-signal-safe), and by `ergo restore` after kill -9.
 * Implemented by knobs/state_*.c, one job per file (knobs/state_internal.h lists them). */
#ifndef ERGO_KNOBS_STATE_H
#define ERGO_KNOBS_STATE_H

#include <stdio.h>
#include <sys/types.h>

/* Remember `path`'s current contents (once per path, first call wins) so
 * that it can be written back.  Call before the first write to it.  The
 * order of calls is the order of restoring (e.g. governor before setspeed).
 * First claims the file's directory (a cpufreq policy, an uncore die) for
 * this process: while another live process holds it, returns ERGO_EBUSY with
 * *holder (if given) set to its pid and nothing said: the caller leaves that
 * directory alone and says so once.  A holder that is gone has its state
 * file restored first, so the contents saved are the true originals.
 * 0, or a negative ERGO_E* with one line said (unreadable file). */
int ergo__state_track(const char *path, long *holder);

/* Write the state file (atomically: temp + rename) listing every tracked
 * file with its original contents, and on the first call install the
 * restore paths: atexit, and handlers for SIGINT, SIGTERM, SIGHUP, SIGSEGV,
 * SIGBUS, SIGFPE and SIGABRT that restore, then re-raise with the previous
 * disposition.  Call after tracking and before writing.  0 or ERGO_E*. */
int ergo__state_commit(void);

/* Write every tracked file back to its original contents and, if that
 * worked, remove the state file and release the claims.  Safe to call twice.  Returns the number of
 * files that could not be restored (each said in one line). */
int ergo__state_restore(void);

/* fn runs first in the exit restore (atexit, in the committing process only): the runtime's
 * finalize at exit, which unwinds the settings stack and restores through the knobs.  Files
 * written back before the settings unwind would be changed again by the unwinding, with nothing
 * left to restore them.  NULL: none. */
void ergo__state_exit_first(void (*fn)(void));

/* The directory of state files: $ERGO_STATE_DIR, else /run/ergo when
 * writable (root), else /tmp/ergo-UID. */
const char *ergo__state_dir(void);

/* `ergo restore`: restore the files of state files whose process is gone
 * (pid == 0: all such; else only that pid, which must be gone too); with
 * dry_run only say what would be written.  One line per file to out, and each
 * failure or refusal to err (after "ergo restore: " unless err is out; NULL:
 * out).  The state directory is never created: a missing one is nothing to
 * restore.  A file
 * whose directory a live process claims is left alone (and its state file
 * stays); the claims of the processes restored are removed, and so are
 * claims whose owner is gone and left no state file.
 * Returns the number of failures (0 = all restored or nothing to do). */
int ergo__state_restore_dead(pid_t pid, int dry_run, FILE *out, FILE *err);

/* Forget everything tracked, releasing this process's claims (tests). */
void ergo__state_reset(void);

#endif
