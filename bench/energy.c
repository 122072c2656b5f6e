/* energy.c - what one energy sample costs: µs per ergo__meter_read (all domains) for each meter. */
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
  if (!usable)
    printf("note: no meter opened here (no RAPL, no energy events); run it under the fake-sysfs "
           "harness or on a node with RAPL for a figure\n");
  printf("max_us_per_sample=%.3f\n", worst);
  return 0;
}
