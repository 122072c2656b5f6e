/* test_hooks.c - the public hook table (core/hooks.c): ERGO_MAX_HOOKS slots, attach and detach,
 * enter/exit/step/finalize with their region, level and elapsed time, per-region slots, exit
 * hooks in reverse order of attachment, and nothing called after detach. */
#include "test_util.h"

#include <pthread.h>
#include <sys/stat.h>

/* One event a recording hook saw. */
typedef enum { EV_ENTER, EV_EXIT, EV_STEP, EV_FINALIZE } ev_kind;
typedef struct event {
  ev_kind kind;
  int hook; /* which recorder (its ctx) */
  ergo_region *region;
  char name[32];
  int level, depth, thread;
  uint64_t elapsed_ns;
  long step;
  pthread_t self;
} event;

#define MAX_EVENTS 64
static event events[MAX_EVENTS];
static int nevents;

typedef struct recorder {
  int id;
  uint64_t enter_cost_ms, exit_cost_ms; /* manual-clock time each call spends in the hook */
} recorder;

static event *record(ev_kind kind, void *ctx) {
  assert_in_range(nevents, 0, MAX_EVENTS - 1);
  event *e = &events[nevents++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->hook = ((recorder *)ctx)->id;
  e->self = pthread_self();
  return e;
}
static void on_arrive(void *ctx, ergo_region *r, int level) {
  event *e = record(EV_ENTER, ctx);
  e->region = r;
  snprintf(e->name, sizeof e->name, "%s", ergo_region_name(r));
  e->level = level;
  e->depth = ergo_region_depth(r);
  e->thread = ergo_region_thread(r);
  advance_ms(((recorder *)ctx)->enter_cost_ms);
}
static void on_leave(void *ctx, ergo_region *r, int level, uint64_t elapsed_ns) {
  event *e = record(EV_EXIT, ctx);
  e->region = r;
  snprintf(e->name, sizeof e->name, "%s", ergo_region_name(r));
  e->level = level;
  e->depth = ergo_region_depth(r);
  e->thread = ergo_region_thread(r);
  e->elapsed_ns = elapsed_ns;
  advance_ms(((recorder *)ctx)->exit_cost_ms);
}
static void on_step(void *ctx, long step) { record(EV_STEP, ctx)->step = step; }
static void on_finalize(void *ctx) { record(EV_FINALIZE, ctx); }

static recorder rec[ERGO_MAX_HOOKS + 1] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0}};
static ergo_hooks hooks_of(int id) {
  return (ergo_hooks){on_arrive, on_leave, on_finalize, &rec[id], on_step};
}

static int setup(void **state) {
  nevents = 0;
  for (int i = 0; i <= ERGO_MAX_HOOKS; i++) rec[i].enter_cost_ms = rec[i].exit_cost_ms = 0;
  return test_dir_setup(state);
}

static void assert_event(int i, ev_kind kind, int hook, const char *name, int level) {
  assert_in_range(i, 0, nevents - 1);
  assert_int_equal(events[i].kind, kind);
  assert_int_equal(events[i].hook, hook);
  if (name) assert_string_equal(events[i].name, name);
  if (kind == EV_ENTER || kind == EV_EXIT) assert_int_equal(events[i].level, level);
}

/* The text report's line that starts with `start` shows `time`. */
static void assert_report_time(const char *text, const char *start, const char *time) {
  const char *line = text;
  while (line && strncmp(line, start, strlen(start)) != 0) {
    line = strchr(line, '\n');
    if (line) line++;
  }
  assert_non_null(line);
  char want[64];
  snprintf(want, sizeof want, ": %s,", time);
  const char *end = strchr(line, '\n');
  const char *at = strstr(line, want);
  if (!at || (end && at > end))
    print_message("no '%s' in: %.*s\n", want, (int)(end ? end - line : 80), line);
  assert_true(at && (!end || at < end));
}

/* ERGO_MAX_HOOKS tables fit, one slot each; the next is ERGO_EBUSY with one warning and no slot
 * written; detach frees a slot for the next attach; a bad slot is ERGO_EINVAL. */
static void test_slots(void **state) {
  (void)state;
  test_init_default();
  assert_int_equal(ERGO_MAX_HOOKS, 4);
  int slot[ERGO_MAX_HOOKS], seen = 0;
  for (int i = 0; i < ERGO_MAX_HOOKS; i++) {
    ergo_hooks h = hooks_of(i);
    slot[i] = -1;
    assert_int_equal(ergo_hooks_attach(&h, &slot[i]), 0);
    assert_in_range(slot[i], 0, ERGO_MAX_HOOKS - 1);
    assert_false(seen & (1 << slot[i])); /* every table has its own slot */
    seen |= 1 << slot[i];
  }
  assert_int_equal(seen, (1 << ERGO_MAX_HOOKS) - 1);
  unsigned long errors = ergo_warning_count();
  ergo_hooks extra = hooks_of(ERGO_MAX_HOOKS);
  int none = -7;
  assert_int_equal(ergo_hooks_attach(&extra, &none), ERGO_EBUSY);
  assert_int_equal(none, -7);
  assert_int_equal(ergo_warning_count(), errors + 1);
  assert_string_equal(ergo_last_error(),
                      "ergo_hooks_attach: all 4 hook slots are taken (fix: detach one first)");

  /* Bad slots: out of range, or not attached (twice detached). */
  assert_int_equal(ergo_hooks_detach(-1), ERGO_EINVAL);
  assert_int_equal(ergo_hooks_detach(ERGO_MAX_HOOKS), ERGO_EINVAL);
  assert_int_equal(ergo_hooks_detach(slot[2]), 0);
  assert_int_equal(ergo_hooks_detach(slot[2]), ERGO_EINVAL);
  assert_int_equal(ergo_hooks_attach(NULL, &none), ERGO_EINVAL);
  assert_int_equal(none, -7);

  /* The freed slot is the one free: the next table gets it. */
  assert_int_equal(ergo_hooks_attach(&extra, &none), 0);
  assert_int_equal(none, slot[2]);
  assert_int_equal(ergo_hooks_attach(&extra, NULL), ERGO_EBUSY);
  for (int i = 0; i < ERGO_MAX_HOOKS; i++) assert_int_equal(ergo_hooks_detach(slot[i]), 0);
  /* A table may leave its slot unreported. */
  assert_int_equal(ergo_hooks_attach(&extra, NULL), 0);
}

/* enter gets the region and the level it is pushed with, exit the same region, that level and
 * the call's time, exactly; time spent in hooks is not the region's. */
static void test_enter_exit(void **state) {
  (void)state;
  test_init_default();
  rec[0].enter_cost_ms = 1;
  rec[0].exit_cost_ms = 2;
  ergo_hooks h = hooks_of(0);
  int slot;
  assert_int_equal(ergo_hooks_attach(&h, &slot), 0);
  ergo_push(1, "A");
  advance_ms(5);
  ergo_push(2, "B");
  advance_ms(3);
  ergo_pop(2, "B");
  advance_ms(4);
  ergo_pop(1, "A");
  assert_int_equal(nevents, 4);
  assert_event(0, EV_ENTER, 0, "A", 1);
  assert_event(1, EV_ENTER, 0, "B", 2);
  assert_event(2, EV_EXIT, 0, "B", 2);
  assert_event(3, EV_EXIT, 0, "A", 1);
  ergo_region *a = events[0].region, *b = events[1].region;
  assert_non_null(a);
  assert_non_null(b);
  assert_ptr_equal(events[3].region, a);
  assert_ptr_equal(events[2].region, b);
  assert_ptr_equal(ergo_region_parent(b), a);
  assert_string_equal(ergo_region_name(ergo_region_parent(a)), "Global");
  assert_int_equal(events[0].depth, 1);
  assert_int_equal(events[1].depth, 2);
  assert_int_equal(ergo_region_level(a), 1);
  assert_int_equal(ergo_region_level(b), 2);
  assert_int_equal(events[0].thread, 0);
  assert_int_equal(events[1].thread, 0);
  /* B: its 3 ms, without its own hooks' 1 + 2 ms.  A: 5 + 3 + 4 ms of its own and B's, plus
   * B's hooks (they ran inside A), without A's. */
  assert_int_equal(events[2].elapsed_ns, 3000000);
  assert_int_equal(events[3].elapsed_ns, 15000000);
  /* The same figures in the region tree the reports show. */
  char *text = ergo_report_string();
  assert_non_null(text);
  assert_report_time(text, "* A ", "0.0150 sec");
  assert_report_time(text, "- * B ", "0.0030 sec");
  free(text);

  /* A second call of A is the same region: one node per name and parent. */
  region_ms(1, "A", 7);
  assert_int_equal(nevents, 6);
  assert_ptr_equal(events[4].region, a);
  assert_ptr_equal(events[5].region, a);
  assert_int_equal(events[5].elapsed_ns, 7000000);

  /* A pop at another level closes the region (one error line); exit gets the pushed level. */
  unsigned long errors = ergo_error_count();
  ergo_push(3, "C");
  advance_ms(2);
  ergo_pop(4, "C");
  assert_int_equal(ergo_error_count(), errors + 1);
  assert_event(7, EV_EXIT, 0, "C", 3);
  assert_int_equal(events[7].elapsed_ns, 2000000);

  /* A table without callbacks for some events: only those it has run. */
  assert_int_equal(ergo_hooks_detach(slot), 0);
  ergo_hooks only_exit = {NULL, on_leave, NULL, &rec[1], NULL};
  assert_int_equal(ergo_hooks_attach(&only_exit, &slot), 0);
  nevents = 0;
  region_ms(1, "D", 1);
  assert_int_equal(ergo_step(1), 0);
  ergo_finalize();
  assert_int_equal(nevents, 1);
  assert_event(0, EV_EXIT, 1, "D", 1);
}

/* ergo_step(n) calls step hooks with n, on the calling thread, after the step's files; finalize
 * hooks run once, after open regions were closed (their exit hooks ran) and before the reports
 * are written. */
static const char *report_path, *steps_path;
static int report_existed, step_file_had_step;
static void step_checks_file(void *ctx, long step) {
  on_step(ctx, step);
  char *text = slurp(steps_path);
  char want[32];
  snprintf(want, sizeof want, "Step %ld", step);
  step_file_had_step = text && strstr(text, want);
  free(text);
}
static void finalize_checks_report(void *ctx) {
  on_finalize(ctx);
  struct stat st;
  report_existed = stat(report_path, &st) == 0;
}

static void test_step_finalize(void **state) {
  (void)state;
  static char rpath[512], spath[512];
  snprintf(rpath, sizeof rpath, "%s", test_in_dir("report.txt"));
  snprintf(spath, sizeof spath, "%s", test_in_dir("steps.txt"));
  report_path = rpath;
  steps_path = spath;
  ergo_config c = test_config();
  c.report = rpath;
  c.step_report = spath;
  test_init(&c);
  ergo_hooks h = {on_arrive, on_leave, finalize_checks_report, &rec[0], step_checks_file};
  assert_int_equal(ergo_hooks_attach(&h, NULL), 0);
  region_ms(1, "A", 2);
  step_file_had_step = 0;
  assert_int_equal(ergo_step(7), 0);
  assert_int_equal(nevents, 3);
  assert_event(2, EV_STEP, 0, NULL, 0);
  assert_int_equal(events[2].step, 7);
  assert_true(pthread_equal(events[2].self, pthread_self()));
  assert_true(step_file_had_step);
  assert_int_equal(ergo_step_info(8, "t=1"), 0);
  assert_int_equal(nevents, 4);
  assert_int_equal(events[3].step, 8);

  ergo_push(1, "open");
  advance_ms(3);
  report_existed = -1;
  assert_int_equal(ergo_finalize(), 0);
  /* enter(open), then at finalize: exit(open) with its time so far, then finalize. */
  assert_int_equal(nevents, 7);
  assert_event(4, EV_ENTER, 0, "open", 1);
  assert_event(5, EV_EXIT, 0, "open", 1);
  assert_int_equal(events[5].elapsed_ns, 3000000);
  assert_event(6, EV_FINALIZE, 0, NULL, 0);
  assert_int_equal(report_existed, 0);
  struct stat st;
  assert_int_equal(stat(rpath, &st), 0); /* written after the hook */
  /* A second finalize runs nothing: the table went with the first. */
  assert_int_equal(ergo_finalize(), 0);
  assert_int_equal(nevents, 7);
}

/* Every hook has its own pointer-sized slot in every region: NULL at first, kept across calls
 * of the region, independent of the other hooks' slots and of other regions. */
typedef struct slotter {
  int slot;
  uintptr_t tag;
  int fresh; /* entries that found their slot NULL */
} slotter;
static void slot_enter(void *ctx, ergo_region *r, int level) {
  (void)level;
  slotter *s = ctx;
  void **p = ergo_region_slot(r, s->slot);
  assert_non_null(p);
  if (!*p) {
    s->fresh++;
    *p = (void *)s->tag;
  } else {
    /* one tag per hook, plus one per call of this region */
    *p = (void *)((uintptr_t)*p + 1);
  }
}

static void test_region_slots(void **state) {
  (void)state;
  test_init_default();
  slotter x = {-1, 0x1000, 0}, y = {-1, 0x2000, 0};
  ergo_hooks hx = {slot_enter, NULL, NULL, &x, NULL}, hy = {slot_enter, NULL, NULL, &y, NULL};
  assert_int_equal(ergo_hooks_attach(&hx, &x.slot), 0);
  assert_int_equal(ergo_hooks_attach(&hy, &y.slot), 0);
  assert_int_not_equal(x.slot, y.slot);
  region_ms(1, "A", 1);
  region_ms(1, "A", 1);
  region_ms(1, "A", 1);
  region_ms(1, "B", 1);
  assert_int_equal(x.fresh, 2); /* A and B, once each */
  assert_int_equal(y.fresh, 2);
  ergo_region *a = NULL;
  ergo_hooks find = {on_arrive, NULL, NULL, &rec[0], NULL};
  int fs;
  assert_int_equal(ergo_hooks_attach(&find, &fs), 0);
  region_ms(1, "A", 1);
  assert_int_equal(nevents, 1);
  a = events[0].region;
  /* A was entered 4 times: the first set the tag, the other 3 added one each. */
  assert_ptr_equal(*ergo_region_slot(a, x.slot), (void *)(uintptr_t)0x1003);
  assert_ptr_equal(*ergo_region_slot(a, y.slot), (void *)(uintptr_t)0x2003);
  /* The recorder never touched its slot in A. */
  assert_null(*ergo_region_slot(a, fs));
  /* Out of range, or no region: no slot. */
  assert_null(ergo_region_slot(a, -1));
  assert_null(ergo_region_slot(a, ERGO_MAX_HOOKS));
  assert_null(ergo_region_slot(NULL, 0));
  assert_null(ergo_region_name(NULL));
  assert_null(ergo_region_parent(NULL));
  assert_int_equal(ergo_region_level(NULL), -1);
  assert_int_equal(ergo_region_depth(NULL), -1);
  assert_int_equal(ergo_region_thread(NULL), -1);
}

/* Enter hooks run in order of attachment, exit hooks in the reverse order. */
static void test_exit_reverse_order(void **state) {
  (void)state;
  test_init_default();
  for (int i = 0; i < 3; i++) {
    ergo_hooks h = hooks_of(i);
    assert_int_equal(ergo_hooks_attach(&h, NULL), 0);
  }
  region_ms(1, "A", 1);
  assert_int_equal(nevents, 6);
  static const int order[6][2] = {{EV_ENTER, 0}, {EV_ENTER, 1}, {EV_ENTER, 2},
                                  {EV_EXIT, 2},  {EV_EXIT, 1},  {EV_EXIT, 0}};
  for (int i = 0; i < 6; i++) assert_event(i, (ev_kind)order[i][0], order[i][1], "A", 1);
  for (int i = 3; i < 6; i++) assert_int_equal(events[i].elapsed_ns, 1000000);
}

/* The same after a slot was freed and taken again: the table attached last is still entered
 * last and left first, whichever slot it got. */
static void test_order_after_reuse(void **state) {
  (void)state;
  test_init_default();
  int s0, s1, s2;
  ergo_hooks h0 = hooks_of(0), h1 = hooks_of(1), h2 = hooks_of(2);
  assert_int_equal(ergo_hooks_attach(&h0, &s0), 0);
  assert_int_equal(ergo_hooks_attach(&h1, &s1), 0);
  assert_int_equal(ergo_hooks_detach(s0), 0);
  assert_int_equal(ergo_hooks_attach(&h2, &s2), 0); /* attached after 1 */
  region_ms(1, "A", 1);
  assert_int_equal(nevents, 4);
  assert_true(s2 < s1); /* it did take the freed slot, below hook 1's */
  assert_event(0, EV_ENTER, 1, "A", 1);
  assert_event(1, EV_ENTER, 2, "A", 1);
  assert_event(2, EV_EXIT, 2, "A", 1);
  assert_event(3, EV_EXIT, 1, "A", 1);
}

/* After detach a table is never called again: not for regions, steps or finalize. */
static void test_nothing_after_detach(void **state) {
  (void)state;
  test_init_default();
  int slot, other;
  ergo_hooks h = hooks_of(0), h1 = hooks_of(1);
  assert_int_equal(ergo_hooks_attach(&h, &slot), 0);
  assert_int_equal(ergo_hooks_attach(&h1, &other), 0);
  ergo_push(1, "A"); /* entered with both */
  assert_int_equal(ergo_hooks_detach(slot), 0);
  advance_ms(1);
  ergo_pop(1, "A");
  region_ms(1, "B", 1);
  assert_int_equal(ergo_step(1), 0);
  assert_int_equal(ergo_hooks_detach(other), 0);
  region_ms(1, "C", 1);
  assert_int_equal(ergo_step(2), 0);
  ergo_finalize();
  /* hook 0: enter A only; hook 1: enter A, exit A, enter B, exit B, step 1. */
  int n0 = 0;
  for (int i = 0; i < nevents; i++) n0 += events[i].hook == 0;
  assert_int_equal(n0, 1);
  assert_int_equal(nevents, 6);
  assert_event(0, EV_ENTER, 0, "A", 1);
  assert_event(1, EV_ENTER, 1, "A", 1);
  assert_event(2, EV_EXIT, 1, "A", 1);
  assert_event(3, EV_ENTER, 1, "B", 1);
  assert_event(4, EV_EXIT, 1, "B", 1);
  assert_event(5, EV_STEP, 1, NULL, 0);
  assert_int_equal(events[5].step, 1);
}

/* Other threads' regions call the same hooks, with their own tree's index. */
static void *thread_body(void *arg) {
  (void)arg;
  ergo_push(2, "T");
  advance_ms(4);
  ergo_pop(2, "T");
  return NULL;
}

static void test_other_thread(void **state) {
  (void)state;
  test_init_default();
  ergo_hooks h = hooks_of(0);
  assert_int_equal(ergo_hooks_attach(&h, NULL), 0);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, thread_body, NULL), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  assert_int_equal(nevents, 2);
  assert_event(0, EV_ENTER, 0, "T", 2);
  assert_event(1, EV_EXIT, 0, "T", 2);
  assert_int_equal(events[0].thread, 1);
  assert_int_equal(events[1].elapsed_ns, 4000000);
  assert_true(pthread_equal(events[0].self, th));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_slots, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_enter_exit, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_step_finalize, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_region_slots, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_exit_reverse_order, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_order_after_reuse, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_nothing_after_detach, setup, test_dir_teardown),
      cmocka_unit_test_setup_teardown(test_other_thread, setup, test_dir_teardown),
  };
  return cmocka_run_group_tests_name("hooks", tests, NULL, NULL);
}
