/* launcher.c - how many ranks the MPI launcher started, from its environment (Open MPI, PMI, PMIx),
 * so a rank can tell it is one of several even when MPI is not initialised. */
#include "mpi/job.h"

#include <stdlib.h>

int ergo__job_launcher_ranks(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *v = getenv(vars[i]);
    if (v) return atoi(v) > 0 ? atoi(v) : 1;
  }
  return 1;
}
