/* serial_maps.c - a serial program linked with libergo: after ergo_init and a region, no MPI
 * library (libmpi*, libergo-mpi, Open MPI's libopen-*) may be mapped into the process. */
#include "ergo.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  if (ergo_init(NULL) != 0) return 1;
  ERGO_PUSH(1, "SERIAL");
  ERGO_POP(1, "SERIAL");
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) {
    printf("SKIPPED: no /proc/self/maps\n");
    return 77;
  }
  char line[4096];
  int bad = 0;
  while (fgets(line, sizeof line, f)) {
    const char *name = strrchr(line, '/');
    if (name && (strstr(name, "libmpi") || strstr(name, "libergo-mpi") ||
                 strstr(name, "libopen-") || strstr(name, "libpmix"))) {
      printf("FAIL: mapped %s", line);
      bad = 1;
    }
  }
  fclose(f);
  if (ergo_finalize() != 0) return 1;
  if (!bad) printf("serial: no MPI library mapped\n");
  return bad;
}
