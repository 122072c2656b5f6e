/* ergo.c - the `ergo` command: finds the subcommand in a table and runs it. */
#include "cli.h"

#include <ergo.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const ergo_cli_command *const commands[] = {
    &ergo_cli_info,    &ergo_cli_run,  &ergo_cli_compare, &ergo_cli_sweep,
    &ergo_cli_restore, &ergo_cli_demo, &ergo_cli_report,
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

/* "info, run, compare, sweep, restore": the accepted names, for error lines; the caller ends the
 * list with ", --help or --version". */
static void list_commands(FILE *out) {
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(out, "%s%s", i == 0 ? "" : ", ", commands[i]->name);
}

static void usage(FILE *out) {
  fprintf(out, "usage: ergo <command> [options]\n"
               "       ergo --help | --version\n\n"
               "Commands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
  fprintf(out, "\n`ergo <command> --help` describes a command's options.\n");
}

const char *ergo_cli_argv0 = "ergo";

/* What a command printed must have reached stdout (a full disk, /dev/full, a closed pipe): else
 * one line on stderr and exit status 1, so that `ergo compare ... > out.txt` never ends as a
 * success with its output lost.  rc is the command's own code, kept when it already failed. */
static int output_written(const char *cmd, int rc) {
  errno = 0;
  int failed = fflush(stdout) != 0;
  int err = errno;
  failed |= ferror(stdout);
  /* EBADF: stdout closed (`>&-`) by a command that printed nothing. */
  if (fclose(stdout) != 0 && !failed && errno != EBADF) {
    failed = 1;
    err = errno;
  }
  if (!failed) return rc;
  fprintf(stderr,
          "%s: cannot write the output to standard output: %s (fix: free space where it goes, "
          "or redirect it to another file)\n",
          cmd, err ? strerror(err) : "a write failed");
  return rc == ERGO_CLI_OK ? ERGO_CLI_FAIL : rc;
}

int main(int argc, char **argv) {
  if (argc > 0 && argv[0] && *argv[0]) ergo_cli_argv0 = argv[0];
  if (argc < 2) {
    fprintf(stderr, "ergo: no command given: expected ");
    list_commands(stderr);
    fprintf(stderr, ", --help or --version\n");
    return ERGO_CLI_USAGE;
  }
  const char *arg = argv[1];
  if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
    usage(stdout);
    return output_written("ergo", ERGO_CLI_OK);
  }
  if (strcmp(arg, "--version") == 0) {
    printf("ergo %s\n", ERGO_VERSION_STRING);
    return output_written("ergo", ERGO_CLI_OK);
  }
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (strcmp(arg, commands[i]->name) == 0) {
      char cmd[64];
      snprintf(cmd, sizeof cmd, "ergo %s", commands[i]->name);
      return output_written(cmd, commands[i]->run(argc - 1, argv + 1));
    }
  fprintf(stderr, "ergo: unknown %s '%s': expected ", arg[0] == '-' ? "option" : "command", arg);
  list_commands(stderr);
  fprintf(stderr, ", --help or --version\n");
  return ERGO_CLI_USAGE;
}
