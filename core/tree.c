/* tree.c - the core's state and its registry of per-thread region trees: making, registering and
 * freeing a tree and its nodes. */
#include "internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

ergo__state ergo__g = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The lookup tables (the interned names', each tree's children) live in mappings of their own,
 * zeroed, never in the application's heap: past 128 KiB malloc would map them itself, and freeing
 * such a block when the table grows raises glibc's mmap and trim thresholds under the application
 * (its next large temporaries then come from the heap top, trimmed and faulted in again). */
static void *tab_map(size_t bytes) {
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return m == MAP_FAILED ? NULL : m;
}
static void tab_unmap(void *p, size_t bytes) {
  if (p) munmap(p, bytes);
}

/* ---- interned names: one copy per process ------------------------------------ */
static struct {
  pthread_mutex_t lock;
  const char **v; /* open addressing; NULL empty */
  uint64_t *h;
  size_t mask, n;
  char *slab; /* the names' text: 64 KiB mappings, kept for the process */
  size_t slab_used;
} I = {.lock = PTHREAD_MUTEX_INITIALIZER};

#define SLAB_BYTES 65536
/* bytes (a multiple of 8, at most 136) for a name's hash and text, zeroed, from the slab: a block
 * of up to 64 bytes does not straddle two cache lines (a lookup reads one line for it). */
static char *intern_block(size_t bytes) {
  size_t at = I.slab_used;
  if (bytes <= 64 && at / 64 != (at + bytes - 1) / 64) at = (at + 63) & ~(size_t)63;
  if (!I.slab || at + bytes > SLAB_BYTES) {
    char *m = tab_map(SLAB_BYTES); /* the old slab's rest stays unused */
    if (!m) return NULL;
    I.slab = m;
    at = 0;
  }
  I.slab_used = at + bytes;
  return I.slab + at;
}

static int intern_grow(void) {
  size_t cap = I.v ? (I.mask + 1) * 2 : 512; /* a page a table */
  const char **v = tab_map(cap * sizeof *v);
  uint64_t *h = tab_map(cap * sizeof *h);
  if (!v || !h) {
    tab_unmap(v, cap * sizeof *v);
    tab_unmap(h, cap * sizeof *h);
    return -1;
  }
  for (size_t i = 0; I.v && i <= I.mask; i++) {
    if (!I.v[i]) continue;
    size_t j = I.h[i] & (cap - 1);
    while (v[j]) j = (j + 1) & (cap - 1);
    v[j] = I.v[i];
    h[j] = I.h[i];
  }
  if (I.v) {
    tab_unmap(I.v, (I.mask + 1) * sizeof *I.v);
    tab_unmap(I.h, (I.mask + 1) * sizeof *I.h);
  }
  I.v = v;
  I.h = h;
  I.mask = cap - 1;
  return 0;
}

const char *ergo__intern(const char *name, uint64_t hash) {
  const char *out = NULL;
  pthread_mutex_lock(&I.lock);
  if ((I.n + 1) * 4 > (I.v ? I.mask + 1 : 0) * 3 && intern_grow()) goto done;
  size_t j = hash & I.mask;
  for (; I.v[j]; j = (j + 1) & I.mask)
    if (I.h[j] == hash && strncmp(I.v[j], name, ERGO_NAME_MAX) == 0) {
      out = I.v[j];
      goto done;
    }
  /* The hash rides in the 8 bytes before the text (ergo__interned_hash); the text is padded with
   * zeros to whole 8-byte words (ergo__interned_cmp reads it a word at a time). */
  size_t len = ergo__name_hash_len(hash), words = len / 8 + 1;
  char *block = intern_block((1 + words) * 8);
  if (!block) goto done;
  memcpy(block, &hash, sizeof hash);
  char *copy = block + sizeof hash;
  memcpy(copy, name, len);
  I.v[j] = out = copy;
  I.h[j] = hash;
  I.n++;
done:
  pthread_mutex_unlock(&I.lock);
  return out;
}

/* ---- trees ------------------------------------------------------------------- */
ergo__tree *ergo__tree_new(void) {
  ergo__tree *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->cap = 64;
  t->stack = calloc((size_t)t->cap, sizeof *t->stack);
  t->root.name = ergo__intern("Global", ergo__name_hash("Global"));
  if (!t->stack || !t->root.name) {
    free(t->stack);
    free(t);
    return NULL;
  }
  t->root.key = NULL;
  t->root.min = UINT64_MAX;
  t->stack[0].node = &t->root;
  t->t0 = t->step_t = ergo__ticks();
  return t;
}

static void free_cold(ergo__node *n) {
  if (!n->cold) return;
  free(n->cold->q_step);
  free(n->cold->q_loaded);
  free(n->cold);
}

void ergo__tree_free(ergo__tree *t) {
  for (ergo__chunk *c = t->chunks, *next; c; c = next) {
    next = c->next;
    for (size_t i = 0; i < c->used; i++) free_cold(&c->nodes[i]);
    free(c);
  }
  free_cold(&t->root);
  if (t->tab) tab_unmap(t->tab, (t->tab_mask + 1) * sizeof *t->tab);
  if (t->ptab) tab_unmap(t->ptab, (t->ptab_mask + 1) * sizeof *t->ptab);
  if (t->dir) tab_unmap(t->dir, t->dir_cap * sizeof *t->dir);
  free(t->stack);
  free(t);
}

/* Register a new tree; list order is creation order (main first). */
void ergo__tree_add(ergo__tree *t) {
  ergo__tree **link = &ergo__g.trees;
  while (*link) link = &(*link)->next;
  t->index = ergo__g.ntrees++;
  t->root.thread = t->index;
  *link = t;
}

ergo__tree *ergo__tree_new_thread(void) {
  ergo__tree *t = ergo__tree_new();
  if (!t) {
    ergo__error("no memory for this thread's region tree; its regions are ignored");
    return NULL;
  }
  pthread_mutex_lock(&ergo__g.lock);
  ergo__tree_add(t);
  pthread_mutex_unlock(&ergo__g.lock);
  return t;
}

ergo__cold *ergo__node_cold(ergo__node *n) {
  if (n->cold) return n->cold;
  ergo__cold *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->loaded_min_s = c->loaded_max_s = -1;
  __atomic_store_n(&n->cold, c, __ATOMIC_RELEASE);
  return c;
}

int ergo__node_depth(const ergo__node *n) {
  int d = 0;
  for (const ergo__node *p = n->parent; p; p = p->parent) d++;
  return d;
}

ergo__tree *ergo__node_tree(ergo__node *n) {
  while (n->parent) n = n->parent;
  return (ergo__tree *)((char *)n - offsetof(ergo__tree, root));
}

/* ---- children by (parent, name) -------------------------------------------------- */
#define TAB_EMPTY ERGO__TAB_EMPTY
#define TAB_GONE ERGO__TAB_GONE
#define key_hash ergo__key_hash

uint64_t ergo__node_key(const ergo__node *parent, const char *name) {
  return key_hash(parent, ergo__name_hash(name));
}

ergo__node *ergo__node_find_in(ergo__tree *t, ergo__node *parent, const char *name, uint64_t hash,
                               int lit) {
  return ergo__node_probe(t, parent, name, hash, lit);
}

ergo__node *ergo__node_find(ergo__node *parent, const char *name, int lit) {
  return ergo__node_find_in(ergo__node_tree(parent), parent, name, ergo__name_hash(name), lit);
}

/* Put entry e (its key: h) in the first free slot from h on. */
static void tab_put(uint32_t *tab, size_t mask, uint32_t e, uint64_t h) {
  size_t j = h & mask;
  while (tab[j] > TAB_GONE) j = (j + 1) & mask;
  tab[j] = e;
}

/* Room for one more entry in *tab (mask, used: its capacity - 1 and slots not empty) holding n
 * entries: at most 3/4 of the slots in use (removed ones count), at most half after growing.
 * key(t, node): an entry's key. */
static int tab_room(ergo__tree *t, uint32_t **tab, size_t *mask, size_t *used, size_t n,
                    uint64_t (*key)(const ergo__node *)) {
  size_t cap = *tab ? *mask + 1 : 0;
  if ((*used + 1) * 4 <= cap * 3) return 0;
  size_t ncap = 1024; /* the mapping is a page */
  while ((n + 1) * 2 > ncap) ncap *= 2;
  uint32_t *v = tab_map(ncap * sizeof *v);
  if (!v) return -1;
  size_t u = 0;
  for (size_t j = 0; j < cap; j++) {
    uint32_t e = (*tab)[j];
    if (e <= TAB_GONE) continue;
    tab_put(v, ncap - 1, e, key(ergo__tab_node(t, e)));
    u++;
  }
  if (*tab) tab_unmap(*tab, cap * sizeof **tab);
  *tab = v;
  *mask = ncap - 1;
  *used = u;
  return 0;
}

static uint64_t name_key(const ergo__node *c) {
  return key_hash(c->parent, ergo__interned_hash(c->name));
}
static uint64_t lit_key(const ergo__node *c) { return ergo__lit_hash(c->parent, c->key); }

void ergo__lit_add(ergo__tree *t, ergo__node *c, uint32_t e) {
  if (e <= TAB_GONE || ergo__tab_node(t, e) != c ||
      tab_room(t, &t->ptab, &t->ptab_mask, &t->ptab_used, t->ptab_n, lit_key))
    return;
  uint64_t h = lit_key(c);
  tab_put(t->ptab, t->ptab_mask, ergo__tab_entry((e >> ERGO__TAG_BITS) - 1, h), h);
  t->ptab_used++;
  t->ptab_n++;
}

/* Mark n's entry (key h) removed: 1, or 0 when it is not there. */
static int tab_drop(ergo__tree *t, uint32_t *tab, size_t mask, const ergo__node *n, uint64_t h) {
  for (size_t j = h & mask; tab[j] != TAB_EMPTY; j = (j + 1) & mask)
    if (tab[j] > TAB_GONE && ergo__tab_node(t, tab[j]) == n) {
      tab[j] = TAB_GONE;
      return 1;
    }
  return 0;
}

/* A new node (zeroed) and its index; NULL: no memory, or the tree is full. */
static ergo__node *arena_new(ergo__tree *t, uint32_t *index) {
  ergo__chunk *ch = t->chunks;
  if (!ch || ch->used == ch->cap) {
    if (t->ndir >= ERGO__TREE_MAX_NODES / ERGO__CHUNK_NODES) return NULL;
    if (t->ndir == t->dir_cap) {
      size_t ncap = t->dir_cap ? t->dir_cap * 2 : 512; /* a page of chunk pointers */
      ergo__chunk **d = tab_map(ncap * sizeof *d);
      if (!d) return NULL;
      if (t->dir) {
        memcpy(d, t->dir, t->ndir * sizeof *d);
        tab_unmap(t->dir, t->dir_cap * sizeof *d);
      }
      t->dir = d;
      t->dir_cap = ncap;
    }
    size_t cap =
        ERGO__CHUNK_NODES; /* ~7 KiB: little slack per tree, under malloc's mmap threshold */
    ch = aligned_alloc(64, sizeof *ch + cap * sizeof(ergo__node));
    if (!ch) return NULL;
    ch->cap = cap;
    ch->used = 0;
    ch->next = t->chunks;
    t->chunks = ch;
    t->dir[t->ndir++] = ch;
  }
  *index = (uint32_t)((t->ndir - 1) * ERGO__CHUNK_NODES + ch->used);
  ergo__node *n = &ch->nodes[ch->used++];
  memset(n, 0, sizeof *n);
  return n;
}

ergo__node *ergo__node_child_in(ergo__tree *t, ergo__node *parent, const char *name, uint64_t hash,
                                int level) {
  const char *iname = ergo__intern(name, hash);
  if (!iname || tab_room(t, &t->tab, &t->tab_mask, &t->tab_used, t->nnodes, name_key)) return NULL;
  uint32_t index;
  ergo__node *c = arena_new(t, &index);
  if (!c) return NULL;
  if ((uint64_t)(uintptr_t)c >> 48) { /* a hint keeps tags above the pointer */
    t->chunks->used--;
    return NULL;
  }
  c->name = iname;
  c->parent = parent;
  c->min = UINT64_MAX;
  c->level = level;
  c->thread = parent->thread;
  /* With hooks attached every region gets its slots now, on its own thread. */
  if (__atomic_load_n(&ergo__nhooks, __ATOMIC_RELAXED) && !ergo__node_cold(c)) {
    t->chunks->used--;
    return NULL;
  }
  uint64_t h = key_hash(parent, hash);
  t->found = ergo__tab_entry(index, h);
  tab_put(t->tab, t->tab_mask, t->found, h);
  t->tab_used++;
  t->nnodes++;
  /* first_child stays the first region ever seen here (it predicts the first push of a
   * frame); later ones go right after it.  Release: a reader sees the node whole. */
  ergo__node *first = parent->first_child;
  if (!first) {
    __atomic_store_n(&parent->first_child, c, __ATOMIC_RELEASE);
  } else {
    c->next_sibling = first->next_sibling;
    __atomic_store_n(&first->next_sibling, c, __ATOMIC_RELEASE);
  }
  return c;
}

ergo__node *ergo__node_child(ergo__node *parent, const char *name, int level) {
  return ergo__node_child_in(ergo__node_tree(parent), parent, name, ergo__name_hash(name), level);
}

void ergo__node_remove_last(ergo__node *n) {
  ergo__tree *t = ergo__node_tree(n);
  tab_drop(t, t->tab, t->tab_mask, n, name_key(n));
  if (n->key && t->ptab && tab_drop(t, t->ptab, t->ptab_mask, n, lit_key(n))) t->ptab_n--;
  ergo__node **link = &n->parent->first_child;
  while (*link != n) link = &(*link)->next_sibling;
  *link = n->next_sibling;
  t->nnodes--;
  free_cold(n);
  n->cold = NULL;
  if (t->chunks && t->chunks->used && &t->chunks->nodes[t->chunks->used - 1] == n)
    t->chunks->used--;
}
