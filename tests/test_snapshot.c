/* test_snapshot.c - the live view (ergo_snapshot_*) through the public API on the sim node:
 * nothing is published unless asked, a snapshot is a consistent copy that outlives later steps,
 * its JSON parts, a change of objective checked at once and in force from the next step, and a
 * reader thread taking snapshots while the main thread steps. */
#include "test_util.h"

#include <ergo_sim.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>

static char model_path[512];

static ergo_config sim_config(const char *policy) {
  ergo_config c = test_config();
  c.clock = NULL; /* the sim node's virtual clock */
  c.platform = "sim";
  c.energy = "auto";
  c.knobs = "auto";
  c.policy = policy;
  c.objective = "energy";
  c.model = model_path;
  return c;
}

static int setup(void **state) {
  int rc = test_dir_setup(state);
  snprintf(model_path, sizeof model_path, "%s", test_in_dir("model.json"));
  return rc;
}

/* About 0.24 s at the baseline: a significant region. */
static const ergo_sim_work_desc big = {8, 0.2, 0.01};

static void one_step(long n) {
  ERGO_PUSH(0, "Timestep");
  ERGO_PUSH(1, "compute");
  assert_int_equal(ergo_sim_work(&big), 0);
  ERGO_POP(1, "compute");
  ERGO_POP(0, "Timestep");
  assert_int_equal(ergo_step(n), 0);
}

static json_t *part(const ergo_snapshot *s, const char *name) {
  char *text = ergo_snapshot_json(s, name);
  assert_non_null(text);
  json_error_t err;
  json_t *j = json_loads(text, 0, &err);
  free(text);
  assert_non_null(j);
  return j;
}

static const ergo_snapshot_region *region(const ergo_snapshot *s, const char *path) {
  const ergo_snapshot_region *r;
  size_t n = ergo_snapshot_regions(s, &r);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(r[i].path, path)) return &r[i];
  return NULL;
}

/* Before ergo_init and without ERGO_DASHBOARD or ergo_snapshot_enable: nothing, and no change. */
static void test_off_unless_asked(void **state) {
  (void)state;
  assert_int_equal(ergo_snapshot_enable(), ERGO_ESTATE);
  ergo_config c = sim_config("online");
  assert_int_equal(ergo_init(&c), 0);
  one_step(1);
  assert_null(ergo_snapshot_acquire());
  char why[256];
  assert_int_equal(ergo_snapshot_control(NULL, "time", why, sizeof why), ERGO_ESTATE);
  assert_non_null(strstr(why, "ergo_snapshot_enable"));
  assert_int_equal(ergo_finalize(), 0);
}

/* Totals, the tuner's view, the timeline and the node; an old snapshot outlives later steps. */
static void test_regions_timeline_nodes(void **state) {
  (void)state;
  ergo_config c = sim_config("online");
  assert_int_equal(ergo_init(&c), 0);
  assert_int_equal(ergo_snapshot_enable(), 0);
  assert_int_equal(ergo_snapshot_enable(), 0); /* twice is once */
  for (long n = 1; n <= 3; n++) one_step(n);
  const ergo_snapshot *s3 = ergo_snapshot_acquire();
  assert_non_null(s3);
  double run_s = 0;
  assert_int_equal(ergo_snapshot_step(s3, &run_s), 3);
  assert_true(run_s > 0.5);
  const ergo_snapshot_region *r = region(s3, "Global/Timestep/compute"), *g = region(s3, "Global");
  assert_non_null(r);
  assert_non_null(g);
  assert_int_equal(r->calls, 3);
  assert_int_equal(r->depth, 2);
  assert_true(r->energy_j > 0 && r->power_w > 0);
  assert_true(g->energy_j >= r->energy_j);
  assert_true(r->tuned);
  assert_int_equal(r->executions, 3);
  assert_true(r->has_setting && r->has_best);
  assert_int_equal(r->budget, 40);
  assert_true(r->evals > 0 && r->evals <= 3);
  const ergo_snapshot_point *p;
  assert_int_equal(ergo_snapshot_timeline(s3, &p), 3);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(p[i].step, i + 1);
    assert_true(p[i].time_s > 0 && p[i].energy_j > 0 && p[i].power_w > 0);
  }
  assert_true(fabs(p[2].at_s - run_s) < 1e-9);
  const ergo_snapshot_node *nd;
  assert_int_equal(ergo_snapshot_nodes(s3, &nd), 1);
  assert_int_equal(nd[0].ranks, 1);
  assert_true(fabs(nd[0].step_time_s - p[2].time_s) < 1e-9);
  const ergo_snapshot_rank *rk;
  assert_int_equal(ergo_snapshot_ranks(s3, &rk), 1);
  assert_int_equal(rk[0].rank, 0);
  assert_true(fabs(rk[0].energy_j - g->energy_j) < 1e-9);
  assert_string_equal(ergo_snapshot_knob(0), "core_khz");
  assert_null(ergo_snapshot_knob(99));
  /* Later steps publish new copies; the one held stays as it was. */
  one_step(4);
  const ergo_snapshot *s4 = ergo_snapshot_acquire();
  assert_ptr_not_equal(s3, s4);
  assert_int_equal(ergo_snapshot_step(s4, NULL), 4);
  assert_int_equal(ergo_snapshot_step(s3, NULL), 3);
  assert_int_equal(region(s3, "Global/Timestep/compute")->calls, 3);
  assert_int_equal(region(s4, "Global/Timestep/compute")->calls, 4);
  ergo_snapshot_release(s3);
  /* The JSON parts. */
  json_t *st = part(s4, "state");
  assert_int_equal(json_integer_value(json_object_get(st, "step")), 4);
  assert_string_equal(json_string_value(json_object_get(st, "policy")), "online");
  assert_string_equal(json_string_value(json_object_get(st, "objective")), "energy");
  json_decref(st);
  json_t *rg = part(s4, "regions");
  assert_true(json_array_size(rg) >= 3);
  assert_string_equal(json_string_value(json_object_get(json_array_get(rg, 2), "name")), "compute");
  json_decref(rg);
  json_t *tl = part(s4, "timeline");
  assert_int_equal(json_array_size(json_object_get(tl, "points")), 4);
  assert_string_equal(json_string_value(json_array_get(json_object_get(tl, "tracked"), 0)),
                      "Global/Timestep/compute");
  json_decref(tl);
  json_t *all = part(s4, "all");
  assert_non_null(json_object_get(all, "nodes"));
  assert_int_equal(json_array_size(json_object_get(all, "ranks")), 1);
  json_decref(all);
  assert_null(ergo_snapshot_json(s4, "bogus"));
  assert_null(ergo_snapshot_json(NULL, "state"));
  ergo_snapshot_release(s4);
  ergo_snapshot_release(NULL);
  assert_int_equal(ergo_finalize(), 0);
  assert_null(ergo_snapshot_acquire()); /* nothing once ergo has finished */
}

/* A change is checked when asked for and in force from the next ergo_step. */
static void test_control(void **state) {
  (void)state;
  ergo_config c = sim_config("online");
  assert_int_equal(ergo_init(&c), 0);
  assert_int_equal(ergo_snapshot_enable(), 0);
  one_step(1);
  char why[512];
  assert_int_equal(ergo_snapshot_control("nosuch", NULL, why, sizeof why), ERGO_EINVAL);
  assert_non_null(strstr(why, "'nosuch' is not known"));
  assert_int_equal(ergo_snapshot_control(NULL, "weighted:t=1,e=-1", why, sizeof why), ERGO_EINVAL);
  assert_non_null(strstr(why, "weighted"));
  assert_int_equal(ergo_snapshot_control(NULL, NULL, why, sizeof why), ERGO_EINVAL);
  assert_int_equal(ergo_snapshot_control("", "", why, sizeof why), ERGO_EINVAL);
  assert_int_equal(ergo_snapshot_control(NULL, "weighted:t=1,e=3,r=0", why, sizeof why), 0);
  one_step(2);
  const ergo_snapshot *s = ergo_snapshot_acquire();
  json_t *st = part(s, "state");
  assert_string_equal(json_string_value(json_object_get(st, "objective")), "weighted:t=1,e=3,r=0");
  assert_non_null(strstr(json_string_value(json_object_get(st, "last_change")),
                         "at step 2: policy online, objective weighted:t=1,e=3,r=0"));
  json_decref(st);
  ergo_snapshot_release(s);
  assert_int_equal(ergo_snapshot_control("monitor", NULL, why, sizeof why), 0);
  one_step(3);
  s = ergo_snapshot_acquire();
  st = part(s, "state");
  assert_string_equal(json_string_value(json_object_get(st, "policy")), "monitor");
  json_decref(st);
  ergo_snapshot_release(s);
  assert_int_equal(ergo_finalize(), 0);
}

/* A run whose policy does not tune has no tuner to change. */
static void test_control_untuned(void **state) {
  (void)state;
  ergo_config c = sim_config("monitor");
  assert_int_equal(ergo_init(&c), 0);
  assert_int_equal(ergo_snapshot_enable(), 0);
  char why[512];
  assert_int_equal(ergo_snapshot_control(NULL, "time", why, sizeof why), ERGO_ESTATE);
  assert_non_null(strstr(why, "does not tune"));
  assert_int_equal(ergo_finalize(), 0);
}

static int reading;

typedef struct {
  long reads, bad; /* snapshots read; ones that went back a step or gave no JSON */
} reads;

/* Takes snapshots and their JSON as fast as it can while the main thread steps. */
static void *reader(void *arg) {
  reads *r = arg;
  long last = 0;
  while (__atomic_load_n(&reading, __ATOMIC_ACQUIRE)) {
    const ergo_snapshot *s = ergo_snapshot_acquire();
    if (!s) continue;
    long n = ergo_snapshot_step(s, NULL);
    char *j = ergo_snapshot_json(s, "all");
    if (n < last || !j) __atomic_add_fetch(&r->bad, 1, __ATOMIC_RELAXED);
    last = n;
    free(j);
    ergo_snapshot_release(s);
    __atomic_add_fetch(&r->reads, 1, __ATOMIC_RELEASE);
  }
  return NULL;
}

static void test_reader_thread(void **state) {
  (void)state;
  ergo_config c = sim_config("online");
  assert_int_equal(ergo_init(&c), 0);
  assert_int_equal(ergo_snapshot_enable(), 0);
  one_step(1);
  reads r = {0, 0};
  pthread_t t;
  reading = 1;
  assert_int_equal(pthread_create(&t, NULL, reader, &r), 0);
  while (!__atomic_load_n(&r.reads, __ATOMIC_ACQUIRE)) sched_yield(); /* it runs */
  for (long n = 2; n <= 60; n++) one_step(n);
  __atomic_store_n(&reading, 0, __ATOMIC_RELEASE);
  pthread_join(t, NULL);
  assert_true(r.reads > 0);
  assert_int_equal(r.bad, 0);
  assert_int_equal(ergo_finalize(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_off_unless_asked, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_regions_timeline_nodes, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_control, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_control_untuned, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_reader_thread, setup, test_dir_teardown),
  };
  return cmocka_run_group_tests_name("snapshot", tests, NULL, NULL);
}
