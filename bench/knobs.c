/* knobs.c - ergo-bench-knobs: the cost of a setting that changes a knob and of one that does not.
 */
#include "runtime/toolkit.h"

#include <ergo.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef ERGO_BENCH_FAKE_MACHINE
/* ergo-bench-knobs-fake: the same figures on the fake-sysfs machine of the tests (root
 * only): a package with 2 cores, acpi-cpufreq with the userspace governor, uncore
 * 1.2-2.4 GHz.  The writes go to a file system, not to the kernel's cpufreq, so they show
 * ergo's and libcpupower's cost, not the hardware's transition latency. */
#include "fakecpu.h"
FAKECPU_SYSFS_STORES

static int fake_machine(void) {
  static fakesys fs;
  if (fakesys_create(&fs) || fakecpu_topology(&fs, 1, 2, 1) ||
      fakecpu_add_policies(&fs, &fakecpu_acpi, 2, 1) ||
      fakecpu_uncore(&fs, 0, 0, 1200000, 2400000, 2000000))
    return -1;
  const char *why = fakesys_enter(&fs, fakecpu_mounts);
  if (why) {
    printf("SKIPPED: %s\n", why);
    return -1;
  }
  printf("machine=fake-sysfs (figures are ergo's cost, not hardware latency)\n");
  return 0;
}
#endif

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Best of 5 runs of n push/pop pairs of `v` on knob slot `i`, ns per push or pop. */
static double timed(int i, int64_t v, long n) {
  double best = 1e300;
  for (int r = 0; r < 5; r++) {
    int64_t want[ERGO__NKNOBS] = {0};
    want[i] = v;
    double t0 = now_ns();
    for (long k = 0; k < n; k++) {
      ergo__settings_push(want);
      ergo__settings_pop();
    }
    double per = (now_ns() - t0) / (2.0 * (double)n);
    if (per < best) best = per;
  }
  return best;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000;
  if (n < 1) {
    fprintf(stderr, "usage: %s [pairs>=1]\n", argv[0]);
    return 2;
  }
  /* Where the original values go before the first change (the bench's own directory). */
  if (!getenv("ERGO_STATE_DIR")) setenv("ERGO_STATE_DIR", "/tmp", 0);
#ifdef ERGO_BENCH_FAKE_MACHINE
  if (fake_machine() != 0) return 0;
#endif
  ergo__knobs_start("auto", 0);
  printf("pairs=%ld\n", n);
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    ergo__knob *k = ergo__knob_get(i);
    /* The knob's name as `ergo info` and ERGO_KNOBS say it: its row in the knob table.  This
     * benchmark times the internal settings stack (ergo__settings_push, linked from ergo_static),
     * so it includes runtime/toolkit.h, which brings the table; parsing the public
     * ergo_knobs_info_json() instead would add a JSON parser to get the same strings. */
    const char *name = ergo__knob_table[i].backend;
    if (!k) {
      printf("%s=unavailable (see `ergo info`)\n", name);
      continue;
    }
    if (k->nvalues < 2) {
      printf("%s=one value only, nothing to change\n", name);
      continue;
    }
    int64_t lo = k->values[0], hi = k->values[k->nvalues - 1];
    /* Base setting lo; then pushing hi changes the knob twice per pair (there and back). */
    int64_t base[ERGO__NKNOBS] = {0};
    base[i] = lo;
    ergo__settings_push(base);
    double change = timed(i, hi, n);
    double same = timed(i, lo, n * 100);
    ergo__settings_pop();
    printf("%s_change_ns=%.1f\n%s_nochange_ns=%.1f\n%s_backend_sets=%llu\n", name, change, name,
           same, name, (unsigned long long)k->sets);
  }
  ergo__settings_reset();
  ergo__knobs_stop();
  return 0;
}
