/* test_threads.c - the OpenMP thread-count knob: its values, set/get, the size of the next
 * parallel region, and restore. */
#include "ergo.h"
#include "knobs/cpuset.h"
#include "knobs/knob.h"
#include "knobs/knobs.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h> /* after the three above, which it needs */

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ncores;  /* of this process's cpuset, as hwloc counts them */
static int nvalues; /* 1..ncores, capped by OMP_THREAD_LIMIT when that is set */

static int open_threads(ergo__knob *k) {
  memset(k, 0, sizeof *k);
  k->ops = &ergo__knob_threads;
  char why[ERGO__KNOB_WHY_LEN];
  int rc = ergo__knob_threads.open(k, why, sizeof why);
  if (rc == 0) assert_string_equal(why, "");
  return rc;
}

/* The team size a parallel region of this thread gets now.  Atomic: libgomp's join is
 * invisible to TSan (not instrumented), so a plain store would read as a race. */
static int region_size(void) {
  int n = 0;
#pragma omp parallel
  {
#pragma omp single
    __atomic_store_n(&n, omp_get_num_threads(), __ATOMIC_RELAXED);
  }
  return __atomic_load_n(&n, __ATOMIC_RELAXED);
}

static void test_values(void **state) {
  (void)state;
  /* Its names and unit are its row's in the knob table. */
  assert_ptr_equal(ergo__knob_table[ERGO__KNOB_THREADS].real, &ergo__knob_threads);
  assert_string_equal(ergo__knob_table[ERGO__KNOB_THREADS].backend, "threads");
  assert_string_equal(ergo__knob_table[ERGO__KNOB_THREADS].unit, "threads");
  ergo__knob k;
  assert_int_equal(open_threads(&k), 0);
  assert_int_equal(k.nvalues, nvalues);
  for (int i = 0; i < nvalues; i++) assert_int_equal(k.values[i], i + 1);
  ergo__knob_threads.close(&k);
  assert_null(k.priv);
}

/* After set(v) the next region really runs v threads, and get says v. */
static void test_set_get_region(void **state) {
  (void)state;
  ergo__knob k;
  assert_int_equal(open_threads(&k), 0);
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < k.nvalues; i++) {
      int64_t v = pass == 0 ? k.values[i] : k.values[k.nvalues - 1 - i];
      assert_int_equal(ergo__knob_threads.set(&k, v), 0);
      int64_t got = 0;
      assert_int_equal(ergo__knob_threads.get(&k, &got), 0);
      assert_int_equal(got, v);
      assert_int_equal(region_size(), v);
    }
  }
  ergo__knob_threads.restore(&k);
  ergo__knob_threads.close(&k);
}

/* restore() puts back the count open() found, even one outside the values. */
static void test_restore(void **state) {
  (void)state;
  omp_set_dynamic(0);              /* this test is about the count; test_dynamic is about dyn-var */
  omp_set_num_threads(ncores + 3); /* as OMP_NUM_THREADS=ncores+3 would */
  ergo__knob k;
  assert_int_equal(open_threads(&k), 0);
  int64_t v = 0;
  assert_int_equal(ergo__knob_threads.get(&k, &v), 0);
  assert_int_equal(v, ncores + 3);
  assert_int_equal(ergo__knob_threads.save(&k), 0); /* no files */
  assert_int_equal(ergo__knob_threads.set(&k, 1), 0);
  assert_int_equal(region_size(), 1);
  ergo__knob_threads.restore(&k);
  assert_int_equal(omp_get_max_threads(), ncores + 3);
  int limit = omp_get_thread_limit();
  assert_int_equal(region_size(), ncores + 3 < limit ? ncores + 3 : limit);
  ergo__knob_threads.close(&k);
}

/* OMP_DYNAMIC=true may shrink a team: the knob turns that off while it
 * tunes, and restore() turns it back on. */
static void test_dynamic(void **state) {
  (void)state;
  omp_set_dynamic(1);
  ergo__knob k;
  assert_int_equal(open_threads(&k), 0);
  int64_t top = k.values[k.nvalues - 1];
  assert_int_equal(ergo__knob_threads.set(&k, top), 0);
  assert_int_equal(omp_get_dynamic(), 0);
  assert_int_equal(region_size(), top);
  ergo__knob_threads.restore(&k);
  assert_int_equal(omp_get_dynamic(), 1);
  omp_set_dynamic(0);
  ergo__knob_threads.close(&k);
}

static void test_invalid(void **state) {
  (void)state;
  omp_set_num_threads(1);
  ergo__knob k;
  assert_int_equal(open_threads(&k), 0);
  static const int64_t extra[] = {0, -1, INT64_MIN, INT64_MAX};
  for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
    assert_int_equal(ergo__knob_threads.set(&k, extra[i]), ERGO_EINVAL);
  assert_int_equal(ergo__knob_threads.set(&k, ncores + 1), ERGO_EINVAL);
  assert_int_equal(ergo__knob_threads.set(&k, k.nvalues + 1), ERGO_EINVAL);
  assert_int_equal(omp_get_max_threads(), 1); /* nothing changed */
  assert_int_equal(region_size(), 1);
  ergo__knob_threads.close(&k);
}

/* By default the values stop at the count the code started with (omp_get_max_threads() when
 * the knob opens): codes size per-thread arrays from it. */
static void test_ceiling_start(void **state) {
  (void)state;
  ergo__threads_ceiling(0);
  ergo__knob k;
  for (int start = 1; start <= ncores + 1; start++) {
    omp_set_num_threads(start);
    assert_int_equal(open_threads(&k), 0);
    int want = start < nvalues ? start : nvalues;
    assert_int_equal(k.nvalues, want);
    assert_int_equal(k.values[k.nvalues - 1], want);
    assert_int_equal(ergo__knob_threads.set(&k, want + 1), ERGO_EINVAL); /* above: refused */
    ergo__knob_threads.close(&k);
  }
  ergo__threads_ceiling(ncores);
}

/* ERGO_THREADS_MAX moves the ceiling either way, never above the cores. */
static void test_ceiling_explicit(void **state) {
  (void)state;
  ergo__knob k;
  omp_set_num_threads(1);
  for (int max = 1; max <= ncores + 2; max++) {
    ergo__threads_ceiling(max);
    assert_int_equal(open_threads(&k), 0);
    int want = max < nvalues ? max : nvalues;
    assert_int_equal(k.nvalues, want);
    assert_int_equal(ergo__knob_threads.set(&k, want), 0);
    assert_int_equal(region_size(), want);
    ergo__knob_threads.restore(&k);
    ergo__knob_threads.close(&k);
  }
  omp_set_num_threads(ncores);
  ergo__threads_ceiling(1); /* lowered below the starting count */
  assert_int_equal(open_threads(&k), 0);
  assert_int_equal(k.nvalues, 1);
  ergo__knob_threads.close(&k);
  ergo__threads_ceiling(-3); /* negative: the default */
  omp_set_num_threads(1);
  assert_int_equal(open_threads(&k), 0);
  assert_int_equal(k.nvalues, 1);
  ergo__knob_threads.close(&k);
  ergo__threads_ceiling(ncores);
}

/* Inside a parallel team (active, or inactive with one thread) the knob is inert: a region
 * pushed there through the settings stack leaves the count alone, and the value in force (what
 * the tuner records as applied) stays the enclosing one. */
static void test_in_parallel(void **state) {
  (void)state;
  assert_int_equal(ergo__knob_threads.inert(NULL), 0);
  int inert_active = -1, inert_single = -1, in_par = -1;
#pragma omp parallel num_threads(2)
#pragma omp master
  {
    inert_active = ergo__knob_threads.inert(NULL);
    in_par = omp_in_parallel() || omp_get_num_threads() == 1;
  }
#pragma omp parallel num_threads(1)
  inert_single = ergo__knob_threads.inert(NULL);
  assert_int_equal(in_par, 1);
  assert_int_equal(inert_active, 1);
  assert_int_equal(inert_single, 1);
  /* Through the settings stack. */
  omp_set_num_threads(1);
  ergo__threads_ceiling(ncores);
  assert_int_equal(ergo__knobs_start("threads", 0), 0);
  ergo__knob *k = ergo__knob_get(ERGO__KNOB_THREADS);
  assert_non_null(k);
  int64_t want[ERGO__NKNOBS] = {0};
  want[ERGO__KNOB_THREADS] = k->values[k->nvalues - 1];
  int push_rc = -1, pop_rc = -1, max_inside = -1;
#pragma omp parallel num_threads(2)
#pragma omp master
  {
    push_rc = ergo__settings_push(want);
    max_inside = omp_get_max_threads();
    pop_rc = ergo__settings_pop();
  }
  assert_int_equal(push_rc, 0);
  assert_int_equal(pop_rc, 0);
  assert_int_equal(max_inside, 1); /* the implicit task's count, untouched */
  assert_int_equal(k->sets, 0);    /* never reached the backend */
  assert_int_equal(k->saved, 0);
  /* Outside a team it acts. */
  if (k->nvalues > 1) {
    assert_int_equal(ergo__settings_push(want), 0);
    assert_int_equal(k->sets, 1);
    assert_int_equal(region_size(), want[ERGO__KNOB_THREADS]);
    assert_int_equal(ergo__settings_pop(), 0);
  }
  ergo__settings_reset();
  ergo__knobs_stop();
  assert_int_equal(omp_get_max_threads(), 1);
}

int main(void) {
  /* test_in_parallel's settings stack commits the (empty) state file: a directory of its own. */
  char state_dir[] = "/tmp/ergo-test-threads-XXXXXX";
  if (!mkdtemp(state_dir)) return 1;
  setenv("ERGO_STATE_DIR", state_dir, 1);
  ergo__cpuset cs;
  char why[256];
  if (ergo__cpuset_get(&cs, why, sizeof why) != 0) {
    printf("cannot tell this process's cores: %s\n", why);
    return 1;
  }
  ncores = cs.ncores;
  int limit = omp_get_thread_limit();
  nvalues = ncores < limit ? ncores : limit;
  printf("this process may use %d core(s); OpenMP's thread limit is %d\n", ncores, limit);
  /* The tests below other than the ceiling's want every core: an explicit ceiling of ncores. */
  ergo__threads_ceiling(ncores);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values),           cmocka_unit_test(test_set_get_region),
      cmocka_unit_test(test_restore),          cmocka_unit_test(test_dynamic),
      cmocka_unit_test(test_invalid),          cmocka_unit_test(test_ceiling_start),
      cmocka_unit_test(test_ceiling_explicit), cmocka_unit_test(test_in_parallel),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  rmdir(state_dir);
  return rc;
}
