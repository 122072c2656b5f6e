/* nm_model.c - weighted least squares of a separable quadratic, by GSL's SVD fit. */
#include "optimizer/nm_model.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include <math.h>
#include <string.h>

#define P ERGO__NM_MODEL_TERMS

static int terms(int dims, const double *y, double *f) {
  int k = 0;
  f[k++] = 1;
  for (int a = 0; a < dims; a++) {
    f[k++] = y[a];
    f[k++] = y[a] * y[a];
  }
  return k;
}

int ergo__nm_model_fit(ergo__nm_model *m, int dims, const ergo__nm_sample *s, int n) {
  memset(m, 0, sizeof *m);
  m->dims = dims;
  int np = 1 + 2 * dims;
  if (dims < 1 || dims > ERGO__NM_MAX_DIMS || n < np + 3) return 0;
  for (int a = 0; a < dims; a++) m->lo[a] = 1, m->hi[a] = 0;
  /* GSL's default handler aborts; a failure here is a model not fitted. */
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  gsl_matrix *X = gsl_matrix_alloc((size_t)n, (size_t)np), *cov = gsl_matrix_alloc(np, np);
  gsl_vector *w = gsl_vector_alloc((size_t)n), *y = gsl_vector_alloc((size_t)n),
             *c = gsl_vector_alloc((size_t)np);
  gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)n, (size_t)np);
  int ok = X && cov && w && y && c && ws;
  for (int i = 0; ok && i < n; i++) {
    double f[P];
    terms(dims, s[i].y, f);
    for (int a = 0; a < dims; a++) {
      if (s[i].y[a] < m->lo[a]) m->lo[a] = s[i].y[a];
      if (s[i].y[a] > m->hi[a]) m->hi[a] = s[i].y[a];
    }
    for (int j = 0; j < np; j++) gsl_matrix_set(X, (size_t)i, (size_t)j, f[j]);
    gsl_vector_set(w, (size_t)i, s[i].w);
  }
  /* Weighted least squares by SVD (gsl_multifit_wlinear): a dimension the samples do not vary
   * in (all points at one level) is rank-deficient, and the SVD drops it rather than failing. */
  double *out[3] = {m->ct, m->ce, m->cr};
  for (int r = 0; ok && r < 3; r++) {
    for (int i = 0; i < n; i++)
      gsl_vector_set(y, (size_t)i, r == 0 ? s[i].log_t : r == 1 ? s[i].log_e : s[i].r);
    double chisq;
    ok = gsl_multifit_wlinear(X, w, y, c, cov, &chisq, ws) == GSL_SUCCESS;
    for (int j = 0; ok && j < np; j++) {
      out[r][j] = gsl_vector_get(c, (size_t)j);
      ok = isfinite(out[r][j]);
    }
  }
  gsl_multifit_linear_free(ws);
  gsl_vector_free(c);
  gsl_vector_free(y);
  gsl_vector_free(w);
  gsl_matrix_free(cov);
  gsl_matrix_free(X);
  gsl_set_error_handler(old);
  m->ok = ok;
  return ok;
}

void ergo__nm_model_predict(const ergo__nm_model *m, const double *y, ergo__measure *out) {
  double f[P], t = 0, e = 0, r = 0;
  int np = terms(m->dims, y, f);
  for (int j = 0; j < np; j++) {
    t += m->ct[j] * f[j];
    e += m->ce[j] * f[j];
    r += m->cr[j] * f[j];
  }
  out->time_s = exp(t);
  out->energy_j = exp(e);
  out->resource = r;
}

int ergo__nm_model_covers(const ergo__nm_model *m, const double *y, double extra) {
  for (int a = 0; a < m->dims; a++)
    if (y[a] < m->lo[a] - extra - 1e-9 || y[a] > m->hi[a] + extra + 1e-9) return 0;
  return 1;
}
