/* SPDX-License-Identifier: Apache-2.0
 * CTC loss descriptors (cudnnCTCLossDescriptor_t), read by cudnnCTCLoss*. */
#ifndef FDNN_CORE_CTC_DESC_H
#define FDNN_CORE_CTC_DESC_H

#include <stdbool.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_CTC_MAGIC 0x4c435443u /* "CTCL" */

struct cudnnCTCLossStruct {
    uint32_t magic;
    bool is_set;
    cudnnDataType_t comp_type;              /* FLOAT or DOUBLE */
    cudnnLossNormalizationMode_t norm_mode; /* NONE unless set by Ex / _v8 */
    cudnnNanPropagation_t grad_mode;        /* NOT_PROPAGATE unless set by Ex / _v8 */
    int max_label_length;                   /* 0 unless set by _v8 ("not given") */
};

cudnnStatus_t fdnn_ctc_desc_check(cudnnCTCLossDescriptor_t desc, const char *what);

#endif /* FDNN_CORE_CTC_DESC_H */
