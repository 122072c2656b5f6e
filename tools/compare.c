/* compare.c - `ergo compare`: energy-to-solution of several runs from their JSON reports (total
 * time, energy per domain, the main regions), with savings against the first run. */
#include "cli.h"
#include "reports.h"
#include "runtime/toolkit.h" /* util/limit.h: the largest report read */

#include <ergo.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The main regions: the children of Global and theirs (and, by default, every tuned region). */
#define MAIN_DEPTH 2
#define MAX_COMPONENTS 16

static void compare_usage(FILE *out) {
  fprintf(
      out,
      "usage: ergo compare [--csv | --json] [--depth N] [--force] REPORT.json [REPORT.json ...]\n\n"
      "Reads ergo JSON reports (ERGO_REPORT_JSON, `ergo run --report-json`) and prints\n"
      "the energy to solution of each run: total time, total energy and energy per\n"
      "domain, then time, energy and the setting applied of its regions, each with its\n"
      "energy saving and time change against the first run.  In a report merged over\n"
      "MPI ranks a time is the slowest rank's (ranks.max_s): the job ends with it.\n\n"
      "  --csv       the same figures as CSV, one line per run and region, with each run's\n"
      "              platform and its label (SIMULATED, ESTIMATE) on every line\n"
      "  --json      the same figures as one JSON document\n"
      "  --depth N   every region down to depth N (1: the children of Global); default:\n"
      "              depth 1 and 2 and every region a run tuned, at any depth\n"
      "  --force     compare runs of different applications (refused without it)\n\n"
      "Runs of different step counts or regions are compared with a warning line each.\n"
      "Exit status: 0, 1 when a report cannot be read (one line says which and why),\n"
      "2 for a usage error or runs of different applications.\n");
}

typedef ergo_cli_run_report run;

/* The run's fact `key` as a string, or NULL (a version 1 report has none). */
static const char *fact(const run *r, const char *key) {
  return json_string_value(json_object_get(r->facts, key));
}

/* The label every figure of the run carries: SIMULATED on the sim node, else the energy's. */
static const char *run_label(const run *r) {
  if (r->platform && strcmp(r->platform, "sim") == 0) return "SIMULATED";
  return r->qlabel;
}

/* A node's energy object, or NULL when the run measured none for it. */
static const json_t *energy_of(const json_t *node) {
  const json_t *e = json_object_get(node, "energy");
  return json_is_object(e) && json_is_number(json_object_get(e, "total")) ? e : NULL;
}

/* One line naming the file and what is wrong with it; -1. */
#define bad(cmd, file, fmt, ...) ergo_cli_say(-1, (cmd), "'%s': " fmt, (file), __VA_ARGS__)

/* Every node of the tree under its path (the first in tree order when a report repeats one). */
static void index_nodes(json_t *index, const json_t *node) {
  const char *p = json_string_value(json_object_get(node, "path"));
  if (p && !json_object_get(index, p)) json_object_set(index, p, (json_t *)node);
  size_t i;
  const json_t *c;
  json_array_foreach(json_object_get(node, "children"), i, c) index_nodes(index, c);
}

void ergo_cli_report_free(ergo_cli_run_report *r) {
  json_decref(r->index);
  json_decref(r->doc);
  r->index = r->doc = NULL;
}

int ergo_cli_report_load(ergo_cli_run_report *r, const char *cmd) {
  char size[128];
  if (ergo__input_size_check(r->file, size, sizeof size))
    return bad(cmd, r->file, "is %s (fix: give the JSON reports ergo wrote)", size);
  /* A directory would read as an empty text ("not valid JSON ... near end of file"). */
  struct stat st;
  if (stat(r->file, &st) == 0 && !S_ISREG(st.st_mode))
    return bad(cmd, r->file, "is not a regular file%s (fix: give the JSON reports ergo wrote)",
               S_ISDIR(st.st_mode) ? " but a directory" : "");
  json_error_t err;
  r->doc = json_load_file(r->file, 0, &err);
  if (!r->doc) {
    if (err.line < 1)
      return bad(cmd, r->file, "cannot be read: %s (fix: give the JSON reports ergo wrote)",
                 err.text);
    return bad(cmd, r->file, "is not valid JSON: %s (line %d, column %d)", err.text, err.line,
               err.column);
  }
  const char *fmt = json_string_value(json_object_get(r->doc, "format"));
  if (!fmt || strcmp(fmt, "ergo-report") != 0)
    return bad(cmd, r->file,
               "is not an ergo JSON report: its format is '%s', expected 'ergo-report' "
               "(write one with ERGO_REPORT_JSON or ergo run --report-json)",
               fmt ? fmt : "(none)");
  const json_t *ver = json_object_get(r->doc, "version");
  if (!json_is_integer(ver) || json_integer_value(ver) < 1 || json_integer_value(ver) > 2)
    return bad(cmd, r->file,
               "%s: this ergo reads versions 1 and 2 (write the report again with it)",
               json_is_integer(ver) ? "is a report of another version" : "has no version");
  r->facts = json_object_get(r->doc, "run");
  if (!json_is_object(r->facts)) r->facts = NULL;
  /* The report's "threads" is its list of thread trees, not the knob. */
  r->root = json_object_get(json_array_get(json_object_get(r->doc, "threads"), 0), "tree");
  if (!json_is_object(r->root) || !json_is_number(json_object_get(r->root, "time_s")))
    return bad(cmd, r->file, "%s",
               "has no main thread tree (threads[0].tree with time_s): truncated?");
  if (!(r->index = json_object())) return bad(cmd, r->file, "%s", "cannot be read: out of memory");
  index_nodes(r->index, r->root);
  r->platform = json_string_value(json_object_get(r->doc, "platform"));
  size_t i;
  const json_t *q;
  json_array_foreach(json_object_get(r->doc, "quantities"), i, q) {
    const char *name = json_string_value(json_object_get(q, "name"));
    if (name && strcmp(name, "energy") == 0) {
      r->qlabel = json_string_value(json_object_get(q, "label"));
      r->in_total = json_object_get(q, "total_of");
    }
  }
  return 0;
}

/* The run's node at `path`, or NULL: a hash lookup, so a table of n regions takes O(n), not the
 * O(n^2) of a walk per region. */
static const json_t *find(const run *r, const char *path) {
  return json_object_get(r->index, path);
}

/* The main regions of every run, in tree order of the first run where each appears. */
typedef struct paths {
  const char **v;
  size_t n, cap;
  json_t *set; /* the same paths as keys: has_path in O(1) */
} paths;

/* The setting applied to a region (a non-empty object), or NULL. */
static const json_t *setting_of(const json_t *node) {
  const json_t *s = json_object_get(node, "setting");
  return json_is_object(s) && json_object_size(s) ? s : NULL;
}

/* max_depth > 0: every region down to it; 0: down to MAIN_DEPTH and every tuned region. */
static void add_paths(paths *ps, const json_t *node, int max_depth) {
  json_int_t depth = json_integer_value(json_object_get(node, "depth"));
  const char *p = json_string_value(json_object_get(node, "path"));
  int shown = max_depth ? depth <= max_depth : depth <= MAIN_DEPTH || setting_of(node);
  if (depth >= 1 && p && shown) {
    if (!ps->set) ps->set = json_object();
    if (ps->set && !json_object_get(ps->set, p)) {
      if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 32;
        const char **v = realloc(ps->v, cap * sizeof *v);
        if (!v) return;
        ps->v = v;
        ps->cap = cap;
      }
      ps->v[ps->n++] = p;
      json_object_set_new(ps->set, p, json_true());
    }
  }
  if (max_depth && depth >= max_depth) return;
  size_t i;
  const json_t *c;
  json_array_foreach(json_object_get(node, "children"), i, c) add_paths(ps, c, max_depth);
}

/* "core_khz=1800000 threads=8" (" varied" when its executions ran under several), or "". */
static const char *setting_text(const json_t *node, char *buf, size_t len) {
  const json_t *s = setting_of(node);
  size_t o = 0;
  buf[0] = '\0';
  const char *k;
  const json_t *v;
  json_object_foreach((json_t *)s, k, v) {
    if (json_is_integer(v) && o < len)
      o += (size_t)snprintf(buf + o, len - o, "%s%s=%lld", o ? " " : "", k,
                            (long long)json_integer_value(v));
  }
  if (json_is_true(json_object_get(s, "varied")) && o < len) snprintf(buf + o, len - o, " varied");
  return buf;
}

/* A region as the tables name it: its path below Global. */
static const char *short_path(const char *path) {
  return strncmp(path, "Global/", 7) == 0 ? path + 7 : path;
}

/* Energy components of the first run that has any, in its order. */
static size_t components(const run *runs, int n, const char **names) {
  size_t k = 0;
  for (int r = 0; r < n && !k; r++) {
    const json_t *e = energy_of(runs[r].root);
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)json_object_get(e, "components"), name, v) {
      if (k < MAX_COMPONENTS) names[k++] = name;
    }
  }
  return k;
}

static int in_total(const run *r, const char *name) {
  size_t i;
  const json_t *v;
  json_array_foreach(r->in_total, i, v) {
    if (json_string_value(v) && strcmp(json_string_value(v), name) == 0) return 1;
  }
  return 0;
}

/* Figures of a node against the reference node (the first run's). */
typedef struct figures {
  int present, has_energy, has_ref_energy, has_ref;
  double time, energy, saving, dtime;
} figures;

/* Time to solution: in a report merged over MPI ranks, the slowest rank's time ("ranks":
 * {"max_s"}), since the job ends when its last rank does; else the region's time. */
static double solution_time(const json_t *node) {
  const json_t *mx = json_object_get(json_object_get(node, "ranks"), "max_s");
  return json_is_number(mx) ? json_number_value(mx)
                            : json_number_value(json_object_get(node, "time_s"));
}

static figures figures_of(const json_t *node, const json_t *ref) {
  figures f = {0};
  if (!node) return f;
  f.present = 1;
  f.time = solution_time(node);
  const json_t *e = energy_of(node), *re = ref ? energy_of(ref) : NULL;
  if (e) {
    f.has_energy = 1;
    f.energy = json_number_value(json_object_get(e, "total"));
  }
  if (ref) {
    double t0 = solution_time(ref);
    f.has_ref = t0 > 0;
    if (f.has_ref) f.dtime = 100.0 * (f.time - t0) / t0;
    double e0 = re ? json_number_value(json_object_get(re, "total")) : 0;
    f.has_ref_energy = e && e0 > 0;
    if (f.has_ref_energy) f.saving = 100.0 * (e0 - f.energy) / e0;
  }
  return f;
}

static double component(const json_t *node, const char *name, int *ok) {
  const json_t *v = json_object_get(json_object_get(energy_of(node), "components"), name);
  *ok = json_is_number(v);
  return *ok ? json_number_value(v) : 0;
}

/* ---- text ---- */

static void num(double v, int ok, const char *fmt, int width) {
  char buf[64];
  if (ok)
    snprintf(buf, sizeof buf, fmt, v);
  else
    snprintf(buf, sizeof buf, "-");
  printf(" %*s", width, buf);
}

static void print_text(const run *runs, int n, const paths *ps) {
  const char *comp[MAX_COMPONENTS];
  size_t nc = components(runs, n, comp);
  int lw = 3;
  for (int r = 0; r < n; r++)
    if ((int)strlen(runs[r].label) > lw) lw = (int)strlen(runs[r].label);
  const char *ql = NULL;
  for (int r = 0; r < n && !ql; r++) ql = runs[r].qlabel;
  printf("Energy to solution%s%s%s of %d run%s (saving: energy saved, time: time change, against "
         "%s)\n",
         ql ? " [" : "", ql ? ql : "", ql ? "]" : "", n, n == 1 ? "" : "s", runs[0].label);
  for (int r = 1; r < n; r++)
    if (runs[r].platform && runs[0].platform && strcmp(runs[r].platform, runs[0].platform)) {
      printf("note: %s ran on platform %s, %s on %s: their energies are not comparable\n",
             runs[r].label, runs[r].platform, runs[0].label, runs[0].platform);
      break;
    }
  printf("\n%-*s %10s %12s %8s %9s", lw, "run", "time s", "energy J", "saving", "time");
  for (size_t c = 0; c < nc; c++) printf(" %*s J", 10, comp[c]);
  printf("\n");
  for (int r = 0; r < n; r++) {
    figures f = figures_of(runs[r].root, r ? runs[0].root : NULL);
    printf("%-*s", lw, runs[r].label);
    num(f.time, 1, "%.3f", 10);
    num(f.energy, f.has_energy, "%.2f", 12);
    if (r == 0) {
      printf(" %8s %9s", "ref", "ref");
    } else {
      num(f.saving, f.has_ref_energy, "%.2f%%", 8);
      num(f.dtime, f.has_ref, "%+.2f%%", 9);
    }
    for (size_t c = 0; c < nc; c++) {
      int ok;
      double v = component(runs[r].root, comp[c], &ok);
      num(v, ok, "%.2f", 12);
    }
    printf("\n");
  }
  /* core-N is part of package-N: shown, but not added into the total. */
  for (size_t c = 0; c < nc; c++)
    if (runs[0].in_total && !in_total(&runs[0], comp[c]))
      printf("(%s is part of its package, not added to the total)\n", comp[c]);

  int pw = 6;
  for (size_t k = 0; k < ps->n; k++)
    if ((int)strlen(short_path(ps->v[k])) > pw) pw = (int)strlen(short_path(ps->v[k]));
  printf("\n%-*s %-*s %10s %12s %8s %9s  %s\n", pw, "region", lw, "run", "time s", "energy J",
         "saving", "time", "setting applied");
  for (size_t k = 0; k < ps->n; k++) {
    const json_t *ref = find(&runs[0], ps->v[k]);
    for (int r = 0; r < n; r++) {
      figures f = figures_of(find(&runs[r], ps->v[k]), r ? ref : NULL);
      printf("%-*s %-*s", pw, r == 0 ? short_path(ps->v[k]) : "", lw, runs[r].label);
      num(f.time, f.present, "%.3f", 10);
      num(f.energy, f.has_energy, "%.2f", 12);
      char set[256];
      setting_text(find(&runs[r], ps->v[k]), set, sizeof set);
      if (r == 0) {
        printf(" %8s %9s%s%s\n", f.present ? "ref" : "-", f.present ? "ref" : "-", *set ? "  " : "",
               set);
        continue;
      }
      num(f.saving, f.has_ref_energy, "%.2f%%", 8);
      num(f.dtime, f.has_ref && f.present, "%+.2f%%", 9);
      printf("%s%s\n", *set ? "  " : "", set);
    }
  }
}

/* ---- CSV ---- */

static void csv_num(double v, int ok) {
  if (ok)
    printf(",%.9g", v);
  else
    printf(",");
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_str(const char *s) {
  if (!strpbrk(s, ",\"\n")) {
    printf("%s", s);
    return;
  }
  putchar('"');
  for (; *s; s++) {
    if (*s == '"') putchar('"');
    putchar(*s);
  }
  putchar('"');
}

static void csv_row(const run *r, const json_t *node, const json_t *ref, const char *region,
                    int depth, const char **comp, size_t nc) {
  figures f = figures_of(node, ref);
  csv_str(r->label);
  putchar(',');
  csv_str(r->file);
  putchar(',');
  csv_str(region);
  printf(",%d", depth);
  csv_num(f.time, f.present);
  csv_num(f.energy, f.has_energy);
  csv_num(ref ? f.saving : 0, ref ? f.has_ref_energy : f.has_energy);
  csv_num(ref ? f.dtime : 0, ref ? f.has_ref && f.present : f.present);
  for (size_t c = 0; c < nc; c++) {
    int ok = 0;
    double v = node ? component(node, comp[c], &ok) : 0;
    csv_num(v, ok);
  }
  char set[256];
  const char *label = run_label(r);
  putchar(',');
  csv_str(r->platform ? r->platform : "");
  printf(",%s,", label ? label : "");
  csv_str(setting_text(node, set, sizeof set));
  printf("\n");
}

static void print_csv(const run *runs, int n, const paths *ps) {
  const char *comp[MAX_COMPONENTS];
  size_t nc = components(runs, n, comp);
  printf("run,file,region,depth,time_s,energy_j,energy_saving_pct,time_change_pct");
  for (size_t c = 0; c < nc; c++) {
    printf(",");
    csv_str(comp[c]);
    printf("_j");
  }
  printf(",platform,label,setting\n");
  for (int r = 0; r < n; r++)
    csv_row(&runs[r], runs[r].root, r ? runs[0].root : NULL, "Global", 0, comp, nc);
  for (size_t k = 0; k < ps->n; k++) {
    const json_t *ref = find(&runs[0], ps->v[k]);
    for (int r = 0; r < n; r++) {
      const json_t *node = find(&runs[r], ps->v[k]);
      int depth = (int)json_integer_value(json_object_get(node ? node : ref, "depth"));
      csv_row(&runs[r], node, r ? ref : NULL, short_path(ps->v[k]), depth, comp, nc);
    }
  }
}

/* ---- JSON ---- */

static json_t *jnum(double v, int ok) { return ok ? json_real(v) : json_null(); }

static json_t *figures_json(const run *r, const json_t *node, const json_t *ref) {
  figures f = figures_of(node, ref);
  json_t *o = json_pack("{s:s, s:s, s:o, s:o}", "run", r->label, "file", r->file, "time_s",
                        jnum(f.time, f.present), "energy_j", jnum(f.energy, f.has_energy));
  if (!o) return NULL;
  json_object_set_new(o, "energy_saving_pct", ref ? jnum(f.saving, f.has_ref_energy) : json_null());
  json_object_set_new(o, "time_change_pct",
                      ref ? jnum(f.dtime, f.has_ref && f.present) : json_null());
  const json_t *set = setting_of(node);
  json_object_set_new(o, "setting", set ? json_deep_copy(set) : json_null());
  return o;
}

/* The "ergo-compare" document of runs over the regions ps (`ergo compare --json`, and the data
 * of `ergo report`'s policy comparison). */
static json_t *compare_doc(const run *runs, int n, const paths *ps, json_t *warnings) {
  json_t *jr = json_array(), *jg = json_array();
  for (int r = 0; r < n && jr; r++) {
    json_t *o = figures_json(&runs[r], runs[r].root, r ? runs[0].root : NULL);
    if (!o) continue;
    const char *label = run_label(&runs[r]);
    json_object_set_new(o, "platform",
                        runs[r].platform ? json_string(runs[r].platform) : json_null());
    json_object_set_new(o, "label", label ? json_string(label) : json_null());
    json_object_set_new(o, "facts", runs[r].facts ? json_deep_copy(runs[r].facts) : json_null());
    const json_t *e = energy_of(runs[r].root);
    json_object_set_new(o, "components",
                        e ? json_deep_copy(json_object_get(e, "components")) : json_null());
    json_array_append_new(jr, o);
  }
  for (size_t k = 0; k < ps->n && jg; k++) {
    const json_t *ref = find(&runs[0], ps->v[k]);
    json_t *per = json_array();
    for (int r = 0; r < n && per; r++)
      json_array_append_new(per, figures_json(&runs[r], find(&runs[r], ps->v[k]), r ? ref : NULL));
    json_int_t depth = 0;
    for (int r = 0; r < n && !depth; r++)
      depth = json_integer_value(json_object_get(find(&runs[r], ps->v[k]), "depth"));
    json_t *o = json_object();
    json_object_set_new(o, "region", json_string(short_path(ps->v[k])));
    json_object_set_new(o, "depth", json_integer(depth));
    json_object_set_new(o, "runs", per);
    json_array_append_new(jg, o);
  }
  return json_pack("{s:s, s:i, s:s, s:o, s:o, s:O}", "format", "ergo-compare", "version", 1,
                   "reference", runs[0].label, "runs", jr, "regions", jg, "warnings", warnings);
}

json_t *ergo_cli_compare_json(const ergo_cli_run_report *runs, int n, int depth) {
  paths ps = {0};
  for (int r = 0; r < n; r++) add_paths(&ps, runs[r].root, depth);
  json_t *warnings = json_array();
  json_t *doc = warnings ? compare_doc(runs, n, &ps, warnings) : NULL;
  json_decref(warnings);
  free(ps.v);
  json_decref(ps.set);
  return doc;
}

static int print_json(const run *runs, int n, const paths *ps, json_t *warnings) {
  json_t *doc = compare_doc(runs, n, ps, warnings);
  char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) : NULL;
  json_decref(doc);
  if (!text) {
    fprintf(stderr, "ergo compare: out of memory while writing the JSON document\n");
    return ERGO_CLI_FAIL;
  }
  printf("%s\n", text);
  free(text);
  return ERGO_CLI_OK;
}

/* ---- what makes runs comparable ---- */

/* One warning line on stderr (and in the JSON document's "warnings"). */
__attribute__((format(printf, 2, 3))) static void warn(json_t *warnings, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "ergo compare: warning: %s\n", line);
  json_array_append_new(warnings, json_string(line));
}

/* Every region path of a run's tree into ps (any depth). */
static void all_paths(paths *ps, const json_t *node) { add_paths(ps, node, 1 << 20); }

static int has_path(const paths *ps, const char *p) { return json_object_get(ps->set, p) != NULL; }

/* Runs of another application are refused (2) unless forced; other step counts and other
 * regions are said (a warning each) and compared. */
static int check_runs(const run *runs, int n, int force, json_t *warnings) {
  const char *app0 = fact(&runs[0], "application");
  for (int r = 1; r < n; r++) {
    const char *app = fact(&runs[r], "application");
    if (!app0 || !app || strcmp(app0, app) == 0) continue;
    if (!force) {
      fprintf(stderr,
              "ergo compare: '%s' is a run of '%s' and '%s' of '%s': their figures are not "
              "comparable (fix: compare runs of one application, or --force)\n",
              runs[r].file, app, runs[0].file, app0);
      return ERGO_CLI_USAGE;
    }
    warn(warnings, "'%s' is a run of '%s' and '%s' of '%s' (compared: --force)", runs[r].file, app,
         runs[0].file, app0);
  }
  const json_t *st0 = json_object_get(runs[0].facts, "steps");
  for (int r = 1; r < n; r++) {
    const json_t *st = json_object_get(runs[r].facts, "steps");
    if (json_is_integer(st0) && json_is_integer(st) &&
        json_integer_value(st0) != json_integer_value(st))
      warn(warnings,
           "'%s' ran %lld steps and '%s' %lld: totals are not comparable, per-step figures are",
           runs[r].file, (long long)json_integer_value(st), runs[0].file,
           (long long)json_integer_value(st0));
  }
  paths p0 = {0};
  all_paths(&p0, runs[0].root);
  for (int r = 1; r < n; r++) {
    paths pr = {0};
    all_paths(&pr, runs[r].root);
    size_t extra = 0, missing = 0;
    const char *first_extra = NULL, *first_missing = NULL;
    for (size_t k = 0; k < pr.n; k++)
      if (!has_path(&p0, pr.v[k]) && !extra++) first_extra = pr.v[k];
    for (size_t k = 0; k < p0.n; k++)
      if (!has_path(&pr, p0.v[k]) && !missing++) first_missing = p0.v[k];
    if (extra || missing)
      warn(warnings,
           "'%s' and '%s' ran different regions: %zu only in the first (%s%s), %zu only in the "
           "second (%s%s); a missing region shows '-'",
           runs[r].file, runs[0].file, extra, first_extra ? short_path(first_extra) : "none",
           extra > 1 ? ", ..." : "", missing, first_missing ? short_path(first_missing) : "none",
           missing > 1 ? ", ..." : "");
    free(pr.v);
    json_decref(pr.set);
  }
  free(p0.v);
  json_decref(p0.set);
  return ERGO_CLI_OK;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int compare_run(int argc, char **argv) {
  int csv = 0, json = 0, force = 0, depth = 0, n = 0;
  run *runs = calloc((size_t)argc, sizeof *runs);
  if (!runs) return ERGO_CLI_FAIL;
  int rc = ERGO_CLI_OK, literal = 0;
  const char *v = NULL; /* --depth's value: given once */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int got = literal ? 0 : ergo_cli_value("ergo compare", argc, argv, &i, "--depth", &v);
    if (got < 0) {
      free(runs);
      return ERGO_CLI_USAGE;
    }
    if (got) {
      char *end;
      long d = strtol(v, &end, 10);
      if (!*v || *end || d < 1 || d > 4096) {
        fprintf(stderr,
                "ergo compare: --depth '%s' is not valid: expected an integer from 1 "
                "(the children of Global) to 4096\n",
                v);
        free(runs);
        return ERGO_CLI_USAGE;
      }
      depth = (int)d;
    } else if (!literal && strcmp(a, "--") == 0) {
      literal = 1;
    } else if (!literal && strcmp(a, "--csv") == 0) {
      csv = 1;
    } else if (!literal && strcmp(a, "--json") == 0) {
      json = 1;
    } else if (!literal && strcmp(a, "--force") == 0) {
      force = 1;
    } else if (!literal && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
      compare_usage(stdout);
      free(runs);
      return ERGO_CLI_OK;
    } else if (!literal && a[0] == '-' && a[1]) {
      fprintf(stderr,
              "ergo compare: unknown option '%s': expected --csv, --json, --depth N, --force, "
              "--help or report files\n",
              a);
      free(runs);
      return ERGO_CLI_USAGE;
    } else {
      runs[n++].file = a;
    }
  }
  if (csv && json) {
    fprintf(stderr, "ergo compare: --csv and --json both given: expected one of them\n");
    free(runs);
    return ERGO_CLI_USAGE;
  }
  if (n == 0) {
    fprintf(stderr, "ergo compare: no report given: expected one or more JSON reports "
                    "(ERGO_REPORT_JSON, ergo run --report-json)\n");
    free(runs);
    return ERGO_CLI_USAGE;
  }
  for (int r = 0; r < n && rc == ERGO_CLI_OK; r++) {
    if (ergo_cli_report_load(&runs[r], "ergo compare")) rc = ERGO_CLI_FAIL;
    runs[r].label = base_name(runs[r].file);
  }
  /* Two reports of one name from different directories: tell them apart by path. */
  for (int r = 0; r < n; r++)
    for (int q = 0; q < n; q++)
      if (q != r && strcmp(base_name(runs[r].file), base_name(runs[q].file)) == 0)
        runs[r].label = runs[r].file;
  json_t *warnings = json_array();
  if (rc == ERGO_CLI_OK) rc = check_runs(runs, n, force, warnings);
  if (rc == ERGO_CLI_OK) {
    paths ps = {0};
    for (int r = 0; r < n; r++) add_paths(&ps, runs[r].root, depth);
    if (csv)
      print_csv(runs, n, &ps);
    else if (json)
      rc = print_json(runs, n, &ps, warnings);
    else
      print_text(runs, n, &ps);
    free(ps.v);
    json_decref(ps.set);
  }
  json_decref(warnings);
  for (int r = 0; r < n; r++) ergo_cli_report_free(&runs[r]);
  free(runs);
  return rc;
}

const ergo_cli_command ergo_cli_compare = {
    .name = "compare",
    .summary = "energy to solution of runs from their JSON reports, with savings",
    .run = compare_run,
};
