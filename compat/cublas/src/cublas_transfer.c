/* SPDX-License-Identifier: Apache-2.0
 * cublasSetVector, cublasGetMatrix and the other transfer helpers, with
 * their Async forms. */
#include <string.h>

#include "cublas_internal.h"

/* ---- vector and matrix transfers ------------------------------------------------------
 * Host and "device" memory are the same memory: these are strided copies
 * with cuBLAS's checks (no handle needed, as in cuBLAS). */
static cublasStatus_t
copy_vector(int n, int elemSize, const void *x, int incx, void *y, int incy)
{
    if (n < 0 || elemSize <= 0 || incx <= 0 || incy <= 0 || (n > 0 && (x == NULL || y == NULL)))
        return CUBLAS_STATUS_INVALID_VALUE;
    const char *src = x;
    char *dst = y;
    size_t es = (size_t)elemSize;
    if (incx == 1 && incy == 1) {
        memmove(dst, src, (size_t)n * es);
        return CUBLAS_STATUS_SUCCESS;
    }
    for (size_t i = 0; i < (size_t)n; i++)
        memmove(dst + i * (size_t)incy * es, src + i * (size_t)incx * es, es);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t
copy_matrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb)
{
    if (rows < 0 || cols < 0 || elemSize <= 0 || lda <= 0 || ldb <= 0 || lda < rows || ldb < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (rows == 0 || cols == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (A == NULL || B == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    const char *src = A;
    char *dst = B;
    size_t es = (size_t)elemSize;
    for (size_t j = 0; j < (size_t)cols; j++)
        memmove(dst + j * (size_t)ldb * es, src + j * (size_t)lda * es, (size_t)rows * es);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasSetVector(int n, int elemSize, const void *x, int incx, void *devicePtr, int incy)
{
    return copy_vector(n, elemSize, x, incx, devicePtr, incy);
}

cublasStatus_t
cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy)
{
    return copy_vector(n, elemSize, x, incx, y, incy);
}

cublasStatus_t
cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb)
{
    return copy_matrix(rows, cols, elemSize, A, lda, B, ldb);
}

cublasStatus_t
cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb)
{
    return copy_matrix(rows, cols, elemSize, A, lda, B, ldb);
}

cublasStatus_t
cublasSetVectorAsync(int n, int elemSize, const void *hostPtr, int incx, void *devicePtr, int incy,
                     cudaStream_t stream)
{
    (void)stream;
    return copy_vector(n, elemSize, hostPtr, incx, devicePtr, incy);
}

cublasStatus_t
cublasGetVectorAsync(int n, int elemSize, const void *devicePtr, int incx, void *hostPtr, int incy,
                     cudaStream_t stream)
{
    (void)stream;
    return copy_vector(n, elemSize, devicePtr, incx, hostPtr, incy);
}

cublasStatus_t
cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb,
                     cudaStream_t stream)
{
    (void)stream;
    return copy_matrix(rows, cols, elemSize, A, lda, B, ldb);
}

cublasStatus_t
cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb,
                     cudaStream_t stream)
{
    (void)stream;
    return copy_matrix(rows, cols, elemSize, A, lda, B, ldb);
}
