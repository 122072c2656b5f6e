/* powercap.c - the RAPL meter through the kernel's powercap sysfs
 * (/sys/class/powercap/intel-rapl:*). */
#include "meter.h"

#include "ergo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PC_ROOT "/sys/class/powercap"
/* More zones than any machine has (8 sockets x package, core, uncore, dram, plus psys). */
#define PC_MAX_ZONES 64

typedef struct pc_priv {
  int fd[ERGO__METER_MAX_DOMAINS]; /* energy_uj of each domain, opened once */
} pc_priv;

/* One intel-rapl zone as found in the directory, before it becomes a domain. */
typedef struct pc_zone {
  int zone, sub; /* intel-rapl:<zone>[:<sub>]; sub = -1 for a top-level zone */
  char name[32]; /* the kernel's `name` file: "package-0", "core", "dram", "psys" */
  ergo__domain dom;
} pc_zone;

/* "intel-rapl:N" or "intel-rapl:N:M"; anything else is not ours.  The MMIO
 * interface (intel-rapl-mmio:N, on client parts since Tiger Lake) exposes the
 * same package counter again for its power limits: counting it would count
 * the package twice, so it is skipped by this match.  AMD's RAPL uses the
 * same intel-rapl names. */
static int parse_zone(const char *s, int *zone, int *sub) {
  static const char prefix[] = "intel-rapl:";
  if (strncmp(s, prefix, sizeof prefix - 1) != 0) return -1;
  s += sizeof prefix - 1;
  int n[2] = {-1, -1};
  for (int k = 0; k < 2; k++) {
    if (*s < '0' || *s > '9') return -1;
    long v = 0;
    while (*s >= '0' && *s <= '9' && v < 100000) v = v * 10 + (*s++ - '0');
    n[k] = (int)v;
    if (*s == '\0') break;
    if (*s != ':' || k == 1) return -1;
    s++;
  }
  *zone = n[0];
  *sub = n[1];
  return 0;
}

static int zone_cmp(const void *a, const void *b) {
  const pc_zone *x = a, *y = b;
  if (x->zone != y->zone) return x->zone < y->zone ? -1 : 1;
  return (x->sub > y->sub) - (x->sub < y->sub);
}

static void zone_dir(char *buf, size_t len, const pc_zone *z) {
  if (z->sub < 0)
    snprintf(buf, len, PC_ROOT "/intel-rapl:%d", z->zone);
  else
    snprintf(buf, len, PC_ROOT "/intel-rapl:%d:%d", z->zone, z->sub);
}

/* Decimal digits up to '\n' or the end; the kernel writes "%llu\n". */
static int parse_u64(const char *s, size_t n, uint64_t *out) {
  uint64_t v = 0;
  size_t i = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    if (i == 19) return -1; /* more digits than a 64-bit counter can hold */
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (i == 0 || (i < n && !(s[i] == '\n' && i + 1 == n))) return -1;
  *out = v;
  return 0;
}

/* The contents of a small sysfs file, without the trailing newline, shown
 * safely in a reason (no control characters, cut at 24 characters). */
static const char *shown(const char *s, size_t n, char *buf, size_t len) {
  size_t j = 0;
  for (size_t i = 0; i < n && j + 4 < len && i < 24; i++) {
    if (s[i] == '\n' && i + 1 == n) break;
    buf[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
  }
  buf[j] = '\0';
  return buf;
}

/* Read a small file into buf (NUL-terminated); length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  ssize_t n = pread(fd, buf, len - 1, 0);
  int err = errno;
  close(fd);
  if (n < 0) return -err;
  buf[n] = '\0';
  return n;
}

/* energy_uj is the one file the kernel made root-only; elsewhere a denial is unexpected. */
static int unreadable(const char *path, int err, int is_energy, char *why, size_t whylen) {
  if (is_energy && (err == EACCES || err == EPERM))
    snprintf(why, whylen,
             "%s is readable by root only since Linux 5.10 (CVE-2020-8694): run as root, or have "
             "an admin `chmod o+r " PC_ROOT "/intel-rapl:*/energy_uj` (or a udev rule), or use "
             "ERGO_ENERGY=perf with perf_event_paranoid <= 0",
             path);
  else
    snprintf(why, whylen, "cannot read %s: %s", path, strerror(err));
  return ERGO_EIO;
}

static int malformed(const char *path, const char *buf, size_t n, const char *expected, char *why,
                     size_t whylen) {
  char s[32];
  snprintf(why, whylen,
           "%s holds '%s', not %s as the powercap driver writes it: check that file, or use "
           "ERGO_ENERGY=perf",
           path, shown(buf, n, s, sizeof s), expected);
  return ERGO_EFORMAT;
}

/* Read name and max_energy_range_uj of every zone.  0 or a reason. */
static int read_zone(pc_zone *z, char *why, size_t whylen) {
  char dir[128], path[160], buf[64];
  zone_dir(dir, sizeof dir, z);
  snprintf(path, sizeof path, "%s/name", dir);
  ssize_t n = read_small(path, buf, sizeof buf);
  if (n < 0) return unreadable(path, (int)-n, 0, why, whylen);
  if (n > 0 && buf[n - 1] == '\n') buf[--n] = '\0';
  if (n == 0 || (size_t)n >= sizeof z->name || strpbrk(buf, " \t\n/"))
    return malformed(path, buf, (size_t)n, "a zone name", why, whylen);
  memcpy(z->name, buf, (size_t)n + 1);

  snprintf(path, sizeof path, "%s/max_energy_range_uj", dir);
  n = read_small(path, buf, sizeof buf);
  if (n < 0) return unreadable(path, (int)-n, 0, why, whylen);
  if (parse_u64(buf, (size_t)n, &z->dom.range_ticks) != 0)
    return malformed(path, buf, (size_t)n, "a range in microjoules", why, whylen);
  z->dom.joules_per_tick = 1e-6;

  /* The most the zone can draw, for the sampler's period: the largest of its constraints'
   * max_power_uw (intel_rapl: the thermal spec power, TDP) and power_limit_uw (PL1, PL2), so
   * that even a burst to the short-term limit is covered.  None readable: unknown (0). */
  for (int c = 0; c < 8; c++) {
    static const char *const files[] = {"max_power_uw", "power_limit_uw"};
    for (int k = 0; k < 2; k++) {
      uint64_t uw;
      snprintf(path, sizeof path, "%s/constraint_%d_%s", dir, c, files[k]);
      n = read_small(path, buf, sizeof buf);
      if (n > 0 && parse_u64(buf, (size_t)n, &uw) == 0 && (double)uw * 1e-6 > z->dom.max_watts)
        z->dom.max_watts = (double)uw * 1e-6;
    }
  }
  return 0;
}

static int is_package(const char *name) { return strncmp(name, "package-", 8) == 0; }

/* ergo's domain names: package-N as is; a subzone takes its package's suffix
 * ("core" under "package-1" is "core-1"; under "package-0-die-1", on
 * multi-die parts, "core-0-die-1"); psys as is. */
static void name_domains(pc_zone *z, int nz) {
  int npkg = 0, ndram = 0, pkgs[PC_MAX_ZONES];
  for (int i = 0; i < nz; i++) {
    if (z[i].sub >= 0) continue;
    if (is_package(z[i].name)) pkgs[npkg++] = atoi(z[i].name + 8);
    if (strcmp(z[i].name, "dram") == 0) ndram++;
  }
  int dram_k = 0;
  for (int i = 0; i < nz; i++) {
    ergo__domain *d = &z[i].dom;
    const char *name = z[i].name;
    d->package = -1;
    d->in_total = 0;
    if (z[i].sub >= 0) {
      const pc_zone *parent = NULL;
      for (int j = 0; j < nz; j++)
        if (z[j].sub < 0 && z[j].zone == z[i].zone) parent = &z[j];
      if (parent && is_package(parent->name)) {
        snprintf(d->name, sizeof d->name, "%.12s-%.18s", name, parent->name + 8);
        d->package = atoi(parent->name + 8);
      } else {
        snprintf(d->name, sizeof d->name, "%.12s-%d", name, z[i].zone);
      }
      /* core and uncore are parts of the package; DRAM is not. */
      d->in_total = strcmp(name, "dram") == 0;
    } else if (is_package(name)) {
      snprintf(d->name, sizeof d->name, "%s", name);
      d->package = atoi(name + 8);
      d->in_total = 1;
    } else if (strcmp(name, "dram") == 0) {
      /* A top-level DRAM zone (some servers) names no package: when there is
       * one per package, the k-th belongs to the k-th package; else the name
       * takes the zone index and the package is unknown. */
      d->package = ndram == npkg ? pkgs[dram_k] : -1;
      dram_k++;
      snprintf(d->name, sizeof d->name, "dram-%d", d->package >= 0 ? d->package : z[i].zone);
      d->in_total = 1;
    } else {
      /* psys (the whole platform, packages included) counts only when no
       * package zone does; an unknown zone is shown but never summed. */
      snprintf(d->name, sizeof d->name, "%s", name);
      d->in_total = strcmp(name, "psys") == 0 && npkg == 0;
    }
  }
}

static int pc_open(ergo__meter *m, char *why, size_t whylen) {
  DIR *dir = opendir(PC_ROOT);
  if (!dir) {
    if (errno == ENOENT)
      snprintf(why, whylen,
               "no " PC_ROOT ": the intel_rapl/powercap driver is not loaded (modprobe "
               "intel_rapl_common) or this is a VM without RAPL");
    else
      snprintf(why, whylen, "cannot list " PC_ROOT ": %s", strerror(errno));
    return ERGO_EIO;
  }
  pc_zone *z = calloc(PC_MAX_ZONES, sizeof *z);
  pc_priv *p = malloc(sizeof *p);
  if (!z || !p) {
    closedir(dir);
    free(z);
    free(p);
    snprintf(why, whylen, "out of memory");
    return ERGO_ENOMEM;
  }
  int nz = 0;
  struct dirent *e;
  while ((e = readdir(dir)) && nz < PC_MAX_ZONES)
    if (parse_zone(e->d_name, &z[nz].zone, &z[nz].sub) == 0) nz++;
  closedir(dir);

  int rc = 0, n = 0;
  if (nz == 0) {
    snprintf(why, whylen,
             "no intel-rapl zones in " PC_ROOT ": this CPU or kernel exposes no RAPL (modprobe "
             "intel_rapl_msr), or use ERGO_ENERGY=perf");
    rc = ERGO_EIO;
    goto out;
  }
  /* Deterministic order: by zone path, numbers compared as numbers. */
  qsort(z, (size_t)nz, sizeof *z, zone_cmp);
  for (int i = 0; i < nz && rc == 0; i++) rc = read_zone(&z[i], why, whylen);
  if (rc != 0) goto out;
  name_domains(z, nz);

  /* Too many zones for a meter (8-socket nodes): drop the parts of packages
   * (core, uncore), which the totals do not need, from the end. */
  for (int i = nz - 1; i >= 0 && nz > ERGO__METER_MAX_DOMAINS; i--)
    if (!z[i].dom.in_total && z[i].dom.package >= 0) {
      memmove(&z[i], &z[i + 1], (size_t)(nz - i - 1) * sizeof *z);
      nz--;
    }
  if (nz > ERGO__METER_MAX_DOMAINS) {
    snprintf(why, whylen,
             "%d RAPL zones in " PC_ROOT ", more than ergo's %d domains: use ERGO_ENERGY=perf", nz,
             ERGO__METER_MAX_DOMAINS);
    rc = ERGO_EINVAL;
    goto out;
  }

  for (; n < nz; n++) {
    char path[160], buf[32];
    zone_dir(path, sizeof path, &z[n]);
    strcat(path, "/energy_uj");
    p->fd[n] = open(path, O_RDONLY | O_CLOEXEC);
    if (p->fd[n] < 0) {
      rc = unreadable(path, errno, 1, why, whylen);
      break;
    }
    /* Check the contents once here, so a bad file gets a reason naming it. */
    ssize_t len = pread(p->fd[n], buf, sizeof buf, 0);
    uint64_t v;
    if (len < 0) {
      rc = unreadable(path, errno, 1, why, whylen);
    } else if (parse_u64(buf, (size_t)len, &v) != 0) {
      rc = malformed(path, buf, (size_t)len, "a count of microjoules", why, whylen);
    }
    if (rc != 0) {
      n++; /* close this one too */
      break;
    }
    m->dom[n] = z[n].dom;
  }

out:
  if (rc != 0) {
    for (int i = 0; i < n; i++) close(p->fd[i]);
    free(p);
  } else {
    m->ndomains = nz;
    m->priv = p;
  }
  free(z);
  return rc;
}

/* The hot path: one pread per zone on fds opened once (sysfs regenerates the
 * value on every read at offset 0), and no stdio. */
static int pc_read_raw(ergo__meter *m, uint64_t *ticks) {
  const pc_priv *p = m->priv;
  for (int i = 0; i < m->ndomains; i++) {
    char buf[32];
    ssize_t n = pread(p->fd[i], buf, sizeof buf, 0);
    if (n <= 0) return ERGO_EIO;
    if (parse_u64(buf, (size_t)n, &ticks[i]) != 0) return ERGO_EFORMAT;
  }
  return 0;
}

static void pc_close(ergo__meter *m) {
  pc_priv *p = m->priv;
  if (!p) return;
  for (int i = 0; i < m->ndomains; i++) close(p->fd[i]);
  free(p);
  m->priv = NULL;
}

const ergo__meter_ops ergo__meter_powercap = {
    .name = "powercap",
    .open = pc_open,
    .read_raw = pc_read_raw,
    .close = pc_close,
};
