/* report_text.c - the SPACE-Timers text report ("- - * NAME : T sec, P%") and its wide form. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* The paper's name column: the colon stands at column 33. */
#define ERGO__NAME_COL 32

static double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

/* Per-quantity totals of one line: amount, and the parent's for the share. */
typedef struct {
  unsigned ok;
  double total[ERGO_MAX_QUANTITIES];
  double rate[ERGO_MAX_QUANTITIES]; /* ergo__q_rate: watts per node */
} qline;

static qline qline_of(const ergo__snap *s) {
  qline l = {s->q_ok, {0}, {0}};
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++)
    if (s->q_ok & (1u << i)) {
      l.total[i] = ergo__quant_total(i, s->q[i]);
      l.rate[i] = ergo__snap_q_rate(s, i);
    }
  return l;
}

/* Unaccounted under s: what its measured children leave, amount and seconds alike. */
static qline qline_rest(const ergo__snap *s) {
  qline l = {s->q_ok, {0}, {0}};
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++) {
    if (!(s->q_ok & (1u << i))) continue;
    double q[ERGO_MAX_COMPONENTS], qt[ERGO_MAX_COMPONENTS];
    ergo__snap_q_rest(s, i, q, qt);
    l.total[i] = ergo__quant_total(i, q);
    l.rate[i] = ergo__q_rate(i, q, qt);
  }
  return l;
}

/* " | 12.3456 J, 45.67 W,  34.12%" per attached quantity; "-" where not measured. */
static void qcols(FILE *f, const qline *l, const qline *parent) {
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++) {
    const ergo__qslot *q = &ergo__quants[i];
    if (!q->used) continue;
    if (!(l->ok & (1u << i))) {
      fprintf(f, " | - %s", q->q.unit);
      continue;
    }
    /* ">=": the amount is a lower bound (an energy counter may have wrapped unseen). */
    fprintf(f, " | %s%.4f %s", l->ok & ERGO__Q_LOWER(i) ? ">=" : "", l->total[i], q->q.unit);
    if (q->q.rate_unit) fprintf(f, ", %.2f %s", l->rate[i], q->q.rate_unit);
    if (parent && (parent->ok & (1u << i)))
      fprintf(f, ", %6.2f%%", pct(l->total[i], parent->total[i]));
  }
}

/* x as printf's "%*.*f" would print it (width w, d decimals), into out (room for 40 characters);
 * its length.  A step report prints two numbers for each of thousands of regions, and printf's
 * exact conversion is most of its cost: this one rounds x * 10^d to an integer, which is the same
 * digits except within a hair of a tie (x * 10^d's own rounding error), left to snprintf. */
static int fixed(char *out, double x, int d, int w) {
  static const double pow10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
  double y = x * pow10[d];
  if (!(y >= 0 && y < 1e15) || __builtin_signbit(x) || d > 6)
    return snprintf(out, 40, "%*.*f", w, d, x);
  double fl = __builtin_floor(y), frac = y - fl;
  if (__builtin_fabs(frac - 0.5) <= 1e-9 * (y + 1)) return snprintf(out, 40, "%*.*f", w, d, x);
  uint64_t v = (uint64_t)fl + (frac > 0.5);
  char digits[24];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v || n <= d); /* at least one digit before the point */
  int len = n + (d > 0), pad = w > len ? w - len : 0;
  char *o = out;
  for (int i = 0; i < pad; i++) *o++ = ' ';
  for (int i = n - 1; i >= 0; i--) {
    *o++ = digits[i];
    if (i == d && d > 0) *o++ = '.';
  }
  *o = '\0';
  return (int)(o - out);
}

static void line(FILE *f, int indent, const char *name, double t, double share, int wide,
                 const ergo__snap *s, const qline *q, const qline *parent_q) {
  /* "- - * NAME" padded to the name column, " : T sec, P%": built here and written at once. */
  char buf[ERGO_NAME_MAX + 256];
  size_t off = 0;
  for (int i = 0; i < indent && off + 2 < sizeof buf - ERGO_NAME_MAX - 100; i++) {
    buf[off++] = '-';
    buf[off++] = ' ';
  }
  size_t len = strnlen(name, ERGO_NAME_MAX);
  buf[off++] = '*';
  buf[off++] = ' ';
  memcpy(buf + off, name, len);
  off += len;
  while (off < ERGO__NAME_COL) buf[off++] = ' ';
  memcpy(buf + off, " : ", 3);
  off += 3;
  off += (size_t)fixed(buf + off, t, 4, 0);
  memcpy(buf + off, " sec, ", 6);
  off += 6;
  off += (size_t)fixed(buf + off, share, 2, 6);
  buf[off++] = '%';
  fwrite(buf, 1, off, f);
  if (wide && s) {
    double mean = ergo__snap_mean_s(s);
    /* A step report knows no per-call extremes of a region called more than once in the step
     * (min_s < 0): '-' rather than a made-up 0. */
    char lo[32] = "-", hi[32] = "-";
    if (s->min_s >= 0) snprintf(lo, sizeof lo, "%.6f", s->min_s);
    if (s->max_s >= 0) snprintf(hi, sizeof hi, "%.6f", s->max_s);
    fprintf(f, " | calls %10llu | mean %.6f | min %s | max %s sec%s", (unsigned long long)s->calls,
            mean, lo, hi, s->open ? " | open" : "");
  }
  if (s && s->nranks) { /* merged over ranks: TIMER_DETAILS' figures, t being their mean */
    fprintf(f, " | ranks min %.4f max %.4f std %.4f sec, imbalance %6.2f%%", s->r_min_s, s->r_max_s,
            s->r_std_s, s->time_s > 0 ? 100.0 * (s->r_max_s / s->time_s - 1) : 0.0);
    if (s->ranks_ran < s->nranks) fprintf(f, " | on %d/%d ranks", s->ranks_ran, s->nranks);
  }
  if (q) qcols(f, q, parent_q);
  fputc('\n', f);
}

/* Children of `n` at `indent`; Unaccounted last when the children cover
 * <= 99.9 % of the parent (the paper's rule); "..." for hidden children.
 * Unaccounted energy is the parent's minus its measured children's, so a
 * child's energy plus the parent's Unaccounted energy is the parent's; its
 * watts divide that by the parent's time minus the same children's (a child
 * above ERGO_ENERGY_LEVEL keeps both its energy and its time in Unaccounted). */
static void children(FILE *f, const ergo__snap *n, int indent, int max_indent, int wide,
                     int unaccounted, int with_q) {
  double sum = 0;
  qline nq = qline_of(n);
  for (size_t i = 0; i < n->nchildren; i++) {
    const ergo__snap *c = &n->children[i];
    sum += c->time_s;
    qline cq = qline_of(c);
    line(f, indent, c->name, c->time_s, pct(c->time_s, n->time_s), wide, c, with_q ? &cq : NULL,
         &nq);
    if (!c->nchildren) continue;
    if (max_indent >= 0 && indent + 1 > max_indent)
      fputs("...\n", f);
    else
      children(f, c, indent + 1, max_indent, wide, 1, with_q);
  }
  /* <= 99.9 %, with room for rounding so an exact 99.9 % always qualifies. */
  if (unaccounted && n->nchildren && sum <= (0.999 + 1e-9) * n->time_s) {
    double rest = n->time_s - sum;
    qline rest_q = qline_rest(n);
    line(f, indent, "Unaccounted", rest, pct(rest, n->time_s), 0, NULL, with_q ? &rest_q : NULL,
         &nq);
  }
}

/* "Total energy for Global = 350.2 J (package-0 300.1 J, dram-0 50.1 J) [SIMULATED]" */
static void quantity_totals(FILE *f, const ergo__snap *root) {
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++) {
    const ergo__qslot *q = &ergo__quants[i];
    if (!q->used) continue;
    if (!(root->q_ok & (1u << i))) {
      fprintf(f, "Total %s for %s = - %s (not measured)\n", q->q.name, root->name, q->q.unit);
      continue;
    }
    fprintf(f, "Total %s for %s = %s%g %s (", q->q.name, root->name,
            root->q_ok & ERGO__Q_LOWER(i) ? ">=" : "", ergo__quant_total(i, root->q[i]), q->q.unit);
    for (int c = 0; c < q->q.ncomponents; c++)
      fprintf(f, "%s%s %g %s", c ? ", " : "", q->q.components[c], root->q[i][c], q->q.unit);
    fputc(')', f);
    if (q->q.label) fprintf(f, " [%s]", q->q.label);
    fputc('\n', f);
  }
}

int ergo__report_text(FILE *f, const ergo__snap *root, int max_indent, int wide) {
  if (root->nranks)
    fprintf(f,
            "MPI-Tasks: %d, nodes: %d; sec is the mean over ranks, then min/max/std over ranks "
            "and imbalance = max/mean - 1\n",
            root->nranks, root->nnodes);
  /* On the sim node the seconds are the virtual clock's: marked like every simulated figure. */
  int sim = ergo__g.cfg.platform && strcmp(ergo__g.cfg.platform, "sim") == 0;
  fprintf(f, "Total wall clock time for %s = %g sec%s\n", root->name, root->time_s,
          sim ? " [SIMULATED]" : "");
  int with_q = root->q_ok != 0 || ergo__quant_any();
  if (with_q) quantity_totals(f, root);
  /* As in the paper, Global itself gets no Unaccounted line: the total above
   * already shows what its top-level regions leave out. */
  children(f, root, 0, max_indent, wide, 0, with_q && root->q_ok);
  return ferror(f) ? ERGO_EIO : 0;
}

/* "Sections" after the tree: "* NAME : T sec, P%, calls N" each, share of Global's time, then
 * each quantity as a region's, its share of Global's amount (root: the report's Global). */
static void sections(FILE *f, const ergo__snap *root) {
  ergo__section_fig *sec;
  size_t n = ergo__sections_take(&sec);
  if (!n) return;
  fputs("Sections\n", f);
  int with_q = root->q_ok != 0 || ergo__quant_any();
  qline rq = qline_of(root);
  for (size_t i = 0; i < n; i++) {
    char field[ERGO_NAME_MAX + 8];
    snprintf(field, sizeof field, "* %s", sec[i].name);
    fprintf(f, "%-*s : %.4f sec, %6.2f%%, calls %llu", ERGO__NAME_COL, field, sec[i].time_s,
            pct(sec[i].time_s, root->time_s), (unsigned long long)sec[i].calls);
    if (with_q) {
      ergo__snap s;
      ergo__section_snap(&sec[i], &s);
      qline q = qline_of(&s);
      qcols(f, &q, &rq);
    }
    if (sec[i].nranks && sec[i].ranks_ran < sec[i].nranks)
      fprintf(f, " | on %d/%d ranks", sec[i].ranks_ran, sec[i].nranks);
    fprintf(f, "%s\n", sec[i].running ? " | running" : "");
  }
  free(sec);
}

/* What ergo itself cost this run, when anything was attached, and each quantity's notes. */
static void footer(FILE *f, const ergo__tree *t, double global_s) {
  if (t->hook_calls) {
    if (ergo__clk.kind == ERGO__CLOCK_USER) /* real seconds beside virtual ones: no share */
      fprintf(f, "ergo overhead%s: %.6f sec of real time in %llu hook calls\n",
              ergo__merged() ? " on rank 0" : "", (double)t->hook_ticks * 1e-9,
              (unsigned long long)t->hook_calls);
    else
      fprintf(f, "ergo overhead%s: %.6f sec in %llu hook calls (%.3f%% of Global)\n",
              ergo__merged() ? " on rank 0" : "", ergo__ticks_to_s(t->hook_ticks),
              (unsigned long long)t->hook_calls, pct(ergo__ticks_to_s(t->hook_ticks), global_s));
  }
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++)
    if (ergo__quants[i].used && ergo__quants[i].q.footer)
      ergo__quants[i].q.footer(ergo__quants[i].q.ctx, f);
}

/* Main tree, then (ERGO_REPORT_THREADS=1) every other thread's tree; at the end of an MPI job,
 * on rank 0, the job's merged tree instead. */
static int report_all(FILE *f) {
  if (!ergo__g.initialized) return ERGO_ESTATE;
  int rc = 0;
  const ergo__snap *merged = ergo__merged();
  if (merged) {
    rc = ergo__report_text(f, merged, ergo__g.cfg.report_level,
                           ergo__g.cfg.format == ERGO_FORMAT_WIDE);
    if (!rc) sections(f, merged);
    if (!rc) footer(f, ergo__g.main_tree, merged->time_s);
    return rc;
  }
  pthread_mutex_lock(&ergo__g.lock);
  for (ergo__tree *t = ergo__g.trees; t && !rc; t = t->next) {
    if (t != ergo__g.main_tree && !ergo__g.cfg.report_threads) continue;
    ergo__snap s;
    rc = ergo__snap_take(t, 0, &s);
    if (rc) break;
    if (t != ergo__g.main_tree) fprintf(f, "Thread %d\n", t->index);
    rc = ergo__report_text(f, &s, ergo__g.cfg.report_level, ergo__g.cfg.format == ERGO_FORMAT_WIDE);
    if (!rc && t == ergo__g.main_tree) sections(f, &s);
    if (!rc && t == ergo__g.main_tree) footer(f, t, s.time_s);
    ergo__snap_free(&s);
  }
  pthread_mutex_unlock(&ergo__g.lock);
  return rc;
}

int ergo_report_fprint(FILE *out) {
  FILE *f = out ? out : stdout;
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
