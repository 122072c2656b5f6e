/* introspect.h - the live view (ergo_snapshot_*, published at each ergo_step) and the dashboard
 * that serves it (ERGO_DASHBOARD, libergo-dashboard loaded with dlopen). */
#ifndef ERGO_RUNTIME_INTROSPECT_H
#define ERGO_RUNTIME_INTROSPECT_H

/* At ergo_init, after the pipeline (its step hook runs after the tuner's): under MPI the ranks
 * agree whether the dashboard is on (collective); when it is, snapshots are published and rank 0
 * starts the server.  Every failure is one warning and the run goes on. */
void ergo__introspect_start(void);
/* At ergo_finalize, first: the server stops, the snapshots go. */
void ergo__introspect_stop(void);

#endif
