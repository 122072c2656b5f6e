/* work.c - like-for-like measurement (see work.h). */
#include "policies/work.h"

#include <math.h>

double ergo__work_scale(ergo__work_norm *n, double hint, uint64_t hints, double counter, int *src) {
  int kind = ERGO__WORK_NONE;
  double w = 0;
  if (hints > 0 && hint > 0 && isfinite(hint))
    kind = ERGO__WORK_HINT, w = hint;
  else if (counter > 0 && isfinite(counter))
    kind = ERGO__WORK_COUNTER, w = counter;
  *src = ERGO__WORK_NONE;
  if (kind == ERGO__WORK_NONE) return 1;
  if (n->src == ERGO__WORK_NONE) {
    n->src = kind;
    n->ref = w;
  }
  if (kind != n->src) return 1;
  *src = kind;
  return n->ref / w;
}

int ergo__work_split(const double *t, int n) {
  if (n < 2 || n > ERGO__SPLIT_MAX) return 0;
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < n; i++) {
    if (!(t[i] >= 0) || !isfinite(t[i])) return 0;
    if (t[i] < lo) lo = t[i];
    if (t[i] > hi) hi = t[i];
  }
  return hi > ERGO__SPLIT_RATIO * lo ? n : 0;
}
