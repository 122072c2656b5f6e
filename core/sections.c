/* sections.c - named timers that may overlap and start and stop in any order (ergo_section_*).
 *
 * A section is not a region: it has no place in the tree and no stack, so two sections may
 * overlap partly, and one thread may start a section that another stops.  Sections are coarse
 * (a phase, a Kokkos profiling section), so one mutex guards them all.  Figures are kept until
 * ergo_finalize has written the reports; a destroyed section keeps its figures for them.
 *
 * Energy: where a meter measures, each interval (outermost start to matching last stop) gets the
 * amount between the energy layer's curve at its start and at its stop (ergo__sections_meter),
 * the same curve regions are measured on.  The meter is read from the main thread only (its
 * readings are the main thread's, as regions' are): an interval started or stopped on another
 * thread is not measured, and the section's energy is then a lower bound. */
#include "internal.h"

#include <stdlib.h>

typedef struct {
  char name[ERGO_NAME_MAX + 1];
  uint64_t total;   /* ticks over completed (outermost) intervals */
  uint64_t t0;      /* ticks at the outermost start of the running interval */
  uint64_t calls;   /* every start, nested ones included */
  unsigned running; /* starts not yet matched by a stop */
  int destroyed;
  /* Energy (the meter's quantity): */
  double q[ERGO_MAX_COMPONENTS];  /* over measured intervals */
  double q0[ERGO_MAX_COMPONENTS]; /* at the running interval's start, when q_open */
  uint64_t unsure0;
  int q_open;       /* the running interval's start was measured */
  uint64_t q_n;     /* measured intervals */
  int q_partial;    /* an interval was not measured, or a reading was unsure */
  uint64_t q_ticks; /* time of the measured intervals */
} ergo__section;

static pthread_mutex_t sec_lock = PTHREAD_MUTEX_INITIALIZER;
static ergo__section *secs;
static unsigned nsecs, capsecs;
static struct {
  int qi;
  ergo__section_meter_fn fn;
  void *ctx;
} meter = {-1, NULL, NULL};

void ergo__sections_meter(int qi, ergo__section_meter_fn fn, void *ctx) {
  pthread_mutex_lock(&sec_lock);
  meter.qi = fn && qi >= 0 && qi < ERGO_MAX_QUANTITIES ? qi : -1;
  meter.fn = meter.qi >= 0 ? fn : NULL;
  meter.ctx = ctx;
  pthread_mutex_unlock(&sec_lock);
}

/* The meter's amounts at tick t into out: 0, or -1 when none is taken (no meter, another thread
 * than the main one, or finalize under way).  The lock is held. */
static int measure(uint64_t t, double *out, uint64_t *unsure) {
  if (!meter.fn || ergo__g.finalizing || !ergo__g.main_tree ||
      !ergo__tree_is_mine(ergo__g.main_tree))
    return -1;
  memset(out, 0, sizeof(double) * ERGO_MAX_COMPONENTS);
  return meter.fn(meter.ctx, t, out, unsure);
}

/* The running interval ends at `now`: its time, and its energy when both ends were measured. */
static void end_interval(ergo__section *s, uint64_t now) {
  s->total += now - s->t0;
  if (!meter.fn) return;
  double q1[ERGO_MAX_COMPONENTS];
  uint64_t unsure1 = 0;
  if (!s->q_open || measure(now, q1, &unsure1) != 0) {
    s->q_partial = 1;
    s->q_open = 0;
    return;
  }
  for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) s->q[c] += q1[c] > s->q0[c] ? q1[c] - s->q0[c] : 0;
  if (unsure1 != s->unsure0) s->q_partial = 1;
  s->q_ticks += now - s->t0;
  s->q_n++;
  s->q_open = 0;
}

int ergo_section_create(const char *name, unsigned *id) {
  if (!name || !*name || !id) {
    ergo__error("ergo_section_create: %s is missing; no section made (fix: pass a non-empty "
                "name and a place for the id)",
                !id ? "the id pointer" : "the name");
    return ERGO_EINVAL;
  }
  if (!ergo__g.initialized) {
    ergo__error("ergo_section_create('%s'): ergo is not initialised; no section made (fix: call "
                "ergo_init first)",
                name);
    return ERGO_ESTATE;
  }
  /* Kept as every writer can show it (core/name.c). */
  char fixed[ERGO_NAME_MAX + 1];
  int flags = ergo__name_fix(name, fixed);
  ergo__name_said("ergo_section_create(", "section", name, flags, fixed);
  name = fixed;
  pthread_mutex_lock(&sec_lock);
  for (unsigned i = 0; i < nsecs; i++)
    if (strcmp(secs[i].name, name) == 0) {
      secs[i].destroyed = 0; /* the same name is the same section, its figures go on */
      *id = i + 1;
      pthread_mutex_unlock(&sec_lock);
      return 0;
    }
  if (nsecs == capsecs) {
    unsigned cap = capsecs ? 2 * capsecs : 16;
    ergo__section *p = realloc(secs, cap * sizeof *p);
    if (!p) {
      pthread_mutex_unlock(&sec_lock);
      ergo__error("ergo_section_create('%s'): out of memory; no section made", name);
      return ERGO_ENOMEM;
    }
    secs = p;
    capsecs = cap;
  }
  ergo__section *s = &secs[nsecs];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  *id = ++nsecs;
  pthread_mutex_unlock(&sec_lock);
  return 0;
}

/* The live section `id`, with the lock held, or NULL after one error line (lock released). */
static ergo__section *live(const char *what, unsigned id) {
  pthread_mutex_lock(&sec_lock);
  if (id >= 1 && id <= nsecs && !secs[id - 1].destroyed) return &secs[id - 1];
  int gone = id >= 1 && id <= nsecs;
  pthread_mutex_unlock(&sec_lock);
  ergo__error("%s(%u): %s; nothing timed (fix: use the id ergo_section_create gave%s)", what, id,
              gone ? "the section was destroyed" : "no such section",
              gone ? ", and create the section again to time it again" : "");
  return NULL;
}

int ergo_section_start(unsigned id) {
  uint64_t now = ergo__ticks();
  ergo__section *s = live("ergo_section_start", id);
  if (!s) return ERGO_EINVAL;
  if (s->running++ == 0) {
    s->t0 = now;
    s->q_open = meter.fn && measure(now, s->q0, &s->unsure0) == 0;
  }
  s->calls++;
  pthread_mutex_unlock(&sec_lock);
  return 0;
}

int ergo_section_stop(unsigned id) {
  uint64_t now = ergo__ticks();
  ergo__section *s = live("ergo_section_stop", id);
  if (!s) return ERGO_EINVAL;
  if (!s->running) {
    char name[ERGO_NAME_MAX + 1];
    memcpy(name, s->name, sizeof name);
    pthread_mutex_unlock(&sec_lock);
    ergo__error("ergo_section_stop(%u): section '%s' is not running; this stop is ignored (fix: "
                "call ergo_section_start before each stop)",
                id, name);
    return ERGO_ESTATE;
  }
  if (--s->running == 0) end_interval(s, now);
  pthread_mutex_unlock(&sec_lock);
  return 0;
}

int ergo_section_destroy(unsigned id) {
  uint64_t now = ergo__ticks();
  ergo__section *s = live("ergo_section_destroy", id);
  if (!s) return ERGO_EINVAL;
  if (s->running) { /* the running interval ends here: its figures are kept */
    end_interval(s, now);
    s->running = 0;
  }
  s->destroyed = 1;
  pthread_mutex_unlock(&sec_lock);
  return 0;
}

size_t ergo__sections_local(ergo__section_fig **out) {
  *out = NULL;
  uint64_t now = ergo__report_now();
  pthread_mutex_lock(&sec_lock);
  size_t n = nsecs;
  ergo__section_fig *f = n ? calloc(n, sizeof *f) : NULL;
  if (!f) n = 0;
  for (size_t i = 0; i < n; i++) {
    const ergo__section *s = &secs[i];
    snprintf(f[i].name, sizeof f[i].name, "%s", s->name);
    f[i].time_s = ergo__ticks_to_s(s->total + (s->running ? now - s->t0 : 0));
    f[i].calls = s->calls;
    f[i].running = s->running != 0;
    int qi = meter.qi;
    if (qi >= 0 && s->q_n) {
      /* A running interval's energy is not read yet: the amount so far is a lower bound. */
      f[i].q_ok = 1u << qi | (s->q_partial || s->running ? ERGO__Q_LOWER(qi) : 0);
      double secs_measured = ergo__ticks_to_s(s->q_ticks);
      for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) {
        f[i].q[qi][c] = s->q[c];
        f[i].q_time_s[qi][c] = secs_measured;
      }
    }
  }
  pthread_mutex_unlock(&sec_lock);
  *out = f;
  return n;
}

void ergo__section_snap(const ergo__section_fig *f, ergo__snap *out) {
  memset(out, 0, sizeof *out);
  out->name = f->name;
  out->depth = -1;
  out->open = f->running;
  out->time_s = f->time_s;
  out->calls = f->calls;
  out->q_ok = f->q_ok;
  memcpy(out->q, f->q, sizeof out->q);
  memcpy(out->q_time_s, f->q_time_s, sizeof out->q_time_s);
  out->nranks = f->nranks;
  out->ranks_ran = f->ranks_ran;
}

void ergo__sections_reset(void) {
  pthread_mutex_lock(&sec_lock);
  free(secs);
  secs = NULL;
  nsecs = capsecs = 0;
  meter.qi = -1;
  meter.fn = NULL;
  meter.ctx = NULL;
  pthread_mutex_unlock(&sec_lock);
}
