/* log.c - error codes, and the one-line error/warning/note channel with its policy: every message
 * goes through emit(), which counts errors and warnings apart and applies ERGO_ON_ERROR=abort to
 * errors only. */
#include "util/log.h"

#include "ergo.h"

#include <pthread.h>
#include <stdio.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum { LOG_ERROR, LOG_WARNING, LOG_NOTE, LOG_INFO } log_kind;

/* The log's state: the counts, the last message and the policy. */
static struct {
  unsigned long error_count, warning_count;
  char last_error[512]; /* the last error or warning */
  pthread_mutex_t err_lock;
  int abort_on_error; /* ERGO_ON_ERROR=abort */
} L = {0, 0, "", PTHREAD_MUTEX_INITIALIZER, 0};

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
static void emit(log_kind kind, const char *fmt, va_list ap) {
  static const char *const prefix[] = {"error: ", "warning: ", "note: ", ""};
  char msg[sizeof L.last_error];
  vsnprintf(msg, sizeof msg, fmt, ap);
  pthread_mutex_lock(&L.err_lock);
  if (kind == LOG_ERROR) L.error_count++;
  if (kind == LOG_WARNING) L.warning_count++;
  if (kind == LOG_ERROR || kind == LOG_WARNING) memcpy(L.last_error, msg, sizeof msg);
  /* One write per line so lines from several threads never interleave. */
  fprintf(stderr, "ergo: %s%s\n", prefix[kind], msg);
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
