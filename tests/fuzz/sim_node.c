/* sim_node.c - fuzzes the sim node description (sim/model.c, ERGO_SIM_NODE's file). */
#include "fuzz.h"

#include "sim/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  char why[1024] = "";
  ergo__sim_params_load(&p, fuzz_file("node.json", data, size), why, sizeof why);
  return 0;
}
