/* report_csv.c - the region trees as one flat CSV table, a row per region, for spreadsheets. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows come in report order: pre-order, children sorted as in the snapshot (by time,
 * descending), so sorting by row number restores the tree.  "path" is the JSON report's
 * (names joined with "/", a slash or backslash in a name escaped with a backslash), so it
 * identifies a row across runs.  Lines end in "\n" (readers of RFC 4180 accept it). */
static const char header[] =
    "thread,path,name,depth,level,calls,time_s,self_s,mean_s,min_s,max_s,share_of_parent";

/* RFC 4180: a field with a comma, quote or line break is quoted and its quotes doubled.
 * ';' is quoted too, so spreadsheets that split on ';' (many European locales) still see
 * one field. */
static void put_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\";\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* After the figures: the setting the tuner applied (setting_<field> per knob, setting_varied;
 * empty cells for a region not tuned), then the run's facts, the same on every row (run_<key>),
 * so that rows of several runs' files can be put in one table. */
static void tail(FILE *f, const ergo__snap *s) {
  const char *const *names;
  int n = ergo__facts_setting_names(&names);
  for (int i = 0; i < n; i++) {
    fputc(',', f);
    if (s->has_setting && s->setting[i]) fprintf(f, "%lld", (long long)s->setting[i]);
  }
  if (n) fputs(s->has_setting ? (s->setting_varied ? ",1" : ",0") : ",", f);
  const ergo__fact *fa;
  size_t nf = ergo__facts_get(&fa);
  for (size_t i = 0; i < nf; i++) {
    fputc(',', f);
    if (fa[i].value) put_field(f, fa[i].value);
    if (strcmp(fa[i].key, "date") == 0) fprintf(f, ",%ld", ergo__facts_steps());
  }
}

static void tail_header(FILE *f) {
  const char *const *names;
  int n = ergo__facts_setting_names(&names);
  for (int i = 0; i < n; i++) fprintf(f, ",setting_%s", names[i]);
  if (n) fputs(",setting_varied", f);
  const ergo__fact *fa;
  size_t nf = ergo__facts_get(&fa);
  for (size_t i = 0; i < nf; i++) {
    fprintf(f, ",run_%s", fa[i].key);
    if (strcmp(fa[i].key, "date") == 0) fputs(",run_steps", f);
  }
}

static int rows(FILE *f, int thread, const ergo__snap *s, const ergo__snap *parent,
                const char *parent_path) {
  char *path = ergo__path_join(parent_path, s->name);
  if (!path) return ERGO_ENOMEM;
  fprintf(f, "%d,", thread);
  put_field(f, path);
  fputc(',', f);
  put_field(f, s->name);
  fprintf(f, ",%d,%d,%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", s->depth, s->level,
          (unsigned long long)s->calls, s->time_s, ergo__snap_self_s(s), ergo__snap_mean_s(s),
          s->min_s, s->max_s, ergo__snap_share(s, parent));
  for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
    const ergo__qslot *q = &ergo__quants[qi];
    if (!q->used) continue;
    if (!(s->q_ok & (1u << qi))) { /* not measured: empty cells, never a made-up 0 */
      for (int c = 0; c < 3 + !!q->q.rate_unit + q->q.ncomponents; c++) fputc(',', f);
      continue;
    }
    fprintf(f, ",%.9g,%.9g,%.9g", ergo__snap_q_total(s, qi), ergo__snap_q_self(s, qi),
            ergo__snap_q_share(s, parent, qi));
    if (q->q.rate_unit) fprintf(f, ",%.9g", ergo__snap_q_rate(s, qi));
    for (int c = 0; c < q->q.ncomponents; c++) fprintf(f, ",%.9g", s->q[qi][c]);
  }
  if (s->nranks)
    fprintf(f, ",%d,%d,%.9g,%.9g,%.9g,%.9g", s->nranks, s->ranks_ran, s->r_min_s, s->r_max_s,
            s->r_std_s, s->time_s > 0 ? s->r_max_s / s->time_s - 1 : 0.0);
  tail(f, s);
  fputc('\n', f);
  int rc = 0;
  for (size_t i = 0; i < s->nchildren && !rc; i++) rc = rows(f, thread, &s->children[i], s, path);
  free(path);
  return rc;
}

/* A row per section (ergo_section_*) after the trees: thread 0, path "@sections/NAME" (no region
 * path starts with "@"), depth -1 (the marker: not a region), level and the per-call extremes
 * empty, self_s = time_s, share_of_parent its share of Global's time; quantity cells as a
 * region's (self = total, share of Global's amount; empty where not measured), merged the ranks'
 * count and ranks_ran (the spread empty), the run's facts as on every row. */
static int section_rows(FILE *f, const ergo__snap *global) {
  ergo__section_fig *sec;
  size_t n = ergo__sections_take(&sec);
  ergo__snap none;
  memset(&none, 0, sizeof none);
  double global_s = global->time_s;
  for (size_t i = 0; i < n; i++) {
    char *path = ergo__path_join("@sections", sec[i].name);
    if (!path) {
      free(sec);
      return ERGO_ENOMEM;
    }
    ergo__snap s;
    ergo__section_snap(&sec[i], &s);
    fputs("0,", f);
    put_field(f, path);
    fputc(',', f);
    put_field(f, sec[i].name);
    double mean = sec[i].calls ? sec[i].time_s / (double)sec[i].calls : 0.0;
    fprintf(f, ",-1,,%llu,%.9g,%.9g,%.9g,,,%.9g", (unsigned long long)sec[i].calls, sec[i].time_s,
            sec[i].time_s, mean, global_s > 0 ? sec[i].time_s / global_s : 0.0);
    for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
      const ergo__qslot *q = &ergo__quants[qi];
      if (!q->used) continue;
      if (!(s.q_ok & (1u << qi))) {
        for (int c = 0; c < 3 + !!q->q.rate_unit + q->q.ncomponents; c++) fputc(',', f);
        continue;
      }
      double tot = ergo__snap_q_total(&s, qi);
      fprintf(f, ",%.9g,%.9g,%.9g", tot, tot, ergo__snap_q_share(&s, global, qi));
      if (q->q.rate_unit) fprintf(f, ",%.9g", ergo__snap_q_rate(&s, qi));
      for (int c = 0; c < q->q.ncomponents; c++) fprintf(f, ",%.9g", s.q[qi][c]);
    }
    if (global->nranks) fprintf(f, ",%d,%d,,,,", sec[i].nranks, sec[i].ranks_ran);
    tail(f, &none);
    fputc('\n', f);
    free(path);
  }
  free(sec);
  return 0;
}

int ergo_report_csv(const char *path) {
  ergo__snapset set;
  int rc = ergo__snapset_take(&set, "ergo_report_csv", path);
  if (rc) return rc;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    rc = ERGO_ENOMEM;
  else {
    fputs(header, f);
    /* Quantity columns: energy_J, energy_self_J, energy_share_of_parent, energy_W, per
     * component. */
    {
      for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
        const ergo__qslot *q = &ergo__quants[qi];
        if (!q->used) continue;
        fprintf(f, ",%s_%s,%s_self_%s,%s_share_of_parent", q->q.name, q->q.unit, q->q.name,
                q->q.unit, q->q.name);
        if (q->q.rate_unit) fprintf(f, ",%s_%s", q->q.name, q->q.rate_unit); /* per node */
        for (int c = 0; c < q->q.ncomponents; c++) {
          fputc(',', f);
          char col[160];
          snprintf(col, sizeof col, "%s_%s_%s", q->q.name, q->q.components[c], q->q.unit);
          put_field(f, col);
        }
      }
      /* A merged job report: the ranks' figures behind time_s (their mean). */
      if (set.n && set.snaps[0].nranks)
        fputs(",ranks,ranks_ran,ranks_min_s,ranks_max_s,ranks_std_s,imbalance", f);
      tail_header(f);
      fputc('\n', f);
    }
    for (size_t i = 0; i < set.n && !rc; i++)
      rc = rows(f, set.threads[i], &set.snaps[i], NULL, NULL);
    if (!rc && set.n) rc = section_rows(f, &set.snaps[0]);
    if (fclose(f) != 0 && !rc) rc = ERGO_ENOMEM;
  }
  ergo__snapset_free(&set);
  if (rc)
    ergo__error("ergo_report_csv('%s'): out of memory; nothing written", path);
  else
    rc = ergo__atomic_write(path, buf, len);
  free(buf);
  return rc;
}
