/* runtime.c - ergo_init/ergo_finalize: the core, then the layers that attach to it (energy). */
#include "core/internal.h"
#include "energy/energy.h"
#include "knobs/knobs.h"

#include <stdlib.h>

int ergo_init(const ergo_config *user) {
  if (ergo__g.initialized) return ergo__core_init(user); /* says why, returns ERGO_ESTATE */
  ergo_config cfg;
  if (user) {
    if (ergo__config_check(user)) return ERGO_EINVAL;
    cfg = *user;
  } else {
    ergo_config_default(&cfg);
    /* Bad environment values were reported and kept at their defaults; with
     * ERGO_ON_ERROR=abort (when that variable itself is valid) they are fatal. */
    if (ergo_config_from_env(&cfg) && cfg.on_error == ERGO_ON_ERROR_ABORT) {
      ergo__warn("aborting because ERGO_ON_ERROR=abort and the environment has errors");
      abort();
    }
  }
  int rc = ergo__core_init(&cfg);
  if (rc) return rc;
  /* Energy is an addition: without a meter the run measures time and goes on. */
  ergo__energy_start(&ergo__g.cfg);
  /* Knobs that do not open are absent; only named ones warn. */
  ergo__knobs_start(ergo__g.cfg.knobs);
  return 0;
}

int ergo_finalize(void) {
  if (!ergo__g.initialized) return 0;
  int rc = ergo__core_finalize(); /* runs the energy layer's finalize hook, writes reports */
  ergo__energy_stop();
  ergo__knobs_stop(); /* every knob back as found, the state file removed */
  return rc;
}
