/* SPDX-License-Identifier: Apache-2.0
 * The 64-bit-integer entry points of cuBLAS 12 (cublasSgemm_v2_64, ...):
 * the same functions with int64_t sizes, increments, leading dimensions and
 * batch counts.  Each checks the handle, narrows every integer to int and
 * calls the 32-bit entry point.  A value beyond int is
 * CUBLAS_STATUS_INVALID_VALUE when negative (it is invalid at any width) and
 * CUBLAS_STATUS_NOT_SUPPORTED when positive (legal, not done here: no
 * single dimension above 2^31 - 1). */
#include <limits.h>
#include <stdint.h>

#include "cublas_internal.h"

/* Returns from the calling function when v does not fit an int. */
#define FIT(v)                                                                                      \
    do {                                                                                            \
        if ((v) < INT_MIN || (v) > INT_MAX)                                                         \
            return (v) < 0 ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_NOT_SUPPORTED;             \
    } while (0)

#define HANDLE(h)                                                                                   \
    do {                                                                                            \
        cublasStatus_t st_ = fdnn_cublas_check(h);                                                  \
        if (st_ != CUBLAS_STATUS_SUCCESS)                                                           \
            return st_;                                                                             \
    } while (0)

/* ---- transfers ------------------------------------------------------------------------ */
cublasStatus_t
cublasSetVector_64(int64_t n, int64_t elemSize, const void *x, int64_t incx, void *devicePtr, int64_t incy)
{
    FIT(n); FIT(elemSize); FIT(incx); FIT(incy);
    return cublasSetVector((int)n, (int)elemSize, x, (int)incx, devicePtr, (int)incy);
}

cublasStatus_t
cublasGetVector_64(int64_t n, int64_t elemSize, const void *x, int64_t incx, void *y, int64_t incy)
{
    FIT(n); FIT(elemSize); FIT(incx); FIT(incy);
    return cublasGetVector((int)n, (int)elemSize, x, (int)incx, y, (int)incy);
}

cublasStatus_t
cublasSetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize, const void *A, int64_t lda, void *B, int64_t ldb)
{
    FIT(rows); FIT(cols); FIT(elemSize); FIT(lda); FIT(ldb);
    return cublasSetMatrix((int)rows, (int)cols, (int)elemSize, A, (int)lda, B, (int)ldb);
}

cublasStatus_t
cublasGetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize, const void *A, int64_t lda, void *B, int64_t ldb)
{
    FIT(rows); FIT(cols); FIT(elemSize); FIT(lda); FIT(ldb);
    return cublasGetMatrix((int)rows, (int)cols, (int)elemSize, A, (int)lda, B, (int)ldb);
}

/* ---- level 1, level 2, geam, trsm for one real type ------------------------------------ */
#define FDNN_REAL_64(P, IP, T)                                                                        \
    cublasStatus_t cublas##P##axpy_v2_64(cublasHandle_t handle, int64_t n, const T *alpha, const T *x,   \
                                         int64_t incx, T *y, int64_t incy)                               \
    {                                                                                                 \
        HANDLE(handle); FIT(n); FIT(incx); FIT(incy);                                                 \
        return cublas##P##axpy_v2(handle, (int)n, alpha, x, (int)incx, y, (int)incy);                 \
    }                                                                                                 \
    cublasStatus_t cublas##P##scal_v2_64(cublasHandle_t handle, int64_t n, const T *alpha, T *x, int64_t incx) \
    {                                                                                                 \
        HANDLE(handle); FIT(n); FIT(incx);                                                            \
        return cublas##P##scal_v2(handle, (int)n, alpha, x, (int)incx);                               \
    }                                                                                                 \
    cublasStatus_t cublas##P##dot_v2_64(cublasHandle_t handle, int64_t n, const T *x, int64_t incx, const T *y, \
                                        int64_t incy, T *result)                                         \
    {                                                                                                 \
        HANDLE(handle); FIT(n); FIT(incx); FIT(incy);                                                 \
        return cublas##P##dot_v2(handle, (int)n, x, (int)incx, y, (int)incy, result);                 \
    }                                                                                                 \
    cublasStatus_t cublas##P##nrm2_v2_64(cublasHandle_t handle, int64_t n, const T *x, int64_t incx, T *result) \
    {                                                                                                 \
        HANDLE(handle); FIT(n); FIT(incx);                                                            \
        return cublas##P##nrm2_v2(handle, (int)n, x, (int)incx, result);                             \
    }                                                                                                 \
    cublasStatus_t cublas##P##asum_v2_64(cublasHandle_t handle, int64_t n, const T *x, int64_t incx, T *result) \
    {                                                                                                 \
        HANDLE(handle); FIT(n); FIT(incx);                                                            \
        return cublas##P##asum_v2(handle, (int)n, x, (int)incx, result);                             \
    }                                                                                                 \
    cublasStatus_t cublasI##IP##amax_v2_64(cublasHandle_t handle, int64_t n, const T *x, int64_t incx,  \
                                           int64_t *result)                                           \
    {                                                                                                 \
        HANDLE(handle); FIT(n); FIT(incx);                                                            \
        if (result == NULL)                                                                           \
            return CUBLAS_STATUS_INVALID_VALUE;                                                       \
        int r = 0;                                                                                    \
        cublasStatus_t st = cublasI##IP##amax_v2(handle, (int)n, x, (int)incx, &r);                   \
        if (st == CUBLAS_STATUS_SUCCESS)                                                              \
            *result = r;                                                                              \
        return st;                                                                                    \
    }                                                                                                 \
    cublasStatus_t cublasI##IP##amin_v2_64(cublasHandle_t handle, int64_t n, const T *x, int64_t incx,  \
                                           int64_t *result)                                           \
    {                                                                                                 \
        HANDLE(handle); FIT(n); FIT(incx);                                                            \
        if (result == NULL)                                                                           \
            return CUBLAS_STATUS_INVALID_VALUE;                                                       \
        int r = 0;                                                                                    \
        cublasStatus_t st = cublasI##IP##amin_v2(handle, (int)n, x, (int)incx, &r);                   \
        if (st == CUBLAS_STATUS_SUCCESS)                                                              \
            *result = r;                                                                              \
        return st;                                                                                    \
    }                                                                                                 \
    cublasStatus_t cublas##P##copy_v2_64(cublasHandle_t handle, int64_t n, const T *x, int64_t incx, T *y,  \
                                         int64_t incy)                                                   \
    {                                                                                                 \
        HANDLE(handle); FIT(n); FIT(incx); FIT(incy);                                                 \
        return cublas##P##copy_v2(handle, (int)n, x, (int)incx, y, (int)incy);                       \
    }                                                                                                 \
    cublasStatus_t cublas##P##swap_v2_64(cublasHandle_t handle, int64_t n, T *x, int64_t incx, T *y,       \
                                         int64_t incy)                                                   \
    {                                                                                                 \
        HANDLE(handle); FIT(n); FIT(incx); FIT(incy);                                                 \
        return cublas##P##swap_v2(handle, (int)n, x, (int)incx, y, (int)incy);                       \
    }                                                                                                 \
    cublasStatus_t cublas##P##gemv_v2_64(cublasHandle_t handle, cublasOperation_t trans, int64_t m, int64_t n, \
                                         const T *alpha, const T *A, int64_t lda, const T *x, int64_t incx,  \
                                         const T *beta, T *y, int64_t incy)                              \
    {                                                                                                 \
        HANDLE(handle); FIT(m); FIT(n); FIT(lda); FIT(incx); FIT(incy);                               \
        return cublas##P##gemv_v2(handle, trans, (int)m, (int)n, alpha, A, (int)lda, x, (int)incx, beta, y, \
                                  (int)incy);                                                         \
    }                                                                                                 \
    cublasStatus_t cublas##P##ger_v2_64(cublasHandle_t handle, int64_t m, int64_t n, const T *alpha, const T *x, \
                                        int64_t incx, const T *y, int64_t incy, T *A, int64_t lda)        \
    {                                                                                                 \
        HANDLE(handle); FIT(m); FIT(n); FIT(incx); FIT(incy); FIT(lda);                               \
        return cublas##P##ger_v2(handle, (int)m, (int)n, alpha, x, (int)incx, y, (int)incy, A, (int)lda); \
    }                                                                                                 \
    cublasStatus_t cublas##P##geam_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, \
                                      int64_t m, int64_t n, const T *alpha, const T *A, int64_t lda,     \
                                      const T *beta, const T *B, int64_t ldb, T *C, int64_t ldc)         \
    {                                                                                                 \
        HANDLE(handle); FIT(m); FIT(n); FIT(lda); FIT(ldb); FIT(ldc);                                 \
        return cublas##P##geam(handle, transa, transb, (int)m, (int)n, alpha, A, (int)lda, beta, B, (int)ldb, C, \
                               (int)ldc);                                                             \
    }                                                                                                 \
    cublasStatus_t cublas##P##trsm_v2_64(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, \
                                         cublasOperation_t trans, cublasDiagType_t diag, int64_t m, int64_t n, \
                                         const T *alpha, const T *A, int64_t lda, T *B, int64_t ldb)     \
    {                                                                                                 \
        HANDLE(handle); FIT(m); FIT(n); FIT(lda); FIT(ldb);                                           \
        return cublas##P##trsm_v2(handle, side, uplo, trans, diag, (int)m, (int)n, alpha, A, (int)lda, B, \
                                  (int)ldb);                                                          \
    }

FDNN_REAL_64(S, s, float)
FDNN_REAL_64(D, d, double)

/* ---- the GEMM family -------------------------------------------------------------------- */
#define FIT_GEMM() do { FIT(m); FIT(n); FIT(k); FIT(lda); FIT(ldb); FIT(ldc); } while (0)

#define FDNN_GEMM_64(P, T, plain)                                                                     \
    cublasStatus_t cublas##P##gemm##plain##_64(cublasHandle_t handle, cublasOperation_t transa,         \
                                               cublasOperation_t transb, int64_t m, int64_t n, int64_t k, \
                                               const T *alpha, const T *A, int64_t lda, const T *B,     \
                                               int64_t ldb, const T *beta, T *C, int64_t ldc)          \
    {                                                                                                 \
        HANDLE(handle); FIT_GEMM();                                                                   \
        return cublas##P##gemm##plain(handle, transa, transb, (int)m, (int)n, (int)k, alpha, A, (int)lda, B, \
                                      (int)ldb, beta, C, (int)ldc);                                   \
    }                                                                                                 \
    cublasStatus_t cublas##P##gemmBatched_64(cublasHandle_t handle, cublasOperation_t transa,          \
                                             cublasOperation_t transb, int64_t m, int64_t n, int64_t k,   \
                                             const T *alpha, const T *const Aarray[], int64_t lda,       \
                                             const T *const Barray[], int64_t ldb, const T *beta,        \
                                             T *const Carray[], int64_t ldc, int64_t batchCount)         \
    {                                                                                                 \
        HANDLE(handle); FIT_GEMM(); FIT(batchCount);                                                  \
        return cublas##P##gemmBatched(handle, transa, transb, (int)m, (int)n, (int)k, alpha, Aarray, (int)lda, \
                                      Barray, (int)ldb, beta, Carray, (int)ldc, (int)batchCount);      \
    }                                                                                                 \
    cublasStatus_t cublas##P##gemmStridedBatched_64(                                                   \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n, int64_t k, \
        const T *alpha, const T *A, int64_t lda, long long int strideA, const T *B, int64_t ldb,         \
        long long int strideB, const T *beta, T *C, int64_t ldc, long long int strideC, int64_t batchCount) \
    {                                                                                                 \
        HANDLE(handle); FIT_GEMM(); FIT(batchCount);                                                  \
        return cublas##P##gemmStridedBatched(handle, transa, transb, (int)m, (int)n, (int)k, alpha, A, (int)lda, \
                                             strideA, B, (int)ldb, strideB, beta, C, (int)ldc, strideC, \
                                             (int)batchCount);                                         \
    }

FDNN_GEMM_64(S, float, _v2)
FDNN_GEMM_64(D, double, _v2)
FDNN_GEMM_64(H, __half, )

cublasStatus_t
cublasSgemmEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n,
                 int64_t k, const float *alpha, const void *A, cudaDataType Atype, int64_t lda, const void *B,
                 cudaDataType Btype, int64_t ldb, const float *beta, void *C, cudaDataType Ctype, int64_t ldc)
{
    HANDLE(handle);
    FIT_GEMM();
    return cublasSgemmEx(handle, transa, transb, (int)m, (int)n, (int)k, alpha, A, Atype, (int)lda, B, Btype,
                         (int)ldb, beta, C, Ctype, (int)ldc);
}

cublasStatus_t
cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n,
                int64_t k, const void *alpha, const void *A, cudaDataType Atype, int64_t lda, const void *B,
                cudaDataType Btype, int64_t ldb, const void *beta, void *C, cudaDataType Ctype, int64_t ldc,
                cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    HANDLE(handle);
    FIT_GEMM();
    return cublasGemmEx(handle, transa, transb, (int)m, (int)n, (int)k, alpha, A, Atype, (int)lda, B, Btype,
                        (int)ldb, beta, C, Ctype, (int)ldc, computeType, algo);
}

cublasStatus_t
cublasGemmBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m,
                       int64_t n, int64_t k, const void *alpha, const void *const Aarray[], cudaDataType Atype,
                       int64_t lda, const void *const Barray[], cudaDataType Btype, int64_t ldb, const void *beta,
                       void *const Carray[], cudaDataType Ctype, int64_t ldc, int64_t batchCount,
                       cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    HANDLE(handle);
    FIT_GEMM();
    FIT(batchCount);
    return cublasGemmBatchedEx(handle, transa, transb, (int)m, (int)n, (int)k, alpha, Aarray, Atype, (int)lda,
                               Barray, Btype, (int)ldb, beta, Carray, Ctype, (int)ldc, (int)batchCount, computeType,
                               algo);
}

cublasStatus_t
cublasGemmStridedBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m,
                              int64_t n, int64_t k, const void *alpha, const void *A, cudaDataType Atype,
                              int64_t lda, long long int strideA, const void *B, cudaDataType Btype, int64_t ldb,
                              long long int strideB, const void *beta, void *C, cudaDataType Ctype, int64_t ldc,
                              long long int strideC, int64_t batchCount, cublasComputeType_t computeType,
                              cublasGemmAlgo_t algo)
{
    HANDLE(handle);
    FIT_GEMM();
    FIT(batchCount);
    return cublasGemmStridedBatchedEx(handle, transa, transb, (int)m, (int)n, (int)k, alpha, A, Atype, (int)lda,
                                      strideA, B, Btype, (int)ldb, strideB, beta, C, Ctype, (int)ldc, strideC,
                                      (int)batchCount, computeType, algo);
}
