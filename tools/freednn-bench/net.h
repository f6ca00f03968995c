/* SPDX-License-Identifier: Apache-2.0
 * freednn-bench --net: whole networks.  A network is a list of nodes in
 * execution order; each node makes one tensor (its index) from one or two
 * earlier nodes' tensors.  The same list drives the three sides of the
 * comparison: FreeDNN through the cuDNN API (net_cudnn.c), oneDNN primitives
 * chained the same way (net_onednn.c), and PyTorch (net_torch.py, which reads
 * the list as text, so the three run the same layers by construction). */
#ifndef FDNN_BENCH_NET_H
#define FDNN_BENCH_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum net_op {
    NET_INPUT,   /* the images: c x h x w */
    NET_CONV,    /* k x k, stride, pad, groups; no bias (a BN follows) */
    NET_BN,      /* per-channel batch normalization (training: batch stats) */
    NET_RELU,    /* max(x, 0), in a buffer of its own */
    NET_RELU6,   /* min(max(x, 0), 6): cuDNN's CLIPPED_RELU, coef 6 */
    NET_MAXPOOL, /* k x k, stride, pad */
    NET_GAP,     /* global average pooling to 1 x 1 */
    NET_ADD,     /* in[0] + in[1] (residual) */
    NET_FC,      /* fully connected with bias: c outputs from a 1 x 1 input */
    NET_OP_COUNT
} net_op_t;

typedef struct net_node {
    net_op_t op;
    int in[2];   /* producing nodes (-1: unused) */
    int c, h, w; /* this node's tensor, per image */
    int k, stride, pad, groups;
} net_node_t;

typedef struct net {
    const char *name;
    int count, capacity;
    net_node_t *nodes;
} net_t;

/* Builds a network by name ("resnet50", "mobilenet_v2") for 224 x 224 RGB
 * images and 1000 classes; returns false for an unknown name. */
bool net_build(const char *name, net_t *net);
void net_free(net_t *net);

const char *net_op_name(net_op_t op);

/* One line per node: "id op in0 in1 c h w k stride pad groups". */
void net_write_spec(const net_t *net, FILE *f);

/* How many nodes read node i's tensor. */
int net_consumers(const net_t *net, int i);

/* Whether the residual add `i` runs in place, as a cuDNN program does it
 * (cudnnAddTensor with beta = 1 into its first input, which nothing else
 * reads): its tensor and gradient are those of in[0]. */
bool net_add_in_place(const net_t *net, int i);

/* Whether, in the backward, in[1] of the in-place add `i` takes the add's
 * gradient as its own (no copy): the add is its only reader. */
bool net_add_shares_second(const net_t *net, int i);

/* Whether BN node i runs with its ReLU fused (net_run_t.fuse): node i + 1 is
 * a ReLU of it and its only reader.  The FreeDNN side then calls
 * cudnnBatchNormalizationForwardTrainingEx / BackwardEx with
 * CUDNN_BATCHNORM_OPS_BN_ACTIVATION (cudnnNormalizationForwardInference with
 * CUDNN_NORM_OPS_NORM_ACTIVATION for inference), as TensorFlow's cuDNN path
 * does; oneDNN's batch normalization takes its fuse_norm_relu flag.  The
 * ReLU node's tensor and gradient are then the BN node's. */
bool net_bn_relu_fusable(const net_t *net, int i);

/* Multiply-adds of one image's forward pass (conv and FC). */
double net_forward_macs(const net_t *net);

/* What a run measures. */
typedef struct net_run {
    int mb, threads, iters;
    bool train; /* forward + backward + weight gradients; else inference */
    bool profile; /* print the time per op kind and direction */
    bool cpu_clock; /* time by CPU time (for runs on a busy machine: other
                     * jobs' time is not counted): the calling thread's at
                     * 1 thread, the process's at more (net_clock_ms) */
    bool nhwc;      /* FreeDNN side: NHWC tensors and KRSC filters */
    bool fuse;      /* BN + ReLU fused on both sides (net_bn_relu_fusable) */
} net_run_t;

/* Now, in ms, on the run's clock (wall or process CPU time). */
double net_clock_ms(const net_run_t *run);

/* The result of one side: the median step time and the final loss (training;
 * the mean logit for inference) so the sides can be checked for sanity. */
typedef struct net_result {
    double median_ms;
    double check;
    double grad_norm; /* training: the 2-norm of every conv / FC weight gradient */
    bool ok;
    char why[160];
} net_result_t;

/* Each side runs in a child process of its own (net_main.c), so its peak RSS
 * is its own; these run inside that child. */
net_result_t net_run_cudnn(const net_t *net, const net_run_t *run);
net_result_t net_run_onednn(const net_t *net, const net_run_t *run);

/* The `freednn-bench --net ...` entry point. */
int net_main(int argc, char **argv);

#endif /* FDNN_BENCH_NET_H */
