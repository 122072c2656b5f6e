/* online.c - the online policy (ERGO_POLICY=online): per significant region an ask/tell
 * Nelder-Mead (optimizer/nm.h) over the node's knob grid; the region's executions measure the
 * configs it asks for, then run at its choice; at the end the choices go into the tuning model. */
#include "optimizer/nm.h"
#include "policies/model.h"
#include "policies/policy.h"
#include "policies/summary.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ONLINE_DEFAULT_MODEL "ergo-model.json"
/* Executions per region the search may use (the convergence bound). */
#define ONLINE_BUDGET 40
/* With noise: measurements of the baseline and of each deciding config. */
#define ONLINE_REPEATS 3
/* The noise of one measurement assumed on real hardware until the repeats
 * show it (RAPL on regions of 100 ms and more is usually quieter). */
#define ONLINE_NOISE 0.02
/* Executions in a row that ran under another config than asked (the knobs
 * refused it, or a parent's config was in force) before a region gives up. */
#define ONLINE_MISMATCHES 3

typedef struct online_region {
  ergo__nm *nm; /* NULL: gave up, the region inherits */
  char *path;
  int point[ERGO__NM_MAX_DIMS]; /* the point asked, when asked */
  int asked, chosen, mismatches;
  long first_step, execs; /* the step of its first tuned execution; executions observed */
  struct online_region *next;
} online_region;

typedef struct online_priv {
  ergo__nm_grid grid;
  ergo__nm_options opt;
  online_region *regions, **tail; /* in the order they were first tuned */
} online_priv;

/* The grid of the space: one dimension per knob slot (an absent knob is a
 * single point, not searched), the baseline as start, threads on a log scale. */
static int grid_of(const ergo__space *s, ergo__nm_grid *g) {
  int open = 0;
  memset(g, 0, sizeof *g);
  g->dims = ERGO__NKNOBS;
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    g->n[i] = s->n[i] ? s->n[i] : 1;
    for (int k = 0; k < s->n[i]; k++)
      if (s->values[i][k] == ergo__space_round(s, i, s->baseline[i])) g->start[i] = k;
    open += s->n[i] > 1;
  }
  g->log[ERGO__KNOB_THREADS] = 1;
  return open;
}

static void config_of(const ergo__space *s, const int *point, ergo__config *c) {
  for (int i = 0; i < ERGO__NKNOBS; i++) c->v[i] = s->n[i] ? s->values[i][point[i]] : 0;
}

static int online_start(ergo__policy *p, char *why, size_t whylen) {
  online_priv *o = calloc(1, sizeof *o);
  if (!o) return ERGO_ENOMEM;
  if (!grid_of(&p->space, &o->grid)) {
    free(o);
    snprintf(why, whylen,
             "no knob on this node has more than one value, so there is nothing "
             "to tune (`ergo info` says which knobs are missing and why)");
    return ERGO_EINVAL;
  }
  ergo__nm_options_default(&o->opt);
  o->opt.max_evals = ONLINE_BUDGET;
  /* The sim node says how noisy it is; real hardware gets repeats and a
   * modest guess, which the optimiser corrects from what the repeats show. */
  o->opt.noise_rel = p->sim ? p->cfg->sim_noise : ONLINE_NOISE;
  o->opt.repeats = p->sim && p->cfg->sim_noise <= 0 ? 1 : ONLINE_REPEATS;
  o->tail = &o->regions;
  p->priv = o;
  if (p->talk)
    ergo__info("online: each significant region searches for its setting in up to %d executions, "
               "then runs at its choice: up to %d steps for a region run once per step",
               ONLINE_BUDGET, ONLINE_BUDGET);
  return 0;
}

/* The region's optimiser, made at its first significant execution; NULL on
 * no memory (the region then inherits, as under monitor). */
static online_region *region_of(ergo__policy *p, ergo__region_state *r) {
  if (r->policy) return r->policy;
  online_priv *o = p->priv;
  online_region * or = calloc(1, sizeof * or);
  if (! or) return NULL;
  or->nm = ergo__nm_new(&o->grid, &p->objective, &o->opt);
  or->path = strdup(r->path);
  if (! or->nm || ! or->path) {
    ergo__nm_free(or->nm);
    free(or->path);
    free(or);
    return NULL;
  }
  or->first_step = p->steps;
  *o->tail = or ;
  o->tail = & or->next;
  r->policy = or ;
  return or ;
}

/* The next point to measure, or the final choice once the search is over. */
static void next_point(online_region * or) {
  if (! or->asked) or->asked = ergo__nm_ask(or->nm, or->point);
}

static void online_choose(ergo__policy *p, ergo__region_state *r, ergo__config *out) {
  online_region * or = region_of(p, r);
  memset(out, 0, sizeof *out);
  if (! or || ! or->nm) return;
  next_point(or);
  config_of(&p->space, or->point, out);
  or->chosen = 1;
}

/* The execution's measurement answers the ask if it ran under the config
 * asked for; the first execution (before any choice) counts when the
 * baseline was in force. */
static void online_observe(ergo__policy *p, ergo__region_state *r, const ergo__config *applied,
                           const ergo__measure *m) {
  online_region * or = region_of(p, r);
  if (! or || ! or->nm || ergo__nm_done(or->nm)) return;
  or->execs++;
  int chosen = or->chosen;
  or->chosen = 0;
  next_point(or);
  if (! or->asked) return;
  ergo__config want;
  config_of(&p->space, or->point, &want);
  int same = 1;
  for (int i = 0; i < ERGO__NKNOBS; i++) same &= !p->space.n[i] || applied->v[i] == want.v[i];
  if (same) {
    if (ergo__nm_tell(or->nm, or->point, m) == 0) or->asked = 0;
    or->mismatches = 0;
  } else if (chosen && ++ or->mismatches >= ONLINE_MISMATCHES) {
    ergo__warn("online: region '%s' ran %d times in a row under another config than the one "
               "chosen (a knob refused it, or an enclosing region's config); it is no longer "
               "tuned and inherits",
               or->path, ONLINE_MISMATCHES);
    ergo__nm_free(or->nm);
    or->nm = NULL;
  }
}

/* One region's model entry: its choice, the baseline, every config measured
 * (the Pareto set first).  0, 1 when nothing was measured, or ERGO_ENOMEM. */
static int region_model(const ergo__policy *p, ergo__model *m, const online_region * or) {
  ergo__measure mean;
  int point[ERGO__NM_MAX_DIMS], n;
  /* Once measured (a region that ran once) is its baseline alone: not tuned, no entry. */
  if (! or->nm || ergo__nm_evals(or->nm) == 0 || or->execs <= 1) return 1;
  ergo__model_region *mr = ergo__model_region_add(m, or->path);
  if (!mr) return ERGO_ENOMEM;
  ergo__nm_best(or->nm, point, NULL, NULL);
  config_of(&p->space, point, &mr->best);
  ergo__nm_baseline(or->nm, &mr->baseline);
  for (int i = 0; ergo__nm_point(or->nm, i, point, &mean, &n); i++) {
    ergo__config c;
    config_of(&p->space, point, &c);
    if (n && ergo__model_point_add(mr, &c, mean.time_s, mean.energy_j, n)) return ERGO_ENOMEM;
  }
  ergo__model_pareto(mr);
  return 0;
}

/* The model of every region tuned so far (a search cut short has its best so far); *unfinished
 * counts the regions whose search is not over, *first the first of them.  0, or ERGO_ENOMEM. */
static int build_model(ergo__policy *p, ergo__model *m, int *unfinished,
                       const online_region **first) {
  online_priv *o = p->priv;
  memset(m, 0, sizeof *m);
  snprintf(m->policy, sizeof m->policy, "online");
  ergo__objective_name(&p->objective, m->objective, sizeof m->objective);
  snprintf(m->platform, sizeof m->platform, "%s", p->sim ? "sim" : "real");
  m->steps = p->steps;
  *unfinished = 0;
  *first = NULL;
  for (const online_region * or = o->regions; or ; or = or->next) {
    if (region_model(p, m, or) < 0) return ERGO_ENOMEM;
    /* A region that ran once is the tuner's to name: more steps would not help it. */
    if (or->nm && !ergo__nm_done(or->nm) && or->execs > 1 && !(*unfinished)++) *first = or ;
  }
  return 0;
}

/* During the run: the model so far, marked partial. */
static int online_save(ergo__policy *p) {
  ergo__model m;
  int unfinished;
  const online_region *first;
  int rc = build_model(p, &m, &unfinished, &first);
  m.partial = 1;
  if (!rc)
    rc = ergo__model_save(p->cfg->model ? p->cfg->model : ONLINE_DEFAULT_MODEL, &m, &p->space);
  ergo__model_free(&m);
  return rc;
}

static int online_finish(ergo__policy *p) {
  ergo__model m;
  int unfinished;
  const online_region *first;
  int rc = build_model(p, &m, &unfinished, &first);
  const char *path = p->cfg->model ? p->cfg->model : ONLINE_DEFAULT_MODEL;
  int written = 0;
  if (rc < 0)
    ergo__error("online: out of memory while building the tuning model; '%s' not written", path);
  else if ((rc = ergo__model_save(path, &m, &p->space)) == 0)
    written = 1;
  else {
    ergo__error("online: the tuning model could not be written to '%s': %s (fix: set ERGO_MODEL "
                "to a writable path)",
                path, ergo_strerror(rc));
    ergo__model_save_fallback(path, &m, &p->space);
  }
  /* A search cut short still has a choice (the best that beat the baseline
   * with confidence so far, else the baseline): say so once. */
  if (unfinished && !p->said)
    ergo__warn("online: %d region%s did not converge (first: '%s', after %d executions); the "
               "model keeps the best config found so far (fix: run more steps)",
               unfinished, unfinished == 1 ? "" : "s", first->path, ergo__nm_evals(first->nm));
  char tail[1100];
  snprintf(tail, sizeof tail, "tuning model written to %s%s", path,
           m.nregions ? "" : " (no regions)");
  ergo__summary_print(&m, NULL, written ? tail : NULL);
  ergo__model_free(&m);
  return rc < 0 ? rc : 0;
}

static void online_stop(ergo__policy *p) {
  online_priv *o = p->priv;
  if (!o) return;
  while (o->regions) {
    online_region *next = o->regions->next;
    ergo__nm_free(o->regions->nm);
    free(o->regions->path);
    free(o->regions);
    o->regions = next;
  }
  free(o);
  p->priv = NULL;
}

/* "2 of 13 regions converged, 364 executions left at most, about 28 steps to go". */
static int online_progress(ergo__policy *p, char *buf, size_t len) {
  online_priv *o = p->priv;
  int n = 0, done = 0;
  long left = 0, steps = 0;
  for (const online_region * or = o->regions; or ; or = or->next) {
    n++;
    if (! or->nm || ergo__nm_done(or->nm)) {
      done++;
      continue;
    }
    int evals = ergo__nm_evals(or->nm);
    long l = ONLINE_BUDGET > evals ? ONLINE_BUDGET - evals : 1; /* the search may end early */
    left += l;
    long ran = p->steps - or->first_step;
    if (ran > 0 && or->execs > 0) {
      long st = (long)((double)l * (double)ran / (double) or->execs + 0.999);
      if (st > steps) steps = st;
    }
  }
  if (!n) return 0;
  int w = snprintf(buf, len, "%d of %d region%s converged, %ld execution%s left at most", done, n,
                   n == 1 ? "" : "s", left, left == 1 ? "" : "s");
  if (steps && w > 0 && (size_t)w < len)
    snprintf(buf + w, len - (size_t)w, ", about %ld step%s to go", steps, steps == 1 ? "" : "s");
  return 1;
}

/* The live view: the best so far, the measurements used of the budget. */
static int online_inspect(ergo__policy *p, ergo__region_state *r, ergo__policy_view *v) {
  const online_region * or = r->policy;
  if (! or || ! or->nm) return 0;
  int point[ERGO__NM_MAX_DIMS], start[ERGO__NM_MAX_DIMS];
  ergo__nm_best(or->nm, point, NULL, NULL);
  config_of(&p->space, point, &v->best);
  v->evals = ergo__nm_evals(or->nm);
  v->budget = ONLINE_BUDGET;
  v->done = ergo__nm_done(or->nm);
  online_priv *o = p->priv;
  memcpy(start, o->grid.start, sizeof start);
  /* The search keeps the baseline unless a point beats it with that confidence. */
  v->confidence =
      memcmp(point, start, sizeof(int) * (size_t)o->grid.dims) ? ERGO__NM_CONFIDENCE : 0.0;
  return 1;
}

/* A new objective during the run: each region's search starts again under it, and every
 * measurement the old search made answers the new one's asks (as often as it was measured)
 * until the new search asks for a point not measured yet, which the region's next executions
 * measure.  The budget counts the replayed measurements, so a region does not search twice. */
static void online_reobjective(ergo__policy *p) {
  online_priv *o = p->priv;
  for (online_region * or = o->regions; or ; or = or->next) {
    if (! or->nm) continue;
    ergo__nm *old = or->nm, *nw = ergo__nm_new(&o->grid, &p->objective, &o->opt);
    if (!nw) continue; /* no memory: the old search goes on under the old objective */
    int np = ergo__nm_points(old) + 1; /* with the baseline, measured or not */
    int *used = calloc((size_t)(np > 0 ? np : 1), sizeof *used);
    int pt[ERGO__NM_MAX_DIMS], q[ERGO__NM_MAX_DIMS];
    while (used && ergo__nm_ask(nw, pt)) {
      ergo__measure mean;
      int n, i, told = 0;
      for (i = 0; ergo__nm_point(old, i, q, &mean, &n); i++)
        if (!memcmp(q, pt, sizeof(int) * (size_t)o->grid.dims) && used[i] < n) {
          told = ergo__nm_tell(nw, pt, &mean) == 0;
          used[i] += told;
          break;
        }
      if (!told) break;
    }
    free(used);
    ergo__nm_free(old);
    or->nm = nw;
    or->asked = 0; /* asked again at the next choice: the new search's point */
    or->chosen = 0;
    or->mismatches = 0;
  }
}

const ergo__policy_ops ergo__policy_online = {
    "online",        online_start, online_choose, online_observe, online_finish,     online_stop,
    online_progress, NULL,         online_save,   online_inspect, online_reobjective};
