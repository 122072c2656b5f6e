/* steady_region.c - ergo-steady-region SECONDS WATTS REPORT.json: one region, "steady", that
 * sleeps SECONDS on a fake RAPL machine drawing a constant WATTS on package-0, with ergo's
 * settings from the environment; after ergo_finalize it reads the region's package-0 energy
 * back from the JSON report and compares it with WATTS x the region's time.  Prints the figures,
 * the relative error and the report's lower_bound; exits 1 when that error is 0.1 % or more.
 * With a fourth argument "lower-bound-ok", a reading the report marks as a lower bound that does
 * not exceed the truth also passes: a machine loaded enough to hold the sampler back past a
 * wrap must say so, which is all ergo can do then. */
#include <ergo.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "lower-bound-ok"))) {
    fprintf(stderr, "usage: ergo-steady-region SECONDS WATTS REPORT.json [lower-bound-ok]\n");
    return 2;
  }
  double secs = atof(argv[1]), watts = atof(argv[2]);
  if (ergo_init(NULL) != 0) return 2;
  ERGO_PUSH(1, "steady");
  struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
  while (nanosleep(&ts, &ts) != 0) {
  }
  ERGO_POP(1, "steady");
  if (ergo_finalize() != 0) return 2;

  json_error_t err;
  json_t *doc = json_load_file(argv[3], 0, &err);
  if (!doc) {
    fprintf(stderr, "%s:%d:%d: %s\n", argv[3], err.line, err.column, err.text);
    return 2;
  }
  json_t *tree = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  json_t *kid = json_array_get(json_object_get(tree, "children"), 0);
  json_t *e = json_object_get(kid, "energy");
  json_t *pkg = json_object_get(json_object_get(e, "components"), "package-0");
  if (!json_is_number(pkg)) {
    fprintf(stderr, "no package-0 energy for the region in %s\n", argv[3]);
    return 1;
  }
  double t = json_number_value(json_object_get(kid, "time_s")), j = json_number_value(pkg);
  double rel = fabs(j - watts * t) / (watts * t);
  int lower = json_is_true(json_object_get(e, "lower_bound"));
  printf("steady: %.6f s at %.3f W: expected %.6f J, measured %.6f J, error %.4f %%, "
         "lower_bound %s\n",
         t, watts, watts * t, j, 100 * rel, lower ? "true" : "false");
  json_decref(doc);
  if (rel < 1e-3) return 0;
  return argc == 5 && lower && j <= watts * t * (1 + 1e-3) ? 0 : 1;
}
