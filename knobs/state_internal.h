/* state_internal.h - what the knobs/state_*.c files share, and nothing else includes: the tracked
 * entries, the table the restore paths read, the lock, and each file's helpers for the others.
 * knobs/state.h is the interface for the rest of ergo.
 *
 *   state_lock.c          the tracked list, its lock, the handler's lock-free view, fork safety
 *   state_entry.c         one tracked file in memory (and how a message shows its contents)
 *   state_dir.c           the state directory: $ERGO_STATE_DIR, /run/ergo or /tmp/ergo-UID
 *   state_track.c         tracking a file: reading its original contents
 *   state_file.c          writing the state file, then arming the restore paths
 *   state_signal.c        the restore paths nobody calls: fatal signals and atexit
 *   state_restore.c       writing originals back (async-signal-safe), and restoring this process
 *   state_restore_dead.c  `ergo restore`: the state files of processes that died
 *   state_owner.c         who holds what: this process's identity, claim files and whether
 *                         their owner runs, the directory's lock (calls none of the others)
 *   state_claim.c         taking a claim on a sysfs directory, and taking over from an owner
 *                         that is gone */
#ifndef ERGO_KNOBS_STATE_INTERNAL_H
#define ERGO_KNOBS_STATE_INTERNAL_H

#include "knobs/state.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A sysfs attribute is at most one page: anything longer is not a knob's file. */
#define CONTENT_MAX 4096
#define STATE_FORMAT "ergo-knob-state"
#define STATE_VERSION 1
#define WHY_LEN 512

/* One tracked file.  Never changed once made, so a signal handler may read it at any moment. */
typedef struct state_entry {
  char *path;
  char *content; /* the original bytes, as read */
  size_t len;
  int placeholder; /* "<unsupported>": the kernel's text for "no value"; nothing to write back */
  char *failmsg;   /* the handler's line when writing back fails: no formatting in a handler */
  size_t failmsg_len;
} state_entry;

/* What the restore paths use: the entries of the last commit, published as one pointer so a
 * handler sees either the old list or the new one, never one being built. */
typedef struct state_table {
  char *state_path;
  struct state_table *older; /* tables a handler may still be reading: freed with this one */
  char **claims;             /* the claims to release once every file is back */
  size_t nclaims;
  size_t n;
  state_entry *e[];
} state_table;

/* ---- state_lock.c ---- */

/* The state layer's context: the tracked list under its lock, and the handler's view. */
typedef struct ergo__state_ctx {
  /* Everything but the handler's view is guarded by lock. */
  pthread_mutex_t lock;
  state_entry **tracked;
  size_t ntracked, tracked_cap, ncommitted;
  /* The claim files this process holds (state_claim.c), and how their contents start. */
  char **claims;
  size_t nclaims, claims_cap;
  pid_t claims_pid;       /* the process claim_prefix is of */
  char claim_prefix[384]; /* "pid start instance host " */
  size_t claim_prefix_len;
  /* The handler's view: lock-free atomics only. */
  _Atomic(state_table *) published;
  atomic_int readers;   /* handlers reading the published table right now */
  atomic_int owner_pid; /* the process that committed: any other (a fork) restores nothing */
} ergo__state_ctx;
extern ergo__state_ctx ergo__st;

/* Once per process, before the first lock: re-initialise the lock in a forked child. */
void ergo__state_once(void);
/* Forget everything: unpublish first, wait out any handler still reading, then free.  Under the
 * lock. */
void ergo__state_forget(void);
/* In a child of a committed process: the parent's files are the parent's to restore.  Under the
 * lock. */
void ergo__state_forget_if_forked(void);
/* Release the claims this process took (not a forked child's copy of its parent's list).  Under
 * the lock. */
void ergo__state_release_mine(void);

/* ---- state_entry.c ---- */

state_entry *ergo__state_entry_new(const char *path, const char *content, size_t len);
void ergo__state_entry_free(state_entry *e);
/* Free a table and the older ones it keeps (not their entries). */
void ergo__state_table_free(state_table *t);
/* `len` bytes for a message: one trailing newline dropped, quotes and control bytes escaped. */
const char *ergo__state_shown(const char *s, size_t len, char *buf, size_t n);

/* ---- state_dir.c ---- */

/* The state directory into buf (created if missing): 0, or -1 with why. */
int ergo__state_pick_dir(char *buf, size_t n, char *why, size_t whylen);
/* The same directory for `ergo restore`, never created: 0; 1 when it does not exist (why gets
 * its name, "ERGO_STATE_DIR=/x" or the path: nothing was ever saved there); -1 with why when it
 * cannot be used. */
int ergo__state_find_dir(char *buf, size_t n, char *why, size_t whylen);

/* ---- state_signal.c ---- */

/* Install the restore paths: a handler for every fatal signal not already ours, and once the
 * atexit restore.  Under the lock, after publishing a table. */
void ergo__state_arm(void);

/* ---- state_owner.c ---- */

/* Who holds a claim (and the state file of a process being taken over). */
typedef struct ergo__claim_owner {
  long pid;
  long long start;   /* field 22 of /proc/<pid>/stat; <= 0: unknown */
  uint64_t instance; /* the program image's random id; 0: unknown */
  char host[256];
  char domain[PATH_MAX];
} ergo__claim_owner;

/* This program image's random id (a new one after exec; the same in a forked child, whose pid
 * tells it apart). */
uint64_t ergo__state_instance(void);
/* This host's name, one word. */
const char *ergo__state_host(void);
/* The claim file of a directory: <dir>/claim-<hash of domain>.  0 or -1 (too long). */
int ergo__state_claim_path(const char *dir, const char *domain, char *buf, size_t n);
/* The directory a file belongs to, links resolved (cpuN/cpufreq -> cpufreq/policyN), into buf
 * (PATH_MAX).  0, or -1 with errno. */
int ergo__state_domain(const char *path, char *buf);
/* 1 with o filled, 0 when there is no such claim, -1 when it is unreadable or malformed. */
int ergo__state_claim_read(const char *claim, ergo__claim_owner *o);
/* 1 while the process (pid, start time, image id: 0 when unknown) runs; 0 once it is gone: no
 * such pid, a zombie, the pid reused by a process started at another time, or our own pid in
 * another program image. */
int ergo__state_owner_alive(long pid, long long starttime, uint64_t instance);
/* Lock the state directory (flock on it, waiting a few seconds at most): the descriptor to close,
 * or -1 with errno. */
int ergo__state_lock_dir(const char *dir);
/* Fields 3 (state) and 22 (start time in clock ticks since boot) of /proc/<pid>/stat (pid 0:
 * this process): a pid with another start time is another process that got the number again.
 * 0 or -1. */
int ergo__state_proc_stat(long pid, char *state, long long *starttime);
/* Remove each claim whose contents start with prefix (ours).  Async-signal-safe. */
void ergo__state_release(char *const *claims, size_t n, const char *prefix, size_t plen);

/* ---- state_claim.c ---- */

/* Claim `domain` (the directory of `path`) for this process, under the directory lock.  0: ours
 * (claim gets its file's path, "" when there is no usable state directory: the commit refuses
 * then); ERGO_EBUSY: a live process holds it (*holder gets its pid, nothing said); ERGO_EIO with
 * one line said.  Under ergo__st.lock. */
int ergo__state_claim(const char *domain, const char *path, char *claim, size_t n, long *holder);

/* ---- state_restore_dead.c ---- */

/* Under the directory lock: restore <dir>/<owner pid>.json, known to be gone, when it is that
 * owner's (start time, and image id when both are known, agree; not_instance != 0: any file of
 * that pid whose image id differs from not_instance).  Claims of that owner it restores are
 * removed.  Returns the files not restored, with msg saying what happened ("" when there was
 * nothing). */
int ergo__state_restore_owner(const char *dir, const ergo__claim_owner *owner,
                              uint64_t not_instance, char *msg, size_t n);

/* ---- state_restore.c ---- */

/* Two passes in tracking order: the second settles files the first could not write because of
 * another file's value (a minimum above the maximum still in force).  errs[i] gets entry i's
 * final errno; without errs (in a handler) failures print their precomputed line.  Returns the
 * number of files not restored.  Async-signal-safe. */
size_t ergo__state_write_all(state_entry *const *e, size_t n, int *errs);

#endif
