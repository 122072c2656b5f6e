/* nm.h - online Nelder-Mead over a discrete knob grid, driven ask/tell (GSL nmsimplex2 inside). */
#ifndef ERGO_OPTIMIZER_NM_H
#define ERGO_OPTIMIZER_NM_H

#include "optimizer/objective.h"

#include <stddef.h>

#define ERGO__NM_MAX_DIMS 3

/* The grid: dimension d has n[d] points, indices 0..n[d]-1 (the caller maps
 * an index to a knob value).  Dimensions with n[d] < 2 are not searched. */
typedef struct ergo__nm_grid {
  int dims;
  int n[ERGO__NM_MAX_DIMS];
  int start[ERGO__NM_MAX_DIMS]; /* the baseline point (usually the maximum) */
  int log[ERGO__NM_MAX_DIMS];   /* search index i as log(1 + i): for a thread count, where 2 vs 4
                                   matters as much as 10 vs 20 */
} ergo__nm_grid;

typedef struct ergo__nm ergo__nm;

typedef struct ergo__nm_options {
  int max_evals;      /* measured executions at most, repeats included (default 40) */
  int repeats;        /* with noise: the baseline's measurements before the search (it gets
                         two more at the end), and the fresh ones each deciding candidate gets;
                         points the simplex merely passes get one (default 1) */
  double noise_rel;   /* guessed relative sigma of one measurement's time and energy; 0 and
                         repeats 1 = exact measurements (no confirmation phase).  Repeats show
                         the real noise: the search then uses that, and a decision the larger of
                         the two */
  unsigned long seed; /* reserved: nothing is randomised, the optimiser is deterministic */
  /* With noise: executions of max_evals kept for the confirmation (0, the default: none).  The
   * candidate about to replace the baseline and the baseline are measured again, in turn, on
   * fresh measurements sized by the noise, and the candidate replaces the baseline only when
   * those alone pass the test (see ERGO__NM_CONFIRM in nm.c); else the next candidate, or the
   * baseline stays. */
  int confirm;
  /* The cost of tuning (see ERGO__NM_BUDGET in nm.c): over the region's first `horizon`
   * executions, its time at most (1 + budget_time) times the baseline's and its energy at most
   * (1 + budget_energy) times; < 0 = that quantity is not bounded (the default: no budget).
   * Exploration that cannot be paid back within the horizon is skipped or ends the search, and
   * the point run once the search is over (ask()) is the best one that keeps the budget. */
  double budget_time, budget_energy;
  int horizon; /* default 200 */
  /* The baseline is measured again after every `base_every` measurements of other points (0,
   * the default: never), on the work the search has reached: one that moved from the baseline's
   * mean by more than ERGO__NM_DRIFT (without noise; with noise 10 % or 5 sigmas, if more) means
   * the work changed under the search, whose points then compare different work with the
   * baseline.  The search ends there with the baseline as its choice (ergo__nm_drifted says so;
   * the caller may start a new one). */
  int base_every;
  /* Debt carried in from an earlier search of the same region (seconds, joules; default 0):
   * what ergo__nm_debt said when that one was dropped. */
  double debt_time, debt_energy;
  /* Executions of the region on its new work run before this search began (at the choice of
   * the search before it, which the change of the work made costly), owed_execs of them, and
   * their total time and energy (default 0): the ledger charges them against this search's
   * baseline, which is the first to have measured the new work. */
  double owed_time, owed_energy;
  int owed_execs;
} ergo__nm_options;

/* Fill *o with the defaults above. */
void ergo__nm_options_default(ergo__nm_options *o);

/* Create an optimiser for one region, minimising `obj` judged against the
 * mean of the measurements at g->start (measured first, `repeats` times).
 * o NULL: defaults.  NULL on bad input or no memory. */
ergo__nm *ergo__nm_new(const ergo__nm_grid *g, const ergo__objective *obj,
                       const ergo__nm_options *o);
/* Safe at any time, mid-search included; NULL is a no-op. */
void ergo__nm_free(ergo__nm *nm);

/* The point to measure next (grid indices), or 0 when the search is over:
 * then *point is the final choice (the baseline unless something beat it
 * with confidence, see ERGO__NM_CONFIDENCE).  Never blocks; may return a point already measured
 * (re-measurement); until tell() answers, returns the same point again. */
int ergo__nm_ask(ergo__nm *nm, int point[ERGO__NM_MAX_DIMS]);

/* One measurement at `point`, which must be the one ask() returned last.  0,
 * or ERGO_EINVAL (another point, nothing asked, a time that is not > 0, or a
 * negative or non-finite energy or resource): nothing is recorded and the
 * point stays asked.  Energy 0 means not measured (no meter). */
int ergo__nm_tell(ergo__nm *nm, const int point[ERGO__NM_MAX_DIMS], const ergo__measure *m);

/* The point the region runs at once the search is over (what ask() returns then): the final
 * choice when it keeps the budget, else the best point that does (the baseline at worst); the
 * final choice without a budget.  1 when it differs from ergo__nm_best's. */
int ergo__nm_applied(const ergo__nm *nm, int point[ERGO__NM_MAX_DIMS]);
/* 1 when the budget ended the search early (exploration stopped to keep the tuning run's cost
 * within the budget); 0 otherwise. */
int ergo__nm_over_budget(const ergo__nm *nm);
/* The budget's debt so far in seconds and joules (negative: credit), the executions handed
 * out since the search ended counted at their points' means; 0 without a budget. */
void ergo__nm_debt(const ergo__nm *nm, double *time_s, double *energy_j);
/* Once the search is over: an execution the caller ran at another point than ask() handed out
 * (a probe), measured m, goes into the budget's debt, and the plan runs that many more
 * executions at its payback point, where it has one faster than the point it applies. */
void ergo__nm_charge(ergo__nm *nm, const ergo__measure *m);
/* Once the search is over, with noise: the measurement of an execution at the point ask() handed
 * out last, when that was a payback point (one the plan runs before the point it applies, to pay
 * the tuning's debt back).  The plan rested on that point's mean, which can be one lucky
 * measurement: it goes into the point's mean and the plan is made again.  1 when taken; 0 when
 * the last point handed out was no payback point, or the measurements are exact (the mean is
 * what the point costs): nothing changes. */
int ergo__nm_tell_paid(ergo__nm *nm, const int point[ERGO__NM_MAX_DIMS], const ergo__measure *m);
/* The budget's horizon from now on (executions, >= 1): a region called several times per step
 * runs that many executions per step, so its horizon of steps is that many times longer. */
void ergo__nm_set_horizon(ergo__nm *nm, int horizon);
/* The sigma of one measurement's log time (which 0) or log energy (1) as the repeated points
 * show it (the options' guess until they do), the outliers set aside. */
double ergo__nm_noise(const ergo__nm *nm, int which);
/* Measurements set aside as outliers (a lone one 1.5-2x its point's others: a stall; see
 * optimizer/robust.h): in no mean, no noise, no decision; the budget's ledger still charges
 * them, and the schedule counts them as executions handed out. */
int ergo__nm_outliers(const ergo__nm *nm);
/* 1 when a measurement of the baseline during the search moved from its mean (see base_every):
 * the search is over, its choice the baseline. */
int ergo__nm_drifted(const ergo__nm *nm);
/* Without noise, a baseline measured again off its mean by more than this (log) is a change. */
#define ERGO__NM_DRIFT 0.01
/* With noise: 10 % or 5 sigmas of one measurement, if more (check_base() in nm.c). */
#define ERGO__NM_DRIFT_NOISY 0.10
#define ERGO__NM_DRIFT_SIGMAS 5
/* Points the search skipped because measuring them could not be paid back within the budget. */
int ergo__nm_skipped(const ergo__nm *nm);

/* The run is over (its last execution told): a confirmation in progress (ERGO__NM_CONFIRM) is
 * judged on the measurements it has, CONFIRM_MIN a side at least, as it would have been on all it
 * planned.  The run's end does not depend on what was measured, so this is one look at a smaller
 * sample, at the same confidence.  1 when the candidate passed: the search is over
 * (ergo__nm_done) with it as its choice (ergo__nm_best; under an objective without a bound, a
 * point that beat the baseline on its own test before it, as for any search cut short); 0
 * otherwise, or when no confirmation was in progress (nothing changes). */
int ergo__nm_end(ergo__nm *nm);

/* The current choice (the final one once done): the best point that beats the
 * baseline with confidence, else the baseline; its mean measure and objective value
 * (either pointer may be NULL). */
void ergo__nm_best(const ergo__nm *nm, int point[ERGO__NM_MAX_DIMS], ergo__measure *mean,
                   double *value);
/* The baseline's mean measure so far (zeros before the first measurement). */
void ergo__nm_baseline(const ergo__nm *nm, ergo__measure *mean);
/* The i-th distinct point measured (0 is the baseline), its mean measure and
 * number of measurements (both without the outliers; the mean with, the number without, the
 * executions it ran as the budget's payback point: ergo__nm_tell_paid()); 0 when i is past the
 * last. */
int ergo__nm_point(const ergo__nm *nm, int i, int point[ERGO__NM_MAX_DIMS], ergo__measure *mean,
                   int *n);
/* Measurements told so far, and distinct points measured. */
int ergo__nm_evals(const ergo__nm *nm);
int ergo__nm_points(const ergo__nm *nm);
int ergo__nm_done(const ergo__nm *nm);

/* With noise a candidate replaces the baseline only when it is better with
 * this one-sided confidence (see nm.c, verdict). */
#define ERGO__NM_CONFIDENCE 0.95

/* The one-sided `conf` confidence bound on a difference of mean logs (the log
 * ratio of two geometric means), measured diff from na and nb measurements of
 * sigma each (per measurement, on the log scale): diff + q sigma sqrt(1/na +
 * 1/nb), q Student's t quantile with dof degrees of freedom (dof < 1: sigma is
 * a guess, the normal quantile).  A negative sigma gives the lower bound. */
double ergo__nm_log_ratio_bound(double diff, double sigma, int na, int nb, double dof, double conf);

/* How continuous search coordinates round to the grid: y in [0, 1] spans
 * dimension d (linearly in the index, or in log(1 + index)); the nearest
 * index, clamped to 0..n[d]-1. */
int ergo__nm_nearest(const ergo__nm_grid *g, int d, double y);

#endif
