/* fuzz.h - what the fuzz harnesses share: each is one LLVMFuzzerTestOneInput (libFuzzer's entry
 * point), built with clang -fsanitize=fuzzer (ERGO_FUZZ=ON) or linked with driver.c, which runs
 * every file of its seed corpus once (the plain build's ctest). */
#ifndef ERGO_TESTS_FUZZ_H
#define ERGO_TESTS_FUZZ_H

#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir_path[64];

static inline int fuzz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}
static inline void fuzz_dir_remove(void) { nftw(fuzz_dir_path, fuzz_rm, 8, FTW_DEPTH | FTW_PHYS); }

/* A private directory for this process's temporary files (made once, mode 0700, removed at
 * exit). */
static inline const char *fuzz_dir(void) {
  char *dir = fuzz_dir_path;
  if (!dir[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof fuzz_dir_path, "%.30s/ergo-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
      perror("fuzz: mkdtemp");
      abort();
    }
    atexit(fuzz_dir_remove);
  }
  return dir;
}

/* Write the input to <fuzz_dir>/<name> (mode 0600) for a parser that only reads a path. */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size) {
  static char path[128];
  snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    perror("fuzz: open");
    abort();
  }
  for (size_t off = 0; off < size;) {
    ssize_t w = write(fd, data + off, size - off);
    if (w <= 0) {
      perror("fuzz: write");
      abort();
    }
    off += (size_t)w;
  }
  close(fd);
  return path;
}

/* The input as a NUL-terminated string (the caller frees it). */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

#endif
