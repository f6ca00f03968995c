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
    bool profile_nodes; /* and per node (--profile nodes): net_node_prof_t */
    bool cpu_clock; /* time by CPU time (for runs on a busy machine: other
                     * jobs' time is not counted): the calling thread's at
                     * 1 thread, the process's at more (net_clock_ms) */
    bool nhwc;      /* FreeDNN side: NHWC tensors and KRSC filters */
    bool fuse;      /* BN + ReLU fused on both sides (net_bn_relu_fusable) */
} net_run_t;

/* Now, in ms, on the run's clock (wall or process CPU time). */
double net_clock_ms(const net_run_t *run);

/* The result of one side: the step time (one step's, from net_side_api_t.step;
 * the median, in the parent's reports) and the final loss (training; the mean
 * logit for inference) so the sides can be checked for sanity. */
typedef struct net_result {
    double median_ms;
    double check;
    double grad_norm; /* training: the 2-norm of every conv / FC weight gradient */
    bool ok;
    char why[160];
} net_result_t;

/* Directions of a node's work: forward, backward data (the only backward of
 * a node without weights), backward weights. */
enum { NET_FWD, NET_BWD_DATA, NET_BWD_WEIGHTS, NET_DIRS };

/* --profile: one node's time per direction, ms per timed step.  On the
 * oneDNN side ms includes aux_ms, the reorders and gradient sums that the
 * node's primitives asked for (part of its step, so part of the gap). */
typedef struct net_node_prof {
    double ms[NET_DIRS];
    double aux_ms[NET_DIRS];
    int algo[NET_DIRS];          /* FreeDNN: the cuDNN algorithm (-1: none) */
    char impl[NET_DIRS][24];     /* oneDNN: the primitive's implementation */
} net_node_prof_t;

/* One side of the comparison, driven step by step (net_main.c runs each in a
 * child process of its own, so its peak RSS is its own, and alternates the
 * sides' steps through pipes):
 *   open   descriptors, buffers, one untimed warm-up step; NULL on failure
 *          (the reason in r->why)
 *   step   one timed step: its time on the run's clock in *ms, the loss (or
 *          mean logit) in r->check; false on failure (r->why)
 *   close  the weight-gradient norm into r->grad_norm, the per-op-kind
 *          profile printed (--profile), the per-node profile, averaged over
 *          the timed steps, into nodes[net->count] when nodes is not NULL;
 *          frees everything */
typedef struct net_side_api {
    void *(*open)(const net_t *net, const net_run_t *run, net_result_t *r);
    bool (*step)(void *side, double *ms, net_result_t *r);
    void (*close)(void *side, net_result_t *r, net_node_prof_t *nodes);
} net_side_api_t;

extern const net_side_api_t net_cudnn_api, net_onednn_api;

/* Short names of the cuDNN algorithms (net_cudnn.c), for the node table. */
const char *net_cudnn_algo_name(int dir, int algo);

/* A side in a child process of its own, driven step by step (net_child.c). */
typedef struct net_child {
    int pid, to, from;
    bool alive;
    const net_t *net;
    const net_run_t *run;
    net_result_t result; /* the last answer: ok, or why the side failed */
} net_child_t;

/* Starts the child, which opens the side (setup, warm-up); false, with the
 * reason in ch->result.why, if it could not. */
bool net_child_open(net_child_t *ch, const net_side_api_t *api, const net_t *net, const net_run_t *run);
/* One timed step; its time in *ms.  False if the side failed (ch->result). */
bool net_child_step(net_child_t *ch, double *ms);
/* Ends the child (any state): r gets its last result with check and
 * grad_norm; peak_rss_kib and (with run->profile) nodes[net->count] its
 * report.  False if it did not report. */
bool net_child_close(net_child_t *ch, net_result_t *r, long *peak_rss_kib, net_node_prof_t *nodes);

/* --profile nodes: the per-node table of one FreeDNN layout against oneDNN
 * (theirs NULL: FreeDNN alone), grouped by layer shape and sorted by the
 * FreeDNN - oneDNN time (net_nodes.c). */
void net_print_node_table(const net_t *net, const net_run_t *run, const char *title, const net_node_prof_t *ours,
                          double ours_step_ms, const net_node_prof_t *theirs, double theirs_step_ms);

/* The `freednn-bench --net ...` entry point. */
int net_main(int argc, char **argv);

#endif /* FDNN_BENCH_NET_H */
