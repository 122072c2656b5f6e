/* model.c - the tuning model file: versioned JSON (jansson), written atomically, validated on load.
 *
 *   {"format":"ergo-model","version":1,"policy":"sweep","objective":"energy@5%",
 *    "node":{"platform":"sim","host":"n01","knobs":{"cpufreq":[...kHz],"uncore":[...],
 *            "threads":[...]}},
 *    "regions":{"Global/Timestep/FIND_HSML/Primary":{
 *        "config":{"core_khz":1600000,"uncore_khz":1200000,"threads":20},
 *        "baseline":{"time_s":0.12,"energy_j":16.1},   (energy_j null: no meter measured it)
 *        "points":[{"config":{...},"time_s":...,"energy_j":...,"n":3}, ...],
 *        "pareto":4}}}
 * A config field 0 (or absent) inherits.  "points" and "pareto" are optional.
 * "complete" (default true) is false in a model written during the run (ERGO_SAVE_EVERY), with
 * "steps" the ergo_step calls so far: regions still searched have their best so far. */
#include "policies/model.h"

#include "util/atomic_file.h"
#include "util/limit.h"
#include "util/log.h"
#include "util/path.h"
#include "util/utf8.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERGO__MODEL_VERSION 1
/* A config's keys are the knob table's fields; the node's knobs its backend names. */

void ergo__model_no_energy(ergo__model *m) {
  for (int i = 0; i < m->nregions; i++) {
    m->regions[i].baseline.energy_j = -1;
    for (int p = 0; p < m->regions[i].npoints; p++) m->regions[i].points[p].energy_j = -1;
  }
}

void ergo__model_free(ergo__model *m) {
  if (!m) return;
  for (int i = 0; i < m->nregions; i++) {
    free(m->regions[i].path);
    free(m->regions[i].points);
  }
  free(m->regions);
  memset(m, 0, sizeof *m);
}

ergo__model_region *ergo__model_find(const ergo__model *m, const char *path) {
  for (int i = 0; i < m->nregions; i++)
    if (strcmp(m->regions[i].path, path) == 0) return &m->regions[i];
  return NULL;
}

ergo__model_region *ergo__model_region_add(ergo__model *m, const char *path) {
  ergo__model_region *r = ergo__model_find(m, path);
  if (r) return r;
  ergo__model_region *v = realloc(m->regions, (size_t)(m->nregions + 1) * sizeof *v);
  if (!v) return NULL;
  m->regions = v;
  r = &v[m->nregions];
  memset(r, 0, sizeof *r);
  if (!(r->path = strdup(path))) return NULL;
  m->nregions++;
  return r;
}

int ergo__model_point_add(ergo__model_region *r, const ergo__config *c, double time_s,
                          double energy_j, int n) {
  ergo__model_point *v = realloc(r->points, (size_t)(r->npoints + 1) * sizeof *v);
  if (!v) return ERGO_ENOMEM;
  r->points = v;
  v[r->npoints++] = (ergo__model_point){*c, time_s, energy_j, n};
  return 0;
}

static int dominated(const ergo__model_point *a, const ergo__model_point *b) {
  return b->time_s <= a->time_s && b->energy_j <= a->energy_j &&
         (b->time_s < a->time_s || b->energy_j < a->energy_j);
}

static int by_time(const void *x, const void *y) {
  const ergo__model_point *a = x, *b = y;
  return (a->time_s > b->time_s) - (a->time_s < b->time_s);
}

void ergo__model_pareto(ergo__model_region *r) {
  /* Non-dominated points first (by time), then the rest (by time). */
  int n = r->npoints, k = 0;
  r->pareto = 0;
  if (n < 1) return; /* no points (a search restarted that measured nothing): qsort of NULL */
  for (int i = 0; i < n; i++) {
    int dom = 0;
    for (int j = 0; j < n && !dom; j++) dom = j != i && dominated(&r->points[i], &r->points[j]);
    if (!dom) {
      ergo__model_point t = r->points[k];
      r->points[k] = r->points[i];
      r->points[i] = t;
      k++;
    }
  }
  qsort(r->points, (size_t)k, sizeof *r->points, by_time);
  qsort(r->points + k, (size_t)(n - k), sizeof *r->points, by_time);
  r->pareto = k;
}

/* A mean energy, or null where nothing measured it (< 0: a run with no meter): 0 J would read as
 * measured, and a chart would draw it. */
static json_t *energy_json(double e) { return e >= 0 ? json_real(e) : json_null(); }

static json_t *config_json(const ergo__config *c) {
  json_t *o = json_object();
  for (int i = 0; i < ERGO__NKNOBS; i++)
    if (c->v[i]) json_object_set_new(o, ergo__knob_table[i].field, json_integer(c->v[i]));
  return o;
}

int ergo__model_save(const char *path, const ergo__model *m, const ergo__space *space) {
  json_t *regions = json_object(), *knobs = json_object();
  int bad = !regions || !knobs;
  for (int i = 0; space && !bad && i < ERGO__NKNOBS; i++) {
    if (!space->n[i]) continue;
    json_t *vals = json_array();
    for (int v = 0; v < space->n[i]; v++)
      bad |= json_array_append_new(vals, json_integer(space->values[i][v])) != 0;
    bad |= json_object_set_new(knobs, ergo__knob_table[i].backend, vals) != 0;
  }
  if (bad) {
    json_decref(regions);
    json_decref(knobs);
    ergo__error("tuning model '%s': out of memory for its knobs; nothing written", path);
    return ERGO_ENOMEM;
  }
  /* Every region goes in, or nothing is written: a model without one of its regions would be
   * taken as whole by a later static run, which would leave that region untuned unsaid. */
  for (int i = 0; i < m->nregions; i++) {
    const ergo__model_region *r = &m->regions[i];
    /* A JSON key must be UTF-8: a path that is not (the core keeps region names valid, so only
     * a model built elsewhere) keeps its bad bytes as the text \xHH, as region names do. */
    char *fixed = NULL;
    const char *key = r->path;
    size_t len = strlen(r->path);
    if (ergo__utf8_bad(r->path) != len && (fixed = malloc(4 * len + 1)) != NULL) {
      ergo__utf8_fix(r->path, fixed, 4 * len + 1, NULL);
      ergo__error("tuning model '%s': region path \"%s\" is not valid UTF-8 (byte \\x%02x at "
                  "offset %zu); it is written with each such byte as the text \\xHH (fix: pass "
                  "UTF-8 region names)",
                  path, r->path, (unsigned char)r->path[ergo__utf8_bad(r->path)],
                  ergo__utf8_bad(r->path));
      key = fixed;
    }
    json_t *pts = json_array();
    for (int p = 0; pts && p < r->npoints; p++)
      if (json_array_append_new(
              pts, json_pack("{s:o, s:f, s:o, s:i}", "config", config_json(&r->points[p].config),
                             "time_s", r->points[p].time_s, "energy_j",
                             energy_json(r->points[p].energy_j), "n", r->points[p].n))) {
        json_decref(pts);
        pts = NULL;
      }
    json_t *o =
        pts ? json_pack("{s:o, s:{s:f, s:o}, s:o, s:i}", "config", config_json(&r->best),
                        "baseline", "time_s", r->baseline.time_s, "energy_j",
                        energy_json(r->baseline.energy_j), "points", pts, "pareto", r->pareto)
            : NULL;
    bad = !o || json_object_set_new(regions, key, o) != 0; /* fixed's malloc failing too */
    free(fixed);
    if (bad) {
      json_decref(regions);
      json_decref(knobs);
      ergo__error("tuning model '%s': out of memory while adding region '%s'; nothing written",
                  path, r->path);
      return ERGO_ENOMEM;
    }
  }
  char host[128] = "";
  gethostname(host, sizeof host - 1);
  json_t *doc = json_pack("{s:s, s:i, s:s, s:s, s:{s:s, s:s, s:o}, s:o}", "format", "ergo-model",
                          "version", ERGO__MODEL_VERSION, "policy", m->policy, "objective",
                          m->objective, "node", "platform", m->platform[0] ? m->platform : "real",
                          "host", host, "knobs", knobs, "regions", regions);
  if (doc) {
    json_object_set_new(doc, "complete", json_boolean(!m->partial));
    json_object_set_new(doc, "steps", json_integer(m->steps));
  }
  char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) : NULL;
  json_decref(doc);
  if (!text) return ERGO_ENOMEM;
  return ergo__write_json_text(path, text); /* newline, then atomically */
}

void ergo__model_save_fallback(const char *path, const ergo__model *m, const ergo__space *space) {
  char fb[4096];
  if (ergo__path_fallback(path, fb, sizeof fb) != 0) {
    ergo__error("the tuning model is lost: '%s' could not be written, nor a fallback in $TMPDIR: "
                "%s (fix: set TMPDIR to a writable directory)",
                path, strerror(errno));
    return;
  }
  if (ergo__model_save(fb, m, space) == 0)
    ergo__info("tuning model in %s instead ('%s' could not be written; copy it there for the "
               "static policy, or set ERGO_MODEL to a writable path)",
               fb, path);
  else
    unlink(fb); /* the writer said why */
}

const char *ergo__model_kept(const char *path, char *out, size_t len) {
  if (len) out[0] = '\0';
  if (len && access(path, F_OK) == 0) snprintf(out, len, "'%s' kept as it was", path);
  return out;
}

void ergo__model_not_written(const char *who, const char *path) {
  char kept[1100];
  if (ergo__model_kept(path, kept, sizeof kept)[0])
    ergo__info("%s: no tuning model written, as no region was tuned: %s", who, kept);
  else
    ergo__info("%s: no tuning model written to '%s', as no region was tuned", who, path);
}

/* ---- loading: check everything, then fill *m ---- */

static int bad(char *why, size_t whylen, const char *path, const char *where, const char *what) {
  snprintf(why, whylen,
           "tuning model '%s': %s %s (fix: write it with ERGO_POLICY=sweep or online, or `ergo "
           "sweep --runs`)",
           path, where, what);
  return ERGO_EFORMAT;
}

static int config_of(json_t *o, ergo__config *c, const char *path, const char *where, char *why,
                     size_t whylen) {
  memset(c, 0, sizeof *c);
  if (!json_is_object(o)) return bad(why, whylen, path, where, "is not an object");
  const char *k;
  json_t *v;
  json_object_foreach(o, k, v) {
    int i = ergo__knob_by_field(k, strlen(k));
    char w[600];
    if (i < 0) {
      char names[128], what[160];
      snprintf(w, sizeof w, "%s.%s", where, k);
      snprintf(what, sizeof what, "is not a knob (expected %s)",
               ergo__knob_names(offsetof(ergo__knob_row, field), names, sizeof names));
      return bad(why, whylen, path, w, what);
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
      snprintf(w, sizeof w, "%s.%s", where, k);
      return bad(why, whylen, path, w, "is not an integer >= 0");
    }
    c->v[i] = json_integer_value(v);
  }
  return 0;
}

static int number(json_t *o, const char *key, double *out);

/* An energy: a number >= 0, or null (not measured: -1, as a measurement without a reading). */
static int energy(json_t *o, double *out) {
  if (json_is_null(json_object_get(o, "energy_j"))) return *out = -1, 0;
  return number(o, "energy_j", out);
}

static int number(json_t *o, const char *key, double *out) {
  json_t *v = json_object_get(o, key);
  if (!json_is_number(v)) return -1;
  *out = json_number_value(v);
  return isfinite(*out) && *out >= 0 ? 0 : -1;
}

int ergo__model_load(const char *path, ergo__model *m, char *why, size_t whylen) {
  memset(m, 0, sizeof *m);
  char size[128];
  if (ergo__input_size_check(path, size, sizeof size)) {
    snprintf(why, whylen, "tuning model '%s' is %s (fix: point ERGO_MODEL at a model file)", path,
             size);
    return ERGO_EFORMAT;
  }
  json_error_t err;
  json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
  if (!doc) {
    if (err.line < 0) /* not parsed at all: the file could not be read */
      snprintf(why, whylen,
               "tuning model '%s' cannot be read: %s (fix: run a sweep or online "
               "policy first, or point ERGO_MODEL at the file)",
               path, err.text);
    else
      snprintf(why, whylen,
               "tuning model '%s': %s at line %d column %d (fix: check the file or "
               "write it again)",
               path, err.text, err.line, err.column);
    return err.line < 0 ? ERGO_EIO : ERGO_EFORMAT;
  }
  int rc = 0;
  ergo__model tmp = {0};
  const char *fmt = json_string_value(json_object_get(doc, "format"));
  json_t *ver = json_object_get(doc, "version"), *regions = json_object_get(doc, "regions");
  if (!fmt || strcmp(fmt, "ergo-model") != 0) {
    snprintf(why, whylen,
             "tuning model '%s': format is '%s', not 'ergo-model': not an ergo "
             "tuning model (fix: pass the file ERGO_MODEL was written to)",
             path, fmt ? fmt : "(none)");
    rc = ERGO_EVERSION;
  } else if (!json_is_integer(ver) || json_integer_value(ver) != ERGO__MODEL_VERSION) {
    snprintf(why, whylen,
             "tuning model '%s': version %s is not supported: this ergo reads "
             "version %d (fix: write the model again with this ergo)",
             path, json_is_integer(ver) ? "other than 1" : "missing", ERGO__MODEL_VERSION);
    rc = ERGO_EVERSION;
  } else if (!json_is_object(regions)) {
    rc = bad(why, whylen, path, "regions", "is missing or not an object");
  }
  const char *s;
  if (!rc && (s = json_string_value(json_object_get(doc, "policy"))))
    snprintf(tmp.policy, sizeof tmp.policy, "%s", s);
  if (!rc && (s = json_string_value(json_object_get(doc, "objective"))))
    snprintf(tmp.objective, sizeof tmp.objective, "%s", s);
  if (!rc && (s = json_string_value(json_object_get(json_object_get(doc, "node"), "platform"))))
    snprintf(tmp.platform, sizeof tmp.platform, "%s", s);
  json_t *complete = json_object_get(doc, "complete"), *steps = json_object_get(doc, "steps");
  if (!rc && complete && !json_is_boolean(complete))
    rc = bad(why, whylen, path, "complete", "is not true or false");
  tmp.partial = json_is_false(complete);
  if (json_is_integer(steps) && json_integer_value(steps) > 0)
    tmp.steps = (long)json_integer_value(steps);
  const char *rpath;
  json_t *r;
  if (!rc) json_object_foreach(regions, rpath, r) {
      char where[512];
      snprintf(where, sizeof where, "regions[\"%.400s\"]", rpath);
      if (!json_is_object(r)) {
        rc = bad(why, whylen, path, where, "is not an object");
        break;
      }
      ergo__model_region *mr = ergo__model_region_add(&tmp, rpath);
      if (!mr) {
        rc = ERGO_ENOMEM;
        break;
      }
      char w[600];
      snprintf(w, sizeof w, "%s.config", where);
      if ((rc = config_of(json_object_get(r, "config"), &mr->best, path, w, why, whylen))) break;
      json_t *b = json_object_get(r, "baseline");
      if (b && (number(b, "time_s", &mr->baseline.time_s) || energy(b, &mr->baseline.energy_j))) {
        snprintf(w, sizeof w, "%s.baseline", where);
        rc = bad(why, whylen, path, w,
                 "needs time_s and energy_j, numbers >= 0 (energy_j null: "
                 "not measured)");
        break;
      }
      json_t *pts = json_object_get(r, "points"), *pt;
      size_t i;
      json_array_foreach(pts, i, pt) {
        ergo__config c;
        double t, e;
        json_t *n = json_object_get(pt, "n");
        snprintf(w, sizeof w, "%s.points[%zu]", where, i);
        if ((rc = config_of(json_object_get(pt, "config"), &c, path, w, why, whylen))) break;
        if (number(pt, "time_s", &t) || energy(pt, &e) || !json_is_integer(n) ||
            json_integer_value(n) < 1) {
          rc = bad(why, whylen, path, w,
                   "needs time_s, energy_j >= 0 and n >= 1 (energy_j null: not measured)");
          break;
        }
        if ((rc = ergo__model_point_add(mr, &c, t, e, (int)json_integer_value(n)))) break;
      }
      if (rc) break;
      json_t *par = json_object_get(r, "pareto");
      mr->pareto = json_is_integer(par) && json_integer_value(par) <= mr->npoints
                       ? (int)json_integer_value(par)
                       : 0;
    }
  json_decref(doc);
  if (rc) {
    ergo__model_free(&tmp);
    return rc;
  }
  *m = tmp;
  return 0;
}
