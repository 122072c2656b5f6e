/* space.h - the search space every optimiser works in: a few dimensions (one per knob, named by
 * the knob table above this layer), each with its allowed values, and a point in it. */
#ifndef ERGO_OPTIMIZER_SPACE_H
#define ERGO_OPTIMIZER_SPACE_H

#include <stdint.h>

/* Dimensions of the space: one per knob of knobs/table.c (which asserts the two agree). */
#define ERGO__SPACE_DIMS 3
/* Allowed values of one dimension, at most. */
#define ERGO__SPACE_MAX_VALUES 256

/* A point: one value per dimension (knob slot); 0 = inherit the parent's value. */
typedef struct ergo__config {
  int64_t v[ERGO__SPACE_DIMS];
} ergo__config;

/* The allowed values of every dimension that is open (an absent knob has n[i] == 0 and is not
 * searched). */
typedef struct ergo__space {
  int n[ERGO__SPACE_DIMS];
  int64_t values[ERGO__SPACE_DIMS][ERGO__SPACE_MAX_VALUES]; /* ascending */
  int64_t baseline[ERGO__SPACE_DIMS];                       /* the untuned values (at start) */
  int cores;                                                /* for the resource term */
} ergo__space;

/* Round v to the nearest allowed value of dimension i (ties go down); 0 when i is absent. */
int64_t ergo__space_round(const ergo__space *s, int i, int64_t v);

#endif
