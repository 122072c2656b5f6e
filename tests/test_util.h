/* test_util.h - shared helpers for the cmocka tests: a manual clock, quick setup and a temp dir. */
#ifndef ERGO_TEST_UTIL_H
#define ERGO_TEST_UTIL_H

#include <ergo.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h> /* after the three above, which it needs */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>

/* Skip the running test and say why: cmocka's skip() takes no reason, and a test that cannot run
 * here must never look like a pass.  The line starts with "SKIPPED:" like every other skip in
 * these tests (whole programs that cannot run print it and exit 77). */
#define skip_because(...)                                                                          \
  do {                                                                                             \
    print_message("SKIPPED: " __VA_ARGS__);                                                        \
    print_message("\n");                                                                           \
    skip();                                                                                        \
  } while (0)

/* The manual clock: tests advance it explicitly, so every figure is exact. */
static uint64_t test_now_ns;
static uint64_t test_clock(void *ctx) {
  (void)ctx;
  return test_now_ns;
}
static inline void advance_ms(uint64_t ms) { test_now_ns += ms * 1000000ull; }

/* Start ergo on the manual clock with no report written at finalize. */
static inline ergo_config test_config(void) {
  ergo_config c;
  ergo_config_default(&c);
  c.clock = test_clock;
  c.report = "none";
  c.step_report = "none";
  c.balance = "none";
  c.energy = "none"; /* core tests must not depend on this machine's meters */
  c.knobs = "none";  /* ... nor change its knobs */
  return c;
}

static inline void test_init(const ergo_config *c) {
  test_now_ns = 1000000000ull;
  assert_int_equal(ergo_init(c), 0);
}

static inline void test_init_default(void) {
  ergo_config c = test_config();
  test_init(&c);
}

/* A region that lasts exactly `ms` on the manual clock. */
static inline void region_ms(int level, const char *name, uint64_t ms) {
  ergo_push_at(level, name, __FILE__, __LINE__);
  advance_ms(ms);
  ergo_pop_at(level, name, __FILE__, __LINE__);
}

static inline char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf) buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Every test ends with ergo finalized, even when an assertion failed. */
static inline int test_teardown(void **state) {
  (void)state;
  ergo_finalize();
  return 0;
}
#define ERGO_TEST(f) cmocka_unit_test_teardown(f, test_teardown)

/* A fresh temporary directory per test: test_dir names it, test_in_dir(name)
 * gives the path of a file in it (in a buffer the next call reuses). */
static char test_dir[64];
static char test_dir_file[512];

static inline const char *test_in_dir(const char *name) {
  snprintf(test_dir_file, sizeof test_dir_file, "%s/%s", test_dir, name);
  return test_dir_file;
}

static inline int test_dir_setup(void **state) {
  (void)state;
  snprintf(test_dir, sizeof test_dir, "/tmp/ergo-test-XXXXXX");
  return mkdtemp(test_dir) ? 0 : -1;
}

/* Finalizes ergo, then leaves nothing behind: the files the test wrote, then the directory. */
static inline int test_dir_teardown(void **state) {
  (void)state;
  ergo_finalize();
  DIR *d = opendir(test_dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(test_in_dir(e->d_name));
    closedir(d);
  }
  return rmdir(test_dir);
}

/* How many files the directory holds. */
static inline int test_dir_entries(void) {
  int n = 0;
  DIR *d = opendir(test_dir);
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}
#define ERGO_DIR_TEST(f) cmocka_unit_test_setup_teardown(f, test_dir_setup, test_dir_teardown)

#endif
