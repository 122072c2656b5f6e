/* robust.c - measurements kept one by one, their outliers set aside (see robust.h). */
#include "optimizer/robust.h"

#include <gsl/gsl_statistics_double.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ergo__mlist_add(ergo__mlist *l, double time_s, double energy_j, double resource) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 8;
    double(*m)[3] = realloc(l->m, (size_t)cap * sizeof *m);
    if (!m) return -1;
    l->m = m;
    l->cap = cap;
  }
  l->m[l->n][0] = time_s;
  l->m[l->n][1] = energy_j;
  l->m[l->n][2] = resource;
  l->n++;
  return 0;
}

void ergo__mlist_free(ergo__mlist *l) {
  free(l->m);
  l->m = NULL;
  l->n = l->cap = 0;
}

static double lg(double v) { return v > 0 ? log(v) : -INFINITY; }

double ergo__median(double *v, int n) { return gsl_stats_median(v, 1, (size_t)n); }

/* The reference of quantity k of l (log scale): the median of three or more, the least of two,
 * the one of one.  buf holds l->n values. */
static double reference(const ergo__mlist *l, int k, double *buf) {
  for (int i = 0; i < l->n; i++) buf[i] = lg(l->m[i][k]);
  if (l->n >= 3) return ergo__median(buf, l->n);
  return l->n == 2 ? fmin(buf[0], buf[1]) : buf[0];
}

void ergo__robust_thresholds(const ergo__mlist *lists, int n, double thr[2]) {
  thr[0] = thr[1] = INFINITY;
  int total = 0, most = 0;
  for (int i = 0; i < n; i++) {
    if (lists[i].n >= 3) total += lists[i].n;
    if (lists[i].n > most) most = lists[i].n;
  }
  if (total < ERGO__ROBUST_MIN_RESIDUALS) return;
  double *res = malloc((size_t)total * sizeof *res), *buf = malloc((size_t)most * sizeof *buf);
  for (int k = 0; k < 2 && res && buf; k++) {
    int m = 0;
    for (int i = 0; i < n; i++) {
      const ergo__mlist *l = &lists[i];
      if (l->n < 3) continue;
      double med = reference(l, k, buf);
      int skipped = 0;
      for (int j = 0; j < l->n; j++) {
        double d = fabs(lg(l->m[j][k]) - med);
        /* Of an odd count the median's own deviation is 0 by construction: not a deviation. */
        if (l->n % 2 && !skipped && d == 0) {
          skipped = 1;
          continue;
        }
        if (isfinite(d)) res[m++] = d;
      }
    }
    if (m >= ERGO__ROBUST_MIN_RESIDUALS)
      thr[k] = fmax(ERGO__ROBUST_MIN, ERGO__ROBUST_SIGMAS * 1.4826 * ergo__median(res, m));
  }
  free(res);
  free(buf);
}

/* Which side of the references measurement m is off by more than the thresholds: 1 above, -1
 * below (by its time if that is off, else by its energy), 0 neither. */
static int off(const double *m, const double ref[2], const double thr[2]) {
  for (int k = 0; k < 2; k++) {
    double d = lg(m[k]) - ref[k];
    if (isfinite(thr[k]) && fabs(d) > thr[k]) return d > 0 ? 1 : -1;
  }
  return 0;
}

int ergo__mlist_kept(const ergo__mlist *l, const double thr[2], unsigned char *keep) {
  for (int i = 0; i < l->n; i++) keep[i] = 1;
  if (l->n < 2 || (!isfinite(thr[0]) && !isfinite(thr[1]))) return l->n;
  double ref[2] = {0, 0}, *buf = malloc((size_t)l->n * sizeof *buf);
  signed char *side = malloc((size_t)l->n);
  int kept = l->n;
  if (buf && side) {
    for (int k = 0; k < 2; k++) ref[k] = reference(l, k, buf);
    for (int i = 0; i < l->n; i++) side[i] = (signed char)off(l->m[i], ref, thr);
    /* A stall makes an execution slower, never faster, and passes: an outlier is off on the
     * slow side, after measurements on the reference's level, alone or two in a row (a stall
     * can last two executions) with more after it, or alone and the last.  The first
     * measurements off on one side are the work as it was before a change, the last two or more
     * the work after it (a jump, a ramp, a phase): kept for the means to follow and the tests of
     * change to see (a change is seen one measurement later).  Of two, the slower when off (the
     * reference is the faster). */
    int cnt = 0;
    for (int i = 0; i < l->n; i++) {
      int j = i;
      while (j < l->n && side[j] == side[i]) j++; /* the run [i, j) on one side */
      int outlier = side[i] > 0 && (l->n == 2 || (i > 0 && (j < l->n ? j - i <= 2 : j - i == 1)));
      for (int k = i; k < j; k++) cnt += !(keep[k] = !outlier);
      i = j - 1;
    }
    /* Outliers are rare: more than a quarter of the list (one of two or three) is a list with
     * two levels, and none is set aside. */
    if (cnt > (l->n / 4 > 1 ? l->n / 4 : 1))
      for (int i = 0; i < l->n; i++) keep[i] = 1;
    else
      kept -= cnt;
  }
  free(buf);
  free(side);
  return kept;
}

int ergo__mlist_sums(const ergo__mlist *l, const double thr[2], int from, ergo__msums *out) {
  *out = (ergo__msums){0};
  unsigned char *keep = NULL; /* NULL: every one kept (nothing to screen, or no memory) */
  if (l->n >= 2 && (isfinite(thr[0]) || isfinite(thr[1])) && (keep = malloc((size_t)l->n)))
    ergo__mlist_kept(l, thr, keep);
  int out_n = 0;
  for (int i = 0; i < l->n; i++) {
    const double *m = l->m[i];
    if (keep && !keep[i]) {
      out_n++;
      continue;
    }
    out->t += m[0];
    out->e += m[1];
    out->r += m[2];
    out->t2 += m[0] * m[0];
    out->e2 += m[1] * m[1];
    out->n++;
    if (i >= from) out->t_from += m[0], out->n_from++;
  }
  free(keep);
  return out_n;
}

double ergo__median_small(const double *v, int n) {
  double b[64];
  if (n < 1) return 0;
  if (n > 64) n = 64;
  memcpy(b, v, (size_t)n * sizeof *b);
  return ergo__median(b, n);
}

int ergo__robust_update(const ergo__mlist *lists, int n, long told, double thr[2]) {
  double t[2] = {thr[0], thr[1]};
  if (told < 512 || told % 32 == 0) ergo__robust_thresholds(lists, n, t);
  if (t[0] == thr[0] && t[1] == thr[1]) return 0;
  thr[0] = t[0];
  thr[1] = t[1];
  return 1;
}

double ergo__median_weighted(const double *v, const double *w, int n) {
  double b[64][2], tot = 0;
  if (n < 1) return 0;
  if (n > 64) n = 64;
  for (int i = 0; i < n; i++) { /* insertion sort by value: a handful */
    int j = i;
    while (j > 0 && b[j - 1][0] > v[i]) {
      b[j][0] = b[j - 1][0];
      b[j][1] = b[j - 1][1];
      j--;
    }
    b[j][0] = v[i];
    b[j][1] = w[i];
    tot += w[i];
  }
  double cum = 0;
  for (int i = 0; i < n; i++) {
    cum += b[i][1];
    if (fabs(cum - tot / 2) <= 1e-9 * tot && i + 1 < n) return 0.5 * (b[i][0] + b[i + 1][0]);
    if (cum > tot / 2) return b[i][0];
  }
  return b[n - 1][0];
}
