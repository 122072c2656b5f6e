/* test_estimate.c - the "estimate" meter: its label and domain, ERGO_ESTIMATE_CORE_W, and energy
 * that follows the process's CPU time. */
#include "test_util.h"

#include "energy/meter.h"

#include <time.h>

#define VAR "ERGO_ESTIMATE_CORE_W"

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int open_estimate(ergo__meter *m, char *why, size_t len) {
  return ergo__meter_open(m, "estimate", why, len);
}

static void estimate_default_domain_and_label(void **state) {
  (void)state;
  unsetenv(VAR);
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_estimate(&m, why, sizeof why), 0);
  assert_string_equal(m.label, "ESTIMATE");
  assert_int_equal(m.ndomains, 1);
  assert_string_equal(m.dom[0].name, "cpu-estimate");
  assert_int_equal(m.dom[0].package, -1);
  assert_int_equal(m.dom[0].in_total, 1);
  assert_true(m.dom[0].joules_per_tick == 10 * 1e-9);
  assert_int_equal(m.dom[0].range_ticks, 0);
  ergo__meter_close(&m);
}

static void estimate_reads_watts_from_env(void **state) {
  (void)state;
  static const struct {
    const char *value;
    double watts;
  } good[] = {{"2.5", 2.5}, {"1000", 1000}, {"0.001", 0.001}, {"35", 35}};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    setenv(VAR, good[i].value, 1);
    ergo__meter m;
    char why[ERGO__WHY_LEN];
    assert_int_equal(open_estimate(&m, why, sizeof why), 0);
    assert_true(m.dom[0].joules_per_tick == good[i].watts * 1e-9);
    ergo__meter_close(&m);
  }
  unsetenv(VAR);
}

static void estimate_rejects_bad_watts(void **state) {
  (void)state;
  static const char *const bad[] = {"0", "-3", "abc", "1e9", "", "nan", "inf", "10W", "1000.5"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    setenv(VAR, bad[i], 1);
    ergo__meter m;
    char why[ERGO__WHY_LEN], want[ERGO__WHY_LEN];
    assert_int_equal(open_estimate(&m, why, sizeof why), ERGO_EINVAL);
    snprintf(want, sizeof want,
             "estimate: ERGO_ESTIMATE_CORE_W='%s' is not valid: expected watts per busy core, a "
             "number > 0 and <= 1000 (default 10)",
             bad[i]);
    assert_string_equal(why, want);
    assert_null(m.ops); /* a failed open leaves nothing to close */
  }
  unsetenv(VAR);
}

/* "auto" is for hardware meters: an estimate is never picked silently. */
static void estimate_never_chosen_by_auto(void **state) {
  (void)state;
  ergo__meter m;
  char why[ERGO__WHY_LEN * 4];
  if (ergo__meter_open(&m, "auto", why, sizeof why) == 0) {
    assert_string_not_equal(m.ops->name, "estimate");
    ergo__meter_close(&m);
  } else {
    /* One line per backend tried, none of them the estimate. */
    assert_true(strncmp(why, "estimate:", 9) != 0);
    assert_null(strstr(why, "\nestimate:"));
  }
}

/* Burn ~50 ms of CPU: the energy never goes down and equals CPU time x W
 * within 1% (the reads and the clock samples are microseconds apart). */
static void estimate_energy_follows_cpu_time(void **state) {
  (void)state;
  setenv(VAR, "20", 1);
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_estimate(&m, why, sizeof why), 0);
  double j0, j, prev, c0 = cpu_s();
  assert_int_equal(ergo__meter_read(&m, &j0), 0);
  prev = j0;
  volatile double sink = 0;
  while (cpu_s() - c0 < 0.050) {
    for (int k = 0; k < 10000; k++) sink += k * 1e-9;
    assert_int_equal(ergo__meter_read(&m, &j), 0);
    assert_true(j >= prev);
    prev = j;
  }
  assert_int_equal(ergo__meter_read(&m, &j), 0);
  double burnt = cpu_s() - c0, expect = burnt * 20;
  assert_true(burnt >= 0.050);
  assert_true(j - j0 > expect * 0.99 && j - j0 < expect * 1.01);
  ergo__meter_close(&m);
  unsetenv(VAR);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(estimate_default_domain_and_label),
      cmocka_unit_test(estimate_reads_watts_from_env),
      cmocka_unit_test(estimate_rejects_bad_watts),
      cmocka_unit_test(estimate_never_chosen_by_auto),
      cmocka_unit_test(estimate_energy_follows_cpu_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
