/* SPDX-License-Identifier: Apache-2.0
 * The ordered list of convolution implementations (solvers): which solver
 * implements which cuDNN algorithm, the heuristic order, and the checks and
 * dispatch every caller goes through.  One list for every reader: the
 * legacy cudnnGet*Algorithm_v7 / Find* calls (src/api/cnn_infer/
 * conv_common.c), the graph API's convolution nodes (src/cpu/graph/
 * gx_conv.c) and the fused ops (src/cpu/fusedops/).  Each solver declines a
 * problem with a logged reason (its `applicable`); its id is its stable
 * global index, never reused.  See core/conv_solver.h. */
#include <stddef.h>
#include <string.h>

#include "core/conv_solver.h"
#include "core/fail.h"
#include "cpu/conv/conv_bf16.h"
#include "cpu/conv/conv_direct_blocked.h"
#include "cpu/conv/conv_fft.h"
#include "cpu/conv/conv_gemm.h"
#include "cpu/conv/conv_gemm_nhwc.h"
#include "cpu/conv/conv_gemm_nhwc_krsc.h"
#include "cpu/conv/conv_gemm_nhwc_krsc_wgrad.h"

#include "cpu/conv/conv_gemm_nhwc_krsc_bwd.h"
#include "cpu/conv/conv_gemm_nhwc_rows.h"
#include "cpu/conv/conv_lowp.h"
#include "cpu/conv/conv_int8.h"
#include "cpu/conv/conv_wgrad_small.h"
#include "cpu/conv/conv_winograd.h"
#include "core/handle.h"

#define SMALL_MACS (1 << 20)

static cudnnStatus_t
always(const fdnn_conv_problem_t *p)
{
    (void)p;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
no_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    (void)p;
    *bytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

#define GEMM_VARIANT(v)                                                        \
    static cudnnStatus_t ws_##v(const fdnn_conv_problem_t *p, size_t *bytes)   \
    {                                                                          \
        return fdnn_conv_gemm_workspace(p, FDNN_CONV_GEMM_##v, bytes);        \
    }                                                                          \
    static cudnnStatus_t run_##v(const fdnn_conv_exec_t *e)                    \
    {                                                                          \
        return fdnn_conv_gemm_execute(e, FDNN_CONV_GEMM_##v);                 \
    }
GEMM_VARIANT(IMPLICIT)
GEMM_VARIANT(PRECOMP)
GEMM_VARIANT(EXPLICIT)

#define FFT_VARIANT(v, tiling)                                                                                     \
    static cudnnStatus_t applicable_##v(const fdnn_conv_problem_t *p)                                            \
    {                                                                                                             \
        return fdnn_conv_fft_applicable(p, tiling);                                                              \
    }                                                                                                             \
    static cudnnStatus_t ws_##v(const fdnn_conv_problem_t *p, size_t *bytes)                                     \
    {                                                                                                             \
        return fdnn_conv_fft_workspace(p, tiling, bytes);                                                        \
    }                                                                                                             \
    static cudnnStatus_t run_##v(const fdnn_conv_exec_t *e)                                                      \
    {                                                                                                             \
        return fdnn_conv_fft_execute(e, tiling);                                                                 \
    }
FFT_VARIANT(FFT, false)
FFT_VARIANT(FFT_TILING, true)

/* Several solvers may implement one algorithm: the specialised ones are
 * listed first and run the problems they accept (fdnn_conv_algo_check and
 * fdnn_conv_run take the first applicable one of the algorithm, in list
 * order); the general one, listed last, runs the rest and is the one
 * fdnn_conv_solver_for names.  They share the algorithm's workspace
 * contract (the zero-workspace algorithms stay at zero). */
#define NHWC_1X1(id, name, dir, algo)                                                                             \
    {id, name, dir, algo, fdnn_conv_gemm_nhwc_applicable, fdnn_conv_gemm_nhwc_workspace, fdnn_conv_gemm_nhwc_execute}

static const fdnn_conv_solver_t solvers[] = {
    /* Channels-last forward with a KRSC filter: the filter rows read in
     * place, the im2col per panel of positions (conv_gemm_nhwc_krsc.h);
     * unpadded 1x1 filters only over few positions (res5 at mb=1), the
     * 1x1 solvers below take the others. */
    {41, "fwd_gemm_nhwc_krsc", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
     fdnn_conv_gemm_nhwc_krsc_applicable, fdnn_conv_gemm_nhwc_krsc_workspace, fdnn_conv_gemm_nhwc_krsc_execute},
    /* Its backward data on at most 64 output positions: the filter rows in
     * place as the GEMM's B, col2im as a gather (conv_gemm_nhwc_krsc_bwd.h). */
    {43, "bwd_data_gemm_nhwc_krsc", FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
     fdnn_conv_gemm_nhwc_krsc_bwd_data_applicable, fdnn_conv_gemm_nhwc_krsc_bwd_data_workspace,
     fdnn_conv_gemm_nhwc_krsc_bwd_data_execute},
    /* Forward and backward data of the narrower ones (reduction <= 512,
     * filter <= 512 KiB, stride 1) as one step over runs of positions. */
    {39, "fwd_gemm_nhwc_1x1_rows", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
     fdnn_conv_gemm_nhwc_rows_applicable, fdnn_conv_gemm_nhwc_workspace, fdnn_conv_gemm_nhwc_rows_execute},
    {40, "bwd_data_gemm_nhwc_1x1_rows", FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
     fdnn_conv_gemm_nhwc_rows_applicable, fdnn_conv_gemm_nhwc_workspace, fdnn_conv_gemm_nhwc_rows_execute},
    NHWC_1X1(35, "fwd_gemm_nhwc_1x1", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM),
    NHWC_1X1(36, "bwd_data_gemm_nhwc_1x1", FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1),
    NHWC_1X1(37, "bwd_filter_gemm_nhwc_1x1", FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1),
    /* the RGB stems' backward filter: few input channels, per-image slabs */
    {38, "bwd_filter_small_c", FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
     fdnn_conv_wgrad_small_applicable, fdnn_conv_wgrad_small_workspace, fdnn_conv_wgrad_small_execute},
    /* Channels-last backward filter into a KRSC filter in place: dW_g =
     * dy^T col with dW's rows the GEMM's C (conv_gemm_nhwc_krsc_wgrad.h). */
    {42, "bwd_filter_gemm_nhwc_krsc", FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
     fdnn_conv_gemm_nhwc_krsc_wgrad_applicable, fdnn_conv_gemm_nhwc_krsc_wgrad_workspace,
     fdnn_conv_gemm_nhwc_krsc_wgrad_execute},
    {1, "fwd_implicit_gemm", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, always, ws_IMPLICIT,
     run_IMPLICIT},
    {2, "fwd_implicit_precomp_gemm", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, always,
     ws_PRECOMP, run_PRECOMP},
    {3, "fwd_gemm", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, always, ws_EXPLICIT, run_EXPLICIT},
    {4, "fwd_direct", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, always, no_workspace,
     fdnn_conv_direct_execute},
    {5, "fwd_winograd_nonfused", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
     fdnn_conv_winograd_applicable, fdnn_conv_winograd_workspace, fdnn_conv_winograd_execute},
    {8, "fwd_fft", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_FFT, applicable_FFT, ws_FFT, run_FFT},
    {9, "fwd_fft_tiling", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, applicable_FFT_TILING,
     ws_FFT_TILING, run_FFT_TILING},
    {31, "fwd_winograd", FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, fdnn_conv_winograd_fused_applicable,
     fdnn_conv_winograd_fused_workspace, fdnn_conv_winograd_fused_execute},
    {11, "bwd_data_direct", FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, always, no_workspace,
     fdnn_conv_direct_execute},
    {12, "bwd_data_gemm", FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, always, ws_IMPLICIT,
     run_IMPLICIT},
    {18, "bwd_data_fft", FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, applicable_FFT, ws_FFT, run_FFT},
    {19, "bwd_data_fft_tiling", FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING,
     applicable_FFT_TILING, ws_FFT_TILING, run_FFT_TILING},
    {32, "bwd_data_winograd", FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD,
     fdnn_conv_winograd_fused_applicable, fdnn_conv_winograd_fused_workspace, fdnn_conv_winograd_fused_execute},
    {33, "bwd_data_winograd_nonfused", FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED,
     fdnn_conv_winograd_applicable, fdnn_conv_winograd_workspace, fdnn_conv_winograd_execute},
    {21, "bwd_filter_direct", FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, always, no_workspace,
     fdnn_conv_direct_execute},
    {22, "bwd_filter_gemm", FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, always, ws_IMPLICIT,
     run_IMPLICIT},
    {23, "bwd_filter_gemm_explicit", FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3, always,
     ws_EXPLICIT, run_EXPLICIT},
    {28, "bwd_filter_fft", FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, applicable_FFT, ws_FFT,
     run_FFT},
    {29, "bwd_filter_fft_tiling", FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING,
     applicable_FFT_TILING, ws_FFT_TILING, run_FFT_TILING},
    {34, "bwd_filter_winograd_nonfused", FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED,
     fdnn_conv_winograd_applicable, fdnn_conv_winograd_workspace, fdnn_conv_winograd_execute},
};

int
fdnn_conv_algo_count(fdnn_conv_dir_t dir)
{
    switch (dir) {
    case FDNN_CONV_FWD: return CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    case FDNN_CONV_BWD_DATA: return CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    case FDNN_CONV_BWD_FILTER: return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
    }
    return 0;
}

/* Why an algorithm without a solver is missing. */
static const char *
missing_reason(fdnn_conv_dir_t dir, int algo)
{
    if (dir == FDNN_CONV_BWD_FILTER && algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD)
        return "backward-filter WINOGRAD is not implemented (cuDNN does not implement it either)";
    return "this algorithm is not implemented in FreeDNN yet";
}

#define NSOLVERS (sizeof(solvers) / sizeof(solvers[0]))

/* The algorithm's general solver: the last listed for it. */
const fdnn_conv_solver_t *
fdnn_conv_solver_for(fdnn_conv_dir_t dir, int algo, const char **reason)
{
    for (size_t i = NSOLVERS; i-- > 0;)
        if (solvers[i].dir == dir && solvers[i].algo == algo)
            return &solvers[i];
    if (reason != NULL)
        *reason = missing_reason(dir, algo);
    return NULL;
}

/* The solver that runs p with algo: the first of the algorithm's solvers
 * that accepts p, else the general one (whose applicability then gives the
 * reason).  A specialised solver that declines leaves a reason that the
 * general one's check replaces, so only a real failure is reported. */
static const fdnn_conv_solver_t *
solver_select(const fdnn_conv_problem_t *p, int algo, const char **reason)
{
    const fdnn_conv_solver_t *general = fdnn_conv_solver_for(p->dir, algo, reason);
    for (size_t i = 0; general != NULL && &solvers[i] != general; i++)
        if (solvers[i].dir == p->dir && solvers[i].algo == algo && solvers[i].applicable(p) == CUDNN_STATUS_SUCCESS)
            return &solvers[i];
    return general;
}

const int *
fdnn_conv_algo_order(fdnn_conv_dir_t dir)
{
    /* Implemented algorithms first (fastest first on typical layers, as
     * measured with tools/freednn-bench: the panel GEMM beats Winograd, which
     * transforms the filter on every call, except with many tiles per call,
     * where fdnn_conv_heuristic_order moves WINOGRAD first; the formula
     * direct loops are ~100x slower, fdnn_conv_prefers_direct picks the
     * blocked ones), then the unimplemented ones, which the _v7 lists
     * report as NOT_SUPPORTED. */
    static const int fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT] = {
        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
        CUDNN_CONVOLUTION_FWD_ALGO_GEMM,          CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,
        CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, CUDNN_CONVOLUTION_FWD_ALGO_FFT,
        CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,    CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
    };
    static const int bwd_data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT] = {
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,        CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
    };
    static const int bwd_filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT] = {
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD,
    };
    switch (dir) {
    case FDNN_CONV_FWD: return fwd;
    case FDNN_CONV_BWD_DATA: return bwd_data;
    case FDNN_CONV_BWD_FILTER: return bwd_filter;
    }
    return fwd;
}

const fdnn_conv_solver_t *
fdnn_conv_solver_by_id(int id)
{
    for (size_t i = 0; i < NSOLVERS; i++)
        if (solvers[i].id == id)
            return &solvers[i];
    return NULL;
}

static void
move_to_front(int *order, int count, int algo)
{
    int pos = 0;
    while (pos < count && order[pos] != algo)
        pos++;
    if (pos == count)
        return;
    for (; pos > 0; pos--)
        order[pos] = order[pos - 1];
    order[0] = algo;
}

/* Tiles of 4x4 outputs over the batch (backward data: of dx) from which
 * the fused WINOGRAD beats the direct solver: below, the filter transform,
 * 36 x K x C/g values per call, outweighs the 4x saving (ResNet-50 res4 3x3
 * at mb=1, 16 tiles: 3.9 ms against 1.4 ms; mb=4, 64 tiles: 4.6 against
 * 4.8 ms; res5 at mb=32, 128 tiles: 33 against 37 ms). */
#define WINOGRAD_MIN_TILES 96

/* 3x3 stride-1 FLOAT layers (or the FLOAT shadow of a HALF / BFLOAT16 one,
 * which runs the FP32 solvers on staged copies) with many tiles per filter
 * and unit column or channel strides (the fused kernels' row paths), and at least 16
 * channels per group each way: the transforms cost C/g + K/g per tile
 * against (C/g)(K/g) multiply-adds, so short reductions lose the saving. */
static bool
prefers_winograd(const fdnn_conv_problem_t *p)
{
    /* unit rows: image rows (NCHW) or channel rows (channels-last), which
     * the fused kernel reads and writes a row at a time */
    bool rows = (p->x.strides[4] == 1 && p->y.strides[4] == 1) || (p->x.strides[1] == 1 && p->y.strides[1] == 1);
    if (p->nsp != 2 || p->ker[1] != 3 || p->ker[2] != 3 || p->stride[1] != 1 || p->stride[2] != 1 ||
        p->dtype != CUDNN_DATA_FLOAT || fdnn_conv_config_is_integer(p->config) || fdnn_conv_cg(p) < 16 ||
        fdnn_conv_kg(p) < 16 || !rows ||
        fdnn_conv_winograd_fused_applicable(p) != CUDNN_STATUS_SUCCESS)
        return false;
    const int64_t *sp = p->dir == FDNN_CONV_FWD ? p->out : p->in;
    int64_t per_image = ((sp[1] + 3) / 4) * ((sp[2] + 3) / 4);
    /* Channels-last backward data on images of under 16 tiles: ResNet-50
     * res5 3x3 (7x7, 4 tiles) at mb=32 took 47.6-55.0 ms against the direct
     * kernels' 41.8-44.3 (three alternated runs; res4, 14x14, was even and
     * the forward of both won; bench/results/2026-12-04-nhwcbn). */
    if (p->dir == FDNN_CONV_BWD_DATA && p->x.strides[4] != 1 && per_image < 16)
        return false;
    return (double)p->n * (double)per_image >= WINOGRAD_MIN_TILES;
}

/* Backward filter: WINOGRAD_NONFUSED on 4x4 dy tiles
 * (conv_winograd_bwd_filter43.c) beats the direct kernels on 3x3
 * stride-1 FLOAT layers with 16..512 channels per group each way and at
 * least WINOGRAD_MIN_TILES 4x4 dy tiles over the batch (ResNet-50
 * res2-res5 3x3 at mb=32: 0.6-0.8x the direct time in 3 alternated runs;
 * VGG 3x3 64 at mb=1: 0.6x; res4 at mb=1, 16 tiles: 2x slower, res5 at
 * mb=1, 4 tiles: 4x slower, the 36 x K x C sums then outweigh the
 * products; bench/results/2026-12-04-wgradfil).  Wider layers were not
 * measured: their sums (36 x K x C floats) leave the cache. */
#define WINOGRAD_BWDF_MAX_CHANNELS 512

static bool
prefers_winograd_bwd_filter(const fdnn_conv_problem_t *p)
{
    if (p->nsp != 2 || p->ker[1] != 3 || p->ker[2] != 3 || p->stride[1] != 1 || p->stride[2] != 1 ||
        p->dtype != CUDNN_DATA_FLOAT || fdnn_conv_config_is_integer(p->config) || fdnn_conv_cg(p) < 16 ||
        fdnn_conv_kg(p) < 16 || fdnn_conv_cg(p) > WINOGRAD_BWDF_MAX_CHANNELS ||
        fdnn_conv_kg(p) > WINOGRAD_BWDF_MAX_CHANNELS || fdnn_conv_winograd_applicable(p) != CUDNN_STATUS_SUCCESS)
        return false;
    int64_t per_image = ((p->out[1] + 3) / 4) * ((p->out[2] + 3) / 4);
    return (double)p->n * (double)per_image >= WINOGRAD_MIN_TILES;
}

/* Algorithms moved to the front of the order where their predicate holds,
 * in this order (a later match goes before an earlier one). */
static const struct {
    fdnn_conv_dir_t dir;
    int algo;
    bool (*prefers)(const fdnn_conv_problem_t *p);
} preferred[] = {
    {FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, prefers_winograd},
    {FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD, prefers_winograd},
    {FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, prefers_winograd_bwd_filter},
};

/* The list's order, with the direct solver first for depthwise-like
 * problems (one input and few output channels per group), where per-group
 * GEMMs are degenerate, and where fdnn_conv_prefers_direct says its blocked
 * kernels are faster.  Reduced-precision problems run the FP32 solvers:
 * their order. */
void
fdnn_conv_heuristic_order(const fdnn_conv_problem_t *p, int *order)
{
    /* Reduced-precision problems run the FP32 solvers: their order; the
     * native BF16 path (cpu/conv/conv_bf16.h) first where it runs. */
    const fdnn_conv_problem_t *user = p;
    fdnn_conv_problem_t shadow;
    if (fdnn_conv_lowp_applies(p)) {
        fdnn_conv_lowp_shadow(p, &shadow);
        p = &shadow;
    }
    int count = fdnn_conv_algo_count(p->dir);
    memcpy(order, fdnn_conv_algo_order(p->dir), sizeof(int) * (size_t)count);
    if (fdnn_conv_bf16_applies(user, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)) {
        move_to_front(order, count, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
    } else if ((p->g > 1 && fdnn_conv_cg(p) == 1 && fdnn_conv_kg(p) <= 4) || fdnn_conv_prefers_direct(p)) {
        int direct = p->dir == FDNN_CONV_FWD ? CUDNN_CONVOLUTION_FWD_ALGO_DIRECT : 0; /* ALGO_0 */
        move_to_front(order, count, direct);
    }
    if (fdnn_conv_bf16_applies(user, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM))
        return;
    for (size_t i = 0; i < sizeof(preferred) / sizeof(preferred[0]); i++)
        if (preferred[i].dir == p->dir && preferred[i].prefers(p))
            move_to_front(order, count, preferred[i].algo);
}

bool
fdnn_conv_is_zero_workspace_fallback(fdnn_conv_dir_t dir, int algo)
{
    if (dir == FDNN_CONV_FWD)
        return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    return algo == 0 || algo == 1; /* BWD_DATA_ALGO_0/1, BWD_FILTER_ALGO_0/1 */
}

/* Output positions (over the batch) below which the direct solver gives way
 * to the GEMM on NCHW filters: too few positions share each filter value,
 * and the filter's reorder into the blocked layout and its trips through
 * the cache cost more than the GEMM reading the filter in place (ResNet-50
 * res5 3x3 at mb=1: 49 positions; res4 at mb=1, 196, is already faster
 * direct).  NHWC filters are repacked by the GEMM too: direct is 1.5-2x
 * faster there at every size. */
#define DIRECT_MIN_POSITIONS 128

/* Output positions (over the batch) below which the direct solver gives way
 * to the channels-last implicit GEMM (conv_gemm_nhwc_krsc.h) on
 * channels-last problems with a KRSC filter: the direct solver reorders
 * that filter on every call, which few positions do not amortise; the GEMM
 * reads it in place, but at 2 threads it scales less (the GEMM core's two
 * parallel steps per k block of a 49-column product).  ms, min of 3
 * alternated runs, GEMM (algo 0) / direct (algo 3) and direct/GEMM, 1
 * thread CPU time and 2 threads wall clock (2026-12-06,
 * bench/results/2026-12-06-nhwcinf/crossover2_out.txt):
 *
 *   positions  layer (filter)           1 thread               2 threads
 *          49  res5 3x3 512 (9.4 MB)     1.08 / 1.76  1.63      0.92 / 0.98  1.07
 *          98  res5 3x3 512, mb=2        2.23 / 2.78  1.25      1.79 / 1.33  0.75
 *          98  res5 3x3 s2 512, mb=2     2.23 / 2.89  1.30      1.77 / 1.34  0.76
 *         196  res5 3x3 512, mb=4        4.53 / 4.88  1.08      3.50 / 2.38  0.68
 *         196  res4 3x3 256 (2.4 MB)     1.13 / 1.08  0.95      0.95 / 0.65  0.69
 *         196  res4 3x3 s2 256           1.16 / 1.10  0.94      0.94 / 0.73  0.78
 *         196  VGG 3x3 512, 14x14        4.41 / 5.14  1.17      3.68 / 2.48  0.67
 *
 * (In the ResNet-50 NHWC network the res4 3x3 nodes took 5.9-6.2 ms per
 * step on the GEMM against 6.4-6.5 direct at 1 thread, 5.1-5.5 against
 * 3.9-4.3 at 2; threshold_net.txt.)  Under 64 positions the GEMM wins at
 * both; from 98 on the direct solver's scaling outweighs its reorder. */
#define KRSC_DIRECT_MIN_POSITIONS 64

/* Measured with tools/freednn-bench on the ResNet-50 layers (1 thread, side
 * by side): the blocked direct kernels beat the im2col GEMM on spatial
 * filters (7x7 stride-2 stem, 3x3, 3x3 stride 2: no im2col pass through
 * memory), by up to 2x at mb=32; 1x1 layers stay on the GEMM, which reads
 * them in place. */
bool
fdnn_conv_prefers_direct(const fdnn_conv_problem_t *p)
{
    /* One or two input channels per group fill a 16-channel block with
     * zeros: the GEMM is faster there (Fashion-MNIST's first layer, C = 1:
     * 0.45 ms GEMM, 1.15 ms direct; the 3-channel RGB stem has a kernel of
     * its own and stays direct). */
    if (p->dtype != CUDNN_DATA_FLOAT || fdnn_conv_taps(p) == 1 || fdnn_conv_cg(p) < 3)
        return false;
    /* Backward data runs as forward convolutions on the same kernels, one
     * per stride phase of dx (3x faster than ALGO_1 on res2 3x3 at mb=1,
     * 1.6x at mb=32; res3/res4 3x3 stride 2: 1.4-1.6x), each over its dx
     * positions with the taps that reach them: about in_spatial / strides
     * positions times the taps, against out_spatial times the taps that
     * are not zero padding.  When dy is much smaller than that (a 7x7
     * filter over a 7x7 image, dy 1x1) most products are with the padding
     * and ALGO_1 is 4x faster.  Those positions per phase also share the
     * reordered filter (res5 3x3 stride 2 at mb=1: 49, on the GEMM).  Its
     * outputs are dx's C/g channels in blocks of 16: the 3 of an RGB image
     * leave 13 lanes idle and ALGO_1 is 2-4x faster (ResNet stem 7x7 at
     * stride 2 and 1); 6 channels are already faster direct (5x5, 2x). */
    bool repacked = p->w_format != CUDNN_TENSOR_NCHW;
    /* Channels-last with a KRSC filter over at most 64 output positions
     * (res5 3x3 at mb=1): the GEMM reading the filter in place, which the
     * direct solver reorders on every call (conv_gemm_nhwc_krsc_bwd.h). */
    if (p->dir == FDNN_CONV_BWD_DATA && fdnn_conv_gemm_nhwc_krsc_bwd_data_applicable(p) == CUDNN_STATUS_SUCCESS)
        return false;
    if (p->dir == FDNN_CONV_BWD_DATA) {
        double strides = (double)(p->stride[0] * p->stride[1] * p->stride[2]);
        return fdnn_conv_direct_blocked_bwd_data_applies(p) && fdnn_conv_cg(p) > 3 &&
               2 * (double)fdnn_conv_out_spatial(p) * strides >= (double)fdnn_conv_in_spatial(p) &&
               (repacked || (double)p->n * (double)fdnn_conv_in_spatial(p) / strides >= DIRECT_MIN_POSITIONS);
    }
    double positions = (double)p->n * (double)fdnn_conv_out_spatial(p);
    if (p->dir == FDNN_CONV_FWD && fdnn_conv_gemm_nhwc_krsc_applicable(p) == CUDNN_STATUS_SUCCESS)
        return positions >= KRSC_DIRECT_MIN_POSITIONS;
    return p->dir == FDNN_CONV_FWD && (repacked || positions >= DIRECT_MIN_POSITIONS);
}

cudnnStatus_t
fdnn_conv_algo_check(const fdnn_conv_problem_t *p, int algo, size_t *workspace_bytes)
{
    if (algo < 0 || algo >= fdnn_conv_algo_count(p->dir))
        return FDNN_BAD_PARAM("algo is %d, not an algorithm of this direction (0 to %d)", algo,
                              fdnn_conv_algo_count(p->dir) - 1);
    /* HALF / BFLOAT16 data and BF16-rounding math types: the FP32 solvers on
     * staged copies (their workspace includes the staging buffers). */
    if (fdnn_conv_lowp_applies(p))
        return fdnn_conv_lowp_algo_check(p, algo, workspace_bytes);
    if (fdnn_conv_config_is_integer(p->config))
        return fdnn_conv_int8_algo_check(p, algo, workspace_bytes);
    const char *reason = "";
    const fdnn_conv_solver_t *s = solver_select(p, algo, &reason);
    if (s == NULL)
        return FDNN_NOT_SUPPORTED("%s", reason);
    RETURN_IF_ERROR(s->applicable(p));
    return s->workspace(p, workspace_bytes);
}

cudnnStatus_t
fdnn_conv_run(const fdnn_conv_exec_t *e, int algo)
{
    if (fdnn_conv_lowp_applies(e->p))
        return fdnn_conv_lowp_run(e, algo);
    size_t need = 0;
    RETURN_IF_ERROR(fdnn_conv_algo_check(e->p, algo, &need));
    /* Both sizes in the reason (CUDNN_LOGERR_DBG, the error callback): the
     * one given and the one the algorithm needs. */
    if (e->workspace_bytes < need)
        return FDNN_BAD_PARAM("workSpaceSizeInBytes is %zu, algorithm %d needs %zu", e->workspace_bytes, algo, need);
    if (need > 0 && e->workspace == NULL)
        return FDNN_BAD_PARAM("workSpace is NULL (workSpaceSizeInBytes %zu), algorithm %d needs %zu",
                              e->workspace_bytes, algo, need);
    const fdnn_conv_solver_t *s = solver_select(e->p, algo, NULL);
    fdnn_conv_exec_t run = *e;
    /* Below about a million multiply-adds, waking the workers costs more
     * than the work; results are the same either way.  A depthwise
     * multiply-add costs some 50x a dense one (each input element feeds
     * only its channel's taps), so there the cut is 16x lower:
     * mbv1_dw_128_56s2 (0.9 M) runs about 0.25 ms. */
    double small = fdnn_conv_cg(e->p) == 1 ? SMALL_MACS / 16 : SMALL_MACS;
    run.pool = fdnn_conv_macs(e->p) < small ? NULL : fdnn_handle_pool(e->handle);
    if (fdnn_conv_config_is_integer(e->p->config))
        return fdnn_conv_int8_execute(&run);
    return s->execute(&run);
}
