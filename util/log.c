/* log.c - error codes, and the one-line error/warning/note channel with its policy: every message
 * goes through emit(), which counts errors and warnings apart and applies ERGO_ON_ERROR=abort to
 * errors only.  An error or warning line of one kind (one call site's format string) is printed
 * ERGO__LOG_SHOWN times; later ones are counted, not printed, and ergo__log_summary (at
 * ergo_finalize) says how many each kind had. */
#include "util/log.h"
#include "util/utf8.h"

#include "ergo.h"

#include <pthread.h>
#include <stdio.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum { LOG_ERROR, LOG_WARNING, LOG_NOTE, LOG_INFO } log_kind;

/* Lines of one kind printed before the rest are only counted. */
enum { LOG_SHOWN = ERGO__LOG_SHOWN, LOG_KINDS = 64, LOG_SAMPLE = 200 };

/* One kind of error or warning line: its call site's format string, how many came, and the last
 * line printed (the summary quotes it). */
typedef struct {
  const char *fmt;
  log_kind kind;
  unsigned long count;
  char sample[LOG_SAMPLE];
} log_site;

/* The log's state: the counts, the last message, the policy and the kinds seen. */
static struct {
  unsigned long error_count, warning_count;
  char last_error[512]; /* the last error or warning */
  pthread_mutex_t err_lock;
  int abort_on_error; /* ERGO_ON_ERROR=abort */
  log_site sites[LOG_KINDS];
  int nsites; /* when full, a new kind is printed every time (never lost) */
} L = {0, 0, "", PTHREAD_MUTEX_INITIALIZER, 0, {{0}}, 0};

void ergo__log_set_abort(int on) { __atomic_store_n(&L.abort_on_error, on, __ATOMIC_RELAXED); }

const char *ergo_strerror(int err) {
  switch (err) {
  case 0: return "success";
#define ERGO__S(name, val, msg)                                                                    \
  case val: return msg;
    ERGO_ERRNO_MAP(ERGO__S)
#undef ERGO__S
  default: return "unknown ergo error";
  }
}

/* The one path: "ergo: <kind>: message" (info: "ergo: message") on stderr, counted by kind; an
 * error under ERGO_ON_ERROR=abort then aborts the process. */
static const char *const prefix[] = {"error: ", "warning: ", "note: ", ""};

/* The kind of this line (caller holds err_lock); NULL when the table is full. */
static log_site *site_of(log_kind kind, const char *fmt) {
  for (int i = 0; i < L.nsites; i++)
    if (L.sites[i].kind == kind && (L.sites[i].fmt == fmt || strcmp(L.sites[i].fmt, fmt) == 0))
      return &L.sites[i];
  if (L.nsites == LOG_KINDS) return NULL;
  log_site *s = &L.sites[L.nsites++];
  memset(s, 0, sizeof *s);
  s->fmt = fmt;
  s->kind = kind;
  return s;
}

static void emit(log_kind kind, const char *fmt, va_list ap) {
  char text[sizeof L.last_error], msg[sizeof L.last_error];
  vsnprintf(text, sizeof text, fmt, ap);
  /* A name or path that is not UTF-8 shows its bad bytes as \xHH: the line stays readable, and
   * ergo_last_error valid text for whatever decodes it. */
  ergo__utf8_fix(text, msg, sizeof msg, NULL);
  pthread_mutex_lock(&L.err_lock);
  int counted = kind == LOG_ERROR || kind == LOG_WARNING;
  if (kind == LOG_ERROR) L.error_count++;
  if (kind == LOG_WARNING) L.warning_count++;
  if (counted) memcpy(L.last_error, msg, sizeof msg);
  log_site *site = counted ? site_of(kind, fmt) : NULL;
  unsigned long nth = site ? ++site->count : 1;
  /* One write per line so lines from several threads never interleave. */
  if (nth <= LOG_SHOWN) fprintf(stderr, "ergo: %s%s\n", prefix[kind], msg);
  if (site && nth <= LOG_SHOWN) {
    size_t n = strlen(msg);
    if (n >= sizeof site->sample) { /* cut, and say so */
      n = sizeof site->sample - 4;
      memcpy(site->sample + n, "...", 4);
    } else {
      site->sample[n] = '\0';
    }
    memcpy(site->sample, msg, n);
  }
  if (nth == LOG_SHOWN)
    fprintf(stderr, "ergo: warning: further lines like the one above are counted, not printed "
                    "(summary at ergo_finalize)\n");
  fflush(stderr);
  pthread_mutex_unlock(&L.err_lock);
  if (kind == LOG_ERROR && __atomic_load_n(&L.abort_on_error, __ATOMIC_RELAXED)) {
    fprintf(stderr, "ergo: aborting because ERGO_ON_ERROR=abort\n");
    abort();
  }
}

#define ERGO__LOG_FN(fn, kind)                                                                     \
  void fn(const char *fmt, ...) {                                                                  \
    va_list ap;                                                                                    \
    va_start(ap, fmt);                                                                             \
    emit(kind, fmt, ap);                                                                           \
    va_end(ap);                                                                                    \
  }
ERGO__LOG_FN(ergo__error, LOG_ERROR)
ERGO__LOG_FN(ergo__warn, LOG_WARNING)
ERGO__LOG_FN(ergo__note, LOG_NOTE)
ERGO__LOG_FN(ergo__info, LOG_INFO)
#undef ERGO__LOG_FN

void ergo__errors_reset(void) {
  pthread_mutex_lock(&L.err_lock);
  L.error_count = 0;
  L.warning_count = 0;
  L.last_error[0] = '\0';
  L.nsites = 0;
  pthread_mutex_unlock(&L.err_lock);
}

void ergo__log_summary(void) {
  pthread_mutex_lock(&L.err_lock);
  for (int i = 0; i < L.nsites; i++) {
    const log_site *s = &L.sites[i];
    if (s->count <= LOG_SHOWN) continue;
    fprintf(stderr, "ergo: %s%lu lines like \"%s\" in all; %lu not printed\n", prefix[s->kind],
            s->count, s->sample, s->count - LOG_SHOWN);
  }
  L.nsites = 0;
  fflush(stderr);
  pthread_mutex_unlock(&L.err_lock);
}

unsigned long ergo_error_count(void) {
  pthread_mutex_lock(&L.err_lock);
  unsigned long n = L.error_count;
  pthread_mutex_unlock(&L.err_lock);
  return n;
}

unsigned long ergo_warning_count(void) {
  pthread_mutex_lock(&L.err_lock);
  unsigned long n = L.warning_count;
  pthread_mutex_unlock(&L.err_lock);
  return n;
}

const char *ergo_last_error(void) { return L.last_error; }
