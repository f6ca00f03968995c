/* SPDX-License-Identifier: Apache-2.0
 * cudnnCTCLoss, cudnnCTCLoss_v8 and their workspace queries.
 *
 * cuDNN 8.9 semantics (docs/ctc.md):
 *  - probsDesc and gradientsDesc: 3-D T x N x A (time, batch, alphabet with
 *    the blank at 0), FLOAT, the same dims (BAD_PARAM otherwise); any
 *    non-overlapping strides.
 *  - the descriptor's compute type must be FLOAT and algo a
 *    cudnnCTCLossAlgo_t (NOT_SUPPORTED otherwise); both algorithms give the
 *    same, deterministic result.
 *  - normMode SOFTMAX: probs are activations, softmax applied inside; NONE:
 *    probs are probabilities.  Gradients are with respect to the
 *    activations in both cases (cuDNN's documented convention).
 *  - labels packed one sample after the other, values 1..A-1; label
 *    lengths 0..256 (cuDNN's limit; _v8: at most the descriptor's
 *    maxLabelLength when set); input lengths 0..T.  Anything else is
 *    BAD_PARAM: every value is checked before anything is read or written.
 *  - a workspace smaller than the query's answer is BAD_PARAM.
 *  - cudnnCTCLoss takes host arrays, _v8 "device" arrays: on the CPU both are
 *    host memory.  The _v8 workspace is sized for maxLabelLength labels per
 *    sample (256 when the descriptor leaves it 0), since _v8's query does
 *    not see the labels. */
#include <stdint.h>

#include "api_impl.h"
#include "core/ctc_desc.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "cpu/ctc/ctc.h"

cudnnStatus_t fdnn_check_data_ptr(const void *ptr, cudnnDataType_t dtype, const char *what);

/* Descriptor checks shared by all four functions; fills the shape part of *p. */
static cudnnStatus_t
check_descs(cudnnHandle_t handle, cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
            cudnnTensorDescriptor_t probsDesc, cudnnTensorDescriptor_t gradientsDesc, fdnn_ctc_problem_t *p)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_ctc_desc_check(ctcLossDesc, "ctcLossDesc"));
    if (algo != CUDNN_CTC_LOSS_ALGO_DETERMINISTIC && algo != CUDNN_CTC_LOSS_ALGO_NON_DETERMINISTIC)
        return FDNN_NOT_SUPPORTED("algo is %d, not a cudnnCTCLossAlgo_t", (int)algo);
    if (ctcLossDesc->comp_type != CUDNN_DATA_FLOAT)
        return FDNN_NOT_SUPPORTED("ctcLossDesc compute type is %s; CTC loss supports FLOAT only",
                                  fdnn_dtype_name(ctcLossDesc->comp_type));
    fdnn_tensor_t pt, gt;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(probsDesc, "probsDesc", &pt));
    RETURN_IF_ERROR(fdnn_tensor_from_desc(gradientsDesc, "gradientsDesc", &gt));
    if (pt.ndim != 3)
        return FDNN_BAD_PARAM("probsDesc has %d dims, expected 3 (T x N x A)", pt.ndim);
    if (gt.ndim != 3)
        return FDNN_BAD_PARAM("gradientsDesc has %d dims, expected 3 (T x N x A)", gt.ndim);
    if (pt.dtype != CUDNN_DATA_FLOAT)
        return FDNN_NOT_SUPPORTED("probsDesc is %s; CTC loss supports FLOAT only", fdnn_dtype_name(pt.dtype));
    if (gt.dtype != CUDNN_DATA_FLOAT)
        return FDNN_NOT_SUPPORTED("gradientsDesc is %s; CTC loss supports FLOAT only", fdnn_dtype_name(gt.dtype));
    if (!fdnn_tensor_same_dims(&pt, &gt))
        return FDNN_BAD_PARAM("probsDesc (%lldx%lldx%lld) and gradientsDesc (%lldx%lldx%lld) have different dims",
                              (long long)pt.dims[0], (long long)pt.dims[1], (long long)pt.dims[2],
                              (long long)gt.dims[0], (long long)gt.dims[1], (long long)gt.dims[2]);
    RETURN_IF_ERROR(fdnn_tensor_check_output(&gt, "gradientsDesc"));
    *p = (fdnn_ctc_problem_t){.T = pt.dims[0], .N = pt.dims[1], .A = pt.dims[2],
                              .softmax = ctcLossDesc->norm_mode == CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                              .propagate_nan = ctcLossDesc->grad_mode == CUDNN_PROPAGATE_NAN};
    for (int i = 0; i < 3; i++) {
        p->ps[i] = pt.strides[i];
        p->gs[i] = gt.strides[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* The length arrays: inputLengths[b] in 0..T, labelLengths[b] in
 * 0..limit.  This is all a workspace query checks (cuDNN's query looks at
 * shapes and lengths only).  `names` are the argument names of the calling
 * function (labels, labelLengths, inputLengths), for the reasons.  Sets
 * *longest to the longest label sequence. */
static cudnnStatus_t
check_lengths(const fdnn_ctc_problem_t *p, const int *labelLengths, const int *inputLengths, int limit,
              const char *limit_what, const char *const names[3], int *longest)
{
    if (labelLengths == NULL)
        return FDNN_BAD_PARAM("%s is NULL", names[1]);
    if (inputLengths == NULL)
        return FDNN_BAD_PARAM("%s is NULL", names[2]);
    *longest = 0;
    for (int64_t b = 0; b < p->N; b++) {
        if (inputLengths[b] < 0 || inputLengths[b] > p->T)
            return FDNN_BAD_PARAM("%s[%lld] is %d, must be 0 to %lld (the first dim of probsDesc)", names[2],
                                  (long long)b, inputLengths[b], (long long)p->T);
        if (labelLengths[b] < 0 || labelLengths[b] > limit)
            return FDNN_BAD_PARAM("%s[%lld] is %d, must be 0 to %d (%s)", names[1], (long long)b, labelLengths[b],
                                  limit, limit_what);
        if (labelLengths[b] > *longest)
            *longest = labelLengths[b];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* The label values, checked by the loss functions only (the queries never
 * read them): 1..A-1, as 0 is the blank and A or more would index outside
 * the probs row.  Needs the lengths checked first. */
static cudnnStatus_t
check_label_values(const fdnn_ctc_problem_t *p, const int *labels, const int *labelLengths,
                   const char *const names[3])
{
    if (labels == NULL)
        return FDNN_BAD_PARAM("%s is NULL", names[0]);
    int64_t off = 0;
    for (int64_t b = 0; b < p->N; b++)
        for (int i = 0; i < labelLengths[b]; i++, off++)
            if (labels[off] < 1 || labels[off] >= p->A)
                return FDNN_BAD_PARAM("%s[%lld] (sample %lld) is %d, must be 1 to %lld (0 is the blank)", names[0],
                                      (long long)off, (long long)b, labels[off], (long long)(p->A - 1));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
set_size(const fdnn_ctc_problem_t *p, int max_label, size_t *sizeInBytes)
{
    size_t bytes = fdnn_ctc_workspace_bytes(p->T, p->N, p->A, max_label);
    if (bytes == SIZE_MAX)
        return FDNN_BAD_PARAM("the workspace size of a %lldx%lldx%lld problem overflows size_t", (long long)p->T,
                              (long long)p->N, (long long)p->A);
    *sizeInBytes = bytes;
    return CUDNN_STATUS_SUCCESS;
}

/* The _v8 functions size the workspace by the descriptor's maxLabelLength. */
static cudnnStatus_t
v8_max_label(cudnnCTCLossDescriptor_t d, int *max_label)
{
    if (d->max_label_length > FDNN_CTC_MAX_LABEL)
        return FDNN_BAD_PARAM("ctcLossDesc maxLabelLength is %d, more than cuDNN's limit of %d", d->max_label_length,
                              FDNN_CTC_MAX_LABEL);
    *max_label = d->max_label_length > 0 ? d->max_label_length : FDNN_CTC_MAX_LABEL;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
run(cudnnHandle_t handle, fdnn_ctc_problem_t *p, const void *probs, void *costs, void *gradients, void *workspace,
    size_t workSpaceSizeInBytes)
{
    RETURN_IF_NULL(probs);
    RETURN_IF_NULL(costs);
    RETURN_IF_NULL(gradients);
    RETURN_IF_ERROR(fdnn_check_data_ptr(probs, CUDNN_DATA_FLOAT, "probs"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(costs, CUDNN_DATA_FLOAT, "costs"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(gradients, CUDNN_DATA_FLOAT, "gradients"));
    size_t need = 0;
    RETURN_IF_ERROR(set_size(p, p->max_label, &need));
    if (workSpaceSizeInBytes < need)
        return FDNN_BAD_PARAM("workSpaceSizeInBytes is %zu, this problem needs %zu", workSpaceSizeInBytes, need);
    RETURN_IF_NULL(workspace);
    if ((uintptr_t)workspace % sizeof(double) != 0)
        return FDNN_BAD_PARAM("workspace (%p) is not 8-byte aligned", workspace);
    fdnn_ctc_loss(handle, p, probs, costs, gradients, workspace);
    return CUDNN_STATUS_SUCCESS;
}

static const char *const host_names[3] = {"hostLabels", "hostLabelLengths", "hostInputLengths"};
static const char *const dev_names[3] = {"labels", "labelLengths", "inputLengths"};

cudnnStatus_t
fdnn_api_cudnnGetCTCLossWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc,
                                      const cudnnTensorDescriptor_t gradientsDesc, const int *labels,
                                      const int *labelLengths, const int *inputLengths, cudnnCTCLossAlgo_t algo,
                                      cudnnCTCLossDescriptor_t ctcLossDesc, size_t *sizeInBytes)
{
    fdnn_ctc_problem_t p;
    RETURN_IF_ERROR(check_descs(handle, algo, ctcLossDesc, probsDesc, gradientsDesc, &p));
    RETURN_IF_NULL(sizeInBytes);
    /* labels is not read: the size depends on the lengths only. */
    (void)labels;
    int longest;
    RETURN_IF_ERROR(check_lengths(&p, labelLengths, inputLengths, FDNN_CTC_MAX_LABEL, "cuDNN's limit", dev_names,
                                  &longest));
    return set_size(&p, longest, sizeInBytes);
}

cudnnStatus_t
fdnn_api_cudnnGetCTCLossWorkspaceSize_v8(cudnnHandle_t handle, cudnnCTCLossAlgo_t algo,
                                         cudnnCTCLossDescriptor_t ctcLossDesc,
                                         const cudnnTensorDescriptor_t probsDesc,
                                         const cudnnTensorDescriptor_t gradientsDesc, size_t *sizeInBytes)
{
    fdnn_ctc_problem_t p;
    RETURN_IF_ERROR(check_descs(handle, algo, ctcLossDesc, probsDesc, gradientsDesc, &p));
    RETURN_IF_NULL(sizeInBytes);
    int max_label = 0;
    RETURN_IF_ERROR(v8_max_label(ctcLossDesc, &max_label));
    return set_size(&p, max_label, sizeInBytes);
}

cudnnStatus_t
fdnn_api_cudnnCTCLoss(cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc, const void *probs,
                      const int *hostLabels, const int *hostLabelLengths, const int *hostInputLengths, void *costs,
                      const cudnnTensorDescriptor_t gradientsDesc, void *gradients, cudnnCTCLossAlgo_t algo,
                      cudnnCTCLossDescriptor_t ctcLossDesc, void *workspace, size_t workSpaceSizeInBytes)
{
    fdnn_ctc_problem_t p;
    RETURN_IF_ERROR(check_descs(handle, algo, ctcLossDesc, probsDesc, gradientsDesc, &p));
    RETURN_IF_ERROR(check_lengths(&p, hostLabelLengths, hostInputLengths, FDNN_CTC_MAX_LABEL, "cuDNN's limit",
                                  host_names, &p.max_label));
    RETURN_IF_ERROR(check_label_values(&p, hostLabels, hostLabelLengths, host_names));
    p.labels = hostLabels;
    p.label_lengths = hostLabelLengths;
    p.input_lengths = hostInputLengths;
    return run(handle, &p, probs, costs, gradients, workspace, workSpaceSizeInBytes);
}

cudnnStatus_t
fdnn_api_cudnnCTCLoss_v8(cudnnHandle_t handle, cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
                         const cudnnTensorDescriptor_t probsDesc, const void *probs, const int *labels,
                         const int *labelLengths, const int *inputLengths, void *costs,
                         const cudnnTensorDescriptor_t gradientsDesc, void *gradients, size_t workSpaceSizeInBytes,
                         void *workspace)
{
    fdnn_ctc_problem_t p;
    RETURN_IF_ERROR(check_descs(handle, algo, ctcLossDesc, probsDesc, gradientsDesc, &p));
    RETURN_IF_ERROR(v8_max_label(ctcLossDesc, &p.max_label));
    int longest;
    RETURN_IF_ERROR(check_lengths(&p, labelLengths, inputLengths, p.max_label,
                                  ctcLossDesc->max_label_length > 0 ? "ctcLossDesc maxLabelLength" : "cuDNN's limit",
                                  dev_names, &longest));
    RETURN_IF_ERROR(check_label_values(&p, labels, labelLengths, dev_names));
    p.labels = labels;
    p.label_lengths = labelLengths;
    p.input_lengths = inputLengths;
    return run(handle, &p, probs, costs, gradients, workspace, workSpaceSizeInBytes);
}
