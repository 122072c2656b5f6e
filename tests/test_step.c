/* test_step.c - ergo_step: per-step reports and balance lines with the appendix-A header. */
#include "test_util.h"

#include "internal.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char steps_path[128], bal_path[128];

/* The step report and balance files, in the test's directory (see ERGO_DIR_TEST). */
static void setup_files(ergo_config *c) {
  snprintf(steps_path, sizeof steps_path, "%s/steps.txt", test_dir);
  snprintf(bal_path, sizeof bal_path, "%s/balance.txt", test_dir);
  c->step_report = steps_path;
  c->balance = bal_path;
}

static void one_step(uint64_t a_ms, uint64_t b_ms, uint64_t self_ms) {
  ERGO_PUSH(0, "Timestep");
  ERGO_PUSH(1, "FIND_HSML");
  region_ms(2, "Primary", a_ms);
  region_ms(2, "Secondary", b_ms);
  ERGO_POP(1, "FIND_HSML");
  advance_ms(self_ms);
  ERGO_POP(0, "Timestep");
}

/* Step reports show only that step's time; balance lines split 100 symbols. */
static void test_step_report_and_balance(void **state) {
  (void)state;
  ergo_config c = test_config();
  setup_files(&c);
  test_init(&c);
  one_step(300, 600, 100);
  assert_int_equal(ergo_step_info(1, "Time: a=0.5"), 0);
  one_step(500, 250, 250);
  assert_int_equal(ergo_step(2), 0);
  ergo_finalize();

  char *steps = slurp(steps_path);
  assert_string_equal(steps, "Step 1 Time: a=0.5\n"
                             "Total wall clock time for Global = 1 sec\n"
                             "* Timestep                       : 1.0000 sec, 100.00%\n"
                             "- * FIND_HSML                    : 0.9000 sec,  90.00%\n"
                             "- - * Secondary                  : 0.6000 sec,  66.67%\n"
                             "- - * Primary                    : 0.3000 sec,  33.33%\n"
                             "- * Unaccounted                  : 0.1000 sec,  10.00%\n"
                             "Step 2\n"
                             "Total wall clock time for Global = 1 sec\n"
                             "* Timestep                       : 1.0000 sec, 100.00%\n"
                             "- * FIND_HSML                    : 0.7500 sec,  75.00%\n"
                             "- - * Primary                    : 0.5000 sec,  66.67%\n"
                             "- - * Secondary                  : 0.2500 sec,  33.33%\n"
                             "- * Unaccounted                  : 0.2500 sec,  25.00%\n");
  free(steps);
  char *bal = slurp(bal_path);
  char want[2048];
  char l1[101], l2[101];
  memset(l1, 'A', 30), memset(l1 + 30, 'B', 60), memset(l1 + 90, '?', 10), l1[100] = 0;
  memset(l2, 'A', 50), memset(l2 + 50, 'B', 25), memset(l2 + 75, '?', 25), l2[100] = 0;
  snprintf(want, sizeof want,
           "Headers for balance file:\n"
           "'A' - Timestep:FIND_HSML:Primary\n"
           "'B' - Timestep:FIND_HSML:Secondary\n"
           "'?' - Unaccounted\n"
           "  Step=    1 sec=   1.00000     %s\n"
           "  Step=    2 sec=   1.00000     %s\n",
           l1, l2);
  assert_string_equal(bal, want);
  free(bal);
}

/* Wide step reports: a region called once in the step shows that call as min and max; one called
 * more often shows '-' (ergo keeps extremes over the run, not per step), never a made-up 0. */
static void test_wide_step_extremes(void **state) {
  (void)state;
  ergo_config c = test_config();
  setup_files(&c);
  c.format = ERGO_FORMAT_WIDE;
  test_init(&c);
  region_ms(1, "Once", 300);
  region_ms(1, "Twice", 100);
  region_ms(1, "Twice", 200);
  assert_int_equal(ergo_step(1), 0);
  ergo_finalize();
  char *steps = slurp(steps_path);
  assert_non_null(
      strstr(steps, "calls          1 | mean 0.300000 | min 0.300000 | max 0.300000 sec"));
  assert_non_null(strstr(steps, "calls          2 | mean 0.150000 | min - | max - sec"));
  assert_null(strstr(steps, "0.000000"));
  free(steps);
}

/* Balance level 1 folds FIND_HSML's children into its own symbol; a new
 * region in a later step adds a header line before that step's line. */
static void test_balance_level_and_new_region(void **state) {
  (void)state;
  ergo_config c = test_config();
  c.balance_level = 1;
  setup_files(&c);
  c.step_report = "none";
  test_init(&c);
  one_step(300, 600, 100);
  ergo_step(1);
  ERGO_PUSH(0, "Timestep");
  region_ms(1, "DRIFT", 1);
  advance_ms(2);
  ERGO_POP(0, "Timestep");
  ergo_step(2);
  ergo_finalize();
  char *bal = slurp(bal_path);
  char l1[101], l2[101];
  memset(l1, 'A', 90), memset(l1 + 90, '?', 10), l1[100] = 0;
  /* 1/3 and 2/3 of 100: largest remainder gives the extra symbol to '?'. */
  memset(l2, 'B', 33), memset(l2 + 33, '?', 67), l2[100] = 0;
  char want[2048];
  snprintf(want, sizeof want,
           "Headers for balance file:\n"
           "'A' - Timestep:FIND_HSML\n"
           "'?' - Unaccounted\n"
           "  Step=    1 sec=   1.00000     %s\n"
           "Headers for balance file (added at step 2):\n"
           "'B' - Timestep:DRIFT\n"
           "  Step=    2 sec=   0.00300     %s\n",
           l1, l2);
  assert_string_equal(bal, want);
  free(bal);
}

/* A region open across ergo_step is split exactly between the two steps. */
static void test_open_region_across_steps(void **state) {
  (void)state;
  ergo_config c = test_config();
  setup_files(&c);
  c.balance = "none";
  test_init(&c);
  ERGO_PUSH(1, "long");
  advance_ms(30);
  ergo_step(1);
  advance_ms(70);
  ERGO_POP(1, "long");
  ergo_step(2);
  ergo_finalize();
  char *steps = slurp(steps_path);
  assert_string_equal(steps, "Step 1\n"
                             "Total wall clock time for Global = 0.03 sec\n"
                             "* long                           : 0.0300 sec, 100.00%\n"
                             "Step 2\n"
                             "Total wall clock time for Global = 0.07 sec\n"
                             "* long                           : 0.0700 sec, 100.00%\n");
  free(steps);
}

/* A fresh run starts the step files anew; an unwritable path is one warning, not a crash. */
static void test_fresh_run_truncates_and_bad_path(void **state) {
  (void)state;
  ergo_config c = test_config();
  setup_files(&c);
  c.balance = "none";
  FILE *f = fopen(steps_path, "w");
  fputs("old run\n", f);
  fclose(f);
  test_init(&c);
  region_ms(1, "x", 10);
  ergo_step(1);
  ergo_finalize();
  char *steps = slurp(steps_path);
  assert_string_equal(steps, "Step 1\n"
                             "Total wall clock time for Global = 0.01 sec\n"
                             "* x                              : 0.0100 sec, 100.00%\n");
  free(steps);
  c.step_report = "/nonexistent-dir/steps.txt";
  test_init(&c);
  region_ms(1, "x", 10);
  assert_int_equal(ergo_step(1), ERGO_EIO);
  assert_non_null(strstr(ergo_last_error(), "ergo_step: cannot open '/nonexistent-dir/steps.txt'"));
  ergo_finalize();
}

/* The step files' default names are relative: in a directory others can write, a link planted
 * there must not make a root run overwrite its target.  Refused in one line each, the target
 * unchanged, and the step still counted in the run's totals. */
static void test_links_never_followed(void **state) {
  (void)state;
  ergo_config c = test_config();
  setup_files(&c);
  char victim[160], victim2[160], want[600];
  snprintf(victim, sizeof victim, "%s/shadow", test_dir);
  snprintf(victim2, sizeof victim2, "%s/passwd", test_dir);
  for (const char *v = victim; v; v = v == victim ? victim2 : NULL) {
    FILE *f = fopen(v, "w");
    fputs("precious\n", f);
    fclose(f);
  }
  assert_int_equal(symlink(victim, steps_path), 0);
  assert_int_equal(link(victim2, bal_path), 0); /* a hard link: O_NOFOLLOW alone misses it */
  test_init(&c);
  region_ms(1, "x", 10);
  unsigned long errors = ergo_error_count();
  assert_int_equal(ergo_step(1), ERGO_EIO);
  assert_int_equal(ergo_error_count(), errors + 2);
  snprintf(want, sizeof want,
           "ergo_step: cannot open '%s': it has 2 hard links: another name may be a file ergo "
           "must not change; this step's figures stay in the run's totals (fix: remove it, make "
           "the directory writable or set another path)",
           bal_path);
  assert_string_equal(ergo_last_error(), want);
  ergo_finalize();
  char *text = slurp(victim);
  assert_string_equal(text, "precious\n");
  free(text);
  text = slurp(victim2);
  assert_string_equal(text, "precious\n");
  free(text);
  struct stat st;
  assert_int_equal(lstat(steps_path, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
}

static void test_step_before_init(void **state) {
  (void)state;
  assert_int_equal(ergo_step(1), ERGO_ESTATE);
}

/* A fresh run whose first step cannot be written (here: a file-size limit, as a full disk
 * would) keeps the previous run's step and balance files whole; once writing works again the
 * next step starts them anew, balance headers included. */
static void test_failed_first_step_keeps_previous(void **state) {
  (void)state;
  ergo_config c = test_config();
  setup_files(&c);
  for (const char *p = steps_path; p; p = p == steps_path ? bal_path : NULL) {
    FILE *f = fopen(p, "w");
    fputs("the previous run\n", f);
    fclose(f);
  }
  struct rlimit was, tiny;
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
  tiny = was;
  tiny.rlim_cur = 16; /* bytes: no step report fits */
  void (*xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
  test_init(&c);
  one_step(10, 20, 5);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &tiny), 0);
  int rc = ergo_step(1);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
  signal(SIGXFSZ, xfsz);
  assert_int_equal(rc, ERGO_EIO);
  assert_non_null(strstr(ergo_last_error(), "the previous file is kept"));
  for (const char *p = steps_path; p; p = p == steps_path ? bal_path : NULL) {
    char *text = slurp(p);
    assert_string_equal(text, "the previous run\n");
    free(text);
  }
  one_step(10, 20, 5);
  assert_int_equal(ergo_step(2), 0);
  ergo_finalize();
  char *text = slurp(steps_path);
  assert_true(strncmp(text, "Step 2\nTotal wall clock time for Global", 39) == 0);
  assert_null(strstr(text, "previous run"));
  free(text);
  text = slurp(bal_path);
  assert_true(strncmp(text, "Headers for balance file:", 25) == 0);
  assert_null(strstr(text, "previous run"));
  free(text);
  /* Nothing but the two files is left in the directory (no temporary file). */
  DIR *d = opendir(test_dir);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  assert_int_equal(n, 2);
}

/* Step numbers are expected to count up (from 0 or 1, gaps allowed).  A repeated, decreasing or
 * negative one is one warning per kind and run, naming the number, the previous one and the fix;
 * the step is written all the same, under the number it was given. */
static void test_step_numbers_warned(void **state) {
  (void)state;
  ergo_config c = test_config();
  setup_files(&c);
  c.balance = "none";
  test_init(&c);
  long steps[] = {0, 1, 5, 5, 3, -1, 0, 6, 6, 2, -4};
  unsigned long warned[] = {0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3};
  const char *said[] = {NULL,
                        NULL,
                        NULL,
                        "ergo_step(5): step number 5 repeats the previous step's (5); the step is "
                        "written as a second step 5, its figures kept (fix: pass each step its own "
                        "number, counting up; said once per run)",
                        "ergo_step(3): step number 3 is below the previous step's (5); the step is "
                        "written under that number, its figures kept (fix: pass step numbers that "
                        "count up; said once per run)",
                        "ergo_step(-1): step number -1 is negative (previous step: 3); the step is "
                        "written under that number, its figures kept (fix: number steps from 0 or "
                        "1 upwards; said once per run)"};
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    region_ms(1, "x", 10);
    assert_int_equal(ergo_step(steps[i]), 0);
    assert_int_equal(ergo_warning_count(), warned[i]);
    if (i < sizeof said / sizeof said[0] && said[i])
      assert_string_equal(ergo_last_error(), said[i]);
  }
  assert_int_equal(ergo_error_count(), 0);
  ergo_finalize();
  /* Every step written, each under its own number, with its 10 ms. */
  char *text = slurp(steps_path), *p = text;
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    char want[160];
    snprintf(want, sizeof want,
             "Step %ld\nTotal wall clock time for Global = 0.01 sec\n"
             "* x                              : 0.0100 sec, 100.00%%\n",
             steps[i]);
    assert_memory_equal(p, want, strlen(want));
    p += strlen(want);
  }
  assert_string_equal(p, "");
  free(text);
  /* A negative first step has no previous one; each run warns anew. */
  test_init(&c);
  assert_int_equal(ergo_step(-2), 0);
  assert_int_equal(ergo_warning_count(), 1);
  assert_non_null(strstr(ergo_last_error(), "step number -2 is negative (previous step: none)"));
  ergo_finalize();
}

/* The balance header joins names with ':' as the paper does; a ':' or '\\' inside a name gets a
 * backslash (as '/' does in JSON paths), so region "a:b" and region b under a stay two paths. */
static void test_balance_separator_in_name(void **state) {
  (void)state;
  ergo_config c = test_config();
  setup_files(&c);
  c.step_report = "none";
  test_init(&c);
  ERGO_PUSH(1, "T");
  region_ms(2, "a:b", 10);
  ERGO_PUSH(2, "a");
  region_ms(3, "b", 20);
  ERGO_POP(2, "a");
  region_ms(2, "c\\d", 30);
  advance_ms(40);
  ERGO_POP(1, "T");
  assert_int_equal(ergo_step(1), 0);
  ergo_finalize();
  char *bal = slurp(bal_path);
  char line[101], want[512];
  memset(line, 'A', 20), memset(line + 20, 'B', 10), memset(line + 30, 'C', 30);
  memset(line + 60, '?', 40), line[100] = 0;
  snprintf(want, sizeof want,
           "Headers for balance file:\n"
           "'A' - T:a:b\n"
           "'B' - T:a\\:b\n"
           "'C' - T:c\\\\d\n"
           "'?' - Unaccounted\n"
           "  Step=    1 sec=   0.10000     %s\n",
           line);
  assert_string_equal(bal, want);
  free(bal);
}

/* A step of no time (a virtual or manual clock) has no shares: no symbols, where it used to show
 * 100 '?' (all Unaccounted, which it was not); the steps around it are as ever. */
static void test_balance_zero_time_step(void **state) {
  (void)state;
  ergo_config c = test_config();
  setup_files(&c);
  c.step_report = "none";
  test_init(&c);
  region_ms(1, "x", 10);
  assert_int_equal(ergo_step(1), 0);
  region_ms(1, "x", 0);
  assert_int_equal(ergo_step(2), 0);
  region_ms(1, "x", 5);
  advance_ms(5);
  assert_int_equal(ergo_step(3), 0);
  ergo_finalize();
  char *bal = slurp(bal_path);
  char l1[101], l3[101], want[512];
  memset(l1, 'A', 100), l1[100] = 0;
  memset(l3, 'A', 50), memset(l3 + 50, '?', 50), l3[100] = 0;
  snprintf(want, sizeof want,
           "Headers for balance file:\n"
           "'A' - x\n"
           "'?' - Unaccounted\n"
           "  Step=    1 sec=   0.01000     %s\n"
           "  Step=    2 sec=   0.00000\n"
           "  Step=    3 sec=   0.01000     %s\n",
           l1, l3);
  assert_string_equal(bal, want);
  free(bal);
}

/* 1e4 regions in every step: symbols are given once, in path order (past the alphabet they
 * share '~'), and the same figures give the same line at every step. */
static void many_step(int with_new) {
  char name[16];
  ERGO_PUSH(1, "T");
  if (with_new) region_ms(2, "a_new", 0);
  for (int k = 9999; k >= 0; k--) { /* not in path order */
    snprintf(name, sizeof name, "r%05d", k);
    region_ms(2, name, k < 50 ? 2 : 0);
  }
  ERGO_POP(1, "T");
}

static void test_balance_many_regions(void **state) {
  (void)state;
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                                 "!#$%&()*+,-./:;<=>@[]^_{|}~";
  ergo_config c = test_config();
  setup_files(&c);
  c.step_report = "none";
  test_init(&c);
  for (int s = 1; s <= 3; s++) {
    many_step(s == 3);
    assert_int_equal(ergo_step(s), 0);
  }
  assert_int_equal(ergo_finalize(), 0);
  char *bal = slurp(bal_path);
  assert_non_null(bal);
  size_t cap = 10000 * 24 + 4096, o = 0, n = sizeof alphabet - 1;
  char *want = malloc(cap), line[101];
  assert_non_null(want);
  for (int k = 0; k < 50; k++) line[2 * k] = line[2 * k + 1] = alphabet[k];
  line[100] = 0;
  o += (size_t)snprintf(want + o, cap - o, "Headers for balance file:\n");
  for (size_t k = 0; k < 10000; k++)
    o += (size_t)snprintf(want + o, cap - o, "'%c' - T:r%05zu\n", alphabet[k < n ? k : n - 1], k);
  o += (size_t)snprintf(want + o, cap - o, "'?' - Unaccounted\n");
  for (int s = 1; s <= 3; s++) {
    if (s == 3)
      o += (size_t)snprintf(want + o, cap - o,
                            "Headers for balance file (added at step 3):\n'~' - T:a_new\n");
    o += (size_t)snprintf(want + o, cap - o, "  Step=%5d sec=   0.10000     %s\n", s, line);
  }
  assert_string_equal(bal, want);
  free(want);
  free(bal);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      ERGO_DIR_TEST(test_step_report_and_balance),
      ERGO_DIR_TEST(test_wide_step_extremes),
      ERGO_DIR_TEST(test_balance_level_and_new_region),
      ERGO_DIR_TEST(test_open_region_across_steps),
      ERGO_DIR_TEST(test_fresh_run_truncates_and_bad_path),
      ERGO_DIR_TEST(test_links_never_followed),
      ERGO_DIR_TEST(test_failed_first_step_keeps_previous),
      ERGO_TEST(test_step_before_init),
      ERGO_DIR_TEST(test_balance_many_regions),
      ERGO_DIR_TEST(test_step_numbers_warned),
      ERGO_DIR_TEST(test_balance_separator_in_name),
      ERGO_DIR_TEST(test_balance_zero_time_step),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
