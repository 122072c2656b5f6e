/* state_lock.c - the tracked list and its lock, the table the restore paths read without one,
 * and what a fork does to both. */
#include "knobs/state_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

pthread_mutex_t ergo__state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
state_entry **ergo__state_tracked;
size_t ergo__state_ntracked, ergo__state_tracked_cap, ergo__state_ncommitted;

_Atomic(state_table *) ergo__state_published;
atomic_int ergo__state_readers;
atomic_int ergo__state_owner_pid;

void ergo__state_forget(void) {
  state_table *t = atomic_exchange(&ergo__state_published, NULL);
  while (atomic_load(&ergo__state_readers) > 0) sched_yield();
  ergo__state_table_free(t);
  for (size_t i = 0; i < ergo__state_ntracked; i++) ergo__state_entry_free(ergo__state_tracked[i]);
  free(ergo__state_tracked);
  ergo__state_tracked = NULL;
  ergo__state_ntracked = ergo__state_tracked_cap = ergo__state_ncommitted = 0;
  atomic_store(&ergo__state_owner_pid, 0);
}

void ergo__state_forget_if_forked(void) {
  int owner = atomic_load(&ergo__state_owner_pid);
  if (owner && owner != (int)getpid()) ergo__state_forget();
}

/* The child of a fork has only the forking thread: a lock or a reader count held by another
 * thread of the parent would never be released. */
static void after_fork_child(void) {
  pthread_mutex_init(&ergo__state_lock, NULL);
  atomic_store(&ergo__state_readers, 0);
}

static void setup_once(void) { pthread_atfork(NULL, NULL, after_fork_child); }

void ergo__state_once(void) { pthread_once(&once, setup_once); }

void ergo__state_reset(void) {
  ergo__state_once();
  pthread_mutex_lock(&ergo__state_lock);
  ergo__state_forget();
  pthread_mutex_unlock(&ergo__state_lock);
}
