/* mismatch.c - a pop that names the wrong region: ergo says so in one line and goes on
 * (ERGO_ON_ERROR=warn, the default) or aborts (ERGO_ON_ERROR=abort). */
#include <ergo.h>

#include <stdio.h>

int main(void) {
  if (ergo_init(NULL) != 0) return 1;
  ERGO_PUSH(1, "solve");
  ERGO_PUSH(2, "assemble");
  ERGO_POP(2, "asemble"); /* the typo: this pop names a region that is not open */
  ERGO_POP(2, "assemble");
  ERGO_POP(1, "solve");
  printf("still running after the mismatch; %lu error(s) reported\n", ergo_error_count());
  return ergo_finalize() == 0 ? 0 : 1;
}
