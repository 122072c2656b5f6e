/* compare.c - fuzzes the JSON report reader of `ergo compare` (tools/compare.c): the input as
 * one report, and as both of two, in each output form. */
#include "fuzz.h"

#include "tools/cli.h"

static void run(int argc, char **argv) {
  int saved = dup(1), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  fflush(stdout);
  dup2(null, 1);
  ergo_cli_compare.run(argc, argv);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *path = strdup(fuzz_file("report.json", data, size));
  if (!path) abort();
  char cmd[] = "compare", json[] = "--json", csv[] = "--csv", depth[] = "--depth=3";
  char *one[] = {cmd, path, NULL};
  char *two[] = {cmd, json, path, path, NULL};
  char *deep[] = {cmd, csv, depth, path, path, NULL};
  int saved = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  dup2(null, 2);
  run(2, one);
  run(4, two);
  run(5, deep);
  dup2(saved, 2);
  close(saved);
  close(null);
  free(path);
  return 0;
}
