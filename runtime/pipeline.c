/* pipeline.c - the region pipeline: the one hook through which the runtime wires the layers.
 *
 *   enter: policy chooses -> knobs apply (the tuner) -> meter samples (energy)
 *   exit:  meter samples (its energy fitted to the call's timed interval, which the core gives)
 *          -> measurement formed once -> policy observes -> knobs restore
 *   step:  the tuner's node sync, then (ERGO_SAVE_EVERY) the model and JSON report so far;
 *          finalize: the tuner finishes (model), then the meter's last
 *          reading and the sampler stop, before the core writes its reports.
 *
 * Knobs switch outside the energy readings, so a region's energy is measured under its own
 * setting; the tuner is handed the measurement rather than reading it back from the energy
 * layer, so no order of attachment can make it read a stale value. */
#include "runtime/pipeline.h"

#include "core/internal.h"
#include "energy/energy.h"
#include "energy/work_counter.h"
#include "ergo.h"
#include "knobs/table.h"
#include "policies/tuner.h"
#include "sim/node.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ERGO_SAVE_EVERY: seconds between saves of what the run learnt and measured so far (the tuning
 * model of sweep and online, the JSON report), at the first ergo_step after that long; 0 = only at
 * finalize.  Saves are made at ergo_step only: a signal handler may not build JSON, so a killed
 * run loses what came after its last save. */
#define SAVE_VAR "ERGO_SAVE_EVERY"
#define SAVE_DEFAULT_S 60.0

/* ERGO_WORK: the platform's work counter the tuner divides each execution by.  auto (the default):
 * the sim node's modelled work on the sim node, none on a real node; instructions: instructions
 * retired (energy/work_counter.c) on a real node; none: no counter, on the sim node too (work is
 * then measured only by ergo_region_work). */
#define WORK_VAR "ERGO_WORK"
enum { WORK_AUTO, WORK_NONE, WORK_INSTRUCTIONS };

/* Each layer's per-region state, in the pipeline's one region slot. */
typedef struct record {
  void *tuner, *energy;
  struct record *next; /* every record, for freeing */
} record;

static struct {
  int attached, slot;
  int tune, meter; /* which layers take part */
  record *records;
  int work;             /* ERGO_WORK, as the run uses it */
  int tune_level;       /* the deepest level the tuner takes (ERGO_ENERGY_LEVEL) */
  int saver, save_slot; /* the ERGO_SAVE_EVERY hook is attached, in this slot */
  double save_every;    /* seconds; 0 off */
  double saved_at;      /* CLOCK_MONOTONIC of the last save (or of the start) */
} P;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ERGO_SAVE_EVERY in seconds; a bad value is one warning and the default. */
static double save_setting(void) {
  const char *v = getenv(SAVE_VAR);
  if (!v) return SAVE_DEFAULT_S;
  char *end = NULL;
  errno = 0;
  double x = strtod(v, &end);
  if (end == v || *end || errno || !isfinite(x) || x < 0 || x > 86400) {
    ergo__warn("%s='%s' is not valid: expected seconds between saves of the tuning model and the "
               "JSON report during the run, from 0 (only at ergo_finalize) to 86400; using %g",
               SAVE_VAR, v, SAVE_DEFAULT_S);
    return SAVE_DEFAULT_S;
  }
  return x;
}

/* At ergo_step, after the tuner's node sync (this hook is attached after the pipeline's): the
 * model and the report so far, when ERGO_SAVE_EVERY seconds passed since the last save. */
static void save_step(void *ctx, long n) {
  (void)ctx, (void)n;
  if (now_s() - P.saved_at < P.save_every) return;
  if (P.tune) ergo__tuner_save();
  ergo__core_save_partial();
  P.saved_at = now_s(); /* after the save: a slow file system never makes every step save */
}

static int saver_start(void) {
  P.save_every = save_setting();
  const char *json = ergo__core_config()->report_json;
  int report = json && strcmp(json, "none") != 0;
  if (!P.save_every || (!P.tune && !report)) return 0;
  ergo_hooks h = {NULL, NULL, NULL, NULL, save_step};
  int rc = ergo_hooks_attach(&h, &P.save_slot);
  if (rc) return rc;
  P.saver = 1;
  P.saved_at = now_s();
  return 0;
}

/* The record of r, made at its first entry (main thread only: both layers measure and tune the
 * main thread's regions, so other threads never reach here with work to do). */
static record *record_of(ergo_region *r) {
  record **slot = (record **)ergo_region_slot(r, P.slot);
  if (!slot) return NULL;
  if (!*slot) {
    record *rec = calloc(1, sizeof *rec);
    if (!rec) return NULL;
    rec->next = P.records;
    P.records = rec;
    *slot = rec;
  }
  return *slot;
}

/* The region's record, or NULL when it has none (never measured, or no slot). */
static record *record_at(const ergo_region *r) {
  record **slot = (record **)ergo_region_slot((ergo_region *)r, P.slot);
  return slot ? *slot : NULL;
}

/* ERGO_WORK as asked; a bad value is one warning and auto. */
static int work_setting(void) {
  const char *v = getenv(WORK_VAR);
  if (!v || !*v || !strcmp(v, "auto")) return WORK_AUTO;
  if (!strcmp(v, "none")) return WORK_NONE;
  if (!strcmp(v, "instructions")) return WORK_INSTRUCTIONS;
  ergo__warn("%s='%s' is not valid: expected auto (the sim node's modelled work; none on a real "
             "node), instructions (instructions retired, counted by perf) or none; using auto",
             WORK_VAR, v);
  return WORK_AUTO;
}

/* The work counter the tuner uses (P.work), opened here. */
static void work_start(void) {
  P.work = work_setting();
  if (P.work == WORK_INSTRUCTIONS && ergo__sim()) {
    ergo__warn("%s=instructions: the sim node counts its own modelled work, which the tuner uses "
               "(its node description's \"work_counter\": 0 takes it away); the real "
               "counter is for real nodes",
               WORK_VAR);
    P.work = WORK_AUTO;
  }
  if (P.work != WORK_INSTRUCTIONS) return;
  char why[512];
  if (ergo__work_counter_start(why, sizeof why) != 0) {
    ergo__warn("%s=instructions: %s; the tuner goes on without a work counter", WORK_VAR, why);
    P.work = WORK_NONE;
    return;
  }
  int before = ergo__work_counter_threads_before();
  if (before > 0)
    ergo__warn("%s=instructions: %d other thread%s ran before ergo_init opened the counter, and "
               "%s instructions are not counted (fix: call ergo_init before the first OpenMP "
               "parallel region or thread)",
               WORK_VAR, before, before == 1 ? "" : "s", before == 1 ? "its" : "their");
  ergo__info("%s=instructions: each execution's work is the instructions retired in user space "
             "by every thread (perf)",
             WORK_VAR);
}

/* The main thread's work counters now: ergo_region_work's, and the platform's work counter (the
 * sim node's modelled work, or a real node's instructions retired under ERGO_WORK=instructions). */
static void work_now(ergo__work_sample *w) {
  ergo__work_hint(&w->hint, &w->hints);
  w->counter = P.work == WORK_INSTRUCTIONS ? ergo__work_counter_read()
               : P.work == WORK_NONE       ? -1
                                           : ergo__sim_work_done();
}

static void enter(void *ctx, ergo_region *r, int level) {
  (void)ctx;
  if (ergo_region_thread(r) != 0) return;
  record *rec = record_of(r);
  if (!rec) return;
  /* A region pushed below the tuned levels is not the tuner's: no work read (a read(2) under
   * ERGO_WORK=instructions) for it. */
  if (P.tune && level <= P.tune_level) {
    ergo__work_sample w;
    work_now(&w);
    ergo__tuner_enter(r, level, &rec->tuner, &w);
  }
  if (P.meter) ergo__energy_enter(r, level, &rec->energy);
}

static void exit_(void *ctx, ergo_region *r, int level, uint64_t elapsed_ns) {
  (void)ctx;
  if (ergo_region_thread(r) != 0) return;
  record *rec = record_at(r);
  if (!rec) return;
  ergo__region_measurement m = {(double)elapsed_ns * 1e-9, -1, {0, 0, -1}};
  if (P.meter) {
    uint64_t start, end;
    ergo__region_call(r, &start, &end);
    m.energy_j = ergo__energy_exit(r, level, &rec->energy, start, end);
  }
  if (P.tune && level <= P.tune_level) {
    work_now(&m.work);
    ergo__tuner_exit(r, level, &rec->tuner, &m);
  }
}

static void step(void *ctx, long n) {
  (void)ctx;
  if (P.tune) ergo__tuner_step(n);
}

static void finalize(void *ctx) {
  (void)ctx;
  if (P.tune) ergo__tuner_finalize();
  if (P.meter) ergo__energy_finalize();
}

/* Where the energy layer's reports find a region's energy state. */
static void **energy_state(const ergo_region *r) {
  record *rec = P.attached ? record_at(r) : NULL;
  return rec ? &rec->energy : NULL;
}

/* The setting the tuner applied to a region, for the reports (core/facts.c asks at a snapshot). */
static int setting_of(void *ctx, const ergo__node *n, int64_t v[ERGO__SETTING_MAX], int *varied) {
  (void)ctx;
  record *rec = record_at(n);
  return rec && ergo__tuner_setting(rec->tuner, v, ERGO__NKNOBS, varied);
}

/* How the tuner judged a region, for the reports. */
static int significance_of(void *ctx, const ergo__node *n, ergo__significance *out) {
  (void)ctx;
  record *rec = record_at(n);
  return ergo__tuner_significance(rec ? rec->tuner : NULL, n->level, &out->judged, &out->reason,
                                  &out->mean_s, &out->work);
}

int ergo__pipeline_start(void) {
  P.tune = ergo__tuner_active();
  P.meter = ergo__energy_reads();
  if (!P.tune && !P.meter) return saver_start();
  if (P.tune) {
    P.tune_level = ergo__core_config()->energy_level; /* the tuner's own (policies/tuner.c) */
    work_start();
  }
  ergo_hooks h = {enter, exit_, finalize, NULL, step};
  int rc = ergo_hooks_attach(&h, &P.slot);
  if (rc) return rc;
  P.attached = 1;
  ergo__energy_locate(energy_state);
  if (P.tune) { /* named as the tuning model names them */
    _Static_assert(ERGO__NKNOBS <= ERGO__SETTING_MAX, "raise ERGO__SETTING_MAX in core/internal.h");
    static const char *names[ERGO__NKNOBS];
    for (int i = 0; i < ERGO__NKNOBS; i++) names[i] = ergo__knob_table[i].field;
    ergo__facts_setting_source(setting_of, NULL, ERGO__NKNOBS, names);
    ergo__facts_significance_source(significance_of, NULL);
  }
  return saver_start();
}

void ergo__pipeline_stop(void) {
  ergo__energy_locate(NULL);
  ergo__facts_setting_source(NULL, NULL, 0, NULL);
  ergo__facts_significance_source(NULL, NULL);
  if (P.attached) ergo_hooks_detach(P.slot);
  ergo__work_counter_stop();
  if (P.saver) ergo_hooks_detach(P.save_slot);
  while (P.records) {
    record *next = P.records->next;
    free(P.records);
    P.records = next;
  }
  P = (__typeof__(P)){0};
}
