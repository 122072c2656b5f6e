/* papi.c - the RAPL meter through PAPI: its powercap or rapl component, or libpfm4's rapl:: PMU. */
#include "meter.h"

#include "ergo.h"

#include <stdarg.h>
#include <stdio.h>

/* A reason, cut to fit (PAPI's names and reasons can be long). */
__attribute__((format(printf, 3, 4))) static void say(char *why, size_t whylen, const char *fmt,
                                                      ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, whylen, fmt, ap);
  va_end(ap);
}

#if ERGO_WITH_PAPI
#include <papi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PMU_DIR "/sys/bus/event_source/devices/power"

#include "energy/perf_parse.h"

/* One PAPI event that becomes one domain. */
typedef struct papi_cand {
  char event[PAPI_MAX_STR_LEN];
  int rank; /* order within a package: package, core, uncore, dram, gpu, psys */
  ergo__domain dom;
} papi_cand;

typedef struct papi_priv {
  int evset;
  /* PAPI's powercap component reports the raw counter, not the difference,
   * while it has not moved since PAPI_start (_powercap_read handles only
   * start < current and start > current).  So a domain reads 0 until its
   * value first changes; from then on it is the true difference. */
  int settle;
  long long first[ERGO__METER_MAX_DOMAINS];
  int moved[ERGO__METER_MAX_DOMAINS];
} papi_priv;

/* PAPI is initialised once per process; ergo shuts it down with its last
 * meter, unless the application had initialised it (then it is theirs). */
static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
static int lib_refs, lib_ours;

static int lib_acquire(char *why, size_t whylen) {
  int rc = 0;
  pthread_mutex_lock(&lib_lock);
  if (lib_refs == 0 && PAPI_is_initialized() == PAPI_NOT_INITED) {
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v == PAPI_VER_CURRENT) {
      lib_ours = 1;
    } else if (v > 0) {
      say(why, whylen,
          "PAPI_library_init: libpapi is version %d.%d.%d but ergo was built with papi.h "
          "%d.%d.%d: rebuild ergo against the installed PAPI",
          PAPI_VERSION_MAJOR(v), PAPI_VERSION_MINOR(v), PAPI_VERSION_REVISION(v),
          PAPI_VERSION_MAJOR(PAPI_VER_CURRENT), PAPI_VERSION_MINOR(PAPI_VER_CURRENT),
          PAPI_VERSION_REVISION(PAPI_VER_CURRENT));
      rc = ERGO_EIO;
    } else {
      say(why, whylen, "PAPI_library_init failed: %s", PAPI_strerror(v));
      rc = ERGO_EIO;
    }
  }
  if (rc == 0) lib_refs++;
  pthread_mutex_unlock(&lib_lock);
  return rc;
}

static void lib_release(void) {
  pthread_mutex_lock(&lib_lock);
  if (lib_refs > 0 && --lib_refs == 0 && lib_ours) {
    PAPI_shutdown();
    lib_ours = 0;
  }
  pthread_mutex_unlock(&lib_lock);
}

/* The component called `name`, enabled; its index, or -1 with a reason.
 * Kept short: distributions build PAPI without powercap and rapl, and this
 * line shares the caller's buffer with the powercap and perf reasons. */
static int component(const char *name, char *why, size_t whylen) {
  int cidx = PAPI_get_component_index(name);
  if (cidx < 0) {
    say(why, whylen, "not built into this PAPI");
    return -1;
  }
  const PAPI_component_info_t *info = PAPI_get_component_info(cidx);
  if (!info) {
    say(why, whylen, "PAPI_get_component_info(%d) failed", cidx);
    return -1;
  }
  if (info->disabled) {
    say(why, whylen, "disabled: %.200s",
        info->disabled_reason[0] ? info->disabled_reason : PAPI_strerror(info->disabled));
    return -1;
  }
  return cidx;
}

/* Joules per count from an event's PAPI units, or 0 when PAPI names none. */
static double unit_joules(const char *units) {
  if (strcmp(units, "nJ") == 0) return 1e-9;
  if (strcmp(units, "uJ") == 0) return 1e-6;
  if (strcmp(units, "mJ") == 0) return 1e-3;
  if (strcmp(units, "J") == 0 || strcmp(units, "Joules") == 0) return 1;
  return 0;
}

/* A domain from its kind ("package", "core", "dram", ...) and package. */
static void set_domain(papi_cand *c, const char *kind, int package, double jpt, uint64_t range) {
  static const char *const ranks[] = {"package", "core", "uncore", "dram", "gpu", "psys"};
  c->rank = 6;
  for (int r = 0; r < 6; r++)
    if (strcmp(kind, ranks[r]) == 0) c->rank = r;
  memset(&c->dom, 0, sizeof c->dom);
  if (strcmp(kind, "psys") == 0) {
    snprintf(c->dom.name, sizeof c->dom.name, "psys");
    c->dom.package = -1;
  } else {
    snprintf(c->dom.name, sizeof c->dom.name, "%.16s-%d", kind, package);
    c->dom.package = package;
  }
  /* Packages and DRAM are disjoint; cores, uncore and GPU lie inside the
   * package; psys covers everything (in_total fixed up once all are known). */
  c->dom.in_total = c->rank == 0 || c->rank == 3;
  c->dom.joules_per_tick = jpt;
  c->dom.range_ticks = range;
}

static int cand_cmp(const void *a, const void *b) {
  const papi_cand *x = a, *y = b;
  int px = x->dom.package < 0 ? 1 << 30 : x->dom.package;
  int py = y->dom.package < 0 ? 1 << 30 : y->dom.package;
  if (px != py) return px < py ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

static void finish_domains(papi_cand *c, int n) {
  qsort(c, (size_t)n, sizeof *c, cand_cmp);
  int pkg = 0;
  for (int i = 0; i < n; i++) pkg |= c[i].rank == 0;
  for (int i = 0; i < n; i++)
    if (c[i].rank == 5) c[i].dom.in_total = !pkg;
}

static int add_cand(papi_cand *c, int *n, const char *event, char *why, size_t whylen) {
  if (*n == ERGO__METER_MAX_DOMAINS) {
    say(why, whylen, "more than ergo's %d domains", ERGO__METER_MAX_DOMAINS);
    return -1;
  }
  size_t len = strlen(event);
  if (len >= sizeof c[*n].event) {
    say(why, whylen, "event name longer than %zu: %.60s...", sizeof c[*n].event, event);
    return -1;
  }
  memcpy(c[*n].event, event, len + 1);
  return (*n)++;
}

/* The value of each named event once (for the powercap ranges).  0 or -1. */
static int read_once(char names[][PAPI_MAX_STR_LEN], int n, long long *vals) {
  int set = PAPI_NULL, ok = PAPI_create_eventset(&set) == PAPI_OK;
  for (int i = 0; ok && i < n; i++) ok = PAPI_add_named_event(set, names[i]) == PAPI_OK;
  ok = ok && PAPI_start(set) == PAPI_OK;
  ok = ok && PAPI_stop(set, vals) == PAPI_OK;
  if (set != PAPI_NULL) {
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
  }
  return ok ? 0 : -1;
}

/* Zone names and ranges of PAPI's powercap component: events
 * ENERGY_UJ:ZONE<s>[_SUBZONE<c>] in microjoules, each zone's name in the
 * description of NAME:ZONE<s>[_SUBZONE<c>], its wrap in MAX_ENERGY_RANGE_UJ. */
static int try_powercap(papi_cand *c, int *n, char *why, size_t whylen) {
  int cidx = component("powercap", why, whylen);
  if (cidx < 0) return -1;
  int zone[ERGO__METER_MAX_DOMAINS], sub[ERGO__METER_MAX_DOMAINS];
  char zname[ERGO__METER_MAX_DOMAINS][32];
  char range_ev[ERGO__METER_MAX_DOMAINS][PAPI_MAX_STR_LEN];
  int code = PAPI_NATIVE_MASK;
  for (int r = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx); r == PAPI_OK;
       r = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx)) {
    char name[PAPI_HUGE_STR_LEN];
    if (PAPI_event_code_to_name(code, name) != PAPI_OK) continue;
    const char *ev = strstr(name, ":::");
    ev = ev ? ev + 3 : name;
    int s, z = -1, len = 0;
    if (!(sscanf(ev, "ENERGY_UJ:ZONE%d%n_SUBZONE%d%n", &s, &len, &z, &len) >= 1 && ev[len] == '\0'))
      continue;
    int i = add_cand(c, n, name, why, whylen);
    if (i < 0) return -1;
    zone[i] = s;
    sub[i] = z;
    snprintf(range_ev[i], sizeof range_ev[i], "powercap:::MAX_ENERGY_RANGE_UJ:%s", ev + 10);
    /* The zone's `name` file is the NAME event's description. */
    char nm[PAPI_MAX_STR_LEN];
    PAPI_event_info_t info;
    int ncode;
    snprintf(nm, sizeof nm, "powercap:::NAME:%s", ev + 10);
    zname[i][0] = '\0';
    if (PAPI_event_name_to_code(nm, &ncode) == PAPI_OK &&
        PAPI_get_event_info(ncode, &info) == PAPI_OK)
      snprintf(zname[i], sizeof zname[i], "%.*s", (int)strcspn(info.long_descr, "\n"),
               info.long_descr);
  }
  if (*n == 0) {
    say(why, whylen,
        "no ENERGY_UJ event (no /sys/class/powercap/intel-rapl:* zone when "
        "PAPI started)");
    return -1;
  }
  long long range[ERGO__METER_MAX_DOMAINS];
  if (read_once(range_ev, *n, range) != 0) {
    say(why, whylen, "cannot read %s through PAPI", range_ev[0]);
    return -1;
  }
  for (int i = 0; i < *n; i++) {
    /* A subzone ("core", "uncore", "dram") takes the package number of its
     * zone ("package-1"), else the zone's index. */
    int package = zone[i];
    for (int j = 0; j < *n; j++)
      if (sub[j] < 0 && zone[j] == zone[i] && strncmp(zname[j], "package-", 8) == 0)
        package = atoi(zname[j] + 8);
    const char *kind = zname[i];
    if (strncmp(kind, "package-", 8) == 0)
      kind = "package";
    else if (!kind[0])
      kind = sub[i] < 0 ? "package" : "zone";
    set_domain(&c[i], kind, package, 1e-6, (uint64_t)range[i]);
  }
  return 0;
}

/* PAPI's rapl component (MSRs): <KIND>_ENERGY:PACKAGE<p>, in nJ. */
static int try_rapl(papi_cand *c, int *n, char *why, size_t whylen) {
  static const char *const kinds[][2] = {
      {"PACKAGE", "package"}, {"PP0", "core"}, {"DRAM", "dram"}, {"PP1", "gpu"}, {"PSYS", "psys"}};
  int cidx = component("rapl", why, whylen);
  if (cidx < 0) return -1;
  int psys = 0, code = PAPI_NATIVE_MASK;
  for (int r = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx); r == PAPI_OK;
       r = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx)) {
    PAPI_event_info_t info;
    if (PAPI_get_event_info(code, &info) != PAPI_OK) continue;
    const char *ev = strstr(info.symbol, ":::");
    ev = ev ? ev + 3 : info.symbol;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
      char kind[16];
      int p, len = 0;
      snprintf(kind, sizeof kind, "%s_ENERGY", kinds[k][0]);
      size_t kl = strlen(kind);
      /* The _CNT twins count raw MSR units: the scaled ones say nJ. */
      if (strncmp(ev, kind, kl) != 0 || sscanf(ev + kl, ":PACKAGE%d%n", &p, &len) != 1 ||
          ev[kl + (size_t)len] != '\0')
        continue;
      double jpt = unit_joules(info.units);
      if (jpt == 0) continue;
      if (strcmp(kinds[k][1], "psys") == 0 && psys++) break; /* platform-wide: once */
      int i = add_cand(c, n, info.symbol, why, whylen);
      if (i < 0) return -1;
      set_domain(&c[i], kinds[k][1], p, jpt, 0);
    }
  }
  if (*n == 0) {
    say(why, whylen, "no *_ENERGY:PACKAGE<n> event in nJ");
    return -1;
  }
  return 0;
}

/* libpfm4's RAPL PMU through perf_event_uncore: <pmu>::RAPL_ENERGY_<KIND>
 * on one CPU per package (the power PMU's cpumask).  PAPI returns the raw
 * perf count unless its units say otherwise, so the scale is the kernel's
 * (the .scale file; 2^-32 J, fixed since Linux 3.14, if unreadable). */
static int try_uncore(papi_cand *c, int *n, char *why, size_t whylen) {
  static const char *const pmus[] = {"rapl", "amd64_rapl"};
  static const char *const kinds[][3] = {{"PKG", "package", "energy-pkg"},
                                         {"CORES", "core", "energy-cores"},
                                         {"DRAM", "dram", "energy-ram"},
                                         {"GPU", "gpu", "energy-gpu"},
                                         {"PSYS", "psys", "energy-psys"}};
  if (component("perf_event_uncore", why, whylen) < 0) return -1;
  const char *pmu = NULL;
  for (size_t i = 0; i < sizeof pmus / sizeof *pmus && !pmu; i++) {
    char name[PAPI_MAX_STR_LEN];
    int code;
    snprintf(name, sizeof name, "%s::RAPL_ENERGY_PKG", pmus[i]);
    if (PAPI_event_name_to_code(name, &code) == PAPI_OK) pmu = pmus[i];
  }
  if (!pmu) {
    say(why, whylen, "rapl::RAPL_ENERGY_PKG and amd64_rapl::RAPL_ENERGY_PKG not found");
    return -1;
  }
  int cpus[ERGO__METER_MAX_DOMAINS], ncpu = 0;
  char buf[256];
  FILE *f = fopen(PMU_DIR "/cpumask", "r");
  if (f) {
    if (fgets(buf, sizeof buf, f))
      ncpu = ergo__perf_parse_cpulist(buf, cpus, ERGO__METER_MAX_DOMAINS);
    fclose(f);
  }
  int qualify = ncpu > 0; /* without a cpumask, PAPI's default CPU: one package */
  if (!qualify) ncpu = 1;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    for (int p = 0; p < ncpu; p++) {
      int psys = k == 4;
      if (psys && p > 0) break;
      char name[PAPI_MAX_STR_LEN];
      int code;
      PAPI_event_info_t info;
      int len = snprintf(name, sizeof name, "%s::RAPL_ENERGY_%s", pmu, kinds[k][0]);
      if (PAPI_event_name_to_code(name, &code) != PAPI_OK) break; /* no such event here */
      if (qualify) snprintf(name + len, sizeof name - (size_t)len, ":cpu=%d", cpus[p]);
      double jpt = 0;
      if (PAPI_event_name_to_code(name, &code) == PAPI_OK &&
          PAPI_get_event_info(code, &info) == PAPI_OK)
        jpt = unit_joules(info.units);
      if (jpt == 0) {
        char path[128];
        jpt = 0x1p-32;
        snprintf(path, sizeof path, PMU_DIR "/events/%s.scale", kinds[k][2]);
        if ((f = fopen(path, "r"))) {
          double s;
          if (fgets(buf, sizeof buf, f) && ergo__perf_parse_scale(buf, &s) == 0) jpt = s;
          fclose(f);
        }
      }
      int i = add_cand(c, n, name, why, whylen);
      if (i < 0) return -1;
      /* The cpumask lists one CPU per package in package order. */
      set_domain(&c[i], kinds[k][1], p, jpt, 0);
    }
  }
  return 0;
}

/* Add every candidate to one event set and start it.  0 or a reason. */
static int start(papi_cand *c, int n, papi_priv *pp, char *why, size_t whylen) {
  pp->evset = PAPI_NULL;
  int rc = PAPI_create_eventset(&pp->evset);
  if (rc != PAPI_OK) {
    say(why, whylen, "PAPI_create_eventset: %s", PAPI_strerror(rc));
    return -1;
  }
  for (int i = 0; i < n && rc == PAPI_OK; i++) {
    int code;
    rc = PAPI_event_name_to_code(c[i].event, &code);
    if (rc == PAPI_OK) rc = PAPI_add_event(pp->evset, code);
    if (rc != PAPI_OK) say(why, whylen, "PAPI_add_event(%s): %s", c[i].event, PAPI_strerror(rc));
  }
  if (rc == PAPI_OK && (rc = PAPI_start(pp->evset)) != PAPI_OK)
    say(why, whylen, "PAPI_start: %s", PAPI_strerror(rc));
  if (rc == PAPI_OK) return 0;
  PAPI_cleanup_eventset(pp->evset);
  PAPI_destroy_eventset(&pp->evset);
  return -1;
}

static void stop(papi_priv *pp) {
  long long vals[ERGO__METER_MAX_DOMAINS];
  PAPI_stop(pp->evset, vals);
  PAPI_cleanup_eventset(pp->evset);
  PAPI_destroy_eventset(&pp->evset);
}

static void papi_close(ergo__meter *m) {
  papi_priv *pp = m->priv;
  if (!pp) return;
  stop(pp);
  free(pp);
  m->priv = NULL;
  lib_release();
}

static int papi_open(ergo__meter *m, char *why, size_t whylen) {
  int rc = lib_acquire(why, whylen);
  if (rc) return rc;
  static const char *const labels[] = {"powercap component", "rapl component",
                                       "rapl:: (perf_event_uncore)"};
  static int (*const tries[])(papi_cand *, int *, char *, size_t) = {try_powercap, try_rapl,
                                                                     try_uncore};
  papi_priv *pp = calloc(1, sizeof *pp);
  if (!pp) {
    lib_release();
    return ERGO_ENOMEM;
  }
  char reasons[3][160];
  for (int t = 0; t < 3; t++) {
    papi_cand c[ERGO__METER_MAX_DOMAINS];
    int n = 0;
    reasons[t][0] = '\0';
    if (tries[t](c, &n, reasons[t], sizeof reasons[t]) != 0) continue;
    finish_domains(c, n);
    if (start(c, n, pp, reasons[t], sizeof reasons[t]) != 0) continue;
    pp->settle = t == 0;
    if (pp->settle && (rc = PAPI_read(pp->evset, pp->first)) != PAPI_OK) {
      stop(pp);
      say(reasons[t], sizeof reasons[t], "PAPI_read: %s", PAPI_strerror(rc));
      continue;
    }
    for (int i = 0; i < n; i++) m->dom[i] = c[i].dom;
    m->ndomains = n;
    m->priv = pp;
    return 0;
  }
  free(pp);
  lib_release();
  say(why, whylen, "%s: %s; %s: %s; %s: %s", labels[0], reasons[0], labels[1], reasons[1],
      labels[2], reasons[2]);
  return ERGO_EIO;
}

static int papi_read_raw(ergo__meter *m, uint64_t *ticks) {
  papi_priv *pp = m->priv;
  long long vals[ERGO__METER_MAX_DOMAINS];
  if (PAPI_read(pp->evset, vals) != PAPI_OK) return ERGO_EIO;
  for (int i = 0; i < m->ndomains; i++) {
    if (pp->settle && !pp->moved[i]) {
      pp->moved[i] = vals[i] != pp->first[i];
      if (!pp->moved[i]) vals[i] = 0;
    }
    ticks[i] = (uint64_t)vals[i];
  }
  return 0;
}

const ergo__meter_ops ergo__meter_papi = {
    .name = "papi",
    .open = papi_open,
    .read_raw = papi_read_raw,
    .close = papi_close,
};

#else /* !ERGO_WITH_PAPI */

static int papi_open(ergo__meter *m, char *why, size_t whylen) {
  (void)m;
  say(why, whylen, "ergo was built without PAPI (install libpapi-dev and rebuild)");
  return ERGO_EIO;
}

static int papi_read_raw(ergo__meter *m, uint64_t *ticks) {
  (void)m, (void)ticks;
  return ERGO_EIO;
}

const ergo__meter_ops ergo__meter_papi = {
    .name = "papi",
    .open = papi_open,
    .read_raw = papi_read_raw,
    .close = NULL,
};

#endif
