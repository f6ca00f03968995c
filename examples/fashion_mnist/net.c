/* SPDX-License-Identifier: Apache-2.0
 * The network of net.h.  Everything here is what the same program would do
 * on a GPU: buffers from cudaMalloc, copies with cudaMemcpy, all arithmetic
 * through cuDNN. */
#include "net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#define CHECK_CUDNN(expr)                                                                                \
    do {                                                                                                 \
        cudnnStatus_t s_ = (expr);                                                                       \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                                \
            fprintf(stderr, "fashion_mnist: %s failed: %s (%s:%d)\n", #expr, cudnnGetErrorString(s_),    \
                    __FILE__, __LINE__);                                                                 \
            return FAIL_VALUE;                                                                           \
        }                                                                                                \
    } while (0)

#define BN_EPSILON 1e-5
#define BN_AVERAGE 0.1 /* PyTorch's momentum 0.1 */

/* A learnable tensor with its gradient and momentum, all on the device. */
typedef struct param {
    cudnnTensorDescriptor_t desc; /* for cudnnAddTensor */
    size_t count;
    float *value, *grad, *velocity;
} param_t;

typedef struct conv {
    int in_c, out_c, k, pad, in_hw, out_hw;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t desc;
    cudnnTensorDescriptor_t y_desc, bias_desc;
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t bwd_data;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter;
    param_t w, b; /* b.count == 0 when the layer has no bias */
    float *y, *dy;
} conv_t;

typedef struct bn {
    cudnnTensorDescriptor_t param_desc;
    param_t scale, bias;
    float *running_mean, *running_var, *saved_mean, *saved_invvar;
    float *y, *dy;
} bn_t;

typedef struct pool {
    cudnnTensorDescriptor_t y_desc;
    float *y, *dy;
} pool_t;

struct net {
    cudnnHandle_t handle;
    net_config_t cfg;
    cudnnTensorDescriptor_t x_desc;
    cudnnActivationDescriptor_t relu;
    cudnnPoolingDescriptor_t maxpool;
    conv_t conv1, conv2, fc1, fc2;
    bn_t bn1, bn2;
    float *act1, *act2, *act3; /* ReLU outputs (in place of BN / fc1 outputs) */
    pool_t pool1, pool2;
    float *x, *logp, *dlogp, *dx_scratch;
    float *host_x, *host_logp, *host_dlogp;
    void *workspace;
    size_t workspace_size;
    param_t *params[10];
    int nparams;
};

static float *
device_alloc(size_t count)
{
    void *p = NULL;
    if (cudaMalloc(&p, count * sizeof(float)) != cudaSuccess)
        return NULL;
    cudaMemset(p, 0, count * sizeof(float));
    return p;
}

static cudnnTensorDescriptor_t
tensor4d(int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t d = NULL;
    if (cudnnCreateTensorDescriptor(&d) != CUDNN_STATUS_SUCCESS ||
        cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w) != CUDNN_STATUS_SUCCESS)
        return NULL;
    return d;
}

/* A small deterministic generator for the initial weights. */
static uint64_t
next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Kaiming-uniform for weights (bound sqrt(6 / fan_in) / sqrt(1 + 5) as
 * PyTorch's default for conv layers: bound = 1/sqrt(fan_in)); biases
 * uniform in +-1/sqrt(fan_in). */
#define FAIL_VALUE -1
static int
param_init(param_t *p, int n, int c, int h, int w, float value, float bound, uint64_t *rng)
{
    p->count = (size_t)n * c * h * w;
    p->desc = tensor4d(n, c, h, w);
    p->value = device_alloc(p->count);
    p->grad = device_alloc(p->count);
    p->velocity = device_alloc(p->count);
    if (p->desc == NULL || p->value == NULL || p->grad == NULL || p->velocity == NULL)
        return -1;
    float *host = malloc(p->count * sizeof(float));
    if (host == NULL)
        return -1;
    for (size_t i = 0; i < p->count; i++) {
        double u = (double)(next_random(rng) >> 11) * 0x1.0p-53;
        host[i] = bound > 0 ? (float)((2 * u - 1) * bound) : value;
    }
    cudaMemcpy(p->value, host, p->count * sizeof(float), cudaMemcpyHostToDevice);
    free(host);
    return 0;
}

static int
conv_init(net_t *net, conv_t *cv, int in_c, int out_c, int k, int pad, int in_hw, int bias, uint64_t *rng)
{
    int n = net->cfg.batch;
    cv->in_c = in_c;
    cv->out_c = out_c;
    cv->k = k;
    cv->pad = pad;
    cv->in_hw = in_hw;
    CHECK_CUDNN(cudnnCreateFilterDescriptor(&cv->w_desc));
    CHECK_CUDNN(cudnnSetFilter4dDescriptor(cv->w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, out_c, in_c, k, k));
    CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&cv->desc));
    CHECK_CUDNN(cudnnSetConvolution2dDescriptor(cv->desc, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT));
    cudnnTensorDescriptor_t x_desc = tensor4d(n, in_c, in_hw, in_hw);
    int on, oc, oh, ow;
    CHECK_CUDNN(cudnnGetConvolution2dForwardOutputDim(cv->desc, x_desc, cv->w_desc, &on, &oc, &oh, &ow));
    cv->out_hw = oh;
    cv->y_desc = tensor4d(on, oc, oh, ow);
    cv->y = device_alloc((size_t)on * oc * oh * ow);
    cv->dy = device_alloc((size_t)on * oc * oh * ow);

    /* Choose algorithms the way a GPU program does: the first entry of the
     * heuristic's ranked list that works. */
    int returned = 0;
    cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(net->handle, x_desc, cv->w_desc, cv->desc, cv->y_desc,
                                                       CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, fwd));
    cv->fwd = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    for (int i = 0; i < returned; i++)
        if (fwd[i].status == CUDNN_STATUS_SUCCESS) {
            cv->fwd = fwd[i].algo;
            break;
        }
    cudnnConvolutionBwdDataAlgoPerf_t bd[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(net->handle, cv->w_desc, cv->y_desc, cv->desc,
                                                            x_desc, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                                            &returned, bd));
    cv->bwd_data = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    for (int i = 0; i < returned; i++)
        if (bd[i].status == CUDNN_STATUS_SUCCESS) {
            cv->bwd_data = bd[i].algo;
            break;
        }
    cudnnConvolutionBwdFilterAlgoPerf_t bf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(net->handle, x_desc, cv->y_desc, cv->desc,
                                                              cv->w_desc, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                              &returned, bf));
    cv->bwd_filter = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    for (int i = 0; i < returned; i++)
        if (bf[i].status == CUDNN_STATUS_SUCCESS) {
            cv->bwd_filter = bf[i].algo;
            break;
        }
    size_t ws = 0;
    CHECK_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(net->handle, x_desc, cv->w_desc, cv->desc, cv->y_desc,
                                                        cv->fwd, &ws));
    if (ws > net->workspace_size)
        net->workspace_size = ws;
    CHECK_CUDNN(cudnnGetConvolutionBackwardDataWorkspaceSize(net->handle, cv->w_desc, cv->y_desc, cv->desc,
                                                             x_desc, cv->bwd_data, &ws));
    if (ws > net->workspace_size)
        net->workspace_size = ws;
    CHECK_CUDNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(net->handle, x_desc, cv->y_desc, cv->desc,
                                                               cv->w_desc, cv->bwd_filter, &ws));
    if (ws > net->workspace_size)
        net->workspace_size = ws;
    cudnnDestroyTensorDescriptor(x_desc);

    float bound = 1.0f / sqrtf((float)(in_c * k * k));
    if (param_init(&cv->w, out_c, in_c, k, k, 0, bound, rng) != 0)
        return -1;
    net->params[net->nparams++] = &cv->w;
    if (bias) {
        if (param_init(&cv->b, 1, out_c, 1, 1, 0, bound, rng) != 0)
            return -1;
        cv->bias_desc = cv->b.desc;
        net->params[net->nparams++] = &cv->b;
    }
    return 0;
}

static int
bn_init(net_t *net, bn_t *bn, const conv_t *cv, uint64_t *rng)
{
    size_t count = (size_t)net->cfg.batch * cv->out_c * cv->out_hw * cv->out_hw;
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&bn->param_desc));
    CHECK_CUDNN(cudnnDeriveBNTensorDescriptor(bn->param_desc, cv->y_desc, CUDNN_BATCHNORM_SPATIAL));
    if (param_init(&bn->scale, 1, cv->out_c, 1, 1, 1.0f, 0, rng) != 0 ||
        param_init(&bn->bias, 1, cv->out_c, 1, 1, 0.0f, 0, rng) != 0)
        return -1;
    net->params[net->nparams++] = &bn->scale;
    net->params[net->nparams++] = &bn->bias;
    bn->running_mean = device_alloc(cv->out_c);
    bn->running_var = device_alloc(cv->out_c);
    bn->saved_mean = device_alloc(cv->out_c);
    bn->saved_invvar = device_alloc(cv->out_c);
    float *ones = malloc(cv->out_c * sizeof(float));
    for (int i = 0; i < cv->out_c; i++)
        ones[i] = 1.0f;
    cudaMemcpy(bn->running_var, ones, cv->out_c * sizeof(float), cudaMemcpyHostToDevice);
    free(ones);
    bn->y = device_alloc(count);
    bn->dy = device_alloc(count);
    return bn->y != NULL && bn->dy != NULL ? 0 : -1;
}

static int
pool_init(net_t *net, pool_t *p, int c, int in_hw)
{
    p->y_desc = tensor4d(net->cfg.batch, c, in_hw / 2, in_hw / 2);
    size_t count = (size_t)net->cfg.batch * c * (in_hw / 2) * (in_hw / 2);
    p->y = device_alloc(count);
    p->dy = device_alloc(count);
    return p->y_desc != NULL && p->y != NULL && p->dy != NULL ? 0 : -1;
}

net_t *
net_create(cudnnHandle_t handle, const net_config_t *cfg)
{
    net_t *net = calloc(1, sizeof(*net));
    if (net == NULL)
        return NULL;
    net->handle = handle;
    net->cfg = *cfg;
    int n = cfg->batch;
    uint64_t rng = cfg->seed;
    net->x_desc = tensor4d(n, 1, 28, 28);
    net->x = device_alloc((size_t)n * 28 * 28);
    net->dx_scratch = device_alloc((size_t)n * 32 * 28 * 28);
    cudnnCreateActivationDescriptor(&net->relu);
    cudnnSetActivationDescriptor(net->relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0);
    cudnnCreatePoolingDescriptor(&net->maxpool);
    cudnnSetPooling2dDescriptor(net->maxpool, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);

    if (conv_init(net, &net->conv1, 1, 32, 3, 1, 28, 0, &rng) != 0 || bn_init(net, &net->bn1, &net->conv1, &rng) ||
        pool_init(net, &net->pool1, 32, 28) != 0 || conv_init(net, &net->conv2, 32, 64, 3, 1, 14, 0, &rng) != 0 ||
        bn_init(net, &net->bn2, &net->conv2, &rng) != 0 || pool_init(net, &net->pool2, 64, 14) != 0 ||
        conv_init(net, &net->fc1, 64, 128, 7, 0, 7, 1, &rng) != 0 ||
        conv_init(net, &net->fc2, 128, NET_CLASSES, 1, 0, 1, 1, &rng) != 0) {
        fprintf(stderr, "fashion_mnist: building the network failed\n");
        net_destroy(net);
        return NULL;
    }
    net->act1 = device_alloc((size_t)n * 32 * 28 * 28);
    net->act2 = device_alloc((size_t)n * 64 * 14 * 14);
    net->act3 = device_alloc((size_t)n * 128);
    net->logp = device_alloc((size_t)n * NET_CLASSES);
    net->dlogp = device_alloc((size_t)n * NET_CLASSES);
    net->host_x = malloc((size_t)n * 28 * 28 * sizeof(float));
    net->host_logp = malloc((size_t)n * NET_CLASSES * sizeof(float));
    net->host_dlogp = malloc((size_t)n * NET_CLASSES * sizeof(float));
    if (net->workspace_size > 0 && cudaMalloc(&net->workspace, net->workspace_size) != cudaSuccess) {
        net_destroy(net);
        return NULL;
    }
    return net;
}

static void
param_free(param_t *p)
{
    cudnnDestroyTensorDescriptor(p->desc);
    cudaFree(p->value);
    cudaFree(p->grad);
    cudaFree(p->velocity);
}

static void
conv_free(conv_t *cv)
{
    cudnnDestroyFilterDescriptor(cv->w_desc);
    cudnnDestroyConvolutionDescriptor(cv->desc);
    cudnnDestroyTensorDescriptor(cv->y_desc);
    param_free(&cv->w);
    if (cv->b.count)
        param_free(&cv->b);
    cudaFree(cv->y);
    cudaFree(cv->dy);
}

static void
bn_free(bn_t *bn)
{
    cudnnDestroyTensorDescriptor(bn->param_desc);
    param_free(&bn->scale);
    param_free(&bn->bias);
    cudaFree(bn->running_mean);
    cudaFree(bn->running_var);
    cudaFree(bn->saved_mean);
    cudaFree(bn->saved_invvar);
    cudaFree(bn->y);
    cudaFree(bn->dy);
}

void
net_destroy(net_t *net)
{
    if (net == NULL)
        return;
    conv_free(&net->conv1);
    conv_free(&net->conv2);
    conv_free(&net->fc1);
    conv_free(&net->fc2);
    bn_free(&net->bn1);
    bn_free(&net->bn2);
    cudnnDestroyTensorDescriptor(net->pool1.y_desc);
    cudnnDestroyTensorDescriptor(net->pool2.y_desc);
    cudaFree(net->pool1.y);
    cudaFree(net->pool1.dy);
    cudaFree(net->pool2.y);
    cudaFree(net->pool2.dy);
    cudnnDestroyTensorDescriptor(net->x_desc);
    cudnnDestroyActivationDescriptor(net->relu);
    cudnnDestroyPoolingDescriptor(net->maxpool);
    cudaFree(net->x);
    cudaFree(net->dx_scratch);
    cudaFree(net->act1);
    cudaFree(net->act2);
    cudaFree(net->act3);
    cudaFree(net->logp);
    cudaFree(net->dlogp);
    cudaFree(net->workspace);
    free(net->host_x);
    free(net->host_logp);
    free(net->host_dlogp);
    free(net);
}

static const float one = 1.0f, zero = 0.0f;

static int
conv_forward(net_t *net, conv_t *cv, cudnnTensorDescriptor_t x_desc, const float *x)
{
    CHECK_CUDNN(cudnnConvolutionForward(net->handle, &one, x_desc, x, cv->w_desc, cv->w.value, cv->desc, cv->fwd,
                                        net->workspace, net->workspace_size, &zero, cv->y_desc, cv->y));
    if (cv->b.count)
        CHECK_CUDNN(cudnnAddTensor(net->handle, &one, cv->bias_desc, cv->b.value, &one, cv->y_desc, cv->y));
    return 0;
}

/* Gradients of a convolution: dw, db, and dx when dx != NULL. */
static int
conv_backward(net_t *net, conv_t *cv, cudnnTensorDescriptor_t x_desc, const float *x, float *dx)
{
    CHECK_CUDNN(cudnnConvolutionBackwardFilter(net->handle, &one, x_desc, x, cv->y_desc, cv->dy, cv->desc,
                                               cv->bwd_filter, net->workspace, net->workspace_size, &zero,
                                               cv->w_desc, cv->w.grad));
    if (cv->b.count)
        CHECK_CUDNN(cudnnConvolutionBackwardBias(net->handle, &one, cv->y_desc, cv->dy, &zero, cv->bias_desc,
                                                 cv->b.grad));
    if (dx != NULL)
        CHECK_CUDNN(cudnnConvolutionBackwardData(net->handle, &one, cv->w_desc, cv->w.value, cv->y_desc, cv->dy,
                                                 cv->desc, cv->bwd_data, net->workspace, net->workspace_size,
                                                 &zero, x_desc, dx));
    return 0;
}

static void
upload(net_t *net, const uint8_t *images)
{
    size_t count = (size_t)net->cfg.batch * 28 * 28;
    /* Pixels scaled to [0, 1] and centred as the PyTorch script does. */
    for (size_t i = 0; i < count; i++)
        net->host_x[i] = ((float)images[i] / 255.0f - 0.2860f) / 0.3530f;
    cudaMemcpy(net->x, net->host_x, count * sizeof(float), cudaMemcpyHostToDevice);
}

/* One conv - batch norm - ReLU - max-pool block.  `training` selects batch
 * statistics (and updates the running ones) or the running statistics. */
static int
block_forward(net_t *net, conv_t *cv, bn_t *bn, float *act, pool_t *pool, cudnnTensorDescriptor_t x_desc,
              const float *x, int training)
{
    if (conv_forward(net, cv, x_desc, x) != 0)
        return -1;
    if (training)
        CHECK_CUDNN(cudnnBatchNormalizationForwardTraining(
            net->handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, cv->y_desc, cv->y, cv->y_desc, bn->y,
            bn->param_desc, bn->scale.value, bn->bias.value, BN_AVERAGE, bn->running_mean, bn->running_var,
            BN_EPSILON, bn->saved_mean, bn->saved_invvar));
    else
        CHECK_CUDNN(cudnnBatchNormalizationForwardInference(
            net->handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, cv->y_desc, cv->y, cv->y_desc, bn->y,
            bn->param_desc, bn->scale.value, bn->bias.value, bn->running_mean, bn->running_var, BN_EPSILON));
    CHECK_CUDNN(cudnnActivationForward(net->handle, net->relu, &one, cv->y_desc, bn->y, &zero, cv->y_desc, act));
    CHECK_CUDNN(cudnnPoolingForward(net->handle, net->maxpool, &one, cv->y_desc, act, &zero, pool->y_desc,
                                    pool->y));
    return 0;
}

/* The forward pass up to log-probabilities. */
static int
forward(net_t *net, int training)
{
    if (block_forward(net, &net->conv1, &net->bn1, net->act1, &net->pool1, net->x_desc, net->x, training) != 0 ||
        block_forward(net, &net->conv2, &net->bn2, net->act2, &net->pool2, net->pool1.y_desc, net->pool1.y,
                      training) != 0)
        return -1;
    if (conv_forward(net, &net->fc1, net->pool2.y_desc, net->pool2.y) != 0)
        return -1;
    CHECK_CUDNN(cudnnActivationForward(net->handle, net->relu, &one, net->fc1.y_desc, net->fc1.y, &zero,
                                       net->fc1.y_desc, net->act3));
    if (conv_forward(net, &net->fc2, net->fc1.y_desc, net->act3) != 0)
        return -1;
    CHECK_CUDNN(cudnnSoftmaxForward(net->handle, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one,
                                    net->fc2.y_desc, net->fc2.y, &zero, net->fc2.y_desc, net->logp));
    return 0;
}

/* Gradients of one block_forward, from pool->dy: the parameters' gradients
 * and, when dx != NULL, the block input's gradient. */
static int
block_backward(net_t *net, conv_t *cv, bn_t *bn, const float *act, pool_t *pool, cudnnTensorDescriptor_t x_desc,
               const float *x, float *dx)
{
    CHECK_CUDNN(cudnnPoolingBackward(net->handle, net->maxpool, &one, pool->y_desc, pool->y, pool->y_desc, pool->dy,
                                     cv->y_desc, act, &zero, cv->y_desc, net->dx_scratch));
    CHECK_CUDNN(cudnnActivationBackward(net->handle, net->relu, &one, cv->y_desc, act, cv->y_desc, net->dx_scratch,
                                        cv->y_desc, bn->y, &zero, cv->y_desc, bn->dy));
    CHECK_CUDNN(cudnnBatchNormalizationBackward(net->handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero,
                                                cv->y_desc, cv->y, cv->y_desc, bn->dy, cv->y_desc, cv->dy,
                                                bn->param_desc, bn->scale.value, bn->scale.grad, bn->bias.grad,
                                                BN_EPSILON, bn->saved_mean, bn->saved_invvar));
    return conv_backward(net, cv, x_desc, x, dx);
}

static int
backward(net_t *net)
{
    CHECK_CUDNN(cudnnSoftmaxBackward(net->handle, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one,
                                     net->fc2.y_desc, net->logp, net->fc2.y_desc, net->dlogp, &zero,
                                     net->fc2.y_desc, net->fc2.dy));
    /* fc2's input gradient goes through the ReLU backward into fc1's output
     * gradient. */
    float *d_act3 = net->dx_scratch;
    if (conv_backward(net, &net->fc2, net->fc1.y_desc, net->act3, d_act3) != 0)
        return -1;
    CHECK_CUDNN(cudnnActivationBackward(net->handle, net->relu, &one, net->fc1.y_desc, net->act3, net->fc1.y_desc,
                                        d_act3, net->fc1.y_desc, net->fc1.y, &zero, net->fc1.y_desc, net->fc1.dy));
    if (conv_backward(net, &net->fc1, net->pool2.y_desc, net->pool2.y, net->pool2.dy) != 0 ||
        block_backward(net, &net->conv2, &net->bn2, net->act2, &net->pool2, net->pool1.y_desc, net->pool1.y,
                       net->pool1.dy) != 0)
        return -1;
    return block_backward(net, &net->conv1, &net->bn1, net->act1, &net->pool1, net->x_desc, net->x, NULL);
}

/* SGD with momentum (PyTorch's formulation), in cuDNN tensor ops:
 *   g += wd * w;  v = momentum * v + g;  w -= lr * v */
static int
update(net_t *net)
{
    const float lr = -net->cfg.learning_rate, mu = net->cfg.momentum, wd = net->cfg.weight_decay;
    for (int i = 0; i < net->nparams; i++) {
        param_t *p = net->params[i];
        if (wd != 0.0f)
            CHECK_CUDNN(cudnnAddTensor(net->handle, &wd, p->desc, p->value, &one, p->desc, p->grad));
        CHECK_CUDNN(cudnnAddTensor(net->handle, &one, p->desc, p->grad, &mu, p->desc, p->velocity));
        CHECK_CUDNN(cudnnAddTensor(net->handle, &lr, p->desc, p->velocity, &one, p->desc, p->value));
    }
    return 0;
}

#undef FAIL_VALUE
#define FAIL_VALUE -1.0

double
net_train_step(net_t *net, const uint8_t *images, const uint8_t *labels)
{
    int n = net->cfg.batch;
    upload(net, images);
    if (forward(net, 1) != 0)
        return -1.0;
    cudaMemcpy(net->host_logp, net->logp, (size_t)n * NET_CLASSES * sizeof(float), cudaMemcpyDeviceToHost);
    double loss = 0;
    memset(net->host_dlogp, 0, (size_t)n * NET_CLASSES * sizeof(float));
    for (int i = 0; i < n; i++) {
        loss -= net->host_logp[i * NET_CLASSES + labels[i]];
        net->host_dlogp[i * NET_CLASSES + labels[i]] = -1.0f / (float)n;
    }
    cudaMemcpy(net->dlogp, net->host_dlogp, (size_t)n * NET_CLASSES * sizeof(float), cudaMemcpyHostToDevice);
    if (backward(net) != 0 || update(net) != 0)
        return -1.0;
    return loss / n;
}

int
net_predict(net_t *net, const uint8_t *images, uint8_t *pred, float *logp)
{
    int n = net->cfg.batch;
    upload(net, images);
    if (forward(net, 0) != 0)
        return -1;
    cudaMemcpy(net->host_logp, net->logp, (size_t)n * NET_CLASSES * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) {
        int best = 0;
        for (int c = 1; c < NET_CLASSES; c++)
            if (net->host_logp[i * NET_CLASSES + c] > net->host_logp[i * NET_CLASSES + best])
                best = c;
        pred[i] = (uint8_t)best;
    }
    if (logp != NULL)
        memcpy(logp, net->host_logp, (size_t)n * NET_CLASSES * sizeof(float));
    return 0;
}

/* The saved state: every parameter, then the running statistics. */
static int
for_each_state(net_t *net, int (*fn)(float *dev, size_t count, void *ctx), void *ctx)
{
    for (int i = 0; i < net->nparams; i++)
        if (fn(net->params[i]->value, net->params[i]->count, ctx) != 0)
            return -1;
    bn_t *bns[2] = {&net->bn1, &net->bn2};
    int channels[2] = {32, 64};
    for (int i = 0; i < 2; i++)
        if (fn(bns[i]->running_mean, (size_t)channels[i], ctx) != 0 ||
            fn(bns[i]->running_var, (size_t)channels[i], ctx) != 0)
            return -1;
    return 0;
}

static int
save_one(float *dev, size_t count, void *ctx)
{
    float *host = malloc(count * sizeof(float));
    cudaMemcpy(host, dev, count * sizeof(float), cudaMemcpyDeviceToHost);
    size_t written = fwrite(host, sizeof(float), count, (FILE *)ctx);
    free(host);
    return written == count ? 0 : -1;
}

static int
load_one(float *dev, size_t count, void *ctx)
{
    float *host = malloc(count * sizeof(float));
    size_t got = fread(host, sizeof(float), count, (FILE *)ctx);
    if (got == count)
        cudaMemcpy(dev, host, count * sizeof(float), cudaMemcpyHostToDevice);
    free(host);
    return got == count ? 0 : -1;
}

static const char weights_magic[8] = "FDNNFM01";

int
net_save(net_t *net, FILE *f)
{
    if (fwrite(weights_magic, 1, sizeof(weights_magic), f) != sizeof(weights_magic))
        return -1;
    return for_each_state(net, save_one, f);
}

int
net_load(net_t *net, FILE *f)
{
    char magic[8];
    if (fread(magic, 1, sizeof(magic), f) != sizeof(magic) || memcmp(magic, weights_magic, sizeof(magic)) != 0)
        return -1;
    return for_each_state(net, load_one, f);
}

static int
hash_one(float *dev, size_t count, void *ctx)
{
    uint64_t *h = ctx;
    unsigned char *host = malloc(count * sizeof(float));
    cudaMemcpy(host, dev, count * sizeof(float), cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < count * sizeof(float); i++)
        *h = (*h ^ host[i]) * 0x100000001B3ull;
    free(host);
    return 0;
}

uint64_t
net_param_hash(net_t *net)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for_each_state(net, hash_one, &h);
    return h;
}
