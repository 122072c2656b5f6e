/* config_spec.c - the configuration spec: one row per ERGO_* variable (its ergo_config field,
 * parser, default, validator and help line), and the parsers and validators the rows point to.
 * Choices that other layers own (policies, energy meters, knobs, the objective, ERGO_FIXED,
 * ERGO_SWEEP) are checked by those layers' own parsers, so the configuration accepts exactly
 * what the layer that uses the value accepts. */
#include "runtime/config.h"

#include "energy/meter.h"
#include "knobs/table.h"
#include "optimizer/objective.h"
#include "optimizer/sweep.h"
#include "policies/policy.h"
#include "sim/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The enumerations are stored and parsed as int. */
_Static_assert(sizeof(ergo_on_error) == sizeof(int), "ergo_on_error is an int");
_Static_assert(sizeof(ergo_report_format) == sizeof(int), "ergo_report_format is an int");
_Static_assert(sizeof(ergo_clock_kind) == sizeof(int), "ergo_clock_kind is an int");

/* ---- helpers ---- */

/* "a|b|c" of an enumeration's or a choice's names. */
static const char *join(const ergo__config_row *r, const char *sep, const char *last, char *out,
                        size_t outlen) {
  size_t o = 0;
  int n = 0;
  if (r->names)
    while (r->names[n]) n++;
  else
    while (r->choice(n)) n++;
  out[0] = '\0';
  for (int i = 0; i < n && o < outlen; i++) {
    const char *name = r->names ? (r->cnames ? r->cnames[i] : r->names[i]) : r->choice(i);
    int k = snprintf(out + o, outlen - o, "%s%s", i == 0 ? "" : i == n - 1 ? last : sep, name);
    if (k < 0) break;
    o += (size_t)k;
  }
  return out;
}

/* A layer's parser says "<VAR>='<text>' is not valid<reason>": keep the reason, so the line can
 * name the variable or the field.  A line of another form becomes ": <line>". */
static int layer_reason(const ergo__config_row *r, const char *text, char *why, size_t whylen) {
  size_t lv = strlen(r->var), lt = strlen(text);
  static const char tail[] = "' is not valid";
  if (strncmp(why, r->var, lv) == 0 && strncmp(why + lv, "='", 2) == 0 &&
      strncmp(why + lv + 2, text, lt) == 0 &&
      strncmp(why + lv + 2 + lt, tail, sizeof tail - 1) == 0) {
    const char *reason = why + lv + 2 + lt + sizeof tail - 1;
    memmove(why, reason, strlen(reason) + 1);
  } else {
    char line[1024];
    snprintf(line, sizeof line, "%s", why);
    snprintf(why, whylen, ": %s", line);
  }
  return ERGO_EINVAL;
}

/* ---- integers: a range, optionally a word for -1 ("all") ---- */

static int parse_int(const ergo__config_row *r, const char *text, void *field, char *why,
                     size_t whylen) {
  if (r->all && strcmp(text, r->all) == 0) {
    *(int *)field = -1;
    return 0;
  }
  char *end;
  errno = 0;
  long x = strtol(text, &end, 10);
  if (errno || end == text || *end || x < r->lo || x > r->hi) {
    snprintf(why, whylen, ": expected %s%s%s%s", r->accept, r->all ? " or '" : "",
             r->all ? r->all : "", r->all ? "'" : "");
    return ERGO_EINVAL;
  }
  *(int *)field = (int)x;
  return 0;
}

static int check_int(const ergo__config_row *r, const void *field, char *why, size_t whylen) {
  int v = *(const int *)field;
  if ((r->all && v == -1) || (v >= r->lo && v <= r->hi)) return 0;
  snprintf(why, whylen, ": expected %s%s%s%s", r->accept, r->all ? " or -1 (" : "",
           r->all ? r->all : "", r->all ? ")" : "");
  return ERGO_EINVAL;
}

static void show_int(const ergo__config_row *r, const void *field, int as_c, char *out,
                     size_t outlen) {
  int v = *(const int *)field;
  if (!as_c && r->all && v == -1)
    snprintf(out, outlen, "%s", r->all);
  else
    snprintf(out, outlen, "%d", v);
}

/* ---- enumerations: one of names[], stored as its index ---- */

static int parse_enum(const ergo__config_row *r, const char *text, void *field, char *why,
                      size_t whylen) {
  for (int i = 0; r->names[i]; i++)
    if (strcmp(text, r->names[i]) == 0) {
      *(int *)field = i;
      return 0;
    }
  const ergo__config_row plain = {.names = r->names};
  char names[256];
  snprintf(why, whylen, ": expected %s", join(&plain, "|", "|", names, sizeof names));
  return ERGO_EINVAL;
}

static int check_enum(const ergo__config_row *r, const void *field, char *why, size_t whylen) {
  int v = *(const int *)field, n = 0;
  while (r->names[n]) n++;
  if (v >= 0 && v < n) return 0;
  char names[256];
  snprintf(why, whylen, ": expected %s", join(r, ", ", " or ", names, sizeof names));
  return ERGO_EINVAL;
}

static void show_enum(const ergo__config_row *r, const void *field, int as_c, char *out,
                      size_t outlen) {
  int v = *(const int *)field, n = 0;
  while (r->names[n]) n++;
  if (!as_c && v >= 0 && v < n)
    snprintf(out, outlen, "%s", r->names[v]);
  else
    snprintf(out, outlen, "%d", v);
}

/* ---- real numbers and the seed ---- */

static int parse_double(const ergo__config_row *r, const char *text, void *field, char *why,
                        size_t whylen) {
  char *end;
  double d = strtod(text, &end);
  if (end == text || *end || !(d >= r->lo && d <= r->hi)) { /* also NaN */
    snprintf(why, whylen, ": expected %s", r->accept);
    return ERGO_EINVAL;
  }
  *(double *)field = d;
  return 0;
}

static int check_double(const ergo__config_row *r, const void *field, char *why, size_t whylen) {
  double d = *(const double *)field;
  if (d >= r->lo && d <= r->hi) return 0;
  snprintf(why, whylen, ": expected %s", r->accept);
  return ERGO_EINVAL;
}

static void show_double(const ergo__config_row *r, const void *field, int as_c, char *out,
                        size_t outlen) {
  (void)r, (void)as_c;
  snprintf(out, outlen, "%g", *(const double *)field);
}

static int parse_u64(const ergo__config_row *r, const char *text, void *field, char *why,
                     size_t whylen) {
  char *end;
  errno = 0;
  unsigned long long u = strtoull(text, &end, 10);
  if (errno || end == text || *end || *text == '-') {
    snprintf(why, whylen, ": expected %s", r->accept);
    return ERGO_EINVAL;
  }
  *(unsigned long long *)field = u;
  return 0;
}

static int check_any(const ergo__config_row *r, const void *field, char *why, size_t whylen) {
  (void)r, (void)field, (void)why, (void)whylen;
  return 0;
}

static void show_u64(const ergo__config_row *r, const void *field, int as_c, char *out,
                     size_t outlen) {
  (void)r, (void)as_c;
  snprintf(out, outlen, "%llu", *(const unsigned long long *)field);
}

/* ---- strings: NULL means the row's default meaning; otherwise what its parser accepts ---- */

/* A string field holds what its parser accepts, or NULL. */
static int check_string(const ergo__config_row *r, const void *field, char *why, size_t whylen) {
  const char *s = *(const char *const *)field;
  const char *tmp = NULL;
  return s ? r->parse(r, s, &tmp, why, whylen) : 0;
}

static void show_string(const ergo__config_row *r, const void *field, int as_c, char *out,
                        size_t outlen) {
  const char *s = *(const char *const *)field;
  if (as_c && s)
    snprintf(out, outlen, "'%s'", s);
  else if (as_c)
    snprintf(out, outlen, "NULL");
  else
    snprintf(out, outlen, "%s", s ? s : r->unset ? r->unset : "(unset)");
}

/* One of the row's choices; the field then points at the chooser's own name (static storage). */
static int parse_choice(const ergo__config_row *r, const char *text, void *field, char *why,
                        size_t whylen) {
  for (int i = 0; r->choice(i); i++)
    if (strcmp(text, r->choice(i)) == 0) {
      *(const char **)field = r->choice(i);
      return 0;
    }
  char names[256];
  snprintf(why, whylen, ": expected %s", join(r, "|", "|", names, sizeof names));
  return ERGO_EINVAL;
}

/* A file path (or one of the words the row's accept names): anything but empty. */
int ergo__config_parse_path(const ergo__config_row *r, const char *text, void *field, char *why,
                            size_t whylen) {
  if (!*text) {
    snprintf(why, whylen, ": expected %s", r->accept ? r->accept : "a file path");
    return ERGO_EINVAL;
  }
  *(const char **)field = text;
  return 0;
}

/* ERGO_SIM_NODE: a file the sim node can be built from, read now, so a bad one is a bad setting
 * (one warning, the built-in node kept) and not an ergo_init that fails and leaves every later
 * call saying "call ergo_init() first". */
static int parse_sim_node(const ergo__config_row *r, const char *text, void *field, char *why,
                          size_t whylen) {
  const char *keep = NULL;
  if (ergo__config_parse_path(r, text, &keep, why, whylen)) return ERGO_EINVAL;
  ergo__sim_params p;
  char line[512];
  ergo__sim_params_default(&p);
  if (ergo__sim_params_load(&p, text, line, sizeof line) ||
      ergo__sim_params_check(&p, line, sizeof line)) {
    snprintf(why, whylen, ": %s", line);
    return ERGO_EINVAL;
  }
  *(const char **)field = keep;
  return 0;
}

static int parse_knobs(const ergo__config_row *r, const char *text, void *field, char *why,
                       size_t whylen) {
  char line[512];
  if (ergo__knob_list_check(text, line, sizeof line)) {
    snprintf(why, whylen, ": %s", line); /* "'x' is no knob: expected ..." */
    return ERGO_EINVAL;
  }
  (void)r;
  *(const char **)field = text;
  return 0;
}

static int parse_objective(const ergo__config_row *r, const char *text, void *field, char *why,
                           size_t whylen) {
  ergo__objective o;
  if (ergo__objective_parse(text, &o, why, whylen)) return layer_reason(r, text, why, whylen);
  *(const char **)field = text;
  return 0;
}

static int parse_fixed(const ergo__config_row *r, const char *text, void *field, char *why,
                       size_t whylen) {
  ergo__config c;
  if (!*text) {
    snprintf(why, whylen,
             ": expected e.g. \"cpu=1800000,uncore=2000000,threads=8\" (kHz, kHz, threads)");
    return ERGO_EINVAL;
  }
  /* The form only: whether this node has the knobs is the fixed policy's to say at start. */
  if (ergo__parse_fixed(text, NULL, &c, why, whylen)) return layer_reason(r, text, why, whylen);
  *(const char **)field = text;
  return 0;
}

static int parse_sweep(const ergo__config_row *r, const char *text, void *field, char *why,
                       size_t whylen) {
  ergo__sweep_spec *spec = malloc(sizeof *spec);
  if (!spec) {
    snprintf(why, whylen, ": cannot be checked (out of memory)");
    return ERGO_EINVAL;
  }
  int rc = ergo__sweep_parse(text, spec, why, whylen);
  free(spec);
  if (rc) return layer_reason(r, text, why, whylen);
  *(const char **)field = text;
  return 0;
}

/* ---- the choices other layers own ---- */

static const char *platform_choice(int i) {
  static const char *const p[] = {"real", "sim", "auto"};
  return i >= 0 && i < 3 ? p[i] : NULL;
}

static const char *const on_error_names[] = {"warn", "abort", NULL};
static const char *const on_error_cnames[] = {"ERGO_ON_ERROR_WARN", "ERGO_ON_ERROR_ABORT"};
static const char *const format_names[] = {"paper", "wide", NULL};
static const char *const format_cnames[] = {"ERGO_FORMAT_PAPER", "ERGO_FORMAT_WIDE"};
static const char *const clock_names[] = {"auto", "tsc", "monotonic", NULL};
static const char *const clock_cnames[] = {"ERGO_CLOCK_AUTO", "ERGO_CLOCK_TSC",
                                           "ERGO_CLOCK_MONOTONIC"};
static const char *const bool_names[] = {"0", "1", NULL};

/* ---- the spec ---- */

#define FIELD(f)                                                                                   \
  .name = #f, .offset = offsetof(ergo_config, f), .size = sizeof(((ergo_config *)0)->f)
#define INT(lo_, hi_, what)                                                                        \
  .parse = parse_int, .check = check_int, .show = show_int, .lo = (lo_), .hi = (hi_),              \
  .accept = (what)
#define LEVEL INT(0, 1000, "an integer from 0 to 1000")
#define ENUM(n, c)                                                                                 \
  .parse = parse_enum, .check = check_enum, .show = show_enum, .names = (n), .cnames = (c)
#define BOOL ENUM(bool_names, NULL)
#define REAL(lo_, hi_, what)                                                                       \
  .parse = parse_double, .check = check_double, .show = show_double, .lo = (lo_), .hi = (hi_),     \
  .accept = (what)
#define STRING(p) .parse = (p), .check = check_string, .show = show_string
#define PATH STRING(ergo__config_parse_path)
#define CHOICE(f) STRING(parse_choice), .choice = (f)
#define ELSEWHERE(file) .reader = (file)

const ergo__config_row ergo__config_spec[] = {
    /* Reports (core/) */
    {.var = "ERGO_REPORT_LEVEL",
     FIELD(report_level),
     LEVEL,
     .all = "all",
     .def = "all",
     .help = "deepest indent shown in text reports; deeper children become ..."},
    {.var = "ERGO_BALANCE_LEVEL",
     FIELD(balance_level),
     LEVEL,
     .def = "2",
     .help = "deepest indent that gets its own symbol in balance lines"},
    {.var = "ERGO_ON_ERROR",
     FIELD(on_error),
     ENUM(on_error_names, on_error_cnames),
     .def = "warn",
     .help = "after an error line: go on, or abort()"},
    {.var = "ERGO_REPORT_FORMAT",
     FIELD(format),
     ENUM(format_names, format_cnames),
     .def = "paper",
     .help = "wide adds calls, mean, min and max per region"},
    {.var = "ERGO_REPORT_THREADS",
     FIELD(report_threads),
     BOOL,
     .def = "0",
     .help = "also report other threads' trees"},
    {.var = "ERGO_CLOCK",
     FIELD(clock_kind),
     ENUM(clock_names, clock_cnames),
     .def = "auto",
     .help = "the built-in clock: auto uses the TSC when the kernel trusts it"},
    {.var = "ERGO_REPORT",
     FIELD(report),
     PATH,
     .accept = "stdout, stderr, none or a file path",
     .def = "stdout",
     .unset = "not written",
     .help = "where ergo_finalize writes the text report"},
    {.var = "ERGO_REPORT_JSON",
     FIELD(report_json),
     PATH,
     .unset = "not written",
     .help = "whole-tree JSON report at finalize"},
    {.var = "ERGO_REPORT_HATCHET",
     FIELD(report_hatchet),
     PATH,
     .unset = "not written",
     .help = "Hatchet literal JSON at finalize"},
    {.var = "ERGO_REPORT_CSV",
     FIELD(report_csv),
     PATH,
     .unset = "not written",
     .help = "flat CSV, one row per region, at finalize"},
    {.var = "ERGO_REPORT_STEPS",
     FIELD(step_report),
     PATH,
     .accept = "none or a file path",
     .def = "ergo-steps.txt",
     .unset = "not written",
     .help = "each ergo_step appends that step's text report"},
    {.var = "ERGO_BALANCE",
     FIELD(balance),
     PATH,
     .accept = "none or a file path",
     .def = "ergo-balance.txt",
     .unset = "not written",
     .help = "each ergo_step appends one balance line"},
    /* Energy (energy/) */
    {.var = "ERGO_ENERGY",
     FIELD(energy),
     CHOICE(ergo__meter_choice),
     .def = "auto",
     .unset = "auto",
     .help = "energy meter; auto tries the hardware meters in order"},
    {.var = "ERGO_ENERGY_LEVEL",
     FIELD(energy_level),
     LEVEL,
     .def = "2",
     .help = "regions pushed at this level or below get energy"},
    {.var = "ERGO_SAMPLE_MS",
     FIELD(sample_ms),
     INT(0, 3600000, "milliseconds from 0 (off) to 3600000"),
     .def = "100",
     .help = "background sampler period (0 = off); shortened to half a counter's wrap time"},
    {.var = "ERGO_ENERGY_MIN_US",
     ELSEWHERE("energy/region_energy.c"),
     .help = "shortest mean call (us) a region's energy is read for (default 10 times the "
             "meter's update interval, measured at start; 0 = every region)"},
    {.var = "ERGO_POWER_CSV",
     FIELD(power_csv),
     PATH,
     .unset = "not written",
     .help = "power per domain over time, one row per sample"},
    {.var = "ERGO_TRACE",
     FIELD(trace),
     PATH,
     .unset = "not written",
     .help = "Chrome trace with power counter events"},
    {.var = "ERGO_ESTIMATE_CORE_W",
     ELSEWHERE("energy/estimate.c"),
     .help = "watts per busy core for ERGO_ENERGY=estimate (default 10)"},
    /* Knobs (knobs/) */
    {.var = "ERGO_KNOBS",
     FIELD(knobs),
     STRING(parse_knobs),
     .def = "auto",
     .unset = "auto",
     .help = "knobs ergo may change: auto, none, or a comma list"},
    {.var = "ERGO_THREADS_MAX",
     FIELD(threads_max),
     INT(0, 4096, "a thread count from 1 to 4096 (0 is the count at ergo_init)"),
     .def = "0",
     .help = "the threads knob's ceiling; 0 = the thread count the application started with"},
    /* Platform (sim/) */
    {.var = "ERGO_PLATFORM",
     FIELD(platform),
     CHOICE(platform_choice),
     .def = "real",
     .unset = "real",
     .help = "the machine, or the sim node (auto: sim when no meter works)"},
    {.var = "ERGO_SIM_NODE",
     FIELD(sim_node),
     STRING(parse_sim_node),
     .unset = "the built-in node",
     .help = "JSON file overriding the sim node's parameters"},
    {.var = "ERGO_SIM_NOISE",
     FIELD(sim_noise),
     REAL(0, 1, "a log-normal sigma from 0 to 1 (0.05 is harsh)"),
     .def = "0",
     .help = "log-normal sigma on each execution's time and power"},
    {.var = "ERGO_SIM_SEED",
     FIELD(sim_seed),
     .parse = parse_u64,
     .check = check_any,
     .show = show_u64,
     .accept = "a non-negative integer",
     .def = "1",
     .help = "the noise seed"},
    /* Tuning (policies/, optimizer/) */
    {.var = "ERGO_POLICY",
     FIELD(policy),
     CHOICE(ergo__policy_name),
     .def = "monitor",
     .unset = "monitor",
     .help = "the tuning policy"},
    {.var = "ERGO_OBJECTIVE",
     FIELD(objective),
     STRING(parse_objective),
     .def = "energy@5%",
     .unset = "energy@5%",
     .help = "what tuning minimises"},
    {.var = "ERGO_MODEL",
     FIELD(model),
     PATH,
     .unset = "ergo-model.json",
     .help = "tuning model: static reads it, sweep and online write it"},
    {.var = "ERGO_FIXED",
     FIELD(fixed),
     STRING(parse_fixed),
     .help = "the fixed policy's setting: cpu=KHZ,uncore=KHZ,threads=N (any subset)"},
    {.var = "ERGO_SWEEP",
     FIELD(sweep),
     STRING(parse_sweep),
     .unset = "the default schedule",
     .help = "the sweep policy's grid"},
    {.var = "ERGO_MIN_REGION_MS",
     FIELD(min_region_ms),
     REAL(0, 3600000, "milliseconds from 0 to 3600000"),
     .def = "100",
     .help = "shorter regions inherit their parent's setting"},
    {.var = "ERGO_TUNE_PROGRESS",
     ELSEWHERE("policies/tuner.c"),
     .help = "seconds between sweep/online progress lines (default 10; 0 = off; step = every "
             "ergo_step)"},
    {.var = "ERGO_WORK",
     ELSEWHERE("runtime/pipeline.c"),
     .help = "the work counter each execution is divided by: auto (default: the sim node's "
             "modelled work; none on a real node), instructions (instructions retired, perf), "
             "none"},
    {.var = "ERGO_RETUNE",
     ELSEWHERE("policies/tuner.c"),
     .help = "sweep and online search again (static warns) when a region's time per unit of "
             "work changes at their choice (default on; off = never)"},
    {.var = "ERGO_TUNE_BUDGET",
     ELSEWHERE("policies/online.c"),
     .help = "online: the tuning run's own cost against the untuned run's over each region's "
             "first executions (default energy=1.0,time=1.10,horizon=200; off = no bound)"},
    {.var = "ERGO_SAVE_EVERY",
     ELSEWHERE("runtime/pipeline.c"),
     .help = "seconds between saves of the tuning model and JSON report during the run, at an "
             "ergo_step (default 60; 0 = only at finalize)"},
    /* The dashboard (runtime/introspect.c, libergo-dashboard) */
    {.var = "ERGO_DASHBOARD",
     ELSEWHERE("runtime/introspect.c"),
     .help = "HOST:PORT (port 0: a free one): serve the live dashboard there (rank 0 under MPI); "
             "the URL with its token is printed once"},
    {.var = "ERGO_DASHBOARD_CONTROL",
     ELSEWHERE("runtime/introspect.c"),
     .help = "0: the dashboard is read-only; 1 (default): its sliders change the running tuner"},
    {.var = "ERGO_DASHBOARD_STEP_MS",
     ELSEWHERE("runtime/introspect.c"),
     .help = "with the dashboard, each ergo_step lasts at least this many real milliseconds "
             "(default 0; to watch a sim-node run)"},
    /* MPI (mpi/) */
    {.var = "ERGO_REPORT_RANKS",
     FIELD(report_ranks),
     BOOL,
     .def = "0",
     .help = "also write every rank's own report files"},
    {.var = "ERGO_NODE_SPLIT",
     FIELD(node_split),
     INT(0, 4096, "pretend nodes per node from 1 to 4096 (0 is 1)"),
     .def = "1",
     .help = "split each node's ranks into this many pretend nodes (tests)"},
    {.var = "ERGO_MPI_AUTO",
     ELSEWHERE("mpi/pmpi.c"),
     .help = "with libergo-mpi-auto: ergo_init at MPI_Init, ergo_finalize at MPI_Finalize"},
    /* Forwarding to other tools (runtime/forward.c) */
    {.var = "ERGO_FORWARD",
     ELSEWHERE("runtime/forward.c"),
     .help = "comma list of nvtx and itt: regions also open and close ranges there (libraries "
             "loaded with dlopen at ergo_init; unset = nothing loaded)"},
    {.var = "ERGO_FORWARD_NVTX_LIB",
     ELSEWHERE("runtime/forward.c"),
     .help = "the NVTX library ERGO_FORWARD=nvtx loads (default libnvToolsExt.so.1)"},
    {.var = "ERGO_FORWARD_ITT_LIB",
     ELSEWHERE("runtime/forward.c"),
     .help = "the ITT library ERGO_FORWARD=itt loads (default $INTEL_LIBITTNOTIFY64, else "
             "libittnotify.so)"},
    /* The Kokkos tool (kokkos/ergo_kokkos.c, libergo-kokkos.so) */
    {.var = "ERGO_KOKKOS_LEVEL",
     ELSEWHERE("kokkos/ergo_kokkos.c"),
     .help = "the level of Kokkos profile regions, 1 to 8 (default 2); kernels one deeper"},
    {.var = "ERGO_KOKKOS_KERNELS",
     ELSEWHERE("kokkos/ergo_kokkos.c"),
     .help = "1 (default): Kokkos parallel_for/reduce/scan kernels are leaf regions; 0: not timed"},
    {.var = "ERGO_KOKKOS_FENCES",
     ELSEWHERE("kokkos/ergo_kokkos.c"),
     .help = "1: Kokkos fences are leaf regions too (default 0)"},
    {.var = "ERGO_KOKKOS_STEP",
     ELSEWHERE("kokkos/ergo_kokkos.c"),
     .help = "a Kokkos region's name: ergo_step is called after each of its pops (default none)"},
    /* Knob safety (knobs/) */
    {.var = "ERGO_STATE_DIR",
     ELSEWHERE("knobs/state.c"),
     .help = "where original knob values are saved before the first change"},
};
const int ergo__config_nspec = (int)(sizeof ergo__config_spec / sizeof *ergo__config_spec);
