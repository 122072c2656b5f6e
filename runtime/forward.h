/* forward.h - ERGO_FORWARD: ergo's regions also open and close ranges in NVTX and Intel ITT,
 * whose libraries are loaded with dlopen at ergo_init (nothing is linked at build time). */
#ifndef ERGO_RUNTIME_FORWARD_H
#define ERGO_RUNTIME_FORWARD_H

/* Read ERGO_FORWARD; when set, load the named libraries and attach one hook table that forwards
 * every push and pop of the pushing thread.  Unset: nothing is loaded or attached, so the core's
 * hot path is untouched.  A bad value or a missing library: one warning line, the run goes on. */
void ergo__forward_start(void);
/* Detach and unload (after the core's finalize). */
void ergo__forward_stop(void);

#endif
