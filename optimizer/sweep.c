/* sweep.c - the sweep policy's calibration schedule: warm-up, the baseline, a coarse grid in
 * serpentine order, refinement around its best, and the finalists raced under noise. */
#include "optimizer/sweep.h"

#include "optimizer/nm.h"
#include "optimizer/nm_model.h"
#include "optimizer/robust.h"

#include <gsl/gsl_cdf.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ergo__sweep_explicit(const ergo__sweep_spec *spec) {
  if (!spec) return 0;
  for (int i = 0; i < ERGO__SPACE_DIMS; i++)
    if (spec->n[i]) return 1;
  return 0;
}

/* ---- the schedule ---------------------------------------------------------------------------- */

/* PH_LAST: an explicit grid, planned in full; over once measured. */
enum { PH_WARMUP, PH_BASE, PH_GRID, PH_SEARCH, PH_FINAL, PH_LAST, PH_DONE };

typedef struct entry {
  int point;
  int record; /* 0: warm-up, the measurement is dropped */
} entry;

/* A list of grid indices per knob slot (a slot without a knob has the one index 0). */
typedef struct lists {
  int n[ERGO__SPACE_DIMS];
  int idx[ERGO__SPACE_DIMS][ERGO__SPACE_MAX_VALUES];
} lists;

struct ergo__sweep {
  ergo__space space;
  ergo__objective obj;
  int repeats, budget, explicit_grid, exhaustive;
  int exact;   /* the baseline's first measurements showed noise below ERGO__SWEEP_PRECISION */
  int through; /* a change seen while exploring does not end the schedule */
  int reserve; /* executions kept for the final phase */
  /* The search: the pattern's step per knob (grid indices) and which poll is next (0: along each
   * knob, 1: along pairs of knobs). */
  int step[ERGO__SPACE_DIMS];
  int poll;
  int proposals; /* points the fitted surface proposed after the search converged */
  int out_of_budget;
  lists grid; /* the grid phase's values */
  ergo__sweep_point *pts;
  /* Per point: the sums of squared times and energies (for the noise estimate), then the sum of
   * its times and their number since it became a candidate of the final phase (-1: not one).
   * These and pts' sums are of the measurements that are not outliers (optimizer/robust.h). */
  double (*sq)[4];
  ergo__mlist *ml; /* per point: every measurement, in order */
  int *mark_at;    /* per point: its measurements before this one made it a candidate (-1: none) */
  /* per point: the executions told at its last ERGO__SWEEP_SUPPORT_N measurements (the one at
   * index i of its ml at [i % ERGO__SWEEP_SUPPORT_N]) */
  int (*at)[ERGO__SWEEP_SUPPORT_N];
  double thr[2];                 /* the outlier thresholds, log time and log energy */
  int (*pidx)[ERGO__SPACE_DIMS]; /* grid indices of each point */
  int npts, cap;
  entry *q;
  int qlen, qcap, qpos;
  int handed, told;
  int phase, center, best, base;
  /* final phase: the candidates still in the race, the rung being measured */
  int fin[ERGO__SWEEP_FINALISTS];
  int nfin, rung, rungs;
  int changed;
  int ext, ext_to; /* the candidate extend() measures (-1: none yet), to how many */
  int recheck;     /* a config measured right after the baseline, as often (-1: none) */
};

static int value_index(const ergo__space *sp, int slot, int64_t v) {
  int best = 0;
  for (int k = 1; k < sp->n[slot]; k++)
    if (llabs(sp->values[slot][k] - v) < llabs(sp->values[slot][best] - v)) best = k;
  return best;
}

static int find_point(const ergo__sweep *s, const int idx[ERGO__SPACE_DIMS]) {
  for (int p = 0; p < s->npts; p++)
    if (!memcmp(s->pidx[p], idx, sizeof s->pidx[p])) return p;
  return -1;
}

/* The executions told when p was last measured (0: never). */
static int last_at(const ergo__sweep *s, int p) {
  int n = s->ml[p].n;
  return n ? s->at[p][(n - 1) % ERGO__SWEEP_SUPPORT_N] : 0;
}

static int add_point(ergo__sweep *s, const int idx[ERGO__SPACE_DIMS]) {
  int p = find_point(s, idx);
  if (p >= 0) return p;
  if (s->npts == s->cap) {
    int cap = s->cap ? 2 * s->cap : 64;
    ergo__sweep_point *pts = realloc(s->pts, (size_t)cap * sizeof *pts);
    if (pts) s->pts = pts;
    double(*sq)[4] = realloc(s->sq, (size_t)cap * sizeof *sq);
    if (sq) s->sq = sq;
    int(*pidx)[ERGO__SPACE_DIMS] = realloc(s->pidx, (size_t)cap * sizeof *pidx);
    if (pidx) s->pidx = pidx;
    ergo__mlist *ml = realloc(s->ml, (size_t)cap * sizeof *ml);
    if (ml) s->ml = ml;
    int *mark_at = realloc(s->mark_at, (size_t)cap * sizeof *mark_at);
    if (mark_at) s->mark_at = mark_at;
    int(*at)[ERGO__SWEEP_SUPPORT_N] = realloc(s->at, (size_t)cap * sizeof *at);
    if (at) s->at = at;
    if (!pts || !sq || !pidx || !ml || !mark_at || !at) return -1;
    s->cap = cap;
  }
  ergo__sweep_point *pt = &s->pts[s->npts];
  memset(pt, 0, sizeof *pt);
  for (int i = 0; i < ERGO__SPACE_DIMS; i++)
    pt->config.v[i] = s->space.n[i] ? s->space.values[i][idx[i]] : 0;
  s->sq[s->npts][0] = s->sq[s->npts][1] = s->sq[s->npts][2] = 0;
  s->sq[s->npts][3] = -1;
  s->ml[s->npts] = (ergo__mlist){0};
  s->mark_at[s->npts] = -1;
  memcpy(s->pidx[s->npts], idx, sizeof s->pidx[s->npts]);
  return s->npts++;
}

/* Point p becomes a candidate of the final phase: its measurements from now on are counted apart
 * (those that made it a candidate are the luckiest of many, and would pass it on their luck). */
static void mark(ergo__sweep *s, int p) {
  if (s->sq[p][3] < 0) s->sq[p][2] = s->sq[p][3] = 0, s->mark_at[p] = s->ml[p].n;
}

/* Executions the default schedule may still plan, beyond what `keep` holds back. */
static int room(const ergo__sweep *s, int keep) {
  if (s->explicit_grid) return 1 << 30;
  return s->budget - s->qlen - keep;
}

/* Room in the queue for `more` entries beyond its length: 0, or -1 out of memory. */
static int q_reserve(ergo__sweep *s, int more) {
  if (s->qlen + more <= s->qcap) return 0;
  int cap = s->qcap ? 2 * s->qcap : 256;
  if (cap < s->qlen + more) cap = s->qlen + more;
  entry *q = realloc(s->q, (size_t)cap * sizeof *q);
  if (!q) return -1;
  s->q = q;
  s->qcap = cap;
  return 0;
}

/* Plan `times` executions of point p, as many as the budget allows; returns how many. */
static int enqueue(ergo__sweep *s, int p, int times, int record, int keep) {
  int k = 0;
  while (k < times && room(s, keep) > 0) {
    if (q_reserve(s, 1)) break;
    s->q[s->qlen++] = (entry){p, record};
    k++;
  }
  return k;
}

ergo__measure ergo__sweep_mean(const ergo__sweep_point *p) {
  ergo__measure m = {0, 0, 0};
  if (p->n > 0) {
    m.time_s = p->time_s / p->n;
    m.energy_j = p->energy_j / p->n;
    m.resource = p->resource / p->n;
  }
  return m;
}

/* The relative standard deviation of one measurement of time (k = 0) or energy (k = 1), pooled
 * over every point measured more than once; 0 before any was. */
static double noise_except(const ergo__sweep *s, int k, int *dof_out, int skip) {
  double var = 0;
  int dof = 0;
  for (int p = 0; p < s->npts; p++) {
    const ergo__sweep_point *pt = &s->pts[p];
    if (pt->n < 2 || p == skip) continue;
    double mean = (k ? pt->energy_j : pt->time_s) / pt->n;
    if (mean > 0) var += (s->sq[p][k] - pt->n * mean * mean) / (mean * mean);
    dof += pt->n - 1;
  }
  if (dof_out) *dof_out = dof;
  return dof && var > 0 ? sqrt(var / dof) : 0.0;
}

static double noise_dof(const ergo__sweep *s, int k, int *dof_out) {
  return noise_except(s, k, dof_out, -1);
}

static double noise(const ergo__sweep *s, int k) { return noise_dof(s, k, NULL); }

/* The relative sigma of one measurement of time (k = 0) or energy (1) as a floor for
 * base_moved(): the smaller of the pooled one (noise_except()) and the median over the points
 * measured more than once (but `skip`) of each one's own.  The pooled sigma is the mean of their
 * variances, so one point whose work changed between its measurements, or that caught an
 * outlier (an execution twice as long), sets it: a point measured 6 times before its work
 * changed and twice after (6x longer) made it 0.5 where each point's own was 0.005, and a
 * baseline that moved 2.9x went unseen (random program 56); the median alone fails the other
 * way, when most points measured twice were measured once on each side of the change. */
static double robust_noise(const ergo__sweep *s, int k, int skip) {
  double *v = malloc((size_t)(s->npts > 0 ? s->npts : 1) * sizeof *v);
  int m = 0;
  for (int p = 0; v && p < s->npts; p++) {
    const ergo__sweep_point *pt = &s->pts[p];
    if (pt->n < 2 || p == skip) continue;
    double mean = (k ? pt->energy_j : pt->time_s) / pt->n;
    if (!(mean > 0)) continue;
    double var = (s->sq[p][k] - pt->n * mean * mean) / (mean * mean) / (pt->n - 1);
    v[m++] = var > 0 ? sqrt(var) : 0;
  }
  double r = noise_except(s, k, NULL, skip);
  if (m >= 3) r = fmin(r, ergo__median(v, m));
  free(v);
  return r;
}

/* The objective of measure m against the baseline's mean, with m's time counted `margin`
 * (relative) slower when the objective bounds the slowdown. */
static double value_at(const ergo__sweep *s, ergo__measure m, double margin) {
  if (s->base < 0 || !s->pts[s->base].n) return ergo__objective_value(&s->obj, &m, NULL);
  ergo__measure b = ergo__sweep_mean(&s->pts[s->base]);
  if (s->obj.kind == ERGO__OBJ_ENERGY_BOUNDED) m.time_s *= 1.0 + margin;
  return ergo__objective_value(&s->obj, &m, &b);
}

/* The objective of a point's mean.  Under a slowdown bound and noise, a point's time counts z
 * standard errors (its own and the baseline's) slower than its mean: a point whose mean is just
 * inside the bound is as likely just outside, and among hundreds of points the luckiest would
 * be chosen (ERGO__SWEEP_MARGIN while searching; ERGO__SWEEP_SURE for the final choice where
 * the noise is below the precision).  The baseline is the reference, inside its bound by
 * definition. */
static double value_of(const ergo__sweep *s, int p, double sd_time, double z) {
  int nb = s->base >= 0 ? s->pts[s->base].n : 0;
  double margin = p != s->base && nb ? z * sd_time * sqrt(1.0 / s->pts[p].n + 1.0 / nb) : 0.0;
  return value_at(s, ergo__sweep_mean(&s->pts[p]), margin);
}

/* Solve the n x n system a x = b (Gaussian elimination with partial pivoting); -1 when it is
 * (nearly) singular. */
static int solve(int n, double a[4][4], double b[4], double x[4]) {
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(a[r][c]) > fabs(a[piv][c])) piv = r;
    if (fabs(a[piv][c]) < 1e-9) return -1;
    for (int k = 0; k < n; k++) {
      double t = a[c][k];
      a[c][k] = a[piv][k];
      a[piv][k] = t;
    }
    double t = b[c];
    b[c] = b[piv];
    b[piv] = t;
    for (int r = c + 1; r < n; r++) {
      double f = a[r][c] / a[c][c];
      for (int k = c; k < n; k++) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  for (int r = n - 1; r >= 0; r--) {
    double v = b[r];
    for (int k = r + 1; k < n; k++) v -= a[r][k] * x[k];
    x[r] = v / a[r][r];
  }
  return 0;
}

/* A point's time and energy as its measured neighbourhood says: a weighted least-squares plane
 * through the logarithms of the means of every measured point within one step in each knob,
 * read at the point.  Time and energy change smoothly from one knob step to the next, so
 * under noise the plane through a dozen or more points says more than one measurement; a plane
 * is exact on linear trends, so the neighbours on one side do not bias it.  The point's own
 * mean when too few neighbours were measured. */
static ergo__measure smoothed_var(const ergo__sweep *s, int p, double *var) {
  ergo__measure m = ergo__sweep_mean(&s->pts[p]);
  double a[2][4][4] = {{{0}}}, b[2][4] = {{0}};
  if (var) *var = s->pts[p].n ? 1.0 / s->pts[p].n : INFINITY;
  int dims[ERGO__SPACE_DIMS], nd = 0, used = 0;
  for (int i = 0; i < ERGO__SPACE_DIMS; i++)
    if (s->space.n[i] > 1) dims[nd++] = i;
  for (int q = 0; q < s->npts; q++) {
    const ergo__sweep_point *pt = &s->pts[q];
    if (!pt->n || !(pt->time_s > 0) || !(pt->energy_j > 0)) continue;
    double x[4] = {1, 0, 0, 0};
    int near = 1;
    for (int d = 0; d < nd && near; d++) {
      int diff = s->pidx[q][dims[d]] - s->pidx[p][dims[d]];
      near = diff >= -1 && diff <= 1;
      x[d + 1] = diff;
    }
    if (!near) continue;
    double y[2] = {log(pt->time_s / pt->n), log(pt->energy_j / pt->n)};
    for (int k = 0; k < 2; k++)
      for (int r = 0; r <= nd; r++) {
        for (int c = 0; c <= nd; c++) a[k][r][c] += pt->n * x[r] * x[c];
        b[k][r] += pt->n * x[r] * y[k];
      }
    used++;
  }
  if (used < 2 * (nd + 1)) return m;
  double coef[2][4], inv[4][4], e0[4] = {1, 0, 0, 0}, z[4];
  memcpy(inv, a[0], sizeof inv);
  for (int k = 0; k < 2; k++)
    if (solve(nd + 1, a[k], b[k], coef[k])) return m;
  m.time_s = exp(coef[0][0]);
  m.energy_j = exp(coef[1][0]);
  /* The variance of the plane's value at the point, per unit variance of one measurement: the
   * first diagonal element of the inverse of the weighted normal matrix. */
  if (var && !solve(nd + 1, inv, e0, z) && z[0] > 0) *var = z[0];
  return m;
}

static ergo__measure smoothed(const ergo__sweep *s, int p) { return smoothed_var(s, p, NULL); }

/* The measured point of lowest objective among those with at least min_n measurements (each
 * with z standard errors of margin, value_of()); ties keep the earlier point. */
static int argmin(const ergo__sweep *s, int min_n, double z) {
  int best = -1;
  double bv = 0, sd_time = noise(s, 0);
  for (int p = 0; p < s->npts; p++) {
    if (s->pts[p].n < min_n || s->pts[p].n == 0) continue;
    double v = value_of(s, p, sd_time, z);
    if (best < 0 || v < bv) {
      best = p;
      bv = v;
    }
  }
  return best;
}

/* Measurements of the final winner and of the baseline: enough for the confidence interval of
 * the log ratio of their times (ERGO__NM_CONFIDENCE, one-sided) to be ERGO__SWEEP_CI wide under
 * the noise seen so far, so a point within a bound by that much can be shown to be; at least
 * repeats + ERGO__SWEEP_FINAL, at most a fifth of the budget. */
static int final_n(const ergo__sweep *s) {
  int n = s->repeats + ERGO__SWEEP_FINAL;
  /* The sigma that decides: time's under a slowdown bound, else the larger. */
  double sig =
      s->obj.kind == ERGO__OBJ_ENERGY_BOUNDED ? noise(s, 0) : fmax(noise(s, 0), noise(s, 1));
  double sd = sig * 1.645 / ERGO__SWEEP_CI;
  double need = ceil(2 * sd * sd);
  int most = s->budget / 5;
  if (need > most) need = most;
  return need > n ? (int)need : n;
}

/* Candidates the final phase starts with: without noise the best alone (re-measured to confirm
 * it), else ERGO__SWEEP_FINALISTS, halved rung by rung. */
static int finalists(const ergo__sweep *s) {
  double sd = fmax(noise(s, 0), noise(s, 1));
  return sd < ERGO__SWEEP_PRECISION / 10 ? 1 : ERGO__SWEEP_FINALISTS;
}

static int rungs_of(int k) {
  int r = 0;
  while ((1 << r) < k) r++;
  return r;
}

/* Measurements each candidate has after rung r of `rungs`: doubling up to `want`. */
static int rung_target(const ergo__sweep *s, int r, int rungs, int want) {
  int t = (want + (1 << (rungs - r)) - 1) >> (rungs - r);
  int least = s->repeats + ERGO__SWEEP_FINAL;
  return t > least ? t : least;
}

/* 1 when the final phase's first rung measures the baseline ERGO__SWEEP_FINAL times afresh
 * whatever its n: where the noise is below ERGO__SWEEP_PRECISION its first measurements already
 * count as many as the race asks for, and none would be taken after the search, so base_moved()
 * could not see a work that changed while the search ran (a phase change late in an exhaustive
 * grid had its last points, measured on the new work, compared with a baseline measured on the
 * old: a region chosen at 1.32x its baseline's time under energy@10%). */
static int fresh_base(const ergo__sweep *s) {
  return !s->explicit_grid && fmax(noise(s, 0), noise(s, 1)) < ERGO__SWEEP_PRECISION;
}

/* Executions the final phase will take, when its candidates have `repeats` measurements. */
static int final_cost(const ergo__sweep *s, int k, int want) {
  int rungs = rungs_of(k), cost = 0, had = s->repeats, nb = s->pts[s->base].n;
  for (int r = 0; r <= rungs; r++, k = (k + 1) / 2) {
    int t = rung_target(s, r, rungs, want);
    cost += k * (t - had);
    had = t;
  }
  int fresh = want > nb ? want - nb : 0;
  return cost + (fresh_base(s) && fresh < ERGO__SWEEP_FINAL ? ERGO__SWEEP_FINAL : fresh);
}

/* Walk the box `l` in reflected mixed-radix Gray order (core outermost, threads innermost, so
 * the cheapest knob switches most often): consecutive points differ in one knob by one step.
 * Dimension i runs downward when bit i of `down` is set.  Plans every point not measured yet,
 * `repeats` times; returns the points planned, or -1 when the budget ran out. */
static int walk(ergo__sweep *s, const lists *l, unsigned down, int keep) {
  long total = 1;
  for (int i = 0; i < ERGO__SPACE_DIMS; i++) total *= l->n[i];
  int planned = 0;
  for (long t = 0; t < total; t++) {
    int idx[ERGO__SPACE_DIMS];
    long inner = total;
    for (int i = 0; i < ERGO__SPACE_DIMS; i++) {
      long prefix = t / inner; /* the outer dimensions' position, as one number */
      inner /= l->n[i];
      int d = (int)((t / inner) % l->n[i]);
      if (prefix & 1) d = l->n[i] - 1 - d;
      if (down >> i & 1) d = l->n[i] - 1 - d;
      idx[i] = l->idx[i][d];
    }
    int known = find_point(s, idx);
    if (known >= 0 && s->pts[known].n > 0) continue;
    if (room(s, keep) < s->repeats) return -1;
    int p = add_point(s, idx);
    if (p < 0 || enqueue(s, p, s->repeats, 1, keep) < s->repeats) return -1;
    planned++;
  }
  return planned;
}

/* Points of l not measured yet. */
static long unmeasured(const ergo__sweep *s, const lists *l) {
  long c = 1;
  for (int i = 0; i < ERGO__SPACE_DIMS; i++) c *= l->n[i];
  for (int p = 0; p < s->npts; p++) {
    if (!s->pts[p].n) continue;
    int in = 1;
    for (int i = 0; i < ERGO__SPACE_DIMS && in; i++) {
      int hit = 0;
      for (int k = 0; k < l->n[i] && !hit; k++) hit = l->idx[i][k] == s->pidx[p][i];
      in = hit;
    }
    c -= in;
  }
  return c;
}

/* The default schedule, planned once the baseline's measurements tell the noise: the whole space
 * when it fits the budget, else the search (its first steps a quarter of each knob's range); and
 * the final phase's share of the budget. */
static void plan_grid(ergo__sweep *s) {
  lists *g = &s->grid;
  s->reserve = final_cost(s, finalists(s), final_n(s));
  s->exact = fmax(noise(s, 0), noise(s, 1)) < ERGO__SWEEP_PRECISION;
  for (int i = 0; i < ERGO__SPACE_DIMS; i++) {
    g->n[i] = s->space.n[i] ? s->space.n[i] : 1;
    for (int k = 0; k < g->n[i]; k++) g->idx[i][k] = k;
  }
  long walk_n = s->repeats * unmeasured(s, g);
  if (s->qlen + walk_n + walk_n / ERGO__SWEEP_BASE_EVERY + s->reserve <= s->budget) {
    s->exhaustive = 1;
    return;
  }
  for (int i = 0; i < ERGO__SPACE_DIMS; i++) {
    int n = s->space.n[i];
    s->step[i] = n > 1 ? (n - 1 + 2) / 4 : 0;
    if (n > 1 && s->step[i] < 1) s->step[i] = 1;
  }
  s->poll = 0;
}

ergo__sweep *ergo__sweep_new(const ergo__space *space, const ergo__objective *objective,
                             const ergo__sweep_spec *spec) {
  ergo__sweep *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->space = *space;
  s->obj = *objective;
  s->repeats = spec && spec->repeats > 0 ? spec->repeats : 1;
  s->budget = spec && spec->budget > 0 ? spec->budget : ERGO__SWEEP_BUDGET;
  s->explicit_grid = ergo__sweep_explicit(spec);
  s->best = s->base = s->center = s->ext = s->recheck = -1;
  s->thr[0] = s->thr[1] = INFINITY;
  int base[ERGO__SPACE_DIMS] = {0}, dims = 0;
  for (int i = 0; i < ERGO__SPACE_DIMS; i++) {
    if (!space->n[i]) continue;
    base[i] = value_index(space, i, space->baseline[i]);
    dims += space->n[i] > 1;
  }
  if (!dims && !s->explicit_grid) {
    s->phase = PH_DONE; /* nothing to choose */
    return s;
  }
  if (s->explicit_grid) {
    lists *g = &s->grid;
    for (int i = 0; i < ERGO__SPACE_DIMS; i++) {
      g->n[i] = spec->n[i] ? spec->n[i] : 1;
      g->idx[i][0] = base[i];
      for (int k = 0; k < spec->n[i]; k++) g->idx[i][k] = value_index(space, i, spec->values[i][k]);
    }
  }
  if ((s->base = add_point(s, base)) < 0) {
    ergo__sweep_free(s);
    return NULL;
  }
  s->phase = PH_WARMUP;
  return s;
}

void ergo__sweep_free(ergo__sweep *s) {
  if (!s) return;
  free(s->pts);
  free(s->sq);
  free(s->pidx);
  for (int p = 0; s->ml && p < s->npts; p++) ergo__mlist_free(&s->ml[p]);
  free(s->ml);
  free(s->mark_at);
  free(s->at);
  free(s->q);
  free(s);
}

static void finish(ergo__sweep *s, int best) {
  s->best = best;
  s->phase = PH_DONE;
}

/* Plan point idx (clamped to the grid) unless it was measured or planned; 1 when planned, 0 when
 * not needed, -1 when the budget ran out. */
static int poll_point(ergo__sweep *s, int idx[ERGO__SPACE_DIMS]) {
  for (int i = 0; i < ERGO__SPACE_DIMS; i++) {
    int n = s->space.n[i];
    if (!n)
      idx[i] = 0;
    else if (idx[i] < 0)
      idx[i] = 0;
    else if (idx[i] > n - 1)
      idx[i] = n - 1;
  }
  int known = find_point(s, idx);
  if (known >= 0 && (s->pts[known].n > 0 || known == s->base)) return 0;
  for (int k = s->qpos; known >= 0 && k < s->qlen; k++)
    if (s->q[k].point == known) return 0;
  if (room(s, s->reserve) < s->repeats) return -1;
  int p = add_point(s, idx);
  if (p < 0 || enqueue(s, p, s->repeats, 1, s->reserve) < s->repeats) return -1;
  return 1;
}

/* The fitted surface's coordinate of grid index i of knob slot d, in [0, 1]: the logarithm of the
 * knob's value, so that a response like 1/f or Amdahl's law in the thread count is nearly
 * quadratic in it (values that are not positive: the index). */
static double coord(const ergo__sweep *s, int d, int i) {
  int n = s->space.n[d];
  double lo = (double)s->space.values[d][0], hi = (double)s->space.values[d][n - 1],
         v = (double)s->space.values[d][i];
  if (n < 2) return 0;
  if (!(lo > 0) || !(hi > lo)) return (double)i / (n - 1);
  return log(v / lo) / log(hi / lo);
}

/* What every point measured says about the rest of the space: a quadratic in each knob (log time
 * and log energy, optimizer/nm_model.h) fitted to them, scanned over the whole grid; the best
 * point by the objective it predicts that was not measured yet, planned.  1 when it planned one
 * that the surface says beats the best measured point, else 0. */
/* The surface: a quadratic in each knob's coord() (optimizer/nm_model.h) through the log time and
 * log energy of every point measured, weighted by their measurements.  *dims_out receives the
 * knob slots it spans (*nd_out of them).  1 when fitted. */
static int fit_surface(const ergo__sweep *s, ergo__nm_model *m, int dims[ERGO__SPACE_DIMS],
                       int *nd_out) {
  int nd = 0, n = 0;
  for (int i = 0; i < ERGO__SPACE_DIMS; i++)
    if (s->space.n[i] > 1) dims[nd++] = i;
  *nd_out = nd;
  if (nd < 1 || nd > ERGO__NM_MAX_DIMS) return 0;
  ergo__nm_sample *smp = malloc((size_t)s->npts * sizeof *smp);
  if (!smp) return 0;
  for (int p = 0; p < s->npts; p++) {
    const ergo__sweep_point *pt = &s->pts[p];
    if (!pt->n || !(pt->time_s > 0) || !(pt->energy_j > 0)) continue;
    for (int a = 0; a < nd; a++) smp[n].y[a] = coord(s, dims[a], s->pidx[p][dims[a]]);
    smp[n].w = pt->n;
    smp[n].log_t = log(pt->time_s / pt->n);
    smp[n].log_e = log(pt->energy_j / pt->n);
    smp[n].r = pt->resource / pt->n;
    n++;
  }
  int ok = ergo__nm_model_fit(m, nd, smp, n);
  free(smp);
  return ok;
}

/* The surface's measure at grid indices idx. */
static ergo__measure surface_at(const ergo__sweep *s, const ergo__nm_model *m, const int *dims,
                                int nd, const int idx[ERGO__SPACE_DIMS]) {
  double y[ERGO__NM_MAX_DIMS];
  ergo__measure e;
  for (int a = 0; a < nd; a++) y[a] = coord(s, dims[a], idx[dims[a]]);
  ergo__nm_model_predict(m, y, &e);
  return e;
}

static int propose(ergo__sweep *s, int best) {
  int dims[ERGO__SPACE_DIMS], nd = 0;
  ergo__nm_model m;
  if (!fit_surface(s, &m, dims, &nd)) return 0;
  /* Under noise the best measured point is the luckiest of many: the surface is compared with
   * itself, its value at the best point against its value elsewhere. */
  double bv = value_of(s, best, noise(s, 0), ERGO__SWEEP_MARGIN), pv = 0;
  if (noise(s, 0) > ERGO__SWEEP_PRECISION) {
    ergo__measure eb = surface_at(s, &m, dims, nd, s->pidx[best]);
    eb.resource = ergo__sweep_mean(&s->pts[best]).resource;
    bv = value_at(s, eb, 0.0);
  }
  int pick[ERGO__SPACE_DIMS], have = 0, idx[ERGO__SPACE_DIMS] = {0}, cnt[ERGO__SPACE_DIMS] = {0};
  memcpy(idx, s->pidx[best], sizeof idx);
  for (;;) {
    double y[ERGO__NM_MAX_DIMS];
    for (int a = 0; a < nd; a++) {
      idx[dims[a]] = cnt[a];
      y[a] = coord(s, dims[a], cnt[a]);
    }
    int known = find_point(s, idx);
    if ((known < 0 || !s->pts[known].n) && known != s->base) {
      ergo__measure e;
      ergo__nm_model_predict(&m, y, &e);
      double v = value_at(s, e, 0.0);
      if (!have || v < pv) memcpy(pick, idx, sizeof idx), pv = v, have = 1;
    }
    int a = 0;
    while (a < nd && ++cnt[a] == s->space.n[dims[a]]) cnt[a++] = 0;
    if (a == nd) break;
  }
  if (!have || !(pv < bv)) return 0;
  return poll_point(s, pick) > 0;
}

/* The search, coarse to fine along each knob (a pattern search): around the best point so far,
 * the points one step away along each knob, then along each pair of knobs; the best moves when
 * one of them is better, and when none is, every step halves; over when the steps are one grid
 * step and nothing around the best is better.  A smooth front is found in a few dozen
 * executions, where a grid of the whole space would take hundreds. */
static void search_step(ergo__sweep *s) {
  int dims[ERGO__SPACE_DIMS], nd = 0;
  for (int i = 0; i < ERGO__SPACE_DIMS; i++)
    if (s->space.n[i] > 1) dims[nd++] = i;
  /* Polls: 0 along each knob, 1 along each pair, 2 along all three at once (the corners). */
  int polls = nd >= 3 ? 3 : nd;
  for (;;) {
    int c = argmin(s, 1, ERGO__SWEEP_MARGIN);
    if (c < 0 || s->out_of_budget) {
      s->phase = PH_FINAL;
      return;
    }
    if (c != s->center) {
      s->center = c;
      s->poll = 0;
      /* Under noise the best so far is measured again, so a lucky single measurement does not
       * keep the search around it. */
      if (noise(s, 0) > ERGO__SWEEP_PRECISION && s->pts[c].n < s->repeats + 1 &&
          enqueue(s, c, 1, 1, s->reserve) == 1)
        return;
    } else {
      int fine = 1;
      for (int i = 0; i < ERGO__SPACE_DIMS; i++) fine &= s->step[i] <= 1;
      /* Without noise, pairs and corners at the finest steps only: coarser, the axes show the
       * way.  Under noise at every step: single measurements mislead, and the points around the
       * best are what its smoothed estimate (and the final confirmations) rest on. */
      if ((fine || noise(s, 0) > ERGO__SWEEP_PRECISION) && s->poll + 1 < polls) {
        s->poll++;
        goto plan;
      }
      /* Converged: the fitted surface may know a better point the steps could not reach (the
       * edge of a slowdown bound is not smooth); measured, and searched around when it is. */
      int most =
          noise(s, 0) > ERGO__SWEEP_PRECISION ? ERGO__SWEEP_NOISY_PROPOSALS : ERGO__SWEEP_PROPOSALS;
      if (fine && s->proposals < most && propose(s, c)) {
        s->proposals++;
        return;
      }
      if (fine) {
        s->phase = PH_FINAL;
        return;
      }
      for (int i = 0; i < ERGO__SPACE_DIMS; i++)
        if (s->step[i] > 1) s->step[i] = (s->step[i] + 1) / 2;
      s->poll = 0;
    }
  plan:;
    /* The poll's points: every combination of +-step along poll + 1 knobs. */
    int planned = 0, k = s->poll + 1, set[ERGO__SPACE_DIMS];
    for (int mask = 0; mask < 1 << nd && !s->out_of_budget; mask++) {
      if (__builtin_popcount((unsigned)mask) != k) continue;
      int m = 0;
      for (int a = 0; a < nd; a++)
        if (mask >> a & 1) set[m++] = dims[a];
      for (int sign = 0; sign < 1 << k; sign++) {
        int idx[ERGO__SPACE_DIMS];
        memcpy(idx, s->pidx[c], sizeof idx);
        for (int a = 0; a < k; a++) idx[set[a]] += (sign >> a & 1 ? -1 : 1) * s->step[set[a]];
        int r = poll_point(s, idx);
        if (r < 0) {
          s->out_of_budget = 1;
          break;
        }
        planned += r;
      }
    }
    if (planned) return; /* measure what was planned first */
  }
}

/* Whether the decision tests p's slowdown bound: a candidate (a finalist, or a point measured
 * again after the race) with at least two measurements since it became one; any other point
 * cannot pass (time_pvalue() is 1). */
static int tested(const ergo__sweep *s, int p) { return p != s->base && s->sq[p][3] >= 2; }

/* The one-sided confidence at which the first candidate's time bound is tested (holm_inside():
 * 1 - 0.05 / k over the k candidates tested, at least ERGO__SWEEP_FINALISTS), what the race aims
 * its finalists inside the bound by (final_inside()). */
static double bound_confidence(const ergo__sweep *s) {
  int k = 0;
  for (int p = 0; p < s->npts; p++) k += tested(s, p);
  if (k < ERGO__SWEEP_FINALISTS) k = ERGO__SWEEP_FINALISTS;
  return 1 - (1 - ERGO__NM_CONFIDENCE) / k;
}

/* Under noise and a slowdown bound: how far inside the bound a point's mean time must be for
 * confident() to pass it after final_n() measurements on either side (the one-sided interval's
 * half-width); 0 otherwise. */
static double final_inside(const ergo__sweep *s) {
  double sd = noise(s, 0);
  if (s->obj.kind != ERGO__OBJ_ENERGY_BOUNDED || fmax(sd, noise(s, 1)) < ERGO__SWEEP_PRECISION)
    return 0;
  int n = final_n(s);
  double z = gsl_cdf_ugaussian_Pinv(bound_confidence(s));
  return z * sd * sqrt(2.0 / n);
}

/* Order the candidates best first (insertion sort: a handful), each as it would be judged once
 * measured final_n() times (confident()), if its mean held. */
static void rank(ergo__sweep *s) {
  double sd_time = noise(s, 0), v[ERGO__SWEEP_FINALISTS], inside = final_inside(s);
  for (int i = 0; i < s->nfin; i++) {
    const ergo__sweep_point *pt = &s->pts[s->fin[i]];
    int nb = s->pts[s->base].n;
    double se = nb ? sd_time * sqrt(1.0 / pt->n + 1.0 / nb) : 0;
    v[i] = value_at(s, ergo__sweep_mean(pt), inside + ERGO__SWEEP_MARGIN * se);
  }
  for (int i = 1; i < s->nfin; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double tv = v[j];
      v[j] = v[j - 1];
      v[j - 1] = tv;
      int tp = s->fin[j];
      s->fin[j] = s->fin[j - 1];
      s->fin[j - 1] = tp;
    }
}

/* The one-sided p-value of "p's true time is outside the slowdown bound" (Student's t, the time
 * sigma pooled over every repeated point), with `extra` more measurements of it and the baseline
 * as many as it if the means held: the larger of two tests, both of which must reject (1 when
 * either cannot be made).  One on p's smoothed estimate (the plane through its measured
 * neighbourhood, as many measurements as its variance is worth); one on p's own measurements
 * since it became a candidate: the plane is exact on a linear trend but not where the time bends
 * (bandwidth running out as the uncore falls), and a point a few per cent outside the bound
 * would pass on its neighbours' word; the measurements that made it a candidate are the
 * luckiest of many and are left out. */
static double time_pvalue(const ergo__sweep *s, int p, int extra) {
  const ergo__sweep_point *a = &s->pts[p], *b = &s->pts[s->base];
  int fresh = s->sq[p][3] > 0 ? (int)s->sq[p][3] : 0, own = fresh + extra, dof_t;
  if (a->n + extra < 2 || b->n < 2 || own < 2) return 1;
  double st = noise_dof(s, 0, &dof_t), va, lim = log1p(s->obj.slowdown);
  ergo__measure ma = smoothed_var(s, p, &va), mb = ergo__sweep_mean(b);
  int na = (va > 0 && isfinite(va) ? (int)fmax(1, floor(1.0 / va)) : a->n) + extra,
      nb = extra && a->n + extra > b->n ? a->n + extra : b->n,
      nbo = extra && own > b->n ? own : b->n;
  double d[2] = {log(ma.time_s / mb.time_s),
                 log((fresh ? s->sq[p][2] / fresh : ergo__sweep_mean(a).time_s) / mb.time_s)};
  double se[2] = {st * sqrt(1.0 / na + 1.0 / nb), st * sqrt(1.0 / own + 1.0 / nbo)}, pv = 0;
  for (int k = 0; k < 2; k++) {
    double x, q;
    if (!isfinite(d[k])) return 1;
    if (!(se[k] > 0) || !isfinite(se[k])) {
      q = d[k] <= lim ? 0 : 1;
    } else {
      x = (lim - d[k]) / se[k];
      q = dof_t >= 1 ? gsl_cdf_tdist_Q(x, dof_t) : gsl_cdf_ugaussian_Q(x);
    }
    if (q > pv) pv = q;
  }
  return pv;
}

/* Whether p, whose time p-value is pv, is shown inside the slowdown bound: Holm's step-down
 * procedure at family-wise level 1 - ERGO__NM_CONFIDENCE over the candidates whose bound the
 * decision tests (every point but the baseline measured at least repeats + ERGO__SWEEP_FINAL
 * times, p itself, never fewer than ERGO__SWEEP_FINALISTS).  The winner is the best of those
 * that pass, so a 95 % test per candidate passes one of several just outside the bound far more
 * often than 5 % of the time; with the p-values sorted, the j-th smallest (from 0) is tested at
 * 0.05 / (k - j) and the first that fails stops the rest: the chance that any candidate outside
 * the bound passes is at most 5 %, and a candidate far inside the bound (a small p-value)
 * leaves the next a less strict level than Bonferroni's 0.05 / k for all. */
static int holm_inside(const ergo__sweep *s, int p, double pv) {
  int m = 0, j = 0;
  for (int q = 0; q < s->npts; q++) m += q != p && tested(s, q);
  double alpha = 1 - ERGO__NM_CONFIDENCE, *others = m ? malloc(m * sizeof *others) : NULL;
  if (m && !others) return 0; /* no memory: not shown */
  m = 0;
  for (int q = 0; q < s->npts; q++)
    if (q != p && tested(s, q)) others[m++] = time_pvalue(s, q, 0);
  int k = m + 1 < ERGO__SWEEP_FINALISTS ? ERGO__SWEEP_FINALISTS : m + 1, pass = 1;
  for (int i = 0; i < m && pass; i++) { /* the others below pv, at their ranks: each must pass */
    if (!(others[i] < pv)) continue;
    int rank = 0;
    for (int h = 0; h < m; h++) rank += others[h] < others[i] || (others[h] == others[i] && h < i);
    pass = others[i] <= alpha / (k - rank);
    j++;
  }
  free(others);
  return pass && pv <= alpha / (k - j);
}

/* Under noise, whether p is better than the baseline with confidence (with `extra` more
 * measurements of it and the baseline as many as it, if the means held) (ERGO__NM_CONFIDENCE,
 * Student's t on the log ratio of p's smoothed estimate to the baseline's mean, the estimate's
 * variance that of the plane through p's measured neighbourhood (as many measurements as that
 * is worth), the sigma pooled over every repeated point): the
 * upper end of the objective's log ratio below 0 and, under energy@X%, the upper end of the time
 * ratio's within 1 + X.  Energy is time times power, so the objective's sigma per measurement
 * follows from those of time and energy (E T: 3 var t + var e; E T^2: 8 var t + var e). */
static int confident_n(const ergo__sweep *s, int p, int extra) {
  const ergo__sweep_point *a = &s->pts[p], *b = &s->pts[s->base];
  if (p == s->base) return 1;
  if (a->n + extra < 2 || b->n < 2) return 0;
  int dof_t, dof_e;
  double st = noise_dof(s, 0, &dof_t), se = noise_dof(s, 1, &dof_e), dof = fmin(dof_t, dof_e), va;
  ergo__measure ma = smoothed_var(s, p, &va), mb = ergo__sweep_mean(b);
  /* The bound's sqrt(1/na + 1/nb) with the estimate's own variance factor for 1/na. */
  int na = (va > 0 && isfinite(va) ? (int)fmax(1, floor(1.0 / va)) : a->n) + extra,
      nb = extra && a->n + extra > b->n ? a->n + extra : b->n;
  double lt = log(ma.time_s / mb.time_s), le = log(ma.energy_j / mb.energy_j), d,
         sig = ergo__objective_log_sigma(&s->obj, st, se);
  switch (s->obj.kind) {
  case ERGO__OBJ_TIME: d = lt; break;
  case ERGO__OBJ_ENERGY:
  case ERGO__OBJ_ENERGY_BOUNDED: d = le; break;
  case ERGO__OBJ_EDP: d = le + lt; break;
  case ERGO__OBJ_ED2P: d = le + 2 * lt; break;
  default:
    d = log(ergo__objective_value(&s->obj, &ma, &mb) / ergo__objective_value(&s->obj, &mb, &mb));
  }
  if (!(ergo__nm_log_ratio_bound(d, sig, na, nb, dof, ERGO__NM_CONFIDENCE) < 0)) return 0;
  if (s->obj.kind != ERGO__OBJ_ENERGY_BOUNDED) return 1;
  return holm_inside(s, p, time_pvalue(s, p, extra));
}

static int confident(const ergo__sweep *s, int p) { return confident_n(s, p, 0); }

/* The winner: the best point among those raced and the baseline.  Not only the last one
 * standing: under a slowdown bound the survivor of a race can turn out just outside it, and a
 * point dropped one rung earlier is then a better answer than the baseline.  Under noise a point
 * other than the baseline must be better than it with confidence on its own measurements
 * (confident()); among those, each is judged at its smoothed estimate (its own measurements,
 * weighted by their number, with the plane through its measured neighbourhood), against the
 * baseline's mean.  With noise below ERGO__SWEEP_PRECISION, each point at its mean (the plane's
 * bias would outweigh the noise). */
static int winner(const ergo__sweep *s) {
  int min_n = s->repeats + ERGO__SWEEP_FINAL, best = -1;
  if (fmax(noise(s, 0), noise(s, 1)) < ERGO__SWEEP_PRECISION)
    return argmin(s, min_n, ERGO__SWEEP_SURE);
  double bv = 0,
         vb = s->base >= 0 ? value_at(s, ergo__sweep_mean(&s->pts[s->base]), 0.0) : INFINITY;
  for (int p = 0; p < s->npts; p++) {
    if (s->pts[p].n < min_n || !confident(s, p)) continue;
    /* Its own measurements no worse than the baseline's by the objective: the smoothed estimate
     * is the plane through its neighbourhood (there, one point measured twice 4 % fast), which
     * showed a point confidently faster that its own 8 measurements put 2.5 % slower (random
     * program 1230 under `time`: the run at 1.015x monitor's time). */
    if (p != s->base && !(value_at(s, ergo__sweep_mean(&s->pts[p]), 0.0) < vb)) continue;
    ergo__measure m = p == s->base ? ergo__sweep_mean(&s->pts[p]) : smoothed(s, p);
    double v = value_at(s, m, 0.0);
    if (best < 0 || v < bv) best = p, bv = v;
  }
  return best >= 0 ? best : s->base;
}

static void final_choice(ergo__sweep *s) { finish(s, winner(s)); }

/* Whether the baseline's n measurements (log time, log energy, in order) changed level: see
 * base_moved(). */
static int level_moved(const ergo__sweep *s, const double (*blog)[2], int n) {
  /* The floor from the other points, at most ERGO__SWEEP_NOISE_CAP: a point measured on both
   * sides of a 16x jump of the work showed a sigma of 1.07, and the baseline's own jump (three
   * measurements before, two after, none off its side's level) went unseen (random program 152
   * without a counter, no noise: a region kept at its baseline, 3.5x the oracle's energy). */
  double floor_sd[2] = {fmin(robust_noise(s, 0, s->base), ERGO__SWEEP_NOISE_CAP),
                        fmin(robust_noise(s, 1, s->base), ERGO__SWEEP_NOISE_CAP)};
  for (int k = 0; k < 2; k++) {
    double tot = 0, tot2 = 0, a1 = 0, a2 = 0;
    for (int i = 0; i < n; i++) tot += blog[i][k], tot2 += blog[i][k] * blog[i][k];
    for (int c = 1; c < n - 1; c++) { /* c measurements before the split */
      a1 += blog[c - 1][k];
      a2 += blog[c - 1][k] * blog[c - 1][k];
      if (c < 2 || n - c < 2) continue;
      double m0 = a1 / c, m1 = (tot - a1) / (n - c);
      double ss = (a2 - c * m0 * m0) + (tot2 - a2 - (n - c) * m1 * m1);
      double sd = ss > 0 ? sqrt(ss / (n - 2)) : 0;
      /* A handful of the baseline's measurements can show a sigma far below the noise: at
       * least the noise of the other points repeated (their sigma does not hold the baseline's
       * jump). */
      if (sd < floor_sd[k]) sd = floor_sd[k];
      double lim = fmax(ERGO__SWEEP_DRIFT, 5 * sd * sqrt(1.0 / c + 1.0 / (n - c)));
      if (fabs(m1 - m0) > lim) return 1;
    }
  }
  return 0;
}

/* Whether the baseline's measurements changed level while the schedule ran: at some split of
 * them in time order, the mean log time or energy after it differs from the mean before it by
 * more than ERGO__SWEEP_DRIFT, or 5 standard errors if more, the sigma the one within the two
 * sides (the pooled noise of the schedule would count the change itself as noise).  Then the
 * region's work changed, and what was measured before cannot be compared with what was measured
 * after. */
static int base_moved(const ergo__sweep *s) {
  const ergo__mlist *l = &s->ml[s->base];
  if (l->n < 4) return 0;
  /* The baseline's measurements in order (log time, log energy) but the outliers: one stall
   * among a few is no change of the work. */
  double(*blog)[2] = malloc((size_t)l->n * sizeof *blog);
  unsigned char *keep = malloc((size_t)l->n);
  int n = 0, moved = 0;
  if (blog && keep) {
    ergo__mlist_kept(l, s->thr, keep);
    for (int i = 0; i < l->n; i++)
      if (keep[i] && l->m[i][0] > 0 && l->m[i][1] > 0)
        blog[n][0] = log(l->m[i][0]), blog[n][1] = log(l->m[i][1]), n++;
  }
  if (n >= 4) moved = level_moved(s, blog, n);
  free(blog);
  free(keep);
  return moved;
}

/* The next block of extend()'s measurements of candidate p (`left` to go), the candidate and
 * the baseline taking turns: a change of the work shows in the baseline's block (base_moved())
 * before the budget is spent on it, and a slow drift weighs on both alike.  The executions
 * planned (0 when the budget is spent). */
static int plan_block(ergo__sweep *s, int p, int left) {
  int got = 0, block = left < ERGO__SWEEP_BLOCK ? left : ERGO__SWEEP_BLOCK, nb = s->pts[s->base].n;
  int nbase = s->pts[p].n + block - nb;
  if (nbase < block / 2) nbase = block / 2; /* never none: the baseline shows a change */
  for (int i = 0; i < block || i < nbase; i++) {
    if (i < block) got += enqueue(s, p, 1, 1, 0);
    if (i < nbase) got += enqueue(s, s->base, 1, 1, 0);
  }
  return got;
}

/* After the race, under noise: a candidate whose estimate beats the winner's but that is not
 * better than the baseline with confidence yet is measured again, with the baseline alongside,
 * as often as it needs to be (doubling its measurements) to be shown better if its mean holds,
 * while the budget lasts; the best such candidate first.  A race sized for the noise seen early
 * can end a few measurements short of the interval a point near a slowdown bound needs, and the
 * baseline would be kept though the budget had hundreds of executions left.  1 when it planned
 * more. */
static int extend(ergo__sweep *s) {
  if (s->explicit_grid || fmax(noise(s, 0), noise(s, 1)) < ERGO__SWEEP_PRECISION) return 0;
  int w, min_n = s->repeats + ERGO__SWEEP_FINAL, nb = s->pts[s->base].n;
  /* The candidate's planned measurements are taken in full before it is judged again: stopping
   * at the first look that passes would pass far more than 5 % of the points outside the bound
   * (each look is another chance). */
  if (s->ext >= 0 && s->pts[s->ext].n < s->ext_to)
    return plan_block(s, s->ext, s->ext_to - s->pts[s->ext].n) > 0;
  w = winner(s);
  /* Under a slowdown bound also a point the search measured once whose neighbourhood says it
   * is good: the race's finalists were picked by bands of apparent slowdown, and the point
   * just inside the bound is often one of the many measured once around them.  Without a bound
   * the race's candidates only: there a point measured once is the luckiest of hundreds. */
  int least = s->obj.kind == ERGO__OBJ_ENERGY_BOUNDED ? 1 : min_n;
  double wv = value_at(s, w == s->base ? ergo__sweep_mean(&s->pts[w]) : smoothed(s, w), 0.0);
  int pick = -1, pick_extra = 0;
  double pv = 0;
  for (int p = 0; p < s->npts; p++) {
    const ergo__sweep_point *pt = &s->pts[p];
    if (p == s->base || pt->n < least || confident(s, p)) continue;
    double v = value_at(s, smoothed(s, p), 0.0);
    /* The candidate measured last stays while it is worth it: measurements spread over several
     * candidates would show none of them better. */
    if (!(v < wv) || (pick >= 0 && (pick == s->ext || (p != s->ext && !(v < pv))))) continue;
    /* The fewest doublings after which it would pass, within the executions left. */
    for (int extra = pt->n < min_n ? min_n - pt->n : pt->n;; extra *= 2) {
      int want = pt->n + extra, cost = extra + (want > nb ? want - nb : 0);
      if (cost > s->budget - s->qlen) break;
      if (confident_n(s, p, extra)) {
        pick = p, pick_extra = extra, pv = v;
        break;
      }
    }
  }
  if (pick < 0) return 0;
  s->ext = pick;
  mark(s, pick);
  s->ext_to = s->pts[pick].n + pick_extra;
  return plan_block(s, pick, pick_extra) > 0;
}

/* Where the noise is below ERGO__SWEEP_PRECISION: when the race's confirmation left the
 * incumbent (argmin() over the points measured min_n times, often the baseline) behind a point
 * measured fewer times whose mean is better, that point is confirmed next (as the race's only
 * candidate), while the budget lasts.  The single finalist of a precise measurement is the point
 * whose first measurement was best, often right at a slowdown bound; when its confirmation puts
 * it just outside (1.0503x under energy@5%), the next point inside was measured too and is
 * nearly as good (a region kept at its baseline, 1.69x the oracle's energy, beside a point at
 * 1.048x for 59 % of its energy).  1 when it planned more. */
static int next_finalist(ergo__sweep *s) {
  if (s->explicit_grid || fmax(noise(s, 0), noise(s, 1)) >= ERGO__SWEEP_PRECISION) return 0;
  int min_n = s->repeats + ERGO__SWEEP_FINAL, w = argmin(s, min_n, ERGO__SWEEP_SURE), pick = -1;
  double sd = noise(s, 0), wv = w >= 0 ? value_of(s, w, sd, ERGO__SWEEP_SURE) : INFINITY, pv = wv;
  for (int p = 0; p < s->npts; p++) {
    if (p == s->base || !s->pts[p].n || s->pts[p].n >= min_n) continue;
    double v = value_of(s, p, sd, ERGO__SWEEP_MARGIN);
    if (v < pv) pick = p, pv = v;
  }
  if (pick < 0) return 0;
  int t = rung_target(s, 0, 0, final_n(s)), want = t - s->pts[pick].n;
  if (want <= 0 || room(s, 0) < want) return 0;
  s->nfin = 1;
  s->fin[0] = pick;
  s->rungs = s->rung = 0;
  mark(s, pick);
  return enqueue(s, pick, want, 1, 0) > 0;
}

/* Replace the finalists from place `from` on by the grid points the surface rates best (under a
 * slowdown bound, with its time counted final_inside() slower: what can be shown inside the
 * bound), not the baseline nor a finalist already; when it does not fit, the finalists stay.
 * Returns how many places were left empty (to drop from nfin). */
static int surface_finalists(ergo__sweep *s, int from) {
  int dims[ERGO__SPACE_DIMS], nd;
  ergo__nm_model m;
  int want = s->nfin - from;
  if (!fit_surface(s, &m, dims, &nd)) return 0;
  int pick[ERGO__SWEEP_FINALISTS][ERGO__SPACE_DIMS], np = 0;
  double pv[ERGO__SWEEP_FINALISTS], inside = final_inside(s);
  int idx[ERGO__SPACE_DIMS], cnt[ERGO__SPACE_DIMS] = {0};
  memcpy(idx, s->pidx[s->base], sizeof idx);
  for (;;) {
    for (int a = 0; a < nd; a++) idx[dims[a]] = cnt[a];
    int known = find_point(s, idx), taken = known == s->base;
    for (int j = 0; j < from && !taken && known >= 0; j++) taken = s->fin[j] == known;
    if (!taken) {
      ergo__measure e = surface_at(s, &m, dims, nd, idx);
      double v = value_at(s, e, inside);
      /* Kept sorted, best first: insert v unless the list is full and v is not better. */
      int at = np;
      while (at > 0 && v < pv[at - 1]) at--;
      if (at < want) {
        int last = np < want ? np++ : want - 1;
        for (int j = last; j > at; j--) {
          pv[j] = pv[j - 1];
          memcpy(pick[j], pick[j - 1], sizeof pick[j]);
        }
        pv[at] = v;
        memcpy(pick[at], idx, sizeof idx);
      }
    }
    int a = 0;
    while (a < nd && ++cnt[a] == s->space.n[dims[a]]) cnt[a++] = 0;
    if (a == nd) break;
  }
  int put = from;
  for (int j = 0; j < np; j++) {
    int p = add_point(s, pick[j]);
    if (p < 0) break;
    s->fin[put++] = p;
    mark(s, p);
  }
  return s->nfin - put;
}

/* The final phase, one rung at a time (successive halving): the candidates, each measured up
 * to the rung's count with the baseline alongside; the better half goes on, with twice the
 * measurements, until one is left with final_n().  Many points measured once hold lucky ones;
 * racing a few with growing means is how the noise is kept from choosing. */
static void final_step(ergo__sweep *s) {
  if (s->rungs >= 0 && base_moved(s)) {
    s->changed = 1;
    final_choice(s);
    return;
  }
  if (s->rungs < 0) {
    /* The first rung: the best points as their neighbourhoods say (under noise).  Under a
     * slowdown bound each is judged with another margin, from one band outside the bound to
     * several inside: an estimate cannot tell a point at the bound from one just outside, so
     * the race gets the best point of every band of apparent slowdown, not only the ones
     * whose lucky measurements put them right at the bound. */
    int k = finalists(s);
    s->nfin = 0;
    ergo__measure *est = malloc((size_t)s->npts * sizeof *est);
    if (!est) k = 0;
    for (int p = 0; p < s->npts && est; p++)
      est[p] = k > 1 ? smoothed(s, p) : ergo__sweep_mean(&s->pts[p]);
    for (int i = 0; i < k; i++) {
      double margin = k > 1 ? final_inside(s) + (i - 2) * ERGO__SWEEP_BAND : 0.0;
      int best = -1;
      double bv = 0;
      for (int p = 0; p < s->npts; p++) {
        int taken = p == s->base || !s->pts[p].n;
        for (int j = 0; j < s->nfin && !taken; j++) taken = s->fin[j] == p;
        double v = taken ? 0 : value_at(s, est[p], margin);
        if (!taken && (best < 0 || v < bv)) best = p, bv = v;
      }
      if (best < 0) break;
      s->fin[s->nfin++] = best;
      mark(s, best);
    }
    free(est);
    /* Under noise the last ERGO__SWEEP_SURFACE_FINALISTS places go to the grid points the
     * surface through every measurement rates best, measured or not: where the search ended is
     * where its single measurements were luckiest, and a trend they hid (energy falling a
     * fraction of a per cent per step along a knob that leaves the time alone) shows on the
     * surface. */
    if (k > 1 && s->nfin > ERGO__SWEEP_SURFACE_FINALISTS && s->obj.kind != ERGO__OBJ_ENERGY_BOUNDED)
      s->nfin -= surface_finalists(s, s->nfin - ERGO__SWEEP_SURFACE_FINALISTS);
    if (!s->nfin) { /* nothing but the baseline was measured */
      finish(s, s->base);
      return;
    }
    s->rungs = rungs_of(s->nfin);
    s->rung = 0;
  } else if (s->out_of_budget || (s->rung >= s->rungs && !extend(s) && !next_finalist(s))) {
    final_choice(s);
    return;
  } else if (s->rung >= s->rungs) {
    return; /* extend() planned more measurements */
  } else {
    rank(s);
    s->nfin = (s->nfin + 1) / 2;
    s->rung++;
  }
  int t = rung_target(s, s->rung, s->rungs, final_n(s)), want = 0, got = 0;
  int nbase = t - s->pts[s->base].n;
  if (s->rung == 0 && fresh_base(s) && nbase < ERGO__SWEEP_FINAL) nbase = ERGO__SWEEP_FINAL;
  /* The candidates leave the baseline's measurements room in the budget: planned after them, it
   * went without when the budget ran out first (an exhaustive grid's race measured its candidates
   * 14 times each against 3 measurements of the baseline taken before the 249 points of the grid,
   * the work having changed since: a choice at 1.75x the baseline's time under energy@2%). */
  for (int i = 0; i < s->nfin; i++) {
    want += t > s->pts[s->fin[i]].n ? t - s->pts[s->fin[i]].n : 0;
    got += enqueue(s, s->fin[i], t - s->pts[s->fin[i]].n, 1, nbase > 0 ? nbase : 0);
  }
  want += nbase > 0 ? nbase : 0;
  got += enqueue(s, s->base, nbase, 1, 0);
  if (got < want) s->out_of_budget = 1;
}

/* Plan the next part of the schedule once the planned part is measured. */
static void refill(ergo__sweep *s) {
  while (s->qpos == s->qlen && s->phase != PH_DONE) {
    switch (s->phase) {
    case PH_WARMUP:
      enqueue(s, s->base, ERGO__SWEEP_WARMUP, 0, 0);
      s->phase = PH_BASE;
      break;
    case PH_BASE:
      /* Measured more than once from the start: the noise it shows sizes the final phase. */
      enqueue(s, s->base, s->repeats + (s->explicit_grid ? 0 : ERGO__SWEEP_FINAL), 1, 0);
      if (s->recheck >= 0)
        enqueue(s, s->recheck, s->repeats + (s->explicit_grid ? 0 : ERGO__SWEEP_FINAL), 1, 0);
      s->phase = PH_GRID;
      break;
    case PH_GRID:
      if (!s->explicit_grid) plan_grid(s);
      s->rungs = -1;
      if (!s->explicit_grid && !s->exhaustive) {
        s->phase = PH_SEARCH;
        /* Under noise the search starts from a design of every combination of three values per
         * knob (below): single measurements cannot show the search a trend of a per cent per
         * step, so where it would stop is wherever the noise left it, while the surface through
         * such a design (every quadratic term pinned down) sees the trend and proposes the
         * points it predicts better. */
        if (noise(s, 0) > ERGO__SWEEP_PRECISION) {
          lists d;
          for (int i = 0; i < ERGO__SPACE_DIMS; i++) {
            int n = s->space.n[i];
            if (n < 2) {
              d.n[i] = 1, d.idx[i][0] = 0;
              continue;
            }
            /* The baseline's value and a quarter and a half of the range away from it (toward
             * the far end): the corners far from the baseline (one thread, the least frequency)
             * cost the tuning run many times an execution at the baseline. */
            int b = s->pidx[s->base][i], q = (n - 1 + 2) / 4, dir = b >= (n - 1) / 2 ? -1 : 1;
            d.n[i] = 0;
            for (int k = 0; k < 3; k++) {
              int v = b + dir * k * q;
              if (v < 0) v = 0;
              if (v > n - 1) v = n - 1;
              if (!d.n[i] || d.idx[i][d.n[i] - 1] != v) d.idx[i][d.n[i]++] = v;
            }
          }
          walk(s, &d, 7u, s->reserve);
        }
        break;
      }
      /* Start at the grid's top corner, where the untuned baseline usually is. */
      walk(s, &s->grid, 7u, s->reserve);
      s->phase = s->explicit_grid ? PH_LAST : PH_FINAL;
      break;
    case PH_SEARCH:
      search_step(s);
      if (s->phase == PH_FINAL) s->out_of_budget = 0, s->rungs = -1;
      break;
    case PH_FINAL: final_step(s); break;
    case PH_LAST: finish(s, argmin(s, 1, ERGO__SWEEP_MARGIN)); break;
    }
  }
}

/* While a schedule that re-measures a choice (ergo__sweep_recheck()) has not reached its final
 * phase, that choice and the baseline are measured again, side by side, before either's last
 * measurement is ERGO__SWEEP_RECENT executions old: a model written before the schedule decides
 * keeps the choice only on that recent evidence (ergo__sweep_supported()).  Its first measurements,
 * taken as the schedule started, said nothing of the work since: a region whose child's work kept
 * growing inside its own time kept such a choice at 1.30x its baseline's time under energy@5% on
 * the work 200 executions later (random program 1297). */
static void refresh_recheck(ergo__sweep *s) {
  int r = s->recheck, b = s->base;
  if (r < 0 || b < 0 || ergo__sweep_deciding(s) || s->phase == PH_DONE || s->qpos >= s->qlen ||
      !last_at(s, r) || !last_at(s, b) || s->told - last_at(s, r) < ERGO__SWEEP_RECENT - 2 ||
      s->q[s->qpos].point == r)
    return;
  if (q_reserve(s, 2)) return;
  memmove(&s->q[s->qpos + 2], &s->q[s->qpos], (size_t)(s->qlen - s->qpos) * sizeof *s->q);
  s->q[s->qpos] = (entry){b, 1};
  s->q[s->qpos + 1] = (entry){r, 1};
  s->qlen += 2;
}

/* 1 while the grid is walked or the search runs where the baseline's first measurements were
 * below ERGO__SWEEP_PRECISION:
 * each point is measured once there, and a change of the work would mix old and new in what the
 * final phase compares.  (Under noise the walk is a short design and the search plans a few
 * points at a time; the race measures the baseline alongside its candidates, and baseline
 * measurements spent during the search cost its final phase more than they saw: random programs
 * 1.0 % further from the oracle.) */
static int exploring(const ergo__sweep *s) {
  return !s->explicit_grid && s->exact &&
         (s->phase == PH_SEARCH || (s->phase == PH_FINAL && s->rungs < 0));
}

/* Whether the baseline's measurement `i` (log time or energy) is off the mean of those before it
 * by more than ERGO__SWEEP_DRIFT. */
static int base_off(const ergo__sweep *s, int i) {
  const ergo__mlist *l = &s->ml[s->base];
  if (i < 2) return 0;
  for (int k = 0; k < 2; k++) { /* energy 0: not measured (no meter) */
    double sum = 0;
    int n = 0;
    for (int j = 0; j < i; j++)
      if (l->m[j][k] > 0) sum += log(l->m[j][k]), n++;
    if (n && l->m[i][k] > 0 && fabs(log(l->m[i][k]) - sum / n) > ERGO__SWEEP_DRIFT) return 1;
  }
  return 0;
}

/* While exploring, the baseline is measured again once ERGO__SWEEP_BASE_EVERY executions passed
 * since its last measurement, and right after a measurement of it off its level (base_off()), so
 * base_moved() has two on the new side (ahead of the queue, as the budget allows):
 * ergo__sweep_tell() asks base_moved() then.  One measurement off, waiting for the next, had
 * raised the noise the final phase sized its race by, and that race's candidates were compared
 * with a baseline measured on the old work (a region at 1.5x its baseline's time). */
static void interleave_base(ergo__sweep *s) {
  int b = s->base;
  /* Not between the `repeats` measurements of a point, which come in a row. */
  if (b < 0 || !exploring(s) || s->qpos >= s->qlen || s->q[s->qpos].point == b ||
      (s->qpos > 0 && s->q[s->qpos - 1].point == s->q[s->qpos].point) || s->qlen >= s->budget ||
      !s->ml[b].n)
    return;
  int n = s->ml[b].n, again = base_off(s, n - 1) && !base_off(s, n - 2);
  if ((!again && s->told - last_at(s, b) < ERGO__SWEEP_BASE_EVERY) || q_reserve(s, 1)) return;
  memmove(&s->q[s->qpos + 1], &s->q[s->qpos], (size_t)(s->qlen - s->qpos) * sizeof *s->q);
  s->q[s->qpos] = (entry){b, 1};
  s->qlen++;
}

int ergo__sweep_next(ergo__sweep *s, ergo__config *c) {
  refill(s);
  refresh_recheck(s);
  interleave_base(s);
  if (s->phase == PH_DONE || s->qpos == s->qlen) {
    s->handed = 0;
    int b = s->best >= 0 ? s->best : s->base;
    if (b >= 0) {
      *c = s->pts[b].config;
    } else {
      for (int i = 0; i < ERGO__SPACE_DIMS; i++)
        c->v[i] =
            s->space.n[i] ? s->space.values[i][value_index(&s->space, i, s->space.baseline[i])] : 0;
    }
    return 0;
  }
  *c = s->pts[s->q[s->qpos].point].config;
  s->handed = 1;
  return 1;
}

/* Point p's sums from its measurements but the outliers. */
static void resum(ergo__sweep *s, int p) {
  ergo__msums o;
  ergo__mlist_sums(&s->ml[p], s->thr, s->mark_at[p] >= 0 ? s->mark_at[p] : INT_MAX, &o);
  ergo__sweep_point *pt = &s->pts[p];
  pt->time_s = o.t;
  pt->energy_j = o.e;
  pt->resource = o.r;
  pt->n = o.n;
  s->sq[p][0] = o.t2;
  s->sq[p][1] = o.e2;
  if (s->mark_at[p] >= 0) s->sq[p][2] = o.t_from, s->sq[p][3] = o.n_from;
}

void ergo__sweep_tell(ergo__sweep *s, const ergo__measure *m) {
  if (!s->handed || s->qpos == s->qlen) return;
  s->handed = 0;
  entry e = s->q[s->qpos++];
  s->told++;
  if (!e.record) return;
  /* Out of memory the measurement is not counted: the schedule plans it again. */
  if (ergo__mlist_add(&s->ml[e.point], m->time_s, m->energy_j, m->resource)) return;
  s->at[e.point][(s->ml[e.point].n - 1) % ERGO__SWEEP_SUPPORT_N] = s->told;
  /* When the thresholds move every point is summed again. */
  if (ergo__robust_update(s->ml, s->npts, s->told, s->thr))
    for (int p = 0; p < s->npts; p++) resum(s, p);
  else
    resum(s, e.point);
  /* The work changed while exploring: what was measured cannot be compared across the change;
   * the schedule ends, saying so, at its best so far (the policy starts it again, and the new
   * schedule measures that point again beside the baseline on the work as it is). */
  if (e.point == s->base && exploring(s) && !s->through && base_moved(s)) {
    s->changed = 2;
    s->qpos = s->qlen;
    finish(s, argmin(s, 1, ERGO__SWEEP_MARGIN));
  }
}

int ergo__sweep_recheck(ergo__sweep *s, const ergo__config *c) {
  if (s->base < 0 || s->phase != PH_WARMUP || s->qlen) return -1;
  int idx[ERGO__SPACE_DIMS] = {0};
  for (int i = 0; i < ERGO__SPACE_DIMS; i++)
    if (s->space.n[i]) idx[i] = value_index(&s->space, i, c->v[i]);
  int p = add_point(s, idx);
  if (p < 0 || p == s->base) return p;
  /* Its measurements are fresh ones on the work as it is, not the luckiest of a search: they
   * count as a candidate's (time_pvalue()). */
  mark(s, p);
  s->recheck = p;
  return p;
}

void ergo__sweep_explore_through(ergo__sweep *s) { s->through = 1; }

int ergo__sweep_find(const ergo__sweep *s, const ergo__config *c) {
  for (int p = 0; p < s->npts; p++)
    if (!memcmp(&s->pts[p].config, c, sizeof *c)) return p;
  return -1;
}

/* The recent log ratio of p's time to the baseline b's that supported() compares: the median,
 * over p's last measurements (ERGO__SWEEP_SUPPORT_N / 2 at most) taken within the last
 * ERGO__SWEEP_RECENT executions, of each one against the baseline's measurement nearest to it
 * (of its last ERGO__SWEEP_SUPPORT_N), where that is within ERGO__SWEEP_PAIR_GAP executions of
 * it: pairs, so that work that changes while they are taken moves both sides of each alike.
 * 0, or -1 when no such pair. */
static int recent_ratio(const ergo__sweep *s, int p, int b, double *lr) {
  double v[ERGO__SWEEP_SUPPORT_N / 2];
  int k = 0;
  const ergo__mlist *l = &s->ml[p], *lb = &s->ml[b];
  for (int i = l->n - 1; i >= 0 && i >= l->n - ERGO__SWEEP_SUPPORT_N / 2; i--) {
    int at = s->at[p][i % ERGO__SWEEP_SUPPORT_N], near = -1, gap = INT_MAX;
    if (s->told - at > ERGO__SWEEP_RECENT) break;
    for (int j = lb->n - 1; j >= 0 && j >= lb->n - ERGO__SWEEP_SUPPORT_N; j--) {
      int d = abs(s->at[b][j % ERGO__SWEEP_SUPPORT_N] - at);
      if (d < gap) gap = d, near = j;
    }
    if (near >= 0 && gap <= ERGO__SWEEP_PAIR_GAP && l->m[i][0] > 0 && lb->m[near][0] > 0)
      v[k++] = log(l->m[i][0] / lb->m[near][0]);
  }
  if (!k) return -1;
  *lr = ergo__median_small(v, k);
  return 0;
}

int ergo__sweep_supported(const ergo__sweep *s, int p) {
  if (p < 0 || p >= s->npts || s->base < 0) return 0;
  if (p == s->base) return s->pts[p].n > 0;
  int min_n = s->repeats + (s->explicit_grid ? 0 : ERGO__SWEEP_FINAL);
  if (s->pts[p].n < min_n || s->pts[s->base].n < min_n) return 0;
  /* Under a slowdown bound, on recent evidence too: p and the baseline each measured within the
   * last ERGO__SWEEP_RECENT executions, p's recent time inside the bound against the baseline's
   * measured near it (recent_ratio(); the means hold measurements of work that may have changed
   * since; a work whose mix drifts inflates the noise, and the means passed confident() at 1.07x
   * the baseline's time on the work as it was). */
  if (s->obj.kind == ERGO__OBJ_ENERGY_BOUNDED) {
    double lr;
    if (s->told - last_at(s, p) > ERGO__SWEEP_RECENT ||
        s->told - last_at(s, s->base) > ERGO__SWEEP_RECENT || recent_ratio(s, p, s->base, &lr) ||
        !(lr <= log1p(s->obj.slowdown)))
      return 0;
  }
  if (fmax(noise(s, 0), noise(s, 1)) < ERGO__SWEEP_PRECISION)
    return value_of(s, p, 0.0, 0.0) < value_of(s, s->base, 0.0, 0.0);
  return confident(s, p);
}

int ergo__sweep_best(const ergo__sweep *s) {
  if (s->phase == PH_DONE && s->best >= 0) return s->best;
  return s->phase == PH_FINAL && s->rungs >= 0 ? winner(s) : argmin(s, 1, ERGO__SWEEP_MARGIN);
}

int ergo__sweep_deciding(const ergo__sweep *s) {
  /* Not while an exhaustive grid is walked (planned at once, in the final phase's name): its
   * best so far is a single measurement, not the race's choice. */
  return (s->phase == PH_FINAL && s->rungs >= 0) || s->phase == PH_DONE;
}
int ergo__sweep_baseline(const ergo__sweep *s) { return s->base; }
const ergo__sweep_point *ergo__sweep_points(const ergo__sweep *s, int *count) {
  *count = s->npts;
  return s->pts;
}
int ergo__sweep_executions(const ergo__sweep *s) { return s->told; }
int ergo__sweep_outliers(const ergo__sweep *s) {
  int n = 0;
  for (int p = 0; p < s->npts; p++) n += s->ml[p].n - s->pts[p].n;
  return n;
}
int ergo__sweep_done(const ergo__sweep *s) { return s->phase == PH_DONE; }
int ergo__sweep_changed(const ergo__sweep *s) { return s->changed; }
double ergo__sweep_noise(const ergo__sweep *s, int which) { return noise(s, which ? 1 : 0); }
