/* utf8.h - text that every writer can hold: whether bytes are UTF-8, and a copy with each byte
 * that is not written as the text \xHH.  Any layer may include it. */
#ifndef ERGO_UTIL_UTF8_H
#define ERGO_UTIL_UTF8_H

#include <stddef.h>

/* Bytes of the valid UTF-8 character at s (1 to 4; 1 for the NUL), or 0 when none starts there:
 * no overlong forms, surrogates or code points above U+10FFFF (RFC 3629, as jansson checks). */
size_t ergo__utf8_char(const char *s);
/* Offset of the first byte of s that is not valid UTF-8; strlen(s) when every one is. */
size_t ergo__utf8_bad(const char *s);
/* s copied into out (cap >= 1 bytes, NUL included) with each byte that is not UTF-8 written as
 * the four characters \xHH, cut between two characters (never inside one, nor inside a \xHH) to
 * fit.  *bad (may be NULL): how many bytes were written as \xHH.  Returns the bytes of s copied:
 * s[return] != '\0' when s was cut. */
size_t ergo__utf8_fix(const char *s, char *out, size_t cap, size_t *bad);
/* As ergo__utf8_fix, and each ASCII control character (0x01-0x1f, 0x7f) also written as \xHH:
 * text that line-based files (reports, balance headers) hold on one line.  *ctl (may be NULL):
 * how many control characters were written so; *bad counts the bytes that are not UTF-8 only. */
size_t ergo__utf8_fix_ctl(const char *s, char *out, size_t cap, size_t *bad, size_t *ctl);
/* 1 when c is an ASCII control character (0x01-0x1f or 0x7f; the NUL ends a string). */
static inline int ergo__ascii_ctl(char c) {
  return ((unsigned char)c < 0x20 && c != '\0') || (unsigned char)c == 0x7f;
}

#endif
