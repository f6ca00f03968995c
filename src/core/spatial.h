/* SPDX-License-Identifier: Apache-2.0
 * The spatial transformer descriptor: the sampler, the data type of theta,
 * grid and the sampled tensors, and the dims (N, C, H, W) of the output. */
#ifndef FDNN_CORE_SPATIAL_H
#define FDNN_CORE_SPATIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_SPATIAL_TF_MAGIC 0x46544c53u /* "SLTF" */

struct cudnnSpatialTransformerStruct {
    uint32_t magic;
    bool is_set;
    cudnnSamplerType_t sampler;
    cudnnDataType_t dtype;
    int nb_dims;
    int dims[CUDNN_DIM_MAX];
};

#endif /* FDNN_CORE_SPATIAL_H */
