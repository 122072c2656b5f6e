/* test_work.c - like-for-like measurement (policies/work.c): the factor that scales an
 * execution's time and energy to its region's reference work, from ergo_region_work's units or
 * the platform's counter; and the judgement that one step's calls of a region are of different
 * sizes (then tuned as one unit per call). */
#include "test_util.h"

#include "policies/work.h"

#include <math.h>

/* The first execution with work sets the reference (factor 1); later ones are scaled to it: one
 * of twice the work counts half its time, one of a tenth ten times. */
static void test_scale_to_reference(void **state) {
  (void)state;
  ergo__work_norm n = {0};
  int src;
  assert_true(ergo__work_scale(&n, 0, 0, 4.0, &src) == 1.0);
  assert_int_equal(src, ERGO__WORK_COUNTER);
  assert_int_equal(n.src, ERGO__WORK_COUNTER);
  assert_true(n.ref == 4.0);
  assert_true(ergo__work_scale(&n, 0, 0, 8.0, &src) == 0.5);
  assert_true(fabs(ergo__work_scale(&n, 0, 0, 0.4, &src) - 10.0) < 1e-12);
  /* So a region whose work grows 20x measures the same per unit at one config. */
  double t1 = 0.1, t20 = 2.0; /* seconds for 1 and 20 units */
  ergo__work_norm g = {0};
  double a = t1 * ergo__work_scale(&g, 1.0, 1, -1, &src);
  double b = t20 * ergo__work_scale(&g, 20.0, 1, -1, &src);
  assert_true(fabs(a - b) < 1e-12);
  assert_int_equal(src, ERGO__WORK_HINT);
}

/* ergo_region_work's units win over the counter; unknown, zero or non-finite work is taken as it
 * is (factor 1, source none); a source other than the region's is not mixed with it. */
static void test_sources(void **state) {
  (void)state;
  ergo__work_norm n = {0};
  int src;
  assert_true(ergo__work_scale(&n, 5.0, 2, 100.0, &src) == 1.0);
  assert_int_equal(n.src, ERGO__WORK_HINT);
  assert_true(n.ref == 5.0);
  assert_true(ergo__work_scale(&n, 10.0, 1, 100.0, &src) == 0.5);
  assert_int_equal(src, ERGO__WORK_HINT);
  /* No hint in this one: the counter's units are not the hint's, so it is taken as it is. */
  assert_true(ergo__work_scale(&n, 0, 0, 100.0, &src) == 1.0);
  assert_int_equal(src, ERGO__WORK_NONE);
  assert_true(ergo__work_scale(&n, 0, 0, -1, &src) == 1.0);
  assert_int_equal(src, ERGO__WORK_NONE);
  assert_true(ergo__work_scale(&n, NAN, 1, -1, &src) == 1.0);
  assert_true(ergo__work_scale(&n, INFINITY, 1, -1, &src) == 1.0);
  assert_true(ergo__work_scale(&n, 0, 1, -1, &src) == 1.0); /* a hint of 0 units */
  assert_int_equal(src, ERGO__WORK_NONE);
  /* Nothing known yet: no reference is set by an execution without work. */
  ergo__work_norm e = {0};
  assert_true(ergo__work_scale(&e, 0, 0, 0, &src) == 1.0);
  assert_int_equal(e.src, ERGO__WORK_NONE);
}

/* Three calls at 0.05, 0.2 and 0.8 of a size are different sizes: three units.  Calls alike up
 * to noise (within 1.5x) stay one unit, as does a single call or more calls than a split takes. */
static void test_split(void **state) {
  (void)state;
  const double sizes[] = {0.05, 0.2, 0.8};
  assert_int_equal(ergo__work_split(sizes, 3), 3);
  const double two[] = {0.3, 0.1};
  assert_int_equal(ergo__work_split(two, 2), 2);
  const double alike[] = {0.20, 0.22, 0.19, 0.25};
  assert_int_equal(ergo__work_split(alike, 4), 0);
  assert_int_equal(ergo__work_split(sizes, 1), 0);
  double many[ERGO__SPLIT_MAX + 1];
  for (int i = 0; i <= ERGO__SPLIT_MAX; i++) many[i] = 0.1 * (i + 1);
  assert_int_equal(ergo__work_split(many, ERGO__SPLIT_MAX), ERGO__SPLIT_MAX);
  assert_int_equal(ergo__work_split(many, ERGO__SPLIT_MAX + 1), 0);
  const double bad[] = {0.1, NAN, 0.8};
  assert_int_equal(ergo__work_split(bad, 3), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scale_to_reference),
      cmocka_unit_test(test_sources),
      cmocka_unit_test(test_split),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
