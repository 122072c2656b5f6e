/* log.c - error codes, and the one-line error/warning/note channel with its policy. */
#include "util/log.h"

#include "ergo.h"

#include <pthread.h>
#include <stdio.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static unsigned long error_count;
static char last_error[512];
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static int abort_on_error; /* ERGO_ON_ERROR=abort */

void ergo__log_set_abort(int on) { __atomic_store_n(&abort_on_error, on, __ATOMIC_RELAXED); }

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

static void emit(const char *kind, const char *fmt, va_list ap) {
  char msg[sizeof last_error];
  vsnprintf(msg, sizeof msg, fmt, ap);
  pthread_mutex_lock(&err_lock);
  memcpy(last_error, msg, sizeof msg);
  error_count++;
  /* One write per line so lines from several threads never interleave. */
  fprintf(stderr, "ergo: %s: %s\n", kind, msg);
  fflush(stderr);
  pthread_mutex_unlock(&err_lock);
}

void ergo__error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("error", fmt, ap);
  va_end(ap);
  if (__atomic_load_n(&abort_on_error, __ATOMIC_RELAXED)) {
    fprintf(stderr, "ergo: aborting because ERGO_ON_ERROR=abort\n");
    abort();
  }
}

void ergo__warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("warning", fmt, ap);
  va_end(ap);
}

void ergo__note(const char *fmt, ...) {
  char msg[sizeof last_error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&err_lock);
  fprintf(stderr, "ergo: note: %s\n", msg);
  fflush(stderr);
  pthread_mutex_unlock(&err_lock);
}

void ergo__info(const char *fmt, ...) {
  char msg[sizeof last_error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&err_lock);
  fprintf(stderr, "ergo: %s\n", msg);
  fflush(stderr);
  pthread_mutex_unlock(&err_lock);
}

void ergo__errors_reset(void) {
  pthread_mutex_lock(&err_lock);
  error_count = 0;
  last_error[0] = '\0';
  pthread_mutex_unlock(&err_lock);
}

unsigned long ergo_error_count(void) {
  pthread_mutex_lock(&err_lock);
  unsigned long n = error_count;
  pthread_mutex_unlock(&err_lock);
  return n;
}

const char *ergo_last_error(void) { return last_error; }
