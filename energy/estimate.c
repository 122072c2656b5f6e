/* estimate.c - the "estimate" meter: process CPU time times a per-core power, for machines without
 * an energy counter.  Every figure it yields is labelled ESTIMATE. */
#include "energy/energy.h"
#include "energy/meter.h"

#include "ergo.h"
#include "util/log.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ESTIMATE_VAR "ERGO_ESTIMATE_CORE_W"
#define ESTIMATE_DEFAULT_W 10.0
/* Above this a "core" would be a whole rack: the value is surely a unit mistake (mW, µW). */
#define ESTIMATE_MAX_W 1000.0

/* The watts per busy core from the environment, or the default when unset. */
static int core_watts(double *w, char *why, size_t whylen) {
  const char *v = getenv(ESTIMATE_VAR);
  *w = ESTIMATE_DEFAULT_W;
  if (!v) return 0;
  char *end = NULL;
  errno = 0;
  double x = strtod(v, &end);
  /* "!(x > 0)" also rejects NaN. */
  if (end == v || *end != '\0' || errno == ERANGE || !isfinite(x) || !(x > 0) ||
      x > ESTIMATE_MAX_W) {
    snprintf(why, whylen,
             "%s='%s' is not valid: expected watts per busy core, a number > 0 and <= %g "
             "(default %g)",
             ESTIMATE_VAR, v, ESTIMATE_MAX_W, ESTIMATE_DEFAULT_W);
    return ERGO_EINVAL;
  }
  *w = x;
  return 0;
}

static int estimate_open(ergo__meter *m, char *why, size_t whylen) {
  double w;
  int rc = core_watts(&w, why, whylen);
  if (rc != 0) return rc;
  ergo__domain *d = &m->dom[0];
  snprintf(d->name, sizeof d->name, "cpu-estimate");
  d->package = -1;
  d->in_total = 1;
  /* One tick is one nanosecond of CPU time of any thread of this process, or under MPI of any
   * rank of this node (ergo__energy_node_pids), so two busy threads count as two cores. */
  d->joules_per_tick = w * 1e-9;
  d->range_ticks = 0;
  m->ndomains = 1;
  m->label = "ESTIMATE";
  return 0;
}

/* The node's processes (the runtime's ergo__energy_node_pids under MPI) and the last CPU time
 * read of each: a rank that has already exited keeps its last figure, so the sum never goes
 * back.  Without them, this process alone. */
#define NODE_MAX 1024
static struct {
  pthread_mutex_t lock;
  int n, warned;
  long pids[NODE_MAX];
  uint64_t last_ns[NODE_MAX];
} node = {PTHREAD_MUTEX_INITIALIZER, 0, 0, {0}, {0}};

void ergo__energy_node_pids(const long *pids, int n) {
  pthread_mutex_lock(&node.lock);
  node.n = 0;
  for (int i = 0; pids && i < n && i < NODE_MAX; i++) {
    node.pids[node.n] = pids[i];
    node.last_ns[node.n++] = 0;
  }
  pthread_mutex_unlock(&node.lock);
}

static int cpu_ns(clockid_t id, uint64_t *ns) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) return ERGO_EIO;
  *ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  return 0;
}

static int estimate_read_raw(ergo__meter *m, uint64_t *ticks) {
  (void)m;
  uint64_t own;
  if (cpu_ns(CLOCK_PROCESS_CPUTIME_ID, &own) != 0) return ERGO_EIO;
  pthread_mutex_lock(&node.lock);
  /* Node energy from every rank of the node: Linux lets a process read the CPU clock of
   * another (clock_getcpuclockid), so the reader sums its node's ranks without their help. */
  uint64_t sum = node.n ? 0 : own;
  long self = (long)getpid();
  for (int i = 0; i < node.n; i++) {
    clockid_t id;
    uint64_t ns = 0;
    int err = 0;
    if (node.pids[i] == self)
      node.last_ns[i] = own;
    else if ((err = clock_getcpuclockid((pid_t)node.pids[i], &id)) == 0 &&
             (err = cpu_ns(id, &ns) == 0 ? 0 : errno) == 0) {
      if (ns > node.last_ns[i]) node.last_ns[i] = ns;
    } else if (node.last_ns[i] == 0 && !node.warned) {
      node.warned = 1; /* never read: the node's figure leaves that rank out */
      ergo__warn("ERGO_ENERGY=estimate: cannot read the CPU time of rank process %ld of this "
                 "node (%s); the node's estimate leaves it out",
                 node.pids[i], strerror(err));
    }
    sum += node.last_ns[i];
  }
  pthread_mutex_unlock(&node.lock);
  ticks[0] = sum;
  return 0;
}

static void estimate_close(ergo__meter *m) { (void)m; }

const ergo__meter_ops ergo__meter_estimate = {
    .name = "estimate",
    .open = estimate_open,
    .read_raw = estimate_read_raw,
    .close = estimate_close,
};
