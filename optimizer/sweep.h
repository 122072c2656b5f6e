/* sweep.h - the sweep policy's calibration schedule over a discrete knob space, driven
 * next()/tell(), and ERGO_SWEEP, which sets its grid, repeats and budget. */
#ifndef ERGO_OPTIMIZER_SWEEP_H
#define ERGO_OPTIMIZER_SWEEP_H

#include "optimizer/objective.h"
#include "optimizer/space.h"

#include <stddef.h>

/* Defaults of the schedule (ERGO_SWEEP sets budget and repeats). */
/* Executions per region of the default schedule, warm-up included. */
#define ERGO__SWEEP_BUDGET 300
/* Executions at the baseline first, whose measurements are dropped (cold caches, page faults). */
#define ERGO__SWEEP_WARMUP 1
/* Points the fitted surface may propose once the search has converged. */
#define ERGO__SWEEP_PROPOSALS 3
/* The same under noise, where the surface sees trends a single measurement cannot. */
#define ERGO__SWEEP_NOISY_PROPOSALS 10
/* Measurements of the baseline and of the winner beyond `repeats`, at least. */
#define ERGO__SWEEP_FINAL 2
/* Final phase under noise: candidates raced (halved per rung), the noise (relative sigma) below
 * which measurements count as exact, and the bands of apparent slowdown the candidates come
 * from. */
#define ERGO__SWEEP_FINALISTS 6
/* Of those, the places the fitted surface's best points take under noise. */
#define ERGO__SWEEP_SURFACE_FINALISTS 2
#define ERGO__SWEEP_PRECISION 0.015
/* Under noise, the width wanted of the winner's confidence interval (log ratio to the baseline). */
#define ERGO__SWEEP_CI 0.025
#define ERGO__SWEEP_BAND 0.01
/* A change of the baseline's mean log time or energy past which its work changed (or 5 standard
 * errors of the noise, if more). */
#define ERGO__SWEEP_DRIFT 0.10
/* The most noise per measurement the test for a change of the baseline assumes from the other
 * points (relative sigma): above it, what they show is changes of the work, not noise. */
#define ERGO__SWEEP_NOISE_CAP 0.25
/* Measurements of a candidate planned at once after the race (with the baseline's alongside). */
#define ERGO__SWEEP_BLOCK 8
/* Under a slowdown bound, a point's time counts this many standard errors slower than its
 * mean (a guard against choosing the luckiest of many measurements). */
#define ERGO__SWEEP_MARGIN 0.25
/* Where the noise is below ERGO__SWEEP_PRECISION the final choice's time counts this many
 * standard errors slower than its mean under a slowdown bound (one-sided 95 %): its mean alone
 * let a point at 1.0502x pass as inside 1.05 (random program 76 at 0.1 % noise, the whole run at
 * 1.0502x monitor's). */
#define ERGO__SWEEP_SURE 1.645
/* Executions after which a measurement no longer supports a choice under a slowdown bound (the
 * work may have changed since): ergo__sweep_supported(). */
#define ERGO__SWEEP_RECENT 32
/* ... and at most this many executions apart from the baseline's last, the two compared: a work
 * that shrank 2.5x in 30 executions put a choice at 0.87x a baseline measured 30 executions
 * before it, where it ran at 2.0x the baseline's time on the work of the end (random program
 * 2066 without a counter). */
#define ERGO__SWEEP_PAIR_GAP 8
/* ... as the median of p's last SUPPORT_N / 2 measurements within that window, each against the
 * baseline's nearest to it (of its last SUPPORT_N) within the pair gap, not the last pair alone:
 * one pair at 5 % noise put a choice at its baseline's true time past a 5 % bound one time in
 * four, and a baseline measured since left a choice with no baseline 8 executions from its last
 * (under energy@5% a memory-bound phase at 0.5x its baseline's energy, its time unchanged, kept
 * the baseline).  Pairs, not each side's median: work that shrank while the baseline was measured
 * and the choice was not put a choice at 2.0x its baseline's time (random program 2066 without a
 * counter again). */
#define ERGO__SWEEP_SUPPORT_N 8
/* While the grid or the search runs, the baseline is measured again once this many executions
 * passed since its last measurement, so a change of the work shows (base_moved()) while the
 * schedule runs, not only at its final phase, which a run may not reach: an exhaustive grid
 * whose region turned memory-bound a third of the way through ended with the run, and the model
 * kept a point measured on the old work, 1.49x the new work's baseline time under `edp`
 * (random program 3125). */
#define ERGO__SWEEP_BASE_EVERY 32
/* What ERGO_SWEEP accepts. */
#define ERGO__SWEEP_MAX_REPEATS 100
#define ERGO__SWEEP_MIN_BUDGET 10
#define ERGO__SWEEP_MAX_BUDGET 100000
#define ERGO__SWEEP_MAX_POINTS 10000 /* configurations of an explicit grid */

/* What ERGO_SWEEP says: an explicit grid (knobs not named stay at their baseline), the
 * measurements per configuration, and the budget of the default schedule. */
typedef struct ergo__sweep_spec {
  int n[ERGO__SPACE_DIMS]; /* values named for knob slot i; 0 = not named */
  int64_t values[ERGO__SPACE_DIMS][ERGO__SPACE_MAX_VALUES]; /* ascending, distinct */
  int repeats;                                              /* default 1 */
  int budget;                                               /* default ERGO__SWEEP_BUDGET */
} ergo__sweep_spec;

/* Parse ERGO_SWEEP: "cpu=1000000:2000000:200000,uncore=1200000,2400000,threads=1,2,4;repeats=2"
 * (knobs cpu, uncore, threads; each value a positive integer or a range FROM:TO:STEP; items
 * separated by ',' or ';'; a value without KEY= continues the list before it; options
 * repeats=N, budget=N).  NULL or "" is the default schedule.  0, or ERGO_EINVAL with one line in
 * why naming the value and the accepted form; *spec is then the default. */
int ergo__sweep_parse(const char *s, ergo__sweep_spec *spec, char *why, size_t whylen);

/* 1 when the spec names a grid (the explicit schedule), 0 for the default schedule. */
int ergo__sweep_explicit(const ergo__sweep_spec *spec);

/* Fit an explicit grid to this node: a value the knob does not allow becomes the nearest allowed
 * one (one line in warn, else warn is ""); a knob the node lacks, or a grid of more than
 * ERGO__SWEEP_MAX_POINTS configurations, is ERGO_EINVAL with one line in why. */
int ergo__sweep_fit(ergo__sweep_spec *spec, const ergo__space *space, char *why, size_t whylen,
                    char *warn, size_t warnlen);

typedef struct ergo__sweep ergo__sweep;

/* One configuration measured: the sums over its n measurements. */
typedef struct ergo__sweep_point {
  ergo__config config;
  double time_s, energy_j, resource; /* sums */
  int n;
} ergo__sweep_point;

/* A schedule for one region.  spec NULL (or not explicit) is the default schedule, at most
 * `budget` executions:
 *  - warm-up: ERGO__SWEEP_WARMUP executions at the baseline, not recorded;
 *  - the baseline, repeats + ERGO__SWEEP_FINAL times (the noise it shows sizes the rest);
 *  - the whole grid when it fits the budget, else the search, coarse to fine along each knob: from
 *    the baseline, the points a step away along each knob (the first step a quarter of the
 *    knob's range); the best moves to a better one, and when none is, the steps halve; at one
 *    grid step also along each pair of knobs and the corners (under noise at every step); then
 *    up to ERGO__SWEEP_PROPOSALS points (ERGO__SWEEP_NOISY_PROPOSALS under noise) a quadratic
 *    surface in the logarithm of each knob's value, fitted to every measurement, predicts better
 *    than its own value at the best point, each searched around when it is (a simple front: a
 *    few dozen executions).  Under noise the search starts with a design of each knob at its
 *    baseline value and a quarter and a half of its range away (27 points), so the surface
 *    spans the space;
 *  - final: without noise the best re-measured; with noise ERGO__SWEEP_FINALISTS candidates
 *    (the last ERGO__SWEEP_SURFACE_FINALISTS of them the surface's best grid points, except
 *    under energy@X%) raced (successive halving) with the baseline alongside, up to the
 *    measurements that make the winner's confidence interval ERGO__SWEEP_CI wide; the winner is
 *    the best of the raced points that is better than the baseline with ERGO__NM_CONFIDENCE
 *    (under energy@X%, its time shown within 1 + X on its neighbourhood's estimate and on its
 *    own measurements since it became a candidate alike, by Holm's procedure at family-wise
 *    ERGO__NM_CONFIDENCE over every candidate so tested), else the baseline.
 * Each configuration is measured `repeats` times in a row.  An explicit grid is: warm-up, the
 * baseline, the grid; no search, no final, no budget; the best of the grid and the baseline
 * wins.  The space is copied; spec must have passed ergo__sweep_fit.  NULL on no memory. */
ergo__sweep *ergo__sweep_new(const ergo__space *space, const ergo__objective *objective,
                             const ergo__sweep_spec *spec);
void ergo__sweep_free(ergo__sweep *s);

/* The configuration for the next execution: 1 = measure this one (then tell()); 0 = the schedule
 * is over and *c is the best configuration.  Calling it again before tell() repeats the
 * configuration. */
int ergo__sweep_next(ergo__sweep *s, ergo__config *c);

/* The measurement of the execution that the last next() returning 1 handed out; ignored when
 * nothing is handed out (an execution the schedule did not choose). */
void ergo__sweep_tell(ergo__sweep *s, const ergo__measure *m);

/* The best point so far (the final choice once done; in the final phase its choice so far), or
 * -1 when nothing is measured; its index into ergo__sweep_points(). */
int ergo__sweep_best(const ergo__sweep *s);

/* Measure configuration c right after the baseline, as often as the baseline (a schedule started
 * again after the work changed re-measures the last schedule's choice on the work as it is, so
 * that a model written before the new schedule decides rests on fresh measurements).  Only
 * before the first next(); returns its point's index, or -1. */
int ergo__sweep_recheck(ergo__sweep *s, const ergo__config *c);

/* A change of the work seen while exploring does not end this schedule (its final phase still
 * tests for one): for a schedule started again because of such a change.  Work that keeps
 * drifting (a ramp) moves the baseline in every stretch of 32 executions, and a search started
 * again at each never ended: a region kept at its baseline where its choice would have saved
 * two thirds of its energy (random program 1038 without a counter). */
void ergo__sweep_explore_through(ergo__sweep *s);

/* The index of configuration c among the points, or -1. */
int ergo__sweep_find(const ergo__sweep *s, const ergo__config *c);

/* 1 when point p's own measurements support it against the baseline on the work as it was when
 * they were taken: the baseline itself once measured; another point measured at least as often
 * as the baseline's first measurements (repeats + ERGO__SWEEP_FINAL) and, without noise, better
 * than the baseline by the objective (under energy@X% inside the bound), under noise better with
 * the final phase's confidence (the time bound by Holm's procedure).  Under energy@X% also p
 * and the baseline each measured within the last ERGO__SWEEP_RECENT executions (a schedule with
 * a recheck measures both again that often until it decides), and the median of p's last
 * measurements there, each against the baseline's nearest within ERGO__SWEEP_PAIR_GAP
 * executions, inside the bound (ERGO__SWEEP_SUPPORT_N). */
int ergo__sweep_supported(const ergo__sweep *s, int p);

/* 1 once the schedule's final phase has started its race (or the schedule is over; not while an
 * exhaustive grid is still walked): ergo__sweep_best is then the final phase's choice so far
 * (under noise: better than the baseline with confidence, else the baseline). */
int ergo__sweep_deciding(const ergo__sweep *s);

/* The index of the baseline point, or -1 when there is no knob to tune. */
int ergo__sweep_baseline(const ergo__sweep *s);

/* Every configuration in the schedule so far (n == 0: not measured yet); *count receives their
 * number. */
const ergo__sweep_point *ergo__sweep_points(const ergo__sweep *s, int *count);

/* Measurements set aside as outliers (optimizer/robust.h): in no point's sums. */
int ergo__sweep_outliers(const ergo__sweep *s);
/* Executions told so far, warm-up included; 1 when the schedule is over. */
int ergo__sweep_executions(const ergo__sweep *s);
int ergo__sweep_done(const ergo__sweep *s);

/* Not 0 when the baseline's work changed while the schedule ran: what it chose compares work
 * that differs; start it again.  1: its measurements before and after its final phase disagree;
 * 2: they did while the grid was walked or the search ran (measured to ERGO__SWEEP_PRECISION),
 * and the schedule ended there, at its best so far. */
int ergo__sweep_changed(const ergo__sweep *s);

/* The relative sigma of one measurement of time (which 0) or energy (1) as the repeated points
 * show it (0 before any point was measured twice). */
double ergo__sweep_noise(const ergo__sweep *s, int which);

/* The mean of a point's measurements (zeros when n == 0). */
ergo__measure ergo__sweep_mean(const ergo__sweep_point *p);

#endif
