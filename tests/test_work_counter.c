/* test_work_counter.c - energy/work_counter.c: the counter is the process's, summed over the
 * threads created after it opened; instructions retired where the machine counts them, else one
 * line that says why and the fix.  The plumbing is tested with a software event (the task clock),
 * which every Linux counts: this VM has no hardware counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "energy/work_counter.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Spin for `s` seconds of this thread's CPU time. */
static void *spin(void *arg) {
  double s = *(const double *)arg, t0 = cpu_now();
  volatile unsigned long x = 0;
  while (cpu_now() - t0 < s) x++;
  return NULL;
}

static void *idle(void *arg) {
  (void)arg;
  usleep(300000);
  return NULL;
}

/* Open the counter on the task clock (which every Linux counts), or skip the test saying why. */
static void open_task_clock(void) {
  char why[512] = "";
  if (ergo__work_counter_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, why, sizeof why)) {
    printf("SKIPPED: perf_event_open refuses even a software event here: %s\n", why);
    skip();
  }
}

/* The task clock of two threads started after the counter opened is in its reading: read() sums
 * the inherited counters of live and finished threads (seconds: task-clock counts nanoseconds). */
static void test_threads_are_summed(void **state) {
  (void)state;
  open_task_clock();
  double before = ergo__work_counter_read(), s = 0.05;
  assert_true(before >= 0);
  pthread_t t[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, spin, &s), 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  double after = ergo__work_counter_read();
  /* Two threads' 50 ms each: at least 90 ms counted (the main thread only waited). */
  assert_true(after - before >= 0.09);
  ergo__work_counter_stop();
  assert_true(ergo__work_counter_read() < 0);
}

/* A thread that ran before the counter opened is named: its count is missing.  Counted against
 * the threads there were without it (a sanitizer runs a thread of its own). */
static void test_threads_before_counted(void **state) {
  (void)state;
  open_task_clock();
  int alone = ergo__work_counter_threads_before();
  ergo__work_counter_stop();
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, idle, NULL), 0);
  char why[512] = "";
  int rc = ergo__work_counter_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, why, sizeof why);
  int with = ergo__work_counter_threads_before();
  ergo__work_counter_stop();
  pthread_join(t, NULL);
  assert_int_equal(rc, 0);
  assert_int_equal(with, alone + 1);
}

/* Instructions retired: counted and growing where the machine has the counter; else the one line
 * of why names the counter and the fix. */
static void test_instructions(void **state) {
  (void)state;
  char why[512] = "";
  if (ergo__work_counter_start(why, sizeof why) != 0) {
    assert_non_null(strstr(why, "instructions retired"));
    assert_non_null(strstr(why, "fix: "));
    assert_null(strchr(why, '\n'));
    printf("SKIPPED (reading instructions retired): %s\n", why);
    return;
  }
  double a = ergo__work_counter_read(), s = 0.02;
  spin(&s);
  double b = ergo__work_counter_read();
  ergo__work_counter_stop();
  assert_true(a >= 0);
  assert_true(b > a + 1e-3); /* 20 ms of a loop: millions of instructions at least */
}

static void test_read_when_closed(void **state) {
  (void)state;
  ergo__work_counter_stop();
  assert_true(ergo__work_counter_read() < 0);
  assert_int_equal(ergo__work_counter_threads_before(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_are_summed),
      cmocka_unit_test(test_threads_before_counted),
      cmocka_unit_test(test_instructions),
      cmocka_unit_test(test_read_when_closed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
