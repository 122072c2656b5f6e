/* test_report_text.c - exact SPACE-Timers text reports from trees built on a manual clock. */
#include "test_util.h"

#include "internal.h"

#include <unistd.h>

static void teardown_check(char *got, const char *want) {
  if (!got || strcmp(got, want) != 0) {
    fprintf(stderr, "--- want:\n%s--- got:\n%s---\n", want, got ? got : "(null)");
  }
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
}

/* The paper's tree shape: children sorted by time, Unaccounted last. */
static void test_paper_format(void **state) {
  (void)state;
  test_init_default();
  ERGO_PUSH(0, "Timestep");
  ERGO_PUSH(1, "FIND_HSML");
  region_ms(2, "Primary", 150);
  region_ms(2, "Secondary", 220);
  advance_ms(30); /* FIND_HSML's own time: Unaccounted */
  ERGO_POP(1, "FIND_HSML");
  ERGO_PUSH(1, "check_stop_condition");
  ERGO_PUSH(2, "IO");
  region_ms(3, "RESTART_WRITE", 27);
  ERGO_POP(2, "IO");
  advance_ms(135);
  ERGO_POP(1, "check_stop_condition");
  region_ms(1, "DRIFT", 40);
  ERGO_POP(0, "Timestep");
  advance_ms(18); /* outside any region */
  const char *want = "Total wall clock time for Global = 0.62 sec\n"
                     "* Timestep                       : 0.6020 sec,  97.10%\n"
                     "- * FIND_HSML                    : 0.4000 sec,  66.45%\n"
                     "- - * Secondary                  : 0.2200 sec,  55.00%\n"
                     "- - * Primary                    : 0.1500 sec,  37.50%\n"
                     "- - * Unaccounted                : 0.0300 sec,   7.50%\n"
                     "- * check_stop_condition         : 0.1620 sec,  26.91%\n"
                     "- - * IO                         : 0.0270 sec,  16.67%\n"
                     "- - - * RESTART_WRITE            : 0.0270 sec, 100.00%\n"
                     "- - * Unaccounted                : 0.1350 sec,  83.33%\n"
                     "- * DRIFT                        : 0.0400 sec,   6.64%\n";
  teardown_check(ergo_report_string(), want);
  ergo_finalize();
}

/* Report level 1: depth-2 children are hidden and marked "...". */
static void test_report_level_dots(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.report_level = 1;
  test_init(&c);
  ERGO_PUSH(0, "Timestep");
  ERGO_PUSH(1, "FIND_HSML");
  region_ms(2, "Primary", 100);
  ERGO_POP(1, "FIND_HSML");
  region_ms(1, "DRIFT", 100);
  ERGO_POP(0, "Timestep");
  const char *want = "Total wall clock time for Global = 0.2 sec\n"
                     "* Timestep                       : 0.2000 sec, 100.00%\n"
                     "- * DRIFT                        : 0.1000 sec,  50.00%\n"
                     "- * FIND_HSML                    : 0.1000 sec,  50.00%\n"
                     "...\n";
  teardown_check(ergo_report_string(), want);
  ergo_finalize();
}

/* Report level 0 shows only the top level; the boundary of the 99.9 % rule. */
static void test_level0_and_unaccounted_boundary(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.report_level = 0;
  test_init(&c);
  ERGO_PUSH(0, "A");
  region_ms(1, "child", 999);
  advance_ms(1); /* children are exactly 99.9 %: Unaccounted shown */
  ERGO_POP(0, "A");
  ERGO_PUSH(0, "B");
  region_ms(1, "child", 9995);
  advance_ms(5); /* 99.95 % > 99.9 %: no Unaccounted */
  ERGO_POP(0, "B");
  teardown_check(ergo_report_string(), "Total wall clock time for Global = 11 sec\n"
                                       "* B                              : 10.0000 sec,  90.91%\n"
                                       "...\n"
                                       "* A                              : 1.0000 sec,   9.09%\n"
                                       "...\n");
  ergo_finalize();
  c.report_level = -1;
  test_init(&c);
  ERGO_PUSH(0, "A");
  region_ms(1, "child", 999);
  advance_ms(1);
  ERGO_POP(0, "A");
  ERGO_PUSH(0, "B");
  region_ms(1, "child", 9995);
  advance_ms(5);
  ERGO_POP(0, "B");
  teardown_check(ergo_report_string(), "Total wall clock time for Global = 11 sec\n"
                                       "* B                              : 10.0000 sec,  90.91%\n"
                                       "- * child                        : 9.9950 sec,  99.95%\n"
                                       "* A                              : 1.0000 sec,   9.09%\n"
                                       "- * child                        : 0.9990 sec,  99.90%\n"
                                       "- * Unaccounted                  : 0.0010 sec,   0.10%\n");
  ergo_finalize();
}

/* Equal times sort by name so reports are reproducible. */
static void test_ties_sorted_by_name(void **state) {
  (void)state;
  test_init_default();
  region_ms(1, "b", 10);
  region_ms(1, "a", 10);
  region_ms(1, "c", 20);
  teardown_check(ergo_report_string(), "Total wall clock time for Global = 0.04 sec\n"
                                       "* c                              : 0.0200 sec,  50.00%\n"
                                       "* a                              : 0.0100 sec,  25.00%\n"
                                       "* b                              : 0.0100 sec,  25.00%\n");
  ergo_finalize();
}

/* The wide format adds calls, mean, min and max per region. */
static void test_wide_format(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.format = ERGO_FORMAT_WIDE;
  test_init(&c);
  region_ms(1, "loop", 10);
  region_ms(1, "loop", 30);
  teardown_check(ergo_report_string(),
                 "Total wall clock time for Global = 0.04 sec\n"
                 "* loop                           : 0.0400 sec, 100.00% | calls          2 | "
                 "mean 0.020000 | min 0.010000 | max 0.030000 sec\n");
  ergo_finalize();
}

/* An open region is reported with its time so far, so children never exceed parents. */
static void test_open_region_counts_so_far(void **state) {
  (void)state;
  test_init_default();
  ERGO_PUSH(1, "outer");
  region_ms(2, "inner", 30);
  advance_ms(10);
  teardown_check(ergo_report_string(), "Total wall clock time for Global = 0.04 sec\n"
                                       "* outer                          : 0.0400 sec, 100.00%\n"
                                       "- * inner                        : 0.0300 sec,  75.00%\n"
                                       "- * Unaccounted                  : 0.0100 sec,  25.00%\n");
  ERGO_POP(1, "outer");
  ergo_finalize();
}

/* Long names push the colon right but keep one space before it. */
static void test_long_name_column(void **state) {
  (void)state;
  test_init_default();
  region_ms(1, "A_REGION_NAME_LONGER_THAN_THE_COLUMN", 5);
  teardown_check(ergo_report_string(),
                 "Total wall clock time for Global = 0.005 sec\n"
                 "* A_REGION_NAME_LONGER_THAN_THE_COLUMN : 0.0050 sec, 100.00%\n");
  ergo_finalize();
}

/* ERGO_REPORT_THREADS=1 adds each other thread's tree after the main one. */
static void test_report_file_written_at_finalize(void **state) {
  (void)state;
  char path[256], steps[256];
  snprintf(path, sizeof path, "%s/report.txt", test_dir);
  snprintf(steps, sizeof steps, "%s/steps.txt", test_dir);
  ergo_config c = test_config();
  c.report = path;
  c.step_report = steps;
  test_init(&c);
  region_ms(1, "x", 50);
  ergo_step(1);
  /* The final report ends with how the run was made; a step report keeps the paper's layout. */
  char host[256], date[64], want[1024];
  assert_int_equal(gethostname(host, sizeof host), 0);
  snprintf(date, sizeof date, "%s", ergo__fact_get("date"));
  assert_int_equal(ergo_finalize(), 0);
  char *got = slurp(path);
  snprintf(want, sizeof want,
           "Total wall clock time for Global = 0.05 sec\n"
           "* x                              : 0.0500 sec, 100.00%%\n"
           "Run: test_report_text, ergo %s, host %s, %s, 1 step, platform real, policy monitor, "
           "energy none\n",
           ERGO_VERSION_STRING, host, date);
  teardown_check(got, want);
  teardown_check(slurp(steps), "Step 1\n"
                               "Total wall clock time for Global = 0.05 sec\n"
                               "* x                              : 0.0500 sec, 100.00%\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      ERGO_TEST(test_paper_format),
      ERGO_TEST(test_report_level_dots),
      ERGO_TEST(test_level0_and_unaccounted_boundary),
      ERGO_TEST(test_ties_sorted_by_name),
      ERGO_TEST(test_wide_format),
      ERGO_TEST(test_open_region_counts_so_far),
      ERGO_TEST(test_long_name_column),
      ERGO_DIR_TEST(test_report_file_written_at_finalize),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
