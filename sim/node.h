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
  /* The modelled work done so far (the sim node's work counter, as instructions retired are on a
   * real one): 10^9 units, gcycles + gbytes / 8 per piece (one instruction per cycle of compute,
   * one 8-byte load per word moved), without noise; it depends on the work, never on the knobs. */
  double work;
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

/* This process's modelled work so far (ergo__sim_node.work), or -1 when the sim node is not
 * running or has no work counter ("work_counter": 0).  Read by the main thread, which alone
 * runs the work. */
double ergo__sim_work_done(void);

/* Advance the virtual clock by `seconds` with this process's cores idle: each draws
 * core_idle_w, no dynamic power, and static, uncore (at the uncore frequency in force) and DRAM
 * background power go on (a rank waiting in MPI).  No noise: a wait is exactly its power times
 * its time.  ERGO_ESTATE when not running, ERGO_EINVAL for a negative or non-finite time. */
int ergo__sim_wait(double seconds);

/* Make this process one slice of a node shared by `node_size` ranks (node rank `node_rank`):
 * its cores are its share of the node's (cores / node_size, the first cores % node_size ranks one
 * more, at least 1), and static, uncore, DRAM background power and the memory system's bandwidth
 * are split evenly, so the slices of ranks that spent the same time add up to exactly one node.
 * Call before the knobs open (they read p.cores).  No-op for node_size <= 1. */
void ergo__sim_slice(int node_rank, int node_size);

/* The node's energy counters shared by its ranks: a POSIX shared-memory segment with one slot
 * per node rank, where each rank's own cumulative energy goes at every piece of work or wait.
 * Node rank 0 creates it (name out in name[len], unique: pid and time) and the others open it by
 * that name; node rank 0 unlinks the name once every rank has it open (ergo__sim_share_unlink),
 * so a crashed job leaves nothing behind.  0 or a negative ERGO_E* with why. */
int ergo__sim_share_create(int node_size, char *name, size_t len, char *why, size_t whylen);
int ergo__sim_share_open(const char *name, int node_rank, int node_size, char *why, size_t whylen);
void ergo__sim_share_unlink(const char *name);
/* The node's energy: every rank's cumulative joules summed (own only without a segment). */
void ergo__sim_node_energy(double *pkg, double *core, double *dram);

/* kHz <-> GHz on the model's grids (exact: 1.1 GHz is 1100000 kHz). */
long ergo__sim_khz(double ghz);

#endif
