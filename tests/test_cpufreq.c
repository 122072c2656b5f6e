/* test_cpufreq.c - the cpufreq knob (libcpupower) on fake acpi-cpufreq and intel_pstate trees. */
#include "ergo.h"
#include "fakecpu.h"
#include "fakesys.h"
#include "knobs/cpuset.h"
#include "knobs/knob.h"
#include "knobs/state.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h> /* after the three above, which it needs */

#include <dirent.h>
#include <grp.h>
#include <hwloc.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* libcpupower writes a value without truncating the file: the harness makes
 * each write to a fake file a store, as sysfs does, and logs it. */
FAKECPU_SYSFS_STORES

#define CPU "/sys/devices/system/cpu"
#define POLICY(n, file) CPU "/cpufreq/policy" #n "/" file
#define NCPUS 4 /* the fake machine; this process is bound to CPUs 0 and 1 of it */

static fakesys fs;
static char state_dir[64];

/* ---- helpers --------------------------------------------------------------------------- */

static void bind_to(int a, int b) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(a, &set);
  if (b >= 0) CPU_SET(b, &set);
  assert_int_equal(sched_setaffinity(0, sizeof set, &set), 0);
}

/* A file as the process sees it (through the mounts). */
static const char *shown(const char *path) {
  static char buf[4096];
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return buf;
}

static void assert_file(const char *path, const char *want) {
  assert_string_equal(shown(path), want);
}

typedef struct store {
  const char *path, *bytes;
} store;

/* Exactly these writes, in this order, since the last fakecpu_stores_reset. */
static void assert_stores(const store *want, int n) {
  if (fakecpu_stores() != n)
    for (int i = 0; i < fakecpu_stores(); i++)
      print_message("store %d: %s = '%s'\n", i, fakecpu_store_at(i)->path,
                    fakecpu_store_at(i)->bytes);
  assert_int_equal(fakecpu_stores(), n);
  for (int i = 0; i < n; i++) {
    assert_string_equal(fakecpu_store_at(i)->path, want[i].path);
    assert_string_equal(fakecpu_store_at(i)->bytes, want[i].bytes);
  }
}

static void open_knob(ergo__knob *k) {
  memset(k, 0, sizeof *k);
  k->ops = &ergo__knob_cpufreq;
  char why[ERGO__KNOB_WHY_LEN];
  int rc = k->ops->open(k, why, sizeof why);
  if (rc) print_message("open: %s\n", why);
  assert_int_equal(rc, 0);
  assert_string_equal(why, "");
}

/* open() must fail with exactly this reason, keeping nothing. */
static void assert_open_fails(const char *want) {
  ergo__knob k;
  memset(&k, 0, sizeof k);
  k.ops = &ergo__knob_cpufreq;
  char why[ERGO__KNOB_WHY_LEN];
  assert_int_equal(k.ops->open(&k, why, sizeof why), ERGO_EIO);
  assert_string_equal(why, want);
  assert_null(k.priv);
  assert_int_equal(fakecpu_stores(), 0);
}

static void assert_get(ergo__knob *k, int64_t want) {
  int64_t v = 0;
  assert_int_equal(k->ops->get(k, &v), 0);
  assert_int_equal(v, want);
}

static void assert_values(const ergo__knob *k, const int64_t *want, int n) {
  assert_int_equal(k->nvalues, n);
  for (int i = 0; i < n; i++) assert_int_equal(k->values[i], want[i]);
}

/* ---- fixtures: a fresh cpufreq tree on the fixed topology ------------------------------ */

static void tree(const fakecpu_policy *p, int per_policy) {
  bind_to(0, 1);
  assert_int_equal(fakecpu_clear_cpufreq(&fs), 0);
  if (p) assert_int_equal(fakecpu_add_policies(&fs, p, NCPUS, per_policy), 0);
  ergo__state_reset();
  fakecpu_stores_reset();
}

/* acpi-cpufreq as on most machines: one policy per CPU (hardware coordination). */
static int acpi_per_cpu(void **state) {
  (void)state;
  tree(&fakecpu_acpi, 1);
  return 0;
}

/* One policy for CPUs 0-1 and one for 2-3 (related_cpus "0 1", "2 3"). */
static int acpi_shared(void **state) {
  (void)state;
  tree(&fakecpu_acpi, 2);
  return 0;
}

static int pstate_per_cpu(void **state) {
  (void)state;
  tree(&fakecpu_pstate, 1);
  return 0;
}

static int no_driver(void **state) {
  (void)state;
  tree(NULL, 0);
  return 0;
}

static int unbind(void **state) {
  (void)state;
  bind_to(0, 1);
  ergo__state_reset();
  return 0;
}

static const int64_t acpi_values[] = {1000000, 1200000, 1400000, 1600000, 1800000, 2000000};

/* ---- the fake machine ------------------------------------------------------------------ */

/* hwloc builds the topology the fake declares (2 packages x 1 core x 2
 * threads, numbered as Linux does: CPUs 0 and 1 are the first threads of
 * packages 0 and 1), and ergo's cpuset is the binding within it. */
static void test_fake_topology(void **state) {
  (void)state;
  hwloc_topology_t topo;
  assert_int_equal(hwloc_topology_init(&topo), 0);
  assert_int_equal(hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED), 0);
  assert_int_equal(hwloc_topology_load(topo), 0);
  assert_int_equal(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), 2);
  assert_int_equal(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), 2);
  assert_int_equal(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), 4);
  static const unsigned pkg_of[NCPUS] = {0, 1, 0, 1};
  for (unsigned cpu = 0; cpu < NCPUS; cpu++) {
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, cpu);
    assert_non_null(pu);
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
    assert_non_null(core);
    assert_non_null(pkg);
    assert_int_equal(core->os_index, 0);
    assert_int_equal(pkg->os_index, pkg_of[cpu]);
  }
  hwloc_topology_destroy(topo);

  static ergo__cpuset cs;
  char why[256] = "";
  assert_int_equal(ergo__cpuset_get(&cs, why, sizeof why), 0);
  assert_int_equal(cs.ncpus, 2);
  assert_int_equal(cs.cpus[0], 0);
  assert_int_equal(cs.cpus[1], 1);
  assert_int_equal(cs.ncores, 2);
  assert_int_equal(cs.npackages, 2);
  assert_int_equal(cs.packages[0], 0);
  assert_int_equal(cs.packages[1], 1);
}

/* ---- userspace governor (acpi-cpufreq) --------------------------------------------------- */

static void test_acpi_open(void **state) {
  (void)state;
  ergo__knob k;
  open_knob(&k);
  assert_values(&k, acpi_values, 6);
  /* schedutil runs it: no setspeed yet, so the ceiling is the value in force. */
  assert_get(&k, 2000000);
  assert_int_equal(fakecpu_stores(), 0);
  k.ops->close(&k);
  assert_null(k.priv);
}

/* Governor userspace, then scaling_setspeed, once per policy of ours (CPUs 0
 * and 1); the governor is written only while it is not userspace yet. */
static void test_acpi_set(void **state) {
  (void)state;
  ergo__knob k;
  open_knob(&k);
  assert_int_equal(k.ops->set(&k, 1600000), 0);
  const store first[] = {
      {CPU "/cpu0/cpufreq/scaling_governor", "userspace"},
      {CPU "/cpu0/cpufreq/scaling_setspeed", "1600000"},
      {CPU "/cpu1/cpufreq/scaling_governor", "userspace"},
      {CPU "/cpu1/cpufreq/scaling_setspeed", "1600000"},
  };
  assert_stores(first, 4);
  assert_file(POLICY(0, "scaling_governor"), "userspace\n");
  assert_file(POLICY(0, "scaling_setspeed"), "1600000\n");
  assert_file(POLICY(1, "scaling_governor"), "userspace\n");
  assert_file(POLICY(1, "scaling_setspeed"), "1600000\n");
  /* CPUs 2 and 3 are not ours. */
  assert_file(POLICY(2, "scaling_governor"), "schedutil\n");
  assert_file(POLICY(2, "scaling_setspeed"), "<unsupported>\n");
  assert_file(POLICY(3, "scaling_setspeed"), "<unsupported>\n");
  /* min and max are left alone in this mode. */
  assert_file(POLICY(0, "scaling_min_freq"), "1000000\n");
  assert_file(POLICY(0, "scaling_max_freq"), "2000000\n");
  assert_get(&k, 1600000);

  fakecpu_stores_reset();
  assert_int_equal(k.ops->set(&k, 1200000), 0);
  const store second[] = {
      {CPU "/cpu0/cpufreq/scaling_setspeed", "1200000"},
      {CPU "/cpu1/cpufreq/scaling_setspeed", "1200000"},
  };
  assert_stores(second, 2);
  assert_file(POLICY(0, "scaling_setspeed"), "1200000\n");
  assert_file(POLICY(1, "scaling_setspeed"), "1200000\n");
  assert_get(&k, 1200000);
  k.ops->close(&k);
}

/* related_cpus "0 1": one policy, set once, through CPU 0. */
static void test_shared_policy(void **state) {
  (void)state;
  ergo__knob k;
  open_knob(&k);
  assert_values(&k, acpi_values, 6);
  assert_int_equal(k.ops->set(&k, 1800000), 0);
  const store want[] = {
      {CPU "/cpu0/cpufreq/scaling_governor", "userspace"},
      {CPU "/cpu0/cpufreq/scaling_setspeed", "1800000"},
  };
  assert_stores(want, 2);
  assert_file(POLICY(0, "scaling_setspeed"), "1800000\n");
  assert_file(POLICY(2, "scaling_governor"), "schedutil\n");
  k.ops->close(&k);
}

/* Bound to CPU 1 alone: its policy also holds CPU 0, which is not ours; the
 * frequency is the policy's, so it is set anyway, through CPU 1. */
static void test_policy_beyond_cpuset(void **state) {
  (void)state;
  bind_to(1, -1);
  ergo__knob k;
  open_knob(&k);
  assert_int_equal(k.ops->set(&k, 1400000), 0);
  const store want[] = {
      {CPU "/cpu1/cpufreq/scaling_governor", "userspace"},
      {CPU "/cpu1/cpufreq/scaling_setspeed", "1400000"},
  };
  assert_stores(want, 2);
  assert_file(POLICY(0, "scaling_setspeed"), "1400000\n");
  k.ops->close(&k);
}

/* ---- pinning min = max (intel_pstate) ------------------------------------------------------ */

static void test_pstate_open(void **state) {
  (void)state;
  ergo__knob k;
  open_knob(&k);
  /* No frequency table: cpuinfo 800000..3500000 in 100000 steps. */
  int64_t want[28];
  for (int i = 0; i < 28; i++) want[i] = 800000 + 100000 * i;
  assert_values(&k, want, 28);
  assert_get(&k, 3500000);
  assert_int_equal(fakecpu_stores(), 0);
  k.ops->close(&k);
}

/* Lowering writes min first, raising writes max first.  A passive file
 * cannot show what held between two writes, so the test checks the order
 * of the logged stores, and replays them on each policy's (min, max) from
 * the original values: min <= max after every single write. */
static void test_pstate_set_order(void **state) {
  (void)state;
  ergo__knob k;
  open_knob(&k);
  assert_int_equal(k.ops->set(&k, 1500000), 0); /* down from max 3500000 */
  assert_int_equal(k.ops->set(&k, 2500000), 0); /* up */
  assert_int_equal(k.ops->set(&k, 900000), 0);  /* down */
  const store want[] = {
      {CPU "/cpu0/cpufreq/scaling_min_freq", "1500000"},
      {CPU "/cpu0/cpufreq/scaling_max_freq", "1500000"},
      {CPU "/cpu1/cpufreq/scaling_min_freq", "1500000"},
      {CPU "/cpu1/cpufreq/scaling_max_freq", "1500000"},
      {CPU "/cpu0/cpufreq/scaling_max_freq", "2500000"},
      {CPU "/cpu0/cpufreq/scaling_min_freq", "2500000"},
      {CPU "/cpu1/cpufreq/scaling_max_freq", "2500000"},
      {CPU "/cpu1/cpufreq/scaling_min_freq", "2500000"},
      {CPU "/cpu0/cpufreq/scaling_min_freq", "900000"},
      {CPU "/cpu0/cpufreq/scaling_max_freq", "900000"},
      {CPU "/cpu1/cpufreq/scaling_min_freq", "900000"},
      {CPU "/cpu1/cpufreq/scaling_max_freq", "900000"},
  };
  assert_stores(want, 12);
  long min[2] = {800000, 800000}, max[2] = {3500000, 3500000};
  for (int i = 0; i < fakecpu_stores(); i++) {
    const fakecpu_store *s = fakecpu_store_at(i);
    int cpu = s->path[strlen(CPU "/cpu")] - '0';
    long v = atol(s->bytes);
    if (strstr(s->path, "scaling_min_freq"))
      min[cpu] = v;
    else
      max[cpu] = v;
    assert_true(min[cpu] <= max[cpu]);
  }
  assert_file(POLICY(0, "scaling_min_freq"), "900000\n");
  assert_file(POLICY(0, "scaling_max_freq"), "900000\n");
  assert_file(POLICY(1, "scaling_min_freq"), "900000\n");
  assert_file(POLICY(1, "scaling_max_freq"), "900000\n");
  assert_file(POLICY(2, "scaling_min_freq"), "800000\n");
  assert_file(POLICY(2, "scaling_max_freq"), "3500000\n");
  /* The governor is the driver's own business here. */
  assert_file(POLICY(0, "scaling_governor"), "powersave\n");
  assert_get(&k, 900000);
  k.ops->close(&k);
}

/* ---- save and restore -------------------------------------------------------------------- */

/* The state file lists exactly these files with these original contents, in order. */
static void assert_saved(const store *want, int n) {
  DIR *d = opendir(state_dir);
  assert_non_null(d);
  char path[512] = "";
  int files = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.' &&
        strncmp(e->d_name, "claim-", 6) != 0) { /* claims: knobs/state_claim.c */
      snprintf(path, sizeof path, "%s/%s", state_dir, e->d_name);
      files++;
    }
  closedir(d);
  assert_int_equal(files, 1);
  json_error_t err;
  json_t *doc = json_load_file(path, 0, &err);
  assert_non_null(doc);
  json_t *list = json_object_get(doc, "files");
  assert_int_equal(json_array_size(list), n);
  for (int i = 0; i < n; i++) {
    json_t *f = json_array_get(list, (size_t)i);
    assert_string_equal(json_string_value(json_object_get(f, "path")), want[i].path);
    assert_string_equal(json_string_value(json_object_get(f, "content")), want[i].bytes);
  }
  json_decref(doc);
}

/* save() tracks what set() writes, in restoring order; after a set, restoring
 * those files leaves the whole tree byte for byte as it was. */
static void save_set_restore(const store *saved, int nsaved, int64_t value) {
  fakecpu_snap *before = fakecpu_snap_take(&fs, CPU);
  assert_non_null(before);
  ergo__knob k;
  open_knob(&k);
  assert_int_equal(k.ops->save(&k), 0);
  assert_int_equal(ergo__state_commit(), 0);
  assert_saved(saved, nsaved);
  assert_int_equal(k.ops->set(&k, value), 0);
  fakecpu_snap *changed = fakecpu_snap_take(&fs, CPU);
  char diff[512];
  assert_int_equal(fakecpu_snap_diff(before, changed, diff, sizeof diff), 1);
  assert_int_equal(ergo__state_restore(), 0);
  fakecpu_snap *after = fakecpu_snap_take(&fs, CPU);
  int differs = fakecpu_snap_diff(before, after, diff, sizeof diff);
  if (differs) print_message("after restore: %s\n", diff);
  assert_int_equal(differs, 0);
  ergo__state_reset();
  fakecpu_snap_free(before);
  fakecpu_snap_free(changed);
  fakecpu_snap_free(after);
  k.ops->close(&k);
}

static void test_acpi_save_restore(void **state) {
  (void)state;
  /* The governor comes back first; setspeed's "<unsupported>" is then what
   * the kernel shows again by itself (knobs/state_restore.c does not write it back). */
  const store saved[] = {
      {CPU "/cpu0/cpufreq/scaling_governor", "schedutil\n"},
      {CPU "/cpu0/cpufreq/scaling_setspeed", "<unsupported>\n"},
      {CPU "/cpu1/cpufreq/scaling_governor", "schedutil\n"},
      {CPU "/cpu1/cpufreq/scaling_setspeed", "<unsupported>\n"},
  };
  save_set_restore(saved, 4, 1200000);
}

static void test_shared_save_restore(void **state) {
  (void)state;
  const store saved[] = {
      {CPU "/cpu0/cpufreq/scaling_governor", "schedutil\n"},
      {CPU "/cpu0/cpufreq/scaling_setspeed", "<unsupported>\n"},
  };
  save_set_restore(saved, 2, 1000000);
}

static void test_pstate_save_restore(void **state) {
  (void)state;
  const store saved[] = {
      {CPU "/cpu0/cpufreq/scaling_min_freq", "800000\n"},
      {CPU "/cpu0/cpufreq/scaling_max_freq", "3500000\n"},
      {CPU "/cpu1/cpufreq/scaling_min_freq", "800000\n"},
      {CPU "/cpu1/cpufreq/scaling_max_freq", "3500000\n"},
  };
  save_set_restore(saved, 4, 2100000);
}

/* Another ergo process (a child here) tunes CPU 1's policy: save() drops that policy with one
 * warning naming it, the holder and the fix, and set() writes CPU 0's alone; with both held, the
 * knob is left alone (ERGO_EBUSY). */
static pid_t holder_of(const char *const *paths, int n) {
  int p[2];
  assert_int_equal(pipe(p), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(p[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* not left behind by a failed test */
    alarm(60);
    for (int i = 0; i < n; i++)
      if (ergo__state_track(paths[i], NULL) != 0) _exit(90);
    if (ergo__state_commit() != 0 || write(p[1], "ready", 5) != 5) _exit(91);
    for (;;) pause();
  }
  close(p[1]);
  char buf[8] = "";
  assert_int_equal(read(p[0], buf, sizeof buf), 5);
  close(p[0]);
  return pid;
}

static void end_holder(pid_t pid) {
  int status = 0;
  kill(pid, SIGTERM);
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}

static void test_policy_held_by_another(void **state) {
  (void)state;
  fakecpu_snap *before = fakecpu_snap_take(&fs, CPU);
  const char *one[] = {CPU "/cpufreq/policy1/scaling_min_freq"};
  pid_t other = holder_of(one, 1);
  ergo__knob k;
  open_knob(&k);
  assert_int_equal(k.ops->save(&k), 0);
  char want[512];
  snprintf(want, sizeof want,
           "cpufreq: " CPU "/cpu1/cpufreq is tuned by ergo process %ld, so this process leaves it "
           "alone (fix: one tuned job per node, or ERGO_KNOBS=none in the other job; MPI ranks "
           "sharing a policy need nothing)",
           (long)other);
  assert_string_equal(ergo_last_error(), want);
  assert_int_equal(ergo__state_commit(), 0);
  fakecpu_stores_reset();
  assert_int_equal(k.ops->set(&k, 2100000), 0);
  const store wrote[] = {
      {CPU "/cpu0/cpufreq/scaling_min_freq", "2100000"},
      {CPU "/cpu0/cpufreq/scaling_max_freq", "2100000"},
  };
  assert_stores(wrote, 2);
  assert_file(POLICY(1, "scaling_max_freq"), "3500000\n");
  assert_int_equal(ergo__state_restore(), 0);
  k.ops->close(&k);
  end_holder(other);

  /* Both policies held: nothing saved, the knob is another's. */
  const char *both[] = {CPU "/cpu0/cpufreq/scaling_min_freq", CPU "/cpu1/cpufreq/scaling_min_freq"};
  other = holder_of(both, 2);
  open_knob(&k);
  assert_int_equal(k.ops->save(&k), ERGO_EBUSY);
  end_holder(other);
  k.ops->close(&k);
  fakecpu_snap *after = fakecpu_snap_take(&fs, CPU);
  char diff[512];
  assert_int_equal(fakecpu_snap_diff(before, after, diff, sizeof diff), 0);
  fakecpu_snap_free(before);
  fakecpu_snap_free(after);
}

/* ---- refusals -------------------------------------------------------------------------- */

/* A value outside values: ERGO_EINVAL, and not one byte written. */
static void assert_refused(const int64_t *bad, int n) {
  ergo__knob k;
  open_knob(&k);
  fakecpu_snap *before = fakecpu_snap_take(&fs, CPU);
  assert_non_null(before);
  for (int i = 0; i < n; i++) assert_int_equal(k.ops->set(&k, bad[i]), ERGO_EINVAL);
  assert_int_equal(fakecpu_stores(), 0);
  fakecpu_snap *after = fakecpu_snap_take(&fs, CPU);
  char diff[512];
  assert_int_equal(fakecpu_snap_diff(before, after, diff, sizeof diff), 0);
  fakecpu_snap_free(before);
  fakecpu_snap_free(after);
  k.ops->close(&k);
}

static void test_acpi_invalid(void **state) {
  (void)state;
  static const int64_t bad[] = {0, -1, 999999, 1500000, 2200000, 4000000000LL, INT64_MAX};
  assert_refused(bad, 7);
}

static void test_pstate_invalid(void **state) {
  (void)state;
  static const int64_t bad[] = {0, 700000, 850000, 3600000, -800000};
  assert_refused(bad, 5);
}

/* As nobody: the first file set() would write is named, with the fix. */
static void assert_unprivileged(const char *want) {
  fflush(stdout);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
    ergo__knob k;
    memset(&k, 0, sizeof k);
    char why[ERGO__KNOB_WHY_LEN];
    int rc = ergo__knob_cpufreq.open(&k, why, sizeof why);
    if (rc != ERGO_EIO || strcmp(why, want) != 0) {
      printf("cpufreq as nobody: rc %d, why '%s'\n", rc, why);
      fflush(stdout);
      _exit(11);
    }
    _exit(fakecpu_stores() == 0 && k.priv == NULL ? 0 : 12);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_acpi_unprivileged(void **state) {
  (void)state;
  assert_unprivileged(CPU "/cpu0/cpufreq/scaling_governor is not writable: run as root, or ask an "
                          "admin for write access to the cpufreq files (ergo never uses sudo)");
}

static void test_pstate_unprivileged(void **state) {
  (void)state;
  assert_unprivileged(CPU "/cpu0/cpufreq/scaling_max_freq is not writable: run as root, or ask an "
                          "admin for write access to the cpufreq files (ergo never uses sudo)");
}

static void test_no_driver(void **state) {
  (void)state;
  assert_open_fails(
      "no cpufreq policy for CPU 0: no cpufreq driver (VM, or cpufreq disabled in BIOS/kernel)");
}

/* A sysfs file without write bits refuses root too (kernfs checks the mode). */
static void test_read_only(void **state) {
  (void)state;
  assert_int_equal(chmod(fakesys_path(&fs, POLICY(1, "scaling_setspeed")), 0444), 0);
  assert_open_fails(CPU "/cpu1/cpufreq/scaling_setspeed is read-only (mode 0444): this cpufreq "
                        "driver does not let it be set, so ergo cannot tune the core frequency "
                        "here");
}

/* A libcpupower call that fails is named, with its CPU. */
static void test_libcpupower_failures(void **state) {
  (void)state;
  assert_int_equal(fakesys_write(&fs, POLICY(1, "related_cpus"), "", 0444), 0);
  assert_open_fails("libcpupower cpufreq_get_related_cpus(CPU 1) failed: no CPU list in " CPU
                    "/cpu1/cpufreq/related_cpus (empty or malformed): check the cpufreq driver");
  assert_int_equal(fakesys_write(&fs, POLICY(1, "related_cpus"), "1\n", 0444), 0);
  assert_int_equal(fakesys_write(&fs, POLICY(0, "scaling_available_governors"), "\n", 0444), 0);
  assert_open_fails("libcpupower cpufreq_get_available_governors(CPU 0) failed: no governor list "
                    "in " CPU "/cpu0/cpufreq/scaling_available_governors (empty or malformed): "
                    "check the cpufreq driver");
}

static void test_no_hardware_limits(void **state) {
  (void)state;
  assert_int_equal(fakesys_write(&fs, POLICY(1, "cpuinfo_max_freq"), "\n", 0444), 0);
  assert_open_fails("libcpupower cpufreq_get_hardware_limits(CPU 1) failed: " CPU
                    "/cpu1/cpufreq/ has no scaling_available_frequencies and no cpuinfo_min_freq "
                    "and cpuinfo_max_freq (read 800000..0): check the cpufreq driver");
}

/* ---- policies that differ -------------------------------------------------------------- */

/* The allowed values are those every policy of ours accepts. */
static void test_intersection(void **state) {
  (void)state;
  tree(NULL, 0);
  static const unsigned long fewer[] = {2000000, 1700000, 1400000, 1000000};
  fakecpu_policy other = fakecpu_acpi;
  other.freqs = fewer;
  other.nfreqs = 4;
  const int cpu0[] = {0}, cpu1[] = {1}, cpu23[] = {2, 3};
  assert_int_equal(fakecpu_add_policy(&fs, &fakecpu_acpi, cpu0, 1), 0);
  assert_int_equal(fakecpu_add_policy(&fs, &other, cpu1, 1), 0);
  assert_int_equal(fakecpu_add_policy(&fs, &fakecpu_acpi, cpu23, 2), 0);
  ergo__knob k;
  open_knob(&k);
  static const int64_t want[] = {1000000, 1400000, 2000000};
  assert_values(&k, want, 3);
  k.ops->close(&k);
}

/* One policy without the userspace governor: every policy is pinned instead. */
static void test_mixed_drivers_pin(void **state) {
  (void)state;
  tree(NULL, 0);
  const int cpu0[] = {0}, cpu1[] = {1}, cpu23[] = {2, 3};
  assert_int_equal(fakecpu_add_policy(&fs, &fakecpu_acpi, cpu0, 1), 0);
  assert_int_equal(fakecpu_add_policy(&fs, &fakecpu_pstate, cpu1, 1), 0);
  assert_int_equal(fakecpu_add_policy(&fs, &fakecpu_pstate, cpu23, 2), 0);
  ergo__knob k;
  open_knob(&k);
  assert_values(&k, acpi_values, 6);
  assert_int_equal(k.ops->set(&k, 1200000), 0);
  const store want[] = {
      {CPU "/cpu0/cpufreq/scaling_min_freq", "1200000"},
      {CPU "/cpu0/cpufreq/scaling_max_freq", "1200000"},
      {CPU "/cpu1/cpufreq/scaling_min_freq", "1200000"},
      {CPU "/cpu1/cpufreq/scaling_max_freq", "1200000"},
  };
  assert_stores(want, 4);
  assert_file(POLICY(0, "scaling_governor"), "schedutil\n");
  assert_get(&k, 1200000);
  k.ops->close(&k);
}

int main(void) {
  /* A fixed binding makes the expected CPUs the same on every machine. */
  cpu_set_t two;
  CPU_ZERO(&two);
  CPU_SET(0, &two);
  CPU_SET(1, &two);
  if (sched_setaffinity(0, sizeof two, &two) != 0) {
    printf("SKIPPED: this test binds itself to CPUs 0 and 1, and this machine has not both\n");
    return FAKESYS_SKIP;
  }
  if (fakesys_create(&fs) != 0 || fakecpu_topology(&fs, 2, 1, 2) != 0) {
    printf("SKIPPED: cannot create a fake sysfs tree in /tmp\n");
    return FAKESYS_SKIP;
  }
  const char *reason = fakesys_enter(&fs, fakecpu_mounts);
  if (reason) {
    printf("SKIPPED: %s\n", reason);
    fakesys_destroy(&fs);
    return FAKESYS_SKIP;
  }
  snprintf(state_dir, sizeof state_dir, "/tmp/ergo-cpufreq-state-XXXXXX");
  if (!mkdtemp(state_dir) || setenv("ERGO_STATE_DIR", state_dir, 1) != 0) {
    printf("SKIPPED: cannot make a state directory in /tmp\n");
    fakesys_destroy(&fs);
    return FAKESYS_SKIP;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_fake_topology, acpi_per_cpu),
      cmocka_unit_test_setup(test_acpi_open, acpi_per_cpu),
      cmocka_unit_test_setup(test_acpi_set, acpi_per_cpu),
      cmocka_unit_test_setup(test_shared_policy, acpi_shared),
      cmocka_unit_test_setup_teardown(test_policy_beyond_cpuset, acpi_shared, unbind),
      cmocka_unit_test_setup(test_pstate_open, pstate_per_cpu),
      cmocka_unit_test_setup(test_pstate_set_order, pstate_per_cpu),
      cmocka_unit_test_setup_teardown(test_acpi_save_restore, acpi_per_cpu, unbind),
      cmocka_unit_test_setup_teardown(test_shared_save_restore, acpi_shared, unbind),
      cmocka_unit_test_setup_teardown(test_pstate_save_restore, pstate_per_cpu, unbind),
      cmocka_unit_test_setup_teardown(test_policy_held_by_another, pstate_per_cpu, unbind),
      cmocka_unit_test_setup(test_acpi_invalid, acpi_per_cpu),
      cmocka_unit_test_setup(test_pstate_invalid, pstate_per_cpu),
      cmocka_unit_test_setup(test_acpi_unprivileged, acpi_per_cpu),
      cmocka_unit_test_setup(test_pstate_unprivileged, pstate_per_cpu),
      cmocka_unit_test_setup(test_no_driver, no_driver),
      cmocka_unit_test_setup(test_read_only, acpi_per_cpu),
      cmocka_unit_test_setup(test_libcpupower_failures, acpi_per_cpu),
      cmocka_unit_test_setup(test_no_hardware_limits, pstate_per_cpu),
      cmocka_unit_test(test_intersection),
      cmocka_unit_test(test_mixed_drivers_pin),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  rmdir(state_dir);
  fakesys_destroy(&fs);
  return failed;
}
