/* SPDX-License-Identifier: Apache-2.0
 * The GEMM family: ?gemm, Hgemm, SgemmEx, GemmEx and their batched and
 * strided-batched forms.
 *
 * FP32 and FP64 products go straight to the GEMM core.  FP16, BF16 and
 * INT8 operands are widened to FP32 (exactly), multiplied on the FP32 core, and
 * the result rounded once to C's type (nearest even).  That is the
 * CUBLAS_COMPUTE_32F contract; Hgemm and CUBLAS_COMPUTE_16F, which on a GPU
 * accumulate in FP16, are computed the same way here, so they are more
 * accurate than a GPU's and may differ from it in the last bits. */
#include <stdlib.h>
#include <string.h>

#include "cublas_internal.h"

cublasStatus_t
cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
               const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta, float *C,
               int ldc)
{
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = fdnn_cublas_check_gemm(transa, transb, m, n, k, lda, ldb, ldc);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (alpha == NULL || beta == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    bool ta, tb;
    fdnn_cublas_trans(transa, &ta);
    fdnn_cublas_trans(transb, &tb);
    return fdnn_cublas_sgemm(handle, ta, tb, (size_t)m, (size_t)n, (size_t)k, *alpha, A, (size_t)lda, B,
                             (size_t)ldb, *beta, C, (size_t)ldc);
}

cublasStatus_t
cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
               const double *alpha, const double *A, int lda, const double *B, int ldb, const double *beta,
               double *C, int ldc)
{
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = fdnn_cublas_check_gemm(transa, transb, m, n, k, lda, ldb, ldc);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (alpha == NULL || beta == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    bool ta, tb;
    fdnn_cublas_trans(transa, &ta);
    fdnn_cublas_trans(transb, &tb);
    return fdnn_cublas_dgemm(handle, ta, tb, (size_t)m, (size_t)n, (size_t)k, *alpha, A, (size_t)lda, B,
                             (size_t)ldb, *beta, C, (size_t)ldc);
}

/* ---- mixed precision ------------------------------------------------------------------ */

static size_t
type_size(cudaDataType t)
{
    switch (t) {
    case CUDA_R_8I: return 1;
    case CUDA_R_16F:
    case CUDA_R_16BF: return 2;
    case CUDA_R_32F: return 4;
    case CUDA_R_64F: return 8;
    default: return 0;
    }
}

static float
load_f32(const void *p, cudaDataType t, size_t i)
{
    switch (t) {
    case CUDA_R_16F: return __half2float(((const __half *)p)[i]);
    case CUDA_R_16BF: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
    case CUDA_R_8I: return (float)((const signed char *)p)[i];
    default: return ((const float *)p)[i];
    }
}

static void
store_f32(void *p, cudaDataType t, size_t i, float v)
{
    switch (t) {
    case CUDA_R_16F: ((__half *)p)[i] = __float2half_rn(v); break;
    case CUDA_R_16BF: ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v); break;
    default: ((float *)p)[i] = v; break;
    }
}

/* A column-major rows x cols matrix of type t as FP32 with ld = rows
 * (NULL when it cannot be allocated). */
static float *
widen(const void *x, cudaDataType t, size_t rows, size_t cols, size_t ld)
{
    float *out = malloc(rows * cols * sizeof(float) + 1);
    if (out == NULL)
        return NULL;
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++)
            out[j * rows + i] = load_f32(x, t, j * ld + i);
    return out;
}

/* The FP32-compute product for A, B each FP32, FP16, BF16 or INT8 and C
 * FP32, FP16 or BF16 (the combination checked by the caller). */
static cublasStatus_t
gemm_f32_compute(cublasHandle_t h, bool ta, bool tb, size_t m, size_t n, size_t k, float alpha, const void *A,
                 cudaDataType at, size_t lda, const void *B, cudaDataType bt, size_t ldb, float beta, void *C,
                 cudaDataType ct, size_t ldc)
{
    if (at == CUDA_R_32F && bt == CUDA_R_32F && ct == CUDA_R_32F)
        return fdnn_cublas_sgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    bool read_ab = alpha != 0.0f && k > 0;
    float *a32 = NULL, *b32 = NULL, *c32 = NULL;
    const float *a = NULL, *b = NULL;
    size_t lda32 = ta ? k : m, ldb32 = tb ? n : k;
    cublasStatus_t st = CUBLAS_STATUS_ALLOC_FAILED;
    if (read_ab) {
        if (at == CUDA_R_32F) {
            a = A;
            lda32 = lda;
        } else if ((a = a32 = widen(A, at, ta ? k : m, ta ? m : k, lda)) == NULL) {
            goto done;
        }
        if (bt == CUDA_R_32F) {
            b = B;
            ldb32 = ldb;
        } else if ((b = b32 = widen(B, bt, tb ? n : k, tb ? k : n, ldb)) == NULL) {
            goto done;
        }
    }
    if (ct == CUDA_R_32F) {
        st = fdnn_cublas_sgemm(h, ta, tb, m, n, k, alpha, a, lda32 ? lda32 : 1, b, ldb32 ? ldb32 : 1, beta, C, ldc);
        goto done;
    }
    if (beta != 0.0f) {
        c32 = widen(C, ct, m, n, ldc);
    } else {
        c32 = malloc(m * n * sizeof(float));
    }
    if (c32 == NULL)
        goto done;
    st = fdnn_cublas_sgemm(h, ta, tb, m, n, k, alpha, a, lda32 ? lda32 : 1, b, ldb32 ? ldb32 : 1, beta, c32, m);
    if (st == CUBLAS_STATUS_SUCCESS)
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < m; i++)
                store_f32(C, ct, j * ldc + i, c32[j * m + i]);
done:
    free(a32);
    free(b32);
    free(c32);
    return st;
}

/* What one product computes in, from a compute type (or, as cuBLAS 10 code
 * passes it, the cudaDataType it stands for). */
typedef enum { COMPUTE_16F, COMPUTE_32F, COMPUTE_64F, COMPUTE_NONE } compute_t;

static compute_t
compute_of(int compute_type)
{
    switch (compute_type) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
    case CUDA_R_16F: return COMPUTE_16F;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUDA_R_32F: return COMPUTE_32F;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUDA_R_64F: return COMPUTE_64F;
    default: return COMPUTE_NONE;
    }
}

/* cuBLAS's table of GemmEx combinations, restricted to real floating types:
 *   16F compute: A, B, C FP16;
 *   32F compute: A = B in {FP16, BF16} with C of the same type or FP32,
 *                A = B INT8 with C FP32, or all FP32;
 *   64F compute: all FP64. */
static bool
combination_ok(compute_t c, cudaDataType at, cudaDataType bt, cudaDataType ct)
{
    switch (c) {
    case COMPUTE_16F: return at == CUDA_R_16F && bt == CUDA_R_16F && ct == CUDA_R_16F;
    case COMPUTE_32F:
        if (at != bt)
            return false;
        if (at == CUDA_R_32F)
            return ct == CUDA_R_32F;
        if (at == CUDA_R_8I)
            return ct == CUDA_R_32F;
        return (at == CUDA_R_16F || at == CUDA_R_16BF) && (ct == at || ct == CUDA_R_32F);
    case COMPUTE_64F: return at == CUDA_R_64F && bt == CUDA_R_64F && ct == CUDA_R_64F;
    default: return false;
    }
}

/* One checked-typed product: alpha and beta point to the compute type's
 * scale type (__half, float or double). */
static cublasStatus_t
gemm_typed(cublasHandle_t h, bool ta, bool tb, int m, int n, int k, const void *alpha, const void *A,
           cudaDataType at, int lda, const void *B, cudaDataType bt, int ldb, const void *beta, void *C,
           cudaDataType ct, int ldc, compute_t c)
{
    if (c == COMPUTE_64F)
        return fdnn_cublas_dgemm(h, ta, tb, (size_t)m, (size_t)n, (size_t)k, *(const double *)alpha, A,
                                 (size_t)lda, B, (size_t)ldb, *(const double *)beta, C, (size_t)ldc);
    float fa, fb;
    if (c == COMPUTE_16F) {
        fa = __half2float(*(const __half *)alpha);
        fb = __half2float(*(const __half *)beta);
    } else {
        fa = *(const float *)alpha;
        fb = *(const float *)beta;
    }
    return gemm_f32_compute(h, ta, tb, (size_t)m, (size_t)n, (size_t)k, fa, A, at, (size_t)lda, B, bt,
                            (size_t)ldb, fb, C, ct, (size_t)ldc);
}

/* Checks shared by every Ex and batched entry point. */
static cublasStatus_t
check_ex(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, int lda, int ldb,
         int ldc, const void *alpha, const void *beta, int batch)
{
    cublasStatus_t st = fdnn_cublas_check(h);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = fdnn_cublas_check_gemm(transa, transb, m, n, k, lda, ldb, ldc);
    if (st == CUBLAS_STATUS_SUCCESS && (batch < 0 || alpha == NULL || beta == NULL))
        st = CUBLAS_STATUS_INVALID_VALUE;
    return st;
}

/* The strided-batched product of any supported combination: every other
 * GEMM entry point of this file ends here (batch 1 and strides 0 for the
 * plain ones), or in batched_ex for pointer arrays. */
static cublasStatus_t
strided_ex(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
           const void *alpha, const void *A, cudaDataType at, int lda, long long sa, const void *B, cudaDataType bt,
           int ldb, long long sb, const void *beta, void *C, cudaDataType ct, int ldc, long long sc, int batch,
           int compute_type)
{
    cublasStatus_t st = check_ex(h, transa, transb, m, n, k, lda, ldb, ldc, alpha, beta, batch);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    compute_t c = compute_of(compute_type);
    if (!combination_ok(c, at, bt, ct))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    bool ta, tb;
    fdnn_cublas_trans(transa, &ta);
    fdnn_cublas_trans(transb, &tb);
    size_t ea = type_size(at), eb = type_size(bt), ec = type_size(ct);
    for (int i = 0; i < batch && st == CUBLAS_STATUS_SUCCESS; i++) {
        const char *a = A != NULL ? (const char *)A + (ptrdiff_t)(i * sa) * (ptrdiff_t)ea : NULL;
        const char *b = B != NULL ? (const char *)B + (ptrdiff_t)(i * sb) * (ptrdiff_t)eb : NULL;
        char *cc = C != NULL ? (char *)C + (ptrdiff_t)(i * sc) * (ptrdiff_t)ec : NULL;
        st = gemm_typed(h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, cc, ct, ldc, c);
    }
    return st;
}

static cublasStatus_t
batched_ex(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
           const void *alpha, const void *const Aarray[], cudaDataType at, int lda, const void *const Barray[],
           cudaDataType bt, int ldb, const void *beta, void *const Carray[], cudaDataType ct, int ldc, int batch,
           int compute_type)
{
    cublasStatus_t st = check_ex(h, transa, transb, m, n, k, lda, ldb, ldc, alpha, beta, batch);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (batch > 0 && (Aarray == NULL || Barray == NULL || Carray == NULL))
        return CUBLAS_STATUS_INVALID_VALUE;
    compute_t c = compute_of(compute_type);
    if (!combination_ok(c, at, bt, ct))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    bool ta, tb;
    fdnn_cublas_trans(transa, &ta);
    fdnn_cublas_trans(transb, &tb);
    for (int i = 0; i < batch && st == CUBLAS_STATUS_SUCCESS; i++)
        st = gemm_typed(h, ta, tb, m, n, k, alpha, Aarray[i], at, lda, Barray[i], bt, ldb, beta, Carray[i], ct, ldc,
                        c);
    return st;
}

cublasStatus_t
cublasHgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
            const __half *alpha, const __half *A, int lda, const __half *B, int ldb, const __half *beta, __half *C,
            int ldc)
{
    return strided_ex(handle, transa, transb, m, n, k, alpha, A, CUDA_R_16F, lda, 0, B, CUDA_R_16F, ldb, 0, beta, C,
                      CUDA_R_16F, ldc, 0, 1, CUBLAS_COMPUTE_16F);
}

cublasStatus_t
cublasSgemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
              const float *alpha, const void *A, cudaDataType Atype, int lda, const void *B, cudaDataType Btype,
              int ldb, const float *beta, void *C, cudaDataType Ctype, int ldc)
{
    return strided_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype,
                      ldc, 0, 1, CUBLAS_COMPUTE_32F);
}

cublasStatus_t
cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
             const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb,
             const void *beta, void *C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
             cublasGemmAlgo_t algo)
{
    (void)algo;
    return strided_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype,
                      ldc, 0, 1, (int)computeType);
}

cublasStatus_t
cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                           int k, const void *alpha, const void *A, cudaDataType Atype, int lda,
                           long long int strideA, const void *B, cudaDataType Btype, int ldb, long long int strideB,
                           const void *beta, void *C, cudaDataType Ctype, int ldc, long long int strideC,
                           int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    (void)algo;
    return strided_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C,
                      Ctype, ldc, strideC, batchCount, (int)computeType);
}

cublasStatus_t
cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                    const void *alpha, const void *const Aarray[], cudaDataType Atype, int lda,
                    const void *const Barray[], cudaDataType Btype, int ldb, const void *beta, void *const Carray[],
                    cudaDataType Ctype, int ldc, int batchCount, cublasComputeType_t computeType,
                    cublasGemmAlgo_t algo)
{
    (void)algo;
    return batched_ex(handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray,
                      Ctype, ldc, batchCount, (int)computeType);
}

/* The typed batched forms: the same two paths with the type fixed. */
#define FDNN_BATCHED(prefix, T, dtype, ctype)                                                                      \
    cublasStatus_t cublas##prefix##gemmStridedBatched(                                                             \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,            \
        const T *alpha, const T *A, int lda, long long int strideA, const T *B, int ldb, long long int strideB,    \
        const T *beta, T *C, int ldc, long long int strideC, int batchCount)                                       \
    {                                                                                                              \
        return strided_ex(handle, transa, transb, m, n, k, alpha, A, dtype, lda, strideA, B, dtype, ldb, strideB, \
                          beta, C, dtype, ldc, strideC, batchCount, ctype);                                        \
    }                                                                                                              \
    cublasStatus_t cublas##prefix##gemmBatched(cublasHandle_t handle, cublasOperation_t transa,                     \
                                               cublasOperation_t transb, int m, int n, int k, const T *alpha,      \
                                               const T *const Aarray[], int lda, const T *const Barray[], int ldb, \
                                               const T *beta, T *const Carray[], int ldc, int batchCount)          \
    {                                                                                                              \
        return batched_ex(handle, transa, transb, m, n, k, alpha, (const void *const *)Aarray, dtype, lda,         \
                          (const void *const *)Barray, dtype, ldb, beta, (void *const *)Carray, dtype, ldc,        \
                          batchCount, ctype);                                                                      \
    }

FDNN_BATCHED(S, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
FDNN_BATCHED(D, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
FDNN_BATCHED(H, __half, CUDA_R_16F, CUBLAS_COMPUTE_16F)
