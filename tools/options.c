/* options.c - the option syntax the subcommands share: "--name value" or "--name=value". */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* An option of one value given twice would silently take the last (a mistyped command line, a
 * script's default overridden without notice): refused, as compare refuses --csv with --json. */
static int once(const char *cmd, const char *name, const char **value, const char *v) {
  if (*value) {
    fprintf(stderr, "%s: %s given twice ('%s', then '%s'): expected it once\n", cmd, name, *value,
            v);
    return -1;
  }
  *value = v;
  return 1;
}

int ergo_cli_value(const char *cmd, int argc, char **argv, int *i, const char *name,
                   const char **value) {
  const char *a = argv[*i];
  size_t len = strlen(name);
  if (strncmp(a, name, len) != 0) return 0;
  if (a[len] == '=') return once(cmd, name, value, a + len + 1);
  if (a[len] != '\0') return 0;
  if (*i + 1 == argc) {
    fprintf(stderr, "%s: %s needs a value (--help lists them)\n", cmd, name);
    return -1;
  }
  return once(cmd, name, value, argv[++*i]);
}
