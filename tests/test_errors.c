/* test_errors.c - every region error: its one line, and how the stack recovers after a warn; errors
 * and warnings counted apart, and only errors abort under ERGO_ON_ERROR=abort. */
#include "test_util.h"

#include "internal.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static ergo__node *child(ergo__node *n, const char *name) { return ergo__node_find(n, name, 0); }
static ergo__node *root(void) { return &ergo__g.main_tree->root; }
static int depth(void) { return ergo__g.main_tree->depth; }

/* Pops name a fixed line so the expected messages are exact. */
#define POP_AT(level, name, line) ergo_pop_at((level), (name), "app.c", (line))
#define PUSH_AT(level, name, line) ergo_push_at((level), (name), "app.c", (line))

static void test_underflow(void **state) {
  (void)state;
  test_init_default();
  POP_AT(1, "A", 12);
  assert_int_equal(ergo_error_count(), 1);
  assert_string_equal(ergo_last_error(),
                      "app.c:12: ERGO_POP(1, \"A\"): stack underflow: no region is open; pop "
                      "ignored (fix: remove this pop or add the matching ERGO_PUSH)");
  assert_int_equal(depth(), 0);
  /* The stack still works afterwards. */
  region_ms(1, "A", 3);
  assert_int_equal(child(root(), "A")->total, 3000000);
  ergo_finalize();
}

static void test_label_mismatch_not_open(void **state) {
  (void)state;
  test_init_default();
  PUSH_AT(2, "A", 10);
  advance_ms(5);
  POP_AT(2, "B", 20);
  assert_string_equal(ergo_last_error(),
                      "app.c:20: ERGO_POP(2, \"B\"): label mismatch: expected \"A\" (pushed at "
                      "app.c:10, level 2), found \"B\", which is not open; pop ignored (fix: "
                      "make the pop name its push)");
  /* Recovery: the pop is ignored, A stays open and closes at its own pop. */
  assert_int_equal(depth(), 1);
  advance_ms(5);
  POP_AT(2, "A", 30);
  assert_int_equal(depth(), 0);
  assert_int_equal(child(root(), "A")->total, 10000000);
  assert_null(child(root(), "B"));
  assert_int_equal(ergo_error_count(), 1);
  ergo_finalize();
}

static void test_label_mismatch_open_further_out(void **state) {
  (void)state;
  test_init_default();
  PUSH_AT(1, "outer", 10);
  PUSH_AT(2, "inner", 11);
  PUSH_AT(3, "innermost", 12);
  advance_ms(4);
  POP_AT(1, "outer", 20); /* forgot two pops */
  assert_string_equal(ergo_last_error(),
                      "app.c:20: ERGO_POP(1, \"outer\"): label mismatch: expected \"innermost\" "
                      "(pushed at app.c:12, level 3), found \"outer\", open 2 level(s) further "
                      "out; closing the 2 region(s) above it too (fix: pop \"innermost\" before "
                      "\"outer\")");
  /* Recovery: every region up to and including "outer" is closed at this instant. */
  assert_int_equal(depth(), 0);
  ergo__node *o = child(root(), "outer");
  assert_int_equal(o->total, 4000000);
  assert_int_equal(child(o, "inner")->total, 4000000);
  assert_int_equal(child(child(o, "inner"), "innermost")->calls, 1);
  assert_int_equal(ergo_error_count(), 1);
  ergo_finalize();
}

static void test_level_mismatch(void **state) {
  (void)state;
  test_init_default();
  PUSH_AT(2, "A", 10);
  advance_ms(2);
  POP_AT(3, "A", 11);
  assert_string_equal(ergo_last_error(),
                      "app.c:11: ERGO_POP(3, \"A\"): level mismatch: \"A\" was pushed at app.c:10 "
                      "with level 2; closing it (fix: pop with the level it was pushed with)");
  assert_int_equal(depth(), 0);
  assert_int_equal(child(root(), "A")->calls, 1);
  ergo_finalize();
}

static void test_poppush_mismatch(void **state) {
  (void)state;
  test_init_default();
  PUSH_AT(1, "A", 10);
  advance_ms(1);
  ergo_poppush_at(1, "X", "B", "app.c", 15);
  assert_string_equal(ergo_last_error(),
                      "app.c:15: ERGO_POPPUSH(1, \"X\"): label mismatch: expected \"A\" (pushed "
                      "at app.c:10, level 1), found \"X\", which is not open; pop ignored (fix: "
                      "make the pop name its push)");
  /* Recovery: the pop half is ignored, the push half still happens: B nests in A. */
  assert_int_equal(depth(), 2);
  advance_ms(1);
  POP_AT(1, "B", 16);
  POP_AT(1, "A", 17);
  assert_int_equal(child(child(root(), "A"), "B")->total, 1000000);
  assert_int_equal(ergo_error_count(), 1);
  ergo_finalize();
}

static void test_null_and_long_names(void **state) {
  (void)state;
  test_init_default();
  PUSH_AT(1, NULL, 40);
  assert_string_equal(ergo_last_error(),
                      "app.c:40: ERGO_PUSH(1, NULL): region name is NULL; using \"<null>\" (fix: "
                      "pass a non-empty string)");
  POP_AT(1, NULL, 41);
  assert_int_equal(ergo_error_count(), 2);
  assert_int_equal(depth(), 0);
  assert_int_equal(child(root(), "<null>")->calls, 1);

  char longname[200];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  PUSH_AT(1, longname, 50);
  assert_string_equal(ergo_last_error(),
                      "app.c:50: ERGO_PUSH(1, \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\"): "
                      "region name is 199 bytes, longer than ERGO_NAME_MAX=127; cutting it to "
                      "its first 127 bytes, between two characters, so longer names that begin "
                      "alike share one region (fix: use a shorter name)");
  POP_AT(1, longname, 51); /* matches the truncated name: no further error */
  assert_int_equal(ergo_error_count(), 3);
  longname[ERGO_NAME_MAX] = '\0';
  assert_int_equal(child(root(), longname)->calls, 1);
  assert_int_equal(strlen(child(root(), longname)->name), ERGO_NAME_MAX);
  ergo_finalize();
}

/* Every error or warning line is UTF-8, whatever text it quotes: a byte that is not shows as the
 * text \xHH (ergo_last_error may be decoded by a binding). */
static void test_lines_always_utf8(void **state) {
  (void)state;
  unsigned id;
  assert_int_equal(ergo_section_create("m\xe9thode", &id), ERGO_ESTATE);
  assert_string_equal(ergo_last_error(),
                      "ergo_section_create('m\\xe9thode'): ergo is not initialised; no section "
                      "made (fix: call ergo_init first)");
}

/* A name that is not UTF-8 (Latin-1 "résidu") names its region with the bad byte as the text
 * \xe9, so every writer can hold it; one error line per distinct name, however often pushed, and
 * its pops find it. */
static void test_name_not_utf8(void **state) {
  (void)state;
  test_init_default();
  for (int i = 0; i < 3; i++) {
    PUSH_AT(1, "r\xe9sidu", 60);
    POP_AT(1, "r\xe9sidu", 61);
  }
  assert_int_equal(ergo_error_count(), 1);
  assert_string_equal(ergo_last_error(),
                      "app.c:60: ERGO_PUSH(1, \"r\\xe9sidu\"): region name is not valid UTF-8 "
                      "(byte \\xe9 at offset 1); naming the region with each such byte as the "
                      "text \\xHH (fix: pass UTF-8 names, e.g. convert Latin-1 ones with iconv)");
  assert_int_equal(depth(), 0);
  assert_int_equal(child(root(), "r\\xe9sidu")->calls, 3);
  /* Another bad byte is another region and another line; a literal finds the same region. */
  PUSH_AT(1, "r\xe8sidu", 62);
  POP_AT(1, "r\xe8sidu", 63);
  ergo_push_lit(1, "r\xe9sidu", "app.c", 64);
  ergo_pop_lit(1, "r\xe9sidu", "app.c", 65);
  assert_int_equal(ergo_error_count(), 2);
  assert_non_null(strstr(ergo_last_error(), "(byte \\xe8 at offset 1)"));
  assert_int_equal(child(root(), "r\\xe8sidu")->calls, 1);
  assert_int_equal(child(root(), "r\\xe9sidu")->calls, 4);
  assert_int_equal(depth(), 0);
  ergo_finalize();
}

/* A control character in a name (a newline, a tab) would split a line of the text report, the
 * step report and the balance header: it is kept as the text \xHH, as a byte that is not UTF-8
 * is, with one error line per distinct name; its pops find the region, and the report keeps one
 * line per region. */
static void test_name_control_characters(void **state) {
  (void)state;
  test_init_default();
  for (int i = 0; i < 3; i++) {
    PUSH_AT(1, "new\nline", 60);
    advance_ms(1);
    POP_AT(1, "new\nline", 61);
  }
  assert_int_equal(ergo_error_count(), 1);
  assert_string_equal(ergo_last_error(),
                      "app.c:60: ERGO_PUSH(1, \"new\\x0aline\"): region name holds a control "
                      "character (\\x0a at offset 3), which would break the reports' and balance "
                      "headers' lines; naming the region with each such character as the text "
                      "\\xHH (fix: no control characters in region names)");
  assert_int_equal(depth(), 0);
  assert_int_equal(child(root(), "new\\x0aline")->calls, 3);
  assert_null(child(root(), "new\nline"));
  /* Every control character, DEL too; a name also not UTF-8 gets both lines. */
  PUSH_AT(1, "\t\x01\x1f\x7f", 62);
  POP_AT(1, "\t\x01\x1f\x7f", 63);
  assert_int_equal(child(root(), "\\x09\\x01\\x1f\\x7f")->calls, 1);
  assert_int_equal(ergo_error_count(), 2);
  PUSH_AT(1, "r\xe9\rsidu", 64);
  POP_AT(1, "r\xe9\rsidu", 65);
  assert_int_equal(ergo_error_count(), 4);
  assert_non_null(strstr(ergo_last_error(), "(\\x0d at offset 2)"));
  assert_int_equal(child(root(), "r\\xe9\\x0dsidu")->calls, 1);
  assert_int_equal(depth(), 0);
  char *text = ergo_report_string();
  assert_non_null(strstr(text, "\n* new\\x0aline                    : 0.0030 sec,"));
  assert_null(strstr(text, "new\n"));
  free(text);
  ergo_finalize();
}

/* A region named as a line ergo prints itself (Unaccounted, Global, "...") reads as ergo's line:
 * one warning per such name, wherever and however often it is pushed; the region works. */
static void test_reserved_names_warned(void **state) {
  (void)state;
  test_init_default();
  for (int i = 0; i < 2; i++) {
    PUSH_AT(1, "Unaccounted", 70);
    region_ms(2, "Unaccounted", 1); /* the same name in another parent: said already */
    POP_AT(1, "Unaccounted", 71);
  }
  assert_int_equal(ergo_warning_count(), 1);
  assert_string_equal(ergo_last_error(),
                      "app.c:70: ERGO_PUSH(1, \"Unaccounted\"): region name is ergo's line for the "
                      "time a region's children leave out, so the reports cannot tell this region "
                      "from ergo's own line; the region works as any other (fix: rename it)");
  PUSH_AT(1, "Global", 72);
  POP_AT(1, "Global", 73);
  assert_int_equal(ergo_warning_count(), 2);
  assert_non_null(strstr(ergo_last_error(), "ERGO_PUSH(1, \"Global\"): region name is ergo's name "
                                            "for the whole run"));
  PUSH_AT(1, "...", 74);
  POP_AT(1, "...", 75);
  assert_int_equal(ergo_warning_count(), 3);
  assert_non_null(strstr(ergo_last_error(), "ERGO_PUSH(1, \"...\"): region name is ergo's line "
                                            "for children folded away by ERGO_REPORT_LEVEL"));
  /* Blanks after it do not tell it apart (the name column is padded); other names are fine. */
  PUSH_AT(1, "Unaccounted  ", 76);
  POP_AT(1, "Unaccounted  ", 77);
  assert_int_equal(ergo_warning_count(), 4);
  region_ms(1, "unaccounted", 1);
  region_ms(1, "Global_sum", 1);
  region_ms(1, "..x", 1);
  region_ms(1, "U", 1);
  assert_int_equal(ergo_warning_count(), 4);
  assert_int_equal(ergo_error_count(), 0);
  assert_int_equal(child(root(), "Unaccounted")->calls, 2);
  assert_int_equal(child(child(root(), "Unaccounted"), "Unaccounted")->calls, 2);
  assert_int_equal(child(root(), "Global")->calls, 1);
  assert_int_equal(depth(), 0);
  ergo_finalize();
}

/* A UTF-8 name longer than ERGO_NAME_MAX is cut between two characters: 100 'é' (200 bytes)
 * keep 63 of them (126 bytes), never half of the 64th; with one 'A' before them the cut falls
 * between characters at 127. */
static void test_long_name_cut_between_characters(void **state) {
  (void)state;
  test_init_default();
  char name[260] = "A", want[ERGO_NAME_MAX + 1];
  for (int i = 0; i < 100; i++) memcpy(name + 1 + 2 * i, "\xc3\xa9", 3);
  PUSH_AT(1, name + 1, 70);
  POP_AT(1, name + 1, 71);
  assert_int_equal(ergo_error_count(), 1);
  assert_non_null(strstr(ergo_last_error(), "region name is 200 bytes, longer than "
                                            "ERGO_NAME_MAX=127; cutting it to its first 126 "
                                            "bytes, between two characters"));
  /* The line shows the name's first 20 characters whole. */
  assert_int_equal(strncmp(ergo_last_error(), "app.c:70: ERGO_PUSH(1, \"", 24), 0);
  assert_int_equal(strncmp(ergo_last_error() + 24, name + 1, 40), 0);
  assert_int_equal(strncmp(ergo_last_error() + 64, "...\")", 5), 0);
  memcpy(want, name + 1, 126);
  want[126] = '\0';
  ergo__node *n = child(root(), want);
  assert_non_null(n);
  assert_int_equal(strlen(n->name), 126);
  assert_int_equal(n->calls, 1);
  PUSH_AT(1, name, 72);
  POP_AT(1, name, 73);
  memcpy(want, name, 127);
  want[127] = '\0';
  assert_int_equal(child(root(), want)->calls, 1);
  assert_int_equal(ergo_error_count(), 2);
  assert_int_equal(depth(), 0);
  ergo_finalize();
}

/* Names longer than ERGO_NAME_MAX that begin with the same 127 bytes share one region, and each
 * says so once: the ones after the first find the region made already, never silently. */
static void test_long_names_sharing_a_region_each_said(void **state) {
  (void)state;
  test_init_default();
  char name[130];
  memset(name, 'x', 127);
  name[127] = '\0';
  PUSH_AT(1, name, 80); /* 127 bytes: fine */
  POP_AT(1, name, 81);
  assert_int_equal(ergo_error_count(), 0);
  const char tails[] = "yzw";
  for (int round = 0; round < 2; round++)
    for (int k = 0; k < 3; k++) {
      name[127] = tails[k];
      name[128] = '\0';
      PUSH_AT(1, name, 82 + k);
      POP_AT(1, name, 90);
      assert_int_equal(ergo_error_count(), round ? 3 : k + 1);
      if (!round) {
        /* The line's start only: its quoted name is the first 40 bytes, then "..." */
        char want[64];
        snprintf(want, sizeof want, "app.c:%d: ERGO_PUSH(1, \"xxxx", 82 + k);
        assert_int_equal(strncmp(ergo_last_error(), want, strlen(want)), 0);
        assert_non_null(strstr(ergo_last_error(), "region name is 128 bytes, longer than "
                                                  "ERGO_NAME_MAX=127; cutting it to its first "
                                                  "127 bytes"));
      }
    }
  name[127] = '\0';
  assert_int_equal(child(root(), name)->calls, 7);
  /* Literals too: the second finds the region by its text, as the first's pointer is the key. */
  static const char lit_a[] = "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"
                              "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLa",
                    lit_b[] = "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"
                              "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLb";
  for (int i = 0; i < 2; i++) {
    ergo_push_lit(1, lit_a, "app.c", 91);
    ergo_pop_lit(1, lit_a, "app.c", 92);
    ergo_push_lit(1, lit_b, "app.c", 93);
    ergo_pop_lit(1, lit_b, "app.c", 94);
  }
  assert_int_equal(ergo_error_count(), 5);
  assert_int_equal(strncmp(ergo_last_error(), "app.c:93: ", 10), 0);
  assert_int_equal(depth(), 0);
  ergo_finalize();
}

static void test_open_at_finalize(void **state) {
  (void)state;
  test_init_default();
  PUSH_AT(1, "left_open", 60);
  advance_ms(8);
  unsigned long before = ergo_error_count();
  ergo_finalize();
  (void)before;
  assert_string_equal(ergo_last_error(),
                      "ergo_finalize: region \"left_open\" pushed at app.c:60 (level 1) is still "
                      "open; closing it now (fix: add the matching ERGO_POP before "
                      "ergo_finalize)");
}

/* The open region's time is kept: it is closed at finalize and reported. */
static void test_open_at_finalize_reported(void **state) {
  (void)state;
  char path[256];
  snprintf(path, sizeof path, "%s/r.txt", test_dir);
  ergo_config c = test_config();
  c.report = path;
  test_init(&c);
  PUSH_AT(1, "left_open", 60);
  advance_ms(8);
  ergo_finalize();
  char *got = slurp(path);
  const char *want = "Total wall clock time for Global = 0.008 sec\n"
                     "* left_open                      : 0.0080 sec, 100.00%\n"
                     "Run: test_errors, "; /* how the run was made (test_report_text checks it) */
  assert_non_null(got);
  assert_memory_equal(got, want, strlen(want));
  free(got);
}

/* Run `body` in a child (ERGO_ON_ERROR as `abort` says) with stderr captured into buf. */
static int in_child(void (*body)(void), int abort_mode, char *buf, size_t size) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    ergo_config c = test_config();
    if (abort_mode) c.on_error = ERGO_ON_ERROR_ABORT;
    test_now_ns = 1;
    if (ergo_init(&c) != 0) _exit(3);
    body();
    _exit(7);
  }
  close(fds[1]);
  size_t len = 0;
  ssize_t n;
  while ((n = read(fds[0], buf + len, size - 1 - len)) > 0) len += (size_t)n;
  buf[len] = '\0';
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

/* Run `body` in a child with ERGO_ON_ERROR=abort and stderr captured into buf; its wait status. */
static int in_abort_mode(void (*body)(void), char *buf, size_t size) {
  return in_child(body, 1, buf, size);
}

static void mismatched_pop(void) {
  PUSH_AT(1, "A", 1);
  POP_AT(1, "B", 2);
}

/* ERGO_ON_ERROR=abort: the line is printed, then the process aborts. */
static void test_abort_mode(void **state) {
  (void)state;
  char buf[1024];
  int status = in_abort_mode(mismatched_pop, buf, sizeof buf);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(WTERMSIG(status), SIGABRT);
  assert_non_null(strstr(buf, "ergo: error: app.c:2: ERGO_POP(1, \"B\"): label mismatch: "));
  assert_non_null(strstr(buf, "ergo: aborting because ERGO_ON_ERROR=abort\n"));
}

/* In warn mode the same line goes to stderr prefixed "ergo: error: " and the program goes on. */
static void test_warn_mode_stderr(void **state) {
  (void)state;
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    ergo_config c = test_config();
    test_now_ns = 1;
    if (ergo_init(&c) != 0) _exit(3);
    PUSH_AT(1, "A", 1);
    POP_AT(1, "B", 2);
    POP_AT(1, "A", 3);
    ergo_finalize();
    _exit(7);
  }
  close(fds[1]);
  char buf[1024] = {0};
  size_t len = 0;
  ssize_t n;
  while ((n = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0) len += (size_t)n;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 7);
  assert_string_equal(buf, "ergo: error: app.c:2: ERGO_POP(1, \"B\"): label mismatch: expected "
                           "\"A\" (pushed at app.c:1, level 1), found \"B\", which is not open; "
                           "pop ignored (fix: make the pop name its push)\n");
}

/* Errors and warnings are counted apart: a warning (the run goes on unharmed) is not an error. */
static void test_counts_errors_and_warnings(void **state) {
  (void)state;
  ergo_config c = test_config();
  test_init(&c);
  assert_int_equal(ergo_error_count(), 0);
  assert_int_equal(ergo_warning_count(), 0);
  assert_string_equal(ergo_last_error(), "");
  /* A warning: the second ergo_init is refused, nothing else changes. */
  assert_int_equal(ergo_init(&c), ERGO_ESTATE);
  assert_int_equal(ergo_warning_count(), 1);
  assert_int_equal(ergo_error_count(), 0);
  assert_non_null(strstr(ergo_last_error(), "ergo_init called twice"));
  /* A region error. */
  POP_AT(1, "A", 12);
  assert_int_equal(ergo_error_count(), 1);
  assert_int_equal(ergo_warning_count(), 1);
  /* A file not written is an error, not a warning. */
  region_ms(1, "A", 1);
  assert_int_equal(ergo_report_json("/nonexistent-dir/report.json"), ERGO_EIO);
  assert_int_equal(ergo_error_count(), 2);
  assert_int_equal(ergo_warning_count(), 1);
  assert_non_null(strstr(ergo_last_error(), "cannot write '/nonexistent-dir/report.json'"));
  /* Notes and information lines are counted nowhere and are not the last error. */
  ergo__note("a note");
  ergo__info("an information line");
  assert_int_equal(ergo_error_count(), 2);
  assert_int_equal(ergo_warning_count(), 1);
  assert_non_null(strstr(ergo_last_error(), "cannot write '/nonexistent-dir/report.json'"));
  ergo_finalize();
  /* The counts outlive ergo_finalize (a tool reads them after it) ... */
  assert_int_equal(ergo_error_count(), 2);
  assert_int_equal(ergo_warning_count(), 1);
  /* ... a call after it is one more warning ... */
  assert_int_equal(ergo_step(1), ERGO_ESTATE);
  assert_int_equal(ergo_warning_count(), 2);
  assert_int_equal(ergo_error_count(), 2);
  /* ... and ergo_init starts both from zero. */
  test_init(&c);
  assert_int_equal(ergo_error_count(), 0);
  assert_int_equal(ergo_warning_count(), 0);
  assert_string_equal(ergo_last_error(), "");
  ergo_finalize();
}

/* A checkpoint that cannot be loaded or saved is an error; asking before ergo_init is a warning. */
static void test_counts_checkpoint(void **state) {
  (void)state;
  unsigned long w = ergo_warning_count(), e = ergo_error_count();
  assert_int_equal(ergo_checkpoint_load("/nonexistent-dir/ck.json"), ERGO_ESTATE);
  assert_int_equal(ergo_warning_count(), w + 1);
  assert_int_equal(ergo_error_count(), e);
  test_init_default();
  assert_int_equal(ergo_checkpoint_load("/nonexistent-dir/ck.json"), ERGO_EIO);
  assert_int_equal(ergo_checkpoint_save("/nonexistent-dir/ck.json"), ERGO_EIO);
  assert_int_equal(ergo_checkpoint_save(NULL), ERGO_EINVAL);
  assert_int_equal(ergo_error_count(), 3);
  assert_int_equal(ergo_warning_count(), 0);
  ergo_finalize();
}

static void warnings_only(void) {
  ergo_config c = test_config();
  int id;
  (void)ergo_init(&c);                                  /* called twice */
  (void)ergo_quantity_attach(&(ergo_quantity){0}, &id); /* no name, unit or value: refused */
  if (ergo_warning_count() == 0 || ergo_error_count() != 0) _exit(4);
}

static void report_not_written(void) { (void)ergo_report_csv("/nonexistent-dir/report.csv"); }

/* Under ERGO_ON_ERROR=abort a warning goes on; an error that loses a file aborts. */
static void test_abort_mode_errors_only(void **state) {
  (void)state;
  char buf[2048];
  int status = in_abort_mode(warnings_only, buf, sizeof buf);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 7);
  assert_non_null(strstr(buf, "ergo: warning: ergo_init called twice"));
  assert_null(strstr(buf, "aborting"));
  status = in_abort_mode(report_not_written, buf, sizeof buf);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(WTERMSIG(status), SIGABRT);
  assert_non_null(strstr(buf, "ergo: error: cannot write '/nonexistent-dir/report.csv'"));
  assert_non_null(strstr(buf, "ergo: aborting because ERGO_ON_ERROR=abort\n"));
}

static size_t count_of(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
  return n;
}

#define MISMATCH_LINE(line)                                                                        \
  "ergo: error: app.c:" #line ": ERGO_POP(1, \"B\"): label mismatch: expected \"A\" (pushed at "   \
  "app.c:1, level 1), found \"B\", which is not open; pop ignored (fix: make the pop name its "    \
  "push)\n"
#define FURTHER                                                                                    \
  "ergo: warning: further lines like the one above are counted, not printed (summary at "          \
  "ergo_finalize)\n"

/* 1000 mismatched pops (one kind of error), 3 underflows (another) and 7 refused quantities (a
 * kind of warning). */
static void many_mismatches(void) {
  for (int i = 0; i < 1000; i++) {
    PUSH_AT(1, "A", 1);
    POP_AT(1, "B", 2);
    POP_AT(1, "A", 3);
  }
  for (int i = 0; i < 3; i++) POP_AT(1, "U", 4);
  int id;
  for (int i = 0; i < 7; i++) (void)ergo_quantity_attach(&(ergo_quantity){0}, &id);
  if (ergo_error_count() != 1003) _exit(4);
  if (ergo_warning_count() != 7) _exit(5);
  ergo_finalize();
  _exit(7);
}

/* The first 5 lines of a kind are printed, then one line says the rest are counted; the counts
 * see every line, and ergo_finalize prints one summary line per kind that had lines not printed. */
static void test_repeats_counted_not_printed(void **state) {
  (void)state;
  char buf[16384];
  int status = in_child(many_mismatches, 0, buf, sizeof buf);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 7);
  const char *expect =
      MISMATCH_LINE(2) MISMATCH_LINE(2) MISMATCH_LINE(2) MISMATCH_LINE(2) MISMATCH_LINE(2) FURTHER;
  assert_memory_equal(buf, expect, strlen(expect));
  assert_int_equal(count_of(buf, "label mismatch"), 6); /* 5 lines and the summary */
  assert_int_equal(count_of(buf, "stack underflow"), 3);
  assert_int_equal(count_of(buf, "further lines like the one above"), 2);
  assert_non_null(strstr(buf, "ergo: error: 1000 lines like \"app.c:2: ERGO_POP(1, \"B\"): label "
                              "mismatch: expected \"A\" (pushed at app.c:1, level 1), found "
                              "\"B\", which is not open; pop ignored (fix: make the pop name its "
                              "push)\" in all; 995 not printed\n"));
  assert_int_equal(count_of(buf, " in all; "), 2); /* the mismatches and the warnings */
  assert_non_null(strstr(buf, "ergo: warning: 7 lines like \""));
  assert_non_null(strstr(buf, "\" in all; 2 not printed\n"));
  assert_null(strstr(buf, "lines like \"app.c:4"));
  /* 1000 lines would have been printed: now 5 + 1 + 3 + 5 + 1 + 2 summaries. */
  assert_int_equal(count_of(buf, "\n"), 17);
}

static void repeated_then_finalize_twice(void) {
  for (int i = 0; i < 6; i++) POP_AT(1, "U", 4);
  ergo_finalize();
  /* A new run prints the kind again from its first line. */
  ergo_config c = test_config();
  if (ergo_init(&c) != 0) _exit(3);
  POP_AT(1, "U", 5);
  if (ergo_error_count() != 1) _exit(4);
  ergo_finalize();
}

/* ergo_finalize forgets the kinds and ergo_init starts them anew. */
static void test_repeats_reset_at_init(void **state) {
  (void)state;
  char buf[8192];
  int status = in_child(repeated_then_finalize_twice, 0, buf, sizeof buf);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 7);
  assert_int_equal(count_of(buf, "app.c:4: ERGO_POP"), 6); /* 5 lines and the summary's quote */
  assert_int_equal(count_of(buf, "app.c:5: ERGO_POP"), 1);
  assert_int_equal(count_of(buf, "6 lines like"), 1);
  assert_int_equal(count_of(buf, " in all; "), 1);
}

static void many_errors_abort(void) {
  for (int i = 0; i < 10; i++) POP_AT(1, "U", 4);
}

/* ERGO_ON_ERROR=abort still aborts at the first error. */
static void test_repeats_abort_first(void **state) {
  (void)state;
  char buf[4096];
  int status = in_child(many_errors_abort, 1, buf, sizeof buf);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(WTERMSIG(status), SIGABRT);
  assert_int_equal(count_of(buf, "stack underflow"), 1);
  assert_non_null(strstr(buf, "ergo: aborting because ERGO_ON_ERROR=abort\n"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      ERGO_TEST(test_underflow),
      ERGO_TEST(test_label_mismatch_not_open),
      ERGO_TEST(test_label_mismatch_open_further_out),
      ERGO_TEST(test_level_mismatch),
      ERGO_TEST(test_poppush_mismatch),
      ERGO_TEST(test_null_and_long_names),
      ERGO_TEST(test_lines_always_utf8),
      ERGO_TEST(test_name_not_utf8),
      ERGO_TEST(test_name_control_characters),
      ERGO_TEST(test_reserved_names_warned),
      ERGO_TEST(test_long_name_cut_between_characters),
      ERGO_TEST(test_long_names_sharing_a_region_each_said),
      ERGO_TEST(test_open_at_finalize),
      ERGO_DIR_TEST(test_open_at_finalize_reported),
      ERGO_TEST(test_abort_mode),
      ERGO_TEST(test_warn_mode_stderr),
      ERGO_TEST(test_counts_errors_and_warnings),
      ERGO_TEST(test_counts_checkpoint),
      ERGO_TEST(test_abort_mode_errors_only),
      ERGO_TEST(test_repeats_counted_not_printed),
      ERGO_TEST(test_repeats_reset_at_init),
      ERGO_TEST(test_repeats_abort_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
