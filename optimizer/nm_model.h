/* nm_model.h - a separable quadratic response surface (log time, log energy, resource) over the
 * optimiser's search coordinates, fitted by weighted least squares to the points measured. */
#ifndef ERGO_OPTIMIZER_NM_MODEL_H
#define ERGO_OPTIMIZER_NM_MODEL_H

#include "optimizer/nm.h"
#include "optimizer/objective.h"

/* Terms: 1, then y[k] and y[k]^2 for each dimension.  No cross terms: with a
 * few dozen noisy points they cannot be pinned down, and unpinned curvature
 * throws the model's minimum into a corner. */
#define ERGO__NM_MODEL_TERMS (1 + 2 * ERGO__NM_MAX_DIMS)

/* One measured point: its coordinates (each in [0, 1]), weight (its number
 * of measurements) and mean log time, mean log energy and mean resource. */
typedef struct ergo__nm_sample {
  double y[ERGO__NM_MAX_DIMS];
  double w, log_t, log_e, r;
} ergo__nm_sample;

typedef struct ergo__nm_model {
  int ok, dims;
  double ct[ERGO__NM_MODEL_TERMS], ce[ERGO__NM_MODEL_TERMS], cr[ERGO__NM_MODEL_TERMS];
  double lo[ERGO__NM_MAX_DIMS], hi[ERGO__NM_MAX_DIMS]; /* the box the samples span */
} ergo__nm_model;

/* Fit m to n samples in `dims` dimensions (weighted least squares by GSL's SVD, so a dimension
 * the samples do not vary in is dropped rather than failing).  1 on success; 0 (m->ok = 0) with
 * too few samples (fewer than terms + 3), no memory or a non-finite result. */
int ergo__nm_model_fit(ergo__nm_model *m, int dims, const ergo__nm_sample *s, int n);

/* The measure the model predicts at y. */
void ergo__nm_model_predict(const ergo__nm_model *m, const double *y, ergo__measure *out);

/* 1 when y lies within `extra` (coordinate units) of the box the samples span:
 * where the model interpolates, or extrapolates a little. */
int ergo__nm_model_covers(const ergo__nm_model *m, const double *y, double extra);

#endif
