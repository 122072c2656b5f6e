/* test_job.c - the MPI layer's pure parts, without MPI: the energy-reader election, per-rank file
 * names, and the merge of rank trees at finalize driven through a fake gather (every rank's pack
 * is this process's own, so the expected figures are exact; a truncated pack is refused). */
#include "test_util.h"

#include "core/internal.h"
#include "mpi/job.h"

#include <math.h>

static void election_bound_ranks(void **state) {
  (void)state;
  /* Two packages; ranks 0,1 on package 0, ranks 2,3 on package 1.  (Node rank 0 also takes
   * every package no rank runs on: bits 2..63 here, packages this node does not have.) */
  uint64_t masks[4] = {1, 1, 2, 2};
  int unbound;
  assert_int_equal(ergo__job_elect(masks, 4, 0, &unbound) & 3, 1);
  assert_int_equal(unbound, 1); /* node rank 0 also reads psys */
  assert_int_equal(ergo__job_elect(masks, 4, 1, &unbound), 0);
  assert_int_equal(unbound, 0);
  assert_int_equal(ergo__job_elect(masks, 4, 2, &unbound), 2);
  assert_int_equal(ergo__job_elect(masks, 4, 3, &unbound), 0);
}

static void election_unbound_ranks(void **state) {
  (void)state;
  /* Unbound ranks all cover both packages: the lowest reads everything, once. */
  uint64_t masks[3] = {3, 3, 3};
  uint64_t got = 0;
  for (int r = 0; r < 3; r++) {
    uint64_t m = ergo__job_elect(masks, 3, r, NULL);
    assert_int_equal(m & got, 0); /* never two readers of one package */
    got |= m;
  }
  assert_true((got & 3) == 3);
}

static void election_uncovered_package(void **state) {
  (void)state;
  /* No rank runs on package 1: node rank 0 reads it, so no domain goes unread. */
  uint64_t masks[2] = {0, 1};
  uint64_t r0 = ergo__job_elect(masks, 2, 0, NULL), r1 = ergo__job_elect(masks, 2, 1, NULL);
  assert_int_equal(r1, 1);
  assert_true(r0 & 2);
  assert_false(r0 & 1);
}

static void rank_paths(void **state) {
  (void)state;
  const char *cases[][2] = {{"report.json", "report.rank3.json"},
                            {"out/r.txt", "out/r.rank3.txt"},
                            {"dir.d/report", "dir.d/report.rank3"},
                            {".hidden", ".hidden.rank3"},
                            {"a.b.c", "a.b.rank3.c"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *p = ergo__rank_path(cases[i][0], 3);
    assert_non_null(p);
    assert_string_equal(p, cases[i][1]);
    free(p);
  }
}

/* A fake job of three ranks: ranks 0 and 1 send this process's pack, rank 2 a truncated one. */
static int fake_gather(const void *buf, size_t len, char **all, size_t **lens) {
  *all = malloc(3 * len);
  *lens = malloc(3 * sizeof **lens);
  memcpy(*all, buf, len);
  memcpy(*all + len, buf, len);
  memcpy(*all + 2 * len, buf, len);
  (*lens)[0] = (*lens)[1] = len;
  (*lens)[2] = len / 2;
  return 0;
}
static int fake_usable(void) { return 1; }

static const ergo__snap *child(const ergo__snap *s, const char *name) {
  for (size_t i = 0; i < s->nchildren; i++)
    if (strcmp(s->children[i].name, name) == 0) return &s->children[i];
  return NULL;
}

static void merge_over_fake_ranks(void **state) {
  (void)state;
  ergo_config c = test_config();
  assert_int_equal(ergo_init(&c), 0);
  for (int i = 0; i < 2; i++) {
    ERGO_PUSH(1, "A");
    advance_ms(30);
    ERGO_PUSH(2, "B");
    advance_ms(10);
    ERGO_POP(2, "B");
    ERGO_POP(1, "A");
  }
  ergo__ranks rk = {0, 3, 1, fake_usable, fake_gather, 0};
  ergo__ranks_set(&rk);
  assert_int_equal(ergo__merge_take(), 0); /* rank 2's pack is refused with one line */
  const ergo__snap *m = ergo__merged();
  assert_non_null(m);
  assert_int_equal(m->nranks, 3);
  const ergo__snap *a = child(m, "A"), *b = a ? child(a, "B") : NULL;
  assert_non_null(a);
  assert_non_null(b);
  /* Two ranks with 80 ms of A, one (refused) counted as absent: mean 160/3 ms. */
  assert_int_equal(a->ranks_ran, 2);
  assert_int_equal(a->calls, 4);
  assert_true(fabs(a->time_s - 0.160 / 3) < 1e-12);
  assert_true(fabs(a->r_max_s - 0.080) < 1e-12);
  assert_true(fabs(a->r_min_s) < 1e-12);
  assert_true(fabs(b->time_s - 0.040 / 3) < 1e-12);
  assert_true(fabs(b->min_s - 0.010) < 1e-12 && fabs(b->max_s - 0.010) < 1e-12);
  /* The text report is the merged one while it exists. */
  char *text = ergo_report_string();
  assert_non_null(text);
  assert_non_null(strstr(text, "MPI-Tasks: 3, nodes: 1;"));
  assert_non_null(strstr(text, "| on 2/3 ranks"));
  free(text);
  ergo__merged_free();
  ergo__ranks_set(NULL);
  assert_null(ergo__merged());
  ergo_finalize();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(election_bound_ranks),       cmocka_unit_test(election_unbound_ranks),
      cmocka_unit_test(election_uncovered_package), cmocka_unit_test(rank_paths),
      cmocka_unit_test(merge_over_fake_ranks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
