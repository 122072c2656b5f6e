/* state_lock.c - the tracked list and its lock, the table the restore paths read without one,
 * and what a fork does to both. */
#include "knobs/state_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

ergo__state_ctx ergo__st = {.lock = PTHREAD_MUTEX_INITIALIZER};
static pthread_once_t once = PTHREAD_ONCE_INIT;

void ergo__state_forget(void) {
  state_table *t = atomic_exchange(&ergo__st.published, NULL);
  while (atomic_load(&ergo__st.readers) > 0) sched_yield();
  ergo__state_table_free(t);
  for (size_t i = 0; i < ergo__st.ntracked; i++) ergo__state_entry_free(ergo__st.tracked[i]);
  free(ergo__st.tracked);
  ergo__st.tracked = NULL;
  ergo__st.ntracked = ergo__st.tracked_cap = ergo__st.ncommitted = 0;
  for (size_t i = 0; i < ergo__st.nclaims; i++) free(ergo__st.claims[i]);
  free(ergo__st.claims);
  ergo__st.claims = NULL;
  ergo__st.nclaims = ergo__st.claims_cap = 0;
  atomic_store(&ergo__st.owner_pid, 0);
}

void ergo__state_forget_if_forked(void) {
  int owner = atomic_load(&ergo__st.owner_pid);
  if (owner && owner != (int)getpid()) ergo__state_forget();
}

/* The child of a fork has only the forking thread: a lock or a reader count held by another
 * thread of the parent would never be released. */
static void after_fork_child(void) {
  pthread_mutex_init(&ergo__st.lock, NULL);
  atomic_store(&ergo__st.readers, 0);
}

static void setup_once(void) { pthread_atfork(NULL, NULL, after_fork_child); }

void ergo__state_once(void) { pthread_once(&once, setup_once); }

void ergo__state_release_mine(void) {
  if (ergo__st.claims_pid == getpid())
    ergo__state_release(ergo__st.claims, ergo__st.nclaims, ergo__st.claim_prefix,
                        ergo__st.claim_prefix_len);
}

void ergo__state_reset(void) {
  ergo__state_once();
  pthread_mutex_lock(&ergo__st.lock);
  ergo__state_forget_if_forked(); /* a child never releases its parent's claims */
  ergo__state_release_mine();
  ergo__state_forget();
  pthread_mutex_unlock(&ergo__st.lock);
}
