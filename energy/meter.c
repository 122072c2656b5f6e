/* meter.c - meter registry, autodetection order, and wrap correction shared by all meters. */
#include "meter.h"

#include "core/internal.h"
#include "ergo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const ergo__meter_ops *const registry[] = {
    &ergo__meter_powercap, &ergo__meter_perf, &ergo__meter_papi,
    &ergo__meter_estimate, &ergo__meter_sim,
};
#define NREG (sizeof registry / sizeof *registry)

/* "auto" tries the hardware meters only; the estimate must be asked for. */
static const char *const auto_order[] = {"powercap", "perf", "papi"};

const ergo__meter_ops *ergo__meter_find(const char *name) {
  for (size_t i = 0; i < NREG; i++)
    if (strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}

const char *ergo__meter_choice(int i) {
  if (i == 0) return "auto";
  for (size_t r = 0; r < NREG; r++) {
    if (registry[r] == &ergo__meter_sim) continue; /* ERGO_PLATFORM=sim brings it */
    if (--i == 0) return registry[r]->name;
  }
  return i == 1 ? "none" : NULL;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double ergo__domain_wrap_s(const ergo__domain *d) {
  if (!d->range_ticks) return 0;
  double w = d->max_watts > 0 ? d->max_watts : ERGO__MAX_WATTS_UNKNOWN;
  return (double)d->range_ticks * d->joules_per_tick / w;
}

static int open_one(ergo__meter *m, const ergo__meter_ops *ops, char *why, size_t whylen) {
  memset(m, 0, sizeof *m);
  m->ops = ops;
  char line[ERGO__WHY_LEN] = "";
  int rc = ops->open(m, line, sizeof line);
  if (rc == 0 && (m->ndomains <= 0 || m->ndomains > ERGO__METER_MAX_DOMAINS)) {
    if (ops->close) ops->close(m);
    snprintf(line, sizeof line, "opened with %d domains, which ergo cannot use", m->ndomains);
    rc = ERGO_EINVAL;
  }
  if (rc == 0) {
    uint64_t raw[ERGO__METER_MAX_DOMAINS];
    rc = ops->read_raw(m, raw);
    if (rc == 0) {
      memcpy(m->last, raw, sizeof raw);
      m->last_read_s = now_s();
      for (int i = 0; i < m->ndomains; i++) {
        double w = ergo__domain_wrap_s(&m->dom[i]);
        if (w > 0 && (m->wrap_s == 0 || w < m->wrap_s)) m->wrap_s = w;
      }
      pthread_mutex_init(&m->lock, NULL);
      return 0;
    }
    if (ops->close) ops->close(m);
    snprintf(line, sizeof line, "opened, but the first read failed (%s)", ergo_strerror(rc));
  }
  size_t used = whylen ? strlen(why) : 0;
  if (whylen)
    snprintf(why + used, whylen - used, "%s%s: %s", used ? "\n" : "", ops->name,
             line[0] ? line : ergo_strerror(rc));
  memset(m, 0, sizeof *m);
  return rc;
}

int ergo__meter_open(ergo__meter *m, const char *which, char *why, size_t whylen) {
  if (whylen) why[0] = '\0';
  if (!which || strcmp(which, "auto") == 0) {
    int rc = ERGO_EINVAL;
    for (size_t i = 0; i < sizeof auto_order / sizeof *auto_order; i++) {
      rc = open_one(m, ergo__meter_find(auto_order[i]), why, whylen);
      if (rc == 0) {
        if (whylen) why[0] = '\0';
        return 0;
      }
    }
    return rc;
  }
  const ergo__meter_ops *ops = ergo__meter_find(which);
  if (!ops) {
    snprintf(why, whylen,
             "ERGO_ENERGY='%s' is not a meter: expected auto, powercap, perf, papi, "
             "estimate or none",
             which);
    return ERGO_EINVAL;
  }
  return open_one(m, ops, why, whylen);
}

/* The most ticks domain d can plausibly count in dt seconds: PLAUSIBLE_FACTOR times its maximum
 * power (a package's short-term limit, PL2, may be a few times its long-term one; unknown:
 * ERGO__MAX_WATTS_UNKNOWN) over at least PLAUSIBLE_MIN_S (RAPL counters move in steps of about a
 * millisecond, so two close reads may see a whole step). */
#define PLAUSIBLE_FACTOR 4.0
#define PLAUSIBLE_MIN_S 0.01
static double plausible_ticks(const ergo__domain *d, double dt) {
  if (!(d->joules_per_tick > 0)) return INFINITY;
  double w = d->max_watts > 0 ? d->max_watts : ERGO__MAX_WATTS_UNKNOWN;
  return PLAUSIBLE_FACTOR * w * (dt > PLAUSIBLE_MIN_S ? dt : PLAUSIBLE_MIN_S) / d->joules_per_tick;
}

/* at: NULL, or the region clock's ticks around read_raw (ergo__meter_read_at). */
static int read_stamped(ergo__meter *m, double *joules, uint64_t at[2]) {
  uint64_t raw[ERGO__METER_MAX_DOMAINS];
  pthread_mutex_lock(&m->lock);
  uint64_t before = at ? ergo__ticks() : 0;
  int rc = m->ops->read_raw(m, raw);
  if (at && rc == 0) {
    at[0] = before;
    at[1] = ergo__ticks();
  }
  if (rc == 0) {
    m->reads++;
    double t = m->now ? m->now() : now_s();
    /* Longer than a wrap at full power since the last read: a counter that went back may have
     * wrapped twice, and one that did not may have wrapped once; either way the delta below is
     * a lower bound. */
    double dt = t - m->last_read_s;
    if (m->wrap_s > 0 && dt > m->wrap_s) m->unsure++;
    m->last_read_s = t;
    for (int i = 0; i < m->ndomains; i++) {
      const ergo__domain *d = &m->dom[i];
      uint64_t delta;
      int wrapped = 0;
      if (raw[i] >= m->last[i]) {
        delta = raw[i] - m->last[i];
      } else if (d->range_ticks && m->last[i] <= d->range_ticks) {
        /* One wrap: up to the top of the range, then from 0 (the convention
         * of the kernel's powercap users: the counter restarts at 0 after
         * max_energy_range_uj). */
        delta = d->range_ticks - m->last[i] + raw[i];
        wrapped = 1;
      } else {
        /* A counter that should not wrap went back, or one above its own
         * range (range - last would underflow): never report negative or
         * absurd energy. */
        delta = 0;
      }
      if (wrapped && (double)delta > plausible_ticks(d, dt)) {
        /* A counter that went back, by more than a wrap the package could have drawn since the
         * last read: a read torn by a concurrent update, or a glitch, not a wrap.  Keep
         * counting from the last plausible value.  (Forward moves are never doubted: the sim
         * node's counters run on virtual time.) */
        m->implausible++;
        continue;
      }
      m->wraps += (uint64_t)wrapped;
      m->acc[i] += delta;
      m->last[i] = raw[i];
    }
  }
  for (int i = 0; i < m->ndomains; i++) joules[i] = (double)m->acc[i] * m->dom[i].joules_per_tick;
  pthread_mutex_unlock(&m->lock);
  return rc;
}

int ergo__meter_read(ergo__meter *m, double *joules) { return read_stamped(m, joules, NULL); }

int ergo__meter_read_at(ergo__meter *m, double *joules, uint64_t at[2]) {
  return read_stamped(m, joules, at);
}

void ergo__meter_close(ergo__meter *m) {
  if (!m || !m->ops) return;
  if (m->ops->close) m->ops->close(m);
  pthread_mutex_destroy(&m->lock);
  memset(m, 0, sizeof *m);
}
