/* SPDX-License-Identifier: Apache-2.0
 * The direct convolution solver.  FP32 depthwise problems (one input
 * channel per group) run the plane kernels of conv_depthwise.h; other FP32
 * forward, backward data (one forward convolution per stride phase) and
 * backward filter (a forward convolution with the batch as channels)
 * problems the blocked, register-tiled kernels of conv_direct_blocked.h;
 * everything else (FP64) the formula of src/ref/conv_ref.h as loops over
 * any strides, one output row (all positions of one (n, channel) pair, or
 * one filter (k, c) for backward filter) per task.  No workspace, no GEMM;
 * the solver of choice for depthwise convolutions, where every group is a
 * 1-channel GEMM.
 *
 * Each output element is one sum in a fixed order (channels, then taps,
 * then for backward filter images and positions), so results do not depend
 * on the thread count. */
#include <stdint.h>

#include "core/fail.h"
#include "core/handle.h"
#include "cpu/conv/conv_depthwise.h"
#include "cpu/conv/conv_direct_blocked.h"
#include "cpu/conv/conv_gemm.h"

#define T float
#define SFX(name) name##_f32
#include "cpu/conv/conv_direct.inc"
#undef T
#undef SFX

#define T double
#define SFX(name) name##_f64
#include "cpu/conv/conv_direct.inc"
#undef T
#undef SFX

cudnnStatus_t
fdnn_conv_direct_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    if (fdnn_conv_depthwise_applies(p)) {
        if (fdnn_conv_depthwise_execute(e) == CUDNN_STATUS_SUCCESS)
            return CUDNN_STATUS_SUCCESS;
        /* Declined (a plane too large to buffer) or out of scratch: the
         * blocked path and the loops below need less. */
        fdnn_fail_clear();
    }
    bool fwd = fdnn_conv_direct_blocked_applies(p), bwd = fdnn_conv_direct_blocked_bwd_data_applies(p);
    bool bwd_w = fdnn_conv_direct_blocked_bwd_filter_applies(p);
    if (fwd || bwd || bwd_w) {
        cudnnStatus_t st = fwd   ? fdnn_conv_direct_blocked_execute(e)
                           : bwd ? fdnn_conv_direct_blocked_bwd_data(e)
                                 : fdnn_conv_direct_blocked_bwd_filter(e);
        if (st == CUDNN_STATUS_SUCCESS)
            return st;
        /* The blocked path fails only when its scratch cannot be had (out
         * of memory, or too large to size): the loops below need none. */
        fdnn_fail_clear();
    }
    void (*fn)(void *, size_t);
    size_t rows;
    if (p->dir == FDNN_CONV_FWD) {
        rows = (size_t)(p->n * p->k);
        fn = p->dtype == CUDNN_DATA_FLOAT ? fwd_row_f32 : fwd_row_f64;
    } else if (p->dir == FDNN_CONV_BWD_DATA) {
        rows = (size_t)(p->n * p->c);
        fn = p->dtype == CUDNN_DATA_FLOAT ? bwd_data_row_f32 : bwd_data_row_f64;
    } else {
        rows = (size_t)(p->k * fdnn_conv_cg(p));
        fn = p->dtype == CUDNN_DATA_FLOAT ? bwd_filter_row_f32 : bwd_filter_row_f64;
    }
    fdnn_parallelize_1d(e->pool, fn, (void *)e, rows, 0);
    return CUDNN_STATUS_SUCCESS;
}
