/* online.c - the online policy (ERGO_POLICY=online): per significant region an ask/tell
 * Nelder-Mead (optimizer/nm.h) over the node's knob grid; the region's executions measure the
 * configs it asks for, then run at its choice; at the end the choices go into the tuning model. */
#include "optimizer/change.h"
#include "optimizer/nm.h"
#include "optimizer/robust.h"
#include "policies/model.h"
#include "policies/policy.h"
#include "policies/summary.h"
#include "policies/trend.h"
#include "policies/work.h"
#include "util/log.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ONLINE_DEFAULT_MODEL ERGO__MODEL_DEFAULT
/* Executions per region the search may use (the convergence bound). */
#define ONLINE_BUDGET 40
/* With noise: measurements of the baseline and of each deciding config. */
#define ONLINE_REPEATS 3
/* With noise: executions beyond ONLINE_BUDGET for confirming the choice on fresh measurements,
 * in turn with the baseline's (optimizer/nm.c, ERGO__NM_CONFIRM). */
#define ONLINE_CONFIRM 80
/* The noise of one measurement assumed on real hardware until the repeats
 * show it (RAPL on regions of 100 ms and more is usually quieter). */
#define ONLINE_NOISE 0.02
/* ERGO_TUNE_BUDGET: the tuning run's own cost, over a region's first steps, against the
 * untuned run's: energy at most 1.00x, time at most 1.10x, over 200 steps (5x the search's
 * budget, so a run of 200 steps keeps it; see horizon_of()). */
#define ONLINE_BUDGET_VAR "ERGO_TUNE_BUDGET"
#define ONLINE_BUDGET_ENERGY 1.00
#define ONLINE_BUDGET_TIME 1.10
#define ONLINE_BUDGET_HORIZON 200
/* Once a region's search is over, each block of WATCH executions is compared with what the
 * search measured at the same config: past DRIFT in mean log time or energy (or 5 standard
 * errors of the noise seen in that quantity, if more) in two blocks in a row, on the same side,
 * the work changed, and the search starts again, RETUNES times at most. */
#define ONLINE_WATCH 4
#define ONLINE_DRIFT 0.10
/* A change so large that two measurements in a row decide it (see gross_change()). */
#define ONLINE_GROSS 2.0
#define ONLINE_RETUNES 8
/* After the check that follows a search, the baseline is probed again every PROBE_EVERY
 * executions at the choice, PROBE executions at a time, judged as the check is: a change of the
 * work that the choice does not see (a phase that turned memory-bound runs at about the same time
 * per unit of work at a config with low uncore, while its baseline got twice as fast, so the
 * choice runs at 2x the new baseline's time) shows at the baseline.  Where the budget runs
 * another config than the choice, every other probe is of the choice (probe_the_choice()). */
#define ONLINE_PROBE_EVERY 24
#define ONLINE_PROBE 2
/* Standard errors by which the choice must run worse than the baseline probed beside it, twice in
 * a row, to be no longer worth keeping (no_longer_pays()). */
#define ONLINE_PAYS_Z 2.0
/* During a search the baseline is measured again after every BASE_EVERY other measurements: the
 * configs are compared with a baseline measured on the work they ran (see base_every in
 * optimizer/nm.h); one that moved ends the search, which starts again (counted in RETUNES). */
#define ONLINE_BASE_EVERY 10
/* Executions in a row that ran under another config than asked (the knobs
 * refused it, or a parent's config was in force) before a region gives up. */
#define ONLINE_MISMATCHES 3
/* Executions of one step measured as one at most (a region called more often, or in a run that
 * never calls ergo_step, is measured ONLINE_MAX_CALLS executions at a time). */
#define ONLINE_MAX_CALLS 16
/* What started a probe of the baseline right after one measurement at the choice (see
 * measure_one()): its time or energy per unit of work off by ONLINE_GROSS, or its work. */
#define PROBE_GROSS 1
#define PROBE_JUMP 2

typedef struct online_region {
  ergo__nm *nm;           /* NULL: gave up, the region inherits */
  int restarted;          /* its search started again (the work changed) */
  ergo__measure old_base; /* the baseline the search before the restart measured */
  char *path;
  int point[ERGO__NM_MAX_DIMS]; /* the point asked, when asked */
  int asked, chosen, mismatches;
  int watch_n, retunes; /* after the search: the block being watched, restarts so far */
  int side[2];          /* the last block's verdict per quantity (-1, 0, 1) */
  /* The block's measurements: log ratios of time and energy to what the search measured, and
   * their weights (executions), wk of them. */
  double watch[2][ONLINE_WATCH], watch_w[ONLINE_WATCH];
  int wk;
  long retuned_at;
  /* After the search, ONLINE_WATCH executions at the baseline (once per search): compared with
   * the baseline the search measured, they say whether the work changed while it ran. */
  int checked, check_left, check_n;
  int probe_choice, probe_turn; /* the probe runs the model's choice; the next may */
  double check[2][ONLINE_WATCH], check_w[ONLINE_WATCH]; /* as watch, ck of them */
  int ck;
  /* The side (ergo__change_twice()) of the last measurement drifted() took, in time and energy
   * against ONLINE_GROSS (0: none since the search or the last change). */
  int gross_side[2];
  /* The baseline probed at once after one such measurement at the choice, or one whose work
   * per execution jumped (PROBE_GROSS, PROBE_JUMP; see measure_one()), and those measurements in
   * a row, owed_n of them, their time and energy summed: the next search owes them
   * (ergo__nm_options.owed_time). */
  int gross_probe, owed_n;
  double owed[2];
  double work_ref; /* the work per execution when the search ended (or at the last jump) */
  int jump_side;   /* the side of the last work per execution against work_ref and ONLINE_GROSS */
  int jump_alternates; /* a probe after one such jump found the baseline as it was */
  int since_check;     /* executions at the choice since the last check of the baseline */
  /* The last block watched at the choice: its log time (what the search measured there, times
   * the block's median ratio to it) and executions; 0 none since the search. */
  double last_lt, last_le; /* last_le: NAN where no energy was read */
  double last_r;           /* its resource (what the search measured there) */
  int last_n;
  int pays_side; /* the last check's verdict on whether the choice still beats the baseline */
  /* The budget's horizon in the run's steps (the search's: the option's, a search started again:
   * what was left of it), and the most measurements one step has had (see count_measurement()). */
  long horizon_steps;
  int per_step, in_step;
  long in_step_at;
  long first_step, execs; /* the step of its first tuned execution; executions observed */
  int work_seen;          /* an execution's work was measured (a hint or the counter) */
  /* Where nothing measures it, the work as the baseline's trend says (policies/trend.h): decided
   * at each change of the work, 1 until the first. */
  ergo__trend trend;
  long ramp_from; /* the step the trend was first found to ramp (0: never) */
  /* One measurement is a whole step's executions at one config (their mean): calls of one step
   * that differ in size are compared only as a whole step, never call against call.  The step's
   * executions so far: from its first call (call index 0), under agg_cfg (mixed: not all). */
  int agg_open, agg_n, agg_mixed, agg_chosen;
  long agg_step;                     /* the step of its first call */
  double agg_w;                      /* the trend's work it was divided by */
  long point_step;                   /* the step its point was asked in */
  double agg_x[ONLINE_MAX_CALLS][4]; /* each execution's work, time, energy, resource per work */
  ergo__config agg_cfg;
  struct online_region *next;
} online_region;

typedef struct online_priv {
  ergo__nm_grid grid;
  ergo__nm_options opt;
  online_region *regions, **tail; /* in the order they were first tuned */
} online_priv;

/* The grid of the space: one dimension per knob slot (an absent knob is a
 * single point, not searched), the baseline as start, threads on a log scale. */
static void grid_of(const ergo__space *s, ergo__nm_grid *g) {
  memset(g, 0, sizeof *g);
  g->dims = ERGO__NKNOBS;
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    g->n[i] = s->n[i] ? s->n[i] : 1;
    for (int k = 0; k < s->n[i]; k++)
      if (s->values[i][k] == ergo__space_round(s, i, s->baseline[i])) g->start[i] = k;
  }
  g->log[ERGO__KNOB_THREADS] = 1;
}

static void config_of(const ergo__space *s, const int *point, ergo__config *c) {
  for (int i = 0; i < ERGO__NKNOBS; i++) c->v[i] = s->n[i] ? s->values[i][point[i]] : 0;
}

/* Whether an execution under `applied` ran at grid point `point` (every knob the space has). */
static int ran_at(const ergo__space *s, const ergo__config *applied, const int *point) {
  ergo__config c;
  config_of(s, point, &c);
  for (int i = 0; i < ERGO__NKNOBS; i++)
    if (s->n[i] && applied->v[i] != c.v[i]) return 0;
  return 1;
}

/* ERGO_TUNE_BUDGET: "off", or any of energy=X,time=Y (ratios to the untuned run, 1 to 100) and
 * horizon=N (executions, 1 to 10^9), comma-separated.  0, or ERGO_EINVAL with one line in why. */
int ergo__online_budget_parse(const char *s, double *energy, double *time, int *horizon, char *why,
                              size_t whylen) {
  *energy = ONLINE_BUDGET_ENERGY - 1;
  *time = ONLINE_BUDGET_TIME - 1;
  *horizon = ONLINE_BUDGET_HORIZON;
  if (!s || !*s) return 0;
  if (!strcmp(s, "off")) {
    *energy = *time = -1;
    return 0;
  }
  for (const char *c = s; *c;) {
    const char *eq = strchr(c, '='), *end = strchr(c, ',');
    if (!end) end = c + strlen(c);
    size_t klen = eq && eq < end ? (size_t)(eq - c) : 0;
    char *stop = NULL;
    double v = klen ? strtod(eq + 1, &stop) : 0;
    int ok = klen && stop == end && stop != eq + 1;
    if (ok && klen == 6 && !strncmp(c, "energy", 6) && v >= 1 && v <= 100)
      *energy = v - 1;
    else if (ok && klen == 4 && !strncmp(c, "time", 4) && v >= 1 && v <= 100)
      *time = v - 1;
    else if (ok && klen == 7 && !strncmp(c, "horizon", 7) && v >= 1 && v <= 1e9 && v == (int)v)
      *horizon = (int)v;
    else {
      snprintf(why, whylen,
               "%s=%s: '%.*s' is not understood (accepted: off, or energy=X,time=Y,horizon=N with "
               "X and Y ratios to the untuned run from 1 to 100 and N executions from 1, e.g. "
               "energy=1.0,time=1.10,horizon=200)",
               ONLINE_BUDGET_VAR, s, (int)(end - c), c);
      *energy = ONLINE_BUDGET_ENERGY - 1;
      *time = ONLINE_BUDGET_TIME - 1;
      *horizon = ONLINE_BUDGET_HORIZON;
      return ERGO_EINVAL;
    }
    c = *end ? end + 1 : end;
  }
  return 0;
}

static int online_start(ergo__policy *p, char *why, size_t whylen) {
  int rc = ergo__policy_tunable(&p->space, why, whylen);
  if (rc) return rc;
  online_priv *o = calloc(1, sizeof *o);
  if (!o) return ERGO_ENOMEM;
  grid_of(&p->space, &o->grid);
  ergo__nm_options_default(&o->opt);
  o->opt.max_evals = ONLINE_BUDGET;
  o->opt.base_every = ONLINE_BASE_EVERY;
  /* The sim node says how noisy it is; real hardware gets repeats and a
   * modest guess, which the optimiser corrects from what the repeats show. */
  o->opt.noise_rel = p->sim ? p->cfg->sim_noise : ONLINE_NOISE;
  o->opt.repeats = p->sim && p->cfg->sim_noise <= 0 ? 1 : ONLINE_REPEATS;
  if (o->opt.repeats > 1) {
    o->opt.confirm = ONLINE_CONFIRM;
    o->opt.max_evals += ONLINE_CONFIRM;
  }
  char bad[512];
  if (ergo__online_budget_parse(getenv(ONLINE_BUDGET_VAR), &o->opt.budget_energy,
                                &o->opt.budget_time, &o->opt.horizon, bad, sizeof bad) &&
      p->talk)
    ergo__warn("%s; the default budget applies", bad);
  o->tail = &o->regions;
  p->priv = o;
  if (p->talk)
    ergo__info("online: each significant region searches for its setting in up to %d executions, "
               "then runs at its choice: up to %d steps for a region run once per step",
               o->opt.max_evals, o->opt.max_evals);
  return 0;
}

/* The region's optimiser, made at its first significant execution; NULL on
 * no memory (the region then inherits, as under monitor). */
static online_region *region_of(ergo__policy *p, ergo__region_state *r) {
  if (r->policy) return r->policy;
  online_priv *o = p->priv;
  online_region * or = calloc(1, sizeof * or);
  if (! or) return NULL;
  or->nm = ergo__nm_new(&o->grid, &p->objective, &o->opt);
  or->path = strdup(r->path);
  if (! or->nm || ! or->path) {
    ergo__nm_free(or->nm);
    free(or->path);
    free(or);
    return NULL;
  }
  or->first_step = p->steps;
  or->horizon_steps = o->opt.horizon;
  or->per_step = 1;
  *o->tail = or ;
  o->tail = & or->next;
  r->policy = or ;
  return or ;
}

/* The next point to measure, or the final choice once the search is over. */
static void next_point(online_region * or) {
  if (! or->asked) or->asked = ergo__nm_ask(or->nm, or->point);
}

static void measured(ergo__policy *p, online_region * or);
static void agg_sums(const online_region * or, const unsigned char *skip, double sum[4]);
static int restart(ergo__policy *p, online_region * or);

static void online_choose(ergo__policy *p, ergo__region_state *r, ergo__config *out) {
  online_region * or = region_of(p, r);
  memset(out, 0, sizeof *out);
  if (! or || ! or->nm) return;
  /* A step's first call: the last step's executions are one measurement, which decides this
   * step's config. */
  if (r->call == 0 && or->agg_open) measured(p, or);
  if (! or->nm) return;
  if (or->check_left > 0 && ergo__nm_done(or->nm)) {
    int pt[ERGO__NM_MAX_DIMS];
    if (or->probe_choice)
      ergo__nm_best(or->nm, pt, NULL, NULL);
    else
      ergo__nm_point(or->nm, 0, pt, NULL, NULL);
    config_of(&p->space, pt, out);
    or->chosen = 1;
    return;
  }
  /* Once the search is over its point is asked once per step (the budget's plan counts steps);
   * the step's later calls run where its first did. */
  if (!ergo__nm_done(or->nm) || r->call == 0 || or->point_step != p->steps) next_point(or);
  /* The baseline measured again during the search moved: the work changed under it. */
  if (ergo__nm_drifted(or->nm) && or->retunes < ONLINE_RETUNES && p->retune &&
                                        restart(p, or) == 0) {
    or->retunes++;
    or->retuned_at = p->steps;
    next_point(or);
  }
  or->point_step = p->steps;
  config_of(&p->space, or->point, out);
  or->chosen = 1;
}

/* The level of a block of measurements (log ratios v, weights w, n of them) that one stall in it
 * does not move: of three or more their weighted median, of fewer their weighted mean (a probe
 * of two that disagree is measured a third time first: see baseline_moved()).  The mean moved
 * 15 % for one execution 1.8x as long in four, and a stall every 7 steps started a search again
 * four times in 200 steps (a probe of two at the baseline, one of them stalled, by 29 %). */
static double block_level(const double *v, const double *w, int n) {
  if (n >= 3) return ergo__median_weighted(v, w, n);
  double a = 0, b = 0;
  for (int i = 0; i < n; i++) a += w[i] * v[i], b += w[i];
  return b > 0 ? a / b : 0;
}

/* A block of two measurements (v: log ratios of time, k of them) that disagree by more than
 * DRIFT: one stalled, or the work changed between them; a third tells which (their median). */
static int pair_split(const double *v, int k) { return k == 2 && fabs(v[0] - v[1]) > ONLINE_DRIFT; }

/* Measurement m (weight w) into a block (v: log ratios of time and energy to ref; *k of them
 * so far). */
static void block_add(double v[2][ONLINE_WATCH], double *bw, int *k, const ergo__measure *ref,
                      const ergo__measure *m, int w) {
  v[0][*k] = log(m->time_s / ref->time_s);
  v[1][*k] = ref->energy_j > 0 && m->energy_j > 0 ? log(m->energy_j / ref->energy_j) : 0;
  bw[(*k)++] = w;
}

/* The model's choice: its point, mean and measurements (0 when it was not measured). */
static void choice_stats(const ergo__nm *nm, int pt[ERGO__NM_MAX_DIMS], ergo__measure *mean,
                         int *n) {
  int q[ERGO__NM_MAX_DIMS];
  ergo__nm_best(nm, pt, NULL, NULL);
  *n = 0;
  for (int i = 0; ergo__nm_point(nm, i, q, mean, n); i++)
    if (!memcmp(q, pt, sizeof q)) return;
  *n = 0;
}

/* Whether the probe that starts now is of the model's choice: where the budget's plan runs
 * another point than the choice (one that pays the tuning's debt back, for the rest of the run),
 * and the choice is not the baseline, every other probe, judged against what the search measured
 * there.  The choice is what a later run applies, and a change of the work that leaves the plan's
 * config and the baseline alone can turn it (a child's serial work turned parallel: the plan at
 * the baseline's 17 threads ran as before, while the model's 4-thread choice, never run after the
 * search, took 3.98x the new baseline's time, random program 206 without a counter).  The probe
 * runs besides the budget's plan: it is probed only while the region's credit so far covers what
 * one execution there costs beyond the allowance, and what it cost goes into the ledger
 * (ergo__nm_charge()), paid back at the plan's payback point where that is cheaper than the
 * point it applies (probes without either put several tuning runs a few tenths of a per cent
 * further past monitor's time). */
static int probe_the_choice(const ergo__policy *p, online_region * or) {
  const online_priv *o = p->priv;
  int best[ERGO__NM_MAX_DIMS], base[ERGO__NM_MAX_DIMS], n;
  ergo__measure c, b;
  ergo__nm_point(or->nm, 0, base, &b, NULL);
  choice_stats(or->nm, best, &c, &n);
  if (!n || !memcmp(best, base, sizeof best) || !memcmp(best, or->point, sizeof best)) return 0;
  double debt[2], cost[2] = {c.time_s - (1 + o->opt.budget_time) * b.time_s,
                             c.energy_j - (1 + o->opt.budget_energy) * b.energy_j};
  int limited[2] = {o->opt.budget_time >= 0, o->opt.budget_energy >= 0 && b.energy_j > 0};
  ergo__nm_debt(or->nm, &debt[0], &debt[1]);
  for (int k = 0; k < 2; k++)
    if (limited[k] && debt[k] + fmax(cost[k], 0) > 0) return 0;
  return or->probe_turn ^= 1;
}

/* A check of `left` executions starts with the next: of the baseline, or (choice) of the choice;
 * the executions at the choice since the last one count from 0. */
static void start_check(online_region * or, int left, int choice) {
  or->check_left = left;
  or->probe_choice = choice;
  or->check_n = or->ck = 0;
  or->since_check = 0;
}

/* A probe of the baseline that follows one measurement at the choice off by ONLINE_GROSS, or
 * whose work per execution jumped by as much (see measure_one()), and is itself off what the
 * search measured at the baseline by ONLINE_GROSS (on the choice's side), in time or in energy
 * (med: the probe's log ratios): the work changed, decided at once, as two such measurements at
 * the choice are (gross_change()). */
static int gross_both(const online_region * or, const double med[2]) {
  if (! or->gross_probe) return 0;
  for (int k = 0; k < 2; k++) {
    int side = ergo__change_side(med[k], log(ONLINE_GROSS));
    if (side && (side == or->gross_side[k] || or->gross_probe == PROBE_JUMP)) return 1;
  }
  return 0;
}

/* Every objective: the choice's last block against the baseline just probed (ref: what the search
 * measured there, med: the probe's log ratios to it), the two measured a few steps apart on the
 * same work, by the objective (under energy@X%, by energy: its time is tested above).  Worse than
 * the baseline by more than ONLINE_PAYS_Z standard errors (1 % at least), twice in a row: the work
 * changed under the choice, and the search starts again.  The checks before need a quantity to
 * move by 10 % or 5 sigmas at one config: a memory-bound region whose phase changed at step 230 of
 * 320 ran on at its choice, 1.35x the new work's baseline time for 0.90x its energy under ED2P at
 * 7.8 % noise (random program 8284 without a counter; its run's final choice at 1.024x monitor's
 * ED2P, now below it), and a short child turned memory-bound left choices at 1.08x and 1.16x the
 * baseline's EDP and ED2P (`test_online_probe_sees_choice_no_longer_pays`, no noise; SIMULATED).
 * Two standard errors twice in a row: a choice no worse than the baseline passes a check with
 * 97.7 % probability, two in a row with 99.95 %. */
static int no_longer_pays(ergo__policy *p, online_region * or, const ergo__measure *ref,
                          const double med[2]) {
  online_priv *o = p->priv;
  ergo__objective obj = p->objective;
  if (obj.kind == ERGO__OBJ_ENERGY_BOUNDED) obj.kind = ERGO__OBJ_ENERGY;
  int needs_e =
      !(obj.kind == ERGO__OBJ_TIME || (obj.kind == ERGO__OBJ_WEIGHTED && obj.w_energy == 0));
  ergo__measure b = {ref->time_s * exp(med[0]), ref->energy_j * exp(med[1]), ref->resource},
                c = {exp(or->last_lt), isfinite(or->last_le) ? exp(or->last_le) : 0, or->last_r};
  if (!isfinite(b.time_s) ||
      (needs_e && !(b.energy_j > 0 && c.energy_j > 0 && isfinite(b.energy_j))))
    return 0;
  double d = ergo__objective_log_ratio(&obj, &c, &b);
  if (!isfinite(d)) return 0;
  double st = fmax(o->opt.noise_rel, ergo__nm_noise(or->nm, 0)),
         se = fmax(o->opt.noise_rel * M_SQRT2, ergo__nm_noise(or->nm, 1)),
         lim = fmax(0.01, ONLINE_PAYS_Z * ergo__objective_log_sigma(&obj, st, se) *
                              sqrt(1.0 / or->last_n + 1.0 / or->check_n));
  return ergo__change_twice(& or->pays_side, d > 0 ? d : 0, lim);
}

/* After the search: one execution of the baseline check under `applied` (or of the probe of the
 * choice: probe_the_choice()); 1 when the check is complete and the baseline's (the choice's)
 * time or energy per unit of work moved from what the search measured there (as drifted() judges a
 * block): the work changed during the search, whose baseline and configs then measured different
 * work (a phase that turned from memory- to compute-bound half way through a search, its configs
 * compared with the memory-bound baseline). */
static int baseline_moved(ergo__policy *p, online_region * or, const ergo__config *applied,
                          const ergo__measure *m, int w) {
  online_priv *o = p->priv;
  int pt[ERGO__NM_MAX_DIMS], n = 0;
  ergo__measure ref = {0, 0, 0};
  if (or->probe_choice)
    choice_stats(or->nm, pt, &ref, &n);
  else
    ergo__nm_point(or->nm, 0, pt, &ref, &n);
  if (!ran_at(&p->space, applied, pt) || !n || !(ref.time_s > 0) ||
      !(m->time_s > 0)) { /* ran under another config */
    or->check_left = 0;
    return 0;
  }
  if (or->ck < ONLINE_WATCH) block_add(or->check, or->check_w, & or->ck, &ref, m, w);
  or->check_n += w;
  if ((or->check_left -= w) > 0 && or->ck < ONLINE_WATCH) return 0;
  if (pair_split(or->check[0], or->ck)) {
    or->check_left = 1;
    return 0;
  }
  or->check_left = 0;
  double med[2] = {block_level(or->check[0], or->check_w, or->ck),
                   block_level(or->check[1], or->check_w, or->ck)};
  int moved = 0;
  for (int k = 0; k < 2; k++) {
    double d = med[k], sig = fmax(o->opt.noise_rel * (k ? M_SQRT2 : 1), ergo__nm_noise(or->nm, k)),
           lim = fmax(ONLINE_DRIFT, 5 * sig * sqrt(1.0 / or->check_n + 1.0 / n));
    moved |= fabs(d) > lim;
  }
  /* A check off on its first measurement is measured once more, be it of the choice or of the
   * baseline: one measurement can be a step's mean of many executions, and one stall among 8 of
   * them (an execution 1.5-2x as long) puts it 12 % off (random program 3068 at 2.3 % noise: a
   * region called 40 times per step, measured 16 + 16 + 8 at a time, restarted its search four
   * times on such checks, the last at the run's end, and was left at its baseline, 1.92x the
   * oracle's energy).  Two that disagree: a third tells which (pair_split(), above). */
  if (moved && or->ck == 1 && !gross_both(or, med)) {
    or->check_left = 1;
    return 0;
  }
  /* Under energy@X%: the choice's last block against the baseline just probed, the two measured
   * a few steps apart on the same work: past the bound by more than the noise allows, the choice
   * no longer keeps it (a change of the work too small for either to be called moved, a child
   * not tuned on its own that turned memory-bound, can take a config chosen at 1.04x to 1.08x). */
  if (!moved && ! or->probe_choice &&
      or->last_n > 0 && p->objective.kind == ERGO__OBJ_ENERGY_BOUNDED) {
    double sig = fmax(o->opt.noise_rel, ergo__nm_noise(or->nm, 0)), base = log(ref.time_s) + med[0],
           lim = log1p(p->objective.slowdown) +
                 fmax(0.01, 5 * sig * sqrt(1.0 / or->last_n + 1.0 / or->check_n));
    moved = or->last_lt - base > lim;
  }
  if (!moved && ! or->probe_choice && or->last_n > 0) moved = no_longer_pays(p, or, &ref, med);
  return moved;
}

/* The last two measurements after the search both off what the search measured (at their config)
 * by more than a factor ONLINE_GROSS, on the same side, in time or in energy: the work changed, and
 * two blocks are not waited for.  No noise and no stall (an execution 1.5-2x as long) is that far
 * twice in a row, and the wait is costly: a serial phase turned parallel ran at the one thread
 * chosen for it, 19x the new baseline's time, for the eight executions two blocks took, and the
 * tuning run took 1.13x the untuned run's time.  The two need not be in one block: a change whose
 * first measurement closed a block was seen only two measurements later, and a 5-thread choice ran
 * a phase turned parallel at 16x its new baseline's time for one step more (random program 1192:
 * its tuning run at 1.14x monitor's time, 1.11x now). */
static int gross_change(online_region * or) {
  int gross = 0;
  for (int k = 0; k < 2; k++)
    gross |= ergo__change_twice(& or->gross_side[k], or->watch[k][or->wk - 1], log(ONLINE_GROSS));
  if (gross) or->gross_side[0] = or->gross_side[1] = 0;
  return gross;
}

/* After the search: one more measurement under `applied` (the mean of w executions, weighed as
 * w); 1 when a block of ONLINE_WATCH executions or more says the region's work changed (a region
 * called several times per step watches a block in as few steps).  *gross: this measurement is
 * off what the search measured by ONLINE_GROSS (gross_change()), the first or the second. */
static int drifted(ergo__policy *p, online_region * or, const ergo__config *applied,
                   const ergo__measure *m, int w, int *gross) {
  online_priv *o = p->priv;
  *gross = 0;
  if (or->retunes >= ONLINE_RETUNES || !(m->time_s > 0)) return 0;
  int pt[ERGO__NM_MAX_DIMS], n = 0;
  ergo__measure ref = {0, 0, 0};
  for (int i = 0; ergo__nm_point(or->nm, i, pt, &ref, &n); i++) {
    if (ran_at(&p->space, applied, pt)) break;
    n = 0;
  }
  if (!n || !(ref.time_s > 0)) return 0; /* not a config the search measured */
  block_add(or->watch, or->watch_w, & or->wk, &ref, m, w);
  or->watch_n += w;
  if (gross_change(or)) {
    or->watch_n = or->wk = 0;
    or->side[0] = or->side[1] = 0;
    or->pays_side = 0;
    or->last_n = 0;
    *gross = 1;
    return 1;
  }
  *gross = or->gross_side[0] || or->gross_side[1];
  /* A block of two that disagree waits for a third, as the check does (pair_split()): one
   * measurement can be a step's mean of a few executions, which one stall moves by 25 % or more,
   * and the mean of two such put the two regions called twice per step past DRIFT 13 times in
   * 200 steps (random program 3068).  Two that agree (the work changed before both) decide at
   * once. */
  if ((or->watch_n < ONLINE_WATCH || pair_split(or->watch[0], or->wk)) && or->wk < ONLINE_WATCH)
    return 0;
  /* The block's (weighted) median, not its mean: one stall (an execution 1.8x as long) in a
   * block of four moved the mean by 15 %, and a stall every 7 steps started the search again
   * four times in 200 steps. */
  double med[2] = {block_level(or->watch[0], or->watch_w, or->wk),
                   block_level(or->watch[1], or->watch_w, or->wk)};
  /* The bound is the choice's to keep: a block run at a point that pays the tuning's debt back
   * first (the budget's plan, ergo__nm_applied) is no choice, and one 1.35x the baseline's time
   * started a search on steady work again. */
  int fin[ERGO__NM_MAX_DIMS];
  ergo__nm_best(or->nm, fin, NULL, NULL);
  int at_choice = !memcmp(fin, pt, sizeof fin);
  or->last_lt = log(ref.time_s) + med[0];
  or->last_le = ref.energy_j > 0 && isfinite(med[1]) ? log(ref.energy_j) + med[1] : NAN;
  or->last_r = ref.resource;
  or->last_n = at_choice ? or->watch_n : 0;
  int moved = 0;
  for (int k = 0; k < 2; k++) {
    double d = med[k], sig = fmax(o->opt.noise_rel * (k ? M_SQRT2 : 1), ergo__nm_noise(or->nm, k)),
           lim = fmax(ONLINE_DRIFT, 5 * sig * sqrt(1.0 / or->watch_n + 1.0 / n));
    moved |= ergo__change_twice(& or->side[k], d, lim);
  }
  or->watch_n = or->wk = 0;
  if (moved) or->side[0] = or->side[1] = 0;
  return moved;
}

/* The budget's horizon in measurements: its steps times the most measurements a step has had.
 * A measurement is one step's executions, so a region called several times per step is measured
 * once per step, but not every unit is: a region called more often than a split by the call in
 * the step allows is split by the call in its parent's execution, and each of those units is
 * measured once per execution of the parent, several times per step (as is a region called more
 * than ONLINE_MAX_CALLS times per step).  Counted in measurements, such a unit's 200-step horizon
 * ended a third of the way into the run and its choice ran unbounded for the rest: a unit at
 * 2.25x its baseline's time, the tuning run at 1.25x monitor's (random program 7043 without a
 * counter, under `energy`; SIMULATED). */
static int horizon_of(const online_region * or) {
  double h = (double) or->horizon_steps * or->per_step;
  return h < INT_MAX ? (int)h : INT_MAX;
}

/* One more measurement of the region at this step; the horizon follows the most per step (a run
 * that never calls ergo_step has no steps to count them in). */
static void count_measurement(ergo__policy *p, online_region * or) {
  if (p->steps <= 0) return;
  if (or->in_step_at != p->steps) or->in_step_at = p->steps, or->in_step = 0;
  if (++ or->in_step > or->per_step) {
    or->per_step = or->in_step;
    ergo__nm_set_horizon(or->nm, horizon_of(or));
  }
}

/* A measurement's relative noise in time, as the search knows it (the node's, or what the
 * repeats showed, if more). */
static double trend_sigma(const ergo__policy *p, const online_region * or) {
  return fmax(((const online_priv *)p->priv)->opt.noise_rel, ergo__nm_noise(or->nm, 0));
}

/* The region's search starts again, the old one dropped: it measured other work, and its choice
 * is no more the choice for the new work than the baseline is (a config chosen for a memory-bound
 * phase ran a compute-bound one at 2.5x its baseline's time).  Until the new search is over the
 * model has its best so far (the baseline, unless a config beats it as a search decides).  0, or
 * -1 on no memory (the region keeps its search). */
static int restart(ergo__policy *p, online_region * or) {
  /* The new search owes what the old one did: the budget holds over the region's run. */
  ergo__nm_options opt = ((online_priv *)p->priv)->opt;
  ergo__nm_debt(or->nm, &opt.debt_time, &opt.debt_energy);
  /* Where nothing measures the work: whether it ramps, from the baseline's trend; the new search
   * then compares each config with the baseline of its own step. */
  if (! or->work_seen) {
    double sig = trend_sigma(p, or);
    ergo__trend_decide(& or->trend, (double)p->steps, sig, ergo__trend_tol(sig));
  }
  if (or->trend.ramp && ! or->ramp_from) or->ramp_from = p->steps > 0 ? p->steps : 1;
  /* And what the choice cost on the new work before the change was seen, measured against the
   * new search's baseline: that search is the first to know the new work's (the old search's
   * ledger took those executions at its own baseline per unit of work, where the choice looked
   * 3.6x faster while running at 12x the new baseline's time). */
  opt.owed_time = or->owed[0];
  opt.owed_energy = or->owed[1];
  opt.owed_execs = or->owed_n;
  /* Not its credit: that is in seconds and joules per execution of the old work (scaled to the
   * region's first work), which can be many times the new work's, and let a new search run a
   * config at 2.5x its new baseline's time for the rest of the run. */
  opt.debt_time = fmax(opt.debt_time, 0);
  opt.debt_energy = fmax(opt.debt_energy, 0);
  /* Paid back within what is left of the region's first `horizon` steps, or two searches' worth
   * (of steps), if less is left; in measurements, as many per step as the region has had. */
  long left = (long)opt.horizon - (p->steps - or->first_step);
  or->horizon_steps = left > 2 * ONLINE_BUDGET ? left : 2 * ONLINE_BUDGET;
  opt.horizon = horizon_of(or);
  ergo__nm *fresh = ergo__nm_new(&((online_priv *)p->priv)->grid, &p->objective, &opt);
  if (!fresh) return -1;
  ergo__measure ob;
  ergo__nm_baseline(or->nm, &ob);
  if (ob.time_s > 0) or->old_base = ob; /* a search that measured nothing keeps the one before */
  ergo__nm_free(or->nm);
  or->nm = fresh;
  or->restarted = 1;
  or->asked = 0;
  or->watch_n = or->wk = 0;
  or->gross_side[0] = or->gross_side[1] = 0;
  or->gross_probe = or->owed_n = 0;
  or->owed[0] = or->owed[1] = 0;
  or->side[0] = or->side[1] = 0;
  or->pays_side = 0;
  or->checked = or->check_left = 0;
  or->probe_choice = or->probe_turn = 0;
  or->since_check = 0;
  or->last_n = 0;
  return 0;
}

/* One measurement (a step's executions, their mean m under `applied`; mixed: not all under it):
 * to the search, or once it is over to the checks that say whether the work changed. */
static void measure_one(ergo__policy *p, online_region * or, const ergo__config *applied,
                        const ergo__measure *m, int w, int mixed, int chosen) {
  count_measurement(p, or);
  /* The baseline's time at this step, for the trend (where nothing measures the work). */
  if (! or->work_seen && !mixed && p->steps > 0 &&
              ran_at(&p->space, applied, ((online_priv *)p->priv)->grid.start))
    ergo__trend_add(& or->trend, (double) or->agg_step, m->time_s * or->agg_w,
                    ergo__trend_tol(trend_sigma(p, or)));
  if (ergo__nm_done(or->nm)) {
    /* An execution that paid the tuning's debt back: measured into its point, and the budget's
     * plan made again on it (ergo__nm_tell_paid()). */
    if (!mixed && ran_at(&p->space, applied, or->point)) ergo__nm_tell_paid(or->nm, or->point, m);
    if (!p->retune || mixed) return; /* ERGO_RETUNE=off: never */
    /* The step's work per execution, relative to the region's first (1 where it is not known). */
    double all[4];
    agg_sums(or, NULL, all);
    double work = or->agg_n > 0 ? all[0] / or->agg_n : 1;
    if (! or->checked) { /* the search just ended: the baseline is checked from the next one */
      or->work_ref = work;
      or->checked = 1;
      start_check(or, or->retunes < ONLINE_RETUNES ? ONLINE_WATCH : 0, 0);
      return;
    }
    if (or->check_left > 0) {
      /* A probe of the choice runs besides the budget's plan: into its ledger, paid back at the
       * plan's payback point (probe_the_choice()). */
      if (or->probe_choice) ergo__nm_charge(or->nm, m);
      /* Its search mixed two works: neither it nor a search before it stands. */
      if (baseline_moved(p, or, applied, m, w) && restart(p, or) == 0) {
        or->retunes++;
        or->retuned_at = p->steps;
      }
      if (or->check_left <= 0) {
        /* A jump of the work the baseline did not follow: the work alternates between sizes
         * (or the counter misread once); jumps are decided on two in a row from now on. */
        if (or->gross_probe == PROBE_JUMP) or->jump_alternates = 1;
        or->gross_probe = 0;
      }
      return;
    }
    /* Counted in measurements: a probe is a whole step, however many calls it has.  At once where
     * the work per execution (as the node's counter or the code's hint measures it) is off what
     * it was when the search ended, or at the last such probe, by a factor ONLINE_GROSS or more,
     * on the same side, two measurements in a row: per unit of work the choice can run as before
     * while the baseline does not (a serial loop turned into a parallel one over 16x the elements
     * left a one-thread choice at 16x its new baseline's time until the next probe, 21 steps;
     * `test_online_work_jump_probes_baseline`).  Two, so that work that alternates between two
     * sizes from step to step does not probe at every step. */
    int jump = or->work_ref > 0 && work > 0 &&
                     /* nextafter: off by ONLINE_GROSS itself counts */
                     ergo__change_twice(& or->jump_side, log(work / or->work_ref),
                                        nextafter(log(ONLINE_GROSS), 0));
    int jumped = jump || or->jump_side != 0; /* this measurement's work, the first or second */
    if (jump) or->work_ref = work, or->jump_side = 0;
    if ((jump || ++ or->since_check >= ONLINE_PROBE_EVERY) && or->retunes < ONLINE_RETUNES) {
      /* the next ONLINE_PROBE measurements probe the baseline (or the choice) */
      start_check(or, ONLINE_PROBE, probe_the_choice(p, or));
    }
    int gross, moved = drifted(p, or, applied, m, w, &gross);
    if ((gross || jumped) && m->time_s > 0 && isfinite(m->time_s)) {
      /* (an execution without an energy reading owes no energy) */
      or->owed[0] += m->time_s;
      or->owed[1] += m->energy_j > 0 && isfinite(m->energy_j) ? m->energy_j : 0;
      or->owed_n++;
    } else {
      or->owed[0] = or->owed[1] = 0, or->owed_n = 0;
    }
    if (!moved) {
      /* One measurement at the choice off what the search measured there by ONLINE_GROSS, or
       * whose work per execution is: the next execution is of the baseline, not of the choice
       * again.  A phase turned parallel ran at the choice's 5 threads at 12x its new baseline's
       * time, and the second such step put a 200-step tuning run at 1.144x the untuned run's
       * time (random program 108); a stall is not that far, and an outlier that is costs one
       * execution at the baseline.  Work that alternates between sizes is probed once. */
      int why = gross ? PROBE_GROSS : jumped && ! or->jump_alternates ? PROBE_JUMP : 0;
      if (why && or->check_left <= 0 && or->retunes < ONLINE_RETUNES) {
        start_check(or, 1, 0);
        or->gross_probe = why;
      }
      return;
    }
    if (restart(p, or) == 0) {
      or->retunes++;
      or->retuned_at = p->steps;
    }
    return;
  }
  next_point(or);
  if (! or->asked) return;
  if (!mixed && ran_at(&p->space, applied, or->point)) {
    if (ergo__nm_tell(or->nm, or->point, m) == 0) or->asked = 0;
    or->mismatches = 0;
  } else if (chosen && ++ or->mismatches >= ONLINE_MISMATCHES) {
    ergo__warn("online: region '%s' ran %d times in a row under another config than the one "
               "chosen (a knob refused it, or an enclosing region's config); it is no longer "
               "tuned and inherits",
               or->path, ONLINE_MISMATCHES);
    ergo__nm_free(or->nm);
    or->nm = NULL;
  }
}

/* The step's executions gathered so far: the sum of their work (sum[0]) and of their time,
 * energy and resource per work weighed by it (sum[1..3]), those marked in `skip` left out
 * (NULL: none). */
static void agg_sums(const online_region * or, const unsigned char *skip, double sum[4]) {
  sum[0] = sum[1] = sum[2] = sum[3] = 0;
  for (int i = 0; i < or->agg_n; i++) {
    if (skip && skip[i]) continue;
    const double *x = or->agg_x[i];
    sum[0] += x[0];
    for (int k = 1; k < 4; k++) sum[k] += x[0] * x[k];
  }
}

/* The stalls among the step's executions gathered so far, marked in `stall`: of four or more,
 * those whose time per unit of work is off the median of them, on the slow side, by more than an
 * outlier's threshold (optimizer/robust.h: ERGO__ROBUST_SIGMAS of the noise, at least
 * ERGO__ROBUST_MIN), at most a quarter of them (more would be a change of the work, not stalls).
 * One measurement is the mean of up to ONLINE_MAX_CALLS executions, and one stall (1.5-2x as
 * long) among 8 put it 12 % off: the checks after the search called that a change of the work
 * (see baseline_moved()), and a region called 40 times per step at 2.3 % noise started its search
 * again four times (random program 3068). */
static void mark_stalls(const ergo__policy *p, const online_region * or, unsigned char *stall) {
  const online_priv *o = p->priv;
  int n = or->agg_n, off = 0;
  if (n < 4) return;
  double lt[ONLINE_MAX_CALLS];
  for (int i = 0; i < n; i++) lt[i] = or->agg_x[i][1] > 0 ? log(or->agg_x[i][1]) : 0;
  double med = ergo__median_small(lt, n),
         lim = fmax(ERGO__ROBUST_MIN,
                    ERGO__ROBUST_SIGMAS * fmax(o->opt.noise_rel, ergo__nm_noise(or->nm, 0)));
  for (int i = 0; i < n; i++) off += stall[i] = lt[i] - med > lim;
  if (off > n / 4) memset(stall, 0, (size_t)n);
}

/* The step's executions gathered so far are one measurement: their mean, stalls set aside. */
static void measured(ergo__policy *p, online_region * or) {
  if (! or->agg_open) return;
  or->agg_open = 0;
  if (! or->agg_n) return;
  /* The step's time and energy over its work, scaled to the region's first work as each of them
   * is (a mean of per-work figures would weigh a small call as much as a large one). */
  unsigned char stall[ONLINE_MAX_CALLS] = {0};
  double sum[4];
  mark_stalls(p, or, stall);
  agg_sums(or, stall, sum);
  ergo__measure m = {sum[1] / sum[0], sum[2] / sum[0], sum[3] / sum[0]};
  /* Nothing measured the work: per unit of the baseline's trend, 1 but on a ramp. */
  or->agg_w = ! or->work_seen && p->steps > 0 ? ergo__trend_work(& or->trend, or->agg_step) : 1;
  m.time_s /= or->agg_w;
  m.energy_j /= or->agg_w;
  measure_one(p, or, & or->agg_cfg, &m, or->agg_n, or->agg_mixed, or->agg_chosen);
}

/* An execution's measurement: gathered with the others of its step (see agg_open), from the
 * step's first call; calls of a step whose first call was not observed (the region became
 * significant in the middle of it) measure nothing. */
static void online_observe(ergo__policy *p, ergo__region_state *r, const ergo__config *applied,
                           const ergo__measure *m) {
  online_region * or = region_of(p, r);
  if (! or || ! or->nm) return;
  or->execs++;
  int chosen = or->chosen;
  or->chosen = 0;
  if (r->call == 0 && or->agg_open) measured(p, or); /* its choose was skipped */
  if (! or->nm) return;
  if (! or->agg_open) {
    if (r->call > 0 && r->call < ONLINE_MAX_CALLS) return;
    or->agg_open = 1;
    or->agg_step = p->steps;
    or->agg_n = or->agg_mixed = 0;
    or->agg_cfg = *applied;
    or->agg_chosen = chosen;
  } else if (memcmp(& or->agg_cfg, applied, sizeof *applied) != 0) {
    or->agg_mixed = 1;
  }
  double *x = or->agg_x[or->agg_n++]; /* fewer than ONLINE_MAX_CALLS: measured at that many */
  x[0] = r->work > 0 && isfinite(r->work) ? r->work : 1;
  or->work_seen |= r->work_src != ERGO__WORK_NONE;
  x[1] = m->time_s, x[2] = m->energy_j, x[3] = m->resource;
  /* Too many calls in one step to wait for its end: measured now; one execution at a time past
   * that many calls before the first ergo_step (a run that never calls it). */
  if (or->agg_n >= (p->steps == 0 && r->call >= ONLINE_MAX_CALLS ? 1 : ONLINE_MAX_CALLS))
    measured(p, or);
}

/* One region's model entry: its choice, the baseline, every config measured
 * (the Pareto set first).  0, 1 when nothing was measured, or ERGO_ENOMEM. */
static int region_model(const ergo__policy *p, ergo__model *m, const online_region * or) {
  ergo__measure mean;
  int point[ERGO__NM_MAX_DIMS], n;
  /* A restarted search not over yet: its best so far (the last one measured other work). */
  const ergo__nm *nm = or->nm;
  /* Once measured (a region that ran once) is its baseline alone: not tuned, no entry. */
  if (!nm || or->execs <= 1) return 1;
  /* A search started again that has measured nothing yet (the run ended right after its work
   * changed) is at the baseline: the old choice was for other work, and without an entry the
   * region would inherit its parent's setting (random program 3059: a region at 8.2x its
   * baseline's time under static, the parent's 3 threads on its grown parallel work). */
  int none = ergo__nm_evals(nm) == 0;
  if (none && ! or->restarted) return 1;
  /* A search started again that the run's end cut short, under a slowdown bound: the baseline.
   * It started because the work was changing, and its points, each measured once on the work of
   * its own step, were compared with a baseline measured on earlier work: a region whose work
   * shrank to 0.11x over the last third of the run had its best so far at 1.59x its baseline's
   * time on the work as it ended (random program 3014 without a counter, no noise).  (With noise
   * every search cut short under such a bound has the baseline, optimizer/nm.c, choose(), but one
   * whose confirmation passed on the pairs it had: ergo__nm_end() ended that search.) */
  int cut = or->restarted && !ergo__nm_done(nm) && p->objective.kind == ERGO__OBJ_ENERGY_BOUNDED;
  ergo__model_region *mr = ergo__model_region_add(m, or->path);
  if (!mr) return ERGO_ENOMEM;
  if (none || cut)
    ergo__nm_point(nm, 0, point, NULL, NULL);
  else
    ergo__nm_best(nm, point, NULL, NULL);
  config_of(&p->space, point, &mr->best);
  ergo__nm_baseline(nm, &mr->baseline);
  /* The old search's baseline, for its time: static presets a region the model timed. */
  if (none) mr->baseline = or->old_base;
  for (int i = 0; ergo__nm_point(nm, i, point, &mean, &n); i++) {
    ergo__config c;
    config_of(&p->space, point, &c);
    if (n && ergo__model_point_add(mr, &c, mean.time_s, mean.energy_j, n)) return ERGO_ENOMEM;
  }
  ergo__model_pareto(mr);
  return 0;
}

/* The model of every region tuned so far (a search cut short has its best so far); *unfinished
 * counts the regions whose search is not over, *first the first of them.  0, or ERGO_ENOMEM. */
static int build_model(ergo__policy *p, ergo__model *m, int *unfinished,
                       const online_region **first) {
  online_priv *o = p->priv;
  memset(m, 0, sizeof *m);
  snprintf(m->policy, sizeof m->policy, "online");
  ergo__objective_name(&p->objective, m->objective, sizeof m->objective);
  snprintf(m->platform, sizeof m->platform, "%s", p->sim ? "sim" : "real");
  m->steps = p->steps;
  *unfinished = 0;
  *first = NULL;
  for (const online_region * or = o->regions; or ; or = or->next) {
    if (region_model(p, m, or) < 0) return ERGO_ENOMEM;
    /* A region that ran once is the tuner's to name: more steps would not help it. */
    if (or->nm && ! or->restarted && !ergo__nm_done(or->nm) && or->execs > 1 && !(*unfinished)++)
      *first = or ;
  }
  if (!p->metered) ergo__model_no_energy(m); /* its 0 J were never measured */
  return 0;
}

/* During the run: the model so far, marked partial. */
static int online_save(ergo__policy *p) {
  ergo__model m;
  int unfinished;
  const online_region *first;
  int rc = build_model(p, &m, &unfinished, &first);
  m.partial = 1;
  /* Nothing tuned yet: an empty model would replace the file, perhaps a good model. */
  if (!rc && m.nregions)
    rc = ergo__model_save(p->cfg->model ? p->cfg->model : ONLINE_DEFAULT_MODEL, &m, &p->space);
  ergo__model_free(&m);
  return rc;
}

/* After the summary: what the budget did to this run (the model keeps each region's choice,
 * for a later run under static; this run kept its own cost within the budget). */
static void budget_said(ergo__policy *p) {
  online_priv *o = p->priv;
  if (!p->talk || (o->opt.budget_time < 0 && o->opt.budget_energy < 0)) return;
  int over = 0, differ = 0, skipped = 0;
  const online_region *first_over = NULL, *first_differ = NULL;
  for (const online_region * or = o->regions; or ; or = or->next) {
    if (! or->nm || or->execs <= 1) continue;
    skipped += ergo__nm_skipped(or->nm);
    if (ergo__nm_over_budget(or->nm) && !over++) first_over = or ;
    if (ergo__nm_done(or->nm) && ergo__nm_applied(or->nm, NULL) && !differ++) first_differ = or ;
  }
  char lim[96];
  snprintf(lim, sizeof lim, "energy at most %.2fx and time at most %.2fx the untuned run's",
           1 + (o->opt.budget_energy < 0 ? INFINITY : o->opt.budget_energy),
           1 + (o->opt.budget_time < 0 ? INFINITY : o->opt.budget_time));
  if (!over && !differ && !skipped) return;
  ergo__info("online: the tuning run kept within %s=%s (%s over each region's first %d "
             "steps): %d config%s not tried for %s cost, %d region%s stopped exploring early"
             "%s%s%s",
             ONLINE_BUDGET_VAR, getenv(ONLINE_BUDGET_VAR) ? getenv(ONLINE_BUDGET_VAR) : "default",
             lim, o->opt.horizon, skipped, skipped == 1 ? "" : "s", skipped == 1 ? "its" : "their",
             over, over == 1 ? "" : "s", over ? " (first: '" : "", over ? first_over->path : "",
             over ? "')" : "");
  if (differ) {
    int pt[ERGO__NM_MAX_DIMS];
    ergo__config c;
    char set[256];
    ergo__nm_applied(first_differ->nm, pt);
    config_of(&p->space, pt, &c);
    ergo__summary_setting(&c, set, sizeof set);
    ergo__info("online: %d region%s ran at a setting within the budget rather than the model's "
               "choice, which a run under ERGO_POLICY=static applies (first: '%s' at %s)",
               differ, differ == 1 ? "" : "s", first_differ->path, set);
  }
}

static int online_finish(ergo__policy *p) {
  ergo__model m;
  int unfinished, passed = 0;
  const online_region *first, *first_passed = NULL;
  /* The run is over: a confirmation it cut short is judged on what it measured (a passed one ends
   * its search). */
  for (const online_region * or = ((online_priv *)p->priv)->regions; or ; or = or->next)
    if (or->nm && ergo__nm_end(or->nm) && !passed++) first_passed = or ;
  int rc = build_model(p, &m, &unfinished, &first);
  const char *path = p->cfg->model ? p->cfg->model : ONLINE_DEFAULT_MODEL;
  int written = 0;
  if (rc < 0)
    ergo__error("online: out of memory while building the tuning model; '%s' not written", path);
  else if (!m.nregions)
    ; /* no region tuned: nothing replaces the file (said below) */
  else if ((rc = ergo__model_save(path, &m, &p->space)) == 0)
    written = 1;
  else {
    /* A file not written: the writer said why, with its cause (ENOENT, EACCES, ...). */
    if (rc != ERGO_EIO)
      ergo__error("online: the tuning model could not be written to '%s': %s (fix: set ERGO_MODEL "
                  "to a writable path)",
                  path, ergo_strerror(rc));
    ergo__model_save_fallback(path, &m, &p->space);
  }
  /* A search cut short still has a choice (the best that beat the baseline
   * with confidence so far, else the baseline; under a slowdown bound with noise the baseline,
   * as a time bound is never taken unconfirmed): say so once. */
  if (unfinished && !p->said)
    ergo__warn("online: %d region%s did not converge (first: '%s', after %d executions); the "
               "model keeps %s (fix: run more steps)",
               unfinished, unfinished == 1 ? "" : "s", first->path, ergo__nm_evals(first->nm),
               p->objective.kind == ERGO__OBJ_ENERGY_BOUNDED &&
                       ((online_priv *)p->priv)->opt.confirm
                   ? "the baseline there, as a slowdown bound is taken only on a confirmed config"
                   : "the best config found so far");
  if (passed && p->talk)
    ergo__info("online: the run ended during %d %s confirmation of a choice (measured in "
               "turn with the baseline); on the measurements taken it passed at the confirmation's "
               "confidence, and the model has it (first: '%s')",
               passed, passed == 1 ? "region's" : "regions'", first_passed->path);
  /* A search started again that the run's end cut short: which regions, and what the model has
   * for them (region_model()), since the line on searches started again cannot say. */
  int open = 0, blind = 0;
  const online_region *first_open = NULL;
  for (const online_region * or = ((online_priv *)p->priv)->regions; or ; or = or->next)
    if (or->nm && or->restarted && !ergo__nm_done(or->nm) && or->execs > 1 &&
        or->retunes < ONLINE_RETUNES) { /* one that started again as often as allowed: below */
      if (!open++) first_open = or ;
      blind += ! or->work_seen;
    }
  if (open) {
    int bounded = p->objective.kind == ERGO__OBJ_ENERGY_BOUNDED; /* as region_model() has it */
    ergo__warn("online: %d region%s whose work changed did not end %s search started again "
               "before the run did (first: '%s', %d of up to %d executions into it); the model "
               "has %s (fix: run more steps%s)",
               open, open == 1 ? "" : "s", open == 1 ? "its" : "their", first_open->path,
               ergo__nm_evals(first_open->nm), ((online_priv *)p->priv)->opt.max_evals,
               bounded ? "the baseline there, as under a slowdown bound a search cut short is not "
                         "taken"
                       : "the best config the new search found so far (the baseline unless one "
                         "beat it with confidence)",
               blind ? ERGO__WORK_HINT_FIX : "");
  }
  char tail[1100];
  snprintf(tail, sizeof tail, "tuning model written to %s", path);
  ergo__summary_print(&m, NULL, written ? tail : NULL);
  if (!m.nregions && rc >= 0) ergo__model_not_written("online", path);
  ergo__model_free(&m);
  budget_said(p);
  int retuned = 0;
  const online_region *first_re = NULL;
  for (const online_region * or = ((online_priv *)p->priv)->regions; or ; or = or->next)
    if (or->retunes && !retuned++) first_re = or ;
  char at[48] = "";
  if (retuned && first_re->retuned_at > 0)
    snprintf(at, sizeof at, ", last at step %ld", first_re->retuned_at);
  /* A region whose search started again as often as allowed: its work kept changing.  Without a
   * measure of its work, work that changes otherwise than along a line (a ramp is followed by the
   * baseline's trend, policies/trend.h) looks like one change after another: the hint is the
   * fix. */
  int worn = 0, worn_blind = 0;
  const online_region *first_worn = NULL;
  for (const online_region * or = ((online_priv *)p->priv)->regions; or ; or = or->next)
    if (or->retunes >= ONLINE_RETUNES && or->nm) {
      if (!worn++) first_worn = or ;
      worn_blind += ! or->work_seen;
    }
  if (worn) {
    int pt[ERGO__NM_MAX_DIMS], base[ERGO__NM_MAX_DIMS];
    ergo__nm_best(first_worn->nm, pt, NULL, NULL);
    ergo__nm_point(first_worn->nm, 0, base, NULL, NULL);
    /* What the model has (region_model()): under a slowdown bound a search not over has the
     * baseline. */
    int done = ergo__nm_done(first_worn->nm),
        at_base = !memcmp(pt, base, sizeof pt) ||
                  (!done && p->objective.kind == ERGO__OBJ_ENERGY_BOUNDED);
    ergo__warn("online: %d region%s kept changing %s work: %s search started again %d times, the "
               "most allowed (first: '%s', left at %s) (fix: %s)",
               worn, worn == 1 ? "" : "s", worn == 1 ? "its" : "their", worn == 1 ? "its" : "their",
               ONLINE_RETUNES, first_worn->path,
               at_base ? "its baseline"
               : done  ? "the last search's choice"
                       : "the last search's best so far",
               worn_blind ? "call ergo_region_work(units) in it with each execution's work, so "
                            "configs are compared per unit of work and work that grows is no "
                            "change; or set ERGO_WORK=instructions where the node counts them"
                          : "run more steps, or tune each phase of the work in a run of its own");
  }
  if (retuned && p->talk)
    ergo__info("online: %d region%s measured differently at %s chosen config after %s search "
               "(the work changed), so %s search started again (first: '%s', %d time%s%s); the "
               "model has the last search's choice, or its best so far where it is not over",
               retuned, retuned == 1 ? "" : "s", retuned == 1 ? "its" : "their",
               retuned == 1 ? "its" : "their", retuned == 1 ? "its" : "their", first_re->path,
               first_re->retunes, first_re->retunes == 1 ? "" : "s", at);
  /* Regions followed along the baseline's trend: said, since the comparison then rests on the
   * work scaling as the baseline's time does, which the hint would not need. */
  int ramped = 0;
  const online_region *first_ramp = NULL;
  for (const online_region * or = ((online_priv *)p->priv)->regions; or ; or = or->next)
    if (or->ramp_from && !ramped++) first_ramp = or ;
  if (ramped && p->talk)
    ergo__info("online: %d region%s work ramped with nothing measuring it, so from the step it "
               "was seen (first: '%s', step %ld) each config was compared with the baseline's "
               "trend at its own step (ergo_region_work(units) in it would measure the work "
               "exactly)",
               ramped, ramped == 1 ? "'s" : "s'", first_ramp->path, first_ramp->ramp_from);
  return rc < 0 ? rc : 0;
}

static void online_stop(ergo__policy *p) {
  online_priv *o = p->priv;
  if (!o) return;
  while (o->regions) {
    online_region *next = o->regions->next;
    ergo__nm_free(o->regions->nm);
    free(o->regions->path);
    free(o->regions);
    o->regions = next;
  }
  free(o);
  p->priv = NULL;
}

/* "2 of 13 regions converged, 364 executions left at most, about 28 steps to go". */
static int online_progress(ergo__policy *p, char *buf, size_t len) {
  online_priv *o = p->priv;
  int n = 0, done = 0;
  long left = 0, steps = 0;
  for (const online_region * or = o->regions; or ; or = or->next) {
    n++;
    if (! or->nm || ergo__nm_done(or->nm)) {
      done++;
      continue;
    }
    /* The step's executions gathered so far are a measurement, to be told at the next step. */
    int evals = ergo__nm_evals(or->nm) + (or->agg_open && or->agg_n > 0);
    long l = o->opt.max_evals > evals ? o->opt.max_evals - evals : 1; /* it may end early */
    left += l;
    long ran = p->steps - or->first_step;
    if (ran > 0 && or->execs > 0) { /* a measurement per step, or per ONLINE_MAX_CALLS calls */
      double per = ceil((double) or->execs / (double)ran / ONLINE_MAX_CALLS);
      long st = (long)((double)l / per + 0.999);
      if (st > steps) steps = st;
    }
  }
  if (!n) return 0;
  int w = snprintf(buf, len, "%d of %d region%s converged, %ld execution%s left at most", done, n,
                   n == 1 ? "" : "s", left, left == 1 ? "" : "s");
  if (steps && w > 0 && (size_t)w < len)
    snprintf(buf + w, len - (size_t)w, ", about %ld step%s to go", steps, steps == 1 ? "" : "s");
  return 1;
}

/* The live view: the best so far, the measurements used of the budget. */
static int online_inspect(ergo__policy *p, ergo__region_state *r, ergo__policy_view *v) {
  const online_region * or = r->policy;
  if (! or || ! or->nm) return 0;
  int point[ERGO__NM_MAX_DIMS], start[ERGO__NM_MAX_DIMS];
  ergo__nm_best(or->nm, point, NULL, NULL);
  config_of(&p->space, point, &v->best);
  v->evals = ergo__nm_evals(or->nm);
  online_priv *o = p->priv;
  v->budget = o->opt.max_evals;
  v->done = ergo__nm_done(or->nm);
  memcpy(start, o->grid.start, sizeof start);
  /* The search keeps the baseline unless a point beats it with that confidence. */
  v->confidence =
      memcmp(point, start, sizeof(int) * (size_t)o->grid.dims) ? ERGO__NM_CONFIDENCE : 0.0;
  return 1;
}

/* A new objective during the run: each region's search starts again under it, and every
 * measurement the old search made answers the new one's asks (as often as it was measured)
 * until the new search asks for a point not measured yet, which the region's next executions
 * measure.  The budget counts the replayed measurements, so a region does not search twice. */
static void online_reobjective(ergo__policy *p) {
  online_priv *o = p->priv;
  for (online_region * or = o->regions; or ; or = or->next) {
    if (! or->nm) continue;
    ergo__nm *old = or->nm, *nw = ergo__nm_new(&o->grid, &p->objective, &o->opt);
    if (!nw) continue; /* no memory: the old search goes on under the old objective */
    int np = ergo__nm_points(old) + 1; /* with the baseline, measured or not */
    int *used = calloc((size_t)(np > 0 ? np : 1), sizeof *used);
    int pt[ERGO__NM_MAX_DIMS], q[ERGO__NM_MAX_DIMS];
    while (used && ergo__nm_ask(nw, pt)) {
      ergo__measure mean;
      int n, i, told = 0;
      for (i = 0; ergo__nm_point(old, i, q, &mean, &n); i++)
        if (!memcmp(q, pt, sizeof(int) * (size_t)o->grid.dims) && used[i] < n) {
          told = ergo__nm_tell(nw, pt, &mean) == 0;
          used[i] += told;
          break;
        }
      if (!told) break;
    }
    free(used);
    ergo__nm_free(old);
    or->nm = nw;
    or->asked = 0; /* asked again at the next choice: the new search's point */
    or->chosen = 0;
    or->mismatches = 0;
  }
}

const ergo__policy_ops ergo__policy_online = {
    "online",        online_start, online_choose, online_observe, online_finish,     online_stop,
    online_progress, NULL,         online_save,   online_inspect, online_reobjective};
