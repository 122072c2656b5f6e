/* test_papi.c - the PAPI meter: one reason for its three paths, PAPI's lifetime, fake powercap. */
#include "test_util.h"

#include "energy/meter.h"
#include "fakesys.h"

/* The expected reasons come from PAPI's own component table.  The test
 * links PAPI only when ergo was built with it, so every PAPI symbol here is
 * weak: NULL means "ergo was built without PAPI". */
#if __has_include(<papi.h>)
#include <papi.h>
#pragma weak PAPI_library_init
#pragma weak PAPI_is_initialized
#pragma weak PAPI_shutdown
#pragma weak PAPI_get_component_index
#pragma weak PAPI_get_component_info
#define HAVE_PAPI_H 1
#else
#define HAVE_PAPI_H 0
#endif

static const char without[] = "papi: ergo was built without PAPI (install libpapi-dev and rebuild)";

/* papi.c keeps each path's reason in 160 bytes: longer ones are cut to 159 characters. */
#define REASON_MAX 159

static int open_papi(ergo__meter *m, char *why) {
  memset(m, 0, sizeof *m);
  why[0] = '\0';
  return ergo__meter_open(m, "papi", why, ERGO__WHY_LEN);
}

/* What ergo__meter_open("papi") should say on this machine: the line for a build without PAPI,
 * or each path's reason as papi.c words it, from PAPI's component table; a path whose component
 * is there and enabled has NULL (its reason depends on events this test does not predict). */
typedef struct expected {
  int without;
  const char *part[3]; /* powercap component, rapl component, rapl:: (perf_event_uncore) */
  char buf[3][300];
} expected;

#if HAVE_PAPI_H
static const char *component_reason(const char *name, char *buf, size_t len) {
  int cidx = PAPI_get_component_index(name);
  if (cidx < 0) {
    snprintf(buf, len, "not built into this PAPI");
    return buf;
  }
  const PAPI_component_info_t *info = PAPI_get_component_info(cidx);
  assert_non_null(info);
  if (!info->disabled) return NULL;
  snprintf(buf, len, "disabled: %.200s",
           info->disabled_reason[0] ? info->disabled_reason : PAPI_strerror(info->disabled));
  if (strlen(buf) > REASON_MAX) buf[REASON_MAX] = '\0';
  return buf;
}
#endif

static void expect_here(expected *e) {
  memset(e, 0, sizeof *e);
#if HAVE_PAPI_H
  if (!PAPI_library_init) {
    e->without = 1;
    return;
  }
  assert_int_equal(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
  static const char *const comps[3] = {"powercap", "rapl", "perf_event_uncore"};
  for (int i = 0; i < 3; i++) e->part[i] = component_reason(comps[i], e->buf[i], sizeof e->buf[i]);
  PAPI_shutdown();
#else
  e->without = 1;
#endif
}

/* `why` is one line naming the three paths in order, each with its reason: exactly the
 * predicted one, or (where the reason depends on events) a non-empty one. */
static void assert_reason(const char *why, const expected *e) {
  assert_null(strchr(why, '\n'));
  if (e->without) {
    assert_string_equal(why, without);
    return;
  }
  static const char *const label[3] = {
      "papi: powercap component: ", "; rapl component: ", "; rapl:: (perf_event_uncore): "};
  const char *at[3];
  for (int i = 0; i < 3; i++) {
    at[i] = strstr(why, label[i]);
    assert_non_null(at[i]);
  }
  assert_ptr_equal(at[0], why);
  assert_true(at[0] < at[1] && at[1] < at[2]);
  for (int i = 0; i < 3; i++) {
    const char *from = at[i] + strlen(label[i]);
    size_t len = i < 2 ? (size_t)(at[i + 1] - from) : strlen(from);
    if (e->part[i]) {
      if (len != strlen(e->part[i]) || memcmp(from, e->part[i], len) != 0)
        print_message("path %d: expected '%s' in '%s'\n", i, e->part[i], why);
      assert_int_equal(len, strlen(e->part[i]));
      assert_memory_equal(from, e->part[i], len);
    } else {
      assert_in_range(len, 1, REASON_MAX);
    }
  }
}

/* On this kind of machine (no RAPL) every path fails: one line naming the
 * three, in order, each with its reason. */
static void test_reason_line(void **state) {
  (void)state;
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  expected e;
  expect_here(&e);
  int rc = open_papi(&m, why);
  if (rc == 0) {
    char dom[sizeof m.dom[0].name];
    snprintf(dom, sizeof dom, "%s", m.dom[0].name);
    ergo__meter_close(&m);
    skip_because("PAPI has an energy path here (%s, ...): no reason line to check", dom);
  }
  assert_int_equal(rc, ERGO_EIO);
  assert_reason(why, &e);
}

/* PAPI's state, or PAPI_NOT_INITED's value 0 without PAPI. */
#if HAVE_PAPI_H
static int papi_state(void) { return PAPI_is_initialized ? PAPI_is_initialized() : 0; }
#else
static int papi_state(void) { return 0; }
#endif

/* ergo starts PAPI for its meter and shuts it down again, so a second open
 * starts afresh and says the same. */
static void test_open_twice(void **state) {
  (void)state;
  ergo__meter m;
  char why1[ERGO__WHY_LEN], why2[ERGO__WHY_LEN];
  if (open_papi(&m, why1) == 0) {
    ergo__meter_close(&m);
    skip_because("PAPI has an energy path here: the open does not fail twice");
  }
  ergo__meter_close(&m); /* a meter that failed to open closes harmlessly */
  assert_int_equal(papi_state(), 0);
  assert_int_equal(open_papi(&m, why2), ERGO_EIO);
  assert_string_equal(why2, why1);
  assert_int_equal(papi_state(), 0);
}

/* PAPI the application initialised is the application's: ergo leaves it running. */
static void test_app_owns_papi(void **state) {
  (void)state;
#if HAVE_PAPI_H
  if (!PAPI_library_init) skip_because("ergo was built without PAPI: there is no PAPI to own");
  char why[ERGO__WHY_LEN];
  expected e;
  expect_here(&e);
  assert_int_equal(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
  ergo__meter m;
  if (open_papi(&m, why) == 0) {
    ergo__meter_close(&m);
    PAPI_shutdown();
    skip_because("PAPI has an energy path here: its lifetime is checked on a failed open");
  }
  assert_reason(why, &e);
  assert_int_equal(PAPI_is_initialized(), PAPI_LOW_LEVEL_INITED);
  PAPI_shutdown();
  assert_int_equal(PAPI_is_initialized(), PAPI_NOT_INITED);
#else
  skip_because("papi.h is not installed: this test cannot start PAPI itself");
#endif
}

/* PAPI's powercap component over a fake /sys/class/powercap.
 *
 * Where it can run, PAPI reads the fake zones and this test checks exact
 * joules.  On our Debian 12 VMs it cannot, for reasons in PAPI, not in the
 * tree: Debian's libpapi 7.0.0 is configured without the powercap (and
 * rapl) component - its components are perf_event, perf_event_uncore, sde,
 * rocm_smi, sysdetect - so PAPI_get_component_index("powercap") is
 * PAPI_ENOCMP whatever /sys holds.  Where the component is built in,
 * linux-powercap.c's init still refuses any vendor but Intel ("Not an Intel
 * processor"; our VMs are AMD EPYC), looks only at intel-rapl:<s> for s below
 * PAPI's socket count, and reads the tree once, at PAPI_library_init.  So
 * there the reason line must stay the same as without the fake tree, and the
 * test says it skipped the reading. */
static void test_fake_powercap(void **state) {
  fakesys *fs = *state;
  fakesys_write(fs, "/sys/class/powercap/intel-rapl/enabled", "1\n", 0444);
  fakesys_write(fs, "/sys/class/powercap/intel-rapl:0/name", "package-0\n", 0444);
  fakesys_write(fs, "/sys/class/powercap/intel-rapl:0/energy_uj", "1000000\n", 0444);
  fakesys_write(fs, "/sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n", 0444);
  fakesys_write(fs, "/sys/class/powercap/intel-rapl:0/enabled", "1\n", 0444);
  fakesys_write(fs, "/sys/class/powercap/intel-rapl:0:0/name", "core\n", 0444);
  fakesys_write(fs, "/sys/class/powercap/intel-rapl:0:0/energy_uj", "500000\n", 0444);
  fakesys_write(fs, "/sys/class/powercap/intel-rapl:0:0/max_energy_range_uj", "262143328850\n",
                0444);
  fakesys_write(fs, "/sys/class/powercap/intel-rapl:0:0/enabled", "0\n", 0444);

  ergo__meter m;
  char why[ERGO__WHY_LEN];
  expected e;
  expect_here(&e);
  int rc = open_papi(&m, why);
  const char *cannot = e.without ? without : e.part[0];
  if (cannot) {
    /* PAPI cannot read any powercap tree here. */
    if (rc == 0) {
      ergo__meter_close(&m);
      skip_because("PAPI's powercap component: %s; PAPI reads energy through another path "
                   "here, so the fake zones are not read",
                   cannot);
    }
    assert_int_equal(rc, ERGO_EIO);
    assert_reason(why, &e);
    if (e.without) skip_because("%s: nothing reads the fake zones", without);
    skip_because("PAPI's powercap component: %s, so PAPI cannot read the fake zones here (its "
                 "reason line was checked)",
                 e.part[0]);
  }
  /* The component is there and enabled: PAPI's powercap component reads the fake zones. */
  if (rc != 0) print_message("ergo__meter_open(papi): %s\n", why);
  assert_int_equal(rc, 0);
  assert_string_equal(m.ops->name, "papi");
  assert_int_equal(m.ndomains, 2);
  assert_string_equal(m.dom[0].name, "package-0");
  assert_int_equal(m.dom[0].in_total, 1);
  assert_true(m.dom[0].joules_per_tick == 1e-6);
  assert_int_equal(m.dom[0].range_ticks, 262143328850ull);
  assert_string_equal(m.dom[1].name, "core-0");
  assert_int_equal(m.dom[1].in_total, 0);
  fakesys_write(fs, "/sys/class/powercap/intel-rapl:0/energy_uj", "3500000\n", 0444);
  fakesys_write(fs, "/sys/class/powercap/intel-rapl:0:0/energy_uj", "1500000\n", 0444);
  double j[ERGO__METER_MAX_DOMAINS];
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(j[0] == 2.5);
  assert_true(j[1] == 1.0);
  ergo__meter_close(&m);
}

int main(void) {
  const struct CMUnitTest plain[] = {
      cmocka_unit_test(test_reason_line),
      cmocka_unit_test(test_open_twice),
      cmocka_unit_test(test_app_owns_papi),
  };
  int failed = cmocka_run_group_tests_name("papi", plain, NULL, NULL);

  static fakesys fs;
  static const char *const mounts[] = {"/sys/class", NULL};
  if (fakesys_create(&fs) != 0) {
    printf("SKIPPED: cannot create the fake sysfs tree in /tmp\n");
    return failed ? 1 : FAKESYS_SKIP;
  }
  const char *skip_why = fakesys_enter(&fs, mounts);
  if (skip_why) {
    printf("SKIPPED: %s\n", skip_why);
    fakesys_destroy(&fs);
    return failed ? 1 : FAKESYS_SKIP;
  }
  const struct CMUnitTest faked[] = {
      cmocka_unit_test_prestate(test_fake_powercap, &fs),
  };
  failed += cmocka_run_group_tests_name("papi over a fake powercap tree", faked, NULL, NULL);
  fakesys_destroy(&fs);
  return failed ? 1 : 0;
}
