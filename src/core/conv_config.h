/* SPDX-License-Identifier: Apache-2.0
 * The data-type configurations of cuDNN 8.9's convolution tables.
 *
 * cuDNN documents, per convolution call, which (xDesc, wDesc, convDesc
 * compute type, yDesc) data types it takes, and names each combination
 * (FLOAT_CONFIG, PSEUDO_HALF_CONFIG, INT8x4_EXT_CONFIG, ...).  Every call
 * classifies its descriptors once (fdnn_conv_config_classify); the problem
 * carries the result, and the code that runs a configuration is chosen from
 * it.  Which configurations FreeDNN runs today is one table in
 * conv_config.c (fdnn_conv_config_check), so that a configuration added is
 * one line there plus its implementation. */
#ifndef FDNN_CORE_CONV_CONFIG_H
#define FDNN_CORE_CONV_CONFIG_H

#include <stdbool.h>

#include "cudnn.h"

typedef enum fdnn_conv_config {
    FDNN_CONV_CFG_FLOAT = 0,       /* FLOAT x, w, y; FLOAT compute */
    FDNN_CONV_CFG_DOUBLE,          /* DOUBLE everywhere */
    FDNN_CONV_CFG_PSEUDO_HALF,     /* HALF x, w, y; FLOAT compute */
    FDNN_CONV_CFG_TRUE_HALF,       /* HALF x, w, y; HALF compute */
    FDNN_CONV_CFG_PSEUDO_BFLOAT16, /* BFLOAT16 x, w, y; FLOAT compute */
    FDNN_CONV_CFG_BFLOAT16,        /* BFLOAT16 x, w, y; BFLOAT16 compute */
    FDNN_CONV_CFG_INT8,            /* INT8 x, w, y; INT32 compute */
    FDNN_CONV_CFG_INT8_EXT,        /* INT8 x, w; INT32 compute; FLOAT y */
    FDNN_CONV_CFG_INT8x4,          /* INT8x4 x, w, y; INT32 compute */
    FDNN_CONV_CFG_INT8x4_EXT,      /* INT8x4 x, w; INT32 compute; FLOAT y */
    FDNN_CONV_CFG_UINT8x4,         /* UINT8x4 x; INT8x4 w; INT32 compute; UINT8x4 y */
    FDNN_CONV_CFG_UINT8x4_EXT,     /* UINT8x4 x; INT8x4 w; INT32 compute; FLOAT y */
    FDNN_CONV_CFG_INT8x32,         /* INT8x32 x, w, y; INT32 compute */
    FDNN_CONV_CFG_COUNT
} fdnn_conv_config_t;

/* The configuration's name as cuDNN's tables spell it ("PSEUDO_HALF_CONFIG"). */
const char *fdnn_conv_config_name(fdnn_conv_config_t cfg);

/* Which configuration (x, w, compute, y) is, for a call of direction `dir`
 * (0 forward, 1 backward data, 2 backward filter: fdnn_conv_dir_t).  For
 * backward data x is dx and y is dy; for backward filter w is dw.  The
 * integer configurations exist only forward.  BAD_PARAM with a reason when
 * the storage types are in no table of that direction, NOT_SUPPORTED when
 * they are but the compute type is not one they allow (as cuDNN). */
cudnnStatus_t fdnn_conv_config_classify(int dir, cudnnDataType_t x, cudnnDataType_t w, cudnnDataType_t compute,
                                        cudnnDataType_t y, fdnn_conv_config_t *cfg);

/* SUCCESS when FreeDNN runs configuration cfg in direction dir; otherwise
 * NOT_SUPPORTED with the reason (a FDNN_GAP: legal in cuDNN 8.9, not done). */
cudnnStatus_t fdnn_conv_config_check(int dir, fdnn_conv_config_t cfg);

/* Whether the configuration stores integers (the INT8 family). */
bool fdnn_conv_config_is_integer(fdnn_conv_config_t cfg);

#endif /* FDNN_CORE_CONV_CONFIG_H */
