/* fakecpu.c - fake /sys/devices/system/cpu trees as the kernel lays them out, sysfs write
 * semantics for them, and byte-for-byte snapshots of a fake tree. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fakecpu.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *const fakecpu_mounts[] = {FAKECPU_DIR, "/sys/bus/cpu", FAKECPU_NODE_DIR, NULL};

/* ---- CPU sets in the kernel's two print formats -------------------------------------- */

/* "%*pbl": ascending ranges, "0-3,8-11". */
static void cpulist(const unsigned char *set, int n, char *out, size_t len) {
  size_t at = 0;
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    if (!set[i]) continue;
    int j = i;
    while (j + 1 < n && set[j + 1]) j++;
    at += (size_t)snprintf(out + at, len - at, at ? ",%d" : "%d", i);
    if (j > i) at += (size_t)snprintf(out + at, len - at, "-%d", j);
    i = j;
  }
}

/* "%*pb": hex, nbits = nr_cpu_ids wide, 32-bit words separated by commas,
 * the leading word only as wide as its bits need ("3", "000000ff,ffffffff"). */
static void cpumask(const unsigned char *set, int nbits, char *out, size_t len) {
  size_t at = 0;
  int words = (nbits + 31) / 32;
  for (int w = words - 1; w >= 0; w--) {
    unsigned v = 0;
    for (int b = 0; b < 32 && w * 32 + b < nbits; b++)
      if (set[w * 32 + b]) v |= 1u << b;
    int bits = w == words - 1 ? nbits - w * 32 : 32;
    at +=
        (size_t)snprintf(out + at, len - at, w == words - 1 ? "%0*x" : ",%0*x", (bits + 3) / 4, v);
  }
}

/* A set as a mask file and a list file. */
static int write_set(fakesys *fs, const char *dir, const char *mask, const char *list,
                     const unsigned char *set, int n) {
  char path[512], buf[2048];
  cpumask(set, n, buf, sizeof buf);
  snprintf(path, sizeof path, "%s/%s", dir, mask);
  if (fakesys_writef(fs, path, 0444, "%s\n", buf) != 0) return -1;
  cpulist(set, n, buf, sizeof buf);
  snprintf(path, sizeof path, "%s/%s", dir, list);
  return fakesys_writef(fs, path, 0444, "%s\n", buf);
}

/* ---- topology -------------------------------------------------------------------------- */

int fakecpu_topology(fakesys *fs, int packages, int cores, int threads) {
  int n = packages * cores * threads;
  if (n <= 0 || n > FAKECPU_MAX_CPUS) return -1;
  unsigned char all[FAKECPU_MAX_CPUS] = {0}, core[FAKECPU_MAX_CPUS], pkg[FAKECPU_MAX_CPUS];
  memset(all, 1, (size_t)n);
  char buf[2048];
  cpulist(all, n, buf, sizeof buf);
  static const char *const ranges[] = {FAKECPU_DIR "/online", FAKECPU_DIR "/possible",
                                       FAKECPU_DIR "/present"};
  for (int i = 0; i < 3; i++)
    if (fakesys_writef(fs, ranges[i], 0444, "%s\n", buf) != 0) return -1;
  /* NR_CPUS - 1 of a distribution kernel (CONFIG_NR_CPUS=8192). */
  if (fakesys_write(fs, FAKECPU_DIR "/kernel_max", "8191\n", 0444) != 0) return -1;
  if (fakesys_write(fs, FAKECPU_DIR "/offline", "\n", 0444) != 0) return -1;
  /* One NUMA node per package, so that hwloc's nodes agree with the packages. */
  static const char *const nodes[] = {"online", "possible", "has_cpu", "has_memory",
                                      "has_normal_memory"};
  memset(pkg, 0, sizeof pkg);
  memset(pkg, 1, (size_t)packages);
  cpulist(pkg, packages, buf, sizeof buf);
  for (int i = 0; i < 5; i++) {
    char path[128];
    snprintf(path, sizeof path, FAKECPU_NODE_DIR "/%s", nodes[i]);
    if (fakesys_writef(fs, path, 0444, "%s\n", buf) != 0) return -1;
  }
  for (int p = 0; p < packages; p++) {
    char dir[128], dist[1024];
    memset(pkg, 0, sizeof pkg);
    for (int t = 0; t < threads; t++)
      for (int c = 0; c < cores; c++) pkg[(t * packages + p) * cores + c] = 1;
    snprintf(dir, sizeof dir, FAKECPU_NODE_DIR "/node%d", p);
    if (write_set(fs, dir, "cpumap", "cpulist", pkg, n) != 0) return -1;
    size_t at = 0;
    for (int q = 0; q < packages; q++)
      at += (size_t)snprintf(dist + at, sizeof dist - at, q ? " %d" : "%d", q == p ? 10 : 21);
    char path[160];
    snprintf(path, sizeof path, "%s/distance", dir);
    if (fakesys_writef(fs, path, 0444, "%s\n", dist) != 0) return -1;
  }
  for (int t = 0; t < threads; t++)
    for (int p = 0; p < packages; p++)
      for (int c = 0; c < cores; c++) {
        int cpu = (t * packages + p) * cores + c;
        memset(core, 0, sizeof core);
        memset(pkg, 0, sizeof pkg);
        for (int t2 = 0; t2 < threads; t2++) {
          core[(t2 * packages + p) * cores + c] = 1;
          for (int c2 = 0; c2 < cores; c2++) pkg[(t2 * packages + p) * cores + c2] = 1;
        }
        char dir[256], path[320];
        snprintf(dir, sizeof dir, FAKECPU_DIR "/cpu%d/topology", cpu);
        static const char *const core_sets[][2] = {{"core_cpus", "core_cpus_list"},
                                                   {"thread_siblings", "thread_siblings_list"},
                                                   {"cluster_cpus", "cluster_cpus_list"}};
        static const char *const pkg_sets[][2] = {{"package_cpus", "package_cpus_list"},
                                                  {"core_siblings", "core_siblings_list"},
                                                  {"die_cpus", "die_cpus_list"}};
        for (int i = 0; i < 3; i++)
          if (write_set(fs, dir, core_sets[i][0], core_sets[i][1], core, n) != 0 ||
              write_set(fs, dir, pkg_sets[i][0], pkg_sets[i][1], pkg, n) != 0)
            return -1;
        const struct {
          const char *name;
          int value;
        } ids[] = {{"physical_package_id", p}, {"die_id", 0}, {"core_id", c}, {"cluster_id", c}};
        for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
          snprintf(path, sizeof path, "%s/%s", dir, ids[i].name);
          if (fakesys_writef(fs, path, 0444, "%d\n", ids[i].value) != 0) return -1;
        }
        if (cpu > 0) {
          snprintf(path, sizeof path, FAKECPU_DIR "/cpu%d/online", cpu);
          if (fakesys_write(fs, path, "1\n", 0644) != 0) return -1;
        }
        char link[128], target[128];
        snprintf(link, sizeof link, FAKECPU_DIR "/cpu%d/node%d", cpu, p);
        snprintf(target, sizeof target, "../../node/node%d", p);
        if (fakesys_symlink(fs, link, target) != 0 && errno != EEXIST) return -1;
        snprintf(link, sizeof link, "/sys/bus/cpu/devices/cpu%d", cpu);
        snprintf(target, sizeof target, "../../../devices/system/cpu/cpu%d", cpu);
        if (fakesys_symlink(fs, link, target) != 0 && errno != EEXIST) return -1;
      }
  return 0;
}

/* ---- cpufreq --------------------------------------------------------------------------- */

static const unsigned long acpi_freqs[] = {2000000, 1800000, 1600000, 1400000, 1200000, 1000000};

const fakecpu_policy fakecpu_acpi = {
    .driver = "acpi-cpufreq",
    .governors = "conservative ondemand userspace powersave performance schedutil",
    .governor = "schedutil",
    .freqs = acpi_freqs,
    .nfreqs = 6,
    .cpuinfo_min = 1000000,
    .cpuinfo_max = 2000000,
    .scaling_min = 1000000,
    .scaling_max = 2000000,
    .cur = 1400000,
    .latency = 10000,
};

const fakecpu_policy fakecpu_pstate = {
    .driver = "intel_pstate",
    .governors = "performance powersave",
    .governor = "powersave",
    .setpolicy = 1,
    .cpuinfo_min = 800000,
    .cpuinfo_max = 3500000,
    .scaling_min = 800000,
    .scaling_max = 3500000,
    .cur = 1200000,
    .latency = 0,
};

const char *fakecpu_file(fakesys *fs, int cpu, const char *file) {
  char path[256];
  snprintf(path, sizeof path, FAKECPU_DIR "/cpu%d/cpufreq/%s", cpu, file);
  return fakesys_path(fs, path);
}

/* The formats are the kernel's (drivers/cpufreq/cpufreq.c, freq_table.c):
 * numbers "%u\n"; CPU lists "0 1\n"; the frequency table "%u " each then
 * "\n"; governors "%s " each then "\n", except ->setpolicy drivers, which
 * print "performance powersave\n"; scaling_setspeed "<unsupported>\n" unless
 * the governor is userspace (which shows the frequency it was last given). */
int fakecpu_add_policy(fakesys *fs, const fakecpu_policy *p, const int *cpus, int ncpus) {
  char dir[128], path[256], buf[4096];
  snprintf(dir, sizeof dir, FAKECPU_DIR "/cpufreq/policy%d", cpus[0]);
  size_t at = 0;
  for (int i = 0; i < ncpus; i++)
    at += (size_t)snprintf(buf + at, sizeof buf - at, i ? " %d" : "%d", cpus[i]);
  const struct {
    const char *name;
    mode_t mode;
    unsigned long value; /* a number, unless text is set */
    const char *text;
  } files[] = {
      {"affected_cpus", 0444, 0, buf},
      {"related_cpus", 0444, 0, buf},
      {"cpuinfo_min_freq", 0444, p->cpuinfo_min, NULL},
      {"cpuinfo_max_freq", 0444, p->cpuinfo_max, NULL},
      {"cpuinfo_transition_latency", 0444, p->latency, NULL},
      {"scaling_min_freq", 0644, p->scaling_min, NULL},
      {"scaling_max_freq", 0644, p->scaling_max, NULL},
      {"scaling_cur_freq", 0444, p->cur, NULL},
      {"scaling_driver", 0444, 0, p->driver},
      {"scaling_governor", 0644, 0, p->governor},
  };
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
    int rc = files[i].text ? fakesys_writef(fs, path, files[i].mode, "%s\n", files[i].text)
                           : fakesys_writef(fs, path, files[i].mode, "%lu\n", files[i].value);
    if (rc != 0) return -1;
  }
  snprintf(path, sizeof path, "%s/scaling_setspeed", dir);
  if (strcmp(p->governor, "userspace") == 0) {
    if (fakesys_writef(fs, path, 0644, "%lu\n", p->cur) != 0) return -1;
  } else if (fakesys_write(fs, path, "<unsupported>\n", 0644) != 0) {
    return -1;
  }
  snprintf(path, sizeof path, "%s/scaling_available_governors", dir);
  if (p->setpolicy) {
    if (fakesys_write(fs, path, "performance powersave\n", 0444) != 0) return -1;
  } else {
    char govs[512], *save = NULL;
    snprintf(govs, sizeof govs, "%s", p->governors);
    at = 0;
    for (char *g = strtok_r(govs, " ", &save); g; g = strtok_r(NULL, " ", &save))
      at += (size_t)snprintf(buf + at, sizeof buf - at, "%s ", g);
    if (fakesys_writef(fs, path, 0444, "%s\n", buf) != 0) return -1;
    /* Drivers with a ->get callback (acpi-cpufreq) also show the hardware's
     * opinion, root only; acpi-cpufreq's ->bios_limit adds the platform's cap. */
    snprintf(path, sizeof path, "%s/cpuinfo_cur_freq", dir);
    if (fakesys_writef(fs, path, 0400, "%lu\n", p->cur) != 0) return -1;
    snprintf(path, sizeof path, "%s/bios_limit", dir);
    if (fakesys_writef(fs, path, 0444, "%lu\n", p->cpuinfo_max) != 0) return -1;
  }
  if (p->nfreqs > 0) {
    at = 0;
    for (int i = 0; i < p->nfreqs; i++)
      at += (size_t)snprintf(buf + at, sizeof buf - at, "%lu ", p->freqs[i]);
    snprintf(path, sizeof path, "%s/scaling_available_frequencies", dir);
    if (fakesys_writef(fs, path, 0444, "%s\n", buf) != 0) return -1;
  }
  if (p->setpolicy) {
    /* intel_pstate's own per-policy files (HWP). */
    snprintf(path, sizeof path, "%s/energy_performance_available_preferences", dir);
    if (fakesys_write(fs, path, "default performance balance_performance balance_power power \n",
                      0444) != 0)
      return -1;
    snprintf(path, sizeof path, "%s/energy_performance_preference", dir);
    if (fakesys_write(fs, path, "balance_performance\n", 0644) != 0) return -1;
    snprintf(path, sizeof path, "%s/base_frequency", dir);
    if (fakesys_writef(fs, path, 0444, "%lu\n", p->scaling_max * 3 / 5) != 0) return -1;
  }
  if (strcmp(p->driver, "intel_pstate") == 0) {
    /* The driver's global files, beside the policies. */
    const struct {
      const char *name, *text;
      mode_t mode;
    } global[] = {{"status", "active\n", 0644},
                  {"no_turbo", "0\n", 0644},
                  {"max_perf_pct", "100\n", 0644},
                  {"min_perf_pct", "22\n", 0644},
                  {"hwp_dynamic_boost", "0\n", 0644}};
    for (size_t i = 0; i < sizeof global / sizeof *global; i++) {
      snprintf(path, sizeof path, FAKECPU_DIR "/intel_pstate/%s", global[i].name);
      if (fakesys_write(fs, path, global[i].text, global[i].mode) != 0) return -1;
    }
  }
  for (int i = 0; i < ncpus; i++) {
    char link[128], target[64];
    snprintf(link, sizeof link, FAKECPU_DIR "/cpu%d/cpufreq", cpus[i]);
    snprintf(target, sizeof target, "../cpufreq/policy%d", cpus[0]);
    if (fakesys_symlink(fs, link, target) != 0) return -1;
  }
  return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

int fakecpu_clear_cpufreq(fakesys *fs) {
  char path[1024];
  for (int cpu = 0; cpu < FAKECPU_MAX_CPUS; cpu++) {
    char link[64];
    snprintf(link, sizeof link, FAKECPU_DIR "/cpu%d/cpufreq", cpu);
    snprintf(path, sizeof path, "%s", fakesys_path(fs, link));
    if (unlink(path) != 0 && errno != ENOENT) return -1;
  }
  static const char *const dirs[] = {FAKECPU_DIR "/cpufreq", FAKECPU_DIR "/intel_pstate"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s", fakesys_path(fs, dirs[i]));
    if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT) return -1;
  }
  /* The kernel keeps an empty cpufreq/ when no driver registers. */
  return fakesys_mkdir(fs, FAKECPU_DIR "/cpufreq");
}

int fakecpu_add_policies(fakesys *fs, const fakecpu_policy *p, int ncpus, int per_policy) {
  int cpus[FAKECPU_MAX_CPUS];
  if (per_policy <= 0 || ncpus > FAKECPU_MAX_CPUS) return -1;
  for (int first = 0; first < ncpus; first += per_policy) {
    int n = 0;
    for (int c = first; c < ncpus && c < first + per_policy; c++) cpus[n++] = c;
    if (fakecpu_add_policy(fs, p, cpus, n) != 0) return -1;
  }
  return 0;
}

/* ---- uncore ---------------------------------------------------------------------------- */

int fakecpu_uncore(fakesys *fs, int package, int die, unsigned long initial_min_khz,
                   unsigned long initial_max_khz, unsigned long current_khz) {
  const struct {
    const char *name;
    mode_t mode;
    unsigned long khz;
  } files[] = {
      {"initial_min_freq_khz", 0444, initial_min_khz},
      {"initial_max_freq_khz", 0444, initial_max_khz},
      {"min_freq_khz", 0644, initial_min_khz},
      {"max_freq_khz", 0644, initial_max_khz},
      {"current_freq_khz", 0444, current_khz},
  };
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[256];
    snprintf(path, sizeof path, FAKECPU_DIR "/intel_uncore_frequency/package_%02d_die_%02d/%s",
             package, die, files[i].name);
    if (fakesys_writef(fs, path, files[i].mode, "%lu\n", files[i].khz) != 0) return -1;
  }
  return 0;
}

/* ---- sysfs write semantics -------------------------------------------------------------- */

#define MAX_FDS 1024
static char open_for_store[MAX_FDS][256]; /* path of each fd opened to write under /sys */
static fakecpu_store stores[FAKECPU_MAX_STORES];
static int nstores;

int fakecpu_open(const char *path, int flags, mode_t mode) {
  int store = strncmp(path, "/sys/", 5) == 0 && (flags & O_ACCMODE) != O_RDONLY;
  struct stat st;
  if (store && stat(path, &st) == 0 && S_ISREG(st.st_mode) && !(st.st_mode & 0222)) {
    errno = EACCES;
    return -1;
  }
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
  if (fd >= 0 && fd < MAX_FDS) {
    if (store)
      snprintf(open_for_store[fd], sizeof open_for_store[fd], "%s", path);
    else
      open_for_store[fd][0] = '\0';
  }
  return fd;
}

/* Replace a fake file's contents (system calls only: open, write and close
 * are the hooks themselves). */
static int store_raw(const char *path, const char *bytes, size_t len) {
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  int ok = ftruncate(fd, 0) == 0 && pwrite(fd, bytes, len, 0) == (ssize_t)len;
  syscall(SYS_close, fd);
  return ok ? 0 : -1;
}

static ssize_t load_raw(const char *path, char *buf, size_t len) {
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = pread(fd, buf, len - 1, 0);
  syscall(SYS_close, fd);
  buf[n > 0 ? n : 0] = '\0';
  return n;
}

/* What the kernel does to scaling_setspeed when the governor changes: the
 * userspace governor starts at the current frequency and shows it; any other
 * governor has no setspeed and shows "<unsupported>". */
static void governor_changed(const char *governor_path, const char *bytes, size_t len) {
  char dir[256], setspeed[300], cur[300], buf[64];
  snprintf(dir, sizeof dir, "%s", governor_path);
  *strrchr(dir, '/') = '\0';
  snprintf(setspeed, sizeof setspeed, "%s/scaling_setspeed", dir);
  if (load_raw(setspeed, buf, sizeof buf) < 0) return;
  size_t n = strcspn(bytes, " \n");
  if (n > len) n = len;
  if (n == 9 && strncmp(bytes, "userspace", 9) == 0) {
    if (buf[0] != '<') return; /* already userspace: setspeed keeps its value */
    snprintf(cur, sizeof cur, "%s/scaling_cur_freq", dir);
    ssize_t got = load_raw(cur, buf, sizeof buf);
    if (got > 0) store_raw(setspeed, buf, (size_t)got);
  } else {
    store_raw(setspeed, "<unsupported>\n", 14);
  }
}

ssize_t fakecpu_write(int fd, const void *buf, size_t len) {
  if (fd < 0 || fd >= MAX_FDS || !open_for_store[fd][0])
    return (ssize_t)syscall(SYS_write, fd, buf, len);
  const char *path = open_for_store[fd];
  if (nstores < FAKECPU_MAX_STORES) {
    fakecpu_store *s = &stores[nstores];
    snprintf(s->path, sizeof s->path, "%s", path);
    size_t n = len < sizeof s->bytes - 1 ? len : sizeof s->bytes - 1;
    memcpy(s->bytes, buf, n);
    s->bytes[n] = '\0';
  }
  nstores++;
  /* The real sysfs stores by itself. */
  struct statfs sfs;
  if (fstatfs(fd, &sfs) == 0 && sfs.f_type == 0x62656572 /* SYSFS_MAGIC */)
    return (ssize_t)syscall(SYS_write, fd, buf, len);
  /* A fake file shows what the kernel would: the value stored, one line. */
  char shown[4096];
  if (len + 1 > sizeof shown) {
    errno = EINVAL; /* sysfs takes at most a page */
    return -1;
  }
  memcpy(shown, buf, len);
  size_t n = len;
  if (n == 0 || shown[n - 1] != '\n') shown[n++] = '\n';
  if (ftruncate(fd, 0) != 0 || pwrite(fd, shown, n, 0) != (ssize_t)n) return -1;
  size_t plen = strlen(path), glen = strlen("/scaling_governor");
  if (plen > glen && strcmp(path + plen - glen, "/scaling_governor") == 0)
    governor_changed(path, buf, len);
  return (ssize_t)len;
}

int fakecpu_close(int fd) {
  if (fd >= 0 && fd < MAX_FDS) open_for_store[fd][0] = '\0';
  return (int)syscall(SYS_close, fd);
}

int fakecpu_stores(void) { return nstores; }

const fakecpu_store *fakecpu_store_at(int i) {
  return i >= 0 && i < nstores && i < FAKECPU_MAX_STORES ? &stores[i] : NULL;
}

void fakecpu_stores_reset(void) { nstores = 0; }

/* ---- snapshots --------------------------------------------------------------------------- */

typedef struct snap_entry {
  char *path; /* relative to the snapshot's directory */
  char kind;  /* 'f' file, 'l' symlink, 'd' directory */
  mode_t mode;
  char *data; /* contents, or the link's target */
  size_t len;
} snap_entry;

struct fakecpu_snap {
  snap_entry *e;
  size_t n, cap;
  size_t rootlen;
  int failed;
};

static fakecpu_snap *building; /* nftw has no user pointer */

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 256, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      char *bigger = realloc(buf, cap *= 2);
      if (!bigger) free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

static int snap_entry_add(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)ftw;
  fakecpu_snap *s = building;
  if (strlen(path) <= s->rootlen) return 0; /* the directory itself */
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 256;
    snap_entry *bigger = realloc(s->e, cap * sizeof *bigger);
    if (!bigger) return s->failed = 1;
    s->e = bigger;
    s->cap = cap;
  }
  snap_entry *e = &s->e[s->n];
  memset(e, 0, sizeof *e);
  e->path = strdup(path + s->rootlen + 1);
  e->mode = st->st_mode & 07777;
  if (flag == FTW_SL) {
    char target[1024];
    ssize_t n = readlink(path, target, sizeof target);
    if (n < 0) return s->failed = 1;
    e->kind = 'l';
    e->data = malloc((size_t)n + 1);
    if (e->data) memcpy(e->data, target, (size_t)n);
    e->len = (size_t)n;
  } else if (flag == FTW_F) {
    e->kind = 'f';
    e->data = read_all(path, &e->len);
  } else {
    e->kind = 'd';
    e->data = strdup("");
  }
  s->n++;
  if (!e->path || !e->data) return s->failed = 1;
  return 0;
}

static int entry_cmp(const void *a, const void *b) {
  return strcmp(((const snap_entry *)a)->path, ((const snap_entry *)b)->path);
}

fakecpu_snap *fakecpu_snap_take(fakesys *fs, const char *dir) {
  char root[1024];
  snprintf(root, sizeof root, "%s", fakesys_path(fs, dir));
  fakecpu_snap *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->rootlen = strlen(root);
  building = s;
  int rc = nftw(root, snap_entry_add, 16, FTW_PHYS);
  building = NULL;
  if (rc != 0 || s->failed) {
    fakecpu_snap_free(s);
    return NULL;
  }
  qsort(s->e, s->n, sizeof *s->e, entry_cmp);
  return s;
}

/* Bytes as a C string literal, so a stray newline or NUL shows. */
static void quote(const char *data, size_t len, char *out, size_t outlen) {
  size_t at = 0;
  for (size_t i = 0; i < len && at + 5 < outlen; i++) {
    unsigned char c = (unsigned char)data[i];
    if (c == '\n')
      at += (size_t)snprintf(out + at, outlen - at, "\\n");
    else if (c < 32 || c > 126)
      at += (size_t)snprintf(out + at, outlen - at, "\\x%02x", c);
    else
      out[at++] = (char)c;
  }
  out[at] = '\0';
}

int fakecpu_snap_diff(const fakecpu_snap *a, const fakecpu_snap *b, char *diff, size_t difflen) {
  size_t i = 0, j = 0;
  char qa[160], qb[160];
  while (i < a->n || j < b->n) {
    int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->e[i].path, b->e[j].path);
    if (c < 0) {
      snprintf(diff, difflen, "%s: only in the first snapshot", a->e[i].path);
      return 1;
    }
    if (c > 0) {
      snprintf(diff, difflen, "%s: only in the second snapshot", b->e[j].path);
      return 1;
    }
    const snap_entry *x = &a->e[i++], *y = &b->e[j++];
    if (x->kind != y->kind || x->mode != y->mode || x->len != y->len ||
        memcmp(x->data, y->data, x->len) != 0) {
      quote(x->data, x->len, qa, sizeof qa);
      quote(y->data, y->len, qb, sizeof qb);
      snprintf(diff, difflen, "%s: %c %04o \"%s\" vs %c %04o \"%s\"", x->path, x->kind,
               (unsigned)x->mode, qa, y->kind, (unsigned)y->mode, qb);
      return 1;
    }
  }
  if (difflen) diff[0] = '\0';
  return 0;
}

void fakecpu_snap_free(fakecpu_snap *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) {
    free(s->e[i].path);
    free(s->e[i].data);
  }
  free(s->e);
  free(s);
}
