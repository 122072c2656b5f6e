/* api.c - the public face of the sim node: ergo_sim_work, ergo_sim_active, ergo_sim_oracle. */
#include "ergo_sim.h"
#include "sim/node.h"
#include "sim/oracle.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>

int ergo_sim_active(void) { return ergo__sim() != NULL; }

int ergo_sim_work(const ergo_sim_work_desc *w) {
  if (!w) return ERGO_EINVAL;
  ergo__sim_work work = {w->gcycles, w->gbytes, w->serial};
  return ergo__sim_run(&work, NULL);
}

int ergo_sim_wait(double seconds) { return ergo__sim_wait(seconds); }

static void point(const ergo__sim_choice *c, ergo_sim_point *out) {
  out->core_khz = ergo__sim_khz(c->config.f_ghz);
  out->uncore_khz = ergo__sim_khz(c->config.u_ghz);
  out->threads = c->config.threads;
  out->time_s = c->result.time_s;
  out->energy_j = c->result.e_pkg_j + c->result.e_dram_j;
  out->objective = c->value;
}

int ergo_sim_oracle(const ergo_sim_work_desc *w, const char *objective, ergo_sim_point *best,
                    ergo_sim_point *baseline) {
  if (!w) return ERGO_EINVAL;
  char why[512];
  ergo__objective o;
  int rc = ergo__objective_parse(objective, &o, why, sizeof why);
  if (rc) {
    ergo__error("ergo_sim_oracle: %s", why);
    return rc;
  }
  ergo__sim_params p;
  ergo__sim_node *n = ergo__sim();
  if (n) {
    p = n->p;
  } else {
    ergo__sim_params_default(&p);
    const char *file = getenv("ERGO_SIM_NODE");
    if (file && *file && (rc = ergo__sim_params_load(&p, file, why, sizeof why)) != 0) {
      ergo__error("ergo_sim_oracle: %s", why);
      return rc;
    }
  }
  ergo__sim_work work = {w->gcycles, w->gbytes, w->serial};
  ergo__sim_choice b, base;
  if ((rc = ergo__sim_oracle(&p, &work, &o, &b, &base)) != 0) return rc;
  if (best) point(&b, best);
  if (baseline) point(&base, baseline);
  return 0;
}
