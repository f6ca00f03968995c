/* SPDX-License-Identifier: Apache-2.0
 * Tensor and filter descriptors, and the plain tensor view that everything
 * below the API layer works on.
 *
 * Nothing below src/api reads a descriptor: the API layer turns each one into
 * an fdnn_tensor_t (dims and strides in elements, 64-bit) and passes that
 * down. */
#ifndef FDNN_CORE_TENSOR_H
#define FDNN_CORE_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_TENSOR_MAGIC 0x524e5354u /* "TSNR" */
#define FDNN_FILTER_MAGIC 0x544c4946u /* "FILT" */

struct cudnnTensorStruct {
    uint32_t magic;
    bool is_set;
    cudnnDataType_t dtype;
    cudnnTensorFormat_t format; /* as given; NCHW for strided descriptors */
    int nb_dims;
    int dims[CUDNN_DIM_MAX];    /* NCHW_VECT_C: C counts vectors * vect */
    int strides[CUDNN_DIM_MAX]; /* in elements (vectors for NCHW_VECT_C) */
    int vect;                   /* elements per vector: 1, 4 or 32 */
};

struct cudnnFilterStruct {
    uint32_t magic;
    bool is_set;
    cudnnDataType_t dtype;
    cudnnTensorFormat_t format;
    int nb_dims;
    int dims[CUDNN_DIM_MAX]; /* always K, C, [D,] H, W, whatever the format */
};

/* A tensor as kernels see it.  dims/strides are in elements of `dtype`;
 * dims beyond `ndim` are 1 with stride 0. */
typedef struct fdnn_tensor {
    cudnnDataType_t dtype;
    int ndim;
    int64_t dims[CUDNN_DIM_MAX];
    int64_t strides[CUDNN_DIM_MAX];
} fdnn_tensor_t;

/* Bytes per element of a data type; 0 for an invalid enumerator.  The
 * vectorised types count one vector (INT8x4: 4 bytes). */
size_t fdnn_dtype_size(cudnnDataType_t dtype);
bool fdnn_dtype_is_valid(cudnnDataType_t dtype);
const char *fdnn_dtype_name(cudnnDataType_t dtype);

/* The table of legal (data type, format) pairs of the legacy descriptors
 * (docs/descriptors.md), one for both kinds so that they cannot drift:
 *
 *   type                          tensor          filter
 *   FLOAT DOUBLE HALF BFLOAT16    NCHW NHWC       NCHW NHWC
 *   INT8 UINT8                    NCHW NHWC       NCHW NHWC
 *   INT32                         NCHW NHWC       -  (cuDNN 9 refuses)
 *   INT8x4 UINT8x4 INT8x32        all three       all three
 *   INT64 BOOLEAN FP8_*           -  (backend API types)
 *
 * NCHW_VECT_C takes the vector types only, with C a multiple of the vector
 * width (FDNN_DESC_TENSOR and FDNN_DESC_FILTER alike).  Every refusal is
 * BAD_PARAM, as cuDNN's. */
typedef enum fdnn_desc_kind { FDNN_DESC_TENSOR, FDNN_DESC_FILTER } fdnn_desc_kind_t;

/* Elements per vector of INT8x4, UINT8x4 (4) and INT8x32 (32); 0 for the
 * other types. */
int fdnn_dtype_vect(cudnnDataType_t dtype);

/* BAD_PARAM unless `dtype` is a legal type of a descriptor of `kind`. */
cudnnStatus_t fdnn_desc_check_type(fdnn_desc_kind_t kind, cudnnDataType_t dtype);

/* BAD_PARAM unless (dtype, format) is a legal pair (the format an
 * enumerator, NCHW_VECT_C with a vector type and `c` a multiple of its
 * width).  Checks the type first. */
cudnnStatus_t fdnn_desc_check_type_format(fdnn_desc_kind_t kind, cudnnDataType_t dtype, cudnnTensorFormat_t format,
                                          int c);

/* BAD_PARAM (with `what` in the reason) unless desc is a created, set tensor
 * descriptor; on success fills *out. */
cudnnStatus_t fdnn_tensor_from_desc(cudnnTensorDescriptor_t desc, const char *what, fdnn_tensor_t *out);

/* Same for a filter descriptor: strides are the packed strides of its format
 * expressed in KCRS order. */
cudnnStatus_t fdnn_tensor_from_filter(cudnnFilterDescriptor_t desc, const char *what, fdnn_tensor_t *out);

/* Sets a tensor descriptor to the packed layout of `format` (as
 * cudnnSetTensorNdDescriptorEx, with the same checks and statuses), for
 * functions that derive a descriptor (cudnnInitTransformDest).  Defined in
 * src/api/ops_infer/tensor_desc.c. */
cudnnStatus_t fdnn_tensor_set_packed(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format, cudnnDataType_t dtype,
                                     int nb, const int *dims);

/* Number of elements (product of dims). */
int64_t fdnn_tensor_elements(const fdnn_tensor_t *t);

/* Elements spanned from the first to one past the last element: the size of
 * the buffer the tensor needs. */
int64_t fdnn_tensor_span(const fdnn_tensor_t *t);

bool fdnn_tensor_same_dims(const fdnn_tensor_t *a, const fdnn_tensor_t *b);

/* The one rule for every output tensor of every op (docs/tensor-ops.md,
 * "Outputs whose elements alias"): BAD_PARAM, naming `what`, when two of
 * the tensor's elements share memory.  cuDNN's definition: with the dims of
 * size > 1 sorted by stride, each stride must be at least the extent
 * (stride * dim) of the one below it; an output that breaks it "cannot
 * overlap".  Inputs may alias freely. */
cudnnStatus_t fdnn_tensor_check_output(const fdnn_tensor_t *t, const char *what);

/* The dims from `first` on whose size is above 1, by increasing stride,
 * into idx; returns how many.  (Density and aliasing checks walk a tensor
 * in this order.) */
int fdnn_tensor_dims_by_stride(const fdnn_tensor_t *t, int first, int idx[CUDNN_DIM_MAX]);

/* fdnn_tensor_from_desc followed by fdnn_tensor_check_output: how the API
 * layer reads the descriptor of an output. */
cudnnStatus_t fdnn_output_from_desc(cudnnTensorDescriptor_t desc, const char *what, fdnn_tensor_t *out);

/* True when the tensor is dense in NCHW order (row-major strides). */
bool fdnn_tensor_is_packed(const fdnn_tensor_t *t);

/* The canonical string of a tensor, e.g. "f32:32x64x56x56:200704x3136x56x1",
 * used in problem strings and logs. */
void fdnn_tensor_to_string(const fdnn_tensor_t *t, char *buf, size_t size);

#endif /* FDNN_CORE_TENSOR_H */
