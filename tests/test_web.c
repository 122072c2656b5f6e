/* test_web.c - the embedded web assets: Chart.js is there whole, NUL-terminated, found by name,
 * and an unknown name is NULL rather than a wrong file. */
#include "test_util.h"
#include "web/assets.h"

#include <string.h>

static void test_chartjs_embedded_whole(void **state) {
  (void)state;
  const ergo__web_asset *a = ergo__web_asset_find("chart.min.js");
  assert_non_null(a);
  /* Debian's libjs-chart.js 3.x is about 200 KB; the banner names the library and licence. */
  assert_true(a->len > 100000);
  assert_non_null(strstr((const char *)a->data, "Chart.js"));
  assert_non_null(strstr((const char *)a->data, "MIT License"));
  assert_int_equal(a->data[a->len], 0);
  assert_int_equal(strlen((const char *)a->data), a->len);
  assert_string_equal(a->type, "text/javascript; charset=utf-8");
}

static void test_unknown_asset_is_null(void **state) {
  (void)state;
  assert_null(ergo__web_asset_find("../chart.min.js"));
  assert_null(ergo__web_asset_find("chart.min.j"));
  assert_null(ergo__web_asset_find(""));
  assert_null(ergo__web_asset_find(NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chartjs_embedded_whole),
      cmocka_unit_test(test_unknown_asset_is_null),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
