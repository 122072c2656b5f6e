/* report_json.c - the whole-tree JSON report, and the snapshot set every machine report reads. */
#include "internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Format of the report (bump the version when a key changes meaning):
 *   {"format":"ergo-report","version":2,"platform":"real|sim","clock":"tsc|monotonic|user",
 *    "run":{"application","ergo_version","host","date","steps","platform":"real|sim|estimate",
 *           "policy","objective","model","energy"} (how the run was made: strings, null when
 *           none; date is ergo_init's, UTC; steps counts ergo_step calls; "complete": true
 *           when ergo_finalize wrote it, false for a report written during the run (ERGO_SAVE_EVERY
 *           or the code's own ergo_report_json); merged over MPI ranks also "hosts":[every rank's
 *           host, once each]),
 *    "quantities":[{"name":"energy","unit":"J","rate_unit":"W","label":null,
 *                   "components":["package-0","dram-0"],"total_of":[...]}],
 *    "threads":[{"thread":0,"tree":NODE}, ...],
 *    "sections":[{"name","time_s","calls","running","energy":{...} or null,"ranks":{"n","ran"}},
 *                ...] (ergo_section_*, in creation order; time_s counts a running interval so
 *                far; [] when none; energy as a NODE's without "self", its share_of_parent the
 *                share of Global's; merged: "ranks", time_s the mean over the ranks, calls and
 *                energy sums; added within version 2),
 *    "mpi":{"ranks":4,"nodes":2,"merged":true,"rank":-1}}  (rank: whose tree; -1 = merged)
 *   A merged report (an MPI job, rank 0) has one tree, thread 0, for the whole job: time_s is
 *   the mean over the ranks and every NODE has "ranks":{"n","ran","min_s","max_s","mean_s",
 *   "std_s","imbalance"} (a rank without the region counts 0 s; imbalance = max/mean - 1);
 *   calls and quantities are sums over the ranks (energy: over the nodes' readers).
 *   NODE = {"name","path","level","depth","time_s","self_s","calls","mean_s","min_s","max_s",
 *           "share_of_parent","open","setting","significance","children":[NODE...],
 *           "energy":{"unit","total","self","share_of_parent","lower_bound","rate",
 *                     "components":{...}} or null}
 *   ("significance": how a tuning policy judged the region, {"judged": true when it was tuned on
 *    its own, "reason": why (a sentence), "mean_s": the own time per execution it was judged on
 *    (the median of the last 3), "work": where its work per execution came from, "units"
 *    (ergo_region_work), "counter" (the sim node's modelled work, or instructions retired under
 *    ERGO_WORK=instructions) or "none"}; null when no
 *    tuning policy ran.  Added within version 2.)
 *   ("setting": the knob values the tuner applied to the region, named as in the tuning model
 *    ({"core_khz":1800000,"threads":8,"varied":false}; varied: its executions ran under several,
 *    as an online search does; the values are the last execution's), null for a region not tuned.
 *    Version 2 added "run" and "setting".)
 *   ("rate": total per second, per node when merged: watts for energy; see ergo__q_rate.
 *    A merged mean_s is the time summed over ranks / the calls summed over ranks.)
 *   (one key per attached quantity, named after it)
 * "path" joins the names from Global down with "/" ("Global/FIND_HSML/NGB"); a slash or
 * backslash inside a name gets a backslash before it (region "a/b" has path Global/a\/b),
 * so a path names one region and can key tables across reports and runs.  time_s is
 * inclusive and counts an open call so far; calls, mean_s, min_s and max_s count completed
 * calls only (0 when there are none), except Global's: it is one call lasting the run (or
 * step), so its min_s = max_s = its time (over restarted segments: the shortest and longest). */
#define ERGO__JSON_REPORT_VERSION 2

int ergo__snapset_take(ergo__snapset *set, const char *what, const char *path) {
  memset(set, 0, sizeof *set);
  if (!path || !*path) {
    ergo__error("%s: the path is %s; nothing written (fix: pass a file path)", what,
                path ? "empty" : "NULL");
    return ERGO_EINVAL;
  }
  if (!ergo__g.initialized) {
    ergo__warn("%s('%s'): ergo is not initialised; nothing written (fix: call it between "
               "ergo_init and ergo_finalize)",
               what, path);
    return ERGO_ESTATE;
  }
  const ergo__snap *merged = ergo__merged();
  if (merged) { /* rank 0 at finalize: the job's one tree stands for every thread and rank */
    set->snaps = (ergo__snap *)merged;
    set->threads = calloc(1, sizeof *set->threads);
    set->n = 1;
    set->borrowed = 1;
    if (set->threads) return 0;
    ergo__error("%s('%s'): out of memory; nothing written", what, path);
    memset(set, 0, sizeof *set);
    return ERGO_ENOMEM;
  }
  int rc = 0;
  /* The lock keeps threads from registering trees while the list is walked. */
  pthread_mutex_lock(&ergo__g.lock);
  size_t n = 0;
  for (ergo__tree *t = ergo__g.trees; t; t = t->next)
    if (t == ergo__g.main_tree || ergo__g.cfg.report_threads) n++;
  set->snaps = calloc(n ? n : 1, sizeof *set->snaps);
  set->threads = calloc(n ? n : 1, sizeof *set->threads);
  if (!set->snaps || !set->threads) rc = ERGO_ENOMEM;
  /* The main tree comes first whatever its place in the list. */
  for (int pass = 0; pass < 2 && !rc; pass++)
    for (ergo__tree *t = ergo__g.trees; t && !rc; t = t->next) {
      int is_main = t == ergo__g.main_tree;
      if (pass == 0 ? !is_main : is_main || !ergo__g.cfg.report_threads) continue;
      rc = ergo__snap_take(t, 0, &set->snaps[set->n]);
      if (!rc) set->threads[set->n++] = t->index;
    }
  pthread_mutex_unlock(&ergo__g.lock);
  if (rc) {
    if (rc == ERGO_ENOMEM) ergo__error("%s('%s'): out of memory; nothing written", what, path);
    ergo__snapset_free(set);
  }
  return rc;
}

void ergo__snapset_free(ergo__snapset *set) {
  if (!set) return;
  if (!set->borrowed) {
    for (size_t i = 0; i < set->n; i++) ergo__snap_free(&set->snaps[i]);
    free(set->snaps);
  }
  free(set->threads);
  memset(set, 0, sizeof *set);
}

double ergo__snap_self_s(const ergo__snap *s) {
  double sum = 0;
  for (size_t i = 0; i < s->nchildren; i++) sum += s->children[i].time_s;
  /* Clock reads of nested regions differ by a few ticks: never show negative self time. */
  return s->time_s > sum ? s->time_s - sum : 0.0;
}

double ergo__snap_share(const ergo__snap *s, const ergo__snap *parent) {
  if (!parent) return 1.0;
  return parent->time_s > 0 ? s->time_s / parent->time_s : 0.0;
}

double ergo__snap_mean_s(const ergo__snap *s) {
  /* Merged: time_s is the mean over ranks, calls the sum; the time over all ranks is n times.
   * (The merged Global counts one call for the job: its mean is the ranks' mean.) */
  double total = s->nranks && s->depth > 0 ? s->time_s * s->nranks : s->time_s;
  return s->calls ? total / (double)s->calls : 0.0;
}

char *ergo__path_join(const char *parent_path, const char *name) {
  size_t a = parent_path ? strlen(parent_path) + 1 : 0, b = strlen(name);
  char *p = malloc(a + 2 * b + 1);
  if (!p) return NULL;
  if (parent_path) {
    memcpy(p, parent_path, a - 1);
    p[a - 1] = '/';
  }
  /* Escaped so that a "/" inside a name never reads as a level of the path. */
  char *o = p + a;
  for (const char *c = name; *c; c++) {
    if (*c == '/' || *c == '\\') *o++ = '\\';
    *o++ = *c;
  }
  *o = '\0';
  return p;
}

static json_int_t json_count(uint64_t n) {
  /* A count beyond 2^63 cannot occur in practice; clamp rather than wrap negative. */
  return n > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)n;
}

/* The setting applied to a tuned region, or null. */
static json_t *setting_json(const ergo__snap *s) {
  if (!s->has_setting) return json_null();
  const char *const *names;
  int n = ergo__facts_setting_names(&names);
  json_t *o = json_object();
  for (int i = 0; o && i < n; i++)
    if (s->setting[i]) json_object_set_new(o, names[i], json_integer((json_int_t)s->setting[i]));
  if (o) json_object_set_new(o, "varied", json_boolean(s->setting_varied));
  return o ? o : json_null();
}

/* How the tuner judged the region, or null (no tuning policy ran, or another thread's). */
static json_t *significance_json(const ergo__snap *s) {
  if (!s->has_sig) return json_null();
  json_t *o = json_pack("{s:b, s:s, s:f, s:s}", "judged", s->sig.judged, "reason",
                        s->sig.reason ? s->sig.reason : "", "mean_s", s->sig.mean_s, "work",
                        s->sig.work ? s->sig.work : "none");
  return o ? o : json_null();
}

/* How the run was made: the facts in their order, steps after the date. */
static json_t *run_json(void) {
  json_t *o = json_object();
  const ergo__fact *f;
  size_t n = ergo__facts_get(&f);
  for (size_t i = 0; o && i < n; i++) {
    json_object_set_new(o, f[i].key, f[i].value ? json_string(f[i].value) : json_null());
    if (strcmp(f[i].key, "date") == 0) {
      json_object_set_new(o, "steps", json_integer(ergo__facts_steps()));
      json_object_set_new(o, "complete", json_boolean(ergo__g.finalizing));
    }
  }
  const char *const *hosts;
  size_t nh = ergo__merged_hosts(&hosts);
  if (o && nh) {
    json_t *a = json_array();
    for (size_t i = 0; a && i < nh; i++) json_array_append_new(a, json_string(hosts[i]));
    json_object_set_new(o, "hosts", a);
  }
  return o ? o : json_null();
}

static json_t *node_json(const ergo__snap *s, const ergo__snap *parent, const char *parent_path) {
  char *path = ergo__path_join(parent_path, s->name);
  json_t *kids = json_array();
  if (!path || !kids) {
    free(path);
    json_decref(kids);
    return NULL;
  }
  for (size_t i = 0; i < s->nchildren; i++) {
    if (json_array_append_new(kids, node_json(&s->children[i], s, path))) {
      free(path);
      json_decref(kids);
      return NULL;
    }
  }
  json_t *o =
      json_pack("{s:s, s:s, s:i, s:i, s:f, s:f, s:I, s:f, s:f, s:f, s:f, s:b, s:o}", "name",
                s->name, "path", path, "level", s->level, "depth", s->depth, "time_s", s->time_s,
                "self_s", ergo__snap_self_s(s), "calls", json_count(s->calls), "mean_s",
                ergo__snap_mean_s(s), "min_s", s->min_s, "max_s", s->max_s, "share_of_parent",
                ergo__snap_share(s, parent), "open", s->open, "children", kids);
  free(path);
  if (o) json_object_set_new(o, "setting", setting_json(s));
  if (o) json_object_set_new(o, "significance", significance_json(s));
  /* Merged over ranks: the ranks' figures behind time_s (their mean). */
  if (o && s->nranks)
    json_object_set_new(o, "ranks",
                        json_pack("{s:i, s:i, s:f, s:f, s:f, s:f, s:f}", "n", s->nranks, "ran",
                                  s->ranks_ran, "min_s", s->r_min_s, "max_s", s->r_max_s, "mean_s",
                                  s->time_s, "std_s", s->r_std_s, "imbalance",
                                  s->time_s > 0 ? s->r_max_s / s->time_s - 1 : 0.0));
  /* Each attached quantity (energy) as {"unit","total","self","share_of_parent",
   * "components":{...}}, or null where it did not measure the region. */
  for (int qi = 0; o && qi < ERGO_MAX_QUANTITIES; qi++) {
    const ergo__qslot *q = &ergo__quants[qi];
    if (!q->used) continue;
    json_t *v = s->q_ok & ERGO__Q_BELOW(qi)
                    ? json_pack("{s:s}", "unmeasured", "below meter resolution")
                    : json_null();
    if (s->q_ok & (1u << qi)) {
      json_t *comp = json_object();
      for (int c = 0; c < q->q.ncomponents; c++)
        json_object_set_new(comp, q->q.components[c], json_real(s->q[qi][c]));
      v = json_pack("{s:s, s:f, s:f, s:f, s:b, s:o}", "unit", q->q.unit, "total",
                    ergo__snap_q_total(s, qi), "self", ergo__snap_q_self(s, qi), "share_of_parent",
                    ergo__snap_q_share(s, parent, qi), "lower_bound",
                    (s->q_ok & ERGO__Q_LOWER(qi)) != 0, "components", comp);
      if (v && q->q.rate_unit) /* amount per second, per node: "rate" in "rate_unit" */
        json_object_set_new(v, "rate", json_real(ergo__snap_q_rate(s, qi)));
    }
    json_object_set_new(o, q->q.name, v);
  }
  return o;
}

/* What each quantity is: name, unit, label (SIMULATED/ESTIMATE), components, which sum. */
static json_t *quantities_json(void) {
  json_t *a = json_array();
  for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
    const ergo__qslot *q = &ergo__quants[qi];
    if (!q->used) continue;
    json_t *comp = json_array(), *tot = json_array();
    for (int c = 0; c < q->q.ncomponents; c++) {
      json_array_append_new(comp, json_string(q->q.components[c]));
      if (q->q.total_mask & (1u << c)) json_array_append_new(tot, json_string(q->q.components[c]));
    }
    json_array_append_new(a, json_pack("{s:s, s:s, s:s?, s:s?, s:o, s:o}", "name", q->q.name,
                                       "unit", q->q.unit, "rate_unit", q->q.rate_unit, "label",
                                       q->q.label, "components", comp, "total_of", tot));
  }
  return a;
}

/* Every section: [{"name","time_s","calls","running", one key per quantity (energy) as a
 * region's without "self": {"unit","total","share_of_parent","lower_bound","rate",
 * "components"} or null, and merged "ranks":{"n","ran"}}], [] when none.  share_of_parent is
 * the share of Global's amount (global: the report's Global). */
static json_t *sections_json(const ergo__snap *global) {
  json_t *a = json_array();
  ergo__section_fig *sec;
  size_t n = ergo__sections_take(&sec);
  for (size_t i = 0; i < n && a; i++) {
    json_t *o = json_pack("{s:s, s:f, s:I, s:b}", "name", sec[i].name, "time_s", sec[i].time_s,
                          "calls", json_count(sec[i].calls), "running", sec[i].running);
    ergo__snap s;
    ergo__section_snap(&sec[i], &s);
    for (int qi = 0; o && qi < ERGO_MAX_QUANTITIES; qi++) {
      const ergo__qslot *q = &ergo__quants[qi];
      if (!q->used) continue;
      json_t *v = json_null();
      if (s.q_ok & (1u << qi)) {
        json_t *comp = json_object();
        for (int c = 0; c < q->q.ncomponents; c++)
          json_object_set_new(comp, q->q.components[c], json_real(s.q[qi][c]));
        v = json_pack("{s:s, s:f, s:f, s:b, s:o}", "unit", q->q.unit, "total",
                      ergo__snap_q_total(&s, qi), "share_of_parent",
                      global ? ergo__snap_q_share(&s, global, qi) : 0.0, "lower_bound",
                      (s.q_ok & ERGO__Q_LOWER(qi)) != 0, "components", comp);
        if (v && q->q.rate_unit)
          json_object_set_new(v, "rate", json_real(ergo__snap_q_rate(&s, qi)));
      }
      json_object_set_new(o, q->q.name, v);
    }
    if (o && sec[i].nranks)
      json_object_set_new(o, "ranks",
                          json_pack("{s:i, s:i}", "n", sec[i].nranks, "ran", sec[i].ranks_ran));
    json_array_append_new(a, o);
  }
  free(sec);
  return a;
}

/* The report text (malloc'd) in *out; `path` only names the file in warnings. */
static int report_text(const char *path, char **out) {
  *out = NULL;
  ergo__snapset set;
  int rc = ergo__snapset_take(&set, "ergo_report_json", path);
  if (rc) return rc;
  json_t *threads = json_array();
  int bad = !threads;
  for (size_t i = 0; i < set.n && !bad; i++) {
    json_t *tree = node_json(&set.snaps[i], NULL, NULL);
    bad = json_array_append_new(
              threads, json_pack("{s:i, s:o}", "thread", set.threads[i], "tree", tree)) != 0;
  }
  json_t *sections = sections_json(set.n ? &set.snaps[0] : NULL);
  ergo__snapset_free(&set);
  /* "threads": the list of thread trees, not the knob (whose names are in knobs/table.c). */
  json_t *doc =
      bad ? NULL
          : json_pack("{s:s, s:i, s:s, s:s, s:o, s:o}", "format", "ergo-report", "version",
                      ERGO__JSON_REPORT_VERSION, "platform",
                      ergo__g.cfg.platform ? ergo__g.cfg.platform : "real", "clock",
                      ergo_clock_name(), "quantities", quantities_json(), "threads", threads);
  if (doc) json_object_set_new(doc, "run", run_json());
  if (doc)
    json_object_set_new(doc, "sections", sections);
  else
    json_decref(sections);
  /* The job: how many ranks and nodes the tree stands for (1 and 1 for a serial run). */
  const ergo__snap *merged = ergo__merged();
  if (doc)
    json_object_set_new(doc, "mpi",
                        json_pack("{s:i, s:i, s:b, s:i}", "ranks", ergo__rk.size, "nodes",
                                  ergo__rk.nnodes, "merged", merged != NULL, "rank",
                                  merged ? -1 : ergo__rk.rank));
  if (bad) json_decref(threads);
  /* 15 significant digits: below a clock tick for any run time, and free of the binary
   * noise (0.10000000000000001) that 17 digits would show. */
  *out = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) : NULL;
  json_decref(doc);
  if (*out) return 0;
  ergo__error("ergo_report_json('%s'): out of memory while building the report; nothing written",
              path);
  return ERGO_ENOMEM;
}

char *ergo__report_json_string(void) {
  char *text;
  report_text("(string)", &text);
  return text;
}

int ergo_report_json(const char *path) {
  char *text;
  int rc = report_text(path, &text);
  return rc ? rc : ergo__write_json_text(path, text);
}
