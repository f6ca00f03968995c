/* SPDX-License-Identifier: Apache-2.0
 * The networks of freednn-bench --net, as node lists (net.h): ResNet-50 as
 * torchvision builds it (v1.5: the stride on the 3 x 3 of each bottleneck)
 * and MobileNet v2 (torchvision's inverted-residual table, width 1.0,
 * classifier dropout left out: it is the identity at inference and costs
 * nothing measurable in training). */
#include <stdlib.h>
#include <string.h>

#include "net.h"

static const char *const op_names[NET_OP_COUNT] = {
    [NET_INPUT] = "input", [NET_CONV] = "conv",   [NET_BN] = "bn",   [NET_RELU] = "relu", [NET_RELU6] = "relu6",
    [NET_MAXPOOL] = "maxpool", [NET_GAP] = "gap", [NET_ADD] = "add", [NET_FC] = "fc",
};

const char *
net_op_name(net_op_t op)
{
    return op < NET_OP_COUNT ? op_names[op] : "?";
}

/* Appends a node; returns its index.  Shapes follow from the input's. */
static int
add(net_t *net, net_op_t op, int in0, int in1, int c, int k, int stride, int pad, int groups)
{
    if (net->count == net->capacity) {
        net->capacity = net->capacity ? 2 * net->capacity : 64;
        net->nodes = realloc(net->nodes, (size_t)net->capacity * sizeof(*net->nodes));
        if (net->nodes == NULL)
            abort(); /* a tool: out of memory for a few hundred nodes is fatal */
    }
    net_node_t n = {op, {in0, in1}, c, 0, 0, k, stride, pad, groups};
    if (in0 >= 0) {
        const net_node_t *x = &net->nodes[in0];
        n.h = x->h, n.w = x->w;
        if (op == NET_CONV || op == NET_MAXPOOL) {
            n.h = (x->h + 2 * pad - k) / stride + 1;
            n.w = (x->w + 2 * pad - k) / stride + 1;
        } else if (op == NET_GAP || op == NET_FC) {
            n.h = n.w = 1;
        }
        if (op != NET_CONV && op != NET_FC)
            n.c = x->c;
    }
    net->nodes[net->count] = n;
    return net->count++;
}

static int
conv(net_t *net, int x, int c, int k, int stride, int groups)
{
    return add(net, NET_CONV, x, -1, c, k, stride, k / 2, groups);
}

static int
unary(net_t *net, net_op_t op, int x)
{
    return add(net, op, x, -1, 0, 0, 1, 0, 1);
}

/* conv -> BN (-> activation when act != NET_INPUT). */
static int
conv_bn(net_t *net, int x, int c, int k, int stride, int groups, net_op_t act)
{
    int y = unary(net, NET_BN, conv(net, x, c, k, stride, groups));
    return act == NET_INPUT ? y : unary(net, act, y);
}

static int
bottleneck(net_t *net, int x, int width, int stride)
{
    int in_c = net->nodes[x].c, out_c = 4 * width;
    int a = conv_bn(net, x, width, 1, 1, 1, NET_RELU);
    int b = conv_bn(net, a, width, 3, stride, 1, NET_RELU);
    int c = conv_bn(net, b, out_c, 1, 1, 1, NET_INPUT);
    int skip = x;
    if (stride != 1 || in_c != out_c)
        skip = conv_bn(net, x, out_c, 1, stride, 1, NET_INPUT);
    return unary(net, NET_RELU, add(net, NET_ADD, c, skip, 0, 0, 1, 0, 1));
}

static void
resnet50(net_t *net)
{
    int x = add(net, NET_INPUT, -1, -1, 3, 0, 1, 0, 1);
    net->nodes[x].h = net->nodes[x].w = 224;
    x = conv_bn(net, x, 64, 7, 2, 1, NET_RELU);
    x = add(net, NET_MAXPOOL, x, -1, 0, 3, 2, 1, 1);
    static const int widths[4] = {64, 128, 256, 512}, blocks[4] = {3, 4, 6, 3};
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < blocks[s]; b++)
            x = bottleneck(net, x, widths[s], b == 0 && s > 0 ? 2 : 1);
    add(net, NET_FC, unary(net, NET_GAP, x), -1, 1000, 0, 1, 0, 1);
}

static int
inverted_residual(net_t *net, int x, int out_c, int stride, int expand)
{
    int in_c = net->nodes[x].c, hidden = in_c * expand, y = x;
    if (expand != 1)
        y = conv_bn(net, y, hidden, 1, 1, 1, NET_RELU6);
    y = conv_bn(net, y, hidden, 3, stride, hidden, NET_RELU6);
    y = conv_bn(net, y, out_c, 1, 1, 1, NET_INPUT);
    return stride == 1 && in_c == out_c ? add(net, NET_ADD, y, x, 0, 0, 1, 0, 1) : y;
}

static void
mobilenet_v2(net_t *net)
{
    int x = add(net, NET_INPUT, -1, -1, 3, 0, 1, 0, 1);
    net->nodes[x].h = net->nodes[x].w = 224;
    x = conv_bn(net, x, 32, 3, 2, 1, NET_RELU6);
    /* expansion t, channels c, repeats n, first stride s */
    static const int table[7][4] = {{1, 16, 1, 1},  {6, 24, 2, 2},  {6, 32, 3, 2},  {6, 64, 4, 2},
                                    {6, 96, 3, 1},  {6, 160, 3, 2}, {6, 320, 1, 1}};
    for (int r = 0; r < 7; r++)
        for (int i = 0; i < table[r][2]; i++)
            x = inverted_residual(net, x, table[r][1], i == 0 ? table[r][3] : 1, table[r][0]);
    x = conv_bn(net, x, 1280, 1, 1, 1, NET_RELU6);
    add(net, NET_FC, unary(net, NET_GAP, x), -1, 1000, 0, 1, 0, 1);
}

bool
net_build(const char *name, net_t *net)
{
    memset(net, 0, sizeof(*net));
    if (strcmp(name, "resnet50") == 0) {
        net->name = "resnet50";
        resnet50(net);
    } else if (strcmp(name, "mobilenet_v2") == 0) {
        net->name = "mobilenet_v2";
        mobilenet_v2(net);
    } else {
        return false;
    }
    return true;
}

void
net_free(net_t *net)
{
    free(net->nodes);
    memset(net, 0, sizeof(*net));
}

void
net_write_spec(const net_t *net, FILE *f)
{
    for (int i = 0; i < net->count; i++) {
        const net_node_t *n = &net->nodes[i];
        fprintf(f, "%d %s %d %d %d %d %d %d %d %d %d\n", i, net_op_name(n->op), n->in[0], n->in[1], n->c, n->h, n->w,
                n->k, n->stride, n->pad, n->groups);
    }
}

double
net_forward_macs(const net_t *net)
{
    double macs = 0;
    for (int i = 0; i < net->count; i++) {
        const net_node_t *n = &net->nodes[i];
        if (n->op == NET_CONV || n->op == NET_FC) {
            const net_node_t *x = &net->nodes[n->in[0]];
            int k = n->op == NET_CONV ? n->k : x->h;
            macs += (double)n->c * n->h * n->w * (x->c / n->groups) * k * k;
        }
    }
    return macs;
}

int
net_consumers(const net_t *net, int i)
{
    int n = 0;
    for (int j = i + 1; j < net->count; j++)
        n += (net->nodes[j].in[0] == i) + (net->nodes[j].in[1] == i);
    return n;
}

bool
net_add_in_place(const net_t *net, int i)
{
    const net_node_t *n = &net->nodes[i], *a = &net->nodes[n->in[0]];
    return n->op == NET_ADD && n->in[0] > 0 && n->in[0] != n->in[1] && net_consumers(net, n->in[0]) == 1 &&
           a->c == n->c && a->h == n->h && a->w == n->w;
}

bool
net_add_shares_second(const net_t *net, int i)
{
    const net_node_t *n = &net->nodes[i];
    return net_add_in_place(net, i) && n->in[1] > 0 && net_consumers(net, n->in[1]) == 1;
}

bool
net_bn_relu_fusable(const net_t *net, int i)
{
    return i > 0 && i + 1 < net->count && net->nodes[i].op == NET_BN && net->nodes[i + 1].op == NET_RELU &&
           net->nodes[i + 1].in[0] == i && net_consumers(net, i) == 1;
}
