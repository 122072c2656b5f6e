/* model.c - fuzzes the tuning-model loader (policies/model.c, ERGO_MODEL's file). */
#include "fuzz.h"

#include "policies/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ergo__model m;
  char why[1024] = "";
  if (ergo__model_load(fuzz_file("model.json", data, size), &m, why, sizeof why) == 0)
    ergo__model_free(&m);
  return 0;
}
