/* buf.h - a growable byte buffer (merge packs, the node sync's records). */
#ifndef ERGO_UTIL_BUF_H
#define ERGO_UTIL_BUF_H

#include <stddef.h>

typedef struct ergo__buf {
  char *p;
  size_t n, cap;
  int fail; /* a realloc failed: later puts do nothing, the caller checks once */
} ergo__buf;

/* Append len bytes of v (nothing after a failed allocation). */
void ergo__buf_put(ergo__buf *b, const void *v, size_t len);

#endif
