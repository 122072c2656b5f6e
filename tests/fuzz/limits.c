/* limits.c - every input ergo parses is refused beyond its limit with one line naming the input,
 * its size and the limit (util/limit.h; state files: knobs/state_restore_dead.c).  The oversized
 * inputs are sparse files: a size, no data on disk. */
#include "fuzz.h"

#include "internal.h"
#include "knobs/state.h"
#include "policies/model.h"
#include "sim/model.h"
#include "tools/cli.h"
#include "util/limit.h"

#include <ergo.h>
#include <limits.h>
#include <sys/stat.h>

static int refused, failed;

/* A sparse file of `size` bytes at <fuzz_dir>/name. */
static const char *sparse(const char *name, off_t size) {
  const char *path = fuzz_file(name, (const uint8_t *)"{", 1);
  if (truncate(path, size) != 0) {
    printf("SKIPPED: cannot make a sparse file of %lld bytes: %s\n", (long long)size, path);
    exit(77);
  }
  return path;
}

/* The line must name the input, its size and the limit. */
static void expect(const char *what, int rejected, const char *line, const char *name,
                   const char *size, const char *limit) {
  int ok = rejected && strstr(line, name) && strstr(line, size) && strstr(line, limit);
  printf("%s: %s: %s\n", what, ok ? "refused" : "FAIL", line);
  if (ok)
    refused++;
  else
    failed++;
}

/* Run fn with stderr (or the FILE given to it) going to a file; its text into out. */
static void captured(void (*fn)(FILE *), char *out, size_t len) {
  char path[128];
  snprintf(path, sizeof path, "%s/captured", fuzz_dir());
  FILE *f = fopen(path, "w+");
  if (!f) abort();
  fflush(stderr);
  int saved = dup(2);
  dup2(fileno(f), 2);
  fn(f);
  fflush(f);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(f);
  size_t n = fread(out, 1, len - 1, f);
  out[n] = '\0';
  fclose(f);
}

#define BIG ((off_t)ERGO_INPUT_MAX + 1)
#define BIG_TEXT "268435457 bytes"
#define LIMIT_TEXT "268435456 (256 MB)"

static const char *ck_path;
static int ck_rc;
static void checkpoint(FILE *f) {
  (void)f;
  ergo_config c;
  ergo_config_default(&c);
  c.report = c.step_report = c.balance = c.energy = c.knobs = "none";
  if (ergo_init(&c) != 0) abort();
  ck_rc = ergo_checkpoint_load(ck_path);
  ergo_finalize();
}

static const char *cmp_path;
static int cmp_rc;
static void compare(FILE *f) {
  (void)f;
  char cmd[] = "compare", *argv[] = {cmd, (char *)cmp_path, NULL};
  cmp_rc = ergo_cli_compare.run(2, argv);
}

static void state(FILE *f) { ergo__state_restore_dead(INT_MAX - 1, 1, f, f); }

int main(void) {
  char why[1024] = "", out[4096];

  ergo__model m;
  int rc = ergo__model_load(sparse("model.json", BIG), &m, why, sizeof why);
  expect("model", rc == ERGO_EFORMAT, why, "model.json", BIG_TEXT, LIMIT_TEXT);

  ergo__sim_params p;
  ergo__sim_params_default(&p);
  rc = ergo__sim_params_load(&p, sparse("node.json", BIG), why, sizeof why);
  expect("sim node", rc == ERGO_EFORMAT, why, "node.json", BIG_TEXT, LIMIT_TEXT);

  ck_path = sparse("checkpoint.json", BIG);
  captured(checkpoint, out, sizeof out);
  expect("checkpoint", ck_rc == ERGO_EFORMAT, out, "checkpoint.json", BIG_TEXT, LIMIT_TEXT);

  cmp_path = sparse("report.json", BIG);
  captured(compare, out, sizeof out);
  expect("compare", cmp_rc == ERGO_CLI_FAIL, out, "report.json", BIG_TEXT, LIMIT_TEXT);

  /* A merge pack is bytes in memory: the length is refused before a byte is read. */
  static const char pack[] = "ERGM";
  rc = ergo__merge_unpack_check(pack, (size_t)BIG);
  ergo__input_len_check((unsigned long long)BIG, why, sizeof why);
  expect("merge pack", rc == -1, why, "", BIG_TEXT, LIMIT_TEXT);

  char dir[160];
  snprintf(dir, sizeof dir, "%s/state", fuzz_dir());
  mkdir(dir, 0700);
  setenv("ERGO_STATE_DIR", dir, 1);
  char name[64];
  snprintf(name, sizeof name, "state/%d.json", INT_MAX - 1);
  sparse(name, (16 << 20) + 1);
  captured(state, out, sizeof out);
  expect("state file", 1, out, ".json", "16777217 bytes", "16777216");

  printf("limits: %d refused, %d failed\n", refused, failed);
  return failed ? 1 : 0;
}
