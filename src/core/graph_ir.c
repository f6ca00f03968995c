/* SPDX-License-Identifier: Apache-2.0
 * Operand lists and names of graph operations.  See graph_ir.h. */
#include "core/graph_ir.h"

static void
add(int *list, int *n, int t)
{
    if (t != FDNN_GRAPH_NONE)
        list[(*n)++] = t;
}

void
fdnn_graph_node_operands(const fdnn_graph_node_t *n, int *in, int *nin, int *out, int *nout)
{
    *nin = *nout = 0;
    switch (n->kind) {
    case FDNN_GOP_CONV_FWD: {
        const fdnn_gop_conv_t *c = &n->u.conv;
        add(in, nin, c->x), add(in, nin, c->w), add(out, nout, c->y);
        break;
    }
    case FDNN_GOP_CONV_BWD_DATA: {
        const fdnn_gop_conv_t *c = &n->u.conv;
        add(in, nin, c->y), add(in, nin, c->w), add(out, nout, c->x);
        break;
    }
    case FDNN_GOP_CONV_BWD_FILTER: {
        const fdnn_gop_conv_t *c = &n->u.conv;
        add(in, nin, c->x), add(in, nin, c->y), add(out, nout, c->w);
        break;
    }
    case FDNN_GOP_MATMUL: {
        const fdnn_gop_matmul_t *m = &n->u.matmul;
        add(in, nin, m->a), add(in, nin, m->b), add(in, nin, m->m_override), add(in, nin, m->n_override),
            add(in, nin, m->k_override), add(out, nout, m->c);
        break;
    }
    case FDNN_GOP_POINTWISE: {
        const fdnn_gop_pointwise_t *p = &n->u.pointwise;
        add(in, nin, p->x), add(in, nin, p->b), add(in, nin, p->t), add(in, nin, p->dy);
        add(out, nout, p->y), add(out, nout, p->dx);
        break;
    }
    case FDNN_GOP_REDUCTION: add(in, nin, n->u.reduction.x), add(out, nout, n->u.reduction.y); break;
    case FDNN_GOP_GEN_STATS: {
        const fdnn_gop_gen_stats_t *g = &n->u.gen_stats;
        add(in, nin, g->x), add(out, nout, g->sum), add(out, nout, g->sqsum);
        break;
    }
    case FDNN_GOP_BN_FINALIZE: {
        const fdnn_gop_bn_finalize_t *b = &n->u.bn_finalize;
        add(in, nin, b->y_sum), add(in, nin, b->y_sq_sum), add(in, nin, b->scale), add(in, nin, b->bias);
        add(in, nin, b->prev_running_mean), add(in, nin, b->prev_running_var);
        add(in, nin, b->accum_count), add(in, nin, b->epsilon), add(in, nin, b->exp_avg_factor);
        add(out, nout, b->updated_running_mean), add(out, nout, b->updated_running_var);
        add(out, nout, b->saved_mean), add(out, nout, b->saved_inv_std), add(out, nout, b->eq_scale),
            add(out, nout, b->eq_bias);
        break;
    }
    case FDNN_GOP_BN_BWD_WEIGHTS: {
        const fdnn_gop_bn_bwd_weights_t *b = &n->u.bn_bwd_weights;
        add(in, nin, b->mean), add(in, nin, b->inv_std), add(in, nin, b->bn_scale), add(in, nin, b->x),
            add(in, nin, b->dy);
        add(out, nout, b->dbn_scale), add(out, nout, b->dbn_bias), add(out, nout, b->eq_dy_scale),
            add(out, nout, b->eq_x_scale), add(out, nout, b->eq_bias);
        break;
    }
    case FDNN_GOP_NORM_FWD: {
        const fdnn_gop_norm_fwd_t *f = &n->u.norm_fwd;
        add(in, nin, f->x), add(in, nin, f->scale), add(in, nin, f->bias), add(in, nin, f->epsilon),
            add(in, nin, f->exp_avg_factor), add(in, nin, f->input_running_mean), add(in, nin, f->input_running_var);
        for (int i = 0; i < f->npeer; i++)
            add(in, nin, f->peer_stats[i]);
        /* mean / inv_variance are outputs in training, inputs in inference */
        if (f->phase == CUDNN_NORM_FWD_INFERENCE)
            add(in, nin, f->mean), add(in, nin, f->inv_variance);
        else
            add(out, nout, f->mean), add(out, nout, f->inv_variance);
        add(out, nout, f->output_running_mean), add(out, nout, f->output_running_var), add(out, nout, f->y);
        break;
    }
    case FDNN_GOP_NORM_BWD: {
        const fdnn_gop_norm_bwd_t *b = &n->u.norm_bwd;
        add(in, nin, b->x), add(in, nin, b->mean), add(in, nin, b->inv_variance), add(in, nin, b->dy),
            add(in, nin, b->scale), add(in, nin, b->epsilon);
        for (int i = 0; i < b->npeer; i++)
            add(in, nin, b->peer_stats[i]);
        add(out, nout, b->dscale), add(out, nout, b->dbias), add(out, nout, b->dx);
        break;
    }
    case FDNN_GOP_RESAMPLE_FWD: {
        const fdnn_gop_resample_t *r = &n->u.resample;
        add(in, nin, r->x), add(out, nout, r->y), add(out, nout, r->idx);
        break;
    }
    case FDNN_GOP_RESAMPLE_BWD: {
        const fdnn_gop_resample_t *r = &n->u.resample;
        add(in, nin, r->dy), add(in, nin, r->idx), add(in, nin, r->x), add(in, nin, r->y), add(out, nout, r->dx);
        break;
    }
    case FDNN_GOP_RESHAPE: add(in, nin, n->u.reshape.x), add(out, nout, n->u.reshape.y); break;
    case FDNN_GOP_CONCAT: {
        const fdnn_gop_concat_t *c = &n->u.concat;
        for (int i = 0; i < c->ninputs; i++)
            add(in, nin, c->inputs[i]);
        add(out, nout, c->y);
        break;
    }
    case FDNN_GOP_RNG: {
        const fdnn_gop_rng_t *r = &n->u.rng;
        add(in, nin, r->seed_tensor), add(in, nin, r->offset), add(out, nout, r->y);
        break;
    }
    case FDNN_GOP_SIGNAL: {
        const fdnn_gop_signal_t *s = &n->u.signal;
        add(in, nin, s->x), add(in, nin, s->flag), add(out, nout, s->y);
        break;
    }
    case FDNN_GOP_COUNT: break;
    }
}

const char *
fdnn_graph_op_name(fdnn_graph_op_kind_t kind)
{
    static const char *const names[FDNN_GOP_COUNT] = {
        "conv_fwd",   "conv_bwd_data",  "conv_bwd_filter", "matmul",       "pointwise",    "reduction",
        "gen_stats",  "bn_finalize",    "bn_bwd_weights",  "norm_fwd",     "norm_bwd",     "resample_fwd",
        "resample_bwd", "reshape",      "concat",          "rng",          "signal",
    };
    return (unsigned)kind < FDNN_GOP_COUNT ? names[kind] : "?";
}
