/* model.h - the sim node's physics: time and power of a piece of work under a configuration. */
#ifndef ERGO_SIM_MODEL_H
#define ERGO_SIM_MODEL_H

#include <stddef.h>

/* Every parameter of the model; defaults describe one 20-core Skylake-SP-class
 * package (Xeon Gold 6138: 2.0 GHz base, 125 W TDP, uncore 1.2-2.4 GHz, six
 * DDR4 channels), see ../shared/SIM.md and model.c. */
typedef struct ergo__sim_params {
  int cores;                         /* 20 */
  double f_min, f_max, f_step;       /* core GHz: 1.0, 2.0, 0.1 */
  double u_min, u_max, u_step;       /* uncore GHz: 1.2, 2.4, 0.1 */
  double bw_per_core;                /* GB/s one core can draw: 6 */
  double bw_max;                     /* GB/s of the memory system at u_max: 100 */
  double bw_floor;                   /* fraction of bw_max at u_min: 0.5 */
  double overlap;                    /* share of the shorter of compute/memory not hidden: 0.3 */
  double v0, v_slope;                /* V(f) = v0 + v_slope * (f - f_min): 0.70 V, 0.25 V/GHz */
  double core_idle_w;                /* W of every core, busy or not: 0.5 */
  double core_dyn_w;                 /* W per GHz*V^2 of a busy core: 2.216 */
  double core_act_min;               /* activity of a busy core when stalled on memory: 0.4 */
  double uncore_min_w, uncore_dyn_w; /* P_unc = min + dyn * (u/u_max)^2: 4, 8 */
  double static_w;                   /* package static power: 30 */
  double dram_min_w, dram_w_per_gbs; /* P_dram = min + per_gbs * bandwidth: 3, 0.25 */
  double noise_sigma;                /* log-normal sigma on time and on power, 0 = none */
  unsigned long long seed;           /* noise seed */
  int work_counter; /* 1: the node counts work (as instructions retired on a real one) and ergo
                       compares executions per unit of it; 0: a node without one: 1 */
} ergo__sim_params;

/* One piece of work (the public ergo_sim_work_desc has the same fields). */
typedef struct ergo__sim_work {
  double gcycles; /* compute, 10^9 core cycles */
  double gbytes;  /* memory traffic, 10^9 bytes */
  double serial;  /* Amdahl serial fraction, 0..1 */
} ergo__sim_work;

typedef struct ergo__sim_config {
  double f_ghz, u_ghz;
  int threads;
} ergo__sim_config;

/* Time, powers and energies of one execution (noise-free unless the caller adds it). */
typedef struct ergo__sim_result {
  double time_s, tc_s, tm_s;
  double p_core_w, p_uncore_w, p_pkg_w, p_dram_w;
  double e_pkg_j, e_core_j, e_dram_j; /* package includes core and uncore */
} ergo__sim_result;

void ergo__sim_params_default(ergo__sim_params *p);

/* Overlay a JSON node file ({"cores":20,"static_w":30,...}; unknown keys and
 * bad values are errors) on *p.  0, or a negative ERGO_E* with one line in why
 * naming the file, the key, the value and what is accepted; *p unchanged then. */
int ergo__sim_params_load(ergo__sim_params *p, const char *path, char *why, size_t whylen);

/* Check a parameter set (ranges, f/u grids).  0 or ERGO_EINVAL with why. */
int ergo__sim_params_check(const ergo__sim_params *p, char *why, size_t whylen);

/* The model: time and power of work w under configuration c (no noise); p
 * must have passed ergo__sim_params_check.  A config outside the grid's range
 * runs at the nearest end of it, as hardware clamps a request. */
void ergo__sim_eval(const ergo__sim_params *p, const ergo__sim_work *w, const ergo__sim_config *c,
                    ergo__sim_result *r);

/* Grid sizes and points: index i of the core grid is f_min + i * f_step,
 * rounded to 1e-9 GHz so that kHz conversions are exact (i clamped to the grid). */
int ergo__sim_nf(const ergo__sim_params *p);
int ergo__sim_nu(const ergo__sim_params *p);
double ergo__sim_f(const ergo__sim_params *p, int i);
double ergo__sim_u(const ergo__sim_params *p, int i);

#endif
