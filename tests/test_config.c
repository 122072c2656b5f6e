/* test_config.c - ERGO_* environment parsing: accepted values, and one line for each bad one. */
#include "test_util.h"

#include "internal.h"

static const char *vars[] = {"ERGO_REPORT_LEVEL",  "ERGO_BALANCE_LEVEL",  "ERGO_ON_ERROR",
                             "ERGO_REPORT_FORMAT", "ERGO_REPORT_THREADS", "ERGO_CLOCK",
                             "ERGO_REPORT",        "ERGO_REPORT_JSON",    "ERGO_REPORT_HATCHET",
                             "ERGO_REPORT_CSV",    "ERGO_REPORT_STEPS",   "ERGO_BALANCE"};

static int clear_env(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) unsetenv(vars[i]);
  return 0;
}

static void test_defaults(void **state) {
  (void)state;
  ergo_config c;
  ergo_config_default(&c);
  assert_int_equal(ergo_config_from_env(&c), 0);
  assert_int_equal(c.report_level, -1);
  assert_int_equal(c.balance_level, 2);
  assert_int_equal(c.on_error, ERGO_ON_ERROR_WARN);
  assert_int_equal(c.format, ERGO_FORMAT_PAPER);
  assert_string_equal(c.report, "stdout");
  assert_string_equal(c.step_report, "ergo-steps.txt");
  assert_string_equal(c.balance, "ergo-balance.txt");
  assert_null(c.report_json);
}

static void test_good_values(void **state) {
  (void)state;
  setenv("ERGO_REPORT_LEVEL", "3", 1);
  setenv("ERGO_BALANCE_LEVEL", "1", 1);
  setenv("ERGO_ON_ERROR", "abort", 1);
  setenv("ERGO_REPORT_FORMAT", "wide", 1);
  setenv("ERGO_REPORT_THREADS", "1", 1);
  setenv("ERGO_CLOCK", "monotonic", 1);
  setenv("ERGO_REPORT_JSON", "r.json", 1);
  ergo_config c;
  ergo_config_default(&c);
  assert_int_equal(ergo_config_from_env(&c), 0);
  assert_int_equal(c.report_level, 3);
  assert_int_equal(c.balance_level, 1);
  assert_int_equal(c.on_error, ERGO_ON_ERROR_ABORT);
  assert_int_equal(c.format, ERGO_FORMAT_WIDE);
  assert_int_equal(c.report_threads, 1);
  assert_int_equal(c.clock_kind, 2);
  assert_string_equal(c.report_json, "r.json");
  setenv("ERGO_REPORT_LEVEL", "all", 1);
  assert_int_equal(ergo_config_from_env(&c), 0);
  assert_int_equal(c.report_level, -1);
}

static void test_bad_values_named(void **state) {
  (void)state;
  ergo_config c;
  ergo_config_default(&c);
  setenv("ERGO_REPORT_LEVEL", "two", 1);
  unsigned long before = ergo_warning_count(), errors = ergo_error_count();
  assert_int_equal(ergo_config_from_env(&c), ERGO_EINVAL);
  /* one line per bad value: a warning (the default is kept and the run goes on), not an error */
  assert_int_equal(ergo_warning_count(), before + 1);
  assert_int_equal(ergo_error_count(), errors);
  assert_string_equal(ergo_last_error(), "ERGO_REPORT_LEVEL='two' is not valid: expected an "
                                         "integer from 0 to 1000 or 'all'; keeping all");
  assert_int_equal(c.report_level, -1);
  unsetenv("ERGO_REPORT_LEVEL");
  setenv("ERGO_BALANCE_LEVEL", "-1", 1);
  assert_int_equal(ergo_config_from_env(&c), ERGO_EINVAL);
  assert_string_equal(ergo_last_error(), "ERGO_BALANCE_LEVEL='-1' is not valid: expected an "
                                         "integer from 0 to 1000; keeping 2");
  unsetenv("ERGO_BALANCE_LEVEL");
  setenv("ERGO_ON_ERROR", "crash", 1);
  assert_int_equal(ergo_config_from_env(&c), ERGO_EINVAL);
  assert_string_equal(ergo_last_error(),
                      "ERGO_ON_ERROR='crash' is not valid: expected warn|abort; keeping warn");
  unsetenv("ERGO_ON_ERROR");
  setenv("ERGO_REPORT_FORMAT", "Wide", 1);
  assert_int_equal(ergo_config_from_env(&c), ERGO_EINVAL);
  assert_string_equal(ergo_last_error(),
                      "ERGO_REPORT_FORMAT='Wide' is not valid: expected paper|wide; keeping paper");
  unsetenv("ERGO_REPORT_FORMAT");
  setenv("ERGO_REPORT_JSON", "", 1);
  assert_int_equal(ergo_config_from_env(&c), ERGO_EINVAL);
  assert_string_equal(ergo_last_error(), "ERGO_REPORT_JSON is set but empty: expected a file "
                                         "path (unset it to use the default)");
  assert_null(c.report_json);
}

/* ergo_init(NULL) keeps going with the default after a bad environment value. */
static void test_init_env_bad_value_uses_default(void **state) {
  (void)state;
  setenv("ERGO_REPORT_LEVEL", "x", 1);
  setenv("ERGO_REPORT", "none", 1);
  assert_int_equal(ergo_init(NULL), 0);
  assert_int_equal(ergo__g.cfg.report_level, -1);
  ergo_finalize();
}

/* A bad field in a config struct is a programming error: nothing starts. */
static void test_init_struct_bad_value(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.balance_level = -3;
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
  assert_int_equal(ergo_initialized(), 0);
  assert_string_equal(ergo_last_error(),
                      "ergo_config.balance_level=-3 is not valid: expected >= 0");
  c = test_config();
  c.report_level = -2;
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_defaults, clear_env),
      cmocka_unit_test_setup(test_good_values, clear_env),
      cmocka_unit_test_setup(test_bad_values_named, clear_env),
      cmocka_unit_test_setup(test_init_env_bad_value_uses_default, clear_env),
      cmocka_unit_test_setup(test_init_struct_bad_value, clear_env),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
