/* trend.h - the work of a region nothing measures the work of, estimated from its baseline's
 * trend: where a region's work ramps (a mesh refined a little every step, particles that keep
 * arriving) and neither ergo_region_work nor a counter measures it, the baseline measured now
 * and then grows with it, and a search that compares configs measured at different steps
 * compares different work.  A line fitted to the baseline's time per step stands for the work
 * (a config's time per execution is the baseline's at that step times the config's ratio), so
 * the search compares each config with the baseline of its own step. */
#ifndef ERGO_POLICIES_TREND_H
#define ERGO_POLICIES_TREND_H

/* Baseline measurements kept for the fit (the oldest go first). */
#define ERGO__TREND_MAX 16

typedef struct ergo__trend {
  double s[ERGO__TREND_MAX], t[ERGO__TREND_MAX]; /* each measurement's step and time */
  int n;                                         /* measurements kept */
  int fit_n;  /* the first fit_n of them make the fit (a ramp's, off it: not until the decision) */
  int ramp;   /* 1: the work ramps, as the fit says; 0: no ramp shown (work 1) */
  double ref; /* the fit at the step the ramp was decided: the unit of work */
  int decisions; /* made so far */
} ergo__trend;

/* One measurement of the baseline (time per execution, > 0) at `step`.  On a ramp, one off the
 * fit by more than `tol` (relative) is the work changing otherwise: kept for the next decision,
 * but the fit, which the measurements until then are divided by, stays (a mesh refined no more
 * bent the line through every point since the ramp began, and the next measurements were taken
 * at 0.6-1.2x their work). */
void ergo__trend_add(ergo__trend *tr, double step, double time_s, double tol);

/* The work at `step`, relative to the unit (1 where no ramp is shown), for a measurement at that
 * step to be divided by.  Never below 1/8 or above 8 times the fit's value at the last
 * measurement, however far the line is extrapolated. */
double ergo__trend_work(const ergo__trend *tr, double step);

/* Decide, at a change of the work (the search starts again), whether the baseline ramps.  A ramp
 * whose measurements all stayed on its line goes on (its unit now the fit at `step`).  Else a
 * ramp is the line through the measurements since the last decision (the first of them the one
 * that decision was made at): they span ERGO__TREND_SPAN steps at least, its slope is
 * ERGO__TREND_Z standard errors of a measurement's relative noise `sigma` off zero and 0.5 % over
 * their span, there are three at least, each of them is within `tol` (relative) of it, and it
 * fits them better (least squares) than two levels split anywhere do.  The
 * first decision is never a ramp: the measurements before the change are level and the last
 * is off them, which a jump would be too; the next decision is on measurements from that one on,
 * level after a jump, sloping on a ramp.  No ramp keeps the last measurement alone, and the work
 * is 1 until the next decision. */
void ergo__trend_decide(ergo__trend *tr, double step, double sigma, double tol);

/* How far off a ramp's line a measurement is the work changing otherwise, at a measurement's
 * relative noise `sigma`: as far as a search's periodic check of the baseline allows (1 % without
 * noise, optimizer/nm.h's ERGO__NM_DRIFT; with noise 10 % or 5 sigmas, if more). */
double ergo__trend_tol(double sigma);

#define ERGO__TREND_SPAN 3
#define ERGO__TREND_Z 3.0

#endif
