/* nm_model.c - weighted least squares of a separable quadratic: normal equations, Cholesky. */
#include "optimizer/nm_model.h"

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

/* Solve A x = b in place for a symmetric positive definite A (n <= P); 0 if
 * A is not positive definite.  Ten unknowns at most: no library needed. */
static int cholesky_solve(double A[P][P], double *b, int n) {
  for (int j = 0; j < n; j++) {
    double d = A[j][j];
    for (int k = 0; k < j; k++) d -= A[j][k] * A[j][k];
    if (!(d > 0)) return 0;
    A[j][j] = sqrt(d);
    for (int i = j + 1; i < n; i++) {
      double v = A[i][j];
      for (int k = 0; k < j; k++) v -= A[i][k] * A[j][k];
      A[i][j] = v / A[j][j];
    }
  }
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i; k++) b[i] -= A[i][k] * b[k];
    b[i] /= A[i][i];
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int k = i + 1; k < n; k++) b[i] -= A[k][i] * b[k];
    b[i] /= A[i][i];
  }
  return 1;
}

int ergo__nm_model_fit(ergo__nm_model *m, int dims, const ergo__nm_sample *s, int n) {
  memset(m, 0, sizeof *m);
  m->dims = dims;
  double f[P], A[P][P] = {{0}}, bt[P] = {0}, be[P] = {0}, br[P] = {0}, wsum = 0;
  int np = 1 + 2 * dims;
  if (dims < 1 || dims > ERGO__NM_MAX_DIMS || n < np + 3) return 0;
  for (int a = 0; a < dims; a++) m->lo[a] = 1, m->hi[a] = 0;
  for (int i = 0; i < n; i++) {
    terms(dims, s[i].y, f);
    for (int a = 0; a < dims; a++) {
      if (s[i].y[a] < m->lo[a]) m->lo[a] = s[i].y[a];
      if (s[i].y[a] > m->hi[a]) m->hi[a] = s[i].y[a];
    }
    double w = s[i].w;
    wsum += w;
    for (int j = 0; j < np; j++) {
      for (int k = 0; k <= j; k++) A[j][k] += w * f[j] * f[k];
      bt[j] += w * f[j] * s[i].log_t;
      be[j] += w * f[j] * s[i].log_e;
      br[j] += w * f[j] * s[i].r;
    }
  }
  /* A whisker of ridge keeps a dimension the samples do not vary in (all
   * points at one level) from making the system singular. */
  for (int j = 0; j < np; j++) {
    A[j][j] += 1e-9 * wsum;
    for (int k = j + 1; k < np; k++) A[j][k] = A[k][j];
  }
  double *rhs[3] = {bt, be, br}, *out[3] = {m->ct, m->ce, m->cr};
  for (int r = 0; r < 3; r++) {
    double L[P][P];
    memcpy(L, A, sizeof L);
    if (!cholesky_solve(L, rhs[r], np)) return 0;
    memcpy(out[r], rhs[r], sizeof(double) * (size_t)np);
  }
  m->ok = 1;
  return 1;
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
