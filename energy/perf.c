/* perf.c - the RAPL meter through the perf_event power PMU (/sys/bus/event_source/devices/power) */
#include "meter.h"

#include "ergo.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PMU_DIR "/sys/bus/event_source/devices/power"
#define CPU_DIR "/sys/devices/system/cpu"
#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
/* More CPUs in the PMU's cpumask than any machine has packages (and dies). */
#define PERF_MAX_CPUS 64

#include "energy/perf_parse.h"

/* The kernel's RAPL events, in the order ergo lists a package's domains. */
static const struct perf_kind {
  const char *event;  /* power/<event>/ */
  const char *domain; /* ergo's name: "<domain>-<package>", or just "psys" */
  int in_total;       /* package and DRAM are disjoint; cores and GPU are inside the package */
} kinds[] = {
    {"energy-pkg", "package", 1}, {"energy-cores", "core", 0}, {"energy-ram", "dram", 1},
    {"energy-gpu", "gpu", 0},     {"energy-psys", "psys", 0},
};
#define NKINDS (sizeof kinds / sizeof *kinds)
#define PSYS (NKINDS - 1)

typedef struct perf_priv {
  int fd[ERGO__METER_MAX_DOMAINS]; /* one per domain: one (event, package) counter each */
} perf_priv;

/* ---- parsing of the PMU's sysfs files (exposed to the tests) ---------- */

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n'; }

/* A decimal number in s, advancing s; -1 if none or absurd. */
static long parse_dec(const char **s) {
  const char *p = *s;
  long v = 0;
  if (*p < '0' || *p > '9') return -1;
  while (*p >= '0' && *p <= '9') {
    v = v * 10 + (*p++ - '0');
    if (v > 1000000) return -1;
  }
  *s = p;
  return v;
}

/* "0", "0,20", "0-1", "0-3,8-11\n" (the kernel's cpulist format) into cpus;
 * the count, or -1 if malformed or more than max. */
int ergo__perf_parse_cpulist(const char *s, int *cpus, int max) {
  int n = 0;
  while (is_space(*s)) s++;
  if (*s == '\0') return 0;
  for (;;) {
    long lo = parse_dec(&s), hi = lo;
    if (lo < 0) return -1;
    if (*s == '-') {
      s++;
      hi = parse_dec(&s);
      if (hi < lo) return -1;
    }
    for (long c = lo; c <= hi; c++) {
      if (n == max) return -1;
      cpus[n++] = (int)c;
    }
    if (*s != ',') break;
    s++;
  }
  while (is_space(*s)) s++;
  return *s == '\0' ? n : -1;
}

/* A format/ file: "config:0-7" or "config:8" into the bit range [lo, hi];
 * 0, or -1 (config1/config2 fields are not used by the power PMU). */
int ergo__perf_parse_format(const char *s, int *lo, int *hi) {
  if (strncmp(s, "config:", 7) != 0) return -1;
  s += 7;
  long a = parse_dec(&s), b = a;
  if (a < 0) return -1;
  if (*s == '-') {
    s++;
    b = parse_dec(&s);
  }
  while (is_space(*s)) s++;
  if (*s != '\0' || b < a || b > 63) return -1;
  *lo = (int)a;
  *hi = (int)b;
  return 0;
}

/* An events/ file: "event=0x02" or "event=0x02,umask=0x1" into the config
 * word; field() places each term (its format/ file); "config=" is the raw
 * word.  A term without a value is 1, as perf reads it.  0 or -1. */
int ergo__perf_parse_event(const char *s, ergo__perf_field_fn *field, void *ctx, uint64_t *config) {
  uint64_t cfg = 0;
  while (is_space(*s)) s++;
  while (*s) {
    char term[32];
    size_t n = strcspn(s, "=,\n");
    if (n == 0 || n >= sizeof term) return -1;
    memcpy(term, s, n);
    term[n] = '\0';
    s += n;
    uint64_t v = 1;
    if (*s == '=') {
      char *end;
      errno = 0;
      if (s[1] < '0' || s[1] > '9') return -1;
      v = strtoull(s + 1, &end, 0);
      if (errno || end == s + 1) return -1;
      s = end;
    }
    if (strcmp(term, "config") == 0) {
      cfg |= v;
    } else {
      int lo, hi;
      if (!field || field(ctx, term, &lo, &hi) != 0) return -1;
      int width = hi - lo + 1;
      if (width < 64 && v >> width) return -1; /* does not fit its field */
      cfg |= v << lo;
    }
    if (*s == ',')
      s++;
    else if (*s && !is_space(*s))
      return -1;
    while (is_space(*s)) s++;
  }
  *config = cfg;
  return 0;
}

/* A .scale file ("2.3283064365386962890625e-10\n"): joules per count. */
int ergo__perf_parse_scale(const char *s, double *scale) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno) return -1;
  while (is_space(*end)) end++;
  if (*end != '\0' || !isfinite(v) || v <= 0) return -1;
  *scale = v;
  return 0;
}

/* A .unit file: the kernel writes "Joules" for every RAPL event; anything
 * else would make the scale mean something ergo does not know.  0 or -1. */
int ergo__perf_parse_unit(const char *s) {
  size_t n = strlen(s);
  while (n && is_space(s[n - 1])) n--;
  return n == 6 && strncmp(s, "Joules", 6) == 0 ? 0 : -1;
}

/* ---- the meter -------------------------------------------------------- */

/* A small sysfs file into buf (NUL-terminated); 0 or -errno. */
static int read_text(const char *path, char *buf, size_t len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  ssize_t n = read(fd, buf, len - 1);
  int err = errno;
  close(fd);
  if (n < 0) return -err;
  buf[n] = '\0';
  return 0;
}

static int cannot_read(const char *path, int err, char *why, size_t whylen) {
  snprintf(why, whylen, "cannot read %s: %s", path, strerror(err));
  return ERGO_EIO;
}

/* A file's content in a reason: printable, cut short. */
static const char *shown(const char *s, char *buf, size_t len) {
  size_t j = 0;
  for (; s[j] && j + 1 < len && j < 24 && s[j] != '\n'; j++)
    buf[j] = (s[j] >= 0x20 && s[j] < 0x7f) ? s[j] : '?';
  buf[j] = '\0';
  return buf;
}

static int malformed(const char *path, const char *content, const char *expected, char *why,
                     size_t whylen) {
  char s[32];
  snprintf(why, whylen, "%s holds '%s', not %s as the kernel writes", path,
           shown(content, s, sizeof s), expected);
  return ERGO_EFORMAT;
}

/* field() for ergo__perf_parse_event: the PMU's own format/<term> file. */
static int sysfs_field(void *ctx, const char *term, int *lo, int *hi) {
  (void)ctx;
  char path[128], buf[64];
  snprintf(path, sizeof path, PMU_DIR "/format/%s", term);
  if (read_text(path, buf, sizeof buf) != 0) return -1;
  return ergo__perf_parse_format(buf, lo, hi);
}

/* What one event needs: its config and joules per count.  0 if present,
 * 1 if the PMU has no such event, else a reason. */
static int read_event(const char *event, uint64_t *config, double *scale, char *why,
                      size_t whylen) {
  char path[160], buf[128];
  snprintf(path, sizeof path, PMU_DIR "/events/%s", event);
  int err = read_text(path, buf, sizeof buf);
  if (err == -ENOENT) return 1;
  if (err) return cannot_read(path, -err, why, whylen);
  if (ergo__perf_parse_event(buf, sysfs_field, NULL, config) != 0)
    return malformed(path, buf, "terms like event=0x02 that " PMU_DIR "/format/ describes", why,
                     whylen);
  snprintf(path, sizeof path, PMU_DIR "/events/%s.scale", event);
  if ((err = read_text(path, buf, sizeof buf))) return cannot_read(path, -err, why, whylen);
  if (ergo__perf_parse_scale(buf, scale) != 0)
    return malformed(path, buf, "a positive number of joules per count", why, whylen);
  snprintf(path, sizeof path, PMU_DIR "/events/%s.unit", event);
  if ((err = read_text(path, buf, sizeof buf))) return cannot_read(path, -err, why, whylen);
  if (ergo__perf_parse_unit(buf) != 0) return malformed(path, buf, "Joules", why, whylen);
  return 0;
}

/* The package of each CPU of the cpumask (one CPU per package, or per die
 * on multi-die parts).  Two CPUs on one package (dies) would give two
 * "package-N": then the CPUs are numbered in cpumask order instead. */
static int read_packages(const int *cpus, int ncpu, int *pkg, char *why, size_t whylen) {
  for (int i = 0; i < ncpu; i++) {
    char path[128], buf[32];
    snprintf(path, sizeof path, CPU_DIR "/cpu%d/topology/physical_package_id", cpus[i]);
    int err = read_text(path, buf, sizeof buf);
    if (err) return cannot_read(path, -err, why, whylen);
    const char *p = buf;
    long v = parse_dec(&p);
    while (is_space(*p)) p++;
    if (v < 0 || *p) return malformed(path, buf, "a package number", why, whylen);
    pkg[i] = (int)v;
  }
  for (int i = 0; i < ncpu; i++)
    for (int j = 0; j < i; j++)
      if (pkg[i] == pkg[j]) {
        for (int k = 0; k < ncpu; k++) pkg[k] = k;
        return 0;
      }
  return 0;
}

/* System-wide on `cpu` (pid -1), no group; close-on-exec so that `ergo run`
 * does not hand the counters to the application it starts. */
static long perf_event_open(struct perf_event_attr *attr, int cpu) {
  return syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int open_failed(const char *event, int cpu, uint32_t type, uint64_t config, int err,
                       char *why, size_t whylen) {
  if (err == EACCES || err == EPERM) {
    char p[16] = "?";
    if (read_text(PARANOID, p, sizeof p) == 0) p[strcspn(p, "\n")] = '\0';
    snprintf(why, whylen,
             "perf_event_open(power/%s/) refused: perf_event_paranoid is %s (" PARANOID
             "); system-wide events need paranoid <= 0 or CAP_PERFMON/CAP_SYS_ADMIN",
             event, p);
  } else {
    snprintf(why, whylen, "perf_event_open(power/%s/, cpu %d) failed: %s (type %u, config %#llx)",
             event, cpu, strerror(err), type, (unsigned long long)config);
  }
  return ERGO_EIO;
}

static void perf_close(ergo__meter *m) {
  perf_priv *p = m->priv;
  if (!p) return;
  for (int i = 0; i < m->ndomains; i++)
    if (p->fd[i] >= 0) close(p->fd[i]);
  free(p);
  m->priv = NULL;
}

static int perf_open(ergo__meter *m, char *why, size_t whylen) {
  char buf[256];
  int err = read_text(PMU_DIR "/type", buf, sizeof buf);
  if (err == -ENOENT) {
    snprintf(why, whylen,
             "no perf power PMU at " PMU_DIR ": needs the intel_rapl_perf/rapl PMU (bare metal, "
             "Linux >= 3.14); not available in most VMs");
    return ERGO_EIO;
  }
  if (err) return cannot_read(PMU_DIR "/type", -err, why, whylen);
  const char *p = buf;
  long type = parse_dec(&p);
  while (is_space(*p)) p++;
  if (type < 0 || *p) return malformed(PMU_DIR "/type", buf, "a PMU type number", why, whylen);

  int cpus[PERF_MAX_CPUS], pkg[PERF_MAX_CPUS];
  if ((err = read_text(PMU_DIR "/cpumask", buf, sizeof buf)))
    return cannot_read(PMU_DIR "/cpumask", -err, why, whylen);
  int ncpu = ergo__perf_parse_cpulist(buf, cpus, PERF_MAX_CPUS);
  if (ncpu <= 0) return malformed(PMU_DIR "/cpumask", buf, "a list of CPUs", why, whylen);
  int rc = read_packages(cpus, ncpu, pkg, why, whylen);
  if (rc) return rc;

  uint64_t config[NKINDS];
  double scale[NKINDS];
  int have[NKINDS], nhave = 0;
  for (size_t k = 0; k < NKINDS; k++) {
    rc = read_event(kinds[k].event, &config[k], &scale[k], why, whylen);
    if (rc < 0) return rc;
    have[k] = rc == 0;
    nhave += have[k];
  }
  if (!nhave) {
    snprintf(why, whylen,
             "the perf power PMU has no energy-pkg, energy-cores, energy-ram, energy-gpu or "
             "energy-psys event in " PMU_DIR "/events");
    return ERGO_EIO;
  }
  int ndom = 0;
  for (int c = 0; c < ncpu; c++)
    for (size_t k = 0; k < PSYS; k++) ndom += have[k];
  ndom += have[PSYS];
  if (ndom > ERGO__METER_MAX_DOMAINS) {
    snprintf(why, whylen,
             "the perf power PMU has %d counters (%d CPUs in its cpumask), more than "
             "ergo's %d domains",
             ndom, ncpu, ERGO__METER_MAX_DOMAINS);
    return ERGO_EINVAL;
  }

  perf_priv *pp = malloc(sizeof *pp);
  if (!pp) return ERGO_ENOMEM;
  m->priv = pp;
  m->ndomains = 0;
  /* Every package's domains, then psys once (it is platform-wide, read on the first CPU). */
  for (int c = 0; c <= ncpu; c++) {
    for (size_t k = 0; k < NKINDS; k++) {
      if (!have[k] || (c == ncpu) != (k == PSYS)) continue;
      int cpu = cpus[c == ncpu ? 0 : c];
      struct perf_event_attr attr;
      memset(&attr, 0, sizeof attr);
      attr.type = (uint32_t)type;
      attr.size = sizeof attr;
      attr.config = config[k];
      /* disabled = 0, inherit = 0: counting starts now; exclusion bits stay
       * 0 because the power PMU rejects them. */
      long fd = perf_event_open(&attr, cpu);
      if (fd < 0) {
        rc = open_failed(kinds[k].event, cpu, attr.type, attr.config, errno, why, whylen);
        perf_close(m);
        m->ndomains = 0;
        return rc;
      }
      ergo__domain *d = &m->dom[m->ndomains];
      pp->fd[m->ndomains++] = (int)fd;
      memset(d, 0, sizeof *d);
      if (k == PSYS) {
        snprintf(d->name, sizeof d->name, "psys");
        d->package = -1;
        d->in_total = !have[0]; /* psys covers the packages: count it only without them */
      } else {
        snprintf(d->name, sizeof d->name, "%s-%d", kinds[k].domain, pkg[c]);
        d->package = pkg[c];
        d->in_total = kinds[k].in_total;
      }
      d->joules_per_tick = scale[k];
      d->range_ticks = 0; /* the kernel accumulates the 32-bit MSR into a 64-bit count */
    }
  }
  return 0;
}

static int perf_read_raw(ergo__meter *m, uint64_t *ticks) {
  perf_priv *p = m->priv;
  for (int i = 0; i < m->ndomains; i++)
    if (read(p->fd[i], &ticks[i], sizeof ticks[i]) != (ssize_t)sizeof ticks[i]) return ERGO_EIO;
  return 0;
}

const ergo__meter_ops ergo__meter_perf = {
    .name = "perf",
    .open = perf_open,
    .read_raw = perf_read_raw,
    .close = perf_close,
};
