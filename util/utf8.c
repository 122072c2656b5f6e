/* utf8.c - which bytes are UTF-8, and a copy of text in which every byte is. */
#include "util/utf8.h"

#include <string.h>

size_t ergo__utf8_char(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  unsigned char c = u[0];
  if (c < 0x80) return 1;
  /* The second byte's range depends on the first (no overlong forms, no surrogates, nothing
   * above U+10FFFF).  A NUL is no continuation byte, so the reads stop at the string's end. */
  unsigned char lo = 0x80, hi = 0xbf;
  size_t n;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (u[1] < lo || u[1] > hi) return 0;
  for (size_t i = 2; i < n; i++)
    if ((u[i] & 0xc0) != 0x80) return 0;
  return n;
}

size_t ergo__utf8_bad(const char *s) {
  size_t i = 0, n;
  while (s[i] && (n = ergo__utf8_char(s + i)) != 0) i += n;
  return i;
}

static size_t fix(const char *s, char *out, size_t cap, int ctl_too, size_t *bad, size_t *ctl) {
  static const char hex[] = "0123456789abcdef";
  size_t i = 0, o = 0, nbad = 0, nctl = 0;
  while (s[i]) {
    size_t n = ergo__utf8_char(s + i);
    int c = n && ctl_too && ergo__ascii_ctl(s[i]);
    size_t w = n && !c ? n : 4; /* w: the bytes it takes in out */
    if (o + w >= cap) break;
    if (w == n) {
      memcpy(out + o, s + i, n);
    } else {
      unsigned char b = (unsigned char)s[i];
      memcpy(out + o, "\\x", 2);
      out[o + 2] = hex[b >> 4];
      out[o + 3] = hex[b & 15];
      nbad += !c;
      nctl += c;
    }
    i += n ? n : 1;
    o += w;
  }
  if (cap) out[o] = '\0';
  if (bad) *bad = nbad;
  if (ctl) *ctl = nctl;
  return i;
}

size_t ergo__utf8_fix(const char *s, char *out, size_t cap, size_t *bad) {
  return fix(s, out, cap, 0, bad, NULL);
}

size_t ergo__utf8_fix_ctl(const char *s, char *out, size_t cap, size_t *bad, size_t *ctl) {
  return fix(s, out, cap, 1, bad, ctl);
}
