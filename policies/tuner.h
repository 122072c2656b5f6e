/* tuner.h - the tuner as the runtime sees it: start a policy on the region hooks, finish, stop. */
#ifndef ERGO_POLICIES_TUNER_H
#define ERGO_POLICIES_TUNER_H

#include "ergo.h"

#include <stddef.h>
#include <stdint.h>

#define ERGO__TUNER_VIEW_KNOBS 4

/* The work counters at one instant on the main thread: what ergo_region_work told so far (units
 * and calls) and the platform's work counter (the sim node's modelled work; < 0: none). */
typedef struct ergo__work_sample {
  double hint;
  uint64_t hints;
  double counter;
} ergo__work_sample;

/* One region execution as the runtime's pipeline measured it. */
typedef struct ergo__region_measurement {
  double time_s;          /* inclusive wall time of this call */
  double energy_j;        /* inclusive joules (packages + dram) of this call; < 0: not measured */
  ergo__work_sample work; /* the work counters at its exit */
} ergo__region_measurement;

/* Start the policy cfg->policy (after the knobs and the energy layer); sim: the sim node stands in
 * for the machine; metered: an energy meter opened on this node.  A policy that cannot start says
 * why in one line and the run continues as monitor: so does one that learns (sweep, online)
 * under an objective that weighs energy where no meter opened, which could tune nothing. */
int ergo__tuner_start(const ergo_config *cfg, int sim, int metered);
/* After the finalize hook (before ergo__tuner_stop): 0, or the negative ERGO_E* of the tuning
 * model the policy could not write (its fallback in $TMPDIR may hold it), for ergo_finalize. */
int ergo__tuner_finish_error(void);
/* 1 when a policy that changes knobs runs (monitor needs no part in the pipeline). */
int ergo__tuner_active(void);
/* The policy in force (monitor when the asked one could not start) and its objective; NULL
 * before ergo__tuner_start. */
const char *ergo__tuner_policy(void);
struct ergo__objective;
const struct ergo__objective *ergo__tuner_objective(void);
/* The setting a tuned region's last execution ran under (n values in knob-table order, 0 for an
 * absent knob) and whether its executions ran under several: 1, or 0 for a region not tuned.
 * state is the tuner's per-region pointer (the pipeline's). */
int ergo__tuner_setting(void *state, int64_t *v, int n, int *varied);
/* How the tuner judged a region (state: its per-region pointer; level: the region's level): 1 and
 * *judged (tuned on its own), *reason (a static sentence), *mean_s (the own time per execution it
 * was judged on) and *work ("units", "counter" or "none"), or 0 when no policy tunes. */
int ergo__tuner_significance(void *state, int level, int *judged, const char **reason,
                             double *mean_s, const char **work);
/* The pipeline's steps (runtime/pipeline.c).  *state is the tuner's own per-region pointer. */
/* A region is entered: the policy's choice goes through the settings stack; w: the work
 * counters at its entry. */
void ergo__tuner_enter(ergo_region *r, int level, void **state, const ergo__work_sample *w);
/* It ended: the policy observes the exclusive measurement, the parent's setting comes back. */
void ergo__tuner_exit(ergo_region *r, int level, void **state, const ergo__region_measurement *m);
/* ergo_step: under MPI, the node's ranks decide together (collective within the node). */
void ergo__tuner_step(long step);
/* During the run (ERGO_SAVE_EVERY, at an ergo_step after the node sync): sweep and online
 * write their model so far, marked partial (rank 0 only under MPI).  A failed save is said once
 * and not tried again before finalize. */
void ergo__tuner_save(void);
/* ergo_finalize, before reports: the policy writes what it learnt. */
void ergo__tuner_finalize(void);
/* The live view of one region (ergo_snapshot_*): 0 when the tuner knows no region at path. */
typedef struct ergo__tuner_view {
  uint64_t executions;
  int significant, has_last, has_best;
  int64_t last[ERGO__TUNER_VIEW_KNOBS], best[ERGO__TUNER_VIEW_KNOBS];
  int evals, budget, done;
  double confidence;
} ergo__tuner_view;
int ergo__tuner_view_of(const char *path, ergo__tuner_view *v);
/* Another policy and/or objective (NULL: unchanged) for the running tuner, on the main thread at
 * an ergo_step: a new objective is re-judged on what was measured (the policy's reobjective), or
 * the policy starts afresh under it (one without), as a new policy does (its start may read
 * ERGO_MODEL, ERGO_FIXED; one that cannot start leaves monitor in force).  0, or ERGO_EINVAL /
 * ERGO_ESTATE with one line in why. */
int ergo__tuner_retarget(const char *policy, const char *objective, char *why, size_t whylen);
/* Free the tuner (after the core's finalize). */
void ergo__tuner_stop(void);

#endif
