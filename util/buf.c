/* buf.c - a growable byte buffer: append, remember a failed allocation, check once at the end. */
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

void ergo__buf_put(ergo__buf *b, const void *v, size_t len) {
  if (b->fail || !len) return;
  if (b->n + len > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + len) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->fail = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, v, len);
  b->n += len;
}
