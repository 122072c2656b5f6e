/* objective.c - what tuning minimises (ERGO_OBJECTIVE): parsing, canonical names and values. */
#include "optimizer/objective.h"

#include "ergo.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OBJ_DEFAULT "energy@5%"
#define OBJ_EXPECTED                                                                               \
  "expected energy, time, edp, ed2p, weighted[:t=W,e=W,r=W] (weights >= 0, not all 0) or "         \
  "energy@N% (N from 0 to 1000)"
/* The largest slowdown energy@N% accepts, in percent: beyond 10x the bound means nothing. */
#define OBJ_MAX_PERCENT 1000.0
/* energy@X%: a time that equals the bound up to rounding is on the right side of it. */
#define OBJ_TIME_RTOL 1e-12

/* A plain decimal number at *s (no sign, no spaces, no inf/nan/hex), advancing *s. */
static int number(const char **s, double *out) {
  const char *p = *s;
  if (!(isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))) return -1;
  for (const char *q = p; *q && *q != ',' && *q != '%'; q++)
    if (*q == 'x' || *q == 'X') return -1; /* strtod would read hexadecimal */
  char *end;
  errno = 0;
  double x = strtod(p, &end);
  if (end == p || errno == ERANGE || !isfinite(x)) return -1;
  *s = end;
  *out = x;
  return 0;
}

/* "t=1,e=2,r=0.5": each of t, e, r at most once; the ones not named weigh 0. */
static int weights(const char *s, ergo__objective *o) {
  int seen[3] = {0, 0, 0};
  double w[3] = {0, 0, 0};
  for (;;) {
    const char *k = *s ? strchr("ter", *s) : NULL;
    if (!k || s[1] != '=') return -1;
    int i = (int)(k - "ter");
    if (seen[i]++) return -1;
    s += 2;
    if (number(&s, &w[i])) return -1;
    if (!*s) break;
    if (*s++ != ',') return -1;
  }
  /* All zero would make every point equal: nothing to tune for. */
  if (w[0] == 0 && w[1] == 0 && w[2] == 0) return -1;
  o->w_time = w[0];
  o->w_energy = w[1];
  o->w_resource = w[2];
  return 0;
}

static int parse(const char *s, ergo__objective *o) {
  memset(o, 0, sizeof *o);
  static const struct {
    const char *name;
    ergo__objective_kind kind;
  } plain[] = {{"energy", ERGO__OBJ_ENERGY},
               {"time", ERGO__OBJ_TIME},
               {"edp", ERGO__OBJ_EDP},
               {"ed2p", ERGO__OBJ_ED2P}};
  for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
    if (!strcmp(s, plain[i].name)) {
      o->kind = plain[i].kind;
      return 0;
    }
  if (!strncmp(s, "weighted", 8)) {
    o->kind = ERGO__OBJ_WEIGHTED;
    if (!s[8]) {
      o->w_time = 1;
      o->w_energy = 1;
      return 0;
    }
    return s[8] == ':' ? weights(s + 9, o) : -1;
  }
  if (!strncmp(s, "energy@", 7)) {
    const char *p = s + 7;
    double pct;
    if (number(&p, &pct) || strcmp(p, "%") || pct > OBJ_MAX_PERCENT) return -1;
    o->kind = ERGO__OBJ_ENERGY_BOUNDED;
    o->slowdown = pct / 100.0;
    return 0;
  }
  return -1;
}

int ergo__objective_parse(const char *s, ergo__objective *o, char *why, size_t whylen) {
  if (!s) s = OBJ_DEFAULT;
  ergo__objective r;
  if (parse(s, &r)) {
    snprintf(why, whylen, "ERGO_OBJECTIVE='%s' is not valid: %s", s, OBJ_EXPECTED);
    return ERGO_EINVAL;
  }
  *o = r;
  return 0;
}

/* The shortest of %.15g and %.17g that reads back as x, so a name parses to the same objective. */
static void shortest(double x, char *buf, size_t len) {
  snprintf(buf, len, "%.15g", x);
  if (strtod(buf, NULL) != x) snprintf(buf, len, "%.17g", x);
}

const char *ergo__objective_name(const ergo__objective *o, char *buf, size_t len) {
  char a[32], b[32], c[32];
  switch (o->kind) {
  case ERGO__OBJ_ENERGY: snprintf(buf, len, "energy"); break;
  case ERGO__OBJ_TIME: snprintf(buf, len, "time"); break;
  case ERGO__OBJ_EDP: snprintf(buf, len, "edp"); break;
  case ERGO__OBJ_ED2P: snprintf(buf, len, "ed2p"); break;
  case ERGO__OBJ_WEIGHTED:
    shortest(o->w_time, a, sizeof a);
    shortest(o->w_energy, b, sizeof b);
    shortest(o->w_resource, c, sizeof c);
    snprintf(buf, len, "weighted:t=%s,e=%s,r=%s", a, b, c);
    break;
  case ERGO__OBJ_ENERGY_BOUNDED:
    shortest(o->slowdown * 100.0, a, sizeof a);
    snprintf(buf, len, "energy@%s%%", a);
    break;
  default: snprintf(buf, len, "?"); break;
  }
  return buf;
}

int ergo__objective_feasible(const ergo__objective *o, const ergo__measure *m,
                             const ergo__measure *b) {
  if (o->kind != ERGO__OBJ_ENERGY_BOUNDED) return 1;
  /* Without a baseline time there is no bound to break. */
  if (!b || !(b->time_s > 0)) return 1;
  return m->time_s <= (1.0 + o->slowdown) * b->time_s * (1.0 + OBJ_TIME_RTOL);
}

/* One weighted term, normalised to the baseline; a weight of 0 or a baseline
 * of 0 drops the term (there is nothing to normalise by); no baseline at all
 * leaves it unnormalised. */
static double term(double w, double x, const double *x0) {
  if (w == 0) return 0.0;
  if (!x0) return w * x;
  return *x0 > 0 ? w * x / *x0 : 0.0;
}

double ergo__objective_value(const ergo__objective *o, const ergo__measure *m,
                             const ergo__measure *b) {
  double e = m->energy_j, t = m->time_s;
  switch (o->kind) {
  case ERGO__OBJ_ENERGY: return e;
  case ERGO__OBJ_TIME: return t;
  case ERGO__OBJ_EDP: return e * t;
  case ERGO__OBJ_ED2P: return e * t * t;
  case ERGO__OBJ_WEIGHTED:
    return term(o->w_time, t, b ? &b->time_s : NULL) +
           term(o->w_energy, e, b ? &b->energy_j : NULL) +
           term(o->w_resource, m->resource, b ? &b->resource : NULL);
  case ERGO__OBJ_ENERGY_BOUNDED:
    if (ergo__objective_feasible(o, m, b)) return e;
    /* Infeasible: the baseline's energy times (1 + T/T0) > 2 * E0, so worse
     * than the baseline (whose value is E0), and the slower the worse, so a
     * search is pulled back toward the bound.  A baseline without energy (no
     * meter) counts as 1 J, to keep that order. */
    return (b->energy_j > 0 ? b->energy_j : 1.0) * (1.0 + t / b->time_s);
  }
  return e;
}

double ergo__objective_log_ratio(const ergo__objective *o, const ergo__measure *m,
                                 const ergo__measure *b) {
  double vm = ergo__objective_value(o, m, b), vb = ergo__objective_value(o, b, b);
  return vm > 0 && vb > 0 ? log(vm / vb) : NAN;
}

double ergo__objective_log_sigma(const ergo__objective *o, double sd_time, double sd_energy) {
  double st = sd_time, se = sd_energy;
  switch (o->kind) {
  case ERGO__OBJ_TIME: return st;
  case ERGO__OBJ_ENERGY:
  case ERGO__OBJ_ENERGY_BOUNDED: return se;
  case ERGO__OBJ_EDP: return sqrt(3 * st * st + se * se);
  case ERGO__OBJ_ED2P: return sqrt(8 * st * st + se * se);
  default: {
    /* Near the baseline log(a T/T0 + b E/E0 + c R/R0) moves as (a lt + b le) / (a + b + c) (the
     * resource does not vary between executions), cov(lt, le) = var t. */
    double a = o->w_time, b = o->w_energy, w = a + b + o->w_resource;
    if (!(w > 0)) return fmax(st, se);
    return sqrt((a * a + 2 * a * b) * st * st + b * b * se * se) / w;
  }
  }
}
