/* test_meter.c - the meter registry, ERGO_ENERGY choices, the auto order, and wrap correction. */
#include "test_util.h"

#include "energy/meter.h"
#include "fakesys.h"

static const char *no_powercap =
    "powercap: no /sys/class/powercap: the intel_rapl/powercap driver is not loaded (modprobe "
    "intel_rapl_common) or this is a VM without RAPL";
static const char *skip_reason; /* why the fake /sys could not be entered, or NULL */

static void test_registry(void **state) {
  (void)state;
  assert_ptr_equal(ergo__meter_find("powercap"), &ergo__meter_powercap);
  assert_ptr_equal(ergo__meter_find("perf"), &ergo__meter_perf);
  assert_ptr_equal(ergo__meter_find("papi"), &ergo__meter_papi);
  assert_ptr_equal(ergo__meter_find("estimate"), &ergo__meter_estimate);
  assert_string_equal(ergo__meter_powercap.name, "powercap");
  assert_string_equal(ergo__meter_perf.name, "perf");
  assert_string_equal(ergo__meter_papi.name, "papi");
  assert_string_equal(ergo__meter_estimate.name, "estimate");
  /* "auto" and "none" are choices of ERGO_ENERGY, not backends. */
  assert_null(ergo__meter_find("auto"));
  assert_null(ergo__meter_find("none"));
  assert_null(ergo__meter_find("Powercap"));
  assert_null(ergo__meter_find(""));
}

static void test_bogus_name(void **state) {
  (void)state;
  ergo__meter m;
  char why[ERGO__WHY_LEN] = "stale";
  assert_int_equal(ergo__meter_open(&m, "bogus", why, sizeof why), ERGO_EINVAL);
  assert_string_equal(why, "ERGO_ENERGY='bogus' is not a meter: expected auto, powercap, perf, "
                           "papi, estimate or none");
  assert_int_equal(ergo__meter_open(&m, "bogus", NULL, 0), ERGO_EINVAL);
}

/* powercap, then perf, then papi, one line each; the estimate is never tried. */
static void test_auto_order(void **state) {
  (void)state;
  if (skip_reason) skip_because("%s", skip_reason);
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  int rc = ergo__meter_open(&m, "auto", why, sizeof why);
  if (rc == 0) {
    /* This machine has perf or PAPI energy: the first that opens wins, and says nothing. */
    assert_string_equal(why, "");
    assert_true(m.ops == &ergo__meter_perf || m.ops == &ergo__meter_papi);
    ergo__meter_close(&m);
    print_message("auto opened a meter here: its three refusal lines cannot be checked\n");
  } else {
    assert_true(rc < 0);
    assert_null(m.ops);
    char *second = strchr(why, '\n');
    assert_non_null(second);
    *second++ = '\0';
    assert_string_equal(why, no_powercap);
    char *third = strchr(second, '\n');
    assert_non_null(third);
    *third++ = '\0';
    assert_true(strncmp(second, "perf: ", 6) == 0);
    assert_true(strncmp(third, "papi: ", 6) == 0);
    assert_null(strchr(third, '\n'));
    assert_null(strstr(third, "estimate"));
  }

  /* Just one meter: just its line. */
  assert_int_equal(ergo__meter_open(&m, "powercap", why, sizeof why), ERGO_EIO);
  assert_string_equal(why, no_powercap);
  assert_null(m.ops);
  /* A short buffer is cut, never overrun. */
  char small[12];
  assert_int_equal(ergo__meter_open(&m, "powercap", small, sizeof small), ERGO_EIO);
  assert_string_equal(small, "powercap: n");
  assert_int_equal(ergo__meter_open(&m, "auto", NULL, 0), rc);
  ergo__meter_close(&m); /* opened again where a meter works */
}

/* A scripted meter: domain 0 wraps at 1000 ticks of 0.5 J, domain 1 never wraps. */
static uint64_t script[2];
static int script_rc;
static int scripted_read(ergo__meter *m, uint64_t *ticks) {
  (void)m;
  if (script_rc) return script_rc;
  memcpy(ticks, script, sizeof script);
  return 0;
}
static const ergo__meter_ops scripted = {"scripted", NULL, scripted_read, NULL};

static void make_scripted(ergo__meter *m, uint64_t first0, uint64_t first1) {
  memset(m, 0, sizeof *m);
  m->ops = &scripted;
  m->ndomains = 2;
  snprintf(m->dom[0].name, sizeof m->dom[0].name, "package-0");
  m->dom[0].joules_per_tick = 0.5;
  m->dom[0].range_ticks = 1000;
  snprintf(m->dom[1].name, sizeof m->dom[1].name, "counter");
  m->dom[1].joules_per_tick = 1e-6;
  m->dom[1].range_ticks = 0;
  pthread_mutex_init(&m->lock, NULL);
  m->last[0] = first0;
  m->last[1] = first1;
  script_rc = 0;
}

static void read_expect(ergo__meter *m, uint64_t raw0, uint64_t raw1, uint64_t acc0,
                        uint64_t acc1) {
  script[0] = raw0;
  script[1] = raw1;
  /* Read long after the previous one: any counter change is plausible. */
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  m->last_read_s = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - 1e4;
  double j[ERGO__METER_MAX_DOMAINS];
  assert_int_equal(ergo__meter_read(m, j), 0);
  assert_true(m->acc[0] == acc0);
  assert_true(m->acc[1] == acc1);
  assert_true(j[0] == (double)acc0 * 0.5);
  assert_true(j[1] == (double)acc1 * 1e-6);
}

static void test_wrap_formula(void **state) {
  (void)state;
  ergo__meter m;
  make_scripted(&m, 990, 500);
  read_expect(&m, 995, 600, 5, 100);
  /* 995 -> 10: up to the range (1000), then from 0: 1000 - 995 + 10. */
  read_expect(&m, 10, 600, 20, 100);
  assert_true(m.wraps == 1);
  /* Exactly at the range, then 0. */
  read_expect(&m, 1000, 600, 1010, 100);
  read_expect(&m, 0, 600, 1010, 100);
  assert_true(m.wraps == 2);
  read_expect(&m, 999, 600, 2009, 100);
  read_expect(&m, 998, 600, 2009 + 999, 100); /* back by one is a whole period less one */
  assert_true(m.wraps == 3);
  assert_true(m.reads == 6);
  ergo__meter_close(&m);
  assert_null(m.ops);
}

/* A counter without a range that goes back adds nothing, and counts on
 * from the new value; so does one above its own range. */
static void test_never_negative(void **state) {
  (void)state;
  ergo__meter m;
  make_scripted(&m, 100, 500);
  read_expect(&m, 100, 400, 0, 0);
  read_expect(&m, 100, 450, 0, 50);
  read_expect(&m, 100, 0, 0, 50);
  assert_true(m.wraps == 0);
  /* Domain 0 reads above its range of 1000, then lower: no wrap is
   * possible, and range - last would underflow. */
  read_expect(&m, 1500, 0, 1400, 50);
  read_expect(&m, 20, 0, 1400, 50);
  read_expect(&m, 30, 7, 1410, 57);
  assert_true(m.wraps == 0);
  ergo__meter_close(&m);
}

/* Two reads close together: a counter that went back by more than a wrap the package could
 * draw meanwhile (a read torn by a concurrent update) is ignored and counted, and counting goes
 * on from the last plausible value; a real wrap still counts. */
static void test_implausible_ignored(void **state) {
  (void)state;
  ergo__meter m;
  make_scripted(&m, 990, 500);
  m.dom[0].max_watts = 100; /* 4 x 100 W over 10 ms: at most 4 J = 8 ticks */
  double j[ERGO__METER_MAX_DOMAINS];
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  m.last_read_s = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec; /* just read */
  script[0] = 989; /* back by one: a whole range (499.5 J) in microseconds */
  script[1] = 600;
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(m.acc[0] == 0 && m.last[0] == 990 && m.implausible == 1 && m.wraps == 0);
  assert_true(m.acc[1] == 100); /* the other domain is read as usual */
  script[0] = 995;              /* on from 990: 5 ticks, plausible */
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(m.acc[0] == 5 && m.last[0] == 995 && m.implausible == 1);
  script[0] = 4; /* a real wrap: 1000 - 995 + 4 = 9 ticks... */
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(m.acc[0] == 5 && m.implausible == 2); /* ...is 4.5 J: above 4 J, ignored */
  script[0] = 1; /* 1000 - 995 + 1 = 6 ticks = 3 J: a wrap within the bound */
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(m.acc[0] == 11 && m.last[0] == 1 && m.implausible == 2 && m.wraps == 1);
  script[0] = 900; /* far ahead: counted (the sim node's counters run on virtual time) */
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(m.acc[0] == 910 && m.last[0] == 900 && m.implausible == 2);
  assert_true(j[0] == 910 * 0.5);
  ergo__meter_close(&m);
}

/* A failed read returns its error, keeps the totals, and does not move last. */
static void test_failed_read(void **state) {
  (void)state;
  ergo__meter m;
  make_scripted(&m, 0, 0);
  read_expect(&m, 10, 20, 10, 20);
  script_rc = ERGO_EIO;
  script[0] = 500;
  double j[ERGO__METER_MAX_DOMAINS];
  assert_int_equal(ergo__meter_read(&m, j), ERGO_EIO);
  assert_true(j[0] == 5.0);
  assert_true(j[1] == (double)20 * 1e-6);
  assert_true(m.reads == 1);
  script_rc = 0;
  read_expect(&m, 30, 20, 30, 20);
  ergo__meter_close(&m);
  ergo__meter_close(&m); /* harmless twice */
  ergo__meter_close(NULL);
}

int main(void) {
  /* A fake /sys/class without powercap makes the powercap line the same on every machine. */
  fakesys fs;
  if (fakesys_create(&fs) != 0)
    skip_reason = "cannot create a fake sysfs tree in /tmp";
  else
    skip_reason = fakesys_enter(&fs, (const char *[]){"/sys/class", NULL});
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_registry),       cmocka_unit_test(test_bogus_name),
      cmocka_unit_test(test_auto_order),     cmocka_unit_test(test_wrap_formula),
      cmocka_unit_test(test_never_negative), cmocka_unit_test(test_implausible_ignored),
      cmocka_unit_test(test_failed_read),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  fakesys_destroy(&fs);
  return failed;
}
