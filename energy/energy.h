/* energy.h - the energy layer as the runtime sees it: start, stop, and the background sampler. */
#ifndef ERGO_ENERGY_ENERGY_H
#define ERGO_ENERGY_ENERGY_H

#include "energy/meter.h"
#include "ergo.h"

/* Open the meter cfg->energy names (the sim node's with sim, and no sampler then: its time is
 * virtual), attach the "energy" quantity, start the sampler.  Call
 * after the core is initialised.
 * When no meter works the run goes on measuring time only: one line says so
 * (a warning when the user named a meter, a note under "auto").  Returns 0
 * when energy is measured, else a negative ERGO_E* (never fatal). */
int ergo__energy_start(const ergo_config *cfg, int sim);

/* Before ergo__energy_start: the domains this process reads.  An MPI node elects one reader per
 * package (bit p of packages: the domains of package p); `unbound`: also domains of no package
 * (psys).  A rank that reads nothing keeps the "energy" quantity, so every rank's reports have
 * the same columns, but measures no region.  `reader_of` names who reads what, for the footer.
 * quiet: leave notes to rank 0 (warnings are every rank's).  Default: everything, not quiet. */
void ergo__energy_share(uint64_t packages, int unbound, const char *reader_of, int quiet);
/* The processes of this node (pids[n], this one among them), for the meters whose figure is
 * the sum of the node's processes (estimate: their CPU time).  Default: this process alone. */
void ergo__energy_node_pids(const long *pids, int n);

/* Global's energy counts from now (a fresh reading), as Global's time does from
 * ergo__core_origin: the runtime calls both together at the end of ergo_init. */
void ergo__energy_origin(void);

/* Free what ergo__energy_start made; after the core's finalize. */
void ergo__energy_stop(void);

/* 1 when a meter is open and this process reads some of its domains: the runtime's pipeline then
 * calls the three functions below. */
int ergo__energy_reads(void);
/* The pipeline's steps; *state is the energy layer's own per-region pointer.  Enter reads the
 * meter at a region's entry (before its clock starts); exit reads it again (after the clock
 * stopped) and returns the call's joules (packages + dram), or -1 when the region is not
 * measured (other thread, level too deep, no reading).  start and end are the call's timed
 * interval in region clock ticks (ergo__region_call): the energy is that interval's share of
 * the two readings' delta, so energy and time cover the same window. */
void ergo__energy_enter(ergo_region *r, int level, void **state);
double ergo__energy_exit(ergo_region *r, int level, void **state, uint64_t start, uint64_t end);
/* Sections (core/sections.c): the cumulative energy per domain at region-clock tick t, on the
 * curve regions are measured on (a reading is taken now, so t lies between the last one and
 * it), 0 for a domain another rank reads; *unsure: the meter's count of unsure readings.  For
 * the main thread only.  0, or -1 when no meter reads here or finalize has taken its reading. */
int ergo__energy_at(uint64_t t, double *out, uint64_t *unsure);
/* The "energy" quantity's id (ergo_quantity_attach), or -1 when none is attached. */
int ergo__energy_quantity(void);
/* ergo_finalize, before reports: one last reading for them all, and the sampler stops. */
void ergo__energy_finalize(void);
/* How the reports find a region's per-region state (the pipeline keeps it); NULL: nowhere. */
void ergo__energy_locate(void **(*find)(const ergo_region *r));

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
