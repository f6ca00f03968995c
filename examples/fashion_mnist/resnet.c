/* SPDX-License-Identifier: Apache-2.0
 * The demo's second network (--net resnet), a small residual network built
 * from the operations real CNNs use, all through cuDNN:
 *
 *   x[N,1,28,28]
 *   stem    conv 3x3 -> 16, BN, ReLU                               [N,16,28,28]
 *   block1  conv 3x3 BN ReLU, conv 3x3 BN, + x, ReLU               [N,16,28,28]
 *   block2  conv 3x3 /2 BN ReLU, conv 3x3 BN, + (conv 1x1 /2 BN) x, ReLU  [N,32,14,14]
 *   block3  the same                                                [N,64,7,7]
 *   global average pooling                                          [N,64,1,1]
 *   fc as a 1x1 convolution -> 10 (+bias), log-softmax, NLL loss
 *
 * The skip addition is cudnnAddTensor; its backward sends the same gradient
 * down both paths and adds them (cudnnAddTensor again, or the beta of the
 * projection's backward-data). */
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

/* A convolution followed by batch normalisation: y = BN(conv(x)). */
typedef struct unit {
    conv_t cv;
    cudnnTensorDescriptor_t bn_desc;
    param_t scale, bias;
    bn_stats_t stats;
    float *saved_mean, *saved_invvar;
    float *y, *dy; /* BN output and its gradient */
} unit_t;

/* out = ReLU(b(ReLU(a(x))) + shortcut(x)), shortcut = proj(x) or x. */
typedef struct block {
    unit_t a, b, proj;
    int has_proj;
    float *a_act, *d_a_act; /* ReLU(a.y) and its gradient */
    float *out, *dout;      /* the block's output and its gradient */
    float *dpre;            /* gradient before the final ReLU */
} block_t;

typedef struct resnet {
    model_t m;
    cudnnActivationDescriptor_t relu;
    cudnnPoolingDescriptor_t gap;
    unit_t stem;
    float *stem_act, *d_stem_act;
    block_t blocks[3];
    cudnnTensorDescriptor_t gap_desc;
    float *gap_y, *gap_dy;
    conv_t fc;
    void *workspace;
    size_t workspace_size;
} resnet_t;

static const float one = 1.0f, zero = 0.0f;

static size_t
elems(const conv_t *cv)
{
    return (size_t)cv->out_c * cv->out_hw * cv->out_hw;
}

static int
unit_init(resnet_t *net, unit_t *u, int in_c, int out_c, int k, int stride, int in_hw, uint64_t *rng)
{
    model_t *m = &net->m;
    if (conv_init(m, &u->cv, in_c, out_c, k, k / 2, stride, in_hw, 0, &net->workspace_size, rng) != 0)
        return -1;
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&u->bn_desc));
    CHECK_CUDNN(cudnnDeriveBNTensorDescriptor(u->bn_desc, u->cv.y_desc, CUDNN_BATCHNORM_SPATIAL));
    if (model_add_param(m, &u->scale, 1, out_c, 1, 1, 1.0f, 0, rng) != 0 ||
        model_add_param(m, &u->bias, 1, out_c, 1, 1, 0.0f, 0, rng) != 0 || model_add_stats(m, &u->stats, out_c) != 0)
        return -1;
    size_t count = (size_t)m->batch * elems(&u->cv);
    u->saved_mean = model_alloc((size_t)out_c);
    u->saved_invvar = model_alloc((size_t)out_c);
    u->y = model_alloc(count);
    u->dy = model_alloc(count);
    return u->saved_mean && u->saved_invvar && u->y && u->dy ? 0 : -1;
}

static void
unit_free(unit_t *u)
{
    if (u->cv.w_desc == NULL)
        return;
    conv_free(&u->cv);
    cudnnDestroyTensorDescriptor(u->bn_desc);
    model_free_param(&u->scale);
    model_free_param(&u->bias);
    model_free_stats(&u->stats);
    cudaFree(u->saved_mean);
    cudaFree(u->saved_invvar);
    cudaFree(u->y);
    cudaFree(u->dy);
}

static int
unit_forward(resnet_t *net, unit_t *u, cudnnTensorDescriptor_t x_desc, const float *x, int training)
{
    model_t *m = &net->m;
    if (conv_forward(m, &u->cv, x_desc, x, net->workspace, net->workspace_size) != 0)
        return -1;
    if (training)
        CHECK_CUDNN(model_bn_forward_training(m, &u->stats, u->cv.y_desc, u->cv.y, u->y, &u->scale, &u->bias,
                                              u->saved_mean, u->saved_invvar));
    else
        CHECK_CUDNN(cudnnBatchNormalizationForwardInference(m->handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero,
                                                            u->cv.y_desc, u->cv.y, u->cv.y_desc, u->y, u->bn_desc,
                                                            u->scale.value, u->bias.value, u->stats.running_mean,
                                                            u->stats.running_var, BN_EPSILON));
    return 0;
}

/* From dy (the gradient of u->y): BN and conv gradients, and dx = dx_beta *
 * dx + the input gradient when dx != NULL. */
static int
unit_backward(resnet_t *net, unit_t *u, const float *dy, cudnnTensorDescriptor_t x_desc, const float *x, float *dx,
              float dx_beta)
{
    model_t *m = &net->m;
    CHECK_CUDNN(cudnnBatchNormalizationBackward(m->handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero,
                                                u->cv.y_desc, u->cv.y, u->cv.y_desc, dy, u->cv.y_desc, u->cv.dy,
                                                u->bn_desc, u->scale.value, u->scale.grad, u->bias.grad, BN_EPSILON,
                                                u->saved_mean, u->saved_invvar));
    model_ready(m, u->scale.index);
    model_ready(m, u->bias.index);
    return conv_backward(m, &u->cv, x_desc, x, dx, dx_beta, net->workspace, net->workspace_size);
}

static int
block_init(resnet_t *net, block_t *bk, int in_c, int out_c, int stride, int in_hw, uint64_t *rng)
{
    int out_hw = (in_hw - 1) / stride + 1;
    if (unit_init(net, &bk->a, in_c, out_c, 3, stride, in_hw, rng) != 0 ||
        unit_init(net, &bk->b, out_c, out_c, 3, 1, out_hw, rng) != 0)
        return -1;
    bk->has_proj = stride != 1 || in_c != out_c;
    if (bk->has_proj && unit_init(net, &bk->proj, in_c, out_c, 1, stride, in_hw, rng) != 0)
        return -1;
    size_t count = (size_t)net->m.batch * elems(&bk->b.cv);
    bk->a_act = model_alloc(count);
    bk->d_a_act = model_alloc(count);
    bk->out = model_alloc(count);
    bk->dout = model_alloc(count);
    bk->dpre = model_alloc(count);
    return bk->a_act && bk->d_a_act && bk->out && bk->dout && bk->dpre ? 0 : -1;
}

static void
block_free(block_t *bk)
{
    unit_free(&bk->a);
    unit_free(&bk->b);
    unit_free(&bk->proj);
    cudaFree(bk->a_act);
    cudaFree(bk->d_a_act);
    cudaFree(bk->out);
    cudaFree(bk->dout);
    cudaFree(bk->dpre);
}

static int
block_forward(resnet_t *net, block_t *bk, cudnnTensorDescriptor_t x_desc, const float *x, int training)
{
    model_t *m = &net->m;
    cudnnTensorDescriptor_t d = bk->b.cv.y_desc;
    if (unit_forward(net, &bk->a, x_desc, x, training) != 0)
        return -1;
    CHECK_CUDNN(cudnnActivationForward(m->handle, net->relu, &one, d, bk->a.y, &zero, d, bk->a_act));
    if (unit_forward(net, &bk->b, d, bk->a_act, training) != 0)
        return -1;
    /* The skip addition, in place in b.y (the BN backward reads the
     * convolution's output, not the BN's). */
    if (bk->has_proj) {
        if (unit_forward(net, &bk->proj, x_desc, x, training) != 0)
            return -1;
        CHECK_CUDNN(cudnnAddTensor(m->handle, &one, d, bk->proj.y, &one, d, bk->b.y));
    } else {
        CHECK_CUDNN(cudnnAddTensor(m->handle, &one, x_desc, x, &one, d, bk->b.y));
    }
    CHECK_CUDNN(cudnnActivationForward(m->handle, net->relu, &one, d, bk->b.y, &zero, d, bk->out));
    return 0;
}

/* From bk->dout: every gradient of the block, and the input's into dx. */
static int
block_backward(resnet_t *net, block_t *bk, cudnnTensorDescriptor_t x_desc, const float *x, float *dx)
{
    model_t *m = &net->m;
    cudnnTensorDescriptor_t d = bk->b.cv.y_desc;
    CHECK_CUDNN(cudnnActivationBackward(m->handle, net->relu, &one, d, bk->out, d, bk->dout, d, bk->b.y, &zero, d,
                                        bk->dpre));
    if (unit_backward(net, &bk->b, bk->dpre, d, bk->a_act, bk->d_a_act, 0.0f) != 0)
        return -1;
    CHECK_CUDNN(cudnnActivationBackward(m->handle, net->relu, &one, d, bk->a_act, d, bk->d_a_act, d, bk->a.y, &zero,
                                        d, bk->a.dy));
    if (unit_backward(net, &bk->a, bk->a.dy, x_desc, x, dx, 0.0f) != 0)
        return -1;
    /* The shortcut's gradient is added to the main path's. */
    if (bk->has_proj)
        return unit_backward(net, &bk->proj, bk->dpre, x_desc, x, dx, 1.0f);
    CHECK_CUDNN(cudnnAddTensor(m->handle, &one, d, bk->dpre, &one, x_desc, dx));
    return 0;
}

static int
resnet_forward(model_t *m, int training)
{
    resnet_t *net = (resnet_t *)m;
    if (unit_forward(net, &net->stem, m->x_desc, m->x, training) != 0)
        return -1;
    cudnnTensorDescriptor_t d = net->stem.cv.y_desc;
    CHECK_CUDNN(cudnnActivationForward(m->handle, net->relu, &one, d, net->stem.y, &zero, d, net->stem_act));
    const float *x = net->stem_act;
    for (int i = 0; i < 3; i++) {
        if (block_forward(net, &net->blocks[i], d, x, training) != 0)
            return -1;
        x = net->blocks[i].out;
        d = net->blocks[i].b.cv.y_desc;
    }
    CHECK_CUDNN(cudnnPoolingForward(m->handle, net->gap, &one, d, x, &zero, net->gap_desc, net->gap_y));
    if (conv_forward(m, &net->fc, net->gap_desc, net->gap_y, net->workspace, net->workspace_size) != 0)
        return -1;
    CHECK_CUDNN(cudnnSoftmaxForward(m->handle, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, net->fc.y_desc,
                                    net->fc.y, &zero, net->fc.y_desc, m->logp));
    return 0;
}

static int
resnet_backward(model_t *m)
{
    resnet_t *net = (resnet_t *)m;
    CHECK_CUDNN(cudnnSoftmaxBackward(m->handle, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, net->fc.y_desc,
                                     m->logp, net->fc.y_desc, m->dlogp, &zero, net->fc.y_desc, net->fc.dy));
    if (conv_backward(m, &net->fc, net->gap_desc, net->gap_y, net->gap_dy, 0.0f, net->workspace,
                      net->workspace_size) != 0)
        return -1;
    block_t *last = &net->blocks[2];
    CHECK_CUDNN(cudnnPoolingBackward(m->handle, net->gap, &one, net->gap_desc, net->gap_y, net->gap_desc,
                                     net->gap_dy, last->b.cv.y_desc, last->out, &zero, last->b.cv.y_desc,
                                     last->dout));
    for (int i = 2; i >= 0; i--) {
        block_t *bk = &net->blocks[i];
        cudnnTensorDescriptor_t x_desc = i > 0 ? net->blocks[i - 1].b.cv.y_desc : net->stem.cv.y_desc;
        const float *x = i > 0 ? net->blocks[i - 1].out : net->stem_act;
        float *dx = i > 0 ? net->blocks[i - 1].dout : net->d_stem_act;
        if (block_backward(net, bk, x_desc, x, dx) != 0)
            return -1;
    }
    cudnnTensorDescriptor_t d = net->stem.cv.y_desc;
    CHECK_CUDNN(cudnnActivationBackward(m->handle, net->relu, &one, d, net->stem_act, d, net->d_stem_act, d,
                                        net->stem.y, &zero, d, net->stem.dy));
    return unit_backward(net, &net->stem, net->stem.dy, m->x_desc, m->x, NULL, 0.0f);
}

static void
resnet_destroy(model_t *m)
{
    resnet_t *net = (resnet_t *)m;
    unit_free(&net->stem);
    for (int i = 0; i < 3; i++)
        block_free(&net->blocks[i]);
    if (net->fc.w_desc != NULL)
        conv_free(&net->fc);
    cudaFree(net->stem_act);
    cudaFree(net->d_stem_act);
    cudaFree(net->gap_y);
    cudaFree(net->gap_dy);
    cudnnDestroyTensorDescriptor(net->gap_desc);
    cudnnDestroyActivationDescriptor(net->relu);
    cudnnDestroyPoolingDescriptor(net->gap);
    cudaFree(net->workspace);
    model_free_common(m);
    free(net);
}

static const model_ops_t resnet_ops = {"resnet", {'F', 'D', 'N', 'N', 'R', 'N', '0', '1'}, resnet_forward,
                                       resnet_backward, resnet_destroy};

model_t *
resnet_create(cudnnHandle_t handle, const model_config_t *cfg)
{
    resnet_t *net = calloc(1, sizeof(*net));
    if (net == NULL)
        return NULL;
    model_t *m = &net->m;
    m->ops = &resnet_ops;
    m->handle = handle;
    m->batch = cfg->batch;
    int n = cfg->batch;
    uint64_t rng = cfg->seed;
    m->x_desc = model_tensor4d(n, 1, 28, 28);
    m->x = model_alloc((size_t)n * 28 * 28);
    cudnnCreateActivationDescriptor(&net->relu);
    cudnnSetActivationDescriptor(net->relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0);
    cudnnCreatePoolingDescriptor(&net->gap);
    cudnnSetPooling2dDescriptor(net->gap, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_PROPAGATE_NAN, 7, 7, 0, 0,
                                7, 7);
    net->gap_desc = model_tensor4d(n, 64, 1, 1);
    int ok = unit_init(net, &net->stem, 1, 16, 3, 1, 28, &rng) == 0 &&
             block_init(net, &net->blocks[0], 16, 16, 1, 28, &rng) == 0 &&
             block_init(net, &net->blocks[1], 16, 32, 2, 28, &rng) == 0 &&
             block_init(net, &net->blocks[2], 32, 64, 2, 14, &rng) == 0 &&
             conv_init(m, &net->fc, 64, NET_CLASSES, 1, 0, 1, 1, 1, &net->workspace_size, &rng) == 0;
    size_t stem = (size_t)n * 16 * 28 * 28;
    net->stem_act = model_alloc(stem);
    net->d_stem_act = model_alloc(stem);
    net->gap_y = model_alloc((size_t)n * 64);
    net->gap_dy = model_alloc((size_t)n * 64);
    m->out_desc = model_tensor4d(n, NET_CLASSES, 1, 1);
    m->logp = model_alloc((size_t)n * NET_CLASSES);
    m->dlogp = model_alloc((size_t)n * NET_CLASSES);
    m->host_x = malloc((size_t)n * 28 * 28 * sizeof(float));
    m->host_logp = malloc((size_t)n * NET_CLASSES * sizeof(float));
    m->host_dlogp = malloc((size_t)n * NET_CLASSES * sizeof(float));
    if (!ok || net->stem_act == NULL || net->gap_y == NULL || m->logp == NULL || m->host_x == NULL ||
        (net->workspace_size > 0 && cudaMalloc(&net->workspace, net->workspace_size) != cudaSuccess)) {
        fprintf(stderr, "fashion_mnist: building the residual network failed\n");
        resnet_destroy(m);
        return NULL;
    }
    return m;
}
