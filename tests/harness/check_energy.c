/* check_energy.c - reads an ergo JSON report and checks, for every region with energy, that its
 * children's energy plus its own (Unaccounted) energy equals its energy within 1e-9 relative. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

static int checked, bad;

static void check(json_t *node, const char *qname) {
  json_t *q = json_object_get(node, qname), *kids = json_object_get(node, "children");
  size_t i;
  json_t *kid;
  if (json_is_object(q)) {
    double total = json_number_value(json_object_get(q, "total"));
    double sum = json_number_value(json_object_get(q, "self")), measured = 0;
    json_array_foreach(kids, i, kid) {
      json_t *kq = json_object_get(kid, qname);
      if (json_is_object(kq)) {
        sum += json_number_value(json_object_get(kq, "total"));
        measured++;
      }
    }
    if (measured) {
      checked++;
      double err = fabs(sum - total), tol = 1e-9 * fmax(fabs(total), 1e-300);
      if (err > tol) {
        bad++;
        printf("MISMATCH %s: children + unaccounted = %.17g J, region = %.17g J\n",
               json_string_value(json_object_get(node, "path")), sum, total);
      }
    }
  }
  json_array_foreach(kids, i, kid) check(kid, qname);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s REPORT.json\n", argv[0]);
    return 2;
  }
  json_error_t err;
  json_t *doc = json_load_file(argv[1], 0, &err);
  if (!doc) {
    fprintf(stderr, "%s:%d:%d: %s\n", argv[1], err.line, err.column, err.text);
    return 2;
  }
  json_t *tree = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  check(tree, "energy");
  json_decref(doc);
  printf("%d regions with measured children checked, %d mismatches\n", checked, bad);
  return bad || !checked ? 1 : 0;
}
