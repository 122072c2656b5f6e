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
  char *path;
  char sym;
} entry;

/* The symbol table: what the balance lines of this run have named so far, in order of first
 * appearance, and an index by path (open addressing: entry number + 1, 0 empty) so a step of n
 * regions costs O(n), not O(n) per region. */
static struct {
  entry *table;
  size_t ntable, captable;
  size_t *index, mask; /* capacity - 1 */
  int header_written;
} B;

void ergo__balance_reset(void) {
  for (size_t i = 0; i < B.ntable; i++) free(B.table[i].path);
  free(B.table);
  free(B.index);
  memset(&B, 0, sizeof B);
}

static uint64_t path_hash(const char *p) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
  return h;
}

/* The table's entry number of path, or -1. */
static long lookup(const char *path) {
  if (!B.index) return -1;
  for (size_t j = path_hash(path) & B.mask; B.index[j]; j = (j + 1) & B.mask)
    if (strcmp(B.table[B.index[j] - 1].path, path) == 0) return (long)B.index[j] - 1;
  return -1;
}

static void index_put(size_t *index, size_t mask, size_t i) {
  size_t j = path_hash(B.table[i].path) & mask;
  while (index[j]) j = (j + 1) & mask;
  index[j] = i + 1;
}

static long add(const char *path) {
  if (B.ntable == B.captable) {
    size_t cap = B.captable ? B.captable * 2 : 32;
    entry *t = realloc(B.table, cap * sizeof *t);
    if (!t) return -1;
    B.table = t;
    B.captable = cap;
  }
  if (!B.index || (B.ntable + 1) * 2 > B.mask + 1) { /* at most half full */
    size_t cap = B.index ? (B.mask + 1) * 2 : 64;
    size_t *index = calloc(cap, sizeof *index);
    if (!index) return -1;
    for (size_t i = 0; i < B.ntable; i++) index_put(index, cap - 1, i);
    free(B.index);
    B.index = index;
    B.mask = cap - 1;
  }
  char *p = strdup(path);
  if (!p) return -1;
  size_t n = sizeof alphabet - 1;
  B.table[B.ntable].path = p;
  B.table[B.ntable].sym = alphabet[B.ntable < n ? B.ntable : n - 1];
  index_put(B.index, B.mask, B.ntable);
  return (long)B.ntable++;
}

/* One region of this step's line: its path, symbol and seconds. */
typedef struct {
  char *path; /* owned; NULL for '?' */
  long e;     /* its entry in the symbol table (-1: '?'); an index, as the table may move */
  double t;
  long count;
  double frac;
} part;

typedef struct {
  part *v;
  size_t n, cap;
  double unaccounted;
  int fail;
} parts;

static void push_part(parts *ps, char *path, double t) {
  if (ps->n == ps->cap) {
    size_t cap = ps->cap ? ps->cap * 2 : 32;
    part *v = realloc(ps->v, cap * sizeof *v);
    if (!v) {
      free(path);
      ps->fail = 1;
      return;
    }
    ps->v = v;
    ps->cap = cap;
  }
  ps->v[ps->n++] = (part){path, -1, t, 0, 0};
}

static void free_parts(parts *ps) {
  for (size_t i = 0; i < ps->n; i++) free(ps->v[i].path);
  free(ps->v);
}

/* A region shown at this level with its children folded, or a leaf, gets its
 * own symbol; a region whose children are shown keeps only its Unaccounted
 * part, which goes to '?'. */
static void collect(parts *ps, const ergo__snap *n, const char *prefix, int indent,
                    int max_indent) {
  double sum = 0;
  for (size_t i = 0; i < n->nchildren && !ps->fail; i++) {
    const ergo__snap *c = &n->children[i];
    sum += c->time_s;
    size_t lp = strlen(prefix), ln = strlen(c->name);
    char *path = malloc(lp + ln + 2);
    if (!path) {
      ps->fail = 1;
      return;
    }
    memcpy(path, prefix, lp);
    if (lp) path[lp++] = ':';
    memcpy(path + lp, c->name, ln + 1);
    if (c->nchildren && indent + 1 <= max_indent) {
      collect(ps, c, path, indent + 1, max_indent);
      free(path);
    } else {
      push_part(ps, path, c->time_s);
    }
  }
  if (n->time_s > sum) ps->unaccounted += n->time_s - sum;
}

static int by_path(const void *a, const void *b) {
  return strcmp(((const part *)a)->path, ((const part *)b)->path);
}

static int by_remainder(const void *a, const void *b) {
  const part *x = *(part *const *)a, *y = *(part *const *)b;
  if (x->frac != y->frac) return x->frac < y->frac ? 1 : -1;
  return x < y ? -1 : (x > y);
}

int ergo__balance_write(FILE *f, const ergo__snap *root, long step, int max_indent) {
  size_t known = B.ntable;
  parts ps = {0};
  collect(&ps, root, "", 0, max_indent);
  if (!ps.fail) push_part(&ps, NULL, ps.unaccounted); /* '?' last */
  size_t nreg = ps.n ? ps.n - 1 : 0;
  if (!ps.fail) qsort(ps.v, nreg, sizeof *ps.v, by_path);
  /* New regions get symbols in path order, so a header reads alphabetically. */
  for (size_t i = 0; i < nreg && !ps.fail; i++) {
    long e = lookup(ps.v[i].path);
    if (e < 0) e = add(ps.v[i].path);
    if (e < 0) ps.fail = 1;
    ps.v[i].e = e;
  }
  if (ps.fail) {
    free_parts(&ps);
    return ERGO_ENOMEM;
  }

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
  if (total <= 0) {
    ps.v[nreg].count = ERGO__BALANCE_WIDTH;
    used = ERGO__BALANCE_WIDTH;
  }
  /* The symbols left (fewer than ps.n, at most the width) go to the largest remainders: only
   * those are kept in order, so a step of many regions does not sort them all. */
  size_t want = (size_t)(ERGO__BALANCE_WIDTH - used), nk = 0;
  if (want > ps.n) want = ps.n;
  part **order = malloc((want + 1) * sizeof *order);
  if (!order) {
    free_parts(&ps);
    return ERGO_ENOMEM;
  }
  for (size_t i = 0; i < ps.n && want; i++) {
    part *p = &ps.v[i];
    if (nk == want && by_remainder(&p, &order[nk - 1]) >= 0) continue;
    size_t j = nk < want ? nk++ : nk - 1;
    for (; j > 0 && by_remainder(&p, &order[j - 1]) < 0; j--) order[j] = order[j - 1];
    order[j] = p;
  }
  for (size_t i = 0; nk && used < ERGO__BALANCE_WIDTH; i = (i + 1) % nk, used++) order[i]->count++;
  free(order);

  if (!B.header_written || B.ntable > known) {
    if (!B.header_written)
      fputs("Headers for balance file:\n", f);
    else
      fprintf(f, "Headers for balance file (added at step %ld):\n", step);
    for (size_t i = B.header_written ? known : 0; i < B.ntable; i++)
      fprintf(f, "'%c' - %s\n", B.table[i].sym, B.table[i].path);
    if (!B.header_written) fputs("'?' - Unaccounted\n", f);
    B.header_written = 1;
  }
  char symbols[ERGO__BALANCE_WIDTH + 1];
  size_t k = 0;
  for (size_t i = 0; i < ps.n; i++)
    for (long j = 0; j < ps.v[i].count && k < ERGO__BALANCE_WIDTH; j++)
      symbols[k++] = ps.v[i].e >= 0 ? B.table[ps.v[i].e].sym : '?';
  symbols[k] = '\0';
  fprintf(f, "  Step=%5ld sec=%10.5f     %s\n", step, root->time_s, symbols);
  free_parts(&ps);
  return ferror(f) ? ERGO_EIO : 0;
}
