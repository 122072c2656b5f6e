/* change.c - the change-point test (see change.h).
 *
 * The reference: mean mu and sigma of the logs of the values so far (the first ERGO__CHANGE_REF
 * before the test starts, then every value that leaves both sums at 0; sigma at least the floor).
 * Per value x = log(value): up = max(0, up + x - mu - k), down = max(0, down + mu - x - k); a
 * change when either exceeds h.  k is three quarters of the smallest shift worth finding
 * (log(1 + ERGO__CHANGE_SHIFT)), so that a lasting shift of less than 7.5 % never raises one, at
 * least 0.75 sigma, plus two standard errors of mu, so
 * that a reference that is off by its own noise does not drift into an alarm; h is seven sigmas
 * (and at least the shift itself).  A false alarm is then rarer than one in tens of thousands of
 * values at 5 or 10 % noise, while a 20 % change is found within a few values without noise,
 * within about ten at 5 % noise. */
#include "optimizer/change.h"

#include <math.h>
#include <string.h>

void ergo__change_init(ergo__change *c, double sigma_floor) {
  memset(c, 0, sizeof *c);
  c->sigma_floor = sigma_floor > 0 ? sigma_floor : 0.005;
}

void ergo__change_expect(ergo__change *c, double mean, int n) {
  if (!(mean > 0) || !isfinite(mean) || n < 1) return;
  c->expect = mean;
  c->expect_log = log(mean);
  c->expect_se = 1.0 / sqrt((double)n); /* in sigmas: scaled once sigma is known */
}

static void restart(ergo__change *c) {
  double floor = c->sigma_floor;
  ergo__change_init(c, floor);
}

/* Add x (a log) to the reference's running mean and sum of squared deviations (Welford). */
static void include(ergo__change *c, double x) {
  c->n++;
  double d = x - c->sum;
  c->sum += d / c->n; /* sum holds the running mean */
  c->sq += d * (x - c->sum);
  double var = c->n > 1 ? c->sq / (c->n - 1) : 0;
  c->mu = c->sum;
  c->sigma = sqrt(var > 0 ? var : 0);
  if (c->sigma < c->sigma_floor) c->sigma = c->sigma_floor;
}

int ergo__change_add(ergo__change *c, double value) {
  if (!(value > 0) || !isfinite(value)) return 0;
  double x = log(value);
  double shift = log(1 + ERGO__CHANGE_SHIFT);
  if (!c->ready) {
    include(c, x);
    if (c->n < ERGO__CHANGE_REF) return 0;
    c->ready = 1;
    if (c->expect > 0) {
      /* The config measured something else when it was chosen: a difference beyond the shift
       * and beyond three standard errors of the two means is a change. */
      double se = c->sigma * sqrt(c->expect_se * c->expect_se + 1.0 / c->n);
      double d = fabs(c->mu - c->expect_log);
      if (d > shift && d > 3 * se) {
        restart(c);
        return 1;
      }
    }
    return 0;
  }
  double k = fmax(0.75 * shift, 0.75 * c->sigma) + 2 * c->sigma / sqrt((double)c->n);
  double h = fmax(7 * c->sigma, shift);
  /* One value moves the sums by at most the clip: a few outliers in a row (a loaded machine's
   * hiccups) cannot raise a change on their own; a lasting change still does. */
  double clip = fmax(3 * c->sigma, 2 * shift), d = fmin(fmax(x - c->mu, -clip), clip);
  c->up = fmax(0, c->up + d - k);
  c->down = fmax(0, c->down - d - k);
  if (c->up > h || c->down > h) {
    restart(c);
    return 1;
  }
  /* A value that leaves no evidence of a change building up joins the reference, which so
   * grows more precise (one that does stays out, so the reference never follows a change). */
  if (c->up == 0 && c->down == 0) include(c, x);
  return 0;
}
