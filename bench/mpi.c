/* mpi.c - what ergo's MPI work costs, under mpirun: the merged report at ergo_finalize (every
 * rank's tree gathered to rank 0 and merged) for trees of a few thousand regions, and the node's
 * tuning sync at ergo_step.  Prints figures; judges nothing.
 *   mpirun -np 4 build/bench/ergo-bench-mpi [regions_per_level]  (default 12: 12+144+1728)
 * With --siblings N [reps] every rank has N sibling regions under one parent, each rank in another
 * order, 1 in 20 on that rank alone, in reps (default 5) sessions one after the other, and the
 * bench prints, over the sessions, the median and (last, merge_<ranks>x<N>_s) the best of the
 * slowest rank's elapsed time in ergo_finalize (the snapshot and pack on every rank, the gather,
 * the merge on rank 0; MPI's start is not timed), and rank 0's thread CPU time in it (best).
 *   mpirun --oversubscribe -np 8 build/bench/ergo-bench-mpi --siblings 4000 */
#include "ergo.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* n siblings of "Loop", starting at a rank's own offset; every 20th is this rank's alone. */
static void siblings(int rank, int size, int n) {
  char name[48];
  ergo_push(1, "Loop");
  for (int i = 0; i < n; i++) {
    int k = (i + (int)((long)rank * n / size)) % n;
    if (k % 20 == 19)
      snprintf(name, sizeof name, "rank%d_only_%d", rank, k);
    else
      snprintf(name, sizeof name, "sibling_%d", k);
    ergo_push(2, name);
    ergo_pop(2, name);
  }
  ergo_pop(1, "Loop");
}

static double thread_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* reps sessions, each: the siblings, a barrier, ergo_finalize timed on every rank.  Printed: the
 * best over the sessions of the slowest rank's elapsed time (merge_<ranks>x<N>_s), their median,
 * and rank 0's thread CPU time in ergo_finalize (best; it includes the time rank 0 polls in the
 * gather while other ranks pack, as Open MPI busy-waits). */
static int merge_bench(int rank, int size, int n, int reps) {
  double best = INFINITY, best_cpu = INFINITY, walls[64];
  for (int k = 0; k < reps; k++) {
    ergo_config cfg;
    ergo_config_default(&cfg);
    ergo_config_from_env(&cfg);
    cfg.report = "none";
    cfg.step_report = cfg.balance = "none";
    if (ergo_init(&cfg) != 0) return 1;
    siblings(rank, size, n);
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = thread_cpu_s(), t0 = MPI_Wtime();
    ergo_finalize();
    double fin = MPI_Wtime() - t0, cpu = thread_cpu_s() - c0, worst;
    MPI_Reduce(&fin, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    walls[k] = worst;
    best = worst < best ? worst : best;
    best_cpu = cpu < best_cpu ? cpu : best_cpu;
  }
  if (rank == 0) {
    for (int i = 1; i < reps; i++) /* insertion sort, for the median */
      for (int j = i; j > 0 && walls[j] < walls[j - 1]; j--) {
        double t = walls[j];
        walls[j] = walls[j - 1];
        walls[j - 1] = t;
      }
    printf("merge_%dx%d_median_s=%.4f\n", size, n, walls[reps / 2]);
    printf("merge_%dx%d_rank0_cpu_s=%.4f\n", size, n, best_cpu);
    printf("merge_%dx%d_s=%.4f\n", size, n, best);
  }
  MPI_Finalize();
  return 0;
}

static int tree(int b) {
  char n1[32], n2[32], n3[32];
  int count = 0;
  for (int i = 0; i < b; i++) {
    snprintf(n1, sizeof n1, "L1_%d", i);
    ergo_push(1, n1);
    for (int j = 0; j < b; j++) {
      snprintf(n2, sizeof n2, "L2_%d", j);
      ergo_push(2, n2);
      for (int k = 0; k < b; k++) {
        snprintf(n3, sizeof n3, "L3_%d", k);
        ergo_push(3, n3);
        ergo_pop(3, n3);
        count++;
      }
      ergo_pop(2, n2);
      count++;
    }
    ergo_pop(1, n1);
    count++;
  }
  return count;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, b = argc > 1 && argv[1][0] != '-' ? atoi(argv[1]) : 12;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 2 && strcmp(argv[1], "--siblings") == 0) {
    int n = atoi(argv[2]);
    if (n < 1 || n > 10000000) {
      if (rank == 0)
        fprintf(stderr, "ergo-bench-mpi: --siblings '%s': expected 1 to 1e7\n", argv[2]);
      MPI_Finalize();
      return 2;
    }
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    if (reps < 1 || reps > 64) {
      if (rank == 0)
        fprintf(stderr, "ergo-bench-mpi: repetitions '%s': expected 1 to 64\n", argv[3]);
      MPI_Finalize();
      return 2;
    }
    return merge_bench(rank, size, n, reps);
  }
  if (b < 1 || b > 40) {
    if (rank == 0)
      fprintf(stderr, "ergo-bench-mpi: regions_per_level '%s': expected 1 to 40\n", argv[1]);
    MPI_Finalize();
    return 2;
  }
  ergo_config cfg;
  ergo_config_default(&cfg);
  ergo_config_from_env(&cfg);
  cfg.report = "none";
  cfg.step_report = cfg.balance = "none";
  /* Sync cost: the sim node, online tuning, one significant region per level-1 region. */
  cfg.platform = "sim";
  cfg.policy = "online";
  cfg.model = "/dev/null";
  cfg.min_region_ms = 0;
  if (ergo_init(&cfg) != 0) return 1;
  int regions = 0;
  double sync = 0;
  const int steps = 20;
  for (int s = 0; s < steps; s++) {
    regions = tree(b);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    ergo_step(s);
    sync += MPI_Wtime() - t0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  ergo_finalize();
  double fin = MPI_Wtime() - t0;
  double worst[2] = {sync / steps, fin}, out[2];
  MPI_Reduce(worst, out, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("ranks=%d regions_per_rank=%d step_sync_ms=%.3f finalize_merge_ms=%.3f\n", size,
           regions + 1, out[0] * 1e3, out[1] * 1e3);
  MPI_Finalize();
  return 0;
}
