/* overhead.h - what overhead.c needs from the other benchmark units. */
#ifndef ERGO_BENCH_OVERHEAD_H
#define ERGO_BENCH_OVERHEAD_H

/* n ERGO_PUSH/ERGO_POP pairs above ERGO_LEVEL (defined in overhead_off.c). */
void ergo_bench_off_loop(long n);

#endif
