/* SPDX-License-Identifier: Apache-2.0
 * The op-tensor descriptor and cudnnOpTensor:
 *     C = op(alpha1 * A, alpha2 * B) + beta * C
 * A has C's dims; B has C's dims or 1 in any of them (broadcast). */
#include <stdlib.h>

#include "api_impl.h"
#include "api/ops_infer/tensor_ops_util.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor_ops_desc.h"
#include "cpu/tensor/tensor_ops.h"

static cudnnStatus_t
check_desc(cudnnOpTensorDescriptor_t d, bool need_set)
{
    if (d == NULL)
        return FDNN_BAD_PARAM("opTensorDesc is NULL");
    if (d->magic != FDNN_OP_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("opTensorDesc is not an op-tensor descriptor (destroyed or never created)");
    if (need_set && !d->is_set)
        return FDNN_BAD_PARAM("opTensorDesc was created but never set");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateOpTensorDescriptor(cudnnOpTensorDescriptor_t *opTensorDesc)
{
    RETURN_IF_NULL(opTensorDesc);
    struct cudnnOpTensorStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate an op-tensor descriptor");
    d->magic = FDNN_OP_TENSOR_MAGIC;
    *opTensorDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc)
{
    if (opTensorDesc == NULL)
        return CUDNN_STATUS_SUCCESS; /* as cuDNN */
    RETURN_IF_ERROR(check_desc(opTensorDesc, false));
    opTensorDesc->magic = 0;
    free(opTensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc, cudnnOpTensorOp_t opTensorOp,
                                    cudnnDataType_t opTensorCompType, cudnnNanPropagation_t opTensorNanOpt)
{
    RETURN_IF_ERROR(check_desc(opTensorDesc, false));
    if ((unsigned)opTensorOp > (unsigned)CUDNN_OP_TENSOR_NOT)
        return FDNN_BAD_PARAM("opTensorOp is %d, not a cudnnOpTensorOp_t", (int)opTensorOp);
    /* The compute types cuDNN's descriptor takes. */
    if (opTensorCompType != CUDNN_DATA_FLOAT && opTensorCompType != CUDNN_DATA_DOUBLE &&
        opTensorCompType != CUDNN_DATA_HALF && opTensorCompType != CUDNN_DATA_BFLOAT16)
        return FDNN_BAD_PARAM("opTensorCompType is %s (%d); expected FLOAT, DOUBLE, HALF or BFLOAT16",
                              fdnn_dtype_name(opTensorCompType), (int)opTensorCompType);
    if ((unsigned)opTensorNanOpt > (unsigned)CUDNN_PROPAGATE_NAN)
        return FDNN_BAD_PARAM("opTensorNanOpt is %d, not a cudnnNanPropagation_t", (int)opTensorNanOpt);
    opTensorDesc->op = opTensorOp;
    opTensorDesc->comp_type = opTensorCompType;
    opTensorDesc->nan_opt = opTensorNanOpt;
    opTensorDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetOpTensorDescriptor(const cudnnOpTensorDescriptor_t opTensorDesc, cudnnOpTensorOp_t *opTensorOp,
                                    cudnnDataType_t *opTensorCompType, cudnnNanPropagation_t *opTensorNanOpt)
{
    RETURN_IF_ERROR(check_desc(opTensorDesc, true));
    RETURN_IF_NULL(opTensorOp);
    RETURN_IF_NULL(opTensorCompType);
    RETURN_IF_NULL(opTensorNanOpt);
    *opTensorOp = opTensorDesc->op;
    *opTensorCompType = opTensorDesc->comp_type;
    *opTensorNanOpt = opTensorDesc->nan_opt;
    return CUDNN_STATUS_SUCCESS;
}

/* The type combinations of cuDNN 8.9's cudnnOpTensor table: (A and B, C)
 * for compute type FLOAT; DOUBLE for all three with compute DOUBLE. */
static bool
types_allowed(cudnnDataType_t comp, cudnnDataType_t ab, cudnnDataType_t c)
{
    if (comp == CUDNN_DATA_DOUBLE)
        return ab == CUDNN_DATA_DOUBLE && c == CUDNN_DATA_DOUBLE;
    if (comp != CUDNN_DATA_FLOAT)
        return false;
    switch (ab) {
    case CUDNN_DATA_FLOAT:
        return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_HALF || c == CUDNN_DATA_INT8 || c == CUDNN_DATA_BFLOAT16;
    case CUDNN_DATA_HALF: return c == CUDNN_DATA_HALF || c == CUDNN_DATA_FLOAT;
    case CUDNN_DATA_BFLOAT16: return c == CUDNN_DATA_BFLOAT16 || c == CUDNN_DATA_FLOAT;
    case CUDNN_DATA_INT8: return c == CUDNN_DATA_INT8 || c == CUDNN_DATA_FLOAT;
    default: return false;
    }
}

static const fdnn_elt_op_t elt_of_op[] = {
    [CUDNN_OP_TENSOR_ADD] = FDNN_ELT_ADD, [CUDNN_OP_TENSOR_MUL] = FDNN_ELT_MUL,
    [CUDNN_OP_TENSOR_MIN] = FDNN_ELT_MIN, [CUDNN_OP_TENSOR_MAX] = FDNN_ELT_MAX,
    [CUDNN_OP_TENSOR_SQRT] = FDNN_ELT_SQRT, [CUDNN_OP_TENSOR_NOT] = FDNN_ELT_NOT,
};

cudnnStatus_t
fdnn_api_cudnnOpTensor(cudnnHandle_t handle, const cudnnOpTensorDescriptor_t opTensorDesc, const void *alpha1,
                       const cudnnTensorDescriptor_t aDesc, const void *A, const void *alpha2,
                       const cudnnTensorDescriptor_t bDesc, const void *B, const void *beta,
                       const cudnnTensorDescriptor_t cDesc, void *C)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(check_desc(opTensorDesc, true));
    const bool binary = opTensorDesc->op <= CUDNN_OP_TENSOR_MAX;
    fdnn_eltwise_t p = {.op = elt_of_op[opTensorDesc->op], .propagate_nan = opTensorDesc->nan_opt == CUDNN_PROPAGATE_NAN};
    /* cuDNN's order: the shapes (A has C's dims, B C's or 1 in any), then
     * NCHW_VECT_C (NOT_SUPPORTED, as in 8.9's text and cuDNN 9's check),
     * then the data types. */
    RETURN_IF_ERROR(fdnn_tops_view_shape(aDesc, "aDesc", &p.a));
    /* SQRT and NOT read A only; B's descriptor and data are ignored. */
    if (binary)
        RETURN_IF_ERROR(fdnn_tops_view_shape(bDesc, "bDesc", &p.b));
    RETURN_IF_ERROR(fdnn_tops_view_shape(cDesc, "cDesc", &p.c));
    RETURN_IF_ERROR(fdnn_tensor_check_output(&p.c, "cDesc"));
    RETURN_IF_ERROR(fdnn_tops_broadcast(&p.a, "aDesc", &p.c, true));
    if (binary)
        RETURN_IF_ERROR(fdnn_tops_broadcast(&p.b, "bDesc", &p.c, false));
    const unsigned types = FDNN_TOPS_FLOAT_TYPES | (1u << CUDNN_DATA_INT8);
    RETURN_IF_ERROR(fdnn_tops_check_type(aDesc, "aDesc", types, "cudnnOpTensor"));
    if (binary)
        RETURN_IF_ERROR(fdnn_tops_check_type(bDesc, "bDesc", types, "cudnnOpTensor"));
    RETURN_IF_ERROR(fdnn_tops_check_type(cDesc, "cDesc", types, "cudnnOpTensor"));
    if (binary && p.a.dtype != p.b.dtype)
        return FDNN_BAD_PARAM("aDesc is %s and bDesc %s: A and B must have the same data type",
                              fdnn_dtype_name(p.a.dtype), fdnn_dtype_name(p.b.dtype));
    if (!types_allowed(opTensorDesc->comp_type, p.a.dtype, p.c.dtype))
        return FDNN_BAD_PARAM("compute type %s with A/B %s and C %s is not in cudnnOpTensor's type table",
                              fdnn_dtype_name(opTensorDesc->comp_type), fdnn_dtype_name(p.a.dtype),
                              fdnn_dtype_name(p.c.dtype));
    /* cuDNN 8.9: tensors of more than 5 dims are BAD_PARAM here. */
    if (p.c.ndim > 5)
        return FDNN_BAD_PARAM("cDesc has %d dims; cudnnOpTensor takes at most 5", p.c.ndim);
    RETURN_IF_NULL(A);
    if (binary)
        RETURN_IF_NULL(B);
    RETURN_IF_NULL(C);
    p.f64 = opTensorDesc->comp_type == CUDNN_DATA_DOUBLE;
    RETURN_IF_ERROR(fdnn_tops_scale(alpha1, "alpha1", p.f64, &p.alpha1));
    if (binary)
        RETURN_IF_ERROR(fdnn_tops_scale(alpha2, "alpha2", p.f64, &p.alpha2));
    RETURN_IF_ERROR(fdnn_tops_scale(beta, "beta", p.f64, &p.beta));
    /* In place (C == A or C == B with the same layout) is allowed. */
    RETURN_IF_ERROR(fdnn_tops_check_alias(&p.a, A, "A", &p.c, C));
    if (binary)
        RETURN_IF_ERROR(fdnn_tops_check_alias(&p.b, B, "B", &p.c, C));
    p.a_data = A;
    p.b_data = binary ? B : NULL;
    p.c_data = C;
    fdnn_tensor_eltwise(handle, &p);
    return CUDNN_STATUS_SUCCESS;
}
