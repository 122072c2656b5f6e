/* sampler.c - the background sampler: keeps counters from wrapping unseen, records power over time.
 */
#include "energy/energy.h"

#include "util/atomic_file.h"
#include "util/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ergo__sampler {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int stop;
  ergo__meter *m;
  int period_ms;
  FILE *csv, *trace;
  char *csv_path, *trace_path; /* final names; the files grow as NAME.tmp.RANDOM until stop */
  char *csv_tmp, *trace_tmp;
  uint64_t samples;
  double cost_s;
  struct timespec t0;
  double last_t, last_j[ERGO__METER_MAX_DOMAINS];
  int warned_slow, warned_late;
};

static double since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* The timeline grows in a fresh temporary file beside `path` (an unpredictable name, never a
 * planted link) and becomes `path` at stop. */
static FILE *open_tmp(const char *path, char **final, char **tmp) {
  if (!path) return NULL;
  int fd = ergo__tmp_create(path, 0644, tmp);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    ergo__error("cannot write '%s': %s; no power timeline there (fix: make the directory "
                "writable or choose another path)",
                path, strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(*tmp);
      free(*tmp);
    }
    *tmp = NULL;
    return NULL;
  }
  *final = strdup(path);
  return f;
}

static void finish(FILE *f, char *final, char *tmp, const char *tail) {
  if (!f) return;
  if (tail) fputs(tail, f);
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad || ergo__tmp_publish(tmp, final) != 0)
    ergo__error("writing '%s' failed: %s; the partial timeline is in '%s' (fix: check free space, "
                "or remove '%s' if it is not a regular file)",
                final, bad ? "write error" : ergo__file_why(errno), tmp, final);
  free(final);
  free(tmp);
}

/* One sample: the read itself (which also corrects wraps), then a line per file. */
static void sample(ergo__sampler *s) {
  double t0 = since(&s->t0);
  double j[ERGO__METER_MAX_DOMAINS];
  if (ergo__meter_read(s->m, j) != 0) return;
  double t = since(&s->t0);
  s->cost_s += t - t0;
  /* Warned once each, from this thread: the log path is thread-safe. */
  if (!s->warned_slow && t - t0 > 1e-3 * s->period_ms) {
    s->warned_slow = 1;
    ergo__warn("the energy sampler cannot keep up: one reading took %.3f ms, longer than its "
               "period of %d ms (fix: a larger ERGO_SAMPLE_MS, within the counters' wrap time)",
               (t - t0) * 1e3, s->period_ms);
  }
  if (!s->warned_late && s->m->wrap_s > 0 && s->samples && t - s->last_t > s->m->wrap_s) {
    s->warned_late = 1;
    ergo__warn("the energy sampler fell behind: %.3f s between two readings, more than the "
               "%.6g s a counter takes to wrap at full power, so wraps may be missing and the "
               "regions then running are marked as lower bounds (fix: fewer busy threads than "
               "cores, so that the sampler gets to run)",
               t - s->last_t, s->m->wrap_s);
  }
  s->samples++;
  double dt = t - s->last_t;
  if (dt > 0 && (s->csv || s->trace)) {
    if (s->csv) fprintf(s->csv, "%.6f", t);
    if (s->trace)
      fprintf(s->trace,
              ",\n{\"name\":\"power\",\"ph\":\"C\",\"ts\":%.0f,\"pid\":%d,\"tid\":0,"
              "\"args\":{",
              t * 1e6, (int)getpid());
    for (int d = 0; d < s->m->ndomains; d++) {
      double w = (j[d] - s->last_j[d]) / dt;
      if (s->csv) fprintf(s->csv, ",%.3f", w);
      if (s->trace) fprintf(s->trace, "%s\"%s W\":%.3f", d ? "," : "", s->m->dom[d].name, w);
    }
    if (s->csv) fputc('\n', s->csv);
    if (s->trace) fputs("}}", s->trace);
  }
  s->last_t = t;
  memcpy(s->last_j, j, sizeof j);
}

static void *run(void *arg) {
  ergo__sampler *s = arg;
  pthread_mutex_lock(&s->lock);
  while (!s->stop) {
    struct timespec wake;
    clock_gettime(CLOCK_MONOTONIC, &wake);
    wake.tv_nsec += (long)s->period_ms % 1000 * 1000000L;
    wake.tv_sec += s->period_ms / 1000 + wake.tv_nsec / 1000000000L;
    wake.tv_nsec %= 1000000000L;
    while (!s->stop && pthread_cond_timedwait(&s->cond, &s->lock, &wake) != ETIMEDOUT) {
    }
    if (s->stop) break;
    pthread_mutex_unlock(&s->lock);
    sample(s);
    pthread_mutex_lock(&s->lock);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

int ergo__sampler_start(ergo__sampler **out, ergo__meter *m, int period_ms, const char *csv_path,
                        const char *trace_path) {
  *out = NULL;
  ergo__sampler *s = calloc(1, sizeof *s);
  if (!s) return ERGO_ENOMEM;
  s->m = m;
  s->period_ms = period_ms;
  pthread_mutex_init(&s->lock, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&s->cond, &ca);
  pthread_condattr_destroy(&ca);
  clock_gettime(CLOCK_MONOTONIC, &s->t0);
  ergo__meter_read(m, s->last_j);
  s->csv = open_tmp(csv_path, &s->csv_path, &s->csv_tmp);
  if (s->csv) {
    fputs("time_s", s->csv);
    for (int d = 0; d < m->ndomains; d++) fprintf(s->csv, ",%s_W", m->dom[d].name);
    fputc('\n', s->csv);
  }
  s->trace = open_tmp(trace_path, &s->trace_path, &s->trace_tmp);
  if (s->trace)
    fprintf(s->trace,
            "[{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":"
            "\"ergo power%s%s\"}}",
            (int)getpid(), m->label ? " " : "", m->label ? m->label : "");
  int rc = pthread_create(&s->thread, NULL, run, s);
  if (rc) {
    ergo__warn("cannot start the energy sampler thread: %s; long regions may miss a counter "
               "wrap (fix: ERGO_SAMPLE_MS=0 to run without it)",
               strerror(rc));
    finish(s->csv, s->csv_path, s->csv_tmp, NULL);
    finish(s->trace, s->trace_path, s->trace_tmp, "]\n");
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    free(s);
    return ERGO_EBUSY;
  }
  *out = s;
  return 0;
}

uint64_t ergo__sampler_stop(ergo__sampler *s, double *cost_s) {
  if (!s) return 0;
  pthread_mutex_lock(&s->lock);
  s->stop = 1;
  pthread_cond_signal(&s->cond);
  pthread_mutex_unlock(&s->lock);
  pthread_join(s->thread, NULL);
  sample(s); /* the last stretch, up to now */
  finish(s->csv, s->csv_path, s->csv_tmp, NULL);
  finish(s->trace, s->trace_path, s->trace_tmp, "\n]\n");
  uint64_t n = s->samples;
  if (cost_s) *cost_s = s->cost_s;
  pthread_mutex_destroy(&s->lock);
  pthread_cond_destroy(&s->cond);
  free(s);
  return n;
}
