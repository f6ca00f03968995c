/* SPDX-License-Identifier: Apache-2.0
 * The column-major GEMM of cuBLAS on FreeDNN's row-major GEMM core
 * (src/cpu/gemm/gemm.h), with a handle's threads and scratch.
 *
 * A column-major matrix X with leading dimension ld is, in the same memory,
 * the row-major matrix X^T with the same leading dimension.  So
 *     C = alpha op(A) op(B) + beta C          (column-major, m x n)
 * is the row-major
 *     C^T = alpha op(B)^T op(A)^T + beta C^T  (n x m)
 * where op(B)^T is the row-major view of B, transposed exactly when op(B)
 * is not B.  The core then does all the work: packing, ISA kernels, the
 * thread split (bitwise identical results for any thread count), beta == 0
 * not reading C, alpha == 0 not reading A and B. */
#include <stdlib.h>

#include "cpu/gemm/gemm.h"
#include "cublas_internal.h"

/* Below this many multiply-adds (about 20-40 us on one core) a product runs
 * on the calling thread: idle workers sleep soon after a call (core/pool.h) and
 * waking them costs 5-30 us, more than they would save.  Results do not
 * depend on it (the core's split does not depend on the thread count). */
#define PARALLEL_MIN_MACS (1u << 21)

bool
fdnn_cublas_trans(cublasOperation_t op, bool *trans)
{
    switch (op) {
    case CUBLAS_OP_N: *trans = false; return true;
    case CUBLAS_OP_T:
    case CUBLAS_OP_C: *trans = true; return true; /* real data: C is T */
    default: return false;
    }
}

static int
max1(int v)
{
    return v > 1 ? v : 1;
}

cublasStatus_t
fdnn_cublas_check_gemm(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, int lda, int ldb,
                       int ldc)
{
    bool ta, tb;
    if (!fdnn_cublas_trans(transa, &ta) || !fdnn_cublas_trans(transb, &tb))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m < 0 || n < 0 || k < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (lda < max1(ta ? k : m) || ldb < max1(tb ? n : k) || ldc < max1(m))
        return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}

/* The pool for a product of this size: NULL (calling thread) when small. */
static fdnn_pool_t
pool_for(cublasHandle_t h, size_t m, size_t n, size_t k)
{
    if (h->pool == NULL || (double)m * (double)n * (double)k < (double)PARALLEL_MIN_MACS)
        return NULL;
    return h->pool;
}

cublasStatus_t
fdnn_cublas_sgemm(cublasHandle_t h, bool ta, bool tb, size_t m, size_t n, size_t k, float alpha, const float *A,
                  size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    fdnn_sgemm_args_t args = {
        .trans_a = tb, .trans_b = ta, .m = n, .n = m, .k = k,
        .alpha = alpha, .a = B, .lda = ldb, .b = A, .ldb = lda,
        .beta = beta, .c = C, .ldc = ldc,
        .bias_row = NULL, .bias_col = NULL, .act = FDNN_GEMM_ACT_NONE,
    };
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    pthread_mutex_lock(&h->lock);
    fdnn_pool_t pool = pool_for(h, m, n, k);
    size_t need = fdnn_sgemm_scratch_size(&args, h->num_threads, h->isa);
    if (need > h->scratch_bytes) {
        free(h->scratch);
        h->scratch = malloc(need);
        h->scratch_bytes = h->scratch != NULL ? need : 0;
    }
    /* Without scratch the core allocates its own, and fails only if that
     * fails too. */
    if (!fdnn_sgemm(&args, pool, h->isa, h->scratch, h->scratch_bytes))
        st = CUBLAS_STATUS_ALLOC_FAILED;
    pthread_mutex_unlock(&h->lock);
    return st;
}

cublasStatus_t
fdnn_cublas_dgemm(cublasHandle_t h, bool ta, bool tb, size_t m, size_t n, size_t k, double alpha, const double *A,
                  size_t lda, const double *B, size_t ldb, double beta, double *C, size_t ldc)
{
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    fdnn_dgemm_args_t args = {
        .trans_a = tb, .trans_b = ta, .m = n, .n = m, .k = k,
        .alpha = alpha, .a = B, .lda = ldb, .b = A, .ldb = lda,
        .beta = beta, .c = C, .ldc = ldc,
    };
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    pthread_mutex_lock(&h->lock);
    fdnn_pool_t pool = pool_for(h, m, n, k);
    if (!fdnn_dgemm_isa(&args, pool, h->isa))
        st = CUBLAS_STATUS_ALLOC_FAILED;
    pthread_mutex_unlock(&h->lock);
    return st;
}
