/* SPDX-License-Identifier: Apache-2.0
 * Operation graphs, engines, engine configs, heuristics, execution plans,
 * variant packs and cudnnBackendExecute.
 *
 * OPERATIONGRAPH finalize turns its operations into one fdnn_graph_t
 * (graph_ir.h): tensors gathered by UID (two different tensors with one UID
 * are refused), nodes sorted producers first (a cycle, a tensor written
 * twice, a virtual tensor nobody writes are refused).  The engines are the
 * ordered table of src/cpu/graph (fdnn_graph_engines); heuristics are that
 * order filtered by each engine's `supports`, the conv-solver engines in
 * _v7's order (fdnn_graph_heuristic). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/backend/be_desc.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor.h"

#define ATTR(x) CUDNN_ATTR_##x

cudnnStatus_t fdnn_be_fill_info(fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                                int64_t count, const void *elems);

void
fdnn_be_free_derived(fdnn_be_desc_t *d)
{
    if (!d->finalized)
        return;
    switch (d->type) {
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
        free(d->u.graph.g.tensors);
        free(d->u.graph.g.nodes);
        break;
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: free(d->u.heur.results); break;
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: fdnn_be_destroy(d->u.plan.cfg); break;
    default: break;
    }
}

/* ---- OPERATIONGRAPH -------------------------------------------------------- */

typedef struct gather {
    fdnn_graph_tensor_t *tensors;
    int n, cap;
    cudnnStatus_t status;
} gather_t;

static bool
same_tensor(const fdnn_graph_tensor_t *a, const fdnn_graph_tensor_t *b)
{
    if (a->dtype != b->dtype || a->ndim != b->ndim || a->is_virtual != b->is_virtual || a->by_value != b->by_value ||
        a->vector_count != b->vector_count || a->reordering != b->reordering)
        return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i] || a->strides[i] != b->strides[i])
            return false;
    return true;
}

static int
gather_index(void *ctx, const fdnn_be_desc_t *td)
{
    gather_t *g = ctx;
    const fdnn_graph_tensor_t *t = &td->u.tensor;
    for (int i = 0; i < g->n; i++) {
        if (g->tensors[i].uid == t->uid) {
            if (!same_tensor(&g->tensors[i], t) && g->status == CUDNN_STATUS_SUCCESS)
                g->status = FDNN_BAD_PARAM("CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: two different tensors have "
                                           "CUDNN_ATTR_TENSOR_UNIQUE_ID %lld",
                                           (long long)t->uid);
            return i;
        }
    }
    if (g->n == g->cap) {
        int cap = g->cap ? 2 * g->cap : 16;
        fdnn_graph_tensor_t *p = realloc(g->tensors, (size_t)cap * sizeof(*p));
        if (p == NULL) {
            if (g->status == CUDNN_STATUS_SUCCESS)
                g->status = FDNN_ALLOC_FAILED("no memory for the tensors of an operation graph");
            return 0;
        }
        g->tensors = p, g->cap = cap;
    }
    g->tensors[g->n] = *t;
    return g->n++;
}

static cudnnStatus_t
sort_nodes(fdnn_graph_t *g, fdnn_graph_node_t *in)
{
    const char *dn = "CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR";
    int *writer = malloc((size_t)g->ntensors * sizeof(int));
    bool *done = calloc((size_t)g->nnodes + 1, sizeof(bool));
    g->nodes = malloc((size_t)g->nnodes * sizeof(*g->nodes));
    if (writer == NULL || done == NULL || g->nodes == NULL) {
        free(writer), free(done);
        return FDNN_ALLOC_FAILED("no memory to sort an operation graph");
    }
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    for (int t = 0; t < g->ntensors; t++)
        writer[t] = -1;
    int ins[FDNN_GRAPH_MAX_INPUTS + 16], outs[FDNN_GRAPH_MAX_INPUTS + 16], nin = 0, nout = 0;
    for (int k = 0; k < g->nnodes && st == CUDNN_STATUS_SUCCESS; k++) {
        fdnn_graph_node_operands(&in[k], ins, &nin, outs, &nout);
        for (int j = 0; j < nout; j++) {
            int t = outs[j];
            if (writer[t] >= 0) {
                st = FDNN_BAD_PARAM("%s: tensor uid %lld is written by operation %d (%s) and operation %d (%s)", dn,
                                    (long long)g->tensors[t].uid, writer[t], fdnn_graph_op_name(in[writer[t]].kind),
                                    k, fdnn_graph_op_name(in[k].kind));
                break;
            }
            if (g->tensors[t].by_value) {
                st = FDNN_BAD_PARAM("%s: operation %d (%s) writes the by-value tensor uid %lld", dn, k,
                                    fdnn_graph_op_name(in[k].kind), (long long)g->tensors[t].uid);
                break;
            }
            writer[t] = k;
        }
    }
    for (int t = 0; t < g->ntensors && st == CUDNN_STATUS_SUCCESS; t++)
        if (g->tensors[t].is_virtual && writer[t] < 0)
            st = FDNN_BAD_PARAM("%s: the virtual tensor uid %lld is read but no operation writes it", dn,
                                (long long)g->tensors[t].uid);
    /* Kahn's order, stable: repeatedly take the first node whose inputs
     * are all graph inputs or written by placed nodes. */
    for (int placed = 0; placed < g->nnodes && st == CUDNN_STATUS_SUCCESS; placed++) {
        int pick = -1;
        for (int k = 0; k < g->nnodes && pick < 0; k++) {
            if (done[k])
                continue;
            fdnn_graph_node_operands(&in[k], ins, &nin, outs, &nout);
            bool ready = true;
            for (int j = 0; j < nin && ready; j++)
                ready = writer[ins[j]] < 0 || done[writer[ins[j]]];
            if (ready)
                pick = k;
        }
        if (pick < 0) {
            st = FDNN_BAD_PARAM("%s: the operations form a cycle (an operation reads, directly or through others, "
                                "what it writes)",
                                dn);
            break;
        }
        done[pick] = true;
        g->nodes[placed] = in[pick];
    }
    free(writer), free(done);
    return st;
}

cudnnStatus_t
fdnn_be_finalize_graph(fdnn_be_desc_t *d)
{
    int64_t nops = 0;
    fdnn_be_desc_t *const *ops = fdnn_be_get_descs(d, ATTR(OPERATIONGRAPH_OPS), &nops);
    gather_t ga = {NULL, 0, 0, CUDNN_STATUS_SUCCESS};
    fdnn_graph_node_t *nodes = calloc((size_t)nops, sizeof(*nodes));
    if (nodes == NULL)
        return FDNN_ALLOC_FAILED("no memory for an operation graph");
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    for (int64_t k = 0; k < nops && st == CUDNN_STATUS_SUCCESS; k++) {
        st = fdnn_be_build_node(ops[k], gather_index, &ga, &nodes[k]);
        if (st == CUDNN_STATUS_SUCCESS)
            st = ga.status;
    }
    fdnn_graph_t *g = &d->u.graph.g;
    g->tensors = ga.tensors, g->ntensors = ga.n, g->nnodes = (int)nops;
    if (st == CUDNN_STATUS_SUCCESS)
        st = sort_nodes(g, nodes);
    free(nodes);
    const cudnnHandle_t *h = NULL;
    int slot = fdnn_be_slot(d, ATTR(OPERATIONGRAPH_HANDLE));
    h = d->vals[slot].data;
    d->u.graph.handle = *h;
    return st;
}

/* ---- ENGINE, ENGINECFG ------------------------------------------------------ */

static const fdnn_graph_t *
graph_of(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name)
{
    const fdnn_be_desc_t *gd = fdnn_be_get_desc(d, name);
    return gd ? &gd->u.graph.g : NULL;
}

cudnnStatus_t
fdnn_be_finalize_engine(fdnn_be_desc_t *d)
{
    int64_t idx = -1;
    fdnn_be_get_i64(d, ATTR(ENGINE_GLOBAL_INDEX), &idx);
    const fdnn_graph_engine_t *e = fdnn_graph_engine_by_index(idx);
    if (e == NULL) {
        int n = 0;
        fdnn_graph_engines(&n);
        return FDNN_NOT_SUPPORTED("CUDNN_BACKEND_ENGINE_DESCRIPTOR: CUDNN_ATTR_ENGINE_GLOBAL_INDEX %lld is no engine "
                                  "of FreeDNN (%d engines)",
                                  (long long)idx, n);
    }
    const fdnn_graph_t *g = graph_of(d, ATTR(ENGINE_OPERATION_GRAPH));
    cudnnStatus_t st = e->supports(g);
    if (st != CUDNN_STATUS_SUCCESS) {
        char why[512];
        snprintf(why, sizeof(why), "%s", fdnn_fail_reason()); /* fdnn_fail writes the same buffer */
        return fdnn_fail(st, "CUDNN_BACKEND_ENGINE_DESCRIPTOR: engine %lld (%s) does not run this graph: %s",
                         (long long)idx, e->name, why);
    }
    d->u.engine.eng = e, d->u.engine.g = g;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_be_finalize_cfg(fdnn_be_desc_t *d)
{
    const char *dn = "CUDNN_BACKEND_ENGINECFG_DESCRIPTOR";
    const fdnn_be_desc_t *ed = fdnn_be_get_desc(d, ATTR(ENGINECFG_ENGINE));
    const fdnn_graph_engine_t *e = ed->u.engine.eng;
    fdnn_graph_knobs_t *k = &d->u.cfg.knobs;
    k->count = e->nknobs < 16 ? e->nknobs : 16;
    for (int i = 0; i < k->count; i++)
        k->choice[i] = (fdnn_graph_knob_choice_t){e->knobs[i].type, e->knobs[i].default_value};
    int64_t nc = 0;
    fdnn_be_desc_t *const *choices = fdnn_be_get_descs(d, ATTR(ENGINECFG_KNOB_CHOICES), &nc);
    for (int64_t c = 0; c < nc; c++) {
        int type = 0;
        int64_t value = 0;
        fdnn_be_get_enum(choices[c], ATTR(KNOB_CHOICE_KNOB_TYPE), &type);
        fdnn_be_get_i64(choices[c], ATTR(KNOB_CHOICE_KNOB_VALUE), &value);
        int i = 0;
        while (i < k->count && (int)k->choice[i].type != type)
            i++;
        if (i == k->count)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_ENGINECFG_KNOB_CHOICES[%lld] chooses knob type %d, which engine "
                                  "%lld (%s) does not have",
                                  dn, (long long)c, type, (long long)e->global_index, e->name);
        const fdnn_graph_knob_info_t *ki = &e->knobs[i];
        if (value < ki->min || value > ki->max || (ki->stride > 0 && (value - ki->min) % ki->stride != 0))
            return FDNN_BAD_PARAM("%s: knob type %d of engine %lld (%s) takes %lld to %lld in steps of %lld, not %lld",
                                  dn, type, (long long)e->global_index, e->name, (long long)ki->min,
                                  (long long)ki->max, (long long)ki->stride, (long long)value);
        k->choice[i].value = value;
    }
    d->u.cfg.eng = e, d->u.cfg.g = ed->u.engine.g;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- ENGINEHEUR ------------------------------------------------------------- */

cudnnStatus_t
fdnn_be_finalize_heur(fdnn_be_desc_t *d)
{
    int mode = 0;
    fdnn_be_get_enum(d, ATTR(ENGINEHEUR_MODE), &mode);
    if (mode < CUDNN_HEUR_MODE_INSTANT || mode > CUDNN_HEUR_MODE_A)
        return FDNN_BAD_PARAM("CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: CUDNN_ATTR_ENGINEHEUR_MODE %d is not a "
                              "cudnnBackendHeurMode_t",
                              mode);
    const fdnn_graph_t *g = graph_of(d, ATTR(ENGINEHEUR_OPERATION_GRAPH));
    int n = 0;
    fdnn_graph_engines(&n);
    d->u.heur.results = calloc((size_t)n + 1, sizeof(*d->u.heur.results));
    if (d->u.heur.results == NULL)
        return FDNN_ALLOC_FAILED("no memory for heuristics results");
    char why[1024] = "";
    /* the engines' own heuristic (src/cpu/graph/engines.c): the table's
     * order, the conv-solver engines in _v7's order for this graph */
    d->u.heur.nresults =
        fdnn_graph_heuristic(g, mode == CUDNN_HEUR_MODE_FALLBACK, d->u.heur.results, why, sizeof(why));
    /* The graph is well formed (its finalize checked cuDNN 8.9's rules), so
     * a graph no engine runs is a gap of FreeDNN's, listed as such. */
    if (d->u.heur.nresults == 0)
        return FDNN_GAP("CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: no engine of FreeDNN runs this graph "
                                  "(%d engines%s): %s",
                                  n, mode == CUDNN_HEUR_MODE_FALLBACK ? ", fallback mode" : "",
                                  n ? why : "the engine table is empty");
    return CUDNN_STATUS_SUCCESS;
}

/* A finalized ENGINECFG for engine e on the graph descriptor gd, built as a
 * caller would. */
static cudnnStatus_t
make_cfg(const fdnn_be_desc_t *gd, const fdnn_graph_engine_t *e, fdnn_be_desc_t *cfg)
{
    fdnn_be_desc_t *ed = NULL;
    RETURN_IF_ERROR(fdnn_be_create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &ed));
    int64_t idx = e->global_index;
    cudnnStatus_t st = fdnn_be_set(ed, ATTR(ENGINE_OPERATION_GRAPH), CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &gd);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_be_set(ed, ATTR(ENGINE_GLOBAL_INDEX), CUDNN_TYPE_INT64, 1, &idx);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_be_finalize(ed);
    if (st == CUDNN_STATUS_SUCCESS) {
        fdnn_be_reset(cfg);
        st = fdnn_be_set(cfg, ATTR(ENGINECFG_ENGINE), CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ed);
    }
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_be_finalize(cfg);
    fdnn_be_destroy(ed);
    return st;
}

/* ---- EXECUTION_PLAN, VARIANT_PACK ------------------------------------------- */

cudnnStatus_t
fdnn_be_finalize_plan(fdnn_be_desc_t *d)
{
    int js = fdnn_be_slot(d, ATTR(EXECUTION_PLAN_JSON_REPRESENTATION));
    const fdnn_be_desc_t *cfg = fdnn_be_get_desc(d, ATTR(EXECUTION_PLAN_ENGINE_CONFIG));
    if (cfg == NULL) {
        RETURN_IF_ERROR(fdnn_be_cfg_from_json(d->vals[js].data, (size_t)d->vals[js].count, *(const cudnnHandle_t *)d->vals[fdnn_be_slot(d, ATTR(EXECUTION_PLAN_HANDLE))].data, &d->u.plan.cfg));
        cfg = d->u.plan.cfg;
    }
    const cudnnHandle_t *h = d->vals[fdnn_be_slot(d, ATTR(EXECUTION_PLAN_HANDLE))].data;
    d->u.plan.handle = *h;
    d->u.plan.eng = cfg->u.cfg.eng;
    d->u.plan.g = cfg->u.cfg.g;
    d->u.plan.knobs = cfg->u.cfg.knobs;
    size_t ws = 0;
    cudnnStatus_t st = d->u.plan.eng->workspace(d->u.plan.g, &d->u.plan.knobs, &ws);
    if (st != CUDNN_STATUS_SUCCESS) {
        char why[512];
        snprintf(why, sizeof(why), "%s", fdnn_fail_reason()); /* fdnn_fail writes the same buffer */
        return fdnn_fail(st, "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: the workspace of engine %s: %s",
                         d->u.plan.eng->name, why);
    }
    if (ws > (size_t)INT64_MAX)
        return FDNN_BAD_PARAM("CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: workspace of %zu bytes", ws);
    d->u.plan.workspace = ws;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_be_finalize_variant_pack(fdnn_be_desc_t *d)
{
    const char *dn = "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR";
    const fdnn_be_value_t *u = &d->vals[fdnn_be_slot(d, ATTR(VARIANT_PACK_UNIQUE_IDS))];
    const fdnn_be_value_t *p = &d->vals[fdnn_be_slot(d, ATTR(VARIANT_PACK_DATA_POINTERS))];
    if (u->count != p->count)
        return FDNN_BAD_PARAM("%s: %lld CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS and %lld CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS",
                              dn, (long long)u->count, (long long)p->count);
    const int64_t *uids = u->data;
    for (int64_t i = 0; i < u->count; i++)
        for (int64_t j = 0; j < i; j++)
            if (uids[i] == uids[j])
                return FDNN_BAD_PARAM("%s: CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS lists uid %lld twice", dn,
                                      (long long)uids[i]);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- computed attributes ------------------------------------------------------ */

static cudnnStatus_t
put_i64s(const int64_t *v, int64_t n, int64_t req, int64_t *count, void *elems)
{
    *count = n;
    if (req > 0)
        memcpy(elems, v, (size_t)(req < n ? req : n) * sizeof(int64_t));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
put_ints(const int *v, int64_t n, int64_t req, int64_t *count, void *elems)
{
    *count = n;
    if (req > 0)
        memcpy(elems, v, (size_t)(req < n ? req : n) * sizeof(int));
    return CUDNN_STATUS_SUCCESS;
}

static int
notes(uint32_t mask, int *out)
{
    int n = 0;
    for (int b = 0; b < 32; b++)
        if (mask & (1u << b))
            out[n++] = b;
    return n;
}

static cudnnStatus_t
caller_desc(void *elems, int64_t k, const char *what, fdnn_be_desc_t **out)
{
    char buf[96];
    snprintf(buf, sizeof(buf), "element %lld of arrayOfElements (%s)", (long long)k, what);
    return fdnn_be_check(((void **)elems)[k], buf, out);
}

static cudnnStatus_t
fill_knob_info(fdnn_be_desc_t *t, const fdnn_graph_knob_info_t *ki)
{
    if (t->type != CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR)
        return FDNN_BAD_PARAM("a %s was given for CUDNN_ATTR_ENGINE_KNOB_INFO", fdnn_be_type_name(t->type));
    fdnn_be_reset(t);
    int type = (int)ki->type;
    RETURN_IF_ERROR(fdnn_be_fill_info(t, ATTR(KNOB_INFO_TYPE), CUDNN_TYPE_KNOB_TYPE, 1, &type));
    RETURN_IF_ERROR(fdnn_be_fill_info(t, ATTR(KNOB_INFO_MAXIMUM_VALUE), CUDNN_TYPE_INT64, 1, &ki->max));
    RETURN_IF_ERROR(fdnn_be_fill_info(t, ATTR(KNOB_INFO_MINIMUM_VALUE), CUDNN_TYPE_INT64, 1, &ki->min));
    RETURN_IF_ERROR(fdnn_be_fill_info(t, ATTR(KNOB_INFO_STRIDE), CUDNN_TYPE_INT64, 1, &ki->stride));
    t->finalized = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_be_get_computed(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                     int64_t req, int64_t *count, void *elems, bool *handled)
{
    (void)type;
    *handled = true;
    int buf[32];
    switch (name) {
    case ATTR(OPERATIONGRAPH_ENGINE_GLOBAL_COUNT): {
        int n = 0;
        fdnn_graph_engines(&n);
        int64_t v = n;
        return put_i64s(&v, 1, req, count, elems);
    }
    case ATTR(ENGINE_NUMERICAL_NOTE): return put_ints(buf, notes(d->u.engine.eng->numerical_notes, buf), req, count, elems);
    case ATTR(ENGINE_BEHAVIOR_NOTE): return put_ints(buf, notes(d->u.engine.eng->behavior_notes, buf), req, count, elems);
    case ATTR(ENGINE_LAYOUT_INFO): /* FreeDNN's engines take every layout: no preference */
    case ATTR(ENGINECFG_INTERMEDIATE_INFO): *count = 0; return CUDNN_STATUS_SUCCESS;
    case ATTR(EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS): *count = 0; return CUDNN_STATUS_SUCCESS;
    case ATTR(ENGINE_KNOB_INFO): {
        const fdnn_graph_engine_t *e = d->u.engine.eng;
        *count = e->nknobs;
        for (int64_t k = 0; k < req && k < e->nknobs; k++) {
            fdnn_be_desc_t *t = NULL;
            RETURN_IF_ERROR(caller_desc(elems, k, "CUDNN_ATTR_ENGINE_KNOB_INFO", &t));
            RETURN_IF_ERROR(fill_knob_info(t, &e->knobs[k]));
        }
        return CUDNN_STATUS_SUCCESS;
    }
    case ATTR(ENGINEHEUR_RESULTS): {
        *count = d->u.heur.nresults;
        const fdnn_be_desc_t *gd = fdnn_be_get_desc(d, ATTR(ENGINEHEUR_OPERATION_GRAPH));
        for (int64_t k = 0; k < req && k < d->u.heur.nresults; k++) {
            fdnn_be_desc_t *t = NULL;
            RETURN_IF_ERROR(caller_desc(elems, k, "CUDNN_ATTR_ENGINEHEUR_RESULTS", &t));
            if (t->type != CUDNN_BACKEND_ENGINECFG_DESCRIPTOR)
                return FDNN_BAD_PARAM("element %lld of CUDNN_ATTR_ENGINEHEUR_RESULTS is a %s, expected "
                                      "CUDNN_BACKEND_ENGINECFG_DESCRIPTOR",
                                      (long long)k, fdnn_be_type_name(t->type));
            RETURN_IF_ERROR(make_cfg(gd, d->u.heur.results[k], t));
        }
        return CUDNN_STATUS_SUCCESS;
    }
    case ATTR(EXECUTION_PLAN_WORKSPACE_SIZE): {
        int64_t v = (int64_t)d->u.plan.workspace;
        return put_i64s(&v, 1, req, count, elems);
    }
    case ATTR(EXECUTION_PLAN_ENGINE_CONFIG):
        if (d->u.plan.cfg == NULL)
            break;
        *count = 1;
        if (req > 0) {
            fdnn_be_desc_t *t = NULL;
            RETURN_IF_ERROR(caller_desc(elems, 0, "CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG", &t));
            return fdnn_be_assign(t, d->u.plan.cfg);
        }
        return CUDNN_STATUS_SUCCESS;
    case ATTR(EXECUTION_PLAN_JSON_REPRESENTATION): {
        char *text = NULL;
        size_t len = 0;
        RETURN_IF_ERROR(fdnn_be_plan_json(d, &text, &len));
        *count = (int64_t)len + 1; /* with the terminating NUL */
        if (req > 0) {
            size_t n = (size_t)req < len + 1 ? (size_t)req : len + 1;
            memcpy(elems, text, n);
        }
        free(text);
        return CUDNN_STATUS_SUCCESS;
    }
    default: break;
    }
    *handled = false;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- execute ---------------------------------------------------------------------- */

cudnnStatus_t
fdnn_be_execute(cudnnHandle_t handle, fdnn_be_desc_t *plan, fdnn_be_desc_t *pack)
{
    const char *dn = "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR";
    const fdnn_graph_t *g = plan->u.plan.g;
    const fdnn_be_value_t *u = &pack->vals[fdnn_be_slot(pack, ATTR(VARIANT_PACK_UNIQUE_IDS))];
    const fdnn_be_value_t *p = &pack->vals[fdnn_be_slot(pack, ATTR(VARIANT_PACK_DATA_POINTERS))];
    const int64_t *uids = u->data;
    void *const *ptrs = p->data;
    void *ws = NULL;
    const fdnn_be_value_t *w = &pack->vals[fdnn_be_slot(pack, ATTR(VARIANT_PACK_WORKSPACE))];
    if (w->set && w->count > 0)
        ws = *(void *const *)w->data;
    if (plan->u.plan.workspace > 0 && ws == NULL)
        return FDNN_BAD_PARAM("%s: the plan needs %zu bytes of workspace and CUDNN_ATTR_VARIANT_PACK_WORKSPACE is "
                              "NULL",
                              dn, plan->u.plan.workspace);
    fdnn_graph_tensor_t *tensors = malloc((size_t)g->ntensors * sizeof(*tensors) + 1);
    void **data = calloc((size_t)g->ntensors + 1, sizeof(void *));
    if (tensors == NULL || data == NULL) {
        free(tensors), free(data);
        return FDNN_ALLOC_FAILED("no memory to execute a plan");
    }
    memcpy(tensors, g->tensors, (size_t)g->ntensors * sizeof(*tensors));
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    for (int i = 0; i < g->ntensors && st == CUDNN_STATUS_SUCCESS; i++) {
        fdnn_graph_tensor_t *t = &tensors[i];
        if (t->is_virtual)
            continue;
        int64_t k = 0;
        while (k < u->count && uids[k] != t->uid)
            k++;
        if (k == u->count) {
            st = FDNN_BAD_PARAM("%s: no data pointer for tensor uid %lld of the graph", dn, (long long)t->uid);
            break;
        }
        if (ptrs[k] == NULL) {
            st = FDNN_BAD_PARAM("%s: the data pointer of tensor uid %lld is NULL", dn, (long long)t->uid);
            break;
        }
        if (!t->by_value && (uintptr_t)ptrs[k] % (uintptr_t)t->alignment != 0) {
            st = FDNN_BAD_PARAM("%s: the data pointer of tensor uid %lld is not aligned to its "
                                "CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT %lld",
                                dn, (long long)t->uid, (long long)t->alignment);
            break;
        }
        if (t->by_value)
            memcpy(t->value, ptrs[k], fdnn_dtype_size(t->dtype));
        else
            data[i] = ptrs[k];
    }
    if (st == CUDNN_STATUS_SUCCESS) {
        fdnn_graph_t run = *g;
        run.tensors = tensors;
        fdnn_graph_exec_t e = {handle, &run, &plan->u.plan.knobs, data, ws, plan->u.plan.workspace};
        st = plan->u.plan.eng->execute(&e);
    }
    free(tensors), free(data);
    return st;
}
