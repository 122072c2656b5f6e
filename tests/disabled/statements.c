/* statements.c - every ERGO_* macro used the ways a code uses them, built with ERGO_DISABLE,
 * -Wall -Wextra -Werror, as C and (when a C++ compiler is there) as C++: a macro used as a
 * statement must not warn (-Wunused-value), one used as a value must still give 0. */
#include <ergo.h>

#include <stdio.h>

int main(void) {
  ERGO_INIT();
  ERGO_PUSH(1, "outer");
  ERGO_POPPUSH(1, "outer", "next");
  ERGO_STEP(1);
  ERGO_POP(1, "next");
  ERGO_FINALIZE();
  int rc = ERGO_INIT();
  rc |= ERGO_FINALIZE();
  if (rc) return 1;
  if (ERGO_INIT() != 0) return 1;
  puts("disabled: ok");
  return 0;
}
