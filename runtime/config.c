/* config.c - configuration defaults, ERGO_* environment parsing and validation. */
#include "runtime/config.h"

#include "knobs/table.h"
#include "util/log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ergo_config_default(ergo_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->report_level = -1;
  cfg->balance_level = 2;
  cfg->on_error = ERGO_ON_ERROR_WARN;
  cfg->format = ERGO_FORMAT_PAPER;
  cfg->report_threads = 0;
  cfg->report = "stdout";
  cfg->step_report = "ergo-steps.txt";
  cfg->balance = "ergo-balance.txt";
  cfg->clock_kind = 0;
  cfg->energy = "auto";
  cfg->energy_level = 2;
  cfg->sample_ms = 100;
  cfg->knobs = "auto";
  cfg->platform = "real";
  cfg->sim_seed = 1;
  cfg->policy = "monitor";
  cfg->objective = "energy@5%";
  cfg->min_region_ms = 100;
  cfg->report_ranks = 0;
  cfg->node_split = 1;
}

/* A level: a non-negative integer, or "all" (-1) where allowed. */
static int parse_level(const char *var, const char *v, int allow_all, int *out) {
  if (allow_all && strcmp(v, "all") == 0) {
    *out = -1;
    return 0;
  }
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (errno || end == v || *end || x < 0 || x > 1000) {
    char keep[16];
    if (*out < 0)
      snprintf(keep, sizeof keep, "all");
    else
      snprintf(keep, sizeof keep, "%d", *out);
    ergo__warn("%s='%s' is not valid: expected an integer from 0 to 1000%s; keeping %s", var, v,
               allow_all ? " or 'all'" : "", keep);
    return ERGO_EINVAL;
  }
  *out = (int)x;
  return 0;
}

/* "auto", "none", or a comma list of the knob table's backend names. */
static int parse_knobs(const char *var, const char *v, const char **out) {
  char why[256];
  if (ergo__knob_list_check(v, why, sizeof why)) {
    /* why: "'X' is no knob: expected auto, none, or a comma list of ..." */
    ergo__warn("%s='%s' is not valid: %s; keeping %s", var, v, why, *out ? *out : "auto");
    return ERGO_EINVAL;
  }
  *out = v;
  return 0;
}

/* A period in milliseconds: 0 (off) up to an hour. */
static int parse_ms(const char *var, const char *v, int *out) {
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (errno || end == v || *end || x < 0 || x > 3600000) {
    ergo__warn("%s='%s' is not valid: expected milliseconds from 0 (off) to 3600000; keeping %d",
               var, v, *out);
    return ERGO_EINVAL;
  }
  *out = (int)x;
  return 0;
}

static int parse_choice(const char *var, const char *v, const char *const *names, int n, int *out) {
  for (int i = 0; i < n; i++)
    if (strcmp(v, names[i]) == 0) {
      *out = i;
      return 0;
    }
  char accepted[256] = "";
  for (int i = 0; i < n; i++) {
    strncat(accepted, names[i], sizeof accepted - strlen(accepted) - 1);
    if (i + 1 < n) strncat(accepted, "|", sizeof accepted - strlen(accepted) - 1);
  }
  ergo__warn("%s='%s' is not valid: expected %s; keeping %s", var, v, accepted, names[*out]);
  return ERGO_EINVAL;
}

static int parse_path(const char *var, const char *v, const char **out) {
  if (!*v) {
    ergo__warn("%s is set but empty: expected a file path (unset it to use the default)", var);
    return ERGO_EINVAL;
  }
  *out = v;
  return 0;
}

int ergo_config_from_env(ergo_config *cfg) {
  int rc = 0;
  const char *v;
  static const char *const onerr[] = {"warn", "abort"};
  static const char *const fmt[] = {"paper", "wide"};
  static const char *const bools[] = {"0", "1"};
  static const char *const clocks[] = {"auto", "tsc", "monotonic"};
  int x;
  /* Every variable is read even after a bad one; the first error is returned. */
#define ERGO__RC(call)                                                                             \
  do {                                                                                             \
    int e_ = (call);                                                                               \
    if (e_ && !rc) rc = e_;                                                                        \
  } while (0)
  if ((v = getenv("ERGO_REPORT_LEVEL")))
    ERGO__RC(parse_level("ERGO_REPORT_LEVEL", v, 1, &cfg->report_level));
  if ((v = getenv("ERGO_BALANCE_LEVEL")))
    ERGO__RC(parse_level("ERGO_BALANCE_LEVEL", v, 0, &cfg->balance_level));
  if ((v = getenv("ERGO_ON_ERROR"))) {
    x = (int)cfg->on_error;
    ERGO__RC(parse_choice("ERGO_ON_ERROR", v, onerr, 2, &x));
    cfg->on_error = (ergo_on_error)x;
  }
  if ((v = getenv("ERGO_REPORT_FORMAT"))) {
    x = (int)cfg->format;
    ERGO__RC(parse_choice("ERGO_REPORT_FORMAT", v, fmt, 2, &x));
    cfg->format = (ergo_report_format)x;
  }
  if ((v = getenv("ERGO_REPORT_THREADS"))) {
    x = cfg->report_threads ? 1 : 0;
    ERGO__RC(parse_choice("ERGO_REPORT_THREADS", v, bools, 2, &x));
    cfg->report_threads = x;
  }
  if ((v = getenv("ERGO_CLOCK"))) {
    x = cfg->clock_kind;
    ERGO__RC(parse_choice("ERGO_CLOCK", v, clocks, 3, &x));
    cfg->clock_kind = x;
  }
  if ((v = getenv("ERGO_REPORT"))) ERGO__RC(parse_path("ERGO_REPORT", v, &cfg->report));
  if ((v = getenv("ERGO_REPORT_JSON")))
    ERGO__RC(parse_path("ERGO_REPORT_JSON", v, &cfg->report_json));
  if ((v = getenv("ERGO_REPORT_HATCHET")))
    ERGO__RC(parse_path("ERGO_REPORT_HATCHET", v, &cfg->report_hatchet));
  if ((v = getenv("ERGO_REPORT_CSV"))) ERGO__RC(parse_path("ERGO_REPORT_CSV", v, &cfg->report_csv));
  if ((v = getenv("ERGO_REPORT_STEPS")))
    ERGO__RC(parse_path("ERGO_REPORT_STEPS", v, &cfg->step_report));
  if ((v = getenv("ERGO_BALANCE"))) ERGO__RC(parse_path("ERGO_BALANCE", v, &cfg->balance));
  if ((v = getenv("ERGO_ENERGY"))) {
    static const char *const meters[] = {"auto", "powercap", "perf", "papi", "estimate", "none"};
    x = 0;
    for (int i = 0; i < 6; i++)
      if (cfg->energy && strcmp(cfg->energy, meters[i]) == 0) x = i;
    ERGO__RC(parse_choice("ERGO_ENERGY", v, meters, 6, &x));
    cfg->energy = meters[x];
  }
  if ((v = getenv("ERGO_ENERGY_LEVEL")))
    ERGO__RC(parse_level("ERGO_ENERGY_LEVEL", v, 0, &cfg->energy_level));
  if ((v = getenv("ERGO_SAMPLE_MS"))) ERGO__RC(parse_ms("ERGO_SAMPLE_MS", v, &cfg->sample_ms));
  if ((v = getenv("ERGO_POWER_CSV"))) ERGO__RC(parse_path("ERGO_POWER_CSV", v, &cfg->power_csv));
  if ((v = getenv("ERGO_TRACE"))) ERGO__RC(parse_path("ERGO_TRACE", v, &cfg->trace));
  if ((v = getenv("ERGO_KNOBS"))) ERGO__RC(parse_knobs("ERGO_KNOBS", v, &cfg->knobs));
  if ((v = getenv("ERGO_PLATFORM"))) {
    static const char *const platforms[] = {"real", "sim", "auto"};
    x = 0;
    for (int i = 0; i < 3; i++)
      if (cfg->platform && strcmp(cfg->platform, platforms[i]) == 0) x = i;
    ERGO__RC(parse_choice("ERGO_PLATFORM", v, platforms, 3, &x));
    cfg->platform = platforms[x];
  }
  if ((v = getenv("ERGO_SIM_NODE"))) ERGO__RC(parse_path("ERGO_SIM_NODE", v, &cfg->sim_node));
  if ((v = getenv("ERGO_SIM_NOISE"))) {
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= 0 && d <= 1)) {
      ergo__warn("ERGO_SIM_NOISE='%s' is not valid: expected a log-normal sigma from 0 to 1 "
                 "(0.05 is harsh); keeping %g",
                 v, cfg->sim_noise);
      ERGO__RC(ERGO_EINVAL);
    } else {
      cfg->sim_noise = d;
    }
  }
  if ((v = getenv("ERGO_POLICY"))) {
    static const char *const pols[] = {"monitor", "fixed", "static", "sweep", "online"};
    x = 0;
    for (int i = 0; i < 5; i++)
      if (cfg->policy && strcmp(cfg->policy, pols[i]) == 0) x = i;
    ERGO__RC(parse_choice("ERGO_POLICY", v, pols, 5, &x));
    cfg->policy = pols[x];
  }
  /* ERGO_OBJECTIVE, ERGO_FIXED and ERGO_SWEEP are checked where they are used
   * (the tuner), which says what is wrong with them in one line. */
  if ((v = getenv("ERGO_OBJECTIVE"))) cfg->objective = v;
  if ((v = getenv("ERGO_FIXED"))) cfg->fixed = v;
  if ((v = getenv("ERGO_SWEEP"))) cfg->sweep = v;
  if ((v = getenv("ERGO_MODEL"))) ERGO__RC(parse_path("ERGO_MODEL", v, &cfg->model));
  if ((v = getenv("ERGO_MIN_REGION_MS"))) {
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= 0 && d <= 3600000)) {
      ergo__warn("ERGO_MIN_REGION_MS='%s' is not valid: expected milliseconds from 0 to 3600000; "
                 "keeping %g",
                 v, cfg->min_region_ms);
      ERGO__RC(ERGO_EINVAL);
    } else {
      cfg->min_region_ms = d;
    }
  }
  if ((v = getenv("ERGO_SIM_SEED"))) {
    char *end;
    errno = 0;
    unsigned long long u = strtoull(v, &end, 10);
    if (errno || end == v || *end || *v == '-') {
      ergo__warn("ERGO_SIM_SEED='%s' is not valid: expected a non-negative integer; keeping %llu",
                 v, cfg->sim_seed);
      ERGO__RC(ERGO_EINVAL);
    } else {
      cfg->sim_seed = u;
    }
  }
  if ((v = getenv("ERGO_REPORT_RANKS"))) {
    x = cfg->report_ranks ? 1 : 0;
    ERGO__RC(parse_choice("ERGO_REPORT_RANKS", v, bools, 2, &x));
    cfg->report_ranks = x;
  }
  if ((v = getenv("ERGO_NODE_SPLIT"))) {
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < 1 || n > 4096) {
      ergo__warn("ERGO_NODE_SPLIT='%s' is not valid: expected pretend nodes per node from 1 to "
                 "4096; keeping %d",
                 v, cfg->node_split);
      ERGO__RC(ERGO_EINVAL);
    } else {
      cfg->node_split = (int)n;
    }
  }
#undef ERGO__RC
  return rc;
}

int ergo__config_check(const ergo_config *cfg) {
  if (cfg->report_level < -1) {
    ergo__warn("ergo_config.report_level=%d is not valid: expected -1 (all) or >= 0",
               cfg->report_level);
    return ERGO_EINVAL;
  }
  if (cfg->balance_level < 0) {
    ergo__warn("ergo_config.balance_level=%d is not valid: expected >= 0", cfg->balance_level);
    return ERGO_EINVAL;
  }
  if (cfg->on_error != ERGO_ON_ERROR_WARN && cfg->on_error != ERGO_ON_ERROR_ABORT) {
    ergo__warn("ergo_config.on_error=%d is not valid: expected ERGO_ON_ERROR_WARN or _ABORT",
               (int)cfg->on_error);
    return ERGO_EINVAL;
  }
  if (cfg->format != ERGO_FORMAT_PAPER && cfg->format != ERGO_FORMAT_WIDE) {
    ergo__warn("ergo_config.format=%d is not valid: expected ERGO_FORMAT_PAPER or _WIDE",
               (int)cfg->format);
    return ERGO_EINVAL;
  }
  if (cfg->energy_level < 0) {
    ergo__warn("ergo_config.energy_level=%d is not valid: expected >= 0", cfg->energy_level);
    return ERGO_EINVAL;
  }
  if (cfg->sample_ms < 0 || cfg->sample_ms > 3600000) {
    ergo__warn("ergo_config.sample_ms=%d is not valid: expected 0 (off) to 3600000",
               cfg->sample_ms);
    return ERGO_EINVAL;
  }
  if (!(cfg->sim_noise >= 0 && cfg->sim_noise <= 1)) {
    ergo__warn("ergo_config.sim_noise=%g is not valid: expected 0 to 1", cfg->sim_noise);
    return ERGO_EINVAL;
  }
  if (cfg->platform && strcmp(cfg->platform, "real") && strcmp(cfg->platform, "sim") &&
      strcmp(cfg->platform, "auto")) {
    ergo__warn("ergo_config.platform='%s' is not valid: expected real, sim or auto", cfg->platform);
    return ERGO_EINVAL;
  }
  if (cfg->node_split < 0 || cfg->node_split > 4096) {
    ergo__warn("ergo_config.node_split=%d is not valid: expected 0 to 4096 (0 or 1: real nodes)",
               cfg->node_split);
    return ERGO_EINVAL;
  }
  if (cfg->clock_kind < 0 || cfg->clock_kind > 2) {
    ergo__warn("ergo_config.clock_kind=%d is not valid: expected 0 (auto), 1 (tsc) or 2 "
               "(monotonic)",
               cfg->clock_kind);
    return ERGO_EINVAL;
  }
  return 0;
}
