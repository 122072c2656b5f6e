/* model.c - the sim node's physics (../shared/SIM.md): time, power and energy of one piece of work.
 *
 * The equations, for work (C gigacycles, M gigabytes, serial fraction s) run
 * at core frequency f GHz, uncore frequency u GHz on n threads:
 *
 *   S(n)   = 1 / (s + (1 - s) / n)                                 Amdahl speed-up
 *   t_c    = C / (f * S(n))                                        compute time, s
 *   B(n,u) = min(n * bw_per_core,                                  bandwidth, GB/s: the
 *                bw_max * (bw_floor + (1 - bw_floor) * x)),        cores' demand or the
 *            x = (u - u_min) / (u_max - u_min)                     uncore's supply
 *   t_m    = M / B(n,u)                                            memory time, s
 *   t      = max(t_c, t_m) + overlap * min(t_c, t_m)               partial overlap
 *   V(f)   = v0 + v_slope * (f - f_min)                            core voltage, V
 *   a      = core_act_min + (1 - core_act_min) * t_c / t           activity of a busy core
 *   P_core = n * (core_idle_w + core_dyn_w * f * V^2 * a) + (cores - n) * core_idle_w
 *   P_unc  = uncore_min_w + uncore_dyn_w * (u / u_max)^2
 *   P_pkg  = static_w + P_core + P_unc
 *   P_dram = dram_min_w + dram_w_per_gbs * M / t
 *   E_pkg  = P_pkg * t,  E_core = P_core * t,  E_dram = P_dram * t
 *
 * Power is constant over one execution, so each energy is exactly the integral
 * of its power.  Time and energy are homogeneous of degree 1 in (C, M): half the
 * work at one config takes exactly half the time and energy; but a compute-only
 * piece followed by a memory-only piece takes longer than the mixed piece, by
 * (1 - overlap) * min(t_c, t_m), because nothing overlaps.
 *
 * Changes from SIM.md, each for a reason:
 *  - A configuration outside the grid's range is clamped to it (threads to
 *    1..cores, f to f_min..f_max, u to u_min..u_max), as the hardware clamps a
 *    request to its limits; SIM.md's formulas would otherwise give negative idle
 *    power for n > cores and bandwidth above bw_max for u > u_max.
 *  - Work is the caller's to validate; here C or M that is negative or NaN
 *    counts as 0 and s is clamped to 0..1, only so the arithmetic stays finite.
 *  - Zero work (C = M = 0) takes time 0 and energy 0; its powers are those of a
 *    stalled package (a = core_act_min, no DRAM traffic), since t_c / t and M / t
 *    are 0 / 0 there.
 *  - u_max == u_min means a one-point uncore grid: full bandwidth (x = 1).
 *  - Under MPI the ranks of a node share it (sim/node.c: ergo__sim_slice): each rank runs these
 *    equations on its slice - cores its share of the node's, static_w, uncore_*_w, dram_min_w
 *    and bw_max divided by the node's rank count - so that ranks that spent the same time add
 *    up to one node exactly; before, every rank simulated a whole node and the node's reader
 *    reported rank 0's alone (4 ranks doing 4.75x the work reported rank 0's energy).
 *  - A wait (ergo__sim_wait: a rank in MPI) has no busy core: P_core = cores * core_idle_w,
 *    P_dram = dram_min_w, P_unc at the uncore frequency in force; its time passes.
 * The defaults are SIM.md's; see ergo__sim_params_default for where each comes from. */
#include "sim/model.h"

#include "ergo.h"
#include "util/limit.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ergo__sim_params_default(ergo__sim_params *p) {
  memset(p, 0, sizeof *p);
  /* The package of the SPACE-Timers paper's node: Xeon Gold 6138, 20 cores. */
  p->cores = 20;
  /* Core: 1.0 GHz (its lowest P-state) to 2.0 GHz (base, turbo left out so the
   * model stays deterministic) in the 100 MHz steps cpufreq offers. */
  p->f_min = 1.0;
  p->f_max = 2.0;
  p->f_step = 0.1;
  /* Uncore: 1.2-2.4 GHz, the Skylake-SP uncore range, in its 100 MHz steps. */
  p->u_min = 1.2;
  p->u_max = 2.4;
  p->u_step = 0.1;
  /* Six DDR4 channels sustain about 100 GB/s (STREAM-class) at the top uncore
   * frequency and half of that at the bottom (bw_floor 0.5, SIM.md's choice);
   * 6 GB/s per core puts the knee at 17 of 20 cores, so that memory-bound
   * regions have a best thread count below the maximum, as on real sockets
   * that saturate before all cores are busy. */
  p->bw_per_core = 6.0;
  p->bw_max = 100.0;
  p->bw_floor = 0.5;
  /* 30 % of the shorter of compute and memory time is not hidden (SIM.md). */
  p->overlap = 0.3;
  /* A Skylake-class V/f line: 0.70 V at 1.0 GHz rising to 0.95 V at 2.0 GHz. */
  p->v0 = 0.70;
  p->v_slope = 0.25;
  /* Calibrated (SIM.md) so that a busy core at 2.0 GHz draws 0.5 W idle plus
   * 2.216 * 2.0 * 0.95^2 = 4.0 W dynamic: 20 busy cores + uncore + static give
   * about 132 W, the 6138's 125 W TDP class.  A core stalled on memory still
   * switches 40 % of its busy activity. */
  p->core_idle_w = 0.5;
  p->core_dyn_w = 2.216;
  p->core_act_min = 0.4;
  /* Uncore 4 W at rest to 12 W at 2.4 GHz; 30 W static package power (SIM.md). */
  p->uncore_min_w = 4.0;
  p->uncore_dyn_w = 8.0;
  p->static_w = 30.0;
  /* DRAM: 3 W background plus 0.25 W per GB/s, about 28 W at 100 GB/s (SIM.md). */
  p->dram_min_w = 3.0;
  p->dram_w_per_gbs = 0.25;
  /* Noise-free by default; the node adds noise when asked (SIM.md: 0.05 is harsh). */
  p->noise_sigma = 0.0;
  p->seed = 1;
  /* The sim node counts work, as a real node's instructions retired could; 0 stands for a node
   * whose tuning must do without one (ergo's real nodes today). */
  p->work_counter = 1;
}

/* ---- parameters: one table drives loading, checking and the messages ----- */

enum { F_INT, F_DBL, F_U64 };

typedef struct field {
  const char *name;
  size_t off;
  int type;
  double lo, hi; /* accepted range; hi = INFINITY: unbounded */
  int lo_open;   /* 1: lo itself is not accepted */
} field;

#define D(name, lo, hi, open)                                                                      \
  { #name, offsetof(ergo__sim_params, name), F_DBL, lo, hi, open }
/* Frequencies and bandwidths must be > 0: a zero would divide by zero (t_c,
 * t_m).  Fractions stay within 0..1; every other figure is a finite
 * non-negative amount of watts or volts. */
static const field fields[] = {
    {"cores", offsetof(ergo__sim_params, cores), F_INT, 1, 256, 0},
    D(f_min, 0, INFINITY, 1),
    D(f_max, 0, INFINITY, 1),
    D(f_step, 0, INFINITY, 1),
    D(u_min, 0, INFINITY, 1),
    D(u_max, 0, INFINITY, 1),
    D(u_step, 0, INFINITY, 1),
    D(bw_per_core, 0, INFINITY, 1),
    D(bw_max, 0, INFINITY, 1),
    D(bw_floor, 0, 1, 1),
    D(overlap, 0, 1, 0),
    D(v0, 0, INFINITY, 0),
    D(v_slope, 0, INFINITY, 0),
    D(core_idle_w, 0, INFINITY, 0),
    D(core_dyn_w, 0, INFINITY, 0),
    D(core_act_min, 0, 1, 0),
    D(uncore_min_w, 0, INFINITY, 0),
    D(uncore_dyn_w, 0, INFINITY, 0),
    D(static_w, 0, INFINITY, 0),
    D(dram_min_w, 0, INFINITY, 0),
    D(dram_w_per_gbs, 0, INFINITY, 0),
    D(noise_sigma, 0, 1, 0),
    {"seed", offsetof(ergo__sim_params, seed), F_U64, 0, INFINITY, 0},
    {"work_counter", offsetof(ergo__sim_params, work_counter), F_INT, 0, 1, 0},
};
#undef D
#define NFIELDS (sizeof fields / sizeof *fields)

/* The most points a knob grid may have: enough for any real frequency table,
 * small enough that the oracle's exhaustive search stays fast. */
#define GRID_MAX 256
/* How far (max - min) / step may sit from a whole number of steps. */
#define GRID_EPS 1e-9

/* "an integer from 1 to 256", "a number > 0", "a number from 0 to 1", ... */
static void accepted(const field *f, char *buf, size_t len) {
  const char *what = f->type == F_DBL ? "a number" : "an integer";
  if (isinf(f->hi))
    snprintf(buf, len, "%s %s %g", what, f->lo_open ? ">" : ">=", f->lo);
  else if (f->lo_open)
    snprintf(buf, len, "%s > %g and <= %g", what, f->lo, f->hi);
  else
    snprintf(buf, len, "%s from %g to %g", what, f->lo, f->hi);
}

static int in_range(const field *f, double x) {
  if (!isfinite(x) || x > f->hi) return 0;
  return f->lo_open ? x > f->lo : x >= f->lo;
}

/* One grid (f or u): max >= min, at most GRID_MAX points, a whole number of steps. */
static int check_grid(const char *prefix, char k, double lo, double hi, double step, char *why,
                      size_t whylen) {
  if (!(hi >= lo)) {
    snprintf(why, whylen, "%s: %c_max = %g is below %c_min = %g; accepted: %c_max >= %c_min",
             prefix, k, hi, k, lo, k, k);
    return ERGO_EINVAL;
  }
  double steps = (hi - lo) / step;
  if (!(steps < GRID_MAX - 1 + 0.5)) {
    snprintf(why, whylen, "%s: the %c grid %g..%g by %g has %.0f points; accepted: at most %d",
             prefix, k, lo, hi, step, floor(steps + 0.5) + 1, GRID_MAX);
    return ERGO_EINVAL;
  }
  if (fabs(steps - round(steps)) > GRID_EPS) {
    snprintf(why, whylen,
             "%s: %c_step = %g does not divide %c_max - %c_min = %g into whole steps (%.6g); "
             "accepted: a step that gives a whole number of steps",
             prefix, k, step, k, k, hi - lo, steps);
    return ERGO_EINVAL;
  }
  return 0;
}

static int check(const ergo__sim_params *p, const char *prefix, char *why, size_t whylen) {
  for (size_t i = 0; i < NFIELDS; i++) {
    const field *f = &fields[i];
    const char *at = (const char *)p + f->off;
    double x;
    char shown[64];
    if (f->type == F_U64) continue; /* every seed is valid */
    if (f->type == F_INT) {
      int v;
      memcpy(&v, at, sizeof v);
      x = v;
      snprintf(shown, sizeof shown, "%d", v);
    } else {
      memcpy(&x, at, sizeof x);
      snprintf(shown, sizeof shown, "%g", x);
    }
    if (!in_range(f, x)) {
      char acc[64];
      accepted(f, acc, sizeof acc);
      snprintf(why, whylen, "%s: %s = %s is not valid: expected %s", prefix, f->name, shown, acc);
      return ERGO_EINVAL;
    }
  }
  int rc = check_grid(prefix, 'f', p->f_min, p->f_max, p->f_step, why, whylen);
  if (!rc) rc = check_grid(prefix, 'u', p->u_min, p->u_max, p->u_step, why, whylen);
  return rc;
}

int ergo__sim_params_check(const ergo__sim_params *p, char *why, size_t whylen) {
  if (!p) {
    snprintf(why, whylen, "sim node parameters: NULL");
    return ERGO_EINVAL;
  }
  return check(p, "sim node parameters", why, whylen);
}

/* A JSON value as the user wrote it, short enough for a one-line message. */
static void show_json(const json_t *v, char *buf, size_t len) {
  char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
  if (!s) {
    snprintf(buf, len, "?");
    return;
  }
  if (strlen(s) > 40)
    snprintf(buf, len, "%.37s...", s);
  else
    snprintf(buf, len, "%s", s);
  free(s);
}

/* Set one field from its JSON value, checking type and range. */
static int set_field(ergo__sim_params *p, const field *f, const json_t *v, const char *prefix,
                     char *why, size_t whylen) {
  char *at = (char *)p + f->off;
  int ok;
  if (f->type == F_DBL) {
    double x = json_number_value(v);
    ok = json_is_number(v) && in_range(f, x);
    if (ok) memcpy(at, &x, sizeof x);
  } else {
    json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;
    ok = json_is_integer(v) && x >= f->lo && (double)x <= f->hi;
    if (ok && f->type == F_INT) {
      int i = (int)x;
      memcpy(at, &i, sizeof i);
    } else if (ok) {
      unsigned long long u = (unsigned long long)x;
      memcpy(at, &u, sizeof u);
    }
  }
  if (ok) return 0;
  char shown[48], acc[64];
  show_json(v, shown, sizeof shown);
  accepted(f, acc, sizeof acc);
  snprintf(why, whylen, "%s: %s = %s is not valid: expected %s", prefix, f->name, shown, acc);
  return ERGO_EINVAL;
}

static void list_keys(char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < NFIELDS && used < len; i++) {
    int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", fields[i].name);
    if (n < 0) break;
    used += (size_t)n;
  }
}

int ergo__sim_params_load(ergo__sim_params *p, const char *path, char *why, size_t whylen) {
  if (!p) {
    snprintf(why, whylen, "sim node file: no parameters to load into (NULL)");
    return ERGO_EINVAL;
  }
  if (!path || !*path) {
    snprintf(why, whylen, "sim node file: %s path; expected a JSON file of parameters",
             path ? "empty" : "NULL");
    return ERGO_EINVAL;
  }
  char prefix[320];
  snprintf(prefix, sizeof prefix, "sim node file '%.300s'", path);
  char size[128];
  if (ergo__input_size_check(path, size, sizeof size)) {
    snprintf(why, whylen, "%s is %s (fix: point ERGO_SIM_NODE at a node description)", prefix,
             size);
    return ERGO_EFORMAT;
  }
  FILE *fp = fopen(path, "r");
  if (!fp) {
    snprintf(why, whylen, "%s: cannot open it: %s", prefix, strerror(errno));
    return ERGO_EIO;
  }
  json_error_t err;
  /* Duplicate keys would let one value silently win over another: reject them. */
  json_t *doc = json_loadf(fp, JSON_REJECT_DUPLICATES, &err);
  fclose(fp);
  if (!doc) {
    snprintf(why, whylen, "%s: line %d column %d: %s", prefix, err.line, err.column, err.text);
    return ERGO_EFORMAT;
  }
  int rc = 0;
  ergo__sim_params q = *p; /* *p changes only when the whole file is good */
  if (!json_is_object(doc)) {
    snprintf(why, whylen, "%s: expected a JSON object of parameters, such as {\"cores\": 20}",
             prefix);
    rc = ERGO_EFORMAT;
  }
  const char *key;
  json_t *v;
  json_object_foreach(doc, key, v) {
    if (rc) break;
    const field *f = NULL;
    for (size_t i = 0; i < NFIELDS && !f; i++)
      if (!strcmp(key, fields[i].name)) f = &fields[i];
    if (!f) {
      char keys[512];
      list_keys(keys, sizeof keys);
      snprintf(why, whylen, "%s: unknown key '%.64s'; accepted keys: %s", prefix, key, keys);
      rc = ERGO_EINVAL;
    } else {
      rc = set_field(&q, f, v, prefix, why, whylen);
    }
  }
  json_decref(doc);
  if (!rc) rc = check(&q, prefix, why, whylen);
  if (!rc) *p = q;
  return rc;
}

/* ---- grid ---------------------------------------------------------------- */

static int grid_n(double lo, double hi, double step) {
  double steps = (hi - lo) / step;
  if (!(steps >= 0) || !(step > 0)) return 1;
  if (steps > GRID_MAX - 1) return GRID_MAX; /* unchecked parameters: keep lround defined */
  return (int)lround(steps) + 1;
}

/* Points are rounded to 1e-9 GHz (1 Hz) so that 1.0 + 1 * 0.1 is the double
 * nearest to 1.1, and converts to exactly 1100000 kHz. */
static double grid_at(double lo, double hi, double step, int i) {
  int n = grid_n(lo, hi, step);
  if (i < 0) i = 0;
  if (i > n - 1) i = n - 1;
  return round((lo + i * step) * 1e9) / 1e9;
}

int ergo__sim_nf(const ergo__sim_params *p) { return grid_n(p->f_min, p->f_max, p->f_step); }
int ergo__sim_nu(const ergo__sim_params *p) { return grid_n(p->u_min, p->u_max, p->u_step); }
double ergo__sim_f(const ergo__sim_params *p, int i) {
  return grid_at(p->f_min, p->f_max, p->f_step, i);
}
double ergo__sim_u(const ergo__sim_params *p, int i) {
  return grid_at(p->u_min, p->u_max, p->u_step, i);
}

/* ---- the model ----------------------------------------------------------- */

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

void ergo__sim_eval(const ergo__sim_params *p, const ergo__sim_work *w, const ergo__sim_config *c,
                    ergo__sim_result *r) {
  memset(r, 0, sizeof *r);
  /* "x > 0 ? x : 0" also maps NaN to 0. */
  double C = w->gcycles > 0 ? w->gcycles : 0.0;
  double M = w->gbytes > 0 ? w->gbytes : 0.0;
  double s = w->serial > 0 ? (w->serial < 1 ? w->serial : 1.0) : 0.0;
  int cores = p->cores > 0 ? p->cores : 1;
  int n = c->threads < 1 ? 1 : c->threads > cores ? cores : c->threads;
  double f = clamp(c->f_ghz, p->f_min, p->f_max);
  double u = clamp(c->u_ghz, p->u_min, p->u_max);

  /* Time.  s + (1 - s) / n >= 1 / n > 0, so S is finite. */
  double S = 1.0 / (s + (1.0 - s) / n);
  double tc = C > 0 ? (f > 0 ? C / (f * S) : INFINITY) : 0.0;
  double span = p->u_max - p->u_min;
  double x = span > 0 ? (u - p->u_min) / span : 1.0;
  double bw = fmin(n * p->bw_per_core, p->bw_max * (p->bw_floor + (1.0 - p->bw_floor) * x));
  double tm = M > 0 ? (bw > 0 ? M / bw : INFINITY) : 0.0;
  double t = fmax(tc, tm) + p->overlap * fmin(tc, tm);

  /* Power. */
  double v = p->v0 + p->v_slope * (f - p->f_min);
  double busy = t > 0 ? tc / t : 0.0;
  double act = p->core_act_min + (1.0 - p->core_act_min) * busy;
  double p_core =
      n * (p->core_idle_w + p->core_dyn_w * f * v * v * act) + (cores - n) * p->core_idle_w;
  double ur = u / p->u_max;
  double p_unc = p->uncore_min_w + p->uncore_dyn_w * ur * ur;
  double p_pkg = p->static_w + p_core + p_unc;
  double p_dram = p->dram_min_w + p->dram_w_per_gbs * (t > 0 ? M / t : 0.0);

  r->time_s = t;
  r->tc_s = tc;
  r->tm_s = tm;
  r->p_core_w = p_core;
  r->p_uncore_w = p_unc;
  r->p_pkg_w = p_pkg;
  r->p_dram_w = p_dram;
  /* Constant power over the execution: energy = power * time, exactly. */
  r->e_pkg_j = p_pkg * t;
  r->e_core_j = p_core * t;
  r->e_dram_j = p_dram * t;
}
