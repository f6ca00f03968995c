/* SPDX-License-Identifier: Apache-2.0
 * Convolution descriptors and the convolution problem.
 *
 * The API layer turns (tensor, filter, convolution) descriptors into one
 * fdnn_conv_problem_t with fdnn_conv_problem_from_desc, which also performs
 * every shape check cuDNN 8.9 documents (BAD_PARAM / NOT_SUPPORTED with a
 * reason).  Everything below the API (solvers, reference, bench) sees only
 * the problem struct: 2-D problems are stored as 3-D ones with depth 1, so
 * the solvers have one code path.
 *
 * The canonical problem string (fdnn_conv_problem_to_string) uses the
 * key=value grammar of shared/bench/shapes.txt, e.g.
 *   conv dir=fwd dt=f32 mb=32 ic=64 oc=64 g=1 ih=56 iw=56 kh=3 kw=3 sh=1 sw=1
 *        ph=1 pw=1 dh=1 dw=1 mode=xcorr x=nchw w=nchw y=nchw
 * (one line; dilation cuDNN-style, 1 = dense; the depth keys id kd sd pd dd
 * appear only for 3-D problems). */
#ifndef FDNN_CORE_CONV_H
#define FDNN_CORE_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/conv_config.h"
#include "core/tensor.h"
#include "cudnn.h"

#define FDNN_CONV_MAGIC 0x564e4f43u /* "CONV" */

/* cuDNN allows CUDNN_DIM_MAX - 2 spatial dimensions in a descriptor; the
 * operations themselves take 4-D and 5-D tensors (2 or 3 spatial dims). */
#define FDNN_CONV_MAX_ARRAY (CUDNN_DIM_MAX - 2)

struct cudnnConvolutionStruct {
    uint32_t magic;
    bool is_set;
    int array_length; /* number of spatial dimensions */
    int pad[FDNN_CONV_MAX_ARRAY];
    int stride[FDNN_CONV_MAX_ARRAY];
    int dilation[FDNN_CONV_MAX_ARRAY];
    cudnnConvolutionMode_t mode;
    cudnnDataType_t compute_type;
    cudnnMathType_t math_type;  /* DEFAULT at create */
    int group_count;            /* 1 at create */
    cudnnReorderType_t reorder; /* DEFAULT_REORDER at create */
};

typedef enum fdnn_conv_dir {
    FDNN_CONV_FWD = 0,
    FDNN_CONV_BWD_DATA = 1,
    FDNN_CONV_BWD_FILTER = 2,
} fdnn_conv_dir_t;

/* One convolution, whatever the direction:
 *   y[n, g*Kg+k, o] = sum_{c<Cg, q} x[n, g*Cg+c, o*stride - pad + q*dil] * w[g*Kg+k, c, q']
 * with q' = q for cross-correlation and q' = kernel-1-q (every spatial
 * dimension reversed) for CUDNN_CONVOLUTION.  Spatial arrays are ordered
 * D, H, W; a 2-D problem has D = kd = od = 1, pad 0, stride 1, dil 1 in it.
 * x, w, y are the tensor views of the three operands in NCHW dimension order
 * (ndim 5: dims 2..4 are D, H, W; for 2-D problems a depth dim of 1 with
 * stride 0 is inserted).  For backward data x is dx and y is dy; for backward
 * filter w is dw. */
typedef struct fdnn_conv_problem {
    fdnn_conv_dir_t dir;
    cudnnDataType_t dtype; /* x's storage type; the solvers take FLOAT and DOUBLE */
    /* The cuDNN data-type configuration (conv_config.h) and what chose it:
     * the storage types of the three operands, the descriptor's compute
     * type and math type. */
    fdnn_conv_config_t config;
    cudnnDataType_t x_dtype, w_dtype, y_dtype, compute_type;
    cudnnMathType_t math_type;
    int nsp; /* spatial dimensions as given: 2 or 3 */
    int64_t n, g, c, k; /* c and k are totals over all groups */
    int64_t in[3], ker[3], out[3], pad[3], stride[3], dil[3];
    bool flip; /* CUDNN_CONVOLUTION (kernel reversed) */
    fdnn_tensor_t x, w, y;
    cudnnTensorFormat_t w_format;
    /* The integer configurations: x's and y's descriptor formats
     * (NCHW_VECT_C: x.dims[1] counts channels, strides count vectors) and
     * the descriptor's reorder type (INT8x32 filters). */
    cudnnTensorFormat_t x_format, y_format;
    cudnnReorderType_t reorder;
} fdnn_conv_problem_t;

/* BAD_PARAM unless desc is a created (and, with need_set, set) descriptor. */
cudnnStatus_t fdnn_conv_desc_check(cudnnConvolutionDescriptor_t desc, const char *what, bool need_set);

/* Output size along one dimension, or -1 when the dilated filter does not
 * fit in the padded input.  Computed in 64 bits (no overflow for int
 * inputs). */
int64_t fdnn_conv_out_size(int64_t in, int64_t ker, int64_t pad, int64_t stride, int64_t dil);

/* The forward output dimensions (N, K, spatial...) of x convolved with w
 * under conv: the checks of cudnnGetConvolutionNdForwardOutputDim.  dims
 * receives nb = x's rank entries. */
cudnnStatus_t fdnn_conv_output_dims(cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t x,
                                    cudnnFilterDescriptor_t w, int *nb, int dims[CUDNN_DIM_MAX]);

/* Validates the descriptors of one convolution call and fills *p.  x_desc is
 * x (fwd, bwd filter) or dx (bwd data); y_desc is y or dy.  Statuses follow
 * cuDNN 8.9: BAD_PARAM for caller errors (rank, channel, group, data type
 * mismatches, output size different from the forward output size, filter
 * larger than the padded input), NOT_SUPPORTED for legal but unsupported
 * problems (rank not 4 or 5, configurations not yet implemented:
 * fdnn_conv_config_check; negative strides cannot occur in descriptors). */
cudnnStatus_t fdnn_conv_problem_from_desc(fdnn_conv_dir_t dir, cudnnTensorDescriptor_t x_desc,
                                          cudnnFilterDescriptor_t w_desc, cudnnConvolutionDescriptor_t conv,
                                          cudnnTensorDescriptor_t y_desc, fdnn_conv_problem_t *p);

/* The forward problem of x and w under conv, with y the packed NCHW output
 * the convolution would produce (for calls without a y descriptor, such as
 * cudnnIm2Col).  Same checks as fdnn_conv_problem_from_desc. */
cudnnStatus_t fdnn_conv_problem_without_y(cudnnTensorDescriptor_t x_desc, cudnnFilterDescriptor_t w_desc,
                                          cudnnConvolutionDescriptor_t conv, fdnn_conv_problem_t *p);

/* Canonical one-line problem string (see the top of this file). */
void fdnn_conv_problem_to_string(const fdnn_conv_problem_t *p, char *buf, size_t size);

/* The greatest common divisor of a and b (a, b >= 0; gcd(a, 0) = a): the
 * stride / dilation phases of the blocked direct kernels, and the L1 sets a
 * strided channel block falls into (depthwise). */
static inline int64_t
fdnn_gcd_i64(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Derived sizes. */
static inline int64_t
fdnn_conv_cg(const fdnn_conv_problem_t *p)
{
    return p->c / p->g;
}
static inline int64_t
fdnn_conv_kg(const fdnn_conv_problem_t *p)
{
    return p->k / p->g;
}
/* Kernel taps: kd*kh*kw. */
static inline int64_t
fdnn_conv_taps(const fdnn_conv_problem_t *p)
{
    return p->ker[0] * p->ker[1] * p->ker[2];
}
/* Output positions per image and channel: od*oh*ow. */
static inline int64_t
fdnn_conv_out_spatial(const fdnn_conv_problem_t *p)
{
    return p->out[0] * p->out[1] * p->out[2];
}
static inline int64_t
fdnn_conv_in_spatial(const fdnn_conv_problem_t *p)
{
    return p->in[0] * p->in[1] * p->in[2];
}
/* Element (n, c, d, h, w) of an operand view of a problem (x, w or y;
 * always 5-D here), in elements. */
static inline int64_t
fdnn_conv_off5(const fdnn_tensor_t *t, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w)
{
    return n * t->strides[0] + c * t->strides[1] + d * t->strides[2] + h * t->strides[3] + w * t->strides[4];
}
/* Whether an operand view's channels are dense (channel stride 1, or one
 * channel): channels-last data as the NHWC solvers read it (the rows of a
 * strided or irregular view can then be gathered a position at a time). */
static inline bool
fdnn_conv_channels_dense(const fdnn_tensor_t *t)
{
    return t->dims[1] == 1 || t->strides[1] == 1;
}
/* Where filter tap (qd, qh, qw) of the formula is stored in p->w: reversed
 * for CONVOLUTION mode. */
static inline int64_t
fdnn_conv_w_off(const fdnn_conv_problem_t *p, int64_t k, int64_t c, int64_t qd, int64_t qh, int64_t qw)
{
    if (p->flip) {
        qd = p->ker[0] - 1 - qd;
        qh = p->ker[1] - 1 - qh;
        qw = p->ker[2] - 1 - qw;
    }
    return fdnn_conv_off5(&p->w, k, c, qd, qh, qw);
}
/* Multiply-adds of the direct formula (same for every direction). */
static inline double
fdnn_conv_macs(const fdnn_conv_problem_t *p)
{
    return (double)p->n * (double)p->k * (double)fdnn_conv_cg(p) * (double)fdnn_conv_taps(p) *
           (double)fdnn_conv_out_spatial(p);
}

#endif /* FDNN_CORE_CONV_H */
