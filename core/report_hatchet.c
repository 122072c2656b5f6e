/* report_hatchet.c - the region tree as Hatchet "literal" JSON (GraphFrame.from_literal). */
#include "internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

/* Hatchet reads a list of root dicts
 *   {"frame":{"name":N,"type":"region","path":P},
 *    "metrics":{"time (inc)":inclusive_s,"time":exclusive_s,"calls":n},"children":[...]}
 * and takes metrics named "... (inc)" as inclusive, so every node carries the same three
 * metrics.  Hatchet merges nodes whose frames are equal (its literal reader builds a DAG),
 * so the frame carries the region's path (as in the JSON report) to keep "NGB" under two
 * parents two regions.  One root per reported thread: "Global" for the main thread and
 * "Global (thread N)" for the others; paths start with the root's name, which keeps the
 * threads apart too. */

static json_t *node_hatchet(const ergo__snap *s, const char *name, const char *parent_path) {
  char *path = ergo__path_join(parent_path, name);
  json_t *kids = json_array();
  int bad = !path || !kids;
  for (size_t i = 0; i < s->nchildren && !bad; i++)
    bad =
        json_array_append_new(kids, node_hatchet(&s->children[i], s->children[i].name, path)) != 0;
  json_int_t calls = s->calls > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)s->calls;
  json_t *o = bad ? NULL
                  : json_pack("{s:{s:s, s:s, s:s}, s:{s:f, s:f, s:I}, s:o}", "frame", "name", name,
                              "type", "region", "path", path, "metrics", "time (inc)", s->time_s,
                              "time", ergo__snap_self_s(s), "calls", calls, "children", kids);
  if (bad) json_decref(kids);
  free(path);
  /* Quantities as more inclusive/exclusive metric pairs: "energy (inc)" and "energy". */
  json_t *metrics = o ? json_object_get(o, "metrics") : NULL;
  for (int qi = 0; metrics && qi < ERGO_MAX_QUANTITIES; qi++) {
    const ergo__qslot *q = &ergo__quants[qi];
    if (!q->used || !(s->q_ok & (1u << qi))) continue;
    char key[128];
    snprintf(key, sizeof key, "%s (inc)", q->q.name);
    json_object_set_new(metrics, key, json_real(ergo__snap_q_total(s, qi)));
    json_object_set_new(metrics, q->q.name, json_real(ergo__snap_q_self(s, qi)));
  }
  return o;
}

int ergo_report_hatchet(const char *path) {
  ergo__snapset set;
  int rc = ergo__snapset_take(&set, "ergo_report_hatchet", path);
  if (rc) return rc;
  json_t *roots = json_array();
  int bad = !roots;
  for (size_t i = 0; i < set.n && !bad; i++) {
    char name[64];
    if (set.threads[i] == 0)
      snprintf(name, sizeof name, "%s", set.snaps[i].name);
    else
      snprintf(name, sizeof name, "%s (thread %d)", set.snaps[i].name, set.threads[i]);
    bad = json_array_append_new(roots, node_hatchet(&set.snaps[i], name, NULL)) != 0;
  }
  ergo__snapset_free(&set);
  /* Sections (ergo_section_*) as roots of their own after the trees: frame type "section", path
   * "@sections/NAME" (no region path starts with "@"), the same metrics (quantities where
   * measured), inclusive = exclusive (a section has no children). */
  ergo__section_fig *sec;
  size_t nsec = bad ? 0 : ergo__sections_take(&sec);
  for (size_t i = 0; i < nsec && !bad; i++) {
    char *spath = ergo__path_join("@sections", sec[i].name);
    json_int_t calls =
        sec[i].calls > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)sec[i].calls;
    json_t *o =
        spath ? json_pack("{s:{s:s, s:s, s:s}, s:{s:f, s:f, s:I}, s:[]}", "frame", "name",
                          sec[i].name, "type", "section", "path", spath, "metrics", "time (inc)",
                          sec[i].time_s, "time", sec[i].time_s, "calls", calls, "children")
              : NULL;
    json_t *metrics = o ? json_object_get(o, "metrics") : NULL;
    ergo__snap s;
    ergo__section_snap(&sec[i], &s);
    for (int qi = 0; metrics && qi < ERGO_MAX_QUANTITIES; qi++) {
      const ergo__qslot *q = &ergo__quants[qi];
      if (!q->used || !(s.q_ok & (1u << qi))) continue;
      char key[128];
      snprintf(key, sizeof key, "%s (inc)", q->q.name);
      json_object_set_new(metrics, key, json_real(ergo__snap_q_total(&s, qi)));
      json_object_set_new(metrics, q->q.name, json_real(ergo__snap_q_total(&s, qi)));
    }
    bad = !o || json_array_append_new(roots, o) != 0;
    free(spath);
  }
  if (nsec) free(sec);
  char *text = bad ? NULL : json_dumps(roots, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
  json_decref(roots);
  if (!text) {
    ergo__error("ergo_report_hatchet('%s'): out of memory; nothing written", path);
    return ERGO_ENOMEM;
  }
  return ergo__write_json_text(path, text);
}
