/* overhead_off.c - the compiled-out case: level-5 macros in a unit built with ERGO_LEVEL 0. */
#define ERGO_LEVEL 0
#include "ergo.h"

#include "overhead.h"

/* The empty asm keeps the loop itself, so the figure is the bare loop cost:
 * everything the two macros add is what is left above it (nothing). */
void ergo_bench_off_loop(long n) {
  for (long i = 0; i < n; i++) {
    ERGO_PUSH(5, "compiled_out");
    ERGO_POP(5, "compiled_out");
    __asm__ volatile("" ::: "memory");
  }
}
