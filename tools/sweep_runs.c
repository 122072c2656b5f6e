/* sweep_runs.c - `ergo sweep --runs`: calibration for regions that run once.  The application
 * runs once untuned and once per configuration under the fixed policy, each writing a JSON
 * report; the reports become one tuning model, written by the library's own writer
 * (policies/model.c, through runtime/toolkit.h).  The knobs' names are the knob table's. */
#include "cli.h"
#include "runtime/toolkit.h"

#include <ergo.h>
#include <ergo_sim.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A whole run per configuration: more than this is a mistake in --grid, not a calibration. */
#define MAX_RUNS 1000
/* Regions that take less than this per execution are not tuned (the tuner's
 * ERGO_MIN_REGION_MS default). */
#define MIN_REGION_MS 100.0

static void sweep_usage(FILE *out) {
  fprintf(
      out,
      "usage: ergo sweep --runs [options] [--] APP [ARGS...]\n\n"
      "Calibration for regions that run once (for a sweep inside one run: `ergo run\n"
      "--policy sweep`): runs APP once untuned, then once per configuration of a grid under\n"
      "ERGO_POLICY=fixed, each with its own JSON report, and writes one tuning model from\n"
      "them.  A region is tuned when it takes ERGO_MIN_REGION_MS (default 100 ms) per\n"
      "execution, its children that are tuned on their own left out (the others run under\n"
      "its config); the model holds every configuration's time and energy for it and the\n"
      "best for the objective.  Run APP with\n"
      "ERGO_POLICY=static ERGO_MODEL=F (or `ergo run --policy static --model F`) to apply it.\n\n"
      "  --grid G        small (default: core min, middle, max x uncore min, max x threads\n"
      "                  half, all: at most 12 runs) or a grid as ERGO_SWEEP writes it,\n"
      "                  e.g. cpu=1200000:2000000:400000,threads=8,16;repeats=2\n"
      "  --objective O   energy, time, edp, ed2p, weighted[:t=W,e=W,r=W] or energy@N%%\n"
      "                  (default energy@5%%)\n"
      "  --out F         the model file (default ergo-model.json)\n"
      "  --platform P    real, sim or auto (default: ERGO_PLATFORM, else auto); APP runs on\n"
      "                  the same\n\n"
      "Exit status: 0, 1 when a run fails or the model cannot be written, 2 for a usage\n"
      "error.\n");
}

/* One line on stderr naming the command; the exit code of a usage error, or of a failure. */
#define usage_error(...) ergo_cli_say(ERGO_CLI_USAGE, "ergo sweep", __VA_ARGS__)
#define failure(...) ergo_cli_say(ERGO_CLI_FAIL, "ergo sweep", __VA_ARGS__)

/* ---- the node: its knob values, as the application will see them ---- */

/* The knobs of the platform the runs use: the sim node's exist only while it runs, so start it
 * (nothing written, nothing changed), ask, and stop. */
static int node_space(const char *platform, ergo__space *space, char *plat, size_t platlen) {
  memset(space, 0, sizeof *space);
  ergo_config cfg;
  ergo_config_default(&cfg);
  ergo_config_from_env(&cfg); /* ERGO_SIM_NODE may reshape the sim node */
  cfg.platform = platform;
  cfg.report = "none";
  cfg.report_json = cfg.report_hatchet = cfg.report_csv = NULL;
  cfg.step_report = cfg.balance = "none";
  cfg.power_csv = cfg.trace = NULL;
  cfg.energy = "none";
  cfg.knobs = "none";
  cfg.policy = "monitor";
  if (ergo_init(&cfg) != 0) return -1;
  snprintf(plat, platlen, "%s", ergo_sim_active() ? "sim" : "real");
  char *text = ergo_knobs_info_json();
  ergo_finalize();
  json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
  free(text);
  size_t i;
  const json_t *k;
  json_array_foreach(json_object_get(doc, "knobs"), i, k) {
    const char *name = json_string_value(json_object_get(k, "name"));
    int slot = name ? ergo__knob_by_backend(name, strlen(name)) : -1;
    if (slot < 0 || !json_is_true(json_object_get(k, "available"))) continue;
    const json_t *vals = json_object_get(k, "values"), *v;
    size_t j;
    json_array_foreach(vals, j, v) {
      if (space->n[slot] < ERGO__KNOB_MAX_VALUES)
        space->values[slot][space->n[slot]++] = json_integer_value(v);
    }
    if (!space->n[slot]) continue;
    const json_t *cur = json_object_get(k, "current");
    space->baseline[slot] =
        json_is_integer(cur) ? json_integer_value(cur) : space->values[slot][space->n[slot] - 1];
  }
  json_decref(doc);
  int n = space->n[ERGO__KNOB_THREADS];
  space->cores = n ? (int)space->values[ERGO__KNOB_THREADS][n - 1] : 1;
  return 0;
}

/* ---- the grid ---- */

typedef struct grid {
  int n;
  ergo__config *c;
} grid;

static int grid_add(grid *g, const ergo__config *c) {
  for (int i = 0; i < g->n; i++)
    if (!memcmp(&g->c[i], c, sizeof *c)) return 0;
  ergo__config *v = realloc(g->c, (size_t)(g->n + 1) * sizeof *v);
  if (!v) return -1;
  g->c = v;
  g->c[g->n++] = *c;
  return 0;
}

/* Every combination of the per-knob lists (a knob without a list stays at its baseline). */
static int grid_product(grid *g, const ergo__space *s, int n[ERGO__NKNOBS],
                        int64_t vals[ERGO__NKNOBS][ERGO__KNOB_MAX_VALUES]) {
  int len[ERGO__NKNOBS];
  long total = 1;
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    len[i] = n[i] ? n[i] : 1;
    total *= len[i];
  }
  for (long t = 0; t < total; t++) {
    ergo__config c;
    long r = t;
    for (int i = ERGO__NKNOBS - 1; i >= 0; i--) {
      int k = (int)(r % len[i]);
      r /= len[i];
      c.v[i] = n[i] ? vals[i][k] : s->n[i] ? s->baseline[i] : 0;
    }
    if (grid_add(g, &c)) return -1;
  }
  return 0;
}

/* "small": the ends of every knob, the middle of the core frequencies, half the threads. */
static int grid_small(grid *g, const ergo__space *s) {
  int n[ERGO__NKNOBS] = {0};
  static int64_t vals[ERGO__NKNOBS][ERGO__KNOB_MAX_VALUES];
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    int m = s->n[i];
    if (!m) continue;
    const int64_t *v = s->values[i];
    int64_t pick[3];
    int k = 0;
    if (i == ERGO__KNOB_THREADS) {
      /* The allowed value nearest half the maximum. */
      int64_t half = v[m - 1] / 2, best = v[0];
      for (int j = 0; j < m; j++)
        if (llabs(v[j] - half) < llabs(best - half)) best = v[j];
      pick[k++] = best;
    } else {
      pick[k++] = v[0];
      if (i == ERGO__KNOB_CORE) pick[k++] = v[(m - 1) / 2];
    }
    pick[k++] = v[m - 1];
    for (int j = 0; j < k; j++) {
      int dup = 0;
      for (int q = 0; q < n[i]; q++) dup |= vals[i][q] == pick[j];
      if (!dup) vals[i][n[i]++] = pick[j];
    }
  }
  return grid_product(g, s, n, vals);
}

/* The library's line for ERGO_SWEEP, said of --grid. */
static void say_grid(const char *why) {
  const char *rest = strstr(why, "is not valid: ");
  if (rest)
    fprintf(stderr, "ergo sweep: --grid %s\n", rest);
  else if (strncmp(why, "ERGO_SWEEP: ", 12) == 0)
    fprintf(stderr, "ergo sweep: --grid: %s\n", why + 12);
  else
    fprintf(stderr, "ergo sweep: --grid: %s\n", why);
}

static int grid_spec(grid *g, const ergo__space *s, const char *text, int *repeats) {
  ergo__sweep_spec spec;
  char why[1024], warn[512];
  if (ergo__sweep_parse(text, &spec, why, sizeof why)) {
    /* "ERGO_SWEEP='...' is not valid: ..." becomes "--grid '...' is not valid: ...". */
    const char *rest = strstr(why, " is not valid: ");
    fprintf(stderr, "ergo sweep: --grid '%s'%s\n", text, rest ? rest : why);
    return ERGO_CLI_USAGE;
  }
  if (spec.budget != ERGO__SWEEP_BUDGET)
    return usage_error("--grid '%s': budget= is for the sweep inside one run; --runs runs every "
                       "configuration of the grid",
                       text);
  if (!ergo__sweep_explicit(&spec)) {
    char keys[128];
    return usage_error("--grid '%s' names no knob: expected small or KNOB=V,V,... (%s)", text,
                       ergo__knob_names(offsetof(ergo__knob_row, key), keys, sizeof keys));
  }
  if (ergo__sweep_fit(&spec, s, why, sizeof why, warn, sizeof warn)) {
    say_grid(why);
    return ERGO_CLI_USAGE;
  }
  if (warn[0]) say_grid(warn);
  *repeats = spec.repeats;
  return grid_product(g, s, spec.n, spec.values) ? ERGO_CLI_FAIL : ERGO_CLI_OK;
}

/* ---- the runs ---- */

/* "cpu=1500000,uncore=1200000,threads=10": ERGO_FIXED, and how the progress lines name it. */
static void fixed_text(const ergo__config *c, char *buf, size_t len) {
  size_t o = 0;
  buf[0] = '\0';
  for (int i = 0; i < ERGO__NKNOBS && o < len; i++)
    if (c->v[i])
      o += (size_t)snprintf(buf + o, len - o, "%s%s=%lld", o ? "," : "", ergo__knob_table[i].key,
                            (long long)c->v[i]);
  if (!buf[0]) snprintf(buf, len, "(no knobs)");
}

/* Run k (from 1) of APP: untuned (c NULL) or under fixed config c; its output to a log, its JSON
 * report to report.  0, or the failure said in one line. */
static int run_app(char **app, const ergo__config *c, const char *platform, const char *dir, int k,
                   const char *report) {
  char log[4200], steps[4200], balance[4200], fixed[256];
  snprintf(log, sizeof log, "%s/run-%d.log", dir, k);
  snprintf(steps, sizeof steps, "%s/run-%d-steps.txt", dir, k);
  snprintf(balance, sizeof balance, "%s/run-%d-balance.txt", dir, k);
  if (c) fixed_text(c, fixed, sizeof fixed);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return failure("cannot start run %d: fork: %s", k, strerror(errno));
  if (pid == 0) {
    setenv("ERGO_POLICY", c ? "fixed" : "monitor", 1);
    if (c) setenv("ERGO_FIXED", fixed, 1);
    setenv("ERGO_PLATFORM", platform, 1);
    setenv("ERGO_REPORT_JSON", report, 1);
    /* The calibration's step and balance files stay with it, not over the user's. */
    setenv("ERGO_REPORT_STEPS", steps, 1);
    setenv("ERGO_BALANCE", balance, 1);
    /* The runs' directory is our own fresh mkdtemp; still, no name in it is followed. */
    int fd = open(log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execvp(app[0], app);
    fprintf(stderr, "ergo sweep: cannot run '%s': %s\n", app[0], strerror(errno));
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return failure("run %d: waitpid: %s", k, strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  char how[64];
  if (WIFEXITED(status))
    snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
  else
    snprintf(how, sizeof how, "signal %d", WTERMSIG(status));
  return failure("run %d (%s) of '%s' failed with %s; its output is in %s", k,
                 c ? fixed : "untuned", app[0], how, log);
}

/* ---- the reports ---- */

/* A run's report: its main tree, or NULL with one line saying why. */
static json_t *read_report(const char *path, const json_t **root) {
  json_error_t err;
  json_t *doc = json_load_file(path, 0, &err);
  const char *fmt = json_string_value(json_object_get(doc, "format"));
  /* The report's "threads" is its list of thread trees, not the knob. */
  *root = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  if (!doc)
    failure("the run's report '%s' cannot be read: %s (did the application call ergo_finalize?)",
            path, err.text);
  else if (!fmt || strcmp(fmt, "ergo-report") || !json_is_object(*root))
    failure("the run's report '%s' is not an ergo report with a main tree", path);
  else
    return doc;
  json_decref(doc);
  return NULL;
}

static int in_set(const json_t *set, const char *path) {
  size_t i;
  const json_t *v;
  json_array_foreach(set, i, v) {
    if (strcmp(json_string_value(v), path) == 0) return 1;
  }
  return 0;
}

/* The time and energy a region's config governs, mean per execution: the region with every
 * child that is not tuned on its own (those run under the region's config), without the tuned
 * children (`tuned`: their paths), which run under theirs.  0, or -1 when the region never
 * completed or, with need_energy, the report has no energy for it (a time-only objective takes
 * a run without a meter: its energy counts as 0). */
static int governed(const json_t *node, const json_t *tuned, int need_energy, ergo__measure *m,
                    int *calls) {
  const json_t *e = json_object_get(node, "energy");
  json_int_t n = json_integer_value(json_object_get(node, "calls"));
  if (n < 1 ||
      (need_energy && (!json_is_object(e) || !json_is_number(json_object_get(e, "total")))))
    return -1;
  double t = json_number_value(json_object_get(node, "time_s"));
  double j = json_number_value(json_object_get(e, "total"));
  size_t i;
  const json_t *c;
  json_array_foreach(json_object_get(node, "children"), i, c) {
    const char *p = json_string_value(json_object_get(c, "path"));
    if (!p || !in_set(tuned, p)) continue;
    t -= json_number_value(json_object_get(c, "time_s"));
    j -= json_number_value(json_object_get(json_object_get(c, "energy"), "total"));
  }
  m->time_s = (t > 0 ? t : 0) / (double)n;
  m->energy_j = (j > 0 ? j : 0) / (double)n;
  *calls = (int)n;
  return 0;
}

/* The regions tuned on their own, decided on the untuned run as the tuner decides: those whose
 * governed time is at least min_s per execution, children first (a parent governs what its
 * children do not). */
static void tuned_regions(const json_t *node, double min_s, int need_energy, json_t *tuned) {
  size_t i;
  const json_t *c;
  json_array_foreach(json_object_get(node, "children"), i, c)
      tuned_regions(c, min_s, need_energy, tuned);
  const char *p = json_string_value(json_object_get(node, "path"));
  ergo__measure m;
  int calls;
  if (p && json_integer_value(json_object_get(node, "depth")) >= 1 &&
      !governed(node, tuned, need_energy, &m, &calls) && m.time_s >= min_s)
    json_array_append_new(tuned, json_string(p));
}

static const json_t *find_path(const json_t *node, const char *path) {
  const char *p = json_string_value(json_object_get(node, "path"));
  if (p && strcmp(p, path) == 0) return node;
  size_t i;
  const json_t *c;
  json_array_foreach(json_object_get(node, "children"), i, c) {
    const json_t *hit = find_path(c, path);
    if (hit) return hit;
  }
  return NULL;
}

/* ---- the model ---- */

typedef struct point {
  ergo__config c;
  ergo__measure m;
  int n;
} point;

/* One tuned region's entry in the model, from every run's report: 0, 1 when the untuned run has
 * no energy for it (it is left out), or ERGO_ENOMEM.  *best_out receives its best point.  A
 * time-only objective (need_energy 0) takes runs without energy. */
static int region_entry(ergo__model *model, const char *path, const json_t *tuned,
                        const json_t *const *roots, const grid *g, const ergo__config *base_cfg,
                        int repeats, const ergo__objective *o, int need_energy, int cores,
                        point *best_out, ergo__measure *base_out) {
  ergo__measure base;
  int calls;
  if (governed(find_path(roots[0], path), tuned, need_energy, &base, &calls)) return 1;
  base.resource =
      base_cfg->v[ERGO__KNOB_THREADS] ? (double)base_cfg->v[ERGO__KNOB_THREADS] / cores : 1.0;
  point *pts = calloc((size_t)g->n + 1, sizeof *pts);
  if (!pts) return ERGO_ENOMEM;
  int np = 0;
  pts[np++] = (point){*base_cfg, base, calls};
  for (int i = 0; i < g->n; i++) {
    ergo__measure sum = {0, 0, 0};
    int n = 0, ok = 1;
    for (int r = 0; r < repeats && ok; r++) {
      ergo__measure m;
      ok = !governed(find_path(roots[1 + i * repeats + r], path), tuned, need_energy, &m, &calls);
      if (!ok) break;
      sum.time_s += m.time_s;
      sum.energy_j += m.energy_j;
      n += calls;
    }
    if (!ok) continue;
    point p = {g->c[i], {sum.time_s / repeats, sum.energy_j / repeats, 1.0}, n};
    p.m.resource = p.c.v[ERGO__KNOB_THREADS] ? (double)p.c.v[ERGO__KNOB_THREADS] / cores : 1.0;
    pts[np++] = p;
  }
  /* The best for the objective against the untuned run; ties keep the earlier (the baseline). */
  int best = 0;
  for (int i = 1; i < np; i++)
    if (ergo__objective_value(o, &pts[i].m, &base) < ergo__objective_value(o, &pts[best].m, &base))
      best = i;
  *best_out = pts[best];
  *base_out = base;
  /* Every point measured, the time/energy Pareto set first: as the sweep policy writes them. */
  ergo__model_region *r = ergo__model_region_add(model, path);
  int rc = r ? 0 : ERGO_ENOMEM;
  for (int i = 0; i < np && !rc; i++)
    rc = ergo__model_point_add(r, &pts[i].c, pts[i].m.time_s, pts[i].m.energy_j, pts[i].n);
  free(pts);
  if (rc) return rc;
  r->best = best_out->c;
  r->baseline = base;
  ergo__model_pareto(r);
  return 0;
}

/* The tuned regions of the untuned run's main tree, in tree order. */
static void collect(const json_t *node, const json_t *tuned, json_t *out) {
  const char *p = json_string_value(json_object_get(node, "path"));
  if (p && in_set(tuned, p)) json_array_append_new(out, json_string(p));
  size_t i;
  const json_t *c;
  json_array_foreach(json_object_get(node, "children"), i, c) collect(c, tuned, out);
}

static int write_model(const char *out, const json_t *const *roots, const grid *g,
                       const ergo__space *s, const ergo__config *base_cfg, int repeats,
                       const ergo__objective *o, int need_energy, const char *platform,
                       int *nregions) {
  double min_ms = MIN_REGION_MS;
  const char *env = getenv("ERGO_MIN_REGION_MS");
  if (env) {
    char *end;
    double v = strtod(env, &end);
    if (end == env || *end || !(v >= 0 && v <= 3600000))
      fprintf(stderr,
              "ergo sweep: ERGO_MIN_REGION_MS='%s' is not valid: expected milliseconds "
              "from 0 to 3600000; using %g\n",
              env, min_ms);
    else
      min_ms = v;
  }
  ergo__model model;
  memset(&model, 0, sizeof model);
  snprintf(model.policy, sizeof model.policy, "sweep-runs");
  ergo__objective_name(o, model.objective, sizeof model.objective);
  snprintf(model.platform, sizeof model.platform, "%s", platform);
  json_t *paths = json_array(), *tuned = json_array();
  tuned_regions(roots[0], min_ms * 1e-3, need_energy, tuned);
  collect(roots[0], tuned, paths);
  *nregions = 0;
  int rc = 0, measured = 0; /* measured: some run had an energy reading */
  size_t i;
  json_t *pj;
  json_array_foreach(paths, i, pj) {
    point best;
    ergo__measure base;
    const char *path = json_string_value(pj);
    rc = region_entry(&model, path, tuned, roots, g, base_cfg, repeats, o, need_energy, s->cores,
                      &best, &base);
    if (rc < 0) break;
    if (rc > 0) { /* the untuned run has no energy for it: left out */
      rc = 0;
      continue;
    }
    measured |= base.energy_j > 0 || best.m.energy_j > 0;
    char cfg[256];
    fixed_text(&best.c, cfg, sizeof cfg);
    double dt = base.time_s > 0 ? 100.0 * (best.m.time_s - base.time_s) / base.time_s : 0.0;
    if (base.energy_j > 0)
      printf("  %-50s %s: energy %+.1f%%, time %+.1f%%\n", path, cfg,
             100.0 * (best.m.energy_j - base.energy_j) / base.energy_j, dt);
    else
      printf("  %-50s %s: time %+.1f%% (no energy measured)\n", path, cfg, dt);
    ++*nregions;
  }
  json_decref(paths);
  json_decref(tuned);
  /* The library's writer: the same format as the sweep policy's model, written atomically (a
   * temporary file, fsync, rename); a failure is one warning line naming the file and the fix. */
  if (!measured) ergo__model_no_energy(&model); /* null, not the 0 J of runs with no meter */
  if (!rc) rc = ergo__model_save(out, &model, s);
  ergo__model_free(&model);
  if (rc == ERGO_ENOMEM) return failure("out of memory while writing the model");
  /* The writer's warning line above says why and what to do. */
  if (rc) return failure("the model cannot be written to '%s' (see the line above)", out);
  return 0;
}

/* ---- the command ---- */

static void remove_dir(const char *dir, int nruns) {
  static const char *const files[] = {"run-%d.json", "run-%d.log", "run-%d-steps.txt",
                                      "run-%d-balance.txt"};
  char path[4200], name[64];
  for (int k = 1; k <= nruns; k++)
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
      snprintf(name, sizeof name, files[f], k);
      snprintf(path, sizeof path, "%s/%s", dir, name);
      unlink(path);
    }
  rmdir(dir);
}

static int sweep_run(int argc, char **argv) {
  const char *grid_arg = NULL, *objective = NULL, *out = NULL, *platform = NULL;
  int runs = 0, i = 1;
  static const char *const names[] = {"--grid", "--objective", "--out", "--platform"};
  const char **slots[] = {&grid_arg, &objective, &out, &platform};
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      sweep_usage(stdout);
      return ERGO_CLI_OK;
    }
    if (strcmp(a, "--runs") == 0) {
      runs = 1;
      continue;
    }
    if (a[0] != '-') break;
    int r = 0;
    for (size_t k = 0; k < sizeof names / sizeof *names && !r; k++)
      r = ergo_cli_value("ergo sweep", argc, argv, &i, names[k], slots[k]);
    if (r < 0) return ERGO_CLI_USAGE;
    if (!r)
      return usage_error("unknown option '%s': expected --runs, --grid, --objective, --out, "
                         "--platform, --help, or -- before the application",
                         a);
  }
  if (!grid_arg) grid_arg = "small";
  if (!out) out = "ergo-model.json";
  if (!runs)
    return usage_error("--runs is required: this command runs the application once per "
                       "configuration (for a sweep inside one run: ergo run --policy sweep -- "
                       "APP)");
  if (i >= argc)
    return usage_error("no application given: expected ergo sweep --runs [options] -- APP "
                       "[ARGS...]");
  char **app = argv + i;
  ergo__objective obj;
  char why[1024];
  if (ergo__objective_parse(objective, &obj, why, sizeof why)) {
    const char *expected = strstr(why, "expected");
    return usage_error("--objective '%s' is not valid: %s", objective, expected ? expected : why);
  }
  /* time, or weighted without energy's term: runs without an energy meter do (the README's
   * time-only objectives). */
  int time_only =
      obj.kind == ERGO__OBJ_TIME || (obj.kind == ERGO__OBJ_WEIGHTED && obj.w_energy == 0);
  if (!*out) return usage_error("--out is empty: expected a file path");
  /* Said now, not after every run: the model is the only thing the runs are for. */
  char unwritable[PATH_MAX + 128];
  if (ergo__path_writable(out, unwritable, sizeof unwritable))
    return usage_error("--out '%s' cannot be written: %s (fix: create the directory or give "
                       "another path)",
                       out, unwritable);
  if (!platform) platform = getenv("ERGO_PLATFORM");
  if (!platform || !*platform) platform = "auto";
  if (strcmp(platform, "real") && strcmp(platform, "sim") && strcmp(platform, "auto"))
    return usage_error("--platform '%s' is not valid: expected real, sim or auto", platform);

  ergo__space space;
  char plat[16];
  if (node_space(platform, &space, plat, sizeof plat))
    return failure("cannot start ergo on platform %s to read the knobs (see the line above)",
                   platform);
  /* The runs use what the node check found: "auto" might pick otherwise later. */
  platform = plat;
  int nknobs = 0;
  for (int k = 0; k < ERGO__NKNOBS; k++) nknobs += space.n[k] > 1;
  if (!nknobs)
    return failure("platform %s has no knob with more than one value: nothing to calibrate "
                   "(`ergo info` says why)",
                   platform);
  ergo__config base_cfg;
  for (int k = 0; k < ERGO__NKNOBS; k++) base_cfg.v[k] = space.n[k] ? space.baseline[k] : 0;
  grid g = {0, NULL};
  int repeats = 1, rc;
  if (strcmp(grid_arg, "small") == 0)
    rc = grid_small(&g, &space) ? ERGO_CLI_FAIL : ERGO_CLI_OK;
  else
    rc = grid_spec(&g, &space, grid_arg, &repeats);
  if (rc) {
    free(g.c);
    return rc;
  }
  /* The untuned run is the baseline's measurement: no second run of it. */
  int kept = 0;
  for (int k = 0; k < g.n; k++)
    if (memcmp(&g.c[k], &base_cfg, sizeof base_cfg)) g.c[kept++] = g.c[k];
  g.n = kept;
  int nruns = 1 + g.n * repeats;
  if (nruns > MAX_RUNS) {
    free(g.c);
    return usage_error("--grid '%s' makes %d runs; at most %d are accepted (fix: fewer values)",
                       grid_arg, nruns, MAX_RUNS);
  }

  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/ergo-sweep-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    free(g.c);
    return failure("cannot make a directory for the runs' reports in %s: %s",
                   tmp && *tmp ? tmp : "/tmp", strerror(errno));
  }
  char times[32] = "";
  if (repeats > 1) snprintf(times, sizeof times, ", %d runs each", repeats);
  printf("ergo sweep: %d runs of %s on platform %s (untuned, then %d configuration%s%s)\n", nruns,
         app[0], platform, g.n, g.n == 1 ? "" : "s", times);
  json_t **docs = calloc((size_t)nruns, sizeof *docs);
  const json_t **roots = calloc((size_t)nruns, sizeof *roots);
  rc = docs && roots ? ERGO_CLI_OK : ERGO_CLI_FAIL;
  for (int k = 0; k < nruns && rc == ERGO_CLI_OK; k++) {
    const ergo__config *c = k ? &g.c[(k - 1) / repeats] : NULL;
    char report[4200], what[256];
    snprintf(report, sizeof report, "%s/run-%d.json", dir, k + 1);
    if (c)
      fixed_text(c, what, sizeof what);
    else
      snprintf(what, sizeof what, "untuned");
    printf("ergo sweep: run %d/%d %s", k + 1, nruns, what);
    fflush(stdout);
    if (run_app(app, c, platform, dir, k + 1, report) ||
        !(docs[k] = read_report(report, &roots[k]))) {
      printf("\n");
      rc = ERGO_CLI_FAIL;
      break;
    }
    ergo__measure total = {json_number_value(json_object_get(roots[k], "time_s")), 0, 0};
    const json_t *e = json_object_get(json_object_get(roots[k], "energy"), "total");
    printf(": %.3f s", total.time_s);
    if (json_is_number(e)) printf(", %.2f J", json_number_value(e));
    printf("\n");
    if (k == 0 && !json_is_number(e) && !time_only) {
      rc = failure("the untuned run measured no energy, which objective %s weighs (no energy "
                   "meter here: `ergo info` says why; fix: --objective time, ERGO_ENERGY=estimate, "
                   "or --platform sim to simulate one)",
                   ergo__objective_name(&obj, why, sizeof why));
      break;
    }
  }
  if (rc == ERGO_CLI_OK) {
    int nregions = 0;
    printf("ergo sweep: best configurations (%s), against the untuned run:\n",
           ergo__objective_name(&obj, why, sizeof why));
    rc = write_model(out, roots, &g, &space, &base_cfg, repeats, &obj, !time_only, platform,
                     &nregions);
    if (rc == ERGO_CLI_OK)
      printf("ergo sweep: model of %d region%s written to %s\n", nregions, nregions == 1 ? "" : "s",
             out);
  }
  for (int k = 0; docs && k < nruns; k++) json_decref(docs[k]);
  free(docs);
  free((void *)roots);
  free(g.c);
  /* A failed run's output stays for the user to read, and is said to. */
  if (rc == ERGO_CLI_OK)
    remove_dir(dir, nruns);
  else
    failure("the runs' reports and output are kept in %s (remove it when done)", dir);
  return rc;
}

const ergo_cli_command ergo_cli_sweep = {
    .name = "sweep",
    .summary = "calibrate regions that run once: one run per configuration, one model",
    .run = sweep_run,
};
