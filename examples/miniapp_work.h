/* miniapp_work.h - the mini-app's step (regions, their work, profiles), shared by the example
 * and the tuning benchmark. */
#ifndef ERGO_EXAMPLES_MINIAPP_WORK_H
#define ERGO_EXAMPLES_MINIAPP_WORK_H

#include <ergo.h>
#include <ergo_sim.h>

/* Workload classes (../shared/SIM.md). */
enum {
  MINI_COMPUTE,
  MINI_MEMORY,
  MINI_SERIAL,
  MINI_MIXED,
  MINI_COMM,
  MINI_BALANCED,
  MINI_LIGHT,
  MINI_HEAVY,
  MINI_NCLASSES
};
extern const char *const mini_class_names[MINI_NCLASSES];

/* The exclusive work of one tuned region per step, named by the region's path as ergo's
 * tuner and JSON report name it ("Global/Timestep/FIND_HSML/Primary"). */
typedef struct mini_region {
  const char *path;
  int cls;
  double scale;
} mini_region;
extern const mini_region mini_regions[];
extern const int mini_nregions;

typedef struct mini_profile {
  const char *name, *what;
  double c_mul, m_mul, s_add; /* compute and memory multipliers, serial fraction added */
  double noise;               /* log-normal sigma of the sim node */
} mini_profile;
extern const mini_profile mini_profiles[];
extern const int mini_nprofiles;

/* The profile in force (default: mini_profiles[0]); NULL name = none found. */
const mini_profile *mini_profile_named(const char *name);
void mini_set_profile(const mini_profile *p);

/* The work of mini_regions[i] under the profile in force. */
ergo_sim_work_desc mini_desc(int i);

/* Called after the work of every comm-like region (class MINI_COMM) with the region's index, e.g.
 * to really communicate there; NULL (the default) calls nothing. */
void mini_set_comm(void (*comm)(int i));

/* One annotated timestep; every piece of work goes to `work`. */
void mini_step(void (*work)(const ergo_sim_work_desc *));

#endif
