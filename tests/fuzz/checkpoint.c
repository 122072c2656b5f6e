/* checkpoint.c - fuzzes the checkpoint loader (core/checkpoint.c, ergo_checkpoint_load): each
 * input is loaded into a fresh ergo (no report, no energy, no knobs) measuring a fake "energy",
 * so a file's amounts are matched and added too. */
#include "fuzz.h"

#include <ergo.h>

static int fake_energy(void *ctx, const ergo_region *r, double *out) {
  (void)ctx;
  (void)r;
  out[0] = 1.0;
  out[1] = 0.5;
  return 0;
}

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
  ergo_quantity q = {.name = "energy",
                     .unit = "J",
                     .rate_unit = "W",
                     .ncomponents = 2,
                     .components = {"package-0", "dram-0"},
                     .total_mask = 3,
                     .value = fake_energy};
  if (ergo_quantity_attach(&q, NULL) != 0) abort();
  ergo_push_at(1, "solve", __FILE__, __LINE__); /* a live tree to merge into */
  ergo_pop_at(1, "solve", __FILE__, __LINE__);
  if (ergo_checkpoint_load(path) == 0) free(ergo_report_string()); /* reads the amounts back */
  ergo_finalize();
  return 0;
}
