/* model.h - the tuning model file: per-region configurations and the measurements behind them. */
#ifndef ERGO_POLICIES_MODEL_H
#define ERGO_POLICIES_MODEL_H

#include "policies/policy.h"

typedef struct ergo__model_point {
  ergo__config config;
  double time_s, energy_j; /* mean per execution (exclusive); energy_j < 0: not measured */
  int n;                   /* executions measured */
} ergo__model_point;

typedef struct ergo__model_region {
  char *path;             /* "Global/Timestep/FIND_HSML/Primary" */
  ergo__config best;      /* the configuration to apply */
  ergo__measure baseline; /* mean per execution at the baseline config (0 if unknown; energy_j
                           * < 0: not measured) */
  int npoints;
  ergo__model_point *points; /* what was measured (sweep: every config tried) */
  int pareto;                /* points[0..pareto-1] are the time/energy Pareto set, when known */
} ergo__model_region;

typedef struct ergo__model {
  char policy[32];    /* which policy wrote it */
  char objective[64]; /* its canonical text */
  char platform[16];  /* "real" or "sim" */
  char host[128];
  /* Written during the run (ERGO_SAVE_EVERY) rather than at its end: regions still being
   * searched have their best setting so far, and regions not yet measured are left out. */
  int partial;
  long steps; /* ergo_step calls when it was written (0: not said) */
  int nregions;
  ergo__model_region *regions;
} ergo__model;

/* Where sweep and online write the model when ERGO_MODEL is unset. */
#define ERGO__MODEL_DEFAULT "ergo-model.json"

/* Read and validate a model file (format "ergo-model", version 1).  0, or a
 * negative ERGO_E* with one line in why naming the file, the element, the
 * value and the fix; *m is then empty. */
int ergo__model_load(const char *path, ergo__model *m, char *why, size_t whylen);

/* Write it atomically, with the node description (platform, host, knob
 * values of `space`). */
int ergo__model_save(const char *path, const ergo__model *m, const ergo__space *space);
/* After ergo__model_save(path, ...) failed (it said why): write the model to its fallback,
 * $TMPDIR/ergo-<pid>-<basename> (util/path.h), and say where, so the tuning is not lost. */
void ergo__model_save_fallback(const char *path, const ergo__model *m, const ergo__space *space);

/* A policy that tuned nothing writes no model: an empty one would replace a good one, which a
 * static run would then apply to no region.  What became of the file: "'PATH' kept as it was"
 * into out when a file is there, else "" (nothing to keep).  out. */
const char *ergo__model_kept(const char *path, char *out, size_t len);
/* The line that says so at the end of a run of `who` (sweep, online) that tuned no region. */
void ergo__model_not_written(const char *who, const char *path);

/* The region at `path`, or NULL. */
ergo__model_region *ergo__model_find(const ergo__model *m, const char *path);

/* Add (or find) a region; NULL on no memory. */
ergo__model_region *ergo__model_region_add(ergo__model *m, const char *path);

/* Add a measured point to a region (copies). */
int ergo__model_point_add(ergo__model_region *r, const ergo__config *c, double time_s,
                          double energy_j, int n);

/* Order r->points so the time/energy Pareto set comes first; sets r->pareto. */
void ergo__model_pareto(ergo__model_region *r);

/* No meter measured the run (the policy's `metered` is 0): every energy becomes not measured
 * (-1, written as null), where the policies kept 0 J. */
void ergo__model_no_energy(ergo__model *m);

void ergo__model_free(ergo__model *m);

#endif
