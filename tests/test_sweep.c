/* test_sweep.c - the sweep schedule: its size on the sim node's space, determinism, knob switches,
 * refinement to a planted best, the oracle on the sim model, noise, ERGO_SWEEP good and bad. */
#include "test_util.h"

#include "knobs/knobs.h"
#include "optimizer/sweep.h"
#include "sim/oracle.h"

#include <math.h>

#ifndef SEEDS_MANY
#define SEEDS_MANY 40
#endif

#define EXPECTED                                                                                   \
  "expected KNOB=V,V,... with KNOB cpu or uncore (kHz) or threads and V a positive integer or "    \
  "FROM:TO:STEP, and options repeats=N (1 to 100) and budget=N (10 to 100000), separated by ',' "  \
  "or ';'"

/* A space of nc core values from c0 kHz in steps of dc, nu uncore values from u0 in steps of du,
 * and nt thread counts dt, 2 dt, ...; the baseline is every maximum, as many cores as threads. */
static ergo__space grid_space(int nc, int64_t c0, int64_t dc, int nu, int64_t u0, int64_t du,
                              int nt, int dt) {
  ergo__space s;
  memset(&s, 0, sizeof s);
  s.n[ERGO__KNOB_CORE] = nc;
  s.n[ERGO__KNOB_UNCORE] = nu;
  s.n[ERGO__KNOB_THREADS] = nt;
  for (int i = 0; i < nc; i++) s.values[ERGO__KNOB_CORE][i] = c0 + dc * i;
  for (int i = 0; i < nu; i++) s.values[ERGO__KNOB_UNCORE][i] = u0 + du * i;
  for (int i = 0; i < nt; i++) s.values[ERGO__KNOB_THREADS][i] = dt * (i + 1);
  s.baseline[ERGO__KNOB_CORE] = c0 + dc * (nc - 1);
  s.baseline[ERGO__KNOB_UNCORE] = u0 + du * (nu - 1);
  s.baseline[ERGO__KNOB_THREADS] = dt * nt;
  s.cores = dt * nt;
  return s;
}

/* The sim node's space: core 1.0-2.0 GHz and uncore 1.2-2.4 GHz in 100 MHz steps, 1-20 threads;
 * the baseline is every maximum. */
static ergo__space sim_space(void) {
  return grid_space(11, 1000000, 100000, 13, 1200000, 100000, 20, 1);
}

static ergo__objective objective(const char *text) {
  ergo__objective o;
  char why[512];
  assert_int_equal(ergo__objective_parse(text, &o, why, sizeof why), 0);
  return o;
}

/* A bowl over grid indices with its minimum at `best` (core, uncore, threads); time 1 s. */
typedef struct bowl {
  int best[ERGO__NKNOBS];
} bowl;

static int index_of(const ergo__space *s, int slot, int64_t v) {
  for (int i = 0; i < s->n[slot]; i++)
    if (s->values[slot][i] == v) return i;
  fail_msg("value %lld is not on knob %d's grid", (long long)v, slot);
  return -1;
}

static ergo__measure bowl_measure(const ergo__space *s, const bowl *b, const ergo__config *c) {
  double e = 100;
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    double d = index_of(s, i, c->v[i]) - b->best[i];
    e += d * d;
  }
  return (ergo__measure){1.0, e, (double)c->v[ERGO__KNOB_THREADS] / 20};
}

/* Knobs whose value differs between two configs. */
static int switches(const ergo__config *a, const ergo__config *b) {
  int n = 0;
  for (int i = 0; i < ERGO__NKNOBS; i++) n += a->v[i] != b->v[i];
  return n;
}

/* Run a schedule against the bowl; the configs handed out go to trace (up to max). */
static int run_bowl(ergo__sweep *sw, const ergo__space *s, const bowl *b, ergo__config *trace,
                    int max, ergo__config *final) {
  int n = 0;
  ergo__config c;
  while (ergo__sweep_next(sw, &c)) {
    if (n < max) trace[n] = c;
    n++;
    ergo__measure m = bowl_measure(s, b, &c);
    ergo__sweep_tell(sw, &m);
    assert_true(n <= 100000);
  }
  *final = c;
  return n;
}

/* The default schedule on the sim node's space: warm-up and baseline first, then the search,
 * coarse to fine along each knob: its first points are a quarter of each knob's range from the
 * baseline, one knob at a time; on a simple front (a bowl) the whole schedule takes far fewer
 * than the 300 executions the budget allows, and the same schedule every time. */
static void test_schedule_sim_space(void **state) {
  (void)state;
  ergo__space s = sim_space();
  ergo__objective o = objective("energy");
  bowl b = {{6, 4, 7}};
  static ergo__config t1[400], t2[400];
  ergo__config f1, f2;
  ergo__sweep *a = ergo__sweep_new(&s, &o, NULL), *c = ergo__sweep_new(&s, &o, NULL);
  assert_non_null(a);
  int n1 = run_bowl(a, &s, &b, t1, 400, &f1), n2 = run_bowl(c, &s, &b, t2, 400, &f2);
  print_message("schedule: %d executions\n", n1);
  assert_true(n1 <= 100);
  assert_int_equal(n1, ergo__sweep_executions(a));
  assert_true(ergo__sweep_done(a));
  /* Deterministic. */
  assert_int_equal(n1, n2);
  assert_memory_equal(t1, t2, sizeof *t1 * (size_t)n1);
  /* Warm-up (1) and the baseline (3) at the maximum. */
  for (int i = 0; i < 4; i++) {
    assert_int_equal(t1[i].v[ERGO__KNOB_CORE], 2000000);
    assert_int_equal(t1[i].v[ERGO__KNOB_UNCORE], 2400000);
    assert_int_equal(t1[i].v[ERGO__KNOB_THREADS], 20);
  }
  /* The first poll: one knob a quarter of its range (cpu 3 steps, uncore 3, threads 5) below
   * the baseline (the points above it are off the grid). */
  static const ergo__config first[3] = {
      {{1700000, 2400000, 20}}, {{2000000, 2100000, 20}}, {{2000000, 2400000, 15}}};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(switches(&t1[3], &t1[4 + i]), 1);
    int hit = 0;
    for (int k = 0; k < 3; k++) hit |= !memcmp(&t1[4 + i], &first[k], sizeof first[k]);
    assert_true(hit);
  }
  /* It ends at the bowl's minimum. */
  for (int i = 0; i < ERGO__NKNOBS; i++) assert_int_equal(index_of(&s, i, f1.v[i]), b.best[i]);
  ergo__sweep_free(a);
  ergo__sweep_free(c);
}

/* Refinement finds a planted best that the coarse grid misses (core 1.6 GHz, uncore 1.6 GHz,
 * 8 threads: none on the coarse grid), and the schedule then stays there. */
static void test_refinement_planted(void **state) {
  (void)state;
  ergo__space s = sim_space();
  ergo__objective o = objective("energy");
  static const bowl bowls[] = {{{6, 4, 7}}, {{1, 11, 2}}, {{9, 0, 17}}, {{10, 12, 19}}};
  for (size_t k = 0; k < sizeof bowls / sizeof *bowls; k++) {
    ergo__sweep *sw = ergo__sweep_new(&s, &o, NULL);
    ergo__config trace[1], best;
    int n = run_bowl(sw, &s, &bowls[k], trace, 0, &best);
    assert_true(n <= ERGO__SWEEP_BUDGET);
    for (int i = 0; i < ERGO__NKNOBS; i++)
      assert_int_equal(index_of(&s, i, best.v[i]), bowls[k].best[i]);
    /* The winner was re-measured: repeats + ERGO__SWEEP_FINAL measurements (the baseline, which
     * the final phase measures afresh, twice that). */
    int np;
    const ergo__sweep_point *pts = ergo__sweep_points(sw, &np);
    int b = ergo__sweep_best(sw);
    assert_int_equal(pts[b].n, 1 + ERGO__SWEEP_FINAL * (b == ergo__sweep_baseline(sw) ? 2 : 1));
    /* Over: the best from now on, nothing more to tell. */
    ergo__config again;
    assert_int_equal(ergo__sweep_next(sw, &again), 0);
    assert_memory_equal(&again, &best, sizeof best);
    ergo__sweep_free(sw);
  }
}

/* Time and energy of a config on the sim model (no noise), as the tuner measures them. */
static ergo__measure sim_measure(const ergo__sim_params *p, const ergo__sim_work *w,
                                 const ergo__config *c) {
  ergo__sim_config sc = {c->v[ERGO__KNOB_CORE] * 1e-6, c->v[ERGO__KNOB_UNCORE] * 1e-6,
                         (int)c->v[ERGO__KNOB_THREADS]};
  ergo__sim_result r;
  ergo__measure m;
  ergo__sim_eval(p, w, &sc, &r);
  ergo__sim_measure(p, &sc, &r, &m);
  return m;
}

/* Uniform in (0, 1) from a splitmix64 state: the test's noise is a pure function of its seed. */
static double uniform(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return ((double)((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
}
static double lognormal(uint64_t *x, double sigma) {
  double u1 = uniform(x), u2 = uniform(x);
  return exp(sigma * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

/* The sim node's noise on one measurement: log-normal sigma on its time and on its power. */
static void add_noise(ergo__measure *m, uint64_t *x, double sigma) {
  double ft = lognormal(x, sigma), fp = lognormal(x, sigma);
  m->time_s *= ft;
  m->energy_j *= ft * fp;
}

/* Sweep one piece of work on the sim model with log-normal noise sigma (time and power, as the
 * sim node does); the true (noise-free) measure of the config chosen. */
static ergo__measure sweep_sim_changed(const ergo__sim_params *p, const ergo__sim_work *w,
                                       const ergo__objective *o, double sigma, uint64_t seed,
                                       int *execs, int change_at, double factor, int *changed) {
  ergo__space s = sim_space();
  ergo__sweep *sw = ergo__sweep_new(&s, o, NULL);
  ergo__config c;
  *execs = 0;
  while (ergo__sweep_next(sw, &c)) {
    ergo__measure m = sim_measure(p, w, &c);
    if (change_at && *execs >= change_at) m.time_s *= factor, m.energy_j *= factor;
    if (sigma > 0) add_noise(&m, &seed, sigma);
    ergo__sweep_tell(sw, &m);
    ++*execs;
  }
  if (changed) *changed = ergo__sweep_changed(sw);
  ergo__sweep_free(sw);
  return sim_measure(p, w, &c);
}

static ergo__measure sweep_sim(const ergo__sim_params *p, const ergo__sim_work *w,
                               const ergo__objective *o, double sigma, uint64_t seed, int *execs) {
  return sweep_sim_changed(p, w, o, sigma, seed, execs, 0, 1, NULL);
}

/* Without noise, the schedule finds every workload class's oracle energy to within 1 % (and
 * keeps energy@5%'s bound), in at most 300 executions. */
static void test_sim_oracle(void **state) {
  (void)state;
  static const ergo__sim_work classes[] = {{40, 1, 0.01},  {2, 60, 0.01}, {20, 2, 0.5},
                                           {15, 25, 0.05}, {3, 3, 0.8},   {10, 40, 0.02},
                                           {8, 10, 0.1},   {30, 50, 0.03}};
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  static const char *const objectives[] = {"energy@5%", "energy"};
  for (size_t k = 0; k < 2; k++) {
    ergo__objective o = objective(objectives[k]);
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
      ergo__sim_choice best, base;
      assert_int_equal(ergo__sim_oracle(&p, &classes[i], &o, &best, &base), 0);
      int execs;
      ergo__measure m = sweep_sim(&p, &classes[i], &o, 0, 0, &execs);
      double oracle = best.result.e_pkg_j + best.result.e_dram_j;
      print_message("%s class %zu: energy %.4f of the oracle's, %d executions\n", objectives[k], i,
                    m.energy_j / oracle, execs);
      assert_true(m.energy_j <= 1.01 * oracle);
      assert_true(execs <= ERGO__SWEEP_BUDGET);
      if (o.kind == ERGO__OBJ_ENERGY_BOUNDED)
        assert_true(m.time_s <= 1.05 * base.result.time_s * (1 + 1e-12));
    }
  }
}

/* With 5 % noise the finalists are confirmed one execution at a time, and a point replaces the
 * baseline only when it is better with 95 % confidence, its time on the upper end of its
 * interval within the bound (Holm's procedure over the candidates tested, family-wise 95 %):
 * no seed's true time passes the 1.06x, and none spends more energy than the baseline.
 * The cost of that confidence on a region whose energy falls steeply up to the bound (the
 * oracle saves 31 % at 1.05x): a point must lie a few per cent inside the bound to be shown
 * inside it, so the median keeps about a third of the oracle's saving (the 1.34 below guards
 * that level; 1.225 with a 95 % test per candidate, which passed points outside the bound in
 * more than 5 % of runs, 1.231 before the search started from a design over the space).  The
 * price is executions: most of the 300 in most seeds (a median of 167 before). */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void test_sim_noise(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("energy@5%");
  const ergo__sim_work serial = {20, 2, 0.5};
  ergo__sim_choice best, base;
  assert_int_equal(ergo__sim_oracle(&p, &serial, &o, &best, &base), 0);
  double oracle = best.result.e_pkg_j + best.result.e_dram_j;
  double base_e = base.result.e_pkg_j + base.result.e_dram_j;
  enum { SEEDS = 9 };
  double e[SEEDS], t[SEEDS];
  int kept = 0;
  for (int k = 0; k < SEEDS; k++) {
    int execs;
    ergo__measure m = sweep_sim(&p, &serial, &o, 0.05, (uint64_t)k + 1, &execs);
    e[k] = m.energy_j / oracle;
    t[k] = m.time_s / base.result.time_s;
    print_message("seed %d: energy %.4f of the oracle's (baseline %.4f), time %.4f of the "
                  "baseline's, %d executions\n",
                  k + 1, e[k], base_e / oracle, t[k], execs);
    assert_true(execs <= ERGO__SWEEP_BUDGET);
    assert_true(m.energy_j <= base_e);
    assert_true(t[k] <= 1.06);
    kept += m.energy_j == base_e;
  }
  /* With budget left after the race, a candidate a few measurements short of its interval is
   * measured until it is shown better (or not): the baseline is kept in four seeds of nine,
   * where the budget ran out before a candidate was shown inside the bound at Holm's level (one
   * with a 95 % test per candidate). */
  assert_true(kept <= 4);
  qsort(e, SEEDS, sizeof *e, cmp_double);
  assert_true(e[SEEDS / 2] < 1.34);
}

/* The work of a region changes while its schedule runs (a phase): its baseline's measurements
 * during the final phase disagree with those before, and the schedule says so (the policy then
 * starts it again); the same seeds without the change say nothing.  Twice the work late in the
 * schedule, and three times the work early in its final phase, where the pooled noise of every
 * point measured (the baseline's own jump among them) would hide it. */
static void test_changed(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("energy@5%");
  const ergo__sim_work serial = {20, 2, 0.5};
  int flagged[2] = {0, 0}, quiet = 0;
  for (int k = 0; k < 5; k++) {
    int execs, changed, end;
    sweep_sim_changed(&p, &serial, &o, 0.05, (uint64_t)k + 1, &end, 0, 1, &changed);
    quiet += !changed;
    sweep_sim_changed(&p, &serial, &o, 0.05, (uint64_t)k + 1, &execs, end - 30, 2, &changed);
    flagged[0] += !!changed;
    sweep_sim_changed(&p, &serial, &o, 0.05, (uint64_t)k + 1, &execs, end - 60, 3, &changed);
    flagged[1] += !!changed;
    print_message("seed %d: changes seen so far %d and %d\n", k + 1, flagged[0], flagged[1]);
  }
  assert_int_equal(quiet, 5);
  assert_int_equal(flagged[0], 5);
  assert_int_equal(flagged[1], 5);
}

/* A large change of the work (3x) around the start of the final phase, at little noise (0.5 %)
 * but with one outlier among the baseline's first measurements (an execution 1.7x as long), as on
 * a node where a daemon runs now and then: points measured both before and after the change show
 * a sigma of the change's size, and the pooled sigma that floored the baseline's own test for a
 * change (base_moved()) was their mean, so the baseline's move went unseen and a point measured
 * on both works could be chosen against a baseline measured mostly on the new one (random program
 * 56: 0.72x the baseline's time, 1.23x monitor's E.T^2).  The floor is the smaller of the pooled
 * sigma and the median of the points' own sigmas now. */
static void test_changed_large_low_noise(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("ed2p");
  static const ergo__sim_work classes[] = {{20, 2, 0.5}, {15, 25, 0.05}, {40, 1, 0.01}};
  ergo__space s = sim_space();
  int flagged = 0, runs = 0, plain[3] = {103, 64, 60};
  for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
    for (int after = -40; after <= 20; after += 10) {
      /* The work 3x from `after` executions after the final phase would start without it (the
       * start depends on what was measured) on. */
      ergo__sweep *sw = ergo__sweep_new(&s, &o, NULL);
      ergo__config c;
      uint64_t seed = 1;
      int deciding_at = -1, execs = 0;
      while (ergo__sweep_next(sw, &c)) {
        ergo__measure m = sim_measure(&p, &classes[i], &c);
        if (deciding_at < 0 && ergo__sweep_deciding(sw)) deciding_at = execs;
        if (execs >= plain[i] + after) m.time_s *= 3, m.energy_j *= 3;
        if (execs == 2) m.time_s *= 1.7, m.energy_j *= 1.7; /* an outlier */
        add_noise(&m, &seed, 0.005);
        ergo__sweep_tell(sw, &m);
        execs++;
      }
      print_message("class %zu, work x3 %d executions from the final phase (at %d of %d): "
                    "changed %d\n",
                    i, after, deciding_at, execs, ergo__sweep_changed(sw));
      flagged += !!ergo__sweep_changed(sw);
      runs++;
      ergo__sweep_free(sw);
    }
  assert_int_equal(flagged, runs);
}

/* A small space (7 x 4 x 9 points, as on a 9-core node) at 9 % noise under energy@2%, where the
 * race can outgrow the final phase's share of the budget: the candidates leave the baseline its
 * measurements, at least half as many as any candidate's.  Planned after them, it went without
 * when the budget ran out first (seed 2 here: 6 against 13; random program 815: a race measured
 * its candidates 14 times each against 3 measurements of the baseline taken before the 249
 * points of an exhaustive grid, the work having changed meanwhile: a choice at 1.75x the
 * baseline's time). */
static void test_final_measures_baseline(void **state) {
  (void)state;
  ergo__space s = grid_space(7, 1400000, 100000, 4, 1800000, 200000, 9, 1);
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("energy@2%");
  const ergo__sim_work w = {20, 2, 0.2};
  for (uint64_t seed = 1; seed <= 5; seed++) {
    ergo__sweep *sw = ergo__sweep_new(&s, &o, NULL);
    ergo__config c;
    int execs = 0, base_final = 0;
    uint64_t x = seed;
    while (ergo__sweep_next(sw, &c)) {
      ergo__measure m = sim_measure(&p, &w, &c);
      add_noise(&m, &x, 0.09);
      if (execs >= 4 && !memcmp(&c, &ergo__sweep_points(sw, &(int){0})[0].config, sizeof c))
        base_final++;
      ergo__sweep_tell(sw, &m);
      execs++;
    }
    int np, most = 0;
    const ergo__sweep_point *pts = ergo__sweep_points(sw, &np);
    for (int i = 1; i < np; i++)
      if (pts[i].n > most) most = pts[i].n;
    print_message("seed %d: %d executions, the baseline measured %d times (%d after its first), "
                  "a candidate at most %d\n",
                  (int)seed, execs, pts[0].n, base_final, most);
    assert_true(2 * pts[0].n >= most);
    ergo__sweep_free(sw);
  }
}

/* The work's mix drifts while a schedule started again runs, no noise: a serial part and a
 * parallel part that grows with the executions from the 10th on, as a region whose
 * non-significant child's work ramps up inside its own time (random program 1297).  The last
 * schedule's choice (4 threads: as fast as 20 on the serial work, for less energy) is measured
 * again right after the baseline (ergo__sweep_recheck()); the model written before the new
 * schedule decides keeps it only where ergo__sweep_supported() says so, which must hold energy@5%'s
 * bound on the work as it is then.  Judged on its first measurements, the choice was supported at
 * every cut, up to 3x the baseline's time on the work of the cut. */
static ergo__measure drift_measure(const ergo__sim_params *p, const ergo__sim_work *ser,
                                   const ergo__sim_work *par, double g, const ergo__config *c) {
  ergo__sim_work w = *par;
  w.gcycles *= g;
  w.gbytes *= g;
  ergo__measure a = sim_measure(p, ser, c), b = sim_measure(p, &w, c);
  return (ergo__measure){a.time_s + b.time_s, a.energy_j + b.energy_j, a.resource};
}

static void test_drift_recheck_bound(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  p.cores = 96, p.f_min = 1.0, p.f_max = 3.0, p.f_step = 0.05;
  ergo__objective o = objective("energy@5%");
  /* 240 points: walked whole, for most of the budget, before the schedule decides. */
  ergo__space s = grid_space(5, 2000000, 250000, 4, 1800000, 200000, 12, 8);
  const ergo__sim_work ser = {20, 1, 1.0}, par = {20, 1, 0.0};
  ergo__config choice = {{0}};
  choice.v[ERGO__KNOB_CORE] = 3000000;
  choice.v[ERGO__KNOB_UNCORE] = 2400000;
  choice.v[ERGO__KNOB_THREADS] = 8;
  int kept = 0, judged = 0;
  double worst = 0;
  for (int k = 0; k < 50; k++) {
    int cut = 10 + 10 * (k % 25);
    double rate = 0.002 * (1 << (k / 25));
    ergo__sweep *sw = ergo__sweep_new(&s, &o, NULL);
    int rp = ergo__sweep_recheck(sw, &choice), execs = 0;
    assert_true(rp > 0);
    ergo__config c;
    double g = 0.01;
    while (execs < cut && ergo__sweep_next(sw, &c)) {
      ergo__measure m = drift_measure(&p, &ser, &par, g, &c);
      ergo__sweep_tell(sw, &m);
      execs++;
      g = 0.01 + (execs > 10 ? rate * (execs - 10) : 0);
    }
    if (!ergo__sweep_deciding(sw)) {
      const ergo__sweep_point *pts = ergo__sweep_points(sw, &(int){0});
      ergo__measure mc = drift_measure(&p, &ser, &par, g, &choice),
                    mb = drift_measure(&p, &ser, &par, g, &pts[ergo__sweep_baseline(sw)].config);
      int sup = ergo__sweep_supported(sw, rp);
      print_message("growth %.3f, cut at %d: the choice at %.4fx the baseline's time, supported "
                    "%d\n",
                    rate, execs, mc.time_s / mb.time_s, sup);
      judged++;
      if (sup) {
        kept++;
        worst = fmax(worst, mc.time_s / mb.time_s);
      }
    }
    ergo__sweep_free(sw);
  }
  assert_true(judged >= 5);
  assert_true(kept >= 1); /* before the drift the choice holds, and is kept */
  assert_true(worst <= 1.05 + 0.01);
}

/* A run that ends during the race (a schedule started again late, on a phase turned
 * memory-bound): the model keeps the race's choice so far only where ergo__sweep_supported() says
 * so on recent measurements.  Memory-bound work under energy@5% at 5 % noise, whose choices run
 * at about the baseline's time for half its energy, 20 seeds, the run ending after each execution
 * of the race that has a choice other than the baseline: on the last pair alone (one measurement
 * of each, 8 executions apart at most) the choice was kept at 657 of 1318 such ends; on the
 * median of the choice's last 4 measurements each against the baseline's nearest to it (8
 * executions apart at most), at 871 (the rest: mostly a winner dropped from the race earlier, not
 * measured since).  Never one past 1.06x its baseline's true time. */
static void test_cut_race_supported(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("energy@5%");
  const ergo__sim_work memory = {2, 60, 0.01};
  ergo__sim_choice best, base;
  assert_int_equal(ergo__sim_oracle(&p, &memory, &o, &best, &base), 0);
  ergo__space s = sim_space();
  int judged = 0, kept = 0;
  double worst = 0;
  for (int k = 0; k < 20; k++) {
    uint64_t x = (uint64_t)k + 701;
    ergo__sweep *sw = ergo__sweep_new(&s, &o, NULL);
    ergo__config c;
    int j0 = judged, k0 = kept;
    while (ergo__sweep_next(sw, &c)) {
      ergo__measure m = sim_measure(&p, &memory, &c);
      add_noise(&m, &x, 0.05);
      ergo__sweep_tell(sw, &m);
      /* The run ending here: what the model would keep. */
      int b = ergo__sweep_best(sw);
      if (!ergo__sweep_deciding(sw) || ergo__sweep_done(sw) || b < 0 ||
          b == ergo__sweep_baseline(sw))
        continue;
      const ergo__sweep_point *pts = ergo__sweep_points(sw, &(int){0});
      double t = sim_measure(&p, &memory, &pts[b].config).time_s / base.result.time_s;
      int sup = ergo__sweep_supported(sw, b);
      judged++;
      kept += sup;
      if (sup) worst = fmax(worst, t);
    }
    print_message("seed %d: the choice kept at %d of the %d executions of its race that had one\n",
                  k + 701, kept - k0, judged - j0);
    ergo__sweep_free(sw);
  }
  print_message("%d of %d choices kept, the worst at %.4fx\n", kept, judged, worst);
  assert_true(judged >= 100);
  assert_true(kept >= 3 * judged / 5);
  assert_true(worst <= 1.06);
}

/* While an exhaustive grid is walked the schedule is not deciding: its best so far is a single
 * measurement (random program 149: a run that ended there wrote a point measured once at 0.97x a
 * baseline measured three times before the work changed, 1.29x the baseline's time under
 * energy@5%).  Before, the walk was planned in the final phase's name and counted as deciding,
 * so a model written then kept that point. */
static void test_grid_walk_not_deciding(void **state) {
  (void)state;
  ergo__space s = grid_space(3, 1600000, 200000, 3, 2000000, 200000, 4, 5);
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("energy@5%");
  const ergo__sim_work w = {20, 2, 0.2};
  ergo__sweep *sw = ergo__sweep_new(&s, &o, NULL);
  ergo__config c;
  int execs = 0, deciding_in_walk = 0;
  while (ergo__sweep_next(sw, &c)) {
    ergo__measure m = sim_measure(&p, &w, &c);
    int np;
    const ergo__sweep_point *pts = ergo__sweep_points(sw, &np);
    int unmeasured = 0; /* grid points not measured yet: the walk is under way */
    for (int i = 0; i < np; i++) unmeasured += pts[i].n == 0;
    deciding_in_walk += execs >= 4 && unmeasured > 1 && ergo__sweep_deciding(sw);
    ergo__sweep_tell(sw, &m);
    execs++;
  }
  print_message("%d executions, deciding at %d of them during the grid's walk\n", execs,
                deciding_in_walk);
  assert_true(ergo__sweep_deciding(sw));
  assert_int_equal(deciding_in_walk, 0);
  ergo__sweep_free(sw);
}

/* Without noise too: a change of the work late in the search (the last points measured on the
 * new work, the baseline's first measurements on the old) is seen by the final phase, which
 * measures the baseline afresh however many measurements it has (without noise its three first
 * ones were enough for the comparison, and none was taken after the search: a phase change late
 * in an exhaustive grid chose a point at 1.32x its baseline's time under energy@10%). */
static void test_changed_exact(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("energy@10%");
  static const ergo__sim_work classes[] = {{20, 2, 0.5}, {2, 60, 0.01}, {15, 25, 0.05}};
  for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
    int execs, changed, end;
    sweep_sim_changed(&p, &classes[i], &o, 0, 0, &end, 0, 1, &changed);
    assert_false(changed);
    for (int factor = 0; factor < 2; factor++) {
      sweep_sim_changed(&p, &classes[i], &o, 0, 0, &execs, end - 12, factor ? 2.0 : 0.4, &changed);
      print_message("class %zu, work x%.1f 12 executions before the end: changed %d\n", i,
                    factor ? 2.0 : 0.4, changed);
      assert_true(changed);
    }
  }
}

/* A region's work turns from compute- to memory-bound a third of the way through a noise-free
 * exhaustive grid (8 x 3 x 10 points) or through the search on the sim node's space: the baseline,
 * measured again every ERGO__SWEEP_BASE_EVERY executions while the grid is walked or the search
 * runs, and right after a measurement off its level, shows the change, and the schedule ends
 * there saying so (2), not some hundred executions later at its final phase, which a run may not
 * reach (random program 3125: a grid cut short by the end of the run kept a point measured on the
 * old work, 1.49x the new work's baseline time under `edp`).  Without the change the grid is
 * still walked whole, and nothing is said; with ergo__sweep_explore_through() (a schedule started
 * again for such a change: a ramp moves the baseline in every stretch) it runs through and its
 * final phase says so (1). */
static void test_changed_while_exploring(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("edp");
  const ergo__sim_work before = {40, 1, 0.01}, after = {2, 60, 0.01};
  ergo__space spaces[2] = {grid_space(8, 1600000, 200000, 3, 1200000, 200000, 10, 1), sim_space()};
  for (int sp = 0; sp < 2; sp++)
    for (int mode = 0; mode < 3; mode++) { /* 0: no change, 1: change, 2: change, run through */
      ergo__sweep *sw = ergo__sweep_new(&spaces[sp], &o, NULL);
      if (mode == 2) ergo__sweep_explore_through(sw);
      ergo__config c;
      int execs = 0, change_at = sp ? 12 : 80, np;
      while (ergo__sweep_next(sw, &c)) {
        ergo__measure m = sim_measure(&p, mode && execs >= change_at ? &after : &before, &c);
        ergo__sweep_tell(sw, &m);
        execs++;
      }
      const ergo__sweep_point *pts = ergo__sweep_points(sw, &np);
      int measured = 0;
      for (int i = 0; i < np; i++) measured += pts[i].n > 0;
      print_message("space %d, %s: %d executions, %d points measured, changed %d\n", sp,
                    mode == 0   ? "no change"
                    : mode == 1 ? "change"
                                : "change, run through",
                    execs, measured, ergo__sweep_changed(sw));
      if (mode == 0) {
        assert_int_equal(ergo__sweep_changed(sw), 0);
        if (sp == 0) assert_int_equal(measured, 8 * 3 * 10); /* the interleave fits the budget */
      } else if (mode == 1) {
        assert_int_equal(ergo__sweep_changed(sw), 2);
        assert_true(execs <= change_at + ERGO__SWEEP_BASE_EVERY + 2);
      } else {
        assert_int_equal(ergo__sweep_changed(sw), 1);
      }
      ergo__sweep_free(sw);
    }
}

/* A jump of the work by 16x (or to 1/16) anywhere in a noise-free schedule, with at least two of
 * the baseline's measurements on either side of it, is a change: the points measured on both
 * sides of it showed a sigma of 1.07, and as the floor of the baseline's own test for a change
 * it hid a jump of 2.8 in log time (random program 152 without a counter: a region kept at its
 * baseline, 3.5x the oracle's energy).  The floor is capped at ERGO__SWEEP_NOISE_CAP. */
static void test_changed_jump(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("edp");
  static const ergo__sim_work classes[] = {{20, 2, 0.5}, {2, 60, 0.01}, {15, 25, 0.05}};
  int tried = 0, seen = 0;
  for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
    for (int factor = 0; factor < 2; factor++)
      for (int at = 4; at < 120; at += 3) {
        ergo__space s = sim_space();
        ergo__sweep *sw = ergo__sweep_new(&s, &o, NULL);
        ergo__config c, base;
        memcpy(base.v, s.baseline, sizeof base.v);
        int execs = 0, before = 0, after = 0;
        while (ergo__sweep_next(sw, &c)) {
          ergo__measure m = sim_measure(&p, &classes[i], &c);
          if (execs >= at) m.time_s *= factor ? 16 : 1 / 16.0, m.energy_j *= factor ? 16 : 1 / 16.0;
          if (!memcmp(&c, &base, sizeof c)) execs >= at ? after++ : before++;
          ergo__sweep_tell(sw, &m);
          execs++;
        }
        if (before >= 3 && after >= 2) { /* the warm-up is not recorded */
          tried++;
          seen += !!ergo__sweep_changed(sw);
          if (!ergo__sweep_changed(sw))
            print_message("class %zu, work x%g at execution %d (baseline %d before, %d after): "
                          "not seen\n",
                          i, factor ? 16 : 1 / 16.0, at, before - 1, after);
        }
        ergo__sweep_free(sw);
      }
  print_message("%d of %d jumps seen\n", seen, tried);
  assert_true(tried > 0);
  assert_int_equal(seen, tried);
}

/* energy@5% at 5 % noise on three workload classes, 20 seeds each: a candidate measured after
 * the race is judged once its planned measurements are in, not at every block (each look would
 * be another chance to pass a point outside the bound), so no seed's true time passes 1.06x its
 * baseline's (a point's time is checked on its own measurements as well as on its
 * neighbourhood's plane, which bends too little where bandwidth runs out); the mean share of the
 * oracle's saving kept guards the level (0.41 with Holm's procedure over the candidates, 0.58
 * with a 95 % test per candidate, 0.52 before the design and the surface's proposals and
 * finalists). */
static void test_noise_bound(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("energy@5%");
  static const ergo__sim_work classes[] = {{20, 2, 0.5}, {3, 3, 0.8}, {40, 1, 0.01}};
  enum { SEEDS = 20 };
  int over = 0;
  double share = 0;
  for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
    ergo__sim_choice best, base;
    assert_int_equal(ergo__sim_oracle(&p, &classes[i], &o, &best, &base), 0);
    double oracle = best.result.e_pkg_j + best.result.e_dram_j,
           base_e = base.result.e_pkg_j + base.result.e_dram_j, e[SEEDS];
    for (int k = 0; k < SEEDS; k++) {
      int execs;
      ergo__measure m = sweep_sim(&p, &classes[i], &o, 0.05, (uint64_t)k + 101, &execs);
      double t = m.time_s / base.result.time_s;
      e[k] = (base_e - m.energy_j) / (base_e - oracle); /* the share of the oracle's saving */
      if (t > 1.06) {
        print_message("class %zu seed %d: time %.4f of the baseline's\n", i, k + 101, t);
        over++;
      }
    }
    for (int k = 0; k < SEEDS; k++)
      share += e[k] / (SEEDS * (double)(sizeof classes / sizeof *classes));
    qsort(e, SEEDS, sizeof *e, cmp_double);
    print_message(
        "class %zu: median share of the oracle's saving %.3f (baseline %.4f of the oracle)\n", i,
        e[SEEDS / 2], base_e / oracle);
  }
  print_message("mean share of the oracle's saving %.3f\n", share);
  assert_int_equal(over, 0);
  assert_true(share > 0.40);
}

/* The slowdown bound is checked on the measurements a candidate got after it became one, not on
 * those that made it one (the luckiest of many): on the memory-bound class, 31 seeds, no seed's
 * true time passes 1.06x its baseline's (seed 327 chose a point at 1.081x when the early
 * measurements counted). */
static void test_noise_bound_fresh(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("energy@5%");
  const ergo__sim_work memory = {2, 60, 0.01};
  ergo__sim_choice best, base;
  assert_int_equal(ergo__sim_oracle(&p, &memory, &o, &best, &base), 0);
  int over = 0;
  for (int k = 0; k < 31; k++) {
    int execs;
    ergo__measure m = sweep_sim(&p, &memory, &o, 0.05, (uint64_t)k + 301, &execs);
    double t = m.time_s / base.result.time_s;
    if (t > 1.06) {
      print_message("seed %d: time %.4f of the baseline's\n", k + 301, t);
      over++;
    }
  }
  assert_int_equal(over, 0);
}

/* Many seeds near the slowdown bound: the final choice is the best of several candidates, each
 * tested against the bound, so a 95 % test per candidate passes one just outside the bound in
 * more than 5 % of runs (seed 537 at 10 % noise chose a point at 1.069x its baseline's time, seed
 * 510 at 5 % one at 1.078x).  With Holm's procedure over the candidates tested (family-wise
 * 95 %), energy@5% at 5 % and 10 % noise on six workload classes, 40 seeds each: no seed's true
 * time passes 1.06x its baseline's. */
static void test_noise_bound_many(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("energy@5%");
  static const ergo__sim_work classes[] = {{20, 2, 0.5}, {3, 3, 0.8},   {40, 1, 0.01},
                                           {8, 10, 0.1}, {2, 60, 0.01}, {10, 20, 0.3}};
  static const double sigmas[] = {0.05, 0.10};
  int over = 0;
  for (size_t si = 0; si < sizeof sigmas / sizeof *sigmas; si++)
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
      ergo__sim_choice best, base;
      assert_int_equal(ergo__sim_oracle(&p, &classes[i], &o, &best, &base), 0);
      double worst = 0, sum = 0;
      for (int k = 0; k < SEEDS_MANY; k++) {
        int execs;
        ergo__measure m = sweep_sim(&p, &classes[i], &o, sigmas[si], (uint64_t)k + 501, &execs);
        double t = m.time_s / base.result.time_s;
        sum += m.energy_j / (best.result.e_pkg_j + best.result.e_dram_j);
        if (t > worst) worst = t;
        if (t > 1.06) {
          print_message("noise %.2f class %zu seed %d: time %.4f of the baseline's\n", sigmas[si],
                        i, k + 501, t);
          over++;
        }
      }
      print_message("noise %.2f class %zu: worst time %.4f, mean energy %.4f of the oracle's\n",
                    sigmas[si], i, worst, sum / SEEDS_MANY);
    }
  assert_int_equal(over, 0);
}

/* Sweep work w under objective obj with log-normal noise sigma and a stall in a share op of the
 * executions; the share of the oracle's saving the choice keeps, its true time against the
 * baseline's in *time, the outliers set aside added to *aside. */
static double outlier_share(const ergo__sim_work *w, const char *obj, double sigma, double op,
                            uint64_t seed, double *time, int *aside) {
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective(obj);
  ergo__sim_choice best, base;
  assert_int_equal(ergo__sim_oracle(&p, w, &o, &best, &base), 0);
  double oracle = best.result.e_pkg_j + best.result.e_dram_j,
         base_e = base.result.e_pkg_j + base.result.e_dram_j;
  ergo__space s = sim_space();
  ergo__sweep *sw = ergo__sweep_new(&s, &o, NULL);
  ergo__config c;
  uint64_t x = seed;
  while (ergo__sweep_next(sw, &c)) {
    ergo__measure m = sim_measure(&p, w, &c);
    add_noise(&m, &x, sigma);
    if (uniform(&x) < op) { /* a stall: the time grows, and the energy by the idle power */
      double add = m.time_s * (0.5 + 0.5 * uniform(&x));
      m.energy_j += add * m.energy_j / m.time_s * 0.3;
      m.time_s += add;
    }
    ergo__sweep_tell(sw, &m);
  }
  *aside += ergo__sweep_outliers(sw);
  ergo__sweep_free(sw);
  ergo__measure t = sim_measure(&p, w, &c);
  *time = t.time_s / base.result.time_s;
  return (base_e - t.energy_j) / (base_e - oracle);
}

/* Outliers (an execution that caught a stall: 1.5-2x its time, idle power meanwhile) in 2 % of
 * the executions at 3 % noise: the pooled noise counted them (8 % instead of 3 % in random
 * program 264, where the baseline was kept at 1.19x the oracle's energy beside a point measured
 * 99 times at 0.998x its time), so few candidates could be shown inside energy@5%'s bound.  Set
 * aside (optimizer/robust.h), six workload classes over 11 seeds keep 0.61 of the oracle's
 * saving on average (0.64 without outliers; 0.25 when they counted), and no seed passes 1.06x
 * its baseline's time. */
static void test_outliers_set_aside(void **state) {
  (void)state;
  static const ergo__sim_work classes[] = {{20, 2, 0.5}, {3, 3, 0.8},   {40, 1, 0.01},
                                           {8, 10, 0.1}, {2, 60, 0.01}, {10, 20, 0.3}};
  enum { NC = sizeof classes / sizeof *classes };
  double share = 0, worst = 0;
  int aside = 0;
  for (int ci = 0; ci < NC; ci++) {
    double cs = 0;
    for (int k = 0; k < 11; k++) {
      double t;
      cs += outlier_share(&classes[ci], "energy@5%", 0.03, 0.02, 901 + k, &t, &aside) / 11;
      worst = fmax(worst, t);
    }
    print_message("class %d: mean share of the oracle's saving %.3f\n", ci, cs);
    share += cs / NC;
  }
  print_message("mean share %.3f, worst time %.4f of the baseline's, %d outliers set aside\n",
                share, worst, aside);
  assert_true(aside > 0);
  assert_true(worst <= 1.06);
  assert_true(share > 0.5);
}

/* Where the noise is below the precision the race has one finalist, the point whose first
 * measurement was best, often right at a slowdown bound; when its confirmation puts it just
 * outside, the next point is confirmed in its place, not the baseline kept (random program 76: a
 * region at its baseline, 1.69x the oracle's energy, beside a point measured at 1.048x).  Here
 * every config's first measurement is 0.2 % fast (the sigma seen, 0.1 %, is below the
 * precision), so points just outside energy@5%'s bound look inside it once.  The work: time
 * 0.9 % up per core step down and 0.11 % per thread fewer, energy down with both; the best inside
 * the bound is 1.5 GHz with 16 threads (1.0494x).  Before, the baseline was kept. */
static ergo__measure lucky_first(const ergo__space *s, const ergo__config *c, int first) {
  int ci = index_of(s, ERGO__KNOB_CORE, c->v[ERGO__KNOB_CORE]),
      ui = index_of(s, ERGO__KNOB_UNCORE, c->v[ERGO__KNOB_UNCORE]);
  int th = (int)c->v[ERGO__KNOB_THREADS];
  double t = 1 + 0.009 * (10 - ci) + 0.0011 * (20 - th) + 0.002 * (12 - ui);
  double e = 100 * (0.6 + 0.04 * ci) + 0.1 * th + 0.01 * ui;
  if (first) t *= 0.998;
  return (ergo__measure){t, e * t, th / 20.0};
}

/* Run the default schedule on `measure` (told whether a config is measured for the first time);
 * the config chosen. */
static ergo__config
run_first(const ergo__space *s, const ergo__objective *o,
          ergo__measure (*measure)(const ergo__space *, const ergo__config *, int), int *execs) {
  ergo__sweep *sw = ergo__sweep_new(s, o, NULL);
  ergo__config c;
  *execs = 0;
  while (ergo__sweep_next(sw, &c)) {
    int np, first = 1;
    const ergo__sweep_point *pts = ergo__sweep_points(sw, &np);
    for (int i = 0; i < np; i++)
      if (!memcmp(&pts[i].config, &c, sizeof c)) first = pts[i].n == 0;
    ergo__measure m = measure(s, &c, first);
    ergo__sweep_tell(sw, &m);
    assert_true(++*execs <= ERGO__SWEEP_BUDGET);
  }
  ergo__sweep_free(sw);
  return c;
}

/* Run the default schedule under energy@5% on `measure`; its choice must be inside the bound and
 * save more than 10 % of the baseline's energy. */
static void chosen_inside(ergo__measure (*measure)(const ergo__space *, const ergo__config *,
                                                   int)) {
  ergo__space s = sim_space();
  ergo__objective o = objective("energy@5%");
  int execs;
  ergo__config c = run_first(&s, &o, measure, &execs), bc;
  memcpy(bc.v, s.baseline, sizeof bc.v);
  ergo__measure t = measure(&s, &c, 0), b = measure(&s, &bc, 0);
  print_message("chosen %lld kHz, %lld threads: time %.4f, energy %.4f of the baseline's, %d "
                "executions\n",
                (long long)c.v[ERGO__KNOB_CORE], (long long)c.v[ERGO__KNOB_THREADS],
                t.time_s / b.time_s, t.energy_j / b.energy_j, execs);
  assert_true(t.time_s <= 1.05 * b.time_s);
  assert_true(t.energy_j < 0.9 * b.energy_j);
}

static void test_next_finalist(void **state) {
  (void)state;
  chosen_inside(lucky_first);
}

/* Below the precision the final choice's time must be inside the bound by 1.645 standard errors,
 * not by a quarter of one: a point at 1.0502x its baseline's time whose first measurement was
 * 0.3 % fast has a mean of 1.0492x over three, and passed as inside energy@5%'s bound (random
 * program 76 at 0.1 % noise: the whole run at 1.0502x monitor's).  The work: time 1.004 % up per
 * core step down, energy down with it; 1.6 GHz (1.0402x) is the best inside the bound. */
static ergo__measure edge_first(const ergo__space *s, const ergo__config *c, int first) {
  int ci = index_of(s, ERGO__KNOB_CORE, c->v[ERGO__KNOB_CORE]);
  int th = (int)c->v[ERGO__KNOB_THREADS];
  double t = 1 + 0.01004 * (10 - ci), e = 100 * (0.6 + 0.04 * ci) + 0.01 * th;
  if (first && !(ci == 10 && th == 20)) t *= 0.997; /* the baseline's measurements are exact */
  return (ergo__measure){t, e * t, th / 20.0};
}

static void test_precise_bound_margin(void **state) {
  (void)state;
  chosen_inside(edge_first);
}

/* Under noise the search stops wherever single measurements leave it, and a trend of a fraction
 * of a per cent per grid step (uncore on compute-bound work, core frequency on memory-bound
 * work: energy falls, time stays) is lost in 5 % noise.  The surface fitted to every measurement
 * (in the logarithm of each knob's value) sees it, is compared with its own value at the best
 * point (not with that point's luckiest measurement), and proposes the points it predicts
 * better: the energy objective at 5 % noise on four workload classes, 15 seeds each, ends within
 * 3 % of the oracle's energy in the median of every class (4.0-5.5 % on three of them when the
 * surface was compared with the best measurement, 3 proposals, on a linear index scale). */
static void test_noise_trend(void **state) {
  (void)state;
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective o = objective("energy");
  static const ergo__sim_work classes[] = {{40, 1, 0.01}, {20, 2, 0.5}, {3, 3, 0.8}, {8, 10, 0.1}};
  enum { SEEDS = 15 };
  for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
    ergo__sim_choice best, base;
    assert_int_equal(ergo__sim_oracle(&p, &classes[i], &o, &best, &base), 0);
    double oracle = best.result.e_pkg_j + best.result.e_dram_j, e[SEEDS];
    for (int k = 0; k < SEEDS; k++) {
      int execs;
      ergo__measure m = sweep_sim(&p, &classes[i], &o, 0.05, (uint64_t)k + 201, &execs);
      e[k] = m.energy_j / oracle;
      assert_true(execs <= ERGO__SWEEP_BUDGET);
    }
    qsort(e, SEEDS, sizeof *e, cmp_double);
    for (int k = 0; k < SEEDS; k++) print_message(" %.4f", e[k]);
    print_message("\nclass %zu: median energy %.4f of the oracle's\n", i, e[SEEDS / 2]);
    assert_true(e[SEEDS / 2] < 1.03);
  }
}

/* repeats=2: every configuration is measured twice in a row; the budget still holds. */
static void test_repeats(void **state) {
  (void)state;
  ergo__space s = sim_space();
  ergo__objective o = objective("energy");
  ergo__sweep_spec spec;
  char why[512];
  assert_int_equal(ergo__sweep_parse("repeats=2", &spec, why, sizeof why), 0);
  assert_int_equal(spec.repeats, 2);
  assert_false(ergo__sweep_explicit(&spec));
  ergo__sweep *sw = ergo__sweep_new(&s, &o, &spec);
  static ergo__config trace[400];
  ergo__config best;
  bowl b = {{6, 4, 7}};
  int n = run_bowl(sw, &s, &b, trace, 400, &best);
  assert_true(n <= ERGO__SWEEP_BUDGET);
  /* After warm-up (1) and the baseline (2 + ERGO__SWEEP_FINAL), configs come in pairs; the
   * baseline alone between two pairs (measured again while exploring) is no config of the
   * schedule's. */
  int first = 1 + 2 + ERGO__SWEEP_FINAL, singles = 0;
  ergo__config base;
  memcpy(base.v, s.baseline, sizeof base.v);
  for (int i = first; i + 1 < n && i < first + 96;) {
    if (!memcmp(&trace[i], &base, sizeof base) && memcmp(&trace[i + 1], &base, sizeof base)) {
      singles++, i++;
      continue;
    }
    assert_memory_equal(&trace[i], &trace[i + 1], sizeof *trace);
    i += 2;
  }
  assert_true(singles >= 1);
  int np;
  const ergo__sweep_point *pts = ergo__sweep_points(sw, &np);
  for (int i = 0; i < np; i++) assert_true(pts[i].n == 0 || pts[i].n >= 2);
  for (int i = 0; i < ERGO__NKNOBS; i++) assert_int_equal(index_of(&s, i, best.v[i]), b.best[i]);
  ergo__sweep_free(sw);
}

/* ERGO_SWEEP's explicit grid: warm-up, the baseline, the grid (repeats each), nothing more. */
static void test_explicit_grid(void **state) {
  (void)state;
  ergo__space s = sim_space();
  ergo__objective o = objective("energy");
  ergo__sweep_spec spec;
  char why[512], warn[512];
  assert_int_equal(ergo__sweep_parse("cpu=1000000:2000000:500000,threads=1,20;repeats=2", &spec,
                                     why, sizeof why),
                   0);
  assert_true(ergo__sweep_explicit(&spec));
  assert_int_equal(ergo__sweep_fit(&spec, &s, why, sizeof why, warn, sizeof warn), 0);
  assert_string_equal(warn, "");
  ergo__sweep *sw = ergo__sweep_new(&s, &o, &spec);
  static ergo__config trace[64];
  ergo__config best;
  bowl b = {{6, 12, 19}};
  int n = run_bowl(sw, &s, &b, trace, 64, &best);
  /* 1 warm-up + 2 baseline + (3 x 2 configs, less the baseline) x 2 repeats. */
  assert_int_equal(n, 1 + 2 + 5 * 2);
  for (int i = 0; i < n; i++) assert_int_equal(trace[i].v[ERGO__KNOB_UNCORE], 2400000);
  /* The grid's best for a bowl at core index 6: 1.5 GHz (index 5), 20 threads. */
  assert_int_equal(best.v[ERGO__KNOB_CORE], 1500000);
  assert_int_equal(best.v[ERGO__KNOB_THREADS], 20);
  int np;
  ergo__sweep_points(sw, &np);
  assert_int_equal(np, 6);
  ergo__sweep_free(sw);
}

/* Values the node does not allow round to the nearest, with one warning line. */
static void test_fit(void **state) {
  (void)state;
  ergo__space s = sim_space();
  ergo__sweep_spec spec;
  char why[512] = "", warn[512];
  assert_int_equal(
      ergo__sweep_parse("cpu=1050000,2000000,2500000;threads=3", &spec, why, sizeof why), 0);
  assert_int_equal(ergo__sweep_fit(&spec, &s, why, sizeof why, warn, sizeof warn), 0);
  assert_string_equal(warn, "ERGO_SWEEP: cpu=1050000 is not allowed on this node; using the "
                            "nearest, 1000000 (and 1 more values rounded)");
  assert_int_equal(spec.n[ERGO__KNOB_CORE], 2); /* 2500000 became 2000000, a repeat */
  assert_int_equal(spec.values[ERGO__KNOB_CORE][0], 1000000);
  assert_int_equal(spec.values[ERGO__KNOB_CORE][1], 2000000);

  ergo__space no_uncore = s;
  no_uncore.n[ERGO__KNOB_UNCORE] = 0;
  assert_int_equal(ergo__sweep_parse("uncore=1200000", &spec, why, sizeof why), 0);
  assert_int_equal(ergo__sweep_fit(&spec, &no_uncore, why, sizeof why, warn, sizeof warn),
                   ERGO_EINVAL);
  assert_string_equal(why, "ERGO_SWEEP names uncore, but this node has no uncore knob (`ergo "
                           "info` says why; fix: leave it out of ERGO_SWEEP)");

  assert_int_equal(ergo__sweep_parse("cpu=1:256:1,uncore=1:256:1", &spec, why, sizeof why), 0);
  assert_int_equal(ergo__sweep_fit(&spec, &s, why, sizeof why, warn, sizeof warn), 0);
  assert_int_equal(ergo__sweep_parse("cpu=1000000:2000000:100000,uncore=1200000:2400000:100000,"
                                     "threads=1:20:1",
                                     &spec, why, sizeof why),
                   0);
  assert_int_equal(ergo__sweep_fit(&spec, &s, why, sizeof why, warn, sizeof warn), 0);
  ergo__space big = s;
  big.n[ERGO__KNOB_THREADS] = 100;
  for (int i = 0; i < 100; i++) big.values[ERGO__KNOB_THREADS][i] = i + 1;
  assert_int_equal(ergo__sweep_parse("cpu=1000000:2000000:100000,uncore=1200000:2400000:100000,"
                                     "threads=1:100:1",
                                     &spec, why, sizeof why),
                   0);
  assert_int_equal(ergo__sweep_fit(&spec, &big, why, sizeof why, warn, sizeof warn), ERGO_EINVAL);
  assert_string_equal(why, "ERGO_SWEEP's grid has 14300 configurations; at most 10000 are "
                           "accepted per region (fix: name fewer values)");
}

static void test_parse_good(void **state) {
  (void)state;
  ergo__sweep_spec spec;
  char why[512] = "";
  assert_int_equal(ergo__sweep_parse(NULL, &spec, why, sizeof why), 0);
  assert_false(ergo__sweep_explicit(&spec));
  assert_int_equal(spec.repeats, 1);
  assert_int_equal(spec.budget, ERGO__SWEEP_BUDGET);
  assert_int_equal(ergo__sweep_parse("", &spec, why, sizeof why), 0);
  assert_false(ergo__sweep_explicit(&spec));

  const char *text = "cpu=1000000:2000000:200000,uncore=1200000,2400000,threads=1,2,4,8,16,20;"
                     "repeats=2";
  assert_int_equal(ergo__sweep_parse(text, &spec, why, sizeof why), 0);
  assert_int_equal(spec.n[ERGO__KNOB_CORE], 6);
  for (int i = 0; i < 6; i++)
    assert_int_equal(spec.values[ERGO__KNOB_CORE][i], 1000000 + 200000 * i);
  assert_int_equal(spec.n[ERGO__KNOB_UNCORE], 2);
  assert_int_equal(spec.values[ERGO__KNOB_UNCORE][0], 1200000);
  assert_int_equal(spec.values[ERGO__KNOB_UNCORE][1], 2400000);
  static const int64_t th[] = {1, 2, 4, 8, 16, 20};
  assert_int_equal(spec.n[ERGO__KNOB_THREADS], 6);
  assert_memory_equal(spec.values[ERGO__KNOB_THREADS], th, sizeof th);
  assert_int_equal(spec.repeats, 2);
  assert_int_equal(spec.budget, ERGO__SWEEP_BUDGET);

  /* Any order, ';' or ',' between items, ranges and values mixed, sorted, repeats dropped; a
   * range stops at the last step not beyond TO. */
  assert_int_equal(
      ergo__sweep_parse("budget=120;threads=8,1:5:2,3;repeats=1", &spec, why, sizeof why), 0);
  static const int64_t th2[] = {1, 3, 5, 8};
  assert_int_equal(spec.n[ERGO__KNOB_THREADS], 4);
  assert_memory_equal(spec.values[ERGO__KNOB_THREADS], th2, sizeof th2);
  assert_int_equal(spec.n[ERGO__KNOB_CORE], 0);
  assert_int_equal(spec.budget, 120);
  assert_int_equal(spec.repeats, 1);
  assert_int_equal(ergo__sweep_parse("threads=4:4:1", &spec, why, sizeof why), 0);
  assert_int_equal(spec.n[ERGO__KNOB_THREADS], 1);
  assert_string_equal(why, "");
}

static void test_parse_bad(void **state) {
  (void)state;
  static const struct {
    const char *in, *reason;
  } bad[] = {
      {"gpu=1", "'gpu=1' names no knob or option"},
      {"cpu=abc", "'abc' is neither a positive integer nor FROM:TO:STEP"},
      {"cpu=0", "'0' is neither a positive integer nor FROM:TO:STEP"},
      {"cpu=-5", "'-5' is neither a positive integer nor FROM:TO:STEP"},
      {"cpu=1000000,", "an empty item"},
      {"cpu=1000000,,2000000", "an empty item"},
      {"cpu=", "'' is neither a positive integer nor FROM:TO:STEP"},
      {"cpu=2000000:1000000:100000",
       "'2000000:1000000:100000' is not a range FROM:TO:STEP of positive integers with FROM <= TO"},
      {"cpu=1000000:2000000", "'1000000:2000000' is not a range FROM:TO:STEP of positive "
                              "integers with FROM <= TO"},
      {"cpu=1:2:0", "'1:2:0' is not a range FROM:TO:STEP of positive integers with FROM <= TO"},
      {"threads=1:1000:1", "'1:1000:1' makes more than 256 values for one knob"},
      {"5", "'5' follows no KNOB="},
      {"repeats=2,3", "'3' follows no KNOB="},
      {"cpu=1000000;cpu=2000000", "'cpu' is named twice"},
      {"repeats=0", "'repeats=0' is not an integer from 1 to 100"},
      {"repeats=101", "'repeats=101' is not an integer from 1 to 100"},
      {"budget=9", "'budget=9' is not an integer from 10 to 100000"},
      {"budget=lots", "'budget=lots' is not an integer from 10 to 100000"},
      {"threads =4", "'threads =4' names no knob or option"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ergo__sweep_spec spec;
    char why[1024], want[1024];
    assert_int_equal(ergo__sweep_parse(bad[i].in, &spec, why, sizeof why), ERGO_EINVAL);
    snprintf(want, sizeof want, "ERGO_SWEEP='%s' is not valid: %s; %s", bad[i].in, bad[i].reason,
             EXPECTED);
    assert_string_equal(why, want);
    /* Left at the default schedule. */
    assert_false(ergo__sweep_explicit(&spec));
    assert_int_equal(spec.repeats, 1);
  }
}

/* Edge cases: nothing to tune; an execution the schedule did not hand out; next() twice. */
static void test_edges(void **state) {
  (void)state;
  ergo__objective o = objective("energy");
  ergo__space none;
  memset(&none, 0, sizeof none);
  ergo__sweep *sw = ergo__sweep_new(&none, &o, NULL);
  ergo__config c;
  assert_int_equal(ergo__sweep_next(sw, &c), 0);
  assert_true(c.v[0] == 0 && c.v[1] == 0 && c.v[2] == 0);
  assert_true(ergo__sweep_done(sw));
  assert_int_equal(ergo__sweep_best(sw), -1);
  ergo__sweep_free(sw);
  ergo__sweep_free(NULL);

  /* Threads only, 2 values (this VM): the whole grid fits, no refinement. */
  ergo__space two;
  memset(&two, 0, sizeof two);
  two.n[ERGO__KNOB_THREADS] = 2;
  two.values[ERGO__KNOB_THREADS][0] = 1;
  two.values[ERGO__KNOB_THREADS][1] = 2;
  two.baseline[ERGO__KNOB_THREADS] = 2;
  sw = ergo__sweep_new(&two, &o, NULL);
  ergo__measure m = {1, 50, 1};
  ergo__sweep_tell(sw, &m); /* nothing handed out: ignored */
  assert_int_equal(ergo__sweep_executions(sw), 0);
  ergo__config a, b;
  assert_int_equal(ergo__sweep_next(sw, &a), 1);
  assert_int_equal(ergo__sweep_next(sw, &b), 1);
  assert_memory_equal(&a, &b, sizeof a);
  int n = 0;
  while (ergo__sweep_next(sw, &c)) {
    m.energy_j = c.v[ERGO__KNOB_THREADS] == 1 ? 40 : 50;
    ergo__sweep_tell(sw, &m);
    n++;
  }
  /* warm-up 1, baseline 3, the other value 1, re-measured to 3, the baseline 2 more. */
  assert_int_equal(n, 1 + 3 + 1 + 2 + 2);
  assert_int_equal(c.v[ERGO__KNOB_THREADS], 1);
  assert_int_equal(c.v[ERGO__KNOB_CORE], 0);
  int np;
  const ergo__sweep_point *pts = ergo__sweep_points(sw, &np);
  assert_int_equal(np, 2);
  ergo__measure mean = ergo__sweep_mean(&pts[ergo__sweep_baseline(sw)]);
  assert_true(mean.energy_j == 50 && mean.time_s == 1);
  ergo__sweep_free(sw);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_schedule_sim_space),
      cmocka_unit_test(test_refinement_planted),
      cmocka_unit_test(test_sim_oracle),
      cmocka_unit_test(test_sim_noise),
      cmocka_unit_test(test_changed),
      cmocka_unit_test(test_changed_exact),
      cmocka_unit_test(test_changed_jump),
      cmocka_unit_test(test_changed_while_exploring),
      cmocka_unit_test(test_changed_large_low_noise),
      cmocka_unit_test(test_final_measures_baseline),
      cmocka_unit_test(test_grid_walk_not_deciding),
      cmocka_unit_test(test_drift_recheck_bound),
      cmocka_unit_test(test_cut_race_supported),
      cmocka_unit_test(test_noise_bound),
      cmocka_unit_test(test_noise_trend),
      cmocka_unit_test(test_outliers_set_aside),
      cmocka_unit_test(test_next_finalist),
      cmocka_unit_test(test_precise_bound_margin),
      cmocka_unit_test(test_noise_bound_fresh),
      cmocka_unit_test(test_noise_bound_many),
      cmocka_unit_test(test_repeats),
      cmocka_unit_test(test_explicit_grid),
      cmocka_unit_test(test_fit),
      cmocka_unit_test(test_parse_good),
      cmocka_unit_test(test_parse_bad),
      cmocka_unit_test(test_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
