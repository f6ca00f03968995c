/* SPDX-License-Identifier: Apache-2.0
 * What the Winograd solvers share: the forward convolution they compute
 * (forward itself, or backward data as the forward convolution of dy), the
 * filter transform, the input and output transforms over lanes of tiles and
 * the output epilogue.
 * Internal to src/cpu/conv/conv_winograd*. */
#ifndef FDNN_CPU_CONV_WINOGRAD_ENGINE_H
#define FDNN_CPU_CONV_WINOGRAD_ENGINE_H

#include "core/pool.h"
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/conv_solver.h"
#include "cpu/conv/conv_winograd_tf.h"
#include "cpu/simd/cvt.h"

/* out[b, grp*cout + o, y, x] = sum_{i < cin, ky, kx < r}
 *     in[b, grp*cin + i, y - ph + ky, x - pw + kx] * filter(grp, o, i, ky, kx)
 * over oh x ow outputs cut into th x tw tiles of m x m (the last ones
 * partial).  filter(grp, o, i, ky, kx) = w[grp*w_sg + o*w_so + i*w_si +
 * fy*w_sh + fx*w_sw] with fy = r-1-ky when w_flip (fx alike).  The pointers
 * are NULL when the geometry only sizes a workspace.  Strides in elements. */
typedef struct fdnn_wino_geom {
    fdnn_wino_tf_t tf;
    int64_t batch, groups, cin, cout; /* channels per group */
    int64_t ih, iw, oh, ow, ph, pw;   /* ph, pw may be negative (backward data, pad > r-1) */
    int64_t th, tw, tiles;
    const float *in;
    int64_t in_sn, in_sc, in_sh, in_sw;
    float *out;
    int64_t out_sn, out_sc, out_sh, out_sw;
    const float *w;
    int64_t w_sg, w_so, w_si, w_sh, w_sw;
    bool w_flip;
    /* Epilogue: out = alpha*conv + beta*out (+ bias[channel], then ReLU). */
    float alpha, beta;
    const float *bias;
    bool relu;
    /* HALF storage with FP32 math (PSEUDO_HALF forward and backward data,
     * from conv_lowp.c), else NULL; in16, w16 and out16 are set together
     * (the fused kernel picks its half instance on in16).  When in16 is set, the input is in16 (in is NULL) and its
     * elements are converted to FP32 as the gather reads them; w16 likewise
     * for the filter transform; when out16 is set, each output value is
     * blended in FP32 (alpha, beta over the old half value converted, bias16
     * converted, ReLU) and rounded to half (nearest even) as it is stored.
     * Same strides, in elements.  The FP32 arithmetic is that of the FLOAT
     * path, so the result is bitwise the FP32 solver's on the converted
     * operands, blended and rounded once. */
    const uint16_t *in16, *w16, *bias16;
    uint16_t *out16;
    /* The fused kernel's split mode (conv_winograd_fused.c, filter-large
     * layers), all zero otherwise: fs_nsub consecutive blocks per call
     * (0 means 1), their transformed patches at v + b * 36*cin*TB; with
     * fs_input_only the call only writes those into v; with fs_v_ready it
     * reads them from v instead and multiplies output channels
     * [fs_k0, fs_k1) of the group only (fs_k1 = 0: all), m holding
     * fs_nsub * 36 x KB x TB floats.  With fs_filter (any mode) the call
     * only transforms the filters of output channels [fs_k0, fs_k1)
     * (global) into v as fdnn_wino_filter_transform does (the same bits;
     * F(4x4,3x3) only), staged in m (36 x (fs_k1 - fs_k0) x cin floats)
     * unless m is NULL; with v NULL, only into m. */
    int fs_nsub;
    bool fs_input_only, fs_v_ready, fs_filter;
    int64_t fs_k0, fs_k1;
    /* > 0: u holds only the group's rows [fs_k0, fs_k1), fs_u_rows of
     * them per e (u + (e * fs_u_rows + k - fs_k0) * cin), as filter mode
     * with v NULL writes them into m */
    int64_t fs_u_rows;
} fdnn_wino_geom_t;

/* The geometry of p (forward or backward data) with F(m, r); e may be NULL
 * (sizes only). */
void fdnn_wino_geom_init(fdnn_wino_geom_t *g, const fdnn_conv_problem_t *p, int m, const fdnn_conv_exec_t *e);

/* NOT_SUPPORTED with a reason unless p is a 2-D FLOAT stride-1 dilation-1
 * problem with a square filter of a size in `sizes` (count entries). */
cudnnStatus_t fdnn_wino_check(const fdnn_conv_problem_t *p, const char *algo, const int *sizes, int count);

/* u[e][grp*cout + o][i] = (G g G^T)[e] for every filter tap matrix g, in
 * parallel over output channels on pool (NULL: serial).  u holds
 * n*n * groups*cout * cin floats. */
void fdnn_wino_filter_transform(const fdnn_wino_geom_t *g, float *u, fdnn_pool_t pool);

/* The input and output transforms on FDNN_WINO_LANES tiles at once (lane l
 * of every array is one tile; the loops over lanes vectorise).  Zero
 * coefficients are skipped, the same ones for every lane. */
#define FDNN_WINO_LANES 16

/* v[e][l] = (B^T d B)[e] of lane l, e < n*n. */
static inline void
fdnn_wino_input_lanes(const fdnn_wino_tf_t *tf, float d[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N][FDNN_WINO_LANES],
                      float v[FDNN_WINO_MAX_N * FDNN_WINO_MAX_N][FDNN_WINO_LANES])
{
    int n = tf->n;
    float t[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N][FDNN_WINO_LANES];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float acc[FDNN_WINO_LANES] = {0};
            for (int k = 0; k < n; k++) {
                float c = tf->bt[i][k];
                if (c == 0)
                    continue;
                for (int l = 0; l < FDNN_WINO_LANES; l++)
                    acc[l] += c * d[k][j][l];
            }
            memcpy(t[i][j], acc, sizeof(acc));
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float acc[FDNN_WINO_LANES] = {0};
            for (int k = 0; k < n; k++) {
                float c = tf->bt[j][k];
                if (c == 0)
                    continue;
                for (int l = 0; l < FDNN_WINO_LANES; l++)
                    acc[l] += c * t[i][k][l];
            }
            memcpy(v[i * n + j], acc, sizeof(acc));
        }
}

/* y[i][j][l] = (A^T mm A)[i][j] of lane l. */
static inline void
fdnn_wino_output_lanes(const fdnn_wino_tf_t *tf, float mm[FDNN_WINO_MAX_N * FDNN_WINO_MAX_N][FDNN_WINO_LANES],
                       float y[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N][FDNN_WINO_LANES])
{
    int n = tf->n, m = tf->m;
    float t[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N][FDNN_WINO_LANES];
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float acc[FDNN_WINO_LANES] = {0};
            for (int k = 0; k < n; k++) {
                float c = tf->at[i][k];
                if (c == 0)
                    continue;
                for (int l = 0; l < FDNN_WINO_LANES; l++)
                    acc[l] += c * mm[k * n + j][l];
            }
            memcpy(t[i][j], acc, sizeof(acc));
        }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            float acc[FDNN_WINO_LANES] = {0};
            for (int k = 0; k < n; k++) {
                float c = tf->at[j][k];
                if (c == 0)
                    continue;
                for (int l = 0; l < FDNN_WINO_LANES; l++)
                    acc[l] += c * t[i][k][l];
            }
            memcpy(y[i][j], acc, sizeof(acc));
        }
}

/* v[e * es + t] = (B^T d B)[e] of the input patch of tile t0 + t of channel
 * ci (global) of image b, for t < tb: FDNN_WINO_LANES tiles at a time. */
void fdnn_wino_input_block(const fdnn_wino_geom_t *g, int64_t b, int64_t ci, int64_t t0, int64_t tb, float *v,
                           int64_t es);

/* Writes one output value through the epilogue. */
static inline void
fdnn_wino_store(const fdnn_wino_geom_t *g, float *dst, int64_t channel, float v)
{
    *dst = fdnn_conv_epilogue_f32(v, g->alpha, g->beta, dst, g->bias != NULL ? g->bias + channel : NULL, g->relu);
}

/* The half-storage twin of fdnn_wino_store (g->out16 set): the FP32 value
 * v blended as the staged HALF path's write pass blends it, rounded once. */
static inline void
fdnn_wino_store16(const fdnn_wino_geom_t *g, uint16_t *dst, int64_t channel, float v)
{
    float old = g->beta != 0 ? fdnn_f16_to_f32(*dst) : 0.0f;
    float b = g->bias16 != NULL ? fdnn_f16_to_f32(g->bias16[channel]) : 0.0f;
    v = fdnn_conv_epilogue_f32(v, g->alpha, g->beta, &old, g->bias16 != NULL ? &b : NULL, g->relu);
    *dst = fdnn_f32_to_f16(v);
}

/* Writes the m x m tile `tile` of channel `co` (global) of image b, clipped
 * to the output. */
static inline void
fdnn_wino_store_tile(const fdnn_wino_geom_t *g, int64_t b, int64_t co, int64_t tile,
                     float y[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N])
{
    int m = g->tf.m;
    int64_t y0 = (tile / g->tw) * m, x0 = (tile % g->tw) * m;
    float *dst = g->out + b * g->out_sn + co * g->out_sc;
    for (int i = 0; i < m && y0 + i < g->oh; i++)
        for (int j = 0; j < m && x0 + j < g->ow; j++)
            fdnn_wino_store(g, dst + (y0 + i) * g->out_sh + (x0 + j) * g->out_sw, co, y[i][j]);
}

/* Backward filter, WINOGRAD_NONFUSED (conv_winograd_bwd_filter.c). */
cudnnStatus_t fdnn_wino_bwd_filter_workspace(const fdnn_conv_problem_t *p, size_t *bytes);
cudnnStatus_t fdnn_wino_bwd_filter_execute(const fdnn_conv_exec_t *e);

/* ---- fused F(4x4, 3x3) ---------------------------------------------------- */

#define FDNN_WINO_FUSED_M 4
#define FDNN_WINO_FUSED_N 6
#define FDNN_WINO_FUSED_NN 36
/* Tiles of one block: two AVX-512 vectors (four AVX2 ones) of lanes, so
 * each transformed filter row loaded in the product serves 32 tiles (16 ->
 * 32: ResNet-50 res4 forward at mb=32 29.2 -> 21.7 ms, one run each). */
#define FDNN_WINO_FUSED_TB 32
/* Output channels multiplied and transformed back together: each of the 36
 * transformed input slices (C/g x 16 floats) is read from L2 once per 96
 * channels and from L1 in between (24 -> 96: about 5% faster on ResNet-50
 * res3/res4 at mb=32). */
#define FDNN_WINO_FUSED_KB 96
/* Blocks one call of the split mode takes at most (fs_nsub). */
#define FDNN_WINO_FUSED_MAXSUB 4

/* One block of the fused solver: the FDNN_WINO_FUSED_TB tiles gt0,
 * gt0 + 1, ... of group grp, counted over the whole batch (image gt / tiles,
 * tile gt % tiles), every output channel of the group, written to g->out
 * through the epilogue.  u is the transformed filter
 * (fdnn_wino_filter_transform); v (36 x cin x TB floats) and m (36 x KB x TB
 * floats) are the caller's scratch.  Tiles past the last are computed on
 * zeros and not stored.  The result depends on the ISA only (each output
 * row is one product row summed in channel order, the same whichever call,
 * block group or channel range computes it; g->fs_* above). */
typedef void (*fdnn_wino_fused_block_fn)(const fdnn_wino_geom_t *g, const float *u, int64_t grp, int64_t gt0,
                                         float *v, float *m);
void fdnn_wino_fused_block__scalar(const fdnn_wino_geom_t *g, const float *u, int64_t grp, int64_t gt0, float *v,
                                   float *m);
void fdnn_wino_fused_block__avx2(const fdnn_wino_geom_t *g, const float *u, int64_t grp, int64_t gt0, float *v,
                                 float *m);
void fdnn_wino_fused_block__avx512(const fdnn_wino_geom_t *g, const float *u, int64_t grp, int64_t gt0, float *v,
                                   float *m);
void fdnn_wino_fused_block__neon(const fdnn_wino_geom_t *g, const float *u, int64_t grp, int64_t gt0, float *v,
                                 float *m);

/* ---- backward filter, F(3x3 filter, 4x4 dy tile) -------------------------- */

/* dy tiles of one block (over the whole batch, image gt / tiles): the
 * products sum a block's tiles in registers before adding into S, so the
 * sums over N*H*W are blocked (error ~ (TB + blocks) ulps, not N*H*W). */
#define FDNN_WINO_BWDF_TB 64
/* Channels are padded to this in the transformed x (the product's vectors). */
#define FDNN_WINO_BWDF_CPAD 16

/* The filter gradient of one group as sums over 4x4 dy tiles (n = 6):
 *   S[e][k][c] += D[e][k][t] * X[e][t][c],   e < 36,
 * D = (A^T)^T dy A^T of the tile's 4x4 dy (A^T of F(4,3)), X = B^T x B of
 * the tile's 6x6 x patch (at 4*ty - ph, 4*tx - pw), and dw = G^T S G at the
 * end (conv_winograd_bwd_filter43.c).  Strides in elements. */
typedef struct fdnn_wino_bwdf {
    fdnn_wino_tf_t tf; /* F(4, 3) */
    int64_t batch, groups, cin, cout, cp; /* cp: cin rounded up to FDNN_WINO_BWDF_CPAD */
    int64_t ih, iw, oh, ow, ph, pw, th, tw, tiles;
    const float *x;
    int64_t x_sn, x_sc, x_sh, x_sw, x_span; /* x_span: elements of x from its first */
    const float *dy;
    int64_t y_sn, y_sc, y_sh, y_sw, y_span;
} fdnn_wino_bwdf_t;

/* Where the tiles of one block are, computed once per block by the driver:
 * tiles gt0 + t (over the batch: image gt / tiles), t < tb <=
 * FDNN_WINO_BWDF_TB.  Tile t's x patch starts at row y0[t], column x0[t]
 * (may be outside: padding) of image b[t]; x_in[t] when the whole 6x6
 * patch is inside, then at element x_off[t] of a channel plane.  Its dy
 * tile starts at y_off[t] of a channel plane; y_in[t] when all 4x4 of it
 * is inside dy.  For the border patches: the patch rows inside x are
 * x_r0[t] <= r < x_r1[t], bit c of x_cols[t] says column c is; of a
 * partial dy tile, the rows r < y_rows[t] and the columns of y_cols[t]
 * (computed once per block, not per channel and row). */
typedef struct fdnn_wino_bwdf_block {
    int64_t tb;
    int64_t b[FDNN_WINO_BWDF_TB], y0[FDNN_WINO_BWDF_TB], x0[FDNN_WINO_BWDF_TB];
    int64_t x_off[FDNN_WINO_BWDF_TB], y_off[FDNN_WINO_BWDF_TB];
    bool x_in[FDNN_WINO_BWDF_TB], y_in[FDNN_WINO_BWDF_TB];
    uint8_t x_cols[FDNN_WINO_BWDF_TB], x_r0[FDNN_WINO_BWDF_TB], x_r1[FDNN_WINO_BWDF_TB];
    uint8_t y_rows[FDNN_WINO_BWDF_TB], y_cols[FDNN_WINO_BWDF_TB];
} fdnn_wino_bwdf_block_t;

/* The per-ISA kernels of one block of group grp:
 *   x_channels: X[e*TB*cp + t*cp + i] for the channels i0 <= i < i0 + 16
 *     (i0 a multiple of 16) of the group, t < tb; zero for i >= cin;
 *   dy_channel: D[e*cout*TB + k*TB + t] for channel k (< cout), t < tb;
 *     both only for the e = 6 i + j of the transform rows r0 <= i < r1
 *     (each element the same bits whatever the range);
 *   product: S[(e*kall + grp*cout + k)*cp + c] (+)= sum_{t < tb, increasing}
 *     D[e][k][t] X[e][t][c] for k in [k0, k1), every c < cp; `first`: S is
 *     set, not added to.  Each S element is summed the same way whatever
 *     [k0, k1) it falls in. */
typedef struct fdnn_wino_bwdf_kernels {
    void (*x_channels)(const fdnn_wino_bwdf_t *g, const fdnn_wino_bwdf_block_t *blk, int64_t grp, int64_t i0, int r0,
                       int r1, float *x);
    void (*dy_channel)(const fdnn_wino_bwdf_t *g, const fdnn_wino_bwdf_block_t *blk, int64_t grp, int64_t k, int r0,
                       int r1, float *d);
    void (*product)(const fdnn_wino_bwdf_t *g, int64_t grp, int64_t e, int64_t k0, int64_t k1, int64_t tb,
                    const float *d, const float *x, float *s, bool first);
} fdnn_wino_bwdf_kernels_t;
/* Per level (src/cpu/config); AArch64 runs the portable ones. */
extern const fdnn_wino_bwdf_kernels_t fdnn_wino_bwdf_kernels__scalar, fdnn_wino_bwdf_kernels__avx2,
    fdnn_wino_bwdf_kernels__avx512;

/* WINOGRAD_NONFUSED backward filter of 3x3 filters on 4x4 dy tiles
 * (conv_winograd_bwd_filter43.c); fdnn_wino_bwd_filter_* call them for
 * r = 3. */
cudnnStatus_t fdnn_wino_bwdf43_workspace(const fdnn_conv_problem_t *p, size_t *bytes);
cudnnStatus_t fdnn_wino_bwdf43_execute(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_WINOGRAD_ENGINE_H */
