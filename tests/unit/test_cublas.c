/* SPDX-License-Identifier: Apache-2.0
 * The host cuBLAS (compat/cublas, libcublas.so.12) against plain
 * column-major loops in double, on random shapes: every transpose, leading
 * dimensions larger than the rows, alpha/beta cases (beta = 0 must ignore a
 * NaN-poisoned C), negative and non-unit increments, host and device
 * pointer modes; cuBLAS's status rules (NOT_INITIALIZED for NULL or
 * destroyed handles, INVALID_VALUE for bad sizes, leading dimensions,
 * increments and operations, NOT_SUPPORTED for type combinations it lacks);
 * gaps between columns (ld > rows) are checked untouched.  Error bound of a
 * product: (2k + 8) ulp of the sum of |terms|. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cublas_v2.h"
#include "testutil.h"

static fdnn_rng_t rng;
static cublasHandle_t H;

#define SENTINEL 12345.0

#define CHECK_CUBLAS(expr, expected)                                                              \
    do {                                                                                          \
        cublasStatus_t got_ = (expr);                                                             \
        CHECK_MSG(got_ == (expected), "%s returned %s, expected %s", #expr, cublasGetStatusName(got_), \
                  cublasGetStatusName(expected));                                                 \
    } while (0)

static void
fill_d(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = fdnn_rng_uniform(&rng, -1.0, 1.0);
}

/* Column-major element (i, j) of op(X). */
static double
op_at(const double *x, size_t ld, bool t, size_t i, size_t j)
{
    return t ? x[i * ld + j] : x[j * ld + i];
}

/* C = alpha op(A) op(B) + beta C in double, with the magnitude of each
 * element's terms in mag. */
static void
ref_gemm(bool ta, bool tb, size_t m, size_t n, size_t k, double alpha, const double *A, size_t lda, const double *B,
         size_t ldb, double beta, double *C, size_t ldc, double *mag)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            double s = 0, a = 0;
            for (size_t l = 0; l < k; l++) {
                double p = op_at(A, lda, ta, i, l) * op_at(B, ldb, tb, l, j);
                s += p;
                a += fabs(p);
            }
            double c = beta != 0 ? beta * C[j * ldc + i] : 0;
            C[j * ldc + i] = alpha * s + c;
            mag[j * m + i] = fabs(alpha) * a + fabs(c);
        }
}

static const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};

/* ---- ?gemm ---------------------------------------------------------------------------- */
static void
test_gemm(bool dbl, int iters)
{
    for (int it = 0; it < iters; it++) {
        cublasOperation_t oa = ops[fdnn_rng_int(&rng, 0, 2)], ob = ops[fdnn_rng_int(&rng, 0, 2)];
        bool ta = oa != CUBLAS_OP_N, tb = ob != CUBLAS_OP_N;
        size_t m = (size_t)fdnn_rng_int(&rng, 1, it % 5 == 0 ? 150 : 40);
        size_t n = (size_t)fdnn_rng_int(&rng, 1, it % 7 == 0 ? 130 : 40);
        size_t k = (size_t)fdnn_rng_int(&rng, it % 11 == 0 ? 0 : 1, it % 3 == 0 ? 300 : 50);
        size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
        size_t lda = (ar ? ar : 1) + (size_t)fdnn_rng_int(&rng, 0, 5);
        size_t ldb = (br ? br : 1) + (size_t)fdnn_rng_int(&rng, 0, 5);
        size_t ldc = m + (size_t)fdnn_rng_int(&rng, 0, 5);
        int kind = it % 4; /* beta: 0 (C poisoned), 1, random; alpha 0 in kind 3 */
        double alpha = kind == 3 ? 0.0 : fdnn_rng_uniform(&rng, -2, 2);
        double beta = kind == 0 ? 0.0 : kind == 1 ? 1.0 : fdnn_rng_uniform(&rng, -2, 2);
        size_t na = lda * (ac ? ac : 1), nb = ldb * (bc ? bc : 1), nc = ldc * n;
        double *A = malloc(na * sizeof(double)), *B = malloc(nb * sizeof(double));
        double *C0 = malloc(nc * sizeof(double)), *R = malloc(nc * sizeof(double));
        double *mag = malloc(m * n * sizeof(double));
        fill_d(A, na);
        fill_d(B, nb);
        fill_d(C0, nc);
        for (size_t j = 0; j < n; j++)
            for (size_t i = m; i < ldc; i++)
                C0[j * ldc + i] = SENTINEL;
        if (kind == 0)
            for (size_t j = 0; j < n; j++)
                for (size_t i = 0; i < m; i++)
                    C0[j * ldc + i] = NAN;
        memcpy(R, C0, nc * sizeof(double));
        ref_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, R, ldc, mag);
        bool ok = true;
        cublasStatus_t st;
        if (dbl) {
            double *gA = fdnn_guarded_alloc(na * 8), *gB = fdnn_guarded_alloc(nb * 8), *gC = fdnn_guarded_alloc(nc * 8);
            memcpy(gA, A, na * 8);
            memcpy(gB, B, nb * 8);
            memcpy(gC, C0, nc * 8);
            st = cublasDgemm(H, oa, ob, (int)m, (int)n, (int)k, &alpha, gA, (int)lda, gB, (int)ldb, &beta, gC,
                             (int)ldc);
            for (size_t j = 0; j < n && ok; j++)
                for (size_t i = 0; i < ldc && ok; i++) {
                    double got = gC[j * ldc + i], want = R[j * ldc + i];
                    double tol = i < m ? (2.0 * (double)k + 8) * 0x1p-53 * mag[j * m + i] : 0;
                    ok = fabs(got - want) <= tol;
                }
            fdnn_guarded_free(gA);
            fdnn_guarded_free(gB);
            fdnn_guarded_free(gC);
        } else {
            float *gA = fdnn_guarded_alloc(na * 4), *gB = fdnn_guarded_alloc(nb * 4), *gC = fdnn_guarded_alloc(nc * 4);
            /* The reference uses the float-rounded inputs. */
            for (size_t i = 0; i < na; i++)
                A[i] = gA[i] = (float)A[i];
            for (size_t i = 0; i < nb; i++)
                B[i] = gB[i] = (float)B[i];
            for (size_t i = 0; i < nc; i++)
                C0[i] = gC[i] = (float)C0[i];
            float fa = (float)alpha, fb = (float)beta;
            memcpy(R, C0, nc * sizeof(double));
            ref_gemm(ta, tb, m, n, k, fa, A, lda, B, ldb, fb, R, ldc, mag);
            st = cublasSgemm(H, oa, ob, (int)m, (int)n, (int)k, &fa, gA, (int)lda, gB, (int)ldb, &fb, gC, (int)ldc);
            for (size_t j = 0; j < n && ok; j++)
                for (size_t i = 0; i < ldc && ok; i++) {
                    double got = gC[j * ldc + i], want = R[j * ldc + i];
                    double tol = i < m ? (2.0 * (double)k + 8) * 0x1p-24 * mag[j * m + i] + 1e-37 : 0;
                    ok = fabs(got - want) <= tol;
                }
            fdnn_guarded_free(gA);
            fdnn_guarded_free(gB);
            fdnn_guarded_free(gC);
        }
        CHECK_MSG(st == CUBLAS_STATUS_SUCCESS && ok, "%cgemm %c%c m=%zu n=%zu k=%zu lda=%zu ldb=%zu ldc=%zu alpha=%g beta=%g",
                  dbl ? 'D' : 'S', "NTC"[oa], "NTC"[ob], m, n, k, lda, ldb, ldc, alpha, beta);
        free(A);
        free(B);
        free(C0);
        free(R);
        free(mag);
    }
}

static void
test_gemm_status(void)
{
    float a = 1, b = 0, x[64] = {0};
    double da = 1, db = 0, dx[64] = {0};
    CHECK_CUBLAS(cublasSgemm(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &a, x, 2, x, 2, &b, x, 2),
                 CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_CUBLAS(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, -1, 2, 2, &a, x, 2, x, 2, &b, x, 2), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, -1, 2, &a, x, 2, x, 2, &b, x, 2), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, -1, &a, x, 2, x, 2, &b, x, 2), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, 3, 2, 2, &a, x, 2, x, 2, &b, x, 3), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm(H, CUBLAS_OP_T, CUBLAS_OP_N, 3, 2, 4, &a, x, 3, x, 4, &b, x, 3), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &a, x, 2, x, 2, &b, x, 2), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_T, 2, 3, 2, &a, x, 2, x, 2, &b, x, 2), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &a, x, 2, x, 2, &b, x, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm(H, CUBLAS_OP_CONJG, CUBLAS_OP_N, 2, 2, 2, &a, x, 2, x, 2, &b, x, 2),
                 CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm(H, (cublasOperation_t)7, CUBLAS_OP_N, 2, 2, 2, &a, x, 2, x, 2, &b, x, 2),
                 CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasDgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &da, dx, 1, dx, 2, &db, dx, 2),
                 CUBLAS_STATUS_INVALID_VALUE);
    /* Empty products succeed without touching anything (NULL matrices). */
    CHECK_CUBLAS(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, 0, 5, 3, &a, NULL, 1, NULL, 3, &b, NULL, 1),
                 CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasDgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, 4, 0, 3, &da, NULL, 4, NULL, 3, &db, NULL, 4),
                 CUBLAS_STATUS_SUCCESS);
    /* A destroyed handle is refused. */
    cublasHandle_t h2;
    CHECK_CUBLAS(cublasCreate(&h2), CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasDestroy(h2), CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasSgemm(h2, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &a, x, 2, x, 2, &b, x, 2),
                 CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_CUBLAS(cublasDestroy(h2), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_CUBLAS(cublasDestroy(NULL), CUBLAS_STATUS_NOT_INITIALIZED);
}

/* ---- GemmEx family: FP16 / BF16 inputs, FP32 compute ---------------------------------------- */
static float
round_to(cudaDataType t, float v)
{
    if (t == CUDA_R_16F)
        return __half2float(__float2half_rn(v));
    if (t == CUDA_R_16BF)
        return __bfloat162float(__float2bfloat16_rn(v));
    return v;
}

static void
store(void *p, cudaDataType t, size_t i, float v)
{
    if (t == CUDA_R_16F)
        ((__half *)p)[i] = __float2half_rn(v);
    else if (t == CUDA_R_16BF)
        ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v);
    else
        ((float *)p)[i] = v;
}

static float
load(const void *p, cudaDataType t, size_t i)
{
    if (t == CUDA_R_16F)
        return __half2float(((const __half *)p)[i]);
    if (t == CUDA_R_16BF)
        return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
    return ((const float *)p)[i];
}

static size_t
esize(cudaDataType t)
{
    return t == CUDA_R_32F ? 4 : 2;
}

/* mode 0: SgemmEx, 1: GemmEx, 2: GemmStridedBatchedEx (3 batches),
 * 3: GemmBatchedEx, 4: Hgemm / HgemmStridedBatched / HgemmBatched. */
static void
test_gemm_ex(int iters)
{
    static const cudaDataType in_types[] = {CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F};
    for (int it = 0; it < iters; it++) {
        int mode = it % 5;
        cudaDataType at = in_types[fdnn_rng_int(&rng, 0, 2)];
        cudaDataType ct = at == CUDA_R_32F || fdnn_rng_int(&rng, 0, 1) ? CUDA_R_32F : at;
        if (mode == 4)
            at = ct = CUDA_R_16F;
        cublasOperation_t oa = ops[fdnn_rng_int(&rng, 0, 1)], ob = ops[fdnn_rng_int(&rng, 0, 1)];
        bool ta = oa == CUBLAS_OP_T, tb = ob == CUBLAS_OP_T;
        size_t m = (size_t)fdnn_rng_int(&rng, 1, 33), n = (size_t)fdnn_rng_int(&rng, 1, 33);
        size_t k = (size_t)fdnn_rng_int(&rng, 1, 70);
        size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
        size_t lda = ar + (size_t)fdnn_rng_int(&rng, 0, 3), ldb = br + (size_t)fdnn_rng_int(&rng, 0, 3);
        size_t ldc = m + (size_t)fdnn_rng_int(&rng, 0, 3);
        int batch = mode == 2 || mode == 3 || (mode == 4 && it % 3) ? 3 : 1;
        size_t sa = lda * ac + 7, sb = ldb * bc + 5, sc = ldc * n + 3;
        float alpha = (float)fdnn_rng_uniform(&rng, -1, 1), beta = it % 2 ? 0.0f : 0.5f;
        alpha = round_to(CUDA_R_16F, alpha);
        unsigned char *A = fdnn_guarded_alloc(sa * (size_t)batch * esize(at));
        unsigned char *B = fdnn_guarded_alloc(sb * (size_t)batch * esize(at));
        unsigned char *C = fdnn_guarded_alloc(sc * (size_t)batch * esize(ct));
        double *dA = malloc(sa * (size_t)batch * 8), *dB = malloc(sb * (size_t)batch * 8);
        double *R = malloc(sc * (size_t)batch * 8), *mag = malloc(m * n * 8);
        for (size_t i = 0; i < sa * (size_t)batch; i++) {
            store(A, at, i, (float)fdnn_rng_uniform(&rng, -1, 1));
            dA[i] = load(A, at, i);
        }
        for (size_t i = 0; i < sb * (size_t)batch; i++) {
            store(B, at, i, (float)fdnn_rng_uniform(&rng, -1, 1));
            dB[i] = load(B, at, i);
        }
        for (size_t i = 0; i < sc * (size_t)batch; i++) {
            store(C, ct, i, beta == 0 ? NAN : (float)fdnn_rng_uniform(&rng, -1, 1));
            R[i] = load(C, ct, i);
        }
        const void *Ap[3], *Bp[3];
        void *Cp[3];
        for (int b = 0; b < batch; b++) {
            Ap[b] = A + (size_t)b * sa * esize(at);
            Bp[b] = B + (size_t)b * sb * esize(at);
            Cp[b] = C + (size_t)b * sc * esize(ct);
        }
        __half ha = __float2half_rn(alpha), hb = __float2half_rn(beta);
        cublasStatus_t st;
        switch (mode) {
        case 0:
            st = cublasSgemmEx(H, oa, ob, (int)m, (int)n, (int)k, &alpha, A, at, (int)lda, B, at, (int)ldb, &beta, C,
                               ct, (int)ldc);
            break;
        case 1:
            st = cublasGemmEx(H, oa, ob, (int)m, (int)n, (int)k, &alpha, A, at, (int)lda, B, at, (int)ldb, &beta, C,
                              ct, (int)ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            break;
        case 2:
            st = cublasGemmStridedBatchedEx(H, oa, ob, (int)m, (int)n, (int)k, &alpha, A, at, (int)lda,
                                            (long long)sa, B, at, (int)ldb, (long long)sb, &beta, C, ct, (int)ldc,
                                            (long long)sc, batch, CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_GEMM_DEFAULT);
            break;
        case 3:
            st = cublasGemmBatchedEx(H, oa, ob, (int)m, (int)n, (int)k, &alpha, Ap, at, (int)lda, Bp, at, (int)ldb,
                                     &beta, Cp, ct, (int)ldc, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
            break;
        default:
            if (batch == 1)
                st = cublasHgemm(H, oa, ob, (int)m, (int)n, (int)k, &ha, (const __half *)A, (int)lda,
                                 (const __half *)B, (int)ldb, &hb, (__half *)C, (int)ldc);
            else if (it % 2)
                st = cublasHgemmStridedBatched(H, oa, ob, (int)m, (int)n, (int)k, &ha, (const __half *)A, (int)lda,
                                               (long long)sa, (const __half *)B, (int)ldb, (long long)sb, &hb,
                                               (__half *)C, (int)ldc, (long long)sc, batch);
            else
                st = cublasHgemmBatched(H, oa, ob, (int)m, (int)n, (int)k, &ha, (const __half *const *)Ap, (int)lda,
                                        (const __half *const *)Bp, (int)ldb, &hb, (__half *const *)Cp, (int)ldc,
                                        batch);
            break;
        }
        bool ok = st == CUBLAS_STATUS_SUCCESS;
        for (int b = 0; b < batch && ok; b++) {
            double *r = R + (size_t)b * sc;
            ref_gemm(ta, tb, m, n, k, alpha, dA + (size_t)b * sa, lda, dB + (size_t)b * sb, ldb, beta, r, ldc, mag);
            for (size_t j = 0; j < n && ok; j++)
                for (size_t i = 0; i < ldc && ok; i++) {
                    double got = load(Cp[b], ct, j * ldc + i);
                    if (i >= m) { /* gap untouched */
                        ok = got == r[j * ldc + i] || (isnan(got) && isnan(r[j * ldc + i]));
                        continue;
                    }
                    /* FP32 sum, then one rounding to C's type. */
                    double ulp_out = ct == CUDA_R_16F ? 0x1p-11 : ct == CUDA_R_16BF ? 0x1p-8 : 0x1p-24;
                    double tol = (2.0 * (double)k + 8) * 0x1p-24 * mag[j * m + i] + ulp_out * fabs(r[j * ldc + i]) +
                                 1e-6;
                    ok = fabs(got - r[j * ldc + i]) <= tol;
                }
        }
        CHECK_MSG(ok, "gemm ex mode %d types %d/%d %c%c m=%zu n=%zu k=%zu batch=%d (status %s)", mode, (int)at, (int)ct,
                  "NT"[ta], "NT"[tb], m, n, k, batch, cublasGetStatusName(st));
        fdnn_guarded_free(A);
        fdnn_guarded_free(B);
        fdnn_guarded_free(C);
        free(dA);
        free(dB);
        free(R);
        free(mag);
    }
    /* Combinations cuBLAS does not have, and bad values. */
    float one = 1, zero = 0, buf[16] = {0};
    CHECK_CUBLAS(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, buf, CUDA_R_16F, 2, buf, CUDA_R_16BF, 2,
                              &zero, buf, CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK_CUBLAS(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, buf, CUDA_R_32F, 2, buf, CUDA_R_32F, 2,
                              &zero, buf, CUDA_R_16F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK_CUBLAS(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, buf, CUDA_R_8I, 2, buf, CUDA_R_8I, 2, &zero,
                              buf, CUDA_R_32I, 2, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_NOT_SUPPORTED);
    /* INT8 operands, FP32 output (SgemmEx and GemmEx, 32F compute). */
    signed char i8a[6] = {1, -2, 3, 127, -128, 5}, i8b[6] = {2, 0, -1, 4, 1, -3};
    float i8c[4] = {NAN, NAN, NAN, NAN};
    CHECK_CUBLAS(cublasSgemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, i8a, CUDA_R_8I, 2, i8b, CUDA_R_8I, 3, &zero,
                               i8c, CUDA_R_32F, 2),
                 CUBLAS_STATUS_SUCCESS);
    /* A = [1 3 -128; -2 127 5], B = [2 4; 0 1; -1 -3] (column-major). */
    CHECK(i8c[0] == 130 && i8c[1] == -9 && i8c[2] == 391 && i8c[3] == 104);
    CHECK_CUBLAS(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, i8a, CUDA_R_8I, 2, i8b, CUDA_R_8I, 3, &zero,
                              i8c, CUDA_R_16F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK_CUBLAS(cublasSgemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, buf, CUDA_R_16F, 1, buf, CUDA_R_16F, 2,
                               &zero, buf, CUDA_R_32F, 2),
                 CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasGemmStridedBatchedEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, buf, CUDA_R_32F, 2, 4, buf,
                                            CUDA_R_32F, 2, 4, &zero, buf, CUDA_R_32F, 2, 4, -1, CUBLAS_COMPUTE_32F,
                                            CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_INVALID_VALUE);
    /* cuBLAS 10 code passes CUDA_R_32F as the compute type. */
    float a2[4] = {1, 2, 3, 4}, c2[4];
    CHECK_CUBLAS(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a2, CUDA_R_32F, 2, a2, CUDA_R_32F, 2, &zero,
                              c2, CUDA_R_32F, 2, (cublasComputeType_t)CUDA_R_32F, CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_SUCCESS);
    CHECK(c2[0] == 7 && c2[1] == 10 && c2[2] == 15 && c2[3] == 22);
    /* FP64 through GemmEx. */
    double d1 = 1, d0 = 0, da[4] = {1, 2, 3, 4}, dc[4];
    CHECK_CUBLAS(cublasGemmEx(H, CUBLAS_OP_T, CUBLAS_OP_N, 2, 2, 2, &d1, da, CUDA_R_64F, 2, da, CUDA_R_64F, 2, &d0, dc,
                              CUDA_R_64F, 2, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_SUCCESS);
    CHECK(dc[0] == 5 && dc[1] == 11 && dc[2] == 11 && dc[3] == 25);
}

/* ---- the S/D batched forms -------------------------------------------------------------- */
static void
test_batched(void)
{
    enum { M = 5, N = 4, K = 3, LDA = 7, LDB = 4, LDC = 6, BATCH = 3 };
    float A[BATCH][LDA * K], B[BATCH][LDB * N], C[BATCH][LDC * N], C2[BATCH][LDC * N];
    double dA[BATCH][LDA * K], dB[BATCH][LDB * N], dC[BATCH][LDC * N];
    for (int b = 0; b < BATCH; b++) {
        for (int i = 0; i < LDA * K; i++)
            dA[b][i] = A[b][i] = (float)fdnn_rng_int(&rng, -4, 4);
        for (int i = 0; i < LDB * N; i++)
            dB[b][i] = B[b][i] = (float)fdnn_rng_int(&rng, -4, 4);
        for (int i = 0; i < LDC * N; i++)
            dC[b][i] = C2[b][i] = C[b][i] = (float)fdnn_rng_int(&rng, -4, 4);
    }
    float alpha = 2, beta = -1;
    double dalpha = 2, dbeta = -1;
    const float *Ap[BATCH], *Bp[BATCH];
    float *Cp[BATCH];
    const double *dAp[BATCH], *dBp[BATCH];
    double *dCp[BATCH];
    for (int b = 0; b < BATCH; b++) {
        Ap[b] = A[b];
        Bp[b] = B[b];
        Cp[b] = C2[b];
        dAp[b] = dA[b];
        dBp[b] = dB[b];
        dCp[b] = dC[b];
    }
    CHECK_CUBLAS(cublasSgemmStridedBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A[0], LDA, LDA * K, B[0], LDB,
                                           LDB * N, &beta, C[0], LDC, LDC * N, BATCH),
                 CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasSgemmBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, Ap, LDA, Bp, LDB, &beta, Cp, LDC,
                                    BATCH),
                 CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasDgemmBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &dalpha, dAp, LDA, dBp, LDB, &dbeta, dCp,
                                    LDC, BATCH),
                 CUBLAS_STATUS_SUCCESS);
    double dS[BATCH][LDC * N];
    for (int b = 0; b < BATCH; b++)
        for (int i = 0; i < LDC * N; i++)
            dS[b][i] = (double)fdnn_rng_int(&rng, -4, 4);
    double dS0[BATCH][LDC * N];
    memcpy(dS0, dS, sizeof(dS));
    CHECK_CUBLAS(cublasDgemmStridedBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &dalpha, dA[0], LDA, LDA * K, dB[0],
                                           LDB, LDB * N, &dbeta, dS[0], LDC, LDC * N, BATCH),
                 CUBLAS_STATUS_SUCCESS);
    bool ok = true;
    for (int b = 0; b < BATCH; b++) {
        double R[LDC * N], R2[LDC * N], mag[M * N];
        for (int i = 0; i < LDC * N; i++)
            R2[i] = dS0[b][i];
        /* Integers: exact in every precision. */
        double C0[LDC * N];
        for (int i = 0; i < LDC * N; i++)
            C0[i] = (double)C2[b][i];
        (void)C0;
        for (int i = 0; i < LDC * N; i++)
            R[i] = 0;
        ref_gemm(false, false, M, N, K, 2, dA[b], LDA, dB[b], LDB, 0, R, LDC, mag);
        ref_gemm(false, false, M, N, K, 2, dA[b], LDA, dB[b], LDB, -1, R2, LDC, mag);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < M; i++) {
                ok = ok && C[b][j * LDC + i] == C2[b][j * LDC + i] && dS[b][j * LDC + i] == R2[j * LDC + i];
                ok = ok && dC[b][j * LDC + i] == (double)C[b][j * LDC + i];
            }
    }
    CHECK_MSG(ok, "batched and strided-batched S/D disagree");
}

/* ---- level 1 ---------------------------------------------------------------------------------- */
static void
test_level1(void)
{
    enum { N = 37 };
    float x[3 * N], y[3 * N];
    double dx[3 * N], dy[3 * N];
    for (int i = 0; i < 3 * N; i++) {
        dx[i] = x[i] = (float)fdnn_rng_uniform(&rng, -3, 3);
        dy[i] = y[i] = (float)fdnn_rng_uniform(&rng, -3, 3);
    }
    /* dot with increments 2 and -3 (BLAS: a negative increment starts at
     * the far end). */
    double want = 0;
    for (int i = 0; i < N; i++)
        want += (double)x[2 * i] * (double)y[3 * (N - 1 - i)];
    float r;
    double dr;
    CHECK_CUBLAS(cublasSdot(H, N, x, 2, y, -3, &r), CUBLAS_STATUS_SUCCESS);
    CHECK(fabs(r - want) <= 1e-5 * (1 + fabs(want)));
    CHECK_CUBLAS(cublasDdot(H, N, dx, 2, dy, -3, &dr), CUBLAS_STATUS_SUCCESS);
    CHECK(fabs(dr - want) <= 1e-12 * (1 + fabs(want)));
    CHECK_CUBLAS(cublasSdot(H, 0, x, 1, y, 1, &r), CUBLAS_STATUS_SUCCESS);
    CHECK(r == 0);
    /* nrm2 / asum / amax / amin with increment 3. */
    double s2 = 0, s1 = 0;
    int imax = 0, imin = 0;
    for (int i = 0; i < N; i++) {
        s2 += (double)x[3 * i] * x[3 * i];
        s1 += fabs((double)x[3 * i]);
        if (fabs(x[3 * i]) > fabs(x[3 * imax]))
            imax = i;
        if (fabs(x[3 * i]) < fabs(x[3 * imin]))
            imin = i;
    }
    CHECK_CUBLAS(cublasSnrm2(H, N, x, 3, &r), CUBLAS_STATUS_SUCCESS);
    CHECK(fabs(r - sqrt(s2)) <= 1e-6 * sqrt(s2));
    CHECK_CUBLAS(cublasDnrm2(H, N, dx, 3, &dr), CUBLAS_STATUS_SUCCESS);
    CHECK(fabs(dr - sqrt(s2)) <= 1e-14 * sqrt(s2));
    double big[2] = {1e300, 1e300};
    CHECK_CUBLAS(cublasDnrm2(H, 2, big, 1, &dr), CUBLAS_STATUS_SUCCESS);
    CHECK(fabs(dr / 1e300 - sqrt(2.0)) < 1e-15); /* no overflow */
    CHECK_CUBLAS(cublasSasum(H, N, x, 3, &r), CUBLAS_STATUS_SUCCESS);
    CHECK(fabs(r - s1) <= 1e-6 * s1);
    CHECK_CUBLAS(cublasDasum(H, N, dx, 3, &dr), CUBLAS_STATUS_SUCCESS);
    CHECK(fabs(dr - s1) <= 1e-14 * s1);
    int idx;
    CHECK_CUBLAS(cublasIsamax(H, N, x, 3, &idx), CUBLAS_STATUS_SUCCESS);
    CHECK(idx == imax + 1);
    CHECK_CUBLAS(cublasIdamax(H, N, dx, 3, &idx), CUBLAS_STATUS_SUCCESS);
    CHECK(idx == imax + 1);
    CHECK_CUBLAS(cublasIsamin(H, N, x, 3, &idx), CUBLAS_STATUS_SUCCESS);
    CHECK(idx == imin + 1);
    CHECK_CUBLAS(cublasIdamin(H, N, dx, 3, &idx), CUBLAS_STATUS_SUCCESS);
    CHECK(idx == imin + 1);
    CHECK_CUBLAS(cublasIsamax(H, 0, x, 1, &idx), CUBLAS_STATUS_SUCCESS);
    CHECK(idx == 0);
    CHECK_CUBLAS(cublasIsamax(H, N, x, 0, &idx), CUBLAS_STATUS_SUCCESS);
    CHECK(idx == 0);
    CHECK_CUBLAS(cublasSnrm2(H, N, x, 1, NULL), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSnrm2(NULL, N, x, 1, &r), CUBLAS_STATUS_NOT_INITIALIZED);

    /* axpy, scal, copy, swap with strides; elements between strides untouched. */
    float y0[3 * N];
    memcpy(y0, y, sizeof(y));
    float alpha = -1.5f;
    CHECK_CUBLAS(cublasSaxpy(H, N, &alpha, x, 3, y, 2), CUBLAS_STATUS_SUCCESS);
    bool ok = true;
    for (int i = 0; i < 2 * N; i++)
        ok = ok && y[i] == (i % 2 ? y0[i] : y0[i] + alpha * x[3 * (i / 2)]);
    CHECK_MSG(ok, "Saxpy");
    double dalpha = 0.25, dy0[3 * N];
    memcpy(dy0, dy, sizeof(dy));
    CHECK_CUBLAS(cublasDaxpy(H, N, &dalpha, dx, 1, dy, -1), CUBLAS_STATUS_SUCCESS);
    ok = true;
    for (int i = 0; i < N; i++)
        ok = ok && dy[N - 1 - i] == dy0[N - 1 - i] + dalpha * dx[i];
    CHECK_MSG(ok, "Daxpy, incy -1");
    memcpy(y0, y, sizeof(y));
    CHECK_CUBLAS(cublasSscal(H, N, &alpha, y, 2), CUBLAS_STATUS_SUCCESS);
    ok = true;
    for (int i = 0; i < 2 * N; i++)
        ok = ok && y[i] == (i % 2 ? y0[i] : y0[i] * alpha);
    CHECK_MSG(ok, "Sscal");
    memcpy(dy0, dy, sizeof(dy));
    CHECK_CUBLAS(cublasDscal(H, N, &dalpha, dy, 1), CUBLAS_STATUS_SUCCESS);
    ok = true;
    for (int i = 0; i < N; i++)
        ok = ok && dy[i] == dy0[i] * dalpha;
    CHECK_MSG(ok, "Dscal");
    memcpy(y0, y, sizeof(y));
    CHECK_CUBLAS(cublasScopy(H, N, x, 3, y, 1), CUBLAS_STATUS_SUCCESS);
    ok = true;
    for (int i = 0; i < N; i++)
        ok = ok && y[i] == x[3 * i];
    CHECK_MSG(ok, "Scopy");
    CHECK_CUBLAS(cublasDcopy(H, N, dx, 1, dy, 2), CUBLAS_STATUS_SUCCESS);
    ok = true;
    for (int i = 0; i < N; i++)
        ok = ok && dy[2 * i] == dx[i];
    CHECK_MSG(ok, "Dcopy");
    float xs[3 * N], ys[3 * N];
    memcpy(xs, x, sizeof(x));
    memcpy(ys, y, sizeof(y));
    CHECK_CUBLAS(cublasSswap(H, N, x, 1, y, 2), CUBLAS_STATUS_SUCCESS);
    ok = true;
    for (int i = 0; i < N; i++)
        ok = ok && x[i] == ys[2 * i] && y[2 * i] == xs[i];
    CHECK_MSG(ok, "Sswap");
    double dxs[3 * N], dys[3 * N];
    memcpy(dxs, dx, sizeof(dx));
    memcpy(dys, dy, sizeof(dy));
    CHECK_CUBLAS(cublasDswap(H, N, dx, 2, dy, 1), CUBLAS_STATUS_SUCCESS);
    ok = true;
    for (int i = 0; i < N; i++)
        ok = ok && dx[2 * i] == dys[i] && dy[i] == dxs[2 * i];
    CHECK_MSG(ok, "Dswap");

    /* Device pointer mode: scalars are read from and results written to
     * "device" memory, which is host memory here. */
    CHECK_CUBLAS(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
    cublasPointerMode_t pm;
    CHECK_CUBLAS(cublasGetPointerMode(H, &pm), CUBLAS_STATUS_SUCCESS);
    CHECK(pm == CUBLAS_POINTER_MODE_DEVICE);
    float *dres = fdnn_guarded_alloc(sizeof(float));
    CHECK_CUBLAS(cublasSasum(H, 3, x, 1, dres), CUBLAS_STATUS_SUCCESS);
    CHECK(fabs(*dres - (fabs(x[0]) + fabs(x[1]) + fabs(x[2]))) < 1e-5);
    fdnn_guarded_free(dres);
    CHECK_CUBLAS(cublasSetPointerMode(H, (cublasPointerMode_t)5), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_HOST), CUBLAS_STATUS_SUCCESS);
}

/* ---- level 2 ---------------------------------------------------------------------------------- */
static void
test_level2(bool dbl, int iters)
{
    for (int it = 0; it < iters; it++) {
        cublasOperation_t op = ops[fdnn_rng_int(&rng, 0, 2)];
        bool t = op != CUBLAS_OP_N;
        int m = fdnn_rng_int(&rng, 1, it % 4 == 0 ? 300 : 40), n = fdnn_rng_int(&rng, 1, it % 3 == 0 ? 300 : 40);
        int lda = m + fdnn_rng_int(&rng, 0, 4);
        int incx = fdnn_rng_int(&rng, 1, 3) * (it % 5 == 1 ? -1 : 1), incy = fdnn_rng_int(&rng, 1, 2);
        if (it % 7 == 3)
            incy = -incy;
        int lx = t ? m : n, ly = t ? n : m;
        size_t na = (size_t)lda * (size_t)n, nx = (size_t)lx * (size_t)abs(incx), ny = (size_t)ly * (size_t)abs(incy);
        double *A = malloc(na * 8), *x = malloc(nx * 8), *y = malloc(ny * 8), *R = malloc(ny * 8);
        fill_d(A, na);
        fill_d(x, nx);
        fill_d(y, ny);
        for (size_t i = 0; i < na; i++)
            A[i] = (float)A[i];
        for (size_t i = 0; i < nx; i++)
            x[i] = (float)x[i];
        for (size_t i = 0; i < ny; i++)
            y[i] = (float)y[i];
        double alpha = (float)fdnn_rng_uniform(&rng, -2, 2), beta = it % 3 == 0 ? 0.0 : (float)fdnn_rng_uniform(&rng, -2, 2);
        if (beta == 0)
            for (int i = 0; i < ly; i++)
                y[(size_t)i * (size_t)abs(incy)] = NAN;
        memcpy(R, y, ny * 8);
        double maxmag = 0;
        for (int i = 0; i < ly; i++) {
            double s = 0, a = 0;
            for (int l = 0; l < lx; l++) {
                double xv = x[incx > 0 ? (size_t)l * (size_t)incx : (size_t)(lx - 1 - l) * (size_t)-incx];
                double p = op_at(A, (size_t)lda, t, (size_t)i, (size_t)l) * xv;
                s += p;
                a += fabs(p);
            }
            size_t yi = incy > 0 ? (size_t)i * (size_t)incy : (size_t)(ly - 1 - i) * (size_t)-incy;
            double c = beta != 0 ? beta * R[yi] : 0;
            R[yi] = alpha * s + c;
            maxmag = fmax(maxmag, fabs(alpha) * a + fabs(c));
        }
        bool ok;
        cublasStatus_t st;
        if (dbl) {
            st = cublasDgemv(H, op, m, n, &alpha, A, lda, x, incx, &beta, y, incy);
            ok = true;
            for (size_t i = 0; i < ny; i++)
                ok = ok && (isnan(R[i]) ? isnan(y[i]) : fabs(y[i] - R[i]) <= (2.0 * lx + 8) * 0x1p-53 * maxmag);
        } else {
            float *fA = malloc(na * 4), *fx = malloc(nx * 4), *fy = malloc(ny * 4);
            for (size_t i = 0; i < na; i++)
                fA[i] = (float)A[i];
            for (size_t i = 0; i < nx; i++)
                fx[i] = (float)x[i];
            for (size_t i = 0; i < ny; i++)
                fy[i] = (float)y[i];
            float fa = (float)alpha, fb = (float)beta;
            st = cublasSgemv(H, op, m, n, &fa, fA, lda, fx, incx, &fb, fy, incy);
            ok = true;
            for (size_t i = 0; i < ny; i++)
                ok = ok && (isnan(R[i]) ? isnan(fy[i]) : fabs(fy[i] - R[i]) <= (2.0 * lx + 8) * 0x1p-24 * maxmag);
            free(fA);
            free(fx);
            free(fy);
        }
        CHECK_MSG(st == CUBLAS_STATUS_SUCCESS && ok, "%cgemv %c m=%d n=%d lda=%d incx=%d incy=%d beta=%g",
                  dbl ? 'D' : 'S', "NTC"[op], m, n, lda, incx, incy, beta);

        /* ger on the same shapes: A += alpha x y^T. */
        int gx = fdnn_rng_int(&rng, 1, 2), gy = fdnn_rng_int(&rng, 1, 3) * (it % 2 ? -1 : 1);
        double *gxv = malloc((size_t)m * (size_t)gx * 8), *gyv = malloc((size_t)n * (size_t)abs(gy) * 8);
        fill_d(gxv, (size_t)m * (size_t)gx);
        fill_d(gyv, (size_t)n * (size_t)abs(gy));
        for (int j = 0; j < n; j++)
            for (int i = m; i < lda; i++)
                A[(size_t)j * (size_t)lda + (size_t)i] = SENTINEL;
        double *RA = malloc(na * 8);
        memcpy(RA, A, na * 8);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double yv = gyv[gy > 0 ? (size_t)j * (size_t)gy : (size_t)(n - 1 - j) * (size_t)-gy];
                RA[(size_t)j * (size_t)lda + (size_t)i] += alpha * gxv[(size_t)i * (size_t)gx] * yv;
            }
        ok = true;
        if (dbl) {
            st = cublasDger(H, m, n, &alpha, gxv, gx, gyv, gy, A, lda);
            for (size_t i = 0; i < na; i++)
                ok = ok && fabs(A[i] - RA[i]) <= 1e-15 * (1 + fabs(RA[i]));
        } else {
            float *fA = malloc(na * 4), *fx = malloc((size_t)m * (size_t)gx * 4), *fy = malloc((size_t)n * (size_t)abs(gy) * 4);
            for (size_t i = 0; i < na; i++)
                fA[i] = (float)A[i];
            for (size_t i = 0; i < (size_t)m * (size_t)gx; i++)
                fx[i] = (float)gxv[i];
            for (size_t i = 0; i < (size_t)n * (size_t)abs(gy); i++)
                fy[i] = (float)gyv[i];
            float fa = (float)alpha;
            st = cublasSger(H, m, n, &fa, fx, gx, fy, gy, fA, lda);
            for (size_t i = 0; i < na; i++)
                ok = ok && fabs(fA[i] - RA[i]) <= 1e-6 * (1 + fabs(RA[i]));
            free(fA);
            free(fx);
            free(fy);
        }
        CHECK_MSG(st == CUBLAS_STATUS_SUCCESS && ok, "%cger m=%d n=%d lda=%d incx=%d incy=%d", dbl ? 'D' : 'S', m, n,
                  lda, gx, gy);
        free(A);
        free(x);
        free(y);
        free(R);
        free(RA);
        free(gxv);
        free(gyv);
    }
    float a = 1, b = 0, v[8] = {0};
    CHECK_CUBLAS(cublasSgemv(H, CUBLAS_OP_N, -1, 2, &a, v, 1, v, 1, &b, v, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemv(H, CUBLAS_OP_N, 3, 2, &a, v, 2, v, 1, &b, v, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemv(H, CUBLAS_OP_N, 2, 2, &a, v, 2, v, 0, &b, v, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemv(H, CUBLAS_OP_T, 2, 2, &a, v, 2, v, 1, &b, v, 0), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemv(H, CUBLAS_OP_CONJG, 2, 2, &a, v, 2, v, 1, &b, v, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSger(H, 2, -2, &a, v, 1, v, 1, v, 2), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSger(H, 3, 2, &a, v, 1, v, 1, v, 2), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasDger(NULL, 2, 2, NULL, NULL, 1, NULL, 1, NULL, 2), CUBLAS_STATUS_NOT_INITIALIZED);
}

/* ---- geam and trsm ------------------------------------------------------------------------- */
static void
test_geam_trsm(void)
{
    for (int it = 0; it < 24; it++) {
        int m = fdnn_rng_int(&rng, 1, 30), n = fdnn_rng_int(&rng, 1, 30);
        cublasOperation_t oa = ops[it % 2], ob = ops[(it / 2) % 2];
        bool ta = oa == CUBLAS_OP_T, tb = ob == CUBLAS_OP_T;
        int lda = (ta ? n : m) + it % 3, ldb = (tb ? n : m) + it % 2, ldc = m + 2;
        double A[40 * 40], B[40 * 40], C[40 * 40];
        fill_d(A, 40 * 40);
        fill_d(B, 40 * 40);
        for (int i = 0; i < 40 * 40; i++)
            C[i] = SENTINEL;
        double alpha = it % 5 == 0 ? 0 : 1.5, beta = it % 4 == 3 ? 0 : -0.5;
        if (alpha == 0)
            for (int i = 0; i < 40 * 40; i++)
                A[i] = NAN; /* must not be read */
        CHECK_CUBLAS(cublasDgeam(H, oa, ob, m, n, &alpha, A, lda, &beta, B, ldb, C, ldc), CUBLAS_STATUS_SUCCESS);
        bool ok = true;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < ldc; i++) {
                double want = SENTINEL;
                if (i < m)
                    want = (alpha != 0 ? alpha * op_at(A, (size_t)lda, ta, (size_t)i, (size_t)j) : 0) +
                           (beta != 0 ? beta * op_at(B, (size_t)ldb, tb, (size_t)i, (size_t)j) : 0);
                ok = ok && fabs(C[j * ldc + i] - want) <= 1e-15 * (1 + fabs(want));
            }
        CHECK_MSG(ok, "Dgeam %c%c m=%d n=%d alpha=%g beta=%g", "NT"[ta], "NT"[tb], m, n, alpha, beta);
        float fA[40 * 40], fB[40 * 40], fC[40 * 40];
        for (int i = 0; i < 40 * 40; i++) {
            fA[i] = (float)A[i];
            fB[i] = (float)B[i];
        }
        float fa = (float)alpha, fb = (float)beta;
        CHECK_CUBLAS(cublasSgeam(H, oa, ob, m, n, &fa, fA, lda, &fb, fB, ldb, fC, ldc), CUBLAS_STATUS_SUCCESS);
        ok = true;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                ok = ok && fabs(fC[j * ldc + i] - C[j * ldc + i]) <= 1e-6 * (1 + fabs(C[j * ldc + i]));
        CHECK_MSG(ok, "Sgeam %c%c m=%d n=%d", "NT"[ta], "NT"[tb], m, n);
    }
    double one = 1, d[16] = {0};
    CHECK_CUBLAS(cublasDgeam(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, &one, d, 1, &one, d, 2, d + 8, 2),
                 CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasDgeam(H, CUBLAS_OP_T, CUBLAS_OP_N, 2, 2, &one, d, 2, &one, d + 4, 2, d, 2),
                 CUBLAS_STATUS_INVALID_VALUE); /* in place with a transpose */
    CHECK_CUBLAS(cublasDgeam(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, &one, d, 2, &one, d + 4, 2, d, 2),
                 CUBLAS_STATUS_SUCCESS);

    /* trsm: solve, then multiply back with the reference. */
    for (int it = 0; it < 32; it++) {
        cublasSideMode_t side = it % 2 ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
        cublasFillMode_t uplo = (it / 2) % 2 ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
        cublasOperation_t op = (it / 4) % 2 ? CUBLAS_OP_T : CUBLAS_OP_N;
        cublasDiagType_t diag = (it / 8) % 2 ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
        bool dbl = it >= 16;
        int m = fdnn_rng_int(&rng, 1, 25), n = fdnn_rng_int(&rng, 1, 25);
        int order = side == CUBLAS_SIDE_LEFT ? m : n;
        int lda = order + it % 3, ldb = m + 1;
        double A[30 * 30], B[30 * 30], X[30 * 30];
        /* Triangle well conditioned; the other triangle and (with UNIT) the
         * diagonal hold NaN, which must not be read. */
        for (int j = 0; j < order; j++)
            for (int i = 0; i < lda; i++) {
                bool in = uplo == CUBLAS_FILL_MODE_LOWER ? i > j : i < j;
                double v = NAN;
                if (i < order && in)
                    v = fdnn_rng_uniform(&rng, -0.5, 0.5) / order;
                else if (i == j)
                    v = diag == CUBLAS_DIAG_UNIT ? NAN : fdnn_rng_uniform(&rng, 1, 2);
                A[j * lda + i] = (float)v;
            }
        fill_d(B, 30 * 30);
        for (int i = 0; i < 30 * 30; i++)
            B[i] = X[i] = (float)B[i];
        double alpha = 0.75;
        cublasStatus_t st;
        if (dbl) {
            st = cublasDtrsm(H, side, uplo, op, diag, m, n, &alpha, A, lda, X, ldb);
        } else {
            float fA[30 * 30], fX[30 * 30];
            for (int i = 0; i < 30 * 30; i++) {
                fA[i] = (float)A[i];
                fX[i] = (float)X[i];
            }
            float fa = (float)alpha;
            st = cublasStrsm(H, side, uplo, op, diag, m, n, &fa, fA, lda, fX, ldb);
            for (int i = 0; i < 30 * 30; i++)
                X[i] = fX[i];
        }
        /* op(A) X or X op(A) must give alpha B. */
        double Af[30 * 30];
        for (int j = 0; j < order; j++)
            for (int i = 0; i < order; i++) {
                bool in = uplo == CUBLAS_FILL_MODE_LOWER ? i >= j : i <= j;
                Af[j * order + i] = !in ? 0 : i == j && diag == CUBLAS_DIAG_UNIT ? 1 : A[j * lda + i];
            }
        bool ok = st == CUBLAS_STATUS_SUCCESS;
        for (int j = 0; j < n && ok; j++)
            for (int i = 0; i < ldb && ok; i++) {
                if (i >= m) {
                    ok = X[j * ldb + i] == B[j * ldb + i];
                    continue;
                }
                double s = 0;
                if (side == CUBLAS_SIDE_LEFT)
                    for (int l = 0; l < m; l++)
                        s += op_at(Af, (size_t)order, op == CUBLAS_OP_T, (size_t)i, (size_t)l) * X[j * ldb + l];
                else
                    for (int l = 0; l < n; l++)
                        s += X[l * ldb + i] * op_at(Af, (size_t)order, op == CUBLAS_OP_T, (size_t)l, (size_t)j);
                ok = fabs(s - alpha * B[j * ldb + i]) <= (dbl ? 1e-13 : 1e-5);
            }
        CHECK_MSG(ok, "%ctrsm side %d uplo %d op %d diag %d m=%d n=%d", dbl ? 'D' : 'S', side, uplo, op, diag, m, n);
    }
    float fone = 1, fz = 0, f[16] = {0};
    CHECK_CUBLAS(cublasStrsm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 3, 2, &fone, f,
                             2, f, 3),
                 CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasStrsm(H, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 2, 3, &fone,
                             f, 2, f, 2),
                 CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasStrsm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_FULL, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 2, 2, &fone, f,
                             2, f, 2),
                 CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasStrsm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 2, 2, &fone, f,
                             2, f, 1),
                 CUBLAS_STATUS_INVALID_VALUE);
    /* alpha == 0: B = 0, A not read. */
    float nanA[4] = {NAN, NAN, NAN, NAN}, bb[4] = {1, 2, 3, 4};
    CHECK_CUBLAS(cublasStrsm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, 2, 2, &fz,
                             nanA, 2, bb, 2),
                 CUBLAS_STATUS_SUCCESS);
    CHECK(bb[0] == 0 && bb[1] == 0 && bb[2] == 0 && bb[3] == 0);
}

/* ---- handle settings, versions, transfers -------------------------------------------------- */
static void
test_handle(void)
{
    int v = 0;
    CHECK_CUBLAS(cublasGetVersion(H, &v), CUBLAS_STATUS_SUCCESS);
    CHECK(v == CUBLAS_VERSION && v == 120201);
    CHECK_CUBLAS(cublasGetProperty(MAJOR_VERSION, &v), CUBLAS_STATUS_SUCCESS);
    CHECK(v == 12);
    CHECK_CUBLAS(cublasGetProperty(MINOR_VERSION, &v), CUBLAS_STATUS_SUCCESS);
    CHECK(v == 2);
    CHECK(cublasGetCudartVersion() == 12020);
    cudaStream_t s = (cudaStream_t)0x2, got = NULL;
    CHECK_CUBLAS(cublasSetStream(H, s), CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasGetStream(H, &got), CUBLAS_STATUS_SUCCESS);
    CHECK(got == s);
    CHECK_CUBLAS(cublasSetStream(H, NULL), CUBLAS_STATUS_SUCCESS);
    cublasMath_t mm;
    CHECK_CUBLAS(cublasGetMathMode(H, &mm), CUBLAS_STATUS_SUCCESS);
    CHECK(mm == CUBLAS_DEFAULT_MATH);
    CHECK_CUBLAS(cublasSetMathMode(H, CUBLAS_TF32_TENSOR_OP_MATH), CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasGetMathMode(H, &mm), CUBLAS_STATUS_SUCCESS);
    CHECK(mm == CUBLAS_TF32_TENSOR_OP_MATH);
    CHECK_CUBLAS(cublasSetMathMode(H, (cublasMath_t)(CUBLAS_PEDANTIC_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
                 CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasSetMathMode(H, (cublasMath_t)9), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSetMathMode(H, CUBLAS_DEFAULT_MATH), CUBLAS_STATUS_SUCCESS);
    cublasAtomicsMode_t am;
    CHECK_CUBLAS(cublasSetAtomicsMode(H, CUBLAS_ATOMICS_ALLOWED), CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasGetAtomicsMode(H, &am), CUBLAS_STATUS_SUCCESS);
    CHECK(am == CUBLAS_ATOMICS_ALLOWED);
    CHECK_CUBLAS(cublasSetMathMode(NULL, CUBLAS_DEFAULT_MATH), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_CUBLAS(cublasCreate(NULL), CUBLAS_STATUS_INVALID_VALUE);
    CHECK(strcmp(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE") == 0);
    CHECK(strcmp(cublasGetStatusName(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED") == 0);
    CHECK(CUBLAS_STATUS_NOT_INITIALIZED == 1 && CUBLAS_STATUS_ALLOC_FAILED == 3 && CUBLAS_STATUS_INVALID_VALUE == 7 &&
          CUBLAS_STATUS_NOT_SUPPORTED == 15 && CUBLAS_COMPUTE_32F == 68 && CUBLAS_GEMM_DEFAULT_TENSOR_OP == 99);

    /* Set/GetVector and Set/GetMatrix: strided copies. */
    float src[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, dst[12];
    for (int i = 0; i < 12; i++)
        dst[i] = -1;
    CHECK_CUBLAS(cublasSetVector(4, 4, src, 3, dst, 2), CUBLAS_STATUS_SUCCESS);
    CHECK(dst[0] == 1 && dst[1] == -1 && dst[2] == 4 && dst[4] == 7 && dst[6] == 10 && dst[7] == -1);
    CHECK_CUBLAS(cublasGetVector(4, 4, src, 0, dst, 1), CUBLAS_STATUS_INVALID_VALUE);
    for (int i = 0; i < 12; i++)
        dst[i] = -1;
    CHECK_CUBLAS(cublasSetMatrix(2, 3, 4, src, 4, dst, 3), CUBLAS_STATUS_SUCCESS);
    CHECK(dst[0] == 1 && dst[1] == 2 && dst[2] == -1 && dst[3] == 5 && dst[4] == 6 && dst[6] == 9 && dst[7] == 10);
    CHECK_CUBLAS(cublasGetMatrix(2, 3, 4, src, 1, dst, 3), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasGetMatrixAsync(2, 3, 4, src, 4, dst, 2, NULL), CUBLAS_STATUS_SUCCESS);
}

/* Results are the same bits for any thread count (FREEDNN_NUM_THREADS is
 * read at cublasCreate). */
static void
test_threads(void)
{
    enum { M = 200, N = 190, K = 180 };
    float *A = malloc(M * K * 4), *B = malloc(K * N * 4), *C1 = malloc(M * N * 4), *C2 = malloc(M * N * 4);
    for (int i = 0; i < M * K; i++)
        A[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    for (int i = 0; i < K * N; i++)
        B[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    float one = 1, zero = 0;
    cublasHandle_t h1, h3;
    setenv("FREEDNN_NUM_THREADS", "1", 1);
    CHECK_CUBLAS(cublasCreate(&h1), CUBLAS_STATUS_SUCCESS);
    setenv("FREEDNN_NUM_THREADS", "3", 1);
    CHECK_CUBLAS(cublasCreate(&h3), CUBLAS_STATUS_SUCCESS);
    unsetenv("FREEDNN_NUM_THREADS");
    CHECK_CUBLAS(cublasSgemm(h1, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, A, K, B, K, &zero, C1, M), CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasSgemm(h3, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, A, K, B, K, &zero, C2, M), CUBLAS_STATUS_SUCCESS);
    CHECK(memcmp(C1, C2, M * N * 4) == 0);
    CHECK_CUBLAS(cublasDestroy(h1), CUBLAS_STATUS_SUCCESS);
    CHECK_CUBLAS(cublasDestroy(h3), CUBLAS_STATUS_SUCCESS);
    free(A);
    free(B);
    free(C1);
    free(C2);
}

/* gemv batched forms against single gemv calls; dgmm against loops. */
static void
test_gemv_batched_dgmm(void)
{
    enum { M = 9, N = 7, LDA = 11, B = 3, SA = LDA * N + 5, SX = 2 * M + 1, SY = 2 * M + 3 };
    float A[B * SA], x[B * SX], y1[B * SY], y2[B * SY];
    for (int i = 0; i < B * SA; i++)
        A[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    for (int i = 0; i < B * SX; i++)
        x[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    for (int i = 0; i < B * SY; i++)
        y1[i] = y2[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    float alpha = 1.5f, beta = -0.5f;
    bool ok = true;
    for (int t = 0; t < 2; t++) {
        cublasOperation_t op = t ? CUBLAS_OP_T : CUBLAS_OP_N;
        CHECK_CUBLAS(cublasSgemvStridedBatched(H, op, M, N, &alpha, A, LDA, SA, x, 2, SX, &beta, y1, 2, SY, B),
                     CUBLAS_STATUS_SUCCESS);
        for (int b = 0; b < B; b++)
            CHECK_CUBLAS(cublasSgemv(H, op, M, N, &alpha, A + b * SA, LDA, x + b * SX, 2, &beta, y2 + b * SY, 2),
                         CUBLAS_STATUS_SUCCESS);
        ok = ok && memcmp(y1, y2, sizeof(y1)) == 0;
    }
    CHECK_MSG(ok, "SgemvStridedBatched differs from Sgemv");
    double dA[B][M * N], dx[B][N], dy1[B][M], dy2[B][M];
    const double *Ap[B], *xp[B];
    double *yp[B];
    for (int b = 0; b < B; b++) {
        fill_d(dA[b], M * N);
        fill_d(dx[b], N);
        fill_d(dy1[b], M);
        memcpy(dy2[b], dy1[b], sizeof(dy1[b]));
        Ap[b] = dA[b];
        xp[b] = dx[b];
        yp[b] = dy1[b];
    }
    double da = 2, db = 1;
    CHECK_CUBLAS(cublasDgemvBatched(H, CUBLAS_OP_N, M, N, &da, Ap, M, xp, 1, &db, yp, 1, B), CUBLAS_STATUS_SUCCESS);
    ok = true;
    for (int b = 0; b < B; b++) {
        CHECK_CUBLAS(cublasDgemv(H, CUBLAS_OP_N, M, N, &da, dA[b], M, dx[b], 1, &db, dy2[b], 1), CUBLAS_STATUS_SUCCESS);
        ok = ok && memcmp(dy1[b], dy2[b], sizeof(dy1[b])) == 0;
    }
    CHECK_MSG(ok, "DgemvBatched differs from Dgemv");
    CHECK_CUBLAS(cublasDgemvBatched(H, CUBLAS_OP_N, M, N, &da, Ap, M, xp, 1, &db, yp, 1, -1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemvStridedBatched(H, CUBLAS_OP_N, M, N, &alpha, A, M - 1, SA, x, 1, SX, &beta, y1, 1, SY, 0),
                 CUBLAS_STATUS_INVALID_VALUE);

    /* dgmm: left scales rows by x, right scales columns; x with increment -2. */
    float C[LDA * N], xs[2 * N];
    for (int i = 0; i < 2 * N; i++)
        xs[i] = (float)fdnn_rng_uniform(&rng, -2, 2);
    for (int side = 0; side < 2; side++) {
        for (int i = 0; i < LDA * N; i++)
            C[i] = (float)SENTINEL;
        int rows = side ? M : 7;     /* left: 7 rows, so rows 7..LDA-1 are a gap */
        int len = side ? N : rows;   /* elements of x */
        CHECK_CUBLAS(cublasSdgmm(H, side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, rows, N, A, LDA, xs, -2, C, LDA),
                     CUBLAS_STATUS_SUCCESS);
        ok = true;
        for (int j = 0; j < N; j++)
            for (int i = 0; i < LDA; i++) {
                int k = side ? j : i; /* element of x; increment -2 starts at the far end */
                float want = i < rows ? A[j * LDA + i] * xs[2 * (len - 1 - k)] : (float)SENTINEL;
                ok = ok && C[j * LDA + i] == want;
            }
        CHECK_MSG(ok, "Sdgmm side %d", side);
    }
    double dd[4] = {1, 2, 3, 4}, dxv[2] = {10, 100};
    CHECK_CUBLAS(cublasDdgmm(H, CUBLAS_SIDE_RIGHT, 2, 2, dd, 2, dxv, 1, dd, 2), CUBLAS_STATUS_SUCCESS); /* in place */
    CHECK(dd[0] == 10 && dd[1] == 20 && dd[2] == 300 && dd[3] == 400);
    CHECK_CUBLAS(cublasDdgmm(H, CUBLAS_SIDE_LEFT, 2, 2, dd, 1, dxv, 1, dd, 2), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasDdgmm(H, (cublasSideMode_t)2, 2, 2, dd, 2, dxv, 1, dd, 2), CUBLAS_STATUS_INVALID_VALUE);
}

/* The 64-bit integer forms forward to the 32-bit ones; values beyond int
 * are NOT_SUPPORTED (positive) or INVALID_VALUE (negative). */
static void
test_64(void)
{
    float one = 1, zero = 0, a[4] = {1, 2, 3, 4}, c[4];
    CHECK_CUBLAS(cublasSgemm_64(H, CUBLAS_OP_N, CUBLAS_OP_T, 2, 2, 2, &one, a, 2, a, 2, &zero, c, 2),
                 CUBLAS_STATUS_SUCCESS);
    CHECK(c[0] == 10 && c[1] == 14 && c[2] == 14 && c[3] == 20);
    CHECK_CUBLAS(cublasSgemm_64(H, CUBLAS_OP_N, CUBLAS_OP_N, (int64_t)1 << 32, 2, 2, &one, a, 2, a, 2, &zero, c, 2),
                 CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK_CUBLAS(cublasSgemm_64(H, CUBLAS_OP_N, CUBLAS_OP_N, -((int64_t)1 << 32), 2, 2, &one, a, 2, a, 2, &zero, c, 2),
                 CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm_64(H, CUBLAS_OP_N, CUBLAS_OP_N, -1, 2, 2, &one, a, 2, a, 2, &zero, c, 2),
                 CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CUBLAS(cublasSgemm_64(NULL, CUBLAS_OP_N, CUBLAS_OP_N, (int64_t)1 << 32, 2, 2, &one, a, 2, a, 2, &zero, c, 2),
                 CUBLAS_STATUS_NOT_INITIALIZED);
    int64_t idx = -1;
    CHECK_CUBLAS(cublasIsamax_64(H, 4, a, 1, &idx), CUBLAS_STATUS_SUCCESS);
    CHECK(idx == 4);
    double d[3] = {3, -4, 0}, r = 0;
    CHECK_CUBLAS(cublasDnrm2_64(H, 3, d, 1, &r), CUBLAS_STATUS_SUCCESS);
    CHECK(r == 5);
    float y[2] = {0, 0};
    CHECK_CUBLAS(cublasSgemv_64(H, CUBLAS_OP_N, 2, 2, &one, a, 2, a, 1, &zero, y, 1), CUBLAS_STATUS_SUCCESS);
    CHECK(y[0] == 7 && y[1] == 10);
    float v[2];
    CHECK_CUBLAS(cublasSetVector_64(2, 4, a, 2, v, 1), CUBLAS_STATUS_SUCCESS);
    CHECK(v[0] == 1 && v[1] == 3);
    CHECK_CUBLAS(cublasGemmStridedBatchedEx_64(H, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a, CUDA_R_32F, 2, 0, a,
                                               CUDA_R_32F, 2, 0, &zero, c, CUDA_R_32F, 2, 0, (int64_t)1 << 31,
                                               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_NOT_SUPPORTED);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 17);
    if (cublasCreate(&H) != CUBLAS_STATUS_SUCCESS) {
        printf("cublasCreate failed\n");
        return 1;
    }
    test_handle();
    test_gemm(false, 60);
    test_gemm(true, 40);
    test_gemm_status();
    test_gemm_ex(40);
    test_batched();
    test_level1();
    test_level2(false, 30);
    test_level2(true, 30);
    test_geam_trsm();
    test_threads();
    test_64();
    test_gemv_batched_dgmm();
    CHECK_CUBLAS(cublasDestroy(H), CUBLAS_STATUS_SUCCESS);
    return fdnn_test_finish("test_cublas");
}
