/* test_checkpoint.c - checkpoint save/load: round trip, accumulation, atomicity, rejections. */
#include "test_util.h"

#include "internal.h"

#include <jansson.h>

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

#define assert_dbl(a, b)                                                                           \
  do {                                                                                             \
    double a_ = (a), b_ = (b);                                                                     \
    if (a_ != b_) fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                              \
  } while (0)

#define assert_contains(hay, needle)                                                               \
  do {                                                                                             \
    if (!strstr((hay), (needle))) fail_msg("\"%s\"\n  does not contain \"%s\"", (hay), (needle));  \
  } while (0)

/* Global 3.0 s = A 2.0 s (B 0.5 s, C 0.25 s) + D 0.75 s in two calls (0.25 s, 0.5 s). */
static void build_tree(void) {
  ERGO_PUSH(1, "A");
  advance_ms(1000);
  ERGO_PUSH(2, "B");
  advance_ms(500);
  ERGO_POP(2, "B");
  ERGO_PUSH(2, "C");
  advance_ms(250);
  ERGO_POP(2, "C");
  advance_ms(250);
  ERGO_POP(1, "A");
  ERGO_PUSH(1, "D");
  advance_ms(250);
  ERGO_POP(1, "D");
  ERGO_PUSH(1, "D");
  advance_ms(500);
  ERGO_POP(1, "D");
  advance_ms(250);
}

/* Figures of the live main tree, read from a fresh snapshot. */
typedef struct figures {
  double time_s, min_s, max_s;
  unsigned long long calls;
  size_t children;
  int open;
} figures;

static figures fig(const char *p1, const char *p2) {
  ergo__snap root;
  assert_int_equal(ergo__snap_take(ergo__g.main_tree, 0, &root), 0);
  const ergo__snap *s = &root;
  const char *parts[2] = {p1, p2};
  for (int k = 0; k < 2 && parts[k]; k++) {
    const ergo__snap *next = NULL;
    for (size_t i = 0; i < s->nchildren; i++)
      if (strcmp(s->children[i].name, parts[k]) == 0) next = &s->children[i];
    if (!next) fail_msg("no region %s", parts[k]);
    s = next;
  }
  figures f = {s->time_s, s->min_s, s->max_s, (unsigned long long)s->calls, s->nchildren, s->open};
  ergo__snap_free(&root);
  return f;
}

static void check(const char *p1, const char *p2, double time_s, unsigned long long calls,
                  double min_s, double max_s, size_t children) {
  figures f = fig(p1, p2);
  assert_dbl(f.time_s, time_s);
  assert_int_equal(f.calls, calls);
  assert_dbl(f.min_s, min_s);
  assert_dbl(f.max_s, max_s);
  assert_int_equal(f.children, children);
}

static void start(void) { test_init_default(); }

static void restart(void) {
  assert_int_equal(ergo_finalize(), 0);
  start();
}

static json_t *load_json(const char *path) {
  json_error_t err;
  json_t *doc = json_load_file(path, 0, &err);
  if (!doc) fail_msg("%s:%d:%d: %s", path, err.line, err.column, err.text);
  return doc;
}

static void test_save_format(void **state) {
  (void)state;
  start();
  build_tree();
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  json_t *doc = load_json(test_in_dir("ck.json"));
  assert_string_equal(json_string_value(json_object_get(doc, "format")), "ergo-checkpoint");
  assert_int_equal(json_integer_value(json_object_get(doc, "version")), 1);
  assert_string_equal(json_string_value(json_object_get(doc, "clock")), "user");
  json_t *g = json_object_get(doc, "tree");
  assert_string_equal(json_string_value(json_object_get(g, "name")), "Global");
  assert_int_equal(json_integer_value(json_object_get(g, "level")), 0);
  assert_dbl(json_number_value(json_object_get(g, "time_s")), 3.0);
  assert_int_equal(json_integer_value(json_object_get(g, "calls")), 1);
  assert_true(json_is_true(json_object_get(g, "open")));
  json_t *kids = json_object_get(g, "children");
  assert_int_equal(json_array_size(kids), 2);
  json_t *d = json_array_get(kids, 1);
  assert_string_equal(json_string_value(json_object_get(d, "name")), "D");
  assert_int_equal(json_integer_value(json_object_get(d, "level")), 1);
  assert_dbl(json_number_value(json_object_get(d, "time_s")), 0.75);
  assert_int_equal(json_integer_value(json_object_get(d, "calls")), 2);
  assert_dbl(json_number_value(json_object_get(d, "min_s")), 0.25);
  assert_dbl(json_number_value(json_object_get(d, "max_s")), 0.5);
  assert_true(json_is_false(json_object_get(d, "open")));
  assert_int_equal(json_array_size(json_object_get(d, "children")), 0);
  json_decref(doc);
}

/* Save, restart, load: the same figures; then more regions add to them exactly. */
static void test_round_trip_continues(void **state) {
  (void)state;
  start();
  build_tree();
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  restart();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck.json")), 0);
  /* Global counts run segments: this run (0 s so far) and the saved one (3.0 s). */
  check(NULL, NULL, 3.0, 2, 0, 3.0, 2);
  check("A", NULL, 2.0, 1, 2.0, 2.0, 2);
  check("A", "B", 0.5, 1, 0.5, 0.5, 0);
  check("A", "C", 0.25, 1, 0.25, 0.25, 0);
  check("D", NULL, 0.75, 2, 0.25, 0.5, 0);

  ERGO_PUSH(1, "D");
  advance_ms(1000);
  ERGO_POP(1, "D");
  ERGO_PUSH(1, "A");
  ERGO_PUSH(2, "B");
  advance_ms(250);
  ERGO_POP(2, "B");
  advance_ms(250);
  ERGO_POP(1, "A");
  /* The loaded nodes are the ones the pushes found: no duplicate regions. */
  check(NULL, NULL, 4.5, 2, 1.5, 3.0, 2);
  check("D", NULL, 1.75, 3, 0.25, 1.0, 0);
  check("A", NULL, 2.5, 2, 0.5, 2.0, 2);
  check("A", "B", 0.75, 2, 0.25, 0.5, 0);
  check("A", "C", 0.25, 1, 0.25, 0.25, 0);
}

/* A Latin-1 region name ("résidu") is saved with its bad byte as the text \xe9 (a checkpoint is
 * JSON, which holds only UTF-8), loads back, and the same name pushed again after the load finds
 * the loaded region. */
static void test_name_not_utf8_round_trip(void **state) {
  (void)state;
  start();
  ergo_push(1, "r\xe9sidu");
  advance_ms(500);
  ergo_pop(1, "r\xe9sidu");
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  restart();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck.json")), 0);
  check("r\\xe9sidu", NULL, 0.5, 1, 0.5, 0.5, 0);
  ergo_push(1, "r\xe9sidu");
  advance_ms(250);
  ergo_pop(1, "r\xe9sidu");
  check("r\\xe9sidu", NULL, 0.75, 2, 0.25, 0.5, 0);
  assert_int_equal(fig(NULL, NULL).children, 1);
  assert_int_equal(ergo_error_count(), 1); /* the name, once; nothing else */
}

/* Loading into a live tree adds to the figures it already has. */
static void test_load_adds_to_live(void **state) {
  (void)state;
  start();
  build_tree();
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck.json")), 0);
  check(NULL, NULL, 6.0, 2, 3.0, 3.0, 2);
  check("A", NULL, 4.0, 2, 2.0, 2.0, 2);
  check("D", NULL, 1.5, 4, 0.25, 0.5, 0);
}

/* A region open at save: its time so far is saved, no call is counted. */
static void test_open_region_saved(void **state) {
  (void)state;
  start();
  ERGO_PUSH(1, "A");
  advance_ms(1000);
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  ERGO_POP(1, "A");
  json_t *doc = load_json(test_in_dir("ck.json"));
  json_t *a = json_array_get(json_object_get(json_object_get(doc, "tree"), "children"), 0);
  assert_true(json_is_true(json_object_get(a, "open")));
  assert_int_equal(json_integer_value(json_object_get(a, "calls")), 0);
  json_decref(doc);
  restart();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck.json")), 0);
  check("A", NULL, 1.0, 0, 0, 0, 0);
  ERGO_PUSH(1, "A");
  advance_ms(500);
  ERGO_POP(1, "A");
  /* The saved call was not complete, so it sets no min or max. */
  check("A", NULL, 1.5, 1, 0.5, 0.5, 0);
}

/* A checkpoint of a restarted run holds the earlier segments too. */
static void test_save_after_load(void **state) {
  (void)state;
  start();
  build_tree();
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck1.json")), 0);
  restart();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck1.json")), 0);
  ERGO_PUSH(1, "E");
  advance_ms(1000);
  ERGO_POP(1, "E");
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck2.json")), 0);
  restart();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck2.json")), 0);
  check(NULL, NULL, 4.0, 3, 0, 3.0, 3);
  check("A", NULL, 2.0, 1, 2.0, 2.0, 2);
  check("E", NULL, 1.0, 1, 1.0, 1.0, 0);
  check("D", NULL, 0.75, 2, 0.25, 0.5, 0);
}

static void test_save_atomic(void **state) {
  (void)state;
  start();
  build_tree();
  char *junk = malloc(100001);
  assert_non_null(junk);
  memset(junk, 'x', 100000);
  junk[100000] = '\0';
  write_text(test_in_dir("ck.json"), junk);
  free(junk);
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  assert_int_equal(test_dir_entries(), 1);
  json_t *doc = load_json(test_in_dir("ck.json"));
  assert_string_equal(json_string_value(json_object_get(doc, "format")), "ergo-checkpoint");
  json_decref(doc);
  assert_int_equal(ergo_checkpoint_save(test_in_dir("missing/ck.json")), ERGO_EIO);
  assert_int_equal(test_dir_entries(), 1);
}

static void test_bad_calls(void **state) {
  (void)state;
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), ERGO_ESTATE);
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck.json")), ERGO_ESTATE);
  assert_int_equal(test_dir_entries(), 0);
  start();
  assert_int_equal(ergo_checkpoint_save(NULL), ERGO_EINVAL);
  assert_int_equal(ergo_checkpoint_load(NULL), ERGO_EINVAL);
  assert_int_equal(ergo_checkpoint_load(""), ERGO_EINVAL);
}

/* ---- rejected files: one line naming file and element; the live tree untouched ---- */

/* Valid checkpoint text for build_tree's regions, written with ' for " (see dq). */
#define NODE_B "{'name':'B','level':2,'time_s':0.5,'calls':1,'min_s':0.5,'max_s':0.5}"
#define NODE_C "{'name':'C','level':2,'time_s':0.25,'calls':1,'min_s':0.25,'max_s':0.25}"
#define NODE_A(level, time, calls, min, max, kids)                                                 \
  "{'name':'A','level':" level ",'time_s':" time ",'calls':" calls ",'min_s':" min ",'max_s':" max \
  ",'open':false,'children':[" kids "]}"
#define NODE_D "{'name':'D','level':1,'time_s':0.75,'calls':2,'min_s':0.25,'max_s':0.5}"
#define DOC(format, version, kids)                                                                 \
  "{'format':'" format "','version':" version ",'clock':'user','tree':{'name':'Global',"           \
  "'level':0,'time_s':3,'calls':1,'min_s':0,'max_s':0,'children':[" kids "]}}"
#define GOOD_A NODE_A("1", "2.0", "1", "2.0", "2.0", NODE_B "," NODE_C)

static char *dq(const char *s) {
  char *t = strdup(s);
  assert_non_null(t);
  for (char *p = t; *p; p++)
    if (*p == '\'') *p = '"';
  return t;
}

/* The live tree's text and JSON reports, which must not change when a load fails. */
static char *live_reports(void) {
  char *text = ergo_report_string(), *json = ergo__report_json_string();
  assert_non_null(text);
  assert_non_null(json);
  size_t n = strlen(text) + strlen(json) + 1;
  char *both = malloc(n);
  assert_non_null(both);
  snprintf(both, n, "%s%s", text, json);
  free(text);
  free(json);
  return both;
}

static void expect_reject(const char *file, int rc, const char *element, const char *detail) {
  start();
  build_tree();
  char *before = live_reports();
  unsigned long errors = ergo_error_count();
  assert_int_equal(ergo_checkpoint_load(file), rc);
  assert_int_equal(ergo_error_count(), errors + 1);
  const char *msg = ergo_last_error();
  assert_contains(msg, file);
  assert_contains(msg, element);
  if (detail) assert_contains(msg, detail);
  assert_contains(msg, "fix:");
  char *after = live_reports();
  assert_string_equal(after, before);
  free(before);
  free(after);
  assert_int_equal(ergo_finalize(), 0);
}

static void reject_text(const char *single_quoted, int rc, const char *element,
                        const char *detail) {
  char *text = dq(single_quoted);
  write_text(test_in_dir("bad.json"), text);
  free(text);
  char *file = strdup(test_in_dir("bad.json"));
  expect_reject(file, rc, element, detail);
  free(file);
}

static void test_reference_doc_loads(void **state) {
  (void)state;
  /* The hand-written reference the rejections below alter is itself valid. */
  char *text = dq(DOC("ergo-checkpoint", "1", GOOD_A "," NODE_D));
  write_text(test_in_dir("good.json"), text);
  free(text);
  start();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("good.json")), 0);
  /* The reference's Global has no extremes (min_s = max_s = 0) and one call: its time is both. */
  check(NULL, NULL, 3.0, 2, 0, 3.0, 2);
  check("A", "C", 0.25, 1, 0.25, 0.25, 0);
  check("D", NULL, 0.75, 2, 0.25, 0.5, 0);
}

static void test_reject_truncated(void **state) {
  (void)state;
  start();
  build_tree();
  assert_int_equal(ergo_checkpoint_save(test_in_dir("good.json")), 0);
  assert_int_equal(ergo_finalize(), 0);
  char *text = slurp(test_in_dir("good.json"));
  assert_non_null(text);
  text[strlen(text) / 2] = '\0';
  write_text(test_in_dir("bad.json"), text);
  free(text);
  char *file = strdup(test_in_dir("bad.json"));
  expect_reject(file, ERGO_EFORMAT, "line ", "column ");
  free(file);
  write_text(test_in_dir("bad.json"), "");
  file = strdup(test_in_dir("bad.json"));
  expect_reject(file, ERGO_EFORMAT, "line ", "not valid JSON");
  free(file);
}

static void test_reject_malformed(void **state) {
  (void)state;
  reject_text("{'format':'ergo-checkpoint','version':1,,'tree':{}}", ERGO_EFORMAT,
              "line 1 column 41", "not valid JSON");
  reject_text(DOC("ergo-checkpoint", "1", GOOD_A) " trailing", ERGO_EFORMAT, "line 1", NULL);
  reject_text("{'format':'ergo-checkpoint','format':'ergo-checkpoint','version':1}", ERGO_EFORMAT,
              "line 1", "duplicate");
}

static void test_reject_format_version(void **state) {
  (void)state;
  reject_text(DOC("ergo-report", "1", GOOD_A), ERGO_EVERSION, "format is \"ergo-report\"",
              "expected \"ergo-checkpoint\"");
  reject_text("[1,2]", ERGO_EVERSION, "the document is [1,2]", NULL);
  reject_text(DOC("ergo-checkpoint", "2", GOOD_A), ERGO_EVERSION, "version is 2", "expected 1");
  reject_text(DOC("ergo-checkpoint", "'1'", GOOD_A), ERGO_EFORMAT, "version is \"1\"", NULL);
}

static void test_reject_values(void **state) {
  (void)state;
  reject_text(DOC("ergo-checkpoint", "1", NODE_A("1", "-1", "1", "0", "0", "")), ERGO_EFORMAT,
              "tree/children[0]/time_s is -1", "expected a finite number of seconds >= 0");
  reject_text(DOC("ergo-checkpoint", "1", NODE_A("1", "2.0", "1", "2.0", "1.0", "")), ERGO_EFORMAT,
              "tree/children[0]/min_s is 2.0", "at most max_s (1)");
  reject_text(DOC("ergo-checkpoint", "1", NODE_A("1", "2.0", "1.5", "2.0", "2.0", "")),
              ERGO_EFORMAT, "tree/children[0]/calls is 1.5", "an integer >= 0");
  reject_text(DOC("ergo-checkpoint", "1", NODE_A("1", "2.0", "-3", "2.0", "2.0", "")), ERGO_EFORMAT,
              "tree/children[0]/calls is -3", NULL);
  reject_text(DOC("ergo-checkpoint", "1", NODE_A("-1", "2.0", "1", "2.0", "2.0", "")), ERGO_EFORMAT,
              "tree/children[0]/level is -1", NULL);
  reject_text(DOC("ergo-checkpoint", "1", NODE_A("1", "'2'", "1", "2.0", "2.0", "")), ERGO_EFORMAT,
              "tree/children[0]/time_s is \"2\"", NULL);
  /* Deeper elements are named by their whole path. */
  reject_text(DOC("ergo-checkpoint", "1",
                  NODE_A("1", "2.0", "1", "2.0", "2.0",
                         NODE_B ",{'name':'C','level':2,'time_s':0.25,'calls':-1,'min_s':0,"
                                "'max_s':0}")),
              ERGO_EFORMAT, "tree/children[0]/children[1]/calls is -1", NULL);
  reject_text(DOC("ergo-checkpoint", "1", NODE_D ",{'level':1}"), ERGO_EFORMAT,
              "tree/children[1]/name is missing", NULL);
  reject_text(
      DOC("ergo-checkpoint", "1", "{'name':'','level':1,'time_s':0,'calls':0,'min_s':0,'max_s':0}"),
      ERGO_EFORMAT, "tree/children[0]/name is \"\"", NULL);
  reject_text(DOC("ergo-checkpoint", "1", NODE_D ",7"), ERGO_EFORMAT, "tree/children[1] is 7",
              NULL);
  reject_text(DOC("ergo-checkpoint", "1", NODE_A("1", "2.0", "1", "2.0", "2.0", "") ",'x'"),
              ERGO_EFORMAT, "tree/children[1] is \"x\"", NULL);
  reject_text("{'format':'ergo-checkpoint','version':1}", ERGO_EFORMAT, "tree is missing", NULL);
  reject_text("{'format':'ergo-checkpoint','version':1,'tree':{'name':'Main','level':0,"
              "'time_s':0,'calls':1,'min_s':0,'max_s':0}}",
              ERGO_EFORMAT, "tree/name is \"Main\"", "\"Global\"");
}

static void test_reject_long_name(void **state) {
  (void)state;
  char name[ERGO_NAME_MAX + 2];
  memset(name, 'n', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  char doc[1024];
  snprintf(doc, sizeof doc,
           DOC("ergo-checkpoint", "1",
               "{'name':'%s','level':1,'time_s':0,'calls':0,'min_s':0,'max_s':0}"),
           name);
  reject_text(doc, ERGO_EFORMAT, "tree/children[0]/name is \"nnnn", "1 to 127 bytes");
}

static void test_reject_duplicate_sibling(void **state) {
  (void)state;
  reject_text(DOC("ergo-checkpoint", "1", NODE_D "," GOOD_A "," NODE_D), ERGO_EFORMAT,
              "tree/children[2]/name is \"D\"", "children[0] has it");
}

static void test_reject_level_mismatch(void **state) {
  (void)state;
  reject_text(DOC("ergo-checkpoint", "1", NODE_A("3", "2.0", "1", "2.0", "2.0", "")),
              ERGO_EMISMATCH, "tree/children[0]/level is 3", "1, the level of region \"A\"");
  /* Found after a region the live tree lacks: that region must not be created either. */
  reject_text(DOC("ergo-checkpoint", "1",
                  "{'name':'NEW','level':1,'time_s':1,'calls':1,'min_s':1,'max_s':1,"
                  "'children':[{'name':'DEEP','level':2,'time_s':1,'calls':1,'min_s':1,"
                  "'max_s':1}]}," NODE_A("1", "2.0", "1", "2.0", "2.0",
                                         NODE_B ",{'name':'C','level':5,'time_s':0.25,"
                                                "'calls':1,'min_s':0.25,'max_s':0.25}")),
              ERGO_EMISMATCH, "tree/children[1]/children[1]/level is 5", "region \"C\"");
}

static void test_reject_missing_file(void **state) {
  (void)state;
  char *file = strdup(test_in_dir("absent.json"));
  expect_reject(file, ERGO_EIO, "cannot open it", "No such file or directory");
  free(file);
}

/* 2000 siblings saved, then loaded into a run that already has half of them, pushed in another
 * order: every region's figures are the saved ones plus the live ones, none doubled. */
static void test_many_siblings_round_trip(void **state) {
  (void)state;
  enum { N = 2000 };
  char name[16];
  start();
  ERGO_PUSH(1, "L");
  for (int k = 0; k < N; k++) {
    snprintf(name, sizeof name, "s%d", k);
    region_ms(2, name, (uint64_t)(k % 4 + 1));
  }
  ERGO_POP(1, "L");
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  restart();
  ERGO_PUSH(1, "L");
  for (int k = N - 1; k >= 0; k -= 2) {
    snprintf(name, sizeof name, "s%d", k);
    region_ms(2, name, 10);
  }
  ERGO_POP(1, "L");
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck.json")), 0);
  ergo__snap root;
  assert_int_equal(ergo__snap_take(ergo__g.main_tree, 0, &root), 0);
  assert_int_equal(root.nchildren, 1);
  const ergo__snap *l = &root.children[0];
  assert_int_equal(l->nchildren, N);
  int seen[N] = {0};
  for (size_t i = 0; i < l->nchildren; i++) {
    const ergo__snap *c = &l->children[i];
    int k = atoi(c->name + 1);
    assert_true(k >= 0 && k < N && !seen[k]);
    seen[k] = 1;
    double saved = (k % 4 + 1) * 1e-3;
    if (k % 2) {
      assert_int_equal(c->calls, 2);
      assert_dbl(c->time_s, saved + 10e-3);
      assert_dbl(c->min_s, saved);
      assert_dbl(c->max_s, 10e-3);
    } else {
      assert_int_equal(c->calls, 1);
      assert_dbl(c->time_s, saved);
    }
  }
  ergo__snap_free(&root);
}

/* ---- quantities: every attached one's amounts are saved and added back by name ---- */

/* A fake energy meter: fixed amounts per region (package-0, dram-0), times q_scale, so two runs
 * are told apart.  B is not measured; C's amount is a lower bound. */
static double q_scale = 1;
static int q_value(void *ctx, const ergo_region *r, double *out) {
  (void)ctx;
  const char *n = ergo_region_parent(r) ? ergo_region_name(r) : "Global";
  double pkg;
  if (!strcmp(n, "Global"))
    pkg = 300;
  else if (!strcmp(n, "A"))
    pkg = 200;
  else if (!strcmp(n, "C"))
    pkg = 25;
  else if (!strcmp(n, "D"))
    pkg = 75;
  else
    return -1;
  out[0] = pkg * q_scale;
  out[1] = pkg * q_scale / 10;
  return !strcmp(n, "C");
}

static int attach_energy(const char *second) {
  ergo_quantity q = {.name = "energy",
                     .unit = "J",
                     .rate_unit = "W",
                     .ncomponents = 2,
                     .components = {"package-0", second},
                     .total_mask = 3,
                     .value = q_value};
  int qi = -1;
  assert_int_equal(ergo_quantity_attach(&q, &qi), 0);
  return qi;
}

/* Quantity qi's figures of a region of the live main tree (p1/p2 as for fig). */
typedef struct qfig {
  unsigned ok; /* 1: measured, 2: and a lower bound */
  double q[2], q_time_s[2], total, rate;
} qfig;

static qfig qfig_of(int qi, int since_step, const char *p1, const char *p2) {
  ergo__snap root;
  assert_int_equal(ergo__snap_take(ergo__g.main_tree, since_step, &root), 0);
  const ergo__snap *s = &root;
  const char *parts[2] = {p1, p2};
  for (int k = 0; k < 2 && parts[k]; k++) {
    const ergo__snap *next = NULL;
    for (size_t i = 0; i < s->nchildren; i++)
      if (strcmp(s->children[i].name, parts[k]) == 0) next = &s->children[i];
    if (!next) fail_msg("no region %s", parts[k]);
    s = next;
  }
  qfig f = {((s->q_ok >> qi) & 1u) | (s->q_ok & ERGO__Q_LOWER(qi) ? 2u : 0u),
            {s->q[qi][0], s->q[qi][1]},
            {s->q_time_s[qi][0], s->q_time_s[qi][1]},
            ergo__snap_q_total(s, qi),
            ergo__snap_q_rate(s, qi)};
  ergo__snap_free(&root);
  return f;
}

static void check_q(int qi, const char *p1, const char *p2, unsigned ok, double pkg, double dram,
                    double secs, double rate) {
  qfig f = qfig_of(qi, 0, p1, p2);
  assert_int_equal(f.ok, ok);
  assert_dbl(f.q[0], pkg);
  assert_dbl(f.q[1], dram);
  assert_dbl(f.q_time_s[0], secs);
  assert_dbl(f.q_time_s[1], secs);
  assert_dbl(f.rate, rate);
}

/* Saved with energy, loaded in a run that measured twice as much: every amount, watt and report
 * line is the sum over both runs, as time is; the lower bound survives; steps stay this run's. */
static void test_energy_round_trip(void **state) {
  (void)state;
  start();
  int qi = attach_energy("dram-0");
  q_scale = 1;
  build_tree();
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  json_t *doc = load_json(test_in_dir("ck.json"));
  json_t *e = json_array_get(json_object_get(doc, "quantities"), 0);
  assert_string_equal(json_string_value(json_object_get(e, "name")), "energy");
  assert_string_equal(json_string_value(json_object_get(e, "unit")), "J");
  assert_string_equal(json_string_value(json_array_get(json_object_get(e, "components"), 1)),
                      "dram-0");
  json_t *a = json_array_get(json_object_get(json_object_get(doc, "tree"), "children"), 0);
  assert_dbl(
      json_number_value(json_array_get(json_object_get(json_object_get(a, "q"), "energy"), 0)),
      200);
  json_decref(doc);
  restart();
  qi = attach_energy("dram-0");
  q_scale = 2;
  unsigned long warnings = ergo_warning_count();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck.json")), 0);
  assert_int_equal(ergo_warning_count(), warnings);
  build_tree();
  /* 300 J + 600 J over 3 s + 3 s: 150 W of package, 15 W of DRAM. */
  check_q(qi, NULL, NULL, 1, 900, 90, 6.0, 165);
  check_q(qi, "A", NULL, 1, 600, 60, 4.0, 165);
  check_q(qi, "D", NULL, 1, 225, 22.5, 1.5, 165);
  check_q(qi, "A", "C", 3, 75, 7.5, 0.5, 165); /* a lower bound in both runs */
  assert_int_equal(qfig_of(qi, 0, "A", "B").ok, 0);
  /* A step's figures are this run's: nothing loaded comes into them. */
  assert_dbl(qfig_of(qi, 1, "A", NULL).q[0], 400);
  char *text = ergo_report_string();
  assert_non_null(text);
  assert_contains(text, "Total energy for Global = 990 J (package-0 900 J, dram-0 90 J)");
  assert_contains(text, "* A                              : 4.0000 sec,  66.67% | 660.0000 J, "
                        "165.00 W,  66.67%");
  free(text);
  /* Saved again, the sums and the lower bound go on into the next run. */
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck2.json")), 0);
  restart();
  qi = attach_energy("dram-0");
  q_scale = 0; /* nothing measured in this run */
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck2.json")), 0);
  check_q(qi, "A", NULL, 1, 600, 60, 4.0, 165);
  check_q(qi, "A", "C", 3, 75, 7.5, 0.5, 165);
}

/* A saved quantity this run does not attach: one warning, its figures dropped, time loaded. */
static void test_quantity_not_attached(void **state) {
  (void)state;
  start();
  attach_energy("dram-0");
  q_scale = 1;
  build_tree();
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  restart();
  unsigned long warnings = ergo_warning_count(), errors = ergo_error_count();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck.json")), 0);
  assert_int_equal(ergo_warning_count(), warnings + 1);
  assert_int_equal(ergo_error_count(), errors);
  assert_contains(ergo_last_error(), "quantity \"energy\" (J) of the checkpoint is not attached");
  assert_contains(ergo_last_error(), "dropped");
  assert_contains(ergo_last_error(), "fix:");
  check(NULL, NULL, 3.0, 2, 0, 3.0, 2);
  check("A", NULL, 2.0, 1, 2.0, 2.0, 2);
  check("D", NULL, 0.75, 2, 0.25, 0.5, 0);
}

/* Another meter's components: those the run lacks are dropped, those the file lacks cover this
 * run alone (a lower bound, at this run's watts); each said once. */
static void test_quantity_other_components(void **state) {
  (void)state;
  start();
  attach_energy("dram-0");
  q_scale = 1;
  build_tree();
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  restart();
  int qi = attach_energy("core-0");
  q_scale = 2;
  unsigned long warnings = ergo_warning_count();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck.json")), 0);
  assert_int_equal(ergo_warning_count(), warnings + 2);
  assert_contains(ergo_last_error(), "component(s) \"core-0\" of quantity \"energy\" are not in "
                                     "the checkpoint");
  build_tree();
  qfig f = qfig_of(qi, 0, "A", NULL);
  assert_int_equal(f.ok, 3);
  assert_dbl(f.q[0], 600);
  assert_dbl(f.q[1], 40); /* core-0: this run's alone, over this run's 2 s */
  assert_dbl(f.q_time_s[0], 4.0);
  assert_dbl(f.q_time_s[1], 2.0);
  assert_dbl(f.rate, 170);
  /* Saved again, each component keeps the seconds it covers, and the next run the same watts. */
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck2.json")), 0);
  restart();
  qi = attach_energy("core-0");
  q_scale = 0; /* nothing measured in this run */
  warnings = ergo_warning_count();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck2.json")), 0);
  assert_int_equal(ergo_warning_count(), warnings);
  f = qfig_of(qi, 0, "A", NULL);
  assert_int_equal(f.ok, 3);
  assert_dbl(f.q[1], 40);
  assert_dbl(f.q_time_s[0], 4.0);
  assert_dbl(f.q_time_s[1], 2.0);
  assert_dbl(f.rate, 170);
}

/* A file from before quantities (the hand-written reference) loads into a run measuring energy:
 * one warning, its time added, the energy this run's alone at this run's watts, a lower bound. */
static void test_old_file_without_quantities(void **state) {
  (void)state;
  char *text = dq(DOC("ergo-checkpoint", "1", GOOD_A "," NODE_D));
  write_text(test_in_dir("old.json"), text);
  free(text);
  start();
  int qi = attach_energy("dram-0");
  q_scale = 1;
  unsigned long warnings = ergo_warning_count();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("old.json")), 0);
  assert_int_equal(ergo_warning_count(), warnings + 1);
  assert_contains(ergo_last_error(), "quantity \"energy\" of this run is not in the checkpoint");
  build_tree();
  check("A", NULL, 4.0, 2, 2.0, 2.0, 2);
  check_q(qi, "A", NULL, 3, 200, 20, 2.0, 110);
}

/* One amount per region, every region measured: the deepest file's numbers are in it. */
static int q_one(void *ctx, const ergo_region *r, double *out) {
  (void)ctx;
  (void)r;
  out[0] = 1;
  return 0;
}

static void push_chain(int n) {
  for (int d = 0; d < n; d++) ergo_push(1 + d % 3, "deep");
  advance_ms(1);
}

static void pop_chain(int n) {
  for (int d = n - 1; d >= 0; d--) ergo_pop(1 + d % 3, "deep");
}

/* A tree a load could not read back is refused at save, the old file kept; the deepest one a
 * checkpoint holds, with amounts at every level, saves and loads. */
static void test_too_deep_save_refused(void **state) {
  (void)state;
  ergo_quantity q = {.name = "count",
                     .unit = "x",
                     .ncomponents = 1,
                     .components = {"all"},
                     .total_mask = 1,
                     .value = q_one};
  start();
  assert_int_equal(ergo_quantity_attach(&q, NULL), 0);
  write_text(test_in_dir("ck.json"), "previous");
  push_chain(ERGO__CK_MAX_DEPTH + 1);
  unsigned long errors = ergo_error_count();
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), ERGO_EBUSY);
  assert_int_equal(ergo_error_count(), errors + 1);
  char what[160];
  snprintf(what, sizeof what, "the region tree is %d levels deep, more than the %d a checkpoint",
           ERGO__CK_MAX_DEPTH + 1, ERGO__CK_MAX_DEPTH);
  assert_contains(ergo_last_error(), what);
  assert_contains(ergo_last_error(), "nothing written");
  assert_contains(ergo_last_error(), "fix:");
  char *kept = slurp(test_in_dir("ck.json"));
  assert_string_equal(kept, "previous");
  free(kept);
  assert_int_equal(test_dir_entries(), 1);
  pop_chain(ERGO__CK_MAX_DEPTH + 1);
  restart();
  assert_int_equal(ergo_quantity_attach(&q, NULL), 0);
  push_chain(ERGO__CK_MAX_DEPTH);
  pop_chain(ERGO__CK_MAX_DEPTH);
  assert_int_equal(ergo_checkpoint_save(test_in_dir("ck.json")), 0);
  restart();
  assert_int_equal(ergo_quantity_attach(&q, NULL), 0);
  errors = ergo_error_count();
  assert_int_equal(ergo_checkpoint_load(test_in_dir("ck.json")), 0);
  assert_int_equal(ergo_error_count(), errors);
}

/* A file nested deeper than jansson reads is said to be so, not corrupt. */
static void test_too_deep_load_said(void **state) {
  (void)state;
  enum { N = ERGO__CK_JSON_DEPTH };
  size_t cap = (size_t)N * 96 + 256, n = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  n += (size_t)snprintf(text, cap, "{\"format\":\"ergo-checkpoint\",\"version\":1,\"tree\":");
  for (int d = 0; d < N; d++)
    n += (size_t)snprintf(text + n, cap - n,
                          "{\"name\":\"%s\",\"level\":%d,\"time_s\":1,\"calls\":1,\"min_s\":1,"
                          "\"max_s\":1,\"children\":[",
                          d ? "deep" : "Global", d ? 1 : 0);
  for (int d = 0; d < N; d++) n += (size_t)snprintf(text + n, cap - n, "]}");
  snprintf(text + n, cap - n, "}");
  write_text(test_in_dir("deep.json"), text);
  free(text);
  char *file = strdup(test_in_dir("deep.json"));
  expect_reject(file, ERGO_EBUSY, "nest deeper than the 2048 JSON levels jansson reads",
                "push fewer nested regions");
  free(file);
}

/* Amounts that do not fit the file's own quantities are corruption, named where they are. */
static void test_reject_amounts(void **state) {
  (void)state;
#define QDOC(quants, dq)                                                                           \
  "{'format':'ergo-checkpoint','version':1,'quantities':[" quants "],'tree':{'name':'Global',"     \
  "'level':0,'time_s':3,'calls':1,'min_s':0,'max_s':0,'children':[{'name':'D','level':1,"          \
  "'time_s':0.75,'calls':2,'min_s':0.25,'max_s':0.5" dq "}]}}"
#define QE "{'name':'energy','unit':'J','components':['package-0','dram-0']}"
  reject_text(QDOC(QE, ",'q':{'energy':[1]}"), ERGO_EFORMAT, "tree/children[0]/q/energy is [1]",
              "an array of 2 amounts");
  reject_text(QDOC(QE, ",'q':{'power':[1,2]}"), ERGO_EFORMAT, "tree/children[0]/q/power",
              "a quantity the file's quantities list");
  reject_text(QDOC(QE, ",'q':{'energy':[1,-2]}"), ERGO_EFORMAT,
              "tree/children[0]/q/energy[1] is -2", NULL);
  reject_text(QDOC(QE, ",'q_lower':['power']"), ERGO_EFORMAT, "tree/children[0]/q_lower[0]", NULL);
  reject_text(QDOC(QE "," QE, ""), ERGO_EFORMAT, "quantities[1]/name is \"energy\"", NULL);
  reject_text(QDOC("{'name':'energy','unit':'J','components':[]}", ""), ERGO_EFORMAT,
              "quantities[0]/components is []", NULL);
#undef QE
#undef QDOC
}

int main(void) {
  const struct CMUnitTest tests[] = {
      ERGO_DIR_TEST(test_save_format),
      ERGO_DIR_TEST(test_round_trip_continues),
      ERGO_DIR_TEST(test_name_not_utf8_round_trip),
      ERGO_DIR_TEST(test_load_adds_to_live),
      ERGO_DIR_TEST(test_open_region_saved),
      ERGO_DIR_TEST(test_save_after_load),
      ERGO_DIR_TEST(test_save_atomic),
      ERGO_DIR_TEST(test_bad_calls),
      ERGO_DIR_TEST(test_reference_doc_loads),
      ERGO_DIR_TEST(test_reject_truncated),
      ERGO_DIR_TEST(test_reject_malformed),
      ERGO_DIR_TEST(test_reject_format_version),
      ERGO_DIR_TEST(test_reject_values),
      ERGO_DIR_TEST(test_reject_long_name),
      ERGO_DIR_TEST(test_reject_duplicate_sibling),
      ERGO_DIR_TEST(test_reject_level_mismatch),
      ERGO_DIR_TEST(test_reject_missing_file),
      ERGO_DIR_TEST(test_many_siblings_round_trip),
      ERGO_DIR_TEST(test_energy_round_trip),
      ERGO_DIR_TEST(test_quantity_not_attached),
      ERGO_DIR_TEST(test_quantity_other_components),
      ERGO_DIR_TEST(test_old_file_without_quantities),
      ERGO_DIR_TEST(test_too_deep_save_refused),
      ERGO_DIR_TEST(test_too_deep_load_said),
      ERGO_DIR_TEST(test_reject_amounts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
