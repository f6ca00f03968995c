/* SPDX-License-Identifier: Apache-2.0
 * The network, built only from cuDNN calls on "device" buffers:
 *
 *   x[N,1,28,28]
 *   conv1 3x3 pad 1 -> 32   BN  ReLU  maxpool 2x2   -> [N,32,14,14]
 *   conv2 3x3 pad 1 -> 64   BN  ReLU  maxpool 2x2   -> [N,64,7,7]
 *   fc1 as a 7x7 convolution -> 128 (+bias)  ReLU   -> [N,128,1,1]
 *   fc2 as a 1x1 convolution -> 10  (+bias)         -> [N,10,1,1]
 *   log-softmax over the 10 classes, negative log-likelihood loss
 *
 * Training is SGD with momentum, written with cudnnAddTensor. */
#ifndef FASHION_NET_H
#define FASHION_NET_H

#include <stdint.h>
#include <stdio.h>

#include <cudnn.h>

#define NET_CLASSES 10

typedef struct net net_t;

typedef struct net_config {
    int batch;
    float learning_rate;
    float momentum;
    float weight_decay;
    uint64_t seed;
} net_config_t;

/* NULL on failure (with a message on stderr). */
net_t *net_create(cudnnHandle_t handle, const net_config_t *cfg);
void net_destroy(net_t *net);

/* One SGD step on a batch: `images` are cfg.batch host images of 28x28 bytes,
 * `labels` their classes.  Returns the mean loss of the batch, or a negative
 * value on a cuDNN failure. */
double net_train_step(net_t *net, const uint8_t *images, const uint8_t *labels);

/* Inference (batch-norm with running statistics) on cfg.batch images; writes
 * the predicted class of each to `pred` and the log-probabilities to
 * `logp` (batch x 10) if not NULL.  Returns 0 or -1. */
int net_predict(net_t *net, const uint8_t *images, uint8_t *pred, float *logp);

/* All parameters and batch-norm statistics, in a fixed order. */
int net_save(net_t *net, FILE *f);
int net_load(net_t *net, FILE *f);

/* FNV-1a hash of all parameters' bytes (for the determinism check). */
uint64_t net_param_hash(net_t *net);

#endif
