/* node_app.c - the ranks of one node share it: with --sim, rank r does unequal sim work
 * (C = 20 (1 + r), M = 10 (1 + r / 2), s = 0.05), then waits (ergo_sim_wait) for the slowest, so
 * every rank's clock ends at the same T; rank 0 prints the node energy the model gives for the sum
 * of that activity, computed here from SIM.md's equations on each rank's slice of the node (not
 * by the sim node), for the test to compare with the report's Global energy.  With --burn S every
 * rank spends S seconds of CPU time and rank 0 prints one rank's estimate (S x 10 W) for the
 * estimate meter's node figure to be compared with. */
#include "ergo_sim.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* SIM.md on a slice of a node of k ranks with n cores at f = 2.0, u = 2.4 on all n threads. */
static void slice_work(double C, double M, double s, int n, int k, double *t, double *e_pkg,
                       double *e_dram) {
  double S = 1.0 / (s + (1.0 - s) / n);
  double tc = C / (2.0 * S);
  double bw = fmin(n * 6.0, 100.0 / k);
  double tm = M / bw;
  double tt = fmax(tc, tm) + 0.3 * fmin(tc, tm);
  tt = (double)llround(tt * 1e9) * 1e-9; /* the node's clock counts whole nanoseconds */
  double v = 0.70 + 0.25 * (2.0 - 1.0);
  double act = 0.4 + 0.6 * tc / tt;
  double p_core = n * (0.5 + 2.216 * 2.0 * v * v * act);
  double p_pkg = 30.0 / k + p_core + 12.0 / k;
  double p_dram = 3.0 / k + 0.25 * M / tt;
  *t = tt;
  *e_pkg = p_pkg * tt;
  *e_dram = p_dram * tt;
}

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile double sink;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, sim = argc > 1 && strcmp(argv[1], "--sim") == 0;
  double burn = argc > 2 && strcmp(argv[1], "--burn") == 0 ? atof(argv[2]) : 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (ergo_init(NULL) != 0) return 1;
  if (sim) {
    if (!ergo_sim_active()) {
      fprintf(stderr, "node_app: the sim node is not running\n");
      return 1;
    }
    /* One real node split in ERGO_NODE_SPLIT pretend nodes of k ranks, 20 / k cores each. */
    const char *sp = getenv("ERGO_NODE_SPLIT");
    int k = size / (sp ? atoi(sp) : 1), n = 20 / k;
    uint64_t t0 = ergo_now_ns();
    ERGO_PUSH(1, "WORK");
    ergo_sim_work(&(ergo_sim_work_desc){20.0 * (1 + rank), 10.0 * (1 + 0.5 * rank), 0.05});
    ERGO_POP(1, "WORK");
    double mine = (double)(ergo_now_ns() - t0) * 1e-9, last = mine;
    MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ERGO_PUSH(1, "WAIT");
    ergo_sim_wait(last - mine);
    ERGO_POP(1, "WAIT");
    /* The expected figures, from the equations alone. */
    double T = 0, t[64], pkg[64], dram[64], total = 0;
    for (int r = 0; r < size && r < 64; r++) {
      slice_work(20.0 * (1 + r), 10.0 * (1 + 0.5 * r), 0.05, n, k, &t[r], &pkg[r], &dram[r]);
      if (t[r] > T) T = t[r];
    }
    double waited = (double)(ergo_now_ns() - t0) * 1e-9;
    if (fabs(waited - T) > 2e-9) {
      fprintf(stderr, "FAIL: rank %d's clock moved %.9f s, expected %.9f s\n", rank, waited, T);
      return 1;
    }
    for (int r = 0; r < size && r < 64; r++) {
      double w = (double)llround((T - t[r]) * 1e9) * 1e-9;
      total += pkg[r] + dram[r] + (30.0 / k + n * 0.5 + 12.0 / k + 3.0 / k) * w;
    }
    if (rank == 0)
      printf("node_app: %d ranks, %d per node of %d cores each, T %.6f s, expected job energy "
             "%.6f J\n",
             size, k, n, T, total);
  } else if (burn > 0) {
    double c0 = cpu_s(), acc = 0;
    while (cpu_s() - c0 < burn)
      for (int i = 0; i < 100000; i++) acc += sqrt((double)i);
    sink = acc;
    double own = cpu_s() - c0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("node_app: one rank's estimate %.6f J\n", own * 10.0);
  }
  ergo_finalize();
  MPI_Finalize();
  return 0;
}
