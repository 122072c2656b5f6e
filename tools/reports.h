/* reports.h - ergo's JSON run reports as the `ergo` command reads them: `ergo compare` and
 * `ergo report` load and check them one way (tools/compare.c), and the report's policy
 * comparison is compare's own --json document. */
#ifndef ERGO_CLI_REPORTS_H
#define ERGO_CLI_REPORTS_H

#include <jansson.h>

typedef struct ergo_cli_run_report {
  const char *file;
  const char *label; /* the file's base name, or the path when two base names are equal */
  json_t *doc;
  const json_t *root;     /* the main thread's Global */
  const char *platform;   /* "real", "sim" */
  const char *qlabel;     /* "SIMULATED", "ESTIMATE" or NULL */
  const json_t *in_total; /* names of the components that add up to the total */
  const json_t *facts;    /* the report's "run" (version 2), or NULL */
  json_t *index;          /* path -> its node (the first in tree order): one lookup per region */
} ergo_cli_run_report;

/* Read and check r->file (an ergo JSON report, version 1 or 2): 0, or -1 with one line on stderr,
 * prefixed with cmd ("ergo compare"), naming the file, what is wrong and the fix. */
int ergo_cli_report_load(ergo_cli_run_report *r, const char *cmd);
void ergo_cli_report_free(ergo_cli_run_report *r);

/* `ergo compare --json`'s document for runs (loaded, labelled) at region depth `depth` (0: the
 * default regions), without the comparability warnings; NULL when out of memory. */
json_t *ergo_cli_compare_json(const ergo_cli_run_report *runs, int n, int depth);

#endif
