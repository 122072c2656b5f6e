/* test_sim_node.c - the sim platform end to end: virtual clock, simulated energy and knobs
 * behind the same interfaces as the machine's, reports marked SIMULATED, seeded noise. */
#include "test_util.h"

#include <ergo_sim.h>

#include "internal.h"
#include "sim/model.h"
#include "sim/node.h"

#include <math.h>

static ergo_config sim_config(double noise, unsigned long long seed) {
  ergo_config c = test_config();
  c.clock = NULL; /* the platform brings its own: the virtual clock */
  c.platform = "sim";
  c.energy = "auto"; /* replaced by the sim meter */
  c.knobs = "auto";  /* replaced by the sim knobs */
  c.sim_noise = noise;
  c.sim_seed = seed;
  return c;
}

static const ergo_sim_work_desc compute = {40, 1, 0.01}, memory = {2, 60, 0.01};

/* Region time is the model's time, region energy the model's energy, exactly. */
static void test_region_figures_are_the_model(void **state) {
  (void)state;
  ergo_config c = sim_config(0, 1);
  assert_int_equal(ergo_init(&c), 0);
  assert_true(ergo_sim_active());
  assert_string_equal(ergo_clock_name(), "user");
  ERGO_PUSH(1, "compute");
  assert_int_equal(ergo_sim_work(&compute), 0);
  ERGO_POP(1, "compute");
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  ergo__sim_config cfg = {p.f_max, p.u_max, p.cores};
  ergo__sim_work w = {compute.gcycles, compute.gbytes, compute.serial};
  ergo__sim_result r;
  ergo__sim_eval(&p, &w, &cfg, &r);
  uint64_t t_ns = (uint64_t)llround(r.time_s * 1e9);
  ergo__node *n = ergo__node_find(&ergo__g.main_tree->root, "compute", 0);
  assert_int_equal(n->total, t_ns);
  ergo__snap s;
  pthread_mutex_lock(&ergo__g.lock);
  assert_int_equal(ergo__snap_take(ergo__g.main_tree, 0, &s), 0);
  pthread_mutex_unlock(&ergo__g.lock);
  /* package-0, core-0, dram-0 in nJ ticks: exact to 1 nJ */
  double t = (double)t_ns * 1e-9;
  assert_true(fabs(s.children[0].q[0][0] - r.p_pkg_w * t) < 2e-9);
  assert_true(fabs(s.children[0].q[0][1] - r.p_core_w * t) < 2e-9);
  assert_true(fabs(s.children[0].q[0][2] - r.p_dram_w * t) < 2e-9);
  double global_s = s.time_s; /* the virtual clock does not move without work */
  ergo__snap_free(&s);
  char *rep = ergo_report_string();
  /* The time line is the virtual clock's: marked as the energy line is. */
  char want[128];
  snprintf(want, sizeof want, "Total wall clock time for Global = %g sec [SIMULATED]\n", global_s);
  assert_non_null(strstr(rep, want));
  assert_non_null(strstr(rep, "[SIMULATED]\n"));
  assert_non_null(strstr(rep, "ergo energy: meter sim"));
  free(rep);
  ergo_finalize();
  assert_false(ergo_sim_active());
}

/* The sim knobs are the knob layer's: a setting slows compute-bound work by exactly 2x. */
static void test_knobs_drive_the_model(void **state) {
  (void)state;
  ergo_config c = sim_config(0, 1);
  assert_int_equal(ergo_init(&c), 0);
  ergo_sim_work_desc pure = {40, 0, 0};
  ERGO_PUSH(1, "fast");
  ergo_sim_work(&pure);
  ERGO_POP(1, "fast");
  ergo_setting half = {.core_khz = 1000000};
  assert_int_equal(ergo_setting_push(&half), 0);
  ERGO_PUSH(1, "slow");
  ergo_sim_work(&pure);
  ERGO_POP(1, "slow");
  assert_int_equal(ergo_setting_pop(), 0);
  ergo__node *fast = ergo__node_find(&ergo__g.main_tree->root, "fast", 0);
  ergo__node *slow = ergo__node_find(&ergo__g.main_tree->root, "slow", 0);
  assert_int_equal(slow->total, 2 * fast->total);
  /* a value off the sim grid is refused like a real knob's */
  ergo_setting off = {.core_khz = 1050000};
  assert_int_equal(ergo_setting_push(&off), ERGO_EINVAL);
  ergo_setting threads = {.threads = 21};
  assert_int_equal(ergo_setting_push(&threads), ERGO_EINVAL);
  /* ergo info-style description of the sim knobs: 11 core values, 13 uncore, 20 threads */
  assert_int_equal(ergo__sim()->cfg.threads, 20);
  ergo_finalize();
}

static char *run_noisy(unsigned long long seed) {
  ergo_config c = sim_config(0.05, seed);
  assert_int_equal(ergo_init(&c), 0);
  for (int i = 0; i < 5; i++) {
    ERGO_PUSH(1, "compute");
    ergo_sim_work(&compute);
    ERGO_POPPUSH(1, "compute", "memory");
    ergo_sim_work(&memory);
    ERGO_POP(1, "memory");
  }
  char *rep = ergo_report_string();
  ergo_finalize();
  /* Everything but ergo's own cost, which is real time, not simulated. */
  char *o = strstr(rep, "ergo overhead: ");
  assert_non_null(o);
  char *end = strchr(o, '\n');
  memmove(o, end + 1, strlen(end + 1) + 1);
  return rep;
}

/* A run is a pure function of its seed. */
static void test_same_seed_same_run(void **state) {
  (void)state;
  char *a = run_noisy(7), *b = run_noisy(7), *other = run_noisy(8);
  assert_string_equal(a, b);
  assert_string_not_equal(a, other);
  free(a);
  free(b);
  free(other);
}

/* Outside the sim platform, ergo_sim_work says so; bad work is refused. */
static void test_errors(void **state) {
  (void)state;
  assert_int_equal(ergo_sim_work(&compute), ERGO_ESTATE);
  ergo_config c = sim_config(0, 1);
  assert_int_equal(ergo_init(&c), 0);
  ergo_sim_work_desc bad = {-1, 0, 0};
  assert_int_equal(ergo_sim_work(&bad), ERGO_EINVAL);
  ergo_sim_work_desc bad_serial = {1, 0, 1.5};
  assert_int_equal(ergo_sim_work(&bad_serial), ERGO_EINVAL);
  assert_int_equal(ergo_sim_work(NULL), ERGO_EINVAL);
  ergo_finalize();
  c.sim_noise = 2;
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
}

/* The oracle through the public API agrees with the all-maximum baseline it reports. */
static void test_public_oracle(void **state) {
  (void)state;
  ergo_sim_point best, base;
  assert_int_equal(ergo_sim_oracle(&memory, "energy", &best, &base), 0);
  assert_int_equal(base.core_khz, 2000000);
  assert_int_equal(base.uncore_khz, 2400000);
  assert_int_equal(base.threads, 20);
  assert_true(best.energy_j < base.energy_j);
  assert_int_equal(ergo_sim_oracle(&memory, "joules", &best, &base), ERGO_EINVAL);
}

/* A rank waiting in MPI (ergo_sim_wait): its clock moves by exactly the wait and the node draws
 * idle power: static 30 W + 20 idle cores at 0.5 W + uncore 4 + 8 (2.4/2.4)^2 W, DRAM 3 W. */
static void test_wait_is_idle_power(void **state) {
  (void)state;
  ergo_config c = sim_config(0, 1);
  assert_int_equal(ergo_init(&c), 0);
  uint64_t t0 = ergo_now_ns();
  ERGO_PUSH(1, "wait");
  assert_int_equal(ergo_sim_wait(2.5), 0);
  ERGO_POP(1, "wait");
  assert_int_equal(ergo_now_ns() - t0, 2500000000ull);
  ergo__snap s;
  pthread_mutex_lock(&ergo__g.lock);
  assert_int_equal(ergo__snap_take(ergo__g.main_tree, 0, &s), 0);
  pthread_mutex_unlock(&ergo__g.lock);
  assert_true(fabs(s.children[0].q[0][0] - (30 + 20 * 0.5 + 12) * 2.5) < 2e-9);
  assert_true(fabs(s.children[0].q[0][1] - 20 * 0.5 * 2.5) < 2e-9);
  assert_true(fabs(s.children[0].q[0][2] - 3 * 2.5) < 2e-9);
  ergo__snap_free(&s);
  assert_int_equal(ergo_sim_wait(-1), ERGO_EINVAL);
  assert_int_equal(ergo_sim_wait(NAN), ERGO_EINVAL);
  ergo_finalize();
  assert_int_equal(ergo_sim_wait(1), ERGO_ESTATE);
}

/* A node of 3 ranks: rank 1 gets 20 / 3 = 6 cores plus one of the 2 left over, a third of the
 * static, uncore, DRAM background power and of the memory system; the threads knob follows. */
static void test_slice_of_a_shared_node(void **state) {
  (void)state;
  ergo_config c = sim_config(0, 1);
  assert_int_equal(ergo_init(&c), 0);
  ergo__sim_slice(1, 3);
  const ergo__sim_params *p = &ergo__sim()->p;
  assert_int_equal(p->cores, 7);
  assert_true(fabs(p->static_w - 10) < 1e-12);
  assert_true(fabs(p->uncore_min_w - 4.0 / 3) < 1e-12);
  assert_true(fabs(p->uncore_dyn_w - 8.0 / 3) < 1e-12);
  assert_true(fabs(p->dram_min_w - 1) < 1e-12);
  assert_true(fabs(p->bw_max - 100.0 / 3) < 1e-12);
  assert_int_equal(ergo__sim()->cfg.threads, 7);
  ergo_finalize();
  assert_int_equal(ergo_init(&c), 0);
  ergo__sim_slice(0, 40);
  assert_int_equal(ergo__sim()->p.cores, 1);
  ergo_finalize();
}

/* The node's work counter (as instructions retired on a real node) counts modelled work and
 * never the knobs; a node described with "work_counter": 0 has none, as ergo's real nodes. */
static void test_work_counter(void **state) {
  (void)state;
  ergo_config c = sim_config(0, 1);
  assert_int_equal(ergo_init(&c), 0);
  double w0 = ergo__sim_work_done();
  assert_int_equal(ergo_sim_work(&compute), 0);
  assert_true(fabs(ergo__sim_work_done() - w0 - (40 + 1.0 / 8)) < 1e-9);
  ergo_finalize();
  FILE *f = fopen(test_in_dir("node.json"), "w");
  assert_non_null(f);
  fputs("{\"work_counter\": 0}\n", f);
  fclose(f);
  c.sim_node = test_in_dir("node.json");
  assert_int_equal(ergo_init(&c), 0);
  assert_int_equal(ergo_sim_work(&compute), 0);
  assert_true(ergo__sim_work_done() < 0);
  ergo_finalize();
  f = fopen(test_in_dir("node.json"), "w");
  assert_non_null(f);
  fputs("{\"work_counter\": 2}\n", f);
  fclose(f);
  assert_int_equal(ergo_init(&c), ERGO_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      ERGO_TEST(test_region_figures_are_the_model),
      ERGO_TEST(test_wait_is_idle_power),
      ERGO_TEST(test_slice_of_a_shared_node),
      ERGO_TEST(test_knobs_drive_the_model),
      ERGO_TEST(test_same_seed_same_run),
      ERGO_TEST(test_errors),
      ERGO_TEST(test_public_oracle),
      cmocka_unit_test_setup_teardown(test_work_counter, test_dir_setup, test_dir_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
