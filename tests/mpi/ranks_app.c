/* ranks_app.c - an MPI program for the merged-report tests: every rank runs WORK for a time that
 * grows with its rank, rank 3 alone runs ONLY_RANK3, and EXCHANGE holds a real MPI_Allreduce.
 * With --steps N it calls ergo_step every step (the node's tuning sync point).  With --sleep the
 * ranks sleep instead of spinning, in WORK and while EXCHANGE waits, so a fake RAPL machine's
 * counter thread is never starved on an oversubscribed host (power figures then exact).  With
 * --end mpi-first every rank calls MPI_Finalize and returns without ergo_finalize; with --end
 * rank-exit the last rank calls exit(3) in its last Timestep, before ergo_finalize and
 * MPI_Finalize, while the others wait for it in MPI_Barrier (ergo finalizes at exit). */
#include "ergo.h"
#include "ergo_sim.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void spin_ms(double ms) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) * 1e-6 < ms);
}

static int sleepy;

static void nap_ms(double ms) {
  struct timespec d = {(time_t)(ms / 1e3), (long)((ms - 1e3 * (double)(time_t)(ms / 1e3)) * 1e6)};
  while (nanosleep(&d, &d) != 0) {
  }
}

static void work_ms(double ms) {
  if (sleepy)
    nap_ms(ms);
  else
    spin_ms(ms);
}

static void allreduce(double *v, double *sum) {
  if (!sleepy) {
    MPI_Allreduce(v, sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return;
  }
  MPI_Request rq;
  int done = 0;
  MPI_Iallreduce(v, sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
  while (MPI_Test(&rq, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) nap_ms(0.2);
}

int main(int argc, char **argv) {
  int steps = 3, sim = 0, log = 0;
  const char *end = "finalize";
  double scale = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
      steps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--sim") == 0)
      sim = 1;
    else if (strcmp(argv[i], "--log-configs") == 0)
      log = 1;
    else if (strcmp(argv[i], "--sleep") == 0)
      sleepy = 1, scale = 5; /* 100..400 ms of WORK per step: long beside the counters' steps */
    else if (strcmp(argv[i], "--end") == 0 && i + 1 < argc &&
             (strcmp(argv[i + 1], "mpi-first") == 0 || strcmp(argv[i + 1], "rank-exit") == 0))
      end = argv[++i];
    else {
      fprintf(stderr,
              "ranks_app: unknown argument '%s': expected --steps N, --sim, --sleep, "
              "--log-configs or --end mpi-first|rank-exit\n",
              argv[i]);
      return 2;
    }
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (ergo_init(NULL) != 0) return 1;
  /* The settings each step's WORK and EXCHANGE ran under, to compare across ranks. */
  long *cfg = calloc((size_t)steps * 6, sizeof *cfg);
  if (!cfg) return 1;
  for (int s = 0; s < steps; s++) {
    ERGO_PUSH(0, "Timestep");
    ERGO_PUSH(1, "WORK");
    ergo_setting st;
    ergo_setting_current(&st);
    cfg[s * 6 + 0] = st.core_khz, cfg[s * 6 + 1] = st.uncore_khz, cfg[s * 6 + 2] = st.threads;
    if (sim)
      ergo_sim_work(&(ergo_sim_work_desc){40.0 * (1 + 0.1 * rank), 2.0, 0.02});
    else
      work_ms(scale * 20.0 * (1 + rank));
    ERGO_POP(1, "WORK");
    if (rank == 3) {
      ERGO_PUSH(1, "ONLY_RANK3");
      if (sim)
        ergo_sim_work(&(ergo_sim_work_desc){1.0, 20.0, 0.05});
      else
        work_ms(scale * 5);
      ERGO_POP(1, "ONLY_RANK3");
    }
    ERGO_PUSH(1, "EXCHANGE");
    ergo_setting_current(&st);
    cfg[s * 6 + 3] = st.core_khz, cfg[s * 6 + 4] = st.uncore_khz, cfg[s * 6 + 5] = st.threads;
    double v = rank, sum = 0;
    allreduce(&v, &sum);
    if (sim) ergo_sim_work(&(ergo_sim_work_desc){0.5, 0.5, 0.9});
    ERGO_POP(1, "EXCHANGE");
    if (s == steps - 1 && strcmp(end, "rank-exit") == 0) {
      if (rank == size - 1) {
        printf("ranks_app: rank %d exits\n", rank);
        fflush(stdout);
        exit(3);
      }
      MPI_Barrier(MPI_COMM_WORLD); /* never completes: the launcher ends these ranks */
    }
    ERGO_POP(0, "Timestep");
    ergo_step(s);
  }
  if (strcmp(end, "mpi-first") == 0) {
    if (rank == 0) printf("ranks_app: %d ranks, %d steps, no ergo_finalize\n", size, steps);
    free(cfg);
    MPI_Finalize();
    return 0;
  }
  int rc = ergo_finalize();
  if (log) {
    long *all = rank == 0 ? calloc((size_t)size * steps * 6, sizeof *all) : NULL;
    MPI_Gather(cfg, steps * 6, MPI_LONG, all, steps * 6, MPI_LONG, 0, MPI_COMM_WORLD);
    for (int r = 0; all && r < size; r++)
      for (int s = 0; s < steps; s++) {
        const long *c = all + ((size_t)r * steps + s) * 6;
        printf("config step=%d rank=%d WORK=%ld/%ld/%ld EXCHANGE=%ld/%ld/%ld\n", s, r, c[0], c[1],
               c[2], c[3], c[4], c[5]);
      }
    free(all);
  }
  free(cfg);
  if (rank == 0) printf("ranks_app: %d ranks, %d steps, finalize %d\n", size, steps, rc);
  MPI_Finalize();
  return rc ? 1 : 0;
}
