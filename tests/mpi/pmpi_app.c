/* pmpi_app.c - an MPI program with ergo regions that never calls ergo_init or ergo_finalize:
 * libergo-mpi-auto (linked, or LD_PRELOADed) starts ergo at MPI_Init and stops it at
 * MPI_Finalize.  Every rank runs WORK and its COMPUTE/EXCHANGE children, a rank-dependent amount
 * of it; only rank 3 runs ONLY_RANK3.  Built with -DERGO_DISABLE it has no ergo at all (the
 * LD_PRELOAD test of an unannotated binary).
 *
 * Usage: pmpi_app [--init-thread]   (MPI_Init_thread(MPI_THREAD_FUNNELED) instead of MPI_Init) */
#include "ergo.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static volatile double sink;

static void spin(long n) {
  double s = 0;
  for (long i = 1; i <= n; i++) s += 1.0 / (double)i;
  sink = s;
}

int main(int argc, char **argv) {
  int thread = argc > 1 && strcmp(argv[1], "--init-thread") == 0;
  /* --own-init: the code also calls ergo_init, as a code written for ergo would. */
  int own = argc > 1 && strcmp(argv[1], "--own-init") == 0;
  if (argc > 1 && !thread && !own) {
    fprintf(stderr,
            "pmpi_app: unknown argument '%s': expected --init-thread, --own-init or nothing\n",
            argv[1]);
    return 2;
  }
  if (thread) {
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 1;
  } else if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    return 1;
  }
#ifndef ERGO_DISABLE
  if (own) printf("pmpi_app: own ergo_init: %s\n", ergo_strerror(ergo_init(NULL)));
#else
  (void)own;
#endif
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  double total = 0;
  for (int step = 0; step < 3; step++) {
    ERGO_PUSH(1, "WORK");
    ERGO_PUSH(2, "COMPUTE");
    spin(200000L * (rank + 1)); /* imbalance: rank r does r+1 units */
    ERGO_POP(2, "COMPUTE");
    ERGO_PUSH(2, "EXCHANGE");
    double part = (double)rank, sum = 0;
    MPI_Allreduce(&part, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += sum;
    ERGO_POP(2, "EXCHANGE");
    ERGO_POP(1, "WORK");
  }
  if (rank == 3) {
    ERGO_PUSH(1, "ONLY_RANK3");
    spin(100000L);
    ERGO_POP(1, "ONLY_RANK3");
  }
  if (rank == 0)
    printf("pmpi_app: %d ranks, %s, checksum %.0f\n", size, thread ? "MPI_Init_thread" : "MPI_Init",
           total);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
