/* change.h - a change-point test on one region's measurements at a fixed config: has the work
 * (or the machine) changed since the reference was taken?  Two-sided CUSUM on the log of the
 * values, against a reference mean and sigma taken from the first values (or given). */
#ifndef ERGO_OPTIMIZER_CHANGE_H
#define ERGO_OPTIMIZER_CHANGE_H

/* Values the reference is taken from before the test starts. */
#define ERGO__CHANGE_REF 8
/* The smallest change worth re-tuning for: 10 % in either direction. */
#define ERGO__CHANGE_SHIFT 0.10

typedef struct ergo__change {
  double sigma_floor; /* the least sigma per value assumed (log scale): the expected noise */
  int n;              /* reference values so far */
  double sum, sq;     /* of their logs */
  double mu, sigma;   /* the reference once taken */
  double up, down;    /* the CUSUM sums */
  int ready;          /* the reference is taken: the test runs */
  double expect;      /* > 0: the mean the reference must agree with (log of it in expect_log) */
  double expect_log, expect_se;
} ergo__change;

/* Start (or restart) a test; sigma_floor: the noise one value is expected to have at least (its
 * relative sigma, 0.01 for 1 %). */
void ergo__change_init(ergo__change *c, double sigma_floor);

/* Before the reference is taken: the mean the fixed config measured before (when it was chosen,
 * from n values); a reference that disagrees with it by more than ERGO__CHANGE_SHIFT and its
 * confidence is a change too (the work changed while the config was being chosen). */
void ergo__change_expect(ergo__change *c, double mean, int n);

/* One value (> 0; others are ignored) at the fixed config.  1 when a change point is found (the
 * test then restarts itself with the same floor), else 0. */
int ergo__change_add(ergo__change *c, double value);

/* The side d lies on beyond lim: 1 above, -1 below -lim, else 0. */
static inline int ergo__change_side(double d, double lim) {
  return d > lim ? 1 : d < -lim ? -1 : 0;
}

/* One verdict of a block test after tuning: d, a mean log ratio against the reference, is off
 * by more than lim on one side (1 above, -1 below, else 0).  1 when it is off on the side the
 * last verdict (*last) was: two verdicts in a row on the same side are a change; *last becomes
 * this one. */
static inline int ergo__change_twice(int *last, double d, double lim) {
  int side = ergo__change_side(d, lim), twice = side && side == *last;
  *last = side;
  return twice;
}

#endif
