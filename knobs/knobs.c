/* knobs.c - the open knobs: which of the knob table's backends open here, their descriptions,
 * start and stop. */
#include "knobs/knobs.h"

#include "knobs/state.h"
#include "util/log.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The knob layer's registry: which backends are in use, the knobs and which of them opened. */
static struct {
  int simulated; /* the sim node's knobs while it runs, the machine's otherwise */
  ergo__knob knobs[ERGO__NKNOBS];
  int open_[ERGO__NKNOBS];
} K;

static const ergo__knob_ops *backend(int slot) {
  return K.simulated ? ergo__knob_table[slot].sim : ergo__knob_table[slot].real;
}

ergo__knob *ergo__knob_get(int slot) {
  return slot >= 0 && slot < ERGO__NKNOBS && K.open_[slot] ? &K.knobs[slot] : NULL;
}

static int named(const char *which, const char *name) {
  if (strcmp(which, "auto") == 0) return 1;
  size_t n = strlen(name);
  for (const char *p = which; *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, name, n) == 0) return 1;
    p += len + (p[len] == ',');
  }
  return 0;
}

static int open_one(ergo__knob *k, int slot, char *why, size_t whylen) {
  const ergo__knob_ops *ops = backend(slot);
  memset(k, 0, sizeof *k);
  k->row = &ergo__knob_table[slot];
  k->ops = ops;
  why[0] = '\0';
  int rc = ops->open(k, why, whylen);
  if (rc == 0 && (k->nvalues < 1 || k->nvalues > ERGO__KNOB_MAX_VALUES)) {
    if (ops->close) ops->close(k);
    snprintf(why, whylen, "opened with %d allowed values, which ergo cannot use", k->nvalues);
    rc = ERGO_EINVAL;
  }
  if (rc) memset(k, 0, sizeof *k);
  return rc;
}

int ergo__knobs_start(const char *which, int sim) {
  K.simulated = sim;
  if (!which) which = "auto";
  if (strcmp(which, "none") == 0) return 0;
  int rc = 0;
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    const char *name = ergo__knob_table[i].backend;
    if (K.open_[i] || !named(which, name)) continue;
    char why[ERGO__KNOB_WHY_LEN];
    int r = open_one(&K.knobs[i], i, why, sizeof why);
    if (r == 0) {
      K.open_[i] = 1;
    } else if (strcmp(which, "auto") != 0) {
      ergo__warn("ERGO_KNOBS=%s: %s: %s; that knob is left alone", which, name,
                 why[0] ? why : ergo_strerror(r));
      if (!rc) rc = r;
    }
  }
  return rc;
}

void ergo__knobs_forget_saved(void) {
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    if (!K.open_[i]) continue;
    K.knobs[i].saved = 0;
    K.knobs[i].current_valid = 0;
  }
}

void ergo__knobs_stop(void) {
  ergo__state_restore(); /* belt and braces: every tracked file as found */
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    if (!K.open_[i]) continue;
    if (K.knobs[i].saved && K.knobs[i].ops->restore) K.knobs[i].ops->restore(&K.knobs[i]);
    if (K.knobs[i].ops->close) K.knobs[i].ops->close(&K.knobs[i]);
    memset(&K.knobs[i], 0, sizeof K.knobs[i]);
    K.open_[i] = 0;
  }
  K.simulated = 0;
}

char *ergo_knobs_info_json(void) {
  json_t *list = json_array();
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    const ergo__knob_ops *ops = backend(i);
    const ergo__knob_row *row = &ergo__knob_table[i];
    ergo__knob tmp, *k = K.open_[i] ? &K.knobs[i] : &tmp;
    char why[ERGO__KNOB_WHY_LEN] = "";
    int rc = K.open_[i] ? 0 : open_one(&tmp, i, why, sizeof why);
    json_t *o;
    if (rc) {
      o = json_pack("{s:s, s:b, s:s}", "name", row->backend, "available", 0, "reason",
                    why[0] ? why : ergo_strerror(rc));
    } else {
      json_t *vals = json_array();
      for (int v = 0; v < k->nvalues; v++) json_array_append_new(vals, json_integer(k->values[v]));
      int64_t cur = 0;
      int got = ops->get(k, &cur) == 0;
      o = json_pack("{s:s, s:b, s:s, s:o, s:o}", "name", row->backend, "available", 1, "unit",
                    row->unit, "values", vals, "current", got ? json_integer(cur) : json_null());
      if (!K.open_[i] && ops->close) ops->close(&tmp);
    }
    json_array_append_new(list, o);
  }
  json_t *doc = json_pack("{s:o}", "knobs", list);
  char *text = json_dumps(doc, JSON_INDENT(2));
  json_decref(doc);
  return text;
}
