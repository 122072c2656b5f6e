/* miniapp.c - a timestep loop shaped like OpenGadget3's (SPACE-Timers paper): every region does
 * work with its own character (compute, memory, serial, communication-like), on the sim node
 * where there is no energy meter, or as real OpenMP work on a real node.  Built with
 * ERGO_EXAMPLE_MPI it is an MPI program: ranks get unequal work and meet in the comm-like
 * regions, and rank 0 prints ergo's one report over all of them. */
#include "miniapp_work.h"

#include <ergo.h>
#include <ergo_sim.h>

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef ERGO_EXAMPLE_MPI
#include <mpi.h>
#endif

/* ---- the MPI job: one rank without MPI or without mpirun ---- */
static int my_rank = 0, nranks = 1;

static void job_start(int *argc, char ***argv) {
#ifdef ERGO_EXAMPLE_MPI
  int provided; /* OpenMP threads never call MPI */
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
#else
  (void)argc, (void)argv;
#endif
}

/* After ergo_finalize: ergo merges its report over MPI. */
static int job_stop(int rc) {
#ifdef ERGO_EXAMPLE_MPI
  MPI_Finalize();
#endif
  return rc;
}

/* 1 on every rank when `bad` is on any. */
static int job_any(int bad) {
#ifdef ERGO_EXAMPLE_MPI
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#endif
  return bad != 0;
}

/* Rank r has (1 + 0.08 (r mod 8)) times rank 0's particles, so its work is that much more and the
 * merged report shows a real imbalance (at most 1.56x, however many ranks). */
static double rank_share(int rank) { return 1 + 0.08 * (rank % 8); }

#ifdef ERGO_EXAMPLE_MPI
/* The comm-like regions really communicate: every rank says how far its clock has gone since
 * ergo_init and all wait there for the slowest (MPI_Allreduce).  On a real node the wait is real
 * time.  The sim node's clock is virtual and per process, so a real wait does not move it; the
 * rank then models the wait itself with ergo_sim_wait: its clock moves to the slowest rank's
 * while its cores sit idle (idle-core power, no dynamic power), so the simulated figures see the
 * wait where a real code has it, in the comm-like regions, and the step stays as long as the
 * slowest rank's. */
static uint64_t t_start;

static void comm(int i) {
  (void)i;
  double mine = (double)(ergo_now_ns() - t_start) * 1e-9, last = mine;
  MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  /* Linked with libergo-mpi, the MPI_Allreduce has already moved the clock to the slowest
   * rank's (README "MPI"); read it again so that the wait is not counted twice. */
  mine = (double)(ergo_now_ns() - t_start) * 1e-9;
  if (ergo_sim_active() && last > mine + 1e-9) ergo_sim_wait(last - mine);
}
#endif

/* ---- real work, where the sim node is not running ---- */
static double *arena;
static size_t arena_len;
static volatile double sink;

/* About `gcycles` x 10^9 cycles of arithmetic and `gbytes` x 10^9 bytes of streaming,
 * scaled down 1000x so a step stays in seconds on a real node; the serial part runs on
 * one thread. */
static void real_work(const ergo_sim_work_desc *d) {
  long flops = (long)(d->gcycles * 1e6), bytes = (long)(d->gbytes * 1e6);
  long serial = (long)((double)flops * d->serial), parallel = flops - serial;
  double acc = 0;
  for (long i = 0; i < serial; i++) acc += sqrt((double)i + acc * 1e-9);
#pragma omp parallel for reduction(+ : acc) schedule(static)
  for (long i = 0; i < parallel; i++) acc += sqrt((double)i);
  long n = bytes / (long)sizeof(double);
  if (n > (long)arena_len) n = (long)arena_len;
#pragma omp parallel for reduction(+ : acc) schedule(static)
  for (long i = 0; i < n; i++) {
    arena[i] = arena[i] * 0.5 + 1.0;
    acc += arena[i];
  }
  sink += acc;
}

/* Every piece of work, this rank's share of it: on the sim node, or as real work. */
static double share = 1;

static void run_piece(const ergo_sim_work_desc *d) {
  ergo_sim_work_desc mine = {d->gcycles * share, d->gbytes * share, d->serial};
  if (ergo_sim_active())
    ergo_sim_work(&mine);
  else
    real_work(&mine);
}

/* ---- --oracle ---- */
static int print_oracle(const char *objective, const mini_profile *prof) {
  printf("Oracle (exhaustive, noise-free) for objective %s, profile %s [SIMULATED]\n",
         objective ? objective : "energy@5%", prof->name);
  printf("%-52s %-12s %7s %7s %3s %9s %9s %8s\n", "region (its own work per step)", "work", "core",
         "uncore", "thr", "time s", "energy J", "saving");
  int distinct_f = 0, distinct_u = 0, distinct_n = 0;
  long f0 = -1, u0 = -1, n0 = -1;
  for (int i = 0; i < mini_nregions; i++) {
    ergo_sim_work_desc d = mini_desc(i);
    ergo_sim_point best, base;
    if (ergo_sim_oracle(&d, objective, &best, &base) != 0) return 1;
    double saving = base.energy_j > 0 ? 100.0 * (1 - best.energy_j / base.energy_j) : 0;
    printf("%-52s %-12s %5.1fGHz %5.1fGHz %3d %9.4f %9.3f %7.1f%%\n", mini_regions[i].path,
           mini_class_names[mini_regions[i].cls], best.core_khz * 1e-6, best.uncore_khz * 1e-6,
           best.threads, best.time_s, best.energy_j, saving);
    if (i == 0) f0 = best.core_khz, u0 = best.uncore_khz, n0 = best.threads;
    distinct_f |= best.core_khz != f0;
    distinct_u |= best.uncore_khz != u0;
    distinct_n |= best.threads != n0;
  }
  printf("best configs differ across regions in: core %s, uncore %s, threads %s\n",
         distinct_f ? "yes" : "no", distinct_u ? "yes" : "no", distinct_n ? "yes" : "no");
  return 0;
}

/* The same as one JSON document ("ergo-oracle", which `ergo report` marks on its Pareto plots):
 * per region path the best configuration and its time and energy per execution. */
static void json_string(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') putchar('\\');
    putchar(*s);
  }
  putchar('"');
}

static int print_oracle_json(const char *objective, const mini_profile *prof) {
  printf("{\"format\": \"ergo-oracle\", \"version\": 1, \"platform\": \"sim\", \"objective\": ");
  json_string(objective ? objective : "energy@5%");
  printf(", \"profile\": ");
  json_string(prof->name);
  printf(", \"regions\": {");
  for (int i = 0; i < mini_nregions; i++) {
    ergo_sim_work_desc d = mini_desc(i);
    ergo_sim_point best, base;
    if (ergo_sim_oracle(&d, objective, &best, &base) != 0) return 1;
    printf("%s\n  ", i ? "," : "");
    json_string(mini_regions[i].path);
    printf(": {\"config\": {\"core_khz\": %ld, \"uncore_khz\": %ld, \"threads\": %d}, "
           "\"time_s\": %.9g, \"energy_j\": %.9g}",
           (long)best.core_khz, (long)best.uncore_khz, best.threads, best.time_s, best.energy_j);
  }
  printf("\n}}\n");
  return 0;
}

#ifdef ERGO_EXAMPLE_MPI
#define HELP_MPI                                                                                   \
  "Under mpirun rank r does 1 + 0.08 (r mod 8) times the work, the comm-like regions\n"            \
  "wait for the slowest rank, and rank 0 prints ergo's one report over all ranks.\n"
#define HELP_ORACLE "\n                   (rank 0's work; under mpirun rank 0 alone computes it)"
#else
#define HELP_MPI ""
#define HELP_ORACLE ""
#endif

static void usage(FILE *out, const char *argv0) {
  fprintf(out,
          "usage: %s [--steps N] [--profile NAME] [--oracle [--objective OBJ] [--json]]\n\n"
          "A timestep loop shaped like OpenGadget3's, annotated with ergo regions. Without an\n"
          "energy meter it runs on ergo's sim node (every figure SIMULATED); with one, it does\n"
          "real OpenMP work. ERGO_PLATFORM=sim|real forces either.\n" HELP_MPI "\n"
          "  --steps N        timesteps (default 5)\n"
          "  --profile NAME   workload profile (default: default); --profile list shows them\n"
          "  --oracle         print the best configuration of every region and exit" HELP_ORACLE
          "\n"
          "  --objective OBJ  for --oracle: energy, time, edp, ed2p, weighted, energy@N%% "
          "(default energy@5%%)\n"
          "  --json           for --oracle: one JSON document (ergo report draws it)\n",
          argv0);
}

/* Returns 0 to run, 1 when done (--help, --profile list: rank 0 printed), 2 on a bad argument
 * (rank 0 said why; every rank reads the same arguments). */
static int parse_args(int argc, char **argv, const mini_profile **prof, int *steps, int *oracle,
                      const char **objective, int *json) {
  int say = my_rank == 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (say) usage(stdout, argv[0]);
      return 1;
    } else if (!strcmp(a, "--oracle")) {
      *oracle = 1;
    } else if (!strcmp(a, "--json")) {
      *json = 1;
    } else if (!strcmp(a, "--steps") && i + 1 < argc) {
      char *end;
      long n = strtol(argv[++i], &end, 10);
      if (*end || n < 1 || n > 1000000) {
        if (say)
          fprintf(stderr, "%s: --steps '%s' is not valid: expected an integer from 1 to 1000000\n",
                  argv[0], argv[i]);
        return 2;
      }
      *steps = (int)n;
    } else if (!strcmp(a, "--objective") && i + 1 < argc) {
      *objective = argv[++i];
    } else if (!strcmp(a, "--profile") && i + 1 < argc) {
      const char *name = argv[++i];
      if (!strcmp(name, "list")) {
        for (int p = 0; say && p < mini_nprofiles; p++)
          printf("%-20s %s\n", mini_profiles[p].name, mini_profiles[p].what);
        return 1;
      }
      *prof = mini_profile_named(name);
      if (!*prof) {
        if (say)
          fprintf(stderr, "%s: --profile '%s' is not known: see --profile list\n", argv[0], name);
        return 2;
      }
    } else {
      if (say) fprintf(stderr, "%s: unknown argument '%s' (see --help)\n", argv[0], a);
      return 2;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  job_start(&argc, &argv);
  const mini_profile *prof = &mini_profiles[0];
  int steps = 5, oracle = 0, json = 0;
  const char *objective = NULL;
  int rc = parse_args(argc, argv, &prof, &steps, &oracle, &objective, &json);
  if (rc) return job_stop(rc == 1 ? 0 : 2);
  if (json && !oracle) {
    if (my_rank == 0) fprintf(stderr, "%s: --json goes with --oracle (see --help)\n", argv[0]);
    return job_stop(2);
  }
  mini_set_profile(prof);
  /* The oracle is a property of the work, not of the job: rank 0 alone computes it. */
  if (oracle)
    return job_stop(my_rank != 0 ? 0
                    : json       ? print_oracle_json(objective, prof)
                                 : print_oracle(objective, prof));

  ergo_config cfg;
  ergo_config_default(&cfg);
  cfg.platform = "auto"; /* the demo's default: the sim node where no meter works */
  ergo_config_from_env(&cfg);
  if (prof->noise > 0) cfg.sim_noise = prof->noise;
  /* After MPI_Init: ergo runs as one rank of the job; rank 0 writes the merged report. */
  if (job_any(ergo_init(&cfg) != 0)) return job_stop(1);
  int nomem = 0;
  if (!ergo_sim_active()) {
    arena_len = (size_t)64 << 20 >> 3; /* 64 MiB: beyond the caches */
    arena = calloc(arena_len, sizeof *arena);
    if (!arena) {
      fprintf(stderr, "miniapp: out of memory for the 64 MiB work array\n");
      nomem = 1;
    }
  }
  if (job_any(nomem)) {
    ergo_finalize();
    return job_stop(1);
  }
  share = rank_share(my_rank);
#ifdef ERGO_EXAMPLE_MPI
  if (nranks > 1) {
    t_start = ergo_now_ns();
    mini_set_comm(comm);
  }
#endif
  if (my_rank == 0) {
    printf("miniapp: %d steps, profile %s, %s\n", steps, prof->name,
           ergo_sim_active() ? "on the sim node (SIMULATED)" : "real OpenMP work on this node");
    if (nranks > 1)
      printf("miniapp: %d MPI ranks; rank r does 1 + 0.08 (r mod 8) times the work (up to %.2fx) "
             "and the comm-like regions wait for the slowest%s\n",
             nranks, rank_share(nranks > 8 ? 7 : nranks - 1),
             ergo_sim_active() ? " (the wait modelled on each rank's virtual clock)" : "");
    fflush(stdout);
  }
  for (int s = 1; s <= steps; s++) {
    mini_step(run_piece);
    ergo_step(s);
  }
  rc = ergo_finalize();
  free(arena);
  return job_stop(rc == 0 ? 0 : 1);
}
