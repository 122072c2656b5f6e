/* knobs.h - the knob layer as the runtime sees it: open the knobs, the settings stack, restore. */
#ifndef ERGO_KNOBS_KNOBS_H
#define ERGO_KNOBS_KNOBS_H

#include "ergo.h"
#include "knobs/knob.h"
#include "knobs/table.h"

#include <stdint.h>

/* Open the knobs `which` names ("auto": every one that works; "none"; or a
 * comma list).  A named knob that does not open is one warning line; under
 * "auto" an unavailable knob is simply absent (`ergo info` says why).  With
 * sim, the sim node's knobs stand in for the machine's. */
int ergo__knobs_start(const char *which, int sim);

/* Before ergo__knobs_start: the packages (bit p) whose uncore this process writes.  An MPI
 * node elects one rank per package; the others keep the knob (so every rank of the node makes
 * the same decisions) but their writes skip those dies.  Default: every package. */
void ergo__uncore_share(uint64_t packages);

/* Before ergo__knobs_start: the threads knob's ceiling (ERGO_THREADS_MAX).  0 (the default):
 * the thread count the application started with, omp_get_max_threads() when the knob opens
 * (at ergo_init), since codes size per-thread arrays from it once.  The knob's values are then
 * 1..the ceiling, never above this process's cores or OMP_THREAD_LIMIT.  The sim node's threads
 * knob models its own node and ignores this. */
void ergo__threads_ceiling(int max);

/* Put every knob back as found (the state file's records, then each backend's own restore),
 * remove the state file, close.  Unwind the settings stack first (ergo__settings_reset), so that
 * its values go back through the backends.  Safe to call twice. */
void ergo__knobs_stop(void);

/* The open knob in slot i, or NULL. */
ergo__knob *ergo__knob_get(int slot);

/* The settings stack (main thread).  want[i] == 0 inherits.  Validates every
 * value first: nothing is written unless all are allowed. */
int ergo__settings_push(const int64_t want[ERGO__NKNOBS]);
int ergo__settings_pop(void);
/* Unwind to the bottom (the machine's original values). */
void ergo__settings_reset(void);
/* The calling thread (ergo_init's, before ergo__knobs_start) owns the settings stack:
 * ergo_setting_push/pop from any other thread is refused with one error line.  Until a thread
 * owns it, any may push and pop. */
void ergo__settings_own(void);
/* Every knob's files were written back (before an exec that then failed): forget the saved
 * originals and the values in force, so that the next change saves them again to a new state
 * file. */
void ergo__knobs_forget_saved(void);

#endif
