/* job_mpi_ops.h - what libergo-mpi gives libergo: the job's operations over MPI, in one table
 * (ergo__job_mpi_ops, libergo-mpi's one exported symbol besides MPI_Allreduce and MPI_Barrier).
 * libergo has no MPI dependency: it finds the table at ergo_init, only in a process that runs MPI
 * (mpi/job.c says how), and checks that the table is of its own ABI and built for the MPI the
 * process runs before calling it. */
#ifndef ERGO_MPI_JOB_MPI_OPS_H
#define ERGO_MPI_JOB_MPI_OPS_H

#include "mpi/job.h"

#include <stddef.h>
#include <stdint.h>

/* Raised whenever the table or ergo__job changes: libergo refuses a table of another number. */
#define ERGO__JOB_MPI_ABI 2

/* libergo's sim node, for libergo-mpi's MPI_Allreduce and MPI_Barrier: while the sim node runs,
 * a collective moves every participant's virtual clock to the slowest one's (waiting in MPI
 * costs time and idle power there, as on a real node). */
typedef struct ergo__job_sim {
  int (*active)(void);         /* ergo_sim_active */
  uint64_t (*now_ns)(void);    /* ergo_now_ns: the virtual clock while the sim node runs */
  int (*wait)(double seconds); /* ergo_sim_wait */
} ergo__job_sim;

typedef struct ergo__job_mpi_table {
  int abi;       /* ERGO__JOB_MPI_ABI of libergo-mpi's build */
  unsigned size; /* sizeof(ergo__job_mpi_table) there */
  /* The MPIs libergo-mpi is built for: '|'-separated prefixes of MPI_Get_library_version's
   * string ("Open MPI v4.", "MPICH|Intel(R) MPI|MVAPICH"); the process must run one of them. */
  const char *mpi;
  /* ergo__job_start's work once MPI is initialised: < 0 and a line in why, the job serial.  sim
   * stays valid until stop. */
  int (*start)(int split, const ergo__job_sim *sim, char *why, size_t whylen);
  void (*stop)(void);
  int (*agree)(int ok);
  const ergo__job *(*get)(void);
  int (*usable)(void);
  int (*gather)(const void *buf, size_t len, char **all, size_t **lens);
  int (*node_gather)(const void *buf, size_t len, char **all, size_t **lens);
  int (*node_bcast)(char **buf, size_t *len);
  int (*node_allgather_u64)(uint64_t v, uint64_t *all);
  int (*allreduce_sum)(double *v, int n);
} ergo__job_mpi_table;

#endif
