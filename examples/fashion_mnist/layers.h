/* SPDX-License-Identifier: Apache-2.0
 * A convolution layer (optionally with bias) as both networks use it: its
 * descriptors, the algorithms picked the way a GPU program picks them, and
 * its forward and backward through cuDNN. */
#ifndef FASHION_LAYERS_H
#define FASHION_LAYERS_H

#include "model.h"

typedef struct conv {
    int in_c, out_c, k, pad, stride, in_hw, out_hw;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t desc;
    cudnnTensorDescriptor_t y_desc, bias_desc;
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t bwd_data;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter;
    param_t w, b; /* b.count == 0 when the layer has no bias */
    float *y, *dy;
} conv_t;

/* in_c x in_hw x in_hw -> out_c channels, k x k kernel, padding and stride;
 * grows *workspace_size to what the chosen algorithms need.  The weights
 * are uniform in +-1/sqrt(fan_in) (PyTorch's default bound). */
int conv_init(model_t *m, conv_t *cv, int in_c, int out_c, int k, int pad, int stride, int in_hw, int bias,
              size_t *workspace_size, uint64_t *rng);
void conv_free(conv_t *cv);
/* cv->y = conv(x) (+ bias) */
int conv_forward(model_t *m, conv_t *cv, cudnnTensorDescriptor_t x_desc, const float *x, void *ws, size_t ws_size);
/* From cv->dy: the weight (and bias) gradients, reported ready, and dx when
 * dx != NULL (dx_beta 0 overwrites, 1 accumulates). */
int conv_backward(model_t *m, conv_t *cv, cudnnTensorDescriptor_t x_desc, const float *x, float *dx, float dx_beta,
                  void *ws, size_t ws_size);

#endif
