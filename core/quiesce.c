/* quiesce.c - finalize waits until no thread is inside a push, pop or poppush: a thread still
 * running regions while another calls ergo_finalize must never touch a freed tree or a hook
 * whose layer has stopped.
 *
 * Every thread that ever enters the hot path owns a reader slot (never freed; a thread's slot
 * goes back to a free list when it exits).  A call marks its slot busy *before* it reads the
 * epoch and clears it when it is done (a release store).  Finalize sets the epoch to 0, makes
 * every thread's earlier stores visible with membarrier(2), then waits for each slot to be
 * idle: a thread that marked itself busy before the barrier is waited for; one that marks
 * itself after it reads epoch 0 and does nothing.  The hot path pays two plain stores; where
 * membarrier is unavailable (an old kernel, a seccomp filter) it pays a full fence instead. */
#include "internal.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

__thread ergo__reader *ergo__tls_reader __attribute__((tls_model("initial-exec")));
int ergo__reader_fence;
#if defined(__SANITIZE_THREAD__)
int ergo__fence_word;
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static ergo__reader *all; /* every slot ever made, in use or free */
static int barrier_cmd;   /* the membarrier command finalize issues; 0: readers fence */

static long membarrier(int cmd, unsigned flags) {
#ifdef __NR_membarrier
  return syscall(__NR_membarrier, cmd, flags, 0);
#else
  (void)cmd, (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}

/* A thread ends: it cannot be inside a call, so its slot is free for the next thread. */
static void on_thread_exit(void *p) {
  ergo__reader *r = p;
  pthread_mutex_lock(&lock);
  __atomic_store_n(&r->in_use, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}

static void setup(void) {
  (void)pthread_key_create(&key, on_thread_exit);
  long cmds = membarrier(MEMBARRIER_CMD_QUERY, 0);
  if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
      membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0)
    barrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
  else if (cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL))
    barrier_cmd = MEMBARRIER_CMD_GLOBAL;
  __atomic_store_n(&ergo__reader_fence, barrier_cmd == 0, __ATOMIC_RELAXED);
}

void ergo__readers_start(void) { pthread_once(&once, setup); }

ergo__reader *ergo__reader_register(void) {
  pthread_once(&once, setup);
  pthread_mutex_lock(&lock);
  ergo__reader *r = all;
  while (r && __atomic_load_n(&r->in_use, __ATOMIC_RELAXED)) r = r->next;
  if (!r && (r = calloc(1, sizeof *r)) != NULL) {
    r->next = all;
    all = r;
  }
  if (r) {
    __atomic_store_n(&r->busy, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&r->in_use, 1, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&lock);
  if (!r) return NULL;
  (void)pthread_setspecific(key, r);
  ergo__tls_reader = r;
  return r;
}

int ergo__readers_quiesce(double timeout_s) {
  pthread_once(&once, setup);
  /* The caller has stored epoch 0; every thread's busy mark made before now becomes visible
   * (membarrier cannot fail once set up; without it the readers fence themselves). */
  if (barrier_cmd) (void)membarrier(barrier_cmd, 0);
  ERGO__FULL_FENCE();
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int busy = 0;
  pthread_mutex_lock(&lock);
  for (ergo__reader *r = all; r; r = r->next) {
    if (r == ergo__tls_reader) continue; /* finalize itself is not inside a call */
    for (;;) {
      if (!__atomic_load_n(&r->in_use, __ATOMIC_ACQUIRE) ||
          __atomic_load_n(&r->busy, __ATOMIC_ACQUIRE) == 0)
        break;
      clock_gettime(CLOCK_MONOTONIC, &now);
      if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) >
          timeout_s) {
        busy++;
        break;
      }
      sched_yield();
    }
  }
  pthread_mutex_unlock(&lock);
  return busy;
}
