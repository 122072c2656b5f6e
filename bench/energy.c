/* energy.c - what one energy sample costs: µs per ergo__meter_read (all domains) for each meter;
 * then, where powercap opens (the fake RAPL machine, or a node), what energy per region costs a
 * program: the CPU time of a loop of 10 us, 100 us and 1 ms regions under ergo's default energy
 * settings against ERGO_ENERGY=none, interleaved in one run (overhead_<d>_pct, median of 3). */
#include "ergo.h"
#include "runtime/toolkit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Best of REPS runs: the minimum is the cost without interference. */
#define REPS 5
#define DEFAULT_READS 20000L

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The first line of a reason, without the "<meter>: " that open puts first. */
static const char *first_line(char *why, const char *name) {
  size_t n = strlen(name);
  if (strncmp(why, name, n) == 0 && strncmp(why + n, ": ", 2) == 0) why += n + 2;
  why[strcspn(why, "\n")] = '\0';
  return why;
}

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of `calls` regions of `us` busy microseconds each, with the given meter. */
static double region_loop(const char *energy, double us, long calls) {
  ergo_config c;
  ergo_config_default(&c);
  c.energy = energy;
  c.report = "none";
  c.step_report = "none";
  c.balance = "none";
  c.knobs = "none";
  if (ergo_init(&c) != 0) return -1;
  double t0 = cpu_s();
  for (long i = 0; i < calls; i++) {
    ERGO_PUSH(1, "r");
    uint64_t end = now_ns() + (uint64_t)(us * 1e3);
    while (now_ns() < end) {
    }
    ERGO_POP(1, "r");
  }
  double t = cpu_s() - t0;
  ergo_finalize();
  return t;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The program's view: overhead in % of CPU time, median over 3 interleaved pairs. */
static void region_overhead(void) {
  static const struct {
    const char *name;
    double us;
    long calls;
  } d[] = {{"10us", 10, 20000}, {"100us", 100, 2000}, {"1ms", 1000, 200}};
  for (size_t k = 0; k < sizeof d / sizeof *d; k++) {
    double pct[3];
    for (int r = 0; r < 3; r++) {
      double with = region_loop("powercap", d[k].us, d[k].calls);
      double without = region_loop("none", d[k].us, d[k].calls);
      if (with < 0 || !(without > 0)) {
        printf("overhead_%s_pct=unavailable: ergo_init failed\n", d[k].name);
        return;
      }
      pct[r] = 100.0 * (with - without) / without;
    }
    qsort(pct, 3, sizeof *pct, cmp_double);
    printf("overhead_%s_pct=%.2f\n", d[k].name, pct[1]);
  }
}

int main(int argc, char **argv) {
  long reads = argc > 1 ? atol(argv[1]) : DEFAULT_READS;
  if (reads <= 0) {
    fprintf(stderr, "usage: %s [reads per run, default %ld]\n", argv[0], DEFAULT_READS);
    return 2;
  }
  static const char *const meters[] = {"powercap", "perf", "papi", "estimate"};
  double worst = 0;
  int usable = 0;
  for (size_t k = 0; k < sizeof meters / sizeof *meters; k++) {
    ergo__meter m;
    char why[ERGO__WHY_LEN];
    if (ergo__meter_open(&m, meters[k], why, sizeof why) != 0) {
      printf("%s=unavailable: %s\n", meters[k], first_line(why, meters[k]));
      continue;
    }
    double j[ERGO__METER_MAX_DOMAINS], best = -1;
    int failed = 0;
    for (int r = 0; r < REPS && !failed; r++) {
      uint64_t t0 = now_ns();
      for (long i = 0; i < reads; i++)
        if (ergo__meter_read(&m, j) != 0) failed = 1;
      double us = (double)(now_ns() - t0) / 1e3 / (double)reads;
      if (best < 0 || us < best) best = us;
    }
    if (failed) {
      printf("%s=unavailable: a read failed during the benchmark\n", meters[k]);
    } else {
      printf("%s_us_per_sample=%.3f\n", meters[k], best);
      printf("%s_domains=%d\n", meters[k], m.ndomains);
      if (best > worst) worst = best;
      usable++;
    }
    ergo__meter_close(&m);
  }
  int have_powercap = 0;
  {
    ergo__meter m;
    char why[ERGO__WHY_LEN];
    if (ergo__meter_open(&m, "powercap", why, sizeof why) == 0) {
      have_powercap = 1;
      ergo__meter_close(&m);
    }
  }
  if (have_powercap)
    region_overhead();
  else
    printf("overhead_10us_pct=unavailable: no powercap meter here (run under the fake RAPL "
           "machine)\n");
  if (!usable)
    printf("note: no meter opened here (no RAPL, no energy events); run it under the fake-sysfs "
           "harness or on a node with RAPL for a figure\n");
  printf("max_us_per_sample=%.3f\n", worst);
  return 0;
}
