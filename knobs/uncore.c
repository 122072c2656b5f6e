/* uncore.c - the uncore frequency knob: pins min_freq_khz = max_freq_khz on the
 * intel_uncore_frequency dies of the packages this process runs on. */
#include "knobs/cpuset.h"
#include "knobs/knob.h"
#include "knobs/state.h"

#include "ergo.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNC_ROOT "/sys/devices/system/cpu/intel_uncore_frequency"
/* The driver keeps ratios of 100 MHz (MSR 0x620, or TPMI): it divides what is
 * written by this and shows ratio * this, so only multiples of it are real. */
#define ERGO__UNCORE_STEP_KHZ 100000
/* More dies than any machine has (64 packages of cpuset.h, a few dies each). */
#define UNC_MAX_DIES 256

/* One package_XX_die_YY directory. */
typedef struct unc_die {
  int package, die;
  int shared;              /* another process tunes it (save found its claim): left alone */
  char min[128], max[128]; /* min_freq_khz, max_freq_khz */
} unc_die;

typedef struct unc_priv {
  int ndies;
  unc_die die[UNC_MAX_DIES];
} unc_priv;

/* "package_XX_die_YY" with decimal ids (the driver prints %02d, so 100 and up
 * have three digits).  Newer kernels with TPMI (Xeon 6) also add uncoreNN
 * directories, one per fabric cluster, that name their package in package_id;
 * they are not needed: TPMI keeps one package_XX_die_00 directory per package
 * whose writes go to every cluster of it, so this layout covers both. */
static int parse_die_dir(const char *s, int *package, int *die) {
  static const char *const part[2] = {"package_", "_die_"};
  int v[2];
  for (int k = 0; k < 2; k++) {
    size_t n = strlen(part[k]);
    if (strncmp(s, part[k], n) != 0) return -1;
    s += n;
    if (*s < '0' || *s > '9') return -1;
    long x = 0;
    while (*s >= '0' && *s <= '9' && x < 100000) x = x * 10 + (*s++ - '0');
    v[k] = (int)x;
  }
  if (*s != '\0') return -1;
  *package = v[0];
  *die = v[1];
  return 0;
}

static int die_cmp(const void *a, const void *b) {
  const unc_die *x = a, *y = b;
  if (x->package != y->package) return x->package < y->package ? -1 : 1;
  return (x->die > y->die) - (x->die < y->die);
}

/* A kHz file as the driver shows it: "%u\n", positive.  0, ERGO_EIO (cannot
 * read, errno kept) or ERGO_EFORMAT; why names the file and what was wrong. */
static int read_khz(const char *path, int64_t *out, char *why, size_t whylen) {
  char buf[64];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    snprintf(why, whylen, "cannot read %s: %s", path, strerror(e));
    errno = e;
    return ERGO_EIO;
  }
  ssize_t n = read(fd, buf, sizeof buf - 1);
  int e = errno;
  close(fd);
  if (n < 0) {
    snprintf(why, whylen, "cannot read %s: %s", path, strerror(e));
    errno = e;
    return ERGO_EIO;
  }
  buf[n] = '\0';
  const char *p = buf;
  int64_t v = 0;
  while (*p >= '0' && *p <= '9' && v < INT64_C(1) << 40) v = v * 10 + (*p++ - '0');
  if (p == buf || v <= 0 || v >= INT64_C(1) << 40 || (*p != '\0' && strcmp(p, "\n") != 0)) {
    buf[strcspn(buf, "\n")] = '\0';
    snprintf(why, whylen, "%s holds \"%s\", not a frequency in kHz", path, buf);
    return ERGO_EFORMAT;
  }
  *out = v;
  return 0;
}

/* Opening for writing writes nothing (a sysfs store needs a write()), yet
 * meets every refusal a write would: file mode, read-only mount, LSM. */
static int check_writable(const char *path, char *why, size_t whylen) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  int e = errno;
  if (e == EACCES || e == EPERM)
    snprintf(why, whylen, "%s is not writable (%s): run as root to tune the uncore frequency", path,
             strerror(e));
  else
    snprintf(why, whylen, "%s is not writable (%s)", path, strerror(e));
  return ERGO_EIO;
}

/* The package_XX_die_YY directories of our packages, sorted. */
static int find_dies(unc_priv *p, char *why, size_t whylen) {
  ergo__cpuset cs;
  int rc = ergo__cpuset_get(&cs, why, whylen);
  if (rc != 0) return rc;
  DIR *d = opendir(UNC_ROOT);
  if (!d) {
    if (errno == ENOENT)
      snprintf(why, whylen,
               "no " UNC_ROOT ": the intel_uncore_frequency driver is not loaded (modprobe "
               "intel_uncore_frequency, or intel_uncore_frequency_tpmi on Xeon 6; Intel CPUs "
               "since Broadwell, never in a virtual machine)");
    else
      snprintf(why, whylen, "cannot list " UNC_ROOT ": %s", strerror(errno));
    return ERGO_EIO;
  }
  struct dirent *e;
  while ((e = readdir(d)) && p->ndies < UNC_MAX_DIES) {
    int pkg, die;
    if (parse_die_dir(e->d_name, &pkg, &die) != 0) continue;
    int ours = 0;
    for (int i = 0; i < cs.npackages; i++) ours |= cs.packages[i] == pkg;
    if (!ours) continue;
    unc_die *u = &p->die[p->ndies++];
    u->package = pkg;
    u->die = die;
    /* parse_die_dir bounds the name: "package_" + 6 digits + "_die_" + 6 digits. */
    char name[32];
    snprintf(name, sizeof name, "%.31s", e->d_name);
    snprintf(u->min, sizeof u->min, UNC_ROOT "/%s/min_freq_khz", name);
    snprintf(u->max, sizeof u->max, UNC_ROOT "/%s/max_freq_khz", name);
  }
  closedir(d);
  if (p->ndies == 0) {
    char list[256] = "";
    for (int i = 0, n = 0; i < cs.npackages && n < (int)sizeof list; i++)
      n += snprintf(list + n, sizeof list - (size_t)n, "%s%d", i ? ", " : "", cs.packages[i]);
    snprintf(why, whylen,
             UNC_ROOT " has no package_XX_die_YY directory for %s %s, where this process runs",
             cs.npackages > 1 ? "packages" : "package", list);
    return ERGO_EIO;
  }
  qsort(p->die, (size_t)p->ndies, sizeof p->die[0], die_cmp);
  return 0;
}

/* The range every die allows: the driver's out-of-reset limits, which are
 * also the hardware's (initial_min_freq_khz, initial_max_freq_khz). */
static int die_range(const unc_die *u, int64_t *lo, int64_t *hi, char *why, size_t whylen) {
  char path[160];
  size_t dir = strlen(u->min) - strlen("min_freq_khz");
  int64_t v[2], now;
  static const char *const name[2] = {"initial_min_freq_khz", "initial_max_freq_khz"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%.*s%s", (int)dir, u->min, name[k]);
    int rc = read_khz(path, &v[k], why, whylen);
    if (rc != 0) return rc;
  }
  if (v[0] > v[1]) {
    snprintf(why, whylen,
             "%.*s: initial_min_freq_khz %" PRId64 " is above initial_max_freq_khz %" PRId64,
             (int)dir - 1, u->min, v[0], v[1]);
    return ERGO_EFORMAT;
  }
  /* What save() will track and restore must be readable and sane too. */
  int rc = read_khz(u->min, &now, why, whylen);
  if (rc == 0) rc = read_khz(u->max, &now, why, whylen);
  if (rc != 0) return rc;
  *lo = v[0] > *lo ? v[0] : *lo;
  *hi = v[1] < *hi ? v[1] : *hi;
  return 0;
}

static int uncore_open(ergo__knob *k, char *why, size_t whylen) {
  why[0] = '\0';
  unc_priv *p = calloc(1, sizeof *p);
  if (!p) return ERGO_ENOMEM;
  int rc = find_dies(p, why, whylen);
  int64_t lo = 0, hi = INT64_MAX;
  for (int i = 0; rc == 0 && i < p->ndies; i++) rc = die_range(&p->die[i], &lo, &hi, why, whylen);
  for (int i = 0; rc == 0 && i < p->ndies; i++) {
    rc = check_writable(p->die[i].min, why, whylen);
    if (rc == 0) rc = check_writable(p->die[i].max, why, whylen);
  }
  if (rc == 0) {
    /* Only whole ratios are real: round inwards (the driver's limits are
     * whole ratios, so both ends are kept). */
    lo = (lo + ERGO__UNCORE_STEP_KHZ - 1) / ERGO__UNCORE_STEP_KHZ * ERGO__UNCORE_STEP_KHZ;
    hi = hi / ERGO__UNCORE_STEP_KHZ * ERGO__UNCORE_STEP_KHZ;
    int64_t n = lo <= hi ? (hi - lo) / ERGO__UNCORE_STEP_KHZ + 1 : 0;
    if (n <= 0 || n > ERGO__KNOB_MAX_VALUES) {
      snprintf(why, whylen,
               "the dies of " UNC_ROOT " share no range of whole 100 MHz steps (%" PRId64
               "..%" PRId64 " kHz)",
               lo, hi);
      rc = ERGO_EFORMAT;
    } else {
      for (int i = 0; i < n; i++) k->values[i] = lo + i * ERGO__UNCORE_STEP_KHZ;
      k->nvalues = (int)n;
    }
  }
  if (rc != 0) {
    free(p);
    k->priv = NULL;
    k->nvalues = 0;
    return rc;
  }
  /* Room for every die was made up front (68 KB); give back what the dies found leave, so the
   * application's heap keeps its top (bench/heap.c). */
  unc_priv *small = realloc(p, offsetof(unc_priv, die) + (size_t)p->ndies * sizeof p->die[0]);
  k->priv = small ? small : p;
  return 0;
}

/* current_freq_khz would say what the hardware runs, but it is root-only
 * (0400) and absent from TPMI's package directories; the pinned limit is
 * what ergo controls. */
static int uncore_get(ergo__knob *k, int64_t *value) {
  unc_priv *p = k->priv;
  char why[ERGO__KNOB_WHY_LEN];
  int rc = read_khz(p->die[0].max, value, why, sizeof why);
  if (rc != 0) ergo__warn("uncore: %s", why);
  return rc;
}

static int write_khz(const char *path, int64_t v) {
  char buf[32];
  int len = snprintf(buf, sizeof buf, "%" PRId64 "\n", v), e = 0;
  /* O_TRUNC: sysfs ignores it, a fake tree (tests) needs it. */
  int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    e = errno;
  } else {
    /* The driver's refusal (EINVAL, EIO from the MSR) comes back from write(). */
    ssize_t n = write(fd, buf, (size_t)len);
    if (n != len) e = n < 0 ? errno : EIO;
    if (close(fd) != 0 && e == 0) e = errno;
  }
  if (e == 0) return 0;
  ergo__warn("uncore: cannot write %" PRId64 " to %s: %s", v, path, strerror(e));
  return ERGO_EIO;
}

/* Packages whose uncore this process sets: in an MPI job one rank per package does (knobs.h). */
static uint64_t owned = ~0ull;

void ergo__uncore_share(uint64_t packages) { owned = packages; }

static int mine(const unc_die *u) {
  return u->package < 64 ? (int)((owned >> u->package) & 1) : owned == ~0ull;
}

static int uncore_set(ergo__knob *k, int64_t value) {
  unc_priv *p = k->priv;
  if (!ergo__knob_settable(k, value)) return ERGO_EINVAL;
  for (int i = 0; i < p->ndies; i++) {
    unc_die *u = &p->die[i];
    if (!mine(u) || u->shared) continue; /* another rank or process of the node sets it */
    char why[ERGO__KNOB_WHY_LEN];
    int64_t max;
    int rc = read_khz(u->max, &max, why, sizeof why);
    if (rc != 0) {
      ergo__warn("uncore: %s", why);
      return rc;
    }
    /* The driver (TPMI) refuses, and the hardware may misbehave with, a
     * minimum above the maximum: keep min <= max after each write. */
    if (value > max) {
      rc = write_khz(u->max, value);
      if (rc == 0) rc = write_khz(u->min, value);
    } else {
      rc = write_khz(u->min, value);
      if (rc == 0) rc = write_khz(u->max, value);
    }
    if (rc != 0) return rc;
  }
  return 0;
}

static int uncore_save(ergo__knob *k) {
  unc_priv *p = k->priv;
  int kept = 0, shared = 0;
  long holder = 0;
  const char *first = "";
  for (int i = 0; i < p->ndies; i++) {
    unc_die *u = &p->die[i];
    if (!mine(u) || u->shared) continue;
    int rc = ergo__state_track(u->min, shared ? NULL : &holder);
    if (rc == 0) rc = ergo__state_track(u->max, NULL);
    if (rc == ERGO_EBUSY) { /* another process tunes this die: it is theirs */
      u->shared = 1;
      if (!shared++) first = u->min;
      continue;
    }
    if (rc != 0) return rc;
    kept++;
  }
  if (shared)
    ergo__warn("uncore: %s%s is tuned by ergo process %ld, so this process leaves %s alone (fix: "
               "one tuned job per node, or ERGO_KNOBS=none in the other job)",
               first, shared > 1 ? " and other dies of this process" : "", holder,
               shared > 1 ? "them" : "it");
  return kept == 0 && shared ? ERGO_EBUSY : 0;
}

static void uncore_close(ergo__knob *k) {
  free(k->priv);
  k->priv = NULL;
}

const ergo__knob_ops ergo__knob_uncore = {
    .open = uncore_open,
    .get = uncore_get,
    .set = uncore_set,
    .save = uncore_save,
    .restore = NULL, /* knobs/state_restore.c writes the tracked files back */
    .close = uncore_close,
};
