/* sections.c - named timers that may overlap and start and stop in any order (ergo_section_*).
 *
 * A section is not a region: it has no place in the tree and no stack, so two sections may
 * overlap partly, and one thread may start a section that another stops.  Sections are coarse
 * (a phase, a Kokkos profiling section), so one mutex guards them all.  Figures are kept until
 * ergo_finalize has written the reports; a destroyed section keeps its figures for them. */
#include "internal.h"

#include <stdlib.h>

typedef struct {
  char name[ERGO_NAME_MAX + 1];
  uint64_t total;   /* ticks over completed (outermost) intervals */
  uint64_t t0;      /* ticks at the outermost start of the running interval */
  uint64_t calls;   /* every start, nested ones included */
  unsigned running; /* starts not yet matched by a stop */
  int destroyed;
} ergo__section;

static pthread_mutex_t sec_lock = PTHREAD_MUTEX_INITIALIZER;
static ergo__section *secs;
static unsigned nsecs, capsecs;

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
  pthread_mutex_lock(&sec_lock);
  for (unsigned i = 0; i < nsecs; i++)
    if (strncmp(secs[i].name, name, ERGO_NAME_MAX) == 0) {
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
  if (s->running++ == 0) s->t0 = now;
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
  if (--s->running == 0) s->total += now - s->t0;
  pthread_mutex_unlock(&sec_lock);
  return 0;
}

int ergo_section_destroy(unsigned id) {
  uint64_t now = ergo__ticks();
  ergo__section *s = live("ergo_section_destroy", id);
  if (!s) return ERGO_EINVAL;
  if (s->running) { /* the running interval ends here: its time is kept */
    s->total += now - s->t0;
    s->running = 0;
  }
  s->destroyed = 1;
  pthread_mutex_unlock(&sec_lock);
  return 0;
}

size_t ergo__sections_take(ergo__section_fig **out) {
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
  }
  pthread_mutex_unlock(&sec_lock);
  *out = f;
  return n;
}

void ergo__sections_reset(void) {
  pthread_mutex_lock(&sec_lock);
  free(secs);
  secs = NULL;
  nsecs = capsecs = 0;
  pthread_mutex_unlock(&sec_lock);
}
