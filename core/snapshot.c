/* snapshot.c - a consistent, sorted copy of a region tree in seconds, for every report. */
#include "internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

uint64_t ergo__report_now(void) { return ergo__g.finalizing ? ergo__g.final_ticks : ergo__ticks(); }

/* Start tick of the node's open call, or 0 if it is not open.  Only the calling thread's own
 * tree (or any tree once finalize has stopped every thread) has a stack that holds still: another
 * thread's may grow (realloc) under the reader, so its open calls count once they close. */
static uint64_t open_start(const ergo__tree *t, const ergo__node *n) {
  if (!ergo__tree_is_mine(t)) return 0;
  for (int d = t->depth; d > 0; d--)
    if (t->stack[d].node == n) return t->stack[d].start ? t->stack[d].start : 1;
  return 0;
}

/* Ticks the node has accumulated by `now`, counting an open call so far. */
uint64_t ergo__node_vticks(const ergo__tree *t, const ergo__node *n, uint64_t now) {
  uint64_t s = open_start(t, n);
  return ERGO__GET(n->total) + (s && now > s ? now - s : 0);
}

static int cmp_snap(const void *a, const void *b) {
  const ergo__snap *x = a, *y = b;
  if (x->time_s != y->time_s) return x->time_s < y->time_s ? 1 : -1;
  return ergo__interned_cmp(x->name, y->name); /* a live node's name: interned */
}

/* A child's place among its siblings: time, then name (the order of cmp_snap). */
typedef struct skey {
  double time_s;
  const char *name;
  const ergo__node *node;
} skey;

/* x goes before y: longer first, then by name (a live node's name: interned). */
static inline int key_before(const skey *x, const skey *y) {
  if (x->time_s != y->time_s) return x->time_s > y->time_s;
  return ergo__interned_cmp(x->name, y->name) < 0;
}

/* The keys of the children being ordered at every level of the walk, as a stack, and the scratch
 * their merge sort uses. */
typedef struct sctx {
  skey *v, *tmp;
  size_t n, cap, tmpcap;
  int pool;     /* children from the step pool while it has room */
  int unsorted; /* children left in the tree's order (ergo__snap_take_unsorted) */
} sctx;

/* The step snapshots' pool: one anonymous mapping, grown (remapped) to the tree's size before a
 * step's snapshot; a step that outgrows it meanwhile (another thread adding regions) takes the
 * rest from the heap. */
static struct {
  char *base;
  size_t cap, used;
  skey *v, *tmp; /* the step snapshots' keys (sctx), kept too */
  size_t vcap, tmpcap;
} P;

int ergo__map_grow(void **p, size_t *cap, size_t want) {
  if (want <= *cap) return 0;
  size_t n = *cap ? *cap : 65536;
  while (n < want) n *= 2;
  void *m = *cap ? mremap(*p, *cap, n, MREMAP_MAYMOVE)
                 : mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return -1;
  *p = m;
  *cap = n;
  return 0;
}

void ergo__map_free(void **p, size_t *cap) {
  if (*cap) munmap(*p, *cap);
  *p = NULL;
  *cap = 0;
}

void ergo__snap_pool_release(void) {
  if (P.base) munmap(P.base, P.cap);
  ergo__map_free((void **)&P.v, &P.vcap);
  ergo__map_free((void **)&P.tmp, &P.tmpcap);
  memset(&P, 0, sizeof P);
}

static ergo__snap *pool_take(size_t n) {
  size_t want = n * sizeof(ergo__snap);
  if (!P.base || P.cap - P.used < want) return NULL;
  ergo__snap *v = (ergo__snap *)(void *)(P.base + P.used);
  P.used += want;
  return v;
}

/* Sort v[0..n) with key_before: a bottom-up merge sort with its comparison inline (qsort's
 * indirect calls were half of a big step snapshot).  0, or ERGO_ENOMEM. */
static int sort_keys(sctx *cx, skey *v, size_t n) {
  if (n < 2) return 0;
  if (cx->tmpcap < n) {
    if (cx->pool) {
      if (ergo__map_grow((void **)&P.tmp, &P.tmpcap, n * sizeof *P.tmp)) return ERGO_ENOMEM;
      cx->tmp = P.tmp;
      cx->tmpcap = P.tmpcap / sizeof *P.tmp;
    } else {
      skey *t = realloc(cx->tmp, n * sizeof *t);
      if (!t) return ERGO_ENOMEM;
      cx->tmp = t;
      cx->tmpcap = n;
    }
  }
  for (size_t i = 1; i < n; i++) { /* runs of 8 by insertion */
    if (i % 8 == 0) continue;
    skey k = v[i];
    size_t j = i;
    for (; j % 8 && key_before(&k, &v[j - 1]); j--) v[j] = v[j - 1];
    v[j] = k;
  }
  skey *from = v, *to = cx->tmp;
  for (size_t w = 8; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) to[o++] = key_before(&from[b], &from[a]) ? from[b++] : from[a++];
      while (a < mid) to[o++] = from[a++];
      while (b < hi) to[o++] = from[b++];
    }
    skey *t = from;
    from = to;
    to = t;
  }
  if (from != v) memcpy(v, from, n * sizeof *v);
  return 0;
}

/* The node's seconds as a snapshot shows them: since the last step, or over the run (with what
 * checkpoints brought in). */
static double node_time_s(const ergo__tree *t, const ergo__node *n, int since_step, uint64_t now,
                          const ergo__cold *cold) {
  uint64_t vt = ergo__node_vticks(t, n, now);
  if (since_step) return ergo__ticks_to_s(vt >= n->step_total ? vt - n->step_total : 0);
  return ergo__ticks_to_s(vt) + (cold ? cold->loaded_s : 0.0);
}

static int fill(const ergo__tree *t, const ergo__node *n, int depth, int since_step, uint64_t now,
                sctx *cx, ergo__snap *out) {
  /* The parent's fill malloc'd out (ergo__snap_take_at zeroed the root).  Zero it but, in a step
   * snapshot with no quantity attached, its quantity arrays (512 of its 704 bytes): nothing reads
   * them there (every reader checks q_ok first; a step snapshot is never packed or merged), and a
   * step over many regions then does not clear megabytes. */
  if (depth > 0) {
    if (since_step && !ergo__quant_any()) {
      memset(out, 0, offsetof(ergo__snap, q));
      memset(&out->children, 0, sizeof *out - offsetof(ergo__snap, children));
    } else {
      memset(out, 0, sizeof *out);
    }
  }
  out->name = n->name;
  out->level = n->level;
  out->depth = depth;
  const ergo__cold *cold = ergo__node_cold_peek(n);
  out->open = open_start(t, n) != 0;
  out->time_s = node_time_s(t, n, since_step, now, cold);
  if (since_step) {
    out->calls = ERGO__GET(n->calls) - n->step_calls;
    /* The node keeps extremes over the run, not per step: one completed call and nothing open
     * is its own extreme; otherwise they are unknown (-1; the text report prints '-'). */
    if (out->calls == 1 && !out->open)
      out->min_s = out->max_s = out->time_s;
    else if (out->calls)
      out->min_s = out->max_s = -1.0;
  } else {
    uint64_t calls = ERGO__GET(n->calls);
    out->calls = calls + (cold ? cold->loaded_calls : 0);
    if (calls) {
      out->min_s = ergo__ticks_to_s(ERGO__GET(n->min));
      out->max_s = ergo__ticks_to_s(ERGO__GET(n->max));
    }
    if (cold && cold->loaded_min_s >= 0 && (!calls || cold->loaded_min_s < out->min_s))
      out->min_s = cold->loaded_min_s;
    if (cold && cold->loaded_max_s >= 0 && cold->loaded_max_s > out->max_s)
      out->max_s = cold->loaded_max_s;
  }
  if (ergo__quant_any()) out->q_ok = ergo__quant_values(n, !since_step, out->q);
  if (!since_step) {
    ergo__facts_setting_of(n, out);
    ergo__facts_significance_of(n, out);
  }
  if (since_step && cold && cold->q_step)
    for (int i = 0; i < ERGO_MAX_QUANTITIES; i++)
      for (int c = 0; c < ERGO_MAX_COMPONENTS; c++) {
        double d = out->q[i][c] - cold->q_step[i][c];
        out->q[i][c] = d > 0 ? d : 0.0;
      }
  ergo__quant_times(n, out->q_ok, out->time_s, since_step || !cold ? 0.0 : cold->loaded_s,
                    out->q_time_s);
  /* The children are put in order before they are filled (a snapshot node is large: sorting the
   * filled ones moved megabytes at every step of a big tree).  Another thread may add children
   * meanwhile (ERGO_REPORT_THREADS): links are read with acquire, so each node seen is whole. */
  size_t base = cx->n;
  for (const ergo__node *c = __atomic_load_n(&n->first_child, __ATOMIC_ACQUIRE); c;
       c = __atomic_load_n(&c->next_sibling, __ATOMIC_ACQUIRE)) {
    double ts = node_time_s(t, c, since_step, now, ergo__node_cold_peek(c));
    /* A step report leaves out regions that did not run in that step. */
    if (since_step && ERGO__GET(c->calls) == c->step_calls && ts == 0.0 && !open_start(t, c))
      continue;
    if (cx->n == cx->cap) {
      size_t cap = cx->cap ? cx->cap * 2 : 256;
      if (cx->pool) { /* in the kept mapping */
        if (ergo__map_grow((void **)&P.v, &P.vcap, cap * sizeof *cx->v)) return ERGO_ENOMEM;
        cx->v = P.v;
        cap = P.vcap / sizeof *cx->v;
      } else {
        skey *v = realloc(cx->v, cap * sizeof *v);
        if (!v) return ERGO_ENOMEM;
        cx->v = v;
      }
      cx->cap = cap;
    }
    cx->v[cx->n++] = (skey){ts, c->name, c};
  }
  size_t nc = cx->n - base;
  if (!nc) return 0;
  if (!cx->unsorted && sort_keys(cx, cx->v + base, nc)) return ERGO_ENOMEM;
  out->children = cx->pool ? pool_take(nc) : NULL;
  out->pooled = out->children != NULL;
  if (!out->children && !(out->children = malloc(nc * sizeof *out->children))) return ERGO_ENOMEM;
  int sorted = 1;
  for (size_t k = 0; k < nc; k++) {
    int rc = fill(t, cx->v[base + k].node, depth + 1, since_step, now, cx, &out->children[k]);
    out->nchildren = k + 1;
    if (rc) return rc;
    if (k && !cx->unsorted && cmp_snap(&out->children[k - 1], &out->children[k]) > 0) sorted = 0;
  }
  cx->n = base;
  /* A child that changed between its key and its figures (another thread's tree): sort anew. */
  if (!sorted) qsort(out->children, nc, sizeof *out->children, cmp_snap);
  return 0;
}

int ergo__snap_take(const ergo__tree *t, int since_step, ergo__snap *out) {
  return ergo__snap_take_at(t, since_step, ergo__report_now(), out);
}

static int take(const ergo__tree *t, int since_step, uint64_t now, int pool, int unsorted,
                ergo__snap *out);

int ergo__snap_take_at(const ergo__tree *t, int since_step, uint64_t now, ergo__snap *out) {
  return take(t, since_step, now, 0, 0, out);
}

int ergo__snap_take_unsorted(const ergo__tree *t, ergo__snap *out) {
  return take(t, 0, ergo__report_now(), 0, 1, out);
}

int ergo__snap_take_step(const ergo__tree *t, uint64_t now, ergo__snap *out) {
  /* Room for every node of the tree, and some to grow by, rounded to pages. */
  size_t need = (t->nnodes + t->nnodes / 8 + 64) * sizeof(ergo__snap);
  need = (need + 65535) & ~(size_t)65535;
  if (P.cap < need) {
    ergo__snap_pool_release();
    void *m = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
      P.base = m;
      P.cap = need;
    }
  }
  P.used = 0;
  return take(t, 1, now, 1, 0, out);
}

static int take(const ergo__tree *t, int since_step, uint64_t now, int pool, int unsorted,
                ergo__snap *out) {
  ergo__clock_refresh();
  ergo__quant_begin();
  const ergo__cold *rc0 = ergo__node_cold_peek(&t->root);
  double root_loaded_s = rc0 ? rc0->loaded_s : 0.0, root_lo = rc0 ? rc0->loaded_min_s : -1;
  double root_hi = rc0 ? rc0->loaded_max_s : -1;
  uint64_t root_loaded_calls = rc0 ? rc0->loaded_calls : 0;
  memset(out, 0, sizeof *out);
  sctx cx = {0};
  cx.unsorted = unsorted;
  if ((cx.pool = pool)) { /* the kept key arrays */
    cx.v = P.v;
    cx.cap = P.vcap / sizeof *P.v;
    cx.tmp = P.tmp;
    cx.tmpcap = P.tmpcap / sizeof *P.tmp;
  }
  int rc = fill(t, &t->root, 0, since_step, now, &cx, out);
  if (!pool) {
    free(cx.v);
    free(cx.tmp);
  }
  if (rc) {
    ergo__snap_free(out);
    return rc;
  }
  if (t == ergo__g.main_tree) {
    /* The main tree's Global is the wall time since ergo_init. */
    uint64_t start = since_step ? t->step_t : t->t0;
    out->time_s =
        ergo__ticks_to_s(now > start ? now - start : 0) + (since_step ? 0.0 : root_loaded_s);
  } else {
    /* Another thread has no wall-clock origin of its own: Global is the sum
     * of its top-level regions. */
    out->time_s = 0;
    for (size_t i = 0; i < out->nchildren; i++) out->time_s += out->children[i].time_s;
  }
  out->calls = since_step ? 1 : 1 + root_loaded_calls;
  out->open = 1;
  ergo__quant_times(&t->root, out->q_ok, out->time_s, since_step ? 0.0 : root_loaded_s,
                    out->q_time_s);
  /* Global is one call lasting the whole run (or step): its extremes are its own time, widened
   * by the runs a checkpoint brought in. */
  double run_s = out->time_s - (since_step ? 0.0 : root_loaded_s);
  out->min_s = out->max_s = run_s > 0 ? run_s : 0.0;
  if (!since_step && root_lo >= 0 && root_lo < out->min_s) out->min_s = root_lo;
  if (!since_step && root_hi >= 0 && root_hi > out->max_s) out->max_s = root_hi;
  return 0;
}

void ergo__snap_free(ergo__snap *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nchildren; i++) ergo__snap_free(&s->children[i]);
  if (!s->pooled) free(s->children);
  s->children = NULL;
  s->nchildren = 0;
}
