/* ergo_kokkos.c - libergo-kokkos.so, a Kokkos tool: a Kokkos code is measured and tuned by ergo
 * with no source change.  Loaded by Kokkos (KOKKOS_PROFILE_LIBRARY=/abs/libergo-kokkos.so or
 * --kokkos-tools-library=/abs/libergo-kokkos.so), it translates Kokkos' event stream into ergo's
 * public API alone:
 *
 *   kokkosp_init_library / finalize_library  ergo_init(NULL) / ergo_finalize(), or join an ergo
 *                                            the application started itself (then left to it)
 *   push / pop_profile_region               a region at ERGO_KOKKOS_LEVEL (2)
 *   begin / end_parallel_for, reduce, scan  a leaf region one level deeper, named as Kokkos names
 *                                            the kernel (ERGO_KOKKOS_KERNELS=0: none)
 *   begin / end_fence                       the same, with ERGO_KOKKOS_FENCES=1 (default off)
 *   create / start / stop / destroy_section ergo_section_*
 *   pop of the region ERGO_KOKKOS_STEP      ergo_step(n) after the pop, n = 1, 2, ...
 *
 * Regions and kernels are ordinary ergo regions, so energy, knobs, tuning policies, reports and
 * the MPI merge treat them as ERGO_PUSH regions.  Each thread keeps its own stack of what it
 * opened: a pop closes the innermost Kokkos region, an end the kernel whose id its begin wrote;
 * anything opened inside and not closed is closed first, with an error line naming it.  An end
 * whose id is not open, or a pop with no region open, is an error line and changes nothing.
 * The lines are the tool's own ("ergo: error: kokkos: ..."): ergo_error_count does not count
 * them. */
#include "ergo.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

enum { F_REGION, F_KERNEL, F_FENCE };
static const char *const kind_name[] = {"region", "kernel", "fence"};

typedef struct {
  int kind;
  int level;
  uint64_t id; /* kernels and fences: the id their begin wrote */
  char name[ERGO_NAME_MAX + 1];
} frame;

/* What one thread opened, innermost last. */
typedef struct {
  frame *f;
  int n, cap;
} stack;

static struct {
  int active;                   /* ergo runs and the tool translates */
  int own;                      /* the tool started ergo (and finishes it) */
  int level;                    /* regions' level; kernels and fences one deeper */
  int kernels;                  /* kernels become regions */
  int fences;                   /* fences become regions */
  char step[ERGO_NAME_MAX + 1]; /* the region whose pop ends a step ("" none) */
  long steps;
} T;

static uint64_t next_id = 1; /* kernel and fence ids (atomic) */
static __thread stack S;

static void say(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const char *kind, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "ergo: %s: kokkos: %s\n", kind, line);
}

/* The integer in environment variable var, from lo to hi, else def with a warning. */
static int env_int(const char *var, int lo, int hi, int def) {
  const char *v = getenv(var);
  if (!v || !*v) return def;
  char *end;
  long x = strtol(v, &end, 10);
  if (*end || x < lo || x > hi) {
    say("warning", "%s='%s' is not an integer from %d to %d; %d is used (fix: set it to one)", var,
        v, lo, hi, def);
    return def;
  }
  return (int)x;
}

static frame *push_frame(int kind, int level, uint64_t id, const char *name) {
  if (S.n == S.cap) {
    int cap = S.cap ? 2 * S.cap : 16;
    frame *p = realloc(S.f, (size_t)cap * sizeof *p);
    if (!p) {
      say("error", "out of memory for the %s '%s'; it is not timed", kind_name[kind], name);
      return NULL;
    }
    S.f = p;
    S.cap = cap;
  }
  frame *f = &S.f[S.n++];
  f->kind = kind;
  f->level = level;
  f->id = id;
  /* Longer names are cut here, once, rather than by ergo with an error line at every push. */
  snprintf(f->name, sizeof f->name, "%s", name ? name : "(unnamed)");
  ergo_push_at(level, f->name, "kokkos", 0);
  return f;
}

static void pop_top(void) {
  frame *f = &S.f[S.n - 1];
  ergo_pop_at(f->level, f->name, "kokkos", 0);
  S.n--;
}

/* Close the frames above index i, each with an error line saying what closed it. */
static void close_above(int i, const char *why) {
  while (S.n - 1 > i) {
    frame *f = &S.f[S.n - 1];
    say("error",
        "%s: the %s '%s' opened inside it was not closed; closing it now (fix: end every "
        "kernel and pop every region inside the scope that opened it)",
        why, kind_name[f->kind], f->name);
    pop_top();
  }
}

EXPORT void kokkosp_init_library(const int load_seq, const uint64_t interface_ver,
                                 const uint32_t ndevices, void *device_info) {
  (void)load_seq, (void)interface_ver, (void)ndevices, (void)device_info;
  T.level = env_int("ERGO_KOKKOS_LEVEL", 1, 8, 2);
  T.kernels = env_int("ERGO_KOKKOS_KERNELS", 0, 1, 1);
  T.fences = env_int("ERGO_KOKKOS_FENCES", 0, 1, 0);
  const char *step = getenv("ERGO_KOKKOS_STEP");
  snprintf(T.step, sizeof T.step, "%s", step ? step : "");
  T.steps = 0;
  if (ergo_initialized()) { /* the application started ergo: join it */
    T.own = 0;
    T.active = 1;
    return;
  }
  int rc = ergo_init(NULL);
  if (rc != 0) {
    say("error", "ergo_init failed (%s); the Kokkos events are not timed (fix: see the line above)",
        ergo_strerror(rc));
    return;
  }
  T.own = 1;
  T.active = 1;
}

EXPORT void kokkosp_finalize_library(void) {
  if (!T.active) return;
  /* Regions still open are closed (an application that started ergo may have finished it). */
  if (S.n && ergo_initialized()) close_above(-1, "kokkosp_finalize_library");
  free(S.f);
  S = (stack){0};
  T.active = 0;
  if (T.own) ergo_finalize();
}

EXPORT void kokkosp_push_profile_region(const char *name) {
  if (T.active) push_frame(F_REGION, T.level, 0, name);
}

EXPORT void kokkosp_pop_profile_region(void) {
  if (!T.active) return;
  int i = S.n - 1;
  while (i >= 0 && S.f[i].kind != F_REGION) i--;
  if (i < 0) {
    say("error", "kokkosp_pop_profile_region: no Kokkos region is open on this thread; pop ignored "
                 "(fix: pair every popRegion with a pushRegion)");
    return;
  }
  char why[ERGO_NAME_MAX + 64];
  snprintf(why, sizeof why, "pop of the region '%s'", S.f[i].name);
  close_above(i, why);
  int is_step = T.step[0] && strcmp(S.f[i].name, T.step) == 0;
  pop_top();
  if (is_step) ergo_step_info(++T.steps, NULL);
}

static void begin(int kind, int on, const char *name, uint64_t *kid) {
  uint64_t id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
  if (kid) *kid = id;
  if (T.active && on) push_frame(kind, T.level + 1, id, name);
}

static void end(int kind, int on, const char *what, uint64_t kid) {
  if (!T.active || !on) return;
  int i = S.n - 1;
  while (i >= 0 && !(S.f[i].kind == kind && S.f[i].id == kid)) i--;
  if (i < 0) {
    say("error",
        "%s(%llu): no %s with this id is open on this thread; ignored (fix: pass the id "
        "the matching begin wrote)",
        what, (unsigned long long)kid, kind_name[kind]);
    return;
  }
  char why[ERGO_NAME_MAX + 64];
  snprintf(why, sizeof why, "%s of '%s'", what, S.f[i].name);
  close_above(i, why);
  pop_top();
}

EXPORT void kokkosp_begin_parallel_for(const char *name, const uint32_t dev, uint64_t *kid) {
  (void)dev;
  begin(F_KERNEL, T.kernels, name, kid);
}
EXPORT void kokkosp_end_parallel_for(const uint64_t kid) {
  end(F_KERNEL, T.kernels, "kokkosp_end_parallel_for", kid);
}
EXPORT void kokkosp_begin_parallel_reduce(const char *name, const uint32_t dev, uint64_t *kid) {
  (void)dev;
  begin(F_KERNEL, T.kernels, name, kid);
}
EXPORT void kokkosp_end_parallel_reduce(const uint64_t kid) {
  end(F_KERNEL, T.kernels, "kokkosp_end_parallel_reduce", kid);
}
EXPORT void kokkosp_begin_parallel_scan(const char *name, const uint32_t dev, uint64_t *kid) {
  (void)dev;
  begin(F_KERNEL, T.kernels, name, kid);
}
EXPORT void kokkosp_end_parallel_scan(const uint64_t kid) {
  end(F_KERNEL, T.kernels, "kokkosp_end_parallel_scan", kid);
}
EXPORT void kokkosp_begin_fence(const char *name, const uint32_t dev, uint64_t *kid) {
  (void)dev;
  begin(F_FENCE, T.fences, name, kid);
}
EXPORT void kokkosp_end_fence(const uint64_t kid) {
  end(F_FENCE, T.fences, "kokkosp_end_fence", kid);
}

/* --kokkos-tools-help: what the tool does and its variables. */
EXPORT void kokkosp_print_help(char *exe) {
  printf("libergo-kokkos (ergo %s) for %s: Kokkos regions, kernels and sections become ergo "
         "regions and sections; ERGO_* variables configure ergo (see its README), and:\n"
         "  ERGO_KOKKOS_LEVEL=N    the level of Kokkos regions, 1 to 8 (2); kernels one deeper\n"
         "  ERGO_KOKKOS_KERNELS=0  kernels are not timed (1: leaf regions)\n"
         "  ERGO_KOKKOS_FENCES=1   fences are leaf regions too (0)\n"
         "  ERGO_KOKKOS_STEP=NAME  ergo_step after each pop of the Kokkos region NAME (none)\n",
         ERGO_VERSION_STRING, exe ? exe : "this program");
}

/* Kokkos section ids are ergo's section ids (both start at 1 here; Kokkos passes them back). */
EXPORT void kokkosp_create_profile_section(const char *name, uint32_t *sid) {
  unsigned id = 0;
  if (T.active) ergo_section_create(name, &id);
  if (sid) *sid = id;
}
EXPORT void kokkosp_start_profile_section(const uint32_t sid) {
  if (T.active) ergo_section_start(sid);
}
EXPORT void kokkosp_stop_profile_section(const uint32_t sid) {
  if (T.active) ergo_section_stop(sid);
}
EXPORT void kokkosp_destroy_profile_section(const uint32_t sid) {
  if (T.active) ergo_section_destroy(sid);
}
