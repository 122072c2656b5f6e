/* report.c - `ergo report`: pictures of finished runs.  --html writes one self-contained page
 * (web/report.html with Chart.js, d3, web/report.js and the data inlined: nothing is loaded from
 * the network or the disk when it is opened); --png and --svg render one of its charts with a
 * headless Chromium found at run time.  Run reports are read by compare's reader and the policy
 * comparison is compare's own --json document (tools/reports.h); the model by the library's
 * reader (policies/model.c). */
#include "cli.h"
#include "reports.h"
#include "runtime/toolkit.h" /* the model reader, the input limit, the atomic writer */
#include "web/assets.h"

#include <ergo.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CMD "ergo report"

#ifdef ERGO_CLI_WEB
#define asset_find(name) ergo__web_asset_find(name)
#else /* built without Chart.js (web/CMakeLists.txt): the page says what to install */
#define asset_find(name) ((const ergo__web_asset *)NULL)
#endif
#define MAX_POWER_ROWS 20000 /* a longer timeline is thinned to this many rows */
#define CHROMIUM_TIMEOUT_S 120
/* A picture's size in pixels: Chromium's window, and the height the page fills (headless
 * Chromium's innerHeight is less than the screenshot's). */
#define PICTURE_W 1000
#define PICTURE_H 640

static void report_usage(FILE *out) {
  fprintf(out,
          "usage: ergo report --html OUT.html RUN.json [MODEL.json] [POWER.csv] [BALANCE.txt]\n"
          "                   [ORACLE.json] [more RUN.json ...]\n"
          "       ergo report --png OUT.png | --svg OUT.svg [--chart CHART] FILES...\n\n"
          "Pictures of finished runs.  --html writes one self-contained HTML page (its charting\n"
          "libraries and data inlined; it loads nothing from the network or the disk):\n"
          "  - the region tree of the first run as icicles, sized by time and by energy\n"
          "  - per region of MODEL.json (ERGO_MODEL, written by policy sweep or online) the\n"
          "    Pareto plot of every configuration it measured, time against energy, with the\n"
          "    chosen one and the baseline marked, and the oracle where ORACLE.json gives it\n"
          "    (the sim node's exhaustive best: ergo-example-miniapp --oracle --json)\n"
          "  - with two runs or more, the energy to solution of each (bars) and its saving\n"
          "    against the run of policy monitor (else the first run): `ergo compare`'s figures\n"
          "  - the power timeline of POWER.csv (ERGO_POWER_CSV, the sampler's file)\n"
          "  - the balance lines of BALANCE.txt (ERGO_BALANCE) over the steps as a heat map\n"
          "Every figure of a run on the sim node is labelled SIMULATED on the page.  The files\n"
          "are told apart by their content; the first run given is the tree's.\n\n"
          "--png and --svg write one chart as a picture, rendered by a headless Chromium\n"
          "(chromium, chromium-browser or google-chrome on PATH, or --chromium PATH):\n"
          "  --chart CHART   tree (default; the icicle by time, tree:energy by energy),\n"
          "                  pareto:REGION (its path in the model, e.g.\n"
          "                  pareto:Global/Timestep/FIND_HSML/Primary; pareto alone: the\n"
          "                  model's first region), compare, power or balance\n"
          "  --svg           the d3 charts only (tree, balance); the others are Chart.js\n"
          "                  canvases: take --png for them\n"
          "  --chromium PATH the browser to render with\n\n"
          "Runs of different applications (their reports' run.application) are refused, as\n"
          "`ergo compare` refuses them; --force draws them together, with a warning.\n\n"
          "Exit status: 0, 1 when an input cannot be read or the output not written (one line\n"
          "says which and why), 2 for a usage error or runs of different applications.\n");
}

/* One line on stderr naming the command; the exit code of a failure. */
#define fail(...) ergo_cli_say(ERGO_CLI_FAIL, CMD, __VA_ARGS__)

/* ---- the inputs ---- */

typedef struct inputs {
  ergo_cli_run_report *runs;
  int nruns;
  json_t *model; /* the model file's document (checked by the library's reader), or NULL */
  const char *model_file;
  json_t *power;   /* {"file","columns","rows","label"} */
  json_t *balance; /* {"file","symbols":{sym:path},"steps":[[step,sec,"line"],...]} */
  json_t *oracle;  /* the sim node's exhaustive best per region (the mini-app's --oracle --json) */
} inputs;

/* The file's first bytes (NUL-terminated) into buf; 0, or -1 (said). */
static int peek(const char *file, char *buf, size_t len) {
  FILE *f = fopen(file, "r");
  if (!f)
    return fail("'%s' cannot be read: %s (fix: give the path of a file ergo wrote)", file,
                strerror(errno)),
           -1;
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
    fclose(f);
    return fail("'%s' is not a regular file%s (fix: give the path of a file ergo wrote)", file,
                S_ISDIR(st.st_mode) ? " but a directory" : ""),
           -1;
  }
  size_t n = fread(buf, 1, len - 1, f);
  int err = ferror(f) ? errno : 0;
  fclose(f);
  buf[n] = '\0';
  if (err) return fail("'%s' cannot be read: %s", file, strerror(err ? err : EIO)), -1;
  return 0;
}

static int load_model(inputs *in, const char *file) {
  if (in->model)
    return fail("'%s' is a second model ('%s' is the first): give one MODEL.json", file,
                in->model_file);
  ergo__model m;
  char why[512];
  if (ergo__model_load(file, &m, why, sizeof why) != 0) return fail("%s", why);
  ergo__model_free(&m);
  json_error_t err;
  in->model = json_load_file(file, 0, &err);
  if (!in->model) return fail("'%s' cannot be read: %s", file, err.text);
  in->model_file = file;
  return 0;
}

/* The oracle: {"format": "ergo-oracle", "version": 1, "objective": "...", "regions": {path:
 * {"config": {...}, "time_s": T, "energy_j": E}}} (`ergo-example-miniapp --oracle --json`). */
static int load_oracle(inputs *in, const char *file, json_t *doc) {
  if (in->oracle) return fail("'%s' is a second oracle: give one ORACLE.json", file);
  const json_t *ver = json_object_get(doc, "version");
  if (!json_is_integer(ver) || json_integer_value(ver) != 1)
    return fail("'%s': %s: this ergo reads oracle version 1 (write it again with "
                "ergo-example-miniapp --oracle --json)",
                file, json_is_integer(ver) ? "is an oracle of another version" : "has no version");
  if (!json_is_object(json_object_get(doc, "regions")))
    return fail("'%s' has no regions object (fix: write it again with ergo-example-miniapp "
                "--oracle --json)",
                file);
  const char *path;
  json_t *r;
  json_object_foreach(json_object_get(doc, "regions"), path, r) {
    if (!json_is_object(json_object_get(r, "config")) ||
        !json_is_number(json_object_get(r, "time_s")) ||
        !json_is_number(json_object_get(r, "energy_j")))
      return fail("'%s': region '%s' has no config, time_s and energy_j (fix: write it again "
                  "with ergo-example-miniapp --oracle --json)",
                  file, path);
  }
  in->oracle = json_incref(doc);
  json_object_set_new(in->oracle, "file", json_string(file));
  return 0;
}

/* The sampler's CSV: "time_s,DOMAIN_W,..." and rows of numbers. */
static int load_power(inputs *in, const char *file) {
  if (in->power) return fail("'%s' is a second power CSV: give one POWER.csv", file);
  FILE *f = fopen(file, "r");
  if (!f) return fail("'%s' cannot be read: %s", file, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  long lineno = 0;
  int ncol = 0, rc = 0;
  json_t *cols = json_array(), *rows = json_array();
  int estimate = 0;
  while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
    lineno++;
    /* The sampler ends every line it writes: one without its end is a file cut short (a copy
     * stopped midway, a run still writing), whose last sample may hold part of a number. */
    if (line[n - 1] != '\n') {
      rc = fail("'%s' line %ld ends without its newline: the file is truncated (fix: give the "
                "whole file ERGO_POWER_CSV wrote, once the run has ended)",
                file, lineno);
      break;
    }
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
    if (lineno == 1) {
      char *save = NULL;
      for (char *t = strtok_r(line, ",", &save); t; t = strtok_r(NULL, ",", &save), ncol++) {
        if (ncol == 0) continue; /* time_s */
        size_t l = strlen(t);
        if (l > 2 && strcmp(t + l - 2, "_W") == 0) t[l - 2] = '\0';
        if (strstr(t, "estimate")) estimate = 1;
        json_array_append_new(cols, json_string(t));
      }
      continue;
    }
    if (n == 0) continue;
    json_t *row = json_array();
    char *p = line;
    int k = 0;
    for (; k < ncol; k++) {
      char *end;
      errno = 0;
      double v = strtod(p, &end);
      if (end == p || errno || !isfinite(v) || (*end != ',' && *end != '\0')) break;
      json_array_append_new(row, json_real(v));
      p = *end ? end + 1 : end;
      if (!*end) {
        k++;
        break;
      }
    }
    if (k != ncol || *p) {
      rc = fail("'%s' line %ld: '%.60s' is not %d numbers (a power CSV as ERGO_POWER_CSV writes "
                "it: time_s and watts per domain; fix: give the sampler's file unedited)",
                file, lineno, line, ncol);
      json_decref(row);
      break;
    }
    json_array_append_new(rows, row);
  }
  free(line);
  fclose(f);
  if (rc == 0 && json_array_size(rows) == 0)
    rc = fail("'%s' holds no sample (the run ended before the sampler's first period; fix: a "
              "smaller ERGO_SAMPLE_MS or a longer run)",
              file);
  if (rc) {
    json_decref(cols);
    json_decref(rows);
    return rc;
  }
  /* A long run's timeline: every k-th row, so the page stays small. */
  size_t total = json_array_size(rows);
  if (total > MAX_POWER_ROWS) {
    size_t k = (total + MAX_POWER_ROWS - 1) / MAX_POWER_ROWS;
    json_t *thin = json_array();
    for (size_t i = 0; i < total; i += k) json_array_append(thin, json_array_get(rows, i));
    json_decref(rows);
    rows = thin;
  }
  in->power = json_pack("{s:s, s:o, s:o, s:s*}", "file", file, "columns", cols, "rows", rows,
                        "label", estimate ? "ESTIMATE" : NULL);
  return in->power ? 0 : fail("out of memory reading '%s'", file);
}

/* Symbols per step line of a balance file (core/balance.c's ERGO__BALANCE_WIDTH). */
#define BALANCE_WIDTH 100

/* The balance file: headers ("'A' - Timestep:FIND_HSML:Primary") and step lines
 * ("  Step=    1 sec=   5.63559     AAAA...?"; a step of no time has no symbols). */
static int load_balance(inputs *in, const char *file) {
  if (in->balance) return fail("'%s' is a second balance file: give one BALANCE.txt", file);
  FILE *f = fopen(file, "r");
  if (!f) return fail("'%s' cannot be read: %s", file, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  long lineno = 0;
  int rc = 0;
  json_t *syms = json_object(), *steps = json_array();
  while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
    lineno++;
    /* ergo ends every line it writes: one without its end is a file cut short (a copy stopped
     * midway, a run still writing), whose last step would be drawn from part of its symbols. */
    if (line[n - 1] != '\n') {
      rc = fail("'%s' line %ld ends without its newline: the file is truncated (fix: give the "
                "whole file ERGO_BALANCE wrote, once the run has ended)",
                file, lineno);
      break;
    }
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
    long step;
    double sec;
    int off = 0;
    if (n == 0 || strncmp(line, "Headers for balance file", 24) == 0) continue;
    if (line[0] == '\'' && n >= 6 && line[2] == '\'' && strncmp(line + 3, " - ", 3) == 0) {
      char sym[2] = {line[1], '\0'};
      json_object_set_new(syms, sym, json_string(line + 6));
      continue;
    }
    if (sscanf(line, " Step=%ld sec=%lf %n", &step, &sec, &off) == 2 && off > 0 &&
        (line[off] || sec == 0)) {
      /* Every step of some time is BALANCE_WIDTH symbols (each share rounded to fit). */
      size_t width = strlen(line + off);
      if (width && width != BALANCE_WIDTH) {
        rc = fail("'%s' line %ld: step %ld has %zu symbols, expected %d: the file is damaged "
                  "(fix: give the file ERGO_BALANCE wrote, unedited)",
                  file, lineno, step, width, BALANCE_WIDTH);
        break;
      }
      json_array_append_new(steps, json_pack("[I, f, s]", (json_int_t)step, sec, line + off));
      continue;
    }
    rc = fail("'%s' line %ld: '%.60s' is neither a header nor a step line of a balance file "
              "(fix: give the file ERGO_BALANCE wrote, unedited)",
              file, lineno, line);
  }
  free(line);
  fclose(f);
  if (rc == 0 && json_array_size(steps) == 0)
    rc = fail("'%s' holds no step line (the run called ergo_step no time)", file);
  if (rc) {
    json_decref(syms);
    json_decref(steps);
    return rc;
  }
  in->balance = json_pack("{s:s, s:o, s:o}", "file", file, "symbols", syms, "steps", steps);
  return in->balance ? 0 : fail("out of memory reading '%s'", file);
}

/* One input, told apart by its content. */
static int load_input(inputs *in, const char *file) {
  char head[256];
  char size[128];
  if (ergo__input_size_check(file, size, sizeof size))
    return fail("'%s' is %s (fix: give the files ergo wrote)", file, size);
  if (peek(file, head, sizeof head)) return -1;
  const char *p = head;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  if (*p == '{') {
    json_error_t err;
    json_t *doc = json_load_file(file, 0, &err);
    if (!doc)
      return fail("'%s' is not valid JSON: %s (line %d, column %d)", file, err.text, err.line,
                  err.column);
    const char *fmt = json_string_value(json_object_get(doc, "format"));
    int model = fmt && strcmp(fmt, "ergo-model") == 0;
    int report = fmt && strcmp(fmt, "ergo-report") == 0;
    if (fmt && strcmp(fmt, "ergo-oracle") == 0) {
      int rc = load_oracle(in, file, doc);
      json_decref(doc);
      return rc;
    }
    if (!model && !report) {
      fail("'%s' is not an ergo run or model: its format is '%s', expected 'ergo-report' "
           "(ERGO_REPORT_JSON, ergo run --report-json), 'ergo-model' (ERGO_MODEL) or "
           "'ergo-oracle' (ergo-example-miniapp --oracle --json)",
           file, fmt ? fmt : "(none)");
      json_decref(doc);
      return -1;
    }
    json_decref(doc);
    if (model) return load_model(in, file);
    ergo_cli_run_report *r = &in->runs[in->nruns];
    r->file = file;
    if (ergo_cli_report_load(r, CMD)) {
      ergo_cli_report_free(r);
      return -1;
    }
    in->nruns++;
    return 0;
  }
  if (strncmp(p, "time_s,", 7) == 0) return load_power(in, file);
  if (strncmp(p, "Headers for balance file", 24) == 0) return load_balance(in, file);
  char start[24];
  size_t k = 0;
  for (; p[k] && p[k] != '\n' && k < sizeof start - 1; k++)
    start[k] = p[k] >= ' ' && p[k] < 127 ? p[k] : '?';
  start[k] = '\0';
  return fail("'%s' is not a file ergo wrote: it starts with '%s', expected a JSON report "
              "(ERGO_REPORT_JSON), a model (ERGO_MODEL), a power CSV (ERGO_POWER_CSV) or a "
              "balance file (ERGO_BALANCE)",
              file, start);
}

/* Runs of another application than the first's are refused (2), as `ergo compare` refuses them:
 * their bars and trees side by side would read as one program's policies; --force draws them,
 * with a warning each. */
static int same_application(const inputs *in, int force) {
  const char *app0 = json_string_value(json_object_get(in->runs[0].facts, "application")),
             *file0 = in->runs[0].file;
  for (int r = 1; r < in->nruns; r++) {
    const char *app = json_string_value(json_object_get(in->runs[r].facts, "application"));
    if (!app0 || !app || strcmp(app0, app) == 0) continue;
    if (!force)
      return ergo_cli_say(ERGO_CLI_USAGE, CMD,
                          "'%s' is a run of '%s' and '%s' of '%s': their figures are not "
                          "comparable (fix: draw runs of one application, or --force)",
                          in->runs[r].file, app, file0, app0);
    ergo_cli_say(0, CMD,
                 "warning: '%s' is a run of '%s' and '%s' of '%s' (drawn together: --force)",
                 in->runs[r].file, app, file0, app0);
  }
  return ERGO_CLI_OK;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* ---- the page's data ---- */

static json_t *run_json(const ergo_cli_run_report *r) {
  const char *label = r->platform && strcmp(r->platform, "sim") == 0 ? "SIMULATED" : r->qlabel;
  return json_pack("{s:s, s:s, s:s*, s:s*, s:O*, s:O}", "file", r->file, "label_name", r->label,
                   "platform", r->platform, "label", label, "facts", r->facts, "tree", r->root);
}

/* The reference of the comparison: the run of policy monitor, else the first. */
static int reference(const inputs *in) {
  for (int r = 0; r < in->nruns; r++) {
    const char *pol = json_string_value(json_object_get(in->runs[r].facts, "policy"));
    if (pol && strcmp(pol, "monitor") == 0) return r;
  }
  return 0;
}

static json_t *page_data(const inputs *in, const char *only) {
  json_t *runs = json_array();
  for (int r = 0; r < in->nruns; r++) json_array_append_new(runs, run_json(&in->runs[r]));
  json_t *cmp = NULL;
  if (in->nruns >= 2) {
    /* compare's figures against runs[0]: the reference goes first, the others in order. */
    ergo_cli_run_report *order = malloc((size_t)in->nruns * sizeof *order);
    if (order) {
      int ref = reference(in), k = 0;
      order[k++] = in->runs[ref];
      for (int r = 0; r < in->nruns; r++)
        if (r != ref) order[k++] = in->runs[r];
      cmp = ergo_cli_compare_json(order, in->nruns, 0);
      free(order);
    }
  }
  json_t *model = NULL;
  if (in->model) {
    model = json_deep_copy(in->model);
    json_object_set_new(model, "file", json_string(in->model_file));
  }
  return json_pack("{s:s, s:i, s:s, s:o, s:o*, s:o*, s:O*, s:O*, s:O*, s:s*, s:i}", "format",
                   "ergo-report-page", "version", 1, "ergo_version", ERGO_VERSION_STRING, "runs",
                   runs, "compare", cmp, "model", model, "power", in->power, "balance", in->balance,
                   "oracle", in->oracle, "only", only, "only_height", PICTURE_H);
}

/* The page: report.html up to its scripts' marker, the libraries, the data, report.js, the
 * rest.  A malloc'd string (its length in *len), or NULL (said). */
static char *page(const inputs *in, const char *only, size_t *len) {
  static const char marker[] = "<!-- ergo: scripts -->";
  const ergo__web_asset *html = asset_find("report.html"), *js = asset_find("report.js"),
                        *chart = asset_find("chart.min.js"), *d3 = asset_find("d3.min.js");
  if (!html || !js || !chart || !d3) {
    fail("this ergo was built without the page's charting libraries (Chart.js, D3) (fix: "
         "apt-get install libjs-chart.js libjs-d3 and build ergo again)");
    return NULL;
  }
  const char *cut = strstr((const char *)html->data, marker);
  if (!cut) {
    fail("the embedded report.html has no '%s' line (a broken build: build ergo again)", marker);
    return NULL;
  }
  json_t *data = page_data(in, only);
  char *json = data ? json_dumps(data, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL;
  json_decref(data);
  /* Inside a script element no '<' may start a tag or a comment ("</script>", "<!--"): every
   * '<', which JSON holds only inside strings, becomes the escape \u003c. */
  size_t nlt = 0;
  for (const char *p = json; p && *p; p++) nlt += *p == '<';
  char *text = json ? malloc(strlen(json) + 5 * nlt + 1) : NULL;
  if (text) {
    char *q = text;
    for (const char *p = json; *p; p++) {
      if (*p == '<') {
        memcpy(q, "\\u003c", 6);
        q += 6;
      } else {
        *q++ = *p;
      }
    }
    *q = '\0';
  }
  free(json);
  if (!text) {
    fail("out of memory while writing the page");
    return NULL;
  }
  size_t head = (size_t)(cut - (const char *)html->data);
  const char *tail = cut + sizeof marker - 1;
  size_t cap = html->len + chart->len + d3->len + js->len + strlen(text) + 512;
  char *out = malloc(cap);
  if (!out) {
    free(text);
    fail("out of memory while writing the page");
    return NULL;
  }
  size_t o = 0;
#define PUT(p, n)                                                                                  \
  do {                                                                                             \
    memcpy(out + o, (p), (n));                                                                     \
    o += (n);                                                                                      \
  } while (0)
#define PUTS(s) PUT((s), strlen(s))
  PUT(html->data, head);
  PUTS("<script>/* Chart.js (MIT licence), from Debian's libjs-chart.js */\n");
  PUT(chart->data, chart->len);
  PUTS("\n</script>\n<script>/* D3.js (BSD-3-Clause licence), from Debian's libjs-d3 */\n");
  PUT(d3->data, d3->len);
  PUTS("\n</script>\n<script>window.ERGO_DATA = ");
  PUTS(text);
  PUTS(";</script>\n<script>\n");
  PUT(js->data, js->len);
  PUTS("\n</script>");
  PUTS(tail);
#undef PUT
#undef PUTS
  free(text);
  *len = o;
  return out;
}

/* ---- pictures: a headless Chromium ---- */

static int find_chromium(const char *given, char *out, size_t len) {
  if (given) {
    struct stat st;
    if (access(given, X_OK) != 0 || stat(given, &st) != 0)
      return fail("--chromium '%s' cannot be run: %s (fix: the path of chromium)", given,
                  strerror(errno));
    if (!S_ISREG(st.st_mode))
      return fail("--chromium '%s' cannot be run: it is %s (fix: the path of chromium)", given,
                  S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
    snprintf(out, len, "%s", given);
    return 0;
  }
  static const char *const names[] = {"chromium", "chromium-browser", "google-chrome"};
  const char *path = getenv("PATH");
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    const char *p = path && *path ? path : "/usr/bin:/bin";
    while (*p) {
      const char *e = strchr(p, ':');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      snprintf(out, len, "%.*s/%s", (int)n, p, names[k]);
      if (n && access(out, X_OK) == 0) return 0;
      p += n + (e ? 1 : 0);
    }
  }
  return fail("no Chromium to render the picture with: none of chromium, chromium-browser, "
              "google-chrome is on PATH (fix: apt-get install chromium, or --chromium PATH; "
              "--html writes the page without one)");
}

/* Runs argv with stdout to fd out (-1: /dev/null), stderr to /dev/null; 0 when it exited 0
 * within the timeout, else -1 (said). */
static int run_browser(char *const *argv, int out) {
  /* A failed exec sends its errno back on a close-on-exec pipe, so that "cannot be run" is told
   * apart from a browser that ran and failed. */
  int ep[2];
  if (pipe2(ep, O_CLOEXEC) != 0) return fail("cannot start '%s': %s", argv[0], strerror(errno)), -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(ep[0]);
    close(ep[1]);
    return fail("cannot start '%s': %s", argv[0], strerror(errno)), -1;
  }
  if (pid == 0) {
    close(ep[0]);
    int null = open("/dev/null", O_RDWR);
    dup2(out >= 0 ? out : null, 1);
    dup2(null, 2);
    execv(argv[0], argv);
    int err = errno;
    (void)!write(ep[1], &err, sizeof err);
    _exit(127);
  }
  close(ep[1]);
  int exec_err = 0;
  ssize_t got;
  while ((got = read(ep[0], &exec_err, sizeof exec_err)) < 0 && errno == EINTR) {
  }
  close(ep[0]);
  if (got == (ssize_t)sizeof exec_err) {
    waitpid(pid, NULL, 0);
    return fail("'%s' cannot be run: %s (fix: --chromium and the path of a working chromium)",
                argv[0], strerror(exec_err)),
           -1;
  }
  int status = 0;
  for (int waited = 0;; waited++) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return fail("waitpid: %s", strerror(errno)), -1;
    if (waited >= CHROMIUM_TIMEOUT_S * 10) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return fail("'%s' did not finish the picture in %d s (stopped)", argv[0], CHROMIUM_TIMEOUT_S),
             -1;
    }
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return fail("'%s' failed to render the picture (exit status %d)", argv[0],
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)),
           -1;
  return 0;
}

/* A whole file, NUL-terminated (its length without the NUL in *len), or NULL. */
static char *read_whole(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  size_t cap = 0, n = 0;
  int bad = !f;
  while (!bad) {
    if (cap - n < 2) { /* room for more and the NUL */
      char *more = realloc(text, cap ? 2 * cap : 65536);
      if (!(bad = !more)) text = more, cap = cap ? 2 * cap : 65536;
      continue;
    }
    size_t got = fread(text + n, 1, cap - n - 1, f);
    n += got;
    if (!got) break;
  }
  if (f) bad |= ferror(f), fclose(f);
  *len = bad ? 0 : n;
  if (bad)
    free(text);
  else
    text[n] = '\0';
  return bad ? NULL : text;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)ftw;
  return (type == FTW_DP ? rmdir(path) : unlink(path)), 0; /* what stays is only a leftover */
}

/* The one-chart page rendered to `out` as PNG (screenshot) or SVG (the DOM's chart). */
static int picture(const inputs *in, const char *chart, int svg, const char *out,
                   const char *chromium) {
  char browser[PATH_MAX];
  if (find_chromium(chromium, browser, sizeof browser)) return ERGO_CLI_FAIL;
  size_t len;
  char *html = page(in, chart, &len);
  if (!html) return ERGO_CLI_FAIL;
  const char *tmpdir = getenv("TMPDIR");
  if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
  char dir[PATH_MAX], file[PATH_MAX + 32], url[PATH_MAX + 64], shot[PATH_MAX + 32],
      prof[PATH_MAX + 32];
  if (snprintf(dir, sizeof dir, "%s/ergo-report-XXXXXX", tmpdir) >= (int)sizeof dir) {
    free(html);
    return fail("TMPDIR='%.64s...' is too long for a temporary directory (fix: a shorter TMPDIR)",
                tmpdir);
  }
  if (!mkdtemp(dir)) {
    free(html);
    return fail("cannot make a temporary directory '%s': %s (fix: TMPDIR)", dir, strerror(errno));
  }
  snprintf(file, sizeof file, "%s/page.html", dir);
  snprintf(shot, sizeof shot, "%s/chart.png", dir);
  snprintf(prof, sizeof prof, "--user-data-dir=%s/profile", dir);
  snprintf(url, sizeof url, "file://%s", file);
  int rc = ergo__atomic_write(file, html, len) ? ERGO_CLI_FAIL : ERGO_CLI_OK;
  free(html);
  char shot_arg[PATH_MAX + 64], size[64];
  snprintf(size, sizeof size, "--window-size=%d,%d", PICTURE_W, PICTURE_H);
  snprintf(shot_arg, sizeof shot_arg, "--screenshot=%s", shot);
  char *argv[] = {browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                  "--no-first-run", prof,
                  /* Nothing but the page itself: no host resolves. */
                  "--host-resolver-rules=MAP * ~NOTFOUND", size, svg ? "--dump-dom" : shot_arg, url,
                  NULL};
  char *pic = NULL;
  size_t piclen = 0;
  if (rc == ERGO_CLI_OK && !svg) {
    if (run_browser(argv, -1))
      rc = ERGO_CLI_FAIL;
    else if (!(pic = read_whole(shot, &piclen)) || !piclen)
      rc = fail("'%s' wrote no screenshot of the chart", browser);
  } else if (rc == ERGO_CLI_OK) {
    char dom[PATH_MAX + 32];
    snprintf(dom, sizeof dom, "%s/dom.html", dir);
    int fd = open(dom, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || run_browser(argv, fd)) rc = ERGO_CLI_FAIL;
    if (fd >= 0) close(fd);
    size_t n = 0;
    char *text = rc == ERGO_CLI_OK ? read_whole(dom, &n) : NULL;
    if (text) {
      const char *a = n > 0 ? strstr(text, "<svg") : NULL;
      const char *b = a ? strstr(a, "</svg>") : NULL;
      for (const char *c = b; c; c = strstr(c + 1, "</svg>")) b = c;
      if (a && b) {
        static const char xml[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
        piclen = sizeof xml - 1 + (size_t)(b + 6 - a) + 1;
        pic = malloc(piclen);
        if (pic) {
          memcpy(pic, xml, sizeof xml - 1);
          memcpy(pic + sizeof xml - 1, a, (size_t)(b + 6 - a));
          pic[piclen - 1] = '\n';
        } else
          piclen = 0;
      }
    }
    free(text);
    if (rc == ERGO_CLI_OK && !piclen) rc = fail("'%s' drew no SVG of the chart", browser);
  }
  if (rc == ERGO_CLI_OK && ergo__atomic_write(out, pic, piclen)) rc = ERGO_CLI_FAIL;
  free(pic);
  /* The temporary directory and Chromium's profile in it, deepest first, links not followed. */
  nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  if (rc == ERGO_CLI_OK) printf(CMD ": %s written (%s)\n", out, chart);
  return rc;
}

/* ---- the command ---- */

/* "tree", "compare", "power", "balance", "pareto" or "pareto:REGION": 0, or a usage error. */
static int check_chart(const char *chart, int svg, const inputs *in) {
  static const char *const names[] = {"tree", "compare", "power", "balance", "pareto"};
  int ok = 0;
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) ok |= strcmp(chart, names[k]) == 0;
  ok |= strncmp(chart, "pareto:", 7) == 0 && chart[7];
  ok |= strcmp(chart, "tree:time") == 0 || strcmp(chart, "tree:energy") == 0;
  if (!ok) {
    fprintf(stderr,
            CMD ": --chart '%s' is not a chart: expected tree (tree:time), tree:energy, "
                "pareto:REGION, compare, power or balance\n",
            chart);
    return ERGO_CLI_USAGE;
  }
  if (svg && strncmp(chart, "tree", 4) != 0 && strcmp(chart, "balance") != 0) {
    fprintf(stderr,
            CMD ": --svg draws the d3 charts (tree, balance); '%s' is a Chart.js canvas, which "
                "has no SVG (fix: --png)\n",
            chart);
    return ERGO_CLI_USAGE;
  }
  const char *need = NULL;
  if (strncmp(chart, "pareto", 6) == 0 && !in->model) need = "a MODEL.json";
  if (strcmp(chart, "compare") == 0 && in->nruns < 2) need = "two RUN.json or more";
  if (strcmp(chart, "power") == 0 && !in->power) need = "a POWER.csv";
  if (strcmp(chart, "balance") == 0 && !in->balance) need = "a BALANCE.txt";
  if (need) {
    fprintf(stderr, CMD ": --chart %s needs %s among the files\n", chart, need);
    return ERGO_CLI_USAGE;
  }
  if (strncmp(chart, "pareto:", 7) == 0 &&
      !json_object_get(json_object_get(in->model, "regions"), chart + 7)) {
    fprintf(stderr,
            CMD ": --chart %s: the model '%s' has no region '%s' (fix: a region path as the "
                "model names it, e.g. Global/Timestep/...)\n",
            chart, in->model_file, chart + 7);
    return ERGO_CLI_USAGE;
  }
  return 0;
}

static int report_main(int argc, char **argv) {
  const char *html = NULL, *png = NULL, *svg = NULL, *chart = NULL, *chromium = NULL;
  static const char *const names[] = {"--html", "--png", "--svg", "--chart", "--chromium"};
  const char **slots[] = {&html, &png, &svg, &chart, &chromium};
  const char **files = calloc((size_t)argc, sizeof *files);
  inputs in = {0};
  in.runs = calloc((size_t)argc, sizeof *in.runs);
  if (!files || !in.runs) {
    free(files);
    free(in.runs);
    return fail("out of memory");
  }
  int nfiles = 0, rc = ERGO_CLI_OK, literal = 0, force = 0;
  for (int i = 1; i < argc && rc == ERGO_CLI_OK; i++) {
    const char *a = argv[i];
    if (!literal && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
      report_usage(stdout);
      free(files);
      free(in.runs);
      return ERGO_CLI_OK;
    }
    if (!literal && strcmp(a, "--") == 0) {
      literal = 1;
      continue;
    }
    if (!literal && strcmp(a, "--force") == 0) {
      force = 1;
      continue;
    }
    int r = 0;
    for (size_t k = 0; !literal && k < sizeof names / sizeof *names && !r; k++)
      r = ergo_cli_value(CMD, argc, argv, &i, names[k], slots[k]);
    if (r < 0) rc = ERGO_CLI_USAGE;
    if (r) continue;
    if (!literal && a[0] == '-' && a[1]) {
      fprintf(stderr,
              CMD ": unknown option '%s': expected --html, --png, --svg, --chart, --chromium, "
                  "--force, --help or input files\n",
              a);
      rc = ERGO_CLI_USAGE;
    } else {
      files[nfiles++] = a;
    }
  }
  int outputs = !!html + !!png + !!svg;
  if (rc == ERGO_CLI_OK && outputs != 1) {
    fprintf(stderr, CMD ": %s: expected one of --html OUT.html, --png OUT.png, --svg OUT.svg\n",
            outputs ? "more than one output given" : "no output given");
    rc = ERGO_CLI_USAGE;
  }
  const char *out = html ? html : png ? png : svg;
  if (rc == ERGO_CLI_OK && !*out) {
    fprintf(stderr, CMD ": the output path is empty: expected a file name\n");
    rc = ERGO_CLI_USAGE;
  }
  if (rc == ERGO_CLI_OK && html && chart) {
    fprintf(stderr, CMD ": --chart picks the chart of --png or --svg; --html draws them all\n");
    rc = ERGO_CLI_USAGE;
  }
  if (rc == ERGO_CLI_OK && nfiles == 0) {
    fprintf(stderr, CMD ": no input given: expected RUN.json (ERGO_REPORT_JSON, ergo run "
                        "--report-json) and optionally MODEL.json, POWER.csv, BALANCE.txt\n");
    rc = ERGO_CLI_USAGE;
  }
  for (int k = 0; k < nfiles && rc == ERGO_CLI_OK; k++)
    if (load_input(&in, files[k])) rc = ERGO_CLI_FAIL;
  if (rc == ERGO_CLI_OK && in.nruns == 0) {
    fprintf(stderr, CMD ": no run among the files: expected at least one JSON report "
                        "(ERGO_REPORT_JSON, ergo run --report-json)\n");
    rc = ERGO_CLI_USAGE;
  }
  if (rc == ERGO_CLI_OK) rc = same_application(&in, force);
  /* Labels as compare gives them: base names, the path when two are equal. */
  for (int r = 0; r < in.nruns; r++) {
    in.runs[r].label = base_name(in.runs[r].file);
    for (int q = 0; q < in.nruns; q++)
      if (q != r && strcmp(base_name(in.runs[r].file), base_name(in.runs[q].file)) == 0)
        in.runs[r].label = in.runs[r].file;
  }
  if (rc == ERGO_CLI_OK && !html) {
    if (!chart) chart = "tree";
    if (strcmp(chart, "pareto") == 0 && in.model) {
      const char *first = NULL;
      const char *k;
      json_t *v;
      json_object_foreach(json_object_get(in.model, "regions"), k, v) {
        if (!first) first = k;
      }
      static char spec[4096];
      if (first) snprintf(spec, sizeof spec, "pareto:%s", first);
      if (first) chart = spec;
    }
    rc = check_chart(chart, !!svg, &in);
    if (rc == ERGO_CLI_OK) rc = picture(&in, chart, !!svg, out, chromium);
  } else if (rc == ERGO_CLI_OK) {
    size_t len;
    char *text = page(&in, NULL, &len);
    if (!text || ergo__atomic_write(html, text, len))
      rc = ERGO_CLI_FAIL;
    else
      printf(CMD ": %s written (%d run%s%s%s%s%s)\n", html, in.nruns, in.nruns == 1 ? "" : "s",
             in.model ? ", a model" : "", in.power ? ", a power timeline" : "",
             in.balance ? ", balance lines" : "", in.oracle ? ", an oracle" : "");
    free(text);
  }
  for (int r = 0; r < in.nruns; r++) ergo_cli_report_free(&in.runs[r]);
  json_decref(in.model);
  json_decref(in.power);
  json_decref(in.balance);
  json_decref(in.oracle);
  free(in.runs);
  free(files);
  return rc;
}

const ergo_cli_command ergo_cli_report = {
    .name = "report",
    .summary = "pictures of runs: one HTML page (tree, Pareto, policies, power, balance), PNG, SVG",
    .run = report_main,
};
