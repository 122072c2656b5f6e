/* test_robust.c - outliers among one configuration's measurements (optimizer/robust.h): set aside
 * when alone, kept when they are the work changing or too many to be outliers, and nothing set
 * aside before the noise is known. */
#include "test_util.h"

#include "optimizer/robust.h"

#include <math.h>

/* A list of times (energy 10x the time, resource 1). */
static void fill(ergo__mlist *l, const double *t, int n) {
  *l = (ergo__mlist){0};
  for (int i = 0; i < n; i++) assert_int_equal(ergo__mlist_add(l, t[i], 10 * t[i], 1), 0);
}

/* Three lists at 1 % noise: the thresholds are the floor (10 %), and they are not known before
 * ERGO__ROBUST_MIN_RESIDUALS deviations are. */
static void test_thresholds(void **state) {
  (void)state;
  static const double a[] = {1.00, 1.01, 0.99, 1.00, 1.02}, b[] = {2.00, 2.02, 1.98},
                      c[] = {3.0, 3.03, 2.97, 3.0};
  ergo__mlist l[3];
  fill(&l[0], a, 3);
  fill(&l[1], b, 3);
  double thr[2];
  ergo__robust_thresholds(l, 2, thr); /* 4 deviations: too few */
  assert_true(isinf(thr[0]) && isinf(thr[1]));
  ergo__mlist_free(&l[0]);
  fill(&l[0], a, 5);
  fill(&l[2], c, 4);
  ergo__robust_thresholds(l, 3, thr);
  assert_true(isfinite(thr[0]) && isfinite(thr[1]));
  assert_true(fabs(thr[0] - ERGO__ROBUST_MIN) < 1e-12);
  for (int i = 0; i < 3; i++) ergo__mlist_free(&l[i]);
}

/* At 5 % noise the threshold is 5 sigmas, above the floor. */
static void test_thresholds_noise(void **state) {
  (void)state;
  static const double a[] = {1.05, 0.95, 1.00, 1.05, 0.95, 1.00, 1.05, 0.95, 1.00, 1.0};
  ergo__mlist l;
  fill(&l, a, 10);
  double thr[2];
  ergo__robust_thresholds(&l, 1, thr);
  assert_true(thr[0] > 0.2 && thr[0] < 0.5);
  ergo__mlist_free(&l);
}

/* A lone stall (1.8x) among ten measurements is set aside from the sums, and so are two in a
 * row in the middle (a stall can last two executions); a lone fast one stays (no stall makes an
 * execution faster), and so do the first two off (the work before a change) and two in a row at
 * the end (the work after it); a change early (half the list at another level) stays too. */
static void test_alone_set_aside(void **state) {
  (void)state;
  double thr[2] = {0.10, 0.10};
  static const double one[] = {1, 1.01, 0.99, 1.8, 1, 1.01, 0.99, 1, 1.01, 0.99},
                      end[] = {1, 1.01, 0.99, 1, 1, 1.01, 0.99, 1, 1.8, 1.79},
                      half[] = {1, 1.01, 0.99, 1, 2, 2.01, 1.99, 2};
  ergo__mlist l;
  ergo__msums s;
  fill(&l, one, 10);
  assert_int_equal(ergo__mlist_sums(&l, thr, 5, &s), 1);
  assert_int_equal(s.n, 9);
  assert_true(fabs(s.t - 9.0) < 1e-9);
  assert_true(fabs(s.e - 90.0) < 1e-9);
  assert_int_equal(s.n_from, 5); /* from index 5 on: none set aside there */
  ergo__mlist_free(&l);
  static const double mid[] = {1, 1.01, 0.99, 1.8, 1.7, 1, 1.01, 0.99, 1, 1.01, 0.99, 1};
  fill(&l, mid, 12);
  assert_int_equal(ergo__mlist_sums(&l, thr, 0, &s), 2);
  ergo__mlist_free(&l);
  /* A lone fast one is no stall; the first two off are the work before a change. */
  static const double fast[] = {1, 1.01, 0.99, 0.5, 1, 1.01, 0.99, 1, 1.01, 0.99},
                      start[] = {0.5, 0.52, 1, 1.01, 0.99, 1, 1.01, 0.99, 1, 1.01, 0.99, 1};
  fill(&l, fast, 10);
  assert_int_equal(ergo__mlist_sums(&l, thr, 0, &s), 0);
  ergo__mlist_free(&l);
  fill(&l, start, 12);
  assert_int_equal(ergo__mlist_sums(&l, thr, 0, &s), 0);
  ergo__mlist_free(&l);
  fill(&l, end, 10);
  assert_int_equal(ergo__mlist_sums(&l, thr, 0, &s), 0);
  assert_int_equal(s.n, 10);
  ergo__mlist_free(&l);
  fill(&l, half, 8);
  assert_int_equal(ergo__mlist_sums(&l, thr, 0, &s), 0);
  ergo__mlist_free(&l);
}

/* Of two, the slower is the outlier; of three, one alone (a third) is set aside; nothing is
 * while the thresholds are unknown; an energy reading alone off (a meter glitch) is one too. */
static void test_small_lists(void **state) {
  (void)state;
  double thr[2] = {0.10, 0.10}, none[2] = {INFINITY, INFINITY};
  static const double two[] = {1.7, 1.0}, three[] = {1.0, 1.9, 1.01};
  ergo__mlist l;
  ergo__msums s;
  fill(&l, two, 2);
  assert_int_equal(ergo__mlist_sums(&l, thr, 0, &s), 1);
  assert_true(fabs(s.t - 1.0) < 1e-12);
  assert_int_equal(ergo__mlist_sums(&l, none, 0, &s), 0);
  assert_int_equal(s.n, 2);
  ergo__mlist_free(&l);
  fill(&l, three, 3);
  assert_int_equal(ergo__mlist_sums(&l, thr, 0, &s), 1);
  assert_true(fabs(s.t - 2.01) < 1e-12);
  ergo__mlist_free(&l);
  l = (ergo__mlist){0};
  for (int i = 0; i < 8; i++) ergo__mlist_add(&l, 1.0, i == 3 ? 30.0 : 10.0, 1);
  assert_int_equal(ergo__mlist_sums(&l, thr, 0, &s), 1);
  assert_true(fabs(s.e - 70.0) < 1e-9);
  ergo__mlist_free(&l);
}

/* A block's median: one stall in four does not move it; even counts take the middle two. */
static void test_median_small(void **state) {
  (void)state;
  static const double block[] = {0.01, -0.02, 0.59, 0.0}, three[] = {3, 1, 2};
  assert_true(fabs(ergo__median_small(block, 4) - 0.005) < 1e-12);
  assert_true(fabs(ergo__median_small(three, 3) - 2) < 1e-12);
  assert_true(ergo__median_small(block, 0) == 0);
  assert_true(block[2] == 0.59); /* the caller's values stay in their order */
}

/* The weighted median: equal weights give the median; a heavy value pulls it to itself. */
static void test_median_weighted(void **state) {
  (void)state;
  static const double v[] = {0.3, -0.1, 0.0, 0.1}, one[] = {1, 1, 1, 1}, heavy[] = {1, 1, 5, 1};
  assert_true(fabs(ergo__median_weighted(v, one, 4) - 0.05) < 1e-12);
  assert_true(fabs(ergo__median_weighted(v, heavy, 4) - 0.0) < 1e-12);
  assert_true(fabs(ergo__median_weighted(v, one, 3) - 0.0) < 1e-12);
  assert_true(ergo__median_weighted(v, one, 0) == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thresholds),      cmocka_unit_test(test_thresholds_noise),
      cmocka_unit_test(test_alone_set_aside), cmocka_unit_test(test_small_lists),
      cmocka_unit_test(test_median_small),    cmocka_unit_test(test_median_weighted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
