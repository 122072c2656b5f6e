/* table.h - the one knob table: for each knob its slot, its backends, and every name and unit by
 * which configuration, the settings stack, the sweep grid, the tuning model, reports and the
 * command line know it.  Adding a knob is a row in table.c plus its backend file. */
#ifndef ERGO_KNOBS_TABLE_H
#define ERGO_KNOBS_TABLE_H

#include "optimizer/space.h"

#include <stddef.h>

/* Knob slots: the order of the table's rows, of ergo_setting's fields and of the optimizer's
 * dimensions. */
enum { ERGO__KNOB_CORE = 0, ERGO__KNOB_UNCORE = 1, ERGO__KNOB_THREADS = 2, ERGO__NKNOBS = 3 };
_Static_assert(ERGO__NKNOBS == ERGO__SPACE_DIMS,
               "one optimizer dimension per knob: set ERGO__SPACE_DIMS in optimizer/space.h");

struct ergo__knob_ops;

typedef struct ergo__knob_row {
  const char *key;     /* ERGO_FIXED, ERGO_SWEEP, `ergo sweep --grid`: "cpu" */
  const char *backend; /* ERGO_KNOBS, `ergo info`, the model's node description: "cpufreq" */
  const char *field;   /* the tuning model's configs and ergo_setting's field: "core_khz" */
  const char *unit;    /* "kHz" */
  const char *column;  /* short display name for tables: "core" */
  const struct ergo__knob_ops *real; /* the machine's backend */
  const struct ergo__knob_ops *sim;  /* the sim node's backend */
} ergo__knob_row;

extern const ergo__knob_row ergo__knob_table[ERGO__NKNOBS];

/* The slot whose key / backend / field is the len characters at s, or -1. */
int ergo__knob_by_key(const char *s, size_t len);
int ergo__knob_by_backend(const char *s, size_t len);
int ergo__knob_by_field(const char *s, size_t len);

/* ERGO_KNOBS: "auto", "none" or a comma list of backend names (a trailing comma is ignored; ""
 * names none).  0, or ERGO_EINVAL with one line in why naming the item that is no knob and the
 * accepted names. */
int ergo__knob_list_check(const char *list, char *why, size_t whylen);
/* "a, b, c" of a column of the table (offsetof a const char * field of ergo__knob_row). */
const char *ergo__knob_names(size_t member, char *out, size_t outlen);

#endif
