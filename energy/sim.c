/* sim.c - the meter of the sim node: its exact energy counters as package, core and dram domains.
 */
#include "energy/meter.h"
#include "ergo.h"
#include "sim/node.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void domain(ergo__domain *d, const char *name, int in_total) {
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "%s", name);
  d->package = 0;
  d->in_total = in_total;
  d->joules_per_tick = 1e-9; /* nanojoules: 2^64 nJ is 1.8e10 J, never reached */
  d->range_ticks = 0;
}

static int sim_open(ergo__meter *m, char *why, size_t whylen) {
  if (!ergo__sim()) {
    snprintf(why, whylen, "the sim node is not running (ERGO_PLATFORM=sim selects it)");
    return ERGO_ESTATE;
  }
  domain(&m->dom[0], "package-0", 1);
  domain(&m->dom[1], "core-0", 0); /* part of package-0 */
  domain(&m->dom[2], "dram-0", 1);
  m->ndomains = 3;
  m->label = "SIMULATED";
  return 0;
}

static int sim_read(ergo__meter *m, uint64_t *ticks) {
  (void)m;
  ergo__sim_node *n = ergo__sim();
  if (!n) return ERGO_ESTATE;
  /* The node's counters: every rank's slice of it when its ranks share it (sim/node.h). */
  double pkg, core, dram;
  ergo__sim_node_energy(&pkg, &core, &dram);
  ticks[0] = (uint64_t)llround(pkg * 1e9);
  ticks[1] = (uint64_t)llround(core * 1e9);
  ticks[2] = (uint64_t)llround(dram * 1e9);
  return 0;
}

const ergo__meter_ops ergo__meter_sim = {
    .name = "sim",
    .open = sim_open,
    .read_raw = sim_read,
    .close = NULL,
};
