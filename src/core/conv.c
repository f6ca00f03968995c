/* SPDX-License-Identifier: Apache-2.0
 * Convolution problems: descriptor validation, output sizes, problem
 * strings.  See conv.h. */
#include "core/conv.h"

#include <stdio.h>
#include <string.h>

#include "core/fail.h"

cudnnStatus_t
fdnn_conv_desc_check(cudnnConvolutionDescriptor_t desc, const char *what, bool need_set)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_CONV_MAGIC)
        return FDNN_BAD_PARAM("%s is not a convolution descriptor (destroyed or never created)", what);
    if (need_set && !desc->is_set)
        return FDNN_BAD_PARAM("%s was created but never set", what);
    return CUDNN_STATUS_SUCCESS;
}

int64_t
fdnn_conv_out_size(int64_t in, int64_t ker, int64_t pad, int64_t stride, int64_t dil)
{
    int64_t span = (ker - 1) * dil + 1; /* extent of the dilated filter */
    int64_t padded = in + 2 * pad;
    if (span > padded || stride <= 0)
        return -1;
    return (padded - span) / stride + 1;
}

static const char *
dim_name(int nb, int i)
{
    /* Spatial dimension i (0-based) of an nb-spatial problem. */
    static const char *const names3[3] = {"D", "H", "W"};
    static const char *const names2[2] = {"H", "W"};
    if (nb == 3)
        return names3[i];
    if (nb == 2)
        return names2[i];
    return "spatial";
}

/* Checks shared by the output-size query and every operation: rank
 * agreement, channels per group, filter fitting in the padded input. */
static cudnnStatus_t
check_shapes(cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
             const char *xname, const char *wname)
{
    int nb = x->nb_dims;
    if (w->nb_dims != nb)
        return FDNN_BAD_PARAM("%s has %d dims but %s has %d", xname, nb, wname, w->nb_dims);
    if (nb < 3)
        return FDNN_BAD_PARAM("%s has %d dims, a convolution needs at least 3", xname, nb);
    if (nb != conv->array_length + 2)
        return FDNN_BAD_PARAM("%s has %d dims but convDesc has %d spatial dims (expected %d tensor dims)", xname,
                              nb, conv->array_length, conv->array_length + 2);
    int64_t groups = conv->group_count;
    if ((int64_t)x->dims[1] != (int64_t)w->dims[1] * groups)
        return FDNN_BAD_PARAM("%s has %d channels but %s has %d input channels x %d groups", xname, x->dims[1],
                              wname, w->dims[1], conv->group_count);
    for (int i = 0; i < nb - 2; i++) {
        int64_t o = fdnn_conv_out_size(x->dims[i + 2], w->dims[i + 2], conv->pad[i], conv->stride[i],
                                       conv->dilation[i]);
        if (o < 1)
            return FDNN_BAD_PARAM("%s filter size %d (dilation %d) is larger than the padded input %d + 2*%d",
                                  dim_name(nb - 2, i), w->dims[i + 2], conv->dilation[i], x->dims[i + 2],
                                  conv->pad[i]);
        /* Huge paddings give sizes no tensor descriptor can hold. */
        if (o > INT32_MAX)
            return FDNN_NOT_SUPPORTED("%s output size %lld does not fit in an int", dim_name(nb - 2, i),
                                      (long long)o);
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_tensor(cudnnTensorDescriptor_t t, const char *what)
{
    if (t == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (t->magic != FDNN_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("%s is not a tensor descriptor (destroyed or never created)", what);
    if (!t->is_set)
        return FDNN_BAD_PARAM("%s was created but never set", what);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_filter(cudnnFilterDescriptor_t f, const char *what)
{
    if (f == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (f->magic != FDNN_FILTER_MAGIC)
        return FDNN_BAD_PARAM("%s is not a filter descriptor (destroyed or never created)", what);
    if (!f->is_set)
        return FDNN_BAD_PARAM("%s was created but never set", what);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_output_dims(cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                      int *nb, int dims[CUDNN_DIM_MAX])
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(conv, "convDesc", true));
    RETURN_IF_ERROR(check_tensor(x, "inputTensorDesc"));
    RETURN_IF_ERROR(check_filter(w, "filterDesc"));
    RETURN_IF_ERROR(check_shapes(conv, x, w, "inputTensorDesc", "filterDesc"));
    *nb = x->nb_dims;
    dims[0] = x->dims[0];
    dims[1] = w->dims[0];
    for (int i = 0; i < x->nb_dims - 2; i++)
        dims[i + 2] = (int)fdnn_conv_out_size(x->dims[i + 2], w->dims[i + 2], conv->pad[i], conv->stride[i],
                                              conv->dilation[i]);
    return CUDNN_STATUS_SUCCESS;
}

/* A 4-D or 5-D view as 5-D (N, C, D, H, W): a 2-D problem gets D = 1 with
 * stride 0. */
static void
to_5d(fdnn_tensor_t *t)
{
    if (t->ndim == 5)
        return;
    for (int i = 4; i >= 3; i--) {
        t->dims[i] = t->dims[i - 1];
        t->strides[i] = t->strides[i - 1];
    }
    t->dims[2] = 1;
    t->strides[2] = 0;
    t->ndim = 5;
}

cudnnStatus_t
fdnn_conv_problem_from_desc(fdnn_conv_dir_t dir, cudnnTensorDescriptor_t x_desc, cudnnFilterDescriptor_t w_desc,
                            cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y_desc,
                            fdnn_conv_problem_t *p)
{
    const char *xname = dir == FDNN_CONV_BWD_DATA ? "dxDesc" : "xDesc";
    const char *yname = dir == FDNN_CONV_FWD ? "yDesc" : "dyDesc";
    const char *wname = dir == FDNN_CONV_BWD_FILTER ? "dwDesc" : "wDesc";
    RETURN_IF_ERROR(check_tensor(x_desc, xname));
    RETURN_IF_ERROR(check_filter(w_desc, wname));
    RETURN_IF_ERROR(fdnn_conv_desc_check(conv, "convDesc", true));
    RETURN_IF_ERROR(check_tensor(y_desc, yname));
    if (x_desc->nb_dims != y_desc->nb_dims)
        return FDNN_BAD_PARAM("%s has %d dims but %s has %d", xname, x_desc->nb_dims, yname, y_desc->nb_dims);
    RETURN_IF_ERROR(check_shapes(conv, x_desc, w_desc, xname, wname));
    /* (The output-size query does not check this one, as cuDNN.) */
    if (w_desc->dims[0] % conv->group_count != 0)
        return FDNN_BAD_PARAM("%s has %d output channels, not a multiple of groupCount %d", wname, w_desc->dims[0],
                              conv->group_count);
    fdnn_conv_config_t config;
    RETURN_IF_ERROR(fdnn_conv_config_classify((int)dir, x_desc->dtype, w_desc->dtype, conv->compute_type,
                                              y_desc->dtype, &config));
    int nb = x_desc->nb_dims;
    if (nb != 4 && nb != 5)
        return FDNN_NOT_SUPPORTED("%s has %d dims; convolutions take 4-D or 5-D tensors", xname, nb);
    if (y_desc->dims[0] != x_desc->dims[0])
        return FDNN_BAD_PARAM("%s has batch %d but %s has %d", yname, y_desc->dims[0], xname, x_desc->dims[0]);
    if (y_desc->dims[1] != w_desc->dims[0])
        return FDNN_BAD_PARAM("%s has %d channels but %s has %d output channels", yname, y_desc->dims[1], wname,
                              w_desc->dims[0]);
    for (int i = 0; i < nb - 2; i++) {
        int64_t o = fdnn_conv_out_size(x_desc->dims[i + 2], w_desc->dims[i + 2], conv->pad[i], conv->stride[i],
                                       conv->dilation[i]);
        if (y_desc->dims[i + 2] != o)
            return FDNN_BAD_PARAM("%s %s is %d, the convolution gives %lld", yname, dim_name(nb - 2, i),
                                  y_desc->dims[i + 2], (long long)o);
    }
    if (dir != FDNN_CONV_BWD_FILTER) { /* (filters are packed by construction) */
        fdnn_tensor_t out;
        RETURN_IF_ERROR(dir == FDNN_CONV_FWD ? fdnn_output_from_desc(y_desc, yname, &out)
                                             : fdnn_output_from_desc(x_desc, xname, &out));
    }
    RETURN_IF_ERROR(fdnn_conv_config_check((int)dir, config));

    memset(p, 0, sizeof(*p));
    p->dir = dir;
    p->dtype = x_desc->dtype;
    p->config = config;
    p->x_dtype = x_desc->dtype;
    p->w_dtype = w_desc->dtype;
    p->y_dtype = y_desc->dtype;
    p->compute_type = conv->compute_type;
    p->math_type = conv->math_type;
    p->nsp = nb - 2;
    p->n = x_desc->dims[0];
    p->g = conv->group_count;
    p->c = x_desc->dims[1];
    p->k = w_desc->dims[0];
    p->flip = conv->mode == CUDNN_CONVOLUTION;
    p->w_format = w_desc->format;
    p->x_format = x_desc->format;
    p->y_format = y_desc->format;
    p->reorder = conv->reorder;
    int off = 3 - p->nsp; /* 2-D problems fill D with the identity */
    for (int i = 0; i < 3; i++) {
        p->in[i] = p->ker[i] = p->out[i] = 1;
        p->stride[i] = p->dil[i] = 1;
        p->pad[i] = 0;
    }
    for (int i = 0; i < p->nsp; i++) {
        p->in[off + i] = x_desc->dims[i + 2];
        p->ker[off + i] = w_desc->dims[i + 2];
        p->out[off + i] = y_desc->dims[i + 2];
        p->pad[off + i] = conv->pad[i];
        p->stride[off + i] = conv->stride[i];
        p->dil[off + i] = conv->dilation[i];
    }
    RETURN_IF_ERROR(fdnn_tensor_from_desc(x_desc, xname, &p->x));
    RETURN_IF_ERROR(fdnn_tensor_from_filter(w_desc, wname, &p->w));
    RETURN_IF_ERROR(fdnn_tensor_from_desc(y_desc, yname, &p->y));
    to_5d(&p->x);
    to_5d(&p->w);
    to_5d(&p->y);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_problem_without_y(cudnnTensorDescriptor_t x_desc, cudnnFilterDescriptor_t w_desc,
                            cudnnConvolutionDescriptor_t conv, fdnn_conv_problem_t *p)
{
    int nb = 0;
    int dims[CUDNN_DIM_MAX];
    RETURN_IF_ERROR(fdnn_conv_output_dims(conv, x_desc, w_desc, &nb, dims));
    /* A packed output descriptor of the computed size, on the stack. */
    struct cudnnTensorStruct y;
    memset(&y, 0, sizeof(y));
    y.magic = FDNN_TENSOR_MAGIC;
    y.is_set = true;
    y.dtype = x_desc->dtype;
    y.format = CUDNN_TENSOR_NCHW;
    y.nb_dims = nb;
    y.vect = 1;
    int64_t s = 1;
    for (int i = nb - 1; i >= 0; i--) {
        y.dims[i] = dims[i];
        y.strides[i] = (int)(s > INT32_MAX ? INT32_MAX : s);
        s *= dims[i];
    }
    return fdnn_conv_problem_from_desc(FDNN_CONV_FWD, x_desc, w_desc, conv, &y, p);
}

/* "nchw" or "nhwc" when the 5-D view is packed in that order, else
 * "strided". */
static const char *
layout_name(const fdnn_tensor_t *t)
{
    /* Packed channel-first: W, H, D, C, N strides grow as products. */
    const int first[5] = {4, 3, 2, 1, 0};
    const int last[5] = {1, 4, 3, 2, 0};
    const int *orders[2] = {first, last};
    static const char *const names[2] = {"nchw", "nhwc"};
    for (int o = 0; o < 2; o++) {
        int64_t s = 1;
        bool ok = true;
        for (int i = 0; i < 5 && ok; i++) {
            int d = orders[o][i];
            if (t->dims[d] != 1 && t->strides[d] != s)
                ok = false;
            s *= t->dims[d];
        }
        if (ok)
            return names[o];
    }
    return "strided";
}

void
fdnn_conv_problem_to_string(const fdnn_conv_problem_t *p, char *buf, size_t size)
{
    static const char *const dirs[3] = {"fwd", "bwd_d", "bwd_w"};
    int len = snprintf(buf, size, "conv dir=%s dt=%s mb=%lld ic=%lld oc=%lld g=%lld", dirs[p->dir],
                       fdnn_dtype_name(p->dtype), (long long)p->n, (long long)p->c, (long long)p->k,
                       (long long)p->g);
    if (p->nsp == 3 && len >= 0 && (size_t)len < size)
        len += snprintf(buf + len, size - (size_t)len, " id=%lld kd=%lld sd=%lld pd=%lld dd=%lld",
                        (long long)p->in[0], (long long)p->ker[0], (long long)p->stride[0], (long long)p->pad[0],
                        (long long)p->dil[0]);
    if (len >= 0 && (size_t)len < size)
        len += snprintf(buf + len, size - (size_t)len,
                        " ih=%lld iw=%lld kh=%lld kw=%lld sh=%lld sw=%lld ph=%lld pw=%lld dh=%lld dw=%lld"
                        " mode=%s x=%s w=%s y=%s",
                        (long long)p->in[1], (long long)p->in[2], (long long)p->ker[1], (long long)p->ker[2],
                        (long long)p->stride[1], (long long)p->stride[2], (long long)p->pad[1],
                        (long long)p->pad[2], (long long)p->dil[1], (long long)p->dil[2],
                        p->flip ? "conv" : "xcorr", layout_name(&p->x),
                        p->w_format == CUDNN_TENSOR_NHWC ? "nhwc" : "nchw", layout_name(&p->y));
}
