/* SPDX-License-Identifier: Apache-2.0
 * The seven cudnnBackend* functions and the generic half of every
 * descriptor: attribute slots checked against the attribute table
 * (be_attrs.c), required attributes, references to other descriptors (see
 * be_desc.h for ownership), clones.  The per-type halves are in be_ops.c
 * (tensors, operations and their small descriptors) and be_graph.c (graphs,
 * engines, heuristics, plans, variant packs).
 *
 * cudnnBackendFinalize is in be_finalize_api.c, the typed readers of set
 * values in be_values.c (where the one gap of finalize is).
 *
 * Statuses (cuDNN 8.9): BAD_PARAM for a NULL, an unknown type, an attribute
 * the descriptor type does not have, a wrong element type or count, a
 * descriptor element of the wrong type; NOT_INITIALIZED for a SetAttribute
 * on a finalized descriptor, a GetAttribute on one not finalized, and a
 * non-finalized descriptor given as an attribute value at finalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/backend/be_desc.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "enum_names.h"

cudnnStatus_t
fdnn_be_check(const void *p, const char *what, fdnn_be_desc_t **out)
{
    if (p == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    fdnn_be_desc_t *d = (fdnn_be_desc_t *)p;
    if (d->magic != FDNN_BE_MAGIC)
        return FDNN_BAD_PARAM("%s is not a backend descriptor (destroyed or never created)", what);
    *out = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_be_create(cudnnBackendDescriptorType_t type, fdnn_be_desc_t **out)
{
    int n = 0;
    const fdnn_be_attr_t *attrs = fdnn_be_attrs_of(type, &n);
    if (attrs == NULL)
        return FDNN_NOT_SUPPORTED("descriptorType %d is not a cudnnBackendDescriptorType_t of cuDNN 8.9.4", (int)type);
    fdnn_be_desc_t *d = calloc(1, sizeof(*d));
    fdnn_be_value_t *vals = calloc((size_t)n, sizeof(*vals));
    if (d == NULL || vals == NULL) {
        free(d), free(vals);
        return FDNN_ALLOC_FAILED("no memory for a %s", fdnn_be_type_name(type));
    }
    d->magic = FDNN_BE_MAGIC;
    d->type = type;
    d->attrs = attrs;
    d->nattr = n;
    d->vals = vals;
    *out = d;
    return CUDNN_STATUS_SUCCESS;
}

static bool
owns_refs(const fdnn_be_desc_t *d)
{
    return d->finalized;
}

static void
clear_value(fdnn_be_desc_t *d, int i)
{
    fdnn_be_value_t *v = &d->vals[i];
    if (v->set && v->type == CUDNN_TYPE_BACKEND_DESCRIPTOR && owns_refs(d)) {
        fdnn_be_desc_t **refs = v->data;
        for (int64_t k = 0; k < v->count; k++)
            fdnn_be_destroy(refs[k]);
    }
    free(v->data);
    memset(v, 0, sizeof(*v));
}

void
fdnn_be_reset(fdnn_be_desc_t *d)
{
    for (int i = 0; i < d->nattr; i++)
        clear_value(d, i);
    fdnn_be_free_derived(d);
    memset(&d->u, 0, sizeof(d->u));
    d->finalized = false;
}

void
fdnn_be_destroy(fdnn_be_desc_t *d)
{
    if (d == NULL)
        return;
    fdnn_be_reset(d);
    free(d->vals);
    d->magic = 0;
    free(d);
}

static const char *
type_name_of_attr(cudnnBackendAttributeType_t t)
{
    const char *n = fdnn_enum_name_cudnnBackendAttributeType_t(t);
    return n ? n : "an unknown attribute type";
}

/* Store a value in slot i (d not finalized); no reference checks. */
static cudnnStatus_t
store(fdnn_be_desc_t *d, int i, cudnnBackendAttributeType_t type, int64_t count, const void *elems)
{
    size_t es = fdnn_be_type_size(type);
    void *copy = NULL;
    if (count > 0) {
        copy = malloc((size_t)count * es);
        if (copy == NULL)
            return FDNN_ALLOC_FAILED("no memory for %lld elements of %s", (long long)count,
                                     fdnn_be_attr_name(d->attrs[i].name));
        memcpy(copy, elems, (size_t)count * es);
    }
    clear_value(d, i);
    d->vals[i] = (fdnn_be_value_t){true, type, count, copy};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_be_set(fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count,
            const void *elems)
{
    const char *dn = fdnn_be_type_name(d->type), *an = fdnn_be_attr_name(name);
    if (d->finalized)
        return fdnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "%s is finalized: %s cannot be set any more", dn, an);
    int i = fdnn_be_slot(d, name);
    if (i < 0)
        return FDNN_BAD_PARAM("%s is not an attribute of %s", an, dn);
    const fdnn_be_attr_t *a = &d->attrs[i];
    if (a->flags & FDNN_BE_GET_ONLY)
        return FDNN_BAD_PARAM("%s of %s is computed at finalize and cannot be set", an, dn);
    if (type != a->type && (int)type != a->alt_type)
        return FDNN_BAD_PARAM("%s of %s takes %s%s%s, not %s", an, dn, type_name_of_attr(a->type),
                              a->alt_type >= 0 ? " or " : "",
                              a->alt_type >= 0 ? type_name_of_attr((cudnnBackendAttributeType_t)a->alt_type) : "",
                              type_name_of_attr(type));
    if (count < a->min_count || count > a->max_count)
        return FDNN_BAD_PARAM("%s of %s takes %lld to %lld elements, not %lld", an, dn, (long long)a->min_count,
                              (long long)a->max_count, (long long)count);
    if (count > 0 && elems == NULL)
        return FDNN_BAD_PARAM("arrayOfElements is NULL for %lld elements of %s of %s", (long long)count, an, dn);
    if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
        fdnn_be_desc_t *const *refs = elems;
        for (int64_t k = 0; k < count; k++) {
            fdnn_be_desc_t *r = NULL;
            char what[64];
            snprintf(what, sizeof(what), "element %lld", (long long)k);
            if (refs[k] == NULL || refs[k]->magic != FDNN_BE_MAGIC)
                return FDNN_BAD_PARAM("element %lld of %s of %s is not a backend descriptor", (long long)k, an, dn);
            r = refs[k];
            if (r == d)
                return FDNN_BAD_PARAM("%s of %s refers to the descriptor itself", an, dn);
            bool ok = a->sub == FDNN_BE_ANY_OP ? fdnn_be_is_operation(r->type) : (int)r->type == a->sub;
            if (!ok)
                return FDNN_BAD_PARAM("element %lld of %s of %s is a %s, expected %s", (long long)k, an, dn,
                                      fdnn_be_type_name(r->type),
                                      a->sub == FDNN_BE_ANY_OP ? "an operation" : fdnn_be_type_name(a->sub));
        }
    }
    if (type == CUDNN_TYPE_HANDLE) {
        cudnnHandle_t h = *(const cudnnHandle_t *)elems;
        if (fdnn_handle_check(h) != CUDNN_STATUS_SUCCESS)
            return FDNN_BAD_PARAM("%s of %s is not a valid cudnnHandle_t", an, dn);
    }
    return store(d, i, type, count, elems);
}

/* Replace every reference by an owned clone (after checking each is
 * finalized).  All or nothing: on failure the references stay. */
static cudnnStatus_t
take_references(fdnn_be_desc_t *d, fdnn_be_desc_t ***saved)
{
    int64_t total = 0;
    for (int i = 0; i < d->nattr; i++) {
        fdnn_be_value_t *v = &d->vals[i];
        if (!v->set || v->type != CUDNN_TYPE_BACKEND_DESCRIPTOR)
            continue;
        fdnn_be_desc_t **refs = v->data;
        for (int64_t k = 0; k < v->count; k++)
            if (refs[k]->magic != FDNN_BE_MAGIC || !refs[k]->finalized)
                return fdnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "element %lld of %s of %s (a %s) is not finalized",
                                 (long long)k, fdnn_be_attr_name(d->attrs[i].name), fdnn_be_type_name(d->type),
                                 fdnn_be_type_name(refs[k]->type));
        total += v->count;
    }
    fdnn_be_desc_t **clones = calloc((size_t)total + 1, sizeof(*clones));
    if (clones == NULL)
        return FDNN_ALLOC_FAILED("no memory to finalize a %s", fdnn_be_type_name(d->type));
    int64_t n = 0;
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    for (int i = 0; i < d->nattr && st == CUDNN_STATUS_SUCCESS; i++) {
        fdnn_be_value_t *v = &d->vals[i];
        if (!v->set || v->type != CUDNN_TYPE_BACKEND_DESCRIPTOR)
            continue;
        fdnn_be_desc_t **refs = v->data;
        for (int64_t k = 0; k < v->count && st == CUDNN_STATUS_SUCCESS; k++)
            st = fdnn_be_clone(refs[k], &clones[n++]);
    }
    if (st != CUDNN_STATUS_SUCCESS) {
        for (int64_t k = 0; k < n; k++)
            fdnn_be_destroy(clones[k]);
        free(clones);
        return st;
    }
    n = 0;
    for (int i = 0; i < d->nattr; i++) {
        fdnn_be_value_t *v = &d->vals[i];
        if (!v->set || v->type != CUDNN_TYPE_BACKEND_DESCRIPTOR)
            continue;
        fdnn_be_desc_t **refs = v->data;
        for (int64_t k = 0; k < v->count; k++) {
            fdnn_be_desc_t *orig = refs[k];
            refs[k] = clones[n];
            clones[n++] = orig; /* the array now keeps the caller's references */
        }
    }
    *saved = clones;
    return CUDNN_STATUS_SUCCESS;
}

/* Undo take_references after a failed type-specific finalize: destroy the
 * clones, put the caller's references back. */
static void
restore_references(fdnn_be_desc_t *d, fdnn_be_desc_t **saved)
{
    int64_t n = 0;
    for (int i = 0; i < d->nattr; i++) {
        fdnn_be_value_t *v = &d->vals[i];
        if (!v->set || v->type != CUDNN_TYPE_BACKEND_DESCRIPTOR)
            continue;
        fdnn_be_desc_t **refs = v->data;
        for (int64_t k = 0; k < v->count; k++) {
            fdnn_be_destroy(refs[k]);
            refs[k] = saved[n++];
        }
    }
}

static cudnnStatus_t
finalize_type(fdnn_be_desc_t *d)
{
    switch (d->type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: return fdnn_be_finalize_tensor(d);
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR:
    case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
    case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
    case CUDNN_BACKEND_RESAMPLE_DESCRIPTOR:
    case CUDNN_BACKEND_RNG_DESCRIPTOR:
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR: return fdnn_be_finalize_small(d);
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: return fdnn_be_finalize_graph(d);
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: return fdnn_be_finalize_engine(d);
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: return fdnn_be_finalize_cfg(d);
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: return fdnn_be_finalize_heur(d);
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: return fdnn_be_finalize_plan(d);
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: return fdnn_be_finalize_variant_pack(d);
    case CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR:
    case CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR:
    case CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR:
        return FDNN_BAD_PARAM("%s is filled by cudnnBackendGetAttribute of an engine or engine config; "
                              "it has no attribute to set and cannot be finalized by the caller",
                              fdnn_be_type_name(d->type));
    default:
        if (fdnn_be_is_operation(d->type))
            return fdnn_be_finalize_operation(d);
        return FDNN_INTERNAL_ERROR("no finalize for %s", fdnn_be_type_name(d->type));
    }
}

cudnnStatus_t
fdnn_be_finalize(fdnn_be_desc_t *d)
{
    const char *dn = fdnn_be_type_name(d->type);
    if (d->finalized)
        return FDNN_BAD_PARAM("%s is already finalized", dn);
    for (int i = 0; i < d->nattr; i++) {
        const fdnn_be_attr_t *a = &d->attrs[i];
        bool json_plan = d->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR &&
                         d->vals[fdnn_be_slot(d, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION)].set;
        if ((a->flags & FDNN_BE_REQUIRED) && !d->vals[i].set)
            return FDNN_BAD_PARAM("%s: the required attribute %s is not set", dn, fdnn_be_attr_name(a->name));
        if (d->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR && a->name == CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG &&
            !d->vals[i].set && !json_plan)
            return FDNN_BAD_PARAM("%s: neither CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG nor "
                                  "CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION is set", dn);
    }
    fdnn_be_desc_t **saved = NULL;
    RETURN_IF_ERROR(take_references(d, &saved));
    d->finalized = true; /* the slots own their clones from here */
    cudnnStatus_t st = finalize_type(d);
    if (st != CUDNN_STATUS_SUCCESS) {
        /* back to the state before finalize, with the caller's references */
        fdnn_be_free_derived(d);
        memset(&d->u, 0, sizeof(d->u));
        restore_references(d, saved);
        d->finalized = false;
    }
    free(saved);
    return st;
}

static bool
user_finalizable(cudnnBackendDescriptorType_t t)
{
    return t != CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR && t != CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR &&
           t != CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR;
}

/* Copy src's slots into the empty, non-finalized dst of the same type (the
 * references shallow: dst's finalize clones them) and finalize it. */
static cudnnStatus_t
copy_into(fdnn_be_desc_t *dst, const fdnn_be_desc_t *src)
{
    for (int i = 0; i < src->nattr; i++) {
        const fdnn_be_value_t *v = &src->vals[i];
        if (v->set)
            RETURN_IF_ERROR(store(dst, i, v->type, v->count, v->data));
    }
    if (!user_finalizable(src->type)) {
        dst->finalized = true; /* info descriptors hold no references */
        return CUDNN_STATUS_SUCCESS;
    }
    return fdnn_be_finalize(dst);
}

cudnnStatus_t
fdnn_be_clone(const fdnn_be_desc_t *src, fdnn_be_desc_t **out)
{
    fdnn_be_desc_t *c = NULL;
    RETURN_IF_ERROR(fdnn_be_create(src->type, &c));
    cudnnStatus_t st = copy_into(c, src);
    if (st != CUDNN_STATUS_SUCCESS) {
        fdnn_be_destroy(c);
        return st;
    }
    *out = c;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_be_assign(fdnn_be_desc_t *dst, const fdnn_be_desc_t *src)
{
    if (dst->type != src->type)
        return FDNN_BAD_PARAM("a %s was given where a %s is filled in", fdnn_be_type_name(dst->type),
                              fdnn_be_type_name(src->type));
    if (dst == src)
        return CUDNN_STATUS_SUCCESS;
    fdnn_be_reset(dst);
    return copy_into(dst, src);
}

/* ---- GetAttribute -------------------------------------------------------- */

static cudnnStatus_t
get_attr(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t req,
         int64_t *count, void *elems)
{
    const char *dn = fdnn_be_type_name(d->type), *an = fdnn_be_attr_name(name);
    int i = fdnn_be_slot(d, name);
    if (i < 0)
        return FDNN_BAD_PARAM("%s is not an attribute of %s", an, dn);
    const fdnn_be_attr_t *a = &d->attrs[i];
    if (type != a->type && (int)type != a->alt_type)
        return FDNN_BAD_PARAM("%s of %s is read as %s%s%s, not %s", an, dn, type_name_of_attr(a->type),
                              a->alt_type >= 0 ? " or " : "",
                              a->alt_type >= 0 ? type_name_of_attr((cudnnBackendAttributeType_t)a->alt_type) : "",
                              type_name_of_attr(type));
    if (req < 0)
        return FDNN_BAD_PARAM("requestedElementCount is %lld for %s of %s", (long long)req, an, dn);
    if (count == NULL && req == 0)
        return FDNN_BAD_PARAM("elementCount is NULL and requestedElementCount is 0 for %s of %s", an, dn);
    if (req > 0 && elems == NULL)
        return FDNN_BAD_PARAM("arrayOfElements is NULL for %lld elements of %s of %s", (long long)req, an, dn);
    if (!d->finalized)
        return fdnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "%s is not finalized: %s cannot be read", dn, an);
    int64_t local = 0;
    if (count == NULL)
        count = &local;
    bool handled = false;
    RETURN_IF_ERROR(fdnn_be_get_computed(d, name, type, req, count, elems, &handled));
    if (handled)
        return CUDNN_STATUS_SUCCESS;
    const fdnn_be_value_t *v = &d->vals[i];
    *count = v->set ? v->count : 0;
    int64_t n = req < *count ? req : *count;
    if (n == 0)
        return CUDNN_STATUS_SUCCESS;
    if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
        fdnn_be_desc_t *const *src = v->data;
        void *const *dst = elems;
        for (int64_t k = 0; k < n; k++) {
            fdnn_be_desc_t *t = NULL;
            char what[96];
            snprintf(what, sizeof(what), "element %lld of arrayOfElements (%s)", (long long)k, an);
            RETURN_IF_ERROR(fdnn_be_check(dst[k], what, &t));
            RETURN_IF_ERROR(fdnn_be_assign(t, src[k]));
        }
        return CUDNN_STATUS_SUCCESS;
    }
    if (type == v->type) {
        memcpy(elems, v->data, (size_t)n * fdnn_be_type_size(type));
    } else if (type == CUDNN_TYPE_DOUBLE && v->type == CUDNN_TYPE_FLOAT) {
        for (int64_t k = 0; k < n; k++)
            ((double *)elems)[k] = ((const float *)v->data)[k];
    } else if (type == CUDNN_TYPE_FLOAT && v->type == CUDNN_TYPE_DOUBLE) {
        for (int64_t k = 0; k < n; k++)
            ((float *)elems)[k] = (float)((const double *)v->data)[k];
    } else {
        return FDNN_BAD_PARAM("%s of %s was set as %s and cannot be read as %s", an, dn, type_name_of_attr(v->type),
                              type_name_of_attr(type));
    }
    return CUDNN_STATUS_SUCCESS;
}

/* For be_graph.c: fill the GET_ONLY slots of an info descriptor. */
cudnnStatus_t fdnn_be_fill_info(fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                                int64_t count, const void *elems);
cudnnStatus_t
fdnn_be_fill_info(fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                  int64_t count, const void *elems)
{
    int i = fdnn_be_slot(d, name);
    if (i < 0)
        return FDNN_INTERNAL_ERROR("%s has no %s", fdnn_be_type_name(d->type), fdnn_be_attr_name(name));
    bool fin = d->finalized;
    d->finalized = false;
    cudnnStatus_t st = store(d, i, type, count, elems);
    d->finalized = fin;
    return st;
}

/* ---- the seven entry points ----------------------------------------------- */

cudnnStatus_t
fdnn_api_cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType, cudnnBackendDescriptor_t *descriptor)
{
    RETURN_IF_NULL(descriptor);
    fdnn_be_desc_t *d = NULL;
    RETURN_IF_ERROR(fdnn_be_create(descriptorType, &d));
    *descriptor = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor)
{
    fdnn_be_desc_t *d = NULL;
    RETURN_IF_ERROR(fdnn_be_check(descriptor, "descriptor", &d));
    fdnn_be_destroy(d);
    return CUDNN_STATUS_SUCCESS;
}

/* cuDNN 8.9: Initialize resets a descriptor to its state after create
 * (create already initializes, so it is rarely needed). */
cudnnStatus_t
fdnn_api_cudnnBackendInitialize(cudnnBackendDescriptor_t descriptor)
{
    fdnn_be_desc_t *d = NULL;
    RETURN_IF_ERROR(fdnn_be_check(descriptor, "descriptor", &d));
    fdnn_be_reset(d);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t attributeName,
                                  cudnnBackendAttributeType_t attributeType, int64_t elementCount,
                                  const void *arrayOfElements)
{
    fdnn_be_desc_t *d = NULL;
    RETURN_IF_ERROR(fdnn_be_check(descriptor, "descriptor", &d));
    if (fdnn_be_type_size(attributeType) == 0)
        return FDNN_BAD_PARAM("attributeType %d is not a cudnnBackendAttributeType_t (setting %s of %s)",
                              (int)attributeType, fdnn_be_attr_name(attributeName), fdnn_be_type_name(d->type));
    return fdnn_be_set(d, attributeName, attributeType, elementCount, arrayOfElements);
}

cudnnStatus_t
fdnn_api_cudnnBackendGetAttribute(const cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t attributeName,
                                  cudnnBackendAttributeType_t attributeType, int64_t requestedElementCount,
                                  int64_t *elementCount, void *arrayOfElements)
{
    fdnn_be_desc_t *d = NULL;
    RETURN_IF_ERROR(fdnn_be_check(descriptor, "descriptor", &d));
    if (fdnn_be_type_size(attributeType) == 0)
        return FDNN_BAD_PARAM("attributeType %d is not a cudnnBackendAttributeType_t (reading %s of %s)",
                              (int)attributeType, fdnn_be_attr_name(attributeName), fdnn_be_type_name(d->type));
    return get_attr(d, attributeName, attributeType, requestedElementCount, elementCount, arrayOfElements);
}

cudnnStatus_t
fdnn_api_cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                             cudnnBackendDescriptor_t variantPack)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_be_desc_t *plan = NULL, *pack = NULL;
    RETURN_IF_ERROR(fdnn_be_check(executionPlan, "executionPlan", &plan));
    RETURN_IF_ERROR(fdnn_be_check(variantPack, "variantPack", &pack));
    if (plan->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR)
        return FDNN_BAD_PARAM("executionPlan is a %s", fdnn_be_type_name(plan->type));
    if (pack->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)
        return FDNN_BAD_PARAM("variantPack is a %s", fdnn_be_type_name(pack->type));
    if (!plan->finalized)
        return fdnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "executionPlan (CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR) is "
                                                       "not finalized");
    if (!pack->finalized)
        return fdnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "variantPack (CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR) is "
                                                       "not finalized");
    return fdnn_be_execute(handle, plan, pack);
}
