/* SPDX-License-Identifier: Apache-2.0
 * Shared between rnn.c (layout, sizes, dispatch) and the typed code
 * (rnn_t.inc via rnn_f32.c, rnn_f64.c). */
#ifndef FDNN_CPU_RNN_INTERNAL_H
#define FDNN_CPU_RNN_INTERNAL_H

#include "cpu/gemm/gemm.h"
#include "cpu/rnn/rnn.h"

/* BF16 products for the FP32 kernels (ctx->lowp, set by rnn_stage.c for
 * BFLOAT16 data, and HALF data with a TENSOR_OP math type, on CPUs with
 * AVX512-BF16): every GEMM of rnn_t.inc goes through fdnn_gemm_bf16dot
 * (bfloat16 products, FP32 sums) instead of fdnn_sgemm, and an operand that
 * lies in the staged FP32 weight space w32 is read from the same offset of
 * the user's 16-bit weight space w16 instead (for BFLOAT16 data the same
 * values, with no conversion; the packing converts HALF ones).  Everything
 * else (biases, activations, cell updates, states) stays FP32. */
typedef struct fdnn_rnn_lowp {
    const float *w32;        /* staged FP32 weight space, nw elements */
    const void *w16;         /* the user's weight space */
    int64_t nw;
    fdnn_gemm_dtype_t wtype; /* FDNN_GEMM_BF16 or FDNN_GEMM_F16 */
} fdnn_rnn_lowp_t;

#define TB(p) ((p)->T * (p)->B)

static inline int64_t
gh(const fdnn_rnn_problem_t *p)
{
    return p->gates * p->hidden;
}

static inline int64_t
imax(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Bytes of one element of the user's buffers (the storage type). */
static inline size_t
fdnn_rnn_esize(const fdnn_rnn_problem_t *p)
{
    return p->dtype == CUDNN_DATA_DOUBLE ? sizeof(double) : p->dtype == CUDNN_DATA_FLOAT ? sizeof(float) : 2;
}

/* Bytes of one element of the workspace and reserve (the compute type:
 * FP32 for FLOAT, HALF and BFLOAT16 data). */
static inline size_t
fdnn_rnn_csize(const fdnn_rnn_problem_t *p)
{
    return p->dtype == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
}

/* HALF and BFLOAT16 data run through the staging of rnn_stage.c. */
static inline bool
fdnn_rnn_staged(const fdnn_rnn_problem_t *p)
{
    return p->dtype == CUDNN_DATA_HALF || p->dtype == CUDNN_DATA_BFLOAT16;
}

/* Elements (FP32) of the staging buffers after the FP32 workspace; false on
 * overflow.  See rnn_stage.c. */
bool fdnn_rnn_stage_elems(const fdnn_rnn_problem_t *p, int64_t *n);

/* True when the staged call of p takes its products in bfloat16
 * (fdnn_rnn_lowp_t): BFLOAT16 data, or HALF data with a TENSOR_OP math
 * type, and `isa` reaching the AVX512-BF16 kernel of fdnn_gemm_bf16dot;
 * otherwise the FP32 kernels run with FP32 products. */
bool fdnn_rnn_bf16_products(const fdnn_rnn_problem_t *p, fdnn_isa_t isa);

/* The staged operations (HALF, BFLOAT16 data), same contracts as the
 * public ones in rnn.h. */
bool fdnn_rnn_forward_staged(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const void *x, void *y,
                             const void *hx, void *hy, const void *cx, void *cy, const void *w, void *ws,
                             void *reserve);
bool fdnn_rnn_backward_data_staged(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const void *dy, void *dx,
                                   const void *hx, const void *dhy, void *dhx, const void *cx, const void *dcy,
                                   void *dcx, const void *w, void *ws, void *reserve);
bool fdnn_rnn_backward_weights_staged(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, bool add,
                                      const void *x, const void *hx, void *dw, void *ws, const void *reserve);

/* Bytes of the FP32/FP64 kernels' part of the workspace (the staging
 * buffers of HALF/BFLOAT16 data follow it). */
size_t fdnn_rnn_kernel_ws_bytes(const fdnn_rnn_problem_t *p, bool training);

/* Elements of the reserve space per layer. */
int64_t fdnn_rnn_reserve_layer_elems(const fdnn_rnn_problem_t *p);

/* Row of (t, b) in the user's buffer (in vectors), -1 for padding; int32
 * entries in the first TB elements of the workspace. */
int32_t *fdnn_rnn_make_umap(const fdnn_rnn_problem_t *p, void *ws);

#define FDNN_RNN_TYPED(sfx, T)                                                                                        \
    bool fdnn_rnn_forward_##sfx(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const T *x, T *y,          \
                                const T *hx, T *hy, const T *cx, T *cy, const T *w, T *ws, T *reserve);             \
    bool fdnn_rnn_backward_data_##sfx(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const T *dy, T *dx,  \
                                      const T *hx, const T *dhy, T *dhx, const T *cx, const T *dcy, T *dcx,         \
                                      const T *w, T *ws, T *reserve);                                               \
    bool fdnn_rnn_backward_weights_##sfx(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, bool add,         \
                                         const T *x, const T *hx, T *dw, T *ws, const T *reserve);
FDNN_RNN_TYPED(f32, float)
FDNN_RNN_TYPED(f64, double)
#undef FDNN_RNN_TYPED

#endif /* FDNN_CPU_RNN_INTERNAL_H */
