/* region_levels.c - regions built with ERGO_LEVEL 1, for the compile-time level test. */
#define ERGO_LEVEL 1
#include <ergo.h>

void compiled_out_regions(void);
void compiled_out_regions(void) {
  ERGO_PUSH(1, "kept_level_1");
  ERGO_PUSH(2, "dropped_level_2");
  ERGO_POP(2, "dropped_level_2");
  ERGO_POPPUSH(2, "dropped_level_2", "dropped_level_2");
  ERGO_POP(1, "kept_level_1");
}
