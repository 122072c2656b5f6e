/* test_tuner.c - the tuner end to end through the public API on the sim node: a fixed config in
 * force in every region and back after each pop, a model's configs nested per region with the
 * parent's values back after each pop, regions shorter than ERGO_MIN_REGION_MS (or deeper than
 * the energy level) never switched, sweep and online measuring energy per region into the model
 * and the JSON report, and the machine's own values back at ergo_finalize. */
#include "test_util.h"

#include "sim/model.h"
#include "sim/node.h"

#include <ergo_sim.h>

#include <jansson.h>
#include <math.h>

static char model_path[512], json_path[512];

static ergo_config sim_config(const char *policy) {
  ergo_config c = test_config();
  c.clock = NULL; /* the sim node's virtual clock */
  c.platform = "sim";
  c.energy = "auto"; /* the sim meter */
  c.knobs = "auto";  /* the sim knobs */
  c.policy = policy;
  c.objective = "energy";
  c.model = model_path;
  return c;
}

static int setup(void **state) {
  int rc = test_dir_setup(state);
  snprintf(model_path, sizeof model_path, "%s", test_in_dir("model.json"));
  snprintf(json_path, sizeof json_path, "%s", test_in_dir("report.json"));
  return rc;
}

/* About 0.24 s at the baseline: significant.  About 0.25 ms: not (ERGO_MIN_REGION_MS=100). */
static const ergo_sim_work_desc big = {8, 0.2, 0.01}, small = {0.01, 0, 0};

static ergo_setting now(void) {
  ergo_setting s;
  assert_int_equal(ergo_setting_current(&s), 0);
  return s;
}
/* The setting `s` is core/uncore/threads (a variadic macro, so that BASE can stand for all
 * three); the caller's line is said on failure. */
static void setting_is(ergo_setting s, long core, long uncore, int thr, int line) {
  if (s.core_khz != core || s.uncore_khz != uncore || s.threads != thr)
    print_message("line %d: setting %ld/%ld/%d, expected %ld/%ld/%d\n", line, s.core_khz,
                  s.uncore_khz, s.threads, core, uncore, thr);
  assert_int_equal(s.core_khz, core);
  assert_int_equal(s.uncore_khz, uncore);
  assert_int_equal(s.threads, thr);
}
#define assert_setting(...) setting_is(__VA_ARGS__, __LINE__)

/* The untuned node: maximum frequencies, all 20 cores. */
#define BASE 2000000, 2400000, 20

/* The sim node's knob values are the machine's: after ergo_finalize they must be its own again
 * (the node keeps them until the next start). */
static void assert_node_untuned(const ergo__sim_node *n) {
  assert_true(n->cfg.f_ghz == n->initial.f_ghz);
  assert_true(n->cfg.u_ghz == n->initial.u_ghz);
  assert_int_equal(n->cfg.threads, n->initial.threads);
  assert_true(n->initial.f_ghz == 2.0 && n->initial.u_ghz == 2.4 && n->initial.threads == 20);
}

/* fixed: the config is in force from ergo_init, inside every region (a significant one runs its
 * work under it: the model's time for it, exactly), after every pop; a setting pushed inside
 * changes what it names and goes; ergo_finalize gives the node its own values back. */
static void test_fixed(void **state) {
  (void)state;
  ergo_config c = sim_config("fixed");
  c.fixed = "cpu=1500000,uncore=1800000,threads=8";
  assert_int_equal(ergo_init(&c), 0);
  ergo__sim_node *node = ergo__sim();
  assert_non_null(node);
  assert_setting(now(), 1500000, 1800000, 8);
  for (int step = 1; step <= 3; step++) {
    uint64_t t0 = ergo_now_ns();
    ERGO_PUSH(1, "compute");
    assert_setting(now(), 1500000, 1800000, 8);
    assert_int_equal(ergo_sim_work(&big), 0);
    ergo_setting four = {.threads = 4};
    assert_int_equal(ergo_setting_push(&four), 0);
    assert_setting(now(), 1500000, 1800000, 4);
    assert_int_equal(ergo_setting_pop(), 0);
    assert_setting(now(), 1500000, 1800000, 8);
    ERGO_POP(1, "compute");
    assert_setting(now(), 1500000, 1800000, 8);
    /* The region's time is the model's for the fixed config (GHz from kHz as the knobs
     * convert them). */
    ergo__sim_config cfg = {1500000 * 1e-6, 1800000 * 1e-6, 8};
    ergo__sim_work w = {big.gcycles, big.gbytes, big.serial};
    ergo__sim_result r;
    ergo__sim_eval(&node->p, &w, &cfg, &r);
    assert_int_equal(ergo_now_ns() - t0, (uint64_t)llround(r.time_s * 1e9));
    assert_int_equal(ergo_step(step), 0);
  }
  assert_int_equal(ergo__sim_khz(node->cfg.f_ghz), 1500000);
  assert_int_equal(ergo__sim_khz(node->cfg.u_ghz), 1800000);
  assert_int_equal(node->cfg.threads, 8);
  ERGO_PUSH(1, "open at finalize");
  assert_int_equal(ergo_finalize(), 0);
  assert_node_untuned(node);
}

static void write_model(const char *text) {
  FILE *f = fopen(model_path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

/* What one step saw. */
typedef struct seen {
  ergo_setting outer, inner, after_inner, tiny, after_tiny, deep, after_outer;
} seen;

/* outer (level 1) { its own work; inner (2) { work }; tiny (2) { a little work }; deep (3)
 * { work } }, each with a config in the model. */
static seen model_step(long step) {
  seen s;
  ERGO_PUSH(1, "outer");
  s.outer = now();
  assert_int_equal(ergo_sim_work(&big), 0);
  ERGO_PUSH(2, "inner");
  s.inner = now();
  assert_int_equal(ergo_sim_work(&big), 0);
  ERGO_POP(2, "inner");
  s.after_inner = now();
  ERGO_PUSH(2, "tiny");
  s.tiny = now();
  assert_int_equal(ergo_sim_work(&small), 0);
  ERGO_POP(2, "tiny");
  s.after_tiny = now();
  ERGO_PUSH(3, "deep");
  s.deep = now();
  assert_int_equal(ergo_sim_work(&big), 0);
  ERGO_POP(3, "deep");
  ERGO_POP(1, "outer");
  s.after_outer = now();
  assert_int_equal(ergo_step(step), 0);
  return s;
}

static const char nested_model[] =
    "{\"format\":\"ergo-model\",\"version\":1,\"policy\":\"test\",\"objective\":\"energy\","
    "\"regions\":{"
    "\"Global/outer\":{\"config\":{\"core_khz\":1600000}},"
    "\"Global/outer/inner\":{\"config\":{\"uncore_khz\":1500000,\"threads\":4}},"
    "\"Global/outer/tiny\":{\"config\":{\"core_khz\":1000000,\"threads\":2}},"
    "\"Global/outer/deep\":{\"config\":{\"core_khz\":1200000}}}}";

/* A model's configs nest per region: inner adds its fields to outer's, the parent's values come
 * back after each pop.  The first execution of each region decides whether it is significant
 * and runs untuned.  tiny (0.3 ms < 100 ms) is never switched; deep (level 3, below the energy
 * level 2: not measured) neither. */
static void test_nested_and_short(void **state) {
  (void)state;
  write_model(nested_model);
  ergo_config c = sim_config("static");
  assert_int_equal(ergo_init(&c), 0);
  ergo__sim_node *node = ergo__sim();
  assert_non_null(node);
  assert_setting(now(), BASE);
  seen s = model_step(1);
  assert_setting(s.outer, BASE);
  assert_setting(s.inner, BASE);
  assert_setting(s.tiny, BASE);
  assert_setting(s.after_outer, BASE);
  for (long step = 2; step <= 6; step++) {
    s = model_step(step);
    assert_setting(s.outer, 1600000, 2400000, 20);
    assert_setting(s.inner, 1600000, 1500000, 4);
    assert_setting(s.after_inner, 1600000, 2400000, 20);
    assert_setting(s.tiny, 1600000, 2400000, 20); /* outer's: never its own */
    assert_setting(s.after_tiny, 1600000, 2400000, 20);
    assert_setting(s.deep, 1600000, 2400000, 20);
    assert_setting(s.after_outer, BASE);
  }
  /* Left inside inner at the end: ergo_finalize closes it and restores the node. */
  ERGO_PUSH(1, "outer");
  ERGO_PUSH(2, "inner");
  assert_setting(now(), 1600000, 1500000, 4);
  assert_true(node->cfg.threads == 4);
  assert_int_equal(ergo_finalize(), 0);
  assert_node_untuned(node);

  /* The same regions with ERGO_MIN_REGION_MS=0.1: tiny (0.31 ms at outer's 1.6 GHz, 0.25 ms
   * untuned) is significant now and runs its own config. */
  c.min_region_ms = 0.1;
  assert_int_equal(ergo_init(&c), 0);
  model_step(1);
  for (long step = 2; step <= 3; step++) {
    s = model_step(step);
    assert_setting(s.tiny, 1000000, 2400000, 2);
    assert_setting(s.after_tiny, 1600000, 2400000, 20);
    assert_setting(s.deep, 1600000, 2400000, 20); /* still below the energy level */
  }
}

/* The energy of a region in the JSON report: its total and per-domain amounts. */
static json_t *report_region(json_t *doc, const char *name) {
  json_t *tree = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  json_t *kids = json_object_get(tree, "children"), *k;
  size_t i;
  json_array_foreach(kids, i,
                     k) if (!strcmp(json_string_value(json_object_get(k, "name")), name)) return k;
  return NULL;
}

/* sweep and online: the tuner switches the region between configs, measures each execution's
 * energy, and writes the model at ergo_finalize with every config it measured and its energy;
 * the JSON report has the region's energy per domain; the node's values come back at finalize
 * even from inside a region and under a setting left pushed. */
static void tune_and_check(const char *policy, int steps) {
  ergo_config c = sim_config(policy);
  c.report_json = json_path;
  c.sweep = "cpu=1000000,2000000,threads=10,20;repeats=1";
  assert_int_equal(ergo_init(&c), 0);
  ergo__sim_node *node = ergo__sim();
  assert_non_null(node);
  ergo_setting distinct[64];
  int ndistinct = 0;
  for (long step = 1; step <= steps; step++) {
    ERGO_PUSH(1, "compute");
    ergo_setting s = now();
    int known = 0;
    for (int i = 0; i < ndistinct; i++) known |= !memcmp(&distinct[i], &s, sizeof s);
    if (!known && ndistinct < 64) distinct[ndistinct++] = s;
    assert_int_equal(ergo_sim_work(&big), 0);
    ERGO_POP(1, "compute");
    assert_setting(now(), BASE); /* Global's: untuned */
    assert_int_equal(ergo_step(step), 0);
  }
  if (ndistinct < 3) print_message("%s ran compute under %d setting(s)\n", policy, ndistinct);
  assert_true(ndistinct >= 3); /* it tuned: the baseline and at least two others */
  ERGO_PUSH(1, "compute");
  ergo_setting three = {.threads = 3};
  assert_int_equal(ergo_setting_push(&three), 0);
  assert_int_equal(node->cfg.threads, 3);
  unsigned long errors = ergo_error_count();
  assert_int_equal(ergo_finalize(), 0);
  assert_node_untuned(node);
  /* One line for the region left open, and nothing else (no "did not finish"). */
  assert_int_equal(ergo_error_count(), errors + 1);

  json_error_t err;
  json_t *model = json_load_file(model_path, 0, &err);
  if (!model) print_message("%s: %s\n", model_path, err.text);
  assert_non_null(model);
  assert_string_equal(json_string_value(json_object_get(model, "format")), "ergo-model");
  assert_string_equal(json_string_value(json_object_get(model, "policy")), policy);
  json_t *r = json_object_get(json_object_get(model, "regions"), "Global/compute");
  assert_non_null(r);
  json_t *base = json_object_get(r, "baseline");
  assert_true(json_number_value(json_object_get(base, "energy_j")) > 0);
  assert_true(json_number_value(json_object_get(base, "time_s")) > 0);
  json_t *pts = json_object_get(r, "points"), *p;
  assert_true(json_array_size(pts) >= 2);
  size_t i;
  json_array_foreach(pts, i, p) {
    assert_true(json_number_value(json_object_get(p, "energy_j")) > 0);
    assert_true(json_number_value(json_object_get(p, "time_s")) > 0);
    assert_true(json_integer_value(json_object_get(p, "n")) >= 1);
  }
  json_decref(model);

  json_t *doc = json_load_file(json_path, 0, &err);
  assert_non_null(doc);
  json_t *e = json_object_get(report_region(doc, "compute"), "energy");
  assert_non_null(e);
  assert_string_equal(json_string_value(json_object_get(e, "unit")), "J");
  json_t *comp = json_object_get(e, "components");
  double pkg = json_number_value(json_object_get(comp, "package-0"));
  double core = json_number_value(json_object_get(comp, "core-0"));
  double dram = json_number_value(json_object_get(comp, "dram-0"));
  assert_true(pkg > 0 && core > 0 && core < pkg && dram > 0);
  double total = json_number_value(json_object_get(e, "total"));
  assert_true(fabs(total - (pkg + dram)) <= 1e-9 * total); /* core is part of the package */
  json_decref(doc);
}

static void test_sweep(void **state) {
  (void)state;
  tune_and_check("sweep", 40);
}
static void test_online(void **state) {
  (void)state;
  tune_and_check("online", 60);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fixed, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_nested_and_short, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_sweep, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_online, setup, test_dir_teardown),
  };
  return cmocka_run_group_tests_name("tuner", tests, NULL, NULL);
}
