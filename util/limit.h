/* limit.h - the largest input ergo reads: a tuning model, a sim node file, a checkpoint, a report
 * given to `ergo compare`, and one rank's merge pack are refused beyond ERGO_INPUT_MAX bytes
 * (256 MB) with one line naming the input, its size and the limit.  Their parsers are linear in
 * the input, so the limit bounds time as well as memory.  (State files have their own, smaller
 * limit: knobs/state_restore_dead.c.) */
#ifndef ERGO_UTIL_LIMIT_H
#define ERGO_UTIL_LIMIT_H

#include <stdio.h>
#include <sys/stat.h>

#define ERGO_INPUT_MAX (256ull << 20)

/* 0 when `len` bytes are within the limit; else -1 with why: "N bytes, more than the 268435456
 * (256 MB) ergo reads". */
static inline int ergo__input_len_check(unsigned long long len, char *why, size_t whylen) {
  if (len <= ERGO_INPUT_MAX) return 0;
  snprintf(why, whylen, "%llu bytes, more than the %llu (256 MB) ergo reads", len,
           (unsigned long long)ERGO_INPUT_MAX);
  return -1;
}

/* The same for the file at path (one that cannot be stat'ed passes: its reader says why). */
static inline int ergo__input_size_check(const char *path, char *why, size_t whylen) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  return ergo__input_len_check((unsigned long long)st.st_size, why, whylen);
}

#endif
