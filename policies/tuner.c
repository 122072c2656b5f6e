/* tuner.c - drives a policy from the region hooks: per significant region, the policy's config on
 * entry (through the settings stack), and the exclusive time and energy of every execution. */
#include "policies/tuner.h"

#include "core/internal.h"
#include "energy/energy.h"
#include "policies/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERGO__TUNER_DEPTH 256

typedef struct rstate {
  ergo__region_state pub;
  struct rstate *next; /* every state, for freeing */
} rstate;

typedef struct frame {
  rstate *rs;
  double child_t, child_e; /* inclusive figures of the children of this execution */
  int pushed;
  ergo__config applied;
} frame;

static struct {
  int active;
  ergo__policy pol;
  int slot;
  double min_s;
  int level; /* regions deeper than the energy level are not measured, so not tuned */
  frame stack[ERGO__TUNER_DEPTH];
  int depth;
  rstate *states;
  int fixed_pushed;
} T;

static const ergo__policy_ops *const policies[] = {
    &ergo__policy_monitor, &ergo__policy_fixed,  &ergo__policy_static,
    &ergo__policy_sweep,   &ergo__policy_online,
};

int64_t ergo__space_round(const ergo__space *s, int i, int64_t v) {
  if (!s->n[i]) return 0;
  int best = 0;
  for (int k = 1; k < s->n[i]; k++) {
    int64_t d = llabs(s->values[i][k] - v), db = llabs(s->values[i][best] - v);
    if (d < db) best = k;
  }
  return s->values[i][best];
}

/* The path of a region as the JSON report writes it: "Global/A/B". */
static char *path_of(ergo_region *r) {
  const char *names[256];
  int n = 0;
  for (ergo_region *p = r; p && n < 256; p = ergo_region_parent(p))
    names[n++] = ergo_region_name(p);
  size_t len = 1;
  for (int i = 0; i < n; i++) len += strlen(names[i]) * 2 + 1;
  char *s = malloc(len), *o = s;
  if (!s) return NULL;
  for (int i = n - 1; i >= 0; i--) {
    for (const char *c = names[i]; *c; c++) {
      if (*c == '/' || *c == '\\') *o++ = '\\';
      *o++ = *c;
    }
    if (i) *o++ = '/';
  }
  *o = '\0';
  return s;
}

static void effective(ergo__config *c) {
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    ergo__knob *k = ergo__knob_get(i);
    c->v[i] = !k ? 0 : k->current_valid ? k->current : T.pol.space.baseline[i];
  }
}

static void tuner_enter(void *ctx, ergo_region *r, int level) {
  (void)ctx;
  if (ergo_region_thread(r) != 0 || level > T.level) return;
  if (T.depth >= ERGO__TUNER_DEPTH) {
    T.depth++; /* too deep: counted so the exits match, not tuned */
    return;
  }
  rstate **slot = (rstate **)ergo_region_slot(r, T.slot);
  if (!*slot) {
    rstate *s = calloc(1, sizeof *s);
    if (!s || !(s->pub.path = path_of(r))) {
      free(s);
      T.depth++;
      return;
    }
    s->next = T.states;
    T.states = s;
    *slot = s;
  }
  frame *f = &T.stack[T.depth++];
  memset(f, 0, sizeof *f);
  f->rs = *slot;
  if (f->rs->pub.significant) {
    ergo__config want = {{0}};
    T.pol.ops->choose(&T.pol, &f->rs->pub, &want);
    if (want.v[0] || want.v[1] || want.v[2]) f->pushed = ergo__settings_push(want.v) == 0;
  }
  effective(&f->applied);
}

static void tuner_exit(void *ctx, ergo_region *r, int level, uint64_t elapsed_ns) {
  (void)ctx;
  if (ergo_region_thread(r) != 0 || level > T.level || T.depth == 0) return;
  if (T.depth > ERGO__TUNER_DEPTH) {
    T.depth--;
    return;
  }
  frame *f = &T.stack[--T.depth];
  if (!f->rs) return;
  double t = (double)elapsed_ns * 1e-9, e = ergo__energy_last(r);
  ergo__region_state *rs = &f->rs->pub;
  double xt = t - f->child_t, xe = e - f->child_e;
  rs->executions++;
  rs->excl_time_s += xt > 0 ? xt : 0;
  /* A region's config governs its own code and every child too short to carry
   * one of its own, so that is what it is measured on: only significant
   * children (tuned on their own) are taken out of the parent's figures. */
  if (rs->executions == 1) rs->significant = rs->excl_time_s >= T.min_s;
  if (T.depth > 0 && rs->significant) {
    T.stack[T.depth - 1].child_t += t;
    T.stack[T.depth - 1].child_e += e > 0 ? e : 0;
  }
  if (rs->significant && e >= 0) {
    ergo__measure m = {xt > 0 ? xt : 0, xe > 0 ? xe : 0,
                       T.pol.space.cores && f->applied.v[ERGO__KNOB_THREADS]
                           ? (double)f->applied.v[ERGO__KNOB_THREADS] / T.pol.space.cores
                           : 1.0};
    T.pol.ops->observe(&T.pol, rs, &f->applied, &m);
  }
  if (f->pushed) ergo__settings_pop();
}

static void tuner_finalize(void *ctx) {
  (void)ctx;
  if (T.active && T.pol.ops->finish) T.pol.ops->finish(&T.pol);
}

static void build_space(ergo__space *s) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    ergo__knob *k = ergo__knob_get(i);
    if (!k) continue;
    s->n[i] = k->nvalues;
    memcpy(s->values[i], k->values, sizeof(int64_t) * (size_t)k->nvalues);
    int64_t v = 0;
    s->baseline[i] =
        k->ops->get(k, &v) == 0 ? ergo__space_round(s, i, v) : k->values[k->nvalues - 1];
  }
  s->cores = s->n[ERGO__KNOB_THREADS]
                 ? (int)s->values[ERGO__KNOB_THREADS][s->n[ERGO__KNOB_THREADS] - 1]
                 : 1;
}

int ergo__tuner_start(const ergo_config *cfg) {
  memset(&T, 0, sizeof T);
  const char *name = cfg->policy ? cfg->policy : "monitor";
  const ergo__policy_ops *ops = NULL;
  for (size_t i = 0; i < sizeof policies / sizeof *policies; i++)
    if (strcmp(policies[i]->name, name) == 0) ops = policies[i];
  if (!ops) {
    ergo__warn("ERGO_POLICY=%s is not in this build of ergo yet; running as monitor (changes "
               "nothing)",
               name);
    ops = &ergo__policy_monitor;
  }
  char why[1024] = "";
  ergo__objective obj;
  if (ergo__objective_parse(cfg->objective, &obj, why, sizeof why) != 0) {
    ergo__warn("%s; tuning as monitor (changes nothing)", why);
    ops = &ergo__policy_monitor;
    ergo__objective_parse(NULL, &obj, why, sizeof why);
  }
  T.pol.ops = ops;
  T.pol.objective = obj;
  T.pol.cfg = cfg;
  build_space(&T.pol.space);
  T.min_s = cfg->min_region_ms * 1e-3;
  T.level = cfg->energy_level;
  int rc = ops->start ? ops->start(&T.pol, why, sizeof why) : 0;
  if (rc) {
    ergo__warn("ERGO_POLICY=%s: %s; running as monitor (changes nothing)", name, why);
    if (ops->stop) ops->stop(&T.pol);
    memset(&T.pol.priv, 0, sizeof T.pol.priv);
    T.pol.ops = &ergo__policy_monitor;
  }
  /* monitor needs no hooks: it changes nothing and the reports already measure. */
  if (T.pol.ops == &ergo__policy_monitor) return rc;
  ergo_hooks h = {tuner_enter, tuner_exit, tuner_finalize, NULL, NULL};
  if ((rc = ergo_hooks_attach(&h, &T.slot)) != 0) return rc;
  T.active = 1;
  return 0;
}

void ergo__tuner_stop(void) {
  if (T.pol.ops && T.pol.ops->stop) T.pol.ops->stop(&T.pol);
  while (T.states) {
    rstate *n = T.states->next;
    free((char *)T.states->pub.path);
    free(T.states);
    T.states = n;
  }
  memset(&T, 0, sizeof T);
}
