/* oracle.c - the exhaustive best config of a piece of work on the sim node, for an objective. */
#include "sim/oracle.h"

#include "ergo.h"

#include <math.h>
#include <string.h>

void ergo__sim_measure(const ergo__sim_params *p, const ergo__sim_config *c,
                       const ergo__sim_result *r, ergo__measure *m) {
  m->time_s = r->time_s;
  m->energy_j = r->e_pkg_j + r->e_dram_j;
  m->resource = (double)c->threads / p->cores;
}

static int work_ok(const ergo__sim_work *w) {
  return isfinite(w->gcycles) && w->gcycles >= 0 && isfinite(w->gbytes) && w->gbytes >= 0 &&
         w->serial >= 0 && w->serial <= 1;
}

int ergo__sim_oracle(const ergo__sim_params *p, const ergo__sim_work *w, const ergo__objective *o,
                     ergo__sim_choice *best, ergo__sim_choice *baseline) {
  char why[256];
  if (!p || !w || !o || !best || ergo__sim_params_check(p, why, sizeof why) || !work_ok(w))
    return ERGO_EINVAL;
  int nf = ergo__sim_nf(p), nu = ergo__sim_nu(p);

  /* The untuned node: every knob at its maximum. */
  ergo__sim_choice base;
  ergo__measure mb;
  base.config = (ergo__sim_config){ergo__sim_f(p, nf - 1), ergo__sim_u(p, nu - 1), p->cores};
  ergo__sim_eval(p, w, &base.config, &base.result);
  ergo__sim_measure(p, &base.config, &base.result, &mb);
  base.value = ergo__objective_value(o, &mb, &mb);

  /* Ascending f, then u, then threads, replacing only on a strictly lower
   * value: among equal values the first, least-resource point stays. */
  ergo__sim_choice b;
  int have = 0;
  for (int i = 0; i < nf; i++) {
    ergo__sim_config c = {ergo__sim_f(p, i), 0, 0};
    for (int j = 0; j < nu; j++) {
      c.u_ghz = ergo__sim_u(p, j);
      for (c.threads = 1; c.threads <= p->cores; c.threads++) {
        ergo__sim_result r;
        ergo__measure m;
        ergo__sim_eval(p, w, &c, &r);
        ergo__sim_measure(p, &c, &r, &m);
        double v = ergo__objective_value(o, &m, &mb);
        if (!have || v < b.value) {
          b.config = c;
          b.result = r;
          b.value = v;
          have = 1;
        }
      }
    }
  }
  *best = b;
  if (baseline) *baseline = base;
  return 0;
}
