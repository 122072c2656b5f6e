/* step_ffi.c - ergo_step as a foreign caller sees it: this program does not include ergo.h (as
 * Fortran's bind(C) or a Python ctypes binding would not), so `ergo_step` can only be the
 * function libergo.so exports.  It calls it three ways: a plain call resolved by the dynamic
 * linker, a function pointer, and dlsym on libergo.so (argv[1]), then checks the step file.
 * usage: ergo-test-step-ffi LIBERGO_SO STEP_FILE (the environment sets ERGO_REPORT_STEPS). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The public API's declarations, written out by hand. */
int ergo_init(const void *cfg);
int ergo_finalize(void);
int ergo_step(long step);

#define ERGO_ESTATE (-7)

static int fail(const char *what) {
  fprintf(stderr, "FAIL: %s\n", what);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) return fail("usage: ergo-test-step-ffi LIBERGO_SO STEP_FILE");
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
  if (!lib) lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) return fail(dlerror());
  int (*by_dlsym)(long) = (int (*)(long))dlsym(lib, "ergo_step");
  if (!by_dlsym) return fail("dlsym(libergo.so, \"ergo_step\") found nothing");
  int (*by_pointer)(long) = ergo_step;
  if (by_pointer != by_dlsym) return fail("&ergo_step and dlsym's ergo_step differ");

  if (ergo_step(1) != ERGO_ESTATE) return fail("ergo_step before ergo_init is not ERGO_ESTATE");
  if (ergo_init(NULL) != 0) return fail("ergo_init(NULL)");
  if (ergo_step(1) != 0) return fail("ergo_step(1), a plain call");
  if (by_pointer(2) != 0) return fail("ergo_step(2) through a function pointer");
  if (by_dlsym(3) != 0) return fail("ergo_step(3) through dlsym");
  if (ergo_finalize() != 0) return fail("ergo_finalize");
  dlclose(lib);

  FILE *f = fopen(argv[2], "r");
  if (!f) return fail("no step file");
  char line[256];
  long want = 1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "Step ", 5) == 0) {
      if (strtol(line + 5, NULL, 10) != want) return fail("steps out of order");
      want++;
    }
  fclose(f);
  if (want != 4) return fail("the step file does not hold steps 1, 2 and 3");
  printf("ergo_step: plain call, function pointer and dlsym all reach libergo.so\n");
  return 0;
}
