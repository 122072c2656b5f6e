/* overhead.c - what one region costs: prints ns per push/pop pair next to the clock's own cost,
 * then how it scales: many siblings visited in random order, creating many regions, a step over
 * many regions, and the heap one region takes. */
#include "ergo.h"

#include "overhead.h"

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
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

/* The stopwatch, whichever clock ergo uses, is this thread's CPU time: on a machine shared with
 * other work the time spent waiting for a core is left out, so the best of a few runs is the cost
 * itself (on an idle machine it is the elapsed time).  --wall: CLOCK_MONOTONIC. */
static clockid_t stopwatch = CLOCK_THREAD_CPUTIME_ID;
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(stopwatch, &ts);
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

/* ---- scale: many siblings ------------------------------------------------------- */
#define ORDER_LEN 65536 /* a pseudo-random visiting order that does not repeat within a run */
#define MANY 100000
static char names_buf[MANY][24]; /* stable pointers: pushed as literals or by content */
static const char *names[MANY];
static uint32_t order[ORDER_LEN];
static long nsib; /* siblings the random loops visit */

static void make_order(long n) {
  uint64_t x = 0x2545f4914f6cdd1dull;
  for (long i = 0; i < ORDER_LEN; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    order[i] = (uint32_t)(x % (uint64_t)n);
  }
  nsib = n;
}

/* Every sibling once, so the timed loops find regions rather than make them. */
static void visit_all(const char *parent) {
  ergo_push_lit(1, parent, __FILE__, __LINE__);
  for (long k = 0; k < nsib; k++) {
    ergo_push_lit(2, names[k], __FILE__, __LINE__);
    ergo_pop_lit(2, names[k], __FILE__, __LINE__);
  }
  ergo_pop_lit(1, parent, __FILE__, __LINE__);
}

static void random_lit_loop(long n) {
  ergo_push_lit(1, "bench_random", __FILE__, __LINE__);
  for (long i = 0; i < n; i++) {
    const char *name = names[order[i & (ORDER_LEN - 1)]];
    ergo_push_lit(2, name, __FILE__, __LINE__);
    ergo_pop_lit(2, name, __FILE__, __LINE__);
  }
  ergo_pop_lit(1, "bench_random", __FILE__, __LINE__);
}

/* The same names found by content (ergo_push_at), as names built at run time are. */
static void random_rt_loop(long n) {
  ergo_push_lit(1, "bench_random_rt", __FILE__, __LINE__);
  for (long i = 0; i < n; i++) {
    const char *name = names[order[i & (ORDER_LEN - 1)]];
    ergo_push_at(2, name, __FILE__, __LINE__);
    ergo_pop_at(2, name, __FILE__, __LINE__);
  }
  ergo_pop_lit(1, "bench_random_rt", __FILE__, __LINE__);
}

/* Memory in use: the main malloc arena's blocks and those malloc mapped, plus mappings made
 * outside malloc (ergo's lookup tables): the process's private writable memory (VmData) less
 * the heap's extent and malloc's mapped blocks. */
static size_t heap_bytes(void) {
  struct mallinfo2 m = mallinfo2();
  size_t data_kb = 0;
  char line[128];
  FILE *f = fopen("/proc/self/status", "r");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmData: %zu kB", &data_kb) == 1) break;
  if (f) fclose(f);
  size_t other = data_kb * 1024 - (size_t)m.arena - m.hblkhd;
  return m.uordblks + m.hblkhd + other;
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
  for (int i = 1; i < argc; i++) {
    char *end;
    if (strcmp(argv[i], "--wall") == 0) {
      stopwatch = CLOCK_MONOTONIC;
      continue;
    }
    iters = strtol(argv[i], &end, 10);
    if (*end || iters < 4) {
      fprintf(stderr, "usage: %s [--wall] [iterations >= 4] (default %ld)\n", argv[0],
              DEFAULT_ITERS);
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

  /* Scale.  Literal names are stable pointers (ergo_push_lit), runtime ones the same text
   * found by content (ergo_push_at); both are visited in a pseudo-random order. */
  for (long k = 0; k < MANY; k++) {
    snprintf(names_buf[k], sizeof names_buf[k], "bench_region_%06ld", k);
    names[k] = names_buf[k];
  }
  long riters = iters / 10 > 100000 ? iters / 10 : 100000;
  double rnd3 = 0, rnd5 = 0, rt3 = 0;
  make_order(1000);
  ergo_push_lit(1, "bench_random_rt", __FILE__, __LINE__); /* the runtime loop's parent */
  ergo_pop_lit(1, "bench_random_rt", __FILE__, __LINE__);
  visit_all("bench_random");
  visit_all("bench_random_rt");
  for (int r = 0; r < REPS; r++) {
    keep_min(&rnd3, run_ns(random_lit_loop, riters, 1), r == 0);
    keep_min(&rt3, run_ns(random_rt_loop, riters, 1), r == 0);
  }
  /* Creating 1e5 siblings under a new parent (names made beforehand, not interned yet). */
  uint64_t c0 = now_ns();
  ergo_push_lit(1, "bench_create", __FILE__, __LINE__);
  for (long k = 0; k < MANY; k++) {
    ergo_push_at(2, names[k], __FILE__, __LINE__);
    ergo_pop_at(2, names[k], __FILE__, __LINE__);
  }
  ergo_pop_lit(1, "bench_create", __FILE__, __LINE__);
  double create_s = (double)(now_ns() - c0) * 1e-9;
  make_order(MANY);
  visit_all("bench_random");
  for (int r = 0; r < REPS; r++) keep_min(&rnd5, run_ns(random_lit_loop, riters, 1), r == 0);
  unsigned long errors = ergo_error_count();
  ergo_finalize();

  /* A fresh run: the heap 1e4 regions take in a tree (their names are interned already, as a
   * thread's regions find them), then ergo_step over them, with its step report and balance
   * line written to files. */
  char dir[] = "/tmp/ergo-bench-XXXXXX", steps[64], balance[64];
  double step_ms = 0, bytes = 0, lit_bytes = 0;
  if (mkdtemp(dir)) {
    snprintf(steps, sizeof steps, "%s/steps.txt", dir);
    snprintf(balance, sizeof balance, "%s/balance.txt", dir);
    cfg.step_report = steps;
    cfg.balance = balance;
    if ((rc = ergo_init(&cfg)) == 0) {
      const long nstep = 10000;
      ergo_push_lit(1, "bench_step", __FILE__, __LINE__);
      ergo_pop_lit(1, "bench_step", __FILE__, __LINE__);
      size_t h0 = heap_bytes();
      ergo_push_lit(1, "bench_step", __FILE__, __LINE__);
      for (long k = 0; k < nstep; k++) {
        ergo_push_at(2, names[k], __FILE__, __LINE__);
        ergo_pop_at(2, names[k], __FILE__, __LINE__);
      }
      ergo_pop_lit(1, "bench_step", __FILE__, __LINE__);
      bytes = (double)(heap_bytes() - h0) / (double)nstep;
      for (int r = 0; r < REPS; r++) {
        size_t l0 = heap_bytes();
        ergo_push_lit(1, "bench_step", __FILE__, __LINE__);
        for (long k = 0; k < nstep; k++) {
          ergo_push_lit(2, names[k], __FILE__, __LINE__);
          ergo_pop_lit(2, names[k], __FILE__, __LINE__);
        }
        ergo_pop_lit(1, "bench_step", __FILE__, __LINE__);
        /* The same regions pushed by literal pointer: what finding them so adds. */
        if (r == 0) lit_bytes = bytes + (double)(heap_bytes() - l0) / (double)nstep;
        uint64_t s0 = now_ns();
        ergo_step(r);
        keep_min(&step_ms, (double)(now_ns() - s0) * 1e-6, r == 0);
      }
      errors += ergo_error_count();
      ergo_finalize();
    } else {
      fprintf(stderr, "ergo_init (step run): %s\n", ergo_strerror(rc));
    }
    remove(steps);
    remove(balance);
    rmdir(dir);
  } else {
    perror("ergo-bench-overhead: mkdtemp");
  }

  printf("clock=%s\n", clock);
  printf("stopwatch=%s\n", stopwatch == CLOCK_MONOTONIC ? "wall" : "thread-cpu");
  printf("iterations=%ld\n", iters);
  printf("pair_ns=%.2f\n", pair);
  printf("clock_pair_ns=%.2f\n", clock_pair);
  printf("compiled_out_pair_ns=%.2f\n", off);
  printf("dynamic_pair_ns=%.2f\n", dyn);
  printf("nested4_pair_ns=%.2f\n", nested);
  printf("random_1e3_pair_ns=%.2f\n", rnd3);
  printf("random_1e5_pair_ns=%.2f\n", rnd5);
  printf("runtime_name_random_1e3_pair_ns=%.2f\n", rt3);
  printf("create_1e5_s=%.4f\n", create_s);
  printf("step_1e4_ms=%.3f\n", step_ms);
  printf("bytes_per_region=%.1f\n", bytes);
  printf("bytes_per_literal_region=%.1f\n", lit_bytes);
  if (errors) printf("region_errors=%lu\n", errors);
  printf("ratio=%.2f\n", clock_pair > 0 ? pair / clock_pair : 0.0);
  return 0;
}
