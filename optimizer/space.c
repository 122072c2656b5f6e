/* space.c - the search space: rounding a value to the grid. */
#include "optimizer/space.h"

#include <stdlib.h>

int64_t ergo__space_round(const ergo__space *s, int i, int64_t v) {
  if (!s->n[i]) return 0;
  int best = 0;
  for (int k = 1; k < s->n[i]; k++) {
    int64_t d = llabs(s->values[i][k] - v), db = llabs(s->values[i][best] - v);
    if (d < db) best = k;
  }
  return s->values[i][best];
}
