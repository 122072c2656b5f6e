/* policy.h - the interface every tuning policy implements, and what the tuner hands it. */
#ifndef ERGO_POLICIES_POLICY_H
#define ERGO_POLICIES_POLICY_H

#include "ergo.h"
#include "knobs/knobs.h"
#include "optimizer/objective.h"
#include "optimizer/space.h"

#include <stddef.h>
#include <stdint.h>

/* What the tuner knows of one region (main thread, significant or not). */
typedef struct ergo__region_state {
  const char *path; /* "Global/Timestep/FIND_HSML/Primary" as in the JSON report */
  uint64_t executions;
  double excl_time_s; /* exclusive time over all executions (children subtracted) */
  int significant;    /* mean exclusive time >= ERGO_MIN_REGION_MS (decided after 1 run) */
  /* The execution's call index within the step (from 0; 0 for a unit of a region split by call
   * size, and under MPI), as choose and observe see it: executions of one step that differ in
   * size are compared with each other only as a whole step. */
  int call;
  /* The execution's work relative to the region's first with a measure of it (1 when unknown),
   * as observe sees it: its time and energy are scaled to that first work (policies/work.h), so
   * a step's executions add up as the sum of their times over the sum of their work. */
  double work;
  /* Where that work came from (policies/work.h: ERGO__WORK_NONE when nothing measured it). */
  int work_src;
  void *policy; /* the policy's own per-region state */
} ergo__region_state;

typedef struct ergo__policy ergo__policy;

/* A region's search as a policy sees it (the inspect op). */
typedef struct ergo__policy_view {
  ergo__config best; /* the best so far */
  int evals, budget, done;
  double confidence; /* the level with which best beats the baseline; 0: it does not */
} ergo__policy_view;

typedef struct ergo__policy_ops {
  const char *name; /* "monitor", "fixed", "static", "sweep", "online" */
  /* Start; read the policy's own configuration (model file, fixed config). On
   * failure return a negative ERGO_E* with one line in why: the tuner then
   * runs as monitor. */
  int (*start)(ergo__policy *p, char *why, size_t whylen);
  /* A significant region is entered: the config for this execution (fields
   * left 0 inherit).  Called on the main thread; must not block. */
  void (*choose)(ergo__policy *p, ergo__region_state *r, ergo__config *out);
  /* The execution ended: its exclusive measurement under `applied` (the
   * values in force, inherited ones filled in). */
  void (*observe)(ergo__policy *p, ergo__region_state *r, const ergo__config *applied,
                  const ergo__measure *m);
  /* The run ends: write what was learnt (tuning model), report.  0 or ERGO_E*. */
  int (*finish)(ergo__policy *p);
  void (*stop)(ergo__policy *p);
  /* Optional (NULL: none). */
  /* Where the tuning stands, for the progress line (ERGO_TUNE_PROGRESS): one line into buf
   * ("3 of 13 regions done, 420 executions left, about 35 steps to go"); 0 when there is
   * nothing to say. */
  int (*progress)(ergo__policy *p, char *buf, size_t len);
  /* A region is entered for the first time: 1 when the policy already knows it is significant
   * (static: the model measured it), so its setting applies from its first execution instead of
   * its second; -1 when the policy has a setting for it but this run is to judge its
   * significance (static: a region the model names with no time), judged then on its own time
   * even under a tuned parent; 0 when the policy does not know it. */
  int (*preset)(ergo__policy *p, const char *path);
  /* During the run (ERGO_SAVE_EVERY, at an ergo_step): write what was learnt so far as a
   * partial model (best settings so far), quietly; 0 or ERGO_E* (it said why). */
  int (*save)(ergo__policy *p);
  /* The live view (ergo_snapshot_*): where the region's search stands; 0 when there is nothing to
   * say (*v untouched). */
  int (*inspect)(ergo__policy *p, ergo__region_state *r, struct ergo__policy_view *v);
  /* p->objective was changed during the run (the dashboard, at an ergo_step): re-judge what was
   * measured under it and go on from there. */
  void (*reobjective)(ergo__policy *p);
} ergo__policy_ops;

struct ergo__policy {
  const ergo__policy_ops *ops;
  ergo__space space;
  ergo__objective objective;
  const ergo_config *cfg; /* ERGO_MODEL, ERGO_FIXED, ERGO_SWEEP, ... */
  int sim;                /* the sim node stands in for the machine (models say so) */
  double min_s;           /* ERGO_MIN_REGION_MS in seconds */
  long steps;             /* ergo_step calls so far */
  int talk;               /* this process says what tuning does (rank 0 under MPI) */
  /* The tuner has said why nothing could be tuned (no energy measured, no significant region):
   * the policy's finish adds no "run more steps". */
  int said;
  /* An energy meter opened on this node: without one the energy a model stores is unknown (written
   * as null), not 0 J. */
  int metered;
  int retune; /* ERGO_RETUNE: search again when a region's work or machine changed (default 1) */
  void *priv;
};

extern const ergo__policy_ops ergo__policy_monitor;
extern const ergo__policy_ops ergo__policy_fixed;
extern const ergo__policy_ops ergo__policy_static;
extern const ergo__policy_ops ergo__policy_sweep;
extern const ergo__policy_ops ergo__policy_online;
/* ERGO_TUNE_BUDGET (online): "off", or energy=X,time=Y,horizon=N (any subset; ratios to the
 * untuned run, 1 to 100; executions from 1).  Sets the budget as the optimiser takes it
 * (allowances X - 1 and Y - 1, -1 for off) and the horizon; the defaults 1.00, 1.10 and 200 for
 * what is not named.  0, or ERGO_EINVAL with one line in why (the defaults are then set). */
int ergo__online_budget_parse(const char *s, double *energy, double *time, int *horizon, char *why,
                              size_t whylen);

/* 0 when some knob of space has more than one value; else ERGO_EINVAL with one line in why
 * saying there is nothing to tune (a policy that searches does not start: the run goes on as
 * monitor, and says so). */
int ergo__policy_tunable(const ergo__space *space, char *why, size_t whylen);

/* The policy called `name` (ERGO_POLICY), or NULL. */
const ergo__policy_ops *ergo__policy_find(const char *name);
/* The i-th policy's name, in the order ERGO_POLICY lists them; NULL past the last. */
const char *ergo__policy_name(int i);

/* ERGO_FIXED: "cpu=1800000,uncore=2000000,threads=8", any subset, into c (fields not named 0).
 * With a space, each value is rounded to the nearest this node allows (a warning when it moves)
 * and a knob the node lacks is an error; with space NULL only the form is checked and c gets the
 * values as written.  0, or ERGO_EINVAL with one line in why naming the value. */
int ergo__parse_fixed(const char *s, const ergo__space *space, ergo__config *c, char *why,
                      size_t whylen);

#endif
