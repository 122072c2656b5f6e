/* node.h - the running sim node: its knob values, virtual clock and energy counters. */
#ifndef ERGO_SIM_NODE_H
#define ERGO_SIM_NODE_H

#include "sim/model.h"

#include <pthread.h>
#include <stdint.h>

typedef struct ergo__sim_node {
  ergo__sim_params p;
  ergo__sim_config cfg; /* the knob values in force */
  ergo__sim_config initial;
  uint64_t now_ns;                    /* the virtual clock: advances only with work */
  double e_pkg_j, e_core_j, e_dram_j; /* cumulative energy per domain */
  uint64_t rng; /* noise generator state (seeded: a run is a pure function of it) */
  uint64_t pieces;
  pthread_mutex_t lock; /* work on one thread, meter reads on another */
} ergo__sim_node;

/* The process's sim node when the sim platform is active, else NULL. */
ergo__sim_node *ergo__sim(void);

/* Start the sim node: defaults, then the JSON node file (NULL: none), then
 * noise sigma and seed.  Knobs start at the maximum (f_max, u_max, all
 * cores), as an untuned node runs.  0 or a negative ERGO_E* with why. */
int ergo__sim_start(const char *node_file, double noise_sigma, unsigned long long seed, char *why,
                    size_t whylen);
void ergo__sim_stop(void);

/* The virtual clock in nanoseconds (ergo_config.clock for the sim platform). */
uint64_t ergo__sim_clock(void *ctx);

/* Advance by one piece of work under the knobs in force; the figures it took
 * (with noise) in *out if not NULL. */
int ergo__sim_run(const ergo__sim_work *w, ergo__sim_result *out);

/* kHz <-> GHz on the model's grids (exact: 1.1 GHz is 1100000 kHz). */
long ergo__sim_khz(double ghz);

#endif
