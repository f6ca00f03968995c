/* SPDX-License-Identifier: Apache-2.0
 * Internals shared by the host cuBLAS files: the handle, its checks, and
 * the column-major GEMM on FreeDNN's row-major GEMM core that the level 2
 * and level 3 functions are written on. */
#ifndef FDNN_CUBLAS_INTERNAL_H
#define FDNN_CUBLAS_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/cpu.h"
#include "core/pool.h"
#include "cublas_api.h"

/* A handle owns its worker threads (created at cublasCreate: the
 * FREEDNN_NUM_THREADS or one per logical processor, as a cuDNN handle) and
 * the packing scratch of the GEMM core.  `lock` serialises calls made on one
 * handle from several threads, which cuBLAS allows. */
struct cublasContext {
    cudaStream_t stream;
    cublasPointerMode_t pointer_mode;
    cublasAtomicsMode_t atomics_mode;
    cublasMath_t math_mode;
    fdnn_pool_t pool; /* NULL with one thread */
    size_t num_threads;
    fdnn_isa_t isa;
    pthread_mutex_t lock;
    void *scratch;
    size_t scratch_bytes;
};

/* CUBLAS_STATUS_NOT_INITIALIZED unless `h` is a live handle (one that
 * cublasCreate returned and cublasDestroy has not taken back). */
cublasStatus_t fdnn_cublas_check(cublasHandle_t h);

/* op -> transposed?  False for an operation cuBLAS refuses on real data
 * (anything but N, T, C). */
bool fdnn_cublas_trans(cublasOperation_t op, bool *trans);

/* The argument checks of ?gemm (cuBLAS's order: operations, sizes, leading
 * dimensions): CUBLAS_STATUS_INVALID_VALUE on any failure. */
cublasStatus_t fdnn_cublas_check_gemm(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                      int lda, int ldb, int ldc);

/* Column-major C[m x n] = alpha * op(A) * op(B) + beta * C on the GEMM core,
 * with the handle's threads.  Arguments are checked; beta == 0 does not read
 * C; alpha == 0 or k == 0 does not read A and B.  Returns
 * CUBLAS_STATUS_ALLOC_FAILED when scratch cannot be had. */
cublasStatus_t fdnn_cublas_sgemm(cublasHandle_t h, bool ta, bool tb, size_t m, size_t n, size_t k, float alpha,
                                 const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
                                 size_t ldc);
cublasStatus_t fdnn_cublas_dgemm(cublasHandle_t h, bool ta, bool tb, size_t m, size_t n, size_t k, double alpha,
                                 const double *A, size_t lda, const double *B, size_t ldb, double beta, double *C,
                                 size_t ldc);

#endif /* FDNN_CUBLAS_INTERNAL_H */
