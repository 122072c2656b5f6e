/* threads.c - the OpenMP thread-count knob: 1..the thread count the application started with
 * (or ERGO_THREADS_MAX), within the cores of this process's cpuset. */
#include "knobs/cpuset.h"
#include "knobs/knob.h"

#include "ergo.h"

#include <omp.h>
#include <stdlib.h>

/* What open() found, for restore(). */
typedef struct thr_priv {
  int nthreads; /* nthreads-var: OMP_NUM_THREADS, else the runtime's default */
  int dynamic;  /* dyn-var: OMP_DYNAMIC */
} thr_priv;

/* ERGO_THREADS_MAX, from the runtime before the knobs open; 0 = the starting count. */
static int ceiling_max;

void ergo__threads_ceiling(int max) { ceiling_max = max > 0 ? max : 0; }

static int threads_open(ergo__knob *k, char *why, size_t whylen) {
  why[0] = '\0';
  ergo__cpuset cs;
  int rc = ergo__cpuset_get(&cs, why, whylen);
  if (rc != 0) return rc;
  thr_priv *p = malloc(sizeof *p);
  if (!p) return ERGO_ENOMEM;
  /* Cores, not hardware threads: a second thread on a core shares its units. */
  int n = cs.ncores >= 1 ? cs.ncores : 1;
  /* OMP_THREAD_LIMIT caps every region: a count above it would be a lie. */
  int limit = omp_get_thread_limit();
  if (limit >= 1 && n > limit) n = limit;
  /* Codes size per-thread arrays once from omp_get_max_threads() (LULESH does): a team larger
   * than the count they started with overruns them.  Only the user may raise the ceiling. */
  int ceiling = ceiling_max > 0 ? ceiling_max : omp_get_max_threads();
  if (ceiling >= 1 && n > ceiling) n = ceiling;
  /* knob.h's table bounds the search space; beyond it, the largest counts go. */
  if (n > ERGO__KNOB_MAX_VALUES) n = ERGO__KNOB_MAX_VALUES;
  for (int i = 0; i < n; i++) k->values[i] = i + 1;
  k->nvalues = n;
  p->nthreads = omp_get_max_threads();
  p->dynamic = omp_get_dynamic();
  k->priv = p;
  return 0;
}

static int threads_get(ergo__knob *k, int64_t *value) {
  (void)k;
  *value = omp_get_max_threads();
  return 0;
}

/* omp_set_num_threads sets nthreads-var of the calling thread only (it
 * overrides what OMP_NUM_THREADS put there): the next parallel region that
 * thread starts uses it.  ergo applies settings on the thread that pushes
 * the region, the main thread outside parallel regions, which is the one
 * that forks the application's teams. */
static int threads_set(ergo__knob *k, int64_t value) {
  thr_priv *p = k->priv;
  if (!ergo__knob_settable(k, value)) return ERGO_EINVAL;
  /* With dyn-var true (OMP_DYNAMIC=true) the runtime may start fewer threads
   * than asked (libgomp does when the load average is high); the knob must
   * mean what it says, so dynamic adjustment is off while ergo tunes and
   * restore() puts it back. */
  if (p->dynamic) omp_set_dynamic(0);
  omp_set_num_threads((int)value);
  return 0;
}

/* Inside a parallel construct (any level, active or not) the team is already formed: a count
 * set now would only size teams nested in it, which the region's code does not start.  One
 * read of the thread's ICVs: cheap enough for every push. */
static int threads_inert(const ergo__knob *k) {
  (void)k;
  return omp_get_level() > 0;
}

static int threads_save(ergo__knob *k) {
  (void)k; /* no file: restore() puts the count back */
  return 0;
}

static void threads_restore(ergo__knob *k) {
  thr_priv *p = k->priv;
  if (!p) return;
  omp_set_num_threads(p->nthreads);
  omp_set_dynamic(p->dynamic);
}

static void threads_close(ergo__knob *k) {
  free(k->priv);
  k->priv = NULL;
}

const ergo__knob_ops ergo__knob_threads = {
    .open = threads_open,
    .get = threads_get,
    .set = threads_set,
    .save = threads_save,
    .restore = threads_restore,
    .close = threads_close,
    .inert = threads_inert,
};
