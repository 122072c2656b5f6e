/* objective.h - what tuning minimises: energy, time, EDP, ED2P, weighted, or energy within a
 * slowdown bound, each judged against the region's baseline. */
#ifndef ERGO_OPTIMIZER_OBJECTIVE_H
#define ERGO_OPTIMIZER_OBJECTIVE_H

#include <stddef.h>

typedef enum {
  ERGO__OBJ_ENERGY,
  ERGO__OBJ_TIME,
  ERGO__OBJ_EDP,
  ERGO__OBJ_ED2P,
  ERGO__OBJ_WEIGHTED,
  ERGO__OBJ_ENERGY_BOUNDED
} ergo__objective_kind;

typedef struct ergo__objective {
  ergo__objective_kind kind;
  double w_time, w_energy, w_resource; /* weighted: each term normalised to the baseline */
  double slowdown;                     /* energy@5%: time <= (1 + 0.05) * baseline time */
} ergo__objective;

/* One measured (or modelled) point: time, energy, and resource use (cores
 * in use / cores available, AllScale's third goal). */
typedef struct ergo__measure {
  double time_s, energy_j, resource;
} ergo__measure;

/* Parse "energy", "time", "edp", "ed2p", "weighted" (t=1,e=1,r=0),
 * "weighted:t=1,e=2,r=0.5" (any order; a weight not named is 0; weights >= 0,
 * not all 0), "energy@5%" (any percentage 0..1000; "energy@" alone is an
 * error); NULL means the default, "energy@5%".  0, or ERGO_EINVAL with one line
 * in why naming the value and what is accepted; *o unchanged then. */
int ergo__objective_parse(const char *s, ergo__objective *o, char *why, size_t whylen);

/* The objective's canonical text ("energy@5%"), into buf. */
const char *ergo__objective_name(const ergo__objective *o, char *buf, size_t len);

/* The value to minimise for m, given the region's baseline b (the untuned
 * configuration).  Lower is better.  energy: E; time: T; edp: E*T; ed2p: E*T^2;
 * weighted: w_t*T/T0 + w_e*E/E0 + w_r*R/R0 (a term whose baseline is 0 is
 * skipped; b NULL: terms unnormalised).  energy@X%: E while T <= (1+X)*T0 (to
 * 1e-12 relative), else E0*(1 + T/T0): worse than the baseline itself and
 * growing with the slowdown (b NULL or T0 = 0: no bound). */
double ergo__objective_value(const ergo__objective *o, const ergo__measure *m,
                             const ergo__measure *b);

/* log(value(m) / value(b)) against the baseline b: how much worse than the baseline m is by the
 * objective (< 0: better); NAN when either value is not positive. */
double ergo__objective_log_ratio(const ergo__objective *o, const ergo__measure *m,
                                 const ergo__measure *b);

/* The sigma of one measurement of the logarithm of the objective's value, from those of log time
 * (sd_time) and log energy (sd_energy).  Energy is time times power, so E T varies as
 * 3 var t + var e and E T^2 as 8 var t + var e; weighted (a T/T0 + b E/E0 + c R/R0) as
 * ((a^2 + 2 a b) var t + b^2 var e) / (a + b + c)^2 near the baseline; energy and energy@X%:
 * energy's (the bound's time is tested on its own). */
double ergo__objective_log_sigma(const ergo__objective *o, double sd_time, double sd_energy);

/* 1 when m satisfies the objective's constraint (always, except energy@X%). */
int ergo__objective_feasible(const ergo__objective *o, const ergo__measure *m,
                             const ergo__measure *b);

#endif
