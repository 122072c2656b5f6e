/* tuning.c - ergo-bench-tuning: the policies on the sim mini-app against the oracle, per profile,
 * with the model's true (noise-free) energies of the configurations each policy chose. */
#include "../examples/miniapp_work.h"
#include "runtime/toolkit.h"

#include <ergo_sim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OBJECTIVE "energy@5%"
#define SWEEP_STEPS 320 /* the sweep schedule needs at most 300 executions per region */
#define ONLINE_STEPS 60
#define EVAL_STEPS 20
#define SEEDS 10

static char dir[64];

typedef struct {
  double energy_j, time_s, overhead_s;
  unsigned long long switches;
} run_result;

static void piece(const ergo_sim_work_desc *d) { ergo_sim_work(d); }

/* One run of the mini-app on the sim node under `policy`. */
static int run(const char *policy, const char *model, double noise, unsigned long long seed,
               int steps, run_result *out) {
  ergo_config c;
  ergo_config_default(&c);
  c.platform = "sim";
  c.policy = policy;
  c.objective = OBJECTIVE;
  c.model = model;
  c.sim_noise = noise;
  c.sim_seed = seed;
  c.report = "none";
  c.step_report = "none";
  c.balance = "none";
  if (ergo_init(&c) != 0) return -1;
  for (int s = 0; s < steps; s++) mini_step(piece);
  ergo__sim_node *n = ergo__sim();
  out->energy_j = n->e_pkg_j + n->e_dram_j;
  out->time_s = (double)(n->now_ns - 1000000000ull) * 1e-9;
  ergo_overhead(&out->overhead_s, NULL); /* real seconds, beside the sim node's virtual ones */
  out->switches = 0;
  for (int i = 0; i < ERGO__NKNOBS; i++)
    if (ergo__knob_get(i)) out->switches += ergo__knob_get(i)->sets;
  ergo_finalize();
  return 0;
}

/* ---- the oracle, on ergo's own tuning units ----
 * ergo gives a config to each significant region (exclusive time >= ERGO_MIN_REGION_MS at the
 * baseline), and that config also governs the region's children too short to have their own.
 * The oracle therefore picks, for each such unit, the exhaustive best config for the sum of
 * the unit's pieces of work (noise-free), under the same objective against the same
 * baseline; pieces in no unit run at the baseline.  Its energy per step is what a perfect
 * tuner could reach with ergo's rules. */
#define MAXN 64
typedef struct {
  char path[160];
  int parent;
  double own_t, incl_t, excl_t;
  int sig;
  int pieces[MAXN], npieces; /* mini_regions indices whose work is this node's own */
} tnode;
static tnode nodes[MAXN];
static int nnodes;

static int find_or_add(const char *path) {
  for (int i = 0; i < nnodes; i++)
    if (!strcmp(nodes[i].path, path)) return i;
  tnode *n = &nodes[nnodes];
  memset(n, 0, sizeof *n);
  snprintf(n->path, sizeof n->path, "%s", path);
  n->parent = -1;
  /* the parent: cut at the last '/' that is not escaped */
  const char *cut = NULL;
  for (const char *c = path; *c; c++)
    if (*c == '/' && (c == path || c[-1] != '\\')) cut = c;
  int me = nnodes++;
  if (cut && (size_t)(cut - path) > strlen("Global")) {
    char up[160];
    snprintf(up, sizeof up, "%.*s", (int)(cut - path), path);
    int p = find_or_add(up);
    nodes[me].parent = p;
  }
  return me;
}

static ergo__sim_config cfg_max(const ergo__sim_params *p) {
  return (ergo__sim_config){p->f_max, p->u_max, p->cores};
}

/* Sum of the pieces' figures under one config. */
static void sum_pieces(const ergo__sim_params *p, const int *pc, int n, const ergo__sim_config *c,
                       double *t, double *e) {
  *t = *e = 0;
  for (int k = 0; k < n; k++) {
    ergo_sim_work_desc d = mini_desc(pc[k]);
    ergo__sim_work w = {d.gcycles, d.gbytes, d.serial};
    ergo__sim_result r;
    ergo__sim_eval(p, &w, c, &r);
    *t += r.time_s;
    *e += r.e_pkg_j + r.e_dram_j;
  }
}

/* Oracle energy and time of one step, and those of the baseline step. */
static void unit_oracle(double min_s, double *e_best, double *t_best, double *e_base,
                        double *t_base) {
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__objective obj;
  char why[256];
  ergo__objective_parse(OBJECTIVE, &obj, why, sizeof why);
  nnodes = 0;
  for (int i = 0; i < mini_nregions; i++) {
    int n = find_or_add(mini_regions[i].path);
    nodes[n].pieces[nodes[n].npieces++] = i;
  }
  ergo__sim_config mx = cfg_max(&p);
  for (int i = 0; i < nnodes; i++) {
    double e;
    sum_pieces(&p, nodes[i].pieces, nodes[i].npieces, &mx, &nodes[i].own_t, &e);
  }
  /* Deepest first: a child is complete before its parent (children were added after parents). */
  for (int i = nnodes - 1; i >= 0; i--) {
    tnode *n = &nodes[i];
    n->incl_t += n->own_t;
    n->excl_t += n->own_t;
    n->sig = n->excl_t >= min_s;
    if (n->parent >= 0) {
      nodes[n->parent].incl_t += n->incl_t;
      if (!n->sig) { /* its work is the parent's to govern */
        nodes[n->parent].excl_t += n->excl_t;
        for (int k = 0; k < n->npieces; k++)
          nodes[n->parent].pieces[nodes[n->parent].npieces++] = n->pieces[k];
      }
    }
  }
  *e_best = *t_best = *e_base = *t_base = 0;
  for (int i = 0; i < nnodes; i++) {
    tnode *n = &nodes[i];
    if (!n->sig && n->parent >= 0) continue; /* folded into its parent */
    double bt, be;
    sum_pieces(&p, n->pieces, n->npieces, &mx, &bt, &be);
    *e_base += be;
    *t_base += bt;
    if (!n->sig) {
      *e_best += be;
      *t_best += bt;
      continue;
    }
    ergo__measure b = {bt, be, 1.0};
    double best = INFINITY, bt_best = bt, be_best = be;
    for (int fi = 0; fi < ergo__sim_nf(&p); fi++)
      for (int ui = 0; ui < ergo__sim_nu(&p); ui++)
        for (int th = 1; th <= p.cores; th++) {
          ergo__sim_config c = {ergo__sim_f(&p, fi), ergo__sim_u(&p, ui), th};
          double t, e;
          sum_pieces(&p, n->pieces, n->npieces, &c, &t, &e);
          ergo__measure m = {t, e, (double)th / p.cores};
          double v = ergo__objective_value(&obj, &m, &b);
          if (v < best) best = v, bt_best = t, be_best = e;
        }
    *e_best += be_best;
    *t_best += bt_best;
  }
}

/* Executions a policy spent per region (from its model's points), the most of any region. */
static int max_executions(const char *path) {
  ergo__model m;
  char why[512];
  if (ergo__model_load(path, &m, why, sizeof why) != 0) return -1;
  int most = 0;
  for (int r = 0; r < m.nregions; r++) {
    int n = 0;
    for (int p = 0; p < m.regions[r].npoints; p++) n += m.regions[r].points[p].n;
    if (n > most) most = n;
  }
  ergo__model_free(&m);
  return most;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/ergo-bench-tuning-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  char sweep_model[128], online_model[128];
  snprintf(sweep_model, sizeof sweep_model, "%s/sweep.json", dir);
  snprintf(online_model, sizeof online_model, "%s/online.json", dir);
  setenv("ERGO_STATE_DIR", dir, 1);
  double worst_static = 0, worst_online = 0, worst_online_monitor = 0, max_slow = 0, max_ovh = 0;
  printf("%-20s %6s %10s %10s %8s %8s %9s %9s %6s %9s\n", "profile", "seeds", "static/or",
         "online/or", "on/mon", "t_st/b", "t_on/b", "on_execs", "sw_sw", "overhead");
  for (int p = 0; p < mini_nprofiles; p++) {
    const mini_profile *prof = &mini_profiles[p];
    mini_set_profile(prof);
    int seeds = prof->noise > 0 ? SEEDS : 1;
    run_result mon, orc;
    if (run("monitor", NULL, 0, 1, EVAL_STEPS, &mon)) {
      fprintf(stderr, "bench: the monitor run failed\n");
      return 1;
    }
    /* A static run's first step is at the baseline (significance is decided there). */
    double eb, tb, e0, t0;
    unit_oracle(0.1, &eb, &tb, &e0, &t0);
    orc.energy_j = e0 + (EVAL_STEPS - 1) * eb;
    orc.time_s = t0 + (EVAL_STEPS - 1) * tb;
    double rs[SEEDS], ro[SEEDS], rm[SEEDS], ts[SEEDS], to[SEEDS], ex[SEEDS], sw[SEEDS], ov[SEEDS];
    for (int k = 0; k < seeds; k++) {
      unsigned long long seed = 1 + (unsigned long long)k;
      run_result tune, st, on_tune, on;
      unlink(sweep_model);
      unlink(online_model);
      if (run("sweep", sweep_model, prof->noise, seed, SWEEP_STEPS, &tune) ||
          run("static", sweep_model, 0, 1, EVAL_STEPS, &st) ||
          run("online", online_model, prof->noise, seed, ONLINE_STEPS, &on_tune) ||
          run("static", online_model, 0, 1, EVAL_STEPS, &on)) {
        fprintf(stderr, "bench: a tuning run failed (profile %s, seed %llu)\n", prof->name, seed);
        return 1;
      }
      rs[k] = st.energy_j / orc.energy_j;
      ro[k] = on.energy_j / orc.energy_j;
      rm[k] = on.energy_j / mon.energy_j;
      ts[k] = st.time_s / mon.time_s;
      to[k] = on.time_s / mon.time_s;
      ex[k] = max_executions(online_model);
      sw[k] = (double)on_tune.switches;
      ov[k] = on_tune.time_s > 0 ? on_tune.overhead_s / on_tune.time_s : 0;
    }
    double a = median(rs, seeds), b = median(ro, seeds), c = median(rm, seeds);
    double d = median(ts, seeds), e = median(to, seeds), x = median(ex, seeds);
    double s = median(sw, seeds), o = median(ov, seeds);
    printf("%-20s %6d %10.4f %10.4f %8.4f %8.4f %9.4f %9.0f %6.0f %8.4f%%\n", prof->name, seeds, a,
           b, c, d, e, x, s, 100 * o);
    worst_static = fmax(worst_static, a);
    worst_online = fmax(worst_online, b);
    worst_online_monitor = fmax(worst_online_monitor, c);
    max_slow = fmax(max_slow, fmax(d, e));
    max_ovh = fmax(max_ovh, o);
  }
  unlink(sweep_model);
  unlink(online_model);
  rmdir(dir);
  printf("worst_static_vs_oracle=%.4f worst_online_vs_oracle=%.4f worst_online_vs_monitor=%.4f "
         "max_slowdown_energy5=%.4f max_overhead=%.6f\n",
         worst_static, worst_online, worst_online_monitor, max_slow, max_ovh);
  return 0;
}
