/* SPDX-License-Identifier: Apache-2.0
 * freednn-bench --net, the FreeDNN side: the network's training step (or
 * inference) through the cuDNN API the way a framework drives it: one call
 * per layer and direction, algorithms from the _v7 heuristics (PyTorch's
 * choice with benchmark mode off), one shared workspace, FLOAT tensors in
 * NCHW (KCRS filters) or NHWC (KRSC filters).
 * A tensor read by two layers (a residual) gets its gradient summed by the
 * second writer's beta = 1, as cuDNN programs do.  The residual add runs in
 * place (cudnnAddTensor, beta = 1, into the main branch's tensor, which
 * nothing else reads) and hands its gradient on without copies where the
 * input has no other reader (net_add_in_place, net.h); net_onednn.c does the
 * same with an in-place binary primitive. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudnn.h"
#include "freednn.h"
#include "net.h"

typedef struct layer {
    float *y, *dy;        /* this node's tensor and its gradient (training) */
    bool y_borrowed, dy_borrowed; /* another node's buffer (in-place add) */
    bool dy_written;      /* in this backward pass: accumulate with beta 1 */
    cudnnTensorDescriptor_t desc;
    /* NET_CONV, NET_FC */
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv;
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t bwd_data;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter;
    float *w, *dw;
    size_t w_count;
    /* NET_FC bias, NET_BN per-channel parameters */
    cudnnTensorDescriptor_t chan_desc;
    float *bias, *dbias, *scale, *dscale, *run_mean, *run_var, *save_mean, *save_inv_var;
    /* NET_RELU(6), NET_MAXPOOL, NET_GAP; a NET_BN with its ReLU fused */
    cudnnActivationDescriptor_t act;
    bool fused;           /* NET_BN: ReLU fused (the Ex calls); NET_RELU: done by the BN */
    void *reserve;        /* NET_BN fused, training: the Ex reserve space */
    size_t reserve_size;
    cudnnPoolingDescriptor_t pool;
    cudnnOpTensorDescriptor_t op; /* NET_ADD */
} layer_t;

/* Time per op kind and direction (fwd, bwd data, bwd weights), --profile. */
typedef struct profile {
    double ms[NET_OP_COUNT + 1][3];
} profile_t;

typedef struct side {
    cudnnHandle_t h;
    const net_t *net;
    const net_run_t *run;
    layer_t *l;
    void *ws;
    size_t ws_size;
    int *labels;
    float *loss_grad_host;
    profile_t prof;
    net_node_prof_t *nodes; /* --profile: per node, summed over the timed steps */
    int timed_steps;
    bool profiling;
} side_t;

static const float one = 1.0f, zero = 0.0f;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static float
uniform(float bound)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return bound * ((float)(rng_state >> 40) / (float)(1u << 23) - 1.0f);
}

/* Tensors, reserve spaces and the workspace as a cuDNN program gets them
 * from cudaMalloc (256-byte aligned, as FreeDNN's host runtime gives them):
 * malloc's blocks sit 16 bytes past a 64-byte line, which split every
 * 16-float channel vector of an NHWC tensor over two lines, while the
 * oneDNN side works on its own aligned memory.  free() releases them. */
static void *
device_alloc(size_t bytes)
{
    return aligned_alloc(256, (bytes + 255) / 256 * 256);
}

static float *
alloc_floats(size_t n, float fill_bound, float constant)
{
    float *p = device_alloc(n * sizeof(float));
    if (p != NULL)
        for (size_t i = 0; i < n; i++)
            p[i] = fill_bound > 0 ? uniform(fill_bound) : constant;
    return p;
}

#define CHECK(call, what)                                                                                         \
    do {                                                                                                          \
        cudnnStatus_t st_ = (call);                                                                               \
        if (st_ != CUDNN_STATUS_SUCCESS) {                                                                        \
            snprintf(r->why, sizeof(r->why), "%s: %s", what, cudnnGetErrorString(st_));                           \
            return false;                                                                                         \
        }                                                                                                         \
    } while (0)

/* A random 4-D tensor drawn in NCHW (KCRS) order, so that both layouts get
 * the same values at the same logical positions (and the same as the
 * oneDNN side's): stored as NHWC (KRSC) when `nhwc`. */
static float *
alloc_random_4d(int d0, int d1, int d2, int d3, float bound, bool nhwc)
{
    size_t count = (size_t)d0 * d1 * d2 * d3;
    float *p = alloc_floats(count, bound, 0.0f);
    if (p == NULL || !nhwc)
        return p;
    float *q = device_alloc(count * sizeof(float));
    if (q != NULL)
        for (int a = 0; a < d0; a++)
            for (int b = 0; b < d1; b++)
                for (int c = 0; c < d2; c++)
                    for (int d = 0; d < d3; d++)
                        q[(((size_t)a * d2 + c) * d3 + d) * d1 + b] = p[(((size_t)a * d1 + b) * d2 + c) * d3 + d];
    free(p);
    return q;
}

/* Descriptors, parameters and algorithms of node i. */
static bool
setup_layer(side_t *s, int i, net_result_t *r)
{
    const net_node_t *n = &s->net->nodes[i];
    layer_t *l = &s->l[i];
    int mb = s->run->mb;
    size_t count = (size_t)mb * n->c * n->h * n->w;
    CHECK(cudnnCreateTensorDescriptor(&l->desc), "tensor descriptor");
    cudnnTensorFormat_t fmt = s->run->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    CHECK(cudnnSetTensor4dDescriptor(l->desc, fmt, CUDNN_DATA_FLOAT, mb, n->c, n->h, n->w), "tensor");
    l->fused = s->run->fuse && (net_bn_relu_fusable(s->net, i) || (n->op == NET_RELU && net_bn_relu_fusable(s->net, i - 1)));
    if (l->fused && n->op == NET_RELU) {
        /* the BN writes the ReLU's output; the ReLU's gradient is the BN's dy */
        layer_t *b = &s->l[i - 1];
        l->y = b->y;
        l->dy = b->dy;
        l->y_borrowed = l->dy_borrowed = true;
    } else if (net_add_in_place(s->net, i)) {
        /* y = in[0] + in[1] written over in[0], whose only reader this is;
         * the gradient of the sum is in[0]'s gradient as it stands */
        layer_t *a = &s->l[n->in[0]];
        l->y = a->y;
        l->dy = a->dy;
        l->y_borrowed = l->dy_borrowed = true;
        if (s->run->train && net_add_shares_second(s->net, i)) {
            layer_t *b = &s->l[n->in[1]];
            if (!b->dy_borrowed)
                free(b->dy);
            b->dy = l->dy;
            b->dy_borrowed = true;
        }
    } else {
        l->y = n->op == NET_INPUT ? alloc_random_4d(mb, n->c, n->h, n->w, 1.0f, s->run->nhwc)
                                  : alloc_floats(count, 0.0f, 0.0f);
        if (s->run->train && n->op != NET_INPUT)
            l->dy = alloc_floats(count, 0.0f, 0.0f);
    }
    if (l->y == NULL || (s->run->train && n->op != NET_INPUT && l->dy == NULL)) {
        snprintf(r->why, sizeof(r->why), "out of memory for node %d", i);
        return false;
    }
    const net_node_t *x = n->in[0] >= 0 ? &s->net->nodes[n->in[0]] : NULL;
    const layer_t *xl = n->in[0] >= 0 ? &s->l[n->in[0]] : NULL;
    if (n->op == NET_BN || n->op == NET_FC) {
        CHECK(cudnnCreateTensorDescriptor(&l->chan_desc), "channel descriptor");
        CHECK(cudnnSetTensor4dDescriptor(l->chan_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, n->c, 1, 1), "chan");
    }
    switch (n->op) {
    case NET_CONV:
    case NET_FC: {
        int k = n->op == NET_CONV ? n->k : x->h, cin = x->c / n->groups;
        l->w_count = (size_t)n->c * cin * k * k;
        l->w = alloc_random_4d(n->c, cin, k, k, 1.0f / sqrtf((float)(cin * k * k)), s->run->nhwc);
        l->dw = alloc_floats(l->w_count, 0.0f, 0.0f);
        CHECK(cudnnCreateFilterDescriptor(&l->w_desc), "filter descriptor");
        CHECK(cudnnSetFilter4dDescriptor(l->w_desc, CUDNN_DATA_FLOAT, fmt, n->c, cin, k, k), "filter");
        CHECK(cudnnCreateConvolutionDescriptor(&l->conv), "conv descriptor");
        CHECK(cudnnSetConvolution2dDescriptor(l->conv, n->pad, n->pad, n->stride, n->stride, 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "conv");
        CHECK(cudnnSetConvolutionGroupCount(l->conv, n->groups), "group count");
        int got = 0;
        cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        CHECK(cudnnGetConvolutionForwardAlgorithm_v7(s->h, xl->desc, l->w_desc, l->conv, l->desc,
                                                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, fp),
              "fwd _v7");
        for (int a = got - 1; a >= 0; a--)
            if (fp[a].status == CUDNN_STATUS_SUCCESS)
                l->fwd = fp[a].algo;
        size_t ws = 0;
        CHECK(cudnnGetConvolutionForwardWorkspaceSize(s->h, xl->desc, l->w_desc, l->conv, l->desc, l->fwd, &ws),
              "fwd workspace");
        s->ws_size = ws > s->ws_size ? ws : s->ws_size;
        if (s->run->train) {
            cudnnConvolutionBwdDataAlgoPerf_t dp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
            CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(s->h, l->w_desc, l->desc, l->conv, xl->desc,
                                                              CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, dp),
                  "bwd data _v7");
            for (int a = got - 1; a >= 0; a--)
                if (dp[a].status == CUDNN_STATUS_SUCCESS)
                    l->bwd_data = dp[a].algo;
            CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(s->h, l->w_desc, l->desc, l->conv, xl->desc,
                                                               l->bwd_data, &ws),
                  "bwd data workspace");
            s->ws_size = ws > s->ws_size ? ws : s->ws_size;
            cudnnConvolutionBwdFilterAlgoPerf_t wp[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
            CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(s->h, xl->desc, l->desc, l->conv, l->w_desc,
                                                                CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, wp),
                  "bwd filter _v7");
            for (int a = got - 1; a >= 0; a--)
                if (wp[a].status == CUDNN_STATUS_SUCCESS)
                    l->bwd_filter = wp[a].algo;
            CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(s->h, xl->desc, l->desc, l->conv, l->w_desc,
                                                                 l->bwd_filter, &ws),
                  "bwd filter workspace");
            s->ws_size = ws > s->ws_size ? ws : s->ws_size;
        }
        if (n->op == NET_FC) {
            l->bias = alloc_floats((size_t)n->c, 0.0f, 0.0f);
            l->dbias = alloc_floats((size_t)n->c, 0.0f, 0.0f);
        }
        break;
    }
    case NET_BN:
        l->scale = alloc_floats((size_t)n->c, 0.0f, 1.0f);
        l->bias = alloc_floats((size_t)n->c, 0.0f, 0.0f);
        l->dscale = alloc_floats((size_t)n->c, 0.0f, 0.0f);
        l->dbias = alloc_floats((size_t)n->c, 0.0f, 0.0f);
        l->run_mean = alloc_floats((size_t)n->c, 0.0f, 0.0f);
        l->run_var = alloc_floats((size_t)n->c, 0.0f, 1.0f);
        l->save_mean = alloc_floats((size_t)n->c, 0.0f, 0.0f);
        l->save_inv_var = alloc_floats((size_t)n->c, 0.0f, 0.0f);
        if (l->fused) {
            CHECK(cudnnCreateActivationDescriptor(&l->act), "activation descriptor");
            CHECK(cudnnSetActivationDescriptor(l->act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
                  "activation");
        }
        if (l->fused && s->run->train) {
            const cudnnBatchNormMode_t m = CUDNN_BATCHNORM_SPATIAL;
            const cudnnBatchNormOps_t o = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
            size_t ws = 0;
            CHECK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(s->h, m, o, xl->desc, NULL, l->desc,
                                                                           l->chan_desc, l->act, &ws),
                  "bn ex workspace");
            s->ws_size = ws > s->ws_size ? ws : s->ws_size;
            CHECK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(s->h, m, o, xl->desc, l->desc, l->desc, NULL,
                                                                    xl->desc, l->chan_desc, l->act, &ws),
                  "bn bwd ex workspace");
            s->ws_size = ws > s->ws_size ? ws : s->ws_size;
            CHECK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(s->h, m, o, l->act, xl->desc,
                                                                       &l->reserve_size),
                  "bn ex reserve");
            l->reserve = device_alloc(l->reserve_size ? l->reserve_size : 1);
            if (l->reserve == NULL) {
                snprintf(r->why, sizeof(r->why), "out of memory for node %d's reserve space", i);
                return false;
            }
        }
        break;
    case NET_RELU:
    case NET_RELU6:
        CHECK(cudnnCreateActivationDescriptor(&l->act), "activation descriptor");
        CHECK(cudnnSetActivationDescriptor(l->act, n->op == NET_RELU ? CUDNN_ACTIVATION_RELU
                                                                     : CUDNN_ACTIVATION_CLIPPED_RELU,
                                           CUDNN_NOT_PROPAGATE_NAN, 6.0),
              "activation");
        break;
    case NET_MAXPOOL:
    case NET_GAP:
        CHECK(cudnnCreatePoolingDescriptor(&l->pool), "pooling descriptor");
        if (n->op == NET_MAXPOOL)
            CHECK(cudnnSetPooling2dDescriptor(l->pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, n->k, n->k,
                                              n->pad, n->pad, n->stride, n->stride),
                  "max pooling");
        else
            CHECK(cudnnSetPooling2dDescriptor(l->pool, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                              CUDNN_NOT_PROPAGATE_NAN, x->h, x->w, 0, 0, 1, 1),
                  "average pooling");
        break;
    case NET_ADD:
        CHECK(cudnnCreateOpTensorDescriptor(&l->op), "op tensor descriptor");
        CHECK(cudnnSetOpTensorDescriptor(l->op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN),
              "op tensor");
        break;
    default:
        break;
    }
    return true;
}

static void
free_layer(layer_t *l)
{
    float *bufs[] = {l->y_borrowed ? NULL : l->y,
                     l->dy_borrowed ? NULL : l->dy,
                     l->w,        l->dw,           l->bias,      l->dbias,
                     l->scale, l->dscale, l->run_mean, l->run_var, l->save_mean, l->save_inv_var};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        free(bufs[i]);
    free(l->reserve);
    if (l->desc)
        cudnnDestroyTensorDescriptor(l->desc);
    if (l->chan_desc)
        cudnnDestroyTensorDescriptor(l->chan_desc);
    if (l->w_desc)
        cudnnDestroyFilterDescriptor(l->w_desc);
    if (l->conv)
        cudnnDestroyConvolutionDescriptor(l->conv);
    if (l->act)
        cudnnDestroyActivationDescriptor(l->act);
    if (l->pool)
        cudnnDestroyPoolingDescriptor(l->pool);
    if (l->op)
        cudnnDestroyOpTensorDescriptor(l->op);
}

/* --profile: the time since t0 to node i's op kind and to the node; one
 * clock read per call, no synchronisation beyond the call's own return. */
static void
charge(side_t *s, int i, int dir, double t0)
{
    if (s->profiling) {
        double ms = net_clock_ms(s->run) - t0;
        s->prof.ms[s->net->nodes[i].op][dir] += ms;
        s->nodes[i].ms[dir] += ms;
    }
}

static bool
forward(side_t *s, net_result_t *r)
{
    const double eps = 1e-5, momentum = 0.1;
    for (int i = 1; i < s->net->count; i++) {
        const net_node_t *n = &s->net->nodes[i];
        layer_t *l = &s->l[i];
        const layer_t *a = &s->l[n->in[0]];
        double t0 = s->profiling ? net_clock_ms(s->run) : 0;
        switch (n->op) {
        case NET_CONV:
        case NET_FC:
            CHECK(cudnnConvolutionForward(s->h, &one, a->desc, a->y, l->w_desc, l->w, l->conv, l->fwd, s->ws,
                                          s->ws_size, &zero, l->desc, l->y),
                  "conv forward");
            if (n->op == NET_FC)
                CHECK(cudnnAddTensor(s->h, &one, l->chan_desc, l->bias, &one, l->desc, l->y), "bias");
            break;
        case NET_BN:
            if (l->fused && s->run->train)
                CHECK(cudnnBatchNormalizationForwardTrainingEx(
                          s->h, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero, a->desc, a->y,
                          NULL, NULL, l->desc, l->y, l->chan_desc, l->scale, l->bias, momentum, l->run_mean,
                          l->run_var, eps, l->save_mean, l->save_inv_var, l->act, s->ws, s->ws_size, l->reserve,
                          l->reserve_size),
                      "bn + relu forward training");
            else if (l->fused)
                CHECK(cudnnNormalizationForwardInference(s->h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM_ACTIVATION,
                                                         CUDNN_NORM_ALGO_STANDARD, &one, &zero, a->desc, a->y,
                                                         l->chan_desc, l->scale, l->bias, l->chan_desc, l->run_mean,
                                                         l->run_var, NULL, NULL, l->act, l->desc, l->y, eps, 1),
                      "bn + relu forward inference");
            else if (s->run->train)
                CHECK(cudnnBatchNormalizationForwardTraining(s->h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, a->desc,
                                                             a->y, l->desc, l->y, l->chan_desc, l->scale, l->bias,
                                                             momentum, l->run_mean, l->run_var, eps, l->save_mean,
                                                             l->save_inv_var),
                      "bn forward training");
            else
                CHECK(cudnnBatchNormalizationForwardInference(s->h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, a->desc,
                                                              a->y, l->desc, l->y, l->chan_desc, l->scale, l->bias,
                                                              l->run_mean, l->run_var, eps),
                      "bn forward inference");
            break;
        case NET_RELU:
        case NET_RELU6:
            if (l->fused)
                break; /* done by the BN */
            CHECK(cudnnActivationForward(s->h, l->act, &one, a->desc, a->y, &zero, l->desc, l->y), "activation");
            break;
        case NET_MAXPOOL:
        case NET_GAP:
            CHECK(cudnnPoolingForward(s->h, l->pool, &one, a->desc, a->y, &zero, l->desc, l->y), "pooling");
            break;
        case NET_ADD:
            if (l->y == a->y)
                CHECK(cudnnAddTensor(s->h, &one, s->l[n->in[1]].desc, s->l[n->in[1]].y, &one, l->desc, l->y),
                      "add in place");
            else
                CHECK(cudnnOpTensor(s->h, l->op, &one, a->desc, a->y, &one, s->l[n->in[1]].desc, s->l[n->in[1]].y,
                                    &zero, l->desc, l->y),
                      "add");
            break;
        default:
            break;
        }
        charge(s, i, NET_FWD, t0);
    }
    return true;
}

/* Mean cross-entropy of the logits (the last node) against the labels, and
 * its gradient (softmax - onehot) / mb into the last node's dy. */
static bool
loss(side_t *s, net_result_t *r, double *value)
{
    int last = s->net->count - 1, classes = s->net->nodes[last].c, mb = s->run->mb;
    layer_t *l = &s->l[last];
    CHECK(cudnnSoftmaxForward(s->h, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, l->desc, l->y, &zero,
                              l->desc, l->dy),
          "log softmax");
    double sum = 0;
    for (int b = 0; b < mb; b++) {
        float *g = l->dy + (size_t)b * classes;
        sum -= g[s->labels[b]];
        for (int k = 0; k < classes; k++)
            g[k] = (expf(g[k]) - (k == s->labels[b] ? 1.0f : 0.0f)) / (float)mb;
    }
    *value = sum / mb;
    return true;
}

/* beta for writing the gradient of node i: 0 the first time in a pass. */
static const float *
grad_beta(side_t *s, int i)
{
    bool again = s->l[i].dy_written;
    s->l[i].dy_written = true;
    return again ? &one : &zero;
}

static bool
backward(side_t *s, net_result_t *r)
{
    const double eps = 1e-5;
    for (int i = 0; i < s->net->count; i++)
        s->l[i].dy_written = false;
    for (int i = s->net->count - 1; i >= 1; i--) {
        const net_node_t *n = &s->net->nodes[i];
        layer_t *l = &s->l[i];
        int ai = n->in[0];
        layer_t *a = &s->l[ai];
        bool want_dx = ai != 0; /* no gradient for the images */
        double t0 = s->profiling ? net_clock_ms(s->run) : 0;
        switch (n->op) {
        case NET_CONV:
        case NET_FC:
            if (n->op == NET_FC)
                CHECK(cudnnConvolutionBackwardBias(s->h, &one, l->desc, l->dy, &zero, l->chan_desc, l->dbias),
                      "bias gradient");
            CHECK(cudnnConvolutionBackwardFilter(s->h, &one, a->desc, a->y, l->desc, l->dy, l->conv, l->bwd_filter,
                                                 s->ws, s->ws_size, &zero, l->w_desc, l->dw),
                  "conv backward filter");
            charge(s, i, NET_BWD_WEIGHTS, t0);
            t0 = s->profiling ? net_clock_ms(s->run) : 0;
            if (want_dx)
                CHECK(cudnnConvolutionBackwardData(s->h, &one, l->w_desc, l->w, l->desc, l->dy, l->conv, l->bwd_data,
                                                   s->ws, s->ws_size, grad_beta(s, ai), a->desc, a->dy),
                      "conv backward data");
            break;
        case NET_BN:
            if (l->fused) {
                CHECK(cudnnBatchNormalizationBackwardEx(
                          s->h, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, grad_beta(s, ai),
                          &one, &zero, a->desc, a->y, l->desc, l->y, l->desc, l->dy, NULL, NULL, a->desc, a->dy,
                          l->chan_desc, l->scale, l->bias, l->dscale, l->dbias, eps, l->save_mean, l->save_inv_var,
                          l->act, s->ws, s->ws_size, l->reserve, l->reserve_size),
                      "bn + relu backward");
                break;
            }
            CHECK(cudnnBatchNormalizationBackward(s->h, CUDNN_BATCHNORM_SPATIAL, &one, grad_beta(s, ai), &one, &zero,
                                                  a->desc, a->y, l->desc, l->dy, a->desc, a->dy, l->chan_desc,
                                                  l->scale, l->dscale, l->dbias, eps, l->save_mean, l->save_inv_var),
                  "bn backward");
            break;
        case NET_RELU:
        case NET_RELU6:
            if (l->fused)
                break; /* in the BN's backward */
            CHECK(cudnnActivationBackward(s->h, l->act, &one, l->desc, l->y, l->desc, l->dy, a->desc, a->y,
                                          grad_beta(s, ai), a->desc, a->dy),
                  "activation backward");
            break;
        case NET_MAXPOOL:
        case NET_GAP:
            CHECK(cudnnPoolingBackward(s->h, l->pool, &one, l->desc, l->y, l->desc, l->dy, a->desc, a->y,
                                       grad_beta(s, ai), a->desc, a->dy),
                  "pooling backward");
            break;
        case NET_ADD:
            for (int k = 0; k < 2; k++) {
                layer_t *in = &s->l[n->in[k]];
                if (in->dy == l->dy) { /* shared: nothing to copy */
                    grad_beta(s, n->in[k]);
                    continue;
                }
                CHECK(cudnnAddTensor(s->h, &one, l->desc, l->dy, grad_beta(s, n->in[k]), in->desc, in->dy),
                      "add backward");
            }
            break;
        default:
            break;
        }
        charge(s, i, NET_BWD_DATA, t0);
    }
    return true;
}

static void
print_profile(const side_t *s, double steps)
{
    static const char *const dirs[3] = {"fwd", "bwd_d", "bwd_w"};
    printf("# FreeDNN profile, ms per step:");
    for (int op = 0; op < NET_OP_COUNT; op++)
        for (int d = 0; d < 3; d++)
            if (s->prof.ms[op][d] > 0)
                printf(" %s.%s=%.1f", net_op_name((net_op_t)op), dirs[d], s->prof.ms[op][d] / steps);
    printf("\n");
}

const char *
net_cudnn_algo_name(int dir, int algo)
{
    static const char *const fwd[] = {"implicit_gemm", "precomp_gemm", "gemm", "direct",
                                      "fft", "fft_tiling", "winograd", "winograd_nf"};
    static const char *const bwd_data[] = {"algo_0", "algo_1", "fft", "fft_tiling", "winograd", "winograd_nf"};
    static const char *const bwd_filter[] = {"algo_0", "algo_1", "fft", "algo_3", "winograd", "winograd_nf",
                                             "fft_tiling"};
    const char *const *names = dir == NET_FWD ? fwd : dir == NET_BWD_DATA ? bwd_data : bwd_filter;
    int count = dir == NET_FWD ? 8 : dir == NET_BWD_DATA ? 6 : 7;
    return algo >= 0 && algo < count ? names[algo] : "-";
}

static void
free_side(side_t *s)
{
    if (s->l != NULL)
        for (int i = 0; i < s->net->count; i++)
            free_layer(&s->l[i]);
    free(s->l);
    free(s->ws);
    free(s->labels);
    free(s->nodes);
    if (s->h != NULL)
        cudnnDestroy(s->h);
    free(s);
}

/* One step: forward, and for training the loss and the backward. */
static bool
cudnn_step(void *side, double *ms, net_result_t *r)
{
    side_t *s = side;
    const net_t *net = s->net;
    s->profiling = s->run->profile && ms != NULL;
    double t0 = net_clock_ms(s->run), value = 0;
    if (!forward(s, r))
        return false;
    if (s->run->train && (!loss(s, r, &value) || !backward(s, r)))
        return false;
    if (ms != NULL) {
        *ms = net_clock_ms(s->run) - t0;
        s->timed_steps++;
    }
    if (!s->run->train) {
        const layer_t *last = &s->l[net->count - 1];
        size_t n = (size_t)s->run->mb * net->nodes[net->count - 1].c;
        for (size_t k = 0; k < n; k++)
            value += last->y[k];
        value /= (double)n;
    }
    r->check = value;
    return true;
}

static void *
cudnn_open(const net_t *net, const net_run_t *run, net_result_t *r)
{
    side_t *s = calloc(1, sizeof(side_t));
    if (s == NULL) {
        snprintf(r->why, sizeof(r->why), "out of memory");
        return NULL;
    }
    s->net = net;
    s->run = run;
    s->l = calloc((size_t)net->count, sizeof(layer_t));
    s->labels = malloc((size_t)run->mb * sizeof(int));
    s->nodes = calloc((size_t)net->count, sizeof(net_node_prof_t));
    if (s->l == NULL || s->labels == NULL || s->nodes == NULL || cudnnCreate(&s->h) != CUDNN_STATUS_SUCCESS ||
        freednnSetNumThreads(s->h, run->threads) != CUDNN_STATUS_SUCCESS) {
        snprintf(r->why, sizeof(r->why), "cannot create the handle");
        goto fail;
    }
    for (int b = 0; b < run->mb; b++)
        s->labels[b] = (b * 37) % net->nodes[net->count - 1].c;
    for (int i = 0; i < net->count; i++)
        if (!setup_layer(s, i, r))
            goto fail;
    s->ws = s->ws_size ? device_alloc(s->ws_size) : NULL;
    if (s->ws_size && s->ws == NULL) {
        snprintf(r->why, sizeof(r->why), "out of memory for %zu bytes of workspace", s->ws_size);
        goto fail;
    }
    if (!cudnn_step(s, NULL, r)) /* the warm-up step */
        goto fail;
    return s;
fail:
    free_side(s);
    return NULL;
}

static void
cudnn_close(void *side, net_result_t *r, net_node_prof_t *nodes)
{
    side_t *s = side;
    const net_t *net = s->net;
    r->grad_norm = 0;
    for (int i = 0; s->run->train && i < net->count; i++)
        for (size_t k = 0; s->l[i].dw != NULL && k < s->l[i].w_count; k++)
            r->grad_norm += (double)s->l[i].dw[k] * s->l[i].dw[k];
    r->grad_norm = sqrt(r->grad_norm);
    double steps = s->timed_steps > 0 ? s->timed_steps : 1;
    if (s->run->profile)
        print_profile(s, steps);
    for (int i = 0; nodes != NULL && i < net->count; i++) {
        nodes[i] = s->nodes[i];
        bool weighted = net->nodes[i].op == NET_CONV || net->nodes[i].op == NET_FC;
        nodes[i].algo[NET_FWD] = weighted ? (int)s->l[i].fwd : -1;
        nodes[i].algo[NET_BWD_DATA] = weighted && s->run->train ? (int)s->l[i].bwd_data : -1;
        nodes[i].algo[NET_BWD_WEIGHTS] = weighted && s->run->train ? (int)s->l[i].bwd_filter : -1;
        for (int d = 0; d < NET_DIRS; d++)
            nodes[i].ms[d] /= steps;
    }
    free_side(s);
}

const net_side_api_t net_cudnn_api = {cudnn_open, cudnn_step, cudnn_close};
