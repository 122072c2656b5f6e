/* work.h - like-for-like measurement: an execution's time and energy per unit of its work, and
 * the split of a region called at several sizes in one step into one unit per call. */
#ifndef ERGO_POLICIES_WORK_H
#define ERGO_POLICIES_WORK_H

#include <stdint.h>

/* Where an execution's work came from. */
enum { ERGO__WORK_NONE, ERGO__WORK_HINT, ERGO__WORK_COUNTER };

/* The fix a policy's end-of-run warning adds for a region nothing measured the work of. */
#define ERGO__WORK_HINT_FIX                                                                        \
  "; where the work grows or shrinks, ergo_region_work(units) in the region so that it is "        \
  "compared per unit of work"

/* A region's normalisation: the source its first execution with work had, and that work (the
 * reference every later execution is scaled to, so measurements stay in seconds and joules). */
typedef struct ergo__work_norm {
  int src;
  double ref;
} ergo__work_norm;

/* The factor to multiply an execution's exclusive time and energy by so that it stands for the
 * region's reference work: ref / w, from the execution's own work w: the hinted units when
 * ergo_region_work was called in it (hints > 0), else the counter's (counter > 0), else unknown.
 * The first execution with work sets the source and the reference (factor 1); an execution
 * whose work is unknown, zero, or from another source than the region's is taken as it is
 * (factor 1).  *src gets the source this execution's factor came from (ERGO__WORK_NONE: 1). */
double ergo__work_scale(ergo__work_norm *n, double hint, uint64_t hints, double counter, int *src);

/* Executions per step a region may be split into (its calls' sizes): at most this many units. */
#define ERGO__SPLIT_MAX 8
/* A step's calls differ in size when the longest own time is this many times the shortest. */
#define ERGO__SPLIT_RATIO 1.5

/* Whether one step's `n` executions of a region, all under one config, with own times t[0..n-1],
 * are of different sizes: the number of units to tune them as (n, one per call index), or 0 to
 * keep them as one (a single call, more calls than ERGO__SPLIT_MAX, or sizes within
 * ERGO__SPLIT_RATIO of each other, which the noise of a measurement can explain). */
int ergo__work_split(const double *t, int n);

#endif
