/* SPDX-License-Identifier: Apache-2.0
 * cuDNN 8.9's convolution data-type configurations.  See conv_config.h. */
#include "core/conv_config.h"

#include <stddef.h>

#include "core/fail.h"
#include "core/tensor.h"

/* One row of the tables: the storage types and compute type of a
 * configuration, and whether the backward calls have it (the integer
 * configurations are forward only). */
typedef struct config_row {
    fdnn_conv_config_t cfg;
    const char *name;
    cudnnDataType_t x, w, compute, y;
    bool backward;
} config_row_t;

static const config_row_t rows[FDNN_CONV_CFG_COUNT] = {
    {FDNN_CONV_CFG_FLOAT, "FLOAT_CONFIG", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
     true},
    {FDNN_CONV_CFG_DOUBLE, "DOUBLE_CONFIG", CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE,
     CUDNN_DATA_DOUBLE, true},
    {FDNN_CONV_CFG_PSEUDO_HALF, "PSEUDO_HALF_CONFIG", CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT,
     CUDNN_DATA_HALF, true},
    {FDNN_CONV_CFG_TRUE_HALF, "TRUE_HALF_CONFIG", CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_HALF,
     CUDNN_DATA_HALF, true},
    {FDNN_CONV_CFG_PSEUDO_BFLOAT16, "PSEUDO_BFLOAT16_CONFIG", CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16,
     CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, true},
    {FDNN_CONV_CFG_BFLOAT16, "BFLOAT16_CONFIG", CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16,
     CUDNN_DATA_BFLOAT16, true},
    {FDNN_CONV_CFG_INT8, "INT8_CONFIG", CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT32, CUDNN_DATA_INT8, false},
    {FDNN_CONV_CFG_INT8_EXT, "INT8_EXT_CONFIG", CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT32,
     CUDNN_DATA_FLOAT, false},
    {FDNN_CONV_CFG_INT8x4, "INT8x4_CONFIG", CUDNN_DATA_INT8x4, CUDNN_DATA_INT8x4, CUDNN_DATA_INT32,
     CUDNN_DATA_INT8x4, false},
    {FDNN_CONV_CFG_INT8x4_EXT, "INT8x4_EXT_CONFIG", CUDNN_DATA_INT8x4, CUDNN_DATA_INT8x4, CUDNN_DATA_INT32,
     CUDNN_DATA_FLOAT, false},
    {FDNN_CONV_CFG_UINT8x4, "UINT8x4_CONFIG", CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x4, CUDNN_DATA_INT32,
     CUDNN_DATA_UINT8x4, false},
    {FDNN_CONV_CFG_UINT8x4_EXT, "UINT8x4_EXT_CONFIG", CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x4, CUDNN_DATA_INT32,
     CUDNN_DATA_FLOAT, false},
    {FDNN_CONV_CFG_INT8x32, "INT8x32_CONFIG", CUDNN_DATA_INT8x32, CUDNN_DATA_INT8x32, CUDNN_DATA_INT32,
     CUDNN_DATA_INT8x32, false},
};

const char *
fdnn_conv_config_name(fdnn_conv_config_t cfg)
{
    return (unsigned)cfg < FDNN_CONV_CFG_COUNT ? rows[cfg].name : "?";
}

bool
fdnn_conv_config_is_integer(fdnn_conv_config_t cfg)
{
    return cfg >= FDNN_CONV_CFG_INT8 && cfg < FDNN_CONV_CFG_COUNT;
}

cudnnStatus_t
fdnn_conv_config_classify(int dir, cudnnDataType_t x, cudnnDataType_t w, cudnnDataType_t compute, cudnnDataType_t y,
                          fdnn_conv_config_t *cfg)
{
    bool storage_known = false;
    for (size_t i = 0; i < FDNN_CONV_CFG_COUNT; i++) {
        const config_row_t *r = &rows[i];
        if (r->x != x || r->w != w || r->y != y || (dir != 0 && !r->backward))
            continue;
        storage_known = true;
        if (r->compute == compute) {
            *cfg = r->cfg;
            return CUDNN_STATUS_SUCCESS;
        }
    }
    if (storage_known)
        return FDNN_NOT_SUPPORTED("%s data with %s compute type (convDesc) is in no configuration of cuDNN's tables",
                              fdnn_dtype_name(x), fdnn_dtype_name(compute));
    return FDNN_BAD_PARAM("data types x %s, w %s, y %s are in no %sconvolution configuration of cuDNN's tables",
                          fdnn_dtype_name(x), fdnn_dtype_name(w), fdnn_dtype_name(y), dir == 0 ? "" : "backward ");
}

cudnnStatus_t
fdnn_conv_config_check(int dir, fdnn_conv_config_t cfg)
{
    (void)dir;
    switch (cfg) {
    /* The floating-point configurations: HALF and BFLOAT16 data run through
     * the FP32 solvers on converted copies (cpu/conv/conv_lowp.c). */
    case FDNN_CONV_CFG_FLOAT:
    case FDNN_CONV_CFG_DOUBLE:
    case FDNN_CONV_CFG_PSEUDO_HALF:
    case FDNN_CONV_CFG_TRUE_HALF:
    case FDNN_CONV_CFG_PSEUDO_BFLOAT16: return CUDNN_STATUS_SUCCESS;
    case FDNN_CONV_CFG_BFLOAT16:
        /* Not in cuDNN 8.9's tables (forward, backward data, backward filter
         * and bias-activation list PSEUDO_BFLOAT16 only), and unreachable
         * through the API: the convolution descriptor refuses a BFLOAT16
         * compute type (docs/descriptors.md).  Kept so that the
         * classification names it if a descriptor ever carries one. */
        return FDNN_NOT_SUPPORTED("%s (BFLOAT16 compute type) is in no convolution table of cuDNN 8.9; "
                                  "BFLOAT16 data computes in FLOAT (PSEUDO_BFLOAT16_CONFIG)",
                                  fdnn_conv_config_name(cfg));
    /* Forward only (classify refuses them backward); layouts and
     * algorithms: fdnn_conv_int8_algo_check (src/cpu/conv/conv_int8.c). */
    case FDNN_CONV_CFG_INT8:
    case FDNN_CONV_CFG_INT8_EXT:
    case FDNN_CONV_CFG_INT8x4:
    case FDNN_CONV_CFG_INT8x4_EXT:
    case FDNN_CONV_CFG_UINT8x4:
    case FDNN_CONV_CFG_UINT8x4_EXT:
    case FDNN_CONV_CFG_INT8x32: return CUDNN_STATUS_SUCCESS;
    case FDNN_CONV_CFG_COUNT: break;
    }
    return FDNN_INTERNAL_ERROR("unknown convolution configuration %d", (int)cfg);
}
