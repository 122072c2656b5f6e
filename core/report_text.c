/* report_text.c - the SPACE-Timers text report ("- - * NAME : T sec, P%") and its wide form. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* The paper's name column: the colon stands at column 33. */
#define ERGO__NAME_COL 32

static double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

static void line(FILE *f, int indent, const char *name, double t, double share, int wide,
                 const ergo__snap *s) {
  char field[ERGO_NAME_MAX + 256];
  size_t off = 0;
  for (int i = 0; i < indent && off + 2 < sizeof field - ERGO_NAME_MAX - 4; i++) {
    field[off++] = '-';
    field[off++] = ' ';
  }
  snprintf(field + off, sizeof field - off, "* %s", name);
  fprintf(f, "%-*s : %.4f sec, %6.2f%%", ERGO__NAME_COL, field, t, share);
  if (wide && s) {
    double mean = s->calls ? s->time_s / (double)s->calls : 0.0;
    fprintf(f, " | calls %10llu | mean %.6f | min %.6f | max %.6f sec%s",
            (unsigned long long)s->calls, mean, s->min_s, s->max_s, s->open ? " | open" : "");
  }
  fputc('\n', f);
}

/* Children of `n` at `indent`; Unaccounted last when the children cover
 * <= 99.9 % of the parent (the paper's rule); "..." for hidden children. */
static void children(FILE *f, const ergo__snap *n, int indent, int max_indent, int wide,
                     int unaccounted) {
  double sum = 0;
  for (size_t i = 0; i < n->nchildren; i++) {
    const ergo__snap *c = &n->children[i];
    sum += c->time_s;
    line(f, indent, c->name, c->time_s, pct(c->time_s, n->time_s), wide, c);
    if (!c->nchildren) continue;
    if (max_indent >= 0 && indent + 1 > max_indent)
      fputs("...\n", f);
    else
      children(f, c, indent + 1, max_indent, wide, 1);
  }
  /* <= 99.9 %, with room for rounding so an exact 99.9 % always qualifies. */
  if (unaccounted && n->nchildren && sum <= (0.999 + 1e-9) * n->time_s) {
    double rest = n->time_s - sum;
    line(f, indent, "Unaccounted", rest, pct(rest, n->time_s), 0, NULL);
  }
}

int ergo__report_text(FILE *f, const ergo__snap *root, int max_indent, int wide) {
  fprintf(f, "Total wall clock time for %s = %g sec\n", root->name, root->time_s);
  /* As in the paper, Global itself gets no Unaccounted line: the total above
   * already shows what its top-level regions leave out. */
  children(f, root, 0, max_indent, wide, 0);
  return ferror(f) ? ERGO_EIO : 0;
}

/* Main tree, then (ERGO_REPORT_THREADS=1) every other thread's tree. */
static int report_all(FILE *f) {
  if (!ergo__g.initialized) return ERGO_ESTATE;
  int rc = 0;
  pthread_mutex_lock(&ergo__g.lock);
  for (ergo__tree *t = ergo__g.trees; t && !rc; t = t->next) {
    if (t != ergo__g.main_tree && !ergo__g.cfg.report_threads) continue;
    ergo__snap s;
    rc = ergo__snap_take(t, 0, &s);
    if (rc) break;
    if (t != ergo__g.main_tree) fprintf(f, "Thread %d\n", t->index);
    rc = ergo__report_text(f, &s, ergo__g.cfg.report_level, ergo__g.cfg.format == ERGO_FORMAT_WIDE);
    ergo__snap_free(&s);
  }
  pthread_mutex_unlock(&ergo__g.lock);
  return rc;
}

int ergo_report_fprint(void *stdio_file) {
  FILE *f = stdio_file ? (FILE *)stdio_file : stdout;
  int rc = report_all(f);
  fflush(f);
  return rc;
}

char *ergo_report_string(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  int rc = report_all(f);
  if (fclose(f) != 0 || rc) {
    free(buf);
    return NULL;
  }
  return buf;
}
