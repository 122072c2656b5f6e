/* read_loop.c - ergo-fakesys-readloop FILE N: read a counter file N times as powercap.c does (one
 * fd, one pread at offset 0 each time) and count the reads that are not a whole value: empty,
 * cut short, not digits, or without their newline.  Run under ergo-fakesys-run, it checks that
 * the runner's counter writes are never seen half done. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: ergo-fakesys-readloop FILE READS\n");
    return 2;
  }
  long reads = atol(argv[2]);
  int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
  if (fd < 0 || reads <= 0) {
    perror(argv[1]);
    return 2;
  }
  long bad = 0, changes = 0;
  unsigned long long last = 0;
  for (long i = 0; i < reads; i++) {
    char buf[64];
    ssize_t n = pread(fd, buf, sizeof buf, 0);
    ssize_t k = 0;
    unsigned long long v = 0;
    while (k < n && buf[k] >= '0' && buf[k] <= '9') v = v * 10 + (unsigned)(buf[k++] - '0');
    if (n <= 1 || k == 0 || k != n - 1 || buf[k] != '\n') {
      if (bad++ < 3)
        fprintf(stderr, "read %ld unreadable: %zd bytes '%.*s'\n", i, n, (int)(n > 0 ? n : 0), buf);
      continue;
    }
    if (i && v != last) changes++;
    last = v;
  }
  close(fd);
  printf("%ld reads, %ld unreadable, %ld changes seen\n", reads, bad, changes);
  return bad ? 1 : 0;
}
