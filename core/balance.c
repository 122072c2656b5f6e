/* balance.c - the symbol "balance" line per step (SPACE-Timers appendix A) and its header. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ERGO__BALANCE_WIDTH 100

/* Symbols in order of first appearance; '?' is Unaccounted, quotes and
 * blanks are left out so a line stays one token.  Past the last symbol every
 * further region shares '~' (the header says which). */
static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                               "!#$%&()*+,-./:;<=>@[]^_{|}~";

typedef struct {
  size_t comp; /* its path: B.comps[comp].path */
  char sym;
} entry;

/* A path seen in some step: "" (the root, component 0) or its parent's path, ':' and a name, as
 * the paper's header joins them ("FIND_HSML:Primary").  A ':' or a backslash inside a name gets
 * a backslash before it (region "Kokkos::fence" under T is T:Kokkos\:\:fence), as the JSON path
 * does for '/', so a header path names one region.  A step finds each region's path from its
 * parent's by a hash keyed by (parent, name), so it builds no string for a region it has seen
 * before. */
typedef struct {
  size_t parent;
  char *path;       /* owned; the name follows its NUL */
  const char *name; /* its name as the region has it, after path's NUL */
  const char *key;  /* the name pointer it was last found by (see ergo__balance_write) */
  long entry;       /* its symbol's entry in the table, or -1 */
} comp;

/* One region of this step's line: its path, symbol and seconds. */
typedef struct {
  size_t comp; /* its path (0: '?', Unaccounted) */
  long e;      /* its entry in the symbol table (-1: '?'); an index, as the table may move */
  double t;
  long count;
  double frac;
} part;

/* The symbol table: what the balance lines of this run have named so far, in order of first
 * appearance, each entry's rank in path order, and the paths; plus the buffers a step reuses, so
 * a step of n regions costs O(n) and allocates nothing once the regions are known. */
static struct {
  entry *table;
  size_t ntable, captable;
  size_t *rank; /* rank[e]: entry e's position among the entries sorted by path */
  int ranked;   /* rank is up to date */
  comp *comps;
  size_t ncomps, capcomps;
  size_t *index, mask; /* comps by (parent, name): comp number + 1, 0 empty; capacity - 1 */
  size_t *seen;        /* comps by (parent, name pointer), direct-mapped, same capacity: a name
                        * found before by its pointer costs neither hashing nor comparing it */
  part *parts, *sorted;
  size_t capparts, capsorted;
  long *slot; /* by rank: the part of that entry this step, or -1 */
  size_t capslot;
  size_t capindex, caprank, *order, caporder; /* capacities of index and seen, rank, order */
  size_t *tmp, captmp;                        /* sort_by_path's scratch */
  int header_written;
} B;

/* Every array here but the components lives in a mapping of its own (ergo__map_grow), not in the
 * application's heap; capacities are in elements.  The mapping's size in bytes from a capacity:
 * whole pages. */
static size_t mapped(size_t cap, size_t elem) {
  return cap ? (cap * elem + 4095) & ~(size_t)4095 : 0;
}

static int grow(void **v, size_t *cap, size_t want, size_t elem) {
  if (want <= *cap) return 0;
  size_t bytes = mapped(*cap, elem);
  if (ergo__map_grow(v, &bytes, want * elem)) return -1;
  *cap = bytes / elem;
  return 0;
}

/* The components hold pointers (their paths): they stay in the heap, where a leak checker looks
 * for pointers, and grow with realloc, which moves a large block with mremap and frees none. */
static int grow_heap(void **v, size_t *cap, size_t want, size_t elem) {
  if (want <= *cap) return 0;
  size_t n = *cap ? *cap : 32;
  while (n < want) n *= 2;
  void *g = realloc(*v, n * elem);
  if (!g) return -1;
  *v = g;
  *cap = n;
  return 0;
}

static void drop(void **v, size_t *cap, size_t elem) {
  size_t bytes = mapped(*cap, elem);
  ergo__map_free(v, &bytes);
  *cap = 0;
}

void ergo__balance_reset(void) {
  for (size_t i = 0; i < B.ncomps; i++) free(B.comps[i].path);
  drop((void **)&B.table, &B.captable, sizeof *B.table);
  drop((void **)&B.rank, &B.caprank, sizeof *B.rank);
  free(B.comps);
  size_t capseen = B.capindex;
  drop((void **)&B.index, &B.capindex, sizeof *B.index);
  drop((void **)&B.seen, &capseen, sizeof *B.seen);
  drop((void **)&B.parts, &B.capparts, sizeof *B.parts);
  drop((void **)&B.sorted, &B.capsorted, sizeof *B.sorted);
  drop((void **)&B.slot, &B.capslot, sizeof *B.slot);
  drop((void **)&B.order, &B.caporder, sizeof *B.order);
  drop((void **)&B.tmp, &B.captmp, sizeof *B.tmp);
  memset(&B, 0, sizeof B);
}

static size_t comp_hash(size_t parent, const char *name) {
  uint64_t h = ergo__name_hash(name) ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  return (size_t)(h ^ (h >> 29));
}

static void index_put(size_t *index, size_t mask, size_t i) {
  size_t j = comp_hash(B.comps[i].parent, B.comps[i].name) & mask;
  while (index[j]) j = (j + 1) & mask;
  index[j] = i + 1;
}

/* The component for parent's path followed by name, made on first sight; (size_t)-1: no memory. */
static size_t comp_get(size_t parent, const char *name) {
  if (!B.ncomps) { /* the root */
    if (grow_heap((void **)&B.comps, &B.capcomps, 1, sizeof *B.comps)) return (size_t)-1;
    char *root = calloc(1, 1);
    if (!root) return (size_t)-1;
    B.comps[0] = (comp){0, root, root, NULL, -1};
    B.ncomps = 1;
  }
  /* Two ways: slots j and j ^ 1. */
  uint64_t ph = ((uint64_t)(uintptr_t)name ^ ((uint64_t)parent << 32)) * 0x9e3779b97f4a7c15ull;
  size_t *seen = NULL;
  for (int w = 0; B.seen && w < 2; w++) {
    size_t *sl = &B.seen[((ph >> 32) & B.mask) ^ (size_t)w];
    if (*sl && B.comps[*sl - 1].key == name && B.comps[*sl - 1].parent == parent) return *sl - 1;
    if (!seen || (*seen && !*sl)) seen = sl; /* where to remember it: an empty way first */
  }
  size_t h = comp_hash(parent, name);
  for (size_t j = B.index ? h & B.mask : 0; B.index && B.index[j]; j = (j + 1) & B.mask) {
    comp *c = &B.comps[B.index[j] - 1];
    if (c->parent == parent && strncmp(c->name, name, ERGO_NAME_MAX) == 0) {
      c->key = name;
      if (seen) *seen = B.index[j];
      return B.index[j] - 1;
    }
  }
  if (grow_heap((void **)&B.comps, &B.capcomps, B.ncomps + 1, sizeof *B.comps)) return (size_t)-1;
  if (!B.index || (B.ncomps + 1) * 2 > B.mask + 1) { /* at most half full */
    size_t cap = B.index ? (B.mask + 1) * 2 : 64;
    size_t *index = NULL, *fresh = NULL, ci = 0, cf = 0; /* new mappings: zeroed */
    if (grow((void **)&index, &ci, cap, sizeof *index) ||
        grow((void **)&fresh, &cf, cap, sizeof *fresh)) {
      drop((void **)&index, &ci, sizeof *index);
      drop((void **)&fresh, &cf, sizeof *fresh);
      return (size_t)-1;
    }
    size_t capseen = B.capindex;
    drop((void **)&B.index, &B.capindex, sizeof *B.index);
    drop((void **)&B.seen, &capseen, sizeof *B.seen);
    B.index = index;
    B.seen = fresh;
    B.capindex = ci < cf ? ci : cf;
    B.mask = cap - 1;
    for (size_t i = 1; i < B.ncomps; i++) index_put(B.index, B.mask, i);
  }
  const char *pp = B.comps[parent].path;
  size_t lp = strlen(pp), ln = strnlen(name, ERGO_NAME_MAX);
  char *path = malloc(lp + 3 * ln + 3);
  if (!path) return (size_t)-1;
  memcpy(path, pp, lp);
  if (lp) path[lp++] = ':';
  for (size_t k = 0; k < ln; k++) {
    if (name[k] == ':' || name[k] == '\\') path[lp++] = '\\';
    path[lp++] = name[k];
  }
  path[lp++] = '\0';
  memcpy(path + lp, name, ln);
  path[lp + ln] = '\0';
  size_t i = B.ncomps++;
  B.comps[i] = (comp){parent, path, path + lp, name, -1};
  index_put(B.index, B.mask, i);
  B.seen[(ph >> 32) & B.mask] = i + 1; /* the mask may have grown since ph's slot was read */
  return i;
}

static long add(size_t c) {
  if (grow((void **)&B.table, &B.captable, B.ntable + 1, sizeof *B.table)) return -1;
  size_t n = sizeof alphabet - 1;
  B.table[B.ntable].comp = c;
  B.table[B.ntable].sym = alphabet[B.ntable < n ? B.ntable : n - 1];
  B.comps[c].entry = (long)B.ntable;
  B.ranked = 0;
  return (long)B.ntable++;
}

/* Sort the component numbers v[0..n) by path: a merge sort with its scratch in a kept mapping
 * (qsort mallocs and frees a scratch as large as the array, in the application's heap). */
static int sort_by_path(size_t *v, size_t n) {
  if (grow((void **)&B.tmp, &B.captmp, n, sizeof *B.tmp)) return -1;
  size_t *from = v, *to = B.tmp;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi)
        to[o++] = strcmp(B.comps[from[b]].path, B.comps[from[a]].path) < 0 ? from[b++] : from[a++];
      while (a < mid) to[o++] = from[a++];
      while (b < hi) to[o++] = from[b++];
    }
    size_t *t = from;
    from = to;
    to = t;
  }
  if (from != v) memcpy(v, from, n * sizeof *v);
  return 0;
}

/* rank[] for the entries as they are now: sorted by path, only after a step that added some. */
static int rerank(void) {
  if (grow((void **)&B.order, &B.caporder, B.ntable, sizeof *B.order) ||
      grow((void **)&B.rank, &B.caprank, B.ntable, sizeof *B.rank))
    return -1;
  for (size_t i = 0; i < B.ntable; i++) B.order[i] = B.table[i].comp;
  if (sort_by_path(B.order, B.ntable)) return -1;
  for (size_t i = 0; i < B.ntable; i++) B.order[i] = (size_t)B.comps[B.order[i]].entry;
  for (size_t i = 0; i < B.ntable; i++) B.rank[B.order[i]] = i;
  B.ranked = 1;
  return 0;
}

typedef struct {
  size_t n;
  double unaccounted;
  int fail;
} parts;

static void push_part(parts *ps, size_t c, double t) {
  if (grow((void **)&B.parts, &B.capparts, ps->n + 1, sizeof *B.parts)) {
    ps->fail = 1;
    return;
  }
  B.parts[ps->n++] = (part){c, -1, t, 0, 0};
}

/* A region shown at this level with its children folded, or a leaf, gets its
 * own symbol; a region whose children are shown keeps only its Unaccounted
 * part, which goes to '?'. */
static void collect(parts *ps, const ergo__snap *n, size_t at, int indent, int max_indent) {
  double sum = 0;
  for (size_t i = 0; i < n->nchildren && !ps->fail; i++) {
    const ergo__snap *c = &n->children[i];
    sum += c->time_s;
    size_t cc = comp_get(at, c->name);
    if (cc == (size_t)-1) {
      ps->fail = 1;
      return;
    }
    if (c->nchildren && indent + 1 <= max_indent)
      collect(ps, c, cc, indent + 1, max_indent);
    else
      push_part(ps, cc, c->time_s);
  }
  if (n->time_s > sum) ps->unaccounted += n->time_s - sum;
}

static int by_rank(const void *a, const void *b) {
  size_t x = B.rank[((const part *)a)->e], y = B.rank[((const part *)b)->e];
  return (x > y) - (x < y);
}

static int by_remainder(const void *a, const void *b) {
  const part *x = *(part *const *)a, *y = *(part *const *)b;
  if (x->frac != y->frac) return x->frac < y->frac ? 1 : -1;
  return x < y ? -1 : (x > y);
}

/* The step's parts in path order, '?' last, into B.sorted: new paths get their symbols in path
 * order (so a header reads alphabetically), then every part goes to its entry's rank. */
static int order_parts(size_t n, size_t nreg) {
  size_t nfresh = 0;
  for (size_t i = 0; i < nreg; i++)
    if ((B.parts[i].e = B.comps[B.parts[i].comp].entry) < 0) nfresh++;
  if (grow((void **)&B.sorted, &B.capsorted, n, sizeof *B.sorted) ||
      grow((void **)&B.parts, &B.capparts, n, sizeof *B.parts))
    return -1;
  if (nfresh) {
    if (grow((void **)&B.order, &B.caporder, nfresh, sizeof *B.order)) return -1;
    size_t k = 0;
    for (size_t i = 0; i < nreg; i++)
      if (B.parts[i].e < 0) B.order[k++] = B.parts[i].comp;
    if (sort_by_path(B.order, nfresh)) return -1;
    for (size_t i = 0; i < nfresh; i++)
      if (B.comps[B.order[i]].entry < 0 && add(B.order[i]) < 0) return -1;
    for (size_t i = 0; i < nreg; i++) B.parts[i].e = B.comps[B.parts[i].comp].entry;
  }
  if (!B.ranked && rerank()) return -1;
  if (grow((void **)&B.slot, &B.capslot, B.ntable, sizeof *B.slot)) return -1;
  for (size_t i = 0; i < B.ntable; i++) B.slot[i] = -1;
  int clash = 0;
  for (size_t i = 0; i < nreg && !clash; i++) {
    size_t r = B.rank[B.parts[i].e];
    if (B.slot[r] >= 0) clash = 1; /* one path twice in a step: sort instead */
    B.slot[r] = (long)i;
  }
  size_t k = 0;
  if (clash) {
    memcpy(B.sorted, B.parts, nreg * sizeof *B.sorted);
    qsort(B.sorted, nreg, sizeof *B.sorted, by_rank);
    k = nreg;
  } else {
    for (size_t r = 0; r < B.ntable; r++)
      if (B.slot[r] >= 0) B.sorted[k++] = B.parts[B.slot[r]];
  }
  for (size_t i = k; i < n; i++) B.sorted[i] = B.parts[i]; /* '?' */
  return 0;
}

int ergo__balance_write(FILE *f, const ergo__snap *root, long step, int max_indent) {
  size_t known = B.ntable;
  parts pl = {0};
  collect(&pl, root, 0, 0, max_indent);
  if (!pl.fail) push_part(&pl, 0, pl.unaccounted); /* '?' last */
  size_t nreg = pl.n ? pl.n - 1 : 0;
  if (pl.fail || order_parts(pl.n, nreg)) return ERGO_ENOMEM;
  part *v = B.sorted;
  v[nreg].e = -1;
  struct {
    part *v;
    size_t n;
  } ps = {v, pl.n};

  /* Largest-remainder apportionment: exactly 100 symbols, each share fair. */
  double total = 0;
  for (size_t i = 0; i < ps.n; i++) total += ps.v[i].t;
  long used = 0;
  for (size_t i = 0; i < ps.n; i++) {
    double exact = total > 0 ? ERGO__BALANCE_WIDTH * ps.v[i].t / total : 0;
    ps.v[i].count = (long)exact;
    ps.v[i].frac = exact - (double)ps.v[i].count;
    used += ps.v[i].count;
  }
  /* A step of no time (the sim node's virtual clock, a manual one) has no shares to show: no
   * symbols, rather than 100 '?' saying its time was all Unaccounted. */
  if (total <= 0) used = ERGO__BALANCE_WIDTH;
  /* The symbols left (fewer than ps.n, at most the width) go to the largest remainders: only
   * those are kept in order, so a step of many regions does not sort them all. */
  size_t want = (size_t)(ERGO__BALANCE_WIDTH - used), nk = 0;
  if (want > ps.n) want = ps.n;
  part *order[ERGO__BALANCE_WIDTH + 1];
  for (size_t i = 0; i < ps.n && want; i++) {
    part *p = &ps.v[i];
    if (nk == want && by_remainder(&p, &order[nk - 1]) >= 0) continue;
    size_t j = nk < want ? nk++ : nk - 1;
    for (; j > 0 && by_remainder(&p, &order[j - 1]) < 0; j--) order[j] = order[j - 1];
    order[j] = p;
  }
  for (size_t i = 0; nk && used < ERGO__BALANCE_WIDTH; i = (i + 1) % nk, used++) order[i]->count++;

  if (!B.header_written || B.ntable > known) {
    if (!B.header_written)
      fputs("Headers for balance file:\n", f);
    else
      fprintf(f, "Headers for balance file (added at step %ld):\n", step);
    for (size_t i = B.header_written ? known : 0; i < B.ntable; i++)
      fprintf(f, "'%c' - %s\n", B.table[i].sym, B.comps[B.table[i].comp].path);
    if (!B.header_written) fputs("'?' - Unaccounted\n", f);
    B.header_written = 1;
  }
  char symbols[ERGO__BALANCE_WIDTH + 1];
  size_t k = 0;
  for (size_t i = 0; i < ps.n; i++)
    for (long j = 0; j < ps.v[i].count && k < ERGO__BALANCE_WIDTH; j++)
      symbols[k++] = ps.v[i].e >= 0 ? B.table[ps.v[i].e].sym : '?';
  symbols[k] = '\0';
  fprintf(f, "  Step=%5ld sec=%10.5f%s%s\n", step, root->time_s, k ? "     " : "", symbols);
  return ferror(f) ? ERGO_EIO : 0;
}
