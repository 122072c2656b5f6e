/* mpi_main.c - a minimal MPI user of ergo (linked with libergo-mpi): MPI_Init, three regions,
 * one merged report on stdout from rank 0, "ok" from every rank. */
#include <ergo.h>
#include <mpi.h>

#include <stdio.h>

static double work(int n) {
  volatile double x = 0;
  for (int i = 0; i < n; i++) x += i * 0.5;
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = ergo_init(NULL);
  if (rc) {
    fprintf(stderr, "consumer_mpi: ergo_init: %s\n", ergo_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  ERGO_PUSH(1, "package_outer");
  ERGO_PUSH(2, "package_a");
  work(100000);
  ERGO_POPPUSH(2, "package_a", "package_b");
  work(100000);
  ERGO_POP(2, "package_b");
  ERGO_POP(1, "package_outer");
  if ((rc = ergo_finalize())) {
    fprintf(stderr, "consumer_mpi: ergo_finalize: %s\n", ergo_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  printf("consumer_mpi: rank %d ok\n", rank);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
