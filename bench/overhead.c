/* overhead.c - what one region costs: prints ns per push/pop pair next to the clock's own cost. */
#include "ergo.h"

#include "overhead.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BENCH_HAVE_TSC 1
#else
#define BENCH_HAVE_TSC 0
#endif

/* Each figure is the best of this many runs: the minimum is the cost without
 * interference from the rest of the machine. */
#define REPS 5
#define DEFAULT_ITERS 20000000L

static volatile uint64_t sink;

/* The stopwatch is always CLOCK_MONOTONIC, whichever clock ergo uses. */
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pair_loop(long n) {
  ERGO_PUSH(1, "bench_parent");
  for (long i = 0; i < n; i++) {
    ERGO_PUSH(2, "bench_pair");
    ERGO_POP(2, "bench_pair");
  }
  ERGO_POP(1, "bench_parent");
}

/* A name built at run time: found by content (ergo_push_at), not by pointer. */
static void dynamic_loop(long n) {
  char name[32];
  snprintf(name, sizeof name, "bench_dyn_%d", (int)(n & 7));
  ERGO_PUSH(1, "bench_parent");
  for (long i = 0; i < n; i++) {
    ergo_push_at(2, name, __FILE__, __LINE__);
    ergo_pop_at(2, name, __FILE__, __LINE__);
  }
  ERGO_POP(1, "bench_parent");
}

/* n iterations of four nested pairs: divided by 4n, the cost of one pair in a nest. */
static void nested4_loop(long n) {
  for (long i = 0; i < n; i++) {
    ERGO_PUSH(1, "bench_n1");
    ERGO_PUSH(2, "bench_n2");
    ERGO_PUSH(3, "bench_n3");
    ERGO_PUSH(4, "bench_n4");
    ERGO_POP(4, "bench_n4");
    ERGO_POP(3, "bench_n3");
    ERGO_POP(2, "bench_n2");
    ERGO_POP(1, "bench_n1");
  }
}

#if BENCH_HAVE_TSC
static void tsc_loop(long n) {
  for (long i = 0; i < n; i++) {
    sink = __rdtsc();
    sink = __rdtsc();
  }
}
#endif

static void mono_loop(long n) {
  struct timespec ts;
  for (long i = 0; i < n; i++) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    sink = (uint64_t)ts.tv_nsec;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    sink = (uint64_t)ts.tv_nsec;
  }
}

/* One timed run of fn(n), in ns per pair (n * per_iter pairs). */
static double run_ns(void (*fn)(long), long n, int per_iter) {
  uint64_t t0 = now_ns();
  fn(n);
  uint64_t t1 = now_ns();
  return (double)(t1 - t0) / ((double)n * per_iter);
}

static void keep_min(double *best, double x, int first) {
  if (first || x < *best) *best = x;
}

int main(int argc, char **argv) {
  long iters = DEFAULT_ITERS;
  if (argc > 1) {
    char *end;
    iters = strtol(argv[1], &end, 10);
    if (*end || iters < 4) {
      fprintf(stderr, "usage: %s [iterations >= 4] (default %ld)\n", argv[0], DEFAULT_ITERS);
      return 2;
    }
  }

  /* The environment may pick the clock (ERGO_CLOCK); the report is never wanted. */
  ergo_config cfg;
  ergo_config_default(&cfg);
  ergo_config_from_env(&cfg);
  cfg.report = "none";
  cfg.report_json = cfg.report_hatchet = cfg.report_csv = NULL;
  int rc = ergo_init(&cfg);
  if (rc) {
    fprintf(stderr, "ergo_init: %s\n", ergo_strerror(rc));
    return 1;
  }
  /* The same clock ergo reads, read the same way, twice per iteration. */
  const char *clock = ergo_clock_name();
#if BENCH_HAVE_TSC
  void (*clock_loop)(long) = strcmp(clock, "tsc") == 0 ? tsc_loop : mono_loop;
#else
  void (*clock_loop)(long) = mono_loop;
#endif

  /* Warm up: create the nodes and fault in the stack once. */
  pair_loop(1000);
  dynamic_loop(1000);
  nested4_loop(1000);

  /* Repetitions go round all figures, so a slow spell of the machine hits
   * them alike instead of one figure's five runs. */
  double pair = 0, clock_pair = 0, off = 0, dyn = 0, nested = 0;
  for (int r = 0; r < REPS; r++) {
    keep_min(&pair, run_ns(pair_loop, iters, 1), r == 0);
    keep_min(&clock_pair, run_ns(clock_loop, iters, 1), r == 0);
    keep_min(&off, run_ns(ergo_bench_off_loop, iters, 1), r == 0);
    keep_min(&dyn, run_ns(dynamic_loop, iters, 1), r == 0);
    keep_min(&nested, run_ns(nested4_loop, iters / 4, 4), r == 0);
  }

  unsigned long errors = ergo_error_count();
  ergo_finalize();

  printf("clock=%s\n", clock);
  printf("iterations=%ld\n", iters);
  printf("pair_ns=%.2f\n", pair);
  printf("clock_pair_ns=%.2f\n", clock_pair);
  printf("compiled_out_pair_ns=%.2f\n", off);
  printf("dynamic_pair_ns=%.2f\n", dyn);
  printf("nested4_pair_ns=%.2f\n", nested);
  if (errors) printf("region_errors=%lu\n", errors);
  printf("ratio=%.2f\n", clock_pair > 0 ? pair / clock_pair : 0.0);
  return 0;
}
