/* SPDX-License-Identifier: Apache-2.0
 * The network-independent part of model.h: a chunk's training step, SGD,
 * inference, weights files, and the helpers the networks build with. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#define CHECK_CUDNN(expr)                                                                                \
    do {                                                                                                 \
        cudnnStatus_t s_ = (expr);                                                                       \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                                \
            fprintf(stderr, "fashion_mnist: %s failed: %s (%s:%d)\n", #expr, cudnnGetErrorString(s_),    \
                    __FILE__, __LINE__);                                                                 \
            return -1;                                                                                   \
        }                                                                                                \
    } while (0)

static const float one = 1.0f;

float *
model_alloc(size_t count)
{
    void *p = NULL;
    if (cudaMalloc(&p, count * sizeof(float)) != cudaSuccess)
        return NULL;
    cudaMemset(p, 0, count * sizeof(float));
    return p;
}

cudnnTensorDescriptor_t
model_tensor4d(int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t d = NULL;
    if (cudnnCreateTensorDescriptor(&d) != CUDNN_STATUS_SUCCESS ||
        cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w) != CUDNN_STATUS_SUCCESS)
        return NULL;
    return d;
}

/* A small deterministic generator for the initial weights (splitmix64). */
uint64_t
model_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int
model_add_param(model_t *m, param_t *p, int n, int c, int h, int w, float value, float bound, uint64_t *rng)
{
    if (m->nparams == MODEL_MAX_PARAMS)
        return -1;
    p->count = (size_t)n * c * h * w;
    p->desc = model_tensor4d(n, c, h, w);
    p->value = model_alloc(p->count);
    p->grad = model_alloc(p->count);
    p->velocity = model_alloc(p->count);
    if (p->desc == NULL || p->value == NULL || p->grad == NULL || p->velocity == NULL)
        return -1;
    float *host = malloc(p->count * sizeof(float));
    if (host == NULL)
        return -1;
    for (size_t i = 0; i < p->count; i++) {
        double u = (double)(model_random(rng) >> 11) * 0x1.0p-53;
        host[i] = bound > 0 ? (float)((2 * u - 1) * bound) : value;
    }
    cudaMemcpy(p->value, host, p->count * sizeof(float), cudaMemcpyHostToDevice);
    free(host);
    p->index = m->nparams;
    m->params[m->nparams++] = p;
    return 0;
}

int
model_add_stats(model_t *m, bn_stats_t *s, int channels)
{
    if (m->nstats == MODEL_MAX_STATS)
        return -1;
    s->channels = channels;
    s->desc = model_tensor4d(1, channels, 1, 1);
    s->running_mean = model_alloc((size_t)channels);
    s->running_var = model_alloc((size_t)channels);
    if (s->desc == NULL || s->running_mean == NULL || s->running_var == NULL)
        return -1;
    float *ones = malloc((size_t)channels * sizeof(float));
    if (ones == NULL)
        return -1;
    for (int i = 0; i < channels; i++)
        ones[i] = 1.0f;
    cudaMemcpy(s->running_var, ones, (size_t)channels * sizeof(float), cudaMemcpyHostToDevice);
    free(ones);
    m->stats[m->nstats++] = s;
    return 0;
}

void
model_free_param(param_t *p)
{
    cudnnDestroyTensorDescriptor(p->desc);
    cudaFree(p->value);
    cudaFree(p->grad);
    cudaFree(p->velocity);
}

void
model_free_stats(bn_stats_t *s)
{
    cudnnDestroyTensorDescriptor(s->desc);
    cudaFree(s->running_mean);
    cudaFree(s->running_var);
}

void
model_ready(model_t *m, int what)
{
    if (m->on_ready != NULL)
        m->on_ready(m->on_ready_ctx, what);
}

cudnnStatus_t
model_bn_forward_training(model_t *m, bn_stats_t *s, cudnnTensorDescriptor_t x_desc, const float *x, float *y,
                          const param_t *scale, const param_t *bias, float *saved_mean, float *saved_invvar)
{
    static const float zero = 0.0f;
    /* With chunk statistics the factor 1 writes the chunk's own mean and
     * unbiased variance (the old values are not read); the caller averages
     * them over the global batch in a fixed order. */
    int chunk = m->chunk_stats;
    return cudnnBatchNormalizationForwardTraining(m->handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x_desc, x, x_desc,
                                                  y, s->desc, scale->value, bias->value, chunk ? 1.0 : BN_AVERAGE,
                                                  chunk ? s->chunk_mean : s->running_mean,
                                                  chunk ? s->chunk_var : s->running_var, BN_EPSILON, saved_mean,
                                                  saved_invvar);
}

void
model_free_common(model_t *m)
{
    cudnnDestroyTensorDescriptor(m->x_desc);
    cudnnDestroyTensorDescriptor(m->out_desc);
    cudaFree(m->x);
    cudaFree(m->logp);
    cudaFree(m->dlogp);
    free(m->host_x);
    free(m->host_logp);
    free(m->host_dlogp);
}

void
model_destroy(model_t *m)
{
    if (m != NULL)
        m->ops->destroy(m);
}

static void
upload(model_t *m, const uint8_t *images)
{
    size_t count = (size_t)m->batch * 28 * 28;
    /* Pixels scaled to [0, 1] and centred as the PyTorch script does. */
    for (size_t i = 0; i < count; i++)
        m->host_x[i] = ((float)images[i] / 255.0f - 0.2860f) / 0.3530f;
    cudaMemcpy(m->x, m->host_x, count * sizeof(float), cudaMemcpyHostToDevice);
}

int
model_train_chunk(model_t *m, const uint8_t *images, const uint8_t *labels, int global_batch, double *loss_sum)
{
    int n = m->batch;
    upload(m, images);
    if (m->ops->forward(m, 1) != 0)
        return -1;
    model_ready(m, MODEL_STATS_READY);
    cudaMemcpy(m->host_logp, m->logp, (size_t)n * NET_CLASSES * sizeof(float), cudaMemcpyDeviceToHost);
    double loss = 0;
    memset(m->host_dlogp, 0, (size_t)n * NET_CLASSES * sizeof(float));
    for (int i = 0; i < n; i++) {
        loss -= m->host_logp[i * NET_CLASSES + labels[i]];
        m->host_dlogp[i * NET_CLASSES + labels[i]] = -1.0f / (float)global_batch;
    }
    cudaMemcpy(m->dlogp, m->host_dlogp, (size_t)n * NET_CLASSES * sizeof(float), cudaMemcpyHostToDevice);
    *loss_sum = loss;
    return m->ops->backward(m);
}

/* SGD with momentum (PyTorch's formulation), in cuDNN tensor ops:
 *   g += wd * w;  v = momentum * v + g;  w -= lr * v */
int
model_sgd(model_t *m, float learning_rate, float momentum, float weight_decay)
{
    const float lr = -learning_rate, mu = momentum, wd = weight_decay;
    for (int i = 0; i < m->nparams; i++) {
        param_t *p = m->params[i];
        if (wd != 0.0f)
            CHECK_CUDNN(cudnnAddTensor(m->handle, &wd, p->desc, p->value, &one, p->desc, p->grad));
        CHECK_CUDNN(cudnnAddTensor(m->handle, &one, p->desc, p->grad, &mu, p->desc, p->velocity));
        CHECK_CUDNN(cudnnAddTensor(m->handle, &lr, p->desc, p->velocity, &one, p->desc, p->value));
    }
    return 0;
}

int
model_predict(model_t *m, const uint8_t *images, uint8_t *pred, float *logp)
{
    int n = m->batch;
    upload(m, images);
    if (m->ops->forward(m, 0) != 0)
        return -1;
    cudaMemcpy(m->host_logp, m->logp, (size_t)n * NET_CLASSES * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) {
        int best = 0;
        for (int c = 1; c < NET_CLASSES; c++)
            if (m->host_logp[i * NET_CLASSES + c] > m->host_logp[i * NET_CLASSES + best])
                best = c;
        pred[i] = (uint8_t)best;
    }
    if (logp != NULL)
        memcpy(logp, m->host_logp, (size_t)n * NET_CLASSES * sizeof(float));
    return 0;
}

/* The saved state: every parameter, then the running statistics. */
static int
for_each_state(model_t *m, int (*fn)(float *dev, size_t count, void *ctx), void *ctx)
{
    for (int i = 0; i < m->nparams; i++)
        if (fn(m->params[i]->value, m->params[i]->count, ctx) != 0)
            return -1;
    for (int i = 0; i < m->nstats; i++)
        if (fn(m->stats[i]->running_mean, (size_t)m->stats[i]->channels, ctx) != 0 ||
            fn(m->stats[i]->running_var, (size_t)m->stats[i]->channels, ctx) != 0)
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

int
model_save(model_t *m, FILE *f)
{
    if (fwrite(m->ops->magic, 1, sizeof(m->ops->magic), f) != sizeof(m->ops->magic))
        return -1;
    return for_each_state(m, save_one, f);
}

int
model_load(model_t *m, FILE *f)
{
    char magic[8];
    if (fread(magic, 1, sizeof(magic), f) != sizeof(magic) || memcmp(magic, m->ops->magic, sizeof(magic)) != 0)
        return -1;
    return for_each_state(m, load_one, f);
}

const char *
model_file_kind(FILE *f)
{
    char magic[8];
    size_t got = fread(magic, 1, sizeof(magic), f);
    rewind(f);
    if (got != sizeof(magic))
        return NULL;
    if (memcmp(magic, "FDNNFM01", 8) == 0)
        return "cnn";
    if (memcmp(magic, "FDNNRN01", 8) == 0)
        return "resnet";
    return NULL;
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
model_hash(model_t *m)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for_each_state(m, hash_one, &h);
    return h;
}
