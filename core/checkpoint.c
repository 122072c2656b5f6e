/* checkpoint.c - save the main region tree with its figures; add a saved tree back on restart. */
#include "internal.h"
#include "util/limit.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* File format, version 1:
 *   {"format":"ergo-checkpoint","version":1,"clock":"tsc|monotonic|user",
 *    "quantities":[QUANTITY...],"tree":NODE}
 *   QUANTITY = {"name":s,"unit":s,"label":s|null,"components":[s...]}
 *   NODE = {"name":s,"level":int,"time_s":num,"calls":int,"min_s":num,"max_s":num,
 *           "open":bool,"q":{QNAME:[num...]},"q_s":{QNAME:[num...]},"q_lower":[QNAME...],
 *           "children":[NODE...]}
 * The root is "Global"; its time_s is the run's wall time and its calls count run segments
 * (1 per run, plus the segments it was restarted from), its min_s and max_s the shortest and
 * longest segment (0 in files from before 0.2.0: a one-segment file's time is read as both).
 * Figures come from a non-step
 * snapshot, so they already hold what earlier checkpoints added.  A region open at save
 * has its time so far saved but no call counted (calls, min_s and max_s cover completed
 * calls only); "open" records that and is not read back.
 * "quantities" lists the quantities attached at save (energy); a node's "q" has, for each one
 * that measured it, its amount per component in that entry's order, "q_s" the seconds they were
 * measured over where those are not time_s (a component an earlier checkpoint lacked), and
 * "q_lower" the quantities whose amount is only a lower bound.  A load adds them by quantity
 * and component name to this run's.  Keys other than these are ignored on load, so a later
 * version can add some without breaking old readers (the quantities came so: files without them
 * load, with their amounts missing); "open", "children" and the quantity keys may be absent. */
#define CK_FORMAT "ergo-checkpoint"
#define CK_VERSION 1
#define CK_FIX_CORRUPT "restore the file from a good copy, or start without it"
#define CK_STR2(x) #x
#define CK_STR(x) CK_STR2(x)
#define CK_JSON_LEVELS CK_STR(ERGO__CK_JSON_DEPTH)
#ifdef JSON_PARSER_MAX_DEPTH
_Static_assert(ERGO__CK_JSON_DEPTH <= JSON_PARSER_MAX_DEPTH,
               "a checkpoint may nest no deeper than this jansson parses");
#endif

/* ---- save ------------------------------------------------------------------ */

/* The attached quantities a checkpoint holds, in slot order: one per name. */
typedef struct ck_saved {
  int slot[ERGO_MAX_QUANTITIES];
  int n;
} ck_saved;

static json_t *amounts(const double *v, int n) {
  json_t *a = json_array();
  for (int c = 0; a && c < n; c++)
    if (json_array_append_new(a, json_real(v[c]))) {
      json_decref(a);
      return NULL;
    }
  return a;
}

/* "q", "q_s" and "q_lower" of node s into o; -1: no memory. */
static int save_amounts(const ck_saved *qs, const ergo__snap *s, json_t *o) {
  json_t *put[3] = {NULL, NULL, NULL}; /* q, q_s, q_lower */
  static const char *const key[3] = {"q", "q_s", "q_lower"};
  int bad = 0;
  for (int k = 0; k < qs->n && !bad; k++) {
    int i = qs->slot[k];
    if (!(s->q_ok & (1u << i))) continue; /* not measured: nothing to add back */
    const ergo_quantity *qq = &ergo__quants[i].q;
    int other = 0;
    for (int c = 0; c < qq->ncomponents; c++) other |= s->q_time_s[i][c] != s->time_s;
    if (!put[0]) put[0] = json_object();
    bad = !put[0] || json_object_set_new(put[0], qq->name, amounts(s->q[i], qq->ncomponents));
    if (!bad && other) {
      if (!put[1]) put[1] = json_object();
      bad = !put[1] ||
            json_object_set_new(put[1], qq->name, amounts(s->q_time_s[i], qq->ncomponents));
    }
    if (!bad && (s->q_ok & ERGO__Q_LOWER(i))) {
      if (!put[2]) put[2] = json_array();
      bad = !put[2] || json_array_append_new(put[2], json_string(qq->name));
    }
  }
  for (int k = 0; k < 3; k++) { /* json_object_set_new takes the value even when it fails */
    if (!put[k]) continue;
    if (bad)
      json_decref(put[k]);
    else
      bad = json_object_set_new(o, key[k], put[k]) != 0;
  }
  return bad ? -1 : 0;
}

static json_t *save_node(const ck_saved *qs, const ergo__snap *s) {
  json_t *kids = json_array();
  if (!kids) return NULL;
  for (size_t i = 0; i < s->nchildren; i++)
    if (json_array_append_new(kids, save_node(qs, &s->children[i]))) {
      json_decref(kids);
      return NULL;
    }
  json_int_t calls = s->calls > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)s->calls;
  json_t *o =
      json_pack("{s:s, s:i, s:f, s:I, s:f, s:f, s:b}", "name", s->name, "level", s->level, "time_s",
                s->time_s, "calls", calls, "min_s", s->min_s, "max_s", s->max_s, "open", s->open);
  if (!o || save_amounts(qs, s, o)) {
    json_decref(o);
    json_decref(kids);
    return NULL;
  }
  if (json_object_set_new(o, "children", kids)) {
    json_decref(o);
    return NULL;
  }
  return o;
}

/* The "quantities" list; qs gets the slots it names.  A second quantity with a name already
 * listed cannot be told apart on load: said, and left out. */
static json_t *save_quantities(const char *path, ck_saved *qs) {
  json_t *list = json_array();
  qs->n = 0;
  for (int i = 0; list && i < ERGO_MAX_QUANTITIES; i++) {
    if (!ergo__quants[i].used) continue;
    const ergo_quantity *q = &ergo__quants[i].q;
    int dup = 0;
    for (int k = 0; k < qs->n; k++) dup |= strcmp(ergo__quants[qs->slot[k]].q.name, q->name) == 0;
    if (dup) {
      ergo__warn("ergo_checkpoint_save('%s'): two attached quantities are named \"%s\"; the "
                 "second one's figures are left out of the checkpoint (fix: give each quantity "
                 "its own name)",
                 path, q->name);
      continue;
    }
    json_t *names = json_array();
    for (int c = 0; names && c < q->ncomponents; c++)
      if (json_array_append_new(names, json_string(q->components[c]))) {
        json_decref(names);
        names = NULL;
      }
    json_t *e = names ? json_pack("{s:s, s:s, s:s?, s:o}", "name", q->name, "unit", q->unit,
                                  "label", q->label, "components", names)
                      : NULL;
    if (!e || json_array_append_new(list, e)) {
      json_decref(list);
      return NULL;
    }
    qs->slot[qs->n++] = i;
  }
  return list;
}

static int max_depth(const ergo__snap *s) {
  int d = s->depth;
  for (size_t i = 0; i < s->nchildren; i++) {
    int k = max_depth(&s->children[i]);
    if (k > d) d = k;
  }
  return d;
}

static int save_at(const char *path);
static int load_at(const char *path);

/* In an MPI job every rank has its own tree, so its own file: <name>.rankN. */
static int per_rank(int (*fn)(const char *), const char *path) {
  if (ergo__rk.size <= 1 || !path || !*path) return fn(path);
  char *p = ergo__rank_path(path, ergo__rk.rank);
  if (!p) return ERGO_ENOMEM;
  int rc = fn(p);
  free(p);
  return rc;
}

int ergo_checkpoint_save(const char *path) { return per_rank(save_at, path); }
int ergo_checkpoint_load(const char *path) { return per_rank(load_at, path); }

static int save_at(const char *path) {
  if (!path || !*path) {
    ergo__error("ergo_checkpoint_save: the path is %s; nothing written (fix: pass a file path)",
                path ? "empty" : "NULL");
    return ERGO_EINVAL;
  }
  if (!ergo__g.initialized) {
    ergo__warn("ergo_checkpoint_save('%s'): ergo is not initialised; nothing written (fix: "
               "call it between ergo_init and ergo_finalize)",
               path);
    return ERGO_ESTATE;
  }
  ergo__snap s;
  pthread_mutex_lock(&ergo__g.lock);
  int rc = ergo__snap_take(ergo__g.main_tree, 0, &s);
  pthread_mutex_unlock(&ergo__g.lock);
  if (rc) {
    ergo__error("ergo_checkpoint_save('%s'): out of memory; nothing written", path);
    return rc;
  }
  /* A load must read what a save writes: refuse a tree nested deeper than jansson parses. */
  int depth = max_depth(&s);
  if (depth > ERGO__CK_MAX_DEPTH) {
    ergo__snap_free(&s);
    ergo__error("ergo_checkpoint_save('%s'): the region tree is %d levels deep, more than the %d "
                "a checkpoint can hold (jansson reads " CK_JSON_LEVELS " nested JSON levels "
                "back); nothing written, the file is unchanged (fix: push fewer nested regions, "
                "e.g. a recursive function's outermost call alone)",
                path, depth, ERGO__CK_MAX_DEPTH);
    return ERGO_EBUSY;
  }
  ck_saved qs;
  json_t *quants = save_quantities(path, &qs);
  json_t *doc =
      json_pack("{s:s, s:i, s:s, s:o, s:o}", "format", CK_FORMAT, "version", CK_VERSION, "clock",
                ergo_clock_name(), "quantities", quants, "tree", save_node(&qs, &s));
  ergo__snap_free(&s);
  /* 17 significant digits: every double reads back bit for bit. */
  char *text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
  json_decref(doc);
  if (!text) {
    ergo__error("ergo_checkpoint_save('%s'): out of memory; nothing written", path);
    return ERGO_ENOMEM;
  }
  return ergo__write_json_text(path, text);
}

/* ---- load: parse and validate into ck_node, check against the live tree, merge ---- */

typedef struct ck_node {
  const char *name; /* borrowed from the parsed document */
  int level;
  double time_s, min_s, max_s;
  uint64_t calls;
  const json_t *q, *q_s, *q_lower; /* the quantity keys (checked), or NULL */
  struct ck_node *kids;
  size_t nkids;
  ergo__node *live; /* the live node it merges into (set while merging) */
} ck_node;

/* A quantity the file holds and where its figures go in this run. */
typedef struct ck_quant {
  const char *name, *unit, *label; /* borrowed from the parsed document; label may be NULL */
  const json_t *components;        /* their names */
  size_t ncomp;
  int slot;                      /* the attached quantity it adds to, or -1: dropped */
  int comp[ERGO_MAX_COMPONENTS]; /* this run's component of each saved one, or -1: dropped */
} ck_quant;

/* The file being loaded and the JSON path of the element being checked, so that the one
 * error line can say exactly where the file is wrong ("tree/children[2]/calls"). */
typedef struct ck_ctx {
  const char *file;
  char *jpath;
  size_t len, cap;
  ck_quant *q; /* the file's "quantities" */
  size_t nq;
} ck_ctx;

/* Append to the JSON path; returns the previous length for jpath_cut.  When memory runs
 * out the path just stays shorter: it only feeds an error message. */
static size_t jpath_add(ck_ctx *c, const char *fmt, ...) {
  size_t old = c->len;
  char piece[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(piece, sizeof piece, fmt, ap);
  va_end(ap);
  if (n < 0) return old;
  if ((size_t)n >= sizeof piece) n = (int)sizeof piece - 1; /* a long name from the file: cut */
  size_t need = c->len + (size_t)n + 2;
  if (need > c->cap) {
    size_t cap = need * 2;
    char *p = realloc(c->jpath, cap);
    if (!p) return old;
    c->jpath = p;
    c->cap = cap;
  }
  if (c->len) c->jpath[c->len++] = '/';
  memcpy(c->jpath + c->len, piece, (size_t)n + 1);
  c->len += (size_t)n;
  return old;
}

static void jpath_cut(ck_ctx *c, size_t len) {
  c->len = len;
  if (c->jpath) c->jpath[len] = '\0';
}

/* The one error line: file, element, value, what was expected, and the fix. */
static int fail(ck_ctx *c, int rc, const json_t *value, const char *expected, const char *fix) {
  char shown[72] = "missing";
  if (value) {
    char *v = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (v) {
      size_t n = strlen(v);
      if (n >= sizeof shown)
        snprintf(shown, sizeof shown, "%.60s...", v);
      else
        snprintf(shown, sizeof shown, "%s", v);
      free(v);
    }
  }
  ergo__error("ergo_checkpoint_load('%s'): %s is %s: expected %s; nothing was loaded (fix: %s)",
              c->file, c->len ? c->jpath : "the document", shown, expected, fix);
  return rc;
}

/* Checks member `key` of `o` with `ok`; on failure names it in the error line. */
static int member(ck_ctx *c, const json_t *o, const char *key, int (*ok)(const json_t *),
                  const char *expected, const json_t **out) {
  const json_t *v = json_object_get(o, key);
  if (v && ok(v)) {
    *out = v;
    return 0;
  }
  size_t at = jpath_add(c, "%s", key);
  int rc = fail(c, ERGO_EFORMAT, v, expected, CK_FIX_CORRUPT);
  jpath_cut(c, at);
  return rc;
}

static int is_name(const json_t *v) {
  return json_is_string(v) && json_string_length(v) > 0 && json_string_length(v) <= ERGO_NAME_MAX;
}
static int is_level(const json_t *v) {
  return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= INT_MAX;
}
static int is_seconds(const json_t *v) {
  return json_is_number(v) && isfinite(json_number_value(v)) && json_number_value(v) >= 0;
}
static int is_count(const json_t *v) { return json_is_integer(v) && json_integer_value(v) >= 0; }
static int is_text(const json_t *v) { return json_is_string(v) && json_string_length(v) > 0; }

static const ck_quant *file_quant(const ck_ctx *c, const char *name) {
  for (size_t i = 0; i < c->nq; i++)
    if (strcmp(c->q[i].name, name) == 0) return &c->q[i];
  return NULL;
}

/* Check a node's "q" or "q_s": per quantity of the file, one amount >= 0 per component. */
static int parse_amounts(ck_ctx *c, const json_t *o, const char *key, const json_t **out) {
  const json_t *v = json_object_get(o, key);
  *out = NULL;
  if (!v) return 0;
  size_t at = jpath_add(c, "%s", key);
  int rc = 0;
  if (!json_is_object(v))
    rc = fail(c, ERGO_EFORMAT, v, "an object of amounts by quantity name", CK_FIX_CORRUPT);
  const char *name;
  const json_t *a;
  json_object_foreach((json_t *)v, name, a) {
    if (rc) break;
    size_t at2 = jpath_add(c, "%s", name);
    const ck_quant *q = file_quant(c, name);
    if (!q) {
      rc = fail(c, ERGO_EFORMAT, a, "the amounts of a quantity the file's quantities list",
                CK_FIX_CORRUPT);
    } else if (!json_is_array(a) || json_array_size(a) != q->ncomp) {
      char what[96];
      snprintf(what, sizeof what, "an array of %zu amounts, one per component", q->ncomp);
      rc = fail(c, ERGO_EFORMAT, a, what, CK_FIX_CORRUPT);
    }
    for (size_t i = 0; !rc && i < q->ncomp; i++)
      if (!is_seconds(json_array_get(a, i))) {
        jpath_cut(c, at2);
        jpath_add(c, "%s[%zu]", name, i);
        rc = fail(c, ERGO_EFORMAT, json_array_get(a, i), "a finite number >= 0", CK_FIX_CORRUPT);
      }
    jpath_cut(c, at2);
  }
  jpath_cut(c, at);
  if (!rc) *out = v;
  return rc;
}

/* Check a node's "q", "q_s" and "q_lower" into k. */
static int parse_node_amounts(ck_ctx *c, const json_t *o, ck_node *k) {
  int rc = parse_amounts(c, o, "q", &k->q);
  if (!rc) rc = parse_amounts(c, o, "q_s", &k->q_s);
  const json_t *v = json_object_get(o, "q_lower");
  if (rc || !v) return rc;
  size_t at = jpath_add(c, "q_lower");
  if (!json_is_array(v))
    rc = fail(c, ERGO_EFORMAT, v, "an array of quantity names", CK_FIX_CORRUPT);
  for (size_t i = 0; !rc && i < json_array_size(v); i++) {
    const json_t *n = json_array_get(v, i);
    if (!json_is_string(n) || !file_quant(c, json_string_value(n))) {
      jpath_cut(c, at);
      jpath_add(c, "q_lower[%zu]", i);
      rc = fail(c, ERGO_EFORMAT, n, "a quantity the file's quantities list", CK_FIX_CORRUPT);
    }
  }
  jpath_cut(c, at);
  if (!rc) k->q_lower = v;
  return rc;
}

/* Check the document's "quantities" (absent in files from before them: none) into c->q. */
static int parse_quantities(ck_ctx *c, const json_t *doc) {
  const json_t *v = json_object_get(doc, "quantities");
  if (!v) return 0;
  size_t at = c->len;
  int rc = 0;
  if (!json_is_array(v)) {
    jpath_add(c, "quantities");
    rc = fail(c, ERGO_EFORMAT, v, "an array of quantities", CK_FIX_CORRUPT);
  }
  size_t n = rc ? 0 : json_array_size(v);
  if (n && !(c->q = calloc(n, sizeof *c->q))) {
    ergo__error("ergo_checkpoint_load('%s'): out of memory; nothing was loaded", c->file);
    rc = ERGO_ENOMEM;
  }
  for (size_t i = 0; !rc && i < n; i++) {
    const json_t *e = json_array_get(v, i), *name = NULL, *unit = NULL, *comps = NULL;
    size_t at2 = jpath_add(c, "quantities[%zu]", i);
    if (!json_is_object(e))
      rc = fail(c, ERGO_EFORMAT, e, "an object with name, unit and components", CK_FIX_CORRUPT);
    if (!rc && !(rc = member(c, e, "name", is_text, "a quantity name", &name)) &&
        file_quant(c, json_string_value(name))) {
      jpath_add(c, "name");
      rc = fail(c, ERGO_EFORMAT, name, "a name no earlier quantity has", CK_FIX_CORRUPT);
    }
    if (!rc) rc = member(c, e, "unit", is_text, "a unit", &unit);
    const json_t *label = rc ? NULL : json_object_get(e, "label");
    if (!rc && label && !json_is_string(label) && !json_is_null(label)) {
      jpath_add(c, "label");
      rc = fail(c, ERGO_EFORMAT, label, "a label or null", CK_FIX_CORRUPT);
    }
    if (!rc) comps = json_object_get(e, "components");
    size_t nc = json_is_array(comps) ? json_array_size(comps) : 0;
    if (!rc && (nc < 1 || nc > ERGO_MAX_COMPONENTS)) {
      jpath_add(c, "components");
      rc = fail(c, ERGO_EFORMAT, comps,
                "an array of 1 to " CK_STR(ERGO_MAX_COMPONENTS) " component names", CK_FIX_CORRUPT);
    }
    for (size_t k = 0; !rc && k < nc; k++) {
      const json_t *cn = json_array_get(comps, k);
      int dup = 0;
      for (size_t j = 0; is_text(cn) && j < k; j++)
        dup |= json_equal((json_t *)cn, json_array_get(comps, j));
      if (!is_text(cn) || dup) {
        jpath_add(c, "components[%zu]", k);
        rc = fail(c, ERGO_EFORMAT, cn, "a component name no earlier component has", CK_FIX_CORRUPT);
      }
    }
    if (!rc) {
      ck_quant *q = &c->q[c->nq++];
      q->name = json_string_value(name);
      q->unit = json_string_value(unit);
      q->label = json_is_string(label) ? json_string_value(label) : NULL;
      q->components = comps;
      q->ncomp = nc;
      q->slot = -1;
    }
    jpath_cut(c, at2);
  }
  jpath_cut(c, at);
  return rc;
}

static void ck_free(ck_node *k) {
  for (size_t i = 0; i < k->nkids; i++) ck_free(&k->kids[i]);
  free(k->kids);
  k->kids = NULL;
  k->nkids = 0;
}

/* Validate one NODE and copy it into *k (children included). */
static int parse_node(ck_ctx *c, const json_t *o, ck_node *k) {
  memset(k, 0, sizeof *k);
  if (!json_is_object(o))
    return fail(c, ERGO_EFORMAT, o, "an object with name, level, time_s, calls, min_s, max_s",
                CK_FIX_CORRUPT);
  const json_t *name = NULL, *level = NULL, *time_s = NULL, *calls = NULL, *min_s = NULL,
               *max_s = NULL;
  int rc;
  if ((rc = member(c, o, "name", is_name, "a region name of 1 to " CK_STR(ERGO_NAME_MAX) " bytes",
                   &name)) ||
      (rc = member(c, o, "level", is_level, "an integer level >= 0", &level)) ||
      (rc = member(c, o, "time_s", is_seconds, "a finite number of seconds >= 0", &time_s)) ||
      (rc = member(c, o, "calls", is_count, "an integer >= 0", &calls)) ||
      (rc = member(c, o, "min_s", is_seconds, "a finite number of seconds >= 0", &min_s)) ||
      (rc = member(c, o, "max_s", is_seconds, "a finite number of seconds >= 0", &max_s)))
    return rc;
  k->name = json_string_value(name);
  k->level = (int)json_integer_value(level);
  k->time_s = json_number_value(time_s);
  k->calls = (uint64_t)json_integer_value(calls);
  k->min_s = json_number_value(min_s);
  k->max_s = json_number_value(max_s);
  if (k->min_s > k->max_s) {
    char what[96];
    snprintf(what, sizeof what, "at most max_s (%.17g)", k->max_s);
    size_t at = jpath_add(c, "min_s");
    rc = fail(c, ERGO_EFORMAT, min_s, what, CK_FIX_CORRUPT);
    jpath_cut(c, at);
    return rc;
  }
  const json_t *open = json_object_get(o, "open");
  if (open && !json_is_boolean(open)) {
    size_t at = jpath_add(c, "open");
    rc = fail(c, ERGO_EFORMAT, open, "true or false", CK_FIX_CORRUPT);
    jpath_cut(c, at);
    return rc;
  }
  if ((rc = parse_node_amounts(c, o, k))) return rc;
  const json_t *kids = json_object_get(o, "children");
  if (!kids) return 0;
  if (!json_is_array(kids)) {
    size_t at = jpath_add(c, "children");
    rc = fail(c, ERGO_EFORMAT, kids, "an array of regions", CK_FIX_CORRUPT);
    jpath_cut(c, at);
    return rc;
  }
  size_t n = json_array_size(kids);
  if (!n) return 0;
  k->kids = calloc(n, sizeof *k->kids);
  if (!k->kids) {
    ergo__error("ergo_checkpoint_load('%s'): out of memory; nothing was loaded", c->file);
    return ERGO_ENOMEM;
  }
  /* Siblings by name (entry: index + 1), so a duplicate is found in O(1) however many there are. */
  size_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  size_t *names = calloc(cap, sizeof *names);
  if (!names) {
    ergo__error("ergo_checkpoint_load('%s'): out of memory; nothing was loaded", c->file);
    return ERGO_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    size_t at = jpath_add(c, "children[%zu]", i);
    rc = parse_node(c, json_array_get(kids, i), &k->kids[i]);
    k->nkids = i + 1;
    /* Siblings are found by name, so two with one name would be one region. */
    size_t slot = rc ? 0 : ergo__name_hash(k->kids[i].name) & (cap - 1);
    for (; !rc && names[slot]; slot = (slot + 1) & (cap - 1)) {
      size_t j = names[slot] - 1;
      if (strcmp(k->kids[j].name, k->kids[i].name) == 0) {
        char what[96];
        snprintf(what, sizeof what, "a name no earlier sibling has (children[%zu] has it)", j);
        jpath_add(c, "name");
        rc = fail(c, ERGO_EFORMAT, json_object_get(json_array_get(kids, i), "name"), what,
                  CK_FIX_CORRUPT);
      }
    }
    if (!rc) names[slot] = i + 1;
    jpath_cut(c, at);
    if (rc) break;
  }
  free(names);
  return rc;
}

/* Validate the whole document into *root. */
static int parse_doc(ck_ctx *c, const json_t *doc, ck_node *root) {
  memset(root, 0, sizeof *root);
  if (!json_is_object(doc))
    return fail(c, ERGO_EVERSION, doc, "an object {\"format\":\"" CK_FORMAT "\", ...}",
                "pass a file written by ergo_checkpoint_save");
  const json_t *v = json_object_get(doc, "format");
  if (!json_is_string(v) || strcmp(json_string_value(v), CK_FORMAT) != 0) {
    jpath_add(c, "format");
    return fail(c, ERGO_EVERSION, v, "\"" CK_FORMAT "\"",
                "pass a file written by ergo_checkpoint_save, not another ergo file");
  }
  v = json_object_get(doc, "version");
  if (!json_is_integer(v)) {
    jpath_add(c, "version");
    return fail(c, ERGO_EFORMAT, v, "an integer", CK_FIX_CORRUPT);
  }
  if (json_integer_value(v) != CK_VERSION) {
    jpath_add(c, "version");
    return fail(c, ERGO_EVERSION, v, "1, the checkpoint version this ergo reads",
                "load it with the ergo version that wrote it, or start without it");
  }
  v = json_object_get(doc, "clock");
  if (v && !json_is_string(v)) {
    jpath_add(c, "clock");
    return fail(c, ERGO_EFORMAT, v, "a clock name", CK_FIX_CORRUPT);
  }
  int rc = parse_quantities(c, doc);
  if (rc) return rc;
  jpath_add(c, "tree");
  rc = parse_node(c, json_object_get(doc, "tree"), root);
  if (!rc && strcmp(root->name, "Global") != 0) {
    jpath_add(c, "name");
    rc = fail(c, ERGO_EFORMAT, json_object_get(json_object_get(doc, "tree"), "name"),
              "\"Global\", the root of every ergo tree", CK_FIX_CORRUPT);
  }
  return rc;
}

/* A region in both the file and the live tree must have one level: figures of a level-2
 * region added to a level-3 one would be misreported and mis-filtered. */
static int check_live(ck_ctx *c, const ck_node *k, ergo__node *live) {
  if (!live) return 0;
  if (live->level != k->level) {
    char what[ERGO_NAME_MAX + 96];
    snprintf(what, sizeof what, "%d, the level of region \"%s\" in this program", live->level,
             live->name);
    size_t at = jpath_add(c, "level");
    json_t *v = json_integer(k->level);
    int rc = fail(c, ERGO_EMISMATCH, v, what,
                  "load only checkpoints of this program, or push the region with the level "
                  "it had when the checkpoint was saved");
    json_decref(v);
    jpath_cut(c, at);
    return rc;
  }
  for (size_t i = 0; i < k->nkids; i++) {
    size_t at = jpath_add(c, "children[%zu]", i);
    int rc = check_live(c, &k->kids[i], ergo__node_find(live, k->kids[i].name, 0));
    jpath_cut(c, at);
    if (rc) return rc;
  }
  return 0;
}

/* ---- quantities: where the file's go in this run, and what is said about it ---- */

/* The first attached quantity named `name` (a checkpoint holds one per name), or -1. */
static int live_slot(const char *name) {
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++)
    if (ergo__quants[i].used && strcmp(ergo__quants[i].q.name, name) == 0) return i;
  return -1;
}

static int same_text(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* Each file quantity's slot (same name, unit and label: amounts of one kind) and components (by
 * name).  Nothing is said yet: the load may still fail. */
static void map_quantities(ck_ctx *c) {
  for (size_t k = 0; k < c->nq; k++) {
    ck_quant *q = &c->q[k];
    int i = live_slot(q->name);
    const ergo_quantity *lq = i >= 0 ? &ergo__quants[i].q : NULL;
    q->slot = lq && same_text(lq->unit, q->unit) && same_text(lq->label, q->label) ? i : -1;
    for (size_t sc = 0; sc < q->ncomp; sc++) {
      const char *name = json_string_value(json_array_get(q->components, sc));
      q->comp[sc] = -1;
      for (int lc = 0; q->slot >= 0 && lc < lq->ncomponents && q->comp[sc] < 0; lc++)
        if (strcmp(lq->components[lc], name) == 0) q->comp[sc] = lc;
    }
  }
}

/* Append "name" to a list of names in buf (cut with "..." when it is full). */
static void list_add(char *buf, size_t cap, const char *name) {
  size_t n = strlen(buf);
  if (n + 4 >= cap) return;
  int w = snprintf(buf + n, cap - n, "%s\"%s\"", n ? ", " : "", name);
  if (w < 0 || (size_t)w >= cap - n) snprintf(buf + (cap > 4 ? cap - 4 : 0), 4, "...");
}

static const char *label_of(const char *label) { return label ? label : "measured"; }

/* After a load: one warning per quantity whose figures could not all be added. */
static void say_quantities(const ck_ctx *c) {
  char names[256];
  for (size_t k = 0; k < c->nq; k++) {
    const ck_quant *q = &c->q[k];
    int i = live_slot(q->name);
    if (i < 0) {
      ergo__warn("ergo_checkpoint_load('%s'): quantity \"%s\" (%s) of the checkpoint is not "
                 "attached in this run; its figures are dropped, time and calls are loaded (fix: "
                 "run with what measured it, for energy the ERGO_ENERGY it was saved with)",
                 c->file, q->name, q->unit);
      continue;
    }
    const ergo_quantity *lq = &ergo__quants[i].q;
    if (q->slot < 0) {
      ergo__warn("ergo_checkpoint_load('%s'): quantity \"%s\" of the checkpoint is in %s (%s), "
                 "this run's in %s (%s); its figures are dropped and this run's amounts are "
                 "marked lower bounds (>=) (fix: load it in a run that measures as it was saved)",
                 c->file, q->name, q->unit, label_of(q->label), lq->unit, label_of(lq->label));
      continue;
    }
    names[0] = '\0';
    for (size_t sc = 0; sc < q->ncomp; sc++)
      if (q->comp[sc] < 0)
        list_add(names, sizeof names, json_string_value(json_array_get(q->components, sc)));
    if (names[0])
      ergo__warn("ergo_checkpoint_load('%s'): component(s) %s of quantity \"%s\" in the "
                 "checkpoint are not measured in this run; their figures are dropped (fix: load "
                 "it where the meter has them)",
                 c->file, names, q->name);
    names[0] = '\0';
    for (int lc = 0; lc < lq->ncomponents; lc++) {
      int have = 0;
      for (size_t sc = 0; sc < q->ncomp; sc++) have |= q->comp[sc] == lc;
      if (!have) list_add(names, sizeof names, lq->components[lc]);
    }
    if (names[0])
      ergo__warn("ergo_checkpoint_load('%s'): component(s) %s of quantity \"%s\" are not in "
                 "the checkpoint; their amounts are this run's alone, marked lower bounds (>=) "
                 "(fix: load a checkpoint saved where the meter has them)",
                 c->file, names, q->name);
  }
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++) {
    if (!ergo__quants[i].used || live_slot(ergo__quants[i].q.name) != i) continue;
    if (file_quant(c, ergo__quants[i].q.name)) continue; /* said above */
    ergo__warn("ergo_checkpoint_load('%s'): quantity \"%s\" of this run is not in the "
               "checkpoint (saved without it, or by an older ergo); the loaded regions' amounts "
               "are this run's alone, marked lower bounds (>=) (fix: load a checkpoint saved "
               "with it to sum both runs)",
               c->file, ergo__quants[i].q.name);
  }
}

/* Whether k brings amounts this run keeps. */
static int brings_amounts(const ck_ctx *c, const ck_node *k) {
  for (size_t j = 0; k->q && j < c->nq; j++)
    if (c->q[j].slot >= 0 && json_object_get(k->q, c->q[j].name)) return 1;
  return 0;
}

/* Room for k's amounts in n (made before anything is added, so adding cannot fail). */
static int make_room(const ck_ctx *c, const ck_node *k, ergo__cold *n) {
  if (n->q_loaded || !brings_amounts(c, k)) return 0;
  ergo__qloaded *l = calloc(1, sizeof *l);
  if (!l) return ERGO_ENOMEM;
  __atomic_store_n(&n->q_loaded, l, __ATOMIC_RELEASE);
  return 0;
}

/* Add k's amounts to n (make_room made room): by component name, with the seconds they were
 * measured over. */
static void add_amounts(const ck_ctx *c, const ck_node *k, ergo__cold *n) {
  ergo__qloaded *l = n->q_loaded;
  for (size_t j = 0; k->q && j < c->nq; j++) {
    const ck_quant *q = &c->q[j];
    int i = q->slot;
    const json_t *a = i >= 0 ? json_object_get(k->q, q->name) : NULL;
    if (!a) continue;
    const json_t *secs = k->q_s ? json_object_get(k->q_s, q->name) : NULL;
    if (!(l->ok & (1u << i)) || l->gen[i] != ergo__quants[i].gen) { /* a detached one's: anew */
      memset(l->v[i], 0, sizeof l->v[i]);
      memset(l->s[i], 0, sizeof l->s[i]);
      l->ok &= ~((1u << i) | ERGO__Q_LOWER(i));
      l->gen[i] = ergo__quants[i].gen;
    }
    l->ok |= 1u << i;
    for (size_t sc = 0; sc < q->ncomp; sc++) {
      int lc = q->comp[sc];
      if (lc < 0) continue;
      l->v[i][lc] += json_number_value(json_array_get(a, sc));
      l->s[i][lc] += secs ? json_number_value(json_array_get(secs, sc)) : k->time_s;
    }
    for (size_t e = 0; k->q_lower && e < json_array_size(k->q_lower); e++)
      if (strcmp(json_string_value(json_array_get(k->q_lower, e)), q->name) == 0)
        l->ok |= ERGO__Q_LOWER(i);
  }
}

/* Nodes created for the checkpoint, in creation order, so a failure can take them out. */
typedef struct ck_created {
  ergo__node **v;
  size_t n, cap;
} ck_created;

static int create_missing(const ck_ctx *c, ck_node *k, ck_created *made) {
  for (size_t i = 0; i < k->nkids; i++) {
    ck_node *kid = &k->kids[i];
    kid->live = ergo__node_find(k->live, kid->name, 0);
    if (!kid->live) {
      if (made->n == made->cap) {
        size_t cap = made->cap ? made->cap * 2 : 16;
        ergo__node **v = realloc(made->v, cap * sizeof *v);
        if (!v) return ERGO_ENOMEM;
        made->v = v;
        made->cap = cap;
      }
      kid->live = ergo__node_child(k->live, kid->name, kid->level);
      if (!kid->live) return ERGO_ENOMEM;
      made->v[made->n++] = kid->live;
    }
    /* Every node the checkpoint adds to gets its cold fields now, so adding cannot fail. */
    if (!ergo__node_cold(kid->live) || make_room(c, kid, kid->live->cold)) return ERGO_ENOMEM;
    int rc = create_missing(c, kid, made);
    if (rc) return rc;
  }
  return 0;
}

/* Reverse creation order: each node removed is then the last child of its parent and has
 * no children left. */
static void remove_created(ck_created *made) {
  while (made->n) {
    ergo__node_remove_last(made->v[--made->n]);
  }
}

static void add_figures(const ck_ctx *c, const ck_node *k) {
  for (size_t i = 0; i < k->nkids; i++) {
    const ck_node *kid = &k->kids[i];
    ergo__cold *n = kid->live->cold; /* made by create_missing */
    n->loaded_s += kid->time_s;
    n->loaded_calls += kid->calls;
    /* Without a completed call min_s and max_s are placeholders, not extremes. */
    if (kid->calls) {
      if (n->loaded_min_s < 0 || kid->min_s < n->loaded_min_s) n->loaded_min_s = kid->min_s;
      if (kid->max_s > n->loaded_max_s) n->loaded_max_s = kid->max_s;
    }
    add_amounts(c, kid, n);
    add_figures(c, kid);
  }
}

/* Must run on the main thread (or while it pushes no region): it adds nodes to its tree. */
static int merge(ck_ctx *c, ck_node *root) {
  ergo__tree *t = ergo__g.main_tree;
  int rc = check_live(c, root, &t->root);
  if (rc) return rc;
  root->live = &t->root;
  ck_created made = {0};
  rc = ergo__node_cold(&t->root) && !make_room(c, root, t->root.cold)
           ? create_missing(c, root, &made)
           : ERGO_ENOMEM;
  if (rc) {
    remove_created(&made);
    ergo__error("ergo_checkpoint_load('%s'): out of memory; nothing was loaded", c->file);
  } else {
    /* Global: its time is wall time of earlier runs, its calls their number. */
    ergo__cold *g = t->root.cold;
    g->loaded_s += root->time_s;
    g->loaded_calls += root->calls;
    /* Global's extremes are over run segments; a checkpoint from before they were written has
     * 0 there, and with one segment its time is both. */
    double lo = root->min_s, hi = root->max_s;
    if (hi <= 0 && root->calls == 1) lo = hi = root->time_s;
    if (hi > 0) {
      if (g->loaded_min_s < 0 || lo < g->loaded_min_s) g->loaded_min_s = lo;
      if (hi > g->loaded_max_s) g->loaded_max_s = hi;
    }
    add_amounts(c, root, g);
    add_figures(c, root);
  }
  free(made.v);
  return rc;
}

/* jansson stopped at its nesting limit: the file may be whole, just too deep to read. */
static int load_too_deep(const json_error_t *err) {
#if JANSSON_VERSION_HEX >= 0x020b00
  if (json_error_code(err) == json_error_stack_overflow) return 1;
#endif
  return strstr(err->text, "maximum parsing depth") != NULL;
}

static int load_at(const char *path) {
  if (!path || !*path) {
    ergo__error("ergo_checkpoint_load: the path is %s; nothing was loaded (fix: pass the path "
                "of a file written by ergo_checkpoint_save)",
                path ? "empty" : "NULL");
    return ERGO_EINVAL;
  }
  if (!ergo__g.initialized) {
    ergo__warn("ergo_checkpoint_load('%s'): ergo is not initialised; nothing was loaded (fix: "
               "call ergo_init first)",
               path);
    return ERGO_ESTATE;
  }
  char size[128];
  if (ergo__input_size_check(path, size, sizeof size)) {
    ergo__error("ergo_checkpoint_load('%s'): the file is %s; nothing was loaded (fix: pass the "
                "path of a file written by ergo_checkpoint_save)",
                path, size);
    return ERGO_EFORMAT;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    ergo__error("ergo_checkpoint_load('%s'): cannot open it: %s; nothing was loaded (fix: check "
                "the path, or start without a checkpoint)",
                path, strerror(errno));
    return ERGO_EIO;
  }
  json_error_t err;
  /* Duplicate keys would let one value silently win over another: reject them. */
  json_t *doc = json_loadf(f, JSON_REJECT_DUPLICATES, &err);
  fclose(f);
  if (!doc && load_too_deep(&err)) {
    ergo__error("ergo_checkpoint_load('%s'): line %d column %d: its regions nest deeper than "
                "the " CK_JSON_LEVELS " JSON levels jansson reads (a checkpoint holds %d levels of "
                "regions; an ergo that did not check saved it); nothing was loaded (fix: start "
                "without it, and push fewer nested regions so the next one can be saved)",
                path, err.line, err.column, ERGO__CK_MAX_DEPTH);
    return ERGO_EBUSY;
  }
  if (!doc) {
    ergo__error("ergo_checkpoint_load('%s'): line %d column %d: %s: the file is not valid JSON "
                "(truncated or corrupt); nothing was loaded (fix: " CK_FIX_CORRUPT ")",
                path, err.line, err.column, err.text);
    return ERGO_EFORMAT;
  }
  ck_ctx c = {.file = path};
  ck_node root;
  int rc = parse_doc(&c, doc, &root);
  if (!rc) {
    pthread_mutex_lock(&ergo__g.lock);
    map_quantities(&c);
    rc = merge(&c, &root);
    pthread_mutex_unlock(&ergo__g.lock);
  }
  if (!rc) say_quantities(&c);
  ck_free(&root);
  free(c.q);
  free(c.jpath);
  json_decref(doc);
  return rc;
}
