/* test_sections.c - sections (ergo_section_*): overlapping and nested intervals on the manual
 * clock give exact times and calls, each misuse says one line and loses nothing, and the text and
 * JSON reports carry the Sections table; with a meter, each interval gets the energy between the
 * meter's amounts at its start and its stop, in every report format. */
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

/* A meter for sections: 100 W on package-0 and 10 W on dram-0 since the clock's origin, read at
 * tick t; `reads` counts its calls; unsure_at: from that reading on the meter is unsure. */
static int reads, unsure_from = -1;
static int fake_meter(void *ctx, uint64_t t, double *out, uint64_t *unsure) {
  (void)ctx;
  double s = ergo__ticks_to_s(t);
  out[0] = 100 * s;
  out[1] = 10 * s;
  reads++;
  *unsure = unsure_from >= 0 && reads > unsure_from;
  return 0;
}
static int no_value(void *ctx, const ergo_region *r, double *out) {
  (void)ctx, (void)r, (void)out;
  return -1;
}
static void *start_elsewhere(void *id) {
  return (void *)(intptr_t)ergo_section_start(*(unsigned *)id);
}

static void test_energy(void **state) {
  (void)state;
  test_init_default();
  ergo_quantity q = {.name = "energy",
                     .unit = "J",
                     .rate_unit = "W",
                     .ncomponents = 2,
                     .components = {"package-0", "dram-0"},
                     .total_mask = 3,
                     .value = no_value};
  int qi;
  assert_int_equal(ergo_quantity_attach(&q, &qi), 0);
  ergo__sections_meter(qi, fake_meter, NULL);
  reads = 0;
  unsure_from = -1;
  unsigned a, b, c, d;
  ergo_section_create("A", &a);
  ergo_section_create("B", &b);
  ergo_section_create("C", &c);
  ergo_section_create("D", &d);
  ergo_section_start(a);
  advance_ms(10);
  ergo_section_start(b);
  ergo_section_start(a); /* nested: no reading, the interval runs on */
  advance_ms(20);
  ergo_section_stop(a);
  ergo_section_stop(a); /* A: one interval of 30 ms */
  advance_ms(5);
  ergo_section_stop(b); /* B: 25 ms, overlapping A */
  assert_int_equal(reads, 4);
  ergo__section_fig fa = fig(0), fb = fig(1);
  assert_int_equal(fa.q_ok, 1u << qi);
  assert_float_equal(fa.q[qi][0], 3.0, 1e-9); /* 100 W x 30 ms */
  assert_float_equal(fa.q[qi][1], 0.3, 1e-9);
  assert_float_equal(fa.q_time_s[qi][0], 0.030, 1e-12);
  assert_float_equal(fb.q[qi][0], 2.5, 1e-9);
  /* started on another thread: that interval is not measured, and the amount is a lower bound */
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, start_elsewhere, &c), 0);
  void *rc;
  pthread_join(t, &rc);
  assert_null(rc);
  advance_ms(10);
  ergo_section_stop(c);
  ergo_section_start(c);
  advance_ms(10);
  ergo_section_stop(c);
  ergo__section_fig fc = fig(2);
  assert_int_equal(fc.q_ok, 1u << qi | ERGO__Q_LOWER(qi));
  assert_float_equal(fc.q[qi][0], 1.0, 1e-9); /* the measured interval alone */
  assert_float_equal(fc.time_s, 0.020, 1e-12);
  /* an unsure reading between start and stop: a lower bound too */
  unsure_from = reads + 1;
  ergo_section_start(d);
  advance_ms(10);
  ergo_section_stop(d);
  assert_int_equal(fig(3).q_ok, 1u << qi | ERGO__Q_LOWER(qi));
  /* running: its energy so far is not read, a lower bound */
  ergo_section_start(a);
  advance_ms(10);
  assert_int_equal(fig(0).q_ok, 1u << qi | ERGO__Q_LOWER(qi));
  ergo_section_stop(a);
  assert_int_equal(fig(0).q_ok, 1u << qi);
  assert_float_equal(fig(0).q[qi][0], 4.0, 1e-9);

  char *text = ergo_report_string();
  assert_non_null(text);
  const char *tab = strstr(text, "Sections\n");
  assert_non_null(tab);
  assert_non_null(strstr(tab, "* A                              : 0.0400 sec,  53.33%, calls 3 | "
                              "4.4000 J, 110.00 W\n"));
  assert_non_null(strstr(tab, "* C                              : 0.0200 sec,  26.67%, calls 2 | "
                              ">=1.1000 J, 110.00 W\n"));
  free(text);
  char *js = ergo__report_json_string();
  assert_non_null(js);
  json_error_t err;
  json_t *doc = json_loads(js, 0, &err);
  free(js);
  assert_non_null(doc);
  json_t *e = json_object_get(json_array_get(json_object_get(doc, "sections"), 1), "energy");
  assert_float_equal(json_real_value(json_object_get(e, "total")), 2.75, 1e-9);
  assert_float_equal(json_real_value(json_object_get(e, "rate")), 110, 1e-6);
  assert_float_equal(json_real_value(json_object_get(json_object_get(e, "components"), "dram-0")),
                     0.25, 1e-9);
  assert_true(json_is_false(json_object_get(e, "lower_bound")));
  json_decref(doc);
  assert_int_equal(ergo_report_csv(test_in_dir("r.csv")), 0);
  char *csv = slurp(test_in_dir("r.csv"));
  assert_non_null(csv);
  assert_non_null(
      strstr(csv, "\n0,@sections/B,B,-1,,1,0.025,0.025,0.025,,,0.333333333,2.75,2.75,"));
  free(csv);
  assert_int_equal(ergo_report_hatchet(test_in_dir("h.json")), 0);
  json_t *roots = json_load_file(test_in_dir("h.json"), 0, &err);
  assert_non_null(roots);
  json_t *m = json_object_get(json_array_get(roots, 2), "metrics"); /* after Global and A */
  assert_float_equal(json_real_value(json_object_get(m, "energy (inc)")), 2.75, 1e-9);
  json_decref(roots);
  assert_int_equal(ergo_error_count(), 0);
  ergo_finalize();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      ERGO_TEST(test_overlap_any_order),   ERGO_TEST(test_nested_and_running),
      ERGO_TEST(test_errors_one_line),     ERGO_TEST(test_reports_have_table),
      ERGO_DIR_TEST(test_csv_and_hatchet), ERGO_TEST(test_threads),
      ERGO_DIR_TEST(test_energy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
