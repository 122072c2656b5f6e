/* miniapp.c - a timestep loop shaped like OpenGadget3's (SPACE-Timers paper): every region does
 * work with its own character (compute, memory, serial, communication-like), on the sim node
 * where there is no energy meter, or as real OpenMP work on a real node. */
#include <ergo.h>

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- workload classes (../shared/SIM.md): 10^9 cycles, 10^9 bytes, serial fraction ---- */
typedef struct {
  const char *name;
  double gcycles, gbytes, serial;
} work_class;

enum { COMPUTE, MEMORY, SERIAL, MIXED, COMM, BALANCED, LIGHT, HEAVY, NCLASSES };
static const work_class classes[NCLASSES] = {
    [COMPUTE] = {"compute", 40, 1, 0.01},   [MEMORY] = {"memory", 2, 60, 0.01},
    [SERIAL] = {"serial", 20, 2, 0.5},      [MIXED] = {"mixed", 15, 25, 0.05},
    [COMM] = {"comm-like", 3, 3, 0.8},      [BALANCED] = {"balanced", 10, 40, 0.02},
    [LIGHT] = {"light-memory", 8, 10, 0.1}, [HEAVY] = {"heavy-mix", 30, 50, 0.03},
};

/* A region of the step and the class of its work; scale sizes it so that the shares of a
 * step follow the paper's OpenGadget3 report (FIND_HSML ~35 %, HYDRO_ACCEL ~23 %,
 * COMPUTE_UNIFIED_GRADIENTS ~20 %, check_stop_condition ~12 %, ...), a step taking about
 * 6 simulated seconds at full speed. */
typedef struct {
  const char *path; /* as the balance file names it */
  int cls;
  double scale;
} region_work;

/* ---- profiles: how each class is bent, and noise ---- */
typedef struct {
  const char *name, *what;
  double c_mul, m_mul, s_add; /* compute and memory multipliers, serial fraction added */
  double noise;               /* log-normal sigma of the sim node */
} profile;

static const profile profiles[] = {
    {"default", "the regions as they are", 1, 1, 0, 0},
    {"compute-heavy", "three times the compute everywhere", 3, 1, 0, 0},
    {"memory-heavy", "three times the memory traffic everywhere", 1, 3, 0, 0},
    {"serial-heavy", "every serial fraction 0.3 higher (at most 0.95)", 1, 1, 0.3, 0},
    {"mixed", "compute and memory both doubled", 2, 2, 0, 0},
    {"default-noisy", "default, with 5 % log-normal noise on time and power", 1, 1, 0, 0.05},
    {"compute-heavy-noisy", "compute-heavy with 5 % noise", 3, 1, 0, 0.05},
    {"memory-heavy-noisy", "memory-heavy with 5 % noise", 1, 3, 0, 0.05},
    {"serial-heavy-noisy", "serial-heavy with 5 % noise", 1, 1, 0.3, 0.05},
    {"mixed-noisy", "mixed with 5 % noise", 2, 2, 0, 0.05},
};
#define NPROFILES (sizeof profiles / sizeof *profiles)

static const profile *prof = &profiles[0];

static ergo_sim_work_desc desc_of(int cls, double scale) {
  const work_class *c = &classes[cls];
  double s = c->serial + prof->s_add;
  return (ergo_sim_work_desc){c->gcycles * prof->c_mul * scale, c->gbytes * prof->m_mul * scale,
                              s > 0.95 ? 0.95 : s};
}

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

static void work(int cls, double scale) {
  ergo_sim_work_desc d = desc_of(cls, scale);
  if (ergo_sim_active())
    ergo_sim_work(&d);
  else
    real_work(&d);
}

static void region(int level, const char *name, int cls, double scale) {
  ERGO_PUSH(level, name);
  work(cls, scale);
  ERGO_POP(level, name);
}

/* ---- the step, with the table the oracle reads ---- */
static const region_work step_regions[] = {
    {"Timestep:FIND_HSML:Setup_Left/Right", LIGHT, 0.12},
    {"Timestep:FIND_HSML:Primary", COMPUTE, 0.48},
    {"Timestep:FIND_HSML:Secondary", HEAVY, 0.64},
    {"Timestep:FIND_HSML:Exchange", COMM, 0.3},
    {"Timestep:FIND_HSML:Send_Results", COMM, 0.08},
    {"Timestep:FIND_HSML:Final", LIGHT, 0.12},
    {"Timestep:FIND_HSML:Extra", SERIAL, 0.01},
    {"Timestep:HYDRO_ACCEL:HYDRO_COMPUTE", COMPUTE, 0.9},
    {"Timestep:HYDRO_ACCEL:HYDRO_COMM", COMM, 0.16},
    {"Timestep:COMPUTE_UNIFIED_GRADIENTS:Primary", BALANCED, 1.6},
    {"Timestep:COMPUTE_UNIFIED_GRADIENTS:Secondary", MIXED, 0.44},
    {"Timestep:DRIFT", MEMORY, 0.27},
    {"Timestep:DOMAIN:PEANO", SERIAL, 0.02},
    {"Timestep:DOMAIN:DOM_EXCHANGE", COMM, 0.03},
    {"Timestep:TREEUPDATE", MIXED, 0.04},
    {"Timestep:check_stop_condition:IO", SERIAL, 0.02},
};
#define NREGIONS (sizeof step_regions / sizeof *step_regions)

static void run_step(void) {
  const region_work *r = step_regions;
  ERGO_PUSH(0, "Timestep");
  ERGO_PUSH(1, "FIND_HSML");
  region(2, "Setup_Left/Right", r[0].cls, r[0].scale);
  ERGO_PUSH(2, "Primary");
  work(r[1].cls, r[1].scale);
  ERGO_POPPUSH(2, "Primary", "Secondary"); /* one clock reading closes one, opens the next */
  work(r[2].cls, r[2].scale);
  ERGO_POP(2, "Secondary");
  region(2, "Exchange", r[3].cls, r[3].scale);
  region(2, "Send_Results", r[4].cls, r[4].scale);
  region(2, "Final", r[5].cls, r[5].scale);
  region(2, "Extra", r[6].cls, r[6].scale);
  ERGO_POPPUSH(1, "FIND_HSML", "HYDRO_ACCEL");
  region(2, "HYDRO_COMPUTE", r[7].cls, r[7].scale);
  region(2, "HYDRO_COMM", r[8].cls, r[8].scale);
  ERGO_POPPUSH(1, "HYDRO_ACCEL", "COMPUTE_UNIFIED_GRADIENTS");
  region(2, "Primary", r[9].cls, r[9].scale);
  region(2, "Secondary", r[10].cls, r[10].scale);
  ERGO_POP(1, "COMPUTE_UNIFIED_GRADIENTS");
  region(1, "DRIFT", r[11].cls, r[11].scale);
  ERGO_PUSH(1, "DOMAIN");
  region(2, "PEANO", r[12].cls, r[12].scale);
  region(2, "DOM_EXCHANGE", r[13].cls, r[13].scale);
  ERGO_POP(1, "DOMAIN");
  region(1, "TREEUPDATE", r[14].cls, r[14].scale);
  ERGO_PUSH(1, "check_stop_condition");
  work(LIGHT, 0.8); /* the condition itself: Unaccounted below, as in the paper */
  ERGO_PUSH(2, "IO");
  region(3, "RESTART_WRITE", r[15].cls, r[15].scale);
  ERGO_POP(2, "IO");
  ERGO_POP(1, "check_stop_condition");
  work(MEMORY, 0.3); /* between regions: the step's own Unaccounted */
  ERGO_POP(0, "Timestep");
}

/* ---- --oracle ---- */
static int print_oracle(const char *objective) {
  printf("Oracle (exhaustive, noise-free) for objective %s, profile %s [SIMULATED]\n",
         objective ? objective : "energy@5%", prof->name);
  printf("%-44s %-12s %7s %7s %3s %9s %9s %8s\n", "region", "work", "core", "uncore", "thr",
         "time s", "energy J", "saving");
  int distinct_f = 0, distinct_u = 0, distinct_n = 0;
  long f0 = -1, u0 = -1, n0 = -1;
  for (size_t i = 0; i < NREGIONS; i++) {
    ergo_sim_work_desc d = desc_of(step_regions[i].cls, step_regions[i].scale);
    ergo_sim_point best, base;
    if (ergo_sim_oracle(&d, objective, &best, &base) != 0) return 1;
    double saving = base.energy_j > 0 ? 100.0 * (1 - best.energy_j / base.energy_j) : 0;
    printf("%-44s %-12s %5.1fGHz %5.1fGHz %3d %9.4f %9.3f %7.1f%%\n", step_regions[i].path,
           classes[step_regions[i].cls].name, best.core_khz * 1e-6, best.uncore_khz * 1e-6,
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
        for (size_t p = 0; p < NPROFILES; p++)
          printf("%-20s %s\n", profiles[p].name, profiles[p].what);
        return 0;
      }
      prof = NULL;
      for (size_t p = 0; p < NPROFILES; p++)
        if (!strcmp(name, profiles[p].name)) prof = &profiles[p];
      if (!prof) {
        fprintf(stderr, "%s: --profile '%s' is not known: see --profile list\n", argv[0], name);
        return 2;
      }
    } else {
      fprintf(stderr, "%s: unknown argument '%s' (see --help)\n", argv[0], a);
      return 2;
    }
  }
  if (oracle) return print_oracle(objective);

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
    run_step();
    ergo_step(s);
  }
  int rc = ergo_finalize();
  free(arena);
  return rc == 0 ? 0 : 1;
}
