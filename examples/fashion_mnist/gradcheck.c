/* SPDX-License-Identifier: Apache-2.0
 * Checks both networks' backward passes against finite differences of the
 * loss: for every learnable tensor, the analytic directional derivative
 * along a sparse random +-1 direction must match (L(w + h v) - L(w - h v)) / 2h.
 * Training-mode batch norm is part of the function, so the check covers the
 * statistics' gradient too; the residual network's covers the skip
 * additions and global average pooling.  Exit 0 when all agree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cudnn.h>

#include "model.h"

#define BATCH 4

static double
loss_at(model_t *m, const uint8_t *images, const uint8_t *labels)
{
    double loss = 0;
    if (model_train_chunk(m, images, labels, BATCH, &loss) != 0)
        return NAN;
    return loss / BATCH; /* the mean loss, whose gradient the backward gives */
}

static int
check(model_t *m, const char *name)
{
    uint8_t images[BATCH * 784], labels[BATCH];
    uint64_t rng = 12345;
    for (int i = 0; i < BATCH * 784; i++)
        images[i] = (uint8_t)(model_random(&rng) >> 56);
    for (int i = 0; i < BATCH; i++)
        labels[i] = (uint8_t)(i * 3 % NET_CLASSES);
    if (isnan(loss_at(m, images, labels)))
        return 1;
    /* The analytic gradients, saved before the perturbed passes overwrite them. */
    float *grads[MODEL_MAX_PARAMS];
    for (int p = 0; p < m->nparams; p++) {
        grads[p] = malloc(m->params[p]->count * sizeof(float));
        cudaMemcpy(grads[p], m->params[p]->grad, m->params[p]->count * sizeof(float), cudaMemcpyDeviceToHost);
    }
    int failures = 0;
    for (int p = 0; p < m->nparams; p++) {
        param_t *prm = m->params[p];
        size_t n = prm->count;
        float *w = malloc(n * sizeof(float)), *v = malloc(n * sizeof(float)), *t = malloc(n * sizeof(float));
        cudaMemcpy(w, prm->value, n * sizeof(float), cudaMemcpyDeviceToHost);
        double analytic = 0;
        /* +-1 on up to 64 random elements: a perturbation small enough
         * (norm <= 8h) to stay clear of the ReLU and max-pool kinks. */
        memset(v, 0, n * sizeof(float));
        for (int k = 0; k < 64 && (size_t)k < n; k++)
            v[model_random(&rng) % n] += (model_random(&rng) >> 63) ? 1.0f : -1.0f;
        for (size_t i = 0; i < n; i++)
            analytic += (double)grads[p][i] * v[i];
        /* Truncation error falls with h, rounding error of the float loss
         * grows: the gradient must match at one of three scales. */
        static const double hs[3] = {1e-3, 3e-4, 1e-4};
        double numeric = 0;
        int agree = 0;
        for (int k = 0; k < 3 && !agree; k++) {
            double l[2];
            for (int s = 0; s < 2; s++) {
                for (size_t i = 0; i < n; i++)
                    t[i] = (float)(w[i] + (s ? -hs[k] : hs[k]) * v[i]);
                cudaMemcpy(prm->value, t, n * sizeof(float), cudaMemcpyHostToDevice);
                l[s] = loss_at(m, images, labels);
            }
            numeric = (l[0] - l[1]) / (2 * hs[k]);
            agree = fabs(numeric - analytic) <= 1e-3 + 3e-2 * fmax(fabs(numeric), fabs(analytic));
        }
        cudaMemcpy(prm->value, w, n * sizeof(float), cudaMemcpyHostToDevice);
        if (!agree) {
            failures++;
            fprintf(stderr, "%s: param %d (%zu values): analytic %.6g, numeric %.6g\n", name, p, n, analytic,
                    numeric);
        }
        free(w);
        free(v);
        free(t);
    }
    for (int p = 0; p < m->nparams; p++)
        free(grads[p]);
    printf("%s: %d parameter tensors, %d disagree\n", name, m->nparams, failures);
    return failures != 0;
}

int
main(void)
{
    cudnnHandle_t handle;
    if (cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS)
        return 1;
    model_config_t cfg = {.batch = BATCH, .seed = 7};
    int rc = 0;
    model_t *m = cnn_create(handle, &cfg);
    rc |= m == NULL || check(m, "cnn");
    model_destroy(m);
    m = resnet_create(handle, &cfg);
    rc |= m == NULL || check(m, "resnet");
    model_destroy(m);
    cudnnDestroy(handle);
    return rc;
}
