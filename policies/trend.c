/* trend.c - the work of a region from its baseline's trend (see trend.h). */
#include "policies/trend.h"

#include "optimizer/nm.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>

#include <math.h>
#include <string.h>

/* The least-squares line through the first n measurements (gsl_fit_linear): time = c0 + c1 step;
 * their mean time *mt, the sum of squared step deviations *sxx and of squared residuals *rss.
 * 0, or -1 when the steps do not spread. */
static int fit(const ergo__trend *tr, int n, double *c0, double *c1, double *mt, double *sxx,
               double *rss) {
  if (n < 2) return -1;
  double ms = 0, st = 0, xx = 0, cov00, cov01, cov11;
  for (int i = 0; i < n; i++) ms += tr->s[i], st += tr->t[i];
  ms /= n;
  for (int i = 0; i < n; i++) xx += (tr->s[i] - ms) * (tr->s[i] - ms);
  if (!(xx > 0) || gsl_fit_linear(tr->s, 1, tr->t, 1, (size_t)n, c0, c1, &cov00, &cov01, &cov11,
                                  rss) != GSL_SUCCESS)
    return -1;
  *mt = st / n, *sxx = xx;
  return 0;
}

/* The fit's time at `step`, kept within 1/8 and 8 times its value at its last measurement. */
static double at(const ergo__trend *tr, double step) {
  double c0, c1, mt, sxx, rss;
  int to = tr->fit_n;
  if (to < 1) return 0;
  if (fit(tr, to, &c0, &c1, &mt, &sxx, &rss)) return tr->t[to - 1];
  double last = c0 + c1 * tr->s[to - 1], v = c0 + c1 * step;
  if (!(last > 0)) return tr->t[to - 1];
  return fmin(fmax(v, last / 8), last * 8);
}

void ergo__trend_add(ergo__trend *tr, double step, double time_s, double tol) {
  if (!(time_s > 0) || !isfinite(time_s) || !isfinite(step)) return;
  if (tr->n == ERGO__TREND_MAX) {
    memmove(tr->s, tr->s + 1, (ERGO__TREND_MAX - 1) * sizeof tr->s[0]);
    memmove(tr->t, tr->t + 1, (ERGO__TREND_MAX - 1) * sizeof tr->t[0]);
    tr->n--;
    if (tr->fit_n > 0) tr->fit_n--;
  }
  /* No ramp: every measurement (the next decision picks its own); a ramp: those on its line,
   * until the first off it. */
  int into_fit = !tr->ramp;
  if (tr->ramp && tr->fit_n == tr->n) {
    double v = at(tr, step);
    into_fit = v > 0 && fabs(time_s / v - 1) <= tol;
  }
  tr->s[tr->n] = step;
  tr->t[tr->n] = time_s;
  tr->n++;
  if (into_fit) tr->fit_n = tr->n;
}

double ergo__trend_work(const ergo__trend *tr, double step) {
  if (!tr->ramp || !(tr->ref > 0)) return 1;
  double v = at(tr, step);
  return v > 0 && isfinite(v) ? v / tr->ref : 1;
}

/* The least residual sum of squares of two levels through the measurements, the first k at one
 * and the rest at another, over every split (k from 1 to n - 1). */
static double two_levels(const ergo__trend *tr) {
  double best = INFINITY, all = 0;
  for (int i = 0; i < tr->n; i++) all += tr->t[i];
  double head = 0;
  for (int k = 1; k < tr->n; k++) {
    head += tr->t[k - 1];
    double m1 = head / k, m2 = (all - head) / (tr->n - k), rss = 0;
    for (int i = 0; i < tr->n; i++) {
      double d = tr->t[i] - (i < k ? m1 : m2);
      rss += d * d;
    }
    best = fmin(best, rss);
  }
  return best;
}

void ergo__trend_decide(ergo__trend *tr, double step, double sigma, double tol) {
  if (tr->n == 0) {
    tr->ramp = 0;
    return;
  }
  /* A ramp every measurement since its decision stayed on: it goes on. */
  int ramp = tr->ramp && tr->fit_n == tr->n;
  if (!ramp && tr->decisions++ > 0 && tr->n >= 3) {
    /* Else the measurements since the last decision, the last one then first: a line whose slope
     * the noise cannot explain and that each of them is on.  The change that started the search
     * again is the first of them, so a jump is level from there on, and only a ramp slopes. */
    double c0, c1, mt, sxx, rss;
    if (tr->s[tr->n - 1] - tr->s[0] >= ERGO__TREND_SPAN &&
        !fit(tr, tr->n, &c0, &c1, &mt, &sxx, &rss) && mt > 0) {
      double rel = fabs(c1) / mt, span = tr->s[tr->n - 1] - tr->s[0];
      ramp = rel * span > 0.005 && rel > ERGO__TREND_Z * fmax(sigma, 0) / sqrt(sxx);
      for (int i = 0; ramp && i < tr->n; i++) {
        double v = c0 + c1 * tr->s[i];
        ramp = v > 0 && fabs(tr->t[i] / v - 1) <= tol;
      }
      /* And the line fits them better than two levels do, split anywhere: with noise a jump
       * near the end of many points is within `tol` of the line through them all (a phase change
       * after 13 measurements of the baseline, the last 3 at 1.4x: taken for a ramp, configs
       * measured after it looked cheaper, and a choice ran at 1.023x the baseline's time under
       * `time`, random program 2177 without a counter). */
      if (ramp) ramp = rss < two_levels(tr);
    }
  }
  tr->ramp = ramp;
  /* No ramp: the last measurement alone, the first of those the next decision is made on. */
  int keep = ramp ? tr->n : 1;
  memmove(tr->s, tr->s + tr->n - keep, (size_t)keep * sizeof tr->s[0]);
  memmove(tr->t, tr->t + tr->n - keep, (size_t)keep * sizeof tr->t[0]);
  tr->n = tr->fit_n = keep;
  tr->ref = ramp ? at(tr, step) : 0;
  if (!(tr->ref > 0) || !isfinite(tr->ref)) tr->ramp = 0, tr->ref = 0;
}

double ergo__trend_tol(double sigma) {
  return sigma > 0 ? fmax(ERGO__NM_DRIFT_NOISY, ERGO__NM_DRIFT_SIGMAS * sigma) : ERGO__NM_DRIFT;
}
