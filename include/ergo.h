/* ergo.h - the public API of ergo: region timers, reports, checkpoints, hooks, energy, knobs and
 * tuning.  The sim node's API (ergo_sim_work, ergo_sim_oracle, ...) is in ergo_sim.h. */
#ifndef ERGO_H
#define ERGO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ERGO_VERSION_MAJOR 0
#define ERGO_VERSION_MINOR 2
#define ERGO_VERSION_PATCH 0
#define ERGO_VERSION_STRING "0.2.0"

#if defined(__GNUC__)
#define ERGO_EXPORT __attribute__((visibility("default")))
#else
#define ERGO_EXPORT
#endif

/* ------------------------------------------------------------------------ */
/* Errors: functions that can fail return 0 or a negative ERGO_E* code.     */
/* ------------------------------------------------------------------------ */
#define ERGO_ERRNO_MAP(X)                                                                          \
  X(INVAL, -1, "invalid argument or configuration value")                                          \
  X(NOMEM, -2, "out of memory")                                                                    \
  X(IO, -3, "input/output error")                                                                  \
  X(FORMAT, -4, "malformed or truncated file")                                                     \
  X(VERSION, -5, "unsupported file format or version")                                             \
  X(MISMATCH, -6, "file does not match this program's regions")                                    \
  X(STATE, -7, "call not valid in the current state")                                              \
  X(BUSY, -8, "resource in use or limit reached")                                                  \
  X(REGION, -9, "region stack error (underflow, mismatch, open region)")

typedef enum {
  ERGO_OK = 0,
#define ERGO__E(name, val, msg) ERGO_E##name = (val),
  ERGO_ERRNO_MAP(ERGO__E)
#undef ERGO__E
} ergo_errno;

/* A static English description of an ERGO_E* code (never NULL). */
ERGO_EXPORT const char *ergo_strerror(int err);

/* ------------------------------------------------------------------------ */
/* Configuration                                                            */
/* ------------------------------------------------------------------------ */

/* A user clock: nanoseconds from an arbitrary, steady origin. */
typedef uint64_t (*ergo_clock_fn)(void *ctx);

typedef enum {
  ERGO_ON_ERROR_WARN = 0, /* print one line to stderr, recover, go on */
  ERGO_ON_ERROR_ABORT = 1 /* print one line to stderr, then abort() on an error (not a warning) */
} ergo_on_error;

typedef enum {
  ERGO_FORMAT_PAPER = 0, /* SPACE-Timers layout: "- * NAME : T sec, P%" */
  ERGO_FORMAT_WIDE = 1   /* paper layout plus calls, mean, min, max */
} ergo_report_format;

typedef enum {
  ERGO_CLOCK_AUTO = 0,     /* the TSC when the kernel trusts it, else CLOCK_MONOTONIC */
  ERGO_CLOCK_TSC = 1,      /* the TSC (rdtsc), calibrated at ergo_init */
  ERGO_CLOCK_MONOTONIC = 2 /* clock_gettime(CLOCK_MONOTONIC) */
} ergo_clock_kind;

/* Settings for ergo_init().  ergo_config_default() fills the documented
 * defaults; ergo_config_from_env() overlays the ERGO_* environment variables.
 * Strings are copied by ergo_init(); NULL paths mean "not written", and a
 * NULL choice (energy, knobs, platform, policy, objective) means its default.
 *
 * Versioning: `size` is sizeof(ergo_config) as the caller was compiled, set
 * by ergo_config_default().  Fields are only ever added at the end, so a
 * program built against an older ergo.h keeps working with a newer library
 * (the fields it does not know take their defaults), and ergo_init() rejects
 * a size it does not know (0: the struct did not come from
 * ergo_config_default()) with one line saying so.  Always start from
 * ergo_config_default(); never build an ergo_config field by field. */
typedef struct ergo_config {
  size_t size;                /* set by ergo_config_default(); do not change */
  int report_level;           /* ERGO_REPORT_LEVEL: deepest indent shown; -1 = all (default) */
  int balance_level;          /* ERGO_BALANCE_LEVEL: deepest indent in balance lines (default 2) */
  ergo_on_error on_error;     /* ERGO_ON_ERROR=warn|abort (default warn) */
  ergo_report_format format;  /* ERGO_REPORT_FORMAT=paper|wide (default paper) */
  int report_threads;         /* ERGO_REPORT_THREADS=0|1: add other threads' trees */
  const char *report;         /* ERGO_REPORT: stdout (default), stderr, none, or a path */
  const char *report_json;    /* ERGO_REPORT_JSON: path of the JSON report */
  const char *report_hatchet; /* ERGO_REPORT_HATCHET: path of Hatchet literal JSON */
  const char *report_csv;     /* ERGO_REPORT_CSV: path of the flat CSV */
  const char *step_report;    /* ERGO_REPORT_STEPS: step reports (default ergo-steps.txt) */
  const char *balance;        /* ERGO_BALANCE: balance file (default ergo-balance.txt) */
  ergo_clock_fn clock;        /* NULL = built-in clock (ERGO_CLOCK=auto|tsc|monotonic) */
  void *clock_ctx;
  ergo_clock_kind clock_kind; /* ERGO_CLOCK: the built-in clock (ignored when clock set) */
  /* Energy (energy/): */
  const char *energy;    /* ERGO_ENERGY=auto|powercap|perf|papi|estimate|none (default auto) */
  int energy_level;      /* ERGO_ENERGY_LEVEL: regions at or below this level get energy (2) */
  int sample_ms;         /* ERGO_SAMPLE_MS: background sampler period, 0 = off (default 100) */
  const char *power_csv; /* ERGO_POWER_CSV: power timeline CSV path (default not written) */
  const char *trace;     /* ERGO_TRACE: Chrome trace JSON with power counters (not written) */
  /* Knobs (knobs/): */
  const char *knobs; /* ERGO_KNOBS=auto|none|comma list of cpufreq,uncore,threads (default auto) */
  /* Platform: the real machine, or the sim node (sim/): */
  const char *platform; /* ERGO_PLATFORM=real|sim|auto: auto = sim when no energy meter works */
  const char *sim_node; /* ERGO_SIM_NODE: JSON file overriding the sim node's parameters */
  double sim_noise;     /* ERGO_SIM_NOISE: log-normal sigma on time and power, 0..1 (0) */
  unsigned long long sim_seed; /* ERGO_SIM_SEED: the noise seed (1) */
  /* Tuning (policies/): */
  const char *policy;    /* ERGO_POLICY=monitor|fixed|static|sweep|online (default monitor) */
  const char *objective; /* ERGO_OBJECTIVE: energy|time|edp|ed2p|weighted[:t=,e=,r=]|energy@N% */
  const char *model;     /* ERGO_MODEL: tuning model file (static reads, sweep/online write) */
  const char *fixed;     /* ERGO_FIXED="cpu=1800000,uncore=2000000,threads=8" (fixed) */
  const char *sweep;     /* ERGO_SWEEP: explicit sweep grid (see README) */
  double min_region_ms;  /* ERGO_MIN_REGION_MS: shorter regions inherit their parent's (100) */
  /* MPI (when ergo is built with it and MPI is initialised before ergo_init): */
  int report_ranks; /* ERGO_REPORT_RANKS=0|1: also write every rank's own files (0) */
  int node_split;   /* ERGO_NODE_SPLIT: pretend nodes per real node, for tests (1; 0 = 1) */
  /* Knobs, added later: */
  int threads_max; /* ERGO_THREADS_MAX: the threads knob's ceiling; 0 (default) = the count the
                    * application started with (omp_get_max_threads() at ergo_init) */
  /* New fields go here, at the end (see Versioning above). */
} ergo_config;

/* Fill the first `size` bytes of *cfg with the defaults above and set
 * cfg->size = size.  C callers write ergo_config_default(&cfg), a macro that
 * passes the size this header gives ergo_config, so a library newer than the
 * header never writes past the caller's struct. */
ERGO_EXPORT void ergo_config_default_size(ergo_config *cfg, size_t size);
/* The same with this library's sizeof(ergo_config): the function behind the
 * macro's name, for bindings that mirror this header's struct. */
ERGO_EXPORT void ergo_config_default(ergo_config *cfg);
#define ergo_config_default(cfg) ergo_config_default_size((cfg), sizeof *(cfg))

/* Overlay ERGO_* environment variables on *cfg (only the fields within
 * cfg->size).  A bad value prints one line naming the variable, the value and
 * what is accepted, keeps the previous field value and returns ERGO_EINVAL
 * (after reading every variable).  The first call in a process also warns,
 * once per name, about ERGO_* variables ergo does not know, suggesting the
 * nearest known name (they change nothing and are not errors). */
ERGO_EXPORT int ergo_config_from_env(ergo_config *cfg);

/* Start ergo.  cfg == NULL means defaults plus the environment, where a bad
 * value is reported and replaced by its default (or aborts when
 * ERGO_ON_ERROR=abort).  With a cfg, every field is checked: a bad one (or an
 * unknown cfg->size) prints one line naming the field (ergo_config.policy),
 * its value and what is accepted, returns ERGO_EINVAL and starts nothing.
 * The calling thread becomes the main thread whose tree is the main report.
 * Returns ERGO_ESTATE if already initialised. */
ERGO_EXPORT int ergo_init(const ergo_config *cfg);

/* Close regions still open (with an error line each), run finalize hooks,
 * write the configured reports and free everything.  Safe to call twice and
 * before ergo_init (then it does nothing). Returns the first write error. */
ERGO_EXPORT int ergo_finalize(void);

/* 1 between a successful ergo_init() and ergo_finalize(), else 0. */
ERGO_EXPORT int ergo_initialized(void);

/* ------------------------------------------------------------------------ */
/* Regions                                                                  */
/* ------------------------------------------------------------------------ */

/* Longest region name kept, in bytes; longer names are cut between two UTF-8 characters, and a
 * byte that is not UTF-8 is kept as the text \xHH; each with an error line, once per name. */
#define ERGO_NAME_MAX 127

/* Function forms of the macros (always compiled; file/line name the caller
 * in error messages and may be NULL/0).  Names are compared by content, so
 * a name built at run time in a reused buffer is fine. */
ERGO_EXPORT void ergo_push_at(int level, const char *name, const char *file, int line);
ERGO_EXPORT void ergo_pop_at(int level, const char *name, const char *file, int line);
ERGO_EXPORT void ergo_poppush_at(int level, const char *old_name, const char *new_name,
                                 const char *file, int line);
/* The same for names whose storage and content never change (string
 * literals): found by pointer, no string compare.  The macros pick these
 * when the compiler sees a literal. */
ERGO_EXPORT void ergo_push_lit(int level, const char *name, const char *file, int line);
ERGO_EXPORT void ergo_pop_lit(int level, const char *name, const char *file, int line);
ERGO_EXPORT void ergo_poppush_lit(int level, const char *old_name, const char *new_name,
                                  const char *file, int line);
#define ergo_push(level, name) ergo_push_at((level), (name), __FILE__, __LINE__)
#define ergo_pop(level, name) ergo_pop_at((level), (name), __FILE__, __LINE__)
#define ergo_poppush(level, o, n) ergo_poppush_at((level), (o), (n), __FILE__, __LINE__)

/* Compile-time level: a macro whose level is above ERGO_LEVEL compiles to
 * nothing (no call, no string).  Define ERGO_DISABLE to build without ergo
 * at all (every ERGO_* macro becomes a no-op and nothing needs linking). */
#ifndef ERGO_LEVEL
#define ERGO_LEVEL 9
#endif

#ifdef ERGO_DISABLE
/* sizeof evaluates nothing and emits no string, yet counts as a use. */
#define ERGO_PUSH(level, name) ((void)sizeof(level), (void)sizeof(name))
#define ERGO_POP(level, name) ((void)sizeof(level), (void)sizeof(name))
#define ERGO_POPPUSH(level, old_name, new_name)                                                    \
  ((void)sizeof(level), (void)sizeof(old_name), (void)sizeof(new_name))
/* A call, not a constant: `ERGO_INIT();` as a statement gives no -Wunused-value (C or C++),
 * `rc = ERGO_INIT();` still gives 0. */
static inline int ergo__disabled_ok(void) { return 0; }
#define ERGO_INIT() ergo__disabled_ok()
#define ERGO_FINALIZE() ergo__disabled_ok()
#define ERGO_STEP(step) ((void)sizeof(step))
#else
#if defined(__GNUC__) || defined(__clang__)
#define ERGO__LIT(s) __builtin_constant_p(s)
#else
#define ERGO__LIT(s) 0
#endif
#define ERGO_PUSH(level, name)                                                                     \
  do {                                                                                             \
    if ((level) <= ERGO_LEVEL) {                                                                   \
      if (ERGO__LIT(name))                                                                         \
        ergo_push_lit((level), (name), __FILE__, __LINE__);                                        \
      else                                                                                         \
        ergo_push_at((level), (name), __FILE__, __LINE__);                                         \
    }                                                                                              \
  } while (0)
#define ERGO_POP(level, name)                                                                      \
  do {                                                                                             \
    if ((level) <= ERGO_LEVEL) {                                                                   \
      if (ERGO__LIT(name))                                                                         \
        ergo_pop_lit((level), (name), __FILE__, __LINE__);                                         \
      else                                                                                         \
        ergo_pop_at((level), (name), __FILE__, __LINE__);                                          \
    }                                                                                              \
  } while (0)
#define ERGO_POPPUSH(level, old_name, new_name)                                                    \
  do {                                                                                             \
    if ((level) <= ERGO_LEVEL) {                                                                   \
      if (ERGO__LIT(old_name) && ERGO__LIT(new_name))                                              \
        ergo_poppush_lit((level), (old_name), (new_name), __FILE__, __LINE__);                     \
      else                                                                                         \
        ergo_poppush_at((level), (old_name), (new_name), __FILE__, __LINE__);                      \
    }                                                                                              \
  } while (0)
#define ERGO_INIT() ergo_init(NULL)
#define ERGO_FINALIZE() ergo_finalize()
#define ERGO_STEP(step) ((void)ergo_step(step))
#endif

/* Number of "ergo: error:" lines since ergo_init (for tests and tools): region
 * errors, and failures that lose something (a report, checkpoint or model not
 * written, a checkpoint not loaded, a knob not restored).  Only errors abort
 * under ERGO_ON_ERROR=abort. */
ERGO_EXPORT unsigned long ergo_error_count(void);
/* Number of "ergo: warning:" lines since ergo_init: something refused, ignored
 * or replaced by its default (a bad ERGO_* value, a call before ergo_init)
 * while the run goes on unharmed.  Not counted by ergo_error_count(). */
ERGO_EXPORT unsigned long ergo_warning_count(void);
/* The last error or warning line (without the "ergo: error: " prefix and the
 * newline), or "" if none; valid until the next error or warning. */
ERGO_EXPORT const char *ergo_last_error(void);

/* ------------------------------------------------------------------------ */
/* Sections: named timers that may overlap, started and stopped in any order */
/* ------------------------------------------------------------------------ */
/* A section times a phase that is not a region (it has no place in the tree, so sections may
 * overlap partly; a Kokkos profiling section or a user timer).  The reports list every section
 * in their own table beside the tree: time, calls, and energy where a meter measures (read at
 * each interval's start and stop on the thread that called ergo_init; an interval started or
 * stopped on another thread is timed only, and the energy is then a lower bound).  Under MPI the
 * merged report merges sections by name over the ranks.  Thread-safe; sections are coarse (one
 * mutex).  All four return 0 or a negative ERGO_E* code after one error line.
 * create: *id for `name` (truncated to ERGO_NAME_MAX); the same name gives the same id, and
 *   revives the section if it was destroyed (its figures go on).  Needs ergo_init.
 * start/stop: a section started again while running counts the call, and its time runs from the
 *   first start to the matching last stop (overlapping starts are not counted twice).  An
 *   unknown or destroyed id is ERGO_EINVAL; a stop without a start is ERGO_ESTATE and ignored.
 * destroy: ends a running interval (its time is kept) and keeps the figures for the report.
 * Sections are forgotten at ergo_finalize, after the reports. */
ERGO_EXPORT int ergo_section_create(const char *name, unsigned *id);
ERGO_EXPORT int ergo_section_start(unsigned id);
ERGO_EXPORT int ergo_section_stop(unsigned id);
ERGO_EXPORT int ergo_section_destroy(unsigned id);

/* ------------------------------------------------------------------------ */
/* Work: how much an execution did, so tuning compares like with like      */
/* ------------------------------------------------------------------------ */
/* Inside a region: this execution did `units` of work (cells updated, particles moved, any unit
 * the code keeps the same for the region; several calls add up, a child region's calls count in
 * the child and, when the child is not tuned on its own, in the parent too).  The tuner then
 * compares configurations on time and energy per unit of work, so executions of different sizes
 * (work that grows, a region called at several sizes) are not taken for configuration effects.
 * Without it the tuner uses the platform's work counter where there is one (the sim node's
 * modelled work).  A negative, NaN or infinite value, or a call outside every region, is one
 * warning and ignored.  Costs a thread-local add; for the main thread's regions (those tuned). */
ERGO_EXPORT void ergo_region_work(double units);

/* ------------------------------------------------------------------------ */
/* Reports                                                                  */
/* ------------------------------------------------------------------------ */

/* Write the main thread's text report (paper or wide format per config;
 * plus other threads' trees when report_threads is set) to `out`, then
 * flush it.  out == NULL means stdout. */
ERGO_EXPORT int ergo_report_fprint(FILE *out);
/* The same into a malloc'd string (caller frees); NULL on failure. */
ERGO_EXPORT char *ergo_report_string(void);
/* Whole-tree JSON report (jansson), Hatchet "literal" JSON, flat CSV.
 * Files are written atomically (temp file + rename). */
ERGO_EXPORT int ergo_report_json(const char *path);
ERGO_EXPORT int ergo_report_hatchet(const char *path);
ERGO_EXPORT int ergo_report_csv(const char *path);

/* Close step `step`: append that step's report (time since the previous
 * step) to the step report file and one balance line to the balance file.
 * `info`, if not NULL, is appended to the step header line.  Step numbers
 * count up (from 0 or 1, gaps allowed); a repeated, decreasing or negative
 * one is still written, with one warning per kind and run. */
ERGO_EXPORT int ergo_step_info(long step, const char *info);
/* ergo_step_info(step, NULL).  A real function of libergo (for Fortran's
 * bind(C) and other FFIs, dlsym, a function pointer, or `(ergo_step)(n)`);
 * C callers get the macro below, which only saves that one call. */
ERGO_EXPORT int ergo_step(long step);
#define ergo_step(step) ergo_step_info((step), NULL)

/* ------------------------------------------------------------------------ */
/* Checkpoint                                                               */
/* ------------------------------------------------------------------------ */

/* Save the main tree with its figures (versioned JSON, written atomically):
 * time, calls, min/max per call and every attached quantity's amounts.
 * ERGO_EBUSY: the tree is nested deeper than a load can read (nothing written).
 * In an MPI job (ergo built with MPI, several ranks) every rank saves its own
 * tree to <name>.rankN ("ck.json" -> "ck.rank3.json"), and load reads the
 * same name, so a restart with the same ranks continues every rank's tree. */
ERGO_EXPORT int ergo_checkpoint_save(const char *path);
/* Add a saved tree's figures to the live tree so a restarted run continues
 * accumulating, quantities by name (one warning for any this run cannot add).
 * A malformed, truncated or mismatched file returns an error with one line
 * saying why, and the live tree is untouched. */
ERGO_EXPORT int ergo_checkpoint_load(const char *path);

/* ------------------------------------------------------------------------ */
/* Hooks: how energy, tuning and external tools attach (empty by default).   */
/* ------------------------------------------------------------------------ */

/* A node of a thread's region tree; valid until ergo_finalize(). */
typedef struct ergo_region ergo_region;

#define ERGO_MAX_HOOKS 4

typedef struct ergo_hooks {
  /* Called at push, before the region's clock starts. */
  void (*enter)(void *ctx, ergo_region *region, int level);
  /* Called at pop, after the region's clock stopped; elapsed_ns is this call's time. */
  void (*exit)(void *ctx, ergo_region *region, int level, uint64_t elapsed_ns);
  /* Called once by ergo_finalize() before reports are written. */
  void (*finalize)(void *ctx);
  void *ctx;
  /* Called by ergo_step() after the step's files, on the calling thread (may be NULL). */
  void (*step)(void *ctx, long step);
} ergo_hooks;

/* Attach a hook table (copied); *slot receives its index for ergo_region_slot().
 * Enter hooks run in order of attachment, exit hooks in reverse order, so the
 * first attached wraps the others.
 * Returns ERGO_EBUSY when ERGO_MAX_HOOKS are attached. */
ERGO_EXPORT int ergo_hooks_attach(const ergo_hooks *hooks, int *slot);
ERGO_EXPORT int ergo_hooks_detach(int slot);

ERGO_EXPORT const char *ergo_region_name(const ergo_region *r);
ERGO_EXPORT ergo_region *ergo_region_parent(const ergo_region *r);
ERGO_EXPORT int ergo_region_level(const ergo_region *r);
/* Depth below the tree root "Global" (its children are depth 1). */
ERGO_EXPORT int ergo_region_depth(const ergo_region *r);
/* A pointer-sized slot per region for the hook attached at `slot` (NULL: no memory for it). */
ERGO_EXPORT void **ergo_region_slot(ergo_region *r, int slot);

/* The thread tree a region belongs to: 0 = the main (initialising) thread. */
ERGO_EXPORT int ergo_region_thread(const ergo_region *r);

/* ergo's own cost so far on the main thread: real seconds spent in attached hooks (knob switches
 * and energy readings included; real time even when regions run on a user or virtual clock) and
 * the hook calls.  Either pointer may be NULL.  0, or ERGO_ESTATE before ergo_init. */
ERGO_EXPORT int ergo_overhead(double *seconds, uint64_t *hook_calls);

/* ------------------------------------------------------------------------ */
/* Live introspection: what the running job has measured and where its      */
/* tuning stands, as a consistent copy any thread may read (the dashboard).  */
/* ------------------------------------------------------------------------ */
/* A copy published by the main thread at each ergo_step (the hot path takes no lock and copies
 * nothing): immutable, shared, kept alive by its references.  Published when ERGO_DASHBOARD is
 * set, or after ergo_snapshot_enable(). */
typedef struct ergo_snapshot ergo_snapshot;

#define ERGO_SNAPSHOT_KNOBS 4 /* settings below: values in the order of ergo_snapshot_knob() */

typedef struct ergo_snapshot_region {
  const char *path; /* "Global/Timestep/FIND_HSML", as in the JSON report */
  int depth;        /* Global: 0 */
  uint64_t calls;
  double time_s, energy_j, power_w; /* totals so far; energy_j < 0: not measured (power 0) */
  int tuned;                        /* the tuner tunes it (significant) */
  uint64_t executions;              /* executions the tuner has seen */
  int has_setting, has_best;
  int64_t setting[ERGO_SNAPSHOT_KNOBS]; /* the setting its last tuned execution ran under */
  int64_t best[ERGO_SNAPSHOT_KNOBS];    /* the policy's best so far (online) */
  int evals, budget, done; /* tuning progress: measurements used of its budget; search over */
  double confidence;       /* the confidence level with which best beats the baseline; 0: not */
} ergo_snapshot_region;

typedef struct ergo_snapshot_point {
  long step;
  double at_s;                      /* run time at the step's end */
  double time_s, energy_j, power_w; /* the step's; energy_j < 0: not measured */
} ergo_snapshot_point;

typedef struct ergo_snapshot_node {
  int node, ranks;                   /* under MPI; a serial run is node 0 with one rank */
  double step_time_s, step_energy_j; /* its last step: the slowest rank's time, the node's energy */
  double energy_j, power_w;          /* totals so far; energy_j < 0: not measured */
} ergo_snapshot_node;

typedef struct ergo_snapshot_rank {
  int rank, node;                    /* under MPI; a serial run is rank 0 on node 0 */
  double step_time_s, step_energy_j; /* its last step; energy < 0: this rank read none */
  double energy_j;                   /* its total so far (< 0: none) */
} ergo_snapshot_rank;

/* Publish snapshots from the next ergo_step on (main thread, after ergo_init); ERGO_DASHBOARD
 * does it at ergo_init.  0, or ERGO_ESTATE before ergo_init. */
ERGO_EXPORT int ergo_snapshot_enable(void);
/* The latest snapshot, with a reference (any thread; never blocks on the application), or NULL
 * when none was published yet.  Give it back with ergo_snapshot_release. */
ERGO_EXPORT const ergo_snapshot *ergo_snapshot_acquire(void);
ERGO_EXPORT void ergo_snapshot_release(const ergo_snapshot *s);
/* Its step (ergo_step's argument) and run time; its regions (pre-order, Global first), power
 * timeline (one point per step, the last ones), node and rank summaries (under MPI gathered to
 * rank 0 at each step; elsewhere empty); arrays live as long as s. */
ERGO_EXPORT long ergo_snapshot_step(const ergo_snapshot *s, double *run_s);
ERGO_EXPORT size_t ergo_snapshot_regions(const ergo_snapshot *s, const ergo_snapshot_region **out);
ERGO_EXPORT size_t ergo_snapshot_timeline(const ergo_snapshot *s, const ergo_snapshot_point **out);
ERGO_EXPORT size_t ergo_snapshot_nodes(const ergo_snapshot *s, const ergo_snapshot_node **out);
ERGO_EXPORT size_t ergo_snapshot_ranks(const ergo_snapshot *s, const ergo_snapshot_rank **out);
/* The i-th knob's name ("cpu_khz", as the tuning model names it), NULL past the last. */
ERGO_EXPORT const char *ergo_snapshot_knob(int i);
/* s as JSON (malloc'd, the caller frees; NULL on no memory): part "state" (step, totals, policy,
 * objective, knobs), "regions", "timeline" (with each tracked region's setting per step), "nodes",
 * "ranks", or "all" (every part). */
ERGO_EXPORT char *ergo_snapshot_json(const ergo_snapshot *s, const char *part);
/* Ask the running tuner for another policy and/or objective (either may be NULL: unchanged),
 * from any thread: checked now, applied at the next ergo_step on the main thread, where the
 * tuner re-evaluates what it measured under the new objective and goes on.  0, or ERGO_EINVAL /
 * ERGO_ESTATE with one line in why. */
ERGO_EXPORT int ergo_snapshot_control(const char *policy, const char *objective, char *why,
                                      size_t whylen);

/* ------------------------------------------------------------------------ */
/* Quantities: additive per-region figures (energy per domain, counters)    */
/* that a hook measures and every report shows beside time.                 */
/* ------------------------------------------------------------------------ */
#define ERGO_MAX_QUANTITIES 2
#define ERGO_MAX_COMPONENTS 16

#define ERGO_QUANTITY_UNRESOLVED (-2)
typedef struct ergo_quantity {
  const char *name;      /* "energy" */
  const char *unit;      /* "J" */
  const char *rate_unit; /* unit of the amount per second ("W"), or NULL for no rate */
  const char *label;     /* said beside every figure ("ESTIMATE", "SIMULATED"), or NULL */
  int ncomponents;       /* 1..ERGO_MAX_COMPONENTS */
  const char *components[ERGO_MAX_COMPONENTS]; /* "package-0", "dram-0", ... */
  unsigned total_mask; /* components summed into the total (bit i = component i) */
  /* Optional: called once before a report reads values (take one fresh reading). */
  void (*begin)(void *ctx);
  /* The region's cumulative amount per component, including an open call so
   * far.  Returns 0; 1 when the amount is only a lower bound (an energy counter
   * may have wrapped unseen): reports then mark it (">=" in text, "lower_bound":
   * true in JSON); or -1 when the region is not measured (then "-"); or
   * ERGO_QUANTITY_UNRESOLVED when its calls are too short for the meter to
   * tell (then "-", and "unmeasured": "below meter resolution" in JSON). */
  int (*value)(void *ctx, const ergo_region *r, double *out);
  /* Optional: extra lines after the text report (meter, samples, overhead), written to `out`. */
  void (*footer)(void *ctx, FILE *out);
  void *ctx;
} ergo_quantity;

/* Attach a quantity (copied; its strings must outlive it).  *id receives its
 * index.  ERGO_EBUSY when ERGO_MAX_QUANTITIES are attached. */
ERGO_EXPORT int ergo_quantity_attach(const ergo_quantity *q, int *id);
ERGO_EXPORT int ergo_quantity_detach(int id);

/* ------------------------------------------------------------------------ */
/* Energy                                                                   */
/* ------------------------------------------------------------------------ */

/* Every energy source ergo knows, as a JSON document (malloc'd, caller
 * frees; NULL on failure): {"sources":[{"name":"powercap","available":true,
 * "domains":[{"name":"package-0","max_range_j":262143.3,...}]} or
 * {"name":"perf","available":false,"reason":"..."}, ...]}.  Works without
 * ergo_init; `ergo info` prints it. */
ERGO_EXPORT char *ergo_energy_info_json(void);

/* ------------------------------------------------------------------------ */
/* Knobs: core frequency, uncore frequency, OpenMP threads                  */
/* ------------------------------------------------------------------------ */

/* A configuration: 0 in a field means "inherit" (keep what the enclosing
 * setting, or the machine, has). */
typedef struct ergo_setting {
  long core_khz;   /* core frequency of this process's CPUs (cpufreq) */
  long uncore_khz; /* uncore frequency of this process's packages */
  int threads;     /* OpenMP threads of the main thread's next parallel regions */
} ergo_setting;

/* Put a setting in force on top of the current one: only the fields it sets
 * change, and only knobs whose value differs are written (no system call
 * otherwise).  The original values are saved to a state file before the
 * first change and come back at ergo_finalize, at exit, on fatal signals,
 * and by `ergo restore` after kill -9.  A value the knob does not allow, or
 * a knob this machine lacks, is one error line and nothing is written
 * (ERGO_EINVAL / ERGO_EIO).  Call from the thread that called ergo_init: a push or pop from
 * any other thread is refused with one error line (ERGO_ESTATE) and changes nothing. */
ERGO_EXPORT int ergo_setting_push(const ergo_setting *s);
/* Go back to the setting in force before the matching push. */
ERGO_EXPORT int ergo_setting_pop(void);
/* The values in force now (0 for a knob this machine does not have). */
ERGO_EXPORT int ergo_setting_current(ergo_setting *out);

/* Every knob ergo knows, as a JSON document (malloc'd, caller frees):
 * {"knobs":[{"name":"cpufreq","available":true,"unit":"kHz","values":[...],
 * "current":N}, {"name":"uncore","available":false,"reason":"..."}, ...]}.
 * Works without ergo_init; `ergo info` prints it. */
ERGO_EXPORT char *ergo_knobs_info_json(void);

/* `ergo restore`: put back what processes that died without cleaning up
 * (kill -9) left changed.  Reads the state files in $ERGO_STATE_DIR, else
 * /run/ergo (root), else /tmp/ergo-UID; skips those whose process still runs;
 * pid > 0 restricts to that process (refused while it runs).  With dry_run
 * only says what would be written.  One line per file to stdout; failures and
 * refusals to stderr, after "ergo restore: ".  Never creates the state
 * directory (a missing one: nothing to restore).  Returns the number of
 * failures (0: all restored, or nothing to do), ERGO_EINVAL for a negative
 * pid. */
ERGO_EXPORT int ergo_restore(long pid, int dry_run);

/* ------------------------------------------------------------------------ */
/* Clock                                                                    */
/* ------------------------------------------------------------------------ */

/* Nanoseconds on ergo's clock (the same clock regions are timed with). */
ERGO_EXPORT uint64_t ergo_now_ns(void);
/* Name of the active clock: "tsc", "monotonic" or "user". */
ERGO_EXPORT const char *ergo_clock_name(void);

#ifdef __cplusplus
}
#endif
#endif /* ERGO_H */
