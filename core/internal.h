/* internal.h - core's private structures: region tree, stacks, clock, snapshots. */
#ifndef ERGO_CORE_INTERNAL_H
#define ERGO_CORE_INTERNAL_H

#include "ergo.h"
#include "util/atomic_file.h"
#include "util/buf.h"
#include "util/log.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define ERGO__HAVE_TSC 1
#else
#define ERGO__HAVE_TSC 0
#endif

#define ERGO__LIKELY(x) __builtin_expect(!!(x), 1)
#define ERGO__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ERGO__HIDDEN __attribute__((visibility("hidden")))

/* ---- clock ---------------------------------------------------------------- */
enum { ERGO__CLOCK_TSC = 1, ERGO__CLOCK_MONO = 2, ERGO__CLOCK_USER = 3 };

typedef struct ergo__clock {
  int kind;
  ergo_clock_fn fn;
  void *ctx;
  double ns_per_tick;  /* 1.0 except for the TSC */
  uint64_t tick0, ns0; /* calibration origin (TSC only) */
} ergo__clock;

extern ERGO__HIDDEN ergo__clock ergo__clk;

static inline uint64_t ergo__mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Raw ticks of the active clock; the default clock costs one predictable branch. */
static inline uint64_t ergo__ticks(void) {
#if ERGO__HAVE_TSC
  if (ERGO__LIKELY(ergo__clk.kind == ERGO__CLOCK_TSC)) return __rdtsc();
#endif
  if (ergo__clk.kind == ERGO__CLOCK_MONO) return ergo__mono_ns();
  return ergo__clk.fn(ergo__clk.ctx);
}

/* The core's part of ergo_init/ergo_finalize (runtime/runtime.c adds the layers). */
ERGO__HIDDEN int ergo__core_init(const ergo_config *cfg);
ERGO__HIDDEN int ergo__core_finalize(void);
/* The JSON report so far, marked partial (ERGO_SAVE_EVERY; runtime/pipeline.c at ergo_step). */
ERGO__HIDDEN int ergo__core_save_partial(void);
/* The configuration ergo__core_init took, with strings the core owns until finalize. */
ERGO__HIDDEN const ergo_config *ergo__core_config(void);
/* Who started the running ergo when the code did not ("libergo-mpi-auto"), else NULL. */
ERGO__HIDDEN const char *ergo__core_started_by(void);
/* Global's clock (and its first step's) starts now: the runtime calls it at the end of ergo_init,
 * beside the energy layer's first reading, so Global's time and energy cover one window. */
ERGO__HIDDEN void ergo__core_origin(void);
/* ergo's own cost is timed in real time: the region clock when it is real,
 * CLOCK_MONOTONIC (ns) when regions run on a user or virtual clock. */
static inline uint64_t ergo__cost_now(void) {
  return ergo__clk.kind == ERGO__CLOCK_USER ? ergo__mono_ns() : ergo__ticks();
}

ERGO__HIDDEN int ergo__clock_init(const ergo_config *cfg);
ERGO__HIDDEN void ergo__clock_refresh(void);
ERGO__HIDDEN double ergo__ticks_to_s(uint64_t ticks);
ERGO__HIDDEN uint64_t ergo__ticks_to_ns(uint64_t ticks);

/* ---- tree ----------------------------------------------------------------- */
/* Quantity amounts checkpoints brought to a region (checkpoint.c fills it, quantity.c adds it to
 * what reports read), per attached slot and component. */
typedef struct ergo__qloaded {
  double v[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS]; /* amounts */
  /* Seconds the amounts were measured over: the loaded time where the file had the component,
   * so a rate covers one window (a component it lacked has this run's seconds alone). */
  double s[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS];
  unsigned ok; /* bit i: slot i has amounts; ERGO__Q_LOWER(i): a lower bound */
  unsigned gen[ERGO_MAX_QUANTITIES]; /* the slot's attachment they belong to (ergo__qslot.gen) */
} ergo__qloaded;

/* Fields a region needs only now and then (checkpoints, hooks, quantities at steps), allocated
 * at first use so the hot node stays small. */
typedef struct ergo__cold {
  double loaded_s; /* seconds added from checkpoints */
  uint64_t loaded_calls;
  double loaded_min_s, loaded_max_s; /* per-call extremes from checkpoints (<0: none) */
  void *slots[ERGO_MAX_HOOKS];
  double (*q_step)[ERGO_MAX_COMPONENTS]; /* quantity values at the last ergo_step, or NULL */
  ergo__qloaded *q_loaded; /* NULL unless a checkpoint brought amounts; published with release */
} ergo__cold;

/* A region node: 112 bytes on 64-bit Linux.  Nodes live in their tree's arena and are found
 * through the tree's hash table keyed by (parent, name); the sibling list is for walks.  A
 * thread reading another thread's tree (ERGO_REPORT_THREADS) follows first_child/next_sibling
 * with acquire loads: they are stored with release once the node is whole.  The first 64 bytes
 * are what a push and its pop read and write (finding it, its figures); a tree's chunks start
 * nodes on a cache line, so they span one or two lines. */
struct ergo_region {
  const char *key;  /* literal pointer pushed with (NULL: none yet) */
  const char *name; /* interned once per process (ergo__intern), at most ERGO_NAME_MAX chars */
  struct ergo_region *parent;
  uint64_t hint;  /* the sibling pushed after this one last time (ergo__hint_node), with bits
                   * of its literal pointer and of its name's hash on top (ergo__hint_make) */
  uint64_t total; /* ticks over completed calls */
  uint64_t calls;
  uint64_t min, max; /* ticks per call; min == UINT64_MAX: none yet */
  struct ergo_region *first_child, *next_sibling;
  uint64_t step_total, step_calls; /* figures at the last ergo_step */
  int level;
  int thread;       /* index of the tree: 0 = main */
  ergo__cold *cold; /* NULL until needed; published with release */
};
typedef struct ergo_region ergo__node;

/* A node pointer fits in 48 bits (the tree's table relies on it too); the hint keeps above it 8
 * bits of the predicted node's literal pointer (ERGO__HINT_LIT) and 8 of its name's hash
 * (ERGO__HINT_NAME): a push that cannot match the prediction, by pointer or by name, does not
 * read the node. */
#define ERGO__HINT_LIT 0xff00000000000000ull
#define ERGO__HINT_NAME 0x00ff000000000000ull
static inline uint64_t ergo__hint_lit(const char *key) {
  uint64_t p = (uint64_t)(uintptr_t)key;
  return ((p ^ (p >> 16) ^ (p >> 32)) & 0xffull) << 56;
}
static inline uint64_t ergo__hint_name(uint64_t name_hash) { return (name_hash & 0xffull) << 48; }
/* The hint predicting node c, whose name's hash is name_hash. */
static inline uint64_t ergo__hint_make(const ergo__node *c, uint64_t name_hash) {
  return (uint64_t)(uintptr_t)c | ergo__hint_lit(c->key) | ergo__hint_name(name_hash);
}
static inline ergo__node *ergo__hint_node(uint64_t hint) {
  return (ergo__node *)(uintptr_t)(hint & 0x0000ffffffffffffull);
}

/* Cold fields of n, made on first use (NULL: no memory).  Only n's own thread (or the main
 * thread with the tree's owner stopped, for checkpoints) calls it. */
ERGO__HIDDEN ergo__cold *ergo__node_cold(ergo__node *n);
static inline const ergo__cold *ergo__node_cold_peek(const ergo__node *n) {
  return __atomic_load_n(&n->cold, __ATOMIC_ACQUIRE);
}
/* Depth below Global (Global: 0), by walking the parents. */
ERGO__HIDDEN int ergo__node_depth(const ergo__node *n);
/* ---- names (name.c): every region and section name is valid UTF-8 without control characters,
 * of at most ERGO_NAME_MAX bytes, cut between characters ---- */
#define ERGO__NAME_BAD 1 /* bytes that are not UTF-8, written as the text \xHH */
#define ERGO__NAME_CUT 2 /* longer than ERGO_NAME_MAX (bad bytes written out): cut */
#define ERGO__NAME_CTL 4 /* ASCII control characters, written as the text \xHH */
/* name as it is kept, in out: each byte that is not UTF-8, and each ASCII control character, as
 * the text \xHH, cut to at most ERGO_NAME_MAX bytes between two characters.  Returns the
 * ERGO__NAME_* changes made (0: out is name). */
ERGO__HIDDEN int ergo__name_fix(const char *name, char out[ERGO_NAME_MAX + 1]);
/* One error line per change in flags (ergo__name_fix's, for name; fixed: its out), once per
 * distinct name and kind since ergo_init: `who` opens the line ("app.c:5: ERGO_PUSH(1, "), kind
 * is "region" or "section". */
ERGO__HIDDEN void ergo__name_said(const char *who, const char *kind, const char *name, int flags,
                                  const char *fixed);
/* What ergo itself means by name when it prints it as a line of its own ("Unaccounted", "Global",
 * "...", trailing blanks ignored), or NULL: a region so named reads as ergo's line. */
ERGO__HIDDEN const char *ergo__name_reserved(const char *name);
/* One warning, once per distinct name since ergo_init, that name (ergo__name_reserved's `what`)
 * is one ergo prints itself; who and kind as for ergo__name_said. */
ERGO__HIDDEN void ergo__name_said_reserved(const char *who, const char *kind, const char *name,
                                           const char *what);
/* Forget which names were said (ergo_init). */
ERGO__HIDDEN void ergo__names_reset(void);
/* The name's interned copy (truncated to ERGO_NAME_MAX), shared by every thread, kept for the
 * process; NULL: no memory.  hash: ergo__name_hash(name). */
ERGO__HIDDEN const char *ergo__intern(const char *name, uint64_t hash);
/* A hash of the first ERGO_NAME_MAX characters of name: eight bytes at a time, then the rest.
 * ERGO_NAME_MAX (127) fits in 7 bits.
 * (GCC's array-bounds check sees the word loop in a constant name it never enters.) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
static inline uint64_t ergo__name_hash(const char *name) {
  size_t len = strnlen(name, ERGO_NAME_MAX), i = 0;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
  for (; i + 8 <= len; i += 8) {
    memcpy(&w, name + i, sizeof w);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  if (i < len && len >= 8) { /* the tail: the last 8 bytes, those hashed shifted out (LE) */
    memcpy(&w, name + len - 8, sizeof w);
    w >>= 8 * (8 - (len - i));
  } else {
    for (w = 0; i < len; i++) w = (w << 8) | (unsigned char)name[i];
  }
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 32;
  return (h >> 7) | ((uint64_t)len << 57); /* the length rides in the top 7 bits */
}
#pragma GCC diagnostic pop
_Static_assert(ERGO_NAME_MAX < 128, "a name's length must fit in 7 bits of its hash");
/* The name's length (at most ERGO_NAME_MAX) from its hash. */
static inline size_t ergo__name_hash_len(uint64_t hash) { return (size_t)(hash >> 57); }
/* The ergo__name_hash of an interned name (every node's name is one), kept beside its text, so
 * a lookup compares two numbers before any characters. */
static inline uint64_t ergo__interned_hash(const char *interned) {
  uint64_t h;
  memcpy(&h, interned - sizeof h, sizeof h);
  return h;
}
/* Whether the first len characters of name are those of the interned name (whose length is
 * len): whole words while they last, inline, then the rest. */
static inline int ergo__interned_eq(const char *interned, const char *name, size_t len) {
  uint64_t x, y;
  if (len < 8) {
    for (size_t i = 0; i < len; i++)
      if (interned[i] != name[i]) return 0;
    return 1;
  }
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    memcpy(&x, interned + i, 8);
    memcpy(&y, name + i, 8);
    if (x != y) return 0;
  }
  if (i == len) return 1;
  memcpy(&x, interned + len - 8, 8); /* the tail: the last word, overlapping the one before */
  memcpy(&y, name + len - 8, 8);
  return x == y;
}
/* strcmp's order for two interned names, a word at a time: their texts are padded with zeros to
 * whole 8-byte words, so a word holding the end of both is equal in full. */
static inline int ergo__interned_cmp(const char *a, const char *b) {
  for (size_t i = 0;; i += 8) {
    uint64_t x, y;
    memcpy(&x, a + i, 8);
    memcpy(&y, b + i, 8);
    if (x != y) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      x = __builtin_bswap64(x); /* as a big-endian number the first byte decides */
      y = __builtin_bswap64(y);
#endif
      return x < y ? -1 : 1;
    }
    if ((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull) return 0; /* a zero byte */
  }
}

/* Nodes of a tree, allocated in chunks (no per-node malloc header); freed with the tree. */
typedef struct ergo__chunk {
  struct ergo__chunk *next;
  size_t used, cap;
  ergo__node nodes[] __attribute__((aligned(64))); /* the chunk itself is aligned to 64 */
} ergo__chunk;

typedef struct ergo__frame {
  ergo__node *node;
  ergo__node *prev;   /* last child closed in this frame: predicts the next push */
  const char *pushed; /* the runtime name pointer it was pushed with, when its region's name is
                       * that text's start; else NULL */
  uint64_t start;
  const char *file;
  int line;
  int level;
} ergo__frame;

typedef struct ergo__tree {
  ergo__node root; /* "Global" */
  ergo__frame *stack;
  int depth, cap;                  /* frames in use; stack[0] is unused so depth 0 = root */
  uint64_t t0;                     /* ticks when this tree started */
  uint64_t step_t;                 /* ticks at the last ergo_step */
  uint64_t hook_ticks, hook_calls; /* ergo's own cost in attached hooks (ergo__cost_now) */
  double step_loaded_s;
  int index; /* 0 = main thread */
  struct ergo__tree *next;
  /* Children by (parent, name): open addressing, linear probing; an entry (ergo__tab_entry) is a
   * node's index in the tree and 6 bits of the key's hash, 0 empty, 1 a removed node: 4 bytes a
   * slot.  Read and written by the tree's own thread only (other threads walk the sibling
   * lists). */
  uint32_t *tab;
  size_t tab_mask, tab_used; /* capacity - 1 (capacity a power of 2); entries not empty */
  /* Children by (parent, literal pointer), laid out as tab: a node is here once it has a key,
   * so a literal push finds it without reading (or hashing) the literal's text. */
  uint32_t *ptab;
  size_t ptab_mask, ptab_used, ptab_n; /* ptab_n: nodes in it */
  /* Node i (its index) is dir[i / ERGO__CHUNK_NODES]->nodes[i % ERGO__CHUNK_NODES]. */
  struct ergo__chunk **dir;
  size_t ndir, dir_cap;
  uint32_t found;      /* the entry of the node ergo__node_probe found last */
  ergo__chunk *chunks; /* newest first */
  size_t nnodes;       /* nodes below the root */
} ergo__tree;

/* The tree's tables (tree.c): an entry is (node index + 1) << ERGO__TAG_BITS | the key's tag. */
#define ERGO__TAB_EMPTY 0u
#define ERGO__TAB_GONE 1u
#define ERGO__TAG_BITS 6
#define ERGO__CHUNK_NODES 64
/* The most nodes one tree holds: their indexes fit in 32 - ERGO__TAG_BITS bits. */
#define ERGO__TREE_MAX_NODES ((1u << (32 - ERGO__TAG_BITS)) - 1)
/* The key of (parent, name) in the tree's table: the name's hash (mixed already) xor a mix of the
 * parent's address, which does not wait for the name, so a lookup adds one xor to hashing the
 * name.  Its low bits pick the slot; bits 32-37 are its tag (ergo__key_tag). */
static inline uint64_t ergo__key_hash(const ergo__node *parent, uint64_t name_hash) {
  uint64_t p = (uint64_t)(uintptr_t)parent * 0x9e3779b97f4a7c15ull;
  return name_hash ^ p ^ (p >> 29);
}
/* The bits of a key kept beside the node's index in its table entry. */
static inline uint32_t ergo__key_tag(uint64_t key) {
  return (uint32_t)(key >> 32) & ((1u << ERGO__TAG_BITS) - 1);
}
static inline uint32_t ergo__tab_entry(uint32_t index, uint64_t key) {
  return (index + 1) << ERGO__TAG_BITS | ergo__key_tag(key);
}
/* The node of a (full) table entry. */
static inline ergo__node *ergo__tab_node(const ergo__tree *t, uint32_t e) {
  uint32_t i = (e >> ERGO__TAG_BITS) - 1;
  return &t->dir[i / ERGO__CHUNK_NODES]->nodes[i % ERGO__CHUNK_NODES];
}
/* The key of (parent, literal pointer) in the tree's ptab: both mixed at once. */
static inline uint64_t ergo__lit_hash(const ergo__node *parent, const char *key) {
  uint64_t h = (uint64_t)(uintptr_t)parent * 0x9e3779b97f4a7c15ull ^
               (uint64_t)(uintptr_t)key * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}
/* The child of parent whose key is the literal pointer `key`, or NULL (not there yet, or its key
 * is another pointer to the same text: the caller then finds it by the text). */
static inline ergo__node *ergo__lit_probe(const ergo__tree *t, const ergo__node *parent,
                                          const char *key) {
  if (!t->ptab) return NULL;
  uint64_t h = ergo__lit_hash(parent, key);
  uint32_t tag = ergo__key_tag(h), tmask = (1u << ERGO__TAG_BITS) - 1;
  for (size_t j = h & t->ptab_mask;; j = (j + 1) & t->ptab_mask) {
    uint32_t e = t->ptab[j];
    if (e == ERGO__TAB_EMPTY) return NULL;
    if (e == ERGO__TAB_GONE || (e & tmask) != tag) continue;
    ergo__node *c = ergo__tab_node(t, e);
    __builtin_prefetch(&c->max, 1); /* the figures' line, if not the one read now: for the pop */
    if (c->parent == parent && c->key == key) return c;
  }
}
/* Enter c, whose key is set, in its tree's ptab (on no memory it is left out: found by text);
 * e: its entry in tab (t->found after ergo__node_probe found it). */
ERGO__HIDDEN void ergo__lit_add(ergo__tree *t, ergo__node *c, uint32_t e);

/* The child `name` (hash: ergo__name_hash(name)) of parent in t's table, or NULL; inline, as a
 * push whose prediction missed finds its node here.  lit: name is a literal, which the node
 * keeps as its key when it has none. */
static inline ergo__node *ergo__node_probe(ergo__tree *t, ergo__node *parent, const char *name,
                                           uint64_t hash, int lit) {
  if (!t->tab) return NULL;
  uint64_t h = ergo__key_hash(parent, hash);
  uint32_t tag = ergo__key_tag(h), tmask = (1u << ERGO__TAG_BITS) - 1;
  size_t len = ergo__name_hash_len(hash);
  for (size_t j = h & t->tab_mask;; j = (j + 1) & t->tab_mask) {
    uint32_t e = t->tab[j];
    if (e == ERGO__TAB_EMPTY) return NULL;
    if (e == ERGO__TAB_GONE || (e & tmask) != tag) continue;
    ergo__node *c = ergo__tab_node(t, e);
    __builtin_prefetch(&c->max, 1); /* the figures' line, if not the one read now: for the pop */
    if (c->parent != parent) continue;
    /* Equal hashes mean equal lengths: both texts have len characters to compare. */
    if ((lit && c->key == name) ||
        (ergo__interned_hash(c->name) == hash && ergo__interned_eq(c->name, name, len))) {
      if (lit && !c->key) c->key = name;
      t->found = e;
      return c;
    }
  }
}

/* Global state; written at init/finalize, read on the hot path. */
typedef struct ergo__state {
  int initialized;
  ergo_config cfg; /* strings point into owned copies below */
  char *str_report, *str_json, *str_hatchet, *str_csv, *str_steps, *str_balance;
  char *str_energy, *str_power_csv, *str_trace, *str_knobs, *str_platform, *str_sim_node;
  char *str_policy, *str_objective, *str_model, *str_fixed, *str_sweep;
  ergo__tree *main_tree;
  pthread_mutex_t lock; /* guards the tree list and checkpoint/report work */
  ergo__tree *trees;
  int ntrees;
  int steps_written;
  int steps_ok[2];   /* steps whose step report [0] and balance line [1] were written */
  int has_last_step; /* an ergo_step came this run: last_step is its number */
  long last_step;
  unsigned step_warned; /* step-number warnings given this run, one bit per kind (step.c) */
  int finalizing;       /* reports now use final_ticks as "now" */
  uint64_t final_ticks;
} ergo__state;

extern ERGO__HIDDEN ergo__state ergo__g;

/* The child `name` of parent (O(1) expected), or NULL.  lit: name is a literal pointer, which the
 * node remembers as its key when it has none.  t: parent's tree (the _in forms skip finding it). */
ERGO__HIDDEN ergo__node *ergo__node_find(ergo__node *parent, const char *name, int lit);
ERGO__HIDDEN ergo__node *ergo__node_find_in(ergo__tree *t, ergo__node *parent, const char *name,
                                            uint64_t hash, int lit);
/* A new child `name` of parent (O(1) amortised), published for concurrent readers; NULL: no
 * memory.  The caller has checked that there is none. */
ERGO__HIDDEN ergo__node *ergo__node_child(ergo__node *parent, const char *name, int level);
ERGO__HIDDEN ergo__node *ergo__node_child_in(ergo__tree *t, ergo__node *parent, const char *name,
                                             uint64_t hash, int level);
/* Take out the node created last in its tree (no children): checkpoint rollback. */
ERGO__HIDDEN void ergo__node_remove_last(ergo__node *n);
/* The 64-bit key of (parent, name) in the tree's table: its low bits pick the slot, its bits
 * 32-37 are kept beside the node's index (tests make names that collide). */
ERGO__HIDDEN uint64_t ergo__node_key(const ergo__node *parent, const char *name);
/* The tree a node belongs to. */
ERGO__HIDDEN ergo__tree *ergo__node_tree(ergo__node *n);
/* tree.c: a tree (root "Global", an empty stack), registered in creation order, freed whole. */
ERGO__HIDDEN ergo__tree *ergo__tree_new(void);
ERGO__HIDDEN void ergo__tree_add(ergo__tree *t);
ERGO__HIDDEN void ergo__tree_free(ergo__tree *t);
/* A new thread's tree, registered (NULL with a warning on no memory). */
ERGO__HIDDEN ergo__tree *ergo__tree_new_thread(void);
ERGO__HIDDEN void ergo__close_all(ergo__tree *t, uint64_t now);
ERGO__HIDDEN void ergo__tls_set_main(ergo__tree *t, unsigned epoch);
/* 1 when t is the calling thread's tree of this run, or finalize has stopped every thread: its
 * stack may be read. */
ERGO__HIDDEN int ergo__tree_is_mine(const ergo__tree *t);
ERGO__HIDDEN void ergo__reset_uninit_warning(void);
extern ERGO__HIDDEN unsigned ergo__epoch;

/* A node's figures are written by its thread alone and read by reports on any thread: stored
 * and loaded whole (relaxed atomics, plain moves on 64-bit targets). */
#define ERGO__PUT(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define ERGO__GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* A full memory fence.  TSan does not model fences (GCC refuses them under -fsanitize=thread):
 * there a sequentially consistent read-modify-write stands in for one. */
#if defined(__SANITIZE_THREAD__)
extern ERGO__HIDDEN int ergo__fence_word;
#define ERGO__FULL_FENCE() ((void)__atomic_fetch_add(&ergo__fence_word, 0, __ATOMIC_SEQ_CST))
#else
#define ERGO__FULL_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

/* A thread's mark that it is inside a push, pop or poppush (core/quiesce.c). */
typedef struct ergo__reader {
  unsigned busy; /* calls of its thread in progress; written by that thread alone */
  int in_use;    /* owned by a live thread */
  struct ergo__reader *next;
} ergo__reader;
extern ERGO__HIDDEN __thread ergo__reader *ergo__tls_reader
    __attribute__((tls_model("initial-exec")));
extern ERGO__HIDDEN int ergo__reader_fence; /* 1: no membarrier here; each call fences */
/* This thread's slot, made (or reused) on its first call; NULL: out of memory. */
ERGO__HIDDEN ergo__reader *ergo__reader_register(void);
/* At ergo_init: whether finalize can use membarrier (decides ergo__reader_fence). */
ERGO__HIDDEN void ergo__readers_start(void);
/* After ergo__epoch is 0: wait until no other thread is inside a call (at most timeout_s);
 * returns how many still were. */
ERGO__HIDDEN int ergo__readers_quiesce(double timeout_s);

/* ---- ranks: the job as the core sees it --------------------------------------- */
/* Set by the runtime after ergo__core_init (the MPI layer's job); the default is one rank.
 * With size > 1 the final reports are merged over the ranks on rank 0 (merge.c). */
typedef struct ergo__ranks {
  int rank, size, nnodes;
  /* 1 while the collectives may be called (MPI not finalised). */
  int (*usable)(void);
  /* Every rank's len bytes to rank 0 (see mpi/job.h ergo__job_gather). Collective. */
  int (*gather)(const void *buf, size_t len, char **all, size_t **lens);
  /* 1: separate processes a launcher started (mpiexec, srun) that do not talk over MPI: no
   * merge, every process writes each of its files (reports, steps, balance, checkpoints) as
   * <name>.rankN from the start, so none shares a file with another. */
  int separate;
} ergo__ranks;
extern ERGO__HIDDEN ergo__ranks ergo__rk;
ERGO__HIDDEN void ergo__ranks_set(const ergo__ranks *r);
/* Collective over the ranks: gather every rank's main tree; rank 0 merges them (merge.c). */
ERGO__HIDDEN int ergo__merge_take(void);
/* The merged snapshot every writer reports while it exists (rank 0, in ergo_finalize). */
ERGO__HIDDEN const struct ergo__snap *ergo__merged(void);
ERGO__HIDDEN void ergo__merged_free(void);
/* 0 when the len bytes at p are one rank's pack that rank 0 reads (unpacked, then freed); -1 for
 * a short, foreign or corrupt pack, or one over ERGO_INPUT_MAX (util/limit.h).  For the fuzzer
 * (tests/fuzz/merge.c) and the limit's test. */
ERGO__HIDDEN int ergo__merge_unpack_check(const char *p, size_t len);
/* Every rank's host in the merged report, once each in rank order (0 when not merged). */
ERGO__HIDDEN size_t ergo__merged_hosts(const char *const **hosts);
/* "dir/r.json" -> "dir/r.rank3.json" (malloc'd; NULL for a NULL or "none" path, or no memory). */
ERGO__HIDDEN char *ergo__rank_path(const char *path, int rank);

/* ---- hooks ---------------------------------------------------------------- */
extern ERGO__HIDDEN int ergo__nhooks; /* attached hooks with enter or exit; 0: the hot path
                                        skips hooks */
ERGO__HIDDEN void ergo__hooks_enter(ergo__node *n, int level);
ERGO__HIDDEN void ergo__hooks_exit(ergo__node *n, int level, uint64_t ticks);
/* In an exit hook: the clock ticks (ergo__ticks) at which r's closing call started and ended. */
ERGO__HIDDEN void ergo__region_call(const ergo_region *r, uint64_t *start, uint64_t *end);
/* ergo_region_work on this thread so far: the units told and the number of good calls. */
ERGO__HIDDEN void ergo__work_hint(double *sum, uint64_t *calls);
ERGO__HIDDEN void ergo__hooks_finalize(void);
ERGO__HIDDEN void ergo__hooks_step(long step);
ERGO__HIDDEN void ergo__hooks_reset(void);

/* ---- quantities --------------------------------------------------------------- */
typedef struct ergo__qslot {
  ergo_quantity q;
  int used;
  unsigned gen; /* distinct for every attachment: amounts loaded for a detached one are not its
                 * successor's */
} ergo__qslot;
extern ERGO__HIDDEN ergo__qslot ergo__quants[ERGO_MAX_QUANTITIES];
ERGO__HIDDEN void ergo__quant_reset(void);
ERGO__HIDDEN int ergo__quant_any(void);
ERGO__HIDDEN void ergo__quant_begin(void);
/* Values of every quantity for node n into v[i][*]; bit i of the result says quantity i measured
 * it (ERGO__Q_LOWER, ERGO__Q_BELOW below).  with_loaded: the run's figures, with what checkpoints
 * brought added (reports); 0: this process's readings alone (steps, which difference them). */
ERGO__HIDDEN unsigned ergo__quant_values(const ergo__node *n, int with_loaded,
                                         double v[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS]);
/* The rate denominators (ergo__snap.q_time_s) of n's quantities in ok (ergo__quant_values'
 * result): time_s, its seconds as shown, less the loaded_s of them that checkpoints brought,
 * plus the seconds over which each loaded component was measured. */
ERGO__HIDDEN void ergo__quant_times(const ergo__node *n, unsigned ok, double time_s,
                                    double loaded_s,
                                    double q_time_s[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS]);
ERGO__HIDDEN double ergo__quant_total(int qi, const double *v);

/* ---- snapshots: what every report is written from -------------------------- */
/* The bit of ergo__snap.q_ok (and of ergo__quant_values' result) saying that quantity i's
 * amount is a lower bound: its value() returned 1. */
#define ERGO__Q_LOWER(i) (1u << (16 + (i)))
/* ... and that quantity i did not measure it because its calls are below the meter's
 * resolution (ERGO_QUANTITY_UNRESOLVED; bit i is then clear). */
#define ERGO__Q_BELOW(i) (1u << (24 + (i)))
/* How the tuner judged a region (facts.c): significant (tuned on its own) or not, why (a static
 * sentence), the own time per execution it was judged on, and where its work per execution came
 * from ("units": ergo_region_work, "counter": the platform's work counter, "none"; static). */
typedef struct ergo__significance {
  int judged;
  const char *reason;
  double mean_s;
  const char *work;
} ergo__significance;

/* Values in a region's setting (facts.c): at least as many as there are knobs. */
#define ERGO__SETTING_MAX 8
typedef struct ergo__snap {
  const char *name; /* borrowed from the live node */
  int level;
  int depth;
  int open;            /* the region was open when the snapshot was taken */
  int pooled;          /* children live in the step snapshots' pool (ergo__snap_take_step) */
  double time_s;       /* inclusive seconds (includes an open call's time so far) */
  uint64_t calls;      /* completed calls */
  double min_s, max_s; /* per completed call; 0 when calls == 0; in a step snapshot -1 (unknown)
                        * unless the step had one completed call (then its time) */
  unsigned q_ok;       /* bit i: quantity i measured this region; ERGO__Q_LOWER(i): and its
                        * amount is only a lower bound (merged: on some rank) */
  double q[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS]; /* inclusive amounts */
  /* Seconds over which q[i][c] was measured: the rate's denominator.  One process: time_s.
   * Merged: the sum over the ranks that read component c (one reader per node and domain)
   * of their time in the region, so q/q_time_s is the mean per node. */
  double q_time_s[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS];
  struct ergo__snap *children; /* sorted by time, descending; ties by name */
  size_t nchildren;
  /* Merged over the ranks of a job (merge.c), else nranks == 0.  time_s is then the mean over
   * all ranks (a rank without the region counts 0 s), calls and quantities are sums, min_s and
   * max_s the extremes per call over the ranks; the mean per call (ergo__snap_mean_s) is the
   * time summed over ranks divided by the calls summed over ranks. */
  int nranks, ranks_ran;            /* ranks in the job, ranks where the region exists */
  int nnodes;                       /* root only: nodes in the job */
  double r_min_s, r_max_s, r_std_s; /* of the ranks' times (std: over all nranks) */
  /* The setting the tuner applied to the region (its last execution's, one value per name of
   * ergo__facts_setting_names; 0: that knob absent), when has_setting; setting_varied: its
   * executions ran under more than one (an online search; merged: the ranks differ). */
  int has_setting, setting_varied;
  int64_t setting[ERGO__SETTING_MAX];
  /* How the tuner judged the region (ergo__facts_significance_of), when has_sig. */
  int has_sig;
  ergo__significance sig;
} ergo__snap;

/* Snapshot of a tree.  since_step: figures since the last ergo_step. */
ERGO__HIDDEN int ergo__snap_take(const ergo__tree *t, int since_step, ergo__snap *out);
ERGO__HIDDEN int ergo__snap_take_at(const ergo__tree *t, int since_step, uint64_t now,
                                    ergo__snap *out);
ERGO__HIDDEN void ergo__snap_free(ergo__snap *s);
/* A run snapshot (since_step 0, now) whose children stay in the tree's order, unsorted: for the
 * MPI merge, which sorts the union of the ranks' children itself. */
ERGO__HIDDEN int ergo__snap_take_unsorted(const ergo__tree *t, ergo__snap *out);
/* A step snapshot (since_step) at now whose nodes come from one mapping kept from step to step,
 * not from the heap: ergo_step allocates nothing once the tree has stopped growing, and never
 * frees the large blocks that move glibc's dynamic mmap and trim thresholds under the
 * application.  Under ergo__g.lock (one at a time); ergo__snap_free it as any other. */
ERGO__HIDDEN int ergo__snap_take_step(const ergo__tree *t, uint64_t now, ergo__snap *out);
/* Unmap the step snapshots' pool (finalize). */
ERGO__HIDDEN void ergo__snap_pool_release(void);
/* Arrays the step keeps from step to step live in mappings of their own (mmap, grown with
 * mremap), not in the application's heap: ergo__map_grow makes *p hold at least want bytes
 * (zeroed when new; *cap: bytes mapped, 0 for none), 0 or -1; ergo__map_free unmaps it. */
ERGO__HIDDEN int ergo__map_grow(void **p, size_t *cap, size_t want);
ERGO__HIDDEN void ergo__map_free(void **p, size_t *cap);
/* Ticks a node has accumulated by `now`, counting its open call so far. */
ERGO__HIDDEN uint64_t ergo__node_vticks(const ergo__tree *t, const ergo__node *n, uint64_t now);

/* ---- checkpoints (checkpoint.c) ------------------------------------------------ */
/* JSON nesting a load parses: jansson's JSON_PARSER_MAX_DEPTH (checkpoint.c checks it). */
#define ERGO__CK_JSON_DEPTH 2048
/* The deepest region (Global: 0) a checkpoint holds, so that what a save writes a load reads:
 * jansson counts every value it enters, and a region at depth d is an object at level 2d + 2
 * (the document, Global, then a children array and an object per level), its amounts' numbers
 * at 2d + 5. */
#define ERGO__CK_MAX_DEPTH ((ERGO__CK_JSON_DEPTH - 5) / 2)

/* ---- report writers (pure functions of a snapshot) ------------------------ */
/* Paper (or wide) text: header line, then the tree down to max_indent (-1 all). */
ERGO__HIDDEN int ergo__report_text(FILE *f, const ergo__snap *root, int max_indent, int wide);
/* One balance line and its symbol table; see balance.c. */
/* Forget the balance symbol table (init/finalize). */
ERGO__HIDDEN void ergo__balance_reset(void);
/* Append one balance line for a step snapshot (plus header lines for regions
 * seen for the first time) to f; levels deeper than max_indent are folded.  O(n) in the regions
 * of the step once their paths are known.  The snapshot's names must keep their text for as long
 * as the symbol table lives (until ergo__balance_reset): interned names, as a live tree's are, or
 * literals; a name is found again by its pointer before its text. */
ERGO__HIDDEN int ergo__balance_write(FILE *f, const ergo__snap *root, long step, int max_indent);
/* "Now" for reports: the finalize instant while finalizing, else the clock. */
ERGO__HIDDEN uint64_t ergo__report_now(void);

/* ---- sections (sections.c) ---------------------------------------------- */
/* One section's figures for a report: time_s counts a running interval so far.  Quantities
 * (energy) as in a snapshot: q_ok bit i when quantity i measured it (ERGO__Q_LOWER(i): only a
 * lower bound: an interval was not measured, or is still running), q the amounts over its
 * measured intervals, q_time_s their seconds.  Merged over MPI ranks (nranks > 0): time_s is the
 * mean over the ranks (a rank without the section counts 0 s), calls and amounts are sums, as for
 * regions; ranks_ran counts the ranks that have it. */
typedef struct {
  char name[ERGO_NAME_MAX + 1];
  double time_s;
  uint64_t calls;
  int running;
  unsigned q_ok;
  double q[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS];
  double q_time_s[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS];
  int nranks, ranks_ran;
} ergo__section_fig;
/* Every section this process made since ergo_init, in creation order, destroyed ones too:
 * *out malloc'd (free it), NULL when none (or no memory); returns the count. */
ERGO__HIDDEN size_t ergo__sections_local(ergo__section_fig **out);
/* Forget every section and the meter (ergo_finalize, after the reports). */
ERGO__HIDDEN void ergo__sections_reset(void);
/* A section's figures as a snapshot node without children (name borrowed from f), so reports
 * compute its quantities' totals, rates and shares as a region's. */
ERGO__HIDDEN void ergo__section_snap(const ergo__section_fig *f, ergo__snap *out);
/* The amount of quantity qi (per component, cumulative) at clock tick t, which a section takes
 * at the start and the stop of each interval (the energy layer's curve through its readings,
 * the same as regions').  *unsure changes between two calls when the amounts between them are
 * only a lower bound.  Returns 0, or -1: not measured now.  Called on the main thread alone,
 * with the sections' lock held. */
typedef int (*ergo__section_meter_fn)(void *ctx, uint64_t t, double *out, uint64_t *unsure);
/* The runtime hands the sections the energy layer's (qi < 0 or fn NULL: none). */
ERGO__HIDDEN void ergo__sections_meter(int qi, ergo__section_meter_fn fn, void *ctx);
/* The sections a report shows (merge.c): the merged job's, on rank 0 at the end of an MPI job,
 * else this process's (ergo__sections_local); as ergo__sections_local returns them. */
ERGO__HIDDEN size_t ergo__sections_take(ergo__section_fig **out);

/* ---- machine-readable reports (report_json.c; used by Hatchet and CSV too) ---- */
/* Non-step snapshots of the trees a report shows: the main tree first, then the
 * other threads' trees when report_threads is set.  `what` (the caller) and
 * `path` (its file) name them in the warning line.  Returns ERGO_EINVAL for a
 * NULL or empty path, ERGO_ESTATE before ergo_init, ERGO_ENOMEM. */
typedef struct ergo__snapset {
  ergo__snap *snaps;
  int *threads; /* tree index of each snapshot (0 = main thread) */
  size_t n;
  int borrowed; /* snaps[0] is the merged report's (not freed with the set) */
} ergo__snapset;
ERGO__HIDDEN int ergo__snapset_take(ergo__snapset *set, const char *what, const char *path);
ERGO__HIDDEN void ergo__snapset_free(ergo__snapset *set);
/* Exclusive seconds (time minus the children's, never negative), mean per call
 * (0 without calls), and fraction of the parent's time (1 for a root). */
ERGO__HIDDEN double ergo__snap_self_s(const ergo__snap *s);
ERGO__HIDDEN double ergo__snap_mean_s(const ergo__snap *s);
ERGO__HIDDEN double ergo__snap_share(const ergo__snap *s, const ergo__snap *parent);
/* "parent/name" (just name when parent_path is NULL), malloc'd; a slash or
 * backslash in the name gets a backslash before it, so paths are unambiguous. */
ERGO__HIDDEN char *ergo__path_join(const char *parent_path, const char *name);
/* The JSON report as a malloc'd string (NULL on failure, with a warning line). */
ERGO__HIDDEN char *ergo__report_json_string(void);

/* Per-quantity figures of a snapshot node (0 when quantity qi did not measure it). */
ERGO__HIDDEN double ergo__snap_q_total(const ergo__snap *s, int qi);
ERGO__HIDDEN double ergo__snap_q_self(const ergo__snap *s, int qi);
ERGO__HIDDEN double ergo__snap_q_share(const ergo__snap *s, const ergo__snap *parent, int qi);
/* Amount per second of the total (energy: watts), per component amount over the seconds it was
 * measured (q_time_s), summed: one process's total / time; merged, the mean per node. */
ERGO__HIDDEN double ergo__q_rate(int qi, const double *q, const double *q_time_s);
ERGO__HIDDEN double ergo__snap_q_rate(const ergo__snap *s, int qi);
/* Unaccounted under `s`: its amount and seconds minus those of its children that measured
 * the quantity, per component (never negative), so the rate covers one window. */
ERGO__HIDDEN void ergo__snap_q_rest(const ergo__snap *s, int qi, double *q, double *q_time_s);

/* ---- facts: how the reports were made (facts.c) ------------------------------ */
#define ERGO__FACTS_MAX 16
/* A run fact: key and value (NULL: none; JSON null, an empty CSV cell). */
typedef struct ergo__fact {
  char key[32];
  char *value;
} ergo__fact;
/* ergo_init: the core's facts, in report order: application, ergo_version, host, date (UTC);
 * the runtime then adds its own (platform, policy, objective, model, energy) with ergo__fact_set.
 * ergo_finalize frees them (ergo__facts_stop). */
ERGO__HIDDEN void ergo__facts_start(void);
ERGO__HIDDEN void ergo__facts_stop(void);
/* Set (or replace) a fact; value is copied.  0, ERGO_EINVAL (key too long), ERGO_EBUSY, ENOMEM. */
ERGO__HIDDEN int ergo__fact_set(const char *key, const char *value);
ERGO__HIDDEN const char *ergo__fact_get(const char *key);
ERGO__HIDDEN size_t ergo__facts_get(const ergo__fact **facts);
/* ergo_step calls so far. */
ERGO__HIDDEN long ergo__facts_steps(void);
/* Where the setting applied to a region comes from (the runtime's pipeline asks the tuner):
 * fn returns 1 and fills v (one value per name, 0 for an absent knob) and *varied for a tuned
 * region, else 0.  names (static strings) name the values: the tuning model's fields. */
typedef int (*ergo__setting_fn)(void *ctx, const ergo__node *n, int64_t v[ERGO__SETTING_MAX],
                                int *varied);
ERGO__HIDDEN void ergo__facts_setting_source(ergo__setting_fn fn, void *ctx, int n,
                                             const char *const *names);
ERGO__HIDDEN int ergo__facts_setting_names(const char *const **names);
/* Where a region's significance comes from (the pipeline asks the tuner): fn returns 1 and
 * fills *out for a region the tuner judged, else 0. */
typedef int (*ergo__significance_fn)(void *ctx, const ergo__node *n, ergo__significance *out);
ERGO__HIDDEN void ergo__facts_significance_source(ergo__significance_fn fn, void *ctx);
/* Fill out->has_sig and sig for node n (snapshot.c). */
ERGO__HIDDEN void ergo__facts_significance_of(const ergo__node *n, ergo__snap *out);
/* Fill out->has_setting, setting_varied and setting for node n (snapshot.c). */
ERGO__HIDDEN void ergo__facts_setting_of(const ergo__node *n, ergo__snap *out);
/* The text report's "Run: ..." line (the final report only). */
ERGO__HIDDEN void ergo__facts_line(FILE *f);

#endif
