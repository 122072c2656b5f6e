/* test_settings.c - the settings stack through ergo_setting_push/pop on a fake machine:
 * only changed knobs are written, parents come back, bad requests write nothing, and the machine
 * is back after ergo_finalize or an exit without it. */
#include "test_util.h"

#include "fakecpu.h"
#include "fakesys.h"
#include "knobs/knobs.h"
#include "knobs/state.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every write to a fake sysfs file is a store, and is logged: the write count is exact. */
FAKECPU_SYSFS_STORES

#define CPU "/sys/devices/system/cpu"
#define UNC CPU "/intel_uncore_frequency/package_00_die_00"

static fakesys fs;
static char state_dir[300];
static fakecpu_snap *before;

static void start_all(void) {
  ergo_config c = test_config();
  c.knobs = "auto";
  test_init(&c);
  assert_non_null(ergo__knob_get(ERGO__KNOB_CORE));
  assert_non_null(ergo__knob_get(ERGO__KNOB_UNCORE));
  assert_non_null(ergo__knob_get(ERGO__KNOB_THREADS));
  fakecpu_stores_reset();
}

static int count_stores_to(const char *suffix) {
  int n = 0;
  for (int i = 0; i < fakecpu_stores(); i++) {
    const char *p = fakecpu_store_at(i)->path;
    size_t lp = strlen(p), ls = strlen(suffix);
    n += lp >= ls && strcmp(p + lp - ls, suffix) == 0;
  }
  return n;
}

static void assert_tree_as_before(void) {
  fakecpu_snap *now = fakecpu_snap_take(&fs, CPU);
  char diff[1024] = "";
  int d = fakecpu_snap_diff(before, now, diff, sizeof diff);
  if (d) print_message("tree differs: %s\n", diff);
  assert_int_equal(d, 0);
  fakecpu_snap_free(now);
}

/* Only what a setting changes is written; an unchanged setting writes nothing. */
static void test_only_changes_are_written(void **state) {
  (void)state;
  start_all();
  ergo_setting core = {.core_khz = 1400000};
  assert_int_equal(ergo_setting_push(&core), 0);
  /* userspace governor + setspeed on each of the two policies */
  assert_int_equal(count_stores_to("/scaling_setspeed"), 2);
  assert_int_equal(count_stores_to("/scaling_governor"), 2);
  assert_int_equal(count_stores_to("_freq_khz"), 0);
  fakecpu_stores_reset();
  /* The same core frequency again, nested: not one write. */
  assert_int_equal(ergo_setting_push(&core), 0);
  assert_int_equal(fakecpu_stores(), 0);
  /* An uncore change inherits the core frequency: only uncore files are written. */
  ergo_setting unc = {.uncore_khz = 1800000};
  assert_int_equal(ergo_setting_push(&unc), 0);
  assert_int_equal(count_stores_to("_freq_khz"), 2);
  assert_int_equal(fakecpu_stores(), 2);
  fakecpu_stores_reset();
  /* Leaving it puts the parent's uncore value (the original) back, core untouched. */
  assert_int_equal(ergo_setting_pop(), 0);
  assert_int_equal(fakecpu_stores(), 2);
  assert_int_equal(count_stores_to("/max_freq_khz"), 1);
  fakecpu_stores_reset();
  assert_int_equal(ergo_setting_pop(), 0); /* back to core 1400000: unchanged, no write */
  assert_int_equal(fakecpu_stores(), 0);
  assert_int_equal(ergo_setting_pop(), 0);
  ergo_finalize();
  assert_tree_as_before();
}

/* A value no knob allows, a negative one, or a knob the machine lacks: one error line,
 * nothing written. */
static void test_bad_requests_write_nothing(void **state) {
  (void)state;
  start_all();
  ergo_setting bad = {.core_khz = 1400000, .uncore_khz = 1234567};
  assert_int_equal(ergo_setting_push(&bad), ERGO_EINVAL);
  assert_string_equal(ergo_last_error(),
                      "ergo_setting_push: uncore_khz=1234567 is not a value the uncore knob allows "
                      "(1200000 to 2400000 kHz, 13 values); nothing changed");
  ergo_setting zero_threads = {.threads = -1};
  assert_int_equal(ergo_setting_push(&zero_threads), ERGO_EINVAL);
  ergo_setting too_many = {.threads = 3};
  assert_int_equal(ergo_setting_push(&too_many), ERGO_EINVAL);
  assert_int_equal(ergo_setting_pop(), ERGO_ESTATE);
  assert_int_equal(fakecpu_stores(), 0);
  ergo_finalize();
  assert_tree_as_before();
}

/* The settings stack is the thread's that called ergo_init: another thread's push or pop is one
 * error line and writes nothing; the owner's still work. */
static void *push_from_other(void *arg) {
  ergo_setting s = {.core_khz = 1400000};
  *(int *)arg = ergo_setting_push(&s) * 1000 + ergo_setting_pop();
  return NULL;
}
static void test_other_thread_refused(void **state) {
  (void)state;
  start_all();
  int got = 0;
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, push_from_other, &got), 0);
  pthread_join(t, NULL);
  assert_int_equal(got, ERGO_ESTATE * 1000 + ERGO_ESTATE);
  assert_non_null(strstr(ergo_last_error(), "ergo_setting_pop called from a thread other than "
                                            "the one that called ergo_init; ignored"));
  assert_int_equal(fakecpu_stores(), 0);
  ergo_setting s = {.core_khz = 1400000};
  assert_int_equal(ergo_setting_push(&s), 0);
  assert_int_equal(ergo_setting_pop(), 0);
  ergo_finalize();
  assert_tree_as_before();
}

/* The thread knob is real: the next parallel region of the main thread has that many. */
static void test_threads_setting(void **state) {
  (void)state;
  start_all();
  int orig = omp_get_max_threads();
  ergo_setting one = {.threads = 1};
  assert_int_equal(ergo_setting_push(&one), 0);
  int seen = 0;
#pragma omp parallel
  {
#pragma omp single
    __atomic_store_n(&seen, omp_get_num_threads(), __ATOMIC_RELAXED); /* TSan: see test_threads */
  }
  assert_int_equal(__atomic_load_n(&seen, __ATOMIC_RELAXED), 1);
  assert_int_equal(fakecpu_stores(), 0); /* no file for threads */
  assert_int_equal(ergo_setting_pop(), 0);
  assert_int_equal(omp_get_max_threads(), orig);
  ergo_finalize();
}

/* ergo_finalize with settings still pushed unwinds them and restores the machine. */
static void test_finalize_restores(void **state) {
  (void)state;
  start_all();
  ergo_setting s = {.core_khz = 1000000, .uncore_khz = 2000000};
  assert_int_equal(ergo_setting_push(&s), 0);
  char path[400];
  snprintf(path, sizeof path, "%s/%d.json", state_dir, (int)getpid());
  assert_int_equal(access(path, F_OK), 0); /* originals saved before the first write */
  ergo_finalize();
  assert_int_equal(access(path, F_OK), -1);
  assert_tree_as_before();
}

/* A program that ends by exit() with settings pushed and a region open, never calling
 * ergo_finalize: ergo finalizes at exit, so the machine is back as found, no state file is left,
 * and the JSON report is the final one.  In a child, which the exit ends. */
static void test_exit_restores(void **state) {
  (void)state;
  char report[400];
  snprintf(report, sizeof report, "%s/exit-report.json", state_dir);
  unlink(report);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    alarm(60);
    ergo_config c = test_config();
    c.knobs = "auto";
    c.report_json = report;
    if (ergo_init(&c) != 0) _exit(90);
    ergo_setting s = {.core_khz = 1000000, .uncore_khz = 2000000};
    if (ergo_setting_push(&s) != 0) _exit(91);
    ergo_push(1, "open_at_exit");
    char *speed = slurp(CPU "/cpu0/cpufreq/scaling_setspeed");
    if (!speed || strcmp(speed, "1000000\n") != 0) _exit(92); /* the setting is in force */
    free(speed);
    exit(3);
  }
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 3);
  char path[400];
  snprintf(path, sizeof path, "%s/%d.json", state_dir, (int)child);
  assert_int_equal(access(path, F_OK), -1);
  assert_tree_as_before();
  char *json = slurp(report);
  assert_non_null(json);
  assert_non_null(strstr(json, "\"complete\": true"));
  assert_non_null(strstr(json, "\"open_at_exit\""));
  free(json);
  unlink(report);
}

/* Another ergo process tunes both core policies: the core knob is left alone (one warning, at
 * the first change, not repeated at the next), the uncore knob works, the tree ends as before. */
static void test_core_held_by_another(void **state) {
  (void)state;
  int p[2];
  assert_int_equal(pipe(p), 0);
  pid_t other = fork();
  assert_true(other >= 0);
  if (other == 0) {
    close(p[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* not left behind by a failed test */
    alarm(60);
    if (ergo__state_track(CPU "/cpu0/cpufreq/scaling_governor", NULL) != 0 ||
        ergo__state_track(CPU "/cpu1/cpufreq/scaling_governor", NULL) != 0 ||
        ergo__state_commit() != 0 || write(p[1], "ready", 5) != 5)
      _exit(90);
    for (;;) pause();
  }
  close(p[1]);
  char buf[8] = "";
  assert_int_equal(read(p[0], buf, sizeof buf), 5);
  close(p[0]);
  start_all();
  int warnings = ergo_warning_count();
  ergo_setting core = {.core_khz = 1400000}, other_core = {.core_khz = 1000000};
  assert_int_equal(ergo_setting_push(&core), 0);
  assert_int_equal(ergo_warning_count(), warnings + 1);
  assert_int_equal(ergo_setting_push(&other_core), 0);
  assert_int_equal(ergo_warning_count(), warnings + 1);
  assert_int_equal(fakecpu_stores(), 0);
  ergo_setting unc = {.uncore_khz = 1800000};
  assert_int_equal(ergo_setting_push(&unc), 0);
  assert_int_equal(count_stores_to("_freq_khz"), 2);
  assert_int_equal(fakecpu_stores(), 2);
  for (int i = 0; i < 3; i++) assert_int_equal(ergo_setting_pop(), 0);
  ergo_finalize();
  int status = 0;
  kill(other, SIGTERM);
  assert_int_equal(waitpid(other, &status, 0), other);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  assert_tree_as_before();
}

int main(void) {
  if (fakesys_create(&fs) != 0) return FAKESYS_SKIP;
  snprintf(state_dir, sizeof state_dir, "%s-state", fs.root);
  mkdir(state_dir, 0700);
  setenv("ERGO_STATE_DIR", state_dir, 1);
  unsetenv("OMP_NUM_THREADS");
  /* One package, two cores, one policy per CPU with the userspace governor; uncore 1.2-2.4 GHz. */
  if (fakecpu_topology(&fs, 1, 2, 1) || fakecpu_add_policies(&fs, &fakecpu_acpi, 2, 1) ||
      fakecpu_uncore(&fs, 0, 0, 1200000, 2400000, 2000000)) {
    printf("SKIPPED: cannot build the fake CPU tree\n");
    return FAKESYS_SKIP;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(0, &set);
  CPU_SET(1, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    printf("SKIPPED: this test needs CPUs 0 and 1\n");
    return FAKESYS_SKIP;
  }
  const char *why = fakesys_enter(&fs, fakecpu_mounts);
  if (why) {
    printf("SKIPPED: %s\n", why);
    fakesys_destroy(&fs);
    return FAKESYS_SKIP;
  }
  before = fakecpu_snap_take(&fs, CPU);
  const struct CMUnitTest tests[] = {
      ERGO_TEST(test_only_changes_are_written), ERGO_TEST(test_bad_requests_write_nothing),
      ERGO_TEST(test_other_thread_refused),     ERGO_TEST(test_threads_setting),
      ERGO_TEST(test_finalize_restores),        ERGO_TEST(test_exit_restores),
      ERGO_TEST(test_core_held_by_another),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  fakecpu_snap_free(before);
  fakesys_destroy(&fs);
  rmdir(state_dir);
  return rc;
}
