/* SPDX-License-Identifier: Apache-2.0
 * The backend (graph) API's descriptors, inside FreeDNN.
 *
 * Every cudnnBackendDescriptor_t is one fdnn_be_desc_t: its type, one value
 * slot per attribute of that type (the attribute table, be_attrs.c, says
 * which attributes a type has, their element type and count bounds), and
 * what finalize derived from them.
 *
 * Ownership.  Setting a CUDNN_TYPE_BACKEND_DESCRIPTOR attribute stores the
 * caller's descriptor pointers (a reference).  Finalize checks that every
 * referenced descriptor is finalized and then replaces each reference by a
 * private copy (a clone, itself finalized), so a finalized descriptor owns
 * everything it needs: the caller may destroy or reuse the descriptors it
 * set once the referencing descriptor is finalized, as NVIDIA's frontend
 * does.  Between the set and the finalize the referenced descriptors must
 * stay alive.  GetAttribute of a descriptor-typed attribute fills
 * descriptors the caller created (of the right type) with copies. */
#ifndef FDNN_API_BACKEND_BE_DESC_H
#define FDNN_API_BACKEND_BE_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/graph_ir.h"
#include "cudnn.h"

#define FDNN_BE_MAGIC 0x42454e44u /* "BEND" */
#define FDNN_BE_NTYPES 34
#define FDNN_BE_ANY_OP (-2) /* an attribute whose elements are any operation */
#define FDNN_BE_NO_DESC (-1)
#define FDNN_BE_UNBOUNDED INT64_MAX

enum {
    FDNN_BE_REQUIRED = 1u, /* finalize refuses the descriptor without it */
    FDNN_BE_GET_ONLY = 2u, /* computed at finalize; SetAttribute refuses it */
};

/* One row of the attribute table. */
typedef struct fdnn_be_attr {
    cudnnBackendDescriptorType_t desc;
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int alt_type; /* a second accepted element type (FLOAT for DOUBLE scalars), -1 if none */
    int64_t min_count, max_count;
    unsigned flags;
    int sub; /* BACKEND_DESCRIPTOR elements: their descriptor type, FDNN_BE_ANY_OP, or NO_DESC */
} fdnn_be_attr_t;

typedef struct fdnn_be_value {
    bool set;
    cudnnBackendAttributeType_t type; /* the element type it was set with */
    int64_t count;
    void *data; /* count elements, owned */
} fdnn_be_value_t;

typedef struct fdnn_be_desc fdnn_be_desc_t;

struct fdnn_be_desc {
    uint32_t magic;
    cudnnBackendDescriptorType_t type;
    bool finalized;
    int nattr;
    const fdnn_be_attr_t *attrs; /* nattr rows of the table */
    fdnn_be_value_t *vals;       /* one per row */
    /* derived at finalize */
    union {
        fdnn_graph_tensor_t tensor;
        fdnn_graph_node_t node;
        struct {
            fdnn_graph_t g;
            cudnnHandle_t handle;
        } graph;
        struct {
            const fdnn_graph_engine_t *eng;
            const fdnn_graph_t *g; /* the graph of the owned OPERATION_GRAPH clone */
        } engine;
        struct {
            const fdnn_graph_engine_t *eng;
            const fdnn_graph_t *g;
            fdnn_graph_knobs_t knobs;
        } cfg;
        struct {
            int nresults;
            const fdnn_graph_engine_t **results;
        } heur;
        struct {
            cudnnHandle_t handle;
            const fdnn_graph_engine_t *eng;
            const fdnn_graph_t *g;
            fdnn_graph_knobs_t knobs;
            size_t workspace;
            fdnn_be_desc_t *cfg; /* owned, when built from JSON */
        } plan;
    } u;
};

/* Element size of an attribute type (0: unknown). */
size_t fdnn_be_type_size(cudnnBackendAttributeType_t type);
/* The table rows of a descriptor type; *n receives the count. */
const fdnn_be_attr_t *fdnn_be_attrs_of(cudnnBackendDescriptorType_t type, int *n);
/* The slot of `name` in d, or -1. */
int fdnn_be_slot(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name);

/* Names for reasons. */
const char *fdnn_be_type_name(int type);
const char *fdnn_be_attr_name(cudnnBackendAttributeName_t name);

/* Checked cast of a handle from the API; BAD_PARAM names `what`. */
cudnnStatus_t fdnn_be_check(const void *p, const char *what, fdnn_be_desc_t **out);

/* Create / destroy / reset, clone (a finalized copy of a finalized d). */
cudnnStatus_t fdnn_be_create(cudnnBackendDescriptorType_t type, fdnn_be_desc_t **out);
void fdnn_be_destroy(fdnn_be_desc_t *d);
void fdnn_be_reset(fdnn_be_desc_t *d);
cudnnStatus_t fdnn_be_clone(const fdnn_be_desc_t *src, fdnn_be_desc_t **out);
/* Copy a finalized src into the caller-created dst of the same type. */
cudnnStatus_t fdnn_be_assign(fdnn_be_desc_t *dst, const fdnn_be_desc_t *src);

/* The generic SetAttribute (checks table, type, count, NULL, and for
 * descriptors their type) and the generic finalize (required attributes,
 * referenced descriptors finalized and then cloned), then the type's own. */
cudnnStatus_t fdnn_be_set(fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                          int64_t count, const void *elems);
cudnnStatus_t fdnn_be_finalize(fdnn_be_desc_t *d);

/* Typed readers of set slots (absent: the default; false when absent). */
bool fdnn_be_get_i64(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, int64_t *v);
bool fdnn_be_get_enum(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, int *v);
bool fdnn_be_get_double(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, double *v);
bool fdnn_be_get_bool(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, bool *v);
/* Integer array (INT64, or FRACTION with integral values); count via *n. */
cudnnStatus_t fdnn_be_get_i64s(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, int64_t *v, int max,
                               int *n);
/* Referenced descriptors (NULL/0 when absent). */
fdnn_be_desc_t *fdnn_be_get_desc(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name);
fdnn_be_desc_t *const *fdnn_be_get_descs(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, int64_t *n);

/* Per-type finalize (after the generic checks) and GetAttribute of the
 * computed (GET_ONLY) attributes. */
cudnnStatus_t fdnn_be_finalize_tensor(fdnn_be_desc_t *d);
cudnnStatus_t fdnn_be_finalize_small(fdnn_be_desc_t *d); /* pointwise, conv, matmul, reduction, resample, rng, knob choice */
bool fdnn_be_is_operation(cudnnBackendDescriptorType_t type);
/* Build the node of an operation descriptor; tensor operands are mapped to
 * indices by `index` (ctx); NONE for an absent optional operand. */
typedef int (*fdnn_be_tensor_index_fn)(void *ctx, const fdnn_be_desc_t *tensor);
cudnnStatus_t fdnn_be_build_node(const fdnn_be_desc_t *op, fdnn_be_tensor_index_fn index, void *ctx,
                                 fdnn_graph_node_t *node);
cudnnStatus_t fdnn_be_finalize_operation(fdnn_be_desc_t *d);
cudnnStatus_t fdnn_be_finalize_graph(fdnn_be_desc_t *d);
cudnnStatus_t fdnn_be_finalize_engine(fdnn_be_desc_t *d);
cudnnStatus_t fdnn_be_finalize_cfg(fdnn_be_desc_t *d);
cudnnStatus_t fdnn_be_finalize_heur(fdnn_be_desc_t *d);
cudnnStatus_t fdnn_be_finalize_plan(fdnn_be_desc_t *d);
cudnnStatus_t fdnn_be_finalize_variant_pack(fdnn_be_desc_t *d);
void fdnn_be_free_derived(fdnn_be_desc_t *d);

/* GetAttribute of a computed attribute: SUCCESS with *handled set when the
 * type computes it. */
cudnnStatus_t fdnn_be_get_computed(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name,
                                   cudnnBackendAttributeType_t type, int64_t req, int64_t *count, void *elems,
                                   bool *handled);

cudnnStatus_t fdnn_be_execute(cudnnHandle_t handle, fdnn_be_desc_t *plan, fdnn_be_desc_t *pack);

/* JSON of a finalized plan, and a plan's finalize from JSON. */
cudnnStatus_t fdnn_be_plan_json(const fdnn_be_desc_t *plan, char **text, size_t *len);
cudnnStatus_t fdnn_be_cfg_from_json(const char *text, size_t len, cudnnHandle_t handle, fdnn_be_desc_t **cfg);

#endif /* FDNN_API_BACKEND_BE_DESC_H */
