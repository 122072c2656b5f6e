/* heap.c - ergo-bench-heap: does ergo_init disturb the application's heap?  A malloc-heavy loop of
 * short steps (a set-up temporary just above malloc's mmap threshold, then four 64 KiB temporaries
 * made, written and freed every step, as LULESH -s 10 makes them) runs in fresh child processes
 * after ergo_init with ERGO_KNOBS=auto and with ERGO_KNOBS=none, interleaved, and the bench prints
 * each one's heap-top moves (brk calls), mmapped temporaries, page faults and CPU time, then
 * `heap_ratio=` (auto over none).
 *
 * Built with the tests' fake-sysfs machine (ERGO_BENCH_FAKE_MACHINE) and run as root, the children
 * start on a machine with cpufreq (acpi-cpufreq, userspace governor) and uncore knobs, so auto
 * opens what it would open on a compute node; elsewhere (or with --real) they run on this
 * machine, where auto may open only the thread knob.  --check: the test (counts only). */
#define _GNU_SOURCE
#include "ergo.h"

#include "median.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef ERGO_BENCH_FAKE_MACHINE
#include "fakecpu.h"
FAKECPU_SYSFS_STORES

/* A package of 2 cores with acpi-cpufreq (userspace governor) and uncore 1.2-2.4 GHz. */
static const char *fake_machine(void) {
  static fakesys fs;
  if (fakesys_create(&fs) || fakecpu_topology(&fs, 1, 2, 1) ||
      fakecpu_add_policies(&fs, &fakecpu_acpi, 2, 1) ||
      fakecpu_uncore(&fs, 0, 0, 1200000, 2400000, 2000000))
    return "cannot build the fake sysfs tree";
  return fakesys_enter(&fs, fakecpu_mounts);
}
#endif

#define ROUNDS 7
#define DEFAULT_STEPS 20000

/* One step's temporaries, in bytes (256 KiB in all, each under the default mmap threshold, as
 * LULESH -s 10 makes them), after one set-up temporary of SETUP_BYTES. */
static const size_t temp_sizes[] = {64 << 10, 64 << 10, 64 << 10, 64 << 10};
#define SETUP_BYTES (132 << 10)
#define NTEMP (sizeof temp_sizes / sizeof temp_sizes[0])

typedef struct figures {
  double cpu_s;   /* this thread's CPU time (user + system) in the loop */
  long brk;       /* times the heap top moved in a malloc or free of the loop (brk calls) */
  long mmapped;   /* blocks malloc gave as their own mapping (an mmap and munmap each) */
  long faults;    /* minor page faults in the loop */
  long init_grow; /* bytes the main heap (brk) grew by in ergo_init */
} figures;

static double thread_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long minor_faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

/* A sanitizer's allocator replaces glibc's malloc: nothing here is glibc's heap then. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BENCH_GLIBC_MALLOC 0
#elif defined(__GLIBC__)
#define BENCH_GLIBC_MALLOC 1
#else
#define BENCH_GLIBC_MALLOC 0
#endif

/* glibc marks a chunk that has its own mapping with bit 1 of the size word before it. */
static int is_mmapped(const void *p) {
#if BENCH_GLIBC_MALLOC
  const volatile size_t *size = (const volatile size_t *)((uintptr_t)p - sizeof(size_t));
  return (*size & 2) != 0;
#else
  (void)p;
  return 0;
#endif
}

/* The knobs this machine offers, as `ergo info` finds them: "cpufreq uncore threads". */
static void print_knobs(void) {
  char *json = ergo_knobs_info_json();
  printf("knobs_available=");
  const char *sep = "";
  for (const char *p = json; p && (p = strstr(p, "\"name\":")); p++) {
    char name[32];
    const char *next = strstr(p + 1, "\"name\":");
    const char *av = strstr(p, "\"available\":");
    if (av) av += strlen("\"available\":") + strspn(av + strlen("\"available\":"), " ");
    if (sscanf(p, "\"name\": \"%31[^\"]\"", name) == 1 && av && (!next || av < next) &&
        strncmp(av, "true", 4) == 0) {
      printf("%s%s", sep, name);
      sep = " ";
    }
  }
  printf("%s\n", *sep ? "" : "none");
  free(json);
}

/* The child: ergo_init as the environment says (ERGO_KNOBS), then the loop; one line out. */
static int child(long steps) {
  char *brk0 = sbrk(0);
  int rc = ergo_init(NULL);
  if (rc) {
    fprintf(stderr, "ergo-bench-heap: ergo_init: %s\n", ergo_strerror(rc));
    return 1;
  }
  figures f = {0};
  f.init_grow = (long)((char *)sbrk(0) - brk0); /* what init grew the main heap by */
  volatile double sink = 0;
  /* Set-up: one temporary just above malloc's default mmap threshold (128 KiB), freed.  glibc
   * serves it with a mapping of its own and, when it is freed, raises its mmap threshold to its
   * size and its trim threshold to twice that (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD), so the steps'
   * temporaries then stay in the heap from step to step.  When init has left the heap otherwise
   * (holes under a block it keeps, its top moved), the steps trim the top and fault it back in. */
  double *setup = malloc(SETUP_BYTES);
  if (!setup) return 1;
  f.mmapped += is_mmapped(setup);
  memset(setup, 0, SETUP_BYTES);
  free(setup);
  void *top = sbrk(0);
  long fault0 = minor_faults();
  double t0 = thread_cpu_s();
  for (long s = 0; s < steps; s++) {
    double *t[NTEMP];
    for (size_t i = 0; i < NTEMP; i++) {
      t[i] = malloc(temp_sizes[i]);
      if (!t[i]) {
        fprintf(stderr, "ergo-bench-heap: out of memory\n");
        return 1;
      }
      if (sbrk(0) != top) f.brk++, top = sbrk(0);
      f.mmapped += is_mmapped(t[i]);
      size_t n = temp_sizes[i] / sizeof(double);
      for (size_t k = 0; k < n; k++) t[i][k] = (double)(k + (size_t)s);
    }
    for (size_t i = 0; i < NTEMP; i++) sink += t[i][(size_t)s % 64];
    for (size_t i = NTEMP; i-- > 0;) {
      free(t[i]);
      if (sbrk(0) != top) f.brk++, top = sbrk(0);
    }
  }
  f.cpu_s = thread_cpu_s() - t0;
  f.faults = minor_faults() - fault0;
  ergo_finalize();
  printf("%.6f %ld %ld %ld %ld\n", f.cpu_s, f.brk, f.mmapped, f.faults, f.init_grow);
  return 0;
}

/* Run this program as a child with ERGO_KNOBS=knobs; 0 and its figures, or -1. */
static int run_child(const char *knobs, long steps, figures *out) {
  int pfd[2];
  if (pipe(pfd)) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    close(pfd[0]);
    dup2(pfd[1], 1);
    close(pfd[1]);
    setenv("ERGO_KNOBS", knobs, 1);
    char arg[32];
    snprintf(arg, sizeof arg, "%ld", steps);
    execl("/proc/self/exe", "ergo-bench-heap", "--child", arg, (char *)NULL);
    _exit(127);
  }
  close(pfd[1]);
  char buf[256] = "";
  size_t len = 0;
  ssize_t r;
  while (len + 1 < sizeof buf && (r = read(pfd[0], buf + len, sizeof buf - 1 - len)) > 0)
    len += (size_t)r;
  buf[len] = '\0';
  close(pfd[0]);
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  if (sscanf(buf, "%lf %ld %ld %ld %ld", &out->cpu_s, &out->brk, &out->mmapped, &out->faults,
             &out->init_grow) != 5)
    return -1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0) return child(atol(argv[2]));
  long steps = DEFAULT_STEPS;
  int real = 0, check = 0, rounds = ROUNDS;
  for (int i = 1; i < argc; i++) {
    char *end;
    if (strcmp(argv[i], "--real") == 0) {
      real = 1;
    } else if (strcmp(argv[i], "--check") == 0) {
      check = 1; /* the test: counts only, on the fake machine, one round */
      rounds = 1;
      steps = 2000;
    } else if ((steps = strtol(argv[i], &end, 10)) < 1 || *end) {
      fprintf(stderr, "usage: %s [--real | --check] [steps >= 1] (default %d)\n", argv[0],
              DEFAULT_STEPS);
      return 2;
    }
  }
  if (check && !BENCH_GLIBC_MALLOC) {
    printf("SKIPPED: this build's malloc is not glibc's (a sanitizer's allocator replaces it), "
           "whose heap the check is about\n");
    return 77;
  }
  /* Children report only their figures: no report files, no meter, no notes. */
  setenv("ERGO_REPORT", "none", 1);
  setenv("ERGO_ENERGY", "none", 1);
  const char *machine = "this machine";
#ifdef ERGO_BENCH_FAKE_MACHINE
  if (!real) {
    const char *why = fake_machine();
    if (why && check) {
      printf("SKIPPED: %s\n", why);
      return 77;
    } else if (why)
      printf("fake_machine=unavailable (%s): running on this machine\n", why);
    else
      machine = "fake-sysfs (acpi-cpufreq userspace, uncore)";
  }
#else
  (void)real;
  if (check) {
    printf("SKIPPED: built without the tests' fake-sysfs machine (ERGO_BUILD_TESTS=OFF)\n");
    return 77;
  }
#endif
  printf("machine=%s\nsteps=%ld\n", machine, steps);
  print_knobs();
  const char *kind[2] = {"auto", "none"};
  figures f[2][ROUNDS];
  for (int r = 0; r < rounds; r++)
    for (int j = 0; j < 2; j++) {
      int k = (r % 2) ? 1 - j : j; /* alternate which goes first */
      if (run_child(kind[k], steps, &f[k][r])) {
        fprintf(stderr, "ergo-bench-heap: the child with ERGO_KNOBS=%s failed\n", kind[k]);
        return 1;
      }
    }
  double best[2], med[2];
  for (int k = 0; k < 2; k++) {
    double cpu[ROUNDS], brk[ROUNDS], mm[ROUNDS], flt[ROUNDS];
    best[k] = f[k][0].cpu_s;
    for (int r = 0; r < rounds; r++) {
      cpu[r] = f[k][r].cpu_s;
      brk[r] = (double)f[k][r].brk;
      mm[r] = (double)f[k][r].mmapped;
      flt[r] = (double)f[k][r].faults;
      if (cpu[r] < best[k]) best[k] = cpu[r];
    }
    med[k] = median(cpu, rounds);
    printf("knobs_%s_init_brk_growth=%ld\n", kind[k], f[k][0].init_grow);
    printf("knobs_%s_brk=%.0f\n", kind[k], median(brk, rounds));
    printf("knobs_%s_mmapped=%.0f\n", kind[k], median(mm, rounds));
    printf("knobs_%s_page_faults=%.0f\n", kind[k], median(flt, rounds));
    printf("knobs_%s_cpu_ms_best=%.2f\nknobs_%s_cpu_ms_median=%.2f\n", kind[k], best[k] * 1e3,
           kind[k], med[k] * 1e3);
  }
  printf("heap_ratio_median=%.3f\n", med[1] > 0 ? med[0] / med[1] : 0.0);
  printf("heap_ratio=%.3f\n", best[1] > 0 ? best[0] / best[1] : 0.0);
  if (check) {
    /* Counts, not times: with the knobs open the loop may not move the heap top more often or
     * fault in more pages than without (a little slack for the knobs' own pages). */
    figures *a = &f[0][0], *n = &f[1][0];
    if (a->brk > n->brk + 2 || a->faults > 2 * n->faults + 100) {
      printf("FAIL: with ERGO_KNOBS=auto the loop moved the heap top %ld times and faulted %ld "
             "pages, against %ld and %ld with none: ergo_init disturbed the heap\n",
             a->brk, a->faults, n->brk, n->faults);
      return 1;
    }
    printf("heap_check=ok\n");
  }
  return 0;
}
