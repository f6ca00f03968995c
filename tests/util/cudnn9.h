/* SPDX-License-Identifier: Apache-2.0
 * NVIDIA's cuDNN 9 as a second opinion on descriptor validation.
 *
 * The machines of this project carry cuDNN 9 in /usr/local/cuda/lib64 (or
 * wherever FDNN_CUDNN9_LIB points).  Its descriptor functions run without a
 * GPU.  It is loaded with RTLD_LOCAL so its symbols never mix with ours; look
 * functions up with fdnn_cudnn9_sym and call them through a pointer of the
 * 8.9 signature (the signatures of the surviving functions did not change).
 * Where it is absent, tests skip the comparison, they do not fail. */
#ifndef FDNN_TEST_CUDNN9_H
#define FDNN_TEST_CUDNN9_H

#include "cudnn.h"

/* The function `name` of cuDNN 9, or NULL when cuDNN 9 (or the function) is
 * absent. */
void *fdnn_cudnn9_sym(const char *name);

/* cuDNN 9 renumbered the statuses (BAD_PARAM 3 -> 2000..2999, NOT_SUPPORTED
 * 9 -> 3000..3999, ...).  Maps a cuDNN 9 status to the 8.x status of its
 * category so results can be compared. */
cudnnStatus_t fdnn_cudnn9_category(int status9);

#endif /* FDNN_TEST_CUDNN9_H */
