/* cpuset.h - the CPUs, cores and packages this process may run on, from hwloc. */
#ifndef ERGO_KNOBS_CPUSET_H
#define ERGO_KNOBS_CPUSET_H

#define ERGO__MAX_CPUS 4096

typedef struct ergo__cpuset {
  int ncpus;                /* PUs this process may run on */
  int cpus[ERGO__MAX_CPUS]; /* their OS indices, ascending */
  int ncores;               /* cores with at least one of those PUs */
  int npackages;            /* packages with at least one of those PUs */
  int packages[64];         /* their OS indices (physical_package_id), ascending */
} ergo__cpuset;

/* Fill *out from the process's CPU binding (hwloc_get_cpubind, falling back
 * to sched_getaffinity when hwloc cannot say).  0 or a negative ERGO_E*
 * with one line in why. */
int ergo__cpuset_get(ergo__cpuset *out, char *why, unsigned long whylen);

#endif
