/* test_knob_table.c - the knob table (knobs/table.c): its lookups by key, backend and field, the
 * ERGO_KNOBS check with its exact line, the name lists, and that every parser of a knob name
 * (ERGO_FIXED, ERGO_SWEEP, ERGO_KNOBS) accepts every row's. */
#include "test_util.h"

#include "knobs/knobs.h"
#include "knobs/table.h"
#include "optimizer/sweep.h"
#include "policies/policy.h"

#define KNOBS_EXPECTED "expected auto, none, or a comma list of cpufreq, uncore, threads"

static int by(int (*f)(const char *, size_t), const char *s) { return f(s, strlen(s)); }

static void test_rows(void **state) {
  (void)state;
  static const struct {
    int slot;
    const char *key, *backend, *field, *unit;
  } want[] = {
      {ERGO__KNOB_CORE, "cpu", "cpufreq", "core_khz", "kHz"},
      {ERGO__KNOB_UNCORE, "uncore", "uncore", "uncore_khz", "kHz"},
      {ERGO__KNOB_THREADS, "threads", "threads", "threads", "threads"},
  };
  assert_int_equal(sizeof want / sizeof *want, ERGO__NKNOBS);
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    const ergo__knob_row *row = &ergo__knob_table[want[i].slot];
    assert_string_equal(row->key, want[i].key);
    assert_string_equal(row->backend, want[i].backend);
    assert_string_equal(row->field, want[i].field);
    assert_string_equal(row->unit, want[i].unit);
    assert_non_null(row->column);
    assert_non_null(row->real);
    assert_non_null(row->sim);
    assert_ptr_not_equal(row->real, row->sim);
  }
  assert_ptr_equal(ergo__knob_table[ERGO__KNOB_CORE].real, &ergo__knob_cpufreq);
  assert_ptr_equal(ergo__knob_table[ERGO__KNOB_UNCORE].real, &ergo__knob_uncore);
  assert_ptr_equal(ergo__knob_table[ERGO__KNOB_THREADS].real, &ergo__knob_threads);
  assert_ptr_equal(ergo__knob_table[ERGO__KNOB_CORE].sim, &ergo__knob_sim_core);
  assert_ptr_equal(ergo__knob_table[ERGO__KNOB_UNCORE].sim, &ergo__knob_sim_uncore);
  assert_ptr_equal(ergo__knob_table[ERGO__KNOB_THREADS].sim, &ergo__knob_sim_threads);
}

static void test_lookups(void **state) {
  (void)state;
  /* Every row is found by each of its names. */
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    assert_int_equal(by(ergo__knob_by_key, ergo__knob_table[i].key), i);
    assert_int_equal(by(ergo__knob_by_backend, ergo__knob_table[i].backend), i);
    assert_int_equal(by(ergo__knob_by_field, ergo__knob_table[i].field), i);
  }
  assert_int_equal(by(ergo__knob_by_key, "cpu"), ERGO__KNOB_CORE);
  assert_int_equal(by(ergo__knob_by_key, "uncore"), ERGO__KNOB_UNCORE);
  assert_int_equal(by(ergo__knob_by_key, "threads"), ERGO__KNOB_THREADS);
  assert_int_equal(by(ergo__knob_by_backend, "cpufreq"), ERGO__KNOB_CORE);
  assert_int_equal(by(ergo__knob_by_backend, "uncore"), ERGO__KNOB_UNCORE);
  assert_int_equal(by(ergo__knob_by_backend, "threads"), ERGO__KNOB_THREADS);
  assert_int_equal(by(ergo__knob_by_field, "core_khz"), ERGO__KNOB_CORE);
  assert_int_equal(by(ergo__knob_by_field, "uncore_khz"), ERGO__KNOB_UNCORE);
  assert_int_equal(by(ergo__knob_by_field, "threads"), ERGO__KNOB_THREADS);
  /* The len characters at s, not the string: "cpu=1000000" has the key "cpu" in 3. */
  assert_int_equal(ergo__knob_by_key("cpu=1000000", 3), ERGO__KNOB_CORE);
  assert_int_equal(ergo__knob_by_backend("cpufreq,uncore", 7), ERGO__KNOB_CORE);
  assert_int_equal(ergo__knob_by_field("uncore_khz\"", 10), ERGO__KNOB_UNCORE);
  /* Unknown: -1.  The whole length must match: no prefix, no longer word. */
  assert_int_equal(by(ergo__knob_by_key, "gpu"), -1);
  assert_int_equal(by(ergo__knob_by_key, "cpuX"), -1);
  assert_int_equal(by(ergo__knob_by_key, "cp"), -1);
  assert_int_equal(by(ergo__knob_by_key, ""), -1);
  assert_int_equal(by(ergo__knob_by_key, "CPU"), -1);
  assert_int_equal(ergo__knob_by_key("cpu", 2), -1);
  assert_int_equal(ergo__knob_by_key(NULL, 0), -1);
  assert_int_equal(by(ergo__knob_by_backend, "cpufreqX"), -1);
  assert_int_equal(by(ergo__knob_by_backend, "cpufre"), -1);
  assert_int_equal(by(ergo__knob_by_field, "core_kh"), -1);
  assert_int_equal(by(ergo__knob_by_field, "core_khzz"), -1);
  /* Each column is its own vocabulary: a key is no backend, a backend no field. */
  assert_int_equal(by(ergo__knob_by_key, "cpufreq"), -1);
  assert_int_equal(by(ergo__knob_by_key, "core_khz"), -1);
  assert_int_equal(by(ergo__knob_by_backend, "cpu"), -1);
  assert_int_equal(by(ergo__knob_by_backend, "core_khz"), -1);
  assert_int_equal(by(ergo__knob_by_field, "cpu"), -1);
  assert_int_equal(by(ergo__knob_by_field, "cpufreq"), -1);
  assert_int_equal(by(ergo__knob_by_field, "uncore"), -1);
}

static void test_names(void **state) {
  (void)state;
  char buf[128];
  assert_string_equal(ergo__knob_names(offsetof(ergo__knob_row, key), buf, sizeof buf),
                      "cpu, uncore, threads");
  assert_string_equal(ergo__knob_names(offsetof(ergo__knob_row, backend), buf, sizeof buf),
                      "cpufreq, uncore, threads");
  assert_string_equal(ergo__knob_names(offsetof(ergo__knob_row, field), buf, sizeof buf),
                      "core_khz, uncore_khz, threads");
  /* A short buffer is cut, never overrun. */
  char small[8] = "xxxxxxx";
  assert_string_equal(ergo__knob_names(offsetof(ergo__knob_row, backend), small, 6), "cpufr");
  assert_int_equal(small[6], 'x');
}

static void test_list_check(void **state) {
  (void)state;
  static const char *const good[] = {
      "auto",
      "none",
      "cpufreq",
      "uncore",
      "threads",
      "cpufreq,uncore,threads",
      "threads,cpufreq",
      "uncore,uncore",
      /* As ERGO_KNOBS always was: a trailing comma adds nothing, "" names no knob. */
      "cpufreq,",
      "",
  };
  char why[256];
  assert_int_equal(ergo__knob_list_check(NULL, why, sizeof why), 0);
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    why[0] = '\0';
    assert_int_equal(ergo__knob_list_check(good[i], why, sizeof why), 0);
    assert_string_equal(why, "");
  }
  static const struct {
    const char *list, *why;
  } bad[] = {
      {"gpu", "'gpu' is no knob: " KNOBS_EXPECTED},
      {"cpu", "'cpu' is no knob: " KNOBS_EXPECTED}, /* ERGO_FIXED's key, not the backend */
      {"cpufreqX", "'cpufreqX' is no knob: " KNOBS_EXPECTED},
      {"cpufre", "'cpufre' is no knob: " KNOBS_EXPECTED},
      {"core_khz", "'core_khz' is no knob: " KNOBS_EXPECTED},
      {"cpufreq,gpu,uncore", "'gpu' is no knob: " KNOBS_EXPECTED},
      {"cpufreq,,uncore", "'' is no knob: " KNOBS_EXPECTED},
      {",cpufreq", "'' is no knob: " KNOBS_EXPECTED},
      {"cpufreq,auto", "'auto' is no knob: " KNOBS_EXPECTED}, /* auto and none stand alone */
      {"Auto", "'Auto' is no knob: " KNOBS_EXPECTED},
      {"cpufreq uncore", "'cpufreq uncore' is no knob: " KNOBS_EXPECTED},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(ergo__knob_list_check(bad[i].list, why, sizeof why), ERGO_EINVAL);
    assert_string_equal(why, bad[i].why);
  }
}

/* ERGO_KNOBS in the environment: every backend name is kept; a bad one is one warning naming the
 * variable, the value, the item, what is accepted and what is kept. */
static void test_knobs_env(void **state) {
  (void)state;
  ergo_config c;
  ergo_config_default(&c);
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    setenv("ERGO_KNOBS", ergo__knob_table[i].backend, 1);
    assert_int_equal(ergo_config_from_env(&c), 0);
    assert_string_equal(c.knobs, ergo__knob_table[i].backend);
  }
  setenv("ERGO_KNOBS", "cpufreq,uncore,threads", 1);
  assert_int_equal(ergo_config_from_env(&c), 0);
  assert_string_equal(c.knobs, "cpufreq,uncore,threads");
  ergo_config_default(&c);
  setenv("ERGO_KNOBS", "cpufreq,cpu", 1);
  unsigned long before = ergo_warning_count();
  assert_int_equal(ergo_config_from_env(&c), ERGO_EINVAL);
  assert_int_equal(ergo_warning_count(), before + 1);
  assert_string_equal(ergo_last_error(), "ERGO_KNOBS='cpufreq,cpu' is not valid: 'cpu' is no "
                                         "knob: " KNOBS_EXPECTED "; keeping auto");
  assert_string_equal(c.knobs, "auto");
  unsetenv("ERGO_KNOBS");
}

/* Two allowed values per knob, 1000 and 2000. */
static ergo__space two_values(void) {
  ergo__space s;
  memset(&s, 0, sizeof s);
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    s.n[i] = 2;
    s.values[i][0] = 1000;
    s.values[i][1] = 2000;
    s.baseline[i] = 2000;
  }
  s.cores = 2000;
  return s;
}

/* ERGO_FIXED accepts every row's key, alone or all together; any other name is refused with the
 * table's keys in the line. */
static void test_fixed_keys(void **state) {
  (void)state;
  ergo__space s = two_values();
  ergo__config c;
  char text[256], all[256], why[512];
  size_t o = 0;
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    snprintf(text, sizeof text, "%s=1000", ergo__knob_table[i].key);
    assert_int_equal(ergo__parse_fixed(text, &s, &c, why, sizeof why), 0);
    for (int k = 0; k < ERGO__NKNOBS; k++) assert_int_equal(c.v[k], k == i ? 1000 : 0);
    o += (size_t)snprintf(all + o, sizeof all - o, "%s%s=2000", i ? "," : "",
                          ergo__knob_table[i].key);
  }
  assert_string_equal(all, "cpu=2000,uncore=2000,threads=2000");
  assert_int_equal(ergo__parse_fixed(all, &s, &c, why, sizeof why), 0);
  for (int k = 0; k < ERGO__NKNOBS; k++) assert_int_equal(c.v[k], 2000);
  static const char *const bad[] = {"cpuX=1000", "cp=1000", "cpufreq=1000", "core_khz=1000", "cpu"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(ergo__parse_fixed(bad[i], &s, &c, why, sizeof why), ERGO_EINVAL);
    snprintf(text, sizeof text,
             "ERGO_FIXED='%s' is not valid at '%s': expected cpu=KHZ, uncore=KHZ, threads=N "
             "separated by commas",
             bad[i], bad[i]);
    assert_string_equal(why, text);
  }
}

/* ERGO_SWEEP (and `ergo sweep --grid`) accepts every row's key; any other is refused. */
static void test_sweep_keys(void **state) {
  (void)state;
  ergo__sweep_spec spec;
  char text[256], why[1024];
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    snprintf(text, sizeof text, "%s=1000,2000", ergo__knob_table[i].key);
    assert_int_equal(ergo__sweep_parse(text, &spec, why, sizeof why), 0);
    for (int k = 0; k < ERGO__NKNOBS; k++) assert_int_equal(spec.n[k], k == i ? 2 : 0);
    assert_int_equal(spec.values[i][0], 1000);
    assert_int_equal(spec.values[i][1], 2000);
  }
  static const char *const bad[] = {"cpuX=1000", "cp=1000", "cpufreq=1000", "uncore_khz=1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(ergo__sweep_parse(bad[i], &spec, why, sizeof why), ERGO_EINVAL);
    snprintf(text, sizeof text, "ERGO_SWEEP='%s' is not valid: '%s' names no knob or option; ",
             bad[i], bad[i]);
    assert_memory_equal(why, text, strlen(text));
    assert_non_null(strstr(why, "with KNOB cpu or uncore (kHz) or threads and V"));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows),       cmocka_unit_test(test_lookups),
      cmocka_unit_test(test_names),      cmocka_unit_test(test_list_check),
      cmocka_unit_test(test_knobs_env),  cmocka_unit_test(test_fixed_keys),
      cmocka_unit_test(test_sweep_keys),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
