/* clock.c - choosing and calibrating the region clock (TSC where the kernel trusts it). */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* Monotonic until ergo_init picks: a pop before init must never call a NULL clock. */
ergo__clock ergo__clk = {ERGO__CLOCK_MONO, NULL, NULL, 1.0, 0, 0};

static int read_line(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int ok = fgets(buf, (int)n, f) != NULL;
  fclose(f);
  return ok ? 0 : -1;
}

/* The kernel trusts the TSC when it is the current clocksource, or when it
 * marked it tsc_reliable and the TSC neither changes with frequency nor stops
 * in idle (constant_tsc, nonstop_tsc): then ticks are time, at any core
 * frequency ergo sets. */
static int tsc_trusted(void) {
#if ERGO__HAVE_TSC
  char buf[128];
  if (read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf,
                sizeof buf) == 0 &&
      strncmp(buf, "tsc", 3) == 0)
    return 1;
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return 0;
  char line[4096];
  int constant = 0, nonstop = 0, reliable = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "flags", 5) != 0) continue;
    constant = strstr(line, " constant_tsc") != NULL;
    nonstop = strstr(line, " nonstop_tsc") != NULL;
    reliable = strstr(line, " tsc_reliable") != NULL;
    break;
  }
  fclose(f);
  return constant && nonstop && reliable;
#else
  return 0;
#endif
}

/* Ticks per ns from a short spin against CLOCK_MONOTONIC; refined later over
 * the whole run (ergo__ticks_to_ns), so the first estimate only has to be close. */
static void tsc_calibrate(void) {
#if ERGO__HAVE_TSC
  uint64_t n0 = ergo__mono_ns(), t0 = __rdtsc();
  uint64_t n1, t1;
  do {
    n1 = ergo__mono_ns();
    t1 = __rdtsc();
  } while (n1 - n0 < 2000000); /* 2 ms: error ~1e-5 */
  ergo__clk.tick0 = t0;
  ergo__clk.ns0 = n0;
  ergo__clk.ns_per_tick = (double)(n1 - n0) / (double)(t1 - t0);
#endif
}

_Static_assert(ERGO__CLOCK_TSC == (int)ERGO_CLOCK_TSC &&
                   ERGO__CLOCK_MONO == (int)ERGO_CLOCK_MONOTONIC,
               "the internal clock kinds are ergo_clock_kind's values");

int ergo__clock_init(const ergo_config *cfg) {
  if (cfg->clock) {
    ergo__clk.kind = ERGO__CLOCK_USER;
    ergo__clk.fn = cfg->clock;
    ergo__clk.ctx = cfg->clock_ctx;
    ergo__clk.ns_per_tick = 1.0;
    return 0;
  }
  int kind = (int)cfg->clock_kind;
  if (kind == ERGO_CLOCK_AUTO) kind = tsc_trusted() ? ERGO__CLOCK_TSC : ERGO__CLOCK_MONO;
  if (kind == ERGO__CLOCK_TSC && !ERGO__HAVE_TSC) {
    ergo__warn("ERGO_CLOCK=tsc: this CPU has no TSC; using monotonic (fix: ERGO_CLOCK=auto)");
    kind = ERGO__CLOCK_MONO;
  }
  ergo__clk.fn = NULL;
  ergo__clk.ctx = NULL;
  ergo__clk.ns_per_tick = 1.0;
  if (kind == ERGO__CLOCK_TSC) tsc_calibrate(); /* before any thread reads the factor */
  ergo__clk.kind = kind;
  return 0;
}

/* The conversion factor is read by hooks on any thread and refreshed by
 * reports, so it moves atomically. */
static double factor(void) {
  double f;
  __atomic_load(&ergo__clk.ns_per_tick, &f, __ATOMIC_RELAXED);
  return f;
}

/* After a second of run time the TSC rate is re-measured over the whole run;
 * reports call this once, so every figure of one report uses one factor. */
void ergo__clock_refresh(void) {
#if ERGO__HAVE_TSC
  if (ergo__clk.kind != ERGO__CLOCK_TSC) return;
  uint64_t n = ergo__mono_ns(), t = __rdtsc();
  if (n - ergo__clk.ns0 > 1000000000ull && t > ergo__clk.tick0) {
    double f = (double)(n - ergo__clk.ns0) / (double)(t - ergo__clk.tick0);
    __atomic_store(&ergo__clk.ns_per_tick, &f, __ATOMIC_RELAXED);
  }
#endif
}

double ergo__ticks_to_s(uint64_t ticks) { return (double)ticks * factor() * 1e-9; }

uint64_t ergo__ticks_to_ns(uint64_t ticks) {
  if (ergo__clk.kind != ERGO__CLOCK_TSC) return ticks;
  return (uint64_t)((double)ticks * factor() + 0.5);
}

uint64_t ergo_now_ns(void) {
  if (ergo__clk.kind == ERGO__CLOCK_TSC) return ergo__ticks_to_ns(ergo__ticks() - ergo__clk.tick0);
  return ergo__ticks();
}

const char *ergo_clock_name(void) {
  switch (ergo__clk.kind) {
  case ERGO__CLOCK_TSC: return "tsc";
  case ERGO__CLOCK_USER: return "user";
  default: return "monotonic";
  }
}
