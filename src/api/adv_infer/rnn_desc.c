/* SPDX-License-Identifier: Apache-2.0
 * RNN descriptors: create/destroy, the v8 setter and getter, the legacy v6
 * setter/getter and field setters (math type, bias mode, padding mode,
 * projection, clipping) and cudnnBuildRNNDynamic.
 *
 * Checks follow cuDNN 8.9 and, where its documentation does not say which
 * status a case gets, what NVIDIA's library answers (docs/descriptors-adv.md
 * lists the cases).  The order of the checks matters when several arguments
 * are wrong at once: enumerants, then sizes, then auxFlags, then the
 * projection, then the data type pair, as cuDNN does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/rnn_desc.h"
#include "core/tensor.h"

cudnnStatus_t
fdnn_rnn_desc_check(cudnnRNNDescriptor_t desc, const char *what)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_RNN_MAGIC)
        return FDNN_BAD_PARAM("%s is not an RNN descriptor (destroyed or never created)", what);
    if (!desc->is_set)
        return FDNN_BAD_PARAM("%s was never set (cudnnSetRNNDescriptor_v8)", what);
    return CUDNN_STATUS_SUCCESS;
}

/* Created, set or not. */
static cudnnStatus_t
check_created(cudnnRNNDescriptor_t desc)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("rnnDesc is NULL");
    if (desc->magic != FDNN_RNN_MAGIC)
        return FDNN_BAD_PARAM("rnnDesc is not an RNN descriptor (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

static void
reset_clip(struct cudnnRNNStruct *d)
{
    d->clip_mode = CUDNN_RNN_CLIP_NONE;
    d->clip_nan_opt = CUDNN_NOT_PROPAGATE_NAN;
    d->lclip = 0.0;
    d->rclip = 0.0;
}

static cudnnStatus_t
check_enums(cudnnRNNAlgo_t algo, cudnnRNNMode_t cellMode, cudnnDirectionMode_t dirMode,
            cudnnRNNInputMode_t inputMode)
{
    if ((unsigned)algo > CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H)
        return FDNN_BAD_PARAM("algo is %d, not a cudnnRNNAlgo_t", (int)algo);
    if ((unsigned)cellMode > CUDNN_GRU)
        return FDNN_BAD_PARAM("cellMode is %d, not a cudnnRNNMode_t", (int)cellMode);
    if ((unsigned)dirMode > CUDNN_BIDIRECTIONAL)
        return FDNN_BAD_PARAM("dirMode is %d, not a cudnnDirectionMode_t", (int)dirMode);
    if ((unsigned)inputMode > CUDNN_SKIP_INPUT)
        return FDNN_BAD_PARAM("inputMode is %d, not a cudnnRNNInputMode_t", (int)inputMode);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_bias_mode(cudnnRNNBiasMode_t biasMode)
{
    if ((unsigned)biasMode > CUDNN_RNN_SINGLE_REC_BIAS)
        return FDNN_BAD_PARAM("biasMode is %d, not a cudnnRNNBiasMode_t", (int)biasMode);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_math_type(cudnnMathType_t mathType)
{
    if ((unsigned)mathType > CUDNN_FMA_MATH)
        return FDNN_BAD_PARAM("mathType is %d, not a cudnnMathType_t", (int)mathType);
    return CUDNN_STATUS_SUCCESS;
}

/* The recurrent projection exists only for LSTM with the standard algorithm
 * and cannot widen the hidden state. */
static cudnnStatus_t
check_projection(cudnnRNNAlgo_t algo, cudnnRNNMode_t cellMode, int hiddenSize, int projSize)
{
    if (projSize > hiddenSize)
        return FDNN_NOT_SUPPORTED("projSize (%d) is larger than hiddenSize (%d)", projSize, hiddenSize);
    if (projSize < hiddenSize && cellMode != CUDNN_LSTM)
        return FDNN_NOT_SUPPORTED("projSize (%d) < hiddenSize (%d) needs CUDNN_LSTM cells", projSize,
                                  hiddenSize);
    if (projSize < hiddenSize && algo != CUDNN_RNN_ALGO_STANDARD)
        return FDNN_NOT_SUPPORTED("projSize (%d) < hiddenSize (%d) needs CUDNN_RNN_ALGO_STANDARD", projSize,
                                  hiddenSize);
    return CUDNN_STATUS_SUCCESS;
}

/* Supported (data, math) pairs: FLOAT/FLOAT, HALF/HALF, HALF/FLOAT,
 * DOUBLE/DOUBLE, BFLOAT16/FLOAT. */
static cudnnStatus_t
check_types(cudnnDataType_t dataType, cudnnDataType_t mathPrec)
{
    bool ok = false;
    switch (dataType) {
    case CUDNN_DATA_FLOAT: ok = mathPrec == CUDNN_DATA_FLOAT; break;
    case CUDNN_DATA_HALF: ok = mathPrec == CUDNN_DATA_HALF || mathPrec == CUDNN_DATA_FLOAT; break;
    case CUDNN_DATA_DOUBLE: ok = mathPrec == CUDNN_DATA_DOUBLE; break;
    case CUDNN_DATA_BFLOAT16: ok = mathPrec == CUDNN_DATA_FLOAT; break;
    default: break;
    }
    if (!ok)
        return FDNN_NOT_SUPPORTED("dataType %s with mathPrec %s is not supported", fdnn_dtype_name(dataType),
                                  fdnn_dtype_name(mathPrec));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateRNNDescriptor(cudnnRNNDescriptor_t *rnnDesc)
{
    RETURN_IF_NULL(rnnDesc);
    struct cudnnRNNStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate an RNN descriptor");
    d->magic = FDNN_RNN_MAGIC;
    d->math_type = CUDNN_DEFAULT_MATH;
    d->bias_mode = CUDNN_RNN_DOUBLE_BIAS;
    reset_clip(d);
    *rnnDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyRNNDescriptor(cudnnRNNDescriptor_t rnnDesc)
{
    if (rnnDesc == NULL)
        return CUDNN_STATUS_SUCCESS; /* as cuDNN: destroying NULL is a no-op */
    RETURN_IF_ERROR(check_created(rnnDesc));
    rnnDesc->magic = 0;
    free(rnnDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetRNNDescriptor_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t algo, cudnnRNNMode_t cellMode,
                                  cudnnRNNBiasMode_t biasMode, cudnnDirectionMode_t dirMode,
                                  cudnnRNNInputMode_t inputMode, cudnnDataType_t dataType,
                                  cudnnDataType_t mathPrec, cudnnMathType_t mathType, int32_t inputSize,
                                  int32_t hiddenSize, int32_t projSize, int32_t numLayers,
                                  cudnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags)
{
    RETURN_IF_ERROR(check_created(rnnDesc));
    RETURN_IF_ERROR(check_enums(algo, cellMode, dirMode, inputMode));
    RETURN_IF_ERROR(check_bias_mode(biasMode));
    RETURN_IF_ERROR(check_math_type(mathType));
    if (!fdnn_dtype_is_valid(dataType))
        return FDNN_BAD_PARAM("dataType is %d, not a cudnnDataType_t", (int)dataType);
    if (!fdnn_dtype_is_valid(mathPrec))
        return FDNN_BAD_PARAM("mathPrec is %d, not a cudnnDataType_t", (int)mathPrec);
    if (inputSize <= 0)
        return FDNN_BAD_PARAM("inputSize is %d, must be positive", (int)inputSize);
    if (hiddenSize <= 0)
        return FDNN_BAD_PARAM("hiddenSize is %d, must be positive", (int)hiddenSize);
    if (projSize <= 0)
        return FDNN_BAD_PARAM("projSize is %d, must be positive", (int)projSize);
    if (numLayers <= 0)
        return FDNN_BAD_PARAM("numLayers is %d, must be positive", (int)numLayers);
    if ((auxFlags & ~(uint32_t)CUDNN_RNN_PADDED_IO_ENABLED) != 0)
        return FDNN_BAD_PARAM("auxFlags is 0x%x, only CUDNN_RNN_PADDED_IO_ENABLED (0x1) is defined", auxFlags);
    RETURN_IF_ERROR(check_projection(algo, cellMode, hiddenSize, projSize));
    RETURN_IF_ERROR(check_types(dataType, mathPrec));

    rnnDesc->algo = algo;
    rnnDesc->cell_mode = cellMode;
    rnnDesc->bias_mode = biasMode;
    rnnDesc->dir_mode = dirMode;
    rnnDesc->input_mode = inputMode;
    rnnDesc->data_type = dataType;
    rnnDesc->math_prec = mathPrec;
    rnnDesc->math_type = mathType;
    rnnDesc->input_size = inputSize;
    rnnDesc->hidden_size = hiddenSize;
    rnnDesc->proj_size = projSize;
    rnnDesc->num_layers = numLayers;
    rnnDesc->dropout = dropoutDesc;
    rnnDesc->aux_flags = auxFlags;
    rnnDesc->legacy_v6 = false;
    rnnDesc->dynamic_mini_batch = 0;
    reset_clip(rnnDesc); /* as cuDNN: a new configuration drops the clipping */
    rnnDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* Every output may be NULL: that value is not returned. */
cudnnStatus_t
fdnn_api_cudnnGetRNNDescriptor_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t *algo, cudnnRNNMode_t *cellMode,
                                  cudnnRNNBiasMode_t *biasMode, cudnnDirectionMode_t *dirMode,
                                  cudnnRNNInputMode_t *inputMode, cudnnDataType_t *dataType,
                                  cudnnDataType_t *mathPrec, cudnnMathType_t *mathType, int32_t *inputSize,
                                  int32_t *hiddenSize, int32_t *projSize, int32_t *numLayers,
                                  cudnnDropoutDescriptor_t *dropoutDesc, uint32_t *auxFlags)
{
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    const struct cudnnRNNStruct *d = rnnDesc;
    if (algo != NULL)
        *algo = d->algo;
    if (cellMode != NULL)
        *cellMode = d->cell_mode;
    if (biasMode != NULL)
        *biasMode = d->bias_mode;
    if (dirMode != NULL)
        *dirMode = d->dir_mode;
    if (inputMode != NULL)
        *inputMode = d->input_mode;
    if (dataType != NULL)
        *dataType = d->data_type;
    if (mathPrec != NULL)
        *mathPrec = d->math_prec;
    if (mathType != NULL)
        *mathType = d->math_type;
    if (inputSize != NULL)
        *inputSize = d->input_size;
    if (hiddenSize != NULL)
        *hiddenSize = d->hidden_size;
    if (projSize != NULL)
        *projSize = d->proj_size;
    if (numLayers != NULL)
        *numLayers = d->num_layers;
    if (dropoutDesc != NULL)
        *dropoutDesc = d->dropout;
    if (auxFlags != NULL)
        *auxFlags = d->aux_flags;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- legacy (v6/v7) interface ------------------------------------------ */

/* The v6 setter knows neither the input size nor the data type: the legacy
 * operations take both from their xDesc.  mathPrec doubles as the data type
 * until then; padded I/O stays off, as the legacy default. */
cudnnStatus_t
fdnn_api_cudnnSetRNNDescriptor_v6(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int hiddenSize,
                                  const int numLayers, cudnnDropoutDescriptor_t dropoutDesc,
                                  cudnnRNNInputMode_t inputMode, cudnnDirectionMode_t direction,
                                  cudnnRNNMode_t cellMode, cudnnRNNAlgo_t algo, cudnnDataType_t mathPrec)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(check_created(rnnDesc));
    if (hiddenSize <= 0)
        return FDNN_BAD_PARAM("hiddenSize is %d, must be positive", hiddenSize);
    if (numLayers <= 0)
        return FDNN_BAD_PARAM("numLayers is %d, must be positive", numLayers);
    RETURN_IF_ERROR(check_enums(algo, cellMode, direction, inputMode));
    if (!fdnn_dtype_is_valid(mathPrec))
        return FDNN_BAD_PARAM("mathPrec is %d, not a cudnnDataType_t", (int)mathPrec);
    if (dropoutDesc == NULL)
        return FDNN_BAD_PARAM("dropoutDesc is NULL (the v6 interface needs a dropout descriptor)");
    if (mathPrec != CUDNN_DATA_FLOAT && mathPrec != CUDNN_DATA_HALF && mathPrec != CUDNN_DATA_DOUBLE)
        return FDNN_NOT_SUPPORTED("mathPrec %s is not supported (HALF, FLOAT or DOUBLE)", fdnn_dtype_name(mathPrec));

    rnnDesc->algo = algo;
    rnnDesc->cell_mode = cellMode;
    rnnDesc->bias_mode = CUDNN_RNN_DOUBLE_BIAS;
    rnnDesc->dir_mode = direction;
    rnnDesc->input_mode = inputMode;
    rnnDesc->data_type = mathPrec;
    rnnDesc->math_prec = mathPrec;
    rnnDesc->math_type = CUDNN_DEFAULT_MATH;
    rnnDesc->input_size = 0;
    rnnDesc->hidden_size = hiddenSize;
    rnnDesc->proj_size = hiddenSize;
    rnnDesc->num_layers = numLayers;
    rnnDesc->dropout = dropoutDesc;
    rnnDesc->aux_flags = CUDNN_RNN_PADDED_IO_DISABLED;
    rnnDesc->legacy_v6 = true;
    rnnDesc->dynamic_mini_batch = 0;
    reset_clip(rnnDesc);
    rnnDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetRNNDescriptor_v6(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int *hiddenSize,
                                  int *numLayers, cudnnDropoutDescriptor_t *dropoutDesc,
                                  cudnnRNNInputMode_t *inputMode, cudnnDirectionMode_t *direction,
                                  cudnnRNNMode_t *cellMode, cudnnRNNAlgo_t *algo, cudnnDataType_t *mathPrec)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    if (hiddenSize != NULL)
        *hiddenSize = rnnDesc->hidden_size;
    if (numLayers != NULL)
        *numLayers = rnnDesc->num_layers;
    if (dropoutDesc != NULL)
        *dropoutDesc = rnnDesc->dropout;
    if (inputMode != NULL)
        *inputMode = rnnDesc->input_mode;
    if (direction != NULL)
        *direction = rnnDesc->dir_mode;
    if (cellMode != NULL)
        *cellMode = rnnDesc->cell_mode;
    if (algo != NULL)
        *algo = rnnDesc->algo;
    if (mathPrec != NULL)
        *mathPrec = rnnDesc->math_prec;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetRNNMatrixMathType(cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t mType)
{
    RETURN_IF_ERROR(check_created(rnnDesc));
    RETURN_IF_ERROR(check_math_type(mType));
    rnnDesc->math_type = mType;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetRNNMatrixMathType(cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t *mType)
{
    RETURN_IF_ERROR(check_created(rnnDesc));
    RETURN_IF_NULL(mType);
    *mType = rnnDesc->math_type;
    return CUDNN_STATUS_SUCCESS;
}

/* As documented for 8.9: a bias mode other than DOUBLE_BIAS needs the
 * standard algorithm. */
cudnnStatus_t
fdnn_api_cudnnSetRNNBiasMode(cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t biasMode)
{
    RETURN_IF_ERROR(check_created(rnnDesc));
    RETURN_IF_ERROR(check_bias_mode(biasMode));
    if (biasMode != CUDNN_RNN_DOUBLE_BIAS && rnnDesc->algo != CUDNN_RNN_ALGO_STANDARD)
        return FDNN_NOT_SUPPORTED("biasMode %d needs CUDNN_RNN_ALGO_STANDARD, rnnDesc has algo %d", (int)biasMode,
                                  (int)rnnDesc->algo);
    rnnDesc->bias_mode = biasMode;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetRNNBiasMode(cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t *biasMode)
{
    RETURN_IF_ERROR(check_created(rnnDesc));
    RETURN_IF_NULL(biasMode);
    *biasMode = rnnDesc->bias_mode;
    return CUDNN_STATUS_SUCCESS;
}

/* cudnnRNNPaddingMode_t is the PADDED_IO bit of auxFlags. */
cudnnStatus_t
fdnn_api_cudnnSetRNNPaddingMode(cudnnRNNDescriptor_t rnnDesc, unsigned paddingMode)
{
    RETURN_IF_ERROR(check_created(rnnDesc));
    if (paddingMode != CUDNN_RNN_PADDED_IO_DISABLED && paddingMode != CUDNN_RNN_PADDED_IO_ENABLED)
        return FDNN_BAD_PARAM("paddingMode is %u, expected CUDNN_RNN_PADDED_IO_DISABLED or _ENABLED", paddingMode);
    rnnDesc->aux_flags = (rnnDesc->aux_flags & ~(uint32_t)CUDNN_RNN_PADDED_IO_ENABLED) | paddingMode;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetRNNPaddingMode(cudnnRNNDescriptor_t rnnDesc, unsigned *paddingMode)
{
    RETURN_IF_ERROR(check_created(rnnDesc));
    RETURN_IF_NULL(paddingMode);
    *paddingMode = rnnDesc->aux_flags & CUDNN_RNN_PADDED_IO_ENABLED;
    return CUDNN_STATUS_SUCCESS;
}

/* The legacy projection: recProjSize is the v8 projSize; outProjSize (a
 * second projection that cuDNN never implemented) must be 0. */
cudnnStatus_t
fdnn_api_cudnnSetRNNProjectionLayers(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int recProjSize,
                                     const int outProjSize)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    if (recProjSize <= 0)
        return FDNN_BAD_PARAM("recProjSize is %d, must be positive", recProjSize);
    if (outProjSize < 0)
        return FDNN_BAD_PARAM("outProjSize is %d, must not be negative", outProjSize);
    if (outProjSize != 0)
        return FDNN_NOT_SUPPORTED("outProjSize is %d, only 0 is supported", outProjSize);
    RETURN_IF_ERROR(check_projection(rnnDesc->algo, rnnDesc->cell_mode, rnnDesc->hidden_size, recProjSize));
    rnnDesc->proj_size = recProjSize;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetRNNProjectionLayers(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *recProjSize,
                                     int *outProjSize)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    RETURN_IF_NULL(recProjSize);
    RETURN_IF_NULL(outProjSize);
    *recProjSize = rnnDesc->proj_size;
    *outProjSize = 0;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- clipping ------------------------------------------------------------ */

static cudnnStatus_t
set_clip(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode, cudnnNanPropagation_t clipNanOpt,
         double lclip, double rclip)
{
    RETURN_IF_ERROR(check_created(rnnDesc));
    if ((unsigned)clipMode > CUDNN_RNN_CLIP_MINMAX)
        return FDNN_BAD_PARAM("clipMode is %d, not a cudnnRNNClipMode_t", (int)clipMode);
    if ((unsigned)clipNanOpt > CUDNN_PROPAGATE_NAN)
        return FDNN_BAD_PARAM("clipNanOpt is %d, not a cudnnNanPropagation_t", (int)clipNanOpt);
    if (isnan(lclip) || isnan(rclip))
        return FDNN_BAD_PARAM("lclip (%g) and rclip (%g) must not be NaN", lclip, rclip);
    if (lclip > rclip)
        return FDNN_BAD_PARAM("lclip (%g) is greater than rclip (%g)", lclip, rclip);
    rnnDesc->clip_mode = clipMode;
    rnnDesc->clip_nan_opt = clipNanOpt;
    rnnDesc->lclip = lclip;
    rnnDesc->rclip = rclip;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
get_clip(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode, cudnnNanPropagation_t *clipNanOpt,
         double *lclip, double *rclip)
{
    RETURN_IF_ERROR(check_created(rnnDesc));
    if (clipMode != NULL)
        *clipMode = rnnDesc->clip_mode;
    if (clipNanOpt != NULL)
        *clipNanOpt = rnnDesc->clip_nan_opt;
    if (lclip != NULL)
        *lclip = rnnDesc->lclip;
    if (rclip != NULL)
        *rclip = rnnDesc->rclip;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnRNNSetClip_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                            cudnnNanPropagation_t clipNanOpt, double lclip, double rclip)
{
    return set_clip(rnnDesc, clipMode, clipNanOpt, lclip, rclip);
}

cudnnStatus_t
fdnn_api_cudnnRNNGetClip_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
                            cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip)
{
    return get_clip(rnnDesc, clipMode, clipNanOpt, lclip, rclip);
}

cudnnStatus_t
fdnn_api_cudnnRNNSetClip(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                         cudnnNanPropagation_t clipNanOpt, double lclip, double rclip)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    return set_clip(rnnDesc, clipMode, clipNanOpt, lclip, rclip);
}

cudnnStatus_t
fdnn_api_cudnnRNNGetClip(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
                         cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    return get_clip(rnnDesc, clipMode, clipNanOpt, lclip, rclip);
}

/* On the GPU this compiles the persistent kernel for one mini-batch size.  On
 * the CPU there is nothing to compile: the call validates and records the
 * size, and the RNN operations run the same code for every algorithm. */
cudnnStatus_t
fdnn_api_cudnnBuildRNNDynamic(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int miniBatch)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    if (miniBatch <= 0)
        return FDNN_BAD_PARAM("miniBatch is %d, must be positive", miniBatch);
    if (rnnDesc->algo != CUDNN_RNN_ALGO_PERSIST_DYNAMIC)
        return FDNN_BAD_PARAM("rnnDesc has algo %d; cudnnBuildRNNDynamic needs CUDNN_RNN_ALGO_PERSIST_DYNAMIC",
                              (int)rnnDesc->algo);
    rnnDesc->dynamic_mini_batch = miniBatch;
    return CUDNN_STATUS_SUCCESS;
}
