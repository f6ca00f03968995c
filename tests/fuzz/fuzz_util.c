/* SPDX-License-Identifier: Apache-2.0
 * Byte decoding, guard-page buffers and the shared handle of the API fuzz
 * harnesses (contracts in fuzz_util.h). */
#define _GNU_SOURCE
#include "fuzz_util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

uint8_t
fz_u8(struct fz *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

uint32_t
fz_u32(struct fz *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | fz_u8(in);
    return v;
}

int
fz_range(struct fz *in, int lo, int hi)
{
    return lo + fz_u8(in) % (hi - lo + 1);
}

int
fz_sat(long long v)
{
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

int
fz_enum(struct fz *in, int count)
{
    uint8_t b = fz_u8(in);
    return b < 0xf0 ? b % count : count - 8 + (b - 0xf0);
}

/* The values that broke other DNN libraries: zero and negative sizes,
 * powers of two around SIMD widths, and values whose products wrap 32 and
 * 64-bit arithmetic. */
static const int edge_values[16] = {0,  -1, 7,  8,       9,       16,      17,      31,
                                    33, 64, 65536, 1 << 20, 1 << 30, INT_MAX, INT_MIN, -65536};

int
fz_dim(struct fz *in)
{
    uint8_t b = fz_u8(in);
    return b < 0xf0 ? 1 + b % 6 : edge_values[b - 0xf0];
}

int
fz_small(struct fz *in)
{
    uint8_t b = fz_u8(in);
    return b < 0xf0 ? b % 4 : edge_values[b - 0xf0];
}

cudnnDataType_t
fz_dtype(struct fz *in)
{
    uint8_t b = fz_u8(in);
    if (b < 0xc0)
        return CUDNN_DATA_FLOAT;
    if (b < 0xd0)
        return CUDNN_DATA_DOUBLE;
    if (b < 0xd8)
        return CUDNN_DATA_HALF;
    if (b < 0xe0)
        return CUDNN_DATA_BFLOAT16;
    if (b == 0xff)
        return (cudnnDataType_t)-1;
    return (cudnnDataType_t)(b % 20); /* every value, and a few past the last */
}

const void *
fz_scale(struct fz *in, cudnnDataType_t dtype, double store[1])
{
    static const double values[8] = {1, 0, 1, 0, -1, 0.5, 2, NAN};
    double v = values[fz_u8(in) % 8];
    if (dtype == CUDNN_DATA_DOUBLE) {
        store[0] = v;
    } else {
        float f = (float)v;
        memcpy(store, &f, sizeof f);
    }
    return store;
}

cudnnStatus_t
fz_tensor_dims(struct fz *in, cudnnTensorDescriptor_t desc, cudnnDataType_t dtype, int nbDims, const int dims[8])
{
    /* 16 entries: a library that read nbDims > 8 of them before rejecting
     * the rank must not make the harness itself read out of bounds. */
    int d[16] = {0}, strides[16] = {0};
    uint8_t how = fz_u8(in);
    int n = nbDims < 1 ? 1 : nbDims > 8 ? 8 : nbDims;
    for (int i = 0; i < 8; i++)
        d[i] = dims[i];
    if (how < 0xc0 || nbDims < 3 || nbDims > 8) {
        /* packed, outermost dimension first */
        int s = 1;
        for (int i = n - 1; i >= 0; i--) {
            strides[i] = s;
            s = (int)((unsigned)s * (unsigned)(dims[i] > 0 ? dims[i] : 1));
        }
    } else if (how < 0xe0) {
        /* channels last: C innermost, then the spatial dims, then N */
        int s = dims[1];
        strides[1] = 1;
        for (int i = n - 1; i >= 2; i--) {
            strides[i] = s;
            s = (int)((unsigned)s * (unsigned)(dims[i] > 0 ? dims[i] : 1));
        }
        strides[0] = s;
    } else {
        for (int i = 0; i < n; i++)
            strides[i] = fz_dim(in);
    }
    return cudnnSetTensorNdDescriptor(desc, dtype, nbDims, d, strides);
}

cudnnStatus_t
fz_tensor(struct fz *in, cudnnTensorDescriptor_t desc, cudnnDataType_t dtype, int nbDims, int dims[8])
{
    if (nbDims < 0) {
        uint8_t b = fz_u8(in);
        nbDims = b < 0xc0 ? 4 : b < 0xe0 ? 3 + b % 3 : b % 10;
    }
    for (int i = 0; i < 8; i++)
        dims[i] = i < nbDims ? fz_dim(in) : 1;
    return fz_tensor_dims(in, desc, dtype, nbDims, dims);
}

cudnnHandle_t
fz_handle(void)
{
    static cudnnHandle_t handle;
    if (handle == NULL) {
        setenv("FREEDNN_NUM_THREADS", "1", 0);
        if (cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS) {
            fprintf(stderr, "fuzz: cudnnCreate failed\n");
            abort();
        }
    }
    return handle;
}

int
fz_fits(size_t bytes)
{
    return bytes <= FZ_MAX_BYTES;
}

int
fz_cheap(double work)
{
    return work >= 0 && work <= FZ_MAX_WORK;
}

/* The mappings of the current input (a harness makes at most a few dozen). */
#define FZ_MAX_BUFFERS 64
static struct {
    void *base;
    size_t len;
} buffers[FZ_MAX_BUFFERS];
static int n_buffers;

void *
fz_alloc(size_t bytes, int poison)
{
    if (!fz_fits(bytes) || n_buffers == FZ_MAX_BUFFERS)
        return NULL;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (bytes + page - 1) / page;
    size_t len = (data_pages + 1) * page;
    uint8_t *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("fuzz: mmap");
        abort();
    }
    if (mprotect(base + data_pages * page, page, PROT_NONE) != 0) {
        perror("fuzz: mprotect");
        abort();
    }
    buffers[n_buffers].base = base;
    buffers[n_buffers].len = len;
    n_buffers++;
    /* The buffer ends where the guard page starts.  Its start keeps 8-byte
     * alignment (the largest element is 8 bytes), so up to 7 bytes of slack
     * are the only overrun a guard page cannot see (ASan builds see them). */
    size_t rounded = (bytes + 7) & ~(size_t)7;
    uint8_t *p = base + data_pages * page - rounded;
    if (poison) {
        memset(p, 0xff, rounded);
    } else {
        const float one = 1.0f;
        for (size_t i = 0; i + sizeof one <= rounded; i += sizeof one)
            memcpy(p + i, &one, sizeof one);
    }
    return p;
}

void *
fz_tensor_buf(cudnnTensorDescriptor_t desc, int poison)
{
    size_t bytes = 0;
    if (cudnnGetTensorSizeInBytes(desc, &bytes) != CUDNN_STATUS_SUCCESS)
        return NULL;
    return fz_alloc(bytes, poison);
}

void *
fz_filter_buf(cudnnFilterDescriptor_t desc, int poison)
{
    size_t bytes = 0;
    if (cudnnGetFilterSizeInBytes(desc, &bytes) != CUDNN_STATUS_SUCCESS)
        return NULL;
    return fz_alloc(bytes, poison);
}

void
fz_release(void)
{
    for (int i = 0; i < n_buffers; i++)
        munmap(buffers[i].base, buffers[i].len);
    n_buffers = 0;
}

cudnnStatus_t
fz_check(cudnnStatus_t status, const char *call)
{
    /* FDNN_FUZZ_TRACE=1 prints every checked call and its status, to see
     * which calls a corpus reaches and how often they succeed. */
    static int trace = -1;
    if (trace < 0)
        trace = getenv("FDNN_FUZZ_TRACE") != NULL;
    if (trace)
        fprintf(stderr, "fuzz: %d %.60s\n", (int)status, call);
    switch (status) {
    case CUDNN_STATUS_SUCCESS:
    case CUDNN_STATUS_BAD_PARAM:
    case CUDNN_STATUS_NOT_SUPPORTED:
    case CUDNN_STATUS_ALLOC_FAILED:
        return status;
    default:
        fprintf(stderr, "fuzz: %s returned %d (%s), which no input may cause\n", call, (int)status,
                cudnnGetErrorString(status));
        abort();
    }
}
