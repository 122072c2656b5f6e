/* test_sim_oracle.c - the oracle against a brute force written here, on SIM.md's 8 workloads. */
#include "test_util.h"

#include "sim/oracle.h"

#include <math.h>
#include <time.h>

typedef struct workload {
  const char *name;
  ergo__sim_work w;
  /* The energy-optimal config and the saving against all-maximum, computed
   * apart from ergo (SIM.md's formulas over the same grid, in Python). */
  double f, u;
  int n;
  double saving_pct;
} workload;

static const workload workloads[] = {
    {"compute", {40, 1, 0.01}, 1.6, 1.2, 20, 7.069592},
    {"memory", {2, 60, 0.01}, 1.0, 2.4, 17, 21.104395},
    {"serial", {20, 2, 0.5}, 2.0, 1.2, 4, 42.497134},
    {"mixed", {15, 25, 0.05}, 1.6, 1.6, 19, 3.890981},
    {"comm-like", {3, 3, 0.8}, 2.0, 1.2, 2, 50.702406},
    {"balanced", {10, 40, 0.02}, 1.6, 2.4, 20, 7.803637},
    {"light-memory", {8, 10, 0.1}, 2.0, 1.3, 10, 11.253516},
    {"heavy-mix", {30, 50, 0.03}, 1.6, 1.8, 20, 3.468291},
};
#define NWORK (sizeof workloads / sizeof *workloads)

static const char *objectives[] = {
    "energy",
    "time",
    "edp",
    "ed2p",
    "weighted",
    "weighted:t=1,e=1,r=1",
    "weighted:t=0,e=1,r=0.2",
    "energy@5%",
    "energy@0%",
    "energy@20%",
};
#define NOBJ (sizeof objectives / sizeof *objectives)

static ergo__sim_params P;

static int setup(void **state) {
  (void)state;
  ergo__sim_params_default(&P);
  return 0;
}

static ergo__objective objective(const char *s) {
  ergo__objective o;
  char why[256];
  assert_int_equal(ergo__objective_parse(s, &o, why, sizeof why), 0);
  return o;
}

/* What the tuner sees of one execution, written out here rather than taken
 * from ergo__sim_measure: package + dram energy, threads over cores. */
static ergo__measure measure(const ergo__sim_config *c, const ergo__sim_result *r) {
  return (ergo__measure){r->time_s, r->e_pkg_j + r->e_dram_j, c->threads / 20.0};
}

/* Does a go before b in the oracle's tie order (lower f, then u, then threads)? */
static int before(const ergo__sim_config *a, const ergo__sim_config *b) {
  if (a->f_ghz != b->f_ghz) return a->f_ghz < b->f_ghz;
  if (a->u_ghz != b->u_ghz) return a->u_ghz < b->u_ghz;
  return a->threads < b->threads;
}

/* Brute force, in the opposite order to the oracle's loops, with the tie rule applied explicitly.
 */
static void brute_force(const ergo__sim_work *w, const ergo__objective *o, ergo__sim_config *best,
                        double *best_value) {
  ergo__sim_config bc = {2.0, 2.4, 20};
  ergo__sim_result br;
  ergo__sim_eval(&P, w, &bc, &br);
  ergo__measure mb = measure(&bc, &br);
  int have = 0;
  for (int n = 20; n >= 1; n--)
    for (int j = 12; j >= 0; j--)
      for (int i = 10; i >= 0; i--) {
        ergo__sim_config c = {(10 + i) / 10.0, (12 + j) / 10.0, n};
        ergo__sim_result r;
        ergo__sim_eval(&P, w, &c, &r);
        ergo__measure m = measure(&c, &r);
        double v = ergo__objective_value(o, &m, &mb);
        if (!have || v < *best_value || (v == *best_value && before(&c, best))) {
          *best = c;
          *best_value = v;
          have = 1;
        }
      }
}

static void assert_config(const ergo__sim_config *a, double f, double u, int n) {
  if (a->f_ghz != f || a->u_ghz != u || a->threads != n)
    print_error("config (%.17g, %.17g, %d), expected (%g, %g, %d)\n", a->f_ghz, a->u_ghz,
                a->threads, f, u, n);
  assert_true(a->f_ghz == f);
  assert_true(a->u_ghz == u);
  assert_int_equal(a->threads, n);
}

static void test_matches_brute_force(void **state) {
  (void)state;
  for (size_t k = 0; k < NWORK; k++)
    for (size_t q = 0; q < NOBJ; q++) {
      ergo__objective o = objective(objectives[q]);
      ergo__sim_choice best, base;
      assert_int_equal(ergo__sim_oracle(&P, &workloads[k].w, &o, &best, &base), 0);
      ergo__sim_config bc;
      double bv;
      brute_force(&workloads[k].w, &o, &bc, &bv);
      assert_config(&best.config, bc.f_ghz, bc.u_ghz, bc.threads);
      assert_true(best.value == bv);
      /* The figures are the model's at that config. */
      ergo__sim_result r;
      ergo__sim_eval(&P, &workloads[k].w, &best.config, &r);
      assert_memory_equal(&best.result, &r, sizeof r);
      /* The baseline is the all-maximum config, judged against itself. */
      assert_config(&base.config, 2.0, 2.4, 20);
      ergo__sim_eval(&P, &workloads[k].w, &base.config, &r);
      assert_memory_equal(&base.result, &r, sizeof r);
      ergo__measure mb = measure(&base.config, &r);
      assert_true(base.value == ergo__objective_value(&o, &mb, &mb));
      /* Never worse than not tuning, and within the bound when there is one. */
      assert_true(best.value <= base.value);
      ergo__measure mbest = measure(&best.config, &best.result);
      assert_int_equal(ergo__objective_feasible(&o, &mbest, &mb), 1);
    }
}

/* SIM.md: the energy-optimal configs differ in all three knobs and save about 3-50 %. */
static void test_energy_optima(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  double fs[NWORK], us[NWORK];
  int ns[NWORK];
  for (size_t k = 0; k < NWORK; k++) {
    const workload *w = &workloads[k];
    ergo__sim_choice best, base;
    assert_int_equal(ergo__sim_oracle(&P, &w->w, &o, &best, &base), 0);
    double saving = 100 * (1 - best.value / base.value);
    print_message("%-12s (C %2g, M %2g, s %4g): f %.1f GHz, u %.1f GHz, %2d threads: %8.4f J "
                  "vs %8.4f J all-max, saving %6.3f %%, time %+.1f %%\n",
                  w->name, w->w.gcycles, w->w.gbytes, w->w.serial, best.config.f_ghz,
                  best.config.u_ghz, best.config.threads, best.value, base.value, saving,
                  100 * (best.result.time_s / base.result.time_s - 1));
    assert_config(&best.config, w->f, w->u, w->n);
    assert_true(fabs(saving - w->saving_pct) < 1e-5);
    assert_true(saving > 2 && saving < 60);
    fs[k] = best.config.f_ghz;
    us[k] = best.config.u_ghz;
    ns[k] = best.config.threads;
  }
  int df = 0, du = 0, dn = 0;
  for (size_t k = 1; k < NWORK; k++) {
    df |= fs[k] != fs[0];
    du |= us[k] != us[0];
    dn |= ns[k] != ns[0];
  }
  assert_true(df && du && dn);
}

/* The default objective, energy within 5 % of the all-maximum time: figures only. */
static void test_bounded_optima(void **state) {
  (void)state;
  ergo__objective o = objective(NULL);
  for (size_t k = 0; k < NWORK; k++) {
    const workload *w = &workloads[k];
    ergo__sim_choice best, base;
    assert_int_equal(ergo__sim_oracle(&P, &w->w, &o, &best, &base), 0);
    double saving = 100 * (1 - best.value / base.value);
    print_message("energy@5%% %-12s: f %.1f GHz, u %.1f GHz, %2d threads: saving %6.3f %%, "
                  "time %+.2f %%\n",
                  w->name, best.config.f_ghz, best.config.u_ghz, best.config.threads, saving,
                  100 * (best.result.time_s / base.result.time_s - 1));
    assert_true(best.result.time_s <= 1.05 * base.result.time_s * (1 + 1e-12));
    assert_true(saving >= 0);
  }
}

/* Equal values go to the lower frequency, then the lower uncore, then fewer threads. */
static void test_ties(void **state) {
  (void)state;
  ergo__sim_choice best;
  /* No work: every point costs 0 J and 0 s. */
  const ergo__sim_work none = {0, 0, 0};
  for (size_t q = 0; q < NOBJ; q++) {
    ergo__objective o = objective(objectives[q]);
    assert_int_equal(ergo__sim_oracle(&P, &none, &o, &best, NULL), 0);
    assert_config(&best.config, 1.0, 1.2, 1);
  }
  /* Pure memory: the fastest time, 0.6 s, needs u = 2.4 and 17 threads, at any f. */
  const ergo__sim_work mem = {0, 60, 0};
  ergo__objective o = objective("time");
  assert_int_equal(ergo__sim_oracle(&P, &mem, &o, &best, NULL), 0);
  assert_config(&best.config, 1.0, 2.4, 17);
  assert_true(best.value == 0.6);
}

static void test_invalid(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  ergo__sim_choice best;
  const ergo__sim_work ok = {1, 1, 0};
  const ergo__sim_work bad[] = {{-1, 1, 0},  {1, -1, 0},       {1, 1, -0.1}, {1, 1, 1.5},
                                {NAN, 1, 0}, {1, INFINITY, 0}, {1, 1, NAN}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    assert_int_equal(ergo__sim_oracle(&P, &bad[i], &o, &best, NULL), ERGO_EINVAL);
  ergo__sim_params p = P;
  p.cores = 0;
  assert_int_equal(ergo__sim_oracle(&p, &ok, &o, &best, NULL), ERGO_EINVAL);
  assert_int_equal(ergo__sim_oracle(&P, &ok, &o, NULL, NULL), ERGO_EINVAL);
  assert_int_equal(ergo__sim_oracle(&P, &ok, NULL, &best, NULL), ERGO_EINVAL);
  assert_int_equal(ergo__sim_oracle(NULL, &ok, &o, &best, NULL), ERGO_EINVAL);
}

/* Another node (a node file's grid): the oracle walks that grid, not the default one. */
static void test_other_grid(void **state) {
  (void)state;
  ergo__sim_params p = P;
  p.cores = 4;
  p.f_min = 1.5;
  p.f_step = 0.25;
  p.u_min = 2.4;
  ergo__objective o = objective("time");
  ergo__sim_choice best, base;
  const ergo__sim_work w = {40, 1, 0.01};
  assert_int_equal(ergo__sim_oracle(&p, &w, &o, &best, &base), 0);
  assert_config(&base.config, 2.0, 2.4, 4);
  assert_config(&best.config, 2.0, 2.4, 4);
  o = objective("energy");
  assert_int_equal(ergo__sim_oracle(&p, &w, &o, &best, &base), 0);
  assert_true(best.config.f_ghz == 1.5 || best.config.f_ghz == 1.75 || best.config.f_ghz == 2.0);
  assert_true(best.config.u_ghz == 2.4);
  assert_true(best.config.threads >= 1 && best.config.threads <= 4);
}

/* A figure, not a test of speed: how long one exhaustive search takes. */
static void test_speed(void **state) {
  (void)state;
  ergo__objective o = objective("energy@5%");
  ergo__sim_choice best;
  struct timespec a, b;
  int reps = 50;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int r = 0; r < reps; r++)
    for (size_t k = 0; k < NWORK; k++)
      assert_int_equal(ergo__sim_oracle(&P, &workloads[k].w, &o, &best, NULL), 0);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
  double calls = (double)reps * NWORK;
  print_message("oracle: %.1f us per search of 11 x 13 x 20 = 2860 points (%.1f ns per point)\n",
                1e6 * s / calls, 1e9 * s / calls / 2860);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matches_brute_force),
      cmocka_unit_test(test_energy_optima),
      cmocka_unit_test(test_bounded_optima),
      cmocka_unit_test(test_ties),
      cmocka_unit_test(test_invalid),
      cmocka_unit_test(test_other_grid),
      cmocka_unit_test(test_speed),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
