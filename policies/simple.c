/* simple.c - the policies that need no search: monitor (changes nothing), fixed (one config for
 * the whole run), static (a tuning model's per-region configs). */
#include "optimizer/change.h"
#include "policies/model.h"
#include "policies/policy.h"
#include "policies/summary.h"
#include "util/log.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- monitor ---- */
static void inherit(ergo__policy *p, ergo__region_state *r, ergo__config *out) {
  (void)p, (void)r;
  memset(out, 0, sizeof *out);
}
static void ignore(ergo__policy *p, ergo__region_state *r, const ergo__config *c,
                   const ergo__measure *m) {
  (void)p, (void)r, (void)c, (void)m;
}
const ergo__policy_ops ergo__policy_monitor = {"monitor", NULL, inherit, ignore, NULL, NULL,
                                               NULL,      NULL, NULL,    NULL,   NULL};

/* ---- fixed: "cpu=1800000,uncore=2000000,threads=8", any subset; the keys are the knob
 * table's ---- */

/* "cpu=KHZ, uncore=KHZ, threads=N": every key of the table with its unit in capitals, N for a
 * count (a knob whose unit is its own name). */
static const char *fixed_forms(char *out, size_t len) {
  size_t o = 0;
  out[0] = '\0';
  for (int i = 0; i < ERGO__NKNOBS && o < len; i++) {
    const ergo__knob_row *row = &ergo__knob_table[i];
    char unit[16] = "N";
    if (strcmp(row->unit, row->key) != 0) {
      size_t u = 0;
      for (; row->unit[u] && u < sizeof unit - 1; u++)
        unit[u] = (char)toupper((unsigned char)row->unit[u]);
      unit[u] = '\0';
    }
    int n = snprintf(out + o, len - o, "%s%s=%s", i ? ", " : "", row->key, unit);
    if (n < 0) break;
    o += (size_t)n;
  }
  return out;
}

/* A frequency about 1000 times below the knob's range (ERGO_FIXED=cpu=1800: MHz where kHz are
 * meant, issue 12) would silently become the lowest value; a count (a knob whose unit is its own
 * key: threads) has no such slip. */
static int far_below(const ergo__space *space, int i, long long v) {
  const ergo__knob_row *row = &ergo__knob_table[i];
  if (strcmp(row->unit, row->key) == 0 || !space->n[i]) return 0;
  double lo = (double)space->values[i][0], hi = (double)space->values[i][space->n[i] - 1];
  return (double)v >= lo / 2000 && (double)v <= hi / 500;
}

int ergo__parse_fixed(const char *s, const ergo__space *space, ergo__config *c, char *why,
                      size_t whylen) {
  memset(c, 0, sizeof *c);
  if (!s || !*s) {
    /* An example of values, not the list of keys: those come from the table below. */
    snprintf(why, whylen,
             "ERGO_FIXED is not set: expected e.g. "
             "\"cpu=1800000,uncore=2000000,threads=8\" (kHz, kHz, threads)");
    return ERGO_EINVAL;
  }
  for (const char *p = s; *p;) {
    size_t n = strcspn(p, ",");
    const char *eq = memchr(p, '=', n);
    int i = eq ? ergo__knob_by_key(p, (size_t)(eq - p)) : -1;
    char *end = NULL;
    long long v = i >= 0 ? strtoll(eq + 1, &end, 10) : 0;
    if (i < 0 || end != p + n || v <= 0) {
      char forms[128];
      snprintf(why, whylen,
               "ERGO_FIXED='%s' is not valid at '%.*s': expected %s separated by commas", s, (int)n,
               p, fixed_forms(forms, sizeof forms));
      return ERGO_EINVAL;
    }
    const char *key = ergo__knob_table[i].key;
    if (!space) {
      c->v[i] = v;
    } else if (!space->n[i]) {
      snprintf(why, whylen, "ERGO_FIXED='%s': this node has no %s knob (`ergo info` says why)", s,
               key);
      return ERGO_EINVAL;
    } else {
      c->v[i] = ergo__space_round(space, i, v);
      if (c->v[i] != v && far_below(space, i, v)) {
        const int64_t *vals = space->values[i];
        ergo__warn("ERGO_FIXED: %s=%lld is far below this node's range (%lld to %lld %s); did "
                   "you mean %lld (%s)?",
                   key, v, (long long)vals[0], (long long)vals[space->n[i] - 1],
                   ergo__knob_table[i].unit, v * 1000, ergo__knob_table[i].unit);
      } else if (c->v[i] != v)
        ergo__warn("ERGO_FIXED: %s=%lld is not allowed on this node; using the nearest, %lld", key,
                   v, (long long)c->v[i]);
    }
    p += n + (p[n] == ',');
  }
  return 0;
}

/* The whole run: pushed once at start, popped when the knobs are restored. */
static int fixed_start(ergo__policy *p, char *why, size_t whylen) {
  ergo__config c;
  int rc = ergo__parse_fixed(p->cfg->fixed, &p->space, &c, why, whylen);
  if (rc) return rc;
  if ((rc = ergo__settings_push(c.v)) != 0) return rc;
  ergo__config *kept = malloc(sizeof *kept);
  if (kept) *kept = c;
  p->priv = kept;
  return 0;
}
/* The summary of a fixed run: its one setting (there is no model). */
static int fixed_finish(ergo__policy *p) {
  char set[256];
  if (p->priv && p->talk)
    ergo__info("fixed: %s for the whole run (the fixed policy writes no model)",
               ergo__summary_setting(p->priv, set, sizeof set));
  return 0;
}
static void fixed_stop(ergo__policy *p) {
  free(p->priv);
  p->priv = NULL;
}
const ergo__policy_ops ergo__policy_fixed = {
    "fixed", fixed_start, inherit, ignore, fixed_finish, fixed_stop, NULL, NULL, NULL, NULL, NULL};

/* ---- static: the model's config per region path ---- */
typedef struct static_priv {
  ergo__model m;
  const char *path;
  int *applied;        /* per model region: its setting was applied */
  int matched;         /* regions entered that the model names */
  char *first_entered; /* the first region entered below Global, for the warning */
  int missing;         /* significant regions the model does not name */
  char *first_missing;
  /* Per model region: a change-point test on its time (per unit of work) at its setting, from
   * its first executions in this run (ERGO_RETUNE), and whether a change was said. */
  ergo__change *watch;
  int *changed;
} static_priv;

static int static_start(ergo__policy *p, char *why, size_t whylen) {
  const char *path = p->cfg->model ? p->cfg->model : "ergo-model.json";
  static_priv *sp = calloc(1, sizeof *sp);
  if (!sp) return ERGO_ENOMEM;
  ergo__model *m = &sp->m;
  int rc = ergo__model_load(path, m, why, whylen);
  if (rc) {
    free(sp);
    return rc;
  }
  sp->path = path;
  size_t nr = (size_t)(m->nregions ? m->nregions : 1);
  sp->applied = calloc(nr, sizeof *sp->applied);
  sp->watch = calloc(nr, sizeof *sp->watch);
  sp->changed = calloc(nr, sizeof *sp->changed);
  if (!sp->applied || !sp->watch || !sp->changed) {
    free(sp->applied);
    free(sp->watch);
    free(sp->changed);
    ergo__model_free(m);
    free(sp);
    return ERGO_ENOMEM;
  }
  /* Values this node does not allow round to the nearest allowed one, with one warning line
   * for the whole model: a model made on another node (the sim node's on a real one, or the
   * reverse) is off in every region, and one line per region would bury the report. */
  int off = 0, off_regions = 0, first_r = -1, first_i = -1;
  int64_t first_v = 0, first_near = 0;
  for (int r = 0; r < m->nregions; r++) {
    int here = 0;
    for (int i = 0; i < ERGO__NKNOBS; i++) {
      int64_t v = m->regions[r].best.v[i];
      if (!v) continue;
      int64_t near = ergo__space_round(&p->space, i, v);
      if (near != v && !off++) first_r = r, first_i = i, first_v = v, first_near = near;
      here |= near != v;
      m->regions[r].best.v[i] = near;
    }
    off_regions += here;
  }
  int foreign = m->platform[0] && strcmp(m->platform, p->sim ? "sim" : "real") != 0;
  /* What the first such value became: the nearest allowed, or nothing where this node has no
   * such knob at all ("using 0" read as a setting of 0). */
  char use[160] = "";
  if (off && p->space.n[first_i])
    snprintf(use, sizeof use, "using %lld", (long long)first_near);
  else if (off)
    snprintf(use, sizeof use,
             "left as it is: this node has no usable %s knob (`ergo info` says why)",
             ergo__knob_table[first_i].backend);
  if (off == 1)
    ergo__warn("tuning model '%s': %s %s=%lld is not allowed on this node; %s", path,
               m->regions[first_r].path, ergo__knob_table[first_i].field, (long long)first_v, use);
  else if (off > 1)
    ergo__warn("tuning model '%s'%s: %d values in %d of its %d regions are not allowed on this "
               "node and use the nearest allowed (the first: %s %s=%lld, %s)%s",
               path,
               !foreign ? ""
               : p->sim ? " was made on a real node and this is the sim node"
                        : " was made on the sim node and this is a real one",
               off, off_regions, m->nregions, m->regions[first_r].path,
               ergo__knob_table[first_i].field, (long long)first_v, use,
               foreign ? "; tune on this platform to make a model for it" : "");
  /* A model saved during a run that did not end (ERGO_SAVE_EVERY): usable, but said. */
  if (m->partial && p->talk)
    ergo__info("tuning model '%s' is partial: it was saved at step %ld of a %s run that did not "
               "end, so regions still being searched have their best setting so far and regions "
               "not yet measured run untuned (fix: let the %s run finish for a complete model)",
               path, m->steps, m->policy[0] ? m->policy : "tuning",
               m->policy[0] ? m->policy : "tuning");
  double noise = p->sim ? p->cfg->sim_noise : 0.02;
  for (int r = 0; r < m->nregions; r++)
    ergo__change_init(&sp->watch[r], noise > 0.005 ? noise : 0.005);
  p->priv = sp;
  return 0;
}

/* Each execution at the model's setting is a control: a change in its time (per unit of work)
 * since the run began means the work or the machine is no longer what the run started on, and
 * perhaps no longer what the model was made on.  Static cannot search: it says so once per
 * region, with the fix. */
static void static_observe(ergo__policy *p, ergo__region_state *r, const ergo__config *c,
                           const ergo__measure *m) {
  static_priv *sp = p->priv;
  if (!p->retune) return;
  ergo__model_region *mr = ergo__model_find(&sp->m, r->path);
  if (!mr) return;
  int i = (int)(mr - sp->m.regions);
  if (sp->changed[i]) return;
  for (int k = 0; k < ERGO__NKNOBS; k++)
    if (p->space.n[k] && mr->best.v[k] && c->v[k] != mr->best.v[k]) return; /* not under it */
  if (!ergo__change_add(&sp->watch[i], m->time_s)) return;
  sp->changed[i] = 1;
  ergo__warn("static: region '%s' no longer measures at its model setting what it did earlier in "
             "this run (its work or the machine changed), so the model's setting may no longer "
             "suit it (fix: tune again with ERGO_POLICY=online, which re-tunes on such a change)",
             r->path);
}

/* The model's time per execution of the region at its baseline (else at its setting), 0 when
 * it has none. */
static double model_time(const ergo__model_region *mr) {
  if (mr->baseline.time_s > 0) return mr->baseline.time_s;
  for (int i = 0; i < mr->npoints; i++)
    if (memcmp(&mr->points[i].config, &mr->best, sizeof mr->best) == 0) return mr->points[i].time_s;
  return 0;
}

/* A region measured as significant when the model was made gets its setting from its first
 * execution: waiting for this run to measure it would leave its first execution untuned.  A
 * region the model measured (a tuning run writes only the regions it judged significant) and
 * gave a setting is preset even when the model's time for it is below ERGO_MIN_REGION_MS: that
 * time is per unit of the region's first execution's work, which for a region called at several
 * sizes is its smallest call's (issue 14: ergo-bench-tuning-random seed 1192, a child whose
 * first call is 0.05x its second); left to this run's judgement, its first executions would run
 * at its parent's setting, which the model measured without it.  A region with no time in the
 * model (written by hand) is judged by this run. */
static int static_preset(ergo__policy *p, const char *path) {
  static_priv *sp = p->priv;
  if (!sp->first_entered && strchr(path, '/')) sp->first_entered = strdup(path);
  ergo__model_region *mr = ergo__model_find(&sp->m, path);
  if (!mr) return 0;
  sp->matched++;
  double t = model_time(mr);
  int set = 0;
  for (int i = 0; i < ERGO__NKNOBS; i++) set |= mr->best.v[i] != 0;
  return t >= p->min_s || (set && t > 0) ? 1 : set ? -1 : 0;
}

static void static_choose(ergo__policy *p, ergo__region_state *r, ergo__config *out) {
  static_priv *sp = p->priv;
  ergo__model_region *mr = ergo__model_find(&sp->m, r->path);
  if (mr) {
    *out = mr->best;
    sp->applied[mr - sp->m.regions] = 1;
    return;
  }
  memset(out, 0, sizeof *out);
  if (!r->policy) { /* counted once per region */
    r->policy = sp;
    if (!sp->missing++) sp->first_missing = strdup(r->path);
  }
}

/* Tuning that did nothing says so: a model of no region of this program (another program's, or
 * an empty one), or significant regions it does not name; then the regions it tuned. */
static int static_finish(ergo__policy *p) {
  static_priv *sp = p->priv;
  const ergo__model *m = &sp->m;
  if (!m->nregions)
    ergo__warn("tuning model '%s' has no regions, so nothing was tuned (fix: make it with "
               "ERGO_POLICY=online or sweep on a run whose regions take ERGO_MIN_REGION_MS=%g ms "
               "or more per execution)",
               sp->path, p->min_s * 1e3);
  else if (!sp->matched)
    ergo__warn("tuning model '%s' names none of this program's regions (its first: '%s'; this "
               "program's: '%s'): it was made for another program, and nothing was tuned (fix: "
               "make a model of this program with ERGO_POLICY=online or sweep, ERGO_MODEL=%s)",
               sp->path, m->regions[0].path, sp->first_entered ? sp->first_entered : "none",
               sp->path);
  else if (sp->missing)
    ergo__warn("tuning model '%s' has no entry for %d significant region%s of this program "
               "(first: '%s'), which ran untuned (fix: make the model again on this version of "
               "the program with ERGO_POLICY=online or sweep)",
               sp->path, sp->missing, sp->missing == 1 ? "" : "s",
               sp->first_missing ? sp->first_missing : "?");
  int n = 0;
  for (int i = 0; i < m->nregions; i++) n += sp->applied[i];
  char tail[1100];
  snprintf(tail, sizeof tail, "model %s%s applied to %d of its %d region%s", sp->path,
           m->partial ? " (partial)" : "", n, m->nregions, m->nregions == 1 ? "" : "s");
  ergo__summary_print(m, sp->applied, tail);
  return 0;
}

static void static_stop(ergo__policy *p) {
  static_priv *sp = p->priv;
  if (!sp) return;
  ergo__model_free(&sp->m);
  free(sp->applied);
  free(sp->watch);
  free(sp->changed);
  free(sp->first_entered);
  free(sp->first_missing);
  free(sp);
  p->priv = NULL;
}
const ergo__policy_ops ergo__policy_static = {
    "static", static_start,  static_choose, static_observe, static_finish, static_stop,
    NULL,     static_preset, NULL,          NULL,           NULL};
