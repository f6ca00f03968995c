/* SPDX-License-Identifier: Apache-2.0
 * freednn-bench --net --profile nodes: where the step loses.  Every node's
 * time per direction on both sides (net_node_prof_t, ms per step), summed
 * over the nodes of the same layer shape, one row per shape, sorted by
 * FreeDNN - oneDNN (the largest loss first).  Ratios are oneDNN / FreeDNN
 * (> 1: FreeDNN is faster), as on the issue-format line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

typedef struct group {
    char label[64];
    char algos[48]; /* FreeDNN: fwd/bwd_data/bwd_weights; "mixed" if the nodes differ */
    char impl[24];  /* oneDNN: the forward's implementation */
    int nodes;
    double ours[NET_DIRS], theirs[NET_DIRS], aux;
} group_t;

/* The layer shape: what makes two nodes the same work. */
static void
label(const net_t *net, const net_run_t *run, int i, char *out, size_t size)
{
    const net_node_t *n = &net->nodes[i];
    const net_node_t *x = n->in[0] >= 0 ? &net->nodes[n->in[0]] : n;
    switch (n->op) {
    case NET_CONV:
        if (n->groups > 1 && n->groups == x->c && n->groups == n->c)
            snprintf(out, size, "conv dw %dx%d %d s%d %dx%d", n->k, n->k, n->c, n->stride, x->h, x->w);
        else
            snprintf(out, size, "conv %dx%d %d->%d s%d%s %dx%d", n->k, n->k, x->c, n->c, n->stride,
                     n->groups > 1 ? " grouped" : "", x->h, x->w);
        break;
    case NET_FC:
        snprintf(out, size, "fc %d->%d", x->c, n->c);
        break;
    case NET_BN:
        snprintf(out, size, "bn%s %d %dx%d", run->fuse && net_bn_relu_fusable(net, i) ? "+relu" : "", n->c, n->h, n->w);
        break;
    case NET_MAXPOOL:
        snprintf(out, size, "maxpool %dx%d s%d %dx%d", n->k, n->k, n->stride, x->h, x->w);
        break;
    default:
        snprintf(out, size, "%s %d %dx%d", net_op_name(n->op), n->c, n->h, n->w);
        break;
    }
}

static double
total(const double *ms)
{
    return ms[NET_FWD] + ms[NET_BWD_DATA] + ms[NET_BWD_WEIGHTS];
}

static int
by_loss(const void *a, const void *b)
{
    const group_t *x = a, *y = b;
    double lx = total(x->ours) - total(x->theirs), ly = total(y->ours) - total(y->theirs);
    return lx > ly ? -1 : lx < ly;
}

static void
cell(double ours, double theirs, bool have_theirs)
{
    if (ours <= 0 && theirs <= 0)
        printf(" %7s %7s %5s", "-", "-", "-");
    else if (!have_theirs)
        printf(" %7.2f %7s %5s", ours, "-", "-");
    else
        printf(" %7.2f %7.2f %5.2f", ours, theirs, ours > 0 ? theirs / ours : 0.0);
}

void
net_print_node_table(const net_t *net, const net_run_t *run, const char *title, const net_node_prof_t *ours,
                     double ours_step_ms, const net_node_prof_t *theirs, double theirs_step_ms)
{
    group_t *g = calloc((size_t)net->count, sizeof(group_t));
    if (g == NULL)
        return;
    int ng = 0;
    for (int i = 1; i < net->count; i++) {
        const net_node_t *n = &net->nodes[i];
        if (run->fuse && n->op == NET_RELU && net_bn_relu_fusable(net, i - 1))
            continue; /* done by its BN on both sides */
        char lab[64], algos[48] = "";
        label(net, run, i, lab, sizeof(lab));
        if (n->op == NET_CONV || n->op == NET_FC)
            snprintf(algos, sizeof(algos), "%s/%s/%s", net_cudnn_algo_name(NET_FWD, ours[i].algo[NET_FWD]),
                     net_cudnn_algo_name(NET_BWD_DATA, ours[i].algo[NET_BWD_DATA]),
                     net_cudnn_algo_name(NET_BWD_WEIGHTS, ours[i].algo[NET_BWD_WEIGHTS]));
        int k = 0;
        while (k < ng && strcmp(g[k].label, lab) != 0)
            k++;
        if (k == ng) {
            ng++;
            snprintf(g[k].label, sizeof(g[k].label), "%s", lab);
            snprintf(g[k].algos, sizeof(g[k].algos), "%s", algos);
            if (theirs != NULL)
                snprintf(g[k].impl, sizeof(g[k].impl), "%s", theirs[i].impl[NET_FWD]);
        } else if (strcmp(g[k].algos, algos) != 0) {
            snprintf(g[k].algos, sizeof(g[k].algos), "mixed");
        }
        g[k].nodes++;
        for (int d = 0; d < NET_DIRS; d++) {
            g[k].ours[d] += ours[i].ms[d];
            g[k].theirs[d] += theirs != NULL ? theirs[i].ms[d] : 0.0;
            g[k].aux += theirs != NULL ? theirs[i].aux_ms[d] : 0.0;
        }
    }
    qsort(g, (size_t)ng, sizeof(group_t), by_loss);
    bool have = theirs != NULL;
    printf("# per-node profile, %s: ms per step summed over the nodes of each shape, FreeDNN vs oneDNN and\n"
           "# oneDNN/FreeDNN; oneDNN's times include its reorders and gradient sums (column reord); sorted by\n"
           "# FreeDNN - oneDNN; algorithms: FreeDNN's cuDNN fwd/bwd_data/bwd_filter, oneDNN's forward impl\n",
           title);
    printf("# %-30s %3s %8s %8s %7s | %-21s| %-21s| %-21s| %7s %7s %7s | %-34s %s\n", "shape", "n", "F total",
           "O total", "F-O", "fwd F / O / ratio", "bwd_data F / O / r", "bwd_w F / O / r", "O reord", "F step",
           "O step", "FreeDNN algos", "oneDNN fwd impl");
    double sum_ours = 0, sum_theirs = 0, sum_aux = 0;
    for (int k = 0; k < ng; k++) {
        double to = total(g[k].ours), tt = total(g[k].theirs);
        sum_ours += to, sum_theirs += tt, sum_aux += g[k].aux;
        printf("  %-30s %3d %8.2f", g[k].label, g[k].nodes, to);
        if (have)
            printf(" %8.2f %7.2f |", tt, to - tt);
        else
            printf(" %8s %7s |", "-", "-");
        for (int d = 0; d < NET_DIRS; d++) {
            cell(g[k].ours[d], g[k].theirs[d], have);
            printf(" |");
        }
        printf(" %7.2f %7s %7s | %-34s %s\n", g[k].aux, "", "", g[k].algos[0] ? g[k].algos : "-",
               g[k].impl[0] ? g[k].impl : "-");
    }
    printf("  %-30s %3s %8.2f", "all nodes", "", sum_ours);
    if (have)
        printf(" %8.2f %7.2f |", sum_theirs, sum_ours - sum_theirs);
    else
        printf(" %8s %7s |", "-", "-");
    printf(" %21s| %21s| %21s| %7.2f %7.2f %7.2f | (step - all nodes: the loss, the clock reads, the rest)\n", "", "",
           "", sum_aux, ours_step_ms, have ? theirs_step_ms : 0.0);
    free(g);
}
