/* cpuset.c - the CPUs, cores and packages this process may run on, from hwloc. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "knobs/cpuset.h"

#include "ergo.h"

#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

int ergo__cpuset_get(ergo__cpuset *out, char *why, unsigned long whylen) {
  memset(out, 0, sizeof *out);
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    snprintf(why, whylen, "hwloc cannot load this machine's topology");
    return ERGO_EIO;
  }
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set) {
    hwloc_topology_destroy(topo);
    return ERGO_ENOMEM;
  }
  /* The binding of the whole process: threads may move within it. */
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) != 0) {
    cpu_set_t cs;
    if (sched_getaffinity(0, sizeof cs, &cs) != 0) {
      snprintf(why, whylen,
               "neither hwloc nor sched_getaffinity can say which CPUs this "
               "process may use");
      hwloc_bitmap_free(set);
      hwloc_topology_destroy(topo);
      return ERGO_EIO;
    }
    hwloc_bitmap_zero(set);
    for (int c = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &cs)) hwloc_bitmap_set(set, (unsigned)c);
  }
  hwloc_bitmap_and(set, set, hwloc_topology_get_topology_cpuset(topo));
  int c;
  hwloc_bitmap_foreach_begin(c, set) {
    if (out->ncpus < ERGO__MAX_CPUS) out->cpus[out->ncpus++] = c;
  }
  hwloc_bitmap_foreach_end();
  out->ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE);
  if (out->ncores <= 0) out->ncores = out->ncpus; /* no core level known: a PU is a core */
  hwloc_obj_t pkg = NULL;
  while ((pkg = hwloc_get_next_obj_covering_cpuset_by_type(topo, set, HWLOC_OBJ_PACKAGE, pkg)))
    if (out->npackages < 64) out->packages[out->npackages++] = (int)pkg->os_index;
  if (out->npackages == 0) out->packages[out->npackages++] = 0;
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(topo);
  if (out->ncpus == 0) {
    snprintf(why, whylen, "this process may run on no CPU hwloc knows");
    return ERGO_EIO;
  }
  return 0;
}
