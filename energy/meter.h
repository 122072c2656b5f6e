/* meter.h - the interface every energy meter implements, and the registry that picks one. */
#ifndef ERGO_ENERGY_METER_H
#define ERGO_ENERGY_METER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define ERGO__METER_MAX_DOMAINS 16
#define ERGO__WHY_LEN 1024

/* One energy counter: a RAPL zone (package-0, core, uncore, dram, psys) or similar. */
typedef struct ergo__domain {
  char name[32];          /* "package-0", "core-0", "uncore-0", "dram-0", "psys" */
  int package;            /* package index, or -1 (psys) */
  int in_total;           /* summed into the node total: packages and dram, not their parts */
  double joules_per_tick; /* 1e-6 for powercap's microjoules */
  uint64_t range_ticks;   /* the counter wraps to 0 after this value; 0 = never wraps */
  double max_watts;       /* the most this domain can draw (powercap's constraints), 0 = unknown */
} ergo__domain;

/* The bound on a domain's power when its meter gives none: no package of today draws more. */
#define ERGO__MAX_WATTS_UNKNOWN 500.0

typedef struct ergo__meter ergo__meter;

/* A backend (PAPI component style): one file in energy/, one line in meter.c's registry. */
typedef struct ergo__meter_ops {
  const char *name; /* "powercap", "perf", "papi", "estimate" */
  /* Discover and open every domain; fill m->dom/m->ndomains, m->priv.  On
   * failure return a negative ERGO_E* code, release everything, and write
   * one line (no newline) into why: what failed, with which path or value,
   * and what to do about it. */
  int (*open)(ergo__meter *m, char *why, size_t whylen);
  /* Current raw counter of every domain, in ticks (not wrap-corrected).
   * Called under m->lock.  Negative ERGO_E* on a failed read. */
  int (*read_raw)(ergo__meter *m, uint64_t *ticks);
  void (*close)(ergo__meter *m);
} ergo__meter_ops;

struct ergo__meter {
  const ergo__meter_ops *ops;
  int ndomains;
  ergo__domain dom[ERGO__METER_MAX_DOMAINS];
  void *priv;
  const char *label; /* "ESTIMATE" / "SIMULATED" for every report figure, or NULL */
  /* wrap correction, meter.c */
  pthread_mutex_t lock;
  uint64_t last[ERGO__METER_MAX_DOMAINS];
  uint64_t acc[ERGO__METER_MAX_DOMAINS]; /* ticks since open, wraps corrected */
  uint64_t reads, wraps;
  /* The shortest time any domain's counter takes to wrap at its maximum power (max_watts, or
   * ERGO__MAX_WATTS_UNKNOWN): reads closer together than this see at most one wrap.  0 = no
   * counter wraps. */
  double wrap_s;
  double last_read_s;  /* CLOCK_MONOTONIC of the last successful read */
  double (*now)(void); /* that clock in seconds; NULL: CLOCK_MONOTONIC (tests replace it) */
  /* Reads that came more than wrap_s after the previous one: a counter may have wrapped more
   * than once unseen, so the energy since is a lower bound. */
  uint64_t unsure;
  /* Readings that would mean more power than any package draws (a torn or glitched read):
   * ignored, the counter goes on from the last plausible one (meter.c). */
  uint64_t implausible;
};

/* Seconds a counter of domain d takes to wrap at its maximum power; 0 = never wraps. */
double ergo__domain_wrap_s(const ergo__domain *d);

/* Backends, in energy/<name>.c. */
extern const ergo__meter_ops ergo__meter_powercap;
extern const ergo__meter_ops ergo__meter_perf;
extern const ergo__meter_ops ergo__meter_papi;
extern const ergo__meter_ops ergo__meter_estimate;
extern const ergo__meter_ops ergo__meter_sim;

/* The backend called `name`, or NULL. */
const ergo__meter_ops *ergo__meter_find(const char *name);

/* The i-th value ERGO_ENERGY accepts: "auto", then every backend a user may name (in the
 * registry's order; not "sim", which the sim platform brings), then "none"; NULL past the last. */
const char *ergo__meter_choice(int i);

/* Open `which`: "auto" tries powercap, perf, papi in that order; a backend
 * name opens just that one.  On failure every reason is in why, one line
 * per backend tried ("powercap: ..."), and a negative ERGO_E* is returned. */
int ergo__meter_open(ergo__meter *m, const char *which, char *why, size_t whylen);

/* Cumulative joules per domain since open, wraps corrected: a counter that went back wrapped
 * once, which is certain only when the reads are less than m->wrap_s apart (the sampler sees to
 * it); a read later than that counts one wrap and m->unsure.  Thread-safe. */
int ergo__meter_read(ergo__meter *m, double *joules);
/* ergo__meter_read, and the region clock's ticks (the core's ergo__ticks, which times regions)
 * just before and just after the counters were read, in at[0] and at[1] (under the lock, so the
 * wait for it is not counted): the reading belongs somewhere between them, taken as their middle.
 * Only the threads that time regions call it (a user clock may be read by them alone); on a failed
 * read at[] is left as it was, as the figures are. */
int ergo__meter_read_at(ergo__meter *m, double *joules, uint64_t at[2]);

void ergo__meter_close(ergo__meter *m);

#endif
