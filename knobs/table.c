/* table.c - the knob table's rows and lookups: the only place a knob's names are written. */
#include "knobs/table.h"

#include "ergo.h"
#include "knobs/knob.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const ergo__knob_row ergo__knob_table[ERGO__NKNOBS] = {
    [ERGO__KNOB_CORE] = {"cpu", "cpufreq", "core_khz", "kHz", "core", &ergo__knob_cpufreq,
                         &ergo__knob_sim_core},
    [ERGO__KNOB_UNCORE] = {"uncore", "uncore", "uncore_khz", "kHz", "uncore", &ergo__knob_uncore,
                           &ergo__knob_sim_uncore},
    [ERGO__KNOB_THREADS] = {"threads", "threads", "threads", "threads", "thr", &ergo__knob_threads,
                            &ergo__knob_sim_threads},
};

static int by(size_t member, const char *s, size_t len) {
  if (!s) return -1;
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    const char *name = *(const char *const *)((const char *)&ergo__knob_table[i] + member);
    if (strlen(name) == len && strncmp(name, s, len) == 0) return i;
  }
  return -1;
}

int ergo__knob_by_key(const char *s, size_t len) {
  return by(offsetof(ergo__knob_row, key), s, len);
}
int ergo__knob_by_backend(const char *s, size_t len) {
  return by(offsetof(ergo__knob_row, backend), s, len);
}
int ergo__knob_by_field(const char *s, size_t len) {
  return by(offsetof(ergo__knob_row, field), s, len);
}

const char *ergo__knob_names(size_t member, char *out, size_t outlen) {
  size_t o = 0;
  if (outlen) out[0] = '\0';
  for (int i = 0; i < ERGO__NKNOBS && o < outlen; i++) {
    const char *name = *(const char *const *)((const char *)&ergo__knob_table[i] + member);
    int n = snprintf(out + o, outlen - o, "%s%s", i ? ", " : "", name);
    if (n < 0) break;
    o += (size_t)n;
  }
  return out;
}

int ergo__knob_list_check(const char *list, char *why, size_t whylen) {
  if (!list || strcmp(list, "auto") == 0 || strcmp(list, "none") == 0) return 0;
  /* The walk ERGO_KNOBS has always had (and ergo__knobs_start's): a comma ends an item, so a
   * trailing comma adds nothing and "" names no knob (opens none); an empty item before another
   * one is no knob. */
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, ",");
    if (ergo__knob_by_backend(p, n) < 0) {
      char names[128];
      snprintf(why, whylen, "'%.*s' is no knob: expected auto, none, or a comma list of %s", (int)n,
               p, ergo__knob_names(offsetof(ergo__knob_row, backend), names, sizeof names));
      return ERGO_EINVAL;
    }
    p += n + (p[n] == ',');
  }
  return 0;
}
