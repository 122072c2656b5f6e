/* topology.c - the machine's packages, cores and usable CPUs as hwloc sees them, for `ergo info`.
 */
#include "cli.h"

#ifdef ERGO_CLI_HWLOC
#include <hwloc.h>
#include <stdlib.h>

json_t *ergo_cli_topology_json(void) {
  json_t *o = json_object();
  if (!o) return NULL;
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) {
    json_object_set_new(o, "error", json_string("hwloc_topology_init failed"));
    return o;
  }
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    json_object_set_new(o, "error", json_string("hwloc_topology_load failed"));
    return o;
  }
  json_object_set_new(o, "packages",
                      json_integer(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE)));
  json_object_set_new(o, "cores", json_integer(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE)));
  json_object_set_new(o, "pus", json_integer(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU)));
  json_object_set_new(o, "numa_nodes",
                      json_integer(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE)));
  /* The process binding, not the machine: under a batch scheduler's cpuset
   * this is what a tuned thread count has to fit in. */
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  char *list = NULL;
  if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 &&
      hwloc_bitmap_list_asprintf(&list, set) >= 0)
    json_object_set_new(o, "allowed_cpus", json_string(list));
  else
    json_object_set_new(o, "allowed_cpus", json_null());
  free(list);
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(topo);
  return o;
}

#else

json_t *ergo_cli_topology_json(void) {
  json_t *o = json_object();
  if (o)
    json_object_set_new(o, "error",
                        json_string("ergo was built without hwloc (install "
                                    "libhwloc-dev and reconfigure)"));
  return o;
}

#endif
