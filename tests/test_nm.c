/* test_nm.c - the online Nelder-Mead optimiser: ask/tell mechanics, and its choices on the sim
 * node's eight workloads against the oracle, with and without 5 % measurement noise. */
#include "test_util.h"

#include "optimizer/nm.h"
#include "sim/oracle.h"

#include <math.h>

typedef struct workload {
  const char *name;
  ergo__sim_work w;
} workload;

/* SIM.md's workloads: (C gigacycles, M gigabytes, serial fraction). */
static const workload workloads[] = {
    {"compute", {40, 1, 0.01}},     {"memory", {2, 60, 0.01}},     {"serial", {20, 2, 0.5}},
    {"mixed", {15, 25, 0.05}},      {"comm-like", {3, 3, 0.8}},    {"balanced", {10, 40, 0.02}},
    {"light-memory", {8, 10, 0.1}}, {"heavy-mix", {30, 50, 0.03}},
};
#define NWORK (sizeof workloads / sizeof *workloads)
#define SEEDS 10
#define BUDGET 40

/* With noise the target is 5 % of the oracle and the 5 % slowdown
 * bound, as medians over 10 seeds.  Under `energy` compute, serial and
 * comm-like sit just above it (1.05-1.07); under energy@5% the choices keep
 * the bound with confidence and save less (below).  The table marks the
 * misses; the assertions are regression guards at the level these seeds
 * reach, not the target. */
#define NOISY_TARGET 1.05
#define NOISY_LIMIT 1.12
/* energy@5% with noise: a choice must keep the bound on the upper end of the
 * time ratio's 95 % interval, which 40 executions at sigma 0.05 reach only
 * well inside the bound; so no seed's true time may pass 1.06x (the issue's
 * limit), while the median energy is guarded at the level it reaches (the
 * baseline is kept where no config can be shown fast enough). */
#define NOISY_LIMIT_BOUNDED 1.40
#define NOISY_T_LIMIT 1.05
#define NOISY_T_WORST 1.06

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

/* The sim node's grid: f (11) x u (13) x threads (20), thread count searched
 * on a log scale, starting at the all-maximum baseline. */
static ergo__nm_grid sim_grid(void) {
  ergo__nm_grid g = {3, {0}, {0}, {0, 0, 1}};
  g.n[0] = ergo__sim_nf(&P);
  g.n[1] = ergo__sim_nu(&P);
  g.n[2] = P.cores;
  for (int d = 0; d < 3; d++) g.start[d] = g.n[d] - 1;
  return g;
}

static ergo__sim_config config_of(const int p[3]) {
  return (ergo__sim_config){ergo__sim_f(&P, p[0]), ergo__sim_u(&P, p[1]), p[2] + 1};
}

/* The model's noise-free measure of work w at grid point p. */
static ergo__measure truth(const ergo__sim_work *w, const int p[3]) {
  ergo__sim_config c = config_of(p);
  ergo__sim_result r;
  ergo__measure m;
  ergo__sim_eval(&P, w, &c, &r);
  ergo__sim_measure(&P, &c, &r, &m);
  return m;
}

/* Seeded log-normal noise, as the sim node makes it (SIM.md): one factor on
 * time and one on power, so energy carries both. */
static uint64_t rng;
static double uniform(void) {
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return ((double)((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
}
static double lognormal(double sigma) {
  if (sigma <= 0) return 1;
  double u1 = uniform(), u2 = uniform();
  return exp(sigma * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

/* Options as online sets them under noise: the baseline and each deciding point measured 3
 * times, a noise of `sigma` guessed, and `confirm` executions for the confirmation beyond the
 * search's 40. */
static ergo__nm_options noisy_options(double sigma, int confirm) {
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  opt.repeats = 3;
  opt.noise_rel = sigma;
  opt.confirm = confirm;
  opt.max_evals += confirm;
  return opt;
}

typedef struct outcome {
  int point[3];
  ergo__measure m; /* true (noise-free) measure of the final choice */
  int evals, asked;
} outcome;

/* Drive one optimiser to the end on workload w. */
static outcome drive(const ergo__sim_work *w, const ergo__objective *o, double sigma,
                     unsigned seed) {
  ergo__nm_grid g = sim_grid();
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  opt.max_evals = BUDGET;
  opt.repeats = sigma > 0 ? 3 : 1;
  opt.noise_rel = sigma;
  opt.seed = seed;
  ergo__nm *nm = ergo__nm_new(&g, o, &opt);
  assert_non_null(nm);
  rng = 0x5eed0000ull + seed * 7919ull;
  outcome r = {{0}, {0, 0, 0}, 0, 0};
  int p[3];
  while (ergo__nm_ask(nm, p)) {
    for (int d = 0; d < 3; d++) assert_true(p[d] >= 0 && p[d] < g.n[d]);
    ergo__measure m = truth(w, p);
    double ft = lognormal(sigma), fp = lognormal(sigma);
    m.time_s *= ft;
    m.energy_j *= ft * fp;
    assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    assert_true(++r.asked <= BUDGET);
  }
  assert_true(ergo__nm_done(nm));
  memcpy(r.point, p, sizeof p);
  r.m = truth(w, p);
  r.evals = ergo__nm_evals(nm);
  ergo__nm_free(nm);
  return r;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Every workload, for one objective: the final choice's true energy against
 * the oracle's, never worse than the baseline, the slowdown bound kept, all
 * within the execution budget. */
static void check_objective(const char *name) {
  ergo__objective o = objective(name);
  int bounded = o.kind == ERGO__OBJ_ENERGY_BOUNDED;
  double worst_clean = 0, worst_noisy = 0;
  for (size_t i = 0; i < NWORK; i++) {
    const ergo__sim_work *w = &workloads[i].w;
    ergo__sim_choice best, base;
    assert_int_equal(ergo__sim_oracle(&P, w, &o, &best, &base), 0);
    ergo__measure mb;
    ergo__sim_measure(&P, &base.config, &base.result, &mb);
    double e_oracle = best.result.e_pkg_j + best.result.e_dram_j;

    /* Without noise: within 3 % of the oracle. */
    outcome c = drive(w, &o, 0, 0);
    ergo__sim_config cc = config_of(c.point);
    double ce = c.m.energy_j / e_oracle, ct = c.m.time_s / mb.time_s;
    print_message("%-9s %-12s exact: f %.1f u %.1f n %2d  E/oracle %.4f  E/base %.4f  T/base "
                  "%.3f  %2d executions\n",
                  name, workloads[i].name, cc.f_ghz, cc.u_ghz, cc.threads, ce,
                  c.m.energy_j / mb.energy_j, ct, c.evals);
    assert_true(ce <= 1.03);
    assert_true(c.m.energy_j <= 1.01 * mb.energy_j);
    assert_true(c.evals <= BUDGET);
    if (bounded) assert_true(ct <= 1.05 + 1e-9);
    if (ce > worst_clean) worst_clean = ce;

    /* With sigma 0.05 on time and power: medians over the seeds. */
    double re[SEEDS], rb[SEEDS], rt[SEEDS], max_e = 0, max_t = 0;
    int max_evals = 0;
    for (unsigned s = 0; s < SEEDS; s++) {
      outcome n = drive(w, &o, 0.05, s);
      re[s] = n.m.energy_j / e_oracle;
      rb[s] = n.m.energy_j / mb.energy_j;
      rt[s] = n.m.time_s / mb.time_s;
      if (re[s] > max_e) max_e = re[s];
      if (rt[s] > max_t) max_t = rt[s];
      if (n.evals > max_evals) max_evals = n.evals;
      assert_true(n.evals <= BUDGET);
      if (s == 0) cc = config_of(n.point);
    }
    double me = median(re, SEEDS), mbse = median(rb, SEEDS), mt = median(rt, SEEDS);
    print_message("%-9s %-12s noisy: seed 0 f %.1f u %.1f n %2d  E/oracle median %.4f (worst "
                  "%.4f)  E/base %.4f  T/base %.3f (worst %.3f)  <= %d executions%s\n",
                  name, workloads[i].name, cc.f_ghz, cc.u_ghz, cc.threads, me, max_e, mbse, mt,
                  max_t, max_evals,
                  me > NOISY_TARGET || (bounded && mt > 1.05) ? "  [misses the 5 % target]" : "");
    assert_true(me <= (bounded ? NOISY_LIMIT_BOUNDED : NOISY_LIMIT));
    assert_true(mbse <= 1.01);
    if (bounded) assert_true(mt <= NOISY_T_LIMIT && max_t <= NOISY_T_WORST);
    if (me > worst_noisy) worst_noisy = me;
  }
  print_message("%s: worst E/oracle exact %.4f, noisy (median) %.4f\n", name, worst_clean,
                worst_noisy);
}

static void test_energy(void **state) {
  (void)state;
  check_objective("energy");
}

static void test_energy_bounded(void **state) {
  (void)state;
  check_objective("energy@5%");
}

/* Continuous coordinates round to the nearest index, clamped; a log
 * dimension rounds in index space after undoing the log. */
static void test_rounding(void **state) {
  (void)state;
  ergo__nm_grid g = {3, {11, 20, 1}, {10, 19, 0}, {0, 1, 0}};
  assert_int_equal(ergo__nm_nearest(&g, 0, 0.0), 0);
  assert_int_equal(ergo__nm_nearest(&g, 0, 1.0), 10);
  assert_int_equal(ergo__nm_nearest(&g, 0, 0.5), 5);
  assert_int_equal(ergo__nm_nearest(&g, 0, 0.04), 0);
  assert_int_equal(ergo__nm_nearest(&g, 0, 0.06), 1);
  assert_int_equal(ergo__nm_nearest(&g, 0, 0.349), 3);
  assert_int_equal(ergo__nm_nearest(&g, 0, -3.0), 0);
  assert_int_equal(ergo__nm_nearest(&g, 0, 7.0), 10);
  assert_int_equal(ergo__nm_nearest(&g, 0, NAN), 0);
  /* Log: y = log(1 + i) / log(20); 4 threads is index 3. */
  assert_int_equal(ergo__nm_nearest(&g, 1, 0.0), 0);
  assert_int_equal(ergo__nm_nearest(&g, 1, 1.0), 19);
  assert_int_equal(ergo__nm_nearest(&g, 1, log(4.0) / log(20.0)), 3);
  assert_int_equal(ergo__nm_nearest(&g, 1, log(10.4) / log(20.0)), 9);
  assert_int_equal(ergo__nm_nearest(&g, 1, 0.5), 3); /* sqrt(20) - 1 = 3.47 */
  assert_int_equal(ergo__nm_nearest(&g, 2, 0.7), 0); /* a one-point dimension */
}

/* A bowl on a 2-D grid: the minimum at (7, 3). */
static ergo__measure bowl(const int p[3]) {
  double dx = p[0] - 7, dy = p[1] - 3;
  return (ergo__measure){1.0, 100 + dx * dx + 2 * dy * dy, 0.5};
}

/* Without noise a measured point is never asked again (f at a known point
 * returns at once), and the bowl's minimum is found. */
static void test_memo(void **state) {
  (void)state;
  ergo__nm_grid g = {2, {16, 9}, {15, 8}, {0, 0}};
  ergo__objective o = objective("energy");
  ergo__nm *nm = ergo__nm_new(&g, &o, NULL);
  assert_non_null(nm);
  int seen[16][9] = {{0}}, p[3], asks = 0;
  while (ergo__nm_ask(nm, p)) {
    assert_int_equal(seen[p[0]][p[1]]++, 0);
    assert_int_equal(p[2], 0);
    ergo__measure m = bowl(p);
    assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    asks++;
  }
  assert_int_equal(ergo__nm_evals(nm), asks);
  assert_int_equal(ergo__nm_points(nm), asks);
  assert_true(asks <= 40);
  assert_int_equal(p[0], 7);
  assert_int_equal(p[1], 3);
  print_message("bowl: minimum found after %d distinct points\n", asks);
  ergo__nm_free(nm);
}

/* Once done, ask() keeps answering 0 with the final point; tell() is refused. */
static void test_after_done(void **state) {
  (void)state;
  ergo__nm_grid g = {2, {16, 9}, {15, 8}, {0, 0}};
  ergo__objective o = objective("energy");
  ergo__nm *nm = ergo__nm_new(&g, &o, NULL);
  int p[3];
  while (ergo__nm_ask(nm, p)) {
    ergo__measure m = bowl(p);
    ergo__nm_tell(nm, p, &m);
  }
  int evals = ergo__nm_evals(nm);
  for (int i = 0; i < 5; i++) {
    int q[3] = {-1, -1, -1};
    assert_int_equal(ergo__nm_ask(nm, q), 0);
    assert_memory_equal(q, p, sizeof q);
    ergo__measure m = bowl(q);
    assert_int_equal(ergo__nm_tell(nm, q, &m), ERGO_EINVAL);
  }
  assert_int_equal(ergo__nm_evals(nm), evals);
  int b[3];
  ergo__measure mean;
  double v;
  ergo__nm_best(nm, b, &mean, &v);
  assert_memory_equal(b, p, sizeof b);
  assert_true(fabs(mean.energy_j - 100) < 1e-9 && fabs(v - 100) < 1e-9);
  ergo__nm_free(nm);
}

/* A tell that does not answer the ask is refused and changes nothing: the
 * same point is asked again. */
static void test_tell_errors(void **state) {
  (void)state;
  ergo__nm_grid g = {2, {16, 9}, {15, 8}, {0, 0}};
  ergo__objective o = objective("energy");
  ergo__nm *nm = ergo__nm_new(&g, &o, NULL);
  int p[3], q[3], other[3] = {0, 0, 0};
  ergo__measure m = {1, 100, 0.5}, nan = {NAN, 100, 0.5}, neg = {1, -1, 0.5}, zero = {0, 1, 0.5};
  assert_int_equal(ergo__nm_tell(nm, other, &m), ERGO_EINVAL); /* nothing asked yet */
  assert_int_equal(ergo__nm_ask(nm, p), 1);
  assert_memory_equal(p, g.start, 2 * sizeof(int)); /* the baseline first */
  assert_int_equal(ergo__nm_tell(nm, other, &m), ERGO_EINVAL);
  assert_int_equal(ergo__nm_tell(nm, p, &nan), ERGO_EINVAL);
  assert_int_equal(ergo__nm_tell(nm, p, &neg), ERGO_EINVAL);
  assert_int_equal(ergo__nm_tell(nm, p, &zero), ERGO_EINVAL);
  assert_int_equal(ergo__nm_tell(nm, p, NULL), ERGO_EINVAL);
  assert_int_equal(ergo__nm_evals(nm), 0);
  assert_int_equal(ergo__nm_ask(nm, q), 1);
  assert_memory_equal(p, q, sizeof p);
  assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
  assert_int_equal(ergo__nm_evals(nm), 1);
  ergo__measure b;
  ergo__nm_baseline(nm, &b);
  assert_true(b.energy_j == 100 && b.time_s == 1);
  int q0[3], n;
  assert_int_equal(ergo__nm_point(nm, 0, q0, &b, &n), 1);
  assert_memory_equal(q0, p, sizeof q0);
  assert_int_equal(n, 1);
  assert_int_equal(ergo__nm_point(nm, 1, q0, &b, &n), 0);
  ergo__nm_free(nm);
}

/* Freeing mid-search (the coroutine suspended inside GSL's set or iterate),
 * before any ask, and NULL: nothing leaks (ASan's leak check). */
static void test_free_midway(void **state) {
  (void)state;
  ergo__nm_grid g = sim_grid();
  ergo__objective o = objective("energy@5%");
  for (int stop = 0; stop < 12; stop++) {
    ergo__nm *nm = ergo__nm_new(&g, &o, NULL);
    assert_non_null(nm);
    int p[3];
    for (int i = 0; i < stop && ergo__nm_ask(nm, p); i++) {
      ergo__measure m = truth(&workloads[2].w, p);
      ergo__nm_tell(nm, p, &m);
    }
    if (stop % 2) ergo__nm_ask(nm, p); /* and with a point outstanding */
    assert_false(ergo__nm_done(nm));
    ergo__nm_free(nm);
  }
  ergo__nm_free(NULL);
}

static void test_bad_arguments(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  ergo__nm_grid g = {2, {16, 9}, {15, 8}, {0, 0}};
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  assert_null(ergo__nm_new(NULL, &o, NULL));
  assert_null(ergo__nm_new(&g, NULL, NULL));
  ergo__nm_grid bad = g;
  bad.dims = 4;
  assert_null(ergo__nm_new(&bad, &o, NULL));
  bad = g;
  bad.start[1] = 9;
  assert_null(ergo__nm_new(&bad, &o, NULL));
  bad = g;
  bad.n[0] = 0;
  assert_null(ergo__nm_new(&bad, &o, NULL));
  opt.max_evals = 0;
  assert_null(ergo__nm_new(&g, &o, &opt));
  ergo__nm_options_default(&opt);
  opt.repeats = 0;
  assert_null(ergo__nm_new(&g, &o, &opt));
  ergo__nm_options_default(&opt);
  opt.noise_rel = NAN;
  assert_null(ergo__nm_new(&g, &o, &opt));
}

/* Nothing to search (every dimension a single value): the baseline is
 * measured `repeats` times and is the choice. */
static void test_nothing_to_search(void **state) {
  (void)state;
  ergo__nm_grid g = {3, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}};
  ergo__objective o = objective("energy");
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  opt.repeats = 2;
  ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
  int p[3], n = 0;
  while (ergo__nm_ask(nm, p)) {
    ergo__measure m = {1, 10, 1};
    ergo__nm_tell(nm, p, &m);
    n++;
  }
  assert_int_equal(n, 2);
  assert_int_equal(p[0] + p[1] + p[2], 0);
  ergo__nm_free(nm);
}

/* Without an energy meter (energy 0): a time objective still tunes, an
 * energy objective keeps the baseline. */
static void test_no_meter(void **state) {
  (void)state;
  ergo__nm_grid g = {2, {16, 9}, {15, 8}, {0, 0}};
  const char *names[2] = {"time", "energy"};
  for (int k = 0; k < 2; k++) {
    ergo__objective o = objective(names[k]);
    ergo__nm *nm = ergo__nm_new(&g, &o, NULL);
    int p[3];
    while (ergo__nm_ask(nm, p)) {
      ergo__measure m = bowl(p);
      m.time_s = m.energy_j;
      m.energy_j = 0;
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    }
    if (k == 0) assert_true(p[0] == 7 && p[1] == 3);
    if (k == 1) assert_true(p[0] == 15 && p[1] == 8);
    ergo__nm_free(nm);
  }
}

/* With noise, where every other point is truly 8 % worse, the baseline stays:
 * nothing is better with confidence. */
static void test_keeps_baseline(void **state) {
  (void)state;
  ergo__nm_grid g = {2, {16, 9}, {8, 4}, {0, 0}};
  ergo__objective o = objective("energy");
  ergo__nm_options opt = noisy_options(0.05, 0);
  for (unsigned s = 0; s < SEEDS; s++) {
    ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
    rng = 0xba5e0000ull + s;
    int p[3];
    while (ergo__nm_ask(nm, p)) {
      int base = p[0] == 8 && p[1] == 4;
      ergo__measure m = {lognormal(0.05), (base ? 100 : 108) * lognormal(0.07), 0.5};
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    }
    assert_int_equal(p[0], 8);
    assert_int_equal(p[1], 4);
    assert_true(ergo__nm_evals(nm) <= 40);
    ergo__nm_free(nm);
  }
}

/* The work changes under the search (near-serial for its first 3 measurements, then compute-bound
 * and about 4x faster at every config): every config measured after the change looks far faster
 * than the baseline measured before it.  Under energy@5%, without the baseline measured again
 * (base_every 0) the choice runs the new work at 1.25x its baseline's time; with it, the search
 * sees the baseline move, ends (drifted) and keeps the baseline. */
static double drift_choice(int base_every, int *drifted) {
  static const ergo__sim_work a = {20, 2, 0.5}, b = {40, 1, 0.01};
  ergo__nm_grid g = sim_grid();
  ergo__objective o = objective("energy@5%");
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  opt.base_every = base_every;
  ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
  assert_non_null(nm);
  int p[3], n = 0;
  while (ergo__nm_ask(nm, p)) {
    ergo__measure m = truth(n++ < 3 ? &a : &b, p);
    assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
  }
  *drifted = ergo__nm_drifted(nm);
  ergo__nm_free(nm);
  return truth(&b, p).time_s / truth(&b, g.start).time_s;
}

static void test_baseline_drift_ends_search(void **state) {
  (void)state;
  int drifted;
  double r0 = drift_choice(0, &drifted);
  print_message("work changed under the search: choice at %.3fx the new baseline's time\n", r0);
  assert_int_equal(drifted, 0);
  assert_true(r0 > 1.05);
  double r = drift_choice(10, &drifted);
  print_message("... with the baseline measured every 10: %.3fx\n", r);
  assert_int_equal(drifted, 1);
  assert_true(r <= 1.05);
}

/* With noise (1 %), the work drops to 0.57x under the search after `at` measurements, at every
 * config alike.  Whether the search saw its baseline move (drifted), wherever the baseline was
 * measured again: by the periodic check, or as the search decides.  A measurement that moved
 * had widened the sigma it was judged by (a limit of 0.98 in log time), and one taken as the
 * search decided was never checked: candidates on the new work then beat a baseline mostly of
 * the old, and under `weighted` a config at 1.6x its baseline's time on the new work stood
 * (random program 1263).  Before: 0 and 0 of 10 seeds; checking the sigma alone, 10 and 6. */
static int drift_seen_noisy(int at) {
  static const ergo__sim_work a = {40, 1, 0.01}, b = {22.8, 0.57, 0.01};
  ergo__nm_grid g = sim_grid();
  ergo__objective o = objective("energy");
  ergo__nm_options opt = noisy_options(0.01, 80);
  opt.base_every = 10;
  int seen = 0;
  for (int s = 0; s < 10; s++) {
    ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
    assert_non_null(nm);
    rng = 0xc0f50000ull + (unsigned)s;
    int p[3], n = 0;
    while (ergo__nm_ask(nm, p)) {
      ergo__measure m = truth(n++ < at ? &a : &b, p);
      double ft = lognormal(0.01), fp = lognormal(0.01);
      m.time_s *= ft;
      m.energy_j *= ft * fp;
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    }
    seen += ergo__nm_drifted(nm);
    ergo__nm_free(nm);
  }
  return seen;
}

static void test_baseline_drift_seen_under_noise(void **state) {
  (void)state;
  int early = drift_seen_noisy(8), deciding = drift_seen_noisy(14);
  print_message("work at 0.57x after 8 measurements: drift seen in %d of 10 seeds; after 14 (as "
                "the search decides): in %d of 10\n",
                early, deciding);
  assert_int_equal(early, 10);
  assert_int_equal(deciding, 10);
}

/* The work turns from compute- to memory-bound (`phase`: its time per execution at the baseline
 * 0.2x) after `at` measurements of a search under 5 % noise, wherever the search then is: the
 * simplex, the selection, or the confirmation, which measures a candidate and the baseline in
 * turn.  Of the seeds whose search was not over at the change, how many ended with a baseline
 * that mixes the two works (its mean off both works' by more than 15 %) instead of seeing the
 * baseline move (drifted).  The confirmation's baseline measurements went in unchecked: the
 * online policy then kept a baseline of both works (`phase-noisy` under `energy`, 3 of 10 seeds
 * on the 20-core node: the region left at its baseline, 1.27x the oracle of its new work;
 * SIMULATED). */
static int drift_mixed(int at, int seeds, int *open_at_change) {
  static const ergo__sim_work a = {40 * 0.5, 1 * 0.5, 0.01}, b = {2 * 0.4, 60 * 0.4, 0.01};
  ergo__nm_grid g = sim_grid();
  ergo__objective o = objective("energy");
  ergo__nm_options opt = noisy_options(0.05, 80);
  opt.base_every = 10;
  int mixed = 0;
  *open_at_change = 0;
  double ta = truth(&a, g.start).time_s, tb = truth(&b, g.start).time_s;
  for (int s = 0; s < seeds; s++) {
    ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
    assert_non_null(nm);
    rng = 0x9a5e0000ull + (unsigned)s;
    int p[3], n = 0, open = 0;
    while (ergo__nm_ask(nm, p)) {
      open |= n == at;
      ergo__measure m = truth(n++ < at ? &a : &b, p);
      double ft = lognormal(0.05), fp = lognormal(0.05);
      m.time_s *= ft;
      m.energy_j *= ft * fp;
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    }
    ergo__measure base;
    ergo__nm_baseline(nm, &base);
    int off = fabs(log(base.time_s / ta)) > 0.15 && fabs(log(base.time_s / tb)) > 0.15;
    *open_at_change += open;
    mixed += open && off && !ergo__nm_drifted(nm);
    ergo__nm_free(nm);
  }
  return mixed;
}

static void test_drift_during_confirmation(void **state) {
  (void)state;
  int total = 0, open_total = 0;
  for (int at = 40; at <= 100; at += 10) {
    int open, mixed = drift_mixed(at, 6, &open);
    print_message("work changed after %d measurements: search still open in %d of 6 seeds, "
                  "ended on a mixed baseline in %d\n",
                  at, open, mixed);
    total += mixed;
    open_total += open;
  }
  assert_true(open_total >= 10); /* the change does fall inside searches */
  assert_int_equal(total, 0);
}

/* ---- decisions with stated confidence ----
 * A 1-D grid of 4 points, the baseline at 3; every other point has the same
 * true measure.  Seeded log-normal noise, sigma 0.05 on time and on power as
 * on the sim node.  How many of 10 seeds end away from the baseline. */
static int replaced(const char *objective_name, double t_other, double e_other) {
  ergo__nm_grid g = {1, {4}, {3}, {0}};
  ergo__objective o = objective(objective_name);
  ergo__nm_options opt = noisy_options(0.05, 0);
  int n = 0;
  for (unsigned s = 0; s < SEEDS; s++) {
    ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
    assert_non_null(nm);
    rng = 0xc0f10000ull + s;
    int p[3], asked = 0;
    while (ergo__nm_ask(nm, p)) {
      int base = p[0] == 3;
      double ft = lognormal(0.05), fp = lognormal(0.05);
      ergo__measure m = {(base ? 1 : t_other) * ft, (base ? 100 : 100 * e_other) * ft * fp, 1};
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
      assert_true(++asked <= 40);
    }
    n += p[0] != 3;
    ergo__nm_free(nm);
  }
  return n;
}

/* The same energy as the baseline: whatever a few measurements say, it is
 * better only within the noise, and the baseline stays (at 95 % one-sided
 * confidence one seed in 10 may err). */
static void test_better_within_noise_keeps_baseline(void **state) {
  (void)state;
  int n = replaced("energy", 1, 1);
  print_message("no better: replaced the baseline in %d of %d seeds\n", n, SEEDS);
  assert_true(n <= 1);
}

/* 25 % less energy is better with confidence: it replaces the baseline. */
static void test_clearly_better_replaces_baseline(void **state) {
  (void)state;
  assert_int_equal(replaced("energy", 1, 0.75), SEEDS);
}

/* energy@5%: 30 % less energy at a true time of 1.06x the baseline, outside
 * the bound; its measured mean time is often inside it, the upper end of the
 * time ratio's interval is not: the baseline stays.  At 0.95x the baseline's
 * time it replaces it. */
static void test_time_bound_on_upper_end(void **state) {
  (void)state;
  int n = replaced("energy@5%", 1.06, 0.70);
  print_message("time 1.06x: replaced the baseline in %d of %d seeds\n", n, SEEDS);
  assert_true(n <= 1);
  assert_int_equal(replaced("energy@5%", 0.95, 0.70), SEEDS);
}

/* ---- the confirmation (nm.c, ERGO__NM_CONFIRM) ----
 * A 2-D grid of 8 x 6 points, the baseline at the corner; every other point takes `t_other` of
 * the baseline's time and 30 % less energy, sigma 0.05 on time and power as on the sim node.
 * With `confirm` executions for the confirmation (online's under noise: 80 more than the
 * search's 40).  How many of `seeds` seeds end away from the baseline. */
/* With `cut`: the run ends after `cut` executions, told to the optimiser when `end`; then only
 * the seeds whose search was not over by then count (*cut_seeds of them). */
static int replaced_2d_cut(double t_other, int confirm, int seeds, int cut, int end,
                           int *cut_seeds) {
  ergo__nm_grid g = {2, {8, 6}, {7, 5}, {0, 0}};
  ergo__objective o = objective("energy@5%");
  ergo__nm_options opt = noisy_options(0.05, confirm);
  int n = 0;
  for (int s = 0; s < seeds; s++) {
    ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
    assert_non_null(nm);
    rng = 0xc0f20000ull + (unsigned)s;
    int p[3], asked = 0;
    while ((!cut || asked < cut) && ergo__nm_ask(nm, p)) {
      int base = p[0] == 7 && p[1] == 5;
      double ft = lognormal(0.05), fp = lognormal(0.05);
      ergo__measure m = {(base ? 1 : t_other) * ft, (base ? 100 : 70) * ft * fp, 1};
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
      assert_true(++asked <= opt.max_evals);
    }
    if (cut && ergo__nm_done(nm)) {
      ergo__nm_free(nm);
      continue;
    }
    if (cut) {
      ++*cut_seeds;
      if (end) ergo__nm_end(nm);
      ergo__nm_best(nm, p, NULL, NULL);
    }
    n += !(p[0] == 7 && p[1] == 5);
    ergo__nm_free(nm);
  }
  return n;
}
/* To the search's end (every execution it asks for). */
static int replaced_2d(double t_other, int confirm, int seeds) {
  return replaced_2d_cut(t_other, confirm, seeds, 0, 0, NULL);
}

/* Points truly 1.07x slower than the baseline, outside energy@5%'s bound, are many: one of
 * them sometimes passes the search's 95 % test on the measurements that chose it (the best of
 * several, the baseline's mean shared by all; 6 of 100 seeds here without a confirmation).  The
 * confirmation measures the winner again with the baseline, on fresh measurements, and takes it
 * only when these alone pass: in none of the 100 seeds.  A point truly 5 % faster than the
 * baseline still replaces it (in 96 of 100 seeds; the others find no candidate). */
static void test_confirmation_rejects_winners_curse(void **state) {
  (void)state;
  int without = replaced_2d(1.07, 0, 100), with = replaced_2d(1.07, 24, 100);
  int fast = replaced_2d(0.95, 24, 20);
  print_message("time 1.07x: replaced the baseline in %d of 100 seeds without a confirmation, "
                "%d with; time 0.95x: in %d of 20 with\n",
                without, with, fast);
  assert_true(without >= 3); /* the bias the confirmation is for is there */
  assert_int_equal(with, 0);
  assert_true(fast >= 18);
}

/* Points 1 % slower than the baseline with 30 % less energy, well inside energy@5%'s bound: at
 * 5 % noise the search's own 95 % test on a few fresh measurements a side often does not show
 * the upper end of their time ratio inside 1.05x, and only points that passed it were
 * confirmed; one whose confirmation needed more than twice what was left was not tried.  Now
 * the candidate is the point whose gain times its chance of passing (on its own measurements
 * and the surface) is the largest, tried on all that is left where that chance is at least
 * even: with online's 80 executions for the confirmation it replaces the baseline in 35 of 40
 * seeds (23 before), and a point 7 % slower still never does (above). */
static void test_confirmation_takes_point_inside_bound(void **state) {
  (void)state;
  int n = replaced_2d(1.01, 80, 40);
  print_message("time 1.01x, 30 %% less energy: replaced the baseline in %d of 40 seeds\n", n);
  assert_true(n >= 32);
  assert_int_equal(replaced_2d(1.07, 80, 100), 0);
}

/* A search under energy@5% with noise that the run's end cuts short before its confirmation is
 * over has the baseline as its best: points 5 % faster with 30 % less energy beat the baseline
 * on the measurements the search took, but a time bound is taken only on a confirmed config (a
 * search on work that shrank step by step had a config that merely met less work "beat" the
 * baseline, at 1.27x its time on the work as it ended; random program 3245).  Under `energy`
 * the best so far stands. */
static void test_cut_short_keeps_baseline_under_bound(void **state) {
  (void)state;
  const char *objectives[] = {"energy@5%", "energy"};
  for (int k = 0; k < 2; k++) {
    ergo__nm_grid g = {2, {8, 6}, {7, 5}, {0, 0}};
    ergo__objective o = objective(objectives[k]);
    ergo__nm_options opt = noisy_options(0.05, 80);
    int away = 0;
    for (int s = 0; s < 10; s++) {
      ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
      assert_non_null(nm);
      rng = 0xc0f40000ull + (unsigned)s;
      int p[3];
      for (int i = 0; i < 38 && ergo__nm_ask(nm, p); i++) {
        int base = p[0] == 7 && p[1] == 5;
        double ft = lognormal(0.05), fp = lognormal(0.05);
        ergo__measure m = {(base ? 1 : 0.95) * ft, (base ? 100 : 70) * ft * fp, 1};
        assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
      }
      if (k == 0) assert_false(ergo__nm_done(nm)); /* under `energy` it may be over */
      int best[3];
      ergo__nm_best(nm, best, NULL, NULL);
      away += !(best[0] == 7 && best[1] == 5);
      ergo__nm_free(nm);
    }
    print_message("%s, cut short: a config other than the baseline in %d of 10 seeds\n",
                  objectives[k], away);
    if (k == 0)
      assert_int_equal(away, 0);
    else
      assert_true(away >= 8);
  }
}

/* The run ends 100 executions into a search with 80 for its confirmation (40 pairs planned, about
 * 30 taken), on points 1 % slower than the baseline with 30 % less energy: in the seeds whose
 * search was not over by then, the point is never the choice on the measurements alone (a time
 * bound is taken only on a confirmed config); once the run's end is told (ergo__nm_end) the
 * confirmation is judged on the pairs it has, at its own confidence, and passes in 26 of 31.
 * Points 7 % slower, outside energy@5%'s bound, pass in none (the run's end does not depend on
 * the measurements, so the smaller sample is one look like the full one). */
static void test_end_judges_confirmation_cut_short(void **state) {
  (void)state;
  int n1 = 0, n2 = 0, n3 = 0;
  int before = replaced_2d_cut(1.01, 80, 40, 100, 0, &n1);
  int after = replaced_2d_cut(1.01, 80, 40, 100, 1, &n2);
  int slow = replaced_2d_cut(1.07, 80, 200, 100, 1, &n3);
  print_message("cut short in the confirmation, time 1.01x: the point in %d of %d seeds without "
                "the run's end told, %d of %d with; time 1.07x: %d of %d\n",
                before, n1, after, n2, slow, n3);
  assert_int_equal(n1, n2);
  assert_true(n1 >= 20 && n3 >= 20);
  assert_int_equal(before, 0);
  assert_true(after >= n2 * 3 / 4);
  assert_int_equal(slow, 0);
}

/* A 2-D grid of 8 x 6 points, the baseline at the corner (7, 5) under energy@5% at 5 % noise on
 * time and power, online's 40 + 80 executions: the points of one column (p[0] = 4) take the
 * baseline's time with 30 % less energy, every other point 1.12x its time with 35 % less (outside
 * the bound), so the surface fitted to all of them puts the column outside too.  How many of
 * `seeds` seeds end in the column, and (*other) at a point outside the bound. */
static int inside_choice(int seeds, int *other) {
  ergo__nm_grid g = {2, {8, 6}, {7, 5}, {0, 0}};
  ergo__objective o = objective("energy@5%");
  ergo__nm_options opt = noisy_options(0.05, 80);
  int n = 0;
  *other = 0;
  for (int s = 0; s < seeds; s++) {
    ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
    assert_non_null(nm);
    rng = 0xc0f60000ull + (unsigned)s;
    int p[3], asked = 0;
    while (ergo__nm_ask(nm, p)) {
      int base = p[0] == 7 && p[1] == 5, in = p[0] == 4;
      double ft = lognormal(0.05), fp = lognormal(0.05);
      ergo__measure m = {(base || in ? 1 : 1.12) * ft, (base ? 100 : in ? 70 : 65) * ft * fp, 1};
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
      assert_true(++asked <= opt.max_evals);
    }
    n += p[0] == 4;
    *other += !(p[0] == 7 && p[1] == 5) && p[0] != 4;
    ergo__nm_free(nm);
  }
  return n;
}

/* The column's points are found, each measured once or twice by the search, but a candidate for
 * the confirmation is judged on the less favourable of its measurements and the surface, which
 * puts it outside the bound: with no candidate the search ended with most of its 120 executions
 * unused and the baseline kept (in 54 of 100 seeds).  Now the point most likely to pass a
 * confirmation on what is left, on the more favourable of the two and with the error of its own
 * few measurements counted, is measured again (up to 6 times) until its own fresh measurements
 * make it a candidate: the column is chosen in 89 of 100 seeds (46 before), never a point
 * outside the bound. */
static void test_prospects_measured_again(void **state) {
  (void)state;
  int other = 0, n = inside_choice(100, &other);
  print_message("energy@5%%: a point inside the bound chosen in %d of 100 seeds, one outside in "
                "%d\n",
                n, other);
  assert_true(n >= 80);
  assert_int_equal(other, 0);
}

/* Under `energy` every other point of a 1-D grid takes 1.3-1.6x the baseline's time and
 * 25-40 % less energy; the tuning run's budget (time 1.10x over a horizon of 60 executions) can
 * pay for the search but not for measuring such a point 2n more times.  No confirmation is made
 * then, and without a slowdown bound the point stands on the 95 % test that selected it (the
 * budget decides what this run runs).  How many of `seeds` seeds choose another point than the
 * baseline. */
static int slow_choice(int seeds) {
  ergo__nm_grid g = {1, {4}, {3}, {0}};
  ergo__objective o = objective("energy");
  ergo__nm_options opt = noisy_options(0.05, 24);
  opt.budget_time = 0.10;
  opt.budget_energy = 0;
  opt.horizon = 60;
  int n = 0;
  for (int s = 0; s < seeds; s++) {
    ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
    assert_non_null(nm);
    rng = 0xc0f30000ull + (unsigned)s;
    int p[3];
    while (ergo__nm_ask(nm, p)) {
      int base = p[0] == 3;
      double ft = lognormal(0.05), fp = lognormal(0.05);
      ergo__measure m = {(base ? 1 : 1.3 + 0.1 * p[0]) * ft, (base ? 100 : 60 + 5 * p[0]) * ft * fp,
                         1};
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    }
    int best[3];
    ergo__nm_best(nm, best, NULL, NULL);
    n += best[0] != 3;
    ergo__nm_free(nm);
  }
  return n;
}

/* (3 of 20 seeds chose such a point when an unaffordable confirmation dropped it.) */
static void test_confirmation_unaffordable_keeps_selection(void **state) {
  (void)state;
  int n = slow_choice(20);
  print_message("slow candidate under a tight budget: chosen in %d of 20 seeds\n", n);
  assert_int_equal(n, 20);
}

/* The bound: diff + t(dof, conf) sigma sqrt(1/na + 1/nb); the normal
 * quantile when sigma is a guess (dof 0); a negative sigma, the lower end. */
static void test_log_ratio_bound(void **state) {
  (void)state;
  double half = 1.943180281 * 0.05 * sqrt(0.5); /* t(6, 0.95) */
  assert_true(fabs(ergo__nm_log_ratio_bound(-0.1, 0.05, 4, 4, 6, 0.95) - (-0.1 + half)) < 1e-6);
  assert_true(fabs(ergo__nm_log_ratio_bound(-0.1, -0.05, 4, 4, 6, 0.95) - (-0.1 - half)) < 1e-6);
  assert_true(
      fabs(ergo__nm_log_ratio_bound(0, 0.05, 1, 1, 0, 0.95) - 1.644853627 * 0.05 * sqrt(2)) < 1e-6);
}

/* ---- outliers (optimizer/robust.h) ---- */

/* One search of work w under objective o, driven as online drives it (3 repeats, 40 executions
 * and 24 for the confirmation, the baseline again every 10, the default budget), with log-normal
 * noise sigma and a stall in a share op of the executions (the time 1.5-2x, the energy up by the
 * added time at 0.3x the power); the share of the oracle's saving its choice keeps, its true time
 * against the baseline's in *time, the outliers set aside added to *aside. */
static double outlier_share(const ergo__sim_work *w, const char *obj, double sigma, double op,
                            unsigned seed, double *time, int *aside) {
  ergo__objective o = objective(obj);
  ergo__sim_choice best, base;
  assert_int_equal(ergo__sim_oracle(&P, w, &o, &best, &base), 0);
  ergo__nm_grid g = sim_grid();
  ergo__measure mb = truth(w, g.start);
  double oracle = best.result.e_pkg_j + best.result.e_dram_j;
  ergo__nm_options opt = noisy_options(sigma, 24);
  opt.base_every = 10;
  opt.budget_time = 0.10;
  opt.budget_energy = 0.0;
  ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
  assert_non_null(nm);
  rng = 0x07713ull + seed * 7919ull;
  int p[3];
  while (ergo__nm_ask(nm, p)) {
    ergo__measure m = truth(w, p);
    double ft = lognormal(sigma), fp = lognormal(sigma);
    m.time_s *= ft;
    m.energy_j *= ft * fp;
    if (uniform() < op) { /* a stall: the time grows, and the energy by the idle power */
      double add = m.time_s * (0.5 + 0.5 * uniform());
      m.energy_j += add * m.energy_j / m.time_s * 0.3;
      m.time_s += add;
    }
    assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
  }
  ergo__nm_applied(nm, p);
  *aside += ergo__nm_outliers(nm);
  ergo__nm_free(nm);
  ergo__measure t = truth(w, p);
  *time = t.time_s / mb.time_s;
  return (mb.energy_j - t.energy_j) / (mb.energy_j - oracle);
}

/* A lone measurement of the baseline at 1.8x its time (a stall) among eleven within 1 % of each
 * other is in neither its mean nor the noise: before, the mean was 1.067x the others'. */
static void test_lone_outlier_not_in_mean(void **state) {
  (void)state;
  ergo__nm_grid g = {1, {5}, {4}, {0}};
  ergo__objective o = objective("energy");
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  opt.repeats = 12;
  opt.noise_rel = 0.01;
  ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
  assert_non_null(nm);
  int p[3];
  for (int j = 0; j < 12; j++) {
    assert_true(ergo__nm_ask(nm, p));
    assert_int_equal(p[0], 4);
    double t = 1 + 0.01 * (j % 3 - 1), e = 100 * t;
    if (j == 5) e += 0.8 * t * 100 * 0.3, t *= 1.8;
    ergo__measure m = {t, e, 0.5};
    assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
  }
  ergo__measure b;
  ergo__nm_baseline(nm, &b);
  print_message("baseline mean time %.4f energy %.2f, noise %.4f, %d outliers\n", b.time_s,
                b.energy_j, ergo__nm_noise(nm, 0), ergo__nm_outliers(nm));
  assert_true(fabs(b.time_s - 1) < 0.002);
  assert_true(fabs(b.energy_j - 100) < 0.2);
  assert_true(ergo__nm_noise(nm, 0) < 0.02);
  assert_int_equal(ergo__nm_outliers(nm), 1);
  ergo__nm_free(nm);
}

/* With the baseline measured again every 10 (as online does), a stall (1.8x) in that measurement
 * is no change of the work once outliers can be told: the baseline is measured once more, and
 * the search goes on.  Before outliers were set aside the stall widened the noise the drift's
 * limit is drawn from, and passed; set aside without that second look, it ended the search
 * (drifted) with the baseline as its choice. */
static void test_stall_at_baseline_check(void **state) {
  (void)state;
  const ergo__sim_work *w = &workloads[2].w;
  ergo__nm_grid g = sim_grid();
  ergo__objective o = objective("energy@5%");
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  opt.repeats = 10;
  opt.noise_rel = 0.03;
  opt.max_evals = 60;
  opt.base_every = 10;
  ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
  assert_non_null(nm);
  rng = 0x57a11ull;
  int p[3], n = 0, base = 0, stalled = 0;
  while (ergo__nm_ask(nm, p)) {
    ergo__measure m = truth(w, p);
    double ft = lognormal(0.03), fp = lognormal(0.03);
    m.time_s *= ft;
    m.energy_j *= ft * fp;
    n++;
    if (!memcmp(p, g.start, sizeof p) && ++base == 11) { /* the first check */
      m.energy_j *= 1 + 0.8 * 0.3;                       /* the added time at 0.3x the power */
      m.time_s *= 1.8;
      stalled = n;
    }
    assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
  }
  print_message("stall at execution %d: drifted %d, %d executions, %d outliers\n", stalled,
                ergo__nm_drifted(nm), ergo__nm_evals(nm), ergo__nm_outliers(nm));
  assert_true(stalled > 0);
  assert_int_equal(ergo__nm_drifted(nm), 0);
  assert_true(ergo__nm_evals(nm) > stalled + 1);
  ergo__nm_free(nm);
}

/* Outliers (a stall in 2 % of the executions) at 3 % noise, under energy@5%: counted, they made
 * the pooled noise 2-3x what it is, so few candidates could be shown inside the bound, and a
 * stall among a point's few measurements dragged its mean.  Set aside, the eight workloads over
 * 11 seeds keep 0.053 of the oracle's saving on average (0.073 without outliers; 0.013 when they
 * counted: the search under a 5 % bound at this noise keeps little of it anyway), no seed passes
 * 1.06x its baseline's time, and the outliers are seen. */
static void test_outliers_set_aside(void **state) {
  (void)state;
  double share = 0, worst = 0;
  int aside = 0;
  for (size_t i = 0; i < NWORK; i++) {
    double cs = 0;
    for (unsigned k = 0; k < 11; k++) {
      double t;
      cs += outlier_share(&workloads[i].w, "energy@5%", 0.03, 0.02, 901 + k, &t, &aside) / 11;
      worst = fmax(worst, t);
    }
    print_message("%-12s mean share of the oracle's saving %.3f\n", workloads[i].name, cs);
    share += cs / NWORK;
  }
  print_message("mean share %.3f, worst time %.4f of the baseline's, %d outliers set aside\n",
                share, worst, aside);
  assert_true(aside > 0);
  assert_true(worst <= 1.06);
  assert_true(share > 0.04);
}

/* ---- the budget (ERGO_TUNE_BUDGET) ---- */

/* A whole tuning run of `horizon` executions of work w under objective o: the search, then the
 * points ask() hands out once it is over; the run's true time and energy against `horizon`
 * executions at the baseline.  budget_time < 0: no budget. */
typedef struct run_cost {
  double t_ratio, e_ratio;
  int evals, over, skipped, applied_differs;
} run_cost;

static run_cost tuning_run(const ergo__sim_work *w, const ergo__objective *o, double sigma,
                           double budget_time, double budget_energy, int horizon) {
  ergo__nm_grid g = sim_grid();
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  opt.max_evals = BUDGET;
  opt.repeats = sigma > 0 ? 3 : 1;
  opt.noise_rel = sigma;
  opt.budget_time = budget_time;
  opt.budget_energy = budget_energy;
  opt.horizon = horizon;
  /* With noise as online runs it: 24 executions more for the confirmation. */
  opt.confirm = sigma > 0 ? 24 : 0;
  opt.max_evals += opt.confirm;
  ergo__nm *nm = ergo__nm_new(&g, o, &opt);
  assert_non_null(nm);
  rng = 0xb0d6e7ull;
  ergo__measure base = truth(w, g.start);
  double t = 0, e = 0;
  int p[3];
  for (int i = 0; i < horizon; i++) {
    int asked = ergo__nm_ask(nm, p);
    ergo__measure m = truth(w, p);
    t += m.time_s;
    e += m.energy_j;
    double ft = lognormal(sigma), fp = lognormal(sigma);
    m.time_s *= ft;
    m.energy_j *= ft * fp;
    /* Once the search is over, as online does: an execution the plan ran to pay back is told. */
    if (!asked) {
      ergo__nm_tell_paid(nm, p, &m);
      continue;
    }
    assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
  }
  run_cost r = {t / (horizon * base.time_s), e / (horizon * base.energy_j),
                ergo__nm_evals(nm),          ergo__nm_over_budget(nm),
                ergo__nm_skipped(nm),        ergo__nm_applied(nm, NULL)};
  ergo__nm_free(nm);
  return r;
}

/* A search of the sim grid under objective o with a budget (time and energy allowances over
 * `horizon` executions). */
static ergo__nm *budget_nm(const ergo__objective *o, double budget_time, double budget_energy,
                           int horizon) {
  ergo__nm_grid g = sim_grid();
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  opt.max_evals = BUDGET;
  opt.budget_time = budget_time;
  opt.budget_energy = budget_energy;
  opt.horizon = horizon;
  ergo__nm *nm = ergo__nm_new(&g, o, &opt);
  assert_non_null(nm);
  return nm;
}

/* Under `energy` (no time bound) the search's choice runs far slower than the baseline: without
 * a budget the run of 200 executions takes 1.4x the untuned time; with the default budget
 * (energy 1.00x, time 1.10x over 200 executions) it keeps both, and still saves energy, by
 * running at the baseline long enough to pay the slowdown back before the choice. */
static void test_budget_keeps_run_cost(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  const ergo__sim_work *w = &workloads[2].w; /* serial: the energy optimum is slow */
  run_cost free_run = tuning_run(w, &o, 0, -1, -1, 200);
  assert_true(free_run.t_ratio > 1.10);
  assert_int_equal(free_run.applied_differs, 0);
  for (size_t i = 0; i < NWORK; i++) {
    run_cost r = tuning_run(&workloads[i].w, &o, 0, 0.10, 0.0, 200);
    print_message("budget %-12s time %.4f energy %.4f evals %d over %d skipped %d\n",
                  workloads[i].name, r.t_ratio, r.e_ratio, r.evals, r.over, r.skipped);
    assert_true(r.t_ratio <= 1.10 + 1e-9);
    assert_true(r.e_ratio <= 1.0 + 1e-9);
  }
  run_cost r = tuning_run(w, &o, 0, 0.10, 0.0, 200);
  assert_true(r.e_ratio < 0.95);          /* it still saves */
  assert_int_equal(r.applied_differs, 0); /* the choice, after paying back at the baseline */
}

/* Executions run besides the plan once the search is over (a policy's probes), here every 10th
 * at a point that costs 1.39x the baseline's time: unseen by the ledger they take the run past
 * the budget; charged (ergo__nm_charge()), the plan pays them back at its payback point, and
 * the run keeps the budget (serial work under `energy`: the plan pays at the baseline, then runs
 * the slow choice). */
static void test_budget_pays_charges(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  const ergo__sim_work *w = &workloads[2].w;
  double ratio[2][2];
  for (int charge = 0; charge < 2; charge++) {
    ergo__nm_grid g = sim_grid();
    ergo__nm *nm = budget_nm(&o, 0.10, 0.0, 200);
    ergo__measure base = truth(w, g.start);
    int slow[3] = {g.n[0] / 2, g.n[1] - 1, g.n[2] / 2}, p[3], after = 0;
    double t = 0, e = 0, ts = truth(w, slow).time_s / base.time_s;
    for (int i = 0; i < 200; i++) {
      if (ergo__nm_done(nm) && ++after % 10 == 0) {
        ergo__measure m = truth(w, slow);
        t += m.time_s, e += m.energy_j;
        if (charge) ergo__nm_charge(nm, &m);
        continue;
      }
      int asked = ergo__nm_ask(nm, p);
      ergo__measure m = truth(w, p);
      t += m.time_s, e += m.energy_j;
      if (asked) assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    }
    ratio[charge][0] = t / (200 * base.time_s);
    ratio[charge][1] = e / (200 * base.energy_j);
    print_message("probes at %.2fx the baseline's time %s: the run at %.4f of its time, %.4f of "
                  "its energy\n",
                  ts, charge ? "charged" : "not charged", ratio[charge][0], ratio[charge][1]);
    ergo__nm_free(nm);
  }
  assert_true(ratio[0][0] > 1.10 || ratio[0][1] > 1.0);
  assert_true(ratio[1][0] <= 1.10 + 1e-9);
  assert_true(ratio[1][1] <= 1.0 + 1e-9);
}

/* With noise the search decides whether to explore on the baseline's mean, which three
 * measurements at sigma 0.05 know to a few per cent (the plan run after the search pays back
 * against the low end of its interval): the true energy may pass the budget by a hair. */
#define NOISY_E_BUDGET 1.005

/* With 5 % noise the ledger counts the baseline at the low end of its interval and the other
 * points at the high end of theirs: the true cost still keeps the budget on every workload. */
static void test_budget_under_noise(void **state) {
  (void)state;
  static const char *const objs[] = {"energy", "time", "energy@5%"};
  for (size_t k = 0; k < 3; k++) {
    ergo__objective o = objective(objs[k]);
    for (size_t i = 0; i < NWORK; i++) {
      run_cost r = tuning_run(&workloads[i].w, &o, 0.05, 0.10, 0.0, 200);
      print_message("noisy budget %-9s %-12s time %.4f energy %.4f evals %d over %d\n", objs[k],
                    workloads[i].name, r.t_ratio, r.e_ratio, r.evals, r.over);
      assert_true(r.t_ratio <= 1.10);
      assert_true(r.e_ratio <= NOISY_E_BUDGET);
    }
  }
}

/* A budget nothing can be explored within (time at most the baseline's, over 10 executions):
 * after the first simplex the search stops, says so, and the region runs at a point that keeps
 * the budget best - the baseline. */
static void test_budget_stops_exploration(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  ergo__nm_grid g = sim_grid();
  ergo__nm *nm = budget_nm(&o, 0, 0, 10);
  int p[3], n = 0;
  while (ergo__nm_ask(nm, p)) {
    ergo__measure m = truth(&workloads[0].w, p);
    assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    n++;
  }
  assert_int_equal(ergo__nm_over_budget(nm), 1);
  assert_true(n <= 1 + 3 + 1); /* the baseline, the first simplex, at most one more */
  assert_true(ergo__nm_skipped(nm) >= 1);
  assert_int_equal(memcmp(p, g.start, sizeof p), 0);
  ergo__nm_free(nm);
}

/* Exploration ordered by cost: under a budget the first simplex steps a quarter of the thread
 * count's (log) range from the baseline and half of each frequency's (half of every range
 * without a budget), so the points measured before anything is known cost little in time yet
 * move the objective beyond a measurement's noise; with a short horizon, points the cost surface
 * predicts too dear are skipped while the search goes on, and the run keeps the budget. */
static void test_budget_first_steps_and_skips(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  ergo__nm_grid g = sim_grid();
  for (int budget = 0; budget < 2; budget++) {
    ergo__nm_options opt;
    ergo__nm_options_default(&opt);
    opt.max_evals = BUDGET;
    if (budget) opt.budget_time = 0.10, opt.budget_energy = 0;
    ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
    int p[3], seen[3] = {0, 0, 0};
    for (int i = 0; i < 4 && ergo__nm_ask(nm, p); i++) {
      ergo__measure m = truth(&workloads[0].w, p);
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
      int moved = 0, d = 0;
      for (int k = 0; k < 3; k++)
        if (p[k] != g.start[k]) moved++, d = k;
      if (i == 0) continue; /* the baseline */
      assert_int_equal(moved, 1);
      double y = ergo__nm_nearest(&g, d, budget && g.log[d] ? 0.75 : 0.5);
      assert_int_equal(p[d], (int)y);
      seen[d] = 1;
    }
    assert_true(seen[0] && seen[1] && seen[2]);
    ergo__nm_free(nm);
  }
  int skipped = 0, over = 0;
  for (size_t i = 0; i < NWORK; i++) {
    run_cost r = tuning_run(&workloads[i].w, &o, 0, 0.10, 0.0, 80);
    print_message("horizon 80 %-12s time %.4f energy %.4f evals %d over %d skipped %d\n",
                  workloads[i].name, r.t_ratio, r.e_ratio, r.evals, r.over, r.skipped);
    skipped += r.skipped;
    over += r.over;
    assert_true(r.t_ratio <= 1.10 + 1e-9);
    assert_true(r.e_ratio <= 1.0 + 1e-9);
  }
  assert_true(skipped > 0);
}

/* Of a point asked: whether it is the baseline (*base) and whether it is the first other point
 * asked (remembered in first, {-1, -1, -1} before), which the scripted tests below measure
 * apart from every other. */
static int first_other(const ergo__nm_grid *g, const int p[3], int first[3], int *base) {
  *base = memcmp(p, g->start, 3 * sizeof *p) == 0;
  if (!*base && first[0] < 0) memcpy(first, p, 3 * sizeof *p);
  return memcmp(p, first, 3 * sizeof *p) == 0;
}

/* A search as online runs it under noise (sigma 0.09: three repeats, 24 executions of
 * confirmation) with the default budget (time 1.10x, energy 1.00x over 200 executions). */
static ergo__nm *noisy_budget_nm(const ergo__nm_grid *g, const ergo__objective *o) {
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  opt.max_evals = BUDGET + 24;
  opt.confirm = 24;
  opt.repeats = 3;
  opt.noise_rel = 0.09;
  opt.budget_time = 0.10;
  opt.budget_energy = 0;
  ergo__nm *nm = ergo__nm_new(g, o, &opt);
  assert_non_null(nm);
  return nm;
}

/* Under noise (sigma 0.09) a point measured once at 12 % less energy than the baseline is no
 * saving shown: its interval reaches well past the baseline's mean.  Exploring on the strength
 * of it as a payer (the ledger counting its mean) ran a region at points that truly cost 1.5x
 * the baseline's energy until the debt could not be paid back, and no point paid it back: the
 * lucky one measured the baseline's energy again (ergo-bench-tuning-random seed 10: its tuning
 * run took 1.019x monitor's energy).  Points that pay back count at the upper end of their
 * interval, so once nothing shown better can pay, exploration stops. */
static void test_budget_lucky_payer(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  ergo__nm_grid g = sim_grid();
  ergo__nm *nm = noisy_budget_nm(&g, &o);
  int p[3], lucky[3] = {-1, -1, -1}, lucky_n = 0;
  double e_true = 0;
  for (int i = 0; i < 200; i++) {
    int asked = ergo__nm_ask(nm, p);
    int base, is_lucky = first_other(&g, p, lucky, &base);
    /* The truth: the baseline and the lucky point 200 J, every other point 300 J. */
    e_true += base || is_lucky ? 200 : 300;
    if (!asked) continue;
    /* Measured: the lucky point 176 J once, 224 J after (its mean the baseline's). */
    ergo__measure m = {base ? 1.0 : 1.05, base ? 200 : is_lucky ? (lucky_n++ ? 224 : 176) : 300, 0};
    assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
  }
  print_message("lucky payer: energy %.4f evals %d over %d skipped %d\n", e_true / (200 * 200.0),
                ergo__nm_evals(nm), ergo__nm_over_budget(nm), ergo__nm_skipped(nm));
  /* The first simplex (measured before anything is known) costs 3 x 100 J of 40000 (1.0075);
   * counting the lucky point at its mean the search went on to 1.025. */
  assert_true(e_true / (200 * 200.0) <= 1.01);
  ergo__nm_free(nm);
}

/* Once the search is over the plan pays the tuning's debt back at the point whose mean says it
 * costs least, and under noise that mean can be luck: a point measured once at 12 % less energy
 * than the baseline (truly 12 % more) was run 13 times to pay back the first simplex's debt, each
 * time adding to it (ergo-bench-tuning-random seed 1228: the plan moved through three such points
 * for 55 executions, the tuning run at 1.012x monitor's energy).  Since the search measures a
 * payer it needs again before it explores on it (show_payer() in optimizer/nm.c), a point
 * measured once no longer gets there; here the point measures 12 % below the baseline's energy
 * every time the search measures it (the work was lighter while it searched, or a run of luck),
 * at 1.3x its time (under `edp` no choice, but the energy payer), and 224 J after.  Measured
 * (ergo__nm_tell_paid()), its executions after the search put its mean past the baseline's
 * within three, and the plan is made again without it: 27 executions there before, 3 now. */
static void test_budget_payback_measured(void **state) {
  (void)state;
  ergo__objective o = objective("edp");
  ergo__nm_grid g = sim_grid();
  int paid_at_lucky[2];
  double ratio[2];
  for (int told = 0; told < 2; told++) {
    ergo__nm *nm = noisy_budget_nm(&g, &o);
    int p[3], lucky[3] = {-1, -1, -1}, taken = 0;
    double e_true = 0;
    paid_at_lucky[told] = 0;
    for (int i = 0; i < 200; i++) {
      int asked = ergo__nm_ask(nm, p);
      int base, is_lucky = first_other(&g, p, lucky, &base);
      /* The truth: the baseline 200 J, the lucky point 224 J at 1.3x the time, every other point
       * 300 J; the search measures the lucky point at 176 J. */
      e_true += base ? 200 : is_lucky ? 224 : 300;
      ergo__measure m = {base       ? 1.0
                         : is_lucky ? 1.3
                                    : 1.05,
                         base       ? 200
                         : is_lucky ? (asked ? 176 : 224)
                                    : 300,
                         0};
      if (asked) {
        assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
        continue;
      }
      paid_at_lucky[told] += is_lucky;
      /* Not a payback point (the point applied for good): nothing is taken. */
      int r = told ? ergo__nm_tell_paid(nm, p, &m) : 0;
      if (r) assert_true(is_lucky);
      taken += r;
    }
    ratio[told] = e_true / (200 * 200.0);
    print_message("payback %s: %d executions at the lucky point after the search (%d taken), "
                  "energy %.4f\n",
                  told ? "measured" : "not measured", paid_at_lucky[told], taken, ratio[told]);
    ergo__nm_free(nm);
  }
  assert_true(paid_at_lucky[0] >= 5); /* the plan rested on the lucky measurements */
  assert_true(paid_at_lucky[1] <= 3); /* a few executions show it */
  assert_true(ratio[1] < ratio[0]);
}

/* Under `energy` the choice runs slower than the baseline, and the time its search spent must be
 * paid back first, at a config faster than the allowance: here the baseline (1 s, 200 J) and one
 * config as fast at half its energy (1 s, 100 J), the others 1.3 s at 50 J.  The plan pays at
 * the half-energy config, not at the baseline (the fewest executions alone tied them and took
 * the baseline: 2x the energy for every execution of the payback), and keeps the time budget. */
static void test_budget_payer_by_objective(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  ergo__nm_grid g = sim_grid();
  ergo__nm *nm = budget_nm(&o, 0.10, 0.0, 200);
  int p[3], twin[3] = {-1, -1, -1}, at_base = 0, at_twin = 0;
  double t = 0;
  for (int i = 0; i < 200; i++) {
    int asked = ergo__nm_ask(nm, p);
    int base, is_twin = first_other(&g, p, twin, &base);
    ergo__measure m = {base || is_twin ? 1.0 : 1.3, base ? 200 : is_twin ? 100 : 50, 0};
    t += m.time_s;
    if (asked) {
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
      continue;
    }
    at_base += base;
    at_twin += is_twin;
  }
  print_message("after the search: %d executions at the baseline, %d at the config as fast at "
                "half its energy; time %.4f of the baseline's\n",
                at_base, at_twin, t / 200);
  assert_true(at_twin > 0);
  assert_true(at_base == 0);
  assert_true(t / 200 <= 1.10 + 1e-9);
  ergo__nm_free(nm);
}

/* A search that owes energy from before (a search started again carries its predecessor's debt)
 * and whose first simplex cannot pay it back yet: every config costs 5 % less energy than the
 * baseline at its time, but measured once each at sigma 0.05 none shows it at the upper end of
 * its interval, so every new point was skipped (the debt so far decided them: 42 here) and the
 * search ended at the baseline after its first simplex, saving nothing (`phase-noisy` under
 * `energy`: a region re-tuned after its change kept its baseline in 4 of 10 seeds).  Now the
 * cheapest of them is measured again (show_payer()) until it shows the saving, and the search
 * goes on: a choice other than the baseline, the run's energy 0.971 of the baseline's (0.985
 * before, the budget's bound), within the budget. */
static void test_budget_shows_payer(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  ergo__nm_grid g = sim_grid();
  ergo__nm_options opt = noisy_options(0.05, 80);
  opt.budget_time = 0.10;
  opt.budget_energy = 0;
  opt.horizon = 100;
  opt.debt_energy = 1.5 * 200; /* one and a half executions of the baseline's energy */
  ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
  assert_non_null(nm);
  int p[3], asked = 0;
  double e = 0;
  for (int i = 0; i < 100; i++) {
    int more = ergo__nm_ask(nm, p);
    int base = memcmp(p, g.start, sizeof p) == 0;
    ergo__measure m = {1.0, base ? 200 : 190, 0};
    e += m.energy_j;
    if (more) {
      asked++;
      assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    }
  }
  int best[3];
  ergo__nm_best(nm, best, NULL, NULL);
  int away = memcmp(best, g.start, sizeof best) != 0;
  print_message("owing 1.5 executions' energy: %d measured, %d points, %d skipped, choice %s the "
                "baseline, energy %.4f of the baseline's (budget %.4f)\n",
                asked, ergo__nm_points(nm), ergo__nm_skipped(nm), away ? "not" : "", e / 20000,
                1 - opt.debt_energy / 20000);
  assert_true(away);
  assert_true(ergo__nm_points(nm) > 5); /* past the baseline and the first simplex */
  assert_true(e <= 20000 - opt.debt_energy);
  ergo__nm_free(nm);
}

/* A search started after its region's work changed owes what the old choice cost on the new
 * work (owed_*): one execution at 11x the new baseline's time is 11 - 1.1 baseline executions
 * of debt under a 10 % time budget, less the baseline's own allowance; owing less than the
 * allowance of those executions is no credit. */
static void test_budget_owed(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  ergo__nm_grid g = sim_grid();
  for (int k = 0; k < 2; k++) {
    ergo__nm_options opt;
    ergo__nm_options_default(&opt);
    opt.budget_time = 0.10;
    opt.owed_time = k ? 0.5 : 11;
    opt.owed_execs = 1;
    ergo__nm *nm = ergo__nm_new(&g, &o, &opt);
    assert_non_null(nm);
    int p[3];
    assert_int_equal(ergo__nm_ask(nm, p), 1);
    assert_memory_equal(p, g.start, sizeof p);
    ergo__measure m = {1.0, 100, 1};
    assert_int_equal(ergo__nm_tell(nm, p, &m), 0);
    double dt, de;
    ergo__nm_debt(nm, &dt, &de);
    print_message("owed %.1f s for 1 execution: debt %.4f s after the baseline's first\n",
                  opt.owed_time, dt);
    assert_true(fabs(dt - (k ? -0.1 : 11 - 1.1 - 0.1)) < 1e-9);
    ergo__nm_free(nm);
  }
}

/* Options: a horizon below 1, a non-finite budget, or a negative or non-finite owed cost is
 * refused. */
static void test_budget_options(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  ergo__nm_grid g = sim_grid();
  ergo__nm_options opt;
  ergo__nm_options_default(&opt);
  assert_true(opt.budget_time < 0 && opt.budget_energy < 0 && opt.horizon == 200);
  opt.horizon = 0;
  assert_null(ergo__nm_new(&g, &o, &opt));
  ergo__nm_options_default(&opt);
  opt.budget_time = NAN;
  assert_null(ergo__nm_new(&g, &o, &opt));
  ergo__nm_options_default(&opt);
  opt.owed_execs = -1;
  assert_null(ergo__nm_new(&g, &o, &opt));
  ergo__nm_options_default(&opt);
  opt.owed_time = -1;
  assert_null(ergo__nm_new(&g, &o, &opt));
  ergo__nm_options_default(&opt);
  opt.owed_energy = INFINITY;
  assert_null(ergo__nm_new(&g, &o, &opt));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rounding),
      cmocka_unit_test(test_memo),
      cmocka_unit_test(test_after_done),
      cmocka_unit_test(test_tell_errors),
      cmocka_unit_test(test_free_midway),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_nothing_to_search),
      cmocka_unit_test(test_no_meter),
      cmocka_unit_test(test_keeps_baseline),
      cmocka_unit_test(test_baseline_drift_ends_search),
      cmocka_unit_test(test_baseline_drift_seen_under_noise),
      cmocka_unit_test(test_drift_during_confirmation),
      cmocka_unit_test(test_energy),
      cmocka_unit_test(test_energy_bounded),
      cmocka_unit_test(test_better_within_noise_keeps_baseline),
      cmocka_unit_test(test_clearly_better_replaces_baseline),
      cmocka_unit_test(test_time_bound_on_upper_end),
      cmocka_unit_test(test_log_ratio_bound),
      cmocka_unit_test(test_confirmation_rejects_winners_curse),
      cmocka_unit_test(test_confirmation_takes_point_inside_bound),
      cmocka_unit_test(test_end_judges_confirmation_cut_short),
      cmocka_unit_test(test_prospects_measured_again),
      cmocka_unit_test(test_cut_short_keeps_baseline_under_bound),
      cmocka_unit_test(test_confirmation_unaffordable_keeps_selection),
      cmocka_unit_test(test_lone_outlier_not_in_mean),
      cmocka_unit_test(test_stall_at_baseline_check),
      cmocka_unit_test(test_outliers_set_aside),
      cmocka_unit_test(test_budget_keeps_run_cost),
      cmocka_unit_test(test_budget_under_noise),
      cmocka_unit_test(test_budget_stops_exploration),
      cmocka_unit_test(test_budget_first_steps_and_skips),
      cmocka_unit_test(test_budget_lucky_payer),
      cmocka_unit_test(test_budget_payback_measured),
      cmocka_unit_test(test_budget_payer_by_objective),
      cmocka_unit_test(test_budget_shows_payer),
      cmocka_unit_test(test_budget_pays_charges),
      cmocka_unit_test(test_budget_owed),
      cmocka_unit_test(test_budget_options),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
