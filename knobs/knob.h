/* knob.h - the interface every knob implements (core frequency, uncore frequency, threads). */
#ifndef ERGO_KNOBS_KNOB_H
#define ERGO_KNOBS_KNOB_H

#include "knobs/table.h"
#include "optimizer/space.h"

#include <stddef.h>
#include <stdint.h>

#define ERGO__KNOB_MAX_VALUES ERGO__SPACE_MAX_VALUES
#define ERGO__KNOB_WHY_LEN 512

typedef struct ergo__knob ergo__knob;

/* A backend (PAPI component style): one file in knobs/, named in its row of the knob table
 * (knobs/table.c), which holds its names and unit. */
typedef struct ergo__knob_ops {
  /* Discover the knob for the CPUs this process may run on; fill k->values
   * (ascending, distinct) and k->nvalues, k->priv.  On failure return a
   * negative ERGO_E*, release everything, and write one line into why: what
   * is missing or refused, and what to do (not root, no driver, read-only). */
  int (*open)(ergo__knob *k, char *why, size_t whylen);
  /* The value now in force, as the system reports it (one of values when
   * ergo set it; possibly another when something else did). */
  int (*get)(ergo__knob *k, int64_t *value);
  /* Put `value` in force: one of k->values, or k->original (the value in
   * force before ergo's first change, which the way back must reach even when
   * it is off the grid, e.g. OMP_NUM_THREADS above the cores).  Anything else
   * is ERGO_EINVAL with nothing written.  Only called when the value differs
   * from the last one set; never called before save(). */
  int (*set)(ergo__knob *k, int64_t value);
  /* Call ergo__state_track() on every file set() may write, so the original
   * contents are on disk before the first change.  Knobs without files
   * (threads) save nothing.  A domain (policy, die) another live process
   * claims (ERGO_EBUSY) is dropped from what set() writes, with one line;
   * ERGO_EBUSY when that leaves nothing: the knob is left alone. */
  int (*save)(ergo__knob *k);
  /* Put back what open() found, for knobs that state files cannot restore
   * (threads); file-backed knobs leave this NULL: knobs/state_restore.c restores them. */
  void (*restore)(ergo__knob *k);
  void (*close)(ergo__knob *k);
  /* Optional: 1 when set() would have no effect on the code about to run, so the settings
   * stack leaves the knob alone (threads: inside a parallel team, whose size is fixed).  On
   * the hot path: called only when a value is wanted for the knob, and must be cheap. */
  int (*inert)(const ergo__knob *k);
} ergo__knob_ops;

struct ergo__knob {
  const ergo__knob_row *row; /* its names and unit (set by knobs.c when it opens the knob) */
  const ergo__knob_ops *ops;
  int64_t values[ERGO__KNOB_MAX_VALUES];
  int nvalues;
  void *priv;
  /* settings.c: what ergo last put in force, so an unchanged value costs nothing */
  int64_t current;
  int current_valid;
  int saved;
  int left_alone;   /* save() found every file claimed by another process: never set */
  int64_t original; /* get() before the first change; valid once saved */
  uint64_t sets;    /* set() calls that reached the backend */
};

/* 1 when set() may put v in force: an allowed value, or the original (settings.c). */
int ergo__knob_settable(const ergo__knob *k, int64_t v);

extern const ergo__knob_ops ergo__knob_cpufreq;
extern const ergo__knob_ops ergo__knob_uncore;
extern const ergo__knob_ops ergo__knob_threads;
/* The sim node's (knobs/sim.c): the same rows, so reports and policies cannot tell. */
extern const ergo__knob_ops ergo__knob_sim_core;
extern const ergo__knob_ops ergo__knob_sim_uncore;
extern const ergo__knob_ops ergo__knob_sim_threads;

#endif
