/* cpufreq.c - the core frequency knob, through libcpupower: one setting per cpufreq policy of
 * the CPUs this process may run on, by the userspace governor or by pinning min = max. */
#include "knobs/cpuset.h"
#include "knobs/knob.h"
#include "knobs/state.h"

#include "ergo.h"
#include "internal.h"
#include "util/log.h"

#include <cpufreq.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where libcpupower reads and writes (its PATH_TO_CPU): cpuN/cpufreq/<file>. */
#define CF_SYSFS "/sys/devices/system/cpu"
/* The step of the allowed values when the driver lists no frequencies
 * (intel_pstate, amd-pstate: only cpuinfo_min_freq..cpuinfo_max_freq): 100 MHz,
 * the bus-clock ratio unit of Intel P-states, so every value is one the
 * hardware can hold; the top, cpuinfo_max_freq, is always included. */
#define ERGO__CPUFREQ_STEP_KHZ 100000
/* More distinct frequencies than one policy lists on any machine. */
#define CF_MAX_FREQS 1024

typedef struct cf_priv {
  int userspace; /* 1: governor "userspace" + scaling_setspeed; 0: min = max pinned */
  int npolicies;
  unsigned cpu[]; /* per policy, the CPU of ours through which it is read and written */
} cf_priv;

/* libcpupower's number readers test errno == ERANGE after strtoul without
 * clearing errno first: a stale ERANGE would read as failure. */
static unsigned long read_value(unsigned cpu, const char *file) {
  const char *table[1] = {file};
  errno = 0;
  return cpufreq_get_sysfs_value_from_table(cpu, table, 0, 1);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Sort ascending and drop duplicates; returns the new count. */
static int sort_distinct(int64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_i64);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
  return m;
}

/* The frequencies one policy accepts, ascending and distinct: its
 * scaling_available_frequencies, else cpuinfo_min_freq..cpuinfo_max_freq in
 * steps.  Count, or a negative ERGO_E* with why said. */
static int policy_freqs(unsigned cpu, int64_t *out, char *why, size_t whylen) {
  int n = 0;
  errno = 0;
  struct cpufreq_available_frequencies *list = cpufreq_get_available_frequencies(cpu);
  if (list) {
    for (struct cpufreq_available_frequencies *f = list; f && n < CF_MAX_FREQS; f = f->next)
      if (f->frequency > 0) out[n++] = (int64_t)f->frequency;
    cpufreq_put_available_frequencies(list);
    if (n > 0) return sort_distinct(out, n);
  }
  unsigned long min = 0, max = 0;
  errno = 0;
  int rc = cpufreq_get_hardware_limits(cpu, &min, &max);
  if (rc != 0 || min == 0 || max < min) {
    snprintf(why, whylen,
             "libcpupower cpufreq_get_hardware_limits(CPU %u) failed: " CF_SYSFS
             "/cpu%u/cpufreq/ has no scaling_available_frequencies and no cpuinfo_min_freq and "
             "cpuinfo_max_freq (read %lu..%lu): check the cpufreq driver",
             cpu, cpu, min, max);
    return ERGO_EIO;
  }
  for (unsigned long f = min; f < max && n < CF_MAX_FREQS - 1; f += ERGO__CPUFREQ_STEP_KHZ)
    out[n++] = (int64_t)f;
  out[n++] = (int64_t)max;
  return n;
}

/* Keep in a[] only the values also in b[] (both ascending); returns the new count. */
static int intersect(int64_t *a, int na, const int64_t *b, int nb) {
  int m = 0;
  for (int i = 0, j = 0; i < na && j < nb;) {
    if (a[i] < b[j])
      i++;
    else if (a[i] > b[j])
      j++;
    else
      a[m++] = a[i++], j++;
  }
  return m;
}

/* Does this policy offer the userspace governor?  1, 0, or ERGO_EIO with why. */
static int has_userspace(unsigned cpu, char *why, size_t whylen) {
  errno = 0;
  struct cpufreq_available_governors *govs = cpufreq_get_available_governors(cpu);
  if (!govs) {
    snprintf(
        why, whylen,
        "libcpupower cpufreq_get_available_governors(CPU %u) failed: no governor list in " CF_SYSFS
        "/cpu%u/cpufreq/scaling_available_governors (%s): check the cpufreq driver",
        cpu, cpu, errno ? strerror(errno) : "empty or malformed");
    return ERGO_EIO;
  }
  int found = 0;
  for (struct cpufreq_available_governors *g = govs; g; g = g->next)
    if (g->governor && strcmp(g->governor, "userspace") == 0) found = 1;
  cpufreq_put_available_governors(govs);
  return found;
}

/* Could set() write cpuN/cpufreq/<file>?  0, or ERGO_EIO with why.  A sysfs
 * attribute without write bits refuses even root (kernfs checks the mode),
 * while access() would let root pass. */
static int check_writable(unsigned cpu, const char *file, char *why, size_t whylen) {
  char path[128];
  snprintf(path, sizeof path, CF_SYSFS "/cpu%u/cpufreq/%s", cpu, file);
  struct stat st;
  if (stat(path, &st) == 0 && !(st.st_mode & 0222)) {
    snprintf(why, whylen,
             "%s is read-only (mode %04o): this cpufreq driver does not let it be set, so "
             "ergo cannot tune the core frequency here",
             path, (unsigned)(st.st_mode & 07777));
    return ERGO_EIO;
  }
  if (access(path, W_OK) != 0) {
    snprintf(why, whylen,
             "%s is not writable: run as root, or ask an admin for write access to the cpufreq "
             "files (ergo never uses sudo)",
             path);
    return ERGO_EIO;
  }
  return 0;
}

/* This CPU's policy: its related CPUs go into covered[].  0, or ERGO_EIO with why. */
static int policy_of(unsigned cpu, unsigned char *covered, char *why, size_t whylen) {
  errno = 0;
  char *driver = cpufreq_get_driver(cpu);
  if (!driver) {
    int e = errno;
    char dir[96];
    struct stat st;
    snprintf(dir, sizeof dir, CF_SYSFS "/cpu%u/cpufreq", cpu);
    if (stat(dir, &st) != 0)
      snprintf(why, whylen,
               "no cpufreq policy for CPU %u: no cpufreq driver (VM, or cpufreq disabled in "
               "BIOS/kernel)",
               cpu);
    else
      snprintf(why, whylen,
               "libcpupower cpufreq_get_driver(CPU %u) failed: cannot read %s/scaling_driver "
               "(%s): check the cpufreq driver",
               cpu, dir, e ? strerror(e) : "empty");
    return ERGO_EIO;
  }
  cpufreq_put_driver(driver);
  errno = 0;
  struct cpufreq_affected_cpus *related = cpufreq_get_related_cpus(cpu);
  if (!related) {
    snprintf(why, whylen,
             "libcpupower cpufreq_get_related_cpus(CPU %u) failed: no CPU list in " CF_SYSFS
             "/cpu%u/cpufreq/related_cpus (%s): check the cpufreq driver",
             cpu, cpu, errno ? strerror(errno) : "empty or malformed");
    return ERGO_EIO;
  }
  /* The frequency belongs to the policy, not to a CPU: related CPUs outside
   * our cpuset change with ours.  Such a policy is still ours to set (we run
   * on it); it is set once, through our first CPU in it. */
  for (struct cpufreq_affected_cpus *r = related; r; r = r->next)
    if (r->cpu < ERGO__MAX_CPUS) covered[r->cpu] = 1;
  covered[cpu] = 1;
  cpufreq_put_related_cpus(related);
  return 0;
}

static int cf_open(ergo__knob *k, char *why, size_t whylen) {
  why[0] = '\0';
  /* The scratch (about 37 KB) is a mapping of its own, not the heap: freed below the policy
   * table that outlives it, it would leave a hole in the application's heap (bench/heap.c). */
  struct scratch {
    ergo__cpuset cs;
    unsigned char covered[ERGO__MAX_CPUS];
    int64_t freqs[2 * CF_MAX_FREQS];
  } *sc = mmap(NULL, sizeof *sc, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (sc == MAP_FAILED) sc = NULL;
  ergo__cpuset *cs = sc ? &sc->cs : NULL;
  unsigned char *covered = sc ? sc->covered : NULL;
  int64_t *freqs = sc ? sc->freqs : NULL, *common = sc ? sc->freqs + CF_MAX_FREQS : NULL;
  cf_priv *p = NULL;
  int rc = ERGO_ENOMEM, ncommon = 0;
  if (!sc) goto out;
  if ((rc = ergo__cpuset_get(cs, why, whylen)) != 0) goto out;
  rc = ERGO_ENOMEM;
  if (!(p = calloc(1, sizeof *p + (size_t)cs->ncpus * sizeof p->cpu[0]))) goto out;
  p->userspace = 1;
  for (int i = 0; i < cs->ncpus; i++) {
    unsigned cpu = (unsigned)cs->cpus[i];
    if (covered[cpu]) continue;
    if ((rc = policy_of(cpu, covered, why, whylen)) != 0) goto out;
    int us = has_userspace(cpu, why, whylen);
    if (us < 0) {
      rc = us;
      goto out;
    }
    /* One mode for all: userspace only if every policy offers it (pinning
     * min = max works under any governor). */
    p->userspace &= us;
    int n = policy_freqs(cpu, freqs, why, whylen);
    if (n < 0) {
      rc = n;
      goto out;
    }
    if (p->npolicies == 0) {
      memcpy(common, freqs, (size_t)n * sizeof *freqs);
      ncommon = n;
    } else {
      ncommon = intersect(common, ncommon, freqs, n);
    }
    p->cpu[p->npolicies++] = cpu;
  }
  rc = ERGO_EIO;
  if (ncommon == 0) {
    snprintf(why, whylen,
             "the cpufreq policies of CPUs %u and %u have no frequency in common: bind this "
             "process to CPUs of one kind (e.g. only performance cores)",
             p->cpu[0], p->cpu[p->npolicies - 1]);
    goto out;
  }
  if (ncommon > ERGO__KNOB_MAX_VALUES) {
    snprintf(why, whylen,
             "the cpufreq policy of CPU %u offers %d frequencies, more than ergo's %d: report "
             "this machine to ergo's developers",
             p->cpu[0], ncommon, ERGO__KNOB_MAX_VALUES);
    goto out;
  }
  static const char *const files[2][2] = {{"scaling_max_freq", "scaling_min_freq"},
                                          {"scaling_governor", "scaling_setspeed"}};
  for (int i = 0; i < p->npolicies; i++)
    for (int f = 0; f < 2; f++)
      if ((rc = check_writable(p->cpu[i], files[p->userspace][f], why, whylen)) != 0) goto out;
  memcpy(k->values, common, (size_t)ncommon * sizeof *common);
  k->nvalues = ncommon;
  k->priv = p;
  p = NULL;
  rc = 0;
out:
  if (rc == ERGO_ENOMEM && !why[0]) snprintf(why, whylen, "out of memory");
  free(p);
  if (sc) munmap(sc, sizeof *sc);
  return rc;
}

/* The value in force on the first policy: with the userspace governor its
 * scaling_setspeed; before ergo switched to it (setspeed "<unsupported>"),
 * and when pinning, scaling_max_freq: the ceiling a busy CPU runs at, and the
 * value itself once min = max. */
static int cf_get(ergo__knob *k, int64_t *value) {
  cf_priv *p = k->priv;
  unsigned long v = p->userspace ? read_value(p->cpu[0], "scaling_setspeed") : 0;
  if (!v) v = read_value(p->cpu[0], "scaling_max_freq");
  if (!v) {
    ergo__warn("cpufreq: libcpupower cannot read " CF_SYSFS "/cpu%u/cpufreq/scaling_max_freq (%s)",
               p->cpu[0], errno ? strerror(errno) : "not a number");
    return ERGO_EIO;
  }
  *value = (int64_t)v;
  return 0;
}

/* One line naming the libcpupower call and CPU.  libcpupower returns -ENODEV
 * for every failure; errno, cleared before the call, keeps open's or
 * write's reason when there is one. */
static int failed(const char *call, unsigned cpu, int64_t value) {
  int e = errno;
  ergo__warn("cpufreq: libcpupower %s(CPU %u, %lld kHz) failed: %s", call, cpu, (long long)value,
             e ? strerror(e) : "a cpufreq file unreadable, or the write refused");
  return ERGO_EIO;
}

static int cf_set(ergo__knob *k, int64_t value) {
  if (!ergo__knob_settable(k, value)) return ERGO_EINVAL; /* nothing written */
  cf_priv *p = k->priv;
  unsigned long f = (unsigned long)value;
  for (int i = 0; i < p->npolicies; i++) {
    unsigned cpu = p->cpu[i];
    errno = 0;
    if (p->userspace) {
      /* Switches the governor to userspace first if it is not, then writes
       * scaling_setspeed. */
      if (cpufreq_set_frequency(cpu, f) != 0) return failed("cpufreq_set_frequency", cpu, value);
      continue;
    }
    /* Pinning: min <= max must hold after each write (older kernels refuse
     * otherwise, newer ones would briefly run outside the range): raising,
     * max goes first; lowering, min does. */
    unsigned long max = read_value(cpu, "scaling_max_freq");
    if (!max) return failed("cpufreq_get_sysfs_value_from_table(scaling_max_freq)", cpu, value);
    int raise = f > max;
    errno = 0;
    if ((raise ? cpufreq_modify_policy_max(cpu, f) : cpufreq_modify_policy_min(cpu, f)) != 0)
      return failed(raise ? "cpufreq_modify_policy_max" : "cpufreq_modify_policy_min", cpu, value);
    errno = 0;
    if ((raise ? cpufreq_modify_policy_min(cpu, f) : cpufreq_modify_policy_max(cpu, f)) != 0)
      return failed(raise ? "cpufreq_modify_policy_min" : "cpufreq_modify_policy_max", cpu, value);
  }
  return 0;
}

/* The files set() writes, per policy, in the order they must come back:
 * the governor before scaling_setspeed (a saved setspeed means something
 * only under userspace; a saved "<unsupported>" is what the kernel shows
 * under any other governor, and comes back by itself with that governor);
 * scaling_min_freq before scaling_max_freq (safe whenever the original
 * minimum is at or below every allowed value, as cpuinfo_min_freq is). */
static int cf_save(ergo__knob *k) {
  cf_priv *p = k->priv;
  static const char *const files[2][2] = {{"scaling_min_freq", "scaling_max_freq"},
                                          {"scaling_governor", "scaling_setspeed"}};
  int kept = 0, shared = 0;
  long holder = 0;
  char first[128] = "";
  /* The policies kept, compacted into p->cpu only once every one is saved. */
  unsigned *keep = malloc((size_t)p->npolicies * sizeof *keep);
  if (!keep) return ERGO_ENOMEM;
  for (int i = 0; i < p->npolicies; i++) {
    int rc = 0;
    char path[128];
    for (int f = 0; f < 2 && !rc; f++) {
      snprintf(path, sizeof path, CF_SYSFS "/cpu%u/cpufreq/%s", p->cpu[i], files[p->userspace][f]);
      rc = ergo__state_track(path, shared ? NULL : &holder);
    }
    if (rc == ERGO_EBUSY) { /* another process tunes this policy: it is theirs */
      if (!shared++) snprintf(first, sizeof first, CF_SYSFS "/cpu%u/cpufreq", p->cpu[i]);
      continue;
    }
    if (rc) {
      free(keep);
      return rc;
    }
    keep[kept++] = p->cpu[i];
  }
  memcpy(p->cpu, keep, (size_t)kept * sizeof *keep);
  free(keep);
  if (shared)
    ergo__warn("cpufreq: %s%s is tuned by ergo process %ld, so this process leaves %s alone (fix: "
               "one tuned job per node, or ERGO_KNOBS=none in the other job; MPI ranks sharing a "
               "policy need nothing)",
               first, shared > 1 ? " and other policies of this process" : "", holder,
               shared > 1 ? "them" : "it");
  if (kept == 0) return ERGO_EBUSY;
  p->npolicies = kept;
  return 0;
}

static void cf_close(ergo__knob *k) {
  free(k->priv);
  k->priv = NULL;
}

const ergo__knob_ops ergo__knob_cpufreq = {
    .open = cf_open,
    .get = cf_get,
    .set = cf_set,
    .save = cf_save,
    .restore = NULL, /* knobs/state_restore.c writes the tracked files back */
    .close = cf_close,
};
