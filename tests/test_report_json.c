/* test_report_json.c - the machine-readable reports: JSON, Hatchet literal JSON and CSV. */
#include "test_util.h"

#include "internal.h"

#include <jansson.h>
#include <pthread.h>
#include <regex.h>
#include <unistd.h>

/* Every figure below is an exact number of milliseconds on the manual clock. */
#define adv_ms advance_ms

static void start(int report_threads) {
  ergo_config c = test_config();
  c.report_threads = report_threads;
  test_init(&c);
}

static char *read_all(const char *path) {
  char *text = slurp(path);
  if (!text) fail_msg("cannot read %s", path);
  return text;
}

static json_t *load_json(const char *path) {
  json_error_t err;
  json_t *doc = json_load_file(path, 0, &err);
  if (!doc) fail_msg("%s:%d:%d: %s", path, err.line, err.column, err.text);
  return doc;
}

#define assert_dbl(a, b)                                                                           \
  do {                                                                                             \
    double a_ = (a), b_ = (b);                                                                     \
    if (a_ != b_) fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                              \
  } while (0)

static double num(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  if (!json_is_number(v)) fail_msg("key \"%s\" is not a number", key);
  return json_number_value(v);
}
static long long integer(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  if (!json_is_integer(v)) fail_msg("key \"%s\" is not an integer", key);
  return json_integer_value(v);
}
static const char *str(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  if (!json_is_string(v)) fail_msg("key \"%s\" is not a string", key);
  return json_string_value(v);
}
static json_t *kid(json_t *node, size_t i) {
  json_t *v = json_array_get(json_object_get(node, "children"), i);
  assert_non_null(v);
  return v;
}
static size_t nkids(json_t *node) { return json_array_size(json_object_get(node, "children")); }

/* The run's facts as every CSV row ends (a serial run on this host, no meter, monitor). */
static const char *facts_tail(long steps) {
  static char tail[512];
  char host[256];
  assert_int_equal(gethostname(host, sizeof host), 0);
  const char *date = ergo__fact_get("date");
  assert_non_null(date);
  snprintf(tail, sizeof tail, ",test_report_json,%s,%s,%s,%ld,real,monitor,,,none",
           ERGO_VERSION_STRING, host, date, steps);
  return tail;
}

/* Global 3.0 s (one call: min = max = 3.0 s) = A 2.0 s (B 0.5 s, C 0.25 s) + D 0.75 s in two calls
 * (0.25 s, 0.5 s). */
static void build_tree(void) {
  ERGO_PUSH(1, "A");
  adv_ms(1000);
  ERGO_PUSH(2, "B");
  adv_ms(500);
  ERGO_POP(2, "B");
  ERGO_PUSH(2, "C");
  adv_ms(250);
  ERGO_POP(2, "C");
  adv_ms(250);
  ERGO_POP(1, "A");
  ERGO_PUSH(1, "D");
  adv_ms(250);
  ERGO_POP(1, "D");
  ERGO_PUSH(1, "D");
  adv_ms(500);
  ERGO_POP(1, "D");
  adv_ms(250);
}

static void check_node(json_t *n, const char *name, const char *path, int level, int depth,
                       double time_s, double self_s, long long calls, double mean_s, double min_s,
                       double max_s, double share, int open, size_t children) {
  assert_string_equal(str(n, "name"), name);
  assert_string_equal(str(n, "path"), path);
  assert_int_equal(integer(n, "level"), level);
  assert_int_equal(integer(n, "depth"), depth);
  assert_dbl(num(n, "time_s"), time_s);
  assert_dbl(num(n, "self_s"), self_s);
  assert_int_equal(integer(n, "calls"), calls);
  assert_dbl(num(n, "mean_s"), mean_s);
  assert_dbl(num(n, "min_s"), min_s);
  assert_dbl(num(n, "max_s"), max_s);
  assert_dbl(num(n, "share_of_parent"), share);
  assert_true(json_is_boolean(json_object_get(n, "open")));
  assert_int_equal(json_is_true(json_object_get(n, "open")), open);
  assert_int_equal(nkids(n), children);
}

static void test_json_report_figures(void **state) {
  (void)state;
  start(0);
  build_tree();
  assert_int_equal(ergo_report_json(test_in_dir("r.json")), 0);
  json_t *doc = load_json(test_in_dir("r.json"));
  assert_string_equal(str(doc, "format"), "ergo-report");
  assert_int_equal(integer(doc, "version"), 2);
  assert_string_equal(str(doc, "clock"), "user");
  json_t *threads = json_object_get(doc, "threads");
  assert_int_equal(json_array_size(threads), 1);
  assert_int_equal(integer(json_array_get(threads, 0), "thread"), 0);
  json_t *g = json_object_get(json_array_get(threads, 0), "tree");
  check_node(g, "Global", "Global", 0, 0, 3.0, 0.25, 1, 3.0, 3.0, 3.0, 1.0, 1, 2);
  json_t *a = kid(g, 0), *d = kid(g, 1);
  check_node(a, "A", "Global/A", 1, 1, 2.0, 1.25, 1, 2.0, 2.0, 2.0, 0.666666666666667, 0, 2);
  check_node(kid(a, 0), "B", "Global/A/B", 2, 2, 0.5, 0.5, 1, 0.5, 0.5, 0.5, 0.25, 0, 0);
  check_node(kid(a, 1), "C", "Global/A/C", 2, 2, 0.25, 0.25, 1, 0.25, 0.25, 0.25, 0.125, 0, 0);
  check_node(d, "D", "Global/D", 1, 1, 0.75, 0.75, 2, 0.375, 0.25, 0.5, 0.25, 0, 0);
  json_decref(doc);
  /* The file is the string, plus the final newline. */
  char *text = ergo__report_json_string(), *file = read_all(test_in_dir("r.json"));
  assert_int_equal(strlen(file), strlen(text) + 1);
  assert_memory_equal(file, text, strlen(text));
  assert_int_equal(file[strlen(text)], '\n');
  free(text);
  free(file);
}

static void test_json_open_region(void **state) {
  (void)state;
  start(0);
  ERGO_PUSH(1, "A");
  adv_ms(1000);
  ERGO_PUSH(2, "B");
  adv_ms(500);
  assert_int_equal(ergo_report_json(test_in_dir("r.json")), 0);
  json_t *doc = load_json(test_in_dir("r.json"));
  json_t *g = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  check_node(g, "Global", "Global", 0, 0, 1.5, 0, 1, 1.5, 1.5, 1.5, 1.0, 1, 1);
  /* Open calls count their time so far but are not calls yet. */
  check_node(kid(g, 0), "A", "Global/A", 1, 1, 1.5, 1.0, 0, 0, 0, 0, 1.0, 1, 1);
  check_node(kid(kid(g, 0), 0), "B", "Global/A/B", 2, 2, 0.5, 0.5, 0, 0, 0, 0, 0.333333333333333, 1,
             0);
  json_decref(doc);
  ERGO_POP(2, "B");
  ERGO_POP(1, "A");
}

static void *worker(void *arg) {
  (void)arg;
  ERGO_PUSH(1, "W");
  adv_ms(500);
  ERGO_POP(1, "W");
  return NULL;
}

static void run_worker(void) {
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, worker, NULL), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
}

static void test_json_threads(void **state) {
  (void)state;
  start(1);
  build_tree();
  run_worker();
  assert_int_equal(ergo_report_json(test_in_dir("r.json")), 0);
  json_t *doc = load_json(test_in_dir("r.json"));
  json_t *threads = json_object_get(doc, "threads");
  assert_int_equal(json_array_size(threads), 2);
  assert_int_equal(integer(json_array_get(threads, 0), "thread"), 0);
  assert_int_equal(integer(json_array_get(threads, 1), "thread"), 1);
  json_t *g0 = json_object_get(json_array_get(threads, 0), "tree");
  json_t *g1 = json_object_get(json_array_get(threads, 1), "tree");
  assert_dbl(num(g0, "time_s"), 3.5);
  /* Another thread's Global is the sum of its top-level regions. */
  check_node(g1, "Global", "Global", 0, 0, 0.5, 0, 1, 0.5, 0.5, 0.5, 1.0, 1, 1);
  check_node(kid(g1, 0), "W", "Global/W", 1, 1, 0.5, 0.5, 1, 0.5, 0.5, 0.5, 1.0, 0, 0);
  json_decref(doc);

  assert_int_equal(ergo_report_hatchet(test_in_dir("h.json")), 0);
  doc = load_json(test_in_dir("h.json"));
  assert_int_equal(json_array_size(doc), 2);
  assert_string_equal(str(json_object_get(json_array_get(doc, 0), "frame"), "name"), "Global");
  json_t *frame1 = json_object_get(json_array_get(doc, 1), "frame");
  assert_string_equal(str(frame1, "name"), "Global (thread 1)");
  json_decref(doc);

  assert_int_equal(ergo_report_csv(test_in_dir("r.csv")), 0);
  char *csv = read_all(test_in_dir("r.csv")), want[2048];
  const char *t = facts_tail(0);
  snprintf(want, sizeof want,
           "\n1,Global,Global,0,0,1,0.5,0,0.5,0.5,0.5,1%s\n"
           "1,Global/W,W,1,1,1,0.5,0.5,0.5,0.5,0.5,1%s\n",
           t, t);
  assert_non_null(strstr(csv, want));
  free(csv);
}

static void test_json_threads_off(void **state) {
  (void)state;
  start(0);
  run_worker();
  assert_int_equal(ergo_report_json(test_in_dir("r.json")), 0);
  json_t *doc = load_json(test_in_dir("r.json"));
  assert_int_equal(json_array_size(json_object_get(doc, "threads")), 1);
  json_decref(doc);
  assert_int_equal(ergo_report_hatchet(test_in_dir("h.json")), 0);
  doc = load_json(test_in_dir("h.json"));
  assert_int_equal(json_array_size(doc), 1);
  json_decref(doc);
}

static void check_hatchet(json_t *n, const char *name, const char *path, double inc, double exc,
                          long long calls, size_t children) {
  json_t *frame = json_object_get(n, "frame"), *m = json_object_get(n, "metrics");
  assert_int_equal(json_object_size(frame), 3);
  assert_string_equal(str(frame, "name"), name);
  assert_string_equal(str(frame, "type"), "region");
  assert_string_equal(str(frame, "path"), path);
  assert_int_equal(json_object_size(m), 3);
  assert_dbl(num(m, "time (inc)"), inc);
  assert_dbl(num(m, "time"), exc);
  assert_int_equal(integer(m, "calls"), calls);
  assert_int_equal(nkids(n), children);
}

static void test_hatchet_literal(void **state) {
  (void)state;
  start(0);
  build_tree();
  assert_int_equal(ergo_report_hatchet(test_in_dir("h.json")), 0);
  json_t *doc = load_json(test_in_dir("h.json"));
  assert_true(json_is_array(doc));
  assert_int_equal(json_array_size(doc), 1);
  json_t *g = json_array_get(doc, 0);
  check_hatchet(g, "Global", "Global", 3.0, 0.25, 1, 2);
  check_hatchet(kid(g, 0), "A", "Global/A", 2.0, 1.25, 1, 2);
  check_hatchet(kid(kid(g, 0), 0), "B", "Global/A/B", 0.5, 0.5, 1, 0);
  check_hatchet(kid(kid(g, 0), 1), "C", "Global/A/C", 0.25, 0.25, 1, 0);
  check_hatchet(kid(g, 1), "D", "Global/D", 0.75, 0.75, 2, 0);
  json_decref(doc);
}

/* Hatchet merges equal frames: one name under two parents must stay two regions, and
 * a thread's regions must not merge with the main thread's. */
static void test_hatchet_same_name(void **state) {
  (void)state;
  start(1);
  ERGO_PUSH(1, "A");
  ERGO_PUSH(2, "N");
  adv_ms(250);
  ERGO_POP(2, "N");
  ERGO_POP(1, "A");
  ERGO_PUSH(1, "W");
  ERGO_PUSH(2, "N");
  adv_ms(500);
  ERGO_POP(2, "N");
  ERGO_POP(1, "W");
  run_worker();
  assert_int_equal(ergo_report_hatchet(test_in_dir("h.json")), 0);
  json_t *doc = load_json(test_in_dir("h.json"));
  json_t *g = json_array_get(doc, 0), *t1 = json_array_get(doc, 1);
  check_hatchet(kid(g, 0), "W", "Global/W", 0.5, 0, 1, 1);
  check_hatchet(kid(kid(g, 0), 0), "N", "Global/W/N", 0.5, 0.5, 1, 0);
  check_hatchet(kid(kid(g, 1), 0), "N", "Global/A/N", 0.25, 0.25, 1, 0);
  check_hatchet(t1, "Global (thread 1)", "Global (thread 1)", 0.5, 0, 1, 1);
  check_hatchet(kid(t1, 0), "W", "Global (thread 1)/W", 0.5, 0.5, 1, 0);
  json_decref(doc);
}

/* A slash or backslash in a name is escaped in paths, so that each path names one region. */
static void test_json_path_escape(void **state) {
  (void)state;
  start(0);
  ERGO_PUSH(1, "a/b");
  ERGO_PUSH(2, "c\\d");
  adv_ms(250);
  ERGO_POP(2, "c\\d");
  ERGO_POP(1, "a/b");
  ERGO_PUSH(1, "a");
  ERGO_PUSH(2, "b");
  adv_ms(125);
  ERGO_POP(2, "b");
  ERGO_POP(1, "a");
  assert_int_equal(ergo_report_json(test_in_dir("r.json")), 0);
  json_t *doc = load_json(test_in_dir("r.json"));
  json_t *g = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  assert_string_equal(str(kid(g, 0), "path"), "Global/a\\/b");
  assert_string_equal(str(kid(kid(g, 0), 0), "name"), "c\\d");
  assert_string_equal(str(kid(kid(g, 0), 0), "path"), "Global/a\\/b/c\\\\d");
  assert_string_equal(str(kid(kid(g, 1), 0), "path"), "Global/a/b");
  json_decref(doc);
}

/* A region and a section named in Latin-1 ("résidu"): the JSON and Hatchet reports are written
 * (JSON holds only UTF-8), each name with its bad byte as the text \xe9, and no region lost. */
static void test_json_name_not_utf8(void **state) {
  (void)state;
  start(0);
  ERGO_PUSH(1, "Timestep");
  ergo_push(2, "r\xe9sidu");
  adv_ms(250);
  ergo_pop(2, "r\xe9sidu");
  ERGO_POP(1, "Timestep");
  unsigned id;
  assert_int_equal(ergo_section_create("m\xe9thode", &id), 0);
  assert_int_equal(ergo_error_count(), 2);
  assert_int_equal(ergo_report_json(test_in_dir("r.json")), 0);
  assert_int_equal(ergo_report_hatchet(test_in_dir("h.json")), 0);
  json_t *doc = load_json(test_in_dir("r.json"));
  json_t *g = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  check_node(kid(kid(g, 0), 0), "r\\xe9sidu", "Global/Timestep/r\\\\xe9sidu", 2, 2, 0.25, 0.25, 1,
             0.25, 0.25, 0.25, 1.0, 0, 0);
  assert_string_equal(str(json_array_get(json_object_get(doc, "sections"), 0), "name"),
                      "m\\xe9thode");
  json_decref(doc);
  doc = load_json(test_in_dir("h.json"));
  json_t *h = json_array_get(json_object_get(json_array_get(doc, 0), "children"), 0);
  h = json_array_get(json_object_get(h, "children"), 0);
  assert_string_equal(str(json_object_get(h, "frame"), "name"), "r\\xe9sidu");
  json_decref(doc);
}

static void test_csv_exact(void **state) {
  (void)state;
  start(0);
  /* Names with the characters CSV and paths care about. */
  ERGO_PUSH(1, "x,\"y\"");
  adv_ms(250);
  ERGO_PUSH(2, "a/b:c;d");
  adv_ms(250);
  ERGO_POP(2, "a/b:c;d");
  ERGO_POP(1, "x,\"y\"");
  for (int i = 0; i < 2; i++) {
    ERGO_PUSH(1, "plain");
    adv_ms(125);
    ERGO_POP(1, "plain");
  }
  adv_ms(250);
  assert_int_equal(ergo_report_csv(test_in_dir("r.csv")), 0);
  char *csv = read_all(test_in_dir("r.csv")), want[8192];
  const char *t = facts_tail(0);
  snprintf(want, sizeof want,
           "thread,path,name,depth,level,calls,time_s,self_s,mean_s,min_s,max_s,share_of_parent,"
           "run_application,run_ergo_version,run_host,run_date,run_steps,run_platform,run_policy,"
           "run_objective,run_model,run_energy\n"
           "0,Global,Global,0,0,1,1,0.25,1,1,1,1%s\n"
           "0,\"Global/x,\"\"y\"\"\",\"x,\"\"y\"\"\",1,1,1,0.5,0.25,0.5,0.5,0.5,0.5%s\n"
           "0,\"Global/x,\"\"y\"\"/a\\/b:c;d\",\"a/b:c;d\",2,2,1,0.25,0.25,0.25,0.25,0.25,0.5%s\n"
           "0,Global/plain,plain,1,1,2,0.25,0.25,0.125,0.125,0.125,0.25%s\n",
           t, t, t, t);
  assert_string_equal(csv, want);
  free(csv);
}

static void test_csv_digits(void **state) {
  (void)state;
  start(0);
  ERGO_PUSH(1, "third");
  test_now_ns += 1000000000ull / 3; /* 0.333333333 s: %.9g keeps nanoseconds */
  ERGO_POP(1, "third");
  test_now_ns += 1000000000ull - 1000000000ull / 3;
  assert_int_equal(ergo_report_csv(test_in_dir("r.csv")), 0);
  char *csv = read_all(test_in_dir("r.csv"));
  assert_non_null(strstr(csv, "\n0,Global/third,third,1,1,1,0.333333333,0.333333333,0.333333333,"
                              "0.333333333,0.333333333,0.333333333,"));
  free(csv);
}

/* An existing report is replaced whole and no temporary file stays behind. */
static void test_reports_atomic(void **state) {
  (void)state;
  start(0);
  build_tree();
  const char *names[] = {"r.json", "h.json", "r.csv"};
  for (int i = 0; i < 3; i++) {
    FILE *f = fopen(test_in_dir(names[i]), "w");
    assert_non_null(f);
    for (int k = 0; k < 2000; k++) fputs("old content that is longer than the report\n", f);
    fclose(f);
  }
  assert_int_equal(ergo_report_json(test_in_dir("r.json")), 0);
  assert_int_equal(ergo_report_hatchet(test_in_dir("h.json")), 0);
  assert_int_equal(ergo_report_csv(test_in_dir("r.csv")), 0);
  assert_int_equal(test_dir_entries(), 3);
  json_decref(load_json(test_in_dir("r.json")));
  json_decref(load_json(test_in_dir("h.json")));
  char *csv = read_all(test_in_dir("r.csv"));
  assert_null(strstr(csv, "old content"));
  assert_int_equal(strncmp(csv, "thread,path,", 12), 0);
  free(csv);
  /* A directory that does not exist: an I/O error, nothing created. */
  assert_int_equal(ergo_report_json(test_in_dir("missing/r.json")), ERGO_EIO);
  assert_int_equal(ergo_report_hatchet(test_in_dir("missing/h.json")), ERGO_EIO);
  assert_int_equal(ergo_report_csv(test_in_dir("missing/r.csv")), ERGO_EIO);
  assert_int_equal(test_dir_entries(), 3);
}

static void test_reports_bad_calls(void **state) {
  (void)state;
  assert_int_equal(ergo_report_json(test_in_dir("r.json")), ERGO_ESTATE);
  assert_int_equal(ergo_report_hatchet(test_in_dir("h.json")), ERGO_ESTATE);
  assert_int_equal(ergo_report_csv(test_in_dir("r.csv")), ERGO_ESTATE);
  assert_int_equal(test_dir_entries(), 0);
  start(0);
  assert_int_equal(ergo_report_json(NULL), ERGO_EINVAL);
  assert_int_equal(ergo_report_hatchet(NULL), ERGO_EINVAL);
  assert_int_equal(ergo_report_csv(NULL), ERGO_EINVAL);
  assert_int_equal(ergo_report_json(""), ERGO_EINVAL);
}

/* ergo_finalize writes the configured reports with the final figures. */
static void test_reports_at_finalize(void **state) {
  (void)state;
  ergo_config c = test_config();
  char j[128], h[128], v[128];
  snprintf(j, sizeof j, "%s/r.json", test_dir);
  snprintf(h, sizeof h, "%s/h.json", test_dir);
  snprintf(v, sizeof v, "%s/r.csv", test_dir);
  c.report_json = j;
  c.report_hatchet = h;
  c.report_csv = v;
  test_init(&c);
  build_tree();
  assert_int_equal(ergo_finalize(), 0);
  json_t *doc = load_json(j);
  json_t *g = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  assert_dbl(num(g, "time_s"), 3.0);
  json_decref(doc);
  doc = load_json(h);
  assert_dbl(num(json_object_get(json_array_get(doc, 0), "metrics"), "time (inc)"), 3.0);
  json_decref(doc);
  char *csv = read_all(v);
  assert_non_null(strstr(csv, "\n0,Global,Global,0,0,1,3,0.25,3,3,3,1,"));
  free(csv);
}

/* The JSON report says how the run was made: version 2's "run" object. */
static void test_json_run_facts(void **state) {
  (void)state;
  start(0);
  build_tree();
  ergo_step(1);
  ergo_step(2);
  assert_int_equal(ergo_report_json(test_in_dir("r.json")), 0);
  json_t *doc = load_json(test_in_dir("r.json"));
  assert_int_equal(integer(doc, "version"), 2);
  json_t *run = json_object_get(doc, "run");
  assert_true(json_is_object(run));
  char host[256];
  assert_int_equal(gethostname(host, sizeof host), 0);
  assert_string_equal(str(run, "application"), "test_report_json");
  assert_string_equal(str(run, "ergo_version"), ERGO_VERSION_STRING);
  assert_string_equal(str(run, "host"), host);
  regex_t re;
  assert_int_equal(regcomp(&re,
                           "^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z$",
                           REG_EXTENDED | REG_NOSUB),
                   0);
  assert_int_equal(regexec(&re, str(run, "date"), 0, NULL, 0), 0);
  regfree(&re);
  assert_int_equal(integer(run, "steps"), 2);
  assert_string_equal(str(run, "platform"), "real");
  assert_string_equal(str(run, "policy"), "monitor");
  assert_true(json_is_null(json_object_get(run, "objective")));
  assert_true(json_is_null(json_object_get(run, "model")));
  assert_string_equal(str(run, "energy"), "none");
  /* No region was tuned: every "setting" is null. */
  json_t *g = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  assert_true(json_is_null(json_object_get(g, "setting")));
  assert_true(json_is_null(json_object_get(kid(g, 0), "setting")));
  json_decref(doc);
}

/* A source of settings as the runtime's pipeline is (it asks the tuner): A ran under
 * core 1800000 kHz and 8 threads (no uncore knob), its executions under several; C under one. */
static const char *const setting_names[] = {"core_khz", "uncore_khz", "threads"};
static int fake_setting(void *ctx, const ergo__node *n, int64_t v[ERGO__SETTING_MAX], int *varied) {
  (void)ctx;
  if (strcmp(n->name, "A") == 0) {
    v[0] = 1800000, v[2] = 8, *varied = 1;
    return 1;
  }
  if (strcmp(n->name, "C") == 0) {
    v[0] = 1200000, v[1] = 2000000, v[2] = 4, *varied = 0;
    return 1;
  }
  return 0;
}

static void test_setting_applied(void **state) {
  (void)state;
  start(0);
  build_tree();
  ergo__facts_setting_source(fake_setting, NULL, 3, setting_names);
  assert_int_equal(ergo_report_json(test_in_dir("r.json")), 0);
  assert_int_equal(ergo_report_csv(test_in_dir("r.csv")), 0);
  ergo__facts_setting_source(NULL, NULL, 0, NULL);
  json_t *doc = load_json(test_in_dir("r.json"));
  json_t *g = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  json_t *a = kid(g, 0), *sa = json_object_get(a, "setting");
  assert_int_equal(json_object_size(sa), 3);
  assert_int_equal(integer(sa, "core_khz"), 1800000);
  assert_int_equal(integer(sa, "threads"), 8);
  assert_true(json_is_true(json_object_get(sa, "varied")));
  json_t *sc = json_object_get(kid(a, 1), "setting");
  assert_string_equal(str(kid(a, 1), "name"), "C");
  assert_int_equal(json_object_size(sc), 4);
  assert_int_equal(integer(sc, "uncore_khz"), 2000000);
  assert_true(json_is_false(json_object_get(sc, "varied")));
  assert_true(json_is_null(json_object_get(g, "setting")));
  assert_true(json_is_null(json_object_get(kid(a, 0), "setting")));
  json_decref(doc);
  char *csv = read_all(test_in_dir("r.csv")), want[2048];
  assert_non_null(strstr(csv, ",share_of_parent,setting_core_khz,setting_uncore_khz,"
                              "setting_threads,setting_varied,run_application,"));
  const char *t = facts_tail(0);
  snprintf(want, sizeof want, "\n0,Global/A,A,1,1,1,2,1.25,2,2,2,0.666666667,1800000,,8,1%s\n", t);
  assert_non_null(strstr(csv, want));
  snprintf(want, sizeof want,
           "\n0,Global/A/C,C,2,2,1,0.25,0.25,0.25,0.25,0.25,0.125,1200000,2000000,4,0%s\n", t);
  assert_non_null(strstr(csv, want));
  snprintf(want, sizeof want, "\n0,Global/A/B,B,2,2,1,0.5,0.5,0.5,0.5,0.5,0.25,,,,%s\n", t);
  assert_non_null(strstr(csv, want));
  free(csv);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      ERGO_DIR_TEST(test_json_report_figures), ERGO_DIR_TEST(test_json_open_region),
      ERGO_DIR_TEST(test_json_threads),        ERGO_DIR_TEST(test_json_threads_off),
      ERGO_DIR_TEST(test_hatchet_literal),     ERGO_DIR_TEST(test_hatchet_same_name),
      ERGO_DIR_TEST(test_json_path_escape),    ERGO_DIR_TEST(test_json_name_not_utf8),
      ERGO_DIR_TEST(test_csv_exact),           ERGO_DIR_TEST(test_csv_digits),
      ERGO_DIR_TEST(test_reports_atomic),      ERGO_DIR_TEST(test_reports_bad_calls),
      ERGO_DIR_TEST(test_reports_at_finalize), ERGO_DIR_TEST(test_json_run_facts),
      ERGO_DIR_TEST(test_setting_applied),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
