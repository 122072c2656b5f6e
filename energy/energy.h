/* energy.h - the energy layer as the runtime sees it: start, stop, and the background sampler. */
#ifndef ERGO_ENERGY_ENERGY_H
#define ERGO_ENERGY_ENERGY_H

#include "energy/meter.h"
#include "ergo.h"

/* Open the meter cfg->energy names, attach the per-region hooks and the
 * "energy" quantity, start the sampler.  Call after the core is initialised.
 * When no meter works the run goes on measuring time only: one line says so
 * (a warning when the user named a meter, a note under "auto").  Returns 0
 * when energy is measured, else a negative ERGO_E* (never fatal). */
int ergo__energy_start(const ergo_config *cfg);

/* Before ergo__energy_start: the domains this process reads.  An MPI node elects one reader per
 * package (bit p of packages: the domains of package p); `unbound`: also domains of no package
 * (psys).  A rank that reads nothing keeps the "energy" quantity, so every rank's reports have
 * the same columns, but measures no region.  `reader_of` names who reads what, for the footer.
 * quiet: leave notes to rank 0 (warnings are every rank's).  Default: everything, not quiet. */
void ergo__energy_share(uint64_t packages, int unbound, const char *reader_of, int quiet);

/* Free what ergo__energy_start made; after the core's finalize. */
void ergo__energy_stop(void);

/* Joules (packages + dram) of region r's last completed call, or -1 when
 * energy is not measured for it (no meter, other thread, level too deep).
 * Valid in exit hooks attached before the energy layer's (they run after it). */
double ergo__energy_last(ergo_region *r);

/* The open meter, or NULL (tests and the sampler's figures). */
ergo__meter *ergo__energy_meter(void);

/* The sampler: a thread that reads the meter every period_ms, so a counter
 * never wraps twice between reads, and writes the power timeline. */
typedef struct ergo__sampler ergo__sampler;
int ergo__sampler_start(ergo__sampler **out, ergo__meter *m, int period_ms, const char *csv_path,
                        const char *trace_path);
/* Stop and join the thread, finish the files; returns samples taken. */
uint64_t ergo__sampler_stop(ergo__sampler *s, double *cost_s);

#endif
