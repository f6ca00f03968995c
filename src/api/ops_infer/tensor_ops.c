/* SPDX-License-Identifier: Apache-2.0
 * cudnnSetTensor, cudnnScaleTensor and cudnnAddTensor: the single-tensor
 * utilities, all on the elementwise engine (src/cpu/tensor). */
#include "api_impl.h"
#include "api/ops_infer/tensor_ops_util.h"
#include "core/fail.h"
#include "core/handle.h"
#include "cpu/tensor/convert.h"
#include "cpu/tensor/tensor_ops.h"

/* The value *valuePtr in y's own data type (cuDNN: "the data type of the
 * element in value[0] has to match the data type of tensor y"), exactly
 * as a double. */
static double
read_value(cudnnDataType_t dtype, const void *p)
{
    switch (dtype) {
    case CUDNN_DATA_FLOAT: return *(const float *)p;
    case CUDNN_DATA_DOUBLE: return *(const double *)p;
    case CUDNN_DATA_HALF: return fdnn_half_to_float(*(const uint16_t *)p);
    case CUDNN_DATA_BFLOAT16: return fdnn_bf16_to_float(*(const uint16_t *)p);
    case CUDNN_DATA_INT8: return *(const int8_t *)p;
    case CUDNN_DATA_UINT8: return *(const uint8_t *)p;
    case CUDNN_DATA_INT32: return *(const int32_t *)p;
    default: return 0.0;
    }
}

cudnnStatus_t
fdnn_api_cudnnSetTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y, const void *valuePtr)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_eltwise_t p = {.op = FDNN_ELT_SET};
    /* NCHW_VECT_C: every lane is set; *valuePtr is one lane (int8 / uint8). */
    RETURN_IF_ERROR(fdnn_tops_view_lanes(yDesc, "yDesc", FDNN_TOPS_ALL_TYPES, &p.c));
    RETURN_IF_ERROR(fdnn_tensor_check_output(&p.c, "yDesc"));
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(valuePtr);
    /* Every value of every type passes exactly: through float, except
     * DOUBLE and INT32 (through double). */
    p.f64 = p.c.dtype == CUDNN_DATA_DOUBLE || p.c.dtype == CUDNN_DATA_INT32;
    p.value = read_value(p.c.dtype, valuePtr);
    p.c_data = y;
    fdnn_tensor_eltwise(handle, &p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnScaleTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y, const void *alpha)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_eltwise_t p = {.op = FDNN_ELT_COPY};
    /* NCHW_VECT_C: every lane is scaled (rounded, saturated). */
    RETURN_IF_ERROR(fdnn_tops_view_lanes(yDesc, "yDesc", FDNN_TOPS_ALL_TYPES, &p.c));
    RETURN_IF_ERROR(fdnn_tensor_check_output(&p.c, "yDesc"));
    RETURN_IF_NULL(y);
    p.f64 = p.c.dtype == CUDNN_DATA_DOUBLE;
    RETURN_IF_ERROR(fdnn_tops_scale(alpha, "alpha", p.f64, &p.alpha1));
    /* y = alpha * y: in place, each element from itself. */
    p.a = p.c;
    p.a_data = y;
    p.c_data = y;
    fdnn_tensor_eltwise(handle, &p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnAddTensor(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t aDesc, const void *A,
                        const void *beta, const cudnnTensorDescriptor_t cDesc, void *C)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_eltwise_t p = {.op = FDNN_ELT_COPY};
    /* cuDNN's order: the shapes, then the data types (the same for A and C;
     * then among FLOAT, DOUBLE, HALF, BFLOAT16 and INT8, so no vector type
     * and no NCHW_VECT_C: cuDNN 9 refuses them with NOT_SUPPORTED, see
     * docs/tensor-ops.md). */
    RETURN_IF_ERROR(fdnn_tops_view_shape(aDesc, "aDesc", &p.a));
    RETURN_IF_ERROR(fdnn_tops_view_shape(cDesc, "cDesc", &p.c));
    RETURN_IF_ERROR(fdnn_tensor_check_output(&p.c, "cDesc"));
    RETURN_IF_ERROR(fdnn_tops_broadcast(&p.a, "aDesc", &p.c, false));
    if (p.a.dtype != p.c.dtype)
        return FDNN_BAD_PARAM("aDesc is %s and cDesc %s: the data types must match", fdnn_dtype_name(p.a.dtype),
                              fdnn_dtype_name(p.c.dtype));
    const unsigned types = FDNN_TOPS_FLOAT_TYPES | (1u << CUDNN_DATA_INT8);
    RETURN_IF_ERROR(fdnn_tops_check_type(aDesc, "aDesc", types, "cudnnAddTensor"));
    RETURN_IF_ERROR(fdnn_tops_check_type(cDesc, "cDesc", types, "cudnnAddTensor"));
    /* cuDNN 8.9: "up to dimension 5 ... beyond those dimensions, this
     * routine is not supported". */
    if (p.c.ndim > 5)
        return FDNN_NOT_SUPPORTED("cDesc has %d dims; cudnnAddTensor takes at most 5", p.c.ndim);
    RETURN_IF_NULL(A);
    RETURN_IF_NULL(C);
    p.f64 = p.c.dtype == CUDNN_DATA_DOUBLE;
    RETURN_IF_ERROR(fdnn_tops_scale(alpha, "alpha", p.f64, &p.alpha1));
    RETURN_IF_ERROR(fdnn_tops_scale(beta, "beta", p.f64, &p.beta));
    RETURN_IF_ERROR(fdnn_tops_check_alias(&p.a, A, "A", &p.c, C));
    p.a_data = A;
    p.c_data = C;
    fdnn_tensor_eltwise(handle, &p);
    return CUDNN_STATUS_SUCCESS;
}
