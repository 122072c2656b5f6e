/* timers.c - the FIND_HSML structure of the SPACE-Timers paper (appendix B) with small real work.
 */
#include <ergo.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Real floating-point work whose cost scales with `n`; the result is kept so
 * the compiler cannot drop it. */
static volatile double sink;
/* Work units scale: the default 5 steps take about half a second. */
enum { K = 5 };
static void work(long n) {
  double s = 0;
  for (long i = 1; i <= n; i++) s += sqrt((double)i) * sin((double)i);
  sink += s;
}

static int iteration_needed(int iter) { return iter < 2; }
static int all_particles_done(int round) { return round >= 3; }

static void find_hsml(void) {
  ERGO_PUSH(1, "FIND_HSML");
  ERGO_PUSH(2, "Setup_Left/Right");
  ERGO_PUSH(1, "HSML_SETUP");
  work(K * 2000);
  ERGO_POP(1, "HSML_SETUP");
  ERGO_POP(2, "Setup_Left/Right");
  int iter = 0;
  do {
    int round = 0;
    do {
      ERGO_PUSH(2, "Primary");
      ERGO_PUSH(1, "HSML_COMPUTE");
      work(K * 60000);
      ERGO_POP(1, "HSML_COMPUTE");
      ERGO_PUSH(1, "HSML_COMM_PREP");
      work(K * 8000);
      ERGO_POP(1, "HSML_COMM_PREP");
      ERGO_PUSH(1, "HSML_COPY");
      work(K * 1500);
      ERGO_POPPUSH(1, "HSML_COPY", "HSML_COMM_EXC");
      work(K * 4000);
      ERGO_POP(1, "HSML_COMM_EXC");
      ERGO_POP(2, "Primary");
      ERGO_PUSH(2, "Secondary");
      ERGO_PUSH(1, "HSML_COMPUTE");
      work(K * 90000);
      ERGO_POP(1, "HSML_COMPUTE");
      ERGO_PUSH(1, "HSML_WAIT");
      work(K * 9000);
      ERGO_POP(1, "HSML_WAIT");
      ERGO_POP(2, "Secondary");
      ERGO_PUSH(2, "Send_Results");
      ERGO_PUSH(1, "HSML_COMM_EXC");
      work(K * 5000);
      ERGO_POP(1, "HSML_COMM_EXC");
      ERGO_PUSH(1, "HSML_COPY");
      work(K * 1000);
      ERGO_POP(1, "HSML_COPY");
      ERGO_POP(2, "Send_Results");
      round++;
    } while (!all_particles_done(round));
    ERGO_PUSH(2, "Exchange");
    work(K * 30000);
    ERGO_POP(2, "Exchange");
    ERGO_PUSH(2, "Final");
    ERGO_PUSH(1, "HSML_FINAL");
    work(K * 10000);
    ERGO_POP(1, "HSML_FINAL");
    ERGO_POP(2, "Final");
    iter++;
  } while (iteration_needed(iter));
  ERGO_PUSH(2, "Extra");
  ERGO_PUSH(1, "HSML_STATS_EXIT");
  work(K * 2000);
  ERGO_POP(1, "HSML_STATS_EXIT");
  ERGO_POP(2, "Extra");
  ERGO_POP(1, "FIND_HSML");
}

static void simple_region(int level, const char *name, long n) {
  ERGO_PUSH(level, name);
  work(n);
  ERGO_POP(level, name);
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 5;
  if (steps < 1) {
    fprintf(stderr, "usage: %s [steps>=1]\n", argv[0]);
    return 2;
  }
  /* The macro forms let this file build without ergo at all (-DERGO_DISABLE). */
  if (ERGO_INIT() != 0) return 1;
  for (int step = 1; step <= steps; step++) {
    ERGO_PUSH(0, "Timestep");
    find_hsml();
    ERGO_PUSH(1, "HYDRO_ACCEL");
    simple_region(2, "HYDRO_COMPUTE", K * 400000);
    simple_region(2, "HYDRO_COMM", K * 60000);
    ERGO_POP(1, "HYDRO_ACCEL");
    ERGO_PUSH(1, "COMPUTE_UNIFIED_GRADIENTS");
    simple_region(2, "Primary", K * 250000);
    simple_region(2, "Secondary", K * 100000);
    ERGO_POP(1, "COMPUTE_UNIFIED_GRADIENTS");
    ERGO_PUSH(1, "check_stop_condition");
    work(K * 120000);
    ERGO_PUSH(2, "IO");
    simple_region(3, "RESTART_WRITE", K * 30000);
    ERGO_POP(2, "IO");
    ERGO_POP(1, "check_stop_condition");
    simple_region(1, "DRIFT", K * 40000);
    ERGO_PUSH(1, "DOMAIN");
    simple_region(2, "PEANO", K * 12000);
    ERGO_POP(1, "DOMAIN");
    work(K * 40000); /* time of the step that no region names: "Unaccounted" */
    ERGO_POP(0, "Timestep");
    ERGO_STEP(step);
  }
  return ERGO_FINALIZE() == 0 ? 0 : 1;
}
