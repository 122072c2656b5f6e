/* quantity.c - additive per-region figures that hooks measure (energy, counters) and reports show.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

ergo__qslot ergo__quants[ERGO_MAX_QUANTITIES];
static unsigned attachments; /* ergo__qslot.gen of the last one */

static int valid(const ergo_quantity *q) {
  if (!q || !q->name || !q->unit || !q->value) return 0;
  if (q->ncomponents < 1 || q->ncomponents > ERGO_MAX_COMPONENTS) return 0;
  for (int i = 0; i < q->ncomponents; i++)
    if (!q->components[i]) return 0;
  return 1;
}

int ergo_quantity_attach(const ergo_quantity *q, int *id) {
  if (!valid(q)) {
    ergo__warn("ergo_quantity_attach: the quantity needs a name, a unit, a value function and "
               "1..%d named components",
               ERGO_MAX_COMPONENTS);
    return ERGO_EINVAL;
  }
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++) {
    if (ergo__quants[i].used) continue;
    ergo__quants[i].q = *q;
    ergo__quants[i].used = 1;
    ergo__quants[i].gen = ++attachments ? attachments : ++attachments; /* never 0 */
    if (id) *id = i;
    return 0;
  }
  ergo__warn("ergo_quantity_attach('%s'): all %d quantity slots are taken (fix: detach one)",
             q->name, ERGO_MAX_QUANTITIES);
  return ERGO_EBUSY;
}

int ergo_quantity_detach(int id) {
  if (id < 0 || id >= ERGO_MAX_QUANTITIES || !ergo__quants[id].used) return ERGO_EINVAL;
  memset(&ergo__quants[id], 0, sizeof ergo__quants[id]);
  return 0;
}

void ergo__quant_reset(void) { memset(ergo__quants, 0, sizeof ergo__quants); }

int ergo__quant_any(void) {
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++)
    if (ergo__quants[i].used) return 1;
  return 0;
}

void ergo__quant_begin(void) {
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++)
    if (ergo__quants[i].used && ergo__quants[i].q.begin)
      ergo__quants[i].q.begin(ergo__quants[i].q.ctx);
}

/* Amounts a checkpoint brought to n for the attachment in slot i, or NULL. */
static const ergo__qloaded *loaded_for(const ergo__cold *cold, int i) {
  const ergo__qloaded *l = cold ? __atomic_load_n(&cold->q_loaded, __ATOMIC_ACQUIRE) : NULL;
  return l && (l->ok & (1u << i)) && l->gen[i] == ergo__quants[i].gen ? l : NULL;
}

/* Only the main tree carries quantities (node-wide counters such as package energy cannot be
 * split between threads). */
unsigned ergo__quant_values(const ergo__node *n, int with_loaded,
                            double v[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS]) {
  unsigned ok = 0;
  memset(v, 0, sizeof(double) * ERGO_MAX_QUANTITIES * ERGO_MAX_COMPONENTS);
  if (n->thread != 0) return 0;
  const ergo__cold *cold = with_loaded ? ergo__node_cold_peek(n) : NULL;
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++) {
    const ergo__qslot *s = &ergo__quants[i];
    if (!s->used) continue;
    int rc = s->q.value(s->q.ctx, n, v[i]);
    if (rc == 0 || rc == 1) {
      int finite = 1;
      for (int c = 0; c < s->q.ncomponents; c++) finite &= isfinite(v[i][c]) && v[i][c] >= 0;
      if (finite)
        ok |= (1u << i) | (rc == 1 ? ERGO__Q_LOWER(i) : 0);
      else
        memset(v[i], 0, sizeof v[i]);
    } else if (rc == ERGO_QUANTITY_UNRESOLVED) {
      ok |= ERGO__Q_BELOW(i);
    }
    if (!cold) continue;
    const ergo__qloaded *l = loaded_for(cold, i);
    if (!l) {
      /* Earlier runs' seconds without their amounts: this run's amount is only part of it. */
      if ((ok & (1u << i)) && cold->loaded_s > 0) ok |= ERGO__Q_LOWER(i);
      continue;
    }
    if (!(ok & (1u << i))) {
      memset(v[i], 0, sizeof v[i]); /* whatever an unmeasured value() left there */
      /* This run's amount is unknown where the region ran: the sum is a lower bound. */
      if (ERGO__GET(n->calls) || ERGO__GET(n->total)) ok |= ERGO__Q_LOWER(i);
    }
    ok = (ok & ~ERGO__Q_BELOW(i)) | (1u << i) | (l->ok & ERGO__Q_LOWER(i));
    for (int c = 0; c < s->q.ncomponents; c++) {
      v[i][c] += l->v[i][c];
      /* A component the checkpoint lacked covers this run's part of the time alone. */
      if ((s->q.total_mask & (1u << c)) && l->s[i][c] < cold->loaded_s) ok |= ERGO__Q_LOWER(i);
    }
  }
  return ok;
}

void ergo__quant_times(const ergo__node *n, unsigned ok, double time_s, double loaded_s,
                       double q_time_s[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS]) {
  const ergo__cold *cold = loaded_s > 0 && n->thread == 0 ? ergo__node_cold_peek(n) : NULL;
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++) {
    if (!(ok & (1u << i))) continue;
    const ergo__qloaded *l = loaded_for(cold, i);
    for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) {
      /* time_s less what the loaded amounts do not cover: exactly time_s when they cover it. */
      double t = time_s - (loaded_s - (l ? l->s[i][c] : 0.0));
      q_time_s[i][c] = t > 0 ? t : 0.0;
    }
  }
}

double ergo__quant_total(int qi, const double *v) {
  const ergo_quantity *q = &ergo__quants[qi].q;
  double t = 0;
  for (int c = 0; c < q->ncomponents; c++)
    if (q->total_mask & (1u << c)) t += v[c];
  return t;
}

double ergo__snap_q_total(const ergo__snap *s, int qi) {
  return s->q_ok & (1u << qi) ? ergo__quant_total(qi, s->q[qi]) : 0.0;
}

/* The region's own amount: what its measured children leave, never negative. */
double ergo__snap_q_self(const ergo__snap *s, int qi) {
  double t = ergo__snap_q_total(s, qi);
  for (size_t i = 0; i < s->nchildren; i++) t -= ergo__snap_q_total(&s->children[i], qi);
  return t > 0 ? t : 0.0;
}

double ergo__snap_q_share(const ergo__snap *s, const ergo__snap *parent, int qi) {
  if (!parent) return 1.0;
  double p = ergo__snap_q_total(parent, qi);
  return p > 0 ? ergo__snap_q_total(s, qi) / p : 0.0;
}

double ergo__q_rate(int qi, const double *q, const double *q_time_s) {
  const ergo_quantity *qq = &ergo__quants[qi].q;
  double r = 0;
  for (int c = 0; c < qq->ncomponents; c++)
    if ((qq->total_mask & (1u << c)) && q_time_s[c] > 0) r += q[c] / q_time_s[c];
  return r;
}

double ergo__snap_q_rate(const ergo__snap *s, int qi) {
  return s->q_ok & (1u << qi) ? ergo__q_rate(qi, s->q[qi], s->q_time_s[qi]) : 0.0;
}

void ergo__snap_q_rest(const ergo__snap *s, int qi, double *q, double *q_time_s) {
  for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) {
    q[c] = s->q[qi][c];
    q_time_s[c] = s->q_time_s[qi][c];
  }
  for (size_t i = 0; i < s->nchildren; i++) {
    const ergo__snap *k = &s->children[i];
    if (!(k->q_ok & (1u << qi))) continue; /* unmeasured: its energy and time stay here */
    for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) {
      q[c] -= k->q[qi][c];
      q_time_s[c] -= k->q_time_s[qi][c];
    }
  }
  for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) {
    if (q[c] < 0) q[c] = 0; /* counter granularity, never negative */
    if (q_time_s[c] < 0) q_time_s[c] = 0;
  }
}
