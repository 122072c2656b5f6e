/* driver.c - runs a fuzz harness without libFuzzer: every file named (or in a directory named)
 * once, so a normal build (gcc) keeps the harnesses compiling and checks the seed corpus. */
#include "fuzz.h"

#include <dirent.h>
#include <sys/stat.h>

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "fuzz driver: cannot open '%s'\n", path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += r;
    if (n == cap) {
      uint8_t *grown = realloc(buf, cap *= 2);
      if (!grown) free(buf);
      buf = grown;
    }
  }
  fclose(f);
  if (!buf) return 1;
  /* An exact-size copy, so ASan sees a read past the input's end. */
  uint8_t *in = malloc(n ? n : 1);
  if (!in) abort();
  memcpy(in, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(in, n);
  free(in);
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  int failed = 0, ran = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
      failed += run_file(argv[i]);
      ran++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) {
      fprintf(stderr, "fuzz driver: cannot read '%s'\n", argv[i]);
      return 1;
    }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d));) {
      if (de->d_name[0] == '.') continue;
      char **grown = realloc(names, (n + 1) * sizeof *names);
      if (!grown) abort();
      names = grown;
      size_t len = strlen(argv[i]) + strlen(de->d_name) + 2;
      names[n] = malloc(len);
      if (!names[n]) abort();
      snprintf(names[n++], len, "%s/%s", argv[i], de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t k = 0; k < n; k++) {
      failed += run_file(names[k]);
      ran++;
      free(names[k]);
    }
    free(names);
  }
  printf("fuzz driver: %d inputs run, %d could not be read\n", ran, failed);
  return failed || !ran ? 1 : 0;
}
