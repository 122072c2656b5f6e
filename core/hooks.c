/* hooks.c - the enter/exit/finalize hook table through which other layers attach. */
#include "internal.h"

#include <string.h>

int ergo__nhooks;
/* The attached hook tables (ergo__nhooks stays apart: the hot path reads it alone), and their
 * slots in order of attachment: a table keeps its slot, but a freed slot taken again must not
 * put its new table before older ones. */
static struct {
  ergo_hooks table[ERGO_MAX_HOOKS];
  int used[ERGO_MAX_HOOKS];
  int order[ERGO_MAX_HOOKS]; /* slots, first attached first */
  int n;
} H;

/* Attached tables with an enter or exit callback: what the hot path checks. */
static int hot(void) {
  int n = 0;
  for (int i = 0; i < H.n; i++) n += H.table[H.order[i]].enter || H.table[H.order[i]].exit;
  return n;
}

int ergo_hooks_attach(const ergo_hooks *hooks, int *slot) {
  if (!hooks) return ERGO_EINVAL;
  for (int i = 0; i < ERGO_MAX_HOOKS; i++) {
    if (H.used[i]) continue;
    H.table[i] = *hooks;
    H.used[i] = 1;
    H.order[H.n] = i;
    __atomic_store_n(&H.n, H.n + 1, __ATOMIC_RELEASE);
    if (slot) *slot = i;
    /* A table with only step or finalize callbacks costs the region calls nothing. */
    if (hooks->enter || hooks->exit) __atomic_store_n(&ergo__nhooks, hot(), __ATOMIC_RELEASE);
    return 0;
  }
  ergo__warn("ergo_hooks_attach: all %d hook slots are taken (fix: detach one first)",
             ERGO_MAX_HOOKS);
  return ERGO_EBUSY;
}

int ergo_hooks_detach(int slot) {
  if (slot < 0 || slot >= ERGO_MAX_HOOKS || !H.used[slot]) return ERGO_EINVAL;
  H.used[slot] = 0;
  memset(&H.table[slot], 0, sizeof H.table[slot]);
  int k = 0;
  for (int i = 0; i < H.n; i++)
    if (H.order[i] != slot) H.order[k++] = H.order[i];
  __atomic_store_n(&H.n, k, __ATOMIC_RELEASE);
  __atomic_store_n(&ergo__nhooks, hot(), __ATOMIC_RELEASE);
  return 0;
}

/* The hot path calls these once it saw hooks attached: the count is read with acquire, so a
 * table attached while other threads run regions is seen whole. */
void ergo__hooks_enter(ergo__node *n, int level) {
  int nh = __atomic_load_n(&H.n, __ATOMIC_ACQUIRE);
  for (int i = 0; i < nh; i++) {
    const ergo_hooks *h = &H.table[H.order[i]];
    if (h->enter) h->enter(h->ctx, n, level);
  }
}

/* Exit hooks run in reverse order of attachment, so a hook attached first wraps the later ones. */
void ergo__hooks_exit(ergo__node *n, int level, uint64_t ticks) {
  uint64_t ns = ergo__ticks_to_ns(ticks);
  for (int i = __atomic_load_n(&H.n, __ATOMIC_ACQUIRE) - 1; i >= 0; i--) {
    const ergo_hooks *h = &H.table[H.order[i]];
    if (h->exit) h->exit(h->ctx, n, level, ns);
  }
}

void ergo__hooks_finalize(void) {
  for (int i = 0; i < H.n; i++) {
    const ergo_hooks *h = &H.table[H.order[i]];
    if (h->finalize) h->finalize(h->ctx);
  }
}

void ergo__hooks_step(long step) {
  for (int i = 0; i < H.n; i++) {
    const ergo_hooks *h = &H.table[H.order[i]];
    if (h->step) h->step(h->ctx, step);
  }
}

void ergo__hooks_reset(void) {
  memset(&H, 0, sizeof H);
  __atomic_store_n(&ergo__nhooks, 0, __ATOMIC_RELEASE);
}

const char *ergo_region_name(const ergo_region *r) { return r ? r->name : NULL; }
ergo_region *ergo_region_parent(const ergo_region *r) { return r ? r->parent : NULL; }
int ergo_region_level(const ergo_region *r) { return r ? r->level : -1; }
int ergo_region_depth(const ergo_region *r) { return r ? ergo__node_depth(r) : -1; }
void **ergo_region_slot(ergo_region *r, int slot) {
  if (!r || slot < 0 || slot >= ERGO_MAX_HOOKS) return NULL;
  ergo__cold *c = ergo__node_cold(r); /* the slots live with the region's cold fields */
  return c ? &c->slots[slot] : NULL;
}
int ergo_region_thread(const ergo_region *r) { return r ? r->thread : -1; }

int ergo_overhead(double *seconds, uint64_t *hook_calls) {
  if (!ergo__g.initialized || !ergo__g.main_tree) return ERGO_ESTATE;
  const ergo__tree *t = ergo__g.main_tree;
  if (seconds)
    *seconds = ergo__clk.kind == ERGO__CLOCK_USER ? (double)t->hook_ticks * 1e-9
                                                  : ergo__ticks_to_s(t->hook_ticks);
  if (hook_calls) *hook_calls = t->hook_calls;
  return 0;
}
