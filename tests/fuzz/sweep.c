/* sweep.c - fuzzes ERGO_SWEEP's grammar (policies/sweep_spec.c), "cpu=1.2:2.4:0.2,threads=4,8". */
#include "fuzz.h"

#include "optimizer/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = fuzz_string(data, size);
  ergo__sweep_spec *spec = malloc(sizeof *spec);
  char why[1024] = "";
  if (!spec) abort();
  ergo__sweep_parse(s, spec, why, sizeof why);
  free(spec);
  free(s);
  return 0;
}
