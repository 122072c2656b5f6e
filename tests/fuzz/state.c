/* state.c - fuzzes the state-file reader of `ergo restore` (knobs/state_restore_dead.c): the input
 * as the state file of a process that is gone, in a private ERGO_STATE_DIR, in a dry run (nothing
 * is ever written back); "@HOST@" in the input is this machine's name. */
#include "fuzz.h"

#include "knobs/state.h"

#include <limits.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char dir[128];
  static FILE *out;
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "%s/state", fuzz_dir());
    mkdir(dir, 0700);
    setenv("ERGO_STATE_DIR", dir, 1);
    out = fopen("/dev/null", "w");
    if (!out) abort();
  }
  /* No process has the largest pid Linux can give (4194304 at most): its writer is gone. */
  const long pid = INT_MAX - 1;
  char name[64];
  snprintf(name, sizeof name, "state/%ld.json", pid);
  /* "@HOST@" stands for this machine's name: a seed written anywhere names the host it runs on,
   * so the fuzzer gets past the host check to the files' list. */
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  size_t hl = strlen(host), cap = size + 1 + (size / 6 + 1) * hl, n = 0;
  uint8_t *in = malloc(cap);
  if (!in) abort();
  for (size_t i = 0; i < size;) {
    if (size - i >= 6 && memcmp(data + i, "@HOST@", 6) == 0) {
      memcpy(in + n, host, hl);
      n += hl;
      i += 6;
    } else {
      in[n++] = data[i++];
    }
  }
  fuzz_file(name, in, n);
  free(in);
  ergo__state_restore_dead((pid_t)pid, 1, out, out);
  return 0;
}
