/* SPDX-License-Identifier: Apache-2.0
 * The adv_train version check: every sub-library of FreeDNN is built from one
 * tree, so it always agrees with the others. */
#include "api_impl.h"

cudnnStatus_t
fdnn_api_cudnnAdvTrainVersionCheck(void)
{
    return CUDNN_STATUS_SUCCESS;
}
