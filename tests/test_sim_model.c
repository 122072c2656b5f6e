/* test_sim_model.c - the sim node's physics against SIM.md's equations, written out again here. */
#include "test_util.h"

#include "sim/model.h"

#include <math.h>

/* Agreement to 1e-12 relative: the same formula, evaluated in another order,
 * differs by a few ulps at most. */
#define assert_near(a, b)                                                                          \
  do {                                                                                             \
    double a_ = (a), b_ = (b);                                                                     \
    if (!(fabs(a_ - b_) <= 1e-12 * fmax(fabs(a_), fabs(b_)))) {                                    \
      print_error("%s = %.17g, expected %s = %.17g\n", #a, a_, #b, b_);                            \
      fail();                                                                                      \
    }                                                                                              \
  } while (0)

/* SIM.md's reference node, with its literal numbers (not the production defaults). */
typedef struct ref {
  double t, tc, tm, p_core, p_unc, p_pkg, p_dram;
} ref;

static ref sim_md(double C, double M, double s, double f, double u, int n) {
  ref r;
  double S = 1 / (s + (1 - s) / n);
  r.tc = C / (f * S);
  double B = fmin(n * 6.0, 100.0 * (0.5 + 0.5 * (u - 1.2) / 1.2));
  r.tm = M / B;
  r.t = fmax(r.tc, r.tm) + 0.3 * fmin(r.tc, r.tm);
  double V = 0.70 + 0.25 * (f - 1.0);
  r.p_core = n * (0.5 + 2.216 * f * V * V * (0.4 + 0.6 * r.tc / r.t)) + (20 - n) * 0.5;
  r.p_unc = 4 + 8 * (u / 2.4) * (u / 2.4);
  r.p_pkg = 30 + r.p_core + r.p_unc;
  r.p_dram = 3 + 0.25 * (M / r.t);
  return r;
}

/* SIM.md's eight workloads (C gigacycles, M gigabytes, serial fraction). */
static const ergo__sim_work workloads[] = {
    {40, 1, 0.01}, {2, 60, 0.01},  {20, 2, 0.5}, {15, 25, 0.05},
    {3, 3, 0.8},   {10, 40, 0.02}, {8, 10, 0.1}, {30, 50, 0.03},
};
#define NWORK (sizeof workloads / sizeof *workloads)

static ergo__sim_params P;

static int setup(void **state) {
  (void)state;
  ergo__sim_params_default(&P);
  return 0;
}

static ergo__sim_result eval(double C, double M, double s, double f, double u, int n) {
  ergo__sim_work w = {C, M, s};
  ergo__sim_config c = {f, u, n};
  ergo__sim_result r;
  ergo__sim_eval(&P, &w, &c, &r);
  return r;
}

static void test_defaults(void **state) {
  (void)state;
  assert_int_equal(P.cores, 20);
  assert_true(P.f_min == 1.0 && P.f_max == 2.0 && P.f_step == 0.1);
  assert_true(P.u_min == 1.2 && P.u_max == 2.4 && P.u_step == 0.1);
  assert_true(P.bw_per_core == 6 && P.bw_max == 100 && P.bw_floor == 0.5);
  assert_true(P.overlap == 0.3 && P.v0 == 0.70 && P.v_slope == 0.25);
  assert_true(P.core_idle_w == 0.5 && P.core_dyn_w == 2.216 && P.core_act_min == 0.4);
  assert_true(P.uncore_min_w == 4 && P.uncore_dyn_w == 8 && P.static_w == 30);
  assert_true(P.dram_min_w == 3 && P.dram_w_per_gbs == 0.25);
  assert_true(P.noise_sigma == 0);
  assert_true(P.seed == 1);
  char why[256] = "";
  assert_int_equal(ergo__sim_params_check(&P, why, sizeof why), 0);
}

static void test_grid(void **state) {
  (void)state;
  assert_int_equal(ergo__sim_nf(&P), 11);
  assert_int_equal(ergo__sim_nu(&P), 13);
  assert_true(ergo__sim_f(&P, 0) == 1.0);
  assert_true(ergo__sim_f(&P, 1) == 1.1);
  assert_true(ergo__sim_f(&P, 10) == 2.0);
  assert_true(ergo__sim_u(&P, 0) == 1.2);
  assert_true(ergo__sim_u(&P, 12) == 2.4);
  /* Outside the grid: its ends. */
  assert_true(ergo__sim_f(&P, -1) == 1.0);
  assert_true(ergo__sim_f(&P, 11) == 2.0);
  /* Every point converts to the exact kHz the knobs use. */
  for (int i = 0; i < 11; i++) {
    assert_int_equal(llround(ergo__sim_f(&P, i) * 1e6), 1000000 + 100000 * i);
    assert_true(ergo__sim_f(&P, i) == (10 + i) / 10.0);
  }
  for (int j = 0; j < 13; j++) {
    assert_int_equal(llround(ergo__sim_u(&P, j) * 1e6), 1200000 + 100000 * j);
    assert_true(ergo__sim_u(&P, j) == (12 + j) / 10.0);
  }
}

/* The compute workload at the all-maximum config, worked by hand:
 * S = 1/(0.01 + 0.99/20) = 1/0.0595, t_c = 40 * 0.0595 / 2 = 1.19 s, B = min(120, 100) = 100,
 * t_m = 1/100 = 0.01 s, t = 1.19 + 0.3 * 0.01 = 1.193 s, V = 0.95 V, f V^2 = 1.805,
 * P_core = 20 * (0.5 + 2.216 * 1.805 * (0.4 + 0.6 * 1.19 / 1.193)), P_unc = 4 + 8 = 12 W,
 * P_dram = 3 + 0.25 * 1 / 1.193. */
static void test_hand_worked(void **state) {
  (void)state;
  ergo__sim_result r = eval(40, 1, 0.01, 2.0, 2.4, 20);
  assert_near(r.tc_s, 1.19);
  assert_near(r.tm_s, 0.01);
  assert_near(r.time_s, 1.193);
  double p_core = 20 * (0.5 + 3.99988 * (0.4 + 0.6 * 1.19 / 1.193));
  assert_near(r.p_core_w, p_core);
  assert_near(r.p_uncore_w, 12.0);
  assert_near(r.p_pkg_w, 30 + p_core + 12);
  assert_near(r.p_dram_w, 3 + 0.25 / 1.193);
  /* The slowest corner: 1 thread, 1.0 GHz, 1.2 GHz uncore: S = 1, t_c = 40 s,
   * B = min(6, 50) = 6, t_m = 1/6 s, t = 40 + 0.05 s; P_unc = 4 + 8 / 4 = 6 W. */
  r = eval(40, 1, 0.01, 1.0, 1.2, 1);
  assert_near(r.tc_s, 40.0);
  assert_near(r.tm_s, 1.0 / 6);
  assert_near(r.time_s, 40.05);
  assert_near(r.p_core_w, 0.5 + 2.216 * 0.49 * (0.4 + 0.6 * 40 / 40.05) + 19 * 0.5);
  assert_near(r.p_uncore_w, 6.0);
}

/* Every workload at every point of the grid matches SIM.md's formulas. */
static void test_matches_sim_md(void **state) {
  (void)state;
  for (size_t k = 0; k < NWORK; k++) {
    const ergo__sim_work *w = &workloads[k];
    for (int i = 0; i < 11; i++)
      for (int j = 0; j < 13; j++)
        for (int n = 1; n <= 20; n++) {
          double f = (10 + i) / 10.0, u = (12 + j) / 10.0;
          ergo__sim_result r = eval(w->gcycles, w->gbytes, w->serial, f, u, n);
          ref x = sim_md(w->gcycles, w->gbytes, w->serial, f, u, n);
          assert_near(r.tc_s, x.tc);
          assert_near(r.tm_s, x.tm);
          assert_near(r.time_s, x.t);
          assert_near(r.p_core_w, x.p_core);
          assert_near(r.p_uncore_w, x.p_unc);
          assert_near(r.p_pkg_w, x.p_pkg);
          assert_near(r.p_dram_w, x.p_dram);
          assert_near(r.e_pkg_j + r.e_dram_j, (x.p_pkg + x.p_dram) * x.t);
        }
  }
}

/* Power is constant over one execution, so energy = power * time, per domain,
 * and the package holds core and uncore. */
static void test_energy_is_integral_of_power(void **state) {
  (void)state;
  for (size_t k = 0; k < NWORK; k++) {
    const ergo__sim_work *w = &workloads[k];
    ergo__sim_result r = eval(w->gcycles, w->gbytes, w->serial, 1.4, 1.9, 7);
    assert_true(r.time_s > 0);
    assert_true(r.e_pkg_j == r.p_pkg_w * r.time_s);
    assert_true(r.e_core_j == r.p_core_w * r.time_s);
    assert_true(r.e_dram_j == r.p_dram_w * r.time_s);
    assert_near(r.p_pkg_w, P.static_w + r.p_core_w + r.p_uncore_w);
    assert_true(r.e_core_j < r.e_pkg_j);
  }
}

/* Time and energy are homogeneous in the work: two halves of (C, M) at one
 * config cost exactly what the whole does (halving is exact in binary). */
static void test_halves_add_up(void **state) {
  (void)state;
  for (size_t k = 0; k < NWORK; k++) {
    const ergo__sim_work *w = &workloads[k];
    ergo__sim_result a = eval(w->gcycles, w->gbytes, w->serial, 1.3, 2.0, 11);
    ergo__sim_result h = eval(w->gcycles / 2, w->gbytes / 2, w->serial, 1.3, 2.0, 11);
    assert_true(h.time_s + h.time_s == a.time_s);
    assert_true(h.e_pkg_j + h.e_pkg_j == a.e_pkg_j);
    assert_true(h.e_core_j + h.e_core_j == a.e_core_j);
    assert_true(h.e_dram_j + h.e_dram_j == a.e_dram_j);
  }
}

/* But compute and memory split into two pieces no longer overlap: the split
 * takes (1 - overlap) * min(t_c, t_m) longer.  Only pure compute (or pure
 * memory) splits that way for free. */
static void test_split_loses_overlap(void **state) {
  (void)state;
  for (size_t k = 0; k < NWORK; k++) {
    const ergo__sim_work *w = &workloads[k];
    ergo__sim_result a = eval(w->gcycles, w->gbytes, w->serial, 1.5, 1.5, 9);
    ergo__sim_result c = eval(w->gcycles, 0, w->serial, 1.5, 1.5, 9);
    ergo__sim_result m = eval(0, w->gbytes, w->serial, 1.5, 1.5, 9);
    assert_true(c.time_s + m.time_s > a.time_s);
    assert_near(c.time_s + m.time_s - a.time_s, 0.7 * fmin(a.tc_s, a.tm_s));
  }
  ergo__sim_result a = eval(40, 0, 0.01, 1.5, 1.5, 9);
  ergo__sim_result c1 = eval(10, 0, 0.01, 1.5, 1.5, 9);
  ergo__sim_result c2 = eval(30, 0, 0.01, 1.5, 1.5, 9);
  assert_near(c1.time_s + c2.time_s, a.time_s);
  assert_near(c1.e_pkg_j + c2.e_pkg_j, a.e_pkg_j);
  assert_near(c1.e_dram_j + c2.e_dram_j, a.e_dram_j);
}

/* Compute-bound work (M = 0) takes time exactly proportional to 1/f. */
static void test_compute_time_scales_as_1_over_f(void **state) {
  (void)state;
  assert_true(eval(40, 0, 0, 1.0, 2.4, 20).time_s / eval(40, 0, 0, 2.0, 2.4, 20).time_s == 2.0);
  assert_true(eval(40, 0, 0.01, 1.0, 1.2, 7).time_s / eval(40, 0, 0.01, 2.0, 1.2, 7).time_s == 2.0);
  /* t = C / (f n) for s = 0, at every grid frequency, and the uncore does not matter. */
  for (int i = 0; i < 11; i++) {
    double f = (10 + i) / 10.0;
    for (int n = 1; n <= 20; n++) {
      assert_near(eval(40, 0, 0, f, 1.2, n).time_s, 40 / (f * n));
      assert_true(eval(40, 0, 0, f, 1.2, n).time_s == eval(40, 0, 0, f, 2.4, n).time_s);
    }
  }
}

/* Memory-bound work (C = 0) gains from threads only until n * 6 GB/s reaches
 * the uncore's bandwidth: 100 GB/s at 2.4 GHz (knee at 17 threads), 50 GB/s at
 * 1.2 GHz (knee at 9); the core frequency does not matter at all. */
static void test_memory_time_stops_at_the_knee(void **state) {
  (void)state;
  for (int n = 17; n <= 20; n++) assert_true(eval(0, 60, 0, 2.0, 2.4, n).time_s == 0.6);
  for (int n = 1; n < 17; n++) {
    double t = eval(0, 60, 0, 2.0, 2.4, n).time_s;
    assert_near(t, 60 / (6.0 * n));
    assert_true(t > eval(0, 60, 0, 2.0, 2.4, n + 1).time_s);
  }
  for (int n = 9; n <= 20; n++) assert_true(eval(0, 60, 0, 2.0, 1.2, n).time_s == 1.2);
  assert_true(eval(0, 60, 0, 2.0, 1.2, 8).time_s > 1.2);
  for (int i = 0; i < 11; i++) assert_true(eval(0, 60, 0, (10 + i) / 10.0, 2.4, 20).time_s == 0.6);
  /* Above the knee, bandwidth follows the uncore: linear from 50 to 100 GB/s. */
  assert_near(eval(0, 60, 0, 2.0, 1.8, 20).time_s, 60 / 75.0);
}

/* At fixed work, threads and uncore, every domain's power rises strictly with f. */
static void test_power_rises_with_f(void **state) {
  (void)state;
  ergo__sim_work all[NWORK + 2];
  memcpy(all, workloads, sizeof workloads);
  all[NWORK] = (ergo__sim_work){0, 60, 0}; /* pure memory: stalled cores still pay V^2 f */
  all[NWORK + 1] = (ergo__sim_work){40, 0, 0};
  for (size_t k = 0; k < NWORK + 2; k++)
    for (int j = 0; j < 13; j++)
      for (int n = 1; n <= 20; n++)
        for (int i = 1; i < 11; i++) {
          double u = (12 + j) / 10.0;
          ergo__sim_result lo =
              eval(all[k].gcycles, all[k].gbytes, all[k].serial, (9 + i) / 10.0, u, n);
          ergo__sim_result hi =
              eval(all[k].gcycles, all[k].gbytes, all[k].serial, (10 + i) / 10.0, u, n);
          assert_true(hi.p_core_w > lo.p_core_w);
          assert_true(hi.p_pkg_w > lo.p_pkg_w);
          assert_true(hi.p_pkg_w + hi.p_dram_w > lo.p_pkg_w + lo.p_dram_w);
        }
}

/* Uncore power rises strictly with u: 4 + 8 (u / 2.4)^2, 6 W to 12 W. */
static void test_uncore_power_rises_with_u(void **state) {
  (void)state;
  assert_true(eval(10, 10, 0, 1.5, 1.2, 10).p_uncore_w == 6.0);
  assert_true(eval(10, 10, 0, 1.5, 2.4, 10).p_uncore_w == 12.0);
  for (int j = 1; j < 13; j++) {
    double u = (12 + j) / 10.0;
    ergo__sim_result r = eval(10, 10, 0, 1.5, u, 10);
    assert_near(r.p_uncore_w, 4 + 8 * (u / 2.4) * (u / 2.4));
    assert_true(r.p_uncore_w > eval(10, 10, 0, 1.5, u - 0.1, 10).p_uncore_w);
  }
}

static void test_zero_work(void **state) {
  (void)state;
  for (int n = 1; n <= 20; n += 19) {
    ergo__sim_result r = eval(0, 0, 0.3, 1.0 + 0.05 * n, 1.2 + 0.06 * n, n);
    assert_true(r.time_s == 0 && r.tc_s == 0 && r.tm_s == 0);
    assert_true(r.e_pkg_j == 0 && r.e_core_j == 0 && r.e_dram_j == 0);
    assert_true(isfinite(r.p_pkg_w) && isfinite(r.p_dram_w));
    assert_true(r.p_dram_w == 3.0);
  }
}

/* A request outside the node's range runs at the nearest end of it, as the hardware would. */
static void test_out_of_range_config_clamps(void **state) {
  (void)state;
  ergo__sim_result a = eval(8, 10, 0.1, 1.0, 1.2, 1);
  ergo__sim_result b = eval(8, 10, 0.1, 0.5, 0.3, 0);
  assert_memory_equal(&a, &b, sizeof a);
  a = eval(8, 10, 0.1, 2.0, 2.4, 20);
  b = eval(8, 10, 0.1, 3.5, 9.9, 64);
  assert_memory_equal(&a, &b, sizeof a);
}

/* ---- node files ----------------------------------------------------------- */

static void write_file(const char *name, const char *text) {
  FILE *f = fopen(test_in_dir(name), "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Field by field: a struct's padding bytes are not part of its value. */
static void assert_params_equal(const ergo__sim_params *a, const ergo__sim_params *b) {
  assert_int_equal(a->cores, b->cores);
  const double x[] = {a->f_min,        a->f_max,      a->f_step,       a->u_min,
                      a->u_max,        a->u_step,     a->bw_per_core,  a->bw_max,
                      a->bw_floor,     a->overlap,    a->v0,           a->v_slope,
                      a->core_idle_w,  a->core_dyn_w, a->core_act_min, a->uncore_min_w,
                      a->uncore_dyn_w, a->static_w,   a->dram_min_w,   a->dram_w_per_gbs,
                      a->noise_sigma};
  const double y[] = {b->f_min,        b->f_max,      b->f_step,       b->u_min,
                      b->u_max,        b->u_step,     b->bw_per_core,  b->bw_max,
                      b->bw_floor,     b->overlap,    b->v0,           b->v_slope,
                      b->core_idle_w,  b->core_dyn_w, b->core_act_min, b->uncore_min_w,
                      b->uncore_dyn_w, b->static_w,   b->dram_min_w,   b->dram_w_per_gbs,
                      b->noise_sigma};
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) {
    if (!(x[i] == y[i])) print_error("parameter %zu: %.17g != %.17g\n", i, x[i], y[i]);
    assert_true(x[i] == y[i]);
  }
  assert_true(a->seed == b->seed);
}

/* Load `text`, expect rc and exactly the message "sim node file '<path>': <tail>", p unchanged. */
static void load_fails(const char *text, int rc, const char *tail) {
  write_file("node.json", text);
  ergo__sim_params p, before;
  ergo__sim_params_default(&p);
  p.cores = 12; /* a non-default value must survive too */
  before = p;
  char why[1024] = "", expected[1024];
  assert_int_equal(ergo__sim_params_load(&p, test_in_dir("node.json"), why, sizeof why), rc);
  snprintf(expected, sizeof expected, "sim node file '%s': %s", test_in_dir("node.json"), tail);
  assert_string_equal(why, expected);
  assert_params_equal(&p, &before);
}

static void test_load_partial_override(void **state) {
  (void)state;
  write_file("node.json", "{\"cores\": 16, \"static_w\": 25.5, \"f_step\": 0.05,\n"
                          " \"seed\": 42, \"noise_sigma\": 0.05, \"u_max\": 2}\n");
  ergo__sim_params p, expected;
  ergo__sim_params_default(&p);
  expected = p;
  expected.cores = 16;
  expected.static_w = 25.5;
  expected.f_step = 0.05;
  expected.seed = 42;
  expected.noise_sigma = 0.05;
  expected.u_max = 2;
  char why[512] = "";
  assert_int_equal(ergo__sim_params_load(&p, test_in_dir("node.json"), why, sizeof why), 0);
  assert_string_equal(why, "");
  assert_params_equal(&p, &expected);
  assert_int_equal(ergo__sim_nf(&p), 21);
  assert_int_equal(ergo__sim_nu(&p), 9);
  assert_true(ergo__sim_f(&p, 1) == 1.05);
  /* An empty object changes nothing; integers are numbers too. */
  write_file("node.json", "{}");
  assert_int_equal(ergo__sim_params_load(&p, test_in_dir("node.json"), why, sizeof why), 0);
  assert_params_equal(&p, &expected);
  write_file("node.json", "{\"bw_max\": 128}");
  assert_int_equal(ergo__sim_params_load(&p, test_in_dir("node.json"), why, sizeof why), 0);
  assert_true(p.bw_max == 128.0);
}

static void test_load_unknown_key(void **state) {
  (void)state;
  load_fails("{\"cores\": 20, \"corez\": 20}", ERGO_EINVAL,
             "unknown key 'corez'; accepted keys: cores, f_min, f_max, f_step, u_min, u_max, "
             "u_step, bw_per_core, bw_max, bw_floor, overlap, v0, v_slope, core_idle_w, "
             "core_dyn_w, core_act_min, uncore_min_w, uncore_dyn_w, static_w, dram_min_w, "
             "dram_w_per_gbs, noise_sigma, seed, work_counter");
}

/* The position and the reason are jansson's own (2.14's wording). */
static void test_load_malformed(void **state) {
  (void)state;
  load_fails("{\"cores\": 20,\n  \"static_w\": }\n", ERGO_EFORMAT,
             "line 2 column 15: unexpected token near '}'");
  load_fails("{\"cores\": 20,\n\"cores\": 21}", ERGO_EFORMAT,
             "line 2 column 7: duplicate object key near '\"cores\"'");
  load_fails("", ERGO_EFORMAT, "line 1 column 0: '[' or '{' expected near end of file");
  load_fails("[20]", ERGO_EFORMAT, "expected a JSON object of parameters, such as {\"cores\": 20}");
}

static void test_load_bad_values(void **state) {
  (void)state;
  load_fails("{\"cores\": 20.5}", ERGO_EINVAL,
             "cores = 20.5 is not valid: expected an integer from 1 to 256");
  load_fails("{\"cores\": \"20\"}", ERGO_EINVAL,
             "cores = \"20\" is not valid: expected an integer from 1 to 256");
  load_fails("{\"cores\": 300}", ERGO_EINVAL,
             "cores = 300 is not valid: expected an integer from 1 to 256");
  load_fails("{\"cores\": 0}", ERGO_EINVAL,
             "cores = 0 is not valid: expected an integer from 1 to 256");
  load_fails("{\"f_min\": 0}", ERGO_EINVAL, "f_min = 0 is not valid: expected a number > 0");
  load_fails("{\"static_w\": -1}", ERGO_EINVAL,
             "static_w = -1 is not valid: expected a number >= 0");
  load_fails("{\"static_w\": null}", ERGO_EINVAL,
             "static_w = null is not valid: expected a number >= 0");
  load_fails("{\"noise_sigma\": 2}", ERGO_EINVAL,
             "noise_sigma = 2 is not valid: expected a number from 0 to 1");
  load_fails("{\"bw_floor\": 0}", ERGO_EINVAL,
             "bw_floor = 0 is not valid: expected a number > 0 and <= 1");
  load_fails("{\"seed\": -1}", ERGO_EINVAL, "seed = -1 is not valid: expected an integer >= 0");
  load_fails("{\"overlap\": [0.3]}", ERGO_EINVAL,
             "overlap = [0.3] is not valid: expected a number from 0 to 1");
}

static void test_load_bad_grids(void **state) {
  (void)state;
  load_fails("{\"f_step\": 0.3}", ERGO_EINVAL,
             "f_step = 0.3 does not divide f_max - f_min = 1 into whole steps (3.33333); "
             "accepted: a step that gives a whole number of steps");
  load_fails("{\"u_step\": 0.001}", ERGO_EINVAL,
             "the u grid 1.2..2.4 by 0.001 has 1201 points; accepted: at most 256");
  load_fails("{\"f_max\": 0.5}", ERGO_EINVAL,
             "f_max = 0.5 is below f_min = 1; accepted: f_max >= f_min");
  /* 256 points is the limit, and a one-point grid is fine. */
  write_file("node.json", "{\"f_min\": 1, \"f_max\": 3.55, \"f_step\": 0.01, \"u_max\": 1.2}");
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  char why[512] = "";
  assert_int_equal(ergo__sim_params_load(&p, test_in_dir("node.json"), why, sizeof why), 0);
  assert_int_equal(ergo__sim_nf(&p), 256);
  assert_int_equal(ergo__sim_nu(&p), 1);
  assert_true(ergo__sim_f(&p, 255) == 3.55);
  load_fails("{\"f_min\": 1, \"f_max\": 3.56, \"f_step\": 0.01}", ERGO_EINVAL,
             "the f grid 1..3.56 by 0.01 has 257 points; accepted: at most 256");
}

static void test_load_unreadable(void **state) {
  (void)state;
  ergo__sim_params p, before;
  ergo__sim_params_default(&p);
  before = p;
  char why[1024], expected[1024];
  assert_int_equal(ergo__sim_params_load(&p, test_in_dir("missing.json"), why, sizeof why),
                   ERGO_EIO);
  snprintf(expected, sizeof expected,
           "sim node file '%s': cannot open it: No such file or directory",
           test_in_dir("missing.json"));
  assert_string_equal(why, expected);
  assert_params_equal(&p, &before);
}

static void test_check(void **state) {
  (void)state;
  ergo__sim_params p = P;
  char why[256];
  p.overlap = NAN;
  assert_int_equal(ergo__sim_params_check(&p, why, sizeof why), ERGO_EINVAL);
  assert_string_equal(why,
                      "sim node parameters: overlap = nan is not valid: expected a number from 0 "
                      "to 1");
  p = P;
  p.u_step = 0.25;
  assert_int_equal(ergo__sim_params_check(&p, why, sizeof why), ERGO_EINVAL);
  assert_string_equal(why, "sim node parameters: u_step = 0.25 does not divide u_max - u_min = 1.2 "
                           "into whole steps (4.8); accepted: a step that gives a whole number "
                           "of steps");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_grid),
      cmocka_unit_test(test_hand_worked),
      cmocka_unit_test(test_matches_sim_md),
      cmocka_unit_test(test_energy_is_integral_of_power),
      cmocka_unit_test(test_halves_add_up),
      cmocka_unit_test(test_split_loses_overlap),
      cmocka_unit_test(test_compute_time_scales_as_1_over_f),
      cmocka_unit_test(test_memory_time_stops_at_the_knee),
      cmocka_unit_test(test_power_rises_with_f),
      cmocka_unit_test(test_uncore_power_rises_with_u),
      cmocka_unit_test(test_zero_work),
      cmocka_unit_test(test_out_of_range_config_clamps),
      ERGO_DIR_TEST(test_load_partial_override),
      ERGO_DIR_TEST(test_load_unknown_key),
      ERGO_DIR_TEST(test_load_malformed),
      ERGO_DIR_TEST(test_load_bad_values),
      ERGO_DIR_TEST(test_load_bad_grids),
      ERGO_DIR_TEST(test_load_unreadable),
      cmocka_unit_test(test_check),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
