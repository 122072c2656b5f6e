/* sweep_spec.c - ERGO_SWEEP: the sweep policy's explicit grid, repeats and budget; parsed, then
 * fitted to the knob values this node allows. */
#include "optimizer/sweep.h"

#include "ergo.h"
#include "knobs/table.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Values beyond this are no frequency or thread count, and cannot overflow a range walk. */
#define SWEEP_MAX_VALUE 1000000000000LL

/* The accepted form, its knobs the knob table's keys: "expected KNOB=V,V,... with KNOB cpu or
 * uncore (kHz) or threads and V ...".  A run of keys with the same unit is followed by that unit
 * in parentheses, unless the unit is the key itself (a count: threads). */
static const char *sweep_expected(char *out, size_t len) {
  char knobs[160];
  size_t o = 0;
  knobs[0] = '\0';
  for (int i = 0; i < ERGO__NKNOBS && o < sizeof knobs; i++) {
    const ergo__knob_row *row = &ergo__knob_table[i];
    int run_ends = i + 1 == ERGO__NKNOBS || strcmp(ergo__knob_table[i + 1].unit, row->unit) != 0;
    const char *sep = i ? " or " : "";
    int n = run_ends && strcmp(row->unit, row->key) != 0
                ? snprintf(knobs + o, sizeof knobs - o, "%s%s (%s)", sep, row->key, row->unit)
                : snprintf(knobs + o, sizeof knobs - o, "%s%s", sep, row->key);
    if (n < 0) break;
    o += (size_t)n;
  }
  snprintf(out, len,
           "expected KNOB=V,V,... with KNOB %s and V a positive integer or FROM:TO:STEP, and "
           "options repeats=N (1 to 100) and budget=N (10 to 100000), separated by ',' or ';'",
           knobs);
  return out;
}

static void spec_default(ergo__sweep_spec *spec) {
  memset(spec, 0, sizeof *spec);
  spec->repeats = 1;
  spec->budget = ERGO__SWEEP_BUDGET;
}

/* A positive decimal integer of exactly len characters (no sign, no spaces). */
static int positive(const char *p, size_t len, long long *out) {
  if (len == 0 || len > 13) return -1;
  long long v = 0;
  for (size_t i = 0; i < len; i++) {
    if (!isdigit((unsigned char)p[i])) return -1;
    v = v * 10 + (p[i] - '0');
  }
  if (v <= 0 || v > SWEEP_MAX_VALUE) return -1;
  *out = v;
  return 0;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Sort and drop repeated values: the grid is a set, walked in order. */
static int sort_unique(int64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_i64);
  int k = 0;
  for (int i = 0; i < n; i++)
    if (k == 0 || v[i] != v[k - 1]) v[k++] = v[i];
  return k;
}

/* One line naming the whole value, what is wrong in it, and the accepted form. */
__attribute__((format(printf, 4, 5))) static int fail(char *why, size_t whylen, const char *s,
                                                      const char *fmt, ...) {
  char reason[512], expected[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  snprintf(why, whylen, "ERGO_SWEEP='%s' is not valid: %s; %s", s, reason,
           sweep_expected(expected, sizeof expected));
  return ERGO_EINVAL;
}

/* One value of knob `slot`: V or FROM:TO:STEP, appended to spec. */
static int add_values(ergo__sweep_spec *t, int slot, const char *p, size_t len, const char *s,
                      char *why, size_t whylen) {
  const char *c1 = memchr(p, ':', len);
  long long from, to, step;
  if (!c1) {
    if (positive(p, len, &from))
      return fail(why, whylen, s, "'%.*s' is neither a positive integer nor FROM:TO:STEP", (int)len,
                  p);
    to = from;
    step = 1;
  } else {
    const char *c2 = memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - p));
    if (!c2 || positive(p, (size_t)(c1 - p), &from) ||
        positive(c1 + 1, (size_t)(c2 - c1 - 1), &to) ||
        positive(c2 + 1, len - (size_t)(c2 + 1 - p), &step) || from > to)
      return fail(why, whylen, s,
                  "'%.*s' is not a range FROM:TO:STEP of positive integers with FROM <= TO",
                  (int)len, p);
  }
  for (long long v = from; v <= to; v += step) {
    if (t->n[slot] == ERGO__SPACE_MAX_VALUES)
      return fail(why, whylen, s, "'%.*s' makes more than 256 values for one knob", (int)len, p);
    t->values[slot][t->n[slot]++] = v;
  }
  return 0;
}

int ergo__sweep_parse(const char *s, ergo__sweep_spec *spec, char *why, size_t whylen) {
  spec_default(spec);
  if (!s || !*s) return 0;
  ergo__sweep_spec t;
  spec_default(&t);
  static const char *const options[] = {"repeats", "budget"};
  int seen[ERGO__SPACE_DIMS + 2] = {0};
  int cur = -1; /* the knob whose list a bare value continues */
  for (const char *p = s;;) {
    size_t n = strcspn(p, ",;");
    if (n == 0) return fail(why, whylen, s, "an empty item");
    const char *eq = memchr(p, '=', n);
    if (!eq) {
      if (cur < 0) return fail(why, whylen, s, "'%.*s' follows no KNOB=", (int)n, p);
      if (add_values(&t, cur, p, n, s, why, whylen)) return ERGO_EINVAL;
    } else {
      size_t klen = (size_t)(eq - p);
      int key = ergo__knob_by_key(p, klen);
      for (int k = 0; key < 0 && k < 2; k++)
        if (strlen(options[k]) == klen && !strncmp(p, options[k], klen)) key = ERGO__SPACE_DIMS + k;
      if (key < 0) return fail(why, whylen, s, "'%.*s' names no knob or option", (int)n, p);
      if (seen[key]++) return fail(why, whylen, s, "'%.*s' is named twice", (int)klen, p);
      const char *v = eq + 1;
      size_t vlen = n - klen - 1;
      if (key < ERGO__SPACE_DIMS) {
        cur = key;
        if (add_values(&t, cur, v, vlen, s, why, whylen)) return ERGO_EINVAL;
      } else {
        cur = -1;
        long long x;
        int repeats = key == ERGO__SPACE_DIMS;
        long long lo = repeats ? 1 : ERGO__SWEEP_MIN_BUDGET;
        long long hi = repeats ? ERGO__SWEEP_MAX_REPEATS : ERGO__SWEEP_MAX_BUDGET;
        if (positive(v, vlen, &x) || x < lo || x > hi)
          return fail(why, whylen, s, "'%.*s' is not an integer from %lld to %lld", (int)n, p, lo,
                      hi);
        if (repeats)
          t.repeats = (int)x;
        else
          t.budget = (int)x;
      }
    }
    if (!p[n]) break;
    p += n + 1;
  }
  for (int i = 0; i < ERGO__SPACE_DIMS; i++) t.n[i] = sort_unique(t.values[i], t.n[i]);
  *spec = t;
  return 0;
}

int ergo__sweep_fit(ergo__sweep_spec *spec, const ergo__space *space, char *why, size_t whylen,
                    char *warn, size_t warnlen) {
  if (warnlen) warn[0] = '\0';
  long total = 1;
  int rounded = 0;
  char first[128] = "";
  for (int i = 0; i < ERGO__SPACE_DIMS; i++) {
    if (!spec->n[i]) continue;
    if (!space->n[i]) {
      snprintf(why, whylen,
               "ERGO_SWEEP names %s, but this node has no %s knob (`ergo info` says "
               "why; fix: leave it out of ERGO_SWEEP)",
               ergo__knob_table[i].key, ergo__knob_table[i].key);
      return ERGO_EINVAL;
    }
    for (int k = 0; k < spec->n[i]; k++) {
      int64_t v = spec->values[i][k], near = ergo__space_round(space, i, v);
      if (near == v) continue;
      if (!rounded++)
        snprintf(first, sizeof first,
                 "%s=%lld is not allowed on this node; using the nearest, %lld",
                 ergo__knob_table[i].key, (long long)v, (long long)near);
      spec->values[i][k] = near;
    }
    spec->n[i] = sort_unique(spec->values[i], spec->n[i]);
    total *= spec->n[i];
  }
  if (total > ERGO__SWEEP_MAX_POINTS) {
    snprintf(why, whylen,
             "ERGO_SWEEP's grid has %ld configurations; at most %d are accepted per "
             "region (fix: name fewer values)",
             total, ERGO__SWEEP_MAX_POINTS);
    return ERGO_EINVAL;
  }
  if (rounded > 1)
    snprintf(warn, warnlen, "ERGO_SWEEP: %s (and %d more values rounded)", first, rounded - 1);
  else if (rounded)
    snprintf(warn, warnlen, "ERGO_SWEEP: %s", first);
  return 0;
}
