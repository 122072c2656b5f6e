/* per_thread.c - an OpenMP code that sizes its per-thread arrays once, from omp_get_max_threads()
 * at start (as LULESH does), and aborts if a parallel region ever has a thread beyond them: the
 * threads knob must never raise the count above the one the code started with
 * (ERGO_THREADS_MAX aside).
 *
 *   per_thread [--steps N] [--size N] [--need-team N]
 *
 * --size sizes the arrays with N instead (a code that sizes them otherwise, for ERGO_THREADS_MAX);
 * --need-team N fails (exit 2) unless some team had N threads (the raised ceiling was used);
 * --need-small-team N fails unless some team had N threads or fewer (the knob acted below the
 * starting count).  Exit 77 with "SKIPPED: why" when this machine has fewer processors than
 * --need-team asks for.
 * Each step runs "work" (a parallel region of about 3 ms), with "inner" pushed by the main thread
 * inside a parallel region (where the threads knob cannot act). */
#include "ergo.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int size;     /* of the per-thread arrays */
static double *sums; /* one per thread */
static int max_team; /* the largest team seen */
static int min_team; /* the smallest */

static void spin(double seconds) {
  double end = now_s() + seconds, x = 0;
  while (now_s() < end) x += 1e-9;
  int t = omp_get_thread_num();
  if (t >= size) {
    fprintf(stderr,
            "per_thread: thread %d of a team of %d, but the per-thread arrays hold %d "
            "(omp_get_max_threads() at start): overrun\n",
            t, omp_get_num_threads(), size);
    abort();
  }
  sums[t] += x;
  int n = omp_get_num_threads();
#pragma omp critical
  {
    if (n > max_team) max_team = n;
    if (!min_team || n < min_team) min_team = n;
  }
}

int main(int argc, char **argv) {
  long steps = 40;
  int need = 0, need_small = 0;
  size = omp_get_max_threads();
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
      steps = atol(argv[++i]);
    else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
      size = atoi(argv[++i]);
    else if (strcmp(argv[i], "--need-team") == 0 && i + 1 < argc)
      need = atoi(argv[++i]);
    else if (strcmp(argv[i], "--need-small-team") == 0 && i + 1 < argc)
      need_small = atoi(argv[++i]);
    else {
      fprintf(stderr,
              "usage: per_thread [--steps N] [--size N] [--need-team N] [--need-small-team N]\n");
      return 2;
    }
  }
  if (need > omp_get_num_procs()) {
    printf("SKIPPED: --need-team %d but this machine has %d processor(s)\n", need,
           omp_get_num_procs());
    return 77;
  }
  if (size < 1 || !(sums = calloc((size_t)size, sizeof *sums))) return 2;
  if (ergo_init(NULL) != 0) return 2;
  for (long s = 0; s < steps; s++) {
    ERGO_PUSH(1, "work");
#pragma omp parallel
    spin(0.003);
    ERGO_PUSH(2, "nested");
#pragma omp parallel
    {
      /* The main thread pushes a region inside the team: the knob must leave it alone. */
#pragma omp master
      ERGO_PUSH(3, "inner");
      spin(0.003);
#pragma omp barrier
#pragma omp master
      ERGO_POP(3, "inner");
    }
    ERGO_POP(2, "nested");
    ERGO_POP(1, "work");
    ergo_step(s);
  }
  ergo_finalize();
  printf("per_thread: arrays of %d, teams of %d to %d\n", size, min_team, max_team);
  /* sums is not freed: the process ends here, and TSan, which cannot see libgomp's barrier at
   * the end of a team (Debian's libgomp is not instrumented), would take the free for a race
   * with the team's writes.  It stays reachable (a file-scope pointer), so no leak is reported. */
  if (need && max_team < need) {
    printf("per_thread: no team had %d threads\n", need);
    return 2;
  }
  if (need_small && min_team > need_small) {
    printf("per_thread: no team had %d threads or fewer\n", need_small);
    return 2;
  }
  return 0;
}
