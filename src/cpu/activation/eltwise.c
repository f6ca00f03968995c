/* SPDX-License-Identifier: Apache-2.0
 * Element-wise iteration plans.  See eltwise.h. */
#include "cpu/activation/eltwise.h"

#include <assert.h>
#include <string.h>

void
fdnn_ew_plan_init(fdnn_ew_plan_t *plan, int nops, const fdnn_tensor_t *const *ts)
{
    assert(nops >= 1 && nops <= FDNN_EW_MAX_OPS);
    memset(plan, 0, sizeof(*plan));
    plan->nops = nops;
    /* Dims of extent > 1, ordered by operand 0's stride, largest first
     * (insertion sort: stable, at most 8 entries). */
    int order[CUDNN_DIM_MAX], n = 0;
    for (int d = 0; d < ts[0]->ndim; d++) {
        if (ts[0]->dims[d] == 1)
            continue;
        int k = n++;
        while (k > 0 && ts[0]->strides[order[k - 1]] < ts[0]->strides[d]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = d;
    }
    if (n == 0) { /* a single element */
        plan->ndim = 1;
        plan->dims[0] = 1;
        for (int o = 0; o < nops; o++)
            plan->strides[o][0] = 1;
        plan->rows = 1;
        plan->len = 1;
        return;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        int d = order[i];
        bool merge = m > 0;
        for (int o = 0; o < nops && merge; o++)
            merge = plan->strides[o][m - 1] == ts[o]->strides[d] * ts[o]->dims[d];
        if (merge) {
            plan->dims[m - 1] *= ts[0]->dims[d];
            for (int o = 0; o < nops; o++)
                plan->strides[o][m - 1] = ts[o]->strides[d];
        } else {
            plan->dims[m] = ts[0]->dims[d];
            for (int o = 0; o < nops; o++)
                plan->strides[o][m] = ts[o]->strides[d];
            m++;
        }
    }
    plan->ndim = m;
    plan->rows = 1;
    for (int i = 0; i < m - 1; i++)
        plan->rows *= plan->dims[i];
    plan->len = plan->dims[m - 1];
}

void
fdnn_ew_row_offsets(const fdnn_ew_plan_t *plan, int64_t row, int64_t *offs)
{
    for (int o = 0; o < plan->nops; o++)
        offs[o] = 0;
    for (int i = plan->ndim - 2; i >= 0; i--) {
        int64_t idx = row % plan->dims[i];
        row /= plan->dims[i];
        for (int o = 0; o < plan->nops; o++)
            offs[o] += idx * plan->strides[o][i];
    }
}
