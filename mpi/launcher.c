/* launcher.c - which of several processes the launcher started this one is, from its environment
 * (Open MPI, MPICH Hydra, MVAPICH, PMIx, Slurm), so a process can tell it is one of several even
 * when MPI is not initialised. */
#include "mpi/launcher.h"

#include "mpi/job.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

/* A non-negative int from variable `name`, or -1 when unset or not a number. */
static int env_int(const char *name) {
  const char *v = name ? getenv(name) : NULL;
  if (!v || !*v) return -1;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (*end || errno || n < 0 || n > INT_MAX) return -1;
  return (int)n;
}

/* Slurm's size of the running step (srun): SLURM_STEP_NUM_TASKS, or SLURM_NTASKS in a step. */
static int slurm_step_size(void) {
  int n = env_int("SLURM_STEP_NUM_TASKS");
  if (n < 0 && env_int("SLURM_STEP_ID") >= 0) n = env_int("SLURM_NTASKS");
  return n;
}

int ergo__launcher_rank(ergo__launched *out) {
  static const struct {
    const char *rank, *size;
  } vars[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      {"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"},
      {"PMIX_RANK", "PMIX_SIZE"},
      {"SLURM_PROCID", NULL},
  };
  *out = (ergo__launched){0, 1, NULL};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    int rank = env_int(vars[i].rank);
    if (rank < 0) continue;
    int size = vars[i].size ? env_int(vars[i].size) : slurm_step_size();
    if (size < 0 && !vars[i].size) continue; /* SLURM_PROCID of a batch script: no launch */
    if (size < 0) size = slurm_step_size();  /* PMIx under srun */
    if (size < 0) size = 0;                  /* the launcher does not say */
    if (size > 0 && rank >= size) continue;  /* inconsistent: not this launcher's */
    *out = (ergo__launched){rank, size, vars[i].rank};
    return 1;
  }
  return 0;
}

int ergo__launcher_several(const ergo__launched *l) {
  return l->size > 1 || (l->size == 0 && l->rank > 0);
}

int ergo__job_launcher_ranks(void) {
  ergo__launched l;
  if (!ergo__launcher_rank(&l)) {
    /* Only a size (an older launcher): still one of several. */
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
      if (env_int(sizes[i]) > 0) return env_int(sizes[i]);
    return 1;
  }
  if (l.size > 0) return l.size;
  return l.rank + 1 > 1 ? l.rank + 1 : 1;
}
