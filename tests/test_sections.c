/* test_sections.c - sections (ergo_section_*): overlapping and nested intervals on the manual
 * clock give exact times and calls, each misuse says one line and loses nothing, and the text and
 * JSON reports carry the Sections table. */
#include "test_util.h"

#include "internal.h"

#include <jansson.h>
#include <pthread.h>

/* Section `i`'s figures (in creation order) from what the reports read. */
static ergo__section_fig fig(size_t i) {
  ergo__section_fig *all;
  size_t n = ergo__sections_take(&all);
  assert_true(i < n);
  ergo__section_fig f = all[i];
  free(all);
  return f;
}

static void test_overlap_any_order(void **state) {
  (void)state;
  test_init_default();
  unsigned a, b;
  assert_int_equal(ergo_section_create("A", &a), 0);
  assert_int_equal(ergo_section_create("B", &b), 0);
  assert_int_not_equal(a, b);
  assert_int_equal(ergo_section_start(a), 0);
  advance_ms(10);
  assert_int_equal(ergo_section_start(b), 0);
  advance_ms(5);
  assert_int_equal(ergo_section_stop(a), 0); /* A stops first although B started last */
  advance_ms(7);
  assert_int_equal(ergo_section_stop(b), 0);
  advance_ms(100); /* nothing runs */
  assert_int_equal(ergo_section_start(b), 0);
  advance_ms(3);
  assert_int_equal(ergo_section_stop(b), 0);
  ergo__section_fig fa = fig(0), fb = fig(1);
  assert_string_equal(fa.name, "A");
  assert_float_equal(fa.time_s, 0.015, 1e-12);
  assert_int_equal(fa.calls, 1);
  assert_string_equal(fb.name, "B");
  assert_float_equal(fb.time_s, 0.015, 1e-12); /* 12 ms, then 3 ms */
  assert_int_equal(fb.calls, 2);
  assert_int_equal(fb.running, 0);
  assert_int_equal(ergo_error_count(), 0);
  ergo_finalize();
}

/* Started again while running: every start counts a call, the time runs once, from the first
 * start to the matching last stop; a running section counts its time so far. */
static void test_nested_and_running(void **state) {
  (void)state;
  test_init_default();
  unsigned a, again;
  assert_int_equal(ergo_section_create("A", &a), 0);
  assert_int_equal(ergo_section_create("A", &again), 0);
  assert_int_equal(a, again); /* the same name is the same section */
  ergo_section_start(a);
  advance_ms(2);
  ergo_section_start(a);
  advance_ms(3);
  ergo_section_stop(a);
  advance_ms(4);
  ergo_section_stop(a);
  advance_ms(50);
  assert_float_equal(fig(0).time_s, 0.009, 1e-12);
  assert_int_equal(fig(0).calls, 2);
  ergo_section_start(a);
  advance_ms(6);
  assert_int_equal(fig(0).running, 1);
  assert_float_equal(fig(0).time_s, 0.015, 1e-12);
  /* destroy ends the running interval and keeps the figures */
  assert_int_equal(ergo_section_destroy(a), 0);
  advance_ms(20);
  assert_int_equal(fig(0).running, 0);
  assert_float_equal(fig(0).time_s, 0.015, 1e-12);
  assert_int_equal(fig(0).calls, 3);
  assert_int_equal(ergo_error_count(), 0);
  ergo_finalize();
}

static void test_errors_one_line(void **state) {
  (void)state;
  unsigned a;
  assert_int_equal(ergo_section_create("A", &a), ERGO_ESTATE); /* before ergo_init */
  test_init_default();
  assert_int_equal(ergo_section_create("A", &a), 0);
  assert_int_equal(ergo_section_start(99), ERGO_EINVAL);
  assert_int_equal(ergo_error_count(), 1);
  assert_string_equal(ergo_last_error(), "ergo_section_start(99): no such section; nothing timed "
                                         "(fix: use the id ergo_section_create gave)");
  assert_int_equal(ergo_section_stop(a), ERGO_ESTATE);
  assert_int_equal(ergo_error_count(), 2);
  assert_string_equal(ergo_last_error(),
                      "ergo_section_stop(1): section 'A' is not running; this stop is ignored "
                      "(fix: call ergo_section_start before each stop)");
  /* nothing lost: A still times exactly afterwards */
  ergo_section_start(a);
  advance_ms(8);
  ergo_section_stop(a);
  assert_int_equal(ergo_section_destroy(a), 0);
  assert_int_equal(ergo_section_start(a), ERGO_EINVAL);
  assert_int_equal(ergo_error_count(), 3);
  assert_string_equal(ergo_last_error(),
                      "ergo_section_start(1): the section was destroyed; nothing timed (fix: use "
                      "the id ergo_section_create gave, and create the section again to time it "
                      "again)");
  assert_float_equal(fig(0).time_s, 0.008, 1e-12);
  assert_int_equal(fig(0).calls, 1);
  /* created again: the same id, its figures go on */
  unsigned b;
  assert_int_equal(ergo_section_create("A", &b), 0);
  assert_int_equal(a, b);
  ergo_section_start(b);
  advance_ms(2);
  ergo_section_stop(b);
  assert_float_equal(fig(0).time_s, 0.010, 1e-12);
  assert_int_equal(ergo_section_create(NULL, &b), ERGO_EINVAL);
  assert_int_equal(ergo_error_count(), 4);
  ergo_finalize();
}

static void test_reports_have_table(void **state) {
  (void)state;
  test_init_default();
  char *text = ergo_report_string();
  assert_non_null(text);
  assert_null(strstr(text, "Sections")); /* no sections: no table */
  free(text);
  unsigned a, b;
  ergo_section_create("solve", &a);
  ergo_section_create("io", &b);
  region_ms(1, "R", 10);
  ergo_section_start(a);
  advance_ms(30);
  ergo_section_start(b);
  advance_ms(10);
  ergo_section_stop(a);
  ergo_section_start(a);
  advance_ms(10);
  ergo_section_stop(a); /* solve: 50 ms, 2 calls; io runs on: 20 ms so far */
  text = ergo_report_string();
  assert_non_null(text);
  const char *tab = strstr(text, "Sections\n");
  assert_non_null(tab);
  assert_true(tab > strstr(text, "* R ")); /* after the tree */
  assert_non_null(strstr(tab, "* solve                          : 0.0500 sec,  83.33%, calls 2\n"));
  assert_non_null(strstr(tab, "* io                             : 0.0200 sec,  33.33%, calls 1 | "
                              "running\n"));
  free(text);

  char *js = ergo__report_json_string();
  assert_non_null(js);
  json_error_t err;
  json_t *doc = json_loads(js, 0, &err);
  free(js);
  assert_non_null(doc);
  assert_int_equal(json_integer_value(json_object_get(doc, "version")), 2);
  json_t *secs = json_object_get(doc, "sections");
  assert_int_equal(json_array_size(secs), 2);
  json_t *s0 = json_array_get(secs, 0), *s1 = json_array_get(secs, 1);
  assert_string_equal(json_string_value(json_object_get(s0, "name")), "solve");
  assert_float_equal(json_real_value(json_object_get(s0, "time_s")), 0.05, 1e-12);
  assert_int_equal(json_integer_value(json_object_get(s0, "calls")), 2);
  assert_true(json_is_false(json_object_get(s0, "running")));
  assert_string_equal(json_string_value(json_object_get(s1, "name")), "io");
  assert_float_equal(json_real_value(json_object_get(s1, "time_s")), 0.02, 1e-12);
  assert_true(json_is_true(json_object_get(s1, "running")));
  json_decref(doc);
  ergo_finalize();
}

/* CSV: a row per section after the tree, depth -1, the header and the region rows unchanged;
 * Hatchet: a root of type "section" per section. */
static void test_csv_and_hatchet(void **state) {
  (void)state;
  test_init_default();
  unsigned a;
  ergo_section_create("a,b", &a); /* a comma: the field is quoted */
  region_ms(1, "R", 10);
  ergo_section_start(a);
  advance_ms(30);
  ergo_section_stop(a);
  assert_int_equal(ergo_report_csv(test_in_dir("r.csv")), 0);
  char *csv = slurp(test_in_dir("r.csv"));
  assert_non_null(csv);
  assert_true(strncmp(csv,
                      "thread,path,name,depth,level,calls,time_s,self_s,mean_s,min_s,max_s,"
                      "share_of_parent",
                      strlen("thread,path,name,depth,level,calls,time_s,self_s,mean_s,min_s,max_s,"
                             "share_of_parent")) == 0);
  const char *row = strstr(csv, "\n0,\"@sections/a,b\",\"a,b\",-1,,1,0.03,0.03,0.03,,,0.75");
  assert_non_null(row);
  assert_true(row > strstr(csv, "\n0,Global/R,R,1,1,1,")); /* after the tree */
  /* as many cells as the header (the quoted name holds two commas of its own) */
  int head = 0, cells = 0;
  for (const char *p = csv; *p != '\n'; p++) head += *p == ',';
  for (const char *p = row + 1; *p && *p != '\n'; p++) cells += *p == ',';
  assert_int_equal(cells - 2, head);
  free(csv);

  assert_int_equal(ergo_report_hatchet(test_in_dir("h.json")), 0);
  json_error_t err;
  json_t *roots = json_load_file(test_in_dir("h.json"), 0, &err);
  assert_non_null(roots);
  assert_int_equal(json_array_size(roots), 2);
  json_t *sec = json_array_get(roots, 1);
  json_t *frame = json_object_get(sec, "frame"), *m = json_object_get(sec, "metrics");
  assert_string_equal(json_string_value(json_object_get(frame, "type")), "section");
  assert_string_equal(json_string_value(json_object_get(frame, "name")), "a,b");
  assert_float_equal(json_real_value(json_object_get(m, "time (inc)")), 0.03, 1e-12);
  assert_int_equal(json_integer_value(json_object_get(m, "calls")), 1);
  json_decref(roots);
  ergo_finalize();
}

/* Threads start and stop one shared section and create it by name at the same time: every
 * call counted once, no error, and the section ends not running. */
static unsigned shared_id;
static void *hammer(void *arg) {
  (void)arg;
  for (int i = 0; i < 2000; i++) {
    unsigned id;
    if (ergo_section_create("shared", &id) || id != shared_id) return (void *)1;
    if (ergo_section_start(id) || ergo_section_stop(id)) return (void *)1;
  }
  return NULL;
}

static void test_threads(void **state) {
  (void)state;
  test_init_default();
  assert_int_equal(ergo_section_create("shared", &shared_id), 0);
  pthread_t t[4];
  for (int i = 0; i < 4; i++) assert_int_equal(pthread_create(&t[i], NULL, hammer, NULL), 0);
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(t[i], &r);
    assert_null(r);
  }
  assert_int_equal(fig(0).calls, 8000);
  assert_int_equal(fig(0).running, 0);
  assert_int_equal(ergo_error_count(), 0);
  ergo_finalize();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      ERGO_TEST(test_overlap_any_order),   ERGO_TEST(test_nested_and_running),
      ERGO_TEST(test_errors_one_line),     ERGO_TEST(test_reports_have_table),
      ERGO_DIR_TEST(test_csv_and_hatchet), ERGO_TEST(test_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
