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
 *   state_restore_dead.c  `ergo restore`: the state files of processes that died */
#ifndef ERGO_KNOBS_STATE_INTERNAL_H
#define ERGO_KNOBS_STATE_INTERNAL_H

#include "knobs/state.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

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

/* ---- state_file.c ---- */

/* Fields 3 (state) and 22 (start time in clock ticks since boot) of /proc/<pid>/stat (pid 0:
 * this process): a pid with another start time is another process that got the number again.
 * 0 or -1. */
int ergo__state_proc_stat(long pid, char *state, long long *starttime);

/* ---- state_signal.c ---- */

/* Install the restore paths: a handler for every fatal signal not already ours, and once the
 * atexit restore.  Under the lock, after publishing a table. */
void ergo__state_arm(void);

/* ---- state_restore.c ---- */

/* Two passes in tracking order: the second settles files the first could not write because of
 * another file's value (a minimum above the maximum still in force).  errs[i] gets entry i's
 * final errno; without errs (in a handler) failures print their precomputed line.  Returns the
 * number of files not restored.  Async-signal-safe. */
size_t ergo__state_write_all(state_entry *const *e, size_t n, int *errs);

#endif
