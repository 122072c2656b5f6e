/* test_objective.c - ERGO_OBJECTIVE: every form, canonical names, exact values, energy@X% bound. */
#include "test_util.h"

#include "optimizer/objective.h"

#include <math.h>

#define EXPECTED                                                                                   \
  "is not valid: expected energy, time, edp, ed2p, weighted[:t=W,e=W,r=W] (weights >= 0, not "     \
  "all 0) or energy@N% (N from 0 to 1000)"

static ergo__objective parse_ok(const char *s) {
  ergo__objective o;
  char why[512] = "";
  int rc = ergo__objective_parse(s, &o, why, sizeof why);
  if (rc) print_error("%s\n", why);
  assert_int_equal(rc, 0);
  assert_string_equal(why, "");
  return o;
}

static void test_parse_forms(void **state) {
  (void)state;
  assert_int_equal(parse_ok("energy").kind, ERGO__OBJ_ENERGY);
  assert_int_equal(parse_ok("time").kind, ERGO__OBJ_TIME);
  assert_int_equal(parse_ok("edp").kind, ERGO__OBJ_EDP);
  assert_int_equal(parse_ok("ed2p").kind, ERGO__OBJ_ED2P);

  ergo__objective o = parse_ok("weighted");
  assert_int_equal(o.kind, ERGO__OBJ_WEIGHTED);
  assert_true(o.w_time == 1 && o.w_energy == 1 && o.w_resource == 0);
  o = parse_ok("weighted:t=1,e=2,r=0.5");
  assert_int_equal(o.kind, ERGO__OBJ_WEIGHTED);
  assert_true(o.w_time == 1 && o.w_energy == 2 && o.w_resource == 0.5);
  /* Any order; a weight not named is 0. */
  o = parse_ok("weighted:r=0.25,t=3");
  assert_true(o.w_time == 3 && o.w_energy == 0 && o.w_resource == 0.25);
  o = parse_ok("weighted:e=1");
  assert_true(o.w_time == 0 && o.w_energy == 1 && o.w_resource == 0);
  o = parse_ok("weighted:t=.5,e=1e1,r=0");
  assert_true(o.w_time == 0.5 && o.w_energy == 10 && o.w_resource == 0);

  o = parse_ok("energy@5%");
  assert_int_equal(o.kind, ERGO__OBJ_ENERGY_BOUNDED);
  assert_true(o.slowdown == 0.05);
  assert_true(parse_ok("energy@0%").slowdown == 0);
  assert_true(parse_ok("energy@2.5%").slowdown == 0.025);
  assert_true(parse_ok("energy@1000%").slowdown == 10);
  /* No value: energy within 5 % of the baseline time. */
  o = parse_ok(NULL);
  assert_int_equal(o.kind, ERGO__OBJ_ENERGY_BOUNDED);
  assert_true(o.slowdown == 0.05);
}

static void test_parse_bad(void **state) {
  (void)state;
  static const char *bad[] = {"",
                              "Energy",
                              "energy ",
                              "edp2",
                              "weightedx",
                              "weighted:",
                              "weighted:t",
                              "weighted:t=",
                              "weighted:t=1,",
                              "weighted:t=1,,e=1",
                              "weighted:t=1;e=1",
                              "weighted:t=1,t=2",
                              "weighted:x=1",
                              "weighted:t=-1",
                              "weighted:t=+1",
                              "weighted:t=0,e=0",
                              "weighted:t=nan",
                              "weighted:t=inf",
                              "weighted:t=0x10",
                              "weighted:t=1e999",
                              "weighted:t= 1",
                              "energy@",
                              "energy@%",
                              "energy@5",
                              "energy@5%x",
                              "energy@5%%",
                              "energy@ 5%",
                              "energy@-5%",
                              "energy@1000.5%",
                              "energy@1e999%",
                              "energy@five%"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ergo__objective o = {.kind = ERGO__OBJ_TIME, .slowdown = 7};
    char why[512] = "", expected[512];
    assert_int_equal(ergo__objective_parse(bad[i], &o, why, sizeof why), ERGO_EINVAL);
    snprintf(expected, sizeof expected, "ERGO_OBJECTIVE='%s' %s", bad[i], EXPECTED);
    assert_string_equal(why, expected);
    /* A bad value leaves the objective as it was. */
    assert_int_equal(o.kind, ERGO__OBJ_TIME);
    assert_true(o.slowdown == 7);
  }
}

static void test_names_round_trip(void **state) {
  (void)state;
  static const struct {
    const char *in, *name;
  } cases[] = {
      {"energy", "energy"},
      {"time", "time"},
      {"edp", "edp"},
      {"ed2p", "ed2p"},
      {"weighted", "weighted:t=1,e=1,r=0"},
      {"weighted:t=1,e=2,r=0.5", "weighted:t=1,e=2,r=0.5"},
      {"weighted:r=0.1", "weighted:t=0,e=0,r=0.1"},
      {"weighted:t=0.123456789012345678", "weighted:t=0.12345678901234568,e=0,r=0"},
      {"energy@5%", "energy@5%"},
      {"energy@0%", "energy@0%"},
      {"energy@2.5%", "energy@2.5%"},
      {"energy@0.1%", "energy@0.1%"},
      {"energy@1000%", "energy@1000%"},
      {NULL, "energy@5%"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ergo__objective o = parse_ok(cases[i].in), again;
    char buf[128];
    assert_string_equal(ergo__objective_name(&o, buf, sizeof buf), cases[i].name);
    again = parse_ok(buf);
    assert_int_equal(again.kind, o.kind);
    assert_true(again.w_time == o.w_time && again.w_energy == o.w_energy &&
                again.w_resource == o.w_resource && again.slowdown == o.slowdown);
  }
}

/* One point: 2 s, 10 J, half the cores; its baseline: 1 s, 20 J, all cores. */
static const ergo__measure M = {2.0, 10.0, 0.5};
static const ergo__measure B = {1.0, 20.0, 1.0};

static double value(const char *s, const ergo__measure *m, const ergo__measure *b) {
  ergo__objective o = parse_ok(s);
  return ergo__objective_value(&o, m, b);
}

static void test_values(void **state) {
  (void)state;
  assert_true(value("energy", &M, &B) == 10);
  assert_true(value("time", &M, &B) == 2);
  assert_true(value("edp", &M, &B) == 20);
  assert_true(value("ed2p", &M, &B) == 40);
  /* 2/1 + 10/20 */
  assert_true(value("weighted", &M, &B) == 2.5);
  /* 1 * 2/1 + 2 * 10/20 + 0.5 * 0.5/1 */
  assert_true(value("weighted:t=1,e=2,r=0.5", &M, &B) == 3.25);
  assert_true(value("weighted:r=1", &M, &B) == 0.5);
  /* The baseline itself scores the sum of the weights. */
  assert_true(value("weighted:t=1,e=2,r=0.5", &B, &B) == 3.5);
  /* A zero baseline term has nothing to normalise by: it is skipped. */
  const ergo__measure no_energy = {1.0, 0.0, 1.0};
  assert_true(value("weighted", &M, &no_energy) == 2);
  assert_true(value("weighted:t=1,e=2,r=0.5", &M, &no_energy) == 2.25);
  /* No baseline at all: the terms count as they are. */
  assert_true(value("weighted:t=1,e=2,r=0.5", &M, NULL) == 22.25);
  assert_true(value("edp", &M, NULL) == 20);
  /* Within the bound (2 s <= 1.05 * 2 s): plain energy. */
  const ergo__measure slow_base = {2.0, 20.0, 1.0};
  assert_true(value("energy@5%", &M, &slow_base) == 10);
}

/* energy@5%: feasible up to exactly (1 + 0.05) * T0 * (1 + 1e-12), not one ulp beyond. */
static void test_bound_boundary(void **state) {
  (void)state;
  ergo__objective o = parse_ok("energy@5%");
  const ergo__measure b = {1.0, 100.0, 1.0};
  double edge = (1.0 + 0.05) * 1.0 * (1.0 + 1e-12);
  ergo__measure m = {1.05, 60.0, 0.5};
  assert_int_equal(ergo__objective_feasible(&o, &m, &b), 1);
  assert_true(ergo__objective_value(&o, &m, &b) == 60);
  m.time_s = edge;
  assert_int_equal(ergo__objective_feasible(&o, &m, &b), 1);
  assert_true(ergo__objective_value(&o, &m, &b) == 60);
  m.time_s = nextafter(edge, INFINITY);
  assert_int_equal(ergo__objective_feasible(&o, &m, &b), 0);
  assert_true(ergo__objective_value(&o, &m, &b) == 100 * (1 + m.time_s));
  /* 0 %: no slowdown at all, up to rounding. */
  o = parse_ok("energy@0%");
  m.time_s = 1.0 + 0.5e-12;
  assert_int_equal(ergo__objective_feasible(&o, &m, &b), 1);
  m.time_s = 1.0 + 2e-12;
  assert_int_equal(ergo__objective_feasible(&o, &m, &b), 0);
  /* The other objectives have no constraint. */
  static const char *free_[] = {"energy", "time", "edp", "ed2p", "weighted"};
  m.time_s = 1000;
  for (size_t i = 0; i < 5; i++) {
    o = parse_ok(free_[i]);
    assert_int_equal(ergo__objective_feasible(&o, &m, &b), 1);
  }
}

/* An infeasible point scores E0 * (1 + T/T0): worse than the baseline (E0),
 * however little energy it used, and worse the slower it is. */
static void test_penalty_worse_than_baseline(void **state) {
  (void)state;
  ergo__objective o = parse_ok("energy@5%");
  const ergo__measure b = {1.0, 100.0, 1.0};
  double base = ergo__objective_value(&o, &b, &b);
  assert_true(base == 100);
  ergo__measure m = {1.25, 1.0, 0.05};
  assert_true(ergo__objective_value(&o, &m, &b) == 225);
  assert_true(ergo__objective_value(&o, &m, &b) > base);
  double prev = ergo__objective_value(&o, &m, &b);
  for (m.time_s = 1.5; m.time_s < 10; m.time_s += 0.5) {
    double v = ergo__objective_value(&o, &m, &b);
    assert_true(v > prev);
    prev = v;
  }
  assert_true(ergo__objective_value(&o, &(ergo__measure){3.0, 1.0, 0.05}, &b) == 400);
  /* A baseline without energy (no meter): still worse than any feasible point's 0. */
  const ergo__measure b0 = {1.0, 0.0, 1.0};
  assert_true(ergo__objective_value(&o, &(ergo__measure){3.0, 0.0, 1.0}, &b0) == 4);
  /* A baseline without time has no bound to break. */
  const ergo__measure bt = {0.0, 100.0, 1.0};
  assert_int_equal(ergo__objective_feasible(&o, &m, &bt), 1);
  assert_true(ergo__objective_value(&o, &m, &bt) == 1);
  assert_true(ergo__objective_value(&o, &m, NULL) == 1);
}

/* The sigma of one measurement of the log of the objective, from those of time (0.03) and energy
 * (0.05): E T and E T^2 count time's share of energy (E = P T) twice; a weighted sum moves as the
 * weighted mean of its logs, with the same covariance; the resource does not vary. */
static void test_log_sigma(void **unused) {
  (void)unused;
  const double st = 0.03, se = 0.05;
  struct {
    const char *name;
    double want;
  } cases[] = {
      {"time", st},
      {"energy", se},
      {"energy@5%", se},
      {"edp", sqrt(3 * st * st + se * se)},
      {"ed2p", sqrt(8 * st * st + se * se)},
      {"weighted:t=1,e=0,r=0", st},
      {"weighted:t=0,e=1,r=0", se},
      {"weighted:t=1,e=2,r=0", sqrt(5 * st * st + 4 * se * se) / 3},
      {"weighted:t=1,e=1,r=2", sqrt(3 * st * st + se * se) / 4},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    ergo__objective o;
    char why[256];
    assert_int_equal(ergo__objective_parse(cases[k].name, &o, why, sizeof why), 0);
    double got = ergo__objective_log_sigma(&o, st, se);
    if (fabs(got - cases[k].want) > 1e-12)
      fail_msg("%s: %.6f, want %.6f", cases[k].name, got, cases[k].want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_forms),
      cmocka_unit_test(test_parse_bad),
      cmocka_unit_test(test_names_round_trip),
      cmocka_unit_test(test_values),
      cmocka_unit_test(test_bound_boundary),
      cmocka_unit_test(test_log_sigma),
      cmocka_unit_test(test_penalty_worse_than_baseline),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
