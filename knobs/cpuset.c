/* cpuset.c - the CPUs, cores and packages this process may run on, from hwloc. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "knobs/cpuset.h"

#include "ergo.h"

#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static int cpuset_load(ergo__cpuset *out, char *why, unsigned long whylen) {
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

/* hwloc's topology discovery mallocs and frees a great deal and keeps a little (its components),
 * which leaves free holes in the middle of the application's heap and changes where its next
 * allocations land: a set-up block that would have been mmapped (raising glibc's dynamic mmap and
 * trim thresholds when freed) comes from a hole instead, and every later step trims the heap top
 * and faults its temporaries back in.  So discovery runs on a short-lived thread of its own,
 * whose allocations glibc serves from another arena: the main heap is left as found
 * (bench/heap.c measures it).  The thread inherits the caller's CPU mask, which the fallback
 * reads. */
typedef struct load_job {
  ergo__cpuset *out;
  char *why;
  unsigned long whylen;
  int rc;
} load_job;

static void *load_thread(void *arg) {
  load_job *j = arg;
  j->rc = cpuset_load(j->out, j->why, j->whylen);
  return NULL;
}

/* Under a sanitizer its allocator replaces glibc's (no heap of the application's to keep), and a
 * first thread would start ThreadSanitizer's own, whose CPU mask joins the process's binding. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CPUSET_INLINE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CPUSET_INLINE 1
#endif
#endif
#ifndef CPUSET_INLINE
#define CPUSET_INLINE 0
#endif

int ergo__cpuset_get(ergo__cpuset *out, char *why, unsigned long whylen) {
  memset(out, 0, sizeof *out);
  if (CPUSET_INLINE) return cpuset_load(out, why, whylen);
  load_job job = {out, why, whylen, 0};
  pthread_t th;
  if (pthread_create(&th, NULL, load_thread, &job) != 0) return cpuset_load(out, why, whylen);
  pthread_join(th, NULL);
  return job.rc;
}
