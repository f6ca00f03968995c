/* SPDX-License-Identifier: Apache-2.0
 * What every network of the demo shares, so that one training loop (and the
 * data-parallel gradient exchange of dist.h) drives any of them:
 *
 *   - a chunk of `batch` images goes through forward and backward; the loss
 *     gradient is scaled by the caller (-1 / global batch), so that the
 *     gradients of the chunks of one global batch add up to the gradient of
 *     the mean loss;
 *   - every learnable tensor is a param_t whose `grad` pointer the caller may
 *     redirect before a chunk (the backward writes, never accumulates, into
 *     it), and the network reports each gradient as soon as it is written
 *     (model_t.on_ready), which lets the exchange send it while the layers
 *     below still run;
 *   - batch-norm statistics either update the running values directly (a
 *     global batch of one chunk: the plain single-process program) or are
 *     written per chunk (`chunk_stats`) for the caller to combine in a fixed
 *     order.
 *
 * All buffers are "device" buffers (cudaMalloc); all arithmetic is cuDNN. */
#ifndef FASHION_MODEL_H
#define FASHION_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include <cudnn.h>

#define NET_CLASSES 10
#define MODEL_MAX_PARAMS 64
#define MODEL_MAX_STATS 16
#define BN_EPSILON 1e-5
#define BN_AVERAGE 0.1 /* PyTorch's momentum 0.1 */

/* A learnable tensor with its gradient and momentum, all on the device. */
typedef struct param {
    cudnnTensorDescriptor_t desc; /* for cudnnAddTensor */
    size_t count;
    int index; /* in model_t.params */
    float *value, *grad, *velocity;
} param_t;

/* One batch-norm layer's statistics.  chunk_mean / chunk_var receive the
 * chunk's mean and unbiased variance when the model has chunk_stats. */
typedef struct bn_stats {
    int channels;
    cudnnTensorDescriptor_t desc; /* 1 x C x 1 x 1 */
    float *running_mean, *running_var;
    float *chunk_mean, *chunk_var;
} bn_stats_t;

typedef struct model model_t;

/* What a network implements: the forward pass from m->x to m->logp
 * (`training` selects batch statistics), and the backward pass from
 * m->dlogp, writing every param's grad and calling model_ready for each. */
typedef struct model_ops {
    const char *name;
    char magic[8]; /* the weights file's first bytes */
    int (*forward)(model_t *m, int training);
    int (*backward)(model_t *m);
    void (*destroy)(model_t *m);
} model_ops_t;

/* Called with a param index when that gradient is final for the chunk, and
 * with MODEL_STATS_READY when the batch-norm statistics are. */
#define MODEL_STATS_READY (-1)
typedef void (*model_ready_fn)(void *ctx, int what);

struct model {
    const model_ops_t *ops;
    cudnnHandle_t handle;
    int batch; /* images per forward (one chunk) */
    cudnnTensorDescriptor_t x_desc, out_desc; /* N x 1 x 28 x 28, N x 10 x 1 x 1 */
    float *x, *logp, *dlogp;
    float *host_x, *host_logp, *host_dlogp;
    param_t *params[MODEL_MAX_PARAMS];
    int nparams;
    bn_stats_t *stats[MODEL_MAX_STATS];
    int nstats;
    int chunk_stats;
    model_ready_fn on_ready;
    void *on_ready_ctx;
};

typedef struct model_config {
    int batch; /* images per chunk */
    uint64_t seed;
} model_config_t;

/* The two networks; NULL on failure (with a message on stderr). */
model_t *cnn_create(cudnnHandle_t handle, const model_config_t *cfg);
model_t *resnet_create(cudnnHandle_t handle, const model_config_t *cfg);
void model_destroy(model_t *m);

/* Forward and backward of one chunk (m->batch images and labels).  Each
 * sample's loss gradient is -1 / global_batch on its label's
 * log-probability, so the chunks' gradients of one global batch add up to
 * the gradient of its mean loss.  *loss_sum receives the sum of the chunk's
 * losses.  Returns 0 or -1. */
int model_train_chunk(model_t *m, const uint8_t *images, const uint8_t *labels, int global_batch,
                      double *loss_sum);

/* SGD with momentum on every param from its grad (PyTorch's formulation). */
int model_sgd(model_t *m, float learning_rate, float momentum, float weight_decay);

/* Inference on m->batch images: predicted classes, log-probabilities
 * (batch x 10) when logp != NULL. */
int model_predict(model_t *m, const uint8_t *images, uint8_t *pred, float *logp);

/* Every param, then every layer's running mean and variance. */
int model_save(model_t *m, FILE *f);
int model_load(model_t *m, FILE *f);
/* Which network a weights file holds: "cnn", "resnet", or NULL. */
const char *model_file_kind(FILE *f);
/* FNV-1a hash of the saved state's bytes (the determinism check). */
uint64_t model_hash(model_t *m);

/* Helpers for the networks (model.c). */
float *model_alloc(size_t count);
cudnnTensorDescriptor_t model_tensor4d(int n, int c, int h, int w);
uint64_t model_random(uint64_t *state);
/* Allocates value/grad/velocity; uniform in +-bound, or `value` when bound
 * is 0; registers it in m->params. */
int model_add_param(model_t *m, param_t *p, int n, int c, int h, int w, float value, float bound, uint64_t *rng);
/* Allocates the running statistics (mean 0, var 1); registers them. */
int model_add_stats(model_t *m, bn_stats_t *s, int channels);
/* Tells the caller that `what` (a param index or MODEL_STATS_READY) is ready. */
void model_ready(model_t *m, int what);
/* Batch-norm training forward with the model's statistics policy. */
cudnnStatus_t model_bn_forward_training(model_t *m, bn_stats_t *s, cudnnTensorDescriptor_t x_desc, const float *x,
                                        float *y, const param_t *scale, const param_t *bias, float *saved_mean,
                                        float *saved_invvar);
/* Frees the buffers of the common part (the networks free their own). */
void model_free_common(model_t *m);
void model_free_param(param_t *p);
void model_free_stats(bn_stats_t *s);

#endif
