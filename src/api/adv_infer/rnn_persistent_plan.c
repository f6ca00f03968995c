/* SPDX-License-Identifier: Apache-2.0
 * Persistent-RNN plans (deprecated interface of CUDNN_RNN_ALGO_PERSIST_DYNAMIC,
 * removed in cuDNN 9).  On the GPU a plan is a kernel compiled for one
 * mini-batch size; on the CPU there is nothing to compile, so a plan records
 * its RNN descriptor, mini-batch and data type, and attaching it records the
 * mini-batch in the descriptor, like cudnnBuildRNNDynamic. */
#include <stdlib.h>

#include "api_impl.h"
#include "core/fail.h"
#include "core/rnn_desc.h"
#include "core/tensor.h"

static cudnnStatus_t
check_plan(cudnnPersistentRNNPlan_t plan)
{
    if (plan == NULL)
        return FDNN_BAD_PARAM("plan is NULL");
    if (plan->magic != FDNN_RNN_PLAN_MAGIC)
        return FDNN_BAD_PARAM("plan is not a persistent RNN plan (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

/* NOT_SUPPORTED, as cuDNN's "the current hyper-parameters are invalid", when
 * the descriptor does not use PERSIST_DYNAMIC or the data type differs from
 * the descriptor's. */
cudnnStatus_t
fdnn_api_cudnnCreatePersistentRNNPlan(cudnnRNNDescriptor_t rnnDesc, const int minibatch,
                                      const cudnnDataType_t dataType, cudnnPersistentRNNPlan_t *plan)
{
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    RETURN_IF_NULL(plan);
    if (minibatch <= 0)
        return FDNN_BAD_PARAM("minibatch is %d, must be positive", minibatch);
    if (!fdnn_dtype_is_valid(dataType))
        return FDNN_BAD_PARAM("dataType is %d, not a cudnnDataType_t", (int)dataType);
    if (rnnDesc->algo != CUDNN_RNN_ALGO_PERSIST_DYNAMIC)
        return FDNN_NOT_SUPPORTED("rnnDesc has algo %d; persistent plans need CUDNN_RNN_ALGO_PERSIST_DYNAMIC",
                                  (int)rnnDesc->algo);
    if (dataType != rnnDesc->data_type)
        return FDNN_NOT_SUPPORTED("dataType %s differs from the RNN descriptor's %s", fdnn_dtype_name(dataType),
                                  fdnn_dtype_name(rnnDesc->data_type));
    struct cudnnPersistentRNNPlan *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a persistent RNN plan");
    p->magic = FDNN_RNN_PLAN_MAGIC;
    p->rnn = rnnDesc;
    p->mini_batch = minibatch;
    p->data_type = dataType;
    *plan = p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyPersistentRNNPlan(cudnnPersistentRNNPlan_t plan)
{
    if (plan == NULL)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(check_plan(plan));
    plan->magic = 0;
    free(plan);
    return CUDNN_STATUS_SUCCESS;
}

/* The plan must have been made for this descriptor, which must still use
 * PERSIST_DYNAMIC. */
cudnnStatus_t
fdnn_api_cudnnSetPersistentRNNPlan(cudnnRNNDescriptor_t rnnDesc, cudnnPersistentRNNPlan_t plan)
{
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    RETURN_IF_ERROR(check_plan(plan));
    if (rnnDesc->algo != CUDNN_RNN_ALGO_PERSIST_DYNAMIC)
        return FDNN_BAD_PARAM("rnnDesc has algo %d; a persistent plan needs CUDNN_RNN_ALGO_PERSIST_DYNAMIC",
                              (int)rnnDesc->algo);
    if (plan->rnn != rnnDesc)
        return FDNN_BAD_PARAM("plan was created for another RNN descriptor");
    if (plan->data_type != rnnDesc->data_type)
        return FDNN_BAD_PARAM("plan has data type %s, rnnDesc now %s", fdnn_dtype_name(plan->data_type),
                              fdnn_dtype_name(rnnDesc->data_type));
    rnnDesc->dynamic_mini_batch = plan->mini_batch;
    return CUDNN_STATUS_SUCCESS;
}
