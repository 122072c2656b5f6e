/* test_uncore.c - the uncore frequency knob against a faithful fake
 * /sys/devices/system/cpu (CPU topology for hwloc, intel_uncore_frequency). */
#include "ergo.h"
#include "fakesys.h"
#include "knobs/knob.h"
#include "knobs/state.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h> /* after the three above, which it needs */

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CPU "/sys/devices/system/cpu"
#define UNC CPU "/intel_uncore_frequency"
#define D00 UNC "/package_00_die_00"
#define D01 UNC "/package_00_die_01"
#define D10 UNC "/package_01_die_00"

static fakesys fs;
static cpu_set_t all_cpus; /* the affinity the test started with */

/* The contents of a fake file (static buffer; "" when unreadable). */
static const char *slurp(const char *path) {
  static char buf[256];
  buf[0] = '\0';
  FILE *f = fopen(fakesys_path(&fs, path), "r");
  if (!f) return buf;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static void put(const char *path, mode_t mode, const char *fmt, ...) {
  char content[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(content, sizeof content, fmt, ap);
  va_end(ap);
  assert_int_equal(fakesys_write(&fs, path, content, mode), 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag;
  return ftw->level == 0 ? 0 : remove(path); /* the mount point itself stays */
}

/* A hex CPU mask as the kernel prints it (%*pb) for a machine of <= 32 CPUs. */
static void put_mask(const char *path, unsigned mask, const char *list) {
  char p[160];
  snprintf(p, sizeof p, "%.150s", path);
  put(p, 0444, "%x\n", mask);
  snprintf(p, sizeof p, "%.150s_list", path);
  put(p, 0444, "%s\n", list);
}

/* cpuN's topology directory, as drivers/base/topology.c shows it (hwloc
 * needs the masks; the ids name packages and dies). */
static void add_cpu(int n, int package, int die, int core, unsigned die_mask, const char *die_list,
                    unsigned pkg_mask, const char *pkg_list) {
  char dir[96], p[160], self[8];
  snprintf(dir, sizeof dir, CPU "/cpu%d/topology", n);
  snprintf(self, sizeof self, "%d", n);
  static const char *const ids[] = {"physical_package_id", "die_id", "core_id", "cluster_id"};
  const int vals[] = {package, die, core, 65535};
  for (int i = 0; i < 4; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, ids[i]);
    put(p, 0444, "%d\n", vals[i]);
  }
  static const char *const own[] = {"core_cpus", "thread_siblings", "cluster_cpus"};
  for (int i = 0; i < 3; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, own[i]);
    put_mask(p, 1u << n, self);
  }
  snprintf(p, sizeof p, "%s/die_cpus", dir);
  put_mask(p, die_mask, die_list);
  static const char *const pkg[] = {"package_cpus", "core_siblings"};
  for (int i = 0; i < 2; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, pkg[i]);
    put_mask(p, pkg_mask, pkg_list);
  }
}

/* An empty fake /sys/devices/system/cpu with CPUs 0 and 1 online. */
static void clear_cpu_tree(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s", fakesys_path(&fs, CPU));
  nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  static const char *const sets[] = {"online", "possible", "present"};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, CPU "/%s", sets[i]);
    put(path, 0444, "0-1\n");
  }
  put(CPU "/kernel_max", 0444, "8191\n");
}

/* One package_XX_die_YY directory with the driver's names, modes and "%u\n". */
static void add_die(const char *dir, unsigned init_min, unsigned init_max, unsigned min,
                    unsigned max) {
  char p[160];
  static const struct {
    const char *name;
    mode_t mode;
  } f[] = {{"initial_min_freq_khz", 0444},
           {"initial_max_freq_khz", 0444},
           {"min_freq_khz", 0644},
           {"max_freq_khz", 0644},
           {"current_freq_khz", 0400}};
  const unsigned v[] = {init_min, init_max, min, max, init_max};
  for (int i = 0; i < 5; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, f[i].name);
    put(p, f[i].mode, "%u\n", v[i]);
  }
}

/* Two sockets of one die, a CPU each; the driver in its out-of-reset state. */
static int setup_two_packages(void **state) {
  (void)state;
  assert_int_equal(sched_setaffinity(0, sizeof all_cpus, &all_cpus), 0);
  clear_cpu_tree();
  add_cpu(0, 0, 0, 0, 0x1, "0", 0x1, "0");
  add_cpu(1, 1, 0, 0, 0x2, "1", 0x2, "1");
  add_die(D00, 800000, 2400000, 800000, 2400000);
  add_die(D10, 800000, 2400000, 800000, 2400000);
  return 0;
}

/* One socket of two dies (Cascade Lake-AP style), a CPU each; a die of
 * another package has a directory but no CPU of ours. */
static int setup_two_dies(void **state) {
  (void)state;
  assert_int_equal(sched_setaffinity(0, sizeof all_cpus, &all_cpus), 0);
  clear_cpu_tree();
  add_cpu(0, 0, 0, 0, 0x1, "0", 0x3, "0-1");
  add_cpu(1, 0, 1, 1, 0x2, "1", 0x3, "0-1");
  add_die(D00, 1200000, 2500000, 1200000, 2500000);
  add_die(D01, 1200000, 2500000, 1200000, 2500000);
  add_die(D10, 1200000, 2500000, 1200000, 2500000);
  return 0;
}

static int open_uncore(ergo__knob *k, char *why) {
  memset(k, 0, sizeof *k);
  k->ops = &ergo__knob_uncore;
  return ergo__knob_uncore.open(k, why, ERGO__KNOB_WHY_LEN);
}

static void assert_pinned(const char *dir, const char *khz) {
  char p[160];
  snprintf(p, sizeof p, "%s/min_freq_khz", dir);
  assert_string_equal(slurp(p), khz);
  snprintf(p, sizeof p, "%s/max_freq_khz", dir);
  assert_string_equal(slurp(p), khz);
}

static void test_values(void **state) {
  (void)state;
  /* Its names and unit are its row's in the knob table. */
  assert_ptr_equal(ergo__knob_table[ERGO__KNOB_UNCORE].real, &ergo__knob_uncore);
  assert_string_equal(ergo__knob_table[ERGO__KNOB_UNCORE].backend, "uncore");
  assert_string_equal(ergo__knob_table[ERGO__KNOB_UNCORE].unit, "kHz");
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN];
  assert_int_equal(open_uncore(&k, why), 0);
  assert_string_equal(why, "");
  assert_int_equal(k.nvalues, 17); /* 0.8 .. 2.4 GHz in 100 MHz steps, both ends */
  for (int i = 0; i < 17; i++) assert_int_equal(k.values[i], 800000 + 100000 * i);
  ergo__knob_uncore.close(&k);
  assert_null(k.priv);

  /* Dies that differ: only the range every die allows. */
  add_die(D10, 1000000, 2200000, 1000000, 2200000);
  assert_int_equal(open_uncore(&k, why), 0);
  assert_int_equal(k.nvalues, 13);
  assert_int_equal(k.values[0], 1000000);
  assert_int_equal(k.values[12], 2200000);
  ergo__knob_uncore.close(&k);
}

/* Watches the die directories: the order in which files are written. */
typedef struct watch {
  int fd, wd[3];
  const char *dir[3];
} watch;

static void watch_start(watch *w, const char *const dirs[3]) {
  w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  assert_true(w->fd >= 0);
  for (int i = 0; i < 3; i++) {
    w->dir[i] = dirs[i];
    w->wd[i] = dirs[i] ? inotify_add_watch(w->fd, fakesys_path(&fs, dirs[i]), IN_CLOSE_WRITE) : -1;
    if (dirs[i]) assert_true(w->wd[i] >= 0);
  }
}

/* "package_00_die_00/max_freq_khz package_00_die_00/min_freq_khz ..." */
static const char *watch_log(watch *w) {
  static char log[1024];
  char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
  log[0] = '\0';
  ssize_t n;
  while ((n = read(w->fd, buf, sizeof buf)) > 0) {
    for (char *p = buf; p < buf + n;) {
      const struct inotify_event *ev = (const struct inotify_event *)p;
      for (int i = 0; i < 3; i++) {
        if (ev->wd != w->wd[i]) continue;
        size_t len = strlen(log);
        snprintf(log + len, sizeof log - len, "%s%s/%s", len ? " " : "",
                 strrchr(w->dir[i], '/') + 1, ev->name);
      }
      p += sizeof *ev + ev->len;
    }
  }
  return log;
}

static void watch_stop(watch *w) { close(w->fd); }

/* Pinning keeps min <= max after every write: raising writes max first,
 * lowering min first, die by die. */
static void test_set_up_down(void **state) {
  (void)state;
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN];
  assert_int_equal(open_uncore(&k, why), 0);
  watch w;
  watch_start(&w, (const char *const[]){D00, D10, NULL});

  assert_int_equal(ergo__knob_uncore.set(&k, 1200000), 0); /* down from max 2.4 GHz */
  assert_string_equal(watch_log(&w),
                      "package_00_die_00/min_freq_khz package_00_die_00/max_freq_khz "
                      "package_01_die_00/min_freq_khz package_01_die_00/max_freq_khz");
  assert_pinned(D00, "1200000\n");
  assert_pinned(D10, "1200000\n");
  int64_t v = 0;
  assert_int_equal(ergo__knob_uncore.get(&k, &v), 0);
  assert_int_equal(v, 1200000);

  assert_int_equal(ergo__knob_uncore.set(&k, 2400000), 0); /* up: both ends are allowed */
  assert_string_equal(watch_log(&w),
                      "package_00_die_00/max_freq_khz package_00_die_00/min_freq_khz "
                      "package_01_die_00/max_freq_khz package_01_die_00/min_freq_khz");
  assert_pinned(D00, "2400000\n");
  assert_pinned(D10, "2400000\n");

  assert_int_equal(ergo__knob_uncore.set(&k, 800000), 0);
  assert_string_equal(watch_log(&w),
                      "package_00_die_00/min_freq_khz package_00_die_00/max_freq_khz "
                      "package_01_die_00/min_freq_khz package_01_die_00/max_freq_khz");
  assert_pinned(D00, "800000\n");
  assert_pinned(D10, "800000\n");
  assert_int_equal(ergo__knob_uncore.get(&k, &v), 0);
  assert_int_equal(v, 800000);
  /* The read-only files are never written. */
  assert_string_equal(slurp(D00 "/initial_min_freq_khz"), "800000\n");
  assert_string_equal(slurp(D00 "/initial_max_freq_khz"), "2400000\n");
  watch_stop(&w);
  ergo__knob_uncore.close(&k);
}

/* get says what is in force, whoever set it: max_freq_khz of the first die. */
static void test_get(void **state) {
  (void)state;
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN];
  assert_int_equal(open_uncore(&k, why), 0);
  int64_t v = 0;
  assert_int_equal(ergo__knob_uncore.get(&k, &v), 0);
  assert_int_equal(v, 2400000);
  put(D00 "/max_freq_khz", 0644, "1500000\n");
  assert_int_equal(ergo__knob_uncore.get(&k, &v), 0);
  assert_int_equal(v, 1500000);
  ergo__knob_uncore.close(&k);
}

static void test_out_of_range(void **state) {
  (void)state;
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN];
  assert_int_equal(open_uncore(&k, why), 0);
  watch w;
  watch_start(&w, (const char *const[]){D00, D10, NULL});
  static const int64_t bad[] = {0, -1, 700000, 850000, 2500000, 2400001, INT64_MAX};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(ergo__knob_uncore.set(&k, bad[i]), ERGO_EINVAL);
  assert_string_equal(watch_log(&w), ""); /* no file was even opened for writing */
  watch_stop(&w);
  assert_string_equal(slurp(D00 "/min_freq_khz"), "800000\n");
  assert_string_equal(slurp(D00 "/max_freq_khz"), "2400000\n");
  assert_string_equal(slurp(D10 "/min_freq_khz"), "800000\n");
  assert_string_equal(slurp(D10 "/max_freq_khz"), "2400000\n");
  ergo__knob_uncore.close(&k);
}

/* The dies of our packages only: bound to CPU 1, package 1 alone is ours. */
static void test_our_packages_only(void **state) {
  (void)state;
  /* A TPMI machine's per-cluster directory is not ours to write either. */
  add_die(UNC "/uncore00", 800000, 2400000, 800000, 2400000);
  put(UNC "/uncore00/package_id", 0400, "1\n");
  put(UNC "/uncore00/domain_id", 0400, "0\n");
  put(UNC "/uncore00/fabric_cluster_id", 0400, "0\n");
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(1, &one);
  assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN];
  int rc = open_uncore(&k, why);
  assert_int_equal(sched_setaffinity(0, sizeof all_cpus, &all_cpus), 0);
  assert_int_equal(rc, 0);
  watch w;
  watch_start(&w, (const char *const[]){D00, D10, UNC "/uncore00"});
  assert_int_equal(ergo__knob_uncore.set(&k, 1000000), 0);
  assert_string_equal(watch_log(&w),
                      "package_01_die_00/min_freq_khz package_01_die_00/max_freq_khz");
  watch_stop(&w);
  assert_pinned(D10, "1000000\n");
  assert_string_equal(slurp(D00 "/min_freq_khz"), "800000\n");
  assert_string_equal(slurp(D00 "/max_freq_khz"), "2400000\n");
  int64_t v = 0;
  assert_int_equal(ergo__knob_uncore.get(&k, &v), 0);
  assert_int_equal(v, 1000000);
  ergo__knob_uncore.close(&k);

  /* No directory for any of our packages: said, with the packages. */
  char path[1024];
  snprintf(path, sizeof path, "%s", fakesys_path(&fs, UNC));
  nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  add_die(UNC "/package_05_die_00", 800000, 2400000, 800000, 2400000);
  assert_int_equal(open_uncore(&k, why), ERGO_EIO);
  assert_string_equal(why, UNC " has no package_XX_die_YY directory for packages 0, 1, where this "
                               "process runs");
  assert_null(k.priv);
}

/* Every die of the package: two dies, written in order. */
static void test_two_dies(void **state) {
  (void)state;
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN];
  assert_int_equal(open_uncore(&k, why), 0);
  assert_int_equal(k.nvalues, 14);
  assert_int_equal(k.values[0], 1200000);
  assert_int_equal(k.values[13], 2500000);
  watch w;
  watch_start(&w, (const char *const[]){D00, D01, D10});
  assert_int_equal(ergo__knob_uncore.set(&k, 2000000), 0);
  assert_string_equal(watch_log(&w),
                      "package_00_die_00/min_freq_khz package_00_die_00/max_freq_khz "
                      "package_00_die_01/min_freq_khz package_00_die_01/max_freq_khz");
  watch_stop(&w);
  assert_pinned(D00, "2000000\n");
  assert_pinned(D01, "2000000\n");
  assert_string_equal(slurp(D10 "/min_freq_khz"), "1200000\n");
  assert_string_equal(slurp(D10 "/max_freq_khz"), "2500000\n");
  ergo__knob_uncore.close(&k);
}

/* save() tracks min then max of each die, in that order; the state layer
 * then puts the tree back byte for byte. */
static void test_save_restore(void **state) {
  (void)state;
  char dir[] = "/tmp/ergo-uncore-state-XXXXXX";
  assert_non_null(mkdtemp(dir));
  setenv("ERGO_STATE_DIR", dir, 1);
  ergo__state_reset();
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN];
  assert_int_equal(open_uncore(&k, why), 0);
  assert_int_equal(ergo__knob_uncore.save(&k), 0);
  assert_int_equal(ergo__state_commit(), 0);

  /* The state file names exactly the four files, in restore order. */
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  char file[512] = "";
  int nfiles = 0;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.' && strncmp(e->d_name, "claim-", 6) != 0) /* not claims */
      snprintf(file, sizeof file, "%s/%s", dir, e->d_name), nfiles++;
  closedir(d);
  assert_int_equal(nfiles, 1);
  FILE *f = fopen(file, "r");
  assert_non_null(f);
  static char text[16384];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  static const char *const order[] = {D00 "/min_freq_khz", D00 "/max_freq_khz", D10 "/min_freq_khz",
                                      D10 "/max_freq_khz"};
  const char *at = text;
  for (int i = 0; i < 4; i++) {
    const char *hit = strstr(at, order[i]);
    if (!hit) fail_msg("%s is not tracked after the previous one in:\n%s", order[i], text);
    at = hit + strlen(order[i]);
  }
  int paths = 0;
  for (const char *p = text; (p = strstr(p, "/sys/")); p++) paths++;
  assert_int_equal(paths, 4);

  assert_int_equal(ergo__knob_uncore.set(&k, 1100000), 0);
  assert_pinned(D00, "1100000\n");
  assert_int_equal(ergo__state_restore(), 0);
  assert_string_equal(slurp(D00 "/min_freq_khz"), "800000\n");
  assert_string_equal(slurp(D00 "/max_freq_khz"), "2400000\n");
  assert_string_equal(slurp(D10 "/min_freq_khz"), "800000\n");
  assert_string_equal(slurp(D10 "/max_freq_khz"), "2400000\n");
  assert_int_equal(access(file, F_OK), -1); /* restored: the state file is gone */
  ergo__state_reset();
  ergo__knob_uncore.close(&k);
  rmdir(dir);
  unsetenv("ERGO_STATE_DIR");
}

/* Another ergo process (a child here) tunes package 1's die: save() leaves it alone with one
 * warning naming it, the holder and the fix; set() writes package 0's die only. */
static void test_die_held_by_another(void **state) {
  (void)state;
  char dir[] = "/tmp/ergo-uncore-state-XXXXXX";
  assert_non_null(mkdtemp(dir));
  setenv("ERGO_STATE_DIR", dir, 1);
  ergo__state_reset();
  int p[2];
  assert_int_equal(pipe(p), 0);
  pid_t other = fork();
  assert_true(other >= 0);
  if (other == 0) {
    close(p[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* not left behind by a failed test */
    alarm(60);
    if (ergo__state_track(D10 "/min_freq_khz", NULL) != 0 || ergo__state_commit() != 0 ||
        write(p[1], "ready", 5) != 5)
      _exit(90);
    for (;;) pause();
  }
  close(p[1]);
  char buf[8] = "";
  assert_int_equal(read(p[0], buf, sizeof buf), 5);
  close(p[0]);
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN], want[512];
  assert_int_equal(open_uncore(&k, why), 0);
  assert_int_equal(ergo__knob_uncore.save(&k), 0);
  snprintf(want, sizeof want,
           "uncore: " D10 "/min_freq_khz is tuned by ergo process %ld, so this process leaves it "
           "alone (fix: one tuned job per node, or ERGO_KNOBS=none in the other job)",
           (long)other);
  assert_string_equal(ergo_last_error(), want);
  assert_int_equal(ergo__state_commit(), 0);
  assert_int_equal(ergo__knob_uncore.set(&k, 1200000), 0);
  assert_pinned(D00, "1200000\n");
  assert_string_equal(slurp(D10 "/min_freq_khz"), "800000\n");
  assert_string_equal(slurp(D10 "/max_freq_khz"), "2400000\n");
  assert_int_equal(ergo__state_restore(), 0);
  assert_string_equal(slurp(D00 "/min_freq_khz"), "800000\n");
  assert_string_equal(slurp(D00 "/max_freq_khz"), "2400000\n");
  ergo__knob_uncore.close(&k);
  int status = 0;
  kill(other, SIGTERM);
  assert_int_equal(waitpid(other, &status, 0), other);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  ergo__state_reset();
  assert_int_equal(rmdir(dir), 0); /* no state file or claim left by either */
  unsetenv("ERGO_STATE_DIR");
}

static void test_driver_absent(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s", fakesys_path(&fs, UNC));
  nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  rmdir(path);
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN];
  assert_int_equal(open_uncore(&k, why), ERGO_EIO);
  assert_string_equal(why, "no /sys/devices/system/cpu/intel_uncore_frequency: the "
                           "intel_uncore_frequency driver is not loaded (modprobe "
                           "intel_uncore_frequency, or intel_uncore_frequency_tpmi on Xeon 6; "
                           "Intel CPUs since Broadwell, never in a virtual machine)");
  assert_null(k.priv);
  assert_int_equal(k.nvalues, 0);
}

/* The driver's files are 0644 root: anyone else is told to run as root. */
static void test_unprivileged(void **state) {
  (void)state;
  fflush(stdout);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
    ergo__knob k;
    char why[ERGO__KNOB_WHY_LEN];
    int rc = open_uncore(&k, why);
    const char *want = D00 "/min_freq_khz is not writable (Permission denied): run as root to "
                           "tune the uncore frequency";
    if (rc != ERGO_EIO || strcmp(why, want) != 0 || k.priv) {
      printf("uncore as nobody: rc %d, why '%s'\n", rc, why);
      _exit(11);
    }
    _exit(0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_malformed(void **state) {
  (void)state;
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN];
  put(D10 "/initial_max_freq_khz", 0444, "2.4 GHz\n");
  assert_int_equal(open_uncore(&k, why), ERGO_EFORMAT);
  assert_string_equal(why, D10 "/initial_max_freq_khz holds \"2.4 GHz\", not a frequency in kHz");
  assert_null(k.priv);

  put(D10 "/initial_max_freq_khz", 0444, "2400000\n");
  put(D00 "/max_freq_khz", 0644, "\n");
  assert_int_equal(open_uncore(&k, why), ERGO_EFORMAT);
  assert_string_equal(why, D00 "/max_freq_khz holds \"\", not a frequency in kHz");

  put(D00 "/max_freq_khz", 0644, "2400000\n");
  put(D00 "/initial_min_freq_khz", 0444, "2500000\n");
  assert_int_equal(open_uncore(&k, why), ERGO_EFORMAT);
  assert_string_equal(why, D00 ": initial_min_freq_khz 2500000 is above initial_max_freq_khz "
                               "2400000");
}

/* A refused write (the driver's EINVAL, a read-only mount) fails the set. */
static void test_write_refused(void **state) {
  (void)state;
  ergo__knob k;
  char why[ERGO__KNOB_WHY_LEN];
  assert_int_equal(open_uncore(&k, why), 0);
  /* A directory in place of max_freq_khz of the second die: open(O_WRONLY) fails. */
  char path[1024];
  snprintf(path, sizeof path, "%s", fakesys_path(&fs, D10 "/max_freq_khz"));
  assert_int_equal(unlink(path), 0);
  assert_int_equal(mkdir(path, 0755), 0);
  assert_int_equal(ergo__knob_uncore.set(&k, 1000000), ERGO_EIO); /* max unreadable */
  assert_pinned(D00, "1000000\n");
  assert_string_equal(slurp(D10 "/min_freq_khz"), "800000\n");
  rmdir(path);
  put(D10 "/max_freq_khz", 0644, "2400000\n");
  snprintf(path, sizeof path, "%s", fakesys_path(&fs, D10 "/min_freq_khz"));
  assert_int_equal(unlink(path), 0);
  assert_int_equal(mkdir(path, 0755), 0);
  assert_int_equal(ergo__knob_uncore.set(&k, 1100000), ERGO_EIO); /* lowering: min first */
  assert_string_equal(slurp(D10 "/max_freq_khz"), "2400000\n");
  rmdir(path);
  ergo__knob_uncore.close(&k);
}

int main(void) {
  if (sched_getaffinity(0, sizeof all_cpus, &all_cpus) != 0 || !CPU_ISSET(0, &all_cpus) ||
      !CPU_ISSET(1, &all_cpus)) {
    printf("SKIPPED: the fake topology has CPUs 0 and 1; this process may not run on both\n");
    return FAKESYS_SKIP;
  }
  if (fakesys_create(&fs) != 0) {
    printf("SKIPPED: cannot create a fake sysfs tree in /tmp\n");
    return FAKESYS_SKIP;
  }
  const char *reason = fakesys_enter(&fs, (const char *[]){CPU, NULL});
  if (reason) {
    printf("SKIPPED: %s\n", reason);
    fakesys_destroy(&fs);
    return FAKESYS_SKIP;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_values, setup_two_packages),
      cmocka_unit_test_setup(test_set_up_down, setup_two_packages),
      cmocka_unit_test_setup(test_get, setup_two_packages),
      cmocka_unit_test_setup(test_out_of_range, setup_two_packages),
      cmocka_unit_test_setup(test_our_packages_only, setup_two_packages),
      cmocka_unit_test_setup(test_two_dies, setup_two_dies),
      cmocka_unit_test_setup(test_die_held_by_another, setup_two_packages),
      cmocka_unit_test_setup(test_save_restore, setup_two_packages),
      cmocka_unit_test_setup(test_driver_absent, setup_two_packages),
      cmocka_unit_test_setup(test_unprivileged, setup_two_packages),
      cmocka_unit_test_setup(test_malformed, setup_two_packages),
      cmocka_unit_test_setup(test_write_refused, setup_two_packages),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  fakesys_destroy(&fs);
  return failed;
}
