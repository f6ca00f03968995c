/* SPDX-License-Identifier: Apache-2.0
 * CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION: a finalized plan as JSON,
 * and an engine config rebuilt from that JSON.
 *
 * The text is FreeDNN's own (NVIDIA's is undocumented): the plan's engine
 * config as a tree of descriptors, each
 *     {"type": <cudnnBackendDescriptorType_t>, "attrs": [[<attribute name>,
 *      <attribute type>, [values...]], ...]}
 * with descriptor-typed values nested, FRACTION values as [num, den], floats
 * and doubles printed so that they read back bit-exact (%.9g / %.17g).
 * Handles are not written: the plan that reads the JSON gives its own
 * CUDNN_ATTR_EXECUTION_PLAN_HANDLE to the graph.  Reading rebuilds every
 * descriptor through SetAttribute and finalize, so a JSON text is checked
 * exactly like the calls it stands for. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/backend/be_desc.h"
#include "core/fail.h"

/* ---- writer ---------------------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf_t;

static void
put(sbuf_t *b, const char *fmt, ...) FDNN_PRINTF(2, 3);

#include <stdarg.h>
static void
put(sbuf_t *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap ? b->cap * 2 : 1024) + (size_t)n;
        char *q = realloc(b->p, cap);
        if (q == NULL) {
            b->oom = true;
            return;
        }
        b->p = q, b->cap = cap;
    }
}

static void
write_value(sbuf_t *b, cudnnBackendAttributeType_t t, const void *data, int64_t k);

static void
write_desc(sbuf_t *b, const fdnn_be_desc_t *d)
{
    put(b, "{\"type\": %d, \"attrs\": [", (int)d->type);
    bool first = true;
    for (int i = 0; i < d->nattr; i++) {
        const fdnn_be_value_t *v = &d->vals[i];
        if (!v->set || v->type == CUDNN_TYPE_HANDLE || v->type == CUDNN_TYPE_VOID_PTR ||
            (d->attrs[i].flags & FDNN_BE_GET_ONLY))
            continue;
        put(b, "%s[%d, %d, [", first ? "" : ", ", (int)d->attrs[i].name, (int)v->type);
        for (int64_t k = 0; k < v->count; k++) {
            if (k)
                put(b, ", ");
            write_value(b, v->type, v->data, k);
        }
        put(b, "]]");
        first = false;
    }
    put(b, "]}");
}

static void
write_value(sbuf_t *b, cudnnBackendAttributeType_t t, const void *data, int64_t k)
{
    switch (t) {
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: write_desc(b, ((fdnn_be_desc_t *const *)data)[k]); break;
    case CUDNN_TYPE_INT64: put(b, "%lld", (long long)((const int64_t *)data)[k]); break;
    case CUDNN_TYPE_INT32: put(b, "%d", (int)((const int32_t *)data)[k]); break;
    case CUDNN_TYPE_BOOLEAN: put(b, "%d", ((const bool *)data)[k] ? 1 : 0); break;
    case CUDNN_TYPE_CHAR: put(b, "%d", (int)((const char *)data)[k]); break;
    case CUDNN_TYPE_FLOAT: put(b, "%.9g", (double)((const float *)data)[k]); break;
    case CUDNN_TYPE_DOUBLE: put(b, "%.17g", ((const double *)data)[k]); break;
    case CUDNN_TYPE_FRACTION: {
        const cudnnFraction_t *f = (const cudnnFraction_t *)data + k;
        put(b, "[%lld, %lld]", (long long)f->numerator, (long long)f->denominator);
        break;
    }
    default: put(b, "%d", ((const int *)data)[k]); break; /* the enum types */
    }
}

cudnnStatus_t
fdnn_be_plan_json(const fdnn_be_desc_t *plan, char **text, size_t *len)
{
    const fdnn_be_desc_t *cfg = plan->u.plan.cfg;
    if (cfg == NULL)
        cfg = fdnn_be_get_desc(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
    sbuf_t b = {0};
    put(&b, "{\"freednn_plan\": 1, \"engine_config\": ");
    write_desc(&b, cfg);
    put(&b, "}");
    if (b.oom) {
        free(b.p);
        return FDNN_ALLOC_FAILED("no memory for the JSON of an execution plan");
    }
    *text = b.p, *len = b.len;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- reader ---------------------------------------------------------------- */

typedef struct rd {
    const char *p, *end;
    const char *start; /* for offsets in reasons */
    cudnnHandle_t handle;
    int depth;
} rd_t;

static void
ws(rd_t *r)
{
    while (r->p < r->end && isspace((unsigned char)*r->p))
        r->p++;
}

static cudnnStatus_t
bad(const rd_t *r, const char *what)
{
    return FDNN_BAD_PARAM("CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION: %s at offset %ld", what,
                          (long)(r->p - r->start));
}

static cudnnStatus_t
expect(rd_t *r, const char *tok)
{
    ws(r);
    size_t n = strlen(tok);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, tok, n) != 0) {
        char what[64];
        snprintf(what, sizeof(what), "expected '%s'", tok);
        return bad(r, what);
    }
    r->p += n;
    return CUDNN_STATUS_SUCCESS;
}

static bool
peek(rd_t *r, char c)
{
    ws(r);
    return r->p < r->end && *r->p == c;
}

static cudnnStatus_t
number(rd_t *r, bool integral, long long *i, double *d)
{
    ws(r);
    char tmp[64];
    size_t n = 0;
    while (r->p + n < r->end && n < sizeof(tmp) - 1 && strchr("+-0123456789.eEinfINFaA", r->p[n]))
        n++;
    if (n == 0)
        return bad(r, "expected a number");
    memcpy(tmp, r->p, n);
    tmp[n] = 0;
    char *e = NULL;
    errno = 0;
    if (integral)
        *i = strtoll(tmp, &e, 10);
    else
        *d = strtod(tmp, &e);
    if (e != tmp + n || errno == ERANGE)
        return bad(r, "a malformed number");
    r->p += n;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t read_desc(rd_t *r, fdnn_be_desc_t **out);

/* One attribute [name, type, [values]] into d. */
static cudnnStatus_t
read_attr(rd_t *r, fdnn_be_desc_t *d)
{
    long long name = 0, type = 0;
    RETURN_IF_ERROR(expect(r, "["));
    RETURN_IF_ERROR(number(r, true, &name, NULL));
    RETURN_IF_ERROR(expect(r, ","));
    RETURN_IF_ERROR(number(r, true, &type, NULL));
    RETURN_IF_ERROR(expect(r, ","));
    RETURN_IF_ERROR(expect(r, "["));
    cudnnBackendAttributeType_t t = (cudnnBackendAttributeType_t)type;
    size_t es = fdnn_be_type_size(t);
    if (es == 0 || t == CUDNN_TYPE_HANDLE || t == CUDNN_TYPE_VOID_PTR)
        return bad(r, "an attribute of an unknown or unserializable type");
    size_t cap = 8, n = 0;
    unsigned char *buf = malloc(cap * es);
    cudnnStatus_t st = buf ? CUDNN_STATUS_SUCCESS : FDNN_ALLOC_FAILED("no memory to read JSON");
    while (st == CUDNN_STATUS_SUCCESS && !peek(r, ']')) {
        if (n > 0 && (st = expect(r, ",")) != CUDNN_STATUS_SUCCESS)
            break;
        if (n == cap) {
            unsigned char *q = realloc(buf, 2 * cap * es);
            if (q == NULL) {
                st = FDNN_ALLOC_FAILED("no memory to read JSON");
                break;
            }
            buf = q, cap *= 2;
        }
        void *slot = buf + n * es;
        long long iv = 0;
        double dv = 0;
        switch (t) {
        case CUDNN_TYPE_BACKEND_DESCRIPTOR: {
            fdnn_be_desc_t *c = NULL;
            st = read_desc(r, &c);
            if (st == CUDNN_STATUS_SUCCESS)
                memcpy(slot, &c, sizeof(c));
            break;
        }
        case CUDNN_TYPE_FLOAT:
        case CUDNN_TYPE_DOUBLE:
            st = number(r, false, NULL, &dv);
            if (t == CUDNN_TYPE_FLOAT) {
                float f = (float)dv;
                memcpy(slot, &f, sizeof(f));
            } else {
                memcpy(slot, &dv, sizeof(dv));
            }
            break;
        case CUDNN_TYPE_FRACTION: {
            long long num = 0, den = 0;
            st = expect(r, "[");
            if (st == CUDNN_STATUS_SUCCESS)
                st = number(r, true, &num, NULL);
            if (st == CUDNN_STATUS_SUCCESS)
                st = expect(r, ",");
            if (st == CUDNN_STATUS_SUCCESS)
                st = number(r, true, &den, NULL);
            if (st == CUDNN_STATUS_SUCCESS)
                st = expect(r, "]");
            cudnnFraction_t f = {num, den};
            memcpy(slot, &f, sizeof(f));
            break;
        }
        default:
            st = number(r, true, &iv, NULL);
            if (t == CUDNN_TYPE_INT64) {
                int64_t v = iv;
                memcpy(slot, &v, sizeof(v));
            } else if (t == CUDNN_TYPE_BOOLEAN) {
                bool v = iv != 0;
                memcpy(slot, &v, sizeof(v));
            } else if (t == CUDNN_TYPE_CHAR) {
                char v = (char)iv;
                memcpy(slot, &v, sizeof(v));
            } else if (t == CUDNN_TYPE_INT32) {
                int32_t v = (int32_t)iv;
                memcpy(slot, &v, sizeof(v));
            } else {
                int v = (int)iv;
                memcpy(slot, &v, sizeof(v));
            }
            break;
        }
        if (st == CUDNN_STATUS_SUCCESS)
            n++;
    }
    if (st == CUDNN_STATUS_SUCCESS)
        st = expect(r, "]");
    if (st == CUDNN_STATUS_SUCCESS)
        st = expect(r, "]");
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_be_set(d, (cudnnBackendAttributeName_t)name, t, (int64_t)n, buf);
    /* On success d holds the children as references until its finalize
     * (read_desc frees them once finalize cloned them). */
    if (st != CUDNN_STATUS_SUCCESS && t == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
        for (size_t k = 0; k < n; k++) {
            fdnn_be_desc_t *c = NULL;
            memcpy(&c, buf + k * es, sizeof(c));
            fdnn_be_destroy(c);
        }
    }
    free(buf);
    return st;
}

/* The children a non-finalized d refers to (to be freed after d's finalize
 * cloned them). */
static void
destroy_children(fdnn_be_desc_t *d)
{
    for (int i = 0; i < d->nattr; i++) {
        fdnn_be_value_t *v = &d->vals[i];
        if (v->set && v->type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
            fdnn_be_desc_t **refs = v->data;
            for (int64_t k = 0; k < v->count; k++) {
                fdnn_be_destroy(refs[k]);
                refs[k] = NULL;
            }
        }
    }
}

static cudnnStatus_t
read_desc(rd_t *r, fdnn_be_desc_t **out)
{
    if (++r->depth > 32)
        return bad(r, "descriptors nested too deep");
    long long type = 0;
    RETURN_IF_ERROR(expect(r, "{"));
    RETURN_IF_ERROR(expect(r, "\"type\""));
    RETURN_IF_ERROR(expect(r, ":"));
    RETURN_IF_ERROR(number(r, true, &type, NULL));
    RETURN_IF_ERROR(expect(r, ","));
    RETURN_IF_ERROR(expect(r, "\"attrs\""));
    RETURN_IF_ERROR(expect(r, ":"));
    RETURN_IF_ERROR(expect(r, "["));
    fdnn_be_desc_t *d = NULL;
    if (type < 0 || type >= FDNN_BE_NTYPES)
        return bad(r, "an unknown descriptor type");
    RETURN_IF_ERROR(fdnn_be_create((cudnnBackendDescriptorType_t)type, &d));
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    bool first = true;
    while (st == CUDNN_STATUS_SUCCESS && !peek(r, ']')) {
        if (!first)
            st = expect(r, ",");
        if (st == CUDNN_STATUS_SUCCESS)
            st = read_attr(r, d);
        first = false;
    }
    if (st == CUDNN_STATUS_SUCCESS)
        st = expect(r, "]");
    if (st == CUDNN_STATUS_SUCCESS)
        st = expect(r, "}");
    if (st == CUDNN_STATUS_SUCCESS && d->type == CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR)
        st = fdnn_be_set(d, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &r->handle);
    if (st == CUDNN_STATUS_SUCCESS) {
        /* finalize clones the children; the parsed ones go either way */
        int64_t total = 0;
        for (int i = 0; i < d->nattr; i++)
            if (d->vals[i].set && d->vals[i].type == CUDNN_TYPE_BACKEND_DESCRIPTOR)
                total += d->vals[i].count;
        fdnn_be_desc_t **kids = calloc((size_t)total + 1, sizeof(*kids));
        if (kids == NULL) {
            st = FDNN_ALLOC_FAILED("no memory to read JSON");
        } else {
            int64_t n = 0;
            for (int i = 0; i < d->nattr; i++)
                if (d->vals[i].set && d->vals[i].type == CUDNN_TYPE_BACKEND_DESCRIPTOR)
                    for (int64_t k = 0; k < d->vals[i].count; k++)
                        kids[n++] = ((fdnn_be_desc_t **)d->vals[i].data)[k];
            st = fdnn_be_finalize(d);
            if (st == CUDNN_STATUS_SUCCESS)
                for (int64_t k = 0; k < n; k++)
                    fdnn_be_destroy(kids[k]);
            free(kids);
        }
    } else {
        destroy_children(d);
    }
    if (st != CUDNN_STATUS_SUCCESS) {
        if (!d->finalized)
            destroy_children(d);
        fdnn_be_destroy(d);
        return st;
    }
    r->depth--;
    *out = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_be_cfg_from_json(const char *text, size_t len, cudnnHandle_t handle, fdnn_be_desc_t **cfg)
{
    if (text == NULL || len == 0)
        return FDNN_BAD_PARAM("CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION is empty");
    const char *nul = memchr(text, 0, len); /* the count may include the NUL */
    size_t n = nul ? (size_t)(nul - text) : len;
    rd_t r = {text, text + n, text, handle, 0};
    RETURN_IF_ERROR(expect(&r, "{"));
    RETURN_IF_ERROR(expect(&r, "\"freednn_plan\""));
    RETURN_IF_ERROR(expect(&r, ":"));
    RETURN_IF_ERROR(expect(&r, "1"));
    RETURN_IF_ERROR(expect(&r, ","));
    RETURN_IF_ERROR(expect(&r, "\"engine_config\""));
    RETURN_IF_ERROR(expect(&r, ":"));
    fdnn_be_desc_t *d = NULL;
    RETURN_IF_ERROR(read_desc(&r, &d));
    cudnnStatus_t st = expect(&r, "}");
    ws(&r);
    if (st == CUDNN_STATUS_SUCCESS && r.p != r.end)
        st = bad(&r, "text after the plan");
    if (st == CUDNN_STATUS_SUCCESS && d->type != CUDNN_BACKEND_ENGINECFG_DESCRIPTOR)
        st = FDNN_BAD_PARAM("CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION: the engine_config is a %s",
                            fdnn_be_type_name(d->type));
    if (st != CUDNN_STATUS_SUCCESS) {
        fdnn_be_destroy(d);
        return st;
    }
    *cfg = d;
    return CUDNN_STATUS_SUCCESS;
}
