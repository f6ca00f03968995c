/* SPDX-License-Identifier: Apache-2.0
 * The demo's first network, built only from cuDNN calls on "device" buffers:
 *
 *   x[N,1,28,28]
 *   conv1 3x3 pad 1 -> 32   BN  ReLU  maxpool 2x2   -> [N,32,14,14]
 *   conv2 3x3 pad 1 -> 64   BN  ReLU  maxpool 2x2   -> [N,64,7,7]
 *   fc1 as a 7x7 convolution -> 128 (+bias)  ReLU   -> [N,128,1,1]
 *   fc2 as a 1x1 convolution -> 10  (+bias)         -> [N,10,1,1]
 *   log-softmax over the 10 classes, negative log-likelihood loss
 *
 * The training step, SGD and weights files are model.c's. */
#include <stdlib.h>

#include <cuda_runtime.h>

#include "layers.h"
#include "model.h"

#define CHECK_CUDNN(expr)                                                                                \
    do {                                                                                                 \
        cudnnStatus_t s_ = (expr);                                                                       \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                                \
            fprintf(stderr, "fashion_mnist: %s failed: %s (%s:%d)\n", #expr, cudnnGetErrorString(s_),    \
                    __FILE__, __LINE__);                                                                 \
            return -1;                                                                                   \
        }                                                                                                \
    } while (0)

typedef struct bn {
    cudnnTensorDescriptor_t param_desc;
    param_t scale, bias;
    bn_stats_t stats;
    float *saved_mean, *saved_invvar;
    float *y, *dy;
} bn_t;

typedef struct pool {
    cudnnTensorDescriptor_t y_desc;
    float *y, *dy;
} pool_t;

typedef struct cnn {
    model_t m; /* first: a cnn_t is a model_t */
    cudnnActivationDescriptor_t relu;
    cudnnPoolingDescriptor_t maxpool;
    conv_t conv1, conv2, fc1, fc2;
    bn_t bn1, bn2;
    float *act1, *act2, *act3; /* ReLU outputs (in place of BN / fc1 outputs) */
    pool_t pool1, pool2;
    float *dx_scratch;
    void *workspace;
    size_t workspace_size;
} cnn_t;

static int
bn_init(cnn_t *net, bn_t *bn, const conv_t *cv, uint64_t *rng)
{
    model_t *m = &net->m;
    size_t count = (size_t)m->batch * cv->out_c * cv->out_hw * cv->out_hw;
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&bn->param_desc));
    CHECK_CUDNN(cudnnDeriveBNTensorDescriptor(bn->param_desc, cv->y_desc, CUDNN_BATCHNORM_SPATIAL));
    if (model_add_param(m, &bn->scale, 1, cv->out_c, 1, 1, 1.0f, 0, rng) != 0 ||
        model_add_param(m, &bn->bias, 1, cv->out_c, 1, 1, 0.0f, 0, rng) != 0 ||
        model_add_stats(m, &bn->stats, cv->out_c) != 0)
        return -1;
    bn->saved_mean = model_alloc(cv->out_c);
    bn->saved_invvar = model_alloc(cv->out_c);
    bn->y = model_alloc(count);
    bn->dy = model_alloc(count);
    return bn->y != NULL && bn->dy != NULL ? 0 : -1;
}

static int
pool_init(cnn_t *net, pool_t *p, int c, int in_hw)
{
    int n = net->m.batch;
    p->y_desc = model_tensor4d(n, c, in_hw / 2, in_hw / 2);
    size_t count = (size_t)n * c * (in_hw / 2) * (in_hw / 2);
    p->y = model_alloc(count);
    p->dy = model_alloc(count);
    return p->y_desc != NULL && p->y != NULL && p->dy != NULL ? 0 : -1;
}

static void
bn_free(bn_t *bn)
{
    cudnnDestroyTensorDescriptor(bn->param_desc);
    model_free_param(&bn->scale);
    model_free_param(&bn->bias);
    model_free_stats(&bn->stats);
    cudaFree(bn->saved_mean);
    cudaFree(bn->saved_invvar);
    cudaFree(bn->y);
    cudaFree(bn->dy);
}

static void
cnn_destroy(model_t *m)
{
    cnn_t *net = (cnn_t *)m;
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
    cudnnDestroyActivationDescriptor(net->relu);
    cudnnDestroyPoolingDescriptor(net->maxpool);
    cudaFree(net->dx_scratch);
    cudaFree(net->act1);
    cudaFree(net->act2);
    cudaFree(net->act3);
    cudaFree(net->workspace);
    model_free_common(m);
    free(net);
}

static const float one = 1.0f, zero = 0.0f;

/* One conv - batch norm - ReLU - max-pool block.  `training` selects batch
 * statistics (and updates the running ones) or the running statistics. */
static int
block_forward(cnn_t *net, conv_t *cv, bn_t *bn, float *act, pool_t *pool, cudnnTensorDescriptor_t x_desc,
              const float *x, int training)
{
    model_t *m = &net->m;
    if (conv_forward(m, cv, x_desc, x, net->workspace, net->workspace_size) != 0)
        return -1;
    if (training)
        CHECK_CUDNN(model_bn_forward_training(m, &bn->stats, cv->y_desc, cv->y, bn->y, &bn->scale, &bn->bias,
                                              bn->saved_mean, bn->saved_invvar));
    else
        CHECK_CUDNN(cudnnBatchNormalizationForwardInference(
            m->handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, cv->y_desc, cv->y, cv->y_desc, bn->y, bn->param_desc,
            bn->scale.value, bn->bias.value, bn->stats.running_mean, bn->stats.running_var, BN_EPSILON));
    CHECK_CUDNN(cudnnActivationForward(m->handle, net->relu, &one, cv->y_desc, bn->y, &zero, cv->y_desc, act));
    CHECK_CUDNN(
        cudnnPoolingForward(m->handle, net->maxpool, &one, cv->y_desc, act, &zero, pool->y_desc, pool->y));
    return 0;
}

static int
cnn_forward(model_t *m, int training)
{
    cnn_t *net = (cnn_t *)m;
    if (block_forward(net, &net->conv1, &net->bn1, net->act1, &net->pool1, m->x_desc, m->x, training) != 0 ||
        block_forward(net, &net->conv2, &net->bn2, net->act2, &net->pool2, net->pool1.y_desc, net->pool1.y,
                      training) != 0)
        return -1;
    if (conv_forward(m, &net->fc1, net->pool2.y_desc, net->pool2.y, net->workspace, net->workspace_size) != 0)
        return -1;
    CHECK_CUDNN(cudnnActivationForward(m->handle, net->relu, &one, net->fc1.y_desc, net->fc1.y, &zero,
                                       net->fc1.y_desc, net->act3));
    if (conv_forward(m, &net->fc2, net->fc1.y_desc, net->act3, net->workspace, net->workspace_size) != 0)
        return -1;
    CHECK_CUDNN(cudnnSoftmaxForward(m->handle, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, net->fc2.y_desc,
                                    net->fc2.y, &zero, net->fc2.y_desc, m->logp));
    return 0;
}

/* Gradients of one block_forward, from pool->dy: the parameters' gradients
 * and, when dx != NULL, the block input's gradient. */
static int
block_backward(cnn_t *net, conv_t *cv, bn_t *bn, const float *act, pool_t *pool, cudnnTensorDescriptor_t x_desc,
               const float *x, float *dx)
{
    model_t *m = &net->m;
    CHECK_CUDNN(cudnnPoolingBackward(m->handle, net->maxpool, &one, pool->y_desc, pool->y, pool->y_desc, pool->dy,
                                     cv->y_desc, act, &zero, cv->y_desc, net->dx_scratch));
    CHECK_CUDNN(cudnnActivationBackward(m->handle, net->relu, &one, cv->y_desc, act, cv->y_desc, net->dx_scratch,
                                        cv->y_desc, bn->y, &zero, cv->y_desc, bn->dy));
    CHECK_CUDNN(cudnnBatchNormalizationBackward(m->handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero,
                                                cv->y_desc, cv->y, cv->y_desc, bn->dy, cv->y_desc, cv->dy,
                                                bn->param_desc, bn->scale.value, bn->scale.grad, bn->bias.grad,
                                                BN_EPSILON, bn->saved_mean, bn->saved_invvar));
    model_ready(m, bn->scale.index);
    model_ready(m, bn->bias.index);
    return conv_backward(m, cv, x_desc, x, dx, 0.0f, net->workspace, net->workspace_size);
}

static int
cnn_backward(model_t *m)
{
    cnn_t *net = (cnn_t *)m;
    CHECK_CUDNN(cudnnSoftmaxBackward(m->handle, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one,
                                     net->fc2.y_desc, m->logp, net->fc2.y_desc, m->dlogp, &zero, net->fc2.y_desc,
                                     net->fc2.dy));
    /* fc2's input gradient goes through the ReLU backward into fc1's output
     * gradient. */
    float *d_act3 = net->dx_scratch;
    if (conv_backward(m, &net->fc2, net->fc1.y_desc, net->act3, d_act3, 0.0f, net->workspace,
                      net->workspace_size) != 0)
        return -1;
    CHECK_CUDNN(cudnnActivationBackward(m->handle, net->relu, &one, net->fc1.y_desc, net->act3, net->fc1.y_desc,
                                        d_act3, net->fc1.y_desc, net->fc1.y, &zero, net->fc1.y_desc, net->fc1.dy));
    if (conv_backward(m, &net->fc1, net->pool2.y_desc, net->pool2.y, net->pool2.dy, 0.0f, net->workspace,
                      net->workspace_size) != 0 ||
        block_backward(net, &net->conv2, &net->bn2, net->act2, &net->pool2, net->pool1.y_desc, net->pool1.y,
                       net->pool1.dy) != 0)
        return -1;
    return block_backward(net, &net->conv1, &net->bn1, net->act1, &net->pool1, m->x_desc, m->x, NULL);
}

static const model_ops_t cnn_ops = {"cnn", {'F', 'D', 'N', 'N', 'F', 'M', '0', '1'}, cnn_forward, cnn_backward,
                                    cnn_destroy};

model_t *
cnn_create(cudnnHandle_t handle, const model_config_t *cfg)
{
    cnn_t *net = calloc(1, sizeof(*net));
    if (net == NULL)
        return NULL;
    model_t *m = &net->m;
    m->ops = &cnn_ops;
    m->handle = handle;
    m->batch = cfg->batch;
    int n = cfg->batch;
    uint64_t rng = cfg->seed;
    m->x_desc = model_tensor4d(n, 1, 28, 28);
    m->x = model_alloc((size_t)n * 28 * 28);
    net->dx_scratch = model_alloc((size_t)n * 32 * 28 * 28);
    cudnnCreateActivationDescriptor(&net->relu);
    cudnnSetActivationDescriptor(net->relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0);
    cudnnCreatePoolingDescriptor(&net->maxpool);
    cudnnSetPooling2dDescriptor(net->maxpool, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);

    size_t *ws = &net->workspace_size;
    if (conv_init(m, &net->conv1, 1, 32, 3, 1, 1, 28, 0, ws, &rng) != 0 || bn_init(net, &net->bn1, &net->conv1, &rng) ||
        pool_init(net, &net->pool1, 32, 28) != 0 || conv_init(m, &net->conv2, 32, 64, 3, 1, 1, 14, 0, ws, &rng) != 0 ||
        bn_init(net, &net->bn2, &net->conv2, &rng) != 0 || pool_init(net, &net->pool2, 64, 14) != 0 ||
        conv_init(m, &net->fc1, 64, 128, 7, 0, 1, 7, 1, ws, &rng) != 0 ||
        conv_init(m, &net->fc2, 128, NET_CLASSES, 1, 0, 1, 1, 1, ws, &rng) != 0) {
        fprintf(stderr, "fashion_mnist: building the network failed\n");
        cnn_destroy(m);
        return NULL;
    }
    net->act1 = model_alloc((size_t)n * 32 * 28 * 28);
    net->act2 = model_alloc((size_t)n * 64 * 14 * 14);
    net->act3 = model_alloc((size_t)n * 128);
    m->out_desc = model_tensor4d(n, NET_CLASSES, 1, 1);
    m->logp = model_alloc((size_t)n * NET_CLASSES);
    m->dlogp = model_alloc((size_t)n * NET_CLASSES);
    m->host_x = malloc((size_t)n * 28 * 28 * sizeof(float));
    m->host_logp = malloc((size_t)n * NET_CLASSES * sizeof(float));
    m->host_dlogp = malloc((size_t)n * NET_CLASSES * sizeof(float));
    if (net->workspace_size > 0 && cudaMalloc(&net->workspace, net->workspace_size) != cudaSuccess) {
        cnn_destroy(m);
        return NULL;
    }
    return m;
}
