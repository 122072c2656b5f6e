/* summary.c - the end-of-run summary of a tuning run: per region the setting chosen and what the
 * model's measurements say it saves against the untuned baseline, then where the model went. */
#include "policies/summary.h"

#include "util/buf.h"
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ergo__summary_setting(const ergo__config *c, char *out, size_t len) {
  size_t o = 0;
  out[0] = '\0';
  for (int i = 0; i < ERGO__NKNOBS && o < len; i++) {
    if (!c->v[i]) continue;
    int n = snprintf(out + o, len - o, "%s%s=%lld", o ? "," : "", ergo__knob_table[i].key,
                     (long long)c->v[i]);
    if (n < 0) break;
    o += (size_t)n;
  }
  if (!out[0]) snprintf(out, len, "inherited");
  return out;
}

/* The measured point of the region's chosen setting, or NULL. */
static const ergo__model_point *chosen_point(const ergo__model_region *r) {
  for (int i = 0; i < r->npoints; i++)
    if (memcmp(&r->points[i].config, &r->best, sizeof r->best) == 0) return &r->points[i];
  return NULL;
}

static void put(ergo__buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(ergo__buf *b, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  ergo__buf_put(b, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

char *ergo__summary_text(const ergo__model *m, const int *only, const char *tail) {
  ergo__buf b = {0};
  int n = 0, wpath = (int)strlen("region"), wset = (int)strlen("setting");
  char set[256];
  for (int i = 0; i < m->nregions; i++) {
    if (only && !only[i]) continue;
    n++;
    int lp = (int)strlen(m->regions[i].path);
    ergo__summary_setting(&m->regions[i].best, set, sizeof set);
    int ls = (int)strlen(set);
    if (lp > wpath) wpath = lp;
    if (ls > wset) wset = ls;
  }
  if (n) {
    put(&b,
        "tuning summary (%s, %s): %d region%s, expected per execution against the untuned "
        "baseline:\n",
        m->policy[0] ? m->policy : "?", m->objective[0] ? m->objective : "?", n, n == 1 ? "" : "s");
    put(&b, "  %-*s  %-*s  %12s  %8s\n", wpath, "region", wset, "setting", "energy saved", "time");
    for (int i = 0; i < m->nregions; i++) {
      if (only && !only[i]) continue;
      const ergo__model_region *r = &m->regions[i];
      const ergo__model_point *p = chosen_point(r);
      char saved[32] = "-", dt[32] = "-";
      if (p && r->baseline.energy_j > 0)
        snprintf(saved, sizeof saved, "%.1f%%",
                 100 * (r->baseline.energy_j - p->energy_j) / r->baseline.energy_j);
      if (p && r->baseline.time_s > 0)
        snprintf(dt, sizeof dt, "%+.1f%%",
                 100 * (p->time_s - r->baseline.time_s) / r->baseline.time_s);
      ergo__summary_setting(&r->best, set, sizeof set);
      put(&b, "  %-*s  %-*s  %12s  %8s\n", wpath, r->path, wset, set, saved, dt);
    }
  }
  if (tail) put(&b, "%s\n", tail);
  ergo__buf_put(&b, "", 1);
  if (b.fail) {
    free(b.p);
    return NULL;
  }
  return b.p;
}

void ergo__summary_print(const ergo__model *m, const int *only, const char *tail) {
  char *text = ergo__summary_text(m, only, tail);
  if (!text) {
    if (tail) ergo__info("%s", tail);
    return;
  }
  for (char *line = text, *nl; *line; line = nl + 1) {
    nl = strchr(line, '\n');
    if (!nl) break;
    *nl = '\0';
    ergo__info("%s", line);
  }
  free(text);
}
