/* config.h - the runtime's configuration: one spec table (config_spec.c) with a row per setting,
 * from which the defaults, the ERGO_* environment parsing, the check of a caller's ergo_config
 * and the list of known variables (README, unknown-variable warnings) all come (config.c). */
#ifndef ERGO_RUNTIME_CONFIG_H
#define ERGO_RUNTIME_CONFIG_H

#include "ergo.h"

#include <stddef.h>

typedef struct ergo__config_row ergo__config_row;

/* A parser: the variable's text into the field (left untouched on failure).  0, or ERGO_EINVAL
 * with the reason in why, worded to follow "<VAR>='<text>' is not valid": ": expected ..." (or
 * " at '...': expected ..."). Parsers print nothing. */
typedef int (*ergo__config_parse_fn)(const ergo__config_row *r, const char *text, void *field,
                                     char *why, size_t whylen);
/* A validator: the field of a caller's ergo_config.  0, or ERGO_EINVAL with the reason in why,
 * worded to follow "ergo_config.<name>=<value> is not valid". */
typedef int (*ergo__config_check_fn)(const ergo__config_row *r, const void *field, char *why,
                                     size_t whylen);
/* The field's value as text: as the variable says it ("all", "warn"; for "keeping ...") or, with
 * as_c, as C sees it ("-1", "'gpu'", "NULL"; for "ergo_config.<name>=..."). */
typedef void (*ergo__config_show_fn)(const ergo__config_row *r, const void *field, int as_c,
                                     char *out, size_t outlen);

struct ergo__config_row {
  const char *var;  /* "ERGO_REPORT_LEVEL" */
  const char *name; /* its ergo_config field, "report_level"; NULL: another layer reads it */
  size_t offset, size;
  ergo__config_parse_fn parse; /* NULL when name is NULL */
  const char *def;             /* the default, as the variable would say it; NULL: unset */
  ergo__config_check_fn check;
  ergo__config_show_fn show;
  const char *help; /* one line: what the setting does */
  /* What the row's parser and validator accept (each kind uses its own): */
  double lo, hi;              /* numbers: the range */
  const char *all;            /* integers: the word meaning -1 ("all"), or NULL */
  const char *accept;         /* numbers and paths: "milliseconds from 0 (off) to 3600000" */
  const char *const *names;   /* enumerations: the values as the variable says them, by index */
  const char *const *cnames;  /* ... and as C names them (ERGO_ON_ERROR_WARN), or NULL */
  const char *(*choice)(int); /* string choices: the i-th accepted name, NULL past the last */
  const char *unset;          /* strings: what NULL means, for "keeping ..." */
  const char *reader;         /* name NULL: the source file that reads the variable */
};

/* The spec: one row per ERGO_* variable, in the README's order. */
extern const ergo__config_row ergo__config_spec[];
extern const int ergo__config_nspec;

/* The parser of file paths: anything but empty (the environment says "is set but empty"). */
int ergo__config_parse_path(const ergo__config_row *r, const char *text, void *field, char *why,
                            size_t whylen);

/* Every field of a caller's configuration checked (cfg->size first): 0, or ERGO_EINVAL after one
 * line per bad field naming it, its value and what is accepted. */
int ergo__config_check(const ergo_config *cfg);

/* The files cfg writes (the model under a policy that uses it, reports, step files, ...): two
 * on one file are refused (as_c: named as ergo_config fields, one warning each, ERGO_EINVAL) or,
 * from the environment, the later one is dropped with a warning, so the model survives (0).
 * ergo_config_from_env does the latter. */
int ergo__config_same_files(ergo_config *cfg, int as_c);

/* One warning per file cfg writes whose directory is missing or not writable, or that is a
 * directory, naming the variable (or the field, as_c), the path and the fix; the run goes on.
 * create: a file is made and removed in each directory (else permissions alone are checked). */
void ergo__config_writable(const ergo_config *cfg, int as_c, int create);

/* The tuning model file cfg names (ERGO_MODEL), or its default when unset. */
const char *ergo__config_model_path(const ergo_config *cfg);

/* One warning per ERGO_* name in env (a NULL-terminated "NAME=VALUE" array, like environ) that no
 * row knows, with the nearest known name when one is close; names starting with ERGO__ are
 * internal and skipped.  Returns the number of warnings.  ergo_config_from_env calls it once
 * per process with environ. */
int ergo__config_unknown_vars(char *const *env);

/* The known variable nearest to the len characters at name (case ignored), or NULL when none is
 * close enough to be a likely misspelling. */
const char *ergo__config_nearest(const char *name, size_t len);

#endif
