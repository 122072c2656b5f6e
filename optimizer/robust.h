/* robust.h - one configuration's measurements kept one by one, and the outliers among them (an
 * execution that caught a daemon, a page-fault storm or a network stall: 1.5-2x its fellows)
 * set aside before any mean or noise is taken from them.
 *
 * The rule, per list of a configuration's measurements: its reference is the median of the log
 * times (of three or more; of two, the faster: an outlier is slow), and a measurement is off it
 * when its log time or log energy is off the list's reference by more than the threshold,
 * max(ERGO__ROBUST_MIN, ERGO__ROBUST_SIGMAS x sigma), sigma the robust noise pooled over every
 * list (1.4826 x the median absolute deviation from each list's median).  Until
 * ERGO__ROBUST_MIN_RESIDUALS deviations are known nothing is set aside.  An outlier is off on
 * the slow side after measurements on the reference's level, alone or two in a row with more
 * after it, or alone and the last (of two, the slower): the first measurements off on one side
 * are the work before a change, the last two or more the work after it, and stay (the means
 * follow the work, the tests of change must see it).  And
 * outliers are rare: in a list where more than a quarter (one of two or three) would be set
 * aside, none is. */
#ifndef ERGO_OPTIMIZER_ROBUST_H
#define ERGO_OPTIMIZER_ROBUST_H

/* The least threshold (log scale): 10 %. Below it a difference is no outlier, whatever the noise
 * (without noise a change of 1 % would be one). */
#define ERGO__ROBUST_MIN 0.10
/* Sigmas of the robust noise beyond which a measurement is an outlier: a Gaussian measurement
 * is one with a chance below 1e-6. */
#define ERGO__ROBUST_SIGMAS 5.0
/* Deviations from a list's median needed before the robust noise is trusted. */
#define ERGO__ROBUST_MIN_RESIDUALS 8

typedef struct ergo__mlist {
  double (*m)[3]; /* time, energy, resource of each measurement, in order */
  int n, cap;
} ergo__mlist;

/* Sums of the measurements kept (not outliers): from index `from` on in t_from and n_from. */
typedef struct ergo__msums {
  double t, e, r, t2, e2;
  int n;
  double t_from;
  int n_from;
} ergo__msums;

/* Append one measurement; -1 when out of memory (the list is unchanged). */
int ergo__mlist_add(ergo__mlist *l, double time_s, double energy_j, double resource);

void ergo__mlist_free(ergo__mlist *l);

/* The thresholds (log time, log energy) from the robust noise pooled over `n` lists; each is
 * INFINITY while fewer than ERGO__ROBUST_MIN_RESIDUALS deviations are known (or out of memory). */
void ergo__robust_thresholds(const ergo__mlist *lists, int n, double thr[2]);

/* keep[i] (l->n of them): 1 unless measurement i is an outlier under thr; returns how many are
 * kept. */
int ergo__mlist_kept(const ergo__mlist *l, const double thr[2], unsigned char *keep);

/* The sums of l's measurements that are not outliers under thr (ergo__robust_thresholds()), and
 * of those from index `from` on; returns how many were set aside. */
int ergo__mlist_sums(const ergo__mlist *l, const double thr[2], int from, ergo__msums *out);

/* The thresholds after a new measurement (`told` so far): recomputed from every list while
 * fewer than 512 were told, then at every 32nd (the cost grows with the measurements).  1 when
 * they moved (every list's sums must be rebuilt), else 0 (only the told one's). */
int ergo__robust_update(const ergo__mlist *lists, int n, long told, double thr[2]);

/* The median of v[0..n), n >= 1 (GSL's; v is reordered). */
double ergo__median(double *v, int n);

/* The median of v[0..n), n at most 64, v left as it is (a block of a few executions: one
 * outlier in it does not move it); 0 for n < 1. */
double ergo__median_small(const double *v, int n);

/* The weighted median of v[0..n) with weights w (> 0), n at most 64: where the weights below and
 * above are equal, the mean of the two values there (equal weights: the median); 0 for n < 1. */
double ergo__median_weighted(const double *v, const double *w, int n);

#endif
