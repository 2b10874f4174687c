// OpenBLAS's single-precision matrix product, loaded on first use (see blas.c).
#ifndef CBLAS_LOADER_H
#define CBLAS_LOADER_H
#include <stddef.h>

/// Loads OpenBLAS (libopenblas.so.0) once and keeps it on one thread: 1, or 0 with why in `error`.
int fsindex_blas_load(char *error, size_t size);

/// C = alpha · op(A) · op(B) + beta · C, row-major; op(X) is X, or Xᵀ when `transposeX`.
/// Only after fsindex_blas_load returned 1.
void fsindex_sgemm(int transposeA, int transposeB, int m, int n, int k, float alpha,
                   const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);

#endif
