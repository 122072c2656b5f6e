/* miniapp.c - a timestep loop shaped like OpenGadget3's (SPACE-Timers paper): every region does
 * work with its own character (compute, memory, serial, communication-like), on the sim node
 * where there is no energy meter, or as real OpenMP work on a real node. */
#include "miniapp_work.h"

#include <ergo.h>

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Every piece of work: on the sim node, or as real work. */
static void run_piece(const ergo_sim_work_desc *d) {
  if (ergo_sim_active())
    ergo_sim_work(d);
  else
    real_work(d);
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

static void usage(FILE *out, const char *argv0) {
  fprintf(out,
          "usage: %s [--steps N] [--profile NAME] [--oracle [--objective OBJ]]\n\n"
          "A timestep loop shaped like OpenGadget3's, annotated with ergo regions. Without an\n"
          "energy meter it runs on ergo's sim node (every figure SIMULATED); with one, it does\n"
          "real OpenMP work. ERGO_PLATFORM=sim|real forces either.\n\n"
          "  --steps N        timesteps (default 5)\n"
          "  --profile NAME   workload profile (default: default); --profile list shows them\n"
          "  --oracle         print the best configuration of every region and exit\n"
          "  --objective OBJ  for --oracle: energy, time, edp, ed2p, weighted, energy@N%% "
          "(default energy@5%%)\n",
          argv0);
}

int main(int argc, char **argv) {
  const mini_profile *prof = &mini_profiles[0];
  int steps = 5, oracle = 0;
  const char *objective = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout, argv[0]);
      return 0;
    } else if (!strcmp(a, "--oracle")) {
      oracle = 1;
    } else if (!strcmp(a, "--steps") && i + 1 < argc) {
      char *end;
      long n = strtol(argv[++i], &end, 10);
      if (*end || n < 1 || n > 1000000) {
        fprintf(stderr, "%s: --steps '%s' is not valid: expected an integer from 1 to 1000000\n",
                argv[0], argv[i]);
        return 2;
      }
      steps = (int)n;
    } else if (!strcmp(a, "--objective") && i + 1 < argc) {
      objective = argv[++i];
    } else if (!strcmp(a, "--profile") && i + 1 < argc) {
      const char *name = argv[++i];
      if (!strcmp(name, "list")) {
        for (int p = 0; p < mini_nprofiles; p++)
          printf("%-20s %s\n", mini_profiles[p].name, mini_profiles[p].what);
        return 0;
      }
      prof = mini_profile_named(name);
      if (!prof) {
        fprintf(stderr, "%s: --profile '%s' is not known: see --profile list\n", argv[0], name);
        return 2;
      }
    } else {
      fprintf(stderr, "%s: unknown argument '%s' (see --help)\n", argv[0], a);
      return 2;
    }
  }
  mini_set_profile(prof);
  if (oracle) return print_oracle(objective, prof);

  ergo_config cfg;
  ergo_config_default(&cfg);
  cfg.platform = "auto"; /* the demo's default: the sim node where no meter works */
  ergo_config_from_env(&cfg);
  if (prof->noise > 0) cfg.sim_noise = prof->noise;
  if (ergo_init(&cfg) != 0) return 1;
  if (!ergo_sim_active()) {
    arena_len = (size_t)64 << 20 >> 3; /* 64 MiB: beyond the caches */
    arena = calloc(arena_len, sizeof *arena);
    if (!arena) {
      fprintf(stderr, "miniapp: out of memory for the 64 MiB work array\n");
      return 1;
    }
  }
  printf("miniapp: %d steps, profile %s, %s\n", steps, prof->name,
         ergo_sim_active() ? "on the sim node (SIMULATED)" : "real OpenMP work on this node");
  for (int s = 1; s <= steps; s++) {
    mini_step(run_piece);
    ergo_step(s);
  }
  int rc = ergo_finalize();
  free(arena);
  return rc == 0 ? 0 : 1;
}
