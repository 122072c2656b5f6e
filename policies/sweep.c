/* sweep.c - the sweep policy (ERGO_POLICY=sweep): calibration inside one run.  Each significant
 * region's executions walk its own schedule (optimizer/sweep.h), then run at the best config;
 * at the end every configuration measured goes into the tuning model. */
#include "optimizer/sweep.h"
#include "optimizer/change.h"
#include "optimizer/robust.h"
#include "policies/model.h"
#include "policies/policy.h"
#include "policies/summary.h"
#include "policies/work.h"
#include "util/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_DEFAULT_MODEL ERGO__MODEL_DEFAULT
/* Once its schedule is over a region runs at its best config, and each block of WATCH executions
 * is compared with what the schedule measured there: when the mean log ratio of time or energy
 * is past DRIFT (or 5 standard errors of the noise the schedule saw in that quantity, if more)
 * in two blocks in a row, on the same side, the work has changed (a phase, growth) and the
 * region's schedule starts again, RETUNES times at most.  A short schedule ends early in the
 * run; without this its model would describe the work of the run's first steps. */
#define SWEEP_WATCH 4
#define SWEEP_DRIFT 0.10
#define SWEEP_RETUNES 8
/* Once its schedule is over, every SWEEP_CONTROL-th execution of a region whose best config is
 * not the baseline runs the baseline (a control): a change of the work that leaves the time at
 * the best config alone but not the baseline's (a phase after which the chosen config ran at
 * 1.98x the new work's baseline time under energy@10%, while its own time per unit of work
 * moved 0.1 %) shows there.  Two controls in a row off the schedule's baseline mean on the same
 * side, by DRIFT or 5 sigmas of one measurement, start the schedule again. */
#define SWEEP_CONTROL 32
/* A control also asks whether the best config still pays against the baseline on the work as it
 * is: its last execution against the control, by the objective (under energy@X%, its time against
 * 1 + X).  Worse by more than PAYS (or 3 sigmas of that ratio, if more) at two controls in a row
 * starts the schedule again: without noise a change of the work's mix (a phase, or a child's
 * work growing inside the region's own time) can turn a choice a few per cent worse than the
 * baseline while moving no single quantity by DRIFT (seed 173: a choice at the baseline's time
 * ran 4.2 % slower once the work changed, its own time per unit of work 6.9 % up), and under noise
 * the checks above need 5 sigmas of one measurement (seed 945: a 2-thread choice at 1.9x its new
 * baseline's time under energy@10% went unseen for 80 steps). */
#define SWEEP_PAYS 0.01
/* The controls compare like with like: an execution at the baseline with the last at the best
 * config that was the same call in its step (the first SWEEP_SLOTS calls apart, the rest
 * together), and the choice's time against the baseline's over one execution of each call: a
 * region called three times per step at two sizes, compared across calls, showed 0.91x, 1.29x and
 * 1.19x in turn where the whole step ran at 1.125x under energy@10%, and the noise its schedule
 * saw (7.9 %, the calls' own spread, without noise) hid that (random program 1288).  The sigma
 * of one measurement: from the last SWEEP_PAIRS pairs of consecutive executions of one call at
 * the best config, the median of their absolute log ratios (an outlier, an execution twice as
 * long, in a few of them does not move it), once SWEEP_PAIRS / 4 were seen; before, the
 * schedule's (its pooled noise holds the calls' spread). */
#define SWEEP_SLOTS 8
#define SWEEP_PAIRS 32
/* The model is written with the baseline instead of the choice where the last controls together
 * say it no longer pays (under energy@X%: runs past the bound) with confidence: the mean of the
 * "still pays" excesses of the last 2, and of the last SWEEP_RECENT, above SWEEP_RECENT_Z
 * standard errors of that mean (each window at 97.5 %, so both at 95 %), and by SWEEP_PAYS at
 * least (without noise: the choice's true time on the work as it is may sit at the bound).  One
 * control must be 3 sigmas out twice to start the schedule again, and a change near the run's end
 * leaves no time for that: a phase change at step 240 of 320 put a choice at 1.05x its new
 * baseline's time under energy@2% with 1.6 % noise, its last two controls 1.5 and 2.0 % past the
 * bound, neither near 3 sigmas (random program 1039, no work counter). */
#define SWEEP_RECENT 4
#define SWEEP_RECENT_Z 1.96
/* Small excesses over many controls: a one-sided CUSUM of each control against its own call's
 * median at the choice since that call's last control (each execution in one term only), in
 * standard errors of that (SWEEP_PAYS at least), less SWEEP_CUSUM_K, summed and floored at 0;
 * past SWEEP_CUSUM_H the choice no longer pays: the schedule starts again (where no new one can
 * be made, out of memory, the model has the baseline).  The tests above need one control 3 sigmas
 * out twice, or the last 2 or 4 together 2 standard errors out; a choice 5 % past an energy@5%
 * bound through 6.4 % noise is about 0.7 standard errors a control, which neither saw in 40
 * controls (random program 2110 without a work counter: a unit called 15 times a step kept
 * at 1.105x its baseline's time after a change at step 237 of 320).  At 0.7 this sums past 10 in
 * about 22 controls; with the choice at its bound it passes 10 once in some 2,000 controls
 * (Siegmund's approximation), inside the bound far less often; a run has a few hundred. */
#define SWEEP_CUSUM_K 0.25
#define SWEEP_CUSUM_H 10.0

typedef struct sweep_region {
  ergo__sweep *sched;
  ergo__sweep *prev; /* the last finished schedule, while a restarted one runs (NULL: none) */
  char *path;
  long first_step; /* the step of its first tuned execution */
  int work_seen;   /* an execution's work was measured (a hint or the counter) */
  /* After the schedule: the block of executions at its best config being watched. */
  int watch_n, retunes, side[2]; /* side: the last block's verdict per quantity (-1, 0, 1) */
  double watch[2][SWEEP_WATCH];  /* the block's log ratios of time and energy to the schedule's */
  long after;      /* executions since the schedule ended (controls are due every SWEEP_CONTROL) */
  int ctl_side[4]; /* the last control's verdict: time, energy, time at the best against it, and
                      whether the best still pays */
  ergo__measure last_best[SWEEP_SLOTS]; /* per call in the step: the last execution at the best
                                           config (time 0: none yet) */
  ergo__measure last_ctl[SWEEP_SLOTS];  /* per call in the step: the last control */
  long step_at;                         /* the step of the last execution */
  int call;                             /* executions in that step so far */
  double pair[2][SWEEP_PAIRS]; /* consecutive executions of one call at the best config: their
                                  absolute log ratios of time and energy, the last SWEEP_PAIRS */
  int pair_n;                  /* pairs seen */
  double run[SWEEP_SLOTS][2][SWEEP_CONTROL]; /* per call: time and energy of its executions at the
                                               best config since its last control (the last
                                               SWEEP_CONTROL), and how many */
  int run_n[SWEEP_SLOTS];
  double pays[2][SWEEP_RECENT]; /* the last controls' "still pays" excess (log) against those
                                   medians, and its standard error */
  int pays_n;                   /* controls that had one */
  double pays_cusum;            /* their CUSUM (see SWEEP_CUSUM_K) */
  long retuned_at;              /* the step of the last restart */
  struct sweep_region *next;
} sweep_region;

typedef struct sweep_priv {
  ergo__sweep_spec spec;
  int length;                    /* executions of one region's schedule, at most */
  sweep_region *regions, **tail; /* in the order they were first tuned */
} sweep_priv;

/* The executions one region's schedule takes at most: the budget, or an explicit grid's warm-up,
 * baseline and every point `repeats` times. */
static int schedule_length(const ergo__sweep_spec *spec) {
  if (!ergo__sweep_explicit(spec)) return spec->budget > 0 ? spec->budget : ERGO__SWEEP_BUDGET;
  long points = 1;
  for (int i = 0; i < ERGO__SPACE_DIMS; i++)
    if (spec->n[i]) points *= spec->n[i];
  long repeats = spec->repeats > 0 ? spec->repeats : 1;
  long n = ERGO__SWEEP_WARMUP + repeats * (1 + points);
  return n > 1 << 30 ? 1 << 30 : (int)n;
}

static int sweep_start(ergo__policy *p, char *why, size_t whylen) {
  /* A node without a knob to turn: said as online says it (the run goes on as monitor), not a
   * schedule announced and an empty model written. */
  int rc = ergo__policy_tunable(&p->space, why, whylen);
  if (rc) return rc;
  sweep_priv *s = calloc(1, sizeof *s);
  if (!s) return ERGO_ENOMEM;
  char warn[512];
  rc = ergo__sweep_parse(p->cfg->sweep, &s->spec, why, whylen);
  if (!rc) rc = ergo__sweep_fit(&s->spec, &p->space, why, whylen, warn, sizeof warn);
  if (rc) {
    free(s);
    return rc;
  }
  if (warn[0]) ergo__warn("%s", warn);
  s->tail = &s->regions;
  s->length = schedule_length(&s->spec);
  p->priv = s;
  /* Before the first step: how long the calibration takes, and how to shorten it.  The first
   * execution of a region only says it is significant, so the schedule starts at its second. */
  if (p->talk && ergo__sweep_explicit(&s->spec))
    ergo__info(
        "sweep: each significant region is measured at every setting of ERGO_SWEEP's grid "
        "(up to %d executions), then runs at its best: up to %d steps for a region run once per "
        "step",
        s->length, s->length + 1);
  else if (p->talk)
    ergo__info("sweep: each significant region is measured for up to %d executions, then runs at "
               "its best: up to %d steps for a region run once per step (ERGO_SWEEP=budget=N "
               "shortens the schedule, N >= %d)",
               s->length, s->length + 1, ERGO__SWEEP_MIN_BUDGET);
  return 0;
}

/* The region's schedule, made at its first tuned execution; NULL on no memory (the region then
 * inherits, as under monitor). */
static sweep_region *region_of(ergo__policy *p, ergo__region_state *r) {
  if (r->policy) return r->policy;
  sweep_priv *s = p->priv;
  sweep_region *sr = calloc(1, sizeof *sr);
  if (!sr) return NULL;
  sr->sched = ergo__sweep_new(&p->space, &p->objective, &s->spec);
  sr->path = strdup(r->path);
  if (!sr->sched || !sr->path) {
    ergo__sweep_free(sr->sched);
    free(sr->path);
    free(sr);
    return NULL;
  }
  sr->first_step = p->steps;
  *s->tail = sr;
  s->tail = &sr->next;
  r->policy = sr;
  return sr;
}

static void sweep_choose(ergo__policy *p, ergo__region_state *r, ergo__config *out) {
  sweep_region *sr = region_of(p, r);
  if (!sr) {
    memset(out, 0, sizeof *out);
    return;
  }
  if (ergo__sweep_next(sr->sched, out)) return; /* the schedule's next config */
  /* Over: its best, or a control at the baseline. */
  int np, best = ergo__sweep_best(sr->sched), base = ergo__sweep_baseline(sr->sched);
  const ergo__sweep_point *pts = ergo__sweep_points(sr->sched, &np);
  if (p->retune && sr->retunes < SWEEP_RETUNES && base >= 0 && best >= 0 && best != base &&
      pts[base].n && ++sr->after % SWEEP_CONTROL == 0)
    *out = pts[base].config;
}

/* How much worse than the baseline (log; under energy@X%: how far past the bound) the choice
 * ran, at sb, against the baseline at sc; *sig: the sigma of one measurement of that, from the
 * sigmas of time and energy sd. */
static double pays_excess(const ergo__objective *obj, const ergo__measure *sb,
                          const ergo__measure *sc, const double sd[2], double *sig) {
  double st = sd[0], se = sd[1];
  if (obj->kind == ERGO__OBJ_ENERGY_BOUNDED) {
    *sig = st;
    return log(sb->time_s / sc->time_s) - log1p(obj->slowdown);
  }
  *sig = ergo__objective_log_sigma(obj, st, se);
  double d = ergo__objective_log_ratio(obj, sb, sc);
  return isnan(d) ? 0 : d;
}

/* A control execution at the baseline once the schedule is over: 1 when it and the control
 * before it are both off the schedule's baseline mean, on the same side. */
static int control_moved(sweep_region *sr, const ergo__objective *obj, const ergo__measure *m,
                         int slot) {
  int np, base = ergo__sweep_baseline(sr->sched);
  const ergo__sweep_point *pts = ergo__sweep_points(sr->sched, &np);
  ergo__measure ref = ergo__sweep_mean(&pts[base]);
  if (!(ref.time_s > 0) || !(m->time_s > 0)) return 0;
  int moved = 0, best = ergo__sweep_best(sr->sched);
  ergo__measure rb = ergo__sweep_mean(&pts[best]), lb = sr->last_best[slot];
  sr->last_ctl[slot] = *m;
  /* The sigma of one measurement: from consecutive executions of one call at the best config
   * once there are enough (see SWEEP_SLOTS), else the schedule's. */
  double sd[2] = {ergo__sweep_noise(sr->sched, 0), ergo__sweep_noise(sr->sched, 1)};
  /* The median of |log ratio| of two measurements is 0.6745 sqrt(2) sigma. */
  int npair = sr->pair_n < SWEEP_PAIRS ? sr->pair_n : SWEEP_PAIRS;
  for (int k = 0; k < 2 && npair >= SWEEP_PAIRS / 4; k++)
    sd[k] = ergo__median_small(sr->pair[k], npair) / (0.6745 * M_SQRT2);
  for (int k = 0; k < 3; k++) {
    /* The third: the best config's time against the baseline's, the last execution at each
     * against the schedule's means (each may move less than DRIFT and their ratio more: a choice
     * at 1.07x its baseline ran at 1.23x once the work changed, its time 7 % up and the
     * baseline's 7 % down). */
    double d = k == 1 ? (ref.energy_j > 0 && m->energy_j > 0 ? log(m->energy_j / ref.energy_j) : 0)
               : k == 0 ? log(m->time_s / ref.time_s)
               : lb.time_s > 0 && rb.time_s > 0
                   ? log(lb.time_s / m->time_s) - log(rb.time_s / ref.time_s)
                   : 0,
           lim = fmax(SWEEP_DRIFT, 5 * sd[k == 1] * (k == 2 ? M_SQRT2 : 1));
    moved |= ergo__change_twice(&sr->ctl_side[k], d, lim);
  }
  /* The choice against the baseline over one execution of each call that has both. */
  ergo__measure sb = {0, 0, 0}, sc = {0, 0, 0};
  for (int i = 0; i < SWEEP_SLOTS; i++)
    if (sr->last_best[i].time_s > 0 && sr->last_ctl[i].time_s > 0) {
      sb.time_s += sr->last_best[i].time_s, sb.energy_j += sr->last_best[i].energy_j;
      sc.time_s += sr->last_ctl[i].time_s, sc.energy_j += sr->last_ctl[i].energy_j;
    }
  if (lb.time_s > 0 && sc.time_s > 0) {
    double sig, d = pays_excess(obj, &sb, &sc, sd, &sig);
    /* Only worse counts: a choice that pays more than it did is no reason to search again. */
    moved |=
        ergo__change_twice(&sr->ctl_side[3], d > 0 ? d : 0, fmax(SWEEP_PAYS, 3 * M_SQRT2 * sig));
  }
  /* The same against the median of each call's executions at the choice since its last control
   * (not their mean: an execution an OS daemon made twice as long, one in 40, moved a mean 2 %
   * and turned a choice at 1.04x the baseline's time past a 5 % bound), for no_longer_pays(). */
  ergo__measure sm = {0, 0, 0}, sk = {0, 0, 0}, own = {0, 0, 0}; /* own: this control's call */
  int kmin = 0, own_n = 0;
  for (int i = 0; i < SWEEP_SLOTS; i++)
    if (sr->run_n[i] > 0 && sr->last_ctl[i].time_s > 0) {
      int n = sr->run_n[i] < SWEEP_CONTROL ? sr->run_n[i] : SWEEP_CONTROL;
      ergo__measure med = {ergo__median_small(sr->run[i][0], n),
                           ergo__median_small(sr->run[i][1], n), 0};
      sm.time_s += med.time_s, sm.energy_j += med.energy_j;
      sk.time_s += sr->last_ctl[i].time_s, sk.energy_j += sr->last_ctl[i].energy_j;
      if (kmin == 0 || n < kmin) kmin = n;
      if (i == slot) own = med, own_n = n;
    }
  if (kmin > 0) {
    double sig, d = pays_excess(obj, &sm, &sk, sd, &sig);
    sr->pays[0][sr->pays_n % SWEEP_RECENT] = d;
    /* The control's sigma, and the median's of kmin (pi / 2 times a mean's variance). */
    sr->pays[1][sr->pays_n % SWEEP_RECENT] = sig * sqrt(1 + M_PI / 2 / kmin);
    sr->pays_n++;
  }
  /* The CUSUM: this control against the median of its own call's executions at the choice since
   * its call's last control, each execution in one term only (the sums above hold the other
   * calls' last controls, taken at earlier controls). */
  if (own_n > 0) {
    double sig, d = pays_excess(obj, &own, m, sd, &sig),
                se = fmax(sig * sqrt(1 + M_PI / 2 / own_n), SWEEP_PAYS);
    sr->pays_cusum = fmax(0, sr->pays_cusum + d / se - SWEEP_CUSUM_K);
    moved |= sr->pays_cusum > SWEEP_CUSUM_H;
  }
  sr->run_n[slot] = 0;
  if (moved) memset(sr->ctl_side, 0, sizeof sr->ctl_side);
  return moved;
}

/* A region whose schedule is over: one more execution at its best config; 1 when the block of
 * SWEEP_WATCH says its work changed. */
static int drifted(sweep_region *sr, const ergo__config *applied, const ergo__measure *m) {
  int np, best = ergo__sweep_best(sr->sched);
  const ergo__sweep_point *pts = ergo__sweep_points(sr->sched, &np);
  if (best < 0 || sr->retunes >= SWEEP_RETUNES || !(m->time_s > 0)) return 0;
  if (memcmp(applied, &pts[best].config, sizeof *applied)) return 0; /* not its own config */
  ergo__measure ref = ergo__sweep_mean(&pts[best]);
  if (!(ref.time_s > 0)) return 0;
  sr->watch[0][sr->watch_n] = log(m->time_s / ref.time_s);
  sr->watch[1][sr->watch_n] =
      ref.energy_j > 0 && m->energy_j > 0 ? log(m->energy_j / ref.energy_j) : 0;
  if (++sr->watch_n < SWEEP_WATCH) return 0;
  int moved = 0;
  for (int k = 0; k < 2; k++) {
    /* The block's median, not its mean: one stall (an execution 1.8x as long) in a block moved
     * the mean by 15 %, and a stall every 7 steps started a schedule again. */
    double d = ergo__median_small(sr->watch[k], SWEEP_WATCH),
           lim = fmax(SWEEP_DRIFT, 5 * ergo__sweep_noise(sr->sched, k) * sqrt(1.0 / SWEEP_WATCH));
    moved |= ergo__change_twice(&sr->side[k], d, lim);
  }
  sr->watch_n = 0;
  if (moved) sr->side[0] = sr->side[1] = 0;
  return moved;
}

static void sweep_observe(ergo__policy *p, ergo__region_state *r, const ergo__config *applied,
                          const ergo__measure *m) {
  /* An execution the schedule did not choose (the first, which decides significance) is not
   * told: the schedule ignores it. */
  sweep_region *sr = r->policy;
  if (!sr) return;
  sr->work_seen |= r->work_src != ERGO__WORK_NONE;
  if (p->steps != sr->step_at) sr->step_at = p->steps, sr->call = 0;
  int slot = sr->call < SWEEP_SLOTS ? sr->call : SWEEP_SLOTS - 1;
  sr->call++;
  if (!ergo__sweep_done(sr->sched)) {
    ergo__sweep_tell(sr->sched, m);
    return;
  }
  /* Its work changed while the schedule ran (the schedule said so as it ended: started again
   * after one execution at its choice), or at its choice since. */
  int changed = ergo__sweep_changed(sr->sched) && sr->retunes < SWEEP_RETUNES;
  int np, best = ergo__sweep_best(sr->sched), base = ergo__sweep_baseline(sr->sched);
  const ergo__sweep_point *pts = ergo__sweep_points(sr->sched, &np);
  int control = base >= 0 && best >= 0 && best != base && pts[base].n &&
                !memcmp(applied, &pts[base].config, sizeof *applied);
  if (control && !changed)
    changed = sr->retunes < SWEEP_RETUNES && control_moved(sr, &p->objective, m, slot);
  if (best >= 0 && !memcmp(applied, &pts[best].config, sizeof *applied) && m->time_s > 0) {
    ergo__measure *lb = &sr->last_best[slot];
    if (lb->time_s > 0 && lb->energy_j > 0 && m->energy_j > 0) {
      sr->pair[0][sr->pair_n % SWEEP_PAIRS] = fabs(log(m->time_s / lb->time_s));
      sr->pair[1][sr->pair_n % SWEEP_PAIRS] = fabs(log(m->energy_j / lb->energy_j));
      sr->pair_n++;
    }
    *lb = *m;
    sr->run[slot][0][sr->run_n[slot] % SWEEP_CONTROL] = m->time_s;
    sr->run[slot][1][sr->run_n[slot] % SWEEP_CONTROL] = m->energy_j;
    sr->run_n[slot]++;
  }
  if (!p->retune || !(changed || (!control && drifted(sr, applied, m))))
    return; /* ERGO_RETUNE=off: never */
  ergo__sweep *fresh = ergo__sweep_new(&p->space, &p->objective, &((sweep_priv *)p->priv)->spec);
  if (!fresh) return; /* no memory: it keeps its config */
  if (ergo__sweep_changed(sr->sched) == 2) ergo__sweep_explore_through(fresh);
  /* Its choice is measured again on the new work, next to the baseline, first: the model written
   * before the new schedule decides rests on that (region_model()). */
  if (best >= 0 && best != base) ergo__sweep_recheck(fresh, &pts[best].config);
  ergo__sweep_free(sr->prev);
  sr->prev = sr->sched;
  sr->sched = fresh;
  sr->retunes++;
  sr->retuned_at = p->steps;
  sr->after = 0;
  memset(sr->last_best, 0, sizeof sr->last_best);
  memset(sr->last_ctl, 0, sizeof sr->last_ctl);
  sr->pair_n = 0;
  sr->pays_n = 0;
  sr->pays_cusum = 0;
  memset(sr->run_n, 0, sizeof sr->run_n);
  memset(sr->ctl_side, 0, sizeof sr->ctl_side);
}

/* Whether the mean "still pays" excess of the last k controls is above SWEEP_RECENT_Z standard
 * errors of it and SWEEP_PAYS. */
static int recent_past(const sweep_region *sr, int k) {
  double sum = 0, var = 0;
  for (int i = 1; i <= k; i++) {
    int j = (sr->pays_n - i) % SWEEP_RECENT;
    sum += sr->pays[0][j];
    var += sr->pays[1][j] * sr->pays[1][j];
  }
  return sum / k > fmax(SWEEP_RECENT_Z * sqrt(var) / k, SWEEP_PAYS);
}

/* 1 when the last controls say with confidence that the choice no longer pays: the last 2, or
 * all kept (SWEEP_RECENT) when there are more. */
static int no_longer_pays(const sweep_region *sr) {
  int have = sr->pays_n < SWEEP_RECENT ? sr->pays_n : SWEEP_RECENT;
  return have >= 2 && (recent_past(sr, 2) || (have > 2 && recent_past(sr, have)));
}

/* One region's model entry: the best config, the baseline, every point measured, the Pareto
 * set first.  0, or 1 when nothing was measured (no entry), or ERGO_ENOMEM. */
static int region_model(ergo__model *m, const sweep_region *sr, int bounded) {
  /* A restarted schedule not over yet: its choice so far once it is deciding (the last finished
   * one measured work that has changed since); before that, the last finished one's choice only
   * where the new schedule's first measurements, on the work as it is, show it better than the
   * baseline (it re-measures that choice right after the baseline: a machine that was loaded
   * while the region was tuned and is free now), else the baseline: that choice was made for
   * work that is gone (a region whose serial work turned parallel kept a 3-thread choice at 17x
   * its new baseline's time; one turned memory-bound ran at a compute-bound choice at 1.6x its
   * baseline's time under energy@5%).  A first schedule cut short by the end of the run, under a
   * slowdown bound: its best so far only where its measurements support it likewise, also in its
   * final phase (single measurements compared with a baseline measured at its start, the work
   * having drifted since, put a region at 1.48x its baseline's time under energy@2%, and one at
   * 1.29x under energy@5% as its final phase began). */
  int stale = sr->prev && !ergo__sweep_deciding(sr->sched);
  const ergo__sweep *sc = sr->sched;
  int npts, best = ergo__sweep_best(sc), base = ergo__sweep_baseline(sc);
  const ergo__sweep_point *pts = ergo__sweep_points(sc, &npts);
  if (stale) {
    int pb = ergo__sweep_best(sr->prev), pn;
    const ergo__sweep_point *pp = ergo__sweep_points(sr->prev, &pn);
    int again = pb >= 0 ? ergo__sweep_find(sc, &pp[pb].config) : -1;
    if (base >= 0 && pts[base].n) {
      best = again >= 0 && ergo__sweep_supported(sc, again) ? again : base;
    } else { /* nothing measured on the new work yet: the last schedule's points, its baseline */
      sc = sr->prev;
      pts = pp;
      npts = pn;
      base = best = ergo__sweep_baseline(sc);
    }
  } else if (bounded && !ergo__sweep_done(sc) && best >= 0 && best != base &&
             !ergo__sweep_supported(sc, best))
    best = base;
  else if (ergo__sweep_done(sc) && best >= 0 && best != base &&
           ((bounded && sr->ctl_side[3] > 0) || no_longer_pays(sr) ||
            sr->pays_cusum > SWEEP_CUSUM_H))
    best = base; /* the last control found the choice past the bound, or the last ones together
                    or their CUSUM found it no longer pays: the run ended before the schedule
                    could start again */
  if (best < 0) return 1;
  ergo__model_region *mr = ergo__model_region_add(m, sr->path);
  if (!mr) return ERGO_ENOMEM;
  mr->best = pts[best].config;
  if (base >= 0 && pts[base].n) mr->baseline = ergo__sweep_mean(&pts[base]);
  for (int i = 0; i < npts; i++) {
    if (!pts[i].n) continue;
    ergo__measure mean = ergo__sweep_mean(&pts[i]);
    if (ergo__model_point_add(mr, &pts[i].config, mean.time_s, mean.energy_j, pts[i].n))
      return ERGO_ENOMEM;
  }
  ergo__model_pareto(mr);
  return 0;
}

/* The model of every region tuned so far (best settings so far; a region measured at no point is
 * left out); *unfinished counts the regions whose schedule is not over, *first the first of
 * them.  0, or ERGO_ENOMEM. */
static int build_model(ergo__policy *p, ergo__model *m, int *unfinished,
                       const sweep_region **first) {
  sweep_priv *s = p->priv;
  memset(m, 0, sizeof *m);
  snprintf(m->policy, sizeof m->policy, "sweep");
  ergo__objective_name(&p->objective, m->objective, sizeof m->objective);
  snprintf(m->platform, sizeof m->platform, "%s", p->sim ? "sim" : "real");
  m->steps = p->steps;
  *unfinished = 0;
  *first = NULL;
  for (const sweep_region *sr = s->regions; sr; sr = sr->next) {
    if (region_model(m, sr, p->objective.kind == ERGO__OBJ_ENERGY_BOUNDED) < 0) return ERGO_ENOMEM;
    /* (a schedule started again that is not deciding yet has its own warning) */
    if (!ergo__sweep_done(sr->sched) && (!sr->prev || ergo__sweep_deciding(sr->sched)) &&
        !(*unfinished)++)
      *first = sr;
  }
  if (!p->metered) ergo__model_no_energy(m); /* its 0 J were never measured */
  return 0;
}

/* During the run: the model so far, marked partial. */
static int sweep_save(ergo__policy *p) {
  ergo__model m;
  int unfinished;
  const sweep_region *first;
  int rc = build_model(p, &m, &unfinished, &first);
  m.partial = 1;
  /* Nothing tuned yet: an empty model would replace the file, perhaps a good model. */
  if (!rc && m.nregions)
    rc = ergo__model_save(p->cfg->model ? p->cfg->model : SWEEP_DEFAULT_MODEL, &m, &p->space);
  ergo__model_free(&m);
  return rc;
}

static int sweep_finish(ergo__policy *p) {
  ergo__model m;
  int unfinished;
  const sweep_region *first;
  int rc = build_model(p, &m, &unfinished, &first);
  const char *path = p->cfg->model ? p->cfg->model : SWEEP_DEFAULT_MODEL;
  int written = 0;
  if (rc < 0)
    ergo__error("sweep: out of memory while building the tuning model; '%s' not written", path);
  else if (!m.nregions)
    ; /* no region tuned: nothing replaces the file (said below) */
  else if ((rc = ergo__model_save(path, &m, &p->space)) == 0)
    written = 1;
  else {
    /* A file not written: the writer said why, with its cause (ENOENT, EACCES, ...). */
    if (rc != ERGO_EIO)
      ergo__error("sweep: the tuning model could not be written to '%s': %s (fix: set ERGO_MODEL "
                  "to a writable path)",
                  path, ergo_strerror(rc));
    ergo__model_save_fallback(path, &m, &p->space);
  }
  /* A schedule cut short still gives a model, from fewer points: say so once. */
  if (unfinished && !p->said)
    ergo__warn("sweep: %d region%s did not finish %s schedule (first: '%s', after %d "
               "executions); the model rests on what was measured (fix: run more steps, or "
               "ERGO_SWEEP=budget=N for a shorter schedule)",
               unfinished, unfinished == 1 ? "" : "s", unfinished == 1 ? "its" : "their",
               first->path, ergo__sweep_executions(first->sched));
  char tail[1100];
  snprintf(tail, sizeof tail, "tuning model written to %s", path);
  ergo__summary_print(&m, NULL, written ? tail : NULL);
  if (!m.nregions && rc >= 0) ergo__model_not_written("sweep", path);
  ergo__model_free(&m);
  int retuned = 0;
  const sweep_region *first_re = NULL;
  for (const sweep_region *sr = ((sweep_priv *)p->priv)->regions; sr; sr = sr->next)
    if (sr->retunes && !retuned++) first_re = sr;
  char at[48] = "";
  if (retuned && first_re->retuned_at > 0)
    snprintf(at, sizeof at, ", last at step %ld", first_re->retuned_at);
  if (retuned && p->talk)
    ergo__info("sweep: %d region%s measured differently at %s best config after %s schedule "
               "(the work changed), so %s schedule started again (first: '%s', %d time%s%s); the "
               "model has each new schedule's choice where it reached its decision",
               retuned, retuned == 1 ? "" : "s", retuned == 1 ? "its" : "their",
               retuned == 1 ? "its" : "their", retuned == 1 ? "its" : "their", first_re->path,
               first_re->retunes, first_re->retunes == 1 ? "" : "s", at);
  /* A schedule started again that had not reached its decision when the run ended: which
   * regions, and what the model has for them (region_model(): the baseline, or the last
   * schedule's choice where the new schedule's measurements of it still support it). */
  int open = 0, kept_old = 0, blind = 0;
  const sweep_region *first_open = NULL;
  for (const sweep_region *sr = ((sweep_priv *)p->priv)->regions; sr; sr = sr->next) {
    if (!sr->prev || ergo__sweep_deciding(sr->sched)) continue;
    if (!open++) first_open = sr;
    blind += !sr->work_seen;
    int pb = ergo__sweep_best(sr->prev), pn, base = ergo__sweep_baseline(sr->sched), bn;
    const ergo__sweep_point *pp = ergo__sweep_points(sr->prev, &pn),
                            *pts = ergo__sweep_points(sr->sched, &bn);
    int again = pb >= 0 ? ergo__sweep_find(sr->sched, &pp[pb].config) : -1;
    kept_old += base >= 0 && pts[base].n && again >= 0 && again != base &&
                ergo__sweep_supported(sr->sched, again);
  }
  if (open)
    ergo__warn("sweep: %d region%s whose work changed had not reached %s new schedule's "
               "decision when the run ended (first: '%s', %d executions into it); the model has "
               "%s (fix: run more steps, or ERGO_SWEEP=budget=N for a shorter schedule%s)",
               open, open == 1 ? "" : "s", open == 1 ? "its" : "their", first_open->path,
               ergo__sweep_executions(first_open->sched),
               kept_old == open ? (open == 1 ? "the last schedule's choice there, which the new "
                                               "measurements still support"
                                             : "the last schedules' choices there, which the new "
                                               "measurements still support")
               : kept_old       ? "the baseline there, or the last schedule's choice where the new "
                                  "measurements still support it"
                                : "the baseline there",
               blind ? ERGO__WORK_HINT_FIX : "");
  /* Outliers set aside (optimizer/robust.h): a user reads them as stalls on the node. */
  int aside = 0, with = 0, first_n = 0;
  const sweep_region *first_out = NULL;
  for (const sweep_region *sr = ((sweep_priv *)p->priv)->regions; sr; sr = sr->next) {
    int n = ergo__sweep_outliers(sr->sched) + (sr->prev ? ergo__sweep_outliers(sr->prev) : 0);
    if (n && !with++) first_out = sr, first_n = n;
    aside += n;
  }
  if (aside && p->talk)
    ergo__info("sweep: %d execution%s in %d region%s set aside as outliers (off %s config's "
               "median by more than 10 %% or 5 sigmas of the noise, not the work changing: a stall "
               "on the node; first: '%s', %d); the model's means are of the rest",
               aside, aside == 1 ? "" : "s", with, with == 1 ? "" : "s",
               aside == 1 ? "its" : "their", first_out->path, first_n);
  return rc < 0 ? rc : 0;
}

static void sweep_stop(ergo__policy *p) {
  sweep_priv *s = p->priv;
  if (!s) return;
  while (s->regions) {
    sweep_region *next = s->regions->next;
    ergo__sweep_free(s->regions->sched);
    ergo__sweep_free(s->regions->prev);
    free(s->regions->path);
    free(s->regions);
    s->regions = next;
  }
  free(s);
  p->priv = NULL;
}

/* "2 of 13 regions done, 2150 executions left, about 180 steps to go". */
static int sweep_progress(ergo__policy *p, char *buf, size_t len) {
  sweep_priv *s = p->priv;
  int n = 0, done = 0;
  long left = 0, steps = 0;
  for (const sweep_region *sr = s->regions; sr; sr = sr->next) {
    n++;
    int execs = ergo__sweep_executions(sr->sched);
    /* Over once its schedule is measured, though it hears so at its next execution. */
    if (ergo__sweep_done(sr->sched) || execs >= s->length) {
      done++;
      continue;
    }
    long l = s->length - execs;
    left += l;
    long ran = p->steps - sr->first_step;
    if (ran > 0 && execs > 0) {
      long st = (long)((double)l * (double)ran / execs + 0.999);
      if (st > steps) steps = st;
    }
  }
  if (!n) return 0;
  int o = snprintf(buf, len, "%d of %d region%s done, %ld execution%s left at most", done, n,
                   n == 1 ? "" : "s", left, left == 1 ? "" : "s");
  if (steps && o > 0 && (size_t)o < len)
    snprintf(buf + o, len - (size_t)o, ", about %ld step%s to go", steps, steps == 1 ? "" : "s");
  return 1;
}

const ergo__policy_ops ergo__policy_sweep = {
    "sweep",        sweep_start, sweep_choose, sweep_observe, sweep_finish, sweep_stop,
    sweep_progress, NULL,        sweep_save,   NULL,          NULL};
