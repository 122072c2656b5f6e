/* region.c - the hot path: push, pop and poppush on this thread's region stack. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Each thread caches its tree; the epoch says whether the cache is from the
 * current ergo_init (0 = not initialised, so every cache is stale). */
unsigned ergo__epoch;
static __thread ergo__tree *tls_tree __attribute__((tls_model("initial-exec")));
/* The call closing now on this thread: its start and end ticks, for the exit hooks. */
static __thread uint64_t tls_call[2] __attribute__((tls_model("initial-exec")));
static __thread unsigned tls_epoch __attribute__((tls_model("initial-exec"))) = ~0u;
/* ergo_region_work on this thread: the units told so far and the number of calls (the tuner
 * takes differences at a region's entry and exit). */
static __thread double tls_work;
static __thread uint64_t tls_work_n;
static int warned_uninit;

static const char null_name[] = "<null>";

void ergo__tls_set_main(ergo__tree *t, unsigned epoch) {
  tls_tree = t;
  tls_epoch = epoch;
}

/* Slow path: this thread has no tree for the current epoch. */
static ergo__tree *thread_tree(const char *what, int level, const char *name, const char *file,
                               int line) {
  unsigned epoch = __atomic_load_n(&ergo__epoch, __ATOMIC_ACQUIRE);
  if (epoch == 0) {
    if (!__atomic_exchange_n(&warned_uninit, 1, __ATOMIC_RELAXED))
      ergo__warn("%s:%d: %s(%d, \"%s\") ignored: ergo is not initialised (fix: call ergo_init() "
                 "before the first region and ergo_finalize() after the last); further calls "
                 "are ignored silently",
                 file ? file : "?", line, what, level, name ? name : null_name);
    return NULL;
  }
  ergo__tree *t = ergo__tree_new_thread();
  if (!t) return NULL;
  tls_tree = t;
  tls_epoch = epoch;
  return t;
}

void ergo__reset_uninit_warning(void) { __atomic_store_n(&warned_uninit, 0, __ATOMIC_RELAXED); }

static int name_eq(const ergo__node *n, const char *name) {
  return strncmp(n->name, name, ERGO_NAME_MAX) == 0;
}

/* Says (once per distinct name) what ergo__name_fix did to a pushed name. */
static void name_said(int level, const char *name, int flags, const char *fixed, const char *file,
                      int line) {
  char who[96];
  snprintf(who, sizeof who, "%s:%d: ERGO_PUSH(%d, ", file ? file : "?", line, level);
  ergo__name_said(who, "region", name, flags, fixed);
}

/* A new region named as a line ergo prints itself ("Unaccounted"): one warning per name. */
static void reserved_said(int level, const char *name, const char *file, int line) {
  const char *what = ergo__name_reserved(name);
  if (!what) return;
  char who[96];
  snprintf(who, sizeof who, "%s:%d: ERGO_PUSH(%d, ", file ? file : "?", line, level);
  ergo__name_said_reserved(who, "region", name, what);
}

/* A runtime name found by its first ERGO_NAME_MAX bytes that has more: said once, as at its
 * region's making, so that longer names sharing a region never do so silently. */
static inline int name_longer(const char *name, uint64_t hash) {
  return ergo__name_hash_len(hash) == ERGO_NAME_MAX && name[ERGO_NAME_MAX];
}
static void said_longer(int level, const char *name, const char *file, int line) {
  char fixed[ERGO_NAME_MAX + 1];
  name_said(level, name, ergo__name_fix(name, fixed), fixed, file, line);
}

static const char *checked_name(const char *what, int level, const char *name, const char *file,
                                int line) {
  if (!name) {
    ergo__error("%s:%d: %s(%d, NULL): region name is NULL; using \"%s\" (fix: pass a "
                "non-empty string)",
                file ? file : "?", line, what, level, null_name);
    return null_name;
  }
  return name;
}

/* Find or create the child `name` of the frame's node; remembers the answer
 * as the successor of the previous sibling so repeated sequences hit at once. */
static ergo__node *child_slow(ergo__tree *t, ergo__frame *pf, int level, const char *name, int lit,
                              uint64_t hash, const char *file, int line, const char **pushed) {
  /* The region keeps the name as every writer can show it (core/name.c): a name with bytes
   * that are not UTF-8, or one cut inside a character, is found by that name. */
  char fixed[ERGO_NAME_MAX + 1];
  int flags = ergo__name_fix(name, fixed);
  ergo__node *c = NULL;
  if (flags) {
    name_said(level, name, flags, fixed, file, line);
    *pushed = NULL; /* not the region's name: same_top must not read it as such */
    hash = ergo__name_hash(fixed);
    c = ergo__node_find_in(t, pf->node, fixed, hash, 0);
    if (c && lit && !c->key) {
      c->key = name;
      ergo__lit_add(t, c, t->found);
    }
  } else {
    c = ergo__node_find_in(t, pf->node, name, hash, lit);
  }
  if (!c) {
    if (!*name)
      ergo__error("%s:%d: ERGO_PUSH(%d, \"\"): region name is empty; keeping it (fix: give "
                  "the region a name)",
                  file ? file : "?", line, level);
    c = ergo__node_child_in(t, pf->node, flags ? fixed : name, hash, level);
    if (!c) {
      if (t->nnodes + ERGO__CHUNK_NODES >= ERGO__TREE_MAX_NODES)
        ergo__error("%s:%d: ERGO_PUSH(%d, \"%.40s\"): this thread's tree holds %zu regions, about "
                    "the most one tree can (%u); region ignored (fix: build region names from "
                    "fewer distinct parts)",
                    file ? file : "?", line, level, name, t->nnodes, ERGO__TREE_MAX_NODES);
      else
        ergo__error("%s:%d: ERGO_PUSH(%d, \"%.40s\"): out of memory; region ignored",
                    file ? file : "?", line, level, name);
      return NULL;
    }
    if (lit) {
      c->key = name;
      ergo__lit_add(t, c, t->found);
    }
    reserved_said(level, c->name, file, line);
  }
  if (pf->prev) pf->prev->hint = ergo__hint_make(c, hash);
  return c;
}

static int grow(ergo__tree *t) {
  int cap = t->cap ? t->cap * 2 : 64;
  ergo__frame *s = realloc(t->stack, (size_t)cap * sizeof *s);
  if (!s) {
    ergo__error("region stack of depth %d cannot grow: out of memory; region ignored", t->depth);
    return -1;
  }
  t->stack = s;
  t->cap = cap;
  return 0;
}

/* `lit` is a constant in every caller, so each entry point gets its own
 * branch-free lookup: pointer compare for literals, content for the rest. */
static inline __attribute__((always_inline)) void push(ergo__tree *t, int level, const char *name,
                                                       int lit, const char *file, int line) {
  if (ERGO__UNLIKELY(t->depth + 1 >= t->cap) && grow(t)) return;
  ergo__frame *pf = &t->stack[t->depth];
  ergo__node *c;
  /* A literal's region may keep another text than it (core/name.c), so only a runtime name is
   * the frame's: a pop with that very pointer then compares it a word at a time (same_top). */
  const char *pushed = lit ? NULL : name;
  /* A runtime name is hashed once: the hash is checked against the prediction's tag, then the
   * predicted node's (kept with its interned name) before any text, and finds the node in the
   * table when they differ. */
  uint64_t hash = 0;
  if (!lit && ERGO__LIKELY(name != NULL)) hash = ergo__name_hash(name);
  if (!pf->prev)
    c = pf->node->first_child;
  else if (lit ? (pf->prev->hint ^ ergo__hint_lit(name)) & ERGO__HINT_LIT
               : (pf->prev->hint ^ ergo__hint_name(hash)) & ERGO__HINT_NAME)
    c = NULL; /* predicted another region: not worth a cache miss to read it */
  else
    c = ergo__hint_node(pf->prev->hint);
  if (ERGO__UNLIKELY(lit ? (!c || c->key != name)
                         : (!name || !c || ergo__interned_hash(c->name) != hash ||
                            !ergo__interned_eq(c->name, name, ergo__name_hash_len(hash)) ||
                            name_longer(name, hash)))) {
    if (ERGO__UNLIKELY(!name)) name = checked_name("ERGO_PUSH", level, name, file, line);
    /* A literal is looked up by its pointer first: no text read.  (Its hint then carries no bits
     * of the name's hash, which would take reading the interned text.) */
    if (lit && ERGO__LIKELY((c = ergo__lit_probe(t, pf->node, name)) != NULL)) {
      if (pf->prev) pf->prev->hint = ergo__hint_make(c, 0);
    } else {
      if (lit || !hash) hash = ergo__name_hash(name);   /* a literal, or a NULL name replaced */
      c = ergo__node_probe(t, pf->node, name, hash, 0); /* a known region: found inline */
      if (ERGO__LIKELY(c != NULL)) {
        if (ERGO__UNLIKELY(name_longer(name, hash))) said_longer(level, name, file, line);
        if (lit && !c->key) { /* its first literal push: found by pointer from now on */
          c->key = name;
          ergo__lit_add(t, c, t->found);
        }
        if (pf->prev) pf->prev->hint = ergo__hint_make(c, hash);
      } else if (!(c = child_slow(t, pf, level, name, lit, hash, file, line, &pushed))) {
        return;
      }
    }
  }
  ergo__frame *f = &t->stack[++t->depth];
  f->node = c;
  f->prev = NULL;
  f->pushed = pushed;
  f->file = file;
  f->line = line;
  f->level = level;
  if (ERGO__UNLIKELY(__atomic_load_n(&ergo__nhooks, __ATOMIC_RELAXED))) {
    /* Hooks run outside the region's time and are counted as ergo's own cost,
     * in real time even when regions run on a virtual clock. */
    uint64_t h0 = ergo__cost_now();
    ergo__hooks_enter(c, level);
    uint64_t h1 = ergo__cost_now();
    t->hook_ticks += h1 - h0;
    t->hook_calls++;
    f->start = ergo__clk.kind == ERGO__CLOCK_USER ? ergo__ticks() : h1;
    return;
  }
  f->start = ergo__ticks();
}

/* Close the top frame at `now`. */
static inline void close_top(ergo__tree *t, uint64_t now) {
  ergo__frame *f = &t->stack[t->depth];
  ergo__node *n = f->node;
  uint64_t dt = now - f->start;
  /* The owner is the only writer; a report on another thread reads these while they change,
   * so they are stored whole (relaxed atomics: plain moves on x86-64 and AArch64). */
  ERGO__PUT(n->total, n->total + dt);
  ERGO__PUT(n->calls, n->calls + 1);
  if (dt < n->min) ERGO__PUT(n->min, dt);
  if (dt > n->max) ERGO__PUT(n->max, dt);
  t->depth--;
  t->stack[t->depth].prev = n;
  if (ERGO__UNLIKELY(__atomic_load_n(&ergo__nhooks, __ATOMIC_RELAXED))) {
    uint64_t h0 = ergo__clk.kind == ERGO__CLOCK_USER ? ergo__cost_now() : now;
    tls_call[0] = f->start; /* for ergo__region_call, in the hooks below on this thread */
    tls_call[1] = now;
    ergo__hooks_exit(n, f->level, dt);
    t->hook_ticks += ergo__cost_now() - h0;
    t->hook_calls++;
  }
}

void ergo__close_all(ergo__tree *t, uint64_t now) {
  while (t->depth > 0) close_top(t, now);
}

/* A pop that does not match the top of the stack.  Recovery (documented in
 * README "Errors"): a level mismatch closes the region anyway; a label that
 * is open deeper closes every region above it and then it; a label that is
 * not open at all is ignored.  Returns 1 if the top frame should now close. */
static int pop_mismatch(ergo__tree *t, const char *what, int level, const char *name,
                        const char *file, int line, uint64_t now) {
  file = file ? file : "?";
  if (t->depth == 0) {
    ergo__error("%s:%d: %s(%d, \"%s\"): stack underflow: no region is open; pop ignored "
                "(fix: remove this pop or add the matching ERGO_PUSH)",
                file, line, what, level, name);
    return 0;
  }
  ergo__frame *f = &t->stack[t->depth];
  if (name_eq(f->node, name)) {
    if (f->level != level)
      ergo__error("%s:%d: %s(%d, \"%s\"): level mismatch: \"%s\" was pushed at %s:%d with "
                  "level %d; closing it (fix: pop with the level it was pushed with)",
                  file, line, what, level, name, f->node->name, f->file ? f->file : "?", f->line,
                  f->level);
    return 1;
  }
  int d = t->depth;
  while (d > 0 && !name_eq(t->stack[d].node, name)) d--;
  if (d == 0) {
    ergo__error("%s:%d: %s(%d, \"%s\"): label mismatch: expected \"%s\" (pushed at %s:%d, "
                "level %d), found \"%s\", which is not open; pop ignored (fix: make the pop "
                "name its push)",
                file, line, what, level, name, f->node->name, f->file ? f->file : "?", f->line,
                f->level, name);
    return 0;
  }
  ergo__error("%s:%d: %s(%d, \"%s\"): label mismatch: expected \"%s\" (pushed at %s:%d, "
              "level %d), found \"%s\", open %d level(s) further out; closing the %d region(s) "
              "above it too (fix: pop \"%s\" before \"%s\")",
              file, line, what, level, name, f->node->name, f->file ? f->file : "?", f->line,
              f->level, name, t->depth - d, t->depth - d, f->node->name, name);
  while (t->depth > d) close_top(t, now);
  if (t->stack[d].level != level)
    ergo__error("%s:%d: %s(%d, \"%s\"): level mismatch: \"%s\" was pushed at %s:%d with level "
                "%d; closing it (fix: pop with the level it was pushed with)",
                file, line, what, level, name, t->stack[d].node->name,
                t->stack[d].file ? t->stack[d].file : "?", t->stack[d].line, t->stack[d].level);
  return 1;
}

/* The top frame's name is `name` (a runtime name).  Popped with the very pointer it was pushed
 * with, that memory held the node's whole name then, so its length (from the interned hash) can
 * be compared a word at a time; any other pointer is compared as a string. */
static inline int same_top(const ergo__frame *f, const char *name) {
  if (name != f->pushed) return name_eq(f->node, name);
  size_t len = ergo__name_hash_len(ergo__interned_hash(f->node->name));
  return ergo__interned_eq(f->node->name, name, len) && (len == ERGO_NAME_MAX || !name[len]);
}

static inline __attribute__((always_inline)) void pop(ergo__tree *t, const char *what, int level,
                                                      const char *name, int lit, const char *file,
                                                      int line, uint64_t now) {
  ergo__frame *f = &t->stack[t->depth];
  if (ERGO__UNLIKELY(t->depth == 0 || f->level != level ||
                     (lit ? f->node->key != name : (!name || !same_top(f, name))))) {
    if (ERGO__UNLIKELY(!name)) name = checked_name(what, level, name, file, line);
    char fixed[ERGO_NAME_MAX + 1]; /* compared as its region keeps it (core/name.c) */
    if (ergo__name_fix(name, fixed)) name = fixed;
    if (t->depth > 0 && f->level == level && name_eq(f->node, name)) {
      /* same text, another pointer (a literal from another library): fine */
    } else if (!pop_mismatch(t, what, level, name, file, line, now)) {
      return;
    }
  }
  close_top(t, now);
}

/* Every entry point: mark this thread busy before reading the epoch (finalize waits for the
 * mark to clear, core/quiesce.c), then find its tree.  ERGO__LEAVE ends the call. */
#define ERGO__CURRENT_TREE(what, level, name, file, line)                                          \
  ergo__reader *rd = ergo__tls_reader;                                                             \
  if (ERGO__UNLIKELY(!rd) && !(rd = ergo__reader_register())) return;                              \
  __atomic_store_n(&rd->busy, rd->busy + 1, __ATOMIC_RELAXED);                                     \
  if (ERGO__UNLIKELY(__atomic_load_n(&ergo__reader_fence, __ATOMIC_RELAXED)))                      \
    ERGO__FULL_FENCE();                                                                            \
  else                                                                                             \
    __atomic_signal_fence(__ATOMIC_SEQ_CST);                                                       \
  ergo__tree *t = tls_tree;                                                                        \
  if (ERGO__UNLIKELY(tls_epoch != __atomic_load_n(&ergo__epoch, __ATOMIC_ACQUIRE))) {              \
    t = thread_tree(what, level, name, file, line);                                                \
    if (!t) {                                                                                      \
      ERGO__LEAVE();                                                                               \
      return;                                                                                      \
    }                                                                                              \
  }
#define ERGO__LEAVE() __atomic_store_n(&rd->busy, rd->busy - 1, __ATOMIC_RELEASE)

void ergo_push_lit(int level, const char *name, const char *file, int line) {
  ERGO__CURRENT_TREE("ERGO_PUSH", level, name, file, line)
  push(t, level, name, 1, file, line);
  ERGO__LEAVE();
}

void ergo_push_at(int level, const char *name, const char *file, int line) {
  ERGO__CURRENT_TREE("ERGO_PUSH", level, name, file, line)
  push(t, level, name, 0, file, line);
  ERGO__LEAVE();
}

void ergo_pop_lit(int level, const char *name, const char *file, int line) {
  ERGO__CURRENT_TREE("ERGO_POP", level, name, file, line)
  uint64_t now = ergo__ticks(); /* once the run is known live: its clock is set */
  pop(t, "ERGO_POP", level, name, 1, file, line, now);
  ERGO__LEAVE();
}

void ergo_pop_at(int level, const char *name, const char *file, int line) {
  ERGO__CURRENT_TREE("ERGO_POP", level, name, file, line)
  uint64_t now = ergo__ticks(); /* once the run is known live: its clock is set */
  pop(t, "ERGO_POP", level, name, 0, file, line, now);
  ERGO__LEAVE();
}

void ergo_poppush_lit(int level, const char *old_name, const char *new_name, const char *file,
                      int line) {
  ERGO__CURRENT_TREE("ERGO_POPPUSH", level, old_name, file, line)
  uint64_t now = ergo__ticks(); /* once the run is known live: its clock is set */
  pop(t, "ERGO_POPPUSH", level, old_name, 1, file, line, now);
  push(t, level, new_name, 1, file, line);
  ERGO__LEAVE();
}

void ergo_poppush_at(int level, const char *old_name, const char *new_name, const char *file,
                     int line) {
  ERGO__CURRENT_TREE("ERGO_POPPUSH", level, old_name, file, line)
  uint64_t now = ergo__ticks(); /* once the run is known live: its clock is set */
  pop(t, "ERGO_POPPUSH", level, old_name, 0, file, line, now);
  push(t, level, new_name, 0, file, line);
  ERGO__LEAVE();
}

void ergo_region_work(double units) {
  if (!isfinite(units) || units < 0) {
    ergo__warn("ergo_region_work(%g): the work of an execution must be a finite number >= 0; "
               "ignored, the execution is tuned on its time alone (fix: pass the units of work "
               "this execution did, e.g. cells updated)",
               units);
    return;
  }
  if (!__atomic_load_n(&ergo__epoch, __ATOMIC_ACQUIRE)) {
    ergo__warn("ergo_region_work(%g) before ergo_init or after ergo_finalize: ignored (fix: call "
               "it inside a region of an initialised run)",
               units);
    return;
  }
  ERGO__CURRENT_TREE("ergo_region_work", 0, "work", NULL, 0)
  if (t->depth == 0)
    ergo__warn("ergo_region_work(%g) outside every region: ignored (fix: call it between the "
               "ERGO_PUSH and ERGO_POP of the region whose execution did the work)",
               units);
  else
    tls_work += units, tls_work_n++;
  ERGO__LEAVE();
}

void ergo__work_hint(double *sum, uint64_t *calls) {
  *sum = tls_work;
  *calls = tls_work_n;
}

void ergo__region_call(const ergo_region *r, uint64_t *start, uint64_t *end) {
  (void)r; /* the call closing on this thread: the exit hooks run right after close_top set it */
  *start = tls_call[0];
  *end = tls_call[1];
}

int ergo__tree_is_mine(const ergo__tree *t) {
  return ergo__g.finalizing ||
         (t == tls_tree && tls_epoch == __atomic_load_n(&ergo__epoch, __ATOMIC_RELAXED));
}
