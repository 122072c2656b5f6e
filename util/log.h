/* log.h - the one path every message of ergo takes: "ergo: <kind>: ..." lines on stderr, counted,
 * and ERGO_ON_ERROR applied.  Any layer may include it. */
#ifndef ERGO_UTIL_LOG_H
#define ERGO_UTIL_LOG_H

/* One "ergo: error: ..." line: a region error, or something lost: a report, checkpoint, model or
 * timeline not written, a checkpoint not loaded, measurements dropped, a knob not restored.
 * Counted by ergo_error_count(); aborts under ERGO_ON_ERROR=abort. */
void ergo__error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One "ergo: warning: ..." line: something was refused, ignored or replaced by a default and the
 * run goes on unharmed.  Counted by ergo_warning_count(); never aborts. */
void ergo__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One "ergo: note: ..." line: information, counted nowhere. */
void ergo__note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One "ergo: ..." line: where a file went, what was done; counted nowhere. */
void ergo__info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Error and warning lines of one kind (one call site's format string) printed before the rest
 * are counted and not printed (one line says so after the last one printed). */
#define ERGO__LOG_SHOWN 5
/* Forget the counts, the last message and the kinds seen (ergo_init). */
void ergo__errors_reset(void);
/* One line per kind that had lines not printed: how many in all (ergo_finalize); then forget the
 * kinds, so the next lines of each are printed again. */
void ergo__log_summary(void);
/* 1: ergo__error aborts the process after its line (ERGO_ON_ERROR=abort). */
void ergo__log_set_abort(int on);

#endif
