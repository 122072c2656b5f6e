/* config.c - fuzzes every ERGO_* variable's parser (runtime/config_spec.c's rows: ERGO_FIXED,
 * ERGO_KNOBS, ERGO_SWEEP, ERGO_OBJECTIVE, numbers, choices, paths) and the unknown-variable check.
 * The input's first byte picks the row, the rest is the value. */
#include "fuzz.h"

#include "runtime/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const ergo__config_row *r = &ergo__config_spec[data[0] % ergo__config_nspec];
  char *v = fuzz_string(data + 1, size - 1);
  if (r->parse) {
    ergo_config cfg;
    ergo_config_default(&cfg);
    char why[1024] = "", shown[256];
    void *field = (char *)&cfg + r->offset;
    if (r->parse(r, v, field, why, sizeof why) == 0) {
      if (r->check) r->check(r, field, why, sizeof why);
      if (r->show) r->show(r, field, 0, shown, sizeof shown);
    }
  }
  /* The value as a variable's name: "ERGO_<value>=x" goes through the nearest-name search. */
  size_t len = strlen(v);
  char *var = malloc(len + 8);
  if (!var) abort();
  snprintf(var, len + 8, "ERGO_%s=x", v);
  char *env[] = {var, NULL};
  int saved = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  dup2(null, 2); /* one warning per input would flood the fuzzer's output */
  ergo__config_unknown_vars(env);
  dup2(saved, 2);
  close(saved);
  close(null);
  free(var);
  free(v);
  return 0;
}
