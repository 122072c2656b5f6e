/* forward_order.c - pushes and pops a fixed nest of regions (a loop, a POPPUSH, a region reached
 * by two paths) and prints each push and pop as "push NAME" / "pop" on stdout, the sequence a
 * forwarding stand-in must record.  With the argument "maps" it prints, after ergo_init, each
 * line of /proc/self/maps naming a fake_ library (none when ERGO_FORWARD is unset). */
#include <ergo.h>

#include <stdio.h>
#include <string.h>

#define PUSH(l, s)                                                                                 \
  do {                                                                                             \
    ERGO_PUSH(l, s);                                                                               \
    printf("push %s\n", s);                                                                        \
  } while (0)
#define POP(l, s)                                                                                  \
  do {                                                                                             \
    ERGO_POP(l, s);                                                                                \
    printf("pop\n");                                                                               \
  } while (0)

int main(int argc, char **argv) {
  if (ergo_init(NULL) != 0) return 1;
  if (argc > 1 && strcmp(argv[1], "maps") == 0) {
    FILE *f = fopen("/proc/self/maps", "r");
    char buf[4096];
    while (f && fgets(buf, sizeof buf, f))
      if (strstr(buf, "fake_")) printf("mapped: %s", buf);
    if (f) fclose(f);
  }
  PUSH(1, "solve");
  for (int i = 0; i < 3; i++) {
    PUSH(2, "step");
    PUSH(3, "halo");
    POP(3, "halo");
    PUSH(3, "compute");
    if (i == 1) {
      PUSH(4, "halo");
      POP(4, "halo");
    }
    POP(3, "compute");
    PUSH(3, "copy");
    ERGO_POPPUSH(3, "copy", "exchange");
    printf("pop\npush exchange\n");
    POP(3, "exchange");
    POP(2, "step");
  }
  POP(1, "solve");
  PUSH(1, "output");
  POP(1, "output");
  fflush(stdout);
  return ergo_finalize();
}
