/* test_atomic_file.c - util/atomic_file.c: output files that nobody who can write the output
 * directory can redirect (ergo runs as root): links and planted files at the output or the
 * temporary name are never written through, growing files refuse what is not the user's own. */
#include "test_util.h"

#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PRECIOUS "precious\n"

/* A file the attacker would like root to overwrite: mode 0600, known contents. */
static const char *make_victim(const char *name) {
  static char path[512];
  snprintf(path, sizeof path, "%s", test_in_dir(name));
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, PRECIOUS, strlen(PRECIOUS)), (int)strlen(PRECIOUS));
  close(fd);
  return path;
}

static void assert_victim_intact(const char *path) {
  char *text = slurp(path);
  assert_string_equal(text, PRECIOUS);
  free(text);
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISREG(st.st_mode));
  assert_int_equal(st.st_mode & 0777, 0600);
}

static int is_link(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* A plain write: the contents, mode 0644 (less the umask), and no temporary file left. */
static void test_write_and_replace(void **unused) {
  (void)unused;
  char out[512];
  snprintf(out, sizeof out, "%s", test_in_dir("report.txt"));
  mode_t old = umask(022);
  assert_int_equal(ergo__atomic_write(out, "one\n", 4), 0);
  assert_int_equal(ergo__atomic_write(out, "two\n", 4), 0);
  umask(old);
  char *text = slurp(out);
  assert_string_equal(text, "two\n");
  free(text);
  struct stat st;
  assert_int_equal(stat(out, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0644);
  assert_int_equal(test_dir_entries(), 1);
}

/* A symlink at the output path: refused in one line, the link and its target unchanged. */
static void test_link_at_output_refused(void **unused) {
  (void)unused;
  const char *victim = strdup(make_victim("shadow"));
  char out[512], want[1200];
  snprintf(out, sizeof out, "%s", test_in_dir("report.txt"));
  assert_int_equal(symlink(victim, out), 0);
  unsigned long errors = ergo_error_count();
  assert_int_equal(ergo__atomic_write(out, "evil\n", 5), ERGO_EIO);
  assert_int_equal(ergo_error_count(), errors + 1);
  snprintf(want, sizeof want,
           "cannot write '%s': it is a symbolic link, which ergo never writes through (fix: "
           "remove it or choose another path)",
           out);
  assert_string_equal(ergo_last_error(), want);
  assert_true(is_link(out));
  assert_victim_intact(victim);
  assert_int_equal(test_dir_entries(), 2);
  free((void *)victim);
}

/* A directory at the output path (ERGO_REPORT_JSON=.): refused, and the fix does not tell the
 * user to remove the directory. */
static void test_directory_at_output_refused(void **unused) {
  (void)unused;
  char out[512], want[1200];
  snprintf(out, sizeof out, "%s", test_in_dir("outdir"));
  assert_int_equal(mkdir(out, 0700), 0);
  assert_int_equal(ergo__atomic_write(out, "x\n", 2), ERGO_EIO);
  snprintf(want, sizeof want, "cannot write '%s': %s (fix: name a file, not a directory)", out,
           strerror(EISDIR));
  assert_string_equal(ergo_last_error(), want);
  struct stat st;
  assert_int_equal(lstat(out, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(rmdir(out), 0); /* the teardown removes files only */
}

/* A FIFO (or any other non-file) at the output path: refused, not replaced. */
static void test_fifo_at_output_refused(void **unused) {
  (void)unused;
  char out[512], want[1200];
  snprintf(out, sizeof out, "%s", test_in_dir("report.txt"));
  assert_int_equal(mkfifo(out, 0600), 0);
  assert_int_equal(ergo__atomic_write(out, "x\n", 2), ERGO_EIO);
  snprintf(want, sizeof want,
           "cannot write '%s': it exists and is not a regular file (fix: remove it or choose "
           "another path)",
           out);
  assert_string_equal(ergo_last_error(), want);
  struct stat st;
  assert_int_equal(lstat(out, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
}

/* What someone planted at the names the temporary file used to have (<path>.tmp.<pid>, the
 * sampler's <path>.tmp) neither stops the write nor is written through: the name is new. */
static void test_planted_temp_names(void **unused) {
  (void)unused;
  const char *victim = strdup(make_victim("shadow"));
  char out[512], tmp[600], dir[600];
  snprintf(out, sizeof out, "%s", test_in_dir("model.json"));
  snprintf(tmp, sizeof tmp, "%s.tmp", out);
  assert_int_equal(symlink(victim, tmp), 0);
  /* A directory cannot be removed by unlink: it used to make every write fail. */
  snprintf(dir, sizeof dir, "%s.tmp.%ld", out, (long)getpid());
  assert_int_equal(mkdir(dir, 0755), 0);
  unsigned long errors = ergo_error_count();
  assert_int_equal(ergo__atomic_write(out, "{}\n", 3), 0);
  assert_int_equal(ergo_error_count(), errors);
  char *text = slurp(out);
  assert_string_equal(text, "{}\n");
  free(text);
  assert_victim_intact(victim);
  assert_true(is_link(tmp));
  assert_int_equal(rmdir(dir), 0);
  assert_int_equal(test_dir_entries(), 3); /* shadow, the link, the output */
  free((void *)victim);
}

/* The streaming pair: a fresh file under a name nobody could guess, published by rename. */
static void test_tmp_create_and_publish(void **unused) {
  (void)unused;
  char out[512];
  snprintf(out, sizeof out, "%s", test_in_dir("power.csv"));
  char *tmp1 = NULL, *tmp2 = NULL;
  int fd1 = ergo__tmp_create(out, 0644, &tmp1);
  int fd2 = ergo__tmp_create(out, 0644, &tmp2);
  assert_true(fd1 >= 0 && fd2 >= 0);
  assert_string_not_equal(tmp1, tmp2);
  assert_int_equal(strncmp(tmp1, out, strlen(out)), 0);
  assert_int_equal(write(fd1, "a\n", 2), 2);
  close(fd1);
  close(fd2);
  assert_int_equal(ergo__tmp_publish(tmp1, out), 0);
  char *text = slurp(out);
  assert_string_equal(text, "a\n");
  free(text);
  /* A link at the final name: refused with ELOOP, the temporary file left for the caller. */
  const char *victim = strdup(make_victim("shadow"));
  assert_int_equal(unlink(out), 0);
  assert_int_equal(symlink(victim, out), 0);
  errno = 0;
  assert_int_equal(ergo__tmp_publish(tmp2, out), -1);
  assert_int_equal(errno, ELOOP);
  assert_int_equal(access(tmp2, F_OK), 0);
  assert_victim_intact(victim);
  free(tmp1);
  free(tmp2);
  free((void *)victim);
}

/* Growing files (steps, balance): a link, a FIFO, a second hard link are refused with why; an own
 * file is appended to, or emptied first when asked. */
static void test_growing_file(void **unused) {
  (void)unused;
  char path[512], why[256];
  snprintf(path, sizeof path, "%s", test_in_dir("steps.txt"));
  int fd = ergo__open_growing(path, 0, why, sizeof why);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "one\n", 4), 4);
  close(fd);
  fd = ergo__open_growing(path, 0, why, sizeof why);
  assert_int_equal(write(fd, "two\n", 4), 4);
  close(fd);
  char *text = slurp(path);
  assert_string_equal(text, "one\ntwo\n");
  free(text);
  fd = ergo__open_growing(path, 1, why, sizeof why);
  assert_int_equal(write(fd, "new\n", 4), 4);
  close(fd);
  text = slurp(path);
  assert_string_equal(text, "new\n");
  free(text);
  assert_int_equal(unlink(path), 0);

  const char *victim = strdup(make_victim("shadow"));
  assert_int_equal(symlink(victim, path), 0);
  assert_int_equal(ergo__open_growing(path, 1, why, sizeof why), -1);
  assert_string_equal(why, "it is a symbolic link, which ergo never writes through");
  assert_int_equal(unlink(path), 0);

  assert_int_equal(link(victim, path), 0);
  assert_int_equal(ergo__open_growing(path, 1, why, sizeof why), -1);
  assert_string_equal(why, "it has 2 hard links: another name may be a file ergo must not change");
  assert_int_equal(unlink(path), 0);

  assert_int_equal(mkfifo(path, 0600), 0);
  assert_int_equal(ergo__open_growing(path, 1, why, sizeof why), -1);
  assert_int_equal(unlink(path), 0);
  assert_victim_intact(victim);
  free((void *)victim);
}

/* As root, a file that belongs to another user is not root's to write: someone could have made
 * it to be written (and it may be a name they swap). */
static void test_growing_file_of_another_user(void **unused) {
  (void)unused;
  if (geteuid() != 0) skip_because("not root: cannot give a file to another user");
  char path[512], why[256];
  snprintf(path, sizeof path, "%s", test_in_dir("balance.txt"));
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(chown(path, 65534, 65534), 0);
  assert_int_equal(ergo__open_growing(path, 1, why, sizeof why), -1);
  assert_string_equal(why, "it belongs to uid 65534 and ergo runs as root");
}

/* Running as root, a directory on the output's way that is a symbolic link another user planted
 * (in a directory that user can write: "results" -> /etc) is never followed: neither a whole-file
 * write nor a growing file goes through it, and the file it points at stays as it was. */
static void test_planted_directory_link(void **unused) {
  (void)unused;
  if (geteuid() != 0) skip_because("not root: only a root run is led by such a link");
  char target[512], link[512], out[600], why[256];
  snprintf(target, sizeof target, "%s", test_in_dir("elsewhere"));
  assert_int_equal(mkdir(target, 0755), 0);
  const char *victim = make_victim("elsewhere/report.json");
  snprintf(link, sizeof link, "%s", test_in_dir("results"));
  assert_int_equal(symlink(target, link), 0);
  assert_int_equal(lchown(link, 65534, 65534), 0);
  snprintf(out, sizeof out, "%s/report.json", link);
  assert_int_equal(ergo__atomic_write(out, "attack\n", 7), ERGO_EIO);
  assert_non_null(strstr(ergo_last_error(), "a directory on its way is a symbolic link another "
                                            "user owns, which ergo never follows when it runs as "
                                            "root"));
  assert_victim_intact(victim);
  assert_int_equal(ergo__open_growing(out, 1, why, sizeof why), -1);
  assert_non_null(strstr(why, "symbolic link another user owns"));
  assert_victim_intact(victim);
  /* A link root owns (its own choice) is followed as before. */
  assert_int_equal(lchown(link, 0, 0), 0);
  assert_int_equal(ergo__atomic_write(out, "mine\n", 5), 0);
  char *text = slurp(victim);
  assert_string_equal(text, "mine\n");
  free(text);
  assert_int_equal(unlink(link), 0); /* the directory's teardown removes plain files only */
  assert_int_equal(unlink(victim), 0);
  assert_int_equal(rmdir(target), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      ERGO_DIR_TEST(test_write_and_replace),      ERGO_DIR_TEST(test_link_at_output_refused),
      ERGO_DIR_TEST(test_fifo_at_output_refused), ERGO_DIR_TEST(test_directory_at_output_refused),
      ERGO_DIR_TEST(test_planted_temp_names),     ERGO_DIR_TEST(test_tmp_create_and_publish),
      ERGO_DIR_TEST(test_growing_file),           ERGO_DIR_TEST(test_growing_file_of_another_user),
      ERGO_DIR_TEST(test_planted_directory_link),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
