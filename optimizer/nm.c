/* nm.c - online Nelder-Mead over a discrete grid: GSL's nmsimplex2 runs in a coroutine and its
 * f(x) hands the rounded grid point out through ask() and returns what tell() brings back. */
/*
 * The search.  Exact measurements: the baseline, then a simplex from it with
 * steps of half the range (threads on a log scale, so small thread counts are
 * near), then restarts from the best point with ever smaller simplices, until
 * one collapses onto a grid point with nothing new or the budget is spent;
 * the choice is the best point measured (the baseline unless one is better).
 *
 * Noisy measurements (SIM.md: with sigma 0.05 one measurement misleads): the
 * baseline `repeats` times; the simplex on single measurements; a first
 * restart reaching to the grid's edge on the side a response surface of all
 * points says is downhill (nm_model.h); then the points that decide - the
 * surface's best near the incumbent and the best few candidates - get fresh
 * measurements, free of the luck that made them candidates; while none is
 * decided, the best undecided one and the baseline are measured in turn.  The
 * choice is the best by the surface among candidates whose fresh measurements
 * are better than the baseline with CONFIDENCE (a t bound on the log ratio of
 * the objective; under energy@X% also on the time ratio's upper end); else the
 * baseline (AllScale's optimiser ended worse than untuned: ../shared/seeds/003,
 * section 4.2).
 */
#include "optimizer/nm.h"

#include "ergo.h"
#include "optimizer/nm_model.h"
#include "optimizer/robust.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_vector.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define D ERGO__NM_MAX_DIMS
/* GSL's iterate needs a few hundred bytes of stack; the rest is margin for
 * sanitizers, which grow every frame. */
#define STACK_BYTES (128 * 1024)
/* Nelder-Mead iterations per run at most: iterations over memoised points
 * cost no execution, so this only bounds the CPU one ask() may spend. */
#define MAX_ITER 400
/* Iterations in a row without a new grid point after which a run is over:
 * the simplex cycles among known points that rounding keeps apart. */
#define STALL 12
/* Slope of the search's slowdown penalty: 1 % over the bound costs 10 % of
 * the baseline's energy, more than any 1 % of time buys, yet the simplex can
 * follow the bound (where the best points lie) instead of falling off a cliff. */
#define PENALTY 10.0
/* With noise the search calls a point too slow only beyond this many sigmas
 * of its measured time: one slow measurement must not hide a good region. */
#define SLACK 1.0
/* With noise: candidates confirmed at the end, the extra baseline
 * measurements taken then (the baseline is every comparison's other side),
 * and points the response surface may propose. */
#define DECIDERS 3
#define BASE_EXTRA 2
#define PROPOSALS 6
/* A proposal lies within TRUST of the incumbent and at most EXTRA beyond the
 * measured points' box (coordinate units, each dimension spanning 0..1). */
#define TRUST 0.35
#define EXTRA 0.25
/* A candidate is chosen over the baseline only when the one-sided upper
 * confidence bound (CONFIDENCE, Student's t) on the log ratio of its objective
 * to the baseline's is below 0, and under energy@X% when the same bound on its
 * time ratio is within 1 + X. */
#define CONFIDENCE ERGO__NM_CONFIDENCE
/* The plan run once the search is over keeps this share of the horizon's baseline time and
 * energy in hand (see ledger_of). */
#define MARGIN 0.005
/* With noise: executions kept from the simplex for settling an undecided
 * comparison (the leader and the baseline measured in turn). */
#define SETTLE 16
#define SETTLE_RANKS 8
/* Each dimension of the response surface's grid scan takes this many levels
 * at most, so one ask() stays cheap on a node with thousands of configs. */
#define SCAN_LEVELS 24

/* Sums of a point's measurements, so its mean sharpens with repeats; sums of
 * logs for the noise estimate and the response surface.  Of the measurements that are not
 * outliers (optimizer/robust.h); runs, run_t and run_e count every execution, outliers
 * included: what was handed out (the schedule counts these) and what it cost (the budget's
 * ledger charges it: the user paid for it). */
typedef struct sums {
  int n;
  double t, e, r, lt, lt2, le, le2;
  double lx[2], lx2[2]; /* log(E T) and log(E T^2): EDP and ED2P, whose noise is not E's */
  int runs;
  double run_t, run_e;
} sums;

/* Which sums a measurement went to (its tag, one bit each): a point's all, fresh and conf, and
 * nm->base_conf (the baseline's). */
enum { TAG_ALL = 1, TAG_FRESH = 2, TAG_CONF = 4, TAG_BASE_CONF = 8 };

/* One grid point measured: every measurement, and those taken once it was a
 * candidate (fresh: free of the luck that made it one). */
typedef struct rec {
  int p[D];
  sums all, fresh;
  sums conf;    /* its confirmation's measurements (see ERGO__NM_CONFIRM) */
  int rejected; /* its confirmation failed, or could not be afforded */
  int paid; /* of its measurements, those taken as the budget's payback point (after the search) */
  /* Per measurement in nm->ml (same index): its TAG_* bits.  unlisted: out of memory a
   * measurement could not be kept in the list, whose sums are then never rebuilt from it (each
   * measurement is added to them as it comes, outliers included). */
  unsigned char *tag;
  int tcap, unlisted;
} rec;

struct ergo__nm {
  ergo__nm_grid g;
  ergo__nm_options o;
  ergo__objective obj;
  int act[D], nact; /* the searched dimensions */
  int noisy;        /* noise_rel > 0 or repeats > 1 */

  rec *memo; /* memo[0] is the baseline; at most max_evals + 1 distinct points */
  int nmemo, cap;
  int evals;
  int search_limit; /* evals the simplex may use; the rest confirms */
  int deciding;     /* measurements now are fresh */
  int decide_limit; /* evals the search and the selection may use; the rest confirms */

  /* The confirmation (see ERGO__NM_CONFIRM): the candidate being confirmed (index into memo,
   * 0 none), the baseline's measurements taken alongside it, the outcome. */
  int confirming, confirmed, confirm_over;
  sums base_conf;

  /* Outliers (optimizer/robust.h): per memo entry, every measurement in order (the sums are
   * rebuilt from those that are not outliers); the thresholds, log time and log energy; the last
   * measurement told. */
  ergo__mlist *ml;
  double thr[2];
  ergo__measure last;

  int asked, want[D]; /* a point handed out, not yet told */
  int done, final;    /* final: index into memo */
  int starved;        /* the simplex wanted a new point with no budget left */
  int since_base;     /* measurements of other points since the baseline's last */
  int drifted;        /* the baseline measured again moved: the search is over (base_every) */
  double check_sig;   /* the time sigma the last check that saw no move was judged by (0: none) */
  double inside;      /* compute_inside() as of the last measurement */

  ergo__nm_model mod;
  ergo__nm_sample *samples; /* scratch for fitting, cap entries */

  /* The budget (see ERGO__NM_BUDGET): a surface fitted to every point for predicting what a
   * new point costs (refitted when new points came), and what the budget did. */
  ergo__nm_model cost;
  int cost_points;        /* nmemo when cost was fitted */
  int over;               /* the budget ended the search */
  int skipped;            /* points not measured because they could not be paid back */
  int applied;            /* once done: the point the region runs at (index into memo) */
  int pay, pay_n;         /* before it: pay_n executions at memo[pay], to pay the debt back */
  int post_pay, post_app; /* executions handed out since: at memo[pay], at memo[applied] */
  int handed_pay;         /* the last point ask() handed out once done was memo[pay] */
  /* What the executions after the search cost before the plan was last made again
   * (ergo__nm_tell_paid()), and how many they were. */
  double post_debt[2];
  int post_execs;
  double charged[2]; /* probes' excess over the allowance, not paid back yet (ergo__nm_charge) */
  double charged_all[2]; /* all of it, paid or not */

  ucontext_t caller, co;
  void *stack;

  gsl_multimin_fminimizer *s;
  gsl_vector *x, *step;
  gsl_multimin_function fn;
};

void ergo__nm_options_default(ergo__nm_options *o) {
  o->max_evals = 40;
  o->repeats = 1;
  o->noise_rel = 0;
  o->confirm = 0;
  o->seed = 0;
  o->budget_time = -1;
  o->budget_energy = -1;
  o->horizon = 200;
  o->debt_time = 0;
  o->debt_energy = 0;
  o->owed_time = 0;
  o->owed_energy = 0;
  o->owed_execs = 0;
  o->base_every = 0;
}

/* ---- memo ---- */

static int same(const int *a, const int *b) {
  for (int d = 0; d < D; d++)
    if (a[d] != b[d]) return 0;
  return 1;
}

static rec *find(const ergo__nm *nm, const int p[D]) {
  for (int i = 0; i < nm->nmemo; i++)
    if (same(nm->memo[i].p, p)) return &nm->memo[i];
  return NULL;
}

/* One execution counted in s's runs (what it cost), outlier or not. */
static void paid(sums *s, const ergo__measure *m) {
  s->runs++;
  s->run_t += m->time_s;
  s->run_e += m->energy_j;
}

static void add(sums *s, const ergo__measure *m) {
  /* Energy 0 (no meter) has no log: 0 keeps the sums finite, and a mix of
   * metered and unmetered executions reads as very noisy, so nothing is
   * chosen over the baseline on its strength. */
  double lt = log(m->time_s), le = m->energy_j > 0 ? log(m->energy_j) : 0;
  paid(s, m);
  s->n++;
  s->t += m->time_s;
  s->e += m->energy_j;
  s->r += m->resource;
  s->lt += lt;
  s->lt2 += lt * lt;
  s->le += le;
  s->le2 += le * le;
  for (int k = 0; k < 2; k++) {
    double x = le + (k + 1) * lt;
    s->lx[k] += x;
    s->lx2[k] += x * x;
  }
}

/* The sums of memo entry i rebuilt from its measurements but the outliers (under nm->thr; out of
 * memory, from all of them); unchanged when unlisted. */
static void resum(ergo__nm *nm, int i) {
  rec *q = &nm->memo[i];
  const ergo__mlist *l = &nm->ml[i];
  if (q->unlisted) return;
  unsigned char *keep = malloc(l->n ? (size_t)l->n : 1);
  if (keep) ergo__mlist_kept(l, nm->thr, keep);
  sums s[4];
  memset(s, 0, sizeof s);
  for (int j = 0; j < l->n; j++) {
    ergo__measure m = {l->m[j][0], l->m[j][1], l->m[j][2]};
    for (int b = 0; b < 4; b++)
      if (q->tag[j] & (1 << b)) (!keep || keep[j] ? add : paid)(&s[b], &m);
  }
  free(keep);
  q->all = s[0];
  q->fresh = s[1];
  q->conf = s[2];
  if (i == 0) nm->base_conf = s[3];
}

/* The sums of tag t (TAG_CONF of q, TAG_BASE_CONF of the baseline) start again, empty. */
static void untag(ergo__nm *nm, rec *q, int t) {
  for (int j = 0; q->tag && j < nm->ml[q - nm->memo].n; j++) q->tag[j] &= (unsigned char)~t;
  memset(t == TAG_CONF ? &q->conf : &nm->base_conf, 0, sizeof(sums));
}

/* Keep measurement m of memo entry i, tagged t, in its list; -1 when out of memory (the list and
 * tags unchanged). */
static int keep_measure(ergo__nm *nm, int i, const ergo__measure *m, int t) {
  rec *q = &nm->memo[i];
  ergo__mlist *l = &nm->ml[i];
  if (l->n == q->tcap) {
    int cap = q->tcap ? 2 * q->tcap : 8;
    unsigned char *tag = realloc(q->tag, (size_t)cap);
    if (!tag) return -1;
    q->tag = tag;
    q->tcap = cap;
  }
  if (ergo__mlist_add(l, m->time_s, m->energy_j, m->resource)) return -1;
  q->tag[l->n - 1] = (unsigned char)t;
  return 0;
}

static void mean(const sums *s, ergo__measure *m) {
  if (s->n == 0) {
    *m = (ergo__measure){0, 0, 0};
    return;
  }
  m->time_s = s->t / s->n;
  m->energy_j = s->e / s->n;
  m->resource = s->r / s->n;
}

/* ---- coordinates ---- */

/* Each searched dimension maps onto [0, 1], linearly in the index or in
 * log(1 + index), so one step size suits every dimension. */
static double warp(const ergo__nm_grid *g, int d, double i) { return g->log[d] ? log1p(i) : i; }

static double to_coord(const ergo__nm *nm, int d, int i) {
  return warp(&nm->g, d, i) / warp(&nm->g, d, nm->g.n[d] - 1);
}

int ergo__nm_nearest(const ergo__nm_grid *g, int d, double y) {
  if (g->n[d] < 2) return 0;
  double c = y > 1 ? 1 : y >= 0 ? y : 0, z = c * warp(g, d, g->n[d] - 1); /* NaN: 0 */
  long i = lround(g->log[d] ? expm1(z) : z);
  return i < 0 ? 0 : i > g->n[d] - 1 ? g->n[d] - 1 : (int)i;
}

static int nearest(const ergo__nm *nm, int d, double y) { return ergo__nm_nearest(&nm->g, d, y); }

static void coords(const ergo__nm *nm, const int p[D], double *y) {
  for (int k = 0; k < nm->nact; k++) y[k] = to_coord(nm, nm->act[k], p[nm->act[k]]);
}

/* ---- values and statistics ---- */

/* A value GSL can compare: it stops with an error on a non-finite one. */
static double comparable(double v) { return isfinite(v) ? v : (v < 0 ? -1e300 : 1e300); }

static double value_of(const ergo__nm *nm, const ergo__measure *m) {
  ergo__measure b;
  mean(&nm->memo[0].all, &b);
  return comparable(ergo__objective_value(&nm->obj, m, nm->memo[0].all.n ? &b : NULL));
}

static double value(const ergo__nm *nm, const sums *s) {
  ergo__measure m;
  mean(s, &m);
  return value_of(nm, &m);
}

/* The log of one measurement of time (which 0), energy (1), E T (2) or
 * E T^2 (3): its sum and sum of squares in s. */
static void log_sums(const sums *s, int which, double *sum, double *sum2) {
  *sum = which == 0 ? s->lt : which == 1 ? s->le : s->lx[which - 2];
  *sum2 = which == 0 ? s->lt2 : which == 1 ? s->le2 : s->lx2[which - 2];
}

/* Sigma of the log of one measurement of time (which 0), energy (1), E T (2)
 * or E T^2 (3) as the repeated points show it (pooled, its degrees of freedom
 * in *dof); the caller's guess until they do (*dof 0). */
static double pooled_sigma(const ergo__nm *nm, int which, double *dof) {
  double ss = 0, df = 0;
  for (int i = 0; i < nm->nmemo; i++) {
    const sums *q = &nm->memo[i].all;
    if (q->n < 2) continue;
    double s, s2;
    log_sums(q, which, &s, &s2);
    double v = s2 - s * s / q->n;
    ss += v > 0 ? v : 0;
    df += q->n - 1;
  }
  if (dof) *dof = df >= 2 ? df : 0;
  return df >= 2 ? sqrt(ss / df) : nm->o.noise_rel;
}

static double seen_sigma(const ergo__nm *nm, int which) { return pooled_sigma(nm, which, NULL); }

/* The objective, except that a slowdown bound is a slope (see PENALTY) that
 * starts `slack` (relative, log) beyond the bound. */
static double sloped(const ergo__nm *nm, const ergo__measure *m, double slack) {
  const sums *b = &nm->memo[0].all;
  if (nm->obj.kind != ERGO__OBJ_ENERGY_BOUNDED || b->n == 0) return value_of(nm, m);
  ergo__measure mb;
  mean(b, &mb);
  double excess = m->time_s / ((1 + nm->obj.slowdown) * mb.time_s * exp(slack)) - 1;
  return comparable(m->energy_j + (excess > 0 ? PENALTY * excess * mb.energy_j : 0));
}

/* With noise under energy@X%: how far inside the bound (log of the time ratio)
 * a point's true time must lie for its confirmation to pass, as the noise
 * lets one expect (its upper confidence bound after repeats + SETTLE / 2
 * fresh measurements); 0 otherwise.  What the search aims for and the
 * ranking prefers, so the points that decide are ones that can pass. */
static double compute_inside(const ergo__nm *nm) {
  if (!nm->noisy || nm->obj.kind != ERGO__OBJ_ENERGY_BOUNDED) return 0;
  double dof, s = pooled_sigma(nm, 0, &dof);
  int n = nm->o.repeats + SETTLE / 2;
  return ergo__nm_log_ratio_bound(0, s > nm->o.noise_rel ? s : nm->o.noise_rel, n, n + BASE_EXTRA,
                                  dof, CONFIDENCE);
}

/* The same, as of the last tell() (ranking asks for it per point). */
static double inside(const ergo__nm *nm) { return nm->inside; }

/* The objective at m with a slowdown bound drawn `inside` the real one. */
static double aimed(const ergo__nm *nm, const ergo__measure *m) {
  double in = inside(nm);
  return in > 0 ? sloped(nm, m, -in) : value_of(nm, m);
}

/* What the simplex minimises: with noise only a clear excess counts. */
static double search_value(const ergo__nm *nm, const rec *q) {
  const sums *b = &nm->memo[0].all;
  if (q->all.n == 0 || b->n == 0) return value(nm, &q->all);
  ergo__measure m;
  mean(&q->all, &m);
  return sloped(
      nm, &m,
      nm->noisy ? SLACK * seen_sigma(nm, 0) * sqrt(1.0 / q->all.n + 1.0 / b->n) - inside(nm) : 0);
}

/* ---- the response surface (with noise only) ---- */

/* Every measured point as a sample of a fit (weight: its measurements), into nm->samples; with
 * `energy` only the points that measured energy.  Returns how many. */
static int samples_of(ergo__nm *nm, int energy) {
  int n = 0;
  for (int i = 0; i < nm->nmemo; i++) {
    const sums *q = &nm->memo[i].all;
    if (q->n == 0 || (energy && !(q->e > 0))) continue;
    ergo__nm_sample *s = &nm->samples[n++];
    coords(nm, nm->memo[i].p, s->y);
    s->w = q->n;
    s->log_t = q->lt / q->n;
    s->log_e = q->le / q->n;
    s->r = q->r / q->n;
  }
  return n;
}

/* Fit the model to every measured point; its value is what all of them say
 * about one point, where the point's own few measurements are a guess. */
static void refit(ergo__nm *nm) {
  int n = samples_of(nm, 0);
  if (!nm->noisy || !ergo__nm_model_fit(&nm->mod, nm->nact, nm->samples, n)) nm->mod.ok = 0;
}

/* The model's measure at p, if it covers p (interpolation, a little beyond). */
static int predict(const ergo__nm *nm, const int p[D], double extra, ergo__measure *m) {
  double y[D];
  coords(nm, p, y);
  if (!nm->mod.ok || !ergo__nm_model_covers(&nm->mod, y, extra)) return 0;
  ergo__nm_model_predict(&nm->mod, y, m);
  return 1;
}

/* How a candidate ranks: by the model where it has one, else by its mean. */
static double estimate(const ergo__nm *nm, const rec *q) {
  ergo__measure m;
  if (!predict(nm, q->p, 0, &m)) mean(&q->all, &m);
  return aimed(nm, &m);
}

/* The grid point the model likes best within TRUST of centre; 0 if none. */
static int model_best(const ergo__nm *nm, const double *centre, int best[D]) {
  if (!nm->mod.ok) return 0;
  int lv[D][SCAN_LEVELS], nl[D], k[D] = {0}, p[D], have = 0;
  double vb = 0;
  for (int a = 0; a < nm->nact; a++) {
    int d = nm->act[a], lo = nearest(nm, d, centre[a] - TRUST),
        hi = nearest(nm, d, centre[a] + TRUST);
    nl[a] = 0;
    for (int j = 0; j < SCAN_LEVELS; j++) {
      int i = lo + (int)lround((double)(hi - lo) * j / (SCAN_LEVELS - 1));
      if (nl[a] == 0 || lv[a][nl[a] - 1] != i) lv[a][nl[a]++] = i;
    }
  }
  memcpy(p, nm->g.start, sizeof p);
  for (;;) {
    ergo__measure m;
    for (int a = 0; a < nm->nact; a++) p[nm->act[a]] = lv[a][k[a]];
    if (predict(nm, p, EXTRA, &m)) {
      double v = aimed(nm, &m);
      if (!have || v < vb) memcpy(best, p, sizeof p), vb = v, have = 1;
    }
    int a = 0;
    while (a < nm->nact && ++k[a] == nl[a]) k[a++] = 0;
    if (a == nm->nact) break;
  }
  return have;
}

/* Which way along searched dimension a the model says the search value falls
 * from y: -1 or +1; 0 without a model. */
static int descent(const ergo__nm *nm, const double *y, int a) {
  if (!nm->mod.ok) return 0;
  double lo[D], hi[D];
  memcpy(lo, y, sizeof lo);
  memcpy(hi, y, sizeof hi);
  lo[a] = y[a] < 0.15 ? 0 : y[a] - 0.15;
  hi[a] = y[a] > 0.85 ? 1 : y[a] + 0.15;
  ergo__measure ml, mh;
  ergo__nm_model_predict(&nm->mod, lo, &ml);
  ergo__nm_model_predict(&nm->mod, hi, &mh);
  return sloped(nm, &ml, -inside(nm)) < sloped(nm, &mh, -inside(nm)) ? -1 : 1;
}

/* ---- the decision ---- */

double ergo__nm_log_ratio_bound(double diff, double sigma, int na, int nb, double dof,
                                double conf) {
  if (na < 1 || nb < 1 || !isfinite(sigma)) return diff > 0 ? INFINITY : -INFINITY;
  double q = dof >= 1 ? gsl_cdf_tdist_Pinv(conf, dof) : gsl_cdf_ugaussian_Pinv(conf);
  return diff + q * sigma * sqrt(1.0 / na + 1.0 / nb);
}

/* Which log the objective is a mean of: time 0, energy 1, E T 2, E T^2 3;
 * -1 for a weighted sum (judged on the log ratio of the mean values, with the
 * larger of the time and energy sigmas). */
static int log_kind(const ergo__objective *o) {
  switch (o->kind) {
  case ERGO__OBJ_TIME: return 0;
  case ERGO__OBJ_ENERGY:
  case ERGO__OBJ_ENERGY_BOUNDED: return 1;
  case ERGO__OBJ_EDP: return 2;
  case ERGO__OBJ_ED2P: return 3;
  default: return -1;
  }
}

/* The mean log ratio of q to the baseline b of quantity `which` (log_kind),
 * its sigma per measurement (never below the caller's guess) and the sigma's
 * degrees of freedom. */
static double log_ratio(const ergo__nm *nm, const sums *q, const sums *b, int which, double *sig,
                        double *dof) {
  if (which < 0) {
    double d0, d1, s0 = pooled_sigma(nm, 0, &d0), s1 = pooled_sigma(nm, 1, &d1);
    double vq = value(nm, q), vb = value(nm, b);
    *sig = s0 > s1 ? s0 : s1;
    *dof = d0 < d1 ? d0 : d1;
    if (*sig < nm->o.noise_rel) *sig = nm->o.noise_rel;
    return vq > 0 && vb > 0 ? log(vq / vb) : (vq < vb ? -INFINITY : INFINITY);
  }
  double sq, sq2, sb, sb2;
  log_sums(q, which, &sq, &sq2);
  log_sums(b, which, &sb, &sb2);
  *sig = pooled_sigma(nm, which, dof);
  if (*sig < nm->o.noise_rel) *sig = nm->o.noise_rel;
  return sq / q->n - sb / b->n;
}

/* How q compares with the baseline: 1 better with confidence, -1 not (it is
 * worse, or too slow, with confidence), 0 undecided.  Exact measurements: by
 * value (an infeasible point is worse than the baseline).  With noise, on the
 * measurements that did not pick it (fresh), two at least on either side, so
 * no single measurement decides: better when the upper CONFIDENCE bound on
 * the log ratio of its objective to the baseline's is below 0, and under
 * energy@X% when the upper bound on its time ratio is within log(1 + X). */
/* How measurements s compare with the baseline's b at one-sided confidence conf: 1 better, -1
 * not (worse, or too slow), 0 undecided; 0 with fewer than two on either side. */
static int judge(const ergo__nm *nm, const sums *s, const sums *b, double conf) {
  if (s->n < 2 || b->n < 2) return 0;
  double sig, dof, d = log_ratio(nm, s, b, log_kind(&nm->obj), &sig, &dof);
  double hi = ergo__nm_log_ratio_bound(d, sig, s->n, b->n, dof, conf),
         lo = ergo__nm_log_ratio_bound(d, -sig, s->n, b->n, dof, conf);
  int fast = 1;
  if (nm->obj.kind == ERGO__OBJ_ENERGY_BOUNDED) {
    double bound = log1p(nm->obj.slowdown), dt = log_ratio(nm, s, b, 0, &sig, &dof);
    if (ergo__nm_log_ratio_bound(dt, -sig, s->n, b->n, dof, conf) > bound) return -1;
    fast = ergo__nm_log_ratio_bound(dt, sig, s->n, b->n, dof, conf) <= bound;
  }
  if (lo >= 0) return -1;
  return hi < 0 && fast ? 1 : 0;
}

static int verdict(const ergo__nm *nm, const rec *q) {
  const sums *s = nm->noisy ? &q->fresh : &q->all, *b = &nm->memo[0].all;
  if (q == &nm->memo[0] || s->n == 0 || b->n == 0) return -1;
  if (!nm->noisy) return value(nm, s) < value(nm, b) ? 1 : -1;
  return judge(nm, s, b, CONFIDENCE);
}

static int beats(const ergo__nm *nm, const rec *q) { return verdict(nm, q) > 0; }

/* An undecided q could still be shown better within `left` more executions,
 * split between it and the baseline, if its means held: else measuring it
 * further is waste. */
static int hopeful(const ergo__nm *nm, const rec *q, int left) {
  const sums *s = &q->fresh, *b = &nm->memo[0].all;
  int na = s->n + left / 2, nb = b->n + left - left / 2;
  if (s->n == 0) return 1;
  double sig, dof, d = log_ratio(nm, s, b, log_kind(&nm->obj), &sig, &dof);
  if (ergo__nm_log_ratio_bound(d, sig, na, nb, dof, CONFIDENCE) >= 0) return 0;
  if (nm->obj.kind != ERGO__OBJ_ENERGY_BOUNDED) return 1;
  d = log_ratio(nm, s, b, 0, &sig, &dof);
  return ergo__nm_log_ratio_bound(d, sig, na, nb, dof, CONFIDENCE) <= log1p(nm->obj.slowdown);
}

/* The final choice: the best-ranked point that is better than the baseline with confidence;
 * the baseline when none does. */
static int choose(const ergo__nm *nm) {
  if (nm->drifted) return 0;
  if (nm->confirm_over) return nm->confirmed;
  /* A time bound is never taken unconfirmed: until the confirmation is over (a search cut short
   * by the run's end, whose points may have compared work that was changing), the baseline. */
  if (nm->noisy && nm->o.confirm && nm->obj.kind == ERGO__OBJ_ENERGY_BOUNDED) return 0;
  int f = 0;
  for (int i = 1; i < nm->nmemo; i++)
    if (beats(nm, &nm->memo[i]) && (!f || estimate(nm, &nm->memo[i]) < estimate(nm, &nm->memo[f])))
      f = i;
  return f;
}

/* ---- the budget ---- */
/*
 * ERGO__NM_BUDGET.  The tuning run must not cost more than it saves: over the region's first
 * `horizon` executions its time may be at most (1 + budget_time) and its energy at most
 * (1 + budget_energy) times what the baseline would have taken.  The ledger is the debt of
 * each quantity: what the executions away from the baseline took beyond the baseline, less
 * the allowance every execution so far earns (budget x baseline).  A debt is affordable when
 * some point the region may run at afterwards (the baseline, or a point better than it) pays
 * it back by the end of the horizon at its own rate (the allowance less its excess).  A new
 * point is measured only when its predicted cost (its measurements, else the cost surface
 * fitted to every point measured, else nothing: then the debt so far decides) leaves the debt
 * affordable; a point that would not is skipped, and once the debt so far is not affordable
 * the search ends.  Under noise the baseline counts at the lower end of its confidence
 * interval and every other point at the upper end of its own, so the noise cannot make
 * exploration look cheaper than it was.
 */

static int limited(const ergo__nm *nm, int k) {
  double b = k ? nm->o.budget_energy : nm->o.budget_time;
  return b >= 0 && (k == 0 || nm->memo[0].all.e > 0); /* no energy measured: not bounded */
}

static int budgeted(const ergo__nm *nm) { return limited(nm, 0) || limited(nm, 1); }

static double allowance(const ergo__nm *nm, int k) {
  return k ? nm->o.budget_energy : nm->o.budget_time;
}

/* The normal quantile of CONFIDENCE times the per-measurement sigma of log time (k 0) or log
 * energy (1); 0 without noise. */
static double spread_of(const ergo__nm *nm, int k) {
  if (!nm->noisy) return 0;
  double sig = pooled_sigma(nm, k, NULL);
  if (sig < nm->o.noise_rel) sig = nm->o.noise_rel;
  return gsl_cdf_ugaussian_Pinv(CONFIDENCE) * sig;
}

/* The baseline's mean time or energy; `low`: at the lower end of its interval. */
static double base_ref(const ergo__nm *nm, int k, int low) {
  const sums *b = &nm->memo[0].all;
  return (k ? b->e : b->t) / b->n * (low ? exp(-spread_of(nm, k) / sqrt(b->n)) : 1);
}

/* A measured point's mean time or energy.  Not the upper end of its interval: the errors of
 * many points average out over a run, and a point that pays a debt back is measured as often as
 * it pays; the baseline's error is the one every comparison shares, so it alone counts at its
 * conservative end. */
static double point_mean(const sums *q, int k) { return (k ? q->e : q->t) / q->n; }

/* The debt of quantity k so far (see above), the baseline at its mean or (low) the low end of
 * its interval; negative when there is credit. */
static double debt(const ergo__nm *nm, int k, int low) {
  double away = 0, ref = base_ref(nm, k, low);
  /* Every execution away from the baseline at what it cost, outliers included. */
  int n_away = nm->evals - nm->memo[0].all.runs;
  for (int i = 1; i < nm->nmemo; i++) away += k ? nm->memo[i].all.run_e : nm->memo[i].all.run_t;
  return away - (n_away + allowance(nm, k) * nm->evals) * ref +
         (k ? nm->o.debt_energy : nm->o.debt_time) +
         fmax(0, (k ? nm->o.owed_energy : nm->o.owed_time) -
                     nm->o.owed_execs * (1 + allowance(nm, k)) * ref);
}

/* What one more execution at q adds to the debt of k: its excess over the baseline less the
 * allowance (the baseline itself adds only the allowance's credit). */
static double rate(const ergo__nm *nm, const rec *q, int k, int low) {
  double ref = base_ref(nm, k, low);
  if (q == &nm->memo[0]) return -allowance(nm, k) * ref;
  return point_mean(&q->all, k) - (1 + allowance(nm, k)) * ref;
}

/* A point the region may run at once the search is over: the baseline, or one better than it
 * (with noise: with confidence, on its fresh measurements or on all of them). */
static int eligible(const ergo__nm *nm, const rec *q) {
  if (q == &nm->memo[0]) return 1;
  if (q->all.n == 0) return 0;
  if (!nm->noisy) return beats(nm, q);
  if (beats(nm, q)) return 1;
  if (q->all.n < 2) return 0;
  const sums *b = &nm->memo[0].all;
  double sig, dof, d = log_ratio(nm, &q->all, b, log_kind(&nm->obj), &sig, &dof);
  if (ergo__nm_log_ratio_bound(d, sig, q->all.n, b->n, dof, CONFIDENCE) >= 0) return 0;
  if (nm->obj.kind != ERGO__OBJ_ENERGY_BOUNDED) return 1;
  d = log_ratio(nm, &q->all, b, 0, &sig, &dof);
  return ergo__nm_log_ratio_bound(d, sig, q->all.n, b->n, dof, CONFIDENCE) <=
         log1p(nm->obj.slowdown);
}

/* The ledger's figures at one moment: the debts, the baseline's reference, the executions left
 * in the horizon and what one execution at each point adds to the debts. */
typedef struct ledger {
  double debt[2], ref[2];
  int left, lim[2], low;
  int shown; /* a point other than the baseline pays back at the upper end of its interval */
} ledger;

/* low: the baseline at the low end of its interval (the plan run once the search is over);
 * else at its mean (whether to explore: a baseline measured three times is uncertain by a few
 * per cent, which would forbid every point that costs what the baseline does).  Once the search
 * is over the ledger holds what the executions since cost before the plan was last made again,
 * and the probes' charges (both 0 until then). */
static void ledger_of(const ergo__nm *nm, const double extra[2], int more, int low, ledger *l) {
  l->left = nm->o.horizon - nm->evals - nm->post_execs - more;
  if (l->left < 0) l->left = 0;
  l->low = low;
  l->shown = 0;
  for (int k = 0; k < 2; k++) {
    l->lim[k] = limited(nm, k);
    l->ref[k] = l->lim[k] ? base_ref(nm, k, low) : 1;
    /* The plan (low) aims MARGIN of the horizon's baseline inside the budget: what it cannot
     * see (switching, the execution that decided significance) should not tip it over. */
    l->debt[k] = l->lim[k] ? debt(nm, k, low) + extra[k] + nm->post_debt[k] + nm->charged_all[k] +
                                 (low ? MARGIN * nm->o.horizon * l->ref[k] : 0)
                           : 0;
  }
}

/* rate() of q at the upper end of its interval (the baseline's is its allowance alone). */
static double shown_rate(const ergo__nm *nm, const rec *q, int k, double r) {
  if (q == &nm->memo[0] || !nm->noisy) return r;
  return r + point_mean(&q->all, k) * expm1(spread_of(nm, k) / sqrt(q->all.n));
}

/* Running at b for m executions and at a for the rest of the horizon keeps the budget: the
 * least such m (0 when a alone does), or -1 when no m does. */
static int payback(const ergo__nm *nm, const ledger *l, const rec *a, const rec *b) {
  double lo = 0, hi = l->left;
  for (int k = 0; k < 2; k++) {
    if (!l->lim[k]) continue;
    double ra = rate(nm, a, k, l->low), rb = rate(nm, b, k, l->low);
    if (l->shown) ra = shown_rate(nm, a, k, ra), rb = shown_rate(nm, b, k, rb);
    /* debt + m rb + (left - m) ra <= 0, i.e. m (rb - ra) <= -debt - left ra */
    double c = -l->debt[k] - l->left * ra, d = rb - ra;
    if (d > 0) {
      if (c / d < hi) hi = c / d;
    } else if (d < 0) {
      if (c / d > lo) lo = c / d;
    } else if (c < -1e-12 * l->ref[k]) {
      return -1;
    }
  }
  double m = ceil(lo - 1e-9);
  return m <= hi + 1e-9 ? (int)m : -1;
}

/* 1 when some eligible point keeps the budget after `extra` more debt and `more` executions,
 * alone or after paying back at some measured point; `low` as ledger_of's.  `shown`: whether
 * to measure a new point, so the points that pay back count at the upper end of their
 * intervals: one measured once 12 % below the baseline at 9 % noise let a search explore points
 * that cost 1.5-3.6x the baseline's energy, and then measured the baseline's energy again (the
 * debt stayed: a tuning run at 1.019x the untuned run's energy). */
static int affordable(const ergo__nm *nm, const double extra[2], int more, int low, int shown) {
  ledger l;
  ledger_of(nm, extra, more, low, &l);
  l.shown = shown;
  for (int i = 0; i < nm->nmemo; i++) {
    if (!eligible(nm, &nm->memo[i])) continue;
    for (int j = 0; j < nm->nmemo; j++)
      if (nm->memo[j].all.n && payback(nm, &l, &nm->memo[i], &nm->memo[j]) >= 0) return 1;
  }
  return 0;
}

/* How far past the budget the region ends running at q alone: the larger of the two
 * quantities' final debts, relative to the baseline's; <= 0 keeps the budget. */
static double overrun(const ergo__nm *nm, const rec *q) {
  double worst = -INFINITY, none[2] = {0, 0};
  ledger l;
  ledger_of(nm, none, 0, 0, &l);
  for (int k = 0; k < 2; k++)
    if (l.lim[k]) worst = fmax(worst, (l.debt[k] + l.left * rate(nm, q, k, 0)) / l.ref[k]);
  return worst;
}

/* The cost surface: log time and log energy over every point measured (noise or not), refitted
 * when points were added. */
static const ergo__nm_model *cost_model(ergo__nm *nm) {
  if (nm->cost_points == nm->nmemo) return nm->cost.ok ? &nm->cost : NULL;
  int n = samples_of(nm, 1);
  nm->cost_points = nm->nmemo;
  if (!ergo__nm_model_fit(&nm->cost, nm->nact, nm->samples, n)) nm->cost.ok = 0;
  return nm->cost.ok ? &nm->cost : NULL;
}

/* Whether one more execution at a measured point whose mean exceeds the baseline's less the
 * allowance by extra[] leaves the ledger no worse than an execution at the baseline would: in each
 * bounded quantity the baseline alone could no longer pay back, the point's mean is at most the
 * baseline's; the others the baseline alone still pays back.  The plan falls back on the
 * baseline, so such a measurement deepens no debt it would leave (see show_payer()). */
static int no_deeper(const ergo__nm *nm, const double extra[2]) {
  ledger l;
  memset(&l, 0, sizeof l); /* ledger_of() fills it (GCC 12 cannot tell, inlined) */
  ledger_of(nm, extra, 1, 0, &l);
  for (int k = 0; k < 2; k++) {
    if (!l.lim[k]) continue;
    double base_rate = rate(nm, &nm->memo[0], k, 0);
    if (l.debt[k] + l.left * base_rate > 0 && extra[k] > base_rate) return 0;
  }
  return 1;
}

/* Measurements a point may get as a payer to be shown (show_payer()). */
#define SHOW_MAX 6

static int room(const ergo__nm *nm, int limit);
static rec *measure(ergo__nm *nm, const int p[D]);

/* With noise, while the search explores: a point measured once or a few times whose mean would
 * pay the debt back cannot yet show it at the upper end of its interval, and until one does every
 * new point is skipped (the debt so far decides them).  A search started again owing its
 * predecessor's energy measured nothing past its first simplex, nor the simplex's points again:
 * `phase-noisy` under `energy`, the region re-tuned after its change kept its baseline in 4 of 10
 * seeds on the 20-core node and 5 of 10 on the 64-core (2 and 0 now; SIMULATED).  So the point
 * that costs the objective least of those whose next execution deepens no debt (no_deeper()), not
 * yet a payer, with fewer than SHOW_MAX measurements, is measured once more: 1 when one was, 0
 * when none is left to measure. */
static int show_payer(ergo__nm *nm) {
  if (!nm->noisy || nm->deciding || nm->confirming || !room(nm, nm->search_limit)) return 0;
  rec *c = NULL;
  double best = 0;
  for (int i = 1; i < nm->nmemo; i++) {
    rec *q = &nm->memo[i];
    if (q->all.n == 0 || q->all.runs >= SHOW_MAX || eligible(nm, q)) continue;
    double extra[2] = {0, 0};
    for (int k = 0; k < 2; k++)
      if (limited(nm, k)) extra[k] = rate(nm, q, k, 0);
    double v = value(nm, &q->all);
    if (no_deeper(nm, extra) && (!c || v < best)) c = q, best = v;
  }
  if (!c) return 0;
  int p[D];
  memcpy(p, c->p, sizeof p);
  measure(nm, p);
  return 1;
}

/* Whether to measure p now: 1 yes; 0 no (the point is skipped; when even the debt so far can
 * no longer be paid back, the search is over: nm->over). */
static int afford(ergo__nm *nm, const int p[D]) {
  if (!budgeted(nm) || nm->memo[0].all.n == 0) return 1;
  const rec *q = find(nm, p);
  double extra[2] = {0, 0};
  if (q == &nm->memo[0]) return 1; /* the baseline only earns credit */
  const ergo__nm_model *cm = q && q->all.n ? NULL : cost_model(nm);
  double y[D];
  coords(nm, p, y);
  for (int k = 0; k < 2; k++) {
    if (!limited(nm, k)) continue;
    double ref = base_ref(nm, k, 0), high;
    if (q && q->all.n) {
      high = point_mean(&q->all, k);
    } else if (cm && ergo__nm_model_covers(cm, y, EXTRA)) {
      ergo__measure m;
      ergo__nm_model_predict(cm, y, &m);
      high = k ? m.energy_j : m.time_s;
    } else {
      continue; /* unknown: the debt so far decides */
    }
    extra[k] = high - (1 + allowance(nm, k)) * ref;
  }
  if (affordable(nm, extra, 1, 0, 1) || (q && q->all.n && no_deeper(nm, extra))) return 1;
  while (show_payer(nm))
    if (affordable(nm, extra, 1, 0, 1)) return 1;
  double none[2] = {0, 0};
  /* The first simplex is how anything is learnt: its points are measured while nothing known
   * pays a debt back yet (the overrun is at most those few executions' excess). */
  if (nm->nmemo <= nm->nact + 1 && !q) return 1;
  if (!affordable(nm, none, 0, 0, 0)) nm->over = 1;
  nm->skipped++;
  return 0;
}

/* Whether the whole confirmation of c, n executions at c and n at the baseline, leaves the debt
 * affordable, judged as the plan after the search is (the baseline at the low end of its
 * interval, MARGIN in hand): the confirmation is the last exploration, and the plan must pay it. */
static int afford_confirmation(const ergo__nm *nm, const rec *c, int n) {
  if (!budgeted(nm) || nm->memo[0].all.n == 0) return 1;
  double extra[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    if (!limited(nm, k)) continue;
    double ref = base_ref(nm, k, 0);
    extra[k] =
        n * (point_mean(&c->all, k) - (1 + allowance(nm, k)) * ref) - n * allowance(nm, k) * ref;
  }
  return affordable(nm, extra, 2 * n, 1, 0);
}

/* How many more executions (relative) a payback may take than the fastest one, for a payer that
 * costs the objective less (apply_choice()).  On the 2,400 random programs 0.5 took the tuning
 * runs' energy 0.45 % lower on average, `cost` failures 101 -> 102 (0.25: 0.27 % lower, 104);
 * `ergo-bench-tuning`'s online tuning runs 1.5 % lower (SIMULATED). */
#define PAY_SLACK 0.5

/* Once the search is over: the point the region runs at (nm->applied) and, before it, the
 * executions that pay the debt back (nm->pay_n at nm->pay).  The final choice when it keeps the
 * budget, alone or after a payback; else the best eligible point by estimate that does; else the
 * eligible point that overruns least, alone. Made again at each measured execution of the payer
 * (ergo__nm_tell_paid()). */
static void apply_choice(ergo__nm *nm) {
  nm->applied = nm->final;
  nm->pay = 0;
  nm->pay_n = 0;
  if (!budgeted(nm) || nm->memo[0].all.n == 0) return;
  double none[2] = {0, 0};
  ledger l;
  int best = -1, least = 0;
  for (int low = 1; low >= 0 && best < 0; low--) {
    ledger_of(nm, none, 0, low, &l);
    double bv = 0, lv = INFINITY;
    for (int i = 0; i < nm->nmemo; i++) {
      const rec *a = &nm->memo[i];
      if (i != nm->final && !eligible(nm, a)) continue;
      int pay = -1, m = -1;
      for (int j = 0; j < nm->nmemo; j++) {
        if (!nm->memo[j].all.n) continue;
        int mj = payback(nm, &l, a, &nm->memo[j]);
        if (mj >= 0 && (m < 0 || mj < m)) m = mj, pay = j;
      }
      /* Among the payers that pay back within PAY_SLACK more executions than the fastest, the
       * one that costs the objective least beside running at a: paying time back at a config as
       * fast as the baseline at half its energy costs half the baseline's payback in energy, and
       * the fewest executions alone picked the baseline (a tie in time, or a hair ahead). */
      if (m > 0) {
        double va = value(nm, &a->all), pc = m * fmax(value(nm, &nm->memo[pay].all) - va, 0);
        int fastest = m;
        for (int j = 0; j < nm->nmemo; j++) {
          if (!nm->memo[j].all.n || j == pay) continue;
          int mj = payback(nm, &l, a, &nm->memo[j]);
          if (mj < 0 || mj > fastest * (1 + PAY_SLACK)) continue;
          double c = mj * fmax(value(nm, &nm->memo[j].all) - va, 0);
          if (c < pc) pc = c, m = mj, pay = j;
        }
      }
      double o = overrun(nm, a);
      if (o < lv) lv = o, least = i;
      if (m < 0) continue;
      double v = i == nm->final ? -INFINITY : nm->noisy && i ? estimate(nm, a) : value(nm, &a->all);
      if (best < 0 || v < bv) {
        best = i, bv = v;
        nm->pay = pay;
        nm->pay_n = m;
      }
    }
  }
  nm->applied = best >= 0 ? best : least;
}

/* ---- the coroutine ---- */

static void suspend(ergo__nm *nm) { swapcontext(&nm->co, &nm->caller); }

static void hand_out(ergo__nm *nm, const int p[D]) {
  memcpy(nm->want, p, sizeof nm->want);
  nm->asked = 1;
  suspend(nm);
}

/* The baseline measured once more: how far (log time) from the mean of its measurements before
 * (`before`); 0 when it was not recorded. */
static double base_moved_by(ergo__nm *nm, const sums *before) {
  int runs = nm->memo[0].all.runs;
  hand_out(nm, nm->g.start);
  if (nm->memo[0].all.runs != runs + 1) return 0;
  return log(nm->last.time_s) - before->lt / before->n;
}

/* With base_every: the baseline measured once more, against the mean of its measurements before;
 * off by more than the drift allows (see nm.h), the search is over.  Once outliers can be told
 * (nm->thr) one off by more than an outlier's threshold may be a stall: the baseline is measured
 * once more, and the work changed only when that one is off on the same side too (an outlier is
 * alone).  Set aside, a stall no longer widens the noise the limit is drawn from: without this,
 * a stall in the check ended the search. */
static void check_base(ergo__nm *nm) {
  sums before = nm->memo[0].all;
  double lim = ERGO__NM_DRIFT, sig = 0;
  /* The noise as it was before this measurement: one that moved would widen the sigma it is
   * judged by (a baseline at 0.57x its mean pooled in raised the limit to 0.98 in log time, and
   * the change went unseen).  Nor as the measurements since the last check left it, if they
   * widened it: the candidate a confirmation measures in turn with the baseline, measured once
   * on the new work among its repeats on the old, raised the limit to 1.04 in log time, and
   * a baseline at 0.45x its mean went unseen (`phase-noisy`, 5 % noise: the model kept a
   * baseline of both works). */
  if (nm->noisy) {
    sig = fmax(nm->o.noise_rel, seen_sigma(nm, 0));
    double used = nm->check_sig > 0 ? fmin(sig, nm->check_sig) : sig;
    lim = fmax(ERGO__NM_DRIFT_NOISY, ERGO__NM_DRIFT_SIGMAS * used * sqrt(1.0 + 1.0 / before.n));
  }
  double d = base_moved_by(nm, &before);
  int moved = fabs(d) > lim;
  if (moved && isfinite(nm->thr[0]) && fabs(d) > nm->thr[0] && nm->evals < nm->o.max_evals) {
    double d2 = base_moved_by(nm, &before);
    moved = fabs(d2) > lim && (d2 > 0) == (d > 0);
  }
  if (moved)
    nm->drifted = 1;
  else
    nm->check_sig = sig;
}

/* Hand p out and come back once tell() has recorded it (with base_every, the baseline first when
 * its turn has come). */
static rec *measure(ergo__nm *nm, const int p[D]) {
  if (nm->o.base_every > 0 && nm->memo[0].all.runs > 0 && !same(p, nm->g.start) &&
      nm->since_base >= nm->o.base_every && !nm->drifted)
    check_base(nm);
  hand_out(nm, p);
  return find(nm, p);
}

/* As measure(), but a measurement of the baseline while the search decides is checked as the
 * periodic one is (check_base()): the baseline measured again after the work changed under the
 * search (a region whose work dropped to 0.57x halfway through it) otherwise went into its mean
 * unremarked, and candidates measured on the new work beat a baseline mostly of the old. */
static void measure_checked(ergo__nm *nm, const int p[D]) {
  if (nm->o.base_every > 0 && same(p, nm->g.start) && nm->memo[0].all.runs > 0 && !nm->drifted)
    check_base(nm);
  else
    measure(nm, p);
}

static int room(const ergo__nm *nm, int limit) {
  return nm->evals < limit && !nm->over && !nm->drifted;
}

/* ---- Nelder-Mead ---- */

/* GSL's point to the nearest grid point; returns how far outside [0,1] it was. */
static double to_grid(const ergo__nm *nm, const gsl_vector *y, int p[D]) {
  double out = 0;
  memcpy(p, nm->g.start, sizeof nm->g.start);
  for (int k = 0; k < nm->nact; k++) {
    double v = gsl_vector_get(y, (size_t)k);
    out += v < 0 ? -v : v > 1 ? v - 1 : 0;
    p[nm->act[k]] = nearest(nm, nm->act[k], v);
  }
  return out;
}

/* GSL's f: the search value at the rounded point, measured if new, at once
 * if known.  Outside the grid the value grows with the distance, so the
 * simplex is pushed back in rather than drifting over the clamped edge. */
static double f_nm(const gsl_vector *y, void *arg) {
  ergo__nm *nm = arg;
  int p[D];
  double out = to_grid(nm, y, p), vb = search_value(nm, &nm->memo[0]);
  rec *q = find(nm, p);
  if (!q || q->all.n == 0) {
    if (!room(nm, nm->search_limit) || !afford(nm, p)) {
      /* Out of executions or of budget: the run ends after this iteration (the value is moot);
       * a point skipped for its cost looks worse than the baseline, so the simplex turns away. */
      nm->starved |= !room(nm, nm->search_limit);
      return comparable(vb + fabs(vb) * (1 + out));
    }
    q = measure(nm, p);
  }
  return comparable(search_value(nm, q) + fabs(vb) * out);
}

/* Every vertex rounds to the best vertex's grid point: all lie within
 * 2 sqrt(P) x the RMS size of it, and that whole box rounds to one point. */
static int collapsed(const ergo__nm *nm) {
  double r = 2 * sqrt(nm->nact + 1.0) * gsl_multimin_fminimizer_size(nm->s);
  const gsl_vector *x = gsl_multimin_fminimizer_x(nm->s);
  for (int k = 0; k < nm->nact; k++) {
    double v = gsl_vector_get(x, (size_t)k);
    if (nearest(nm, nm->act[k], v - r) != nearest(nm, nm->act[k], v + r)) return 0;
  }
  return 1;
}

/* One run from y0 (simplex y0, y0 + step[k] e_k) until the simplex collapses
 * onto one grid point, stalls, or the search budget is spent. */
static void nm_run(ergo__nm *nm, const double *y0, const double *step) {
  for (int k = 0; k < nm->nact; k++) {
    gsl_vector_set(nm->x, (size_t)k, y0[k]);
    gsl_vector_set(nm->step, (size_t)k, step[k]);
  }
  nm->starved = 0;
  /* Values are always finite, so GSL has no error to raise. */
  if (gsl_multimin_fminimizer_set(nm->s, &nm->fn, nm->x, nm->step) != GSL_SUCCESS) return;
  for (int it = 0, stalled = 0; it < MAX_ITER && !nm->starved && stalled < STALL; it++) {
    int before = nm->nmemo;
    if (gsl_multimin_fminimizer_iterate(nm->s) != GSL_SUCCESS || collapsed(nm)) break;
    stalled = nm->nmemo == before ? stalled + 1 : 0;
  }
}

/* The point the simplex found best (baseline included), to restart from. */
static const rec *best_searched(const ergo__nm *nm) {
  const rec *b = &nm->memo[0];
  for (int i = 1; i < nm->nmemo; i++)
    if (nm->memo[i].all.n && search_value(nm, &nm->memo[i]) < search_value(nm, b)) b = &nm->memo[i];
  return b;
}

/* Restarts from the incumbent while the budget lasts: on a grid a simplex
 * often stops on a ridge.  With noise the first restart reaches to the grid's
 * edge in each dimension, on the side the model says is downhill: single
 * measurements cannot show a gentle slope, the model of all of them can.
 * Then, as without noise, ever smaller simplices. */
static void restarts(ergo__nm *nm) {
  double y0[D], step[D];
  for (double s = nm->noisy ? 1 : 0.25; room(nm, nm->search_limit) && s > 0.03;
       s /= s == 1 ? 4 : 2) {
    coords(nm, best_searched(nm)->p, y0);
    if (s == 1) refit(nm);
    for (int k = 0; k < nm->nact; k++) {
      if (s == 1) {
        int dir = descent(nm, y0, k);
        if (dir == 0) dir = y0[k] > 0.5 ? -1 : 1;
        step[k] = dir < 0 ? (y0[k] > 0.05 ? -y0[k] : 0.5) : (y0[k] < 0.95 ? 1 - y0[k] : -0.5);
      } else {
        step[k] = y0[k] + s > 1 ? -s : s;
      }
    }
    int before = nm->nmemo;
    nm_run(nm, y0, step);
    if (nm->nmemo == before && !nm->starved) break; /* nothing new: converged */
  }
}

/* The k-th best measured candidate by estimate (top[] holds the better ones). */
static rec *ranked(ergo__nm *nm, rec *const *top, int k) {
  rec *b = NULL;
  for (int i = 1; i < nm->nmemo; i++) {
    rec *q = &nm->memo[i];
    int taken = 0;
    for (int j = 0; j < k; j++) taken |= top[j] == q;
    if (!taken && q->all.n && (!b || estimate(nm, q) < estimate(nm, b))) b = q;
  }
  return b;
}

/* With noise, confirm the points that decide: the model's best point near the
 * incumbent (a few proposals), then the best few by estimate, each to
 * `repeats` fresh measurements, re-ranked after every one; and the baseline
 * BASE_EXTRA more times. */
static void decide(ergo__nm *nm) {
  nm->deciding = 1;
  for (int proposals = 0; room(nm, nm->decide_limit);) {
    refit(nm);
    double c[D];
    int mp[D];
    coords(nm, best_searched(nm)->p, c);
    if (proposals < PROPOSALS && model_best(nm, c, mp)) {
      rec *q = find(nm, mp);
      if (!q || q->fresh.runs == 0) {
        proposals++;
        if (afford(nm, mp)) measure(nm, mp);
        continue;
      }
    }
    rec *top[DECIDERS], *next = NULL;
    for (int k = 0; k < DECIDERS && !next && (top[k] = ranked(nm, top, k)); k++)
      if (top[k]->fresh.runs < nm->o.repeats) next = top[k];
    if (!next && nm->memo[0].all.runs < nm->o.repeats + BASE_EXTRA) next = &nm->memo[0];
    if (!next || !afford(nm, next->p)) break;
    measure_checked(nm, next->p);
  }
  /* Settle: down the ranking (SETTLE_RANKS at most), candidates shown worse or
   * too slow are passed over; the first undecided one and the baseline are
   * measured in turn (the side with fewer measurements first), so the interval
   * narrows as far as the noise needs, until a candidate is better with
   * confidence, none is left undecided, or the budget is spent. */
  while (room(nm, nm->decide_limit)) {
    rec *top[SETTLE_RANKS], *lead = NULL;
    int better = 0;
    refit(nm);
    for (int k = 0; k < SETTLE_RANKS && !better && !lead && (top[k] = ranked(nm, top, k)); k++) {
      int v = verdict(nm, top[k]);
      better = v > 0;
      if (v == 0 && hopeful(nm, top[k], nm->decide_limit - nm->evals)) lead = top[k];
    }
    if (better || !lead) break;
    const int *next = lead->fresh.runs > nm->memo[0].all.runs ? nm->memo[0].p : lead->p;
    if (!afford(nm, next)) break;
    measure_checked(nm, next);
  }
  refit(nm);
}

/* ---- the confirmation ---- */
/*
 * ERGO__NM_CONFIRM.  A candidate that passed the 95 % test above is the best of several that
 * were tested, on measurements the search looked at after each one: its own measured advantage,
 * and the baseline's mean it was compared with, are biased in its favour (the winner's curse),
 * and at 5 % noise that let points 1.085x slower than the baseline through a 5 % bound.  So
 * before any point replaces the baseline it is measured again, in turn with the baseline, n
 * times each, on measurements none of the earlier ones can bias, and it replaces the baseline
 * only when these alone pass the same test (one look, once all 2n are in).  Which point: the
 * one whose gain times its chance of passing is the largest (next_candidate()), both from the
 * less favourable of its own measurements and the surface fitted to every point; it need not
 * have passed the test above, since only the confirmation's own measurements decide (under
 * energy@5% at 5 % noise almost none did on a few measurements a side).  n is sized by the
 * noise: enough for the test to pass if the candidate's advantage were CONFIRM_SHRINK of what
 * was estimated, at least CONFIRM_MIN; all that is left if less, where the chance of passing
 * on that is at least CONFIRM_TRY.  One that fails is dropped and the next is tried, at most
 * CONFIRM_TRIES in all, each at 1 - (1 - CONFIDENCE) / CONFIRM_TRIES, so that the chance of
 * passing one that is not better stays within 1 - CONFIDENCE.  None passes: the baseline
 * stays.  The budget's ledger decides every measurement as elsewhere.
 */
#define CONFIRM_TRIES 2
#define CONFIRM_MIN 3
#define CONFIRM_SHRINK 0.75
#define CONFIRM_POWER 0.9
#define CONFIRM_TRY 0.5
/* With no candidate for the confirmation, prospects (next_prospect()): a chance of passing of at
 * least PROSPECT_TRY, measured again up to PROSPECT_MAX times since the search. */
#define PROSPECT_TRY 0.1
#define PROSPECT_MAX 6

/* The surface's log time, log energy and value at p; 0 where it does not cover p. */
static int model_at(const ergo__nm *nm, const int p[D], double *lt, double *le, double *v) {
  ergo__measure m;
  if (!predict(nm, p, 0, &m)) return 0;
  *lt = log(m.time_s);
  *le = log(m.energy_j);
  *v = value_of(nm, &m);
  return 1;
}

/* The log ratio to the baseline of quantity `which` (log_kind) the surface predicts at q;
 * -INFINITY where it has none (so the measurements decide). */
static double model_ratio(const ergo__nm *nm, const rec *q, int which) {
  double lq, eq, vq, lb, eb, vb;
  if (!model_at(nm, q->p, &lq, &eq, &vq) || !model_at(nm, nm->memo[0].p, &lb, &eb, &vb))
    return -INFINITY;
  switch (which) {
  case 0: return lq - lb;
  case 1: return eq - eb;
  case 2: return eq + lq - eb - lb;
  case 3: return eq + 2 * lq - eb - 2 * lb;
  default: return vq > 0 && vb > 0 ? log(vq / vb) : -INFINITY;
  }
}

/* How far inside its limit q is expected to be in quantity k of its confirmation (k 0: the
 * objective's log ratio to the baseline's against 0; k 1, under energy@X% only: the time's
 * against log(1 + X)), on the less favourable of its own measurements and the fitted surface
 * (`hope`: the more favourable); *sig: the sigma of one measurement of it. */
static double margin_of(const ergo__nm *nm, const rec *q, int k, double *sig, int hope) {
  const sums *b = &nm->memo[0].all, *s = q->fresh.n ? &q->fresh : &q->all;
  int which = k ? 0 : log_kind(&nm->obj);
  double dof, d = log_ratio(nm, s, b, which, sig, &dof), m = model_ratio(nm, q, which);
  d = hope && m > -INFINITY ? fmin(d, m) : fmax(d, m);
  return (k ? log1p(nm->obj.slowdown) : 0) - d;
}

/* The quantities a confirmation tests: the objective, and under energy@X% the time too. */
static int confirm_tests(const ergo__nm *nm) {
  return nm->obj.kind == ERGO__OBJ_ENERGY_BOUNDED ? 2 : 1;
}

/* Measurements per side for q's confirmation at confidence conf (see above); 0 when what is
 * known says it cannot pass. */
static int confirm_size(const ergo__nm *nm, const rec *q, double conf) {
  double z = gsl_cdf_ugaussian_Pinv(conf) + gsl_cdf_ugaussian_Pinv(CONFIRM_POWER),
         need = CONFIRM_MIN, sig;
  for (int k = 0; k < confirm_tests(nm); k++) {
    double margin = margin_of(nm, q, k, &sig, 0);
    if (!(margin > 0)) return 0;
    double n = 2 * pow(z * sig / (CONFIRM_SHRINK * margin), 2);
    if (n > need) need = n;
  }
  return need < 1e6 ? (int)ceil(need) : 1000000;
}

/* The chance that q's confirmation with n measurements a side passes at conf, were the margins
 * above the truth (normal approximation); *gain: what passing gains (the objective's margin).
 * `hope`: on the more favourable margins, the error of q's own measurements and the baseline's
 * counted too (a prospect's few measurements are a guess). */
static double pass_chance_of(const ergo__nm *nm, const rec *q, double conf, int n, double *gain,
                             int hope) {
  double zc = gsl_cdf_ugaussian_Pinv(conf), p = 1, sig;
  const sums *s = q->fresh.n ? &q->fresh : &q->all;
  double w = sqrt(2.0 / n + (hope ? 1.0 / s->n + 1.0 / nm->memo[0].all.n : 0));
  for (int k = 0; k < confirm_tests(nm); k++) {
    double margin = margin_of(nm, q, k, &sig, hope);
    if (!k) *gain = margin;
    p *= gsl_cdf_ugaussian_P((margin - zc * sig * sqrt(2.0 / n)) / (sig * w));
  }
  return p;
}

/* The next candidate to confirm, and its measurements a side (*n): of the points not tried yet,
 * the one whose gain times its chance of passing is the largest, at the size its test needs
 * (confirm_size) or all that is left if less, where that chance is at least CONFIRM_TRY.  NULL
 * when none is. */
static rec *next_candidate(const ergo__nm *nm, double conf, int left, int *n) {
  rec *c = NULL;
  double best = 0;
  for (int i = 1; i < nm->nmemo; i++) {
    rec *q = &nm->memo[i];
    if (q->rejected || q->all.n == 0 || (q->fresh.n == 0 && q->all.n < 2)) continue;
    int nq = confirm_size(nm, q, conf);
    if (nq > left) nq = left;
    if (nq < CONFIRM_MIN) continue;
    double gain = 0, p = pass_chance_of(nm, q, conf, nq, &gain, 0);
    if (p >= CONFIRM_TRY && gain > 0 && gain * p > best) best = gain * p, c = q, *n = nq;
  }
  return c;
}

/* With no candidate for the confirmation and `left` executions a side still to spend: the point
 * whose gain times its chance of passing a confirmation on all of them (hopeful: pass_chance_of())
 * is the largest, that chance at least PROSPECT_TRY, measured fewer than PROSPECT_MAX times
 * since the search; NULL when none is.  Such a point was measured once or twice by the search,
 * and too rarely again to be a candidate: the search ended with most of its executions unused,
 * the baseline kept (`default-noisy` under energy@5%: a region with 27 % to save at the
 * baseline's time, measured once 6 % slow, the search over after 31 of its 120 executions). */
static rec *next_prospect(const ergo__nm *nm, double conf, int left) {
  rec *c = NULL;
  double best = 0;
  if (left < CONFIRM_MIN) return NULL;
  for (int i = 1; i < nm->nmemo; i++) {
    rec *q = &nm->memo[i];
    if (q->rejected || q->all.n == 0 || q->fresh.runs >= PROSPECT_MAX) continue;
    double gain = 0, p = pass_chance_of(nm, q, conf, left, &gain, 1);
    if (p >= PROSPECT_TRY && gain > 0 && gain * p > best) best = gain * p, c = q;
  }
  return c;
}

/* Each try's one-sided confidence: CONFIRM_TRIES of them keep the chance of passing a point that
 * is not better within 1 - CONFIDENCE. */
static double confirm_level(void) { return 1 - (1 - CONFIDENCE) / CONFIRM_TRIES; }

static void confirm(ergo__nm *nm) {
  double conf = confirm_level();
  for (int tries = 0; tries < CONFIRM_TRIES;) {
    refit(nm);
    int n = 0, left = (nm->o.max_evals - nm->evals) / 2;
    rec *c = next_candidate(nm, conf, left, &n);
    if (!c) {
      /* None yet: a prospect measured once more (its fresh measurements), then look again. */
      rec *q = next_prospect(nm, conf, left - 1);
      if (!q || !room(nm, nm->o.max_evals)) break;
      int p[D];
      memcpy(p, q->p, sizeof p);
      if (afford(nm, p))
        measure(nm, p);
      else
        q->rejected = 1;
      continue;
    }
    c->rejected = 1; /* tried once at most */
    if (!afford_confirmation(nm, c, n)) {
      /* The budget cannot pay for measuring c again (this run would not run it long either): no
       * test is made.  Without a slowdown bound c stands on its selection's test, for a later
       * run under static; a time bound is never taken unconfirmed. */
      if (nm->obj.kind != ERGO__OBJ_ENERGY_BOUNDED && beats(nm, c)) {
        nm->confirmed = (int)(c - nm->memo);
        break;
      }
      continue;
    }
    tries++;
    untag(nm, c, TAG_CONF);
    untag(nm, &nm->memo[0], TAG_BASE_CONF);
    nm->confirming = (int)(c - nm->memo);
    /* The baseline's measurements checked as the search's are (measure_checked()): the work
     * that changed while a confirmation ran (`phase-noisy`, halfway through a 200-step run)
     * otherwise went into the baseline's mean unremarked, and the model kept a baseline of both
     * works' (3 of 10 seeds on the 20-core node under `energy`: the region left at its baseline,
     * 1.27x the oracle of its new work; SIMULATED). */
    for (int k = 0; k < 2 * n && !nm->over && !nm->drifted; k++) {
      const int *p = k % 2 ? nm->memo[0].p : c->p;
      if (k && !afford(nm, p)) break;
      measure_checked(nm, p);
    }
    nm->confirming = 0;
    if (nm->drifted) break;
    if (c->conf.runs == n && nm->base_conf.runs >= n &&
        judge(nm, &c->conf, &nm->base_conf, conf) > 0) {
      nm->confirmed = (int)(c - nm->memo);
      break;
    }
  }
  nm->confirm_over = 1;
  refit(nm);
}

static void search(ergo__nm *nm) {
  while (nm->memo[0].all.runs < nm->o.repeats && room(nm, nm->o.max_evals))
    measure(nm, nm->g.start);
  if (nm->nact == 0) return;
  /* First run: from the baseline with steps of half the range toward the
   * inside, so the first simplex already spans the grid (a small simplex at
   * the all-maximum corner crawls toward small thread counts). */
  double y0[D], step[D];
  coords(nm, nm->g.start, y0);
  /* Under a budget a dimension searched on a log scale (a thread count) steps a quarter of the
   * range: the first points are measured before anything known can pay their cost back, and
   * half of a log range is a factor of sqrt(n) in threads, up to that in time.  Half of a linear
   * range (a frequency) costs at most the frequencies' ratio in time, and a quarter moved a
   * single noisy measurement by less than its noise: the simplex crawled, and online kept the
   * baseline on regions with 8-20 % to save. */
  for (int k = 0; k < nm->nact; k++) {
    double first = budgeted(nm) && nm->g.log[nm->act[k]] ? 0.25 : 0.5;
    step[k] = y0[k] > 0.5 ? -first : first;
  }
  nm_run(nm, y0, step);
  restarts(nm);
  if (nm->noisy) decide(nm);
  if (nm->noisy && nm->o.confirm) confirm(nm);
}

static void co_main(unsigned hi, unsigned lo) {
  ergo__nm *nm = (ergo__nm *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
  search(nm);
  nm->final = choose(nm);
  /* Exact measurements: a choice measured after the baseline's last measurement is compared with
   * it once more, on the work as it is now (with noise the confirmation measures the two in
   * turn), within the search's executions.  A search that ended early (the budget) on work
   * shrinking step by step otherwise chose a point that had merely met less work: 1.18x its
   * baseline's time on the work as the run ended (random program 3014 without a counter: 1.59x). */
  if (nm->final && !nm->noisy && nm->o.base_every > 0 && nm->since_base > 0 && !nm->drifted &&
      nm->evals < nm->o.max_evals) {
    check_base(nm);
    if (nm->drifted) nm->final = 0;
  }
  apply_choice(nm);
  nm->done = 1;
  for (;;) suspend(nm); /* never resumed: ask() answers from final once done */
}

/* getcontext returns twice, as setjmp does: kept apart from the caller's
 * locals so that none can be clobbered. */
static int co_init(ergo__nm *nm) {
  if (getcontext(&nm->co) != 0) return -1;
  nm->co.uc_stack.ss_sp = nm->stack;
  nm->co.uc_stack.ss_size = STACK_BYTES;
  nm->co.uc_link = NULL;
  uintptr_t v = (uintptr_t)nm;
  makecontext(&nm->co, (void (*)(void))co_main, 2, (unsigned)(v >> 32), (unsigned)v);
  return 0;
}

/* ---- the API ---- */

ergo__nm *ergo__nm_new(const ergo__nm_grid *g, const ergo__objective *obj,
                       const ergo__nm_options *o) {
  if (!g || !obj || g->dims < 0 || g->dims > D) return NULL;
  ergo__nm_options def;
  ergo__nm_options_default(&def);
  if (!o) o = &def;
  if (o->max_evals < 1 || o->repeats < 1 || o->confirm < 0 || o->confirm >= o->max_evals ||
      o->base_every < 0 || !(o->noise_rel >= 0) || !isfinite(o->noise_rel) || o->horizon < 1 ||
      !isfinite(o->budget_time) || !isfinite(o->budget_energy) || !isfinite(o->debt_time) ||
      !isfinite(o->debt_energy) || !(o->owed_time >= 0) || !isfinite(o->owed_time) ||
      !(o->owed_energy >= 0) || !isfinite(o->owed_energy) || o->owed_execs < 0)
    return NULL;
  for (int d = 0; d < g->dims; d++)
    if (g->n[d] < 1 || g->start[d] < 0 || g->start[d] >= g->n[d]) return NULL;

  ergo__nm *nm = calloc(1, sizeof *nm);
  if (!nm) return NULL;
  nm->g = *g;
  for (int d = g->dims; d < D; d++) nm->g.n[d] = 1, nm->g.start[d] = 0, nm->g.log[d] = 0;
  nm->o = *o;
  nm->obj = *obj;
  for (int d = 0; d < g->dims; d++)
    if (g->n[d] >= 2) nm->act[nm->nact++] = d;
  nm->noisy = o->noise_rel > 0 || o->repeats > 1;
  /* With noise the confirmations' share is kept from the simplex; it keeps at
   * least the baseline and one simplex. */
  int reserve = nm->noisy ? DECIDERS * o->repeats + BASE_EXTRA + SETTLE : 0,
      least = o->repeats + nm->nact + 1;
  nm->decide_limit = o->max_evals - (nm->noisy ? o->confirm : 0);
  nm->search_limit = nm->decide_limit - reserve;
  if (nm->search_limit < least)
    nm->search_limit = least < nm->decide_limit ? least : nm->decide_limit;
  nm->cap = o->max_evals + 1;
  nm->memo = calloc((size_t)nm->cap, sizeof *nm->memo);
  nm->samples = calloc((size_t)nm->cap, sizeof *nm->samples);
  nm->ml = calloc((size_t)nm->cap, sizeof *nm->ml);
  nm->stack = malloc(STACK_BYTES);
  if (!nm->memo || !nm->samples || !nm->ml || !nm->stack) goto fail;
  nm->thr[0] = nm->thr[1] = INFINITY;
  memcpy(nm->memo[0].p, nm->g.start, sizeof nm->memo[0].p);
  nm->nmemo = 1;

  if (nm->nact > 0) {
    /* GSL's default handler aborts; an allocation failure must be a NULL. */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    nm->s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, (size_t)nm->nact);
    nm->x = gsl_vector_alloc((size_t)nm->nact);
    nm->step = gsl_vector_alloc((size_t)nm->nact);
    gsl_set_error_handler(old);
    if (!nm->s || !nm->x || !nm->step) goto fail;
    nm->fn = (gsl_multimin_function){f_nm, (size_t)nm->nact, nm};
  }
  if (co_init(nm) == 0) return nm;
fail:
  ergo__nm_free(nm);
  return NULL;
}

void ergo__nm_free(ergo__nm *nm) {
  if (!nm) return;
  /* A suspended coroutine owns nothing: GSL's state and the memo live here
   * (GSL's set and iterate allocate nothing), so dropping its stack
   * mid-iteration leaks nothing. */
  if (nm->s) gsl_multimin_fminimizer_free(nm->s);
  if (nm->x) gsl_vector_free(nm->x);
  if (nm->step) gsl_vector_free(nm->step);
  free(nm->stack);
  free(nm->samples);
  for (int i = 0; i < nm->nmemo; i++) {
    if (nm->ml) ergo__mlist_free(&nm->ml[i]);
    free(nm->memo[i].tag);
  }
  free(nm->ml);
  free(nm->memo);
  free(nm);
}

void ergo__nm_charge(ergo__nm *nm, const ergo__measure *m) {
  if (!nm->done || !budgeted(nm) || !nm->memo[0].all.n || !(m->time_s > 0)) return;
  for (int k = 0; k < 2; k++) {
    if (!limited(nm, k)) continue;
    double v = k ? m->energy_j : m->time_s, c = v - (1 + allowance(nm, k)) * base_ref(nm, k, 0);
    nm->charged[k] += c;
    nm->charged_all[k] += c;
  }
}

/* The plan made again on what is known now: the executions handed out since it was last made
 * go into the ledger at what they cost by the means they were planned on, and the probes'
 * charges are in charged_all, which the plan counts. */
static void replan(ergo__nm *nm) {
  for (int k = 0; k < 2; k++)
    if (limited(nm, k))
      nm->post_debt[k] += nm->post_pay * rate(nm, &nm->memo[nm->pay], k, 0) +
                          nm->post_app * rate(nm, &nm->memo[nm->applied], k, 0);
  nm->post_execs += nm->post_pay + nm->post_app;
  nm->post_pay = nm->post_app = 0;
  nm->charged[0] = nm->charged[1] = 0;
  apply_choice(nm);
}

/* A probe's charge: the plan is made again with it in the ledger (more executions at the payer,
 * or a payer that pays faster where the rest of the horizon is too short for this one's). */
static void pay_charges(ergo__nm *nm) {
  for (int k = 0; k < 2; k++)
    if (limited(nm, k) && nm->charged[k] > 0) {
      replan(nm);
      return;
    }
  nm->charged[0] = nm->charged[1] = 0;
}

/* Measurement m of memo entry i, tagged t, into its list and sums. */
static void record(ergo__nm *nm, int i, const ergo__measure *m, int t) {
  rec *q = &nm->memo[i];
  if (q->unlisted || keep_measure(nm, i, m, t)) {
    /* Out of memory it is counted as it comes, outliers and all, from then on. */
    q->unlisted = 1;
    add(&q->all, m);
    if (t & TAG_CONF) add(&q->conf, m);
    if (t & TAG_BASE_CONF) add(&nm->base_conf, m);
    if (t & TAG_FRESH) add(&q->fresh, m);
  } else if (ergo__robust_update(nm->ml, nm->nmemo, nm->evals, nm->thr)) {
    /* Kept in its list: the sums are rebuilt without the outliers, every point's when the
     * thresholds moved. */
    for (int j = 0; j < nm->nmemo; j++) resum(nm, j);
  } else {
    resum(nm, i);
  }
}

int ergo__nm_ask(ergo__nm *nm, int point[D]) {
  if (!nm->done && !nm->asked) swapcontext(&nm->caller, &nm->co);
  if (nm->done) {
    pay_charges(nm);
    int i = nm->applied;
    nm->handed_pay = nm->pay_n > 0;
    if (nm->pay_n > 0)
      i = nm->pay, nm->pay_n--, nm->post_pay++;
    else
      nm->post_app++;
    memcpy(point, nm->memo[i].p, sizeof nm->want);
    return 0;
  }
  memcpy(point, nm->want, sizeof nm->want);
  return 1;
}

int ergo__nm_tell(ergo__nm *nm, const int point[D], const ergo__measure *m) {
  if (!nm->asked || !point || !m || !same(point, nm->want)) return ERGO_EINVAL;
  if (!(m->time_s > 0) || !isfinite(m->time_s) || !(m->energy_j >= 0) || !isfinite(m->energy_j) ||
      !(m->resource >= 0) || !isfinite(m->resource))
    return ERGO_EINVAL;
  rec *q = find(nm, point);
  if (!q) {
    if (nm->nmemo == nm->cap) return ERGO_EINVAL; /* cannot happen: one new point per eval */
    q = &nm->memo[nm->nmemo++];
    memcpy(q->p, point, sizeof q->p);
  }
  int i = (int)(q - nm->memo), t = TAG_ALL |
                                   (nm->confirming && i == nm->confirming ? TAG_CONF : 0) |
                                   (nm->confirming && i == 0 ? TAG_BASE_CONF : 0) |
                                   (nm->deciding && !nm->confirming ? TAG_FRESH : 0);
  nm->since_base = i == 0 ? 0 : nm->since_base + 1;
  nm->last = *m;
  nm->evals++;
  record(nm, i, m, t);
  nm->asked = 0;
  nm->inside = compute_inside(nm);
  return 0;
}

int ergo__nm_tell_paid(ergo__nm *nm, const int point[D], const ergo__measure *m) {
  if (!nm->done || !nm->noisy || !nm->handed_pay || nm->pay <= 0 || nm->post_pay <= 0 || !point ||
      !m || !same(point, nm->memo[nm->pay].p) || !(m->time_s > 0) || !isfinite(m->time_s) ||
      !(m->energy_j >= 0) || !isfinite(m->energy_j) || !(m->resource >= 0) ||
      !isfinite(m->resource))
    return 0;
  nm->handed_pay = 0;
  /* This one counts by its measurement from now on (in the point's sums, in evals, as debt()
   * counts them), not among those handed out since the plan. */
  nm->post_pay--;
  int i = nm->pay;
  rec *q = &nm->memo[i];
  q->paid++;
  nm->evals++;
  record(nm, i, m, TAG_ALL);
  replan(nm);
  return 1;
}

int ergo__nm_end(ergo__nm *nm) {
  if (nm->done || nm->drifted || !nm->confirming || nm->confirm_over) return 0;
  const rec *c = &nm->memo[nm->confirming];
  if (c->conf.runs < CONFIRM_MIN || nm->base_conf.runs < CONFIRM_MIN ||
      judge(nm, &c->conf, &nm->base_conf, confirm_level()) <= 0)
    return 0;
  /* The search is over, the coroutine never resumed: its choice the best that beat the baseline
   * on its own test where the objective has no bound (choose()), else c; nothing left to pay. */
  int f = choose(nm);
  nm->final = nm->applied = f ? f : nm->confirming;
  nm->pay = nm->pay_n = 0;
  nm->done = 1;
  return 1;
}

void ergo__nm_best(const ergo__nm *nm, int point[D], ergo__measure *m, double *v) {
  int best = nm->done ? nm->final : choose(nm);
  if (point) memcpy(point, nm->memo[best].p, sizeof nm->want);
  if (m) mean(&nm->memo[best].all, m);
  if (v) *v = value(nm, &nm->memo[best].all);
}

int ergo__nm_applied(const ergo__nm *nm, int point[D]) {
  int a = nm->done ? nm->applied : choose(nm), final = nm->done ? nm->final : a;
  if (point) memcpy(point, nm->memo[a].p, sizeof nm->want);
  return a != final;
}

int ergo__nm_over_budget(const ergo__nm *nm) { return nm->over; }
double ergo__nm_noise(const ergo__nm *nm, int which) { return seen_sigma(nm, which ? 1 : 0); }

void ergo__nm_set_horizon(ergo__nm *nm, int horizon) {
  if (horizon >= 1) nm->o.horizon = horizon;
}

void ergo__nm_debt(const ergo__nm *nm, double *time_s, double *energy_j) {
  double d[2] = {0, 0};
  for (int k = 0; k < 2 && nm->memo[0].all.n; k++) {
    if (!limited(nm, k)) continue;
    d[k] = debt(nm, k, 0);
    if (nm->done)
      d[k] += nm->post_debt[k] + nm->post_pay * rate(nm, &nm->memo[nm->pay], k, 0) +
              nm->post_app * rate(nm, &nm->memo[nm->applied], k, 0) + nm->charged_all[k];
  }
  *time_s = d[0];
  *energy_j = d[1];
}
int ergo__nm_skipped(const ergo__nm *nm) { return nm->skipped; }
int ergo__nm_drifted(const ergo__nm *nm) { return nm->drifted; }

void ergo__nm_baseline(const ergo__nm *nm, ergo__measure *m) { mean(&nm->memo[0].all, m); }

int ergo__nm_point(const ergo__nm *nm, int i, int point[D], ergo__measure *m, int *n) {
  if (i < 0 || i >= nm->nmemo) return 0;
  if (point) memcpy(point, nm->memo[i].p, sizeof nm->want);
  if (m) mean(&nm->memo[i].all, m);
  /* The search's measurements: the payback executions sharpen the mean, but were no search. */
  if (n) {
    const rec *q = &nm->memo[i];
    *n = q->all.n - q->paid;
    if (*n < 1 && q->all.n > 0) *n = 1;
  }
  return 1;
}
int ergo__nm_evals(const ergo__nm *nm) { return nm->evals; }
int ergo__nm_points(const ergo__nm *nm) { return nm->nmemo - (nm->memo[0].all.runs == 0); }
int ergo__nm_outliers(const ergo__nm *nm) {
  int n = 0;
  for (int i = 0; i < nm->nmemo; i++) n += nm->memo[i].all.runs - nm->memo[i].all.n;
  return n;
}
int ergo__nm_done(const ergo__nm *nm) { return nm->done; }
