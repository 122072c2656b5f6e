/* change.c - the change-point test (see change.h).
 *
 * The reference: mean mu and sigma of the logs of the first ERGO__CHANGE_REF values (sigma at
 * least the floor).  Then, per value x = log(value): up = max(0, up + x - mu - k), down =
 * max(0, down + mu - x - k); a change when either exceeds h.  k is half the smallest shift worth
 * finding (log(1 + ERGO__CHANGE_SHIFT) / 2) plus two standard errors of mu, so that a reference
 * that is off by its own noise does not drift into an alarm; h is five sigmas (and at least the
 * shift itself), which makes a false alarm rarer than one in many thousand values while a 20 %
 * change is found within a few. */
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

int ergo__change_add(ergo__change *c, double value) {
  if (!(value > 0) || !isfinite(value)) return 0;
  double x = log(value);
  double shift = log(1 + ERGO__CHANGE_SHIFT);
  if (!c->ready) {
    c->n++;
    c->sum += x;
    c->sq += x * x;
    if (c->n < ERGO__CHANGE_REF) return 0;
    double mu = c->sum / c->n, var = (c->sq - c->n * mu * mu) / (c->n - 1);
    c->mu = mu;
    c->sigma = sqrt(var > 0 ? var : 0);
    if (c->sigma < c->sigma_floor) c->sigma = c->sigma_floor;
    c->ready = 1;
    if (c->expect > 0) {
      /* The config measured something else when it was chosen: a difference beyond the shift
       * and beyond three standard errors of the two means is a change. */
      double se = c->sigma * sqrt(c->expect_se * c->expect_se + 1.0 / c->n);
      double d = fabs(mu - c->expect_log);
      if (d > shift && d > 3 * se) {
        restart(c);
        return 1;
      }
    }
    return 0;
  }
  double k = shift / 2 + 2 * c->sigma / sqrt((double)ERGO__CHANGE_REF);
  double h = 5 * c->sigma > shift ? 5 * c->sigma : shift;
  c->up = fmax(0, c->up + x - c->mu - k);
  c->down = fmax(0, c->down + c->mu - x - k);
  if (c->up > h || c->down > h) {
    restart(c);
    return 1;
  }
  return 0;
}
