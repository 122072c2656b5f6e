/* work_counter.h - a real node's work counter: instructions retired by the process (perf). */
#ifndef ERGO_ENERGY_WORK_COUNTER_H
#define ERGO_ENERGY_WORK_COUNTER_H

#include <stddef.h>
#include <stdint.h>

/* Open the counter of perf event (type, config) for the calling thread and every thread created
 * from now on (inherited; ergo_init runs on the main thread, before the program's threads): user
 * space only.  0, or -1 with one line in why saying what failed and
 * the fix.  Opening again closes the one before.  ergo__work_counter_start() opens instructions
 * retired; the tests open a software event, which every Linux counts. */
int ergo__work_counter_open(uint32_t type, uint64_t config, char *why, size_t n);
/* Instructions retired (PERF_COUNT_HW_INSTRUCTIONS) for ERGO_WORK=instructions. */
int ergo__work_counter_start(char *why, size_t n);
/* Whether ergo__work_counter_start would open here (`ergo info`): 0, or -1 with why; the counter
 * in use, if any, is left alone. */
int ergo__work_counter_probe(char *why, size_t n);
/* The count so far over every counted thread, in units of 1e9 (scaled up where the kernel
 * multiplexed the counter); -1 when none is open or the read failed. */
double ergo__work_counter_read(void);
/* Threads of the process that ran before the counter opened (their counts are not in it); 0
 * when none or unknown. */
int ergo__work_counter_threads_before(void);
void ergo__work_counter_stop(void);

#endif
