/* test_region_energy.c - energy per region through the hooks, on a fake powercap tree. */
#include "test_util.h"

#include "energy/energy.h"
#include "fakesys.h"
#include "internal.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

static fakesys fs;
static uint64_t pkg_uj, dram_uj;
#define PKG "/sys/class/powercap/intel-rapl:0"
#define DRAM "/sys/class/powercap/intel-rapl:0:0"
#define PKG_RANGE 262143328850ull

static void set_energy(uint64_t pkg, uint64_t dram) {
  pkg_uj = pkg;
  dram_uj = dram;
  assert_int_equal(fakesys_writef(&fs, PKG "/energy_uj", 0444, "%llu\n", (unsigned long long)pkg),
                   0);
  assert_int_equal(fakesys_writef(&fs, DRAM "/energy_uj", 0444, "%llu\n", (unsigned long long)dram),
                   0);
}

/* Burn `pkg_j` package joules and `dram_j` dram joules over `ms` milliseconds. */
static void spend(double pkg_j, double dram_j, uint64_t ms) {
  set_energy(pkg_uj + (uint64_t)(pkg_j * 1e6 + 0.5), dram_uj + (uint64_t)(dram_j * 1e6 + 0.5));
  advance_ms(ms);
}

static void build_tree(void) {
  fakesys_write(&fs, PKG "/name", "package-0\n", 0444);
  fakesys_writef(&fs, PKG "/max_energy_range_uj", 0444, "%llu\n", PKG_RANGE);
  fakesys_write(&fs, PKG "/enabled", "1\n", 0444);
  fakesys_write(&fs, DRAM "/name", "dram\n", 0444);
  fakesys_write(&fs, DRAM "/max_energy_range_uj", "65712999613\n", 0444);
  fakesys_write(&fs, DRAM "/enabled", "1\n", 0444);
  set_energy(1000000, 500000);
}

static void start(int energy_level, int sample_ms) {
  build_tree();
  ergo_config c = test_config();
  c.energy = "powercap";
  c.energy_level = energy_level;
  c.sample_ms = sample_ms;
  test_init(&c);
  assert_non_null(ergo__energy_meter());
}

/* A snapshot of the main tree, as the reports take it. */
static void take(ergo__snap *s) {
  pthread_mutex_lock(&ergo__g.lock);
  assert_int_equal(ergo__snap_take(ergo__g.main_tree, 0, s), 0);
  pthread_mutex_unlock(&ergo__g.lock);
}

/* The report with its "ergo overhead:" line (real time: not reproducible) checked
 * for its form and left out of the comparison. */
static void check_report(const char *want) {
  char *got = ergo_report_string();
  char *o = got ? strstr(got, "ergo overhead: ") : NULL;
  if (o) {
    char *end = strchr(o, '\n');
    assert_non_null(strstr(o, " sec of real time in "));
    memmove(o, end + 1, strlen(end + 1) + 1);
  }
  if (!got || strcmp(got, want)) fprintf(stderr, "--- want:\n%s--- got:\n%s", want, got);
  assert_string_equal(got, want);
  free(got);
}

/* Children plus Unaccounted equal the parent, per domain and in the total. */
static void test_energy_per_region_exact(void **state) {
  (void)state;
  start(2, 0);
  ERGO_PUSH(1, "solve");
  spend(1.0, 0.25, 100);
  ERGO_PUSH(2, "assemble");
  spend(2.0, 0.5, 200);
  ERGO_POP(2, "assemble");
  spend(0.5, 0.125, 100);
  ERGO_POP(1, "solve");
  spend(0.25, 0.0, 100);
  check_report(
      "Total wall clock time for Global = 0.5 sec\n"
      "Total energy for Global = 4.625 J (package-0 3.75 J, dram-0 0.875 J)\n"
      "* solve                          : 0.4000 sec,  80.00% | 4.3750 J, 10.94 W,  94.59%\n"
      "- * assemble                     : 0.2000 sec,  50.00% | 2.5000 J, 12.50 W,  57.14%\n"
      "- * Unaccounted                  : 0.2000 sec,  50.00% | 1.8750 J, 9.38 W,  42.86%\n"
      "ergo energy: meter powercap, 4 region readings\n");
  /* The JSON report carries the same figures with units. */
  char *json = ergo__report_json_string();
  assert_non_null(strstr(json, "\"energy\": {\n"));
  assert_non_null(strstr(json, "\"unit\": \"J\""));
  assert_non_null(strstr(json, "\"total\": 2.5"));
  assert_non_null(strstr(json, "\"self\": 1.875"));
  free(json);
}

/* A meter read takes time: a clock that moves 1 ms at every read of it, with counters that
 * show 100 W on package-0 and 10 W on dram at the middle of the last two clock reads, so a
 * reading stamped on both sides belongs to the middle of its stamps.  The hooks read the meter
 * outside a call's timed interval (before its clock starts, after it stops): the call's
 * energy must be its interval's alone. */
static uint64_t moving_ns;
static uint64_t moving_clock(void *ctx) {
  (void)ctx;
  uint64_t t = moving_ns;
  moving_ns += 1000000;
  uint64_t mid_ns = t + 500000 - 1000000000ull;             /* from the start of the run */
  set_energy(1000000 + mid_ns / 10, 500000 + mid_ns / 100); /* 100 W, 10 W in uJ per ns */
  return t;
}

static void test_energy_window_is_the_timed_interval(void **state) {
  (void)state;
  build_tree();
  moving_ns = 1000000000ull;
  ergo_config c = test_config();
  c.clock = moving_clock;
  c.energy = "powercap";
  c.energy_level = 2;
  c.sample_ms = 0;
  assert_int_equal(ergo_init(&c), 0);
  ERGO_PUSH(1, "outer");
  moving_ns += 20000000;
  ERGO_PUSH(2, "inner");
  moving_ns += 10000000; /* 10 ms timed, but several 1 ms reads around it */
  ERGO_POP(2, "inner");
  moving_ns += 20000000;
  ERGO_POP(1, "outer");
  ergo__snap s;
  take(&s);
  const ergo__snap *outer = &s.children[0], *inner = &outer->children[0];
  assert_string_equal(inner->name, "inner");
  assert_true(inner->time_s > 0.01 && inner->time_s < 0.02);
  /* Exactly 100 W and 10 W over each region's own time, and so over Unaccounted's. */
  const ergo__snap *r[] = {outer, inner};
  for (int i = 0; i < 2; i++) {
    if (fabs(r[i]->q[0][0] - 100 * r[i]->time_s) > 1e-9 ||
        fabs(r[i]->q[0][1] - 10 * r[i]->time_s) > 1e-9)
      fprintf(stderr, "%s: %.9f s, %.9f J package, %.9f J dram\n", r[i]->name, r[i]->time_s,
              r[i]->q[0][0], r[i]->q[0][1]);
    assert_true(fabs(r[i]->q[0][0] - 100 * r[i]->time_s) < 1e-9);
    assert_true(fabs(r[i]->q[0][1] - 10 * r[i]->time_s) < 1e-9);
  }
  double rest[ERGO_MAX_COMPONENTS], rest_s[ERGO_MAX_COMPONENTS];
  ergo__snap_q_rest(outer, 0, rest, rest_s);
  assert_true(fabs(rest[0] / rest_s[0] - 100) < 1e-6);
  ergo__snap_free(&s);
}

/* A region above ERGO_ENERGY_LEVEL has no energy of its own ("-"); its
 * parent's Unaccounted energy then includes it. */
static void test_level_filter(void **state) {
  (void)state;
  start(1, 0);
  ERGO_PUSH(1, "outer");
  ERGO_PUSH(2, "fine");
  spend(3.0, 0.0, 10);
  ERGO_POP(2, "fine");
  ERGO_POP(1, "outer");
  check_report("Total wall clock time for Global = 0.01 sec\n"
               "Total energy for Global = 3 J (package-0 3 J, dram-0 0 J)\n"
               "* outer                          : 0.0100 sec, 100.00% | 3.0000 J, 300.00 W, "
               "100.00%\n"
               "- * fine                         : 0.0100 sec, 100.00% | - J\n"
               "ergo energy: meter powercap, 2 region readings\n");
}

/* A wrap of package-0 inside a region is corrected: exact to 1 uJ. */
static void test_wrap_inside_region(void **state) {
  (void)state;
  start(2, 0);
  set_energy(PKG_RANGE - 1000, 500000);
  ERGO_PUSH(1, "wraps");
  set_energy(2500, 500000); /* 1000 uJ to the top, then 2500 uJ from 0 */
  advance_ms(1);
  ERGO_POP(1, "wraps");
  ergo__snap s;
  take(&s);
  assert_int_equal(s.children[0].q_ok, 1);
  /* Exact to 1 uJ: region energy is a difference of cumulative readings. */
  assert_true(fabs(s.children[0].q[0][0] - 3500e-6) < 1e-9);
  assert_true(s.children[0].q[0][1] == 0.0);
  ergo__snap_free(&s);
  assert_int_equal(ergo__energy_meter()->wraps, 1);
}

/* Two wraps within one region: only the sampler, reading in between, sees both. */
static uint64_t reads(ergo__meter *m) {
  pthread_mutex_lock(&m->lock);
  uint64_t n = m->reads;
  pthread_mutex_unlock(&m->lock);
  return n;
}

/* The meter's wraps, read under its lock: the sampler thread still reads the meter. */
static uint64_t wraps(ergo__meter *m) {
  pthread_mutex_lock(&m->lock);
  uint64_t n = m->wraps;
  pthread_mutex_unlock(&m->lock);
  return n;
}

/* Wait (at most 5 s) until the sampler has read the meter `more` times. */
static void wait_reads(ergo__meter *m, uint64_t more) {
  uint64_t target = reads(m) + more;
  for (int i = 0; i < 5000 && reads(m) < target; i++) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  assert_true(reads(m) >= target);
}

/* A meter clock on which every read comes an hour after the previous one, so the fake
 * counter's big steps are plausible (meter.c doubts a wrap the package cannot have drawn). */
static double hours_apart(void) {
  static double t = 1e9; /* after the real clock's reading at open */
  return t += 3600.0;
}

static void test_sampler_catches_double_wrap(void **state) {
  (void)state;
  start(2, 1);
  ergo__meter *m = ergo__energy_meter();
  pthread_mutex_lock(&m->lock);
  m->now = hours_apart; /* 0.4 of a range per step: time must pass for that */
  pthread_mutex_unlock(&m->lock);
  ERGO_PUSH(1, "long");
  /* Five steps of 0.4 range each cross the top twice; a sampler read sees each step. */
  uint64_t step = PKG_RANGE / 5 * 2, expect = 0;
  for (int i = 0; i < 5; i++) {
    uint64_t next = (pkg_uj + step) % PKG_RANGE;
    set_energy(next, dram_uj);
    expect += step;
    wait_reads(m, 2);
  }
  advance_ms(5);
  ERGO_POP(1, "long");
  ergo__snap s;
  take(&s);
  /* (range - last + now) per wrap is exactly the step: the total is exact. */
  assert_int_equal(wraps(m), 2);
  assert_true(fabs(s.children[0].q[0][0] - (double)expect * 1e-6) < 1e-6);
  ergo__snap_free(&s);
}

/* Step reports carry the energy of their step only. */
static void test_energy_per_step(void **state) {
  (void)state;
  build_tree();
  ergo_config c = test_config();
  c.energy = "powercap";
  c.sample_ms = 0;
  char path[512];
  snprintf(path, sizeof path, "%s/steps.txt", fs.root);
  c.step_report = path;
  test_init(&c);
  for (int step = 1; step <= 2; step++) {
    ERGO_PUSH(1, "work");
    spend(step * 1.0, 0.0, 100);
    ERGO_POP(1, "work");
    ergo_step(step);
  }
  ergo_finalize();
  char *got = slurp(path);
  assert_string_equal(got,
                      "Step 1\n"
                      "Total wall clock time for Global = 0.1 sec\n"
                      "Total energy for Global = 1 J (package-0 1 J, dram-0 0 J)\n"
                      "* work                           : 0.1000 sec, 100.00% | 1.0000 J, 10.00 W, "
                      "100.00%\n"
                      "Step 2\n"
                      "Total wall clock time for Global = 0.1 sec\n"
                      "Total energy for Global = 2 J (package-0 2 J, dram-0 0 J)\n"
                      "* work                           : 0.1000 sec, 100.00% | 2.0000 J, 20.00 W, "
                      "100.00%\n");
  free(got);
  unlink(path);
}

/* The power timeline: CSV with one column per domain, and a Chrome trace. */
static void test_timeline_files(void **state) {
  (void)state;
  build_tree();
  ergo_config c = test_config();
  c.energy = "powercap";
  c.sample_ms = 1;
  char csv[512], trace[512];
  snprintf(csv, sizeof csv, "%s/power.csv", fs.root);
  snprintf(trace, sizeof trace, "%s/trace.json", fs.root);
  c.power_csv = csv;
  c.trace = trace;
  test_init(&c);
  wait_reads(ergo__energy_meter(), 3);
  ergo_finalize();
  char *text = slurp(csv);
  assert_non_null(text);
  assert_memory_equal(text, "time_s,package-0_W,dram-0_W\n", 28);
  free(text);
  text = slurp(trace);
  assert_non_null(text);
  assert_non_null(strstr(text, "\"ph\":\"C\""));
  assert_non_null(strstr(text, "\"package-0 W\":"));
  assert_string_equal(text + strlen(text) - 3, "\n]\n");
  free(text);
}

/* ERGO_ENERGY=powercap where it cannot open: one warning, time is still measured. */
static void test_unavailable_meter_is_not_fatal(void **state) {
  (void)state;
  fakesys_write(&fs, PKG "/energy_uj", "garbage\n", 0444);
  ergo_config c = test_config();
  c.energy = "powercap";
  test_init(&c);
  assert_null(ergo__energy_meter());
  region_ms(1, "still_timed", 5);
  check_report("Total wall clock time for Global = 0.005 sec\n"
               "* still_timed                    : 0.0050 sec, 100.00%\n");
}

int main(void) {
  if (fakesys_create(&fs) != 0) {
    printf("SKIPPED: cannot create a temporary directory for the fake sysfs\n");
    return FAKESYS_SKIP;
  }
  const char *why = fakesys_enter(&fs, (const char *const[]){"/sys/class", NULL});
  if (why) {
    printf("SKIPPED: %s\n", why);
    fakesys_destroy(&fs);
    return FAKESYS_SKIP;
  }
  const struct CMUnitTest tests[] = {
      ERGO_TEST(test_energy_per_region_exact),
      ERGO_TEST(test_energy_window_is_the_timed_interval),
      ERGO_TEST(test_level_filter),
      ERGO_TEST(test_wrap_inside_region),
      ERGO_TEST(test_sampler_catches_double_wrap),
      ERGO_TEST(test_energy_per_step),
      ERGO_TEST(test_timeline_files),
      ERGO_TEST(test_unavailable_meter_is_not_fatal),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  fakesys_destroy(&fs);
  return rc;
}
