/* tuning_random.c - ergo-bench-tuning-random: the tuning policies on programs and nodes nobody
 * wrote, drawn at random, checked against the rules every program must meet (issue 14):
 *   final      the final choice (static on the model sweep or online wrote) at most 1 % worse
 *              than monitor in true energy (objectives energy and energy@X%), or in the
 *              objective's value of the whole run (time, edp, ed2p, weighted);
 *   unit_time  under energy@X%, no tuned region's true time above (1 + X + 0.01) x its baseline;
 *   run_time   under energy@X%, the whole run's true time at most (1 + X) x monitor's;
 *   cost       online's tuning run (200 steps) at most monitor's energy and 1.10x its time,
 *              monitor run with the same noise and outliers.
 * A program: 1-30 regions, nested at random, each with its own work (compute C, memory M,
 * serial fraction s: pure compute, pure memory, near-serial, mixed), sized from tiny (a few ms)
 * through just around ERGO_MIN_REGION_MS to several seconds, called 1-5 times per step at
 * different sizes, some changing phase or growing (a ramp, or a jump at a random step), some run
 * once; noise 0-10 % and, in some noisy programs, outliers (an execution that takes up to twice its
 * time, as when an OS daemon runs).  A node: 4-128 cores, core and uncore frequency ranges,
 * bandwidths and powers drawn within physical ranges.  One objective per program.
 *
 * Usage: ergo-bench-tuning-random [--random N] [--seed S] [--no-counter] [--verbose]
 * Programs S, S+1, ..., S+N-1 (default N = 20, S = 1); everything a program is follows from its
 * seed, so `--random 1 --seed S` reproduces case S.  One line per broken rule, then a summary.
 * --no-counter: the nodes have no work counter (the sim node's "work_counter": 0), as ergo's real
 * nodes today: executions of different work are told apart only by ergo_region_work (not called
 * here), calls of different sizes are split into units, and changes of work are found
 * statistically.  BENCH_KEEP=1 keeps the last program's models and node.
 * Benchmarks print figures; exit 1 only when a run cannot start. */
#define main tuning_main
int tuning_main(int argc, char **argv);
#include "tuning.c"
#undef main

#define RMAX 30
#define MAXCALLS 5

/* splitmix64: a program is a pure function of its seed. */
static unsigned long long rng_state;
static unsigned long long rnext(void) {
  unsigned long long z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double unif(double a, double b) { return a + (b - a) * (double)(rnext() >> 11) * 0x1p-53; }
static double logunif(double a, double b) { return exp(unif(log(a), log(b))); }
static int irand(int a, int b) { return a + (int)(rnext() % (unsigned long long)(b - a + 1)); }

typedef struct {
  char name[16];
  int parent, depth, calls, once;
  double size[MAXCALLS];
  ergo__sim_work w, w2; /* own work per call at full size; w2: after the phase change */
  double change_x;      /* phase change at x >= change_x (> 1: none) */
  double grow, grow_x;  /* work x grow at the end: a ramp from grow_x, or a jump there */
  int grow_jump;
  double t0; /* baseline seconds per call at full size (own work) */
} rregion;
static rregion R[RMAX];
static int nR;
static double outlier_p;             /* chance an execution is an outlier */
static unsigned long long out_state; /* the outliers' own generator, reset per run */

static unsigned long long onext(void) {
  unsigned long long z = (out_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A workload of one of the classes, scaled to take t seconds at the baseline on node p. */
static ergo__sim_work draw_work(const ergo__sim_params *p, double t) {
  ergo__sim_work w;
  double k = unif(0, 1);
  if (k < 0.15)
    w = (ergo__sim_work){unif(5, 50), 0, logunif(0.001, 0.05)}; /* pure compute */
  else if (k < 0.30)
    w = (ergo__sim_work){unif(0.01, 0.5), unif(20, 80), logunif(0.001, 0.05)}; /* memory */
  else if (k < 0.40)
    w = (ergo__sim_work){unif(5, 30), unif(0, 5), unif(0.6, 0.99)}; /* near-serial */
  else
    w = (ergo__sim_work){unif(0.1, 50), unif(0, 80), logunif(0.001, 0.6)};
  if (w.gcycles + w.gbytes <= 0) w.gcycles = 1;
  ergo__sim_config mx = {p->f_max, p->u_max, p->cores};
  ergo__sim_result r;
  ergo__sim_eval(p, &w, &mx, &r);
  double sc = t / r.time_s;
  w.gcycles *= sc;
  w.gbytes *= sc;
  return w;
}

static double draw_time(void) {
  double k = unif(0, 1);
  if (k < 0.05) return 0; /* a wrapper with no work of its own */
  if (k < 0.25) return logunif(0.002, 0.07);
  if (k < 0.45) return unif(0.07, 0.14); /* around ERGO_MIN_REGION_MS */
  if (k < 0.85) return logunif(0.14, 1.0);
  return logunif(1.0, 6.0);
}

static void draw_program(const ergo__sim_params *p) {
  nR = irand(1, RMAX);
  for (int i = 0; i < nR; i++) {
    rregion *r = &R[i];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "r%d", i);
    r->parent = -1;
    if (i > 0 && unif(0, 1) < 0.5) {
      int j = irand(0, i - 1);
      if (R[j].depth < 5) r->parent = j;
    }
    r->depth = r->parent < 0 ? 0 : R[r->parent].depth + 1;
    r->calls = unif(0, 1) < 0.7 ? 1 : irand(2, MAXCALLS);
    int same = unif(0, 1) < 0.4;
    for (int k = 0; k < r->calls; k++) r->size[k] = k == 0 || same ? 1.0 : logunif(0.05, 1.0);
    r->t0 = draw_time();
    r->w = draw_work(p, r->t0 > 0 ? r->t0 : 1);
    if (r->t0 <= 0) r->w.gcycles = r->w.gbytes = 0;
    r->change_x = 2;
    if (unif(0, 1) < 0.2) {
      r->change_x = unif(0.2, 0.8);
      r->w2 = draw_work(p, (r->t0 > 0 ? r->t0 : 0.1) * logunif(0.5, 2));
    }
    r->grow = 1;
    if (unif(0, 1) < 0.15) {
      r->grow = logunif(0.1, 20);
      r->grow_x = unif(0, 0.8);
      r->grow_jump = unif(0, 1) < 0.5;
    }
    r->once = r->parent < 0 && i > 0 && unif(0, 1) < 0.05;
  }
  outlier_p = unif(0, 1) < 0.4 ? unif(0, 0.03) : 0;
}

static void visit(int i) {
  rregion *r = &R[i];
  if (r->once && !cur_first) return;
  int level = r->depth < 2 ? r->depth : 2;
  for (int k = 0; k < r->calls; k++) {
    bpush(level, r->name);
    const ergo__sim_work *w = cur_x >= r->change_x ? &r->w2 : &r->w;
    double g = 1;
    if (r->grow != 1 && cur_x >= r->grow_x)
      g = r->grow_jump ? r->grow : 1 + (r->grow - 1) * (cur_x - r->grow_x) / (1 - r->grow_x);
    double f = r->size[k] * g;
    if (w->gcycles + w->gbytes > 0) bwork(w->gcycles * f, w->gbytes * f, w->serial);
    if (!recording && outlier_p > 0 && (double)(onext() >> 11) * 0x1p-53 < outlier_p)
      ergo_sim_wait(r->t0 * f * (0.5 + 0.5 * (double)(onext() >> 11) * 0x1p-53));
    for (int c = i + 1; c < nR; c++)
      if (R[c].parent == i) visit(c);
    bpop(level, r->name);
  }
}

static void random_step(void) {
  for (int i = 0; i < nR; i++)
    if (R[i].parent < 0) visit(i);
}

/* A node within physical ranges, written as a JSON node description. */
static int no_counter; /* --no-counter: nodes without a work counter, as ergo's real nodes */

static int draw_node(const char *path, ergo__sim_params *p, char *desc, size_t desclen) {
  ergo__sim_params_default(p);
  int cores = (int)logunif(4, 129);
  double fs = unif(0, 1) < 0.5 ? 0.1 : 0.2, us = unif(0, 1) < 0.5 ? 0.1 : 0.2;
  double flo = 0.1 * irand(8, 20), fhi = flo + fs * irand(3, (int)(2.0 / fs + 0.5));
  double umin = 0.1 * irand(8, 14), umax = umin + us * irand(2, (int)(1.4 / us + 0.5));
  double bwc = unif(2, 12), bwmax = fmin(cores * bwc * unif(0.3, 1.0), unif(20, 400));
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f,
          "{\"cores\": %d, \"f_min\": %.1f, \"f_max\": %.1f, \"f_step\": %.1f, \"u_min\": %.1f, "
          "\"u_max\": %.1f, \"u_step\": %.1f, \"bw_per_core\": %.3f, \"bw_max\": %.3f, "
          "\"static_w\": %.3f, \"core_dyn_w\": %.3f, \"uncore_min_w\": %.3f, \"uncore_dyn_w\": "
          "%.3f, \"v0\": %.3f, \"v_slope\": %.3f, \"dram_min_w\": %.3f, \"core_idle_w\": %.3f, "
          "\"core_act_min\": %.3f, \"overlap\": %.3f, \"work_counter\": %d}\n",
          cores, flo, fhi, fs, umin, umax, us, bwc, bwmax, unif(0.3, 1.5) * (10 + cores),
          unif(0.8, 4), unif(2, 10), unif(3, 20), unif(0.6, 0.8), unif(0.1, 0.3), unif(1, 8),
          unif(0.1, 1.0), unif(0.2, 0.6), unif(0.1, 0.5), !no_counter);
  fclose(f);
  char why[512];
  if (ergo__sim_params_load(p, path, why, sizeof why)) {
    fprintf(stderr, "bench: %s\n", why);
    return -1;
  }
  snprintf(desc, desclen, "%dc f%.1f-%.1f u%.1f-%.1f bw%.0f", cores, flo, fhi, umin, umax, bwmax);
  return 0;
}

static const char *const robj[] = {"energy@5%", "energy@10%", "energy@2%",
                                   "time",      "energy",     "edp",
                                   "ed2p",      "weighted",   "weighted:t=1,e=2,r=0"};

/* Runs with the outliers' generator reset, so that every run of a program sees the same ones. */
static int rrun(const char *policy, const char *objective, const char *node, const char *model,
                double noise, unsigned long long seed, int steps, int eval, run_result *out) {
  out_state = seed * 0x2545f4914f6cdd1dull + 7;
  double keep = outlier_p;
  if (eval) outlier_p = 0; /* the runs that measure the truth: no noise, no outliers */
  int rc = run(policy, objective, node, model, noise, seed, steps, eval, out);
  outlier_p = keep;
  return rc;
}

int main(int argc, char **argv) {
  int n = 20, verbose = 0;
  unsigned long long seed0 = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--random") && i + 1 < argc)
      n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed0 = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--verbose"))
      verbose = 1;
    else if (!strcmp(argv[i], "--no-counter"))
      no_counter = 1;
    else {
      fprintf(stderr,
              "ergo-bench-tuning-random: unknown argument '%s': expected --random N, --seed S, "
              "--no-counter or --verbose\n",
              argv[i]);
      return 2;
    }
  }
  if (make_dir("random")) return 1;
  char sweep_model[128], online_model[128], node_file[128];
  snprintf(sweep_model, sizeof sweep_model, "%s/sweep.json", dir);
  snprintf(online_model, sizeof online_model, "%s/online.json", dir);
  snprintf(node_file, sizeof node_file, "%s/node.json", dir);
  setenv("ERGO_STATE_DIR", dir, 1);
  static profile rp = {"random", random_step, NULL, 0, NULL};
  cur = &rp;
  printf("SIMULATED (sim node; random programs and nodes%s; true, noise-free energies)\n",
         no_counter ? " without a work counter" : "");
  int fails = 0, failing = 0, cnt[4] = {0}, n_bounded = 0, n_cost = 0, n_empty = 0;
  const char *rule_name[4] = {"final", "unit_time", "run_time", "cost"};
  double w_st_mon = 0, w_on_mon = 0, w_unit = 0, w_run = 0, w_cost_e = 0, w_cost_t = 0, w_st_or = 0,
         w_on_or = 0;
  for (int pi = 0; pi < n; pi++) {
    unsigned long long seed = seed0 + (unsigned long long)pi;
    rng_state = seed; /* not seed * the increment: the streams of nearby seeds would overlap */
    ergo__sim_params p;
    char desc[128], why[512];
    if (draw_node(node_file, &p, desc, sizeof desc)) return 1;
    node_params = p;
    draw_program(&p);
    const char *objective = robj[irand(0, (int)(sizeof robj / sizeof *robj) - 1)];
    double noise = unif(0, 1) < 0.25 ? 0 : unif(0, 0.10);
    if (noise <= 0) outlier_p = 0; /* a noise-free sim node promises exact measurements */
    ergo__objective obj;
    if (ergo__objective_parse(objective, &obj, why, sizeof why)) {
      fprintf(stderr, "bench: %s\n", why);
      return 1;
    }
    int bounded = obj.kind == ERGO__OBJ_ENERGY_BOUNDED;
    double x = bounded ? obj.slowdown : 0;
    run_result mon, mon_on, sw, st, on_tune, on;
    unlink(sweep_model);
    unlink(online_model);
    if (rrun("monitor", objective, node_file, NULL, 0, 1, EVAL_STEPS, 1, &mon) ||
        rrun("monitor", objective, node_file, NULL, noise, seed, ONLINE_STEPS, 0, &mon_on) ||
        rrun("sweep", objective, node_file, sweep_model, noise, seed, SWEEP_STEPS, 0, &sw) ||
        rrun("static", objective, node_file, sweep_model, 0, 1, EVAL_STEPS, 1, &st) ||
        rrun("online", objective, node_file, online_model, noise, seed, ONLINE_STEPS, 0,
             &on_tune) ||
        rrun("static", objective, node_file, online_model, 0, 1, EVAL_STEPS, 1, &on)) {
      fprintf(stderr, "bench: a run failed (program %llu)\n", seed);
      return 1;
    }
    if (!(mon.time_s > 0 && mon.energy_j > 0 && mon_on.time_s > 0 && mon_on.energy_j > 0)) {
      /* Every region a wrapper with no work (seed 2047): nothing to tune, no ratio to take.  Not
       * counted among the programs judged; the tuned runs must have taken nothing either. */
      n_empty++;
      int moved = sw.time_s > 0 || on_tune.time_s > 0 || st.time_s > 0 || on.time_s > 0;
      if (verbose || moved)
        printf("%s seed=%llu regions=%d: no work at the baseline (monitor's run took %.3g s), "
               "nothing to compare%s\n",
               moved ? "FAIL empty" : "case", seed, nR, mon.time_s,
               moved ? ": but a tuned run took time" : "");
      fails += moved, failing += moved;
      continue;
    }
    double eb, tb, e0, t0, eb0, tb0;
    unit_oracle(&p, &obj, 1, &e0, &t0, &eb0, &tb0);
    unit_oracle(&p, &obj, 0, &eb, &tb, &eb0, &tb0);
    double orc_v = run_value(&obj, e0 + (EVAL_STEPS - 1) * eb, t0 + (EVAL_STEPS - 1) * tb, &mon);
    int use_energy = bounded || obj.kind == ERGO__OBJ_ENERGY;
    double mon_v = use_energy ? mon.energy_j : run_value(&obj, mon.energy_j, mon.time_s, &mon);
    double st_v = use_energy ? st.energy_j : run_value(&obj, st.energy_j, st.time_s, &mon);
    double on_v = use_energy ? on.energy_j : run_value(&obj, on.energy_j, on.time_s, &mon);
    double st_mon = st_v / mon_v, on_mon = on_v / mon_v;
    double st_or = run_value(&obj, st.energy_j, st.time_s, &mon) / orc_v;
    double on_or = run_value(&obj, on.energy_j, on.time_s, &mon) / orc_v;
    int units = bounded || getenv("BENCH_UNITS"); /* BENCH_UNITS: every objective's units */
    double changed; /* the random programs name no changing region (cur->changes) */
    double u_sw = units ? worst_unit_slowdown(&p, sweep_model, &obj, &changed) : 0;
    double u_on = units ? worst_unit_slowdown(&p, online_model, &obj, &changed) : 0;
    double rt_sw = st.time_s / mon.time_s, rt_on = on.time_s / mon.time_s;
    double ce = on_tune.energy_j / mon_on.energy_j, ct = on_tune.time_s / mon_on.time_s;
    char what[200];
    snprintf(what, sizeof what,
             "seed=%llu node=[%s] objective=%s noise=%.3f outliers=%.3f regions=%d", seed, desc,
             objective, noise, outlier_p, nR);
    if (verbose)
      printf("case %s st/mon=%.4f on/mon=%.4f st/or=%.4f on/or=%.4f unit_t=%.4f/%.4f "
             "runE=%.4f runT=%.4f\n",
             what, st_mon, on_mon, st_or, on_or, u_sw, u_on, ce, ct);
    for (int i = 0; verbose && i < nR; i++)
      printf(
          "  region %s parent=%d calls=%d size1=%.3f t0=%.4fs C=%.3f M=%.3f s=%.3f%s change_x=%.2f "
          "grow=%.2f%s from x=%.2f\n",
          R[i].name, R[i].parent, R[i].calls, R[i].size[R[i].calls - 1], R[i].t0, R[i].w.gcycles,
          R[i].w.gbytes, R[i].w.serial, R[i].once ? " once" : "", R[i].change_x, R[i].grow,
          R[i].grow_jump ? " jump" : " ramp", R[i].grow_x);
    int before = fails;
#define FAIL(rule, pol, fmt, ...)                                                                  \
  do {                                                                                             \
    printf("FAIL %s %s %s " fmt                                                                    \
           " (reproduce: ergo-bench-tuning-random --random 1 --seed %llu%s)\n",                    \
           rule_name[rule], pol, what, __VA_ARGS__, seed, no_counter ? " --no-counter" : "");      \
    cnt[rule]++;                                                                                   \
    fails++;                                                                                       \
  } while (0)
    if (st_mon > 1.01)
      FAIL(0, "sweep", "final/monitor=%.4f (%s) > 1.01", st_mon,
           use_energy ? "energy" : "objective");
    if (on_mon > 1.01)
      FAIL(0, "online", "final/monitor=%.4f (%s) > 1.01", on_mon,
           use_energy ? "energy" : "objective");
    if (bounded) {
      n_bounded++;
      double ub = 1 + x + 0.01;
      if (u_sw > ub) FAIL(1, "sweep", "worst region time/baseline=%.4f > %.4f", u_sw, ub);
      if (u_on > ub) FAIL(1, "online", "worst region time/baseline=%.4f > %.4f", u_on, ub);
      if (rt_sw > 1 + x + 1e-9) FAIL(2, "sweep", "run time/monitor=%.4f > %.4f", rt_sw, 1 + x);
      if (rt_on > 1 + x + 1e-9) FAIL(2, "online", "run time/monitor=%.4f > %.4f", rt_on, 1 + x);
      w_unit = fmax(w_unit, fmax(u_sw, u_on) / (1 + x));
      w_run = fmax(w_run, fmax(rt_sw, rt_on) / (1 + x));
    }
    n_cost++;
    if (ce > 1 + 1e-9 || ct > 1.10 + 1e-9)
      FAIL(3, "online", "tuning run energy/monitor=%.4f (<= 1) time/monitor=%.4f (<= 1.10)", ce,
           ct);
#undef FAIL
    failing += fails > before;
    w_st_mon = fmax(w_st_mon, st_mon);
    w_on_mon = fmax(w_on_mon, on_mon);
    w_cost_e = fmax(w_cost_e, ce);
    w_cost_t = fmax(w_cost_t, ct);
    w_st_or = fmax(w_st_or, st_or);
    w_on_or = fmax(w_on_or, on_or);
    fflush(stdout);
  }
  if (getenv("BENCH_KEEP")) { /* the last program's models and node, to look into */
    fprintf(stderr, "bench: BENCH_KEEP: kept the last program's models and node in %s\n", dir);
  } else {
    unlink(sweep_model);
    unlink(online_model);
    unlink(node_file);
    rmdir(dir);
  }
  printf("random_programs=%d failing_programs=%d failures=%d final=%d unit_time=%d run_time=%d "
         "cost=%d bounded_programs=%d worst_static_vs_monitor=%.4f worst_online_vs_monitor=%.4f "
         "worst_unit_time_vs_bound=%.4f worst_run_time_vs_bound=%.4f "
         "worst_tuning_run_energy_vs_monitor=%.4f worst_tuning_run_time_vs_monitor=%.4f "
         "worst_static_vs_oracle=%.4f worst_online_vs_oracle=%.4f empty_programs=%d\n",
         n, failing, fails, cnt[0], cnt[1], cnt[2], cnt[3], n_bounded, w_st_mon, w_on_mon, w_unit,
         w_run, w_cost_e, w_cost_t, w_st_or, w_on_or, n_empty);
  (void)n_cost;
  return 0;
}
