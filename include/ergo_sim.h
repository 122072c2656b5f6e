/* ergo_sim.h - the sim node's public API: drive the modelled node that ERGO_PLATFORM=sim runs
 * (ergo_sim_work) and ask its oracle for the best configuration of a piece of work
 * (ergo_sim_oracle).  It includes ergo.h. */
#ifndef ERGO_SIM_H
#define ERGO_SIM_H

#include "ergo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* The sim node (ERGO_PLATFORM=sim): a modelled 20-core node with a virtual  */
/* clock, simulated energy and knobs; every report then says SIMULATED.     */
/* ------------------------------------------------------------------------ */

/* One piece of work: compute in 10^9 cycles, memory traffic in 10^9 bytes,
 * and the Amdahl serial fraction (0..1). */
typedef struct ergo_sim_work_desc {
  double gcycles;
  double gbytes;
  double serial;
} ergo_sim_work_desc;

/* 1 while the sim node runs (between ergo_init on the sim platform and ergo_finalize). */
ERGO_EXPORT int ergo_sim_active(void);

/* Advance the sim node by one piece of work under the knob values in force:
 * the virtual clock moves by its modelled time and the energy counters by
 * its modelled energy.  ERGO_ESTATE when the sim node is not running,
 * ERGO_EINVAL for negative or non-finite work. */
ERGO_EXPORT int ergo_sim_work(const ergo_sim_work_desc *w);

/* Let `seconds` of virtual time pass with this process's cores idle, as a rank waiting in MPI
 * does: its clock moves by `seconds`, its cores draw idle power (0.5 W each by default, no
 * dynamic power) and the node's static, uncore and DRAM background power go on; no work is done
 * and no noise is added.  Under MPI the ranks of a node share one sim node, each with its share of
 * its cores (README "The sim node and the demo").  ERGO_ESTATE when the sim node is not running,
 * ERGO_EINVAL for a negative or non-finite time. */
ERGO_EXPORT int ergo_sim_wait(double seconds);

/* A configuration of the sim node and its modelled figures for one piece of work. */
typedef struct ergo_sim_point {
  long core_khz, uncore_khz;
  int threads;
  double time_s, energy_j; /* energy: package + dram */
  double objective;        /* the objective's value (lower is better) */
} ergo_sim_point;

/* The oracle: the exhaustive best configuration of `w` for `objective`
 * ("energy", "time", "edp", "ed2p", "weighted[:t=..,e=..,r=..]",
 * "energy@5%"; NULL = "energy@5%"), noise-free, with the untuned baseline
 * (maximum frequencies, all cores).  Uses the running sim node's parameters,
 * else the defaults plus ERGO_SIM_NODE.  0 or a negative ERGO_E*. */
ERGO_EXPORT int ergo_sim_oracle(const ergo_sim_work_desc *w, const char *objective,
                                ergo_sim_point *best, ergo_sim_point *baseline);

#ifdef __cplusplus
}
#endif
#endif /* ERGO_SIM_H */
