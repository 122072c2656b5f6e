/* heat.c - a real OpenMP program for ergo: heat stencil, dense product and serial sums per step. */
#include <ergo.h>

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults: about two seconds on a 2-core VM; the two 2048x2048 grids (64 MiB)
 * outgrow a 32 MiB L3, so the stencil streams from memory. */
enum { DEF_SIZE = 2048, DEF_STEPS = 40, DEF_SWEEPS = 8 };
enum { MIN_SIZE = 16, MAX_SIZE = 8192, MAX_STEPS = 1000000, MAX_SWEEPS = 1000 };
/* Product tiles: a 64x64 tile of B (32 KiB) stays in cache while 16 rows of A use it. */
enum { TILE_K = 64, TILE_I = 16 };

/* The phases a thread count can be set for: the two with parallel loops. */
enum { PH_STENCIL, PH_COMPUTE, NPHASES };
static const char *const phase_name[NPHASES] = {"stencil", "compute"};

typedef struct options {
  int size, steps, sweeps;
  int threads[NPHASES]; /* 0: whatever OpenMP uses anyway */
  const char *output;   /* per-step summary file, or NULL */
} options;

/* Thread counts a phase's parallel regions really ran with, over the run. */
typedef struct used {
  int min, max;
} used;

static void used_add(used *u, int n) {
  if (u->max == 0 || n < u->min) u->min = n;
  if (n > u->max) u->max = n;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: ergo-example-heat [--size N] [--steps S] [--sweeps K]\n"
          "                         [--threads-per-phase PHASE=T[,PHASE=T]] [--output PATH]\n"
          "Each step: K Jacobi sweeps of a 2-D heat equation on an NxN grid (OpenMP,\n"
          "memory-bound), a product of two (N/4)x(N/4) matrices (OpenMP, compute-bound),\n"
          "serial residual and checksum sums, and a one-line summary (IO).\n"
          "  --size N               grid points per side, %d to %d (default %d)\n"
          "  --steps S              timesteps, 1 to %d (default %d)\n"
          "  --sweeps K             Jacobi sweeps per step, 1 to %d (default %d)\n"
          "  --threads-per-phase L  run phase stencil or compute on T threads through\n"
          "                         ergo's threads knob; T from 1 to the cores (%d CPUs here)\n"
          "  --output PATH          write the per-step summaries to PATH (default: memory only)\n"
          "The result line is the same for any thread count.  ergo's timing report follows\n"
          "(ERGO_REPORT=none hides it; ERGO_ENERGY=estimate adds energy without RAPL).\n",
          MIN_SIZE, MAX_SIZE, DEF_SIZE, MAX_STEPS, DEF_STEPS, MAX_SWEEPS, DEF_SWEEPS,
          omp_get_num_procs());
}

/* The whole of `s` as an int in [lo, hi], else -1 (no bound here is negative). */
static int parse_int(const char *s, int lo, int hi) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return -1;
  return (int)v;
}

static int parse_int_option(const char *opt, const char *val, int lo, int hi, int *out) {
  int v = parse_int(val, lo, hi);
  if (v < 0) {
    fprintf(stderr, "heat: %s '%s' is not accepted: expected an integer from %d to %d\n", opt, val,
            lo, hi);
    return -1;
  }
  *out = v;
  return 0;
}

/* "stencil=2,compute=1": every item must name a phase and a count this
 * machine's processors allow (ergo's knob says the last word at run time). */
static int parse_threads(const char *val, int threads[NPHASES]) {
  int procs = omp_get_num_procs();
  char buf[256];
  int ok = val[0] && strlen(val) < sizeof buf;
  if (ok) strcpy(buf, val);
  for (char *save = NULL, *item = ok ? strtok_r(buf, ",", &save) : NULL; ok && item;
       item = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(item, '=');
    int p = 0;
    if (eq) *eq = '\0';
    while (p < NPHASES && strcmp(item, phase_name[p]) != 0) p++;
    int t = eq ? parse_int(eq + 1, 1, procs) : -1;
    if (!eq || p == NPHASES || t < 0)
      ok = 0;
    else
      threads[p] = t;
  }
  /* strtok_r skips empty items: ",," or a trailing comma is a typo, not nothing. */
  if (ok && (val[0] == ',' || val[strlen(val) - 1] == ',' || strstr(val, ",,"))) ok = 0;
  if (!ok)
    fprintf(stderr,
            "heat: --threads-per-phase '%s' is not accepted: expected PHASE=T[,PHASE=T] with "
            "PHASE stencil or compute and T from 1 to %d\n",
            val, procs);
  return ok ? 0 : -1;
}

/* Returns 0 to run, 1 after --help, 2 on a bad argument (one line said why). */
static int parse_args(int argc, char **argv, options *o) {
  *o = (options){.size = DEF_SIZE, .steps = DEF_STEPS, .sweeps = DEF_SWEEPS};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 1;
    }
    static const char *const names[] = {"--size", "--steps", "--sweeps", "--threads-per-phase",
                                        "--output"};
    enum { NNAMES = sizeof names / sizeof *names };
    int n = 0;
    size_t len = 0;
    for (; n < NNAMES; n++) {
      len = strlen(names[n]);
      if (strncmp(a, names[n], len) == 0 && (a[len] == '\0' || a[len] == '=')) break;
    }
    if (n == NNAMES) {
      fprintf(stderr,
              "heat: unknown argument '%s': expected --size, --steps, --sweeps, "
              "--threads-per-phase, --output or --help\n",
              a);
      return 2;
    }
    const char *val = a[len] == '=' ? a + len + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (!val) {
      fprintf(stderr, "heat: %s needs a value (--help lists them)\n", names[n]);
      return 2;
    }
    int rc = n == 0   ? parse_int_option(names[n], val, MIN_SIZE, MAX_SIZE, &o->size)
             : n == 1 ? parse_int_option(names[n], val, 1, MAX_STEPS, &o->steps)
             : n == 2 ? parse_int_option(names[n], val, 1, MAX_SWEEPS, &o->sweeps)
             : n == 3 ? parse_threads(val, o->threads)
                      : (o->output = val, 0);
    if (rc) return 2;
  }
  return 0;
}

/* Fixed boundary: the top edge is hot, the left edge warm, the others cold. */
static void init_grid(double *u, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) u[(size_t)i * n + j] = i == 0 ? 1.0 : j == 0 ? 0.5 : 0.0;
}

/* One Jacobi sweep u -> v over the interior; rows are independent, so every
 * point gets the same value whatever the thread count. */
static int jacobi_sweep(const double *restrict u, double *restrict v, int n) {
  int nt = 1;
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) nt = omp_get_num_threads();
#pragma omp for schedule(static)
    for (int i = 1; i < n - 1; i++) {
      const double *up = u + (size_t)(i - 1) * n, *mid = up + n, *dn = mid + n;
      double *out = v + (size_t)i * n;
      for (int j = 1; j < n - 1; j++) out[j] = 0.25 * (up[j] + dn[j] + mid[j - 1] + mid[j + 1]);
    }
  }
  return nt;
}

/* A = the grid's m x m window below the hot corner, so the product follows the heat. */
static int pack(const double *restrict u, int n, double *restrict a, int m) {
  int nt = 1;
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) nt = omp_get_num_threads();
#pragma omp for schedule(static)
    for (int i = 0; i < m; i++)
      memcpy(a + (size_t)i * m, u + (size_t)(i + 1) * n + 1, m * sizeof *a);
  }
  return nt;
}

/* C = A B, tiled; each C row belongs to one thread and sums over k in the
 * same order for any thread count, so C is bit-identical. */
static int product(const double *restrict a, const double *restrict b, double *restrict c, int m) {
  int nt = 1;
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) nt = omp_get_num_threads();
#pragma omp for schedule(static)
    for (int ii = 0; ii < m; ii += TILE_I) {
      int iend = ii + TILE_I < m ? ii + TILE_I : m;
      memset(c + (size_t)ii * m, 0, (size_t)(iend - ii) * m * sizeof *c);
      for (int kk = 0; kk < m; kk += TILE_K) {
        int kend = kk + TILE_K < m ? kk + TILE_K : m;
        for (int i = ii; i < iend; i++) {
          double *ci = c + (size_t)i * m;
          for (int k = kk; k < kend; k++) {
            double aik = a[(size_t)i * m + k];
            const double *bk = b + (size_t)k * m;
            for (int j = 0; j < m; j++) ci[j] += aik * bk[j];
          }
        }
      }
    }
  }
  return nt;
}

/* Serial on purpose (the serial fraction of the step): sum of squared
 * 5-point Laplacians, how far the grid still is from steady state. */
static double residual(const double *u, int n) {
  double r = 0;
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++) {
      const double *p = u + (size_t)i * n + j;
      double l = 4 * p[0] - p[-n] - p[n] - p[-1] - p[1];
      r += l * l;
    }
  return r;
}

static double sum(const double *x, size_t count) {
  double s = 0;
  for (size_t i = 0; i < count; i++) s += x[i];
  return s;
}

/* Put a phase's thread count in force; 1 if there is something to pop.  A
 * count the knob refuses is said once by ergo, then the phase inherits. */
static int threads_push(int *threads, const char *phase) {
  if (!*threads) return 0;
  if (ergo_setting_push(&(ergo_setting){.threads = *threads}) == 0) return 1;
  fprintf(stderr, "heat: phase %s runs on the inherited thread count\n", phase);
  *threads = 0;
  return 0;
}

static int run(const options *o, FILE *out) {
  int n = o->size, m = n / 4;
  size_t cells = (size_t)n * n, mm = (size_t)m * m;
  double *u = malloc(cells * sizeof *u), *v = malloc(cells * sizeof *v);
  double *a = malloc(mm * sizeof *a), *b = malloc(mm * sizeof *b), *c = malloc(mm * sizeof *c);
  if (!u || !v || !a || !b || !c) {
    fprintf(stderr, "heat: out of memory for a %dx%d grid (try a smaller --size)\n", n, n);
    free(u), free(v), free(a), free(b), free(c);
    return 1;
  }
  /* Its own region: first touching the grids is a good part of a short run. */
  ERGO_PUSH(0, "Init");
  init_grid(u, n);
  init_grid(v, n); /* the boundary lives in both buffers and is never written */
  for (int k = 0; k < m; k++)
    for (int j = 0; j < m; j++) b[(size_t)k * m + j] = (double)((k * 7 + j * 3) % 17 - 8) / 8;
  ERGO_POP(0, "Init");
  int threads[NPHASES];
  memcpy(threads, o->threads, sizeof threads);
  used seen[NPHASES] = {{0, 0}, {0, 0}};
  double heat = 0, res = 0, prod = 0;
  char line[160];

  for (int step = 1; step <= o->steps; step++) {
    ERGO_PUSH(0, "Timestep");

    ERGO_PUSH(1, "STENCIL");
    int pushed = threads_push(&threads[PH_STENCIL], "stencil");
    for (int s = 0; s < o->sweeps; s++) {
      ERGO_PUSH(2, "JACOBI_SWEEP");
      used_add(&seen[PH_STENCIL], jacobi_sweep(u, v, n));
      double *t = u;
      u = v, v = t;
      ERGO_POP(2, "JACOBI_SWEEP");
    }
    if (pushed) ergo_setting_pop();
    ERGO_POP(1, "STENCIL");

    ERGO_PUSH(1, "COMPUTE");
    pushed = threads_push(&threads[PH_COMPUTE], "compute");
    ERGO_PUSH(2, "PACK");
    used_add(&seen[PH_COMPUTE], pack(u, n, a, m));
    ERGO_POPPUSH(2, "PACK", "DGEMM");
    used_add(&seen[PH_COMPUTE], product(a, b, c, m));
    ERGO_POP(2, "DGEMM");
    if (pushed) ergo_setting_pop();
    ERGO_POP(1, "COMPUTE");

    ERGO_PUSH(1, "SERIAL");
    ERGO_PUSH(2, "RESIDUAL");
    res = residual(u, n);
    ERGO_POPPUSH(2, "RESIDUAL", "CHECKSUM");
    heat = sum(u, cells);
    prod = sum(c, mm);
    ERGO_POP(2, "CHECKSUM");
    ERGO_POP(1, "SERIAL");

    ERGO_PUSH(1, "IO");
    ERGO_PUSH(2, "SUMMARY");
    snprintf(line, sizeof line, "step %d heat=%.17g residual=%.17g product=%.17g\n", step, heat,
             res, prod);
    if (out) fputs(line, out), fflush(out);
    ERGO_POP(2, "SUMMARY");
    ERGO_POP(1, "IO");

    ERGO_POP(0, "Timestep");
    ergo_step(step);
  }

  /* A range (1..2) means the count changed during the run. */
  printf("heat: threads used:");
  for (int p = 0; p < NPHASES; p++) {
    printf(" %s=%d", phase_name[p], seen[p].min);
    if (seen[p].min != seen[p].max) printf("..%d", seen[p].max);
  }
  printf("\nheat: result heat=%.17g residual=%.17g product=%.17g\n", heat, res, prod);
  fflush(stdout);
  free(u), free(v), free(a), free(b), free(c);
  return 0;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc == 1 ? 0 : 2;

  FILE *out = NULL;
  if (o.output && !(out = fopen(o.output, "w"))) {
    fprintf(stderr, "heat: cannot write --output '%s': %s\n", o.output, strerror(errno));
    return 1;
  }

  /* What the runtime really does, not what it was asked: a parallel region's team size. */
  int team = 1;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  printf("heat: %dx%d grid, %d steps x %d sweeps, %dx%d product; OpenMP runs %d thread%s in a "
         "parallel region (%d processor%s)\n",
         o.size, o.size, o.steps, o.sweeps, o.size / 4, o.size / 4, team, team == 1 ? "" : "s",
         omp_get_num_procs(), omp_get_num_procs() == 1 ? "" : "s");
  if (o.threads[PH_STENCIL] || o.threads[PH_COMPUTE]) {
    printf("heat: threads asked per phase:");
    for (int p = 0; p < NPHASES; p++)
      if (o.threads[p]) printf(" %s=%d", phase_name[p], o.threads[p]);
    printf("\n");
  }
  fflush(stdout);

  if (ergo_init(NULL) != 0) {
    if (out) fclose(out);
    return 1;
  }
  rc = run(&o, out);
  if (ergo_finalize() != 0) rc = 1;
  if (out && fclose(out) != 0) {
    fprintf(stderr, "heat: cannot write --output '%s': %s\n", o.output, strerror(errno));
    rc = 1;
  }
  return rc;
}
