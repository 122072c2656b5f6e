/* oracle.h - the exhaustive best config of a piece of work for an objective, on the sim node. */
#ifndef ERGO_SIM_ORACLE_H
#define ERGO_SIM_ORACLE_H

#include "optimizer/objective.h"
#include "sim/model.h"

typedef struct ergo__sim_choice {
  ergo__sim_config config;
  ergo__sim_result result;
  double value; /* the objective's value (lower is better) */
} ergo__sim_choice;

/* What a tuner measures of one modelled execution: its time, its energy
 * (package + dram, the domains that add up to the node's total) and its
 * resource (threads / cores). */
void ergo__sim_measure(const ergo__sim_params *p, const ergo__sim_config *c,
                       const ergo__sim_result *r, ergo__measure *m);

/* Evaluate every point of the f x u x threads grid (noise-free) and return
 * the best for `o`, with the baseline (f_max, u_max, all cores) it is judged
 * against (baseline may be NULL).  Ties go to the lower frequency, then the
 * lower uncore frequency, then fewer threads (less resource).  0, or
 * ERGO_EINVAL for bad parameters or work (negative, NaN, serial outside 0..1). */
int ergo__sim_oracle(const ergo__sim_params *p, const ergo__sim_work *w, const ergo__objective *o,
                     ergo__sim_choice *best, ergo__sim_choice *baseline);

#endif
