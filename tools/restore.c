/* restore.c - `ergo restore`: put back the CPU settings of processes that died without cleaning
 * up (kill -9, OOM killer), from the state files they left. */
#include "cli.h"

#include <ergo.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void restore_usage(FILE *out) {
  fprintf(out, "usage: ergo restore [--pid N] [--dry-run]\n\n"
               "Before changing a CPU setting, a process running ergo saves the original values\n"
               "to a state file; it writes them back itself when it ends, even on a fatal signal.\n"
               "Only SIGKILL (kill -9, the OOM killer) leaves them changed: this writes back\n"
               "every file of every state file whose process is gone, then removes the state\n"
               "file.  Processes still running are skipped: they restore their own settings;\n"
               "a file whose cpufreq policy or uncore die a running process claims is left\n"
               "alone, and its state file stays for a run once that process is gone.\n"
               "State files are in $ERGO_STATE_DIR, else /run/ergo (root), else /tmp/ergo-UID.\n\n"
               "  --pid N     only process N's state file (refused while N runs)\n"
               "  --dry-run   say what would be written, change nothing\n\n"
               "Exit status: 0 when nothing failed, 1 when a file could not be restored or a\n"
               "state file could not be read, 2 for a usage error.\n");
}

/* A process id: a positive decimal integer, or -1. */
static long parse_pid(const char *s) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v <= 0 || v > INT_MAX) return -1;
  return v;
}

static int restore_run(int argc, char **argv) {
  long pid = 0;
  int dry_run = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *value = NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      restore_usage(stdout);
      return ERGO_CLI_OK;
    } else if (strcmp(a, "--dry-run") == 0) {
      dry_run = 1;
      continue;
    } else if (strncmp(a, "--pid=", 6) == 0) {
      value = a + 6;
    } else if (strcmp(a, "--pid") == 0) {
      if (i + 1 == argc) {
        fprintf(stderr, "ergo restore: --pid needs a process id\n");
        return ERGO_CLI_USAGE;
      }
      value = argv[++i];
    } else {
      fprintf(stderr, "ergo restore: unknown %s '%s': expected --pid N, --dry-run or --help\n",
              a[0] == '-' ? "option" : "argument", a);
      return ERGO_CLI_USAGE;
    }
    if (pid) {
      fprintf(stderr, "ergo restore: --pid given twice ('%ld', then '%s'): expected it once\n", pid,
              value);
      return ERGO_CLI_USAGE;
    }
    if ((pid = parse_pid(value)) < 0) {
      fprintf(stderr, "ergo restore: --pid '%s' is not a process id (a positive integer)\n", value);
      return ERGO_CLI_USAGE;
    }
  }
  return ergo_restore(pid, dry_run) == 0 ? ERGO_CLI_OK : ERGO_CLI_FAIL;
}

const ergo_cli_command ergo_cli_restore = {
    .name = "restore",
    .summary = "put back CPU settings that killed processes left changed",
    .run = restore_run,
};
