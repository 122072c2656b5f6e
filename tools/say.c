/* say.c - a subcommand's one line on stderr: "ergo CMD: what went wrong". */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

int ergo_cli_say(int rc, const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fflush(stdout); /* the line follows what the command printed so far */
  fprintf(stderr, "%s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return rc;
}
