/* tree.c - the core's state and its registry of per-thread region trees: making, registering and
 * freeing a tree and its nodes. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

ergo__state ergo__g = {.lock = PTHREAD_MUTEX_INITIALIZER};

ergo__tree *ergo__tree_new(void) {
  ergo__tree *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->cap = 64;
  t->stack = calloc((size_t)t->cap, sizeof *t->stack);
  t->root.name = strdup("Global");
  if (!t->stack || !t->root.name) {
    free(t->stack);
    free(t->root.name);
    free(t);
    return NULL;
  }
  t->root.key = NULL;
  t->root.min = UINT64_MAX;
  t->root.loaded_min_s = t->root.loaded_max_s = -1;
  t->stack[0].node = &t->root;
  t->t0 = t->step_t = ergo__ticks();
  return t;
}

void ergo__tree_free(ergo__tree *t) {
  ergo__node_free_children(&t->root);
  free(t->root.q_step);
  free(t->root.name);
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

void ergo__node_free_children(ergo__node *n) {
  ergo__node *c = n->first_child;
  while (c) {
    ergo__node *next = c->next_sibling;
    ergo__node_free_children(c);
    free(c->q_step);
    free(c->name);
    free(c);
    c = next;
  }
  n->first_child = NULL;
}
