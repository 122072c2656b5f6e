/* launcher.h - which of several processes a launcher started this one is, from the launcher's
 * environment (mpiexec of Open MPI, MPICH's Hydra and Intel MPI, MVAPICH, Slurm's srun, PMIx),
 * so that processes that never initialise MPI can still be told apart.  No MPI calls. */
#ifndef ERGO_MPI_LAUNCHER_H
#define ERGO_MPI_LAUNCHER_H

typedef struct ergo__launched {
  int rank;        /* this process's rank among those the launcher started */
  int size;        /* how many it started; 0: the launcher does not say (PMIx alone) */
  const char *var; /* the variable the rank came from ("OMPI_COMM_WORLD_RANK", ...) */
} ergo__launched;

/* The first launcher whose rank variable is set, in this order: Open MPI
 * (OMPI_COMM_WORLD_RANK/_SIZE), MPICH Hydra and Intel MPI (PMI_RANK/PMI_SIZE), MVAPICH
 * (MV2_COMM_WORLD_RANK/_SIZE), PMIx (PMIX_RANK; size PMIX_SIZE when set, else Slurm's), Slurm's
 * srun (SLURM_PROCID with SLURM_STEP_NUM_TASKS, or SLURM_NTASKS inside a step: SLURM_STEP_ID
 * set; a batch script alone is not a launch).  A launcher's own variables come before Slurm's,
 * whose are inherited by an mpiexec run inside an allocation.  Returns 1 and fills *out when
 * such a variable holds a valid rank (a number below the size), else 0 (*out: rank 0 of 1). */
int ergo__launcher_rank(ergo__launched *out);

/* 1 when the launcher started several processes and this is one of them: its size is above 1,
 * or unknown with a rank above 0. */
int ergo__launcher_several(const ergo__launched *l);

#endif
