/* record.h - what the forwarding stand-ins share: append "WHAT NAME" (or "WHAT") to the file the
 * environment variable `var` names, so a test sees what ergo sent. */
#ifndef ERGO_TESTS_FORWARD_RECORD_H
#define ERGO_TESTS_FORWARD_RECORD_H

#include <stdio.h>
#include <stdlib.h>

static void record_line(const char *var, const char *what, const char *name) {
  const char *path = getenv(var);
  FILE *f = path ? fopen(path, "a") : NULL;
  if (!f) return;
  if (name)
    fprintf(f, "%s %s\n", what, name);
  else
    fprintf(f, "%s\n", what);
  fclose(f);
}

#endif
