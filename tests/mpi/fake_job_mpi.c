/* fake_job_mpi.c - a libergo-mpi that libergo must refuse: built with FAKE_ABI (a job ABI other
 * than libergo's) or FAKE_MPI (built for another MPI than the one the process runs).  Preloaded
 * into an MPI program, its table is the one libergo finds; any call into it aborts the run. */
#include "mpi/job_mpi_ops.h"

#include <stdlib.h>

#ifndef FAKE_ABI
#define FAKE_ABI ERGO__JOB_MPI_ABI
#endif
/* FAKE_MPICH: built for the MPICH family, which this test's Open MPI is not. */
#ifdef FAKE_MPICH
#define FAKE_MPI "MPICH|Intel(R) MPI|MVAPICH"
#else
#define FAKE_MPI "Open MPI v"
#endif

static int start(int split, const ergo__job_sim *sim, char *why, size_t whylen) {
  (void)split, (void)sim, (void)why, (void)whylen;
  abort();
}
static void stop(void) { abort(); }
static int agree(int ok) {
  (void)ok;
  abort();
}
static const ergo__job *get(void) { abort(); }
static int usable(void) { abort(); }
static int gather(const void *buf, size_t len, char **all, size_t **lens) {
  (void)buf, (void)len, (void)all, (void)lens;
  abort();
}
static int bcast(char **buf, size_t *len) {
  (void)buf, (void)len;
  abort();
}
static int allgather(uint64_t v, uint64_t *all) {
  (void)v, (void)all;
  abort();
}
static int sum(double *v, int n) {
  (void)v, (void)n;
  abort();
}

__attribute__((visibility("default")))
const ergo__job_mpi_table ergo__job_mpi_ops = {FAKE_ABI, sizeof(ergo__job_mpi_table),
                                               FAKE_MPI, start,
                                               stop,     agree,
                                               get,      usable,
                                               gather,   gather,
                                               bcast,    allgather,
                                               sum};
