/* test_perf.c - the perf_event power PMU meter: sysfs parsing, reasons, and reads on a fake PMU. */
#include <ergo.h>

#include <errno.h>
#include <ftw.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

#include "energy/meter.h"
#include "fakesys.h"

#include "energy/perf_parse.h"

#define PMU "/sys/bus/event_source/devices/power"
#define RAPL_SCALE "2.3283064365386962890625e-10\n" /* the kernel's 2^-32 J */

/* ---- parsing, no sysfs ---------------------------------------------- */

static void test_cpulist(void **state) {
  (void)state;
  int c[8];
  assert_int_equal(ergo__perf_parse_cpulist("0\n", c, 8), 1);
  assert_int_equal(c[0], 0);
  assert_int_equal(ergo__perf_parse_cpulist("0,20\n", c, 8), 2);
  assert_int_equal(c[0], 0);
  assert_int_equal(c[1], 20);
  assert_int_equal(ergo__perf_parse_cpulist("0-1", c, 8), 2);
  assert_int_equal(c[1], 1);
  assert_int_equal(ergo__perf_parse_cpulist("0-2,8-9\n", c, 8), 5);
  int want[] = {0, 1, 2, 8, 9};
  assert_memory_equal(c, want, sizeof want);
  assert_int_equal(ergo__perf_parse_cpulist("\n", c, 8), 0);
  assert_int_equal(ergo__perf_parse_cpulist("0-9", c, 8), -1); /* more than max */
  assert_int_equal(ergo__perf_parse_cpulist("3-1", c, 8), -1);
  assert_int_equal(ergo__perf_parse_cpulist("0,", c, 8), -1);
  assert_int_equal(ergo__perf_parse_cpulist("a", c, 8), -1);
  assert_int_equal(ergo__perf_parse_cpulist("0 1", c, 8), -1);
}

static void test_format(void **state) {
  (void)state;
  int lo, hi;
  assert_int_equal(ergo__perf_parse_format("config:0-7\n", &lo, &hi), 0);
  assert_int_equal(lo, 0);
  assert_int_equal(hi, 7);
  assert_int_equal(ergo__perf_parse_format("config:8-15", &lo, &hi), 0);
  assert_int_equal(lo, 8);
  assert_int_equal(hi, 15);
  assert_int_equal(ergo__perf_parse_format("config:21\n", &lo, &hi), 0);
  assert_int_equal(lo, 21);
  assert_int_equal(hi, 21);
  assert_int_equal(ergo__perf_parse_format("config1:0-7", &lo, &hi), -1);
  assert_int_equal(ergo__perf_parse_format("config:7-0", &lo, &hi), -1);
  assert_int_equal(ergo__perf_parse_format("config:0-64", &lo, &hi), -1);
}

/* x86's event (config:0-7) and umask (config:8-15) fields. */
static int x86_field(void *ctx, const char *term, int *lo, int *hi) {
  (void)ctx;
  if (strcmp(term, "event") == 0) return *lo = 0, *hi = 7, 0;
  if (strcmp(term, "umask") == 0) return *lo = 8, *hi = 15, 0;
  return -1;
}

static void test_event(void **state) {
  (void)state;
  uint64_t cfg = 99;
  assert_int_equal(ergo__perf_parse_event("event=0x02\n", x86_field, NULL, &cfg), 0);
  assert_int_equal(cfg, 0x02);
  assert_int_equal(ergo__perf_parse_event("event=0x02,umask=0x1", x86_field, NULL, &cfg), 0);
  assert_int_equal(cfg, 0x102);
  assert_int_equal(ergo__perf_parse_event("event=3", x86_field, NULL, &cfg), 0);
  assert_int_equal(cfg, 3);
  assert_int_equal(ergo__perf_parse_event("config=0x1234", x86_field, NULL, &cfg), 0);
  assert_int_equal(cfg, 0x1234);
  assert_int_equal(ergo__perf_parse_event("event=0x01,umask", x86_field, NULL, &cfg), 0);
  assert_int_equal(cfg, 0x101); /* a bare term is 1 */
  cfg = 99;
  assert_int_equal(ergo__perf_parse_event("event=0x100", x86_field, NULL, &cfg), -1);
  assert_int_equal(ergo__perf_parse_event("cmask=0x1", x86_field, NULL, &cfg), -1);
  assert_int_equal(ergo__perf_parse_event("event=zz", x86_field, NULL, &cfg), -1);
  assert_int_equal(ergo__perf_parse_event("event=0x02;", x86_field, NULL, &cfg), -1);
  assert_int_equal(ergo__perf_parse_event("=0x02", x86_field, NULL, &cfg), -1);
  assert_int_equal(cfg, 99); /* untouched on failure */
}

static void test_scale_unit(void **state) {
  (void)state;
  double s = 0;
  assert_int_equal(ergo__perf_parse_scale(RAPL_SCALE, &s), 0);
  assert_true(s == 0x1p-32);
  assert_int_equal(ergo__perf_parse_scale("1e-6", &s), 0);
  assert_true(s == 1e-6);
  assert_int_equal(ergo__perf_parse_scale("abc\n", &s), -1);
  assert_int_equal(ergo__perf_parse_scale("0\n", &s), -1);
  assert_int_equal(ergo__perf_parse_scale("-1e-9\n", &s), -1);
  assert_int_equal(ergo__perf_parse_scale("1e-9 J\n", &s), -1);
  assert_int_equal(ergo__perf_parse_scale("inf\n", &s), -1);
  assert_int_equal(ergo__perf_parse_scale("", &s), -1);
  assert_true(s == 1e-6);
  assert_int_equal(ergo__perf_parse_unit("Joules\n"), 0);
  assert_int_equal(ergo__perf_parse_unit("Joules"), 0);
  assert_int_equal(ergo__perf_parse_unit("Watts\n"), -1);
  assert_int_equal(ergo__perf_parse_unit("Joule\n"), -1);
}

/* ---- the meter on a fake PMU (needs the harness) --------------------- */

static fakesys fs;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static void rm_fake(const char *path) {
  char full[1024];
  snprintf(full, sizeof full, "%s", fakesys_path(&fs, path));
  nftw(full, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* One RAPL event in the kernel's files: events/<name>, .scale, .unit. */
static void fake_event(const char *name, const char *config) {
  char path[256];
  snprintf(path, sizeof path, PMU "/events/%s", name);
  assert_int_equal(fakesys_write(&fs, path, config, 0444), 0);
  snprintf(path, sizeof path, PMU "/events/%s.scale", name);
  assert_int_equal(fakesys_write(&fs, path, RAPL_SCALE, 0444), 0);
  snprintf(path, sizeof path, PMU "/events/%s.unit", name);
  assert_int_equal(fakesys_write(&fs, path, "Joules\n", 0444), 0);
}

/* A fresh power PMU of `type`: cpumask 0,1 on packages pkg0 and pkg1. */
static void fake_pmu(const char *type, int pkg0, int pkg1) {
  rm_fake(PMU);
  assert_int_equal(fakesys_write(&fs, PMU "/type", type, 0444), 0);
  assert_int_equal(fakesys_write(&fs, PMU "/cpumask", "0-1\n", 0444), 0);
  assert_int_equal(fakesys_write(&fs, PMU "/format/event", "config:0-7\n", 0444), 0);
  assert_int_equal(fakesys_writef(&fs, "/sys/devices/system/cpu/cpu0/topology/physical_package_id",
                                  0444, "%d\n", pkg0),
                   0);
  assert_int_equal(fakesys_writef(&fs, "/sys/devices/system/cpu/cpu1/topology/physical_package_id",
                                  0444, "%d\n", pkg1),
                   0);
}

static int open_perf(ergo__meter *m, char *why) {
  memset(m, 0, sizeof *m);
  why[0] = '\0';
  return ergo__meter_open(m, "perf", why, ERGO__WHY_LEN);
}

static void test_no_pmu(void **state) {
  (void)state;
  rm_fake(PMU);
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_perf(&m, why), ERGO_EIO);
  assert_string_equal(why, "perf: no perf power PMU at /sys/bus/event_source/devices/power: needs "
                           "the intel_rapl_perf/rapl PMU (bare metal, Linux >= 3.14); not "
                           "available in most VMs");
}

/* The kernel knows no PMU of type 4242: ENOENT, named with event and CPU. */
static void test_unknown_type(void **state) {
  (void)state;
  fake_pmu("4242\n", 0, 0);
  fake_event("energy-pkg", "event=0x02\n");
  fake_event("energy-ram", "event=0x03\n");
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_perf(&m, why), ERGO_EIO);
  assert_string_equal(why, "perf: perf_event_open(power/energy-pkg/, cpu 0) failed: No such file "
                           "or directory (type 4242, config 0x2)");
}

static void test_malformed_files(void **state) {
  (void)state;
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  fake_pmu("4242\n", 0, 0);
  fake_event("energy-pkg", "event=0x02\n");
  assert_int_equal(fakesys_write(&fs, PMU "/events/energy-pkg.scale", "abc\n", 0444), 0);
  assert_int_equal(open_perf(&m, why), ERGO_EFORMAT);
  assert_string_equal(why, "perf: /sys/bus/event_source/devices/power/events/energy-pkg.scale "
                           "holds 'abc', not a positive number of joules per count as the kernel "
                           "writes");

  fake_event("energy-pkg", "event=0x02\n");
  assert_int_equal(fakesys_write(&fs, PMU "/events/energy-pkg.unit", "Watts\n", 0444), 0);
  assert_int_equal(open_perf(&m, why), ERGO_EFORMAT);
  assert_string_equal(why, "perf: /sys/bus/event_source/devices/power/events/energy-pkg.unit "
                           "holds 'Watts', not Joules as the kernel writes");

  fake_event("energy-pkg", "event=0x02,cmask=1\n"); /* no format/cmask */
  assert_int_equal(open_perf(&m, why), ERGO_EFORMAT);
  assert_string_equal(why, "perf: /sys/bus/event_source/devices/power/events/energy-pkg holds "
                           "'event=0x02,cmask=1', not terms like event=0x02 that "
                           "/sys/bus/event_source/devices/power/format/ describes as the kernel "
                           "writes");

  fake_event("energy-pkg", "event=0x02\n");
  assert_int_equal(fakesys_write(&fs, PMU "/cpumask", "zero\n", 0444), 0);
  assert_int_equal(open_perf(&m, why), ERGO_EFORMAT);
  assert_string_equal(why, "perf: /sys/bus/event_source/devices/power/cpumask holds 'zero', not a "
                           "list of CPUs as the kernel writes");

  fake_pmu("4242\n", 0, 0);
  rm_fake(PMU "/events");
  assert_int_equal(fakesys_mkdir(&fs, PMU "/events"), 0);
  assert_int_equal(open_perf(&m, why), ERGO_EIO);
  assert_string_equal(why, "perf: the perf power PMU has no energy-pkg, energy-cores, energy-ram, "
                           "energy-gpu or energy-psys event in "
                           "/sys/bus/event_source/devices/power/events");
}

/* As an unprivileged user with perf_event_paranoid > 0, the kernel refuses
 * system-wide events before it looks at the type: the reason says how to
 * allow them.  Run in a child that drops root. */
static void test_paranoid(void **state) {
  (void)state;
  char p[16] = "";
  FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
  if (f) {
    if (!fgets(p, sizeof p, f)) p[0] = '\0';
    fclose(f);
  }
  p[strcspn(p, "\n")] = '\0';
  if (atoi(p) <= 0)
    skip_because("perf_event_paranoid is %s here: an unprivileged user is not refused", p);
  fake_pmu("1\n", 0, 1);
  fake_event("energy-pkg", "event=0x00\n");
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fd[0]);
    ergo__meter m;
    char why[ERGO__WHY_LEN];
    int rc = setresgid(65534, 65534, 65534) == 0 && setresuid(65534, 65534, 65534) == 0
                 ? open_perf(&m, why)
                 : 1;
    if (rc == 1) snprintf(why, sizeof why, "could not drop root");
    if (write(fd[1], why, strlen(why) + 1) < 0) _exit(2);
    _exit(rc == ERGO_EIO ? 0 : 1);
  }
  close(fd[1]);
  char why[ERGO__WHY_LEN] = "";
  ssize_t n = read(fd[0], why, sizeof why - 1);
  close(fd[0]);
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(n > 0);
  char want[ERGO__WHY_LEN];
  snprintf(want, sizeof want,
           "perf: perf_event_open(power/energy-pkg/) refused: perf_event_paranoid is %s "
           "(/proc/sys/kernel/perf_event_paranoid); system-wide events need paranoid <= 0 or "
           "CAP_PERFMON/CAP_SYS_ADMIN",
           p);
  assert_string_equal(why, want);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void assert_domain(const ergo__domain *d, const char *name, int package, int in_total) {
  assert_string_equal(d->name, name);
  assert_int_equal(d->package, package);
  assert_int_equal(d->in_total, in_total);
  assert_true(d->joules_per_tick == 0x1p-32);
  assert_int_equal(d->range_ticks, 0);
}

/* The software PMU (type 1) stands in for the power PMU: event 0 is
 * cpu-clock, a system-wide per-CPU counter that always moves, so the whole
 * path (perf_event_open per package, 8-byte reads, scale) runs for real. */
static void test_reads_software_pmu(void **state) {
  (void)state;
  char type[8];
  snprintf(type, sizeof type, "%d\n", PERF_TYPE_SOFTWARE);
  fake_pmu(type, 0, 1);
  fake_event("energy-pkg", "event=0x00\n");
  fake_event("energy-ram", "event=0x00\n");
  fake_event("energy-psys", "event=0x00\n");
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_perf(&m, why), 0);
  assert_string_equal(why, "");
  assert_int_equal(m.ndomains, 5);
  assert_domain(&m.dom[0], "package-0", 0, 1);
  assert_domain(&m.dom[1], "dram-0", 0, 1);
  assert_domain(&m.dom[2], "package-1", 1, 1);
  assert_domain(&m.dom[3], "dram-1", 1, 1);
  assert_domain(&m.dom[4], "psys", -1, 0); /* packages are counted: psys is not */
  double j1[ERGO__METER_MAX_DOMAINS], j2[ERGO__METER_MAX_DOMAINS];
  usleep(20000);
  assert_int_equal(ergo__meter_read(&m, j1), 0);
  usleep(20000);
  assert_int_equal(ergo__meter_read(&m, j2), 0);
  for (int i = 0; i < m.ndomains; i++) {
    /* cpu-clock counts nanoseconds: over 40 ms at least 10 ms, at most a second. */
    assert_true(j2[i] > j1[i]);
    assert_true(j2[i] >= 0.010e9 * 0x1p-32);
    assert_true(j2[i] < 1e9 * 0x1p-32);
  }
  ergo__meter_close(&m);
  ergo__meter_close(&m); /* a closed meter closes again harmlessly */
}

/* Cores and GPU lie inside the package; psys counts only without packages;
 * two cpumask CPUs on one package (dies) are numbered in cpumask order. */
static void test_domain_table(void **state) {
  (void)state;
  fake_pmu("1\n", 0, 0);
  fake_event("energy-cores", "event=0x00\n");
  fake_event("energy-gpu", "event=0x00\n");
  fake_event("energy-psys", "event=0x00\n");
  ergo__meter m;
  char why[ERGO__WHY_LEN];
  assert_int_equal(open_perf(&m, why), 0);
  assert_int_equal(m.ndomains, 5);
  assert_domain(&m.dom[0], "core-0", 0, 0);
  assert_domain(&m.dom[1], "gpu-0", 0, 0);
  assert_domain(&m.dom[2], "core-1", 1, 0);
  assert_domain(&m.dom[3], "gpu-1", 1, 0);
  assert_domain(&m.dom[4], "psys", -1, 1);
  ergo__meter_close(&m);

  /* A missing topology file is named. */
  rm_fake("/sys/devices/system/cpu/cpu1");
  assert_int_equal(open_perf(&m, why), ERGO_EIO);
  assert_string_equal(why, "perf: cannot read "
                           "/sys/devices/system/cpu/cpu1/topology/physical_package_id: No such "
                           "file or directory");
}

int main(void) {
  const struct CMUnitTest parse[] = {
      cmocka_unit_test(test_cpulist),
      cmocka_unit_test(test_format),
      cmocka_unit_test(test_event),
      cmocka_unit_test(test_scale_unit),
  };
  int failed = cmocka_run_group_tests_name("perf parsing", parse, NULL, NULL);

  const struct CMUnitTest sysfs[] = {
      cmocka_unit_test(test_no_pmu),
      cmocka_unit_test(test_unknown_type),
      cmocka_unit_test(test_malformed_files),
      cmocka_unit_test(test_paranoid),
      cmocka_unit_test(test_reads_software_pmu),
      cmocka_unit_test(test_domain_table),
  };
  static const char *const mounts[] = {"/sys/bus/event_source", "/sys/devices/system/cpu", NULL};
  if (fakesys_create(&fs) != 0) {
    printf("SKIPPED: cannot create the fake sysfs tree in /tmp\n");
    return failed ? 1 : FAKESYS_SKIP;
  }
  /* Only what the meter (and the C library) reads: the rest of cpu/ is hidden. */
  fakesys_write(&fs, "/sys/devices/system/cpu/online", "0-1\n", 0444);
  fakesys_write(&fs, "/sys/devices/system/cpu/possible", "0-1\n", 0444);
  const char *skip_why = fakesys_enter(&fs, mounts);
  if (skip_why) {
    printf("SKIPPED: %s\n", skip_why);
    fakesys_destroy(&fs);
    return failed ? 1 : FAKESYS_SKIP;
  }
  failed += cmocka_run_group_tests_name("perf on a fake power PMU", sysfs, NULL, NULL);
  fakesys_destroy(&fs);
  return failed ? 1 : 0;
}
