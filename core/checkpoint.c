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
 *   {"format":"ergo-checkpoint","version":1,"clock":"tsc|monotonic|user","tree":NODE}
 *   NODE = {"name":s,"level":int,"time_s":num,"calls":int,"min_s":num,"max_s":num,
 *           "open":bool,"children":[NODE...]}
 * The root is "Global"; its time_s is the run's wall time and its calls count run segments
 * (1 per run, plus the segments it was restarted from), its min_s and max_s the shortest and
 * longest segment (0 in files from before 0.2.0: a one-segment file's time is read as both).
 * Figures come from a non-step
 * snapshot, so they already hold what earlier checkpoints added.  A region open at save
 * has its time so far saved but no call counted (calls, min_s and max_s cover completed
 * calls only); "open" records that and is not read back.  Keys other than these are
 * ignored on load, so a later version can add some without breaking old readers;
 * "open" and "children" may be absent. */
#define CK_FORMAT "ergo-checkpoint"
#define CK_VERSION 1
#define CK_FIX_CORRUPT "restore the file from a good copy, or start without it"
#define CK_STR2(x) #x
#define CK_STR(x) CK_STR2(x)

/* ---- save ------------------------------------------------------------------ */

static json_t *save_node(const ergo__snap *s) {
  json_t *kids = json_array();
  if (!kids) return NULL;
  for (size_t i = 0; i < s->nchildren; i++)
    if (json_array_append_new(kids, save_node(&s->children[i]))) {
      json_decref(kids);
      return NULL;
    }
  json_int_t calls = s->calls > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)s->calls;
  return json_pack("{s:s, s:i, s:f, s:I, s:f, s:f, s:b, s:o}", "name", s->name, "level", s->level,
                   "time_s", s->time_s, "calls", calls, "min_s", s->min_s, "max_s", s->max_s,
                   "open", s->open, "children", kids);
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
  json_t *doc = json_pack("{s:s, s:i, s:s, s:o}", "format", CK_FORMAT, "version", CK_VERSION,
                          "clock", ergo_clock_name(), "tree", save_node(&s));
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
  struct ck_node *kids;
  size_t nkids;
  ergo__node *live; /* the live node it merges into (set while merging) */
} ck_node;

/* The file being loaded and the JSON path of the element being checked, so that the one
 * error line can say exactly where the file is wrong ("tree/children[2]/calls"). */
typedef struct ck_ctx {
  const char *file;
  char *jpath;
  size_t len, cap;
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
  jpath_add(c, "tree");
  int rc = parse_node(c, json_object_get(doc, "tree"), root);
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

/* Nodes created for the checkpoint, in creation order, so a failure can take them out. */
typedef struct ck_created {
  ergo__node **v;
  size_t n, cap;
} ck_created;

static int create_missing(ck_node *k, ck_created *made) {
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
    if (!ergo__node_cold(kid->live)) return ERGO_ENOMEM;
    int rc = create_missing(kid, made);
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

static void add_figures(const ck_node *k) {
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
    add_figures(kid);
  }
}

/* Must run on the main thread (or while it pushes no region): it adds nodes to its tree. */
static int merge(ck_ctx *c, ck_node *root) {
  ergo__tree *t = ergo__g.main_tree;
  int rc = check_live(c, root, &t->root);
  if (rc) return rc;
  root->live = &t->root;
  ck_created made = {0};
  rc = ergo__node_cold(&t->root) ? create_missing(root, &made) : ERGO_ENOMEM;
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
    add_figures(root);
  }
  free(made.v);
  return rc;
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
    rc = merge(&c, &root);
    pthread_mutex_unlock(&ergo__g.lock);
  }
  ck_free(&root);
  free(c.jpath);
  json_decref(doc);
  return rc;
}
