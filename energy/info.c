/* info.c - ergo_energy_info_json(): every energy backend, whether it opens here, and why not; and
 * whether the work counter ERGO_WORK=instructions reads (instructions retired) opens. */
#include "energy/meter.h"
#include "energy/work_counter.h"

#include "ergo.h"

#include <jansson.h>
#include <string.h>

/* Report order: the "auto" order first, then the estimate, which auto never picks. */
static const char *const backends[] = {"powercap", "perf", "papi", "estimate"};
static const char *const auto_order[] = {"powercap", "perf", "papi"};

static int in_auto_order(const char *name) {
  for (size_t i = 0; i < sizeof auto_order / sizeof *auto_order; i++)
    if (strcmp(auto_order[i], name) == 0) return 1;
  return 0;
}

static json_t *domains_json(const ergo__meter *m) {
  json_t *arr = json_array();
  for (int i = 0; arr && i < m->ndomains; i++) {
    const ergo__domain *d = &m->dom[i];
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(d->name));
    json_object_set_new(o, "package", json_integer(d->package));
    json_object_set_new(o, "in_total", json_boolean(d->in_total));
    json_object_set_new(o, "max_range_j",
                        d->range_ticks ? json_real((double)d->range_ticks * d->joules_per_tick)
                                       : json_null());
    json_array_append_new(arr, o);
  }
  return arr;
}

/* ergo__meter_open prefixes each reason with "<backend>: "; the JSON names the backend already. */
static const char *strip_prefix(const char *why, const char *name) {
  size_t n = strlen(name);
  if (strncmp(why, name, n) == 0 && strncmp(why + n, ": ", 2) == 0) return why + n + 2;
  return why;
}

static json_t *source_json(const char *name, int *available) {
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(name));
  ergo__meter m;
  char why[ERGO__WHY_LEN * 4] = "";
  *available = ergo__meter_find(name) && ergo__meter_open(&m, name, why, sizeof why) == 0;
  json_object_set_new(o, "available", json_boolean(*available));
  if (*available) {
    if (m.label) json_object_set_new(o, "label", json_string(m.label));
    json_object_set_new(o, "domains", domains_json(&m));
    ergo__meter_close(&m);
  } else {
    json_object_set_new(o, "reason",
                        json_string(why[0] ? strip_prefix(why, name) : "not built into ergo"));
  }
  return o;
}

char *ergo_energy_info_json(void) {
  json_t *root = json_object();
  json_t *sources = json_array();
  if (!root || !sources) {
    json_decref(root);
    json_decref(sources);
    return NULL;
  }
  /* "auto" is the first available in its order; each backend is opened once, here. */
  const char *auto_pick = NULL;
  for (size_t i = 0; i < sizeof backends / sizeof *backends; i++) {
    int available = 0;
    json_array_append_new(sources, source_json(backends[i], &available));
    if (available && !auto_pick && in_auto_order(backends[i])) auto_pick = backends[i];
  }
  json_object_set_new(root, "sources", sources);
  json_object_set_new(root, "auto", auto_pick ? json_string(auto_pick) : json_null());
  char why[512] = "";
  int work = ergo__work_counter_probe(why, sizeof why) == 0;
  json_t *w = json_object();
  json_object_set_new(w, "name", json_string("instructions"));
  json_object_set_new(w, "available", json_boolean(work));
  if (!work) json_object_set_new(w, "reason", json_string(why));
  json_object_set_new(root, "work_counter", w);
  /* 15 significant digits print a range of 262143328850 uJ as 262143.32885, not ...85000001. */
  char *s = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
  json_decref(root);
  return s;
}
