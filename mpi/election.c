/* election.c - which rank of a node reads which energy domain, and sets which package's uncore. */
#include "mpi/job.h"

uint64_t ergo__job_elect(const uint64_t *masks, int node_size, int node_rank, int *reads_unbound) {
  uint64_t mine = 0, covered = 0;
  for (int r = 0; r < node_size; r++) {
    uint64_t fresh = masks[r] & ~covered; /* packages no lower rank covers */
    if (r == node_rank) mine = fresh;
    covered |= masks[r];
  }
  if (reads_unbound) *reads_unbound = node_rank == 0;
  /* Packages no rank runs on are read by node rank 0, with the unbound domains. */
  if (node_rank == 0) mine |= ~covered;
  return mine;
}
