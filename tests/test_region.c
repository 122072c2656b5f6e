/* test_region.c - the region tree: figures, nesting, recursion, POPPUSH, names, threads, hooks. */
#include "test_util.h"

#include "internal.h"

#include <pthread.h>
#include <sched.h>

static ergo__node *child(ergo__node *n, const char *name) { return ergo__node_find(n, name, 0); }
static ergo__node *root(void) { return &ergo__g.main_tree->root; }

static void test_figures_exact(void **state) {
  (void)state;
  test_init_default();
  region_ms(1, "a", 10);
  region_ms(1, "a", 30);
  region_ms(1, "a", 20);
  ergo__node *a = child(root(), "a");
  assert_non_null(a);
  assert_int_equal(a->calls, 3);
  assert_int_equal(a->total, 60000000);
  assert_int_equal(a->min, 10000000);
  assert_int_equal(a->max, 30000000);
  assert_int_equal(a->level, 1);
  assert_int_equal(ergo_region_depth(a), 1);
  ergo_finalize();
}

/* A node per (parent, label): the same label under two parents is two nodes. */
static void test_same_label_two_parents(void **state) {
  (void)state;
  test_init_default();
  ERGO_PUSH(2, "Primary");
  region_ms(1, "HSML_COMPUTE", 5);
  ERGO_POPPUSH(2, "Primary", "Secondary");
  region_ms(1, "HSML_COMPUTE", 7);
  ERGO_POP(2, "Secondary");
  ergo__node *p = child(root(), "Primary"), *s = child(root(), "Secondary");
  assert_non_null(p);
  assert_non_null(s);
  assert_int_equal(child(p, "HSML_COMPUTE")->total, 5000000);
  assert_int_equal(child(s, "HSML_COMPUTE")->total, 7000000);
  assert_int_equal(ergo_error_count(), 0);
  ergo_finalize();
}

/* POPPUSH closes and opens at one clock reading: no time falls between. */
static void test_poppush_one_instant(void **state) {
  (void)state;
  test_init_default();
  ERGO_PUSH(1, "outer");
  ERGO_PUSH(2, "x");
  advance_ms(4);
  ERGO_POPPUSH(2, "x", "y");
  advance_ms(6);
  ERGO_POP(2, "y");
  ERGO_POP(1, "outer");
  ergo__node *o = child(root(), "outer");
  assert_int_equal(child(o, "x")->total + child(o, "y")->total, o->total);
  assert_int_equal(child(o, "y")->total, 6000000);
  ergo_finalize();
}

static void recurse(int depth) {
  ERGO_PUSH(1, "rec");
  advance_ms(1);
  if (depth > 1) recurse(depth - 1);
  ERGO_POP(1, "rec");
}

/* Recursion nests a node per level, deeper than the initial stack of 64. */
static void test_recursion(void **state) {
  (void)state;
  test_init_default();
  recurse(100);
  ergo__node *n = root();
  for (int d = 1; d <= 100; d++) {
    n = child(n, "rec");
    assert_non_null(n);
    assert_int_equal(ergo_region_depth(n), d);
    assert_int_equal(n->total, (uint64_t)(101 - d) * 1000000);
  }
  assert_null(n->first_child);
  assert_int_equal(ergo_error_count(), 0);
  ergo_finalize();
}

/* A name built at run time in a reused buffer is compared by content. */
static void test_dynamic_names(void **state) {
  (void)state;
  test_init_default();
  char buf[32];
  for (int i = 0; i < 6; i++) {
    snprintf(buf, sizeof buf, "iter%d", i % 3);
    ERGO_PUSH(1, buf);
    advance_ms((uint64_t)i + 1);
    ERGO_POP(1, buf);
  }
  assert_int_equal(child(root(), "iter0")->total, (1 + 4) * 1000000);
  assert_int_equal(child(root(), "iter1")->total, (2 + 5) * 1000000);
  assert_int_equal(child(root(), "iter2")->total, (3 + 6) * 1000000);
  assert_int_equal(child(root(), "iter2")->calls, 2);
  assert_int_equal(ergo_error_count(), 0);
  ergo_finalize();
}

/* A pop with the pointer its push had is still checked by its text: a buffer rewritten in between
 * (longer, shorter, or as long) is a label mismatch, and the name as pushed closes the region. */
static void test_rewritten_buffer(void **state) {
  (void)state;
  test_init_default();
  char buf[32] = "alpha";
  ERGO_PUSH(1, buf);
  const char *rewrites[] = {"alphabet", "alp", "alphx", ""};
  for (int i = 0; i < 4; i++) {
    strcpy(buf, rewrites[i]);
    ERGO_POP(1, buf);
    assert_int_equal(ergo_error_count(), (unsigned long)i + 1);
    assert_non_null(strstr(ergo_last_error(), "label mismatch"));
  }
  strcpy(buf, "alpha");
  ERGO_POP(1, buf);
  assert_int_equal(ergo_error_count(), 4);
  assert_int_equal(child(root(), "alpha")->calls, 1);
  ergo_finalize();
}

/* The successor hint must never return the wrong child when the order changes. */
static void test_changing_order(void **state) {
  (void)state;
  test_init_default();
  const char *order1[] = {"a", "b", "c"}, *order2[] = {"c", "a", "b", "b"};
  for (int r = 0; r < 3; r++) {
    for (int i = 0; i < 3; i++) region_ms(1, order1[i], 1);
    for (int i = 0; i < 4; i++) region_ms(1, order2[i], 2);
  }
  assert_int_equal(child(root(), "a")->calls, 6);
  assert_int_equal(child(root(), "b")->calls, 9);
  assert_int_equal(child(root(), "c")->calls, 6);
  assert_int_equal(child(root(), "b")->total, 3 * (1 + 4) * 1000000ull);
  ergo_finalize();
}

/* Levels above ERGO_LEVEL compile to nothing: no call and no string in the binary. */
void compiled_out_regions(void); /* test_region_levels.c, built with ERGO_LEVEL 1 */
static void test_compile_time_level(void **state) {
  (void)state;
  test_init_default();
  compiled_out_regions();
  assert_non_null(child(root(), "kept_level_1"));
  assert_null(root()->first_child->next_sibling);
  ergo_finalize();
  /* Search this executable for the level-2 name; build the needle at run time. */
  char needle[64];
  snprintf(needle, sizeof needle, "%s_%s_%d", "dropped", "level", 2);
  FILE *f = fopen("/proc/self/exe", "rb");
  assert_non_null(f);
  size_t cap = 1 << 20, len = 0, n;
  char *buf = malloc(cap);
  while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  assert_null(memmem(buf, len, needle, strlen(needle)));
  snprintf(needle, sizeof needle, "%s_%s_%d", "kept", "level", 1);
  assert_non_null(memmem(buf, len, needle, strlen(needle)));
  free(buf);
}

static void *thread_body(void *arg) {
  int id = *(int *)arg;
  for (int i = 0; i < 1000; i++) {
    ERGO_PUSH(1, "worker");
    ERGO_PUSH(2, id ? "odd" : "even");
    ERGO_POP(2, id ? "odd" : "even");
    ERGO_POP(1, "worker");
  }
  return NULL;
}

/* Each thread has its own tree; the main report is the initialising thread's. */
static void test_threads_own_trees(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.clock = NULL; /* real clock: threads run concurrently */
  c.report_threads = 1;
  assert_int_equal(ergo_init(&c), 0);
  region_ms(1, "main_only", 0);
  pthread_t th[2];
  int ids[2] = {0, 1};
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, thread_body, &ids[i]);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  assert_int_equal(ergo__g.ntrees, 3);
  assert_null(child(root(), "worker"));
  int seen = 0;
  for (ergo__tree *t = ergo__g.trees; t; t = t->next) {
    if (t == ergo__g.main_tree) continue;
    ergo__node *w = child(&t->root, "worker");
    assert_non_null(w);
    assert_int_equal(w->calls, 1000);
    seen++;
  }
  assert_int_equal(seen, 2);
  char *rep = ergo_report_string();
  assert_non_null(strstr(rep, "Thread 1\nTotal wall clock time for Global"));
  assert_non_null(strstr(rep, "Thread 2\nTotal wall clock time for Global"));
  free(rep);
  assert_int_equal(ergo_error_count(), 0);
  ergo_finalize();
}

typedef struct {
  int enters, exits, finals;
  uint64_t last_ns;
  const char *last_name;
} hook_log;

static void h_enter(void *ctx, ergo_region *r, int level) {
  hook_log *l = ctx;
  l->enters++;
  l->last_name = ergo_region_name(r);
  (void)level;
  *ergo_region_slot(r, 0) = ctx;
}
static void h_exit(void *ctx, ergo_region *r, int level, uint64_t ns) {
  hook_log *l = ctx;
  (void)level;
  assert_ptr_equal(*ergo_region_slot(r, 0), ctx);
  l->exits++;
  l->last_ns = ns;
}
static void h_final(void *ctx) { ((hook_log *)ctx)->finals++; }

static void test_hooks(void **state) {
  (void)state;
  test_init_default();
  hook_log log = {0};
  ergo_hooks h = {h_enter, h_exit, h_final, &log, NULL};
  int slot = -1;
  assert_int_equal(ergo_hooks_attach(&h, &slot), 0);
  assert_int_equal(slot, 0);
  ERGO_PUSH(1, "outer");
  region_ms(2, "inner", 7);
  assert_int_equal(log.last_ns, 7000000);
  assert_string_equal(log.last_name, "inner");
  ERGO_POP(1, "outer");
  assert_int_equal(log.enters, 2);
  assert_int_equal(log.exits, 2);
  ergo_region *inner = child(child(root(), "outer"), "inner");
  assert_string_equal(ergo_region_name(inner), "inner");
  assert_string_equal(ergo_region_name(ergo_region_parent(inner)), "outer");
  assert_int_equal(ergo_region_depth(inner), 2);
  assert_int_equal(ergo_region_level(inner), 2);
  assert_null(ergo_region_slot(inner, ERGO_MAX_HOOKS));
  ergo_hooks full = {0};
  for (int i = 1; i < ERGO_MAX_HOOKS; i++) assert_int_equal(ergo_hooks_attach(&full, NULL), 0);
  assert_int_equal(ergo_hooks_attach(&full, NULL), ERGO_EBUSY);
  assert_int_equal(ergo_hooks_detach(ERGO_MAX_HOOKS - 1), 0);
  assert_int_equal(ergo_hooks_detach(ERGO_MAX_HOOKS - 1), ERGO_EINVAL);
  ergo_finalize();
  assert_int_equal(log.finals, 1);
}

/* ---- threads still running regions while another thread finalizes -------------------- */

typedef struct churn_ctx {
  int dead; /* set once ergo_finalize has returned: the layer's state is gone */
} churn_ctx;
static int churn_stop, churn_late, churn_calls;

static void churn_enter(void *ctx, ergo_region *r, int level) {
  (void)level;
  *ergo_region_slot(r, 0) = ctx;
}
static void churn_exit(void *ctx, ergo_region *r, int level, uint64_t ns) {
  (void)level, (void)ns;
  churn_ctx *c = ctx;
  /* A hook after finalize returned (the region's own slot is read too: a freed node under
   * ASan). */
  void *volatile seen = *ergo_region_slot(r, 0);
  (void)seen;
  if (__atomic_load_n(&c->dead, __ATOMIC_ACQUIRE))
    __atomic_store_n(&churn_late, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&churn_calls, 1, __ATOMIC_RELAXED);
}

static void *churn(void *arg) {
  (void)arg;
  char name[16];
  for (unsigned i = 0; !__atomic_load_n(&churn_stop, __ATOMIC_RELAXED); i++) {
    ERGO_PUSH(1, "churn");
    snprintf(name, sizeof name, "r%u", i % 64); /* new regions too, not only the hot path */
    ERGO_PUSH(2, name);
    ERGO_POP(2, name);
    ERGO_POP(1, "churn");
  }
  return NULL;
}

/* Threads keep pushing and popping while the main thread finalizes and starts again, 20
 * times: no thread ever touches a freed tree or calls a hook of a finished run (ASan, and the
 * hook's own check), and every run's report is made. */
static void test_finalize_while_threads_run(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.clock = NULL; /* real clock: the threads run concurrently */
  __atomic_store_n(&churn_stop, 0, __ATOMIC_RELAXED);
  pthread_t th[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, churn, NULL), 0);
  for (int run = 0; run < 20; run++) {
    churn_ctx *ctx = calloc(1, sizeof *ctx);
    assert_non_null(ctx);
    assert_int_equal(ergo_init(&c), 0);
    ergo_hooks h = {churn_enter, churn_exit, NULL, ctx, NULL};
    assert_int_equal(ergo_hooks_attach(&h, NULL), 0);
    int before = __atomic_load_n(&churn_calls, __ATOMIC_RELAXED);
    while (__atomic_load_n(&churn_calls, __ATOMIC_RELAXED) < before + 200) sched_yield();
    ergo_finalize();
    __atomic_store_n(&ctx->dead, 1, __ATOMIC_RELEASE);
    /* Give the threads time to run into the finished run, then free the layer's state. */
    for (int i = 0; i < 1000; i++) sched_yield();
    free(ctx);
  }
  __atomic_store_n(&churn_stop, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  assert_int_equal(__atomic_load_n(&churn_late, __ATOMIC_RELAXED), 0);
}

/* The thread stress: 8 threads open regions (new ones too) while the main thread prints
 * reports of every thread's tree and then finalizes with them still running.  Clean under ASan
 * and TSan; every report is whole. */
static void test_reports_while_threads_run(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.clock = NULL;
  c.report_threads = 1;
  assert_int_equal(ergo_init(&c), 0);
  __atomic_store_n(&churn_stop, 0, __ATOMIC_RELAXED);
  pthread_t th[8];
  for (int i = 0; i < 8; i++) assert_int_equal(pthread_create(&th[i], NULL, churn, NULL), 0);
  for (int i = 0; i < 40; i++) {
    char *rep = ergo_report_string();
    assert_non_null(rep);
    assert_non_null(strstr(rep, "Total wall clock time for Global"));
    free(rep);
  }
  ergo_finalize();
  __atomic_store_n(&churn_stop, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < 8; i++) pthread_join(th[i], NULL);
}

/* Lifecycle edge cases: finalize twice, before init; init twice. */
static void test_lifecycle(void **state) {
  (void)state;
  assert_int_equal(ergo_finalize(), 0);
  assert_int_equal(ergo_initialized(), 0);
  test_init_default();
  assert_int_equal(ergo_init(NULL), ERGO_ESTATE);
  assert_int_equal(ergo_initialized(), 1);
  assert_int_equal(ergo_finalize(), 0);
  assert_int_equal(ergo_finalize(), 0);
  /* A push after finalize is ignored with one warning, never a crash. */
  ERGO_PUSH(1, "late");
  ERGO_POP(1, "late");
  assert_non_null(strstr(ergo_last_error(), "ergo is not initialised"));
  /* Re-initialising starts a fresh tree. */
  test_init_default();
  assert_null(root()->first_child);
  ergo_finalize();
  assert_string_equal(ergo_strerror(ERGO_EFORMAT), "malformed or truncated file");
  assert_string_equal(ergo_strerror(0), "success");
  assert_string_equal(ergo_strerror(-999), "unknown ergo error");
}

/* The built-in clock is steady and in nanoseconds. */
static void test_builtin_clock(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.clock = NULL;
  assert_int_equal(ergo_init(&c), 0);
  const char *name = ergo_clock_name();
  assert_true(strcmp(name, "tsc") == 0 || strcmp(name, "monotonic") == 0);
  uint64_t a = ergo_now_ns();
  struct timespec ts = {0, 20000000};
  nanosleep(&ts, NULL);
  uint64_t b = ergo_now_ns();
  assert_true(b - a >= 19000000 && b - a < 2000000000);
  ergo_finalize();
  c.clock_kind = ERGO_CLOCK_MONOTONIC;
  assert_int_equal(ergo_init(&c), 0);
  assert_string_equal(ergo_clock_name(), "monotonic");
  ergo_finalize();
}

/* ---- many siblings ------------------------------------------------------------------------ */
#define NSIB 10000
static char sib_lit[NSIB][16]; /* pushed as literals: stable pointers */
static char sib_rt[NSIB][16];  /* the same text in other buffers, found by content */
static uint64_t sib_calls[NSIB], sib_ms[NSIB];

static size_t nchildren(const ergo__node *n) {
  size_t k = 0;
  for (const ergo__node *c = n->first_child; c; c = c->next_sibling) k++;
  return k;
}

/* 1e4 siblings visited in a pseudo-random order, alternately by literal pointer and by content:
 * one node per name, each with exactly the calls and time a reference count gives; the names are
 * interned once (the same pointer under two parents and in another thread's tree), and a node
 * is at most 128 bytes. */
static void *push_sib0(void *arg) {
  (void)arg;
  ergo_push_at(1, sib_rt[0], __FILE__, __LINE__);
  ergo_pop_at(1, sib_rt[0], __FILE__, __LINE__);
  return NULL;
}

static void test_many_siblings_random_order(void **state) {
  (void)state;
  assert_true(sizeof(ergo__node) <= 128);
  test_init_default();
  for (int k = 0; k < NSIB; k++) {
    snprintf(sib_lit[k], sizeof sib_lit[k], "sib_%05d", k);
    memcpy(sib_rt[k], sib_lit[k], sizeof sib_rt[k]);
    sib_calls[k] = sib_ms[k] = 0;
  }
  uint64_t x = 88172645463325252ull;
  ERGO_PUSH(1, "parent");
  for (int i = 0; i < 5 * NSIB; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    int k = (int)(x % NSIB), ms = (int)(x >> 40) % 3 + 1;
    if (i & 1) {
      ergo_push_lit(2, sib_lit[k], __FILE__, __LINE__);
      advance_ms((uint64_t)ms);
      ergo_pop_lit(2, sib_lit[k], __FILE__, __LINE__);
    } else {
      region_ms(2, sib_rt[k], (uint64_t)ms);
    }
    sib_calls[k]++;
    sib_ms[k] += (uint64_t)ms;
  }
  ERGO_POP(1, "parent");
  /* The same names under another parent, in order. */
  ERGO_PUSH(1, "other");
  for (int k = 0; k < NSIB; k++) region_ms(2, sib_rt[k], 1);
  ERGO_POP(1, "other");
  assert_int_equal(ergo_error_count(), 0);

  ergo__node *p = child(root(), "parent"), *o = child(root(), "other");
  assert_non_null(p);
  assert_non_null(o);
  size_t expected = 0;
  for (int k = 0; k < NSIB; k++) expected += sib_calls[k] > 0;
  assert_int_equal(nchildren(p), expected);
  assert_int_equal(nchildren(o), NSIB);
  for (int k = 0; k < NSIB; k++) {
    ergo__node *c = child(p, sib_rt[k]), *d = child(o, sib_lit[k]);
    assert_non_null(d);
    assert_int_equal(d->calls, 1);
    if (!sib_calls[k]) {
      assert_null(c);
      continue;
    }
    assert_non_null(c);
    assert_ptr_equal(c->parent, p);
    assert_string_equal(c->name, sib_lit[k]);
    assert_int_equal(c->calls, sib_calls[k]);
    assert_int_equal(c->total, sib_ms[k] * 1000000ull);
    assert_ptr_equal(c->name, d->name); /* interned once */
  }
  /* Another thread's tree shares the interned name too. */
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, push_sib0, NULL), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  assert_int_equal(ergo__g.ntrees, 2);
  ergo__node *r = child(&ergo__g.trees->next->root, sib_lit[0]);
  assert_non_null(r);
  assert_ptr_equal(r->name, child(o, sib_lit[0])->name);
  assert_int_equal(ergo_finalize(), 0);
}

/* Names whose (parent, name) keys share the first slot of a small table and the 16 bits kept
 * beside the pointer: each still gets its own node, found by its name. */
static void test_names_in_one_bucket(void **state) {
  (void)state;
  test_init_default();
  const uint64_t mask = 0x0000003f000003ffull; /* tag + a 1024-slot table's index */
  uint64_t want = ergo__node_key(root(), "a") & mask;
  char same[3][32] = {"a", "", ""};
  int found = 1;
  for (unsigned long i = 0; found < 3 && i < 200000000ul; i++) {
    snprintf(same[found], sizeof same[found], "n%lu", i);
    if ((ergo__node_key(root(), same[found]) & mask) == want) found++;
  }
  assert_int_equal(found, 3);
  for (int rep = 0; rep < 2; rep++)
    for (int i = 0; i < 3; i++) region_ms(1, same[i], (uint64_t)i + 1);
  ergo__node *n[3];
  for (int i = 0; i < 3; i++) {
    n[i] = child(root(), same[i]);
    assert_non_null(n[i]);
    assert_string_equal(n[i]->name, same[i]);
    assert_int_equal(n[i]->calls, 2);
    assert_int_equal(n[i]->total, 2 * ((uint64_t)i + 1) * 1000000ull);
  }
  assert_true(n[0] != n[1] && n[1] != n[2] && n[0] != n[2]);
  assert_int_equal(nchildren(root()), 3);
  /* The table grows past them: still found. */
  char name[32];
  for (int k = 0; k < 1000; k++) {
    snprintf(name, sizeof name, "grow%d", k);
    region_ms(1, name, 1);
  }
  for (int i = 0; i < 3; i++) assert_ptr_equal(child(root(), same[i]), n[i]);
  assert_int_equal(ergo_error_count(), 0);
  assert_int_equal(ergo_finalize(), 0);
}

/* Two literal pointers with one text (the same label in two libraries) reach one region, in
 * whatever order they come among other siblings, and either may pop the other's push. */
static const char twin_a[] = "twin", twin_b[] = "twin";
static void test_literals_same_text(void **state) {
  (void)state;
  test_init_default();
  assert_ptr_not_equal(twin_a, twin_b);
  const char *others[] = {"o1", "o2", "o3"};
  uint64_t x = 42;
  for (int i = 0; i < 200; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const char *t = (x >> 33) & 1 ? twin_a : twin_b;
    ergo_push_lit(1, t, __FILE__, __LINE__);
    advance_ms(1);
    ergo_pop_lit(1, (x >> 34) & 1 ? twin_a : twin_b, __FILE__, __LINE__);
    ergo_push_lit(1, others[(x >> 40) % 3], __FILE__, __LINE__);
    ergo_pop_lit(1, others[(x >> 40) % 3], __FILE__, __LINE__);
  }
  assert_int_equal(ergo_error_count(), 0);
  assert_int_equal(nchildren(root()), 4);
  ergo__node *n = child(root(), "twin");
  assert_non_null(n);
  assert_int_equal(n->calls, 200);
  assert_int_equal(n->total, 200 * 1000000ull);
  assert_ptr_equal(ergo__node_find(root(), twin_b, 1), n);
  assert_ptr_equal(ergo__node_find(root(), twin_a, 1), n);
  ergo_finalize();
}

/* A runtime-built name is found by its text, never by its pointer: a buffer pushed once as a
 * literal (its node keeps that pointer) and rewritten between pushes by content reaches the
 * region its new text names, in a repeated order (the successor hint) and a changing one. */
static void test_runtime_buffer_rewritten(void **state) {
  (void)state;
  test_init_default();
  char buf[32];
  for (int r = 0; r < 6; r++) {
    strcpy(buf, "first");
    ergo_push_lit(1, buf, __FILE__, __LINE__);
    advance_ms(1);
    ergo_pop_lit(1, buf, __FILE__, __LINE__);
    strcpy(buf, r % 2 ? "second" : "third");
    ergo_push_at(1, buf, __FILE__, __LINE__);
    advance_ms(2);
    ergo_pop_at(1, buf, __FILE__, __LINE__);
    strcpy(buf, "fourth");
    region_ms(1, buf, 3);
  }
  assert_int_equal(ergo_error_count(), 0);
  assert_int_equal(nchildren(root()), 4);
  assert_int_equal(child(root(), "first")->calls, 6);
  assert_int_equal(child(root(), "first")->total, 6 * 1000000ull);
  assert_int_equal(child(root(), "second")->calls, 3);
  assert_int_equal(child(root(), "third")->calls, 3);
  assert_int_equal(child(root(), "second")->total, 3 * 2000000ull);
  assert_int_equal(child(root(), "fourth")->total, 6 * 3000000ull);
  ergo_finalize();
}

/* Several threads create and visit many siblings in their own random orders, by literal pointer
 * and by a runtime copy of the text, interning the names concurrently: each thread's tree is the
 * reference tree of its visits (one node per name, the calls counted), the names shared. */
#define TSIB 3000
#define TTHREADS 4
#define TVISITS (4 * TSIB)
static unsigned tcalls[TTHREADS][TSIB];
static void *random_siblings(void *arg) {
  int id = (int)(intptr_t)arg;
  char parent[16], rt[16];
  snprintf(parent, sizeof parent, "parent_%d", id);
  uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
  ergo_push_at(1, parent, __FILE__, __LINE__);
  for (int i = 0; i < TVISITS; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    int k = (int)(x % TSIB);
    if ((x >> 50) & 1) {
      ergo_push_lit(2, sib_lit[k], __FILE__, __LINE__);
      ergo_pop_lit(2, sib_lit[k], __FILE__, __LINE__);
    } else {
      memcpy(rt, sib_lit[k], sizeof rt);
      ergo_push_at(2, rt, __FILE__, __LINE__);
      ergo_pop_at(2, rt, __FILE__, __LINE__);
      memset(rt, 'x', sizeof rt - 1); /* the buffer's next text is another name */
    }
    tcalls[id][k]++;
  }
  ergo_pop_at(1, parent, __FILE__, __LINE__);
  return NULL;
}

static void test_threads_random_siblings(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.clock = NULL; /* real clock: the threads run concurrently */
  assert_int_equal(ergo_init(&c), 0);
  for (int k = 0; k < TSIB; k++) snprintf(sib_lit[k], sizeof sib_lit[k], "tsib_%05d", k);
  memset(tcalls, 0, sizeof tcalls);
  pthread_t th[TTHREADS];
  for (int i = 0; i < TTHREADS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, random_siblings, (void *)(intptr_t)i), 0);
  for (int i = 0; i < TTHREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
  assert_int_equal(ergo_error_count(), 0);
  assert_int_equal(ergo__g.ntrees, TTHREADS + 1);
  const char *names[TSIB] = {0};
  for (int id = 0; id < TTHREADS; id++) {
    char parent[16];
    snprintf(parent, sizeof parent, "parent_%d", id);
    ergo__node *p = NULL;
    for (ergo__tree *t = ergo__g.trees; t && !p; t = t->next) p = child(&t->root, parent);
    assert_non_null(p);
    size_t expected = 0;
    for (int k = 0; k < TSIB; k++) {
      ergo__node *n = child(p, sib_lit[k]);
      expected += tcalls[id][k] > 0;
      if (!tcalls[id][k]) {
        assert_null(n);
        continue;
      }
      assert_non_null(n);
      assert_ptr_equal(n->parent, p);
      assert_int_equal(n->calls, tcalls[id][k]);
      assert_string_equal(n->name, sib_lit[k]);
      if (!names[k]) names[k] = n->name;
      assert_ptr_equal(n->name, names[k]); /* interned once for every thread */
    }
    assert_int_equal(nchildren(p), expected);
  }
  assert_int_equal(ergo_finalize(), 0);
}

/* Another thread keeps adding siblings while reports read its tree (ERGO_REPORT_THREADS): each
 * report sees whole nodes, never more children than it counted. */
static volatile int adder_done;
static void *adder(void *arg) {
  (void)arg;
  char name[32];
  for (int k = 0; k < 20000; k++) {
    snprintf(name, sizeof name, "added_%d", k);
    ergo_push_at(1, name, __FILE__, __LINE__);
    ergo_pop_at(1, name, __FILE__, __LINE__);
  }
  __atomic_store_n(&adder_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void test_report_while_thread_adds(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.clock = NULL; /* real clock: the threads run concurrently */
  c.report_threads = 1;
  assert_int_equal(ergo_init(&c), 0);
  adder_done = 0;
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, adder, NULL), 0);
  int reports = 0;
  while (!__atomic_load_n(&adder_done, __ATOMIC_ACQUIRE) || reports < 3) {
    char *rep = ergo_report_string();
    assert_non_null(rep);
    free(rep);
    reports++;
  }
  assert_int_equal(pthread_join(th, NULL), 0);
  char *rep = ergo_report_string();
  assert_non_null(strstr(rep, "Thread 1\n"));
  assert_non_null(strstr(rep, "* added_19999 "));
  free(rep);
  assert_int_equal(ergo__g.ntrees, 2);
  assert_int_equal(nchildren(&ergo__g.trees->next->root), 20000);
  assert_int_equal(ergo_error_count(), 0);
  assert_int_equal(ergo_finalize(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      ERGO_TEST(test_figures_exact),
      ERGO_TEST(test_same_label_two_parents),
      ERGO_TEST(test_poppush_one_instant),
      ERGO_TEST(test_recursion),
      ERGO_TEST(test_dynamic_names),
      ERGO_TEST(test_rewritten_buffer),
      ERGO_TEST(test_changing_order),
      ERGO_TEST(test_compile_time_level),
      ERGO_TEST(test_threads_own_trees),
      ERGO_TEST(test_hooks),
      ERGO_TEST(test_finalize_while_threads_run),
      ERGO_TEST(test_reports_while_threads_run),
      ERGO_TEST(test_lifecycle),
      ERGO_TEST(test_builtin_clock),
      ERGO_TEST(test_many_siblings_random_order),
      ERGO_TEST(test_names_in_one_bucket),
      ERGO_TEST(test_literals_same_text),
      ERGO_TEST(test_runtime_buffer_rewritten),
      ERGO_TEST(test_threads_random_siblings),
      ERGO_TEST(test_report_while_thread_adds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
