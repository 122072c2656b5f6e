/* merge.c - one report for a job of many ranks: every rank packs its main tree, rank 0 gathers the
 * packs and merges them over the union of regions, with min, max, mean and standard deviation of
 * each region's time over the ranks (SPACE-Timers' TIMER_DETAILS) and the imbalance max/mean - 1.
 *
 * A pack is this build's own bytes (every rank runs the same program): "ERGM", version, the
 * attached quantities (name and component names, so a rank measuring other domains is noticed),
 * the rank's host and ergo_step count (facts.c), the number of regions, then the tree in
 * pre-order, then the sections (sections.c).  Strings are a u32 length, the bytes and a NUL, so a
 * name can be pointed at inside the gathered buffer.  A region carries only what it has: its
 * name's hash (ergo__name_hash, so rank 0 groups names without hashing them again), a quantity's
 * amounts only where it measured the region, the setting only where there is one (about 85 bytes
 * a region without energy; format 4 took 650).  Rank 0 reads a pack in place: its regions become
 * small nodes in one array per rank that point at the amounts inside the pack, and only the
 * merged tree is made of full snapshots.  Sections merge by name as regions do: time is the mean
 * over the ranks, calls and amounts are sums. */
#include "internal.h"
#include "util/limit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PACK_MAGIC "ERGM"
/* 2: q_time_s after q; 3: the rank's host and steps, each region's setting; 4: the sections;
 * 5: the region count, each name's hash, amounts and setting only where present */
#define PACK_VERSION 5u

/* ---- packing ------------------------------------------------------------- */
static void put_u32(ergo__buf *b, uint32_t v) { ergo__buf_put(b, &v, sizeof v); }
static void put_f64(ergo__buf *b, double v) { ergo__buf_put(b, &v, sizeof v); }
static void put_u64(ergo__buf *b, uint64_t v) { ergo__buf_put(b, &v, sizeof v); }
static void put_str(ergo__buf *b, const char *s) {
  uint32_t len = (uint32_t)strlen(s);
  put_u32(b, len);
  ergo__buf_put(b, s, (size_t)len + 1);
}

/* The most bytes a region takes beside its name's. */
#define NODE_MAX                                                                                   \
  (4 + 1 + 8 + 3 * 4 + 4 * 8 + 4 + ERGO_MAX_QUANTITIES * 2 * ERGO_MAX_COMPONENTS * 8 + 4 +         \
   ERGO__SETTING_MAX * 8 + 4)

/* Room for len more bytes in b (doubling); NULL once an allocation failed. */
static char *room(ergo__buf *b, size_t len) {
  if (b->fail) return NULL;
  if (b->n + len > b->cap) {
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < b->n + len) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->fail = 1;
      return NULL;
    }
    b->p = p;
    b->cap = cap;
  }
  return b->p + b->n;
}
/* The fewest: an empty name, no amounts, no setting. */
#define NODE_MIN (4 + 1 + 8 + 3 * 4 + 4 * 8 + 4 + 4 + 4)
#define W(w, v)                                                                                    \
  do {                                                                                             \
    __typeof__(v) w_ = (v);                                                                        \
    memcpy(w, &w_, sizeof w_);                                                                     \
    w += sizeof w_;                                                                                \
  } while (0)

static size_t count_nodes(const ergo__snap *s) {
  size_t n = 1;
  for (size_t i = 0; i < s->nchildren; i++) n += count_nodes(&s->children[i]);
  return n;
}

static void pack_node(ergo__buf *b, const ergo__snap *s) {
  uint32_t len = (uint32_t)strlen(s->name);
  char *w = room(b, NODE_MAX + len), *start = w;
  if (!w) return;
  W(w, len);
  memcpy(w, s->name, len);
  w += len;
  *w++ = '\0';
  W(w, ergo__name_hash(s->name));
  W(w, (uint32_t)s->level);
  W(w, (uint32_t)s->depth);
  W(w, (uint32_t)s->open);
  W(w, s->time_s);
  W(w, s->calls);
  W(w, s->min_s);
  W(w, s->max_s);
  W(w, (uint32_t)s->q_ok);
  for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
    if (!(s->q_ok & (1u << qi))) continue; /* nothing reads a quantity that did not measure */
    memcpy(w, s->q[qi], sizeof s->q[qi]);
    w += sizeof s->q[qi];
    memcpy(w, s->q_time_s[qi], sizeof s->q_time_s[qi]);
    w += sizeof s->q_time_s[qi];
  }
  W(w, (uint32_t)(s->has_setting | s->setting_varied << 1));
  if (s->has_setting) {
    memcpy(w, s->setting, sizeof s->setting);
    w += sizeof s->setting;
  }
  W(w, (uint32_t)s->nchildren);
  b->n += (size_t)(w - start);
  for (size_t i = 0; i < s->nchildren; i++) pack_node(b, &s->children[i]);
}

/* The quantity table (every slot, used or not, so slot i means the same on every rank that
 * agrees), then the tree. */
static int pack(const ergo__snap *root, ergo__buf *b) {
  ergo__buf_put(b, PACK_MAGIC, 4);
  put_u32(b, PACK_VERSION);
  put_u32(b, ERGO_MAX_QUANTITIES);
  for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
    const ergo__qslot *q = &ergo__quants[qi];
    put_u32(b, (uint32_t)q->used);
    put_str(b, q->used ? q->q.name : "");
    put_u32(b, q->used ? (uint32_t)q->q.ncomponents : 0);
    for (int c = 0; q->used && c < q->q.ncomponents; c++) put_str(b, q->q.components[c]);
  }
  const char *host = ergo__fact_get("host");
  put_str(b, host ? host : "");
  put_u64(b, (uint64_t)ergo__facts_steps());
  put_u64(b, (uint64_t)count_nodes(root));
  pack_node(b, root);
  ergo__section_fig *sec;
  size_t nsec = ergo__sections_local(&sec);
  put_u32(b, (uint32_t)nsec);
  for (size_t i = 0; i < nsec; i++) {
    put_str(b, sec[i].name);
    put_f64(b, sec[i].time_s);
    put_u64(b, sec[i].calls);
    put_u32(b, (uint32_t)sec[i].running);
    put_u32(b, sec[i].q_ok);
    for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++)
      for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) put_f64(b, sec[i].q[qi][c]);
    for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++)
      for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) put_f64(b, sec[i].q_time_s[qi][c]);
  }
  free(sec);
  return b->fail ? ERGO_ENOMEM : 0;
}

/* ---- unpacking (bounds-checked: a short or foreign pack is refused) ------- */
typedef struct rd {
  const char *p, *end;
  int bad;
} rd;

static int get(rd *r, void *v, size_t len) {
  if (r->bad || (size_t)(r->end - r->p) < len) {
    r->bad = 1;
    memset(v, 0, len);
    return -1;
  }
  memcpy(v, r->p, len);
  r->p += len;
  return 0;
}
static uint32_t get_u32(rd *r) {
  uint32_t v;
  get(r, &v, sizeof v);
  return v;
}
static double get_f64(rd *r) {
  double v;
  get(r, &v, sizeof v);
  return v;
}
static uint64_t get_u64(rd *r) {
  uint64_t v;
  get(r, &v, sizeof v);
  return v;
}
static const char *get_str(rd *r) {
  uint32_t len = get_u32(r);
  if (r->bad || (size_t)(r->end - r->p) <= len || r->p[len] != '\0') {
    r->bad = 1;
    return "";
  }
  const char *s = r->p;
  r->p += (size_t)len + 1;
  return s;
}

/* One rank's quantity table as packed. */
typedef struct rank_q {
  int used;
  const char *name;
  int ncomp;
  const char *comp[ERGO_MAX_COMPONENTS];
} rank_q;

/* A rank's region as rank 0 reads it: where its name, figures and amounts lie in the pack (for
 * each quantity that measured it, in slot order: ERGO_MAX_COMPONENTS amounts then as many
 * seconds), its children next to each other in the rank's array of nodes.  48 bytes: the array
 * of 16 ranks x 10 000 regions is written and its pages faulted in once, so it is kept small. */
typedef struct pnode {
  const char *name;    /* inside the pack */
  const char *f;       /* the fixed figures inside the pack: FIG_* offsets (unaligned) */
  const char *q;       /* inside the pack */
  const char *setting; /* ERGO__SETTING_MAX u64 inside the pack, or NULL */
  struct pnode *children;
  uint32_t nchildren;
  int setting_varied;
} pnode;

/* The fixed figures of a packed region, after its name: offsets and length. */
enum {
  FIG_HASH = 0,
  FIG_LDO = 8,
  FIG_TIME = 20,
  FIG_CALLS = 28,
  FIG_MIN = 36,
  FIG_MAX = 44,
  FIG_QOK = 52,
  FIG_LEN = 56
};
typedef struct pfig {
  uint32_t ldo[3]; /* level, depth, open */
  unsigned q_ok;
  double time_s, min_s, max_s;
  uint64_t calls;
} pfig;
static inline uint64_t p_hash(const pnode *s) {
  uint64_t v;
  memcpy(&v, s->f + FIG_HASH, sizeof v);
  return v;
}
static inline double p_time(const pnode *s) {
  double v;
  memcpy(&v, s->f + FIG_TIME, sizeof v);
  return v;
}
static inline unsigned p_qok(const pnode *s) {
  uint32_t v;
  memcpy(&v, s->f + FIG_QOK, sizeof v);
  return v;
}
static inline void p_fig(const pnode *s, pfig *x) {
  memcpy(x->ldo, s->f + FIG_LDO, sizeof x->ldo);
  x->q_ok = p_qok(s);
  x->time_s = p_time(s);
  memcpy(&x->calls, s->f + FIG_CALLS, sizeof x->calls);
  memcpy(&x->min_s, s->f + FIG_MIN, sizeof x->min_s);
  memcpy(&x->max_s, s->f + FIG_MAX, sizeof x->max_s);
}

/* A rank's regions: every node in one array, the root first. */
typedef struct ptree {
  pnode *v;
  size_t n, used;
} ptree;

/* Skip len bytes (they stay in the pack); NULL when fewer are left. */
static const char *skip(rd *r, size_t len) {
  if (r->bad || (size_t)(r->end - r->p) < len) {
    r->bad = 1;
    return NULL;
  }
  const char *at = r->p;
  r->p += len;
  return at;
}

static int unpack_node(rd *r, ptree *t, pnode *s, int depth) {
  if (depth > 4096) { /* deeper than any stack ergo keeps: not a pack of ours */
    r->bad = 1;
    return -1;
  }
  s->name = get_str(r);
  /* The fixed figures at once: hash, level, depth, open, time, calls, min, max, q_ok. */
  if (!(s->f = skip(r, FIG_LEN))) return -1;
  unsigned q_ok = p_qok(s);
  int nq = 0;
  for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) nq += (q_ok >> qi) & 1;
  s->q = skip(r, (size_t)nq * 2 * ERGO_MAX_COMPONENTS * sizeof(double));
  uint32_t set = get_u32(r);
  s->setting_varied = (set & 2) != 0;
  s->setting = set & 1 ? skip(r, ERGO__SETTING_MAX * sizeof(uint64_t)) : NULL;
  uint32_t n = get_u32(r);
  s->nchildren = 0;
  s->children = NULL;
  /* The children take the next n places of the rank's array, which the pack's count sized. */
  if (r->bad || n > t->n - t->used) {
    r->bad = 1;
    return -1;
  }
  if (!n) return 0;
  s->children = &t->v[t->used];
  t->used += n;
  for (uint32_t i = 0; i < n; i++) {
    s->nchildren = i + 1;
    if (unpack_node(r, t, &s->children[i], depth + 1)) return -1;
  }
  return 0;
}

/* A rank's sections: *out malloc'd (NULL when none), *n their count; -1 when corrupt. */
static int unpack_sections(rd *r, ergo__section_fig **out, size_t *n) {
  *out = NULL;
  *n = 0;
  uint32_t count = get_u32(r);
  /* Each section takes far more than one byte: a count beyond the bytes left is corrupt. */
  if (r->bad || count > (size_t)(r->end - r->p)) return -1;
  if (!count) return 0;
  ergo__section_fig *f = calloc(count, sizeof *f);
  if (!f) return -1;
  for (uint32_t i = 0; i < count && !r->bad; i++) {
    snprintf(f[i].name, sizeof f[i].name, "%s", get_str(r));
    f[i].time_s = get_f64(r);
    f[i].calls = get_u64(r);
    f[i].running = get_u32(r) != 0;
    f[i].q_ok = get_u32(r);
    for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++)
      for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) f[i].q[qi][c] = get_f64(r);
    for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++)
      for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) f[i].q_time_s[qi][c] = get_f64(r);
  }
  if (r->bad) {
    free(f);
    return -1;
  }
  *out = f;
  *n = count;
  return 0;
}

/* A rank's pack read in place: *t's array malloc'd (free(t->v)), its root t->v[0]. */
static int unpack(const char *p, size_t len, rank_q q[ERGO_MAX_QUANTITIES], const char **host,
                  uint64_t *steps, ptree *t, ergo__section_fig **secs, size_t *nsecs) {
  rd r = {p, p + len, 0};
  *secs = NULL;
  *nsecs = 0;
  char magic[4];
  get(&r, magic, 4);
  if (r.bad || memcmp(magic, PACK_MAGIC, 4) != 0 || get_u32(&r) != PACK_VERSION ||
      get_u32(&r) != ERGO_MAX_QUANTITIES)
    return -1;
  for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
    q[qi].used = (int)get_u32(&r);
    q[qi].name = get_str(&r);
    q[qi].ncomp = (int)get_u32(&r);
    if (q[qi].ncomp > ERGO_MAX_COMPONENTS) return -1;
    for (int c = 0; c < q[qi].ncomp; c++) q[qi].comp[c] = get_str(&r);
  }
  *host = get_str(&r);
  *steps = get_u64(&r);
  uint64_t count = get_u64(&r);
  /* Each region takes NODE_MIN bytes at least: a count beyond what the bytes left hold is
   * corrupt (and the array stays within a small multiple of the pack). */
  if (r.bad || count < 1 || count > (uint64_t)(r.end - r.p) / NODE_MIN) return -1;
  t->v = malloc((size_t)count * sizeof *t->v);
  if (!t->v) return -1;
  t->n = (size_t)count;
  t->used = 1;
  if (unpack_node(&r, t, &t->v[0], 0) || t->used != t->n || unpack_sections(&r, secs, nsecs) ||
      r.p != r.end) {
    free(*secs);
    *secs = NULL;
    free(t->v);
    t->v = NULL;
    return -1;
  }
  return 0;
}

int ergo__merge_unpack_check(const char *p, size_t len) {
  char why[128];
  if (ergo__input_len_check(len, why, sizeof why)) return -1;
  rank_q q[ERGO_MAX_QUANTITIES];
  const char *host;
  uint64_t steps;
  ptree t;
  ergo__section_fig *secs = NULL;
  size_t nsecs;
  if (unpack(p, len, q, &host, &steps, &t, &secs, &nsecs)) return -1;
  free(t.v);
  free(secs);
  return 0;
}

/* 1 when the rank's quantity slot qi is this process's (rank 0's) own: same name, same
 * components in the same order, so its values add up component by component. */
static int same_quantity(const rank_q *rq, int qi) {
  const ergo__qslot *q = &ergo__quants[qi];
  if (!q->used || !rq->used || strcmp(rq->name, q->q.name) != 0 || rq->ncomp != q->q.ncomponents)
    return 0;
  for (int c = 0; c < rq->ncomp; c++)
    if (strcmp(rq->comp[c], q->q.components[c]) != 0) return 0;
  return 1;
}

/* ---- merging -------------------------------------------------------------- */
typedef struct merge_ctx {
  int n;             /* ranks */
  unsigned *q_agree; /* per rank: bit qi when its quantity qi adds to rank 0's */
  /* per rank and quantity: bit c when the rank reads component c (its Global has some of
   * it): a node's domain is read by one elected rank, the others report 0 for it */
  unsigned (*q_reads)[ERGO_MAX_QUANTITIES];
} merge_ctx;

static int cmp_merged(const void *a, const void *b) {
  const ergo__snap *x = a, *y = b;
  if (x->time_s != y->time_s) return x->time_s < y->time_s ? 1 : -1;
  return strcmp(x->name, y->name);
}

/* per[r]: rank r's node for this region, or NULL where it never ran.  out: zeroed. */
static int merge_node(const merge_ctx *m, const pnode **per, ergo__snap *out) {
  double sum = 0, sq = 0, lo = INFINITY, hi = 0;
  int have_min = 0;
  for (int r = 0; r < m->n; r++) {
    const pnode *s = per[r];
    pfig x = {0};
    if (s) p_fig(s, &x);
    double t = x.time_s; /* a rank without the region spent no time in it */
    sum += t;
    lo = t < lo ? t : lo;
    hi = t > hi ? t : hi;
    if (!s) continue;
    if (!out->name) {
      out->name = s->name;
      out->level = (int)x.ldo[0];
      out->depth = (int)x.ldo[1];
    }
    out->ranks_ran++;
    out->open |= (int)x.ldo[2];
    out->calls += x.calls;
    /* The setting: the first rank's that has one; varied when another's differs. */
    if (s->setting && !out->has_setting) {
      out->has_setting = 1;
      memcpy(out->setting, s->setting, sizeof out->setting);
    } else if (s->setting && memcmp(out->setting, s->setting, sizeof out->setting) != 0) {
      out->setting_varied = 1;
    }
    out->setting_varied |= s->setting && s->setting_varied;
    if (x.calls) {
      if (!have_min || x.min_s < out->min_s) out->min_s = x.min_s;
      if (x.max_s > out->max_s) out->max_s = x.max_s;
      have_min = 1;
    }
    const char *qp = s->q; /* the amounts of each quantity that measured it, in slot order */
    for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
      /* Below the meter's resolution where it was read, and measured nowhere: said so. */
      if ((x.q_ok & ERGO__Q_BELOW(qi)) && !(out->q_ok & (1u << qi))) out->q_ok |= ERGO__Q_BELOW(qi);
      if (!(x.q_ok & (1u << qi))) continue;
      const char *at = qp;
      qp += 2 * ERGO_MAX_COMPONENTS * sizeof(double);
      if (!(m->q_agree[r] & (1u << qi))) continue;
      double q[2][ERGO_MAX_COMPONENTS];
      memcpy(q, at, sizeof q);
      out->q_ok &= ~ERGO__Q_BELOW(qi);
      out->q_ok |= (1u << qi) | (x.q_ok & ERGO__Q_LOWER(qi)); /* a lower bound anywhere */
      for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) {
        out->q[qi][c] += q[0][c];
        /* The reader's time in the region is the window its node's energy covers. */
        if (m->q_reads[r][qi] & (1u << c)) out->q_time_s[qi][c] += q[1][c];
      }
    }
  }
  double mean = sum / m->n;
  for (int r = 0; r < m->n; r++) {
    double d = (per[r] ? p_time(per[r]) : 0.0) - mean;
    sq += d * d;
  }
  out->time_s = mean;
  out->nranks = m->n;
  out->r_min_s = lo;
  out->r_max_s = hi;
  out->r_std_s = sqrt(sq / m->n); /* over all ranks: the population's deviation */

  /* Children: the union over ranks, grouped by name through a hash table keyed by the hashes the
   * ranks packed (O(c) in the c children of all ranks, whatever order each rank has them in), in
   * first-seen order, then sorted as every report is. */
  size_t cap = 0, most = 0;
  for (int r = 0; r < m->n; r++) {
    size_t c = per[r] ? per[r]->nchildren : 0;
    cap += c;
    most = c > most ? c : most;
  }
  if (!cap) return 0;
  /* The table (group + 1, 0 empty) starts at twice one rank's children (the union is most often
   * about that) and doubles when half full; each group's first node; the group of each child in
   * walking order. */
  size_t tcap = 16;
  while (tcap < 2 * most) tcap *= 2;
  uint32_t *tab = calloc(tcap, sizeof *tab), *gid = malloc(cap * sizeof *gid);
  const pnode **first = malloc(cap * sizeof *first);
  if (!tab || !gid || !first) {
    free(tab);
    free(gid);
    free(first);
    return ERGO_ENOMEM;
  }
  size_t ng = 0, k = 0;
  for (int r = 0; r < m->n; r++)
    for (size_t i = 0; per[r] && i < per[r]->nchildren; i++) {
      const pnode *c = &per[r]->children[i];
      if (2 * (ng + 1) > tcap) { /* rehash the groups into twice the room */
        uint32_t *t2 = calloc(2 * tcap, sizeof *t2);
        if (!t2) {
          free(tab);
          free(gid);
          free(first);
          return ERGO_ENOMEM;
        }
        tcap *= 2;
        for (size_t g = 0; g < ng; g++) {
          size_t j = p_hash(first[g]) & (tcap - 1);
          while (t2[j]) j = (j + 1) & (tcap - 1);
          t2[j] = (uint32_t)(g + 1);
        }
        free(tab);
        tab = t2;
      }
      uint64_t hash = p_hash(c);
      size_t j = hash & (tcap - 1);
      while (tab[j] &&
             (p_hash(first[tab[j] - 1]) != hash || strcmp(first[tab[j] - 1]->name, c->name) != 0))
        j = (j + 1) & (tcap - 1);
      if (!tab[j]) {
        first[ng] = c;
        tab[j] = (uint32_t)++ng;
      }
      gid[k++] = tab[j] - 1;
    }
  free(tab);
  free(first);
  const pnode **sub = calloc(ng * (size_t)m->n, sizeof *sub);
  out->children = calloc(ng, sizeof *out->children);
  if (!sub || !out->children) {
    free(sub);
    free(gid);
    return ERGO_ENOMEM;
  }
  k = 0;
  for (int r = 0; r < m->n; r++)
    for (size_t i = 0; per[r] && i < per[r]->nchildren; i++, k++) {
      /* A name twice on one rank (not from ergo's trees) merges its first node, as before. */
      const pnode **at = &sub[gid[k] * (size_t)m->n + (size_t)r];
      if (!*at) *at = &per[r]->children[i];
    }
  free(gid);
  int rc = 0;
  for (size_t g = 0; g < ng && !rc; g++) {
    out->nchildren++;
    rc = merge_node(m, &sub[g * (size_t)m->n], &out->children[g]);
  }
  free(sub);
  if (!rc) qsort(out->children, out->nchildren, sizeof *out->children, cmp_merged);
  return rc;
}

/* The ranks' sections (secs[r], nsecs[r]) merged by name, in first-seen order (rank 0's
 * first): *out malloc'd, its count returned; -1 out of memory.  Quantities add where the rank's
 * agree with rank 0's; the seconds behind a component's amount are those of the ranks that read
 * it, as for regions. */
static long merge_sections(const merge_ctx *m, ergo__section_fig *const *secs, const size_t *nsecs,
                           ergo__section_fig **out) {
  size_t cap = 0;
  for (int r = 0; r < m->n; r++) cap += nsecs[r];
  *out = NULL;
  if (!cap) return 0;
  ergo__section_fig *f = calloc(cap, sizeof *f);
  if (!f) return -1;
  size_t n = 0;
  for (int r = 0; r < m->n; r++)
    for (size_t i = 0; i < nsecs[r]; i++) {
      const ergo__section_fig *s = &secs[r][i];
      size_t j = 0;
      while (j < n && strcmp(f[j].name, s->name) != 0) j++; /* sections are few */
      if (j == n) {
        memcpy(f[n].name, s->name, sizeof f[n].name);
        f[n].nranks = m->n;
        n++;
      }
      ergo__section_fig *o = &f[j];
      o->ranks_ran++;
      o->time_s += s->time_s / m->n; /* the mean over all ranks */
      o->calls += s->calls;
      o->running |= s->running;
      for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
        if (!(s->q_ok & (1u << qi)) || !(m->q_agree[r] & (1u << qi))) continue;
        o->q_ok |= (1u << qi) | (s->q_ok & ERGO__Q_LOWER(qi));
        for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) {
          o->q[qi][c] += s->q[qi][c];
          if (m->q_reads[r][qi] & (1u << c)) o->q_time_s[qi][c] += s->q_time_s[qi][c];
        }
      }
    }
  *out = f;
  return (long)n;
}

/* ---- the merged report's life: built at finalize, read by every writer ---- */
static struct {
  char *all;         /* the gathered packs: merged names point into them */
  ergo__snap merged; /* valid when have */
  int have;
  const char **hosts; /* every rank's host, once each, in rank order (into all) */
  size_t nhosts;
  ergo__section_fig *secs; /* the job's sections */
  long nsecs;
} M;

size_t ergo__sections_take(ergo__section_fig **out) {
  if (!M.have) return ergo__sections_local(out);
  /* The job's, on rank 0 at the end of an MPI job. */
  *out = NULL;
  ergo__section_fig *f = M.nsecs > 0 ? malloc((size_t)M.nsecs * sizeof *f) : NULL;
  if (!f) return 0;
  memcpy(f, M.secs, (size_t)M.nsecs * sizeof *f);
  *out = f;
  return (size_t)M.nsecs;
}

const ergo__snap *ergo__merged(void) { return M.have ? &M.merged : NULL; }

size_t ergo__merged_hosts(const char *const **hosts) {
  *hosts = M.hosts;
  return M.have ? M.nhosts : 0;
}

void ergo__merged_free(void) {
  if (M.have) ergo__snap_free(&M.merged);
  free(M.hosts);
  free(M.all);
  free(M.secs);
  memset(&M, 0, sizeof M);
}

int ergo__merge_take(void) {
  ergo__merged_free();
  ergo__snap mine;
  pthread_mutex_lock(&ergo__g.lock);
  /* Unsorted: rank 0 sorts the union of every rank's children anyway. */
  int rc = ergo__snap_take_unsorted(ergo__g.main_tree, &mine);
  pthread_mutex_unlock(&ergo__g.lock);
  ergo__buf b = {0};
  /* A rank that could not take or pack its tree still joins the gather, with nothing. */
  if (!rc) {
    rc = pack(&mine, &b);
    ergo__snap_free(&mine);
  }
  if (rc) b.n = 0;
  size_t *lens = NULL;
  int grc = ergo__rk.gather(b.p ? b.p : "", b.n, &M.all, &lens);
  free(b.p);
  if (rc)
    ergo__error("ergo_finalize: rank %d could not pack its regions (%s); the merged report leaves "
                "it out",
                ergo__rk.rank, ergo_strerror(rc));
  if (grc) {
    ergo__warn("ergo_finalize: gathering the ranks' regions failed (%s); each rank writes its own "
               "report instead",
               ergo_strerror(grc));
    ergo__merged_free();
    return grc;
  }
  if (ergo__rk.rank != 0) { /* only rank 0 merges and writes */
    free(lens);
    ergo__merged_free();
    return 0;
  }
  int n = ergo__rk.size;
  ptree *trees = calloc((size_t)n, sizeof *trees);
  const pnode **per = calloc((size_t)n, sizeof *per);
  unsigned *agree = calloc((size_t)n, sizeof *agree);
  unsigned(*reads)[ERGO_MAX_QUANTITIES] = calloc((size_t)n, sizeof *reads);
  M.hosts = calloc((size_t)n, sizeof *M.hosts);
  ergo__section_fig **secs = calloc((size_t)n, sizeof *secs);
  size_t *nsecs = calloc((size_t)n, sizeof *nsecs);
  rc = trees && per && agree && reads && M.hosts && secs && nsecs ? 0 : ERGO_ENOMEM;
  size_t off = 0;
  for (int r = 0; r < n && !rc; off += lens[r], r++) {
    rank_q q[ERGO_MAX_QUANTITIES];
    const char *host;
    uint64_t steps;
    if (!lens[r]) continue; /* said so on that rank */
    char why[128];
    if (ergo__input_len_check(lens[r], why, sizeof why)) {
      ergo__error("ergo_finalize: rank %d sent a pack of regions of %s; the merged report leaves "
                  "it out (fix: fewer regions, or ERGO_REPORT_LEVEL to drop deep ones)",
                  r, why);
      continue;
    }
    if (unpack(M.all + off, lens[r], q, &host, &steps, &trees[r], &secs[r], &nsecs[r])) {
      ergo__error("ergo_finalize: rank %d sent regions rank 0 cannot read (%zu bytes); the merged "
                  "report leaves it out (fix: run the same ergo build on every rank)",
                  r, lens[r]);
      continue;
    }
    const pnode *root = per[r] = &trees[r].v[0];
    size_t h = 0;
    while (h < M.nhosts && strcmp(M.hosts[h], host) != 0) h++;
    if (h == M.nhosts && *host) M.hosts[M.nhosts++] = host;
    if ((long)steps != ergo__facts_steps())
      ergo__warn("ergo_finalize: rank %d called ergo_step %llu times, rank 0 %ld times; the "
                 "merged report's steps are rank 0's (fix: call ergo_step on every rank)",
                 r, (unsigned long long)steps, ergo__facts_steps());
    const char *qp = root->q; /* the amounts of each quantity that measured it, in slot order */
    for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
      if (!(p_qok(root) & (1u << qi))) continue;
      double amount[ERGO_MAX_COMPONENTS];
      memcpy(amount, qp, sizeof amount);
      qp += 2 * sizeof amount;
      for (int c = 0; c < ERGO_MAX_COMPONENTS; c++)
        if (amount[c] > 0) reads[r][qi] |= 1u << c;
    }
    for (int qi = 0; qi < ERGO_MAX_QUANTITIES; qi++) {
      if (same_quantity(&q[qi], qi)) {
        agree[r] |= 1u << qi;
      } else if (q[qi].used && p_qok(root) & (1u << qi)) {
        ergo__error("ergo_finalize: rank %d measures %s over other components than rank 0; its %s "
                    "is left out of the merged report (fix: ERGO_REPORT_RANKS=1 writes it in that "
                    "rank's own files)",
                    r, q[qi].name, q[qi].name);
      }
    }
  }
  merge_ctx m = {n, agree, reads};
  if (!rc) rc = merge_node(&m, per, &M.merged);
  if (!rc && (M.nsecs = merge_sections(&m, secs, nsecs, &M.secs)) < 0) rc = ERGO_ENOMEM;
  if (!rc) {
    M.merged.name = "Global";
    M.merged.calls = 1;
    M.merged.open = 1;
    M.merged.nnodes = ergo__rk.nnodes;
    M.have = 1;
  } else {
    ergo__snap_free(&M.merged);
    ergo__warn("ergo_finalize: out of memory while merging %d ranks; each rank writes its own "
               "report instead",
               n);
  }
  for (int r = 0; trees && r < n; r++) free(trees[r].v);
  for (int r = 0; secs && r < n; r++) free(secs[r]);
  free(secs);
  free(nsecs);
  free(trees);
  free(per);
  free(agree);
  free(reads);
  free(lens);
  if (rc) ergo__merged_free();
  return rc;
}

char *ergo__rank_path(const char *path, int rank) {
  if (!path || strcmp(path, "none") == 0) return NULL; /* not written, by rank N either */
  /* "dir/report.json" -> "dir/report.rank3.json"; no extension: "report.rank3". */
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  if (!dot || dot == base) dot = base + strlen(base);
  size_t head = (size_t)(dot - path), len = strlen(path) + 32;
  char *out = malloc(len);
  if (out) snprintf(out, len, "%.*s.rank%d%s", (int)head, path, rank, dot);
  return out;
}
