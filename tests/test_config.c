/* test_config.c - the configuration spec: ERGO_* environment parsing, the check of a caller's
 * ergo_config (every field, and its size), and unknown ERGO_* variables. */
#include "test_util.h"

#include "internal.h"
#include "runtime/config.h"

#include <math.h>

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
  unsigned long before = ergo_warning_count();
  assert_int_equal(ergo_config_from_env(&c), 0); /* not an error: it changes nothing */
  assert_int_equal(ergo_warning_count(), before + 1);
  assert_string_equal(ergo_last_error(), "ERGO_POLCY: unknown variable; did you mean ERGO_POLICY?");
  assert_string_equal(c.policy, "monitor");
  assert_int_equal(ergo_config_from_env(&c), 0);
  setenv("ERGO_REPORT", "none", 1);
  setenv("ERGO_ENERGY", "none", 1);
  setenv("ERGO_KNOBS", "none", 1);
  assert_int_equal(ergo_init(NULL), 0);
  assert_int_equal(ergo_warning_count(), 0); /* ergo_init reset the count: nothing said again */
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
  assert_string_equal(ergo_last_error(), "ergo_config.balance_level=-3 is not valid: expected an "
                                         "integer from 0 to 1000");
  c = test_config();
  c.report_level = -2;
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
}

/* ---- a caller's ergo_config: every field checked, the line names it ---- */

#define BAD(f, v)                                                                                  \
  static void bad_##f(ergo_config *c) { c->f = (v); }
BAD(report_level, -2)
BAD(balance_level, 1001)
BAD(on_error, (ergo_on_error)7)
BAD(format, (ergo_report_format)3)
BAD(report_threads, 2)
BAD(report, "")
BAD(report_json, "")
BAD(report_hatchet, "")
BAD(report_csv, "")
BAD(step_report, "")
BAD(balance, "")
BAD(clock_kind, (ergo_clock_kind)3)
BAD(energy, "bogus")
BAD(energy_level, -1)
BAD(sample_ms, 3600001)
BAD(power_csv, "")
BAD(trace, "")
BAD(knobs, "cpufreq,nonsense")
BAD(platform, "gpu")
BAD(sim_node, "")
BAD(sim_noise, 1.5)
BAD(policy, "bogus")
BAD(objective, "joules")
BAD(model, "")
BAD(fixed, "cpu=fast")
BAD(sweep, "gpu=1")
BAD(min_region_ms, -1)
BAD(report_ranks, 2)
BAD(node_split, 4097)
BAD(threads_max, -1)

/* One bad value per field of ergo_config (a new field needs a row in runtime/config_spec.c and a
 * line here).  sim_seed has none: every unsigned long long is a seed; clock and clock_ctx are
 * the caller's to choose. */
static const struct {
  const char *field;
  void (*set)(ergo_config *);
  const char *line;
} bad_fields[] = {
    {"report_level", bad_report_level,
     "ergo_config.report_level=-2 is not valid: expected an integer from 0 to 1000 or -1 (all)"},
    {"balance_level", bad_balance_level,
     "ergo_config.balance_level=1001 is not valid: expected an integer from 0 to 1000"},
    {"on_error", bad_on_error,
     "ergo_config.on_error=7 is not valid: expected ERGO_ON_ERROR_WARN or ERGO_ON_ERROR_ABORT"},
    {"format", bad_format,
     "ergo_config.format=3 is not valid: expected ERGO_FORMAT_PAPER or ERGO_FORMAT_WIDE"},
    {"report_threads", bad_report_threads,
     "ergo_config.report_threads=2 is not valid: expected 0 or 1"},
    {"report", bad_report,
     "ergo_config.report='' is not valid: expected stdout, stderr, none or a file path"},
    {"report_json", bad_report_json,
     "ergo_config.report_json='' is not valid: expected a file path"},
    {"report_hatchet", bad_report_hatchet,
     "ergo_config.report_hatchet='' is not valid: expected a file path"},
    {"report_csv", bad_report_csv, "ergo_config.report_csv='' is not valid: expected a file path"},
    {"step_report", bad_step_report,
     "ergo_config.step_report='' is not valid: expected none or a file path"},
    {"balance", bad_balance, "ergo_config.balance='' is not valid: expected none or a file path"},
    {"clock_kind", bad_clock_kind,
     "ergo_config.clock_kind=3 is not valid: expected ERGO_CLOCK_AUTO, ERGO_CLOCK_TSC or "
     "ERGO_CLOCK_MONOTONIC"},
    {"energy", bad_energy,
     "ergo_config.energy='bogus' is not valid: expected auto|powercap|perf|papi|estimate|none"},
    {"energy_level", bad_energy_level,
     "ergo_config.energy_level=-1 is not valid: expected an integer from 0 to 1000"},
    {"sample_ms", bad_sample_ms,
     "ergo_config.sample_ms=3600001 is not valid: expected milliseconds from 0 (off) to 3600000"},
    {"power_csv", bad_power_csv, "ergo_config.power_csv='' is not valid: expected a file path"},
    {"trace", bad_trace, "ergo_config.trace='' is not valid: expected a file path"},
    {"knobs", bad_knobs,
     "ergo_config.knobs='cpufreq,nonsense' is not valid: 'nonsense' is no knob: expected auto, "
     "none, or a comma list of cpufreq, uncore, threads"},
    {"platform", bad_platform, "ergo_config.platform='gpu' is not valid: expected real|sim|auto"},
    {"sim_node", bad_sim_node, "ergo_config.sim_node='' is not valid: expected a file path"},
    {"sim_noise", bad_sim_noise,
     "ergo_config.sim_noise=1.5 is not valid: expected a log-normal sigma from 0 to 1 (0.05 is "
     "harsh)"},
    {"policy", bad_policy,
     "ergo_config.policy='bogus' is not valid: expected monitor|fixed|static|sweep|online"},
    {"objective", bad_objective,
     "ergo_config.objective='joules' is not valid: expected energy, time, edp, ed2p, "
     "weighted[:t=W,e=W,r=W] (weights >= 0, not all 0) or energy@N% (N from 0 to 1000)"},
    {"model", bad_model, "ergo_config.model='' is not valid: expected a file path"},
    {"fixed", bad_fixed,
     "ergo_config.fixed='cpu=fast' is not valid at 'cpu=fast': expected cpu=KHZ, uncore=KHZ, "
     "threads=N separated by commas"},
    {"sweep", bad_sweep,
     "ergo_config.sweep='gpu=1' is not valid: 'gpu=1' names no knob or option; expected "
     "KNOB=V,V,... with KNOB cpu or uncore (kHz) or threads and V a positive integer or "
     "FROM:TO:STEP, and options repeats=N (1 to 100) and budget=N (10 to 100000), separated by "
     "',' or ';'"},
    {"min_region_ms", bad_min_region_ms,
     "ergo_config.min_region_ms=-1 is not valid: expected milliseconds from 0 to 3600000"},
    {"report_ranks", bad_report_ranks, "ergo_config.report_ranks=2 is not valid: expected 0 or 1"},
    {"node_split", bad_node_split,
     "ergo_config.node_split=4097 is not valid: expected pretend nodes per node from 1 to 4096 "
     "(0 is 1)"},
    {"threads_max", bad_threads_max,
     "ergo_config.threads_max=-1 is not valid: expected a thread count from 1 to 4096 (0 is the "
     "count at ergo_init)"},
};

static void test_every_field_checked(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof bad_fields / sizeof *bad_fields; i++) {
    ergo_config c = test_config();
    bad_fields[i].set(&c);
    unsigned long before = ergo_warning_count();
    print_message("ergo_config.%s\n", bad_fields[i].field);
    assert_int_equal(ergo_init(&c), ERGO_EINVAL);
    assert_int_equal(ergo_initialized(), 0);
    assert_int_equal(ergo_warning_count(), before + 1); /* one line, this field's */
    assert_string_equal(ergo_last_error(), bad_fields[i].line);
  }
  /* every row with a field has its line above */
  for (int r = 0; r < ergo__config_nspec; r++) {
    const char *name = ergo__config_spec[r].name;
    int found = !name || strcmp(name, "sim_seed") == 0;
    for (size_t i = 0; i < sizeof bad_fields / sizeof *bad_fields && !found; i++)
      found = strcmp(bad_fields[i].field, name) == 0;
    if (!found) fail_msg("ergo_config.%s has no bad value in bad_fields[]", name);
  }
  /* NaN is no sigma; NULL strings mean their defaults; two bad fields are two lines */
  ergo_config c = test_config();
  c.sim_noise = NAN;
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
  assert_string_equal(ergo_last_error(), "ergo_config.sim_noise=nan is not valid: expected a "
                                         "log-normal sigma from 0 to 1 (0.05 is harsh)");
  c = test_config();
  c.energy = c.knobs = c.platform = c.policy = c.objective = c.fixed = c.sweep = NULL;
  c.energy = "none";
  c.knobs = "none";
  assert_int_equal(ergo_init(&c), 0);
  ergo_finalize();
  c = test_config();
  c.policy = "bogus";
  c.energy = "sim"; /* the sim platform's own meter, not one to name */
  unsigned long before = ergo_warning_count();
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
  assert_int_equal(ergo_warning_count(), before + 2);
}

/* Good values of the struct are the variables' good values. */
static void test_struct_good_values(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.report_level = 1000;
  c.clock_kind = ERGO_CLOCK_MONOTONIC;
  c.policy = "online";
  c.objective = "weighted:t=1,e=2";
  c.fixed = "cpu=1800000,threads=8";
  c.sweep = "cpu=1000000:2000000:500000;repeats=2";
  c.knobs = "none";
  c.node_split = 0; /* 0 is 1 */
  c.sim_seed = ~0ull;
  assert_int_equal(ergo_init(&c), 0);
  ergo_finalize();
}

/* ---- the size: set by ergo_config_default, checked first ---- */

static void test_size(void **state) {
  (void)state;
  ergo_config c;
  ergo_config_default(&c);
  assert_int_equal(c.size, sizeof(ergo_config));
  memset(&c, 0xab, sizeof c);
  (ergo_config_default)(&c); /* the exported function, for bindings */
  assert_int_equal(c.size, sizeof(ergo_config));
  /* zero: not from ergo_config_default */
  c = test_config();
  c.size = 0;
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
  assert_int_equal(ergo_initialized(), 0);
  char want[512];
  snprintf(want, sizeof want,
           "ergo_config.size=0 is not valid: expected %zu or %zu (sizeof(ergo_config) in ergo.h "
           "%s); start from ergo_config_default(&cfg), which sets it",
           sizeof(ergo_config), offsetof(ergo_config, threads_max), ERGO_VERSION_STRING);
  assert_string_equal(ergo_last_error(), want);
  /* the layout before threads_max: accepted, threads_max takes its default (0) */
  c = test_config();
  c.size = offsetof(ergo_config, threads_max);
  c.threads_max = -1; /* beyond the caller's struct: never read */
  assert_int_equal(ergo_init(&c), 0);
  assert_int_equal(ergo__core_config()->threads_max, 0);
  ergo_finalize();
  /* unknown: another header's struct */
  c.size = sizeof c + 8;
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
  assert_non_null(strstr(ergo_last_error(), "is not valid: expected"));
  assert_non_null(strstr(ergo_last_error(), "the caller was built with another ergo.h"));
  assert_int_equal(ergo_config_from_env(&c), ERGO_EINVAL);
  assert_non_null(strstr(ergo_last_error(), "ergo_config_from_env: ergo_config.size="));
  /* a smaller size is written no further than it says */
  unsigned char buf[sizeof(ergo_config) + 16];
  memset(buf, 0xab, sizeof buf);
  size_t part = offsetof(ergo_config, report_threads);
  ergo_config_default_size((ergo_config *)buf, part);
  assert_int_equal(((ergo_config *)buf)->size, part);
  assert_int_equal(((ergo_config *)buf)->balance_level, 2);
  for (size_t i = part; i < sizeof buf; i++) assert_int_equal(buf[i], 0xab);
  /* a larger one (a newer header) is zeroed beyond this library's fields, then refused */
  ergo_config_default_size((ergo_config *)buf, sizeof buf);
  assert_int_equal(((ergo_config *)buf)->size, sizeof buf);
  for (size_t i = sizeof(ergo_config); i < sizeof buf; i++) assert_int_equal(buf[i], 0);
  assert_int_equal(ergo_init((ergo_config *)buf), ERGO_EINVAL);
}

/* ---- the spec itself ---- */

/* Every default is its own parser's word, the defaults pass the check, and the environment
 * rejects what the struct rejects with the same reason. */
static void test_spec_consistent(void **state) {
  (void)state;
  ergo_config d;
  ergo_config_default(&d);
  assert_int_equal(ergo__config_check(&d), 0);
  for (int i = 0; i < ergo__config_nspec; i++) {
    const ergo__config_row *r = &ergo__config_spec[i];
    assert_non_null(r->var);
    assert_non_null(r->help);
    assert_null(strchr(r->help, '\n'));
    assert_int_equal(strncmp(r->var, "ERGO_", 5), 0);
    for (int j = 0; j < i; j++) assert_string_not_equal(ergo__config_spec[j].var, r->var);
    if (!r->name) {
      assert_non_null(r->reader); /* read elsewhere: the file says where */
      continue;
    }
    assert_non_null(r->parse);
    assert_non_null(r->check);
    assert_non_null(r->show);
    _Alignas(max_align_t) char field[64];
    char why[1024] = "";
    if (r->def) assert_int_equal(r->parse(r, r->def, field, why, sizeof why), 0);
  }
}

/* The environment's lines for the values the struct refuses (policy, energy, knobs too). */
static void test_env_rejects_the_same(void **state) {
  (void)state;
  static const struct {
    const char *var, *value, *line;
  } bad[] = {
      {"ERGO_POLICY", "bogus",
       "ERGO_POLICY='bogus' is not valid: expected monitor|fixed|static|sweep|online; keeping "
       "monitor"},
      {"ERGO_ENERGY", "bogus",
       "ERGO_ENERGY='bogus' is not valid: expected auto|powercap|perf|papi|estimate|none; keeping "
       "auto"},
      {"ERGO_KNOBS", "cpufreq,nonsense",
       "ERGO_KNOBS='cpufreq,nonsense' is not valid: 'nonsense' is no knob: expected auto, none, or "
       "a comma list of cpufreq, uncore, threads; keeping auto"},
      {"ERGO_CLOCK", "fast",
       "ERGO_CLOCK='fast' is not valid: expected auto|tsc|monotonic; keeping auto"},
      {"ERGO_PLATFORM", "gpu",
       "ERGO_PLATFORM='gpu' is not valid: expected real|sim|auto; keeping real"},
      {"ERGO_SWEEP", "gpu=1",
       "ERGO_SWEEP='gpu=1' is not valid: 'gpu=1' names no knob or option; expected KNOB=V,V,... "
       "with KNOB cpu or uncore (kHz) or threads and V a positive integer or FROM:TO:STEP, and "
       "options repeats=N (1 to 100) and budget=N (10 to 100000), separated by ',' or ';'; "
       "keeping the default schedule"},
      {"ERGO_SAMPLE_MS", "-1",
       "ERGO_SAMPLE_MS='-1' is not valid: expected milliseconds from 0 (off) to 3600000; keeping "
       "100"},
      {"ERGO_SIM_NOISE", "2",
       "ERGO_SIM_NOISE='2' is not valid: expected a log-normal sigma from 0 to 1 (0.05 is harsh); "
       "keeping 0"},
      {"ERGO_SIM_SEED", "-3",
       "ERGO_SIM_SEED='-3' is not valid: expected a non-negative integer; keeping 1"},
      {"ERGO_NODE_SPLIT", "4097",
       "ERGO_NODE_SPLIT='4097' is not valid: expected pretend nodes per node from 1 to 4096 (0 is "
       "1); keeping 1"},
      {"ERGO_REPORT_RANKS", "yes", "ERGO_REPORT_RANKS='yes' is not valid: expected 0|1; keeping 0"},
      {"ERGO_MODEL", "",
       "ERGO_MODEL is set but empty: expected a file path (unset it to use the default)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ergo_config c, d;
    ergo_config_default(&c);
    d = c;
    setenv(bad[i].var, bad[i].value, 1);
    unsigned long before = ergo_warning_count();
    assert_int_equal(ergo_config_from_env(&c), ERGO_EINVAL);
    assert_int_equal(ergo_warning_count(), before + 1);
    assert_string_equal(ergo_last_error(), bad[i].line);
    assert_memory_equal(&c, &d, sizeof c); /* the default kept */
    unsetenv(bad[i].var);
  }
}

/* ergo_init(NULL) with a policy that does not exist: one line, and the run goes on as monitor. */
static void test_init_env_bad_policy_runs_monitor(void **state) {
  (void)state;
  setenv("ERGO_POLICY", "bogus", 1);
  setenv("ERGO_REPORT", "none", 1);
  setenv("ERGO_ENERGY", "none", 1);
  setenv("ERGO_KNOBS", "none", 1);
  assert_int_equal(ergo_init(NULL), 0);
  assert_string_equal(ergo__g.cfg.policy, "monitor");
  ergo_finalize();
}

/* A report on the tuning model's file (or two reports on one file) would destroy the other:
 * ergo_init(&cfg) refuses it in one line; paths are compared as files (./x and x are one). */
static void test_same_file_refused(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.policy = "online";
  c.model = test_in_dir("x.json");
  char rep[600];
  snprintf(rep, sizeof rep, "%s/./x.json", test_dir);
  c.report_json = rep;
  unsigned long w = ergo_warning_count();
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
  assert_int_equal(ergo_warning_count(), w + 1);
  assert_non_null(strstr(ergo_last_error(), "ergo_config.report_json='"));
  assert_non_null(strstr(ergo_last_error(), "is the same file as ergo_config.model='"));
  assert_non_null(strstr(ergo_last_error(), "ergo_init refuses it (fix: give each its own path)"));
  assert_int_equal(ergo_initialized(), 0);
  /* Two reports on one file: refused too. */
  c = test_config();
  c.report_csv = test_in_dir("r.out");
  c.report_hatchet = test_in_dir("r.out");
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
  assert_non_null(strstr(ergo_last_error(), "ergo_config.report_csv='"));
  /* Under monitor the model is not used: a report may have its name. */
  c = test_config();
  c.model = test_in_dir("x.json");
  c.report_json = test_in_dir("x.json");
  test_init(&c);
  ergo_finalize();
}

/* From the environment the report is dropped with a warning, so the model survives. */
static void test_same_file_env_dropped(void **state) {
  (void)state;
  assert_int_equal(clear_env(NULL), 0);
  setenv("ERGO_POLICY", "sweep", 1);
  setenv("ERGO_MODEL", test_in_dir("m.json"), 1);
  setenv("ERGO_REPORT_JSON", test_in_dir("m.json"), 1);
  setenv("ERGO_REPORT_CSV", test_in_dir("r.csv"), 1);
  ergo_config c;
  ergo_config_default(&c);
  unsigned long w = ergo_warning_count();
  assert_int_equal(ergo_config_from_env(&c), 0);
  assert_int_equal(ergo_warning_count(), w + 1);
  assert_null(c.report_json);
  assert_string_equal(c.report_csv, test_in_dir("r.csv"));
  assert_non_null(strstr(ergo_last_error(), "ERGO_REPORT_JSON='"));
  assert_non_null(strstr(ergo_last_error(), "is the same file as ERGO_MODEL='"));
  assert_non_null(strstr(ergo_last_error(), "ERGO_REPORT_JSON is dropped so that file is not "
                                            "overwritten (fix: give each its own path)"));
  assert_int_equal(clear_env(NULL), 0);
}

/* An output that cannot be written is said at ergo_init, naming the field, the path and the fix;
 * the run goes on, and the report goes to the fallback in $TMPDIR at finalize. */
static void test_unwritable_said_at_init(void **state) {
  (void)state;
  assert_int_equal(clear_env(NULL), 0);
  ergo_config c = test_config();
  c.report_csv = "/nonexistent-dir/r.csv";
  c.report_hatchet = test_dir; /* a directory */
  setenv("TMPDIR", test_dir, 1);
  test_init(&c);
  assert_int_equal(ergo_warning_count(), 2);
  assert_string_equal(ergo_last_error(),
                      "ergo_config.report_csv='/nonexistent-dir/r.csv' cannot be written: "
                      "directory '/nonexistent-dir' does not exist; the run goes on (fix: create "
                      "the directory or set ergo_config.report_csv to a writable path)");
  region_ms(1, "A", 1);
  assert_int_equal(ergo_finalize(), ERGO_EIO);
  unsetenv("TMPDIR");
  char fb[600];
  snprintf(fb, sizeof fb, "%s/ergo-%ld-r.csv", test_dir, (long)getpid());
  char *text = slurp(fb);
  assert_non_null(text);
  assert_non_null(strstr(text, "Global"));
  free(text);
  unlink(fb);
  snprintf(fb, sizeof fb, "%s/ergo-%ld-%s", test_dir, (long)getpid(), strrchr(test_dir, '/') + 1);
  assert_int_equal(unlink(fb), 0); /* the Hatchet JSON's fallback */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* first: the only test that sees this process's first reading of the environment */
      cmocka_unit_test_setup(test_unknown_variable_once, clear_env),
      cmocka_unit_test_setup(test_unknown_variables, clear_env),
      ERGO_DIR_TEST(test_same_file_refused),
      ERGO_DIR_TEST(test_same_file_env_dropped),
      ERGO_DIR_TEST(test_unwritable_said_at_init),
      cmocka_unit_test_setup(test_defaults, clear_env),
      cmocka_unit_test_setup(test_good_values, clear_env),
      cmocka_unit_test_setup(test_bad_values_named, clear_env),
      cmocka_unit_test_setup(test_init_env_bad_value_uses_default, clear_env),
      cmocka_unit_test_setup(test_init_struct_bad_value, clear_env),
      cmocka_unit_test_setup(test_every_field_checked, clear_env),
      cmocka_unit_test_setup(test_struct_good_values, clear_env),
      cmocka_unit_test_setup(test_size, clear_env),
      cmocka_unit_test_setup(test_spec_consistent, clear_env),
      cmocka_unit_test_setup(test_env_rejects_the_same, clear_env),
      cmocka_unit_test_setup(test_init_env_bad_policy_runs_monitor, clear_env),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
