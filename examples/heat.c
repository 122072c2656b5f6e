/* heat.c - a real OpenMP program for ergo: heat stencil, dense product and serial sums per step.
 * Built with ERGO_EXAMPLE_MPI it is also an MPI program: every rank owns a slab of grid rows and
 * trades halo rows after every sweep; the result line stays the serial one, bit for bit. */
#include <ergo.h>

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef ERGO_EXAMPLE_MPI
#include <mpi.h>
#endif

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

/* ---- the MPI job: a job of one rank without MPI or without mpirun ---- */
static int my_rank = 0, nranks = 1;
/* 1: this rank prints its usage errors (rank 0, or a rank that alone refused them). */
static int loud = 1;

static void job_start(int *argc, char ***argv) {
#ifdef ERGO_EXAMPLE_MPI
  int provided; /* OpenMP threads never call MPI: FUNNELED is all heat needs */
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
#else
  (void)argc, (void)argv;
#endif
  loud = my_rank == 0;
}

/* After ergo_finalize: ergo merges its report over MPI. */
static int job_stop(int rc) {
#ifdef ERGO_EXAMPLE_MPI
  MPI_Finalize();
#endif
  return rc;
}

/* Every rank's value, combined: the largest or the smallest. */
static int job_combine(int v, int largest) {
#ifdef ERGO_EXAMPLE_MPI
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, largest ? MPI_MAX : MPI_MIN, MPI_COMM_WORLD);
#else
  (void)largest;
#endif
  return v;
}
static int job_max(int v) { return job_combine(v, 1); }
static int job_min(int v) { return job_combine(v, 0); }

/* Rank 0's value on every rank. */
static int job_rank0_int(int v) {
#ifdef ERGO_EXAMPLE_MPI
  MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  return v;
}

#ifdef ERGO_EXAMPLE_MPI
#define HELP_MPI                                                                                   \
  "Under mpirun every rank owns a slab of grid rows and trades halo rows after each\n"             \
  "sweep; the result line stays the same for any number of ranks, and rank 0 prints.\n"
#else
#define HELP_MPI ""
#endif

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
          "(ERGO_REPORT=none hides it; ERGO_ENERGY=estimate adds energy without RAPL).\n" HELP_MPI,
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
    if (loud)
      fprintf(stderr, "heat: %s '%s' is not accepted: expected an integer from %d to %d\n", opt,
              val, lo, hi);
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
  if (!ok && loud)
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
      if (my_rank == 0) usage(stdout);
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
      if (loud)
        fprintf(stderr,
                "heat: unknown argument '%s': expected --size, --steps, --sweeps, "
                "--threads-per-phase, --output or --help\n",
                a);
      return 2;
    }
    const char *val = a[len] == '=' ? a + len + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (!val) {
      if (loud) fprintf(stderr, "heat: %s needs a value (--help lists them)\n", names[n]);
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

/* ---- the grid's slabs ---- */

/* This rank's share: grid rows [r0, r1) (the boundary rows 0 and n-1 included), stored with one
 * halo row above and one below (local row 0 is global row r0-1); the product's window rows
 * [a0, a1) packed from those grid rows; the product rows [c0, c1) computed here.  A lone rank owns
 * everything.  Every rank knows every rank's share: it is arithmetic on (n, rank, ranks). */
typedef struct slab {
  int n, m, r0, r1, a0, a1, c0, c1;
} slab;

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

static slab slab_of(int n, int rank, int ranks) {
  slab s = {.n = n, .m = n / 4};
  s.r0 = (int)((long)n * rank / ranks);
  s.r1 = (int)((long)n * (rank + 1) / ranks);
  /* Window row i is grid row i+1, columns 1..m. */
  s.a0 = clampi(s.r0 - 1, 0, s.m);
  s.a1 = clampi(s.r1 - 1, 0, s.m);
  s.c0 = (int)((long)s.m * rank / ranks);
  s.c1 = (int)((long)s.m * (rank + 1) / ranks);
  return s;
}

/* Local storage of global row g (r0-1 <= g <= r1). */
static double *row(double *u, const slab *s, int g) { return u + (size_t)(g - s->r0 + 1) * s->n; }
static const double *crow(const double *u, const slab *s, int g) {
  return u + (size_t)(g - s->r0 + 1) * s->n;
}

/* Fixed boundary: the top edge is hot, the left edge warm, the others cold.  The rows this rank
 * holds, halos included. */
static void init_grid(double *u, const slab *s) {
  int n = s->n;
  for (int i = clampi(s->r0 - 1, 0, n - 1); i <= clampi(s->r1, 0, n - 1); i++) {
    double *r = row(u, s, i);
    for (int j = 0; j < n; j++) r[j] = i == 0 ? 1.0 : j == 0 ? 0.5 : 0.0;
  }
}

/* One Jacobi sweep u -> v over this slab's interior rows; rows are independent, so every
 * point gets the same value whatever the thread and rank counts. */
static int jacobi_sweep(const double *restrict u, double *restrict v, const slab *s) {
  int n = s->n, lo = s->r0 > 1 ? s->r0 : 1, hi = s->r1 < n - 1 ? s->r1 : n - 1;
  int nt = 1;
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) nt = omp_get_num_threads();
#pragma omp for schedule(static)
    for (int i = lo; i < hi; i++) {
      const double *mid = crow(u, s, i), *up = mid - n, *dn = mid + n;
      double *out = row(v, s, i);
      for (int j = 1; j < n - 1; j++) out[j] = 0.25 * (up[j] + dn[j] + mid[j - 1] + mid[j + 1]);
    }
  }
  return nt;
}

/* The halo rows of u from the neighbouring ranks: this rank's first row goes up and its last row
 * down; the halos above and below come back. */
static void halo_exchange(double *u, const slab *s) {
#ifdef ERGO_EXAMPLE_MPI
  int up = my_rank > 0 ? my_rank - 1 : MPI_PROC_NULL;
  int down = my_rank < nranks - 1 ? my_rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(row(u, s, s->r0), s->n, MPI_DOUBLE, up, 0, row(u, s, s->r1), s->n, MPI_DOUBLE, down,
               0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(row(u, s, s->r1 - 1), s->n, MPI_DOUBLE, down, 1, row(u, s, s->r0 - 1), s->n,
               MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#else
  (void)u, (void)s;
#endif
}

/* A = the grid's m x m window below the hot corner, so the product follows the heat: this rank
 * packs its window rows, then every rank gets all of A. */
static int pack(const double *restrict u, const slab *s, double *restrict a) {
  int m = s->m, nt = 1;
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) nt = omp_get_num_threads();
#pragma omp for schedule(static)
    for (int i = s->a0; i < s->a1; i++)
      memcpy(a + (size_t)i * m, crow(u, s, i + 1) + 1, m * sizeof *a);
  }
#ifdef ERGO_EXAMPLE_MPI
  if (nranks > 1) {
    int *count = malloc(2 * (size_t)nranks * sizeof *count), *displ = count + nranks;
    if (!count) {
      fprintf(stderr, "heat: rank %d out of memory for %d gather counts\n", my_rank, nranks);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 0; r < nranks; r++) {
      slab o = slab_of(s->n, r, nranks);
      count[r] = (o.a1 - o.a0) * m;
      displ[r] = o.a0 * m;
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, count, displ, MPI_DOUBLE, MPI_COMM_WORLD);
    free(count);
  }
#endif
  return nt;
}

/* Rows [c0, c1) of C = A B, tiled; each C row belongs to one thread and sums over k in the
 * same order for any thread or rank count, so C is bit-identical. */
static int product(const double *restrict a, const double *restrict b, double *restrict c,
                   const slab *s) {
  int m = s->m, nt = 1;
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) nt = omp_get_num_threads();
#pragma omp for schedule(static)
    for (int ii = s->c0; ii < s->c1; ii += TILE_I) {
      int iend = ii + TILE_I < s->c1 ? ii + TILE_I : s->c1;
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

/* The serial sums are relayed rank to rank (a chain): each rank takes the running sums from the
 * rank before it, adds its rows in order and passes them on, so the additions happen in the one
 * order a single process uses and the result is bit-identical for any rank count; the last
 * rank's sums are everyone's.  Serial on purpose, and across ranks too. */
static void chain_take(double *v, int k) {
#ifdef ERGO_EXAMPLE_MPI
  if (my_rank > 0) MPI_Recv(v, k, MPI_DOUBLE, my_rank - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#else
  (void)v, (void)k;
#endif
}

static void chain_pass(double *v, int k) {
#ifdef ERGO_EXAMPLE_MPI
  if (my_rank < nranks - 1) MPI_Send(v, k, MPI_DOUBLE, my_rank + 1, 2, MPI_COMM_WORLD);
#else
  (void)v, (void)k;
#endif
}

static void chain_share(double *v, int k) {
#ifdef ERGO_EXAMPLE_MPI
  if (nranks > 1) MPI_Bcast(v, k, MPI_DOUBLE, nranks - 1, MPI_COMM_WORLD);
#else
  (void)v, (void)k;
#endif
}

/* Serial on purpose (the serial fraction of the step): r plus the sum of squared 5-point
 * Laplacians of this slab's interior rows, how far the grid still is from steady state. */
static double residual(double r, const double *u, const slab *s) {
  int n = s->n, lo = s->r0 > 1 ? s->r0 : 1, hi = s->r1 < n - 1 ? s->r1 : n - 1;
  for (int i = lo; i < hi; i++)
    for (int j = 1; j < n - 1; j++) {
      const double *p = crow(u, s, i) + j;
      double l = 4 * p[0] - p[-n] - p[n] - p[-1] - p[1];
      r += l * l;
    }
  return r;
}

static double sum(double acc, const double *x, size_t count) {
  for (size_t i = 0; i < count; i++) acc += x[i];
  return acc;
}

/* Put a phase's thread count in force; 1 if there is something to pop.  A
 * count the knob refuses is said once by ergo, then the phase inherits. */
static int threads_push(int *threads, const char *phase) {
  if (!*threads) return 0;
  if (ergo_setting_push(&(ergo_setting){.threads = *threads}) == 0) return 1;
  if (my_rank == 0) fprintf(stderr, "heat: phase %s runs on the inherited thread count\n", phase);
  *threads = 0;
  return 0;
}

static int run(const options *o, FILE *out) {
  slab sl = slab_of(o->size, my_rank, nranks);
  const slab *s = &sl;
  int n = s->n, m = s->m;
  size_t cells = (size_t)(s->r1 - s->r0 + 2) * n, mm = (size_t)m * m;
  double *u = malloc(cells * sizeof *u), *v = malloc(cells * sizeof *v);
  double *a = malloc(mm * sizeof *a), *b = malloc(mm * sizeof *b), *c = malloc(mm * sizeof *c);
  int nomem = !u || !v || !a || !b || !c;
  if (nomem) fprintf(stderr, "heat: out of memory for a %dx%d grid (try a smaller --size)\n", n, n);
  if (job_max(nomem)) {
    free(u), free(v), free(a), free(b), free(c);
    return 1;
  }
  /* Its own region: first touching the grids is a good part of a short run. */
  ERGO_PUSH(0, "Init");
  init_grid(u, s);
  init_grid(v, s); /* the boundary lives in both buffers and is never written */
  for (int k = 0; k < m; k++)
    for (int j = 0; j < m; j++) b[(size_t)k * m + j] = (double)((k * 7 + j * 3) % 17 - 8) / 8;
  ERGO_POP(0, "Init");
  int threads[NPHASES];
  memcpy(threads, o->threads, sizeof threads);
  used seen[NPHASES] = {{0, 0}, {0, 0}};
  double sums[3] = {0, 0, 0}; /* residual, heat, product */
  char line[160];

  for (int step = 1; step <= o->steps; step++) {
    ERGO_PUSH(0, "Timestep");

    ERGO_PUSH(1, "STENCIL");
    int pushed = threads_push(&threads[PH_STENCIL], "stencil");
    for (int k = 0; k < o->sweeps; k++) {
      ERGO_PUSH(2, "JACOBI_SWEEP");
      used_add(&seen[PH_STENCIL], jacobi_sweep(u, v, s));
      double *t = u;
      u = v, v = t;
      ERGO_POP(2, "JACOBI_SWEEP");
      if (nranks > 1) { /* one process has no halo to trade: no region either */
        ERGO_PUSH(2, "HALO");
        halo_exchange(u, s);
        ERGO_POP(2, "HALO");
      }
    }
    if (pushed) ergo_setting_pop();
    ERGO_POP(1, "STENCIL");

    ERGO_PUSH(1, "COMPUTE");
    pushed = threads_push(&threads[PH_COMPUTE], "compute");
    ERGO_PUSH(2, "PACK");
    used_add(&seen[PH_COMPUTE], pack(u, s, a));
    ERGO_POPPUSH(2, "PACK", "DGEMM");
    used_add(&seen[PH_COMPUTE], product(a, b, c, s));
    ERGO_POP(2, "DGEMM");
    if (pushed) ergo_setting_pop();
    ERGO_POP(1, "COMPUTE");

    ERGO_PUSH(1, "SERIAL");
    ERGO_PUSH(2, "RESIDUAL");
    chain_take(sums, 1);
    sums[0] = residual(my_rank == 0 ? 0 : sums[0], u, s);
    chain_pass(sums, 1);
    ERGO_POPPUSH(2, "RESIDUAL", "CHECKSUM");
    chain_take(sums + 1, 2);
    if (my_rank == 0) sums[1] = sums[2] = 0;
    sums[1] = sum(sums[1], row(u, s, s->r0), (size_t)(s->r1 - s->r0) * n);
    sums[2] = sum(sums[2], c + (size_t)s->c0 * m, (size_t)(s->c1 - s->c0) * m);
    chain_pass(sums + 1, 2);
    chain_share(sums, 3);
    ERGO_POP(2, "CHECKSUM");
    ERGO_POP(1, "SERIAL");

    ERGO_PUSH(1, "IO");
    ERGO_PUSH(2, "SUMMARY");
    snprintf(line, sizeof line, "step %d heat=%.17g residual=%.17g product=%.17g\n", step, sums[1],
             sums[0], sums[2]);
    if (out) fputs(line, out), fflush(out);
    ERGO_POP(2, "SUMMARY");
    ERGO_POP(1, "IO");

    ERGO_POP(0, "Timestep");
    ergo_step(step);
  }

  /* A range (1..2) means the count changed during the run, or differs between ranks. */
  for (int p = 0; p < NPHASES; p++) {
    seen[p].min = job_min(seen[p].min);
    seen[p].max = job_max(seen[p].max);
  }
  if (my_rank == 0) {
    printf("heat: threads used:");
    for (int p = 0; p < NPHASES; p++) {
      printf(" %s=%d", phase_name[p], seen[p].min);
      if (seen[p].min != seen[p].max) printf("..%d", seen[p].max);
    }
    printf("\nheat: result heat=%.17g residual=%.17g product=%.17g\n", sums[1], sums[0], sums[2]);
    fflush(stdout);
  }
  free(u), free(v), free(a), free(b), free(c);
  return 0;
}

int main(int argc, char **argv) {
  job_start(&argc, &argv);
  options o;
  /* Every rank reads the same arguments; rank 0 says what is wrong, unless only another rank
   * refuses them (its processor count differs), which then says so itself. */
  int rc = parse_args(argc, argv, &o), rc0 = job_rank0_int(rc);
  if (rc == 2 && rc0 == 0) {
    loud = 1;
    parse_args(argc, argv, &o);
  }
  rc = job_max(rc);
  if (rc) return job_stop(rc == 1 ? 0 : 2);
  if (o.size < nranks) {
    if (my_rank == 0)
      fprintf(stderr,
              "heat: --size %d gives %d grid rows to %d MPI ranks: expected at least one row per "
              "rank (fix: --size %d or more, or fewer ranks)\n",
              o.size, o.size, nranks, nranks > MIN_SIZE ? nranks : MIN_SIZE);
    return job_stop(2);
  }

  FILE *out = NULL; /* rank 0 writes the summaries: every rank has the same */
  int bad = my_rank == 0 && o.output && !(out = fopen(o.output, "w"));
  if (bad) fprintf(stderr, "heat: cannot write --output '%s': %s\n", o.output, strerror(errno));
  if (job_max(bad)) return job_stop(1);

  /* What the runtime really does, not what it was asked: a parallel region's team size. */
  int team = 1;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  if (my_rank == 0) {
    printf("heat: %dx%d grid, %d steps x %d sweeps, %dx%d product; OpenMP runs %d thread%s in a "
           "parallel region (%d processor%s)\n",
           o.size, o.size, o.steps, o.sweeps, o.size / 4, o.size / 4, team, team == 1 ? "" : "s",
           omp_get_num_procs(), omp_get_num_procs() == 1 ? "" : "s");
    if (nranks > 1) {
      slab first = slab_of(o.size, 0, nranks), last = slab_of(o.size, nranks - 1, nranks);
      printf("heat: %d MPI ranks, %d to %d grid rows each, halo rows traded after every "
             "sweep\n",
             nranks, first.r1 - first.r0, last.r1 - last.r0);
    }
    if (o.threads[PH_STENCIL] || o.threads[PH_COMPUTE]) {
      printf("heat: threads asked per phase:");
      for (int p = 0; p < NPHASES; p++)
        if (o.threads[p]) printf(" %s=%d", phase_name[p], o.threads[p]);
      printf("\n");
    }
    fflush(stdout);
  }

  /* ergo_init after MPI_Init: ergo then runs as one rank of the job and rank 0 writes the one
   * report over all ranks at ergo_finalize, which comes before MPI_Finalize. */
  if (job_max(ergo_init(NULL) != 0)) {
    if (out) fclose(out);
    return job_stop(1);
  }
  rc = run(&o, out);
  if (ergo_finalize() != 0) rc = 1;
  if (out && fclose(out) != 0) {
    fprintf(stderr, "heat: cannot write --output '%s': %s\n", o.output, strerror(errno));
    rc = 1;
  }
  return job_stop(rc);
}
