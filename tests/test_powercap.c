/* test_powercap.c - the powercap RAPL meter against a faithful fake /sys (see tests/harness). */
#include "energy/meter.h"
#include "ergo.h"
#include "fakesys.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h> /* after the three above, which it needs */

#include <dirent.h>
#include <ftw.h>
#include <grp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The tree is laid out as the kernel lays it out: the zones live under
 * /sys/devices/virtual/powercap/intel-rapl/, and /sys/class/powercap/ holds
 * relative symlinks into it.  Both /sys/class and /sys/devices/virtual are
 * bind-mounted (the latter because /sys/devices/virtual/powercap does not
 * exist on a machine without RAPL, and a mount point must exist). */
#define DEV "/sys/devices/virtual/powercap"
#define CLS "/sys/class/powercap"
#define PKG_RANGE 262143328850ull
#define DRAM_RANGE 65712999613ull
#define PSYS_RANGE 1023999975585ull

static fakesys fs;

/* The device directory of zone "0" or "0:1". */
static const char *zone_dev(const char *zone, const char *control) {
  static char buf[256];
  int top;
  if (sscanf(zone, "%d", &top) != 1) fail();
  if (strchr(zone, ':'))
    snprintf(buf, sizeof buf, DEV "/%s/%s:%d/%s:%s", control, control, top, control, zone);
  else
    snprintf(buf, sizeof buf, DEV "/%s/%s:%s", control, control, zone);
  return buf;
}

static void set_file(const char *zone, const char *file, mode_t mode, const char *fmt, ...) {
  char path[320], content[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(content, sizeof content, fmt, ap);
  va_end(ap);
  snprintf(path, sizeof path, "%s/%s", zone_dev(zone, "intel-rapl"), file);
  assert_int_equal(fakesys_write(&fs, path, content, mode), 0);
}

/* The counter the kernel shows: "%llu\n", root-only since Linux 5.10. */
static void set_energy(const char *zone, uint64_t uj) {
  set_file(zone, "energy_uj", 0400, "%llu\n", (unsigned long long)uj);
}

/* One zone with the kernel's file names, modes and formats, and its class symlink. */
static void add_zone_in(const char *control, const char *zone, const char *name, uint64_t range,
                        uint64_t energy) {
  char dir[256], path[320], link[128], target[272];
  snprintf(dir, sizeof dir, "%s", zone_dev(zone, control));
  snprintf(path, sizeof path, "%s/name", dir);
  assert_int_equal(fakesys_writef(&fs, path, 0444, "%s\n", name), 0);
  snprintf(path, sizeof path, "%s/max_energy_range_uj", dir);
  assert_int_equal(fakesys_writef(&fs, path, 0444, "%llu\n", (unsigned long long)range), 0);
  snprintf(path, sizeof path, "%s/energy_uj", dir);
  assert_int_equal(fakesys_writef(&fs, path, 0400, "%llu\n", (unsigned long long)energy), 0);
  snprintf(path, sizeof path, "%s/enabled", dir);
  assert_int_equal(fakesys_write(&fs, path, "1\n", 0644), 0);
  snprintf(path, sizeof path, "%s/constraint_0_name", dir);
  assert_int_equal(fakesys_write(&fs, path, "long_term\n", 0444), 0);
  snprintf(path, sizeof path, "%s/constraint_0_power_limit_uw", dir);
  assert_int_equal(fakesys_write(&fs, path, "125000000\n", 0644), 0);
  snprintf(link, sizeof link, CLS "/%s:%s", control, zone);
  snprintf(target, sizeof target, "../..%s", dir + strlen("/sys"));
  assert_int_equal(fakesys_symlink(&fs, link, target), 0);
}

static void add_zone(const char *zone, const char *name, uint64_t range, uint64_t energy) {
  add_zone_in("intel-rapl", zone, name, range, energy);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* An empty powercap class and device tree (the mounts stay). */
static void clear_tree(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s", fakesys_path(&fs, CLS));
  nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  snprintf(path, sizeof path, "%s", fakesys_path(&fs, DEV));
  nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  assert_int_equal(fakesys_mkdir(&fs, CLS), 0);
  assert_int_equal(fakesys_mkdir(&fs, DEV), 0);
}

/* Two sockets with core and DRAM subzones, psys, and the MMIO duplicate of package-0. */
static int setup_two_sockets(void **state) {
  (void)state;
  clear_tree();
  assert_int_equal(
      fakesys_symlink(&fs, CLS "/intel-rapl", "../../devices/virtual/powercap/intel-rapl"), 0);
  assert_int_equal(fakesys_write(&fs, DEV "/intel-rapl/enabled", "1\n", 0644), 0);
  add_zone("0", "package-0", PKG_RANGE, 1000);
  add_zone("0:0", "core", PKG_RANGE, 2000);
  add_zone("0:1", "dram", DRAM_RANGE, 3000);
  add_zone("1", "package-1", PKG_RANGE, 4000);
  add_zone("1:0", "dram", DRAM_RANGE, 5000);
  add_zone("2", "psys", PSYS_RANGE, 6000);
  add_zone_in("intel-rapl-mmio", "0", "package-0", PKG_RANGE, 1000);
  return 0;
}

static int open_powercap(ergo__meter *m, char *why, size_t len) {
  return ergo__meter_open(m, "powercap", why, len);
}

static void test_discovery(void **state) {
  (void)state;
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_powercap(&m, why, sizeof why), 0);
  assert_string_equal(why, "");
  assert_ptr_equal(m.ops, &ergo__meter_powercap);
  assert_null(m.label);
  static const struct {
    const char *name;
    int package, in_total;
    uint64_t range, first;
  } want[] = {
      {"package-0", 0, 1, PKG_RANGE, 1000}, {"core-0", 0, 0, PKG_RANGE, 2000},
      {"dram-0", 0, 1, DRAM_RANGE, 3000},   {"package-1", 1, 1, PKG_RANGE, 4000},
      {"dram-1", 1, 1, DRAM_RANGE, 5000},   {"psys", -1, 0, PSYS_RANGE, 6000},
  };
  assert_int_equal(m.ndomains, 6); /* the intel-rapl-mmio:0 duplicate is not counted */
  for (int i = 0; i < 6; i++) {
    assert_string_equal(m.dom[i].name, want[i].name);
    assert_int_equal(m.dom[i].package, want[i].package);
    assert_int_equal(m.dom[i].in_total, want[i].in_total);
    assert_true(m.dom[i].range_ticks == want[i].range);
    assert_true(m.dom[i].joules_per_tick == 1e-6);
    assert_true(m.last[i] == want[i].first);
  }
  double j[ERGO__METER_MAX_DOMAINS];
  assert_int_equal(ergo__meter_read(&m, j), 0);
  for (int i = 0; i < 6; i++) assert_true(j[i] == 0.0);
  ergo__meter_close(&m);
}

/* The most a zone draws is the largest of its constraints' max_power_uw and power_limit_uw
 * (500 W when it has none); the meter's wrap time is the shortest range at that power, and a
 * read later than that after the previous one counts as unsure (it may have missed a wrap). */
static void test_max_power_and_wrap_time(void **state) {
  (void)state;
  set_file("1", "constraint_0_max_power_uw", 0444, "200000000\n");
  set_file("1", "constraint_1_name", 0444, "short_term\n");
  set_file("1", "constraint_1_power_limit_uw", 0644, "250000000\n");
  char path[320];
  snprintf(path, sizeof path, "%s/constraint_0_power_limit_uw", zone_dev("2", "intel-rapl"));
  assert_int_equal(remove(fakesys_path(&fs, path)), 0);
  set_file("2", "max_energy_range_uj", 0444, "1000\n"); /* psys: 1 mJ, 2 us at 500 W */
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_powercap(&m, why, sizeof why), 0);
  assert_true(m.dom[0].max_watts == 125.0);
  assert_true(m.dom[3].max_watts == 250.0); /* package-1: PL2 above its TDP */
  assert_true(m.dom[5].max_watts == 0.0);   /* psys: no constraint left */
  assert_true(fabs(ergo__domain_wrap_s(&m.dom[5]) - 1e-3 / 500) < 1e-15);
  assert_true(fabs(ergo__domain_wrap_s(&m.dom[3]) - PKG_RANGE * 1e-6 / 250) < 1e-9);
  assert_true(m.wrap_s == ergo__domain_wrap_s(&m.dom[5]));
  double j[ERGO__METER_MAX_DOMAINS];
  usleep(2000);
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(m.unsure == 1);
  ergo__meter_close(&m);
}

/* psys counts when there is no package zone; a top-level DRAM zone per
 * package takes that package's number; multi-die packages keep their suffix. */
static void test_naming_variants(void **state) {
  (void)state;
  clear_tree();
  add_zone("0", "psys", PSYS_RANGE, 1);
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_powercap(&m, why, sizeof why), 0);
  assert_int_equal(m.ndomains, 1);
  assert_string_equal(m.dom[0].name, "psys");
  assert_int_equal(m.dom[0].package, -1);
  assert_int_equal(m.dom[0].in_total, 1);
  ergo__meter_close(&m);

  clear_tree();
  add_zone("0", "package-0", PKG_RANGE, 1);
  add_zone("1", "package-1", PKG_RANGE, 1);
  add_zone("2", "dram", DRAM_RANGE, 1);
  add_zone("3", "dram", DRAM_RANGE, 1);
  add_zone("10", "package-0-die-1", PKG_RANGE, 1);
  add_zone("10:0", "uncore", PKG_RANGE, 1);
  assert_int_equal(open_powercap(&m, why, sizeof why), 0);
  static const char *const names[] = {"package-0", "package-1",       "dram-2",
                                      "dram-3",    "package-0-die-1", "uncore-0-die-1"};
  static const int pkg[] = {0, 1, -1, -1, 0, 0}, total[] = {1, 1, 1, 1, 1, 0};
  assert_int_equal(m.ndomains, 6);
  for (int i = 0; i < 6; i++) {
    assert_string_equal(m.dom[i].name, names[i]);
    assert_int_equal(m.dom[i].package, pkg[i]);
    assert_int_equal(m.dom[i].in_total, total[i]);
  }
  ergo__meter_close(&m);

  /* One DRAM zone per package: the k-th belongs to the k-th package. */
  clear_tree();
  add_zone("0", "package-0", PKG_RANGE, 1);
  add_zone("1", "package-1", PKG_RANGE, 1);
  add_zone("2", "dram", DRAM_RANGE, 1);
  add_zone("3", "dram", DRAM_RANGE, 1);
  assert_int_equal(open_powercap(&m, why, sizeof why), 0);
  assert_int_equal(m.ndomains, 4);
  assert_string_equal(m.dom[2].name, "dram-0");
  assert_string_equal(m.dom[3].name, "dram-1");
  assert_int_equal(m.dom[3].package, 1);
  ergo__meter_close(&m);
}

/* Every delta is exact to the microjoule. */
static void test_deltas_exact(void **state) {
  (void)state;
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_powercap(&m, why, sizeof why), 0);
  set_energy("0", 1000 + 1234567);
  set_energy("0:0", 2000 + 1);
  set_energy("0:1", 3000 + 999999);
  set_energy("1", 4000 + 123456789012ull);
  double j[ERGO__METER_MAX_DOMAINS];
  assert_int_equal(ergo__meter_read(&m, j), 0);
  static const uint64_t d1[] = {1234567, 1, 999999, 123456789012ull, 0, 0};
  for (int i = 0; i < 6; i++) {
    assert_true(m.acc[i] == d1[i]);
    assert_true(j[i] == (double)d1[i] * 1e-6);
  }
  assert_true(j[1] == 1e-6);

  set_energy("0", 1000 + 1234567 + 7);
  set_energy("2", 6000 + 42);
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(m.acc[0] == 1234574);
  assert_true(j[0] == (double)1234574 * 1e-6);
  assert_true(m.acc[5] == 42);
  assert_true(j[5] == (double)42 * 1e-6);
  assert_true(m.reads == 2);
  assert_true(m.wraps == 0);
  ergo__meter_close(&m);
}

/* One wrap between reads: up to max_energy_range_uj, then on from 0. */
static void test_one_wrap(void **state) {
  (void)state;
  set_energy("0", PKG_RANGE - 100);
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_powercap(&m, why, sizeof why), 0);
  set_energy("0", 50);
  double j[ERGO__METER_MAX_DOMAINS];
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(m.acc[0] == PKG_RANGE - (PKG_RANGE - 100) + 50);
  assert_true(m.acc[0] == 150);
  assert_true(j[0] == (double)150 * 1e-6);
  assert_true(m.wraps == 1);
  ergo__meter_close(&m);
}

/* Reading at least once per wrap period (what the background sampler is
 * for) gives the exact total across several wraps.  Two wraps between reads
 * look like one, and a whole period between reads is invisible: no meter
 * can see it, only sampling more often can. */
/* A meter clock on which every read comes an hour after the previous one, so the fake
 * counter's big steps are plausible (meter.c doubts a wrap the package cannot have drawn). */
static double hours_apart(void) {
  static double t = 1e9; /* after the real clock's reading at open */
  return t += 3600.0;
}

static void test_sampler_catches_wraps(void **state) {
  (void)state;
  uint64_t c = PKG_RANGE - 1000; /* the counter the hardware keeps, modulo the range */
  set_energy("0", c);
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_powercap(&m, why, sizeof why), 0);
  m.now = hours_apart; /* the fake counter moves half a range per step: time must pass */
  static const uint64_t steps[] = {PKG_RANGE / 2 + 7, PKG_RANGE - 1, 3,
                                   PKG_RANGE / 3,     PKG_RANGE / 3, PKG_RANGE / 2,
                                   PKG_RANGE - 12345};
  uint64_t truth = 0;
  double j[ERGO__METER_MAX_DOMAINS];
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
    c = (c + steps[i]) % PKG_RANGE;
    truth += steps[i];
    set_energy("0", c);
    assert_int_equal(ergo__meter_read(&m, j), 0);
  }
  assert_true(truth > 3 * PKG_RANGE);
  assert_true(m.wraps == 4);
  assert_true(m.acc[0] == truth);
  assert_true(j[0] == (double)truth * 1e-6);

  /* A whole period and 5 µJ between two reads: the meter sees 5 µJ. */
  c = (c + PKG_RANGE + 5) % PKG_RANGE;
  set_energy("0", c);
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(m.acc[0] == truth + 5);
  ergo__meter_close(&m);
}

/* energy_uj is 0400 root (Linux >= 5.10): an unprivileged process gets the
 * reason, and "auto" falls back to the next meters without crashing. */
static void test_permission_denied(void **state) {
  (void)state;
  fflush(stdout);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
    ergo__meter m;
    char why[ERGO__WHY_LEN];
    int rc = ergo__meter_open(&m, "powercap", why, sizeof why);
    const char *want = "powercap: " CLS "/intel-rapl:0/energy_uj is readable by root only since "
                       "Linux 5.10 (CVE-2020-8694): run as root, or have an admin `chmod o+r "
                       "/sys/class/powercap/intel-rapl:*/energy_uj` (or a udev rule), or use "
                       "ERGO_ENERGY=perf with perf_event_paranoid <= 0";
    if (rc != ERGO_EIO || strcmp(why, want) != 0) {
      printf("powercap as nobody: rc %d, why '%s'\n", rc, why);
      _exit(11);
    }
    if (!strstr(why, "readable by root only since Linux 5.10")) _exit(12);
    rc = ergo__meter_open(&m, "auto", why, sizeof why);
    if (rc == 0) {
      /* Another meter works here: it is not powercap, and opened cleanly. */
      if (m.ops == &ergo__meter_powercap || why[0] != '\0') _exit(13);
      ergo__meter_close(&m);
      _exit(0);
    }
    static const char *const starts[] = {"powercap: ", "perf: ", "papi: "};
    char *line = why;
    for (int i = 0; i < 3; i++) {
      char *nl = strchr(line, '\n');
      if (strncmp(line, starts[i], strlen(starts[i])) != 0 || (i < 2 && !nl) || (i == 2 && nl)) {
        printf("auto as nobody: line %d of '%s'\n", i, why);
        _exit(14);
      }
      if (i == 0 && (strncmp(line, want, strlen(want)) != 0 || line[strlen(want)] != '\n'))
        _exit(15);
      if (nl) line = nl + 1;
    }
    _exit(0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_missing_class(void **state) {
  (void)state;
  char hidden[1024];
  snprintf(hidden, sizeof hidden, "%s.hidden", fakesys_path(&fs, CLS));
  assert_int_equal(rename(fakesys_path(&fs, CLS), hidden), 0);
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_powercap(&m, why, sizeof why), ERGO_EIO);
  assert_string_equal(why, "powercap: no /sys/class/powercap: the intel_rapl/powercap driver is "
                           "not loaded (modprobe intel_rapl_common) or this is a VM without RAPL");
  assert_null(m.ops);
  assert_int_equal(rename(hidden, fakesys_path(&fs, CLS)), 0);
}

static void test_no_zones(void **state) {
  (void)state;
  clear_tree();
  add_zone_in("intel-rapl-mmio", "0", "package-0", PKG_RANGE, 1);
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_powercap(&m, why, sizeof why), ERGO_EIO);
  assert_string_equal(why, "powercap: no intel-rapl zones in /sys/class/powercap: this CPU or "
                           "kernel exposes no RAPL (modprobe intel_rapl_msr), or use "
                           "ERGO_ENERGY=perf");
}

static void test_malformed(void **state) {
  (void)state;
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  set_file("0:1", "energy_uj", 0400, "abc\n");
  assert_int_equal(open_powercap(&m, why, sizeof why), ERGO_EFORMAT);
  assert_string_equal(why, "powercap: /sys/class/powercap/intel-rapl:0:1/energy_uj holds 'abc', "
                           "not a count of microjoules as the powercap driver writes it: check "
                           "that file, or use ERGO_ENERGY=perf");
  set_energy("0:1", 3000);

  set_file("1", "max_energy_range_uj", 0444, "-1\n");
  assert_int_equal(open_powercap(&m, why, sizeof why), ERGO_EFORMAT);
  assert_string_equal(why,
                      "powercap: /sys/class/powercap/intel-rapl:1/max_energy_range_uj holds "
                      "'-1', not a range in microjoules as the powercap driver writes it: check "
                      "that file, or use ERGO_ENERGY=perf");
  set_file("1", "max_energy_range_uj", 0444, "%llu\n", PKG_RANGE);

  /* Turning bad after open: the read fails, and keeps the last good totals. */
  assert_int_equal(open_powercap(&m, why, sizeof why), 0);
  set_energy("0", 1010);
  double j[ERGO__METER_MAX_DOMAINS];
  assert_int_equal(ergo__meter_read(&m, j), 0);
  set_file("0", "energy_uj", 0400, "12x4\n");
  assert_int_equal(ergo__meter_read(&m, j), ERGO_EFORMAT);
  assert_true(j[0] == (double)10 * 1e-6);
  set_file("0", "energy_uj", 0400, "");
  assert_int_equal(ergo__meter_read(&m, j), ERGO_EIO);
  set_energy("0", 1020);
  assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_true(j[0] == (double)20 * 1e-6);
  ergo__meter_close(&m);
}

static int count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* Every energy_uj is opened once, and close gives the descriptors back. */
static void test_close_releases(void **state) {
  (void)state;
  int before = count_fds();
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_powercap(&m, why, sizeof why), 0);
  assert_int_equal(count_fds(), before + 6);
  double j[ERGO__METER_MAX_DOMAINS];
  for (int i = 0; i < 100; i++) assert_int_equal(ergo__meter_read(&m, j), 0);
  assert_int_equal(count_fds(), before + 6);
  ergo__meter_close(&m);
  assert_int_equal(count_fds(), before);
  assert_null(m.ops);
  ergo__meter_close(&m); /* harmless twice */

  /* A failed open keeps nothing either. */
  set_file("1:0", "energy_uj", 0400, "x\n");
  assert_int_equal(open_powercap(&m, why, sizeof why), ERGO_EFORMAT);
  assert_int_equal(count_fds(), before);
}

int main(void) {
  if (fakesys_create(&fs) != 0) {
    printf("SKIPPED: cannot create a fake sysfs tree in /tmp\n");
    return FAKESYS_SKIP;
  }
  const char *reason =
      fakesys_enter(&fs, (const char *[]){"/sys/class", "/sys/devices/virtual", NULL});
  if (reason) {
    printf("SKIPPED: %s\n", reason);
    fakesys_destroy(&fs);
    return FAKESYS_SKIP;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_discovery, setup_two_sockets),
      cmocka_unit_test_setup(test_naming_variants, setup_two_sockets),
      cmocka_unit_test_setup(test_deltas_exact, setup_two_sockets),
      cmocka_unit_test_setup(test_one_wrap, setup_two_sockets),
      cmocka_unit_test_setup(test_max_power_and_wrap_time, setup_two_sockets),
      cmocka_unit_test_setup(test_sampler_catches_wraps, setup_two_sockets),
      cmocka_unit_test_setup(test_permission_denied, setup_two_sockets),
      cmocka_unit_test_setup(test_missing_class, setup_two_sockets),
      cmocka_unit_test_setup(test_no_zones, setup_two_sockets),
      cmocka_unit_test_setup(test_malformed, setup_two_sockets),
      cmocka_unit_test_setup(test_close_releases, setup_two_sockets),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  fakesys_destroy(&fs);
  return failed;
}
