/* ranks.c - which rank of how many this process is, as the runtime told the core. */
#include "internal.h"

ergo__ranks ergo__rk = {0, 1, 1, NULL, NULL, 0};

void ergo__ranks_set(const ergo__ranks *r) {
  if (r)
    ergo__rk = *r;
  else
    ergo__rk = (ergo__ranks){0, 1, 1, NULL, NULL, 0};
}
