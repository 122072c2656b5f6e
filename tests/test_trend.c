/* test_trend.c - the work of a region nothing measures, from its baseline's trend (policies/
 * trend.c): the first change is never a ramp; a linear ramp shown by the measurements after it
 * is followed exactly between and beyond them; a jump is level after it, so no ramp; noise the
 * slope does not beat is no ramp; a measurement off a ramp's line does not bend it, and the next
 * decision drops the ramp; extrapolation is bounded; bad measurements are ignored. */
#include "test_util.h"

#include "policies/trend.h"

#include <math.h>
#include <string.h>

#define CLOSE(a, b) assert_true(fabs((a) - (b)) < 1e-12)

/* The baseline's time on a ramp: 1 s at step 0, growing `slope` per step. */
static double ramp(double step, double slope) { return 1.0 + slope * step; }

/* A trend that has seen one change (the first decision): the measurement at `step` is kept. */
static void after_first_change(ergo__trend *tr, double step, double t) {
  memset(tr, 0, sizeof *tr);
  ergo__trend_add(tr, 0, 1.0, 0.01);
  ergo__trend_add(tr, step, t, 0.01);
  ergo__trend_decide(tr, step + 1, 0, 0.01);
  assert_int_equal(tr->ramp, 0);
  assert_int_equal(tr->n, 1);
}

/* After the first change at `s0` (time t0), two more measurements, then the decision at `at`:
 * whether it found a ramp. */
static int ramp_after(ergo__trend *tr, double s0, double t0, double s1, double t1, double s2,
                      double t2, double at, double sigma, double tol) {
  after_first_change(tr, s0, t0);
  ergo__trend_add(tr, s1, t1, tol);
  ergo__trend_add(tr, s2, t2, tol);
  ergo__trend_decide(tr, at, sigma, tol);
  return tr->ramp;
}

/* Before any decision the work is 1; the first decision, on however good a line, is no ramp
 * (a jump would look the same), and keeps its last measurement alone. */
static void test_first_change_no_ramp(void **state) {
  (void)state;
  ergo__trend tr;
  memset(&tr, 0, sizeof tr);
  assert_true(ergo__trend_work(&tr, 5) == 1);
  for (int s = 1; s <= 31; s += 10) ergo__trend_add(&tr, s, ramp(s, 0.02), 0.01);
  assert_true(ergo__trend_work(&tr, 40) == 1); /* measured, not decided */
  ergo__trend_decide(&tr, 32, 0, 0.01);
  assert_int_equal(tr.ramp, 0);
  assert_int_equal(tr.n, 1);
  assert_true(tr.s[0] == 31);
  assert_true(ergo__trend_work(&tr, 100) == 1);
}

/* A linear ramp shown after the first change: the work at any step is the baseline's time there
 * over its time at the step of the decision, between the measurements and 100 steps past them;
 * measurements on the line change nothing, and at the next change the ramp goes on. */
static void test_ramp_followed(void **state) {
  (void)state;
  ergo__trend tr;
  assert_true(
      ramp_after(&tr, 10, ramp(10, 0.03), 11, ramp(11, 0.03), 21, ramp(21, 0.03), 22, 0, 0.01));
  for (int s = 0; s <= 120; s += 7) CLOSE(ergo__trend_work(&tr, s), ramp(s, 0.03) / ramp(22, 0.03));
  for (int s = 30; s <= 60; s += 10) ergo__trend_add(&tr, s, ramp(s, 0.03), 0.01);
  assert_int_equal(tr.fit_n, tr.n);
  CLOSE(ergo__trend_work(&tr, 90), ramp(90, 0.03) / ramp(22, 0.03));
  ergo__trend_decide(&tr, 61, 0, 0.01);
  assert_int_equal(tr.ramp, 1);
  CLOSE(ergo__trend_work(&tr, 90), ramp(90, 0.03) / ramp(61, 0.03));
  /* A shrinking ramp too. */
  assert_true(ramp_after(&tr, 10, ramp(10, -0.004), 11, ramp(11, -0.004), 21, ramp(21, -0.004), 21,
                         0, 0.01));
  CLOSE(ergo__trend_work(&tr, 50), ramp(50, -0.004) / ramp(21, -0.004));
}

/* After a jump the measurements are level: no ramp.  A ramp that ends: the measurement off its
 * line stays out of the fit (the work until the decision is the line's), and the decision, on
 * the measurements since the last one, drops the ramp. */
static void test_jump_and_end(void **state) {
  (void)state;
  ergo__trend tr;
  assert_false(ramp_after(&tr, 10, 2.0, 11, 2.0, 21, 2.0, 22, 0, 0.01));
  assert_true(ergo__trend_work(&tr, 40) == 1);

  assert_true(
      ramp_after(&tr, 10, ramp(10, 0.05), 11, ramp(11, 0.05), 21, ramp(21, 0.05), 22, 0, 0.01));
  double before = ergo__trend_work(&tr, 30);
  ergo__trend_add(&tr, 40, ramp(21, 0.05), 0.01); /* the ramp ended at step 21 */
  assert_int_equal(tr.fit_n, tr.n - 1);
  CLOSE(ergo__trend_work(&tr, 30), before);
  ergo__trend_decide(&tr, 41, 0, 0.01);
  assert_int_equal(tr.ramp, 0); /* the first decision since: never a ramp... */
  ergo__trend_add(&tr, 41, ramp(21, 0.05), 0.01);
  ergo__trend_add(&tr, 51, ramp(21, 0.05), 0.01);
  ergo__trend_decide(&tr, 52, 0, 0.01);
  assert_int_equal(tr.ramp, 0); /* ...and level after it */
}

/* Noise: measurements 10 steps apart that differ by less than the test's level are no ramp at
 * 5 % noise, a 50 % rise is; measurements closer than ERGO__TREND_SPAN steps, or a point off the
 * line by more than `tol`, decide nothing. */
static void test_noise_span_and_line(void **state) {
  (void)state;
  ergo__trend tr;
  assert_false(ramp_after(&tr, 10, 1.0, 11, 1.04, 20, 1.08, 21, 0.05, 0.25));
  assert_true(ramp_after(&tr, 10, 1.0, 11, 1.05, 20, 1.5, 21, 0.05, 0.25));
  assert_false(ramp_after(&tr, 10, 1.0, 11, 1.2, 12, 1.4, 13, 0, 0.01)); /* 2 steps */
  /* A jump at 11 and a slope after: no line through them. */
  assert_false(ramp_after(&tr, 10, 1.0, 11, 1.5, 21, 1.6, 22, 0, 0.01));
  /* At 5 % noise, 13 measurements at one level and the last 3 at 1.4x are within 25 % of the
   * line through them all, but two levels fit them better: no ramp (random program 2177). */
  static const double level[16] = {1.00, 0.97, 1.01, 0.94, 0.98, 1.07, 0.98, 1.03,
                                   0.96, 1.01, 1.00, 1.08, 1.05, 1.41, 1.46, 1.45};
  after_first_change(&tr, 10, level[0]);
  for (int i = 1; i < 16; i++) ergo__trend_add(&tr, 10 + 3 * i, level[i], 0.25);
  ergo__trend_decide(&tr, 60, 0.05, 0.25);
  assert_int_equal(tr.ramp, 0);
  /* The same points on a ramp, as noisy: a ramp. */
  after_first_change(&tr, 10, level[0]);
  for (int i = 1; i < 16; i++) ergo__trend_add(&tr, 10 + 3 * i, level[i] + 0.03 * i, 0.25);
  ergo__trend_decide(&tr, 60, 0.05, 0.25);
  assert_int_equal(tr.ramp, 1);
}

/* Far past its measurements a shrinking line would reach zero: the work stays within 1/8 and 8
 * times the line's value at its last measurement. */
static void test_extrapolation_bounded(void **state) {
  (void)state;
  ergo__trend tr;
  assert_true(ramp_after(&tr, 10, 1.0, 11, 0.99, 20, 0.9, 20, 0, 0.01));
  double w = ergo__trend_work(&tr, 1000);
  assert_true(w > 0 && isfinite(w));
  CLOSE(w, 1.0 / 8);
  assert_true(ramp_after(&tr, 10, 1.0, 11, 1.1, 20, 2.0, 20, 0, 0.01));
  CLOSE(ergo__trend_work(&tr, 100000), 8.0);
}

/* Bad measurements (not positive, not finite) are ignored; more than ERGO__TREND_MAX keep the
 * latest. */
static void test_bad_and_many(void **state) {
  (void)state;
  ergo__trend tr;
  memset(&tr, 0, sizeof tr);
  ergo__trend_add(&tr, 1, 0, 0.01);
  ergo__trend_add(&tr, 2, -1, 0.01);
  ergo__trend_add(&tr, 3, NAN, 0.01);
  ergo__trend_add(&tr, NAN, 1, 0.01);
  assert_int_equal(tr.n, 0);
  ergo__trend_decide(&tr, 4, 0, 0.01);
  assert_int_equal(tr.ramp, 0);
  after_first_change(&tr, 0, 1.0);
  for (int s = 0; s < 3 * ERGO__TREND_MAX; s++) ergo__trend_add(&tr, s, ramp(s, 0.01), 0.01);
  assert_int_equal(tr.n, ERGO__TREND_MAX);
  assert_true(tr.s[ERGO__TREND_MAX - 1] == 3 * ERGO__TREND_MAX - 1);
  ergo__trend_decide(&tr, 3 * ERGO__TREND_MAX, 0, 0.01);
  assert_int_equal(tr.ramp, 1);
  CLOSE(ergo__trend_work(&tr, 100), ramp(100, 0.01) / ramp(3 * ERGO__TREND_MAX, 0.01));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_change_no_ramp),  cmocka_unit_test(test_ramp_followed),
      cmocka_unit_test(test_jump_and_end),          cmocka_unit_test(test_noise_span_and_line),
      cmocka_unit_test(test_extrapolation_bounded), cmocka_unit_test(test_bad_and_many),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
