/* config.c - the configuration driven by its spec (config_spec.c): defaults, the ERGO_*
 * environment, the check of a caller's ergo_config, and unknown ERGO_* variables. */
#include "runtime/config.h"

#include "util/log.h"
#include "util/path.h"

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The values cfg->size may have: this header's sizeof(ergo_config), and every earlier layout's.
 * Fields are only ever added at the end of ergo_config; when adding some, append
 * offsetof(ergo_config, <first new field>) here, so programs built before keep working (the
 * fields they do not know take their defaults). */
static const size_t known_sizes[] = {sizeof(ergo_config), offsetof(ergo_config, threads_max)};

static int size_known(size_t size) {
  for (size_t i = 0; i < sizeof known_sizes / sizeof *known_sizes; i++)
    if (size == known_sizes[i]) return 1;
  return 0;
}

/* The row's field is part of a struct of this size. */
static int has_field(const ergo__config_row *r, size_t size) {
  return r->name && r->offset + r->size <= size;
}

static void *field_of(const ergo__config_row *r, ergo_config *cfg) {
  return (char *)cfg + r->offset;
}

static const void *cfield_of(const ergo__config_row *r, const ergo_config *cfg) {
  return (const char *)cfg + r->offset;
}

void ergo_config_default_size(ergo_config *cfg, size_t size) {
  ergo_config d;
  memset(&d, 0, sizeof d);
  for (int i = 0; i < ergo__config_nspec; i++) {
    const ergo__config_row *r = &ergo__config_spec[i];
    char why[1024];
    /* The defaults are the parsers' own words (tests check every one parses). */
    if (r->name && r->def) r->parse(r, r->def, field_of(r, &d), why, sizeof why);
  }
  d.size = size;
  if (size > sizeof d) memset(cfg, 0, size); /* a newer header's fields: ergo_init refuses it */
  memcpy(cfg, &d, size < sizeof d ? size : sizeof d);
}

/* The exported function behind the macro of the same name (ergo.h), for bindings. */
void(ergo_config_default)(ergo_config *cfg) { ergo_config_default_size(cfg, sizeof *cfg); }

/* "ergo_config.size=N is not valid: ..." into out. */
static void size_line(size_t size, char *out, size_t outlen) {
  char sizes[128] = "";
  for (size_t i = 0, o = 0; i < sizeof known_sizes / sizeof *known_sizes && o < sizeof sizes; i++) {
    int n = snprintf(sizes + o, sizeof sizes - o, "%s%zu", i ? " or " : "", known_sizes[i]);
    if (n < 0) break;
    o += (size_t)n;
  }
  snprintf(out, outlen,
           "ergo_config.size=%zu is not valid: expected %s (sizeof(ergo_config) in "
           "ergo.h " ERGO_VERSION_STRING "); %s",
           size, sizes,
           size == 0 ? "start from ergo_config_default(&cfg), which sets it"
                     : "the caller was built with another ergo.h (rebuild it), or its ergo_config "
                       "did not start from ergo_config_default(&cfg)");
}

/* ---- unknown variables ---- */

/* Optimal string alignment distance (edits and adjacent swaps), case ignored. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb) {
  enum { MAXLEN = 64 };
  if (la >= MAXLEN || lb >= MAXLEN) return (size_t)-1;
  size_t d[MAXLEN][MAXLEN];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      int ca = toupper((unsigned char)a[i - 1]), cb = toupper((unsigned char)b[j - 1]);
      size_t best = d[i - 1][j - 1] + (ca != cb);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && ca == toupper((unsigned char)b[j - 2]) &&
          toupper((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[la][lb];
}

const char *ergo__config_nearest(const char *name, size_t len) {
  static const char prefix[] = "ERGO_";
  const size_t lp = sizeof prefix - 1;
  if (len < lp || strncasecmp(name, prefix, lp) != 0) return NULL;
  /* Close enough to be a slip: 2 edits, or a third of the name after ERGO_ when longer. */
  size_t limit = (len - lp + 2) / 3 > 2 ? (len - lp + 2) / 3 : 2;
  const char *best = NULL;
  size_t best_d = limit + 1;
  for (int i = 0; i < ergo__config_nspec; i++) {
    const char *var = ergo__config_spec[i].var;
    size_t d = distance(name + lp, len - lp, var + lp, strlen(var) - lp);
    if (d < best_d) {
      best_d = d;
      best = var;
    }
  }
  return best;
}

int ergo__config_unknown_vars(char *const *env) {
  int warned = 0;
  for (char *const *e = env; e && *e; e++) {
    const char *s = *e;
    if (strncmp(s, "ERGO_", 5) != 0 || strncmp(s, "ERGO__", 6) == 0) continue; /* internal */
    size_t len = strcspn(s, "=");
    int known = 0;
    for (int i = 0; i < ergo__config_nspec && !known; i++)
      known =
          strlen(ergo__config_spec[i].var) == len && strncmp(ergo__config_spec[i].var, s, len) == 0;
    if (known) continue;
    const char *near = ergo__config_nearest(s, len);
    if (near)
      ergo__warn("%.*s: unknown variable; did you mean %s?", (int)len, s, near);
    else
      ergo__warn("%.*s: unknown variable; ergo ignores it (README lists the ERGO_* variables)",
                 (int)len, s);
    warned++;
  }
  return warned;
}

/* ---- the environment ---- */

int ergo_config_from_env(ergo_config *cfg) {
  if (!size_known(cfg->size)) {
    char line[512];
    size_line(cfg->size, line, sizeof line);
    ergo__warn("ergo_config_from_env: %s", line);
    return ERGO_EINVAL;
  }
  static int env_checked;
  if (!__atomic_exchange_n(&env_checked, 1, __ATOMIC_RELAXED)) ergo__config_unknown_vars(environ);
  /* Every variable is read even after a bad one; the first error is returned. */
  int rc = 0;
  for (int i = 0; i < ergo__config_nspec; i++) {
    const ergo__config_row *r = &ergo__config_spec[i];
    const char *v;
    if (!has_field(r, cfg->size) || !(v = getenv(r->var))) continue;
    void *field = field_of(r, cfg);
    char why[1024] = "";
    if (r->parse == ergo__config_parse_path && !*v) {
      ergo__warn("%s is set but empty: expected a file path (unset it to use the default)", r->var);
    } else if (r->parse(r, v, field, why, sizeof why)) {
      char keep[256];
      r->show(r, field, 0, keep, sizeof keep);
      ergo__warn("%s='%s' is not valid%s; keeping %s", r->var, v, why, keep);
    } else {
      continue;
    }
    if (!rc) rc = ERGO_EINVAL;
  }
  /* A report on the model's file (or two on one) is dropped here, so the model survives. */
  ergo__config_same_files(cfg, 0);
  return rc;
}

/* ---- a caller's ergo_config ---- */

int ergo__config_check(const ergo_config *cfg) {
  if (!size_known(cfg->size)) {
    char line[512];
    size_line(cfg->size, line, sizeof line);
    ergo__warn("%s", line);
    return ERGO_EINVAL;
  }
  int rc = 0;
  for (int i = 0; i < ergo__config_nspec; i++) {
    const ergo__config_row *r = &ergo__config_spec[i];
    if (!has_field(r, cfg->size)) continue;
    char why[1024] = "";
    if (r->check(r, cfield_of(r, cfg), why, sizeof why) == 0) continue;
    char value[256];
    r->show(r, cfield_of(r, cfg), 1, value, sizeof value);
    ergo__warn("ergo_config.%s=%s is not valid%s", r->name, value, why);
    rc = ERGO_EINVAL;
  }
  return rc;
}

/* ---- output files ---- */

/* The fields naming files ergo writes; the model first, so that of two on one file the report is
 * the one dropped and the model survives. */
static const char *const output_fields[] = {"model",          "report",     "report_json",
                                            "report_hatchet", "report_csv", "step_report",
                                            "balance",        "power_csv",  "trace"};
enum { NOUTPUTS = sizeof output_fields / sizeof *output_fields };

static const ergo__config_row *row_named(const char *name) {
  for (int i = 0; i < ergo__config_nspec; i++)
    if (ergo__config_spec[i].name && strcmp(ergo__config_spec[i].name, name) == 0)
      return &ergo__config_spec[i];
  return NULL;
}

/* The file output i goes to under cfg, or NULL: not written (unset, "none", a stream), or the
 * model under a policy that neither reads nor writes one. */
static const char *output_path(int i, const ergo_config *cfg, const ergo__config_row **row) {
  const ergo__config_row *r = *row = row_named(output_fields[i]);
  if (!r || !has_field(r, cfg->size)) return NULL;
  const char *p = *(const char *const *)cfield_of(r, cfg);
  if (i == 0) { /* the model */
    const char *pol = cfg->policy ? cfg->policy : "monitor";
    if (strcmp(pol, "static") && strcmp(pol, "sweep") && strcmp(pol, "online")) return NULL;
    if (!p) p = r->unset;
  }
  if (!p || !*p || !strcmp(p, "none") || !strcmp(p, "stdout") || !strcmp(p, "stderr")) return NULL;
  return p;
}

/* How the user named the row: the variable (also when a program passed on what the environment
 * said, as ergo_config_from_env does), or the ergo_config field. */
static void who(const ergo__config_row *r, int as_c, const char *path, char *out, size_t len) {
  const char *env = getenv(r->var);
  if (as_c && !(env && path && strcmp(env, path) == 0))
    snprintf(out, len, "ergo_config.%s", r->name);
  else
    snprintf(out, len, "%s", r->var);
}

int ergo__config_same_files(ergo_config *cfg, int as_c) {
  int rc = 0;
  const ergo__config_row *rows[NOUTPUTS];
  const char *paths[NOUTPUTS];
  for (int i = 0; i < NOUTPUTS; i++) paths[i] = output_path(i, cfg, &rows[i]);
  /* Two outputs on one file: the later would overwrite the earlier (the model, or a report). */
  for (int j = 1; j < NOUTPUTS; j++)
    for (int i = 0; i < j && paths[j]; i++) {
      if (!paths[i] || !ergo__path_same(paths[i], paths[j])) continue;
      char a[64], b[64];
      who(rows[i], as_c, paths[i], a, sizeof a);
      who(rows[j], as_c, paths[j], b, sizeof b);
      if (as_c) {
        ergo__warn("%s='%s' is the same file as %s='%s': one would overwrite the other; ergo_init "
                   "refuses it (fix: give each its own path)",
                   b, paths[j], a, paths[i]);
        rc = ERGO_EINVAL;
      } else {
        ergo__warn("%s='%s' is the same file as %s='%s'; %s is dropped so that file is not "
                   "overwritten (fix: give each its own path)",
                   b, paths[j], a, paths[i], b);
        *(const char **)field_of(rows[j], cfg) = NULL;
        paths[j] = NULL;
      }
    }
  return rc;
}

const char *ergo__config_model_path(const ergo_config *cfg) {
  if (cfg->model && *cfg->model) return cfg->model;
  const ergo__config_row *r = row_named(output_fields[0]);
  return r ? r->unset : NULL;
}

void ergo__config_writable(const ergo_config *cfg, int as_c, int create) {
  /* Say now, not after hours of computation, that a file cannot be written where asked. */
  for (int i = 0; i < NOUTPUTS; i++) {
    const ergo__config_row *r;
    const char *path = output_path(i, cfg, &r);
    char why[PATH_MAX + 128], name[64];
    if (i == 0 && cfg->policy && strcmp(cfg->policy, "static") == 0) continue; /* static reads it */
    if (!path || ergo__path_writable_as(path, create, why, sizeof why) == 0) continue;
    who(r, as_c, path, name, sizeof name);
    ergo__warn("%s='%s' cannot be written: %s; the run goes on (fix: create the directory or set "
               "%s to a writable path)",
               name, path, why, name);
  }
}
