/* SPDX-License-Identifier: Apache-2.0
 * cudnnReorderFilterAndBias on INT8x32 NCHW_VECT_C filters.
 *
 * Two independent descriptions of the order are checked against each
 * other through the library:
 * - by hand, a few bytes from XLA's transpose (the filter as
 *   [O/8, 4, 2, I/32, 8, 4, H, W] permuted to [I/32, H, W, O/8, 2, 8, 4, 4];
 *   the bias as [O/32, 4, 2, 4] permuted by {0, 2, 1, 3});
 * - every byte against VirtualGPU's formula, measured on an RTX 3060
 *   (destination byte d: lane l = d % 32, t = d / 32, j = t % 8, group
 *   g = (t / 8) % (K / 8), chunk t / 8 / (K / 8); it comes from output
 *   channel 8g + j / 4 + 2 ((l % 16) / 4), byte chunk * 32 + 8 (j % 4) +
 *   4 (l / 16) + l % 4 of that channel), coded here separately.
 * CUDNN_NO_REORDER copies; bad inputs give their statuses and write
 * nothing. */
#include <math.h>
#include <string.h>

#include "testutil.h"

static cudnnHandle_t handle;

/* VirtualGPU's measured formula for the filter. */
static int8_t
measured_filter_byte(const int8_t *w, int k, int64_t row, int64_t d)
{
    const int64_t l = d % 32, t = d / 32, j = t % 8, g = (t / 8) % (k / 8), c = t / 8 / (k / 8);
    const int64_t o = g * 8 + j / 4 + 2 * ((l % 16) / 4);
    const int64_t col = c * 32 + (j % 4) * 8 + (l / 16) * 4 + l % 4;
    return w[o * row + col];
}

/* ... and for the bias. */
static float
measured_bias(const float *b, int j)
{
    const int g = (j % 32) / 4;
    return b[j / 32 * 32 + (g % 4) * 8 + (g / 4) * 4 + j % 4];
}

static void
test_by_hand(void)
{
    /* K = 8, C = 32, 1x1: byte (o, lane) = 32 o + lane, all distinct. */
    cudnnFilterDescriptor_t wd;
    cudnnCreateFilterDescriptor(&wd);
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 8, 32, 1, 1));
    uint8_t *w = fdnn_guarded_alloc(256), *r = fdnn_guarded_alloc(256);
    for (int i = 0; i < 256; i++)
        w[i] = (uint8_t)i;
    fdnn_poison_bytes(r, 256);
    CHECK_OK(cudnnReorderFilterAndBias(handle, wd, CUDNN_DEFAULT_REORDER, w, r, 0, NULL, NULL));
    /* Destination (c, y, b, z) with o = 2b + c, lane = 4y + z, at
     * ((c * 8 + y) * 4 + b) * 4 + z. */
    CHECK(r[0] == 0);             /* o 0, lane 0 */
    CHECK(r[1] == 1);             /* z 1: lane 1 */
    CHECK(r[4] == 64);            /* b 1: o 2 */
    CHECK(r[12] == 192);          /* b 3: o 6 */
    CHECK(r[16] == 4);            /* y 1: lane 4 */
    CHECK(r[128] == 32);          /* c 1: o 1 */
    CHECK(r[255] == 7 * 32 + 31); /* c 1, y 7, b 3, z 3: o 7, lane 31 */
    CHECK(r[128 + 16 * 5 + 4 * 2 + 3] == (2 * 2 + 1) * 32 + 4 * 5 + 3);
    /* The bias, K = 32: channel 8g + 4h + z goes to 16h + 4g + z. */
    cudnnFilterDescriptor_t wd32;
    cudnnCreateFilterDescriptor(&wd32);
    CHECK_OK(cudnnSetFilter4dDescriptor(wd32, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 32, 32, 1, 1));
    uint8_t *w32 = fdnn_guarded_alloc(1024), *r32 = fdnn_guarded_alloc(1024);
    memset(w32, 0, 1024);
    float *b = fdnn_guarded_alloc(32 * 4), *rb = fdnn_guarded_alloc(32 * 4);
    for (int i = 0; i < 32; i++)
        b[i] = (float)i;
    fdnn_poison_f32(rb, 32);
    CHECK_OK(cudnnReorderFilterAndBias(handle, wd32, CUDNN_DEFAULT_REORDER, w32, r32, 1, b, rb));
    CHECK(rb[0] == 0 && rb[3] == 3);
    CHECK(rb[4] == 8);   /* h 0, g 1 */
    CHECK(rb[12] == 24); /* h 0, g 3 */
    CHECK(rb[16] == 4);  /* h 1, g 0 */
    CHECK(rb[21] == 13); /* h 1, g 1, z 1 */
    CHECK(rb[31] == 31);
    fdnn_guarded_free(w);
    fdnn_guarded_free(r);
    fdnn_guarded_free(w32);
    fdnn_guarded_free(r32);
    fdnn_guarded_free(b);
    fdnn_guarded_free(rb);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyFilterDescriptor(wd32);
}

static void
test_measured(int k, int c, int h, int w, bool bias)
{
    cudnnFilterDescriptor_t wd;
    cudnnCreateFilterDescriptor(&wd);
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, k, c, h, w));
    const int64_t row = (int64_t)c * h * w, n = k * row;
    int8_t *src = fdnn_guarded_alloc(n), *dst = fdnn_guarded_alloc(n);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, (uint64_t)n);
    for (int64_t i = 0; i < n; i++)
        src[i] = (int8_t)fdnn_rng_int(&rng, -128, 127);
    fdnn_poison_bytes(dst, n);
    float *b = fdnn_guarded_alloc(k * 4), *rb = fdnn_guarded_alloc(k * 4);
    for (int i = 0; i < k; i++)
        b[i] = (float)fdnn_rng_int(&rng, -1000, 1000) / 8;
    fdnn_poison_f32(rb, k);
    CHECK_OK(cudnnReorderFilterAndBias(handle, wd, CUDNN_DEFAULT_REORDER, src, dst, bias, b, rb));
    int64_t bad = 0;
    for (int64_t d = 0; d < n; d++)
        bad += dst[d] != measured_filter_byte(src, k, row, d);
    CHECK_MSG(bad == 0, "K %d C %d %dx%d: %lld bytes differ from the measured order", k, c, h, w, (long long)bad);
    int bad_bias = 0, untouched = 0;
    for (int j = 0; j < k; j++) {
        bad_bias += bias && rb[j] != measured_bias(b, j);
        untouched += isnan(rb[j]);
    }
    CHECK_MSG(bad_bias == 0, "K %d: %d bias entries differ from the measured order", k, bad_bias);
    CHECK_MSG(bias || untouched == k, "K %d: the bias was written without reorderBias", k);
    /* CUDNN_NO_REORDER copies. */
    fdnn_poison_bytes(dst, n);
    fdnn_poison_f32(rb, k);
    CHECK_OK(cudnnReorderFilterAndBias(handle, wd, CUDNN_NO_REORDER, src, dst, 1, b, rb));
    CHECK(memcmp(src, dst, n) == 0 && memcmp(b, rb, k * 4) == 0);
    fdnn_guarded_free(src);
    fdnn_guarded_free(dst);
    fdnn_guarded_free(b);
    fdnn_guarded_free(rb);
    cudnnDestroyFilterDescriptor(wd);
}

static void
test_bad_inputs(void)
{
    cudnnFilterDescriptor_t wd, f32, k16, k4;
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateFilterDescriptor(&f32);
    cudnnCreateFilterDescriptor(&k16);
    cudnnCreateFilterDescriptor(&k4);
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 32, 32, 3, 3));
    CHECK_OK(cudnnSetFilter4dDescriptor(f32, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 32, 32, 3, 3));
    CHECK_OK(cudnnSetFilter4dDescriptor(k16, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 16, 32, 3, 3));
    CHECK_OK(cudnnSetFilter4dDescriptor(k4, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 4, 32, 3, 3));
    const size_t n = 32 * 32 * 9;
    int8_t *a = fdnn_guarded_alloc(n), *r = fdnn_guarded_alloc(n);
    float *b = fdnn_guarded_alloc(128), *rb = fdnn_guarded_alloc(128);
    memset(a, 1, n);
    fdnn_poison_bytes(r, n);
    const cudnnReorderType_t def = CUDNN_DEFAULT_REORDER;
    CHECK_STATUS(cudnnReorderFilterAndBias(NULL, wd, def, a, r, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReorderFilterAndBias(handle, NULL, def, a, r, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReorderFilterAndBias(handle, wd, (cudnnReorderType_t)2, a, r, 0, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReorderFilterAndBias(handle, wd, def, NULL, r, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReorderFilterAndBias(handle, wd, def, a, NULL, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReorderFilterAndBias(handle, wd, def, a, r, 1, NULL, rb), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReorderFilterAndBias(handle, wd, def, a, r, 1, b, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReorderFilterAndBias(handle, wd, def, a, a + 32, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReorderFilterAndBias(handle, f32, def, a, r, 0, NULL, NULL), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnReorderFilterAndBias(handle, k4, def, a, r, 0, NULL, NULL), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnReorderFilterAndBias(handle, k16, def, a, r, 1, b, rb), CUDNN_STATUS_NOT_SUPPORTED);
    int written = 0;
    for (size_t i = 0; i < n; i++)
        written += (uint8_t)r[i] != 0xFF;
    CHECK_MSG(written == 0, "a refused reorder wrote %d bytes", written);
    CHECK_OK(cudnnReorderFilterAndBias(handle, k16, def, a, r, 0, NULL, NULL));
    CHECK_OK(cudnnReorderFilterAndBias(handle, wd, CUDNN_NO_REORDER, a, a, 0, NULL, NULL)); /* in place copy */
    fdnn_guarded_free(a);
    fdnn_guarded_free(r);
    fdnn_guarded_free(b);
    fdnn_guarded_free(rb);
    cudnnFilterDescriptor_t all[] = {wd, f32, k16, k4};
    for (int i = 0; i < 4; i++)
        cudnnDestroyFilterDescriptor(all[i]);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    test_by_hand();
    test_measured(32, 32, 1, 1, true);
    test_measured(64, 64, 3, 3, true);
    test_measured(8, 32, 2, 5, false);
    test_measured(96, 96, 1, 3, true);
    test_bad_inputs();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_conv_reorder");
}
