/* test_config.c - the configuration spec: ERGO_* environment parsing, the check of a caller's
 * ergo_config (every field, and its size), and unknown ERGO_* variables. */
#include "test_util.h"

#include "internal.h"
#include "runtime/config.h"

extern char **environ;

/* Every ERGO_* variable unset, so each test starts from the defaults (and no unknown one). */
static int clear_env(void **state) {
  (void)state;
  for (;;) {
    char name[256] = "";
    for (char **e = environ; *e && !name[0]; e++)
      if (strncmp(*e, "ERGO_", 5) == 0)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
    if (!name[0]) return 0;
    unsetenv(name);
  }
}

/* The first reading of the environment in this process (this test runs first): one line for an
 * unknown ERGO_* variable, naming the nearest known one; never again in this process. */
static void test_unknown_variable_once(void **state) {
  (void)state;
  setenv("ERGO_POLCY", "online", 1);
  setenv("ERGO__RC", "1", 1); /* internal: never warned about */
  ergo_config c;
  ergo_config_default(&c);
  unsigned long before = ergo_error_count();
  assert_int_equal(ergo_config_from_env(&c), 0); /* not an error: it changes nothing */
  assert_int_equal(ergo_error_count(), before + 1);
  assert_string_equal(ergo_last_error(), "ERGO_POLCY: unknown variable; did you mean ERGO_POLICY?");
  assert_string_equal(c.policy, "monitor");
  assert_int_equal(ergo_config_from_env(&c), 0);
  setenv("ERGO_REPORT", "none", 1);
  setenv("ERGO_ENERGY", "none", 1);
  setenv("ERGO_KNOBS", "none", 1);
  assert_int_equal(ergo_init(NULL), 0);
  assert_int_equal(ergo_error_count(), 0); /* ergo_init reset the count: nothing said again */
  ergo_finalize();
  unsetenv("ERGO_POLCY");
  unsetenv("ERGO__RC");
}

/* Which names are known, which are near which, and the line without a near name. */
static void test_unknown_variables(void **state) {
  (void)state;
  /* Every variable another layer reads is known too. */
  char *known[] = {"ERGO_POLICY=monitor",
                   "ERGO_STATE_DIR=/tmp",
                   "ERGO_MPI_AUTO=0",
                   "ERGO_ESTIMATE_CORE_W=5",
                   "ERGO_SIM_NODE=n.json",
                   "ERGO_NODE_SPLIT=2",
                   "ERGO__ANYTHING=1",
                   "ERGO=1",
                   "PATH=/bin",
                   "ergo_policy=x",
                   NULL};
  assert_int_equal(ergo__config_unknown_vars(known), 0);
  char *one[] = {"ERGO_REPORTJSON=r.json", NULL};
  assert_int_equal(ergo__config_unknown_vars(one), 1);
  assert_string_equal(ergo_last_error(),
                      "ERGO_REPORTJSON: unknown variable; did you mean ERGO_REPORT_JSON?");
  char *far[] = {"ERGO_FOO=1", NULL};
  assert_int_equal(ergo__config_unknown_vars(far), 1);
  assert_string_equal(ergo_last_error(), "ERGO_FOO: unknown variable; ergo ignores it (README "
                                         "lists the ERGO_* variables)");
  char *two[] = {"ERGO_POLICIES=online", "ERGO_policy=online", NULL};
  assert_int_equal(ergo__config_unknown_vars(two), 2);
  assert_string_equal(ergo_last_error(),
                      "ERGO_policy: unknown variable; did you mean ERGO_POLICY?");
  /* nearest: edits, a swap, case; nothing for a name too far from every known one */
  const char *n = "ERGO_SAMPEL_MS";
  assert_string_equal(ergo__config_nearest(n, strlen(n)), "ERGO_SAMPLE_MS");
  n = "ERGO_MODLE";
  assert_string_equal(ergo__config_nearest(n, strlen(n)), "ERGO_MODEL");
  n = "ERGO_Knobs";
  assert_string_equal(ergo__config_nearest(n, strlen(n)), "ERGO_KNOBS");
  n = "ERGO_DEBUG";
  assert_null(ergo__config_nearest(n, strlen(n)));
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
  assert_int_equal(c.clock_kind, ERGO_CLOCK_MONOTONIC);
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
  unsigned long before = ergo_error_count();
  assert_int_equal(ergo_config_from_env(&c), ERGO_EINVAL);
  assert_int_equal(ergo_error_count(), before + 1); /* one line per bad value */
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
  assert_string_equal(ergo_last_error(), "ergo_config.balance_level=-3 is not valid: expected an "
                                         "integer from 0 to 1000");
  c = test_config();
  c.report_level = -2;
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* first: the only test that sees this process's first reading of the environment */
      cmocka_unit_test_setup(test_unknown_variable_once, clear_env),
      cmocka_unit_test_setup(test_unknown_variables, clear_env),
      cmocka_unit_test_setup(test_defaults, clear_env),
      cmocka_unit_test_setup(test_good_values, clear_env),
      cmocka_unit_test_setup(test_bad_values_named, clear_env),
      cmocka_unit_test_setup(test_init_env_bad_value_uses_default, clear_env),
      cmocka_unit_test_setup(test_init_struct_bad_value, clear_env),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
