/* pipeline.h - the region pipeline the runtime builds from the layers: one hook on the core,
 * through which every region execution flows once, in an order written here and nowhere else. */
#ifndef ERGO_RUNTIME_PIPELINE_H
#define ERGO_RUNTIME_PIPELINE_H

/* Attach the pipeline when some layer takes part (a tuning policy, or an energy meter this
 * process reads); with neither, the core's hot path stays hook-free.  0 or ERGO_E*. */
int ergo__pipeline_start(void);
/* Detach and free the per-region records (after the core's finalize). */
void ergo__pipeline_stop(void);

#endif
