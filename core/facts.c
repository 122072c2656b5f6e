/* facts.c - how the reports were made: the run's facts (application, ergo version, host, date,
 * steps, and those the runtime sets: platform, policy, objective, model, energy) and the source of
 * each tuned region's setting, so that a report can be read (and runs compared) without the
 * command line that produced it. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
  ergo__fact facts[ERGO__FACTS_MAX];
  size_t n;
  ergo__setting_fn setting;
  void *setting_ctx;
  ergo__significance_fn sig;
  void *sig_ctx;
  int nsetting;
  const char *setting_names[ERGO__SETTING_MAX];
} F;

/* The program's name: the basename of argv[0] as the kernel started it. */
static void application(char *out, size_t len) {
  snprintf(out, len, "%s", "unknown");
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (!f) return;
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  if (!n || !buf[0]) return;
  const char *slash = strrchr(buf, '/');
  const char *name = slash && slash[1] ? slash + 1 : buf;
  size_t n0 = strlen(name);
  if (n0 >= len) n0 = len - 1;
  memcpy(out, name, n0);
  out[n0] = '\0';
}

void ergo__facts_start(void) {
  ergo__facts_stop();
  char app[256], host[256] = "unknown", date[32] = "";
  application(app, sizeof app);
  if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "unknown");
  host[sizeof host - 1] = '\0';
  time_t now = time(NULL);
  struct tm tm;
  if (gmtime_r(&now, &tm)) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  ergo__fact_set("application", app);
  ergo__fact_set("ergo_version", ERGO_VERSION_STRING);
  ergo__fact_set("host", host);
  ergo__fact_set("date", date);
}

void ergo__facts_stop(void) {
  for (size_t i = 0; i < F.n; i++) free(F.facts[i].value);
  memset(&F, 0, sizeof F);
}

int ergo__fact_set(const char *key, const char *value) {
  if (!key || strlen(key) >= sizeof F.facts[0].key) return ERGO_EINVAL;
  size_t i = 0;
  while (i < F.n && strcmp(F.facts[i].key, key) != 0) i++;
  if (i == ERGO__FACTS_MAX) return ERGO_EBUSY;
  char *v = value ? strdup(value) : NULL;
  if (value && !v) return ERGO_ENOMEM;
  if (i == F.n) snprintf(F.facts[F.n++].key, sizeof F.facts[0].key, "%s", key);
  free(F.facts[i].value);
  F.facts[i].value = v;
  return 0;
}

const char *ergo__fact_get(const char *key) {
  for (size_t i = 0; i < F.n; i++)
    if (strcmp(F.facts[i].key, key) == 0) return F.facts[i].value;
  return NULL;
}

size_t ergo__facts_get(const ergo__fact **facts) {
  *facts = F.facts;
  return F.n;
}

long ergo__facts_steps(void) { return ergo__g.steps_written; }

void ergo__facts_setting_source(ergo__setting_fn fn, void *ctx, int n, const char *const *names) {
  F.setting = fn;
  F.setting_ctx = ctx;
  F.nsetting = fn && n > 0 ? (n < ERGO__SETTING_MAX ? n : ERGO__SETTING_MAX) : 0;
  for (int i = 0; i < F.nsetting; i++) F.setting_names[i] = names[i];
}

void ergo__facts_significance_source(ergo__significance_fn fn, void *ctx) {
  F.sig = fn;
  F.sig_ctx = ctx;
}

void ergo__facts_significance_of(const ergo__node *n, ergo__snap *out) {
  out->has_sig = 0;
  if (!F.sig || n->thread != 0) return;
  ergo__significance s = {0};
  if (F.sig(F.sig_ctx, n, &s) != 1) return;
  out->has_sig = 1;
  out->sig = s;
}

int ergo__facts_setting_names(const char *const **names) {
  *names = F.setting_names;
  return F.nsetting;
}

void ergo__facts_setting_of(const ergo__node *n, ergo__snap *out) {
  out->has_setting = 0;
  if (!F.setting || n->thread != 0) return;
  int varied = 0;
  int64_t v[ERGO__SETTING_MAX] = {0};
  if (F.setting(F.setting_ctx, n, v, &varied) != 1) return;
  out->has_setting = 1;
  out->setting_varied = varied != 0;
  memcpy(out->setting, v, sizeof out->setting);
}

/* "Run: miniapp, ergo 0.2.0, host h, 2026-11-25T22:11:50Z, 100 steps, platform sim, ..." */
void ergo__facts_line(FILE *f) {
  fputs("Run:", f);
  const char *sep = " ";
  for (size_t i = 0; i < F.n; i++) {
    const char *k = F.facts[i].key, *v = F.facts[i].value;
    if (!v || !*v) continue;
    if (strcmp(k, "application") == 0 || strcmp(k, "date") == 0)
      fprintf(f, "%s%s", sep, v);
    else if (strcmp(k, "ergo_version") == 0)
      fprintf(f, "%sergo %s", sep, v);
    else
      fprintf(f, "%s%s %s", sep, k, v);
    sep = ", ";
    if (strcmp(k, "date") == 0)
      fprintf(f, ", %ld step%s", ergo__facts_steps(), ergo__facts_steps() == 1 ? "" : "s");
  }
  fputc('\n', f);
}
