/* SPDX-License-Identifier: Apache-2.0
 * The reduce-tensor descriptor and cudnnReduceTensor:
 *     C = alpha * reduce(A) + beta * C
 * over every dim where C has extent 1 and A does not; the other dims of C
 * equal A's.  MIN, MAX and AMAX can also return the flattened index of the
 * chosen element. */
#include <stdlib.h>

#include "api_impl.h"
#include "api/ops_infer/tensor_ops_util.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor_ops_desc.h"
#include "cpu/tensor/tensor_ops.h"

static cudnnStatus_t
check_desc(cudnnReduceTensorDescriptor_t d, bool need_set)
{
    if (d == NULL)
        return FDNN_BAD_PARAM("reduceTensorDesc is NULL");
    if (d->magic != FDNN_REDUCE_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("reduceTensorDesc is not a reduce-tensor descriptor (destroyed or never created)");
    if (need_set && !d->is_set)
        return FDNN_BAD_PARAM("reduceTensorDesc was created but never set");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateReduceTensorDescriptor(cudnnReduceTensorDescriptor_t *reduceTensorDesc)
{
    RETURN_IF_NULL(reduceTensorDesc);
    struct cudnnReduceTensorStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a reduce-tensor descriptor");
    d->magic = FDNN_REDUCE_TENSOR_MAGIC;
    *reduceTensorDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc)
{
    if (reduceTensorDesc == NULL)
        return CUDNN_STATUS_SUCCESS; /* as cuDNN */
    RETURN_IF_ERROR(check_desc(reduceTensorDesc, false));
    reduceTensorDesc->magic = 0;
    free(reduceTensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                        cudnnReduceTensorOp_t reduceTensorOp, cudnnDataType_t reduceTensorCompType,
                                        cudnnNanPropagation_t reduceTensorNanOpt,
                                        cudnnReduceTensorIndices_t reduceTensorIndices,
                                        cudnnIndicesType_t reduceTensorIndicesType)
{
    RETURN_IF_ERROR(check_desc(reduceTensorDesc, false));
    if ((unsigned)reduceTensorOp > (unsigned)CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
        return FDNN_BAD_PARAM("reduceTensorOp is %d, not a cudnnReduceTensorOp_t", (int)reduceTensorOp);
    /* cuDNN's descriptor takes these three compute types (not BFLOAT16). */
    if (reduceTensorCompType != CUDNN_DATA_FLOAT && reduceTensorCompType != CUDNN_DATA_DOUBLE &&
        reduceTensorCompType != CUDNN_DATA_HALF)
        return FDNN_BAD_PARAM("reduceTensorCompType is %s (%d); expected FLOAT, DOUBLE or HALF",
                              fdnn_dtype_name(reduceTensorCompType), (int)reduceTensorCompType);
    if ((unsigned)reduceTensorNanOpt > (unsigned)CUDNN_PROPAGATE_NAN)
        return FDNN_BAD_PARAM("reduceTensorNanOpt is %d, not a cudnnNanPropagation_t", (int)reduceTensorNanOpt);
    if ((unsigned)reduceTensorIndices > (unsigned)CUDNN_REDUCE_TENSOR_FLATTENED_INDICES)
        return FDNN_BAD_PARAM("reduceTensorIndices is %d, not a cudnnReduceTensorIndices_t",
                              (int)reduceTensorIndices);
    if ((unsigned)reduceTensorIndicesType > (unsigned)CUDNN_8BIT_INDICES)
        return FDNN_BAD_PARAM("reduceTensorIndicesType is %d, not a cudnnIndicesType_t",
                              (int)reduceTensorIndicesType);
    reduceTensorDesc->op = reduceTensorOp;
    reduceTensorDesc->comp_type = reduceTensorCompType;
    reduceTensorDesc->nan_opt = reduceTensorNanOpt;
    reduceTensorDesc->indices = reduceTensorIndices;
    reduceTensorDesc->indices_type = reduceTensorIndicesType;
    reduceTensorDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetReduceTensorDescriptor(const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                        cudnnReduceTensorOp_t *reduceTensorOp,
                                        cudnnDataType_t *reduceTensorCompType,
                                        cudnnNanPropagation_t *reduceTensorNanOpt,
                                        cudnnReduceTensorIndices_t *reduceTensorIndices,
                                        cudnnIndicesType_t *reduceTensorIndicesType)
{
    RETURN_IF_ERROR(check_desc(reduceTensorDesc, true));
    RETURN_IF_NULL(reduceTensorOp);
    RETURN_IF_NULL(reduceTensorCompType);
    RETURN_IF_NULL(reduceTensorNanOpt);
    RETURN_IF_NULL(reduceTensorIndices);
    RETURN_IF_NULL(reduceTensorIndicesType);
    *reduceTensorOp = reduceTensorDesc->op;
    *reduceTensorCompType = reduceTensorDesc->comp_type;
    *reduceTensorNanOpt = reduceTensorDesc->nan_opt;
    *reduceTensorIndices = reduceTensorDesc->indices;
    *reduceTensorIndicesType = reduceTensorDesc->indices_type;
    return CUDNN_STATUS_SUCCESS;
}

static size_t
index_size(cudnnIndicesType_t t)
{
    switch (t) {
    case CUDNN_64BIT_INDICES: return 8;
    case CUDNN_16BIT_INDICES: return 2;
    case CUDNN_8BIT_INDICES: return 1;
    default: return 4;
    }
}

/* Everything the three reduction calls check, in order: descriptors, types,
 * then shapes.  Fills the views. */
static cudnnStatus_t
check_problem(cudnnHandle_t handle, cudnnReduceTensorDescriptor_t d, cudnnTensorDescriptor_t aDesc,
              cudnnTensorDescriptor_t cDesc, fdnn_tensor_t *a, fdnn_tensor_t *c)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(check_desc(d, true));
    const unsigned types = FDNN_TOPS_FLOAT_TYPES | (1u << CUDNN_DATA_INT8);
    /* No vector type and no NCHW_VECT_C: cuDNN 9 refuses them with
     * NOT_SUPPORTED at execution (docs/tensor-ops.md). */
    RETURN_IF_ERROR(fdnn_tops_view_shape(aDesc, "aDesc", a));
    RETURN_IF_ERROR(fdnn_tops_check_type(aDesc, "aDesc", types, "cudnnReduceTensor"));
    RETURN_IF_ERROR(fdnn_tops_view_shape(cDesc, "cDesc", c));
    RETURN_IF_ERROR(fdnn_tensor_check_output(c, "cDesc"));
    RETURN_IF_ERROR(fdnn_tops_check_type(cDesc, "cDesc", types, "cudnnReduceTensor"));
    /* cuDNN 8.9: DOUBLE only with DOUBLE throughout; HALF and INT8 data may
     * be mixed with FLOAT when the compute type is FLOAT. */
    if (d->comp_type == CUDNN_DATA_DOUBLE || a->dtype == CUDNN_DATA_DOUBLE || c->dtype == CUDNN_DATA_DOUBLE) {
        if (d->comp_type != CUDNN_DATA_DOUBLE || a->dtype != CUDNN_DATA_DOUBLE || c->dtype != CUDNN_DATA_DOUBLE)
            return FDNN_BAD_PARAM("double reduction needs A, C and the compute type all DOUBLE (got %s, %s, %s)",
                                  fdnn_dtype_name(a->dtype), fdnn_dtype_name(c->dtype),
                                  fdnn_dtype_name(d->comp_type));
    } else if (d->comp_type == CUDNN_DATA_HALF &&
               (a->dtype != CUDNN_DATA_HALF || c->dtype != CUDNN_DATA_HALF)) {
        return FDNN_BAD_PARAM("compute type HALF needs HALF A and C (got %s, %s); mixed types need FLOAT",
                              fdnn_dtype_name(a->dtype), fdnn_dtype_name(c->dtype));
    }
    if (a->ndim != c->ndim)
        return FDNN_BAD_PARAM("aDesc has %d dims and cDesc %d: they must be the same", a->ndim, c->ndim);
    for (int i = 0; i < a->ndim; i++)
        if (c->dims[i] != a->dims[i] && c->dims[i] != 1)
            return FDNN_BAD_PARAM("cDesc dim %d is %lld; it must be 1 (reduced) or A's %lld", i,
                                  (long long)c->dims[i], (long long)a->dims[i]);
    return CUDNN_STATUS_SUCCESS;
}

static bool
has_indices(cudnnReduceTensorDescriptor_t d)
{
    return d->indices == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES &&
           (d->op == CUDNN_REDUCE_TENSOR_MIN || d->op == CUDNN_REDUCE_TENSOR_MAX || d->op == CUDNN_REDUCE_TENSOR_AMAX);
}

cudnnStatus_t
fdnn_api_cudnnGetReductionIndicesSize(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                      const cudnnTensorDescriptor_t aDesc, const cudnnTensorDescriptor_t cDesc,
                                      size_t *sizeInBytes)
{
    fdnn_tensor_t a, c;
    RETURN_IF_ERROR(check_problem(handle, reduceTensorDesc, aDesc, cDesc, &a, &c));
    RETURN_IF_NULL(sizeInBytes);
    /* One index per element of C when indices are asked for (whatever the
     * op: only MIN, MAX and AMAX write them). */
    *sizeInBytes = reduceTensorDesc->indices == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                       ? (size_t)fdnn_tensor_elements(&c) * index_size(reduceTensorDesc->indices_type)
                       : 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetReductionWorkspaceSize(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                        const cudnnTensorDescriptor_t aDesc, const cudnnTensorDescriptor_t cDesc,
                                        size_t *sizeInBytes)
{
    fdnn_tensor_t a, c;
    RETURN_IF_ERROR(check_problem(handle, reduceTensorDesc, aDesc, cDesc, &a, &c));
    RETURN_IF_NULL(sizeInBytes);
    *sizeInBytes = fdnn_tensor_reduce_workspace(&a, &c);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnReduceTensor(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc, void *indices,
                           size_t indicesSizeInBytes, void *workspace, size_t workspaceSizeInBytes,
                           const void *alpha, const cudnnTensorDescriptor_t aDesc, const void *A, const void *beta,
                           const cudnnTensorDescriptor_t cDesc, void *C)
{
    fdnn_reduce_t p = {0};
    RETURN_IF_ERROR(check_problem(handle, reduceTensorDesc, aDesc, cDesc, &p.a, &p.c));
    if (has_indices(reduceTensorDesc)) {
        if (reduceTensorDesc->indices_type != CUDNN_32BIT_INDICES)
            return FDNN_NOT_SUPPORTED("only CUDNN_32BIT_INDICES are supported, not type %d",
                                      (int)reduceTensorDesc->indices_type);
        size_t need = (size_t)fdnn_tensor_elements(&p.c) * sizeof(uint32_t);
        RETURN_IF_NULL(indices);
        if (indicesSizeInBytes < need)
            return FDNN_BAD_PARAM("indicesSizeInBytes is %zu, the indices need %zu", indicesSizeInBytes, need);
        if (((uintptr_t)indices & 3u) != 0)
            return FDNN_BAD_PARAM("indices is not aligned to 4 bytes");
        p.indices = indices;
    }
    size_t ws = fdnn_tensor_reduce_workspace(&p.a, &p.c);
    if (workspaceSizeInBytes < ws)
        return FDNN_BAD_PARAM("workspaceSizeInBytes is %zu, the reduction needs %zu", workspaceSizeInBytes, ws);
    if (ws > 0 && workspace == NULL)
        return FDNN_BAD_PARAM("workspace is NULL, the reduction needs %zu bytes", ws);
    if (ws > 0 && ((uintptr_t)workspace & 7u) != 0)
        return FDNN_BAD_PARAM("workspace is not aligned to 8 bytes");
    RETURN_IF_NULL(A);
    RETURN_IF_NULL(C);
    p.f64 = reduceTensorDesc->comp_type == CUDNN_DATA_DOUBLE;
    RETURN_IF_ERROR(fdnn_tops_scale(alpha, "alpha", p.f64, &p.alpha));
    RETURN_IF_ERROR(fdnn_tops_scale(beta, "beta", p.f64, &p.beta));
    /* The reduction reads all of A before it writes each output: C must not
     * overlap A (nor the indices). */
    fdnn_tensor_t cc = p.c;
    if (fdnn_tensor_span(&p.a) > 0) {
        uintptr_t alo = (uintptr_t)A, ahi = alo + (uintptr_t)fdnn_tensor_span(&p.a) * fdnn_dtype_size(p.a.dtype);
        uintptr_t clo = (uintptr_t)C, chi = clo + (uintptr_t)fdnn_tensor_span(&cc) * fdnn_dtype_size(cc.dtype);
        if (!(ahi <= clo || chi <= alo))
            return FDNN_BAD_PARAM("C overlaps A in memory");
    }
    p.op = reduceTensorDesc->op;
    p.propagate_nan = reduceTensorDesc->nan_opt == CUDNN_PROPAGATE_NAN;
    p.a_data = A;
    p.c_data = C;
    fdnn_tensor_reduce(handle, &p, workspace);
    return CUDNN_STATUS_SUCCESS;
}
