/* name.c - region and section names as every writer shows them: valid UTF-8 without control
 * characters, of at most ERGO_NAME_MAX bytes, cut between two characters; a name that is not is
 * fixed, and said once.
 *
 * The JSON writers (report, Hatchet, checkpoint, tuning model) cannot hold bytes that are not
 * UTF-8, and the text ones would pass them on to whatever reads them, so a name is made valid
 * where its region or section is made, and every writer sees the same name.  A bad byte is
 * written as the four characters \xHH rather than one replacement character, so two names that
 * differ only in such bytes stay two regions.  A control character (a newline, a tab) is
 * written the same way: the text report, the step report and the balance header are one line per
 * region, and a name that broke a line would break every reader of them. */
#include "internal.h"
#include "util/utf8.h"

#include <stdio.h>

int ergo__name_fix(const char *name, char out[ERGO_NAME_MAX + 1]) {
  size_t bad, ctl, used = ergo__utf8_fix_ctl(name, out, ERGO_NAME_MAX + 1, &bad, &ctl);
  return (bad ? ERGO__NAME_BAD : 0) | (ctl ? ERGO__NAME_CTL : 0) |
         (name[used] ? ERGO__NAME_CUT : 0);
}

/* The names already said since ergo_init: a 64-bit hash of each whole name (0: empty slot).
 * Only names that need fixing come here, so a lock is no cost to a good one.  When the table is
 * full every further name is said again (never one left unsaid). */
#define SAID_SLOTS 1024
static struct {
  pthread_mutex_t lock;
  uint64_t h[SAID_SLOTS];
  size_t n;
} said = {.lock = PTHREAD_MUTEX_INITIALIZER};

void ergo__names_reset(void) {
  pthread_mutex_lock(&said.lock);
  memset(said.h, 0, sizeof said.h);
  said.n = 0;
  pthread_mutex_unlock(&said.lock);
}

/* 1 the first time (since ergo_init) this whole name, in this role, comes here. */
static int first_time(const char *name, int role) {
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)role; /* FNV-1a over every byte */
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 0x100000001b3ull;
  h += !h;
  int first = 1;
  pthread_mutex_lock(&said.lock);
  size_t j = h & (SAID_SLOTS - 1);
  for (; said.h[j]; j = (j + 1) & (SAID_SLOTS - 1))
    if (said.h[j] == h) {
      first = 0;
      break;
    }
  if (first && said.n + 1 < SAID_SLOTS) {
    said.h[j] = h;
    said.n++;
  }
  pthread_mutex_unlock(&said.lock);
  return first;
}

void ergo__name_said(const char *who, const char *kind, const char *name, int flags,
                     const char *fixed) {
  if (!flags || !first_time(name, kind[0])) return;
  /* The head of the name as kept (already valid UTF-8), cut between characters. */
  char head[48];
  size_t hn = 0, n;
  while (fixed[hn] && (n = ergo__utf8_char(fixed + hn)) != 0 && hn + n <= 40) hn += n;
  memcpy(head, fixed, hn);
  head[hn] = '\0';
  const char *more = fixed[hn] ? "..." : "";
  size_t len = strlen(name), bad = 0, ctl = len; /* ctl: the first control character's offset */
  for (size_t i = 0; i < len; i += n ? n : 1)
    if (!(n = ergo__utf8_char(name + i)) || ergo__ascii_ctl(name[i])) {
      bad++;
      if (n && ctl == len) ctl = i;
    }
  if (flags & ERGO__NAME_BAD)
    ergo__error("%s\"%s%s\"): %s name is not valid UTF-8 (byte \\x%02x at offset %zu); naming the "
                "%s with each such byte as the text \\xHH (fix: pass UTF-8 names, e.g. convert "
                "Latin-1 ones with iconv)",
                who, head, more, kind, (unsigned char)name[ergo__utf8_bad(name)],
                ergo__utf8_bad(name), kind);
  if (flags & ERGO__NAME_CTL)
    ergo__error("%s\"%s%s\"): %s name holds a control character (\\x%02x at offset %zu), which "
                "would break the reports' and balance headers' lines; naming the %s with each "
                "such character as the text \\xHH (fix: no control characters in %s names)",
                who, head, more, kind, (unsigned char)name[ctl], ctl, kind, kind);
  if (flags & ERGO__NAME_CUT)
    ergo__error("%s\"%s%s\"): %s name is %zu bytes%s, longer than ERGO_NAME_MAX=%d; cutting it "
                "to its first %zu bytes, between two characters, so longer names that begin alike "
                "share one %s (fix: use a shorter name)",
                who, head, more, kind, len + 3 * bad, bad ? " with its bad bytes as \\xHH" : "",
                ERGO_NAME_MAX, strlen(fixed), kind);
}

/* The names ergo prints as lines of its own in the text report and the balance header: a region
 * named so reads as ergo's line.  Trailing blanks do not tell them apart (the name column is
 * padded with blanks). */
const char *ergo__name_reserved(const char *name) {
  static const char *const names[][2] = {
      {"Unaccounted", "ergo's line for the time a region's children leave out"},
      {"Global", "ergo's name for the whole run, the root of every report"},
      {"...", "ergo's line for children folded away by ERGO_REPORT_LEVEL"},
  };
  if (name[0] != 'U' && name[0] != 'G' && name[0] != '.') return NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t n = strlen(names[i][0]);
    if (strncmp(name, names[i][0], n) != 0) continue;
    while (name[n] == ' ') n++;
    if (!name[n]) return names[i][1];
  }
  return NULL;
}

void ergo__name_said_reserved(const char *who, const char *kind, const char *name,
                              const char *what) {
  if (!first_time(name, 'R')) return;
  ergo__warn("%s\"%s\"): %s name is %s, so the reports cannot tell this %s from ergo's own "
             "line; the %s works as any other (fix: rename it)",
             who, name, kind, what, kind, kind);
}
