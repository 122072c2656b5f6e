/* cli.h - what the `ergo` command's subcommands share: the command table entry and exit codes. */
#ifndef ERGO_CLI_H
#define ERGO_CLI_H

#include <jansson.h>

/* Exit codes: 2 is a usage error (as getopt-based tools do), 1 a failure while running. */
#define ERGO_CLI_OK 0
#define ERGO_CLI_FAIL 1
#define ERGO_CLI_USAGE 2

/* One subcommand: `ergo <name> ...`.  Adding one is a file and a line in ergo.c's table. */
typedef struct ergo_cli_command {
  const char *name;
  const char *summary; /* one line for `ergo --help` */
  /* argv[0] is the subcommand's name; handles its own --help; returns an ERGO_CLI_* code. */
  int (*run)(int argc, char **argv);
} ergo_cli_command;

extern const ergo_cli_command ergo_cli_info;
extern const ergo_cli_command ergo_cli_restore;
extern const ergo_cli_command ergo_cli_run;
extern const ergo_cli_command ergo_cli_compare;
extern const ergo_cli_command ergo_cli_sweep;
extern const ergo_cli_command ergo_cli_demo;
extern const ergo_cli_command ergo_cli_report;

/* The command as the user typed it (main's argv[0]: "ergo", "build/tools/ergo"), for commands
 * a subcommand suggests. */
extern const char *ergo_cli_argv0;

/* Option argv[*i] as "--name value" or "--name=value": 1 and *value set (*i moves past a
 * separate value), 0 when argv[*i] is another option, -1 when the value is missing or *value is
 * already set (the option given twice; one line on stderr, prefixed with cmd: a usage error).
 * *value starts NULL: a default is applied after the options are read. */
int ergo_cli_value(const char *cmd, int argc, char **argv, int *i, const char *name,
                   const char **value);

/* One line on stderr, "cmd: " and the message (stdout flushed first, so the line comes after what
 * the command printed); returns rc, so that `return ergo_cli_say(ERGO_CLI_FAIL, ...)` ends a
 * command with its exit code. */
__attribute__((format(printf, 3, 4))) int ergo_cli_say(int rc, const char *cmd, const char *fmt,
                                                       ...);

/* The machine's topology from hwloc: {"packages":N,"cores":N,"pus":N,
 * "numa_nodes":N,"allowed_cpus":"0-1"}, or {"error":"..."} when it cannot be
 * read.  Never NULL unless out of memory. */
json_t *ergo_cli_topology_json(void);

#endif
