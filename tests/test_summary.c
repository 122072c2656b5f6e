/* test_summary.c - the end-of-run tuning summary (policies/summary.c): per region the setting
 * chosen, the energy saved and the time change its measurements promise against the baseline,
 * and where the model went. */
#include "test_util.h"

#include "knobs/table.h"
#include "policies/summary.h"

/* A model of two regions: A measured at its baseline and at its choice, B with no points. */
static void two_regions(ergo__model *m) {
  memset(m, 0, sizeof *m);
  snprintf(m->policy, sizeof m->policy, "sweep");
  snprintf(m->objective, sizeof m->objective, "energy@5%%");
  ergo__model_region *a = ergo__model_region_add(m, "Global/A");
  assert_non_null(a);
  ergo__config base = {{2000000, 2400000, 20}}, best = {{1600000, 1200000, 20}};
  a->best = best;
  a->baseline = (ergo__measure){0.200, 40.0, 1};
  assert_int_equal(ergo__model_point_add(a, &base, 0.200, 40.0, 3), 0);
  assert_int_equal(ergo__model_point_add(a, &best, 0.204, 34.0, 3), 0);
  ergo__model_region *b = ergo__model_region_add(m, "Global/A/Longer_name");
  assert_non_null(b);
  b->best = (ergo__config){{1000000, 0, 0}};
}

static void test_table(void **state) {
  (void)state;
  ergo__model m;
  two_regions(&m);
  char *t = ergo__summary_text(&m, NULL, "tuning model written to m.json");
  assert_non_null(t);
  char want[2048];
  snprintf(want, sizeof want,
           "tuning summary (sweep, energy@5%%): 2 regions, expected per execution against the "
           "untuned baseline:\n"
           "  region                setting                                energy saved      time\n"
           "  Global/A              %s=1600000,%s=1200000,%s=20         15.0%%     +2.0%%\n"
           "  Global/A/Longer_name  %s=1000000                                       -         -\n"
           "tuning model written to m.json\n",
           ergo__knob_table[0].key, ergo__knob_table[1].key, ergo__knob_table[2].key,
           ergo__knob_table[0].key);
  assert_string_equal(t, want);
  free(t);
  ergo__model_free(&m);
}

/* only[] leaves regions out (static: those it applied); the count follows. */
static void test_only(void **state) {
  (void)state;
  ergo__model m;
  two_regions(&m);
  int only[2] = {0, 1};
  char *t = ergo__summary_text(&m, only, NULL);
  assert_non_null(t);
  assert_non_null(strstr(t, "): 1 region, expected"));
  assert_null(strstr(t, "Global/A "));
  assert_non_null(strstr(t, "Global/A/Longer_name"));
  free(t);
  ergo__model_free(&m);
}

/* No region: the tail alone; no tail either: nothing. */
static void test_empty(void **state) {
  (void)state;
  ergo__model m;
  memset(&m, 0, sizeof m);
  char *t = ergo__summary_text(&m, NULL, "tuning model written to e.json (no regions)");
  assert_string_equal(t, "tuning model written to e.json (no regions)\n");
  free(t);
  t = ergo__summary_text(&m, NULL, NULL);
  assert_string_equal(t, "");
  free(t);
}

/* A setting that sets no knob inherits; a slower, costlier choice shows as negative saving. */
static void test_inherited_and_worse(void **state) {
  (void)state;
  ergo__model m;
  memset(&m, 0, sizeof m);
  ergo__model_region *r = ergo__model_region_add(&m, "Global/X");
  assert_non_null(r);
  r->baseline = (ergo__measure){1.0, 100.0, 1};
  assert_int_equal(ergo__model_point_add(r, &r->best, 0.9, 110.0, 1), 0);
  char *t = ergo__summary_text(&m, NULL, NULL);
  assert_non_null(strstr(t, "  Global/X  inherited        -10.0%    -10.0%\n"));
  assert_non_null(strstr(t, "(?, ?)"));
  free(t);
  ergo__model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table),
      cmocka_unit_test(test_only),
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_inherited_and_worse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
