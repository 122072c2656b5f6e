/* scoped_c.c - the C program whose region tree tests/cxx/scoped.cpp must give. */
#include <ergo.h>

#include <stdio.h>

static volatile double sink;
static void work(int n) {
  for (int i = 0; i < n * 1000; i++) sink = sink + i * 0.5;
}

int main(void) {
  if (ergo_init(NULL) != 0) return 1;
  for (int step = 1; step <= 3; step++) {
    ERGO_PUSH(1, "Timestep");
    ERGO_PUSH(2, "FIND_HSML");
    ERGO_PUSH(3, "Primary");
    work(3);
    ERGO_POP(3, "Primary");
    ERGO_PUSH(3, "Secondary");
    work(2);
    ERGO_POP(3, "Secondary");
    ERGO_POP(2, "FIND_HSML");
    if (step == 2) printf("caught: step 2 fails here\n");
    ERGO_PUSH(2, "DRIFT");
    work(1);
    ERGO_POP(2, "DRIFT");
    ergo_step(step);
    ERGO_POP(1, "Timestep");
  }
  int bad = ergo_error_count() != 0;
  ergo_finalize();
  return bad ? 2 : 0;
}
