/* options.c - the option syntax the subcommands share: "--name value" or "--name=value". */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int ergo_cli_value(const char *cmd, int argc, char **argv, int *i, const char *name,
                   const char **value) {
  const char *a = argv[*i];
  size_t len = strlen(name);
  if (strncmp(a, name, len) != 0) return 0;
  if (a[len] == '=') {
    *value = a + len + 1;
    return 1;
  }
  if (a[len] != '\0') return 0;
  if (*i + 1 == argc) {
    fprintf(stderr, "%s: %s needs a value (--help lists them)\n", cmd, name);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}
