/* checkpoint.c - fuzzes the checkpoint loader (core/checkpoint.c, ergo_checkpoint_load): each
 * input is loaded into a fresh ergo (no report, no energy, no knobs). */
#include "fuzz.h"

#include <ergo.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file("checkpoint.json", data, size);
  ergo_config c;
  ergo_config_default(&c);
  c.report = "none";
  c.step_report = "none";
  c.balance = "none";
  c.energy = "none";
  c.knobs = "none";
  if (ergo_init(&c) != 0) abort();
  ergo_push_at(1, "solve", __FILE__, __LINE__); /* a live tree to merge into */
  ergo_pop_at(1, "solve", __FILE__, __LINE__);
  ergo_checkpoint_load(path);
  ergo_finalize();
  return 0;
}
