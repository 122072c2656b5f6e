/* sim.c - the sim node's knobs: core and uncore frequency and threads, same interface as the real.
 */
#include "ergo.h"
#include "knobs/knob.h"
#include "sim/node.h"

#include <stdio.h>

static int open_common(ergo__knob *k, char *why, size_t whylen) {
  (void)k;
  if (!ergo__sim()) {
    snprintf(why, whylen, "the sim node is not running (ERGO_PLATFORM=sim selects it)");
    return ERGO_ESTATE;
  }
  return 0;
}

static int valid(const ergo__knob *k, int64_t v) { return ergo__knob_settable(k, v); }

/* ---- core frequency ---- */
static int core_open(ergo__knob *k, char *why, size_t whylen) {
  int rc = open_common(k, why, whylen);
  if (rc) return rc;
  const ergo__sim_params *p = &ergo__sim()->p;
  k->nvalues = ergo__sim_nf(p);
  for (int i = 0; i < k->nvalues; i++) k->values[i] = ergo__sim_khz(ergo__sim_f(p, i));
  return 0;
}
static int core_get(ergo__knob *k, int64_t *v) {
  (void)k;
  *v = ergo__sim_khz(ergo__sim()->cfg.f_ghz);
  return 0;
}
static int core_set(ergo__knob *k, int64_t v) {
  if (!valid(k, v)) return ERGO_EINVAL;
  ergo__sim_node *n = ergo__sim();
  pthread_mutex_lock(&n->lock);
  n->cfg.f_ghz = (double)v * 1e-6;
  pthread_mutex_unlock(&n->lock);
  return 0;
}
static void core_restore(ergo__knob *k) {
  (void)k;
  ergo__sim_node *n = ergo__sim();
  if (n) n->cfg.f_ghz = n->initial.f_ghz;
}

/* ---- uncore frequency ---- */
static int uncore_open(ergo__knob *k, char *why, size_t whylen) {
  int rc = open_common(k, why, whylen);
  if (rc) return rc;
  const ergo__sim_params *p = &ergo__sim()->p;
  k->nvalues = ergo__sim_nu(p);
  for (int i = 0; i < k->nvalues; i++) k->values[i] = ergo__sim_khz(ergo__sim_u(p, i));
  return 0;
}
static int uncore_get(ergo__knob *k, int64_t *v) {
  (void)k;
  *v = ergo__sim_khz(ergo__sim()->cfg.u_ghz);
  return 0;
}
static int uncore_set(ergo__knob *k, int64_t v) {
  if (!valid(k, v)) return ERGO_EINVAL;
  ergo__sim_node *n = ergo__sim();
  pthread_mutex_lock(&n->lock);
  n->cfg.u_ghz = (double)v * 1e-6;
  pthread_mutex_unlock(&n->lock);
  return 0;
}
static void uncore_restore(ergo__knob *k) {
  (void)k;
  ergo__sim_node *n = ergo__sim();
  if (n) n->cfg.u_ghz = n->initial.u_ghz;
}

/* ---- threads ---- */
static int threads_open(ergo__knob *k, char *why, size_t whylen) {
  int rc = open_common(k, why, whylen);
  if (rc) return rc;
  k->nvalues = ergo__sim()->p.cores;
  for (int i = 0; i < k->nvalues; i++) k->values[i] = i + 1;
  return 0;
}
static int threads_get(ergo__knob *k, int64_t *v) {
  (void)k;
  *v = ergo__sim()->cfg.threads;
  return 0;
}
static int threads_set(ergo__knob *k, int64_t v) {
  if (!valid(k, v)) return ERGO_EINVAL;
  ergo__sim_node *n = ergo__sim();
  pthread_mutex_lock(&n->lock);
  n->cfg.threads = (int)v;
  pthread_mutex_unlock(&n->lock);
  return 0;
}
static void threads_restore(ergo__knob *k) {
  (void)k;
  ergo__sim_node *n = ergo__sim();
  if (n) n->cfg.threads = n->initial.threads;
}

/* Nothing on disk: a simulated knob needs no state file. */
static int no_save(ergo__knob *k) {
  (void)k;
  return 0;
}

/* Their names and units are their rows' in the knob table (knobs/table.c), the machine's. */
const ergo__knob_ops ergo__knob_sim_core = {
    .open = core_open, .get = core_get, .set = core_set, .save = no_save, .restore = core_restore};
const ergo__knob_ops ergo__knob_sim_uncore = {.open = uncore_open,
                                              .get = uncore_get,
                                              .set = uncore_set,
                                              .save = no_save,
                                              .restore = uncore_restore};
const ergo__knob_ops ergo__knob_sim_threads = {.open = threads_open,
                                               .get = threads_get,
                                               .set = threads_set,
                                               .save = no_save,
                                               .restore = threads_restore};
