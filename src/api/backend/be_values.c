/* SPDX-License-Identifier: Apache-2.0
 * Typed readers of the values set on a descriptor, for the finalize of
 * every type (be_desc.h).  Absent values leave the caller's default. */
#include <string.h>

#include "api/backend/be_desc.h"
#include "core/fail.h"

/* ---- typed readers ------------------------------------------------------- */

static const fdnn_be_value_t *
value_of(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name)
{
    int i = fdnn_be_slot(d, name);
    return i >= 0 && d->vals[i].set && d->vals[i].count > 0 ? &d->vals[i] : NULL;
}

bool
fdnn_be_get_i64(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, int64_t *v)
{
    const fdnn_be_value_t *x = value_of(d, name);
    if (x == NULL)
        return false;
    if (x->type == CUDNN_TYPE_INT32)
        *v = *(const int32_t *)x->data;
    else
        *v = *(const int64_t *)x->data;
    return true;
}

bool
fdnn_be_get_enum(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, int *v)
{
    const fdnn_be_value_t *x = value_of(d, name);
    if (x == NULL)
        return false;
    *v = *(const int *)x->data;
    return true;
}

bool
fdnn_be_get_double(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, double *v)
{
    const fdnn_be_value_t *x = value_of(d, name);
    if (x == NULL)
        return false;
    *v = x->type == CUDNN_TYPE_FLOAT ? (double)*(const float *)x->data : *(const double *)x->data;
    return true;
}

bool
fdnn_be_get_bool(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, bool *v)
{
    const fdnn_be_value_t *x = value_of(d, name);
    if (x == NULL)
        return false;
    *v = *(const bool *)x->data;
    return true;
}

cudnnStatus_t
fdnn_be_get_i64s(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, int64_t *v, int max, int *n)
{
    const fdnn_be_value_t *x = value_of(d, name);
    *n = 0;
    if (x == NULL)
        return CUDNN_STATUS_SUCCESS;
    if (x->count > max)
        return FDNN_BAD_PARAM("%s of %s has %lld elements, at most %d", fdnn_be_attr_name(name),
                              fdnn_be_type_name(d->type), (long long)x->count, max);
    for (int64_t k = 0; k < x->count; k++) {
        if (x->type == CUDNN_TYPE_FRACTION) {
            const cudnnFraction_t *f = (const cudnnFraction_t *)x->data + k;
            if (f->denominator <= 0)
                return FDNN_BAD_PARAM("element %lld of %s of %s has denominator %lld", (long long)k,
                                      fdnn_be_attr_name(name), fdnn_be_type_name(d->type),
                                      (long long)f->denominator);
            if (f->numerator % f->denominator != 0)
                return FDNN_GAP("a fractional value of a resample or convolution attribute (FreeDNN takes "
                                "integral fractions only)");
            v[k] = f->numerator / f->denominator;
        } else {
            v[k] = ((const int64_t *)x->data)[k];
        }
    }
    *n = (int)x->count;
    return CUDNN_STATUS_SUCCESS;
}

fdnn_be_desc_t *
fdnn_be_get_desc(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name)
{
    const fdnn_be_value_t *x = value_of(d, name);
    return x ? ((fdnn_be_desc_t **)x->data)[0] : NULL;
}

fdnn_be_desc_t *const *
fdnn_be_get_descs(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name, int64_t *n)
{
    const fdnn_be_value_t *x = value_of(d, name);
    *n = x ? x->count : 0;
    return x ? (fdnn_be_desc_t *const *)x->data : NULL;
}
