/* fakecpu.h - fake /sys/devices/system/cpu trees (topology, cpufreq policies, uncore) as the
 * kernel lays them out, sysfs write semantics for them, and byte-for-byte tree snapshots. */
#ifndef ERGO_TEST_FAKECPU_H
#define ERGO_TEST_FAKECPU_H

#include "fakesys.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/types.h>

#define FAKECPU_DIR "/sys/devices/system/cpu"
#define FAKECPU_NODE_DIR "/sys/devices/system/node"
#define FAKECPU_MAX_CPUS 256

/* What a test bind-mounts (NULL-terminated, for fakesys_enter): the CPU tree,
 * /sys/bus/cpu, whose devices/cpuN links are where hwloc counts CPUs, and the
 * NUMA nodes, whose CPU maps hwloc checks against the packages. */
extern const char *const fakecpu_mounts[];

/* ---- topology -------------------------------------------------------------------------- */

/* `packages` x `cores` x `threads` CPUs, numbered as Linux numbers them on
 * x86: first thread of every core of every package, then the second threads
 * (cpu = (thread * packages + package) * cores + core).  Writes online,
 * possible, present, kernel_max, cpuN/online (not for cpu0: the boot CPU of
 * x86 cannot go offline, so the kernel gives it no such file),
 * cpuN/topology/{physical_package_id, die_id, core_id, cluster_id and the
 * *_cpus / *_siblings masks and _lists}, /sys/bus/cpu/devices/cpuN links, and
 * one NUMA node per package (nodeP/{cpumap,cpulist,distance}, cpuN/nodeP).
 * 0 or -1. */
int fakecpu_topology(fakesys *fs, int packages, int cores, int threads);

/* ---- cpufreq --------------------------------------------------------------------------- */

/* One cpufreq policy's files, as a driver shows them. */
typedef struct fakecpu_policy {
  const char *driver;         /* scaling_driver */
  const char *governors;      /* scaling_available_governors, space-separated */
  const char *governor;       /* scaling_governor */
  int setpolicy;              /* 1: a ->setpolicy driver (intel_pstate, amd-pstate active):
                               * "performance powersave", no frequency table, no ->get */
  const unsigned long *freqs; /* scaling_available_frequencies in the driver's table order */
  int nfreqs;                 /* 0: no such file */
  unsigned long cpuinfo_min, cpuinfo_max, scaling_min, scaling_max, cur; /* kHz */
  unsigned long latency;                                                 /* ns */
} fakecpu_policy;

/* acpi-cpufreq with the userspace governor on offer, running schedutil;
 * frequencies 2000000 down to 1000000 kHz in 200000 steps. */
extern const fakecpu_policy fakecpu_acpi;
/* intel_pstate in active mode: powersave, cpuinfo 800000..3500000 kHz. */
extern const fakecpu_policy fakecpu_pstate;

/* A policy covering `cpus` (its related_cpus and affected_cpus), laid out as
 * the kernel does: the files in cpufreq/policyK (K = cpus[0]) and every
 * cpuN/cpufreq a symlink "../cpufreq/policyK".  Modes as the kernel's:
 * rw files 0644, ro 0444, cpuinfo_cur_freq 0400.  0 or -1. */
int fakecpu_add_policy(fakesys *fs, const fakecpu_policy *p, const int *cpus, int ncpus);

/* Policies like `p` for CPUs 0..ncpus-1, `per_policy` consecutive CPUs each. */
int fakecpu_add_policies(fakesys *fs, const fakecpu_policy *p, int ncpus, int per_policy);

/* Remove every policy (cpufreq/policyK, cpuN/cpufreq links) and intel_pstate/,
 * keeping the topology: the machine of a VM without a cpufreq driver.  The
 * mounted directories stay.  0 or -1. */
int fakecpu_clear_cpufreq(fakesys *fs);

/* The fake counterpart of cpuN/cpufreq/<file> (static buffer). */
const char *fakecpu_file(fakesys *fs, int cpu, const char *file);

/* ---- uncore ---------------------------------------------------------------------------- */

/* intel_uncore_frequency/package_PP_die_DD/{initial_min,initial_max,min,max,
 * current}_freq_khz, "%lu\n"; min/max start at the initial values. */
int fakecpu_uncore(fakesys *fs, int package, int die, unsigned long initial_min_khz,
                   unsigned long initial_max_khz, unsigned long current_khz);

/* ---- sysfs write semantics --------------------------------------------------------------
 * A fake file is a plain file, and libcpupower writes a value without
 * O_TRUNC: "800000" over "3500000\n" would leave "8000000\n".  In sysfs every
 * write is a store that replaces the value.  A test program opts in to that
 * by putting FAKECPU_SYSFS_STORES once at file scope: it interposes open,
 * write and close for the whole process (libcpupower's calls included; not
 * openat, open64 or stdio, which ergo and libcpupower do not use for sysfs), and
 * for files under /sys opened for writing
 *   - refuses with EACCES a file without any write bit, even for root, as
 *     kernfs does for read-only attributes;
 *   - makes each write(2) replace the file's contents with the bytes written
 *     and a newline if they lack one: a fake file then shows what the kernel
 *     would ("userspace" stored shows "userspace\n");
 *   - after a store to scaling_governor, shows in scaling_setspeed what the
 *     kernel would: "<unsupported>\n" under any governor but userspace, and
 *     under userspace the frequency it started at (scaling_cur_freq);
 *   - logs the write (path as opened, bytes), so a test can check which
 *     files were written, in which order, and that nothing was.
 * Everything else passes straight to the system calls. */
int fakecpu_open(const char *path, int flags, mode_t mode);
ssize_t fakecpu_write(int fd, const void *buf, size_t len);
int fakecpu_close(int fd);

#define FAKECPU_SYSFS_STORES                                                                       \
  int fakecpu__open_hook(const char *path, int flags, ...) __asm__("open");                        \
  int fakecpu__open_hook(const char *path, int flags, ...) {                                       \
    mode_t mode = 0;                                                                               \
    if ((flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE) {                               \
      va_list ap;                                                                                  \
      va_start(ap, flags);                                                                         \
      mode = (mode_t)va_arg(ap, int);                                                              \
      va_end(ap);                                                                                  \
    }                                                                                              \
    return fakecpu_open(path, flags, mode);                                                        \
  }                                                                                                \
  ssize_t fakecpu__write_hook(int fd, const void *buf, size_t len) __asm__("write");               \
  ssize_t fakecpu__write_hook(int fd, const void *buf, size_t len) {                               \
    return fakecpu_write(fd, buf, len);                                                            \
  }                                                                                                \
  int fakecpu__close_hook(int fd) __asm__("close");                                                \
  int fakecpu__close_hook(int fd) { return fakecpu_close(fd); }

/* One logged write. */
typedef struct fakecpu_store {
  char path[256];
  char bytes[64];
} fakecpu_store;

/* Writes logged since the last reset (at most FAKECPU_MAX_STORES are kept;
 * the count goes on). */
#define FAKECPU_MAX_STORES 256
int fakecpu_stores(void);
const fakecpu_store *fakecpu_store_at(int i);
void fakecpu_stores_reset(void);

/* ---- snapshots --------------------------------------------------------------------------
 * Every regular file (contents and mode) and symlink (target) under a
 * directory, by relative path, to check that a tree is byte for byte as
 * before (after a restore, or after a refused request). */
typedef struct fakecpu_snap fakecpu_snap;

/* Snapshot the fake counterpart of `dir` ("/sys/devices/system/cpu"): read
 * through the fake root, so it works before and after fakesys_enter.  NULL
 * on failure. */
fakecpu_snap *fakecpu_snap_take(fakesys *fs, const char *dir);

/* 0 when a and b hold the same paths with the same bytes and modes; else 1,
 * with the first difference in `diff` (path, and both contents). */
int fakecpu_snap_diff(const fakecpu_snap *a, const fakecpu_snap *b, char *diff, size_t difflen);

void fakecpu_snap_free(fakecpu_snap *s);

#endif
