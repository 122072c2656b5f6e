/* many_pops.c - a program with a mismatched pop in every one of N steps (argv[1], default 10000):
 * the log_repeats test checks that stderr gets a few lines and a summary, not N, and that every
 * error is still counted ("errors: N" on stdout). */
#include <ergo.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
  if (ergo_init(NULL) != 0) return 3;
  for (long i = 0; i < n; i++) {
    ERGO_PUSH(1, "step");
    ERGO_POP(1, "stpe"); /* the slip: this pop is ignored, one error */
    ERGO_POP(1, "step");
  }
  ergo_finalize();
  printf("errors: %lu\n", ergo_error_count());
  return 0;
}
