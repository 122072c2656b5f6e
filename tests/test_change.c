/* test_change.c - the change-point test on a region's values at a fixed config (optimizer/
 * change.c): silent on steady values with noise, quick on a shift of 20 % either way, blind to
 * shifts below the one worth re-tuning for, and a reference that disagrees with the mean a
 * config was chosen on is a change. */
#include "test_util.h"

#include "optimizer/change.h"

#include <math.h>

/* A seeded log-normal factor of sigma s (Box-Muller on a 64-bit LCG): runs repeat exactly. */
static uint64_t rng = 1;
static double uniform(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double noise(double s) {
  double z = sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
  return exp(s * z);
}

/* Values to feed until a change is found (the count), or -1 when none is within `most`. */
static int until_change(ergo__change *c, double level, double s, int most) {
  for (int i = 1; i <= most; i++)
    if (ergo__change_add(c, level * noise(s))) return i;
  return -1;
}

/* Steady values never raise a change: no noise, 5 % and 10 % noise, 1000 values each, over
 * several seeds. */
static void test_steady_is_silent(void **state) {
  (void)state;
  static const double sigma[] = {0, 0.05, 0.10};
  for (size_t k = 0; k < sizeof sigma / sizeof *sigma; k++)
    for (uint64_t seed = 1; seed <= 5; seed++) {
      rng = seed;
      ergo__change c;
      ergo__change_init(&c, sigma[k] > 0 ? sigma[k] : 0.005);
      assert_int_equal(until_change(&c, 0.25, sigma[k], 1000), -1);
    }
}

/* A shift of 20 % (slower or faster) after the reference: found within a few values without
 * noise, within 20 with 5 % noise; the test then starts again on the new level and stays
 * silent there. */
static void test_shift_found(void **state) {
  (void)state;
  static const double factor[] = {1.2, 1 / 1.2, 1.5, 0.5};
  for (size_t k = 0; k < sizeof factor / sizeof *factor; k++) {
    rng = 7;
    ergo__change c;
    ergo__change_init(&c, 0.005);
    assert_int_equal(until_change(&c, 1.0, 0, ERGO__CHANGE_REF), -1); /* the reference */
    int n = until_change(&c, factor[k], 0, 50);
    assert_in_range(n, 1, 3);
    assert_int_equal(until_change(&c, factor[k], 0, 500), -1); /* restarted: steady again */

    ergo__change_init(&c, 0.05);
    assert_int_equal(until_change(&c, 1.0, 0.05, ERGO__CHANGE_REF), -1);
    n = until_change(&c, factor[k], 0.05, 100);
    assert_in_range(n, 1, 20);
  }
}

/* A shift well below ERGO__CHANGE_SHIFT is not worth a new search: 6 % either way never raises
 * one. */
static void test_small_shift_ignored(void **state) {
  (void)state;
  static const double factor[] = {1.06, 1 / 1.06};
  for (int k = 0; k < 2; k++) {
    ergo__change c;
    ergo__change_init(&c, 0.005);
    assert_int_equal(until_change(&c, 1.0, 0, ERGO__CHANGE_REF), -1);
    assert_int_equal(until_change(&c, factor[k], 0, 1000), -1);
  }
}

/* The mean the config was chosen on: a reference 30 % away from it is a change as soon as the
 * reference is taken (the work changed during the search); one that agrees is not. */
static void test_expectation(void **state) {
  (void)state;
  ergo__change c;
  ergo__change_init(&c, 0.005);
  ergo__change_expect(&c, 1.0, 3);
  assert_int_equal(until_change(&c, 1.3, 0, ERGO__CHANGE_REF), ERGO__CHANGE_REF);
  ergo__change_init(&c, 0.05);
  ergo__change_expect(&c, 1.0, 3);
  rng = 3;
  assert_int_equal(until_change(&c, 1.0, 0.05, 500), -1);
}

/* Values that are not positive and finite are ignored: they neither build the reference nor
 * move the sums. */
static void test_bad_values_ignored(void **state) {
  (void)state;
  ergo__change c;
  ergo__change_init(&c, 0.005);
  for (int i = 0; i < 100; i++) {
    assert_int_equal(ergo__change_add(&c, 0), 0);
    assert_int_equal(ergo__change_add(&c, -1), 0);
    assert_int_equal(ergo__change_add(&c, NAN), 0);
    assert_int_equal(ergo__change_add(&c, INFINITY), 0);
  }
  assert_int_equal(c.n, 0);
  assert_int_equal(c.ready, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_steady_is_silent),    cmocka_unit_test(test_shift_found),
      cmocka_unit_test(test_small_shift_ignored), cmocka_unit_test(test_expectation),
      cmocka_unit_test(test_bad_values_ignored),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
