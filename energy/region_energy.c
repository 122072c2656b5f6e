/* region_energy.c - energy per region: meter readings at region boundaries through core's hooks. */
#include "energy/energy.h"

#include "core/internal.h"
#include "util/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What one region has consumed; lives in the region's hook slot. */
typedef struct record {
  double acc[ERGO__METER_MAX_DOMAINS];   /* joules over completed calls */
  double start[ERGO__METER_MAX_DOMAINS]; /* reading at the open call's entry */
  uint64_t start_at[2];                  /* its region-clock stamps (ergo__meter_read_at) */
  /* The reading after the entry's (the next one this thread takes): the open call's start lies
   * between the two.  Until it is taken the record waits in E.pending. */
  double after[ERGO__METER_MAX_DOMAINS];
  uint64_t after_at[2];
  struct record *pending_next;
  double last_total; /* the last completed call's total (packages + dram) */
  int open;
  uint64_t unsure_at_entry; /* the meter's unsure count at the open call's entry */
  int lower_bound;          /* a call spanned a read more than a wrap time after the previous */
  /* Below the meter's resolution: its calls are too short for the counter to tell (learnt over
   * its first RESOLUTION_CALLS calls); no more readings, no energy of its own ("-"). */
  uint64_t timed_calls;
  double timed_s;
  int below; /* from then on its calls take no reading */
  const ergo_region *region;
  struct record *next; /* every record, for freeing */
} record;

static struct {
  int active;
  ergo__meter meter;
  int quantity_id;
  void **(*find)(const ergo_region *r); /* a region's energy state (the pipeline keeps it) */
  int level;
  double at_init[ERGO__METER_MAX_DOMAINS]; /* Global's energy is counted from here */
  double now[ERGO__METER_MAX_DOMAINS];     /* the last reading (entry, exit, report) */
  uint64_t now_at[2];                      /* its region-clock stamps */
  record *records;
  record *pending; /* open calls whose start awaits the next reading */
  uint64_t region_reads, failed_reads;
  ergo__sampler *sampler;
  int sample_ms;
  uint64_t samples;
  double sampler_cost_s;
  int mine[ERGO__METER_MAX_DOMAINS]; /* this process reads domain d (energy_share) */
  int frozen;        /* finalizing: every report shows the reading taken at the finalize instant */
  double min_call_s; /* regions whose calls average less are below resolution; 0: none */
  double update_s;   /* the meter's update interval as measured at start (0: unknown) */
  int nbelow;        /* regions found below resolution */
  int reads_any;
} E;

/* What ergo__energy_share said, kept across ergo__energy_start's reset. */
static struct {
  uint64_t packages;
  int unbound;
  char reader_of[160];
  int quiet;
} share = {~0ull, 1, "", 0};

void ergo__energy_share(uint64_t packages, int unbound, const char *reader_of, int quiet) {
  share.packages = packages;
  share.unbound = unbound;
  share.quiet = quiet;
  snprintf(share.reader_of, sizeof share.reader_of, "%s", reader_of ? reader_of : "");
}

/* A failed read keeps the last good figures and their stamps: energy is never made up or
 * negative. */
static void read_or_keep(double *j, uint64_t at[2]) {
  double tmp[ERGO__METER_MAX_DOMAINS];
  if (ergo__meter_read_at(&E.meter, tmp, at) == 0)
    memcpy(j, tmp, sizeof(double) * E.meter.ndomains);
  else
    E.failed_reads++;
}

/* The readings this thread takes are the vertices of one piecewise-linear curve of the
 * cumulative energy over the region clock, each at the middle of its stamps.  A call's energy
 * is the curve at its end minus the curve at its start: the readings lie outside the timed
 * interval (in the hooks around it), so this keeps exactly the interval's share, and since
 * every call is measured on the same curve the children and Unaccounted add up to the parent
 * and nothing is negative.  The value at tick t between readings (v0, at0) and (v1, at1):
 * linear between their middles, the nearer reading's value outside them (a virtual clock
 * stands still in the hooks: both middles may be one instant). */
static double curve_at(const double *v0, const uint64_t at0[2], const double *v1,
                       const uint64_t at1[2], uint64_t t, int d) {
  double m0 = 0.5 * (double)(int64_t)(at0[1] - at0[0]);
  double m1 = (double)(int64_t)(at1[0] - at0[0]) + 0.5 * (double)(int64_t)(at1[1] - at1[0]);
  double x = (double)(int64_t)(t - at0[0]);
  if (x <= m0) return v0[d];
  if (x >= m1 || !(m1 > m0)) return v1[d];
  return v0[d] + (v1[d] - v0[d]) * (x - m0) / (m1 - m0);
}

/* A new vertex: read the meter (a failed read repeats the last one) and hand it to every open
 * call still waiting for the reading after its start. */
static void take_reading(void) {
  read_or_keep(E.now, E.now_at);
  for (record *p = E.pending; p; p = p->pending_next) {
    memcpy(p->after, E.now, sizeof p->after);
    memcpy(p->after_at, E.now_at, sizeof p->after_at);
  }
  E.pending = NULL;
}

/* How many meter reads so far came too late to be sure of the wraps (meter.h). */
static uint64_t unsure_now(void) {
  pthread_mutex_lock(&E.meter.lock);
  uint64_t n = E.meter.unsure;
  pthread_mutex_unlock(&E.meter.lock);
  return n;
}

/* A region is judged on the mean of its first RESOLUTION_CALLS calls: below E.min_call_s, its
 * readings cannot tell its energy from the counter's steps, and only cost time. */
#define RESOLUTION_CALLS 3
static void learn_duration(record *rec, uint64_t start, uint64_t end) {
  if (!(E.min_call_s > 0) || rec->timed_calls >= RESOLUTION_CALLS) return;
  rec->timed_s += ergo__ticks_to_s(end > start ? end - start : 0);
  if (++rec->timed_calls < RESOLUTION_CALLS) return;
  if (rec->timed_s / RESOLUTION_CALLS < E.min_call_s) {
    rec->below = 1;
    E.nbelow++;
  }
}

/* Only the main thread's regions, at or below ERGO_ENERGY_LEVEL: package
 * energy belongs to the node, not to a thread. */
static int measured(ergo_region *r, int level) {
  return E.active && E.reads_any && level <= E.level && ergo_region_thread(r) == 0;
}

void ergo__energy_enter(ergo_region *r, int level, void **state) {
  if (!measured(r, level)) return;
  record **slot = (record **)state;
  if (!*slot) {
    record *rec = calloc(1, sizeof *rec);
    if (!rec) return;
    rec->next = E.records;
    E.records = rec;
    rec->region = r;
    *slot = rec;
  }
  record *rec = *slot;
  if (rec->below) { /* too short for the meter: timed, not read */
    rec->open = 1;
    return;
  }
  rec->unsure_at_entry = unsure_now();
  take_reading(); /* the call's start comes after it, before the next one */
  memcpy(rec->start, E.now, sizeof rec->start);
  memcpy(rec->start_at, E.now_at, sizeof rec->start_at);
  rec->pending_next = E.pending;
  E.pending = rec;
  rec->open = 1;
  E.region_reads++;
}

double ergo__energy_exit(ergo_region *r, int level, void **state, uint64_t start, uint64_t end) {
  if (!measured(r, level)) return -1;
  record *rec = *(record **)state;
  if (!rec || !rec->open) return -1;
  if (rec->below) { /* it became so at an earlier call's exit: this call took no reading */
    rec->open = 0;
    return -1;
  }
  learn_duration(rec, start, end);
  /* The call ends between the last reading and this one. */
  double before[ERGO__METER_MAX_DOMAINS];
  uint64_t before_at[2] = {E.now_at[0], E.now_at[1]};
  memcpy(before, E.now, sizeof before);
  take_reading(); /* also the reading after the start, if none came since */
  rec->last_total = 0;
  for (int d = 0; d < E.meter.ndomains; d++) {
    double delta = curve_at(before, before_at, E.now, E.now_at, end, d) -
                   curve_at(rec->start, rec->start_at, rec->after, rec->after_at, start, d);
    if (delta < 0 || !E.mine[d]) delta = 0; /* another rank reads domain d */
    rec->acc[d] += delta;
    if (E.meter.dom[d].in_total) rec->last_total += delta;
  }
  if (unsure_now() != rec->unsure_at_entry) rec->lower_bound = 1;
  rec->open = 0;
  E.region_reads++;
  return rec->last_total;
}

int ergo__energy_at(uint64_t t, double *out, uint64_t *unsure) {
  if (!E.active || !E.reads_any || E.frozen) return -1;
  double before[ERGO__METER_MAX_DOMAINS];
  uint64_t before_at[2] = {E.now_at[0], E.now_at[1]};
  memcpy(before, E.now, sizeof before);
  take_reading(); /* t came before it, after the last one */
  for (int d = 0; d < E.meter.ndomains && d < ERGO_MAX_COMPONENTS; d++)
    out[d] = E.mine[d] ? curve_at(before, before_at, E.now, E.now_at, t, d) : 0;
  *unsure = unsure_now();
  E.region_reads++;
  return 0;
}

int ergo__energy_quantity(void) { return E.active ? E.quantity_id : -1; }

/* Stop the sampler before reports, so its files are complete when named. */
void ergo__energy_finalize(void) {
  if (!E.active || !E.reads_any) return;
  /* One reading for all of finalize's reports (text, JSON, CSV, the merged job's and every
   * rank's own), as their time is all taken at the finalize instant. */
  take_reading();
  E.frozen = 1;
  if (E.sampler) {
    E.samples = ergo__sampler_stop(E.sampler, &E.sampler_cost_s);
    E.sampler = NULL;
  }
}

static void q_begin(void *ctx) {
  (void)ctx;
  if (!E.frozen) take_reading();
}

static int q_value(void *ctx, const ergo_region *r, double *out) {
  (void)ctx;
  if (!E.reads_any) return -1;  /* the node's energy is another rank's to read */
  if (!ergo_region_parent(r)) { /* Global: everything since ergo_init */
    for (int d = 0; d < E.meter.ndomains; d++) out[d] = E.mine[d] ? E.now[d] - E.at_init[d] : 0;
    return unsure_now() ? 1 : 0;
  }
  void **state = E.find ? E.find(r) : NULL;
  record *rec = state ? *(record **)state : NULL;
  if (!rec) return -1;
  if (rec->below) return ERGO_QUANTITY_UNRESOLVED;
  for (int d = 0; d < E.meter.ndomains; d++)
    out[d] = rec->acc[d] +
             (E.mine[d] && rec->open && E.now[d] > rec->start[d] ? E.now[d] - rec->start[d] : 0);
  return rec->lower_bound || (rec->open && unsure_now() != rec->unsure_at_entry) ? 1 : 0;
}

/* The regions whose energy is a lower bound: a call of theirs spanned a meter read that came
 * more than a wrap time after the previous one (no sampler, or one that fell behind), so a
 * counter may have wrapped more than once unseen.  Global is one when any read was. */
static void lower_bounds(FILE *f) {
  uint64_t unsure = unsure_now();
  if (!unsure) return;
  fprintf(f, "; energy is a lower bound (>=) for Global");
  int n = 0;
  for (const record *rec = E.records; rec; rec = rec->next)
    if (rec->lower_bound || (rec->open && unsure != rec->unsure_at_entry)) {
      if (n++ < 8) fprintf(f, ", %s", ergo_region_name(rec->region));
    }
  if (n > 8) fprintf(f, " and %d more regions", n - 8);
  fprintf(f,
          ": %llu reading(s) came more than %.6g s (a counter's wrap at full power) after the "
          "previous one, so wraps may be missing (fix: let the sampler run, ERGO_SAMPLE_MS "
          "unset)",
          (unsigned long long)unsure, E.meter.wrap_s);
}

static void q_footer(void *ctx, FILE *f) {
  (void)ctx;
  fprintf(f, "ergo energy: meter %s, %llu region readings", E.meter.ops->name,
          (unsigned long long)E.region_reads);
  if (E.sample_ms)
    fprintf(f, ", sampler every %d ms (%llu samples, %.6f sec)", E.sample_ms,
            (unsigned long long)E.samples, E.sampler_cost_s);
  if (E.meter.wraps)
    fprintf(f, ", %llu counter wraps corrected", (unsigned long long)E.meter.wraps);
  if (E.nbelow) {
    char why[64] = "as ERGO_ENERGY_MIN_US asks";
    if (E.update_s > 0)
      snprintf(why, sizeof why, "the counter moves every %.3g ms", E.update_s * 1e3);
    fprintf(f,
            ", %d region(s) below the meter's resolution (calls under %.3g ms; %s): their energy "
            "is in their parent's Unaccounted (ERGO_ENERGY_MIN_US=0 measures them)",
            E.nbelow, E.min_call_s * 1e3, why);
  }
  if (E.meter.implausible)
    fprintf(f, ", %llu implausible readings ignored (more than the package can draw)",
            (unsigned long long)E.meter.implausible);
  if (E.failed_reads)
    fprintf(f, ", %llu failed reads kept the last value", (unsigned long long)E.failed_reads);
  if (share.reader_of[0]) fprintf(f, "; %s", share.reader_of);
  lower_bounds(f);
  if (E.meter.label) fprintf(f, " [%s]", E.meter.label);
  fputc('\n', f);
}

/* The sampler must read every counter at least twice per wrap at the counter's maximum power
 * (range / max power / 2), so that it never wraps twice between reads: shorten a longer
 * ERGO_SAMPLE_MS, and say that ERGO_SAMPLE_MS=0 may miss wraps. */
static void check_period(int asked_ms) {
  if (E.meter.wrap_s <= 0) return;
  const ergo__domain *d = NULL;
  for (int i = 0; i < E.meter.ndomains; i++)
    if (E.mine[i] && ergo__domain_wrap_s(&E.meter.dom[i]) > 0 &&
        (!d || ergo__domain_wrap_s(&E.meter.dom[i]) < ergo__domain_wrap_s(d)))
      d = &E.meter.dom[i];
  if (!d) return;
  double wrap_s = ergo__domain_wrap_s(d), range_j = (double)d->range_ticks * d->joules_per_tick;
  double watts = d->max_watts > 0 ? d->max_watts : ERGO__MAX_WATTS_UNKNOWN;
  const char *whence = d->max_watts > 0 ? "its maximum power" : "ergo's bound when none is known";
  double safe_ms = wrap_s * 1e3 / 2;
  if (asked_ms == 0) {
    ergo__warn("ERGO_SAMPLE_MS=0: the %s counter wraps after %.6g J, every %.6g s at %.0f W (%s), "
               "so a region longer than that may miss wraps and its energy is then a lower bound, "
               "marked >= (fix: unset ERGO_SAMPLE_MS, or set it to %d or less)",
               d->name, range_j, wrap_s, watts, whence, safe_ms >= 1 ? (int)safe_ms : 1);
    return;
  }
  if (safe_ms < 1) {
    E.sample_ms = 1;
    ergo__warn("the %s counter wraps after %.6g J, every %.6g ms at %.0f W (%s): even a 1 ms "
               "sampler may miss wraps (the footer says which regions' energy is then a lower "
               "bound; fix: none but a meter with a longer range, ERGO_ENERGY=perf or papi)",
               d->name, range_j, wrap_s * 1e3, watts, whence);
  } else if (asked_ms > (int)safe_ms) {
    E.sample_ms = (int)safe_ms;
    if (!share.quiet)
      ergo__note("the energy sampler reads every %d ms, not %d: the %s counter wraps after %.6g J, "
                 "every %.6g s at %.0f W (%s), and must be read twice per wrap",
                 E.sample_ms, asked_ms, d->name, range_j, wrap_s, watts, whence);
  }
}

/* ERGO_ENERGY_MIN_US: the shortest mean call (µs) whose energy a region gets; unset: 10 times
 * the meter's update interval, measured now (RAPL: about 1 ms); 0: every region is read. */
#define MIN_US_VAR "ERGO_ENERGY_MIN_US"
#define RESOLUTION_FACTOR 10.0
#define UPDATE_PROBE_S 0.01

/* The counter's update interval: the median gap between changes of the summed counters over up
 * to UPDATE_GAPS changes.  Not the shortest: a change seen late (this thread held back)
 * lengthens one gap and shortens the next, and a counter whose updater fell behind may catch up
 * in a burst of changes microseconds apart; the median of the gaps is the counter's own.  A
 * counter that does not move in UPDATE_PROBE_S, as on a quiet fake machine, leaves it unknown: 0.
 * One that moved but not yet twice (a busy machine held this thread, or the counter's updater,
 * back) is polled on, up to UPDATE_PROBE_MAX_S: a busy node must not turn the threshold off. */
#define UPDATE_GAPS 7
#define UPDATE_PROBE_MAX_S 0.25
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double update_interval(void) {
  double j[ERGO__METER_MAX_DOMAINS], last = -1, t_change = -1, gap[UPDATE_GAPS];
  int gaps = 0;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &b);
    double t = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    int moved = t_change >= 0, one_gap = gaps > 0;
    if ((t > UPDATE_PROBE_S && (!moved || one_gap)) || t > UPDATE_PROBE_MAX_S ||
        gaps >= UPDATE_GAPS || ergo__meter_read(&E.meter, j) != 0)
      break;
    double sum = 0;
    for (int d = 0; d < E.meter.ndomains; d++) sum += j[d];
    if (last >= 0 && sum != last) {
      if (t_change >= 0) gap[gaps++] = t - t_change;
      t_change = t;
    }
    last = sum;
  }
  if (gaps == 0) return 0;
  qsort(gap, (size_t)gaps, sizeof gap[0], cmp_double);
  return gaps % 2 ? gap[gaps / 2] : 0.5 * (gap[gaps / 2 - 1] + gap[gaps / 2]);
}

/* The shortest mean call a region's energy is read for: ERGO_ENERGY_MIN_US where it is set
 * (on every meter: a user who sets it expects it to hold), else, on a real meter that states no
 * update interval of its own, 10 times the one measured now (`measure`); else 0. */
static void resolution(int measure) {
  const char *v = getenv(MIN_US_VAR);
  if (v && *v) {
    char *end = NULL;
    errno = 0;
    double us = strtod(v, &end);
    if (end != v && *end == '\0' && errno != ERANGE && us >= 0 && us <= 1e9) {
      E.min_call_s = us * 1e-6;
      return;
    }
    ergo__warn("%s='%s' is not a number of microseconds from 0 to 1e9; using the default (%s) "
               "(fix: set it to e.g. 10000, or 0 to read every region)",
               MIN_US_VAR, v,
               measure ? "10 times the meter's update interval"
                       : "every region, as this meter "
                         "is exact");
  }
  if (!measure) return;
  E.update_s = update_interval();
  E.min_call_s = RESOLUTION_FACTOR * E.update_s;
}

int ergo__energy_start(const ergo_config *cfg, int sim) {
  /* The sim node's meter stands in for the machine's; its time is virtual, so a wall-clock
   * sampler would see nothing move.  ERGO_ENERGY=none holds there too (time-only tuning tried on
   * the sim node); another meter named there is not the sim node's, and is said so. */
  const char *asked = cfg->energy ? cfg->energy : "auto";
  const char *which = sim && strcmp(asked, "none") != 0 ? "sim" : asked;
  if (sim && strcmp(asked, "none") != 0 && strcmp(asked, "auto") != 0)
    ergo__warn("ERGO_ENERGY=%s is not used on the sim node, whose own meter measures its energy "
               "(fix: unset ERGO_ENERGY, or ERGO_ENERGY=none for no energy)",
               asked);
  memset(&E, 0, sizeof E);
  if (strcmp(which, "none") == 0) return 0;
  char why[4 * ERGO__WHY_LEN];
  int rc = ergo__meter_open(&E.meter, which, why, sizeof why);
  if (rc) {
    if (strcmp(which, "auto") == 0) {
      if (!share.quiet)
        ergo__note("no energy meter is usable here, so ergo measures time only (`ergo info` "
                   "says why for each; ERGO_ENERGY=estimate estimates from CPU time; "
                   "ERGO_ENERGY=none silences this)");
    } else {
      for (char *line = strtok(why, "\n"); line; line = strtok(NULL, "\n"))
        ergo__warn("ERGO_ENERGY=%s: %s; measuring time only", which, line);
    }
    return rc;
  }
  E.level = cfg->energy_level;
  ergo_quantity q = {0};
  q.name = "energy";
  q.unit = "J";
  q.rate_unit = "W";
  q.label = E.meter.label;
  q.ncomponents = E.meter.ndomains;
  for (int d = 0; d < E.meter.ndomains; d++) {
    q.components[d] = E.meter.dom[d].name;
    if (E.meter.dom[d].in_total) q.total_mask |= 1u << d;
  }
  q.begin = q_begin;
  q.value = q_value;
  q.footer = q_footer;
  for (int d = 0; d < E.meter.ndomains; d++) {
    int p = E.meter.dom[d].package;
    E.mine[d] = p < 0 || p >= 64 ? share.unbound : (int)((share.packages >> p) & 1);
    E.reads_any |= E.mine[d];
  }
  read_or_keep(E.at_init, E.now_at);
  memcpy(E.now, E.at_init, sizeof E.now);
  /* A rank that reads nothing takes no readings at all (ergo__energy_reads() is 0, so the
   * runtime's pipeline leaves it out): its regions cost what timing costs. */
  if ((rc = ergo_quantity_attach(&q, &E.quantity_id)) != 0) {
    ergo__meter_close(&E.meter);
    return rc;
  }
  if (E.reads_any) resolution(!sim && !E.meter.label);
  E.sample_ms = E.reads_any && !sim ? cfg->sample_ms : 0;
  if (E.reads_any && !sim) check_period(cfg->sample_ms);
  if (E.sample_ms > 0 &&
      ergo__sampler_start(&E.sampler, &E.meter, E.sample_ms, cfg->power_csv, cfg->trace) != 0)
    E.sample_ms = 0; /* the sampler said why; regions are still measured */
  E.active = 1;
  return 0;
}

void ergo__energy_origin(void) {
  if (!E.active || !E.reads_any) return;
  read_or_keep(E.at_init, E.now_at);
  memcpy(E.now, E.at_init, sizeof E.now);
}

ergo__meter *ergo__energy_meter(void) { return E.active ? &E.meter : NULL; }

int ergo__energy_reads(void) { return E.active && E.reads_any; }

void ergo__energy_locate(void **(*find)(const ergo_region *r)) { E.find = find; }

void ergo__energy_stop(void) {
  if (E.sampler) ergo__sampler_stop(E.sampler, &E.sampler_cost_s);
  while (E.records) {
    record *next = E.records->next;
    free(E.records);
    E.records = next;
  }
  if (E.meter.ops) ergo__meter_close(&E.meter);
  memset(&E, 0, sizeof E);
}
