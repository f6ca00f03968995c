/* SPDX-License-Identifier: Apache-2.0
 * What every API fuzz harness shares (see README.md in this folder).
 *
 * A harness turns the fuzzer's bytes into descriptor setter calls, asks the
 * library for the sizes of everything it will touch (tensor, workspace,
 * reserve and weight space sizes), allocates exactly that many bytes with an
 * inaccessible page right after each buffer, and calls the compute entry
 * point.  A write or read past what the library itself said it needs then
 * faults at once, with or without AddressSanitizer.
 *
 * Inputs whose buffers or arithmetic exceed a small budget are dropped
 * before the compute call, so one input costs milliseconds and the fuzzer
 * reaches many executions; the size queries themselves always run. */
#ifndef FDNN_TESTS_FUZZ_UTIL_H
#define FDNN_TESTS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cudnn.h"

/* Largest buffer one input may allocate, and largest number of multiply-adds
 * (or element visits) one compute call may cost. */
#define FZ_MAX_BYTES ((size_t)4 << 20)
#define FZ_MAX_WORK 2e6

/* The bytes left to decode; reading past the end yields zeros. */
struct fz {
    const uint8_t *p;
    size_t n;
};

uint8_t fz_u8(struct fz *in);
uint32_t fz_u32(struct fz *in);
/* lo..hi inclusive (hi - lo < 256). */
int fz_range(struct fz *in, int lo, int hi);
/* v clamped to the int range: the harnesses derive sizes from fuzzed ints
 * (products, sums) without overflowing themselves. */
int fz_sat(long long v);
/* An enumerator of an enum with count values: mostly a valid one,
 * sometimes one of count-8..count+7 (negative and past-the-end values). */
int fz_enum(struct fz *in, int count);
/* A dimension: mostly 1..6, sometimes an edge value (0, -1, 2^16, 2^30,
 * INT_MAX, INT_MIN, ...). */
int fz_dim(struct fz *in);
/* A padding/offset-like integer: mostly 0..3, sometimes an edge value. */
int fz_small(struct fz *in);
/* A data type: mostly FLOAT, sometimes any other value of the enum or one
 * outside it. */
cudnnDataType_t fz_dtype(struct fz *in);
/* An alpha/beta pair for dtype (double storage for DOUBLE, float
 * otherwise): 0, 1, -1, 0.5 or NaN. */
const void *fz_scale(struct fz *in, cudnnDataType_t dtype, double store[1]);

/* A tensor descriptor of nbDims dimensions (nbDims < 0: chosen here,
 * mostly 4) with fuzzed dims and packed, channels-last or fuzzed strides.
 * dims receives the dimensions (at most 8).  Returns the setter's status. */
cudnnStatus_t fz_tensor(struct fz *in, cudnnTensorDescriptor_t desc, cudnnDataType_t dtype, int nbDims,
                        int dims[8]);
/* Same, with the given dims (packed or fuzzed strides). */
cudnnStatus_t fz_tensor_dims(struct fz *in, cudnnTensorDescriptor_t desc, cudnnDataType_t dtype, int nbDims,
                             const int dims[8]);

/* The process-wide handle (one worker thread: FREEDNN_NUM_THREADS=1 unless
 * the environment says otherwise). */
cudnnHandle_t fz_handle(void);

/* true when bytes fits the per-buffer budget. */
int fz_fits(size_t bytes);
/* true when a compute call of that many element operations fits. */
int fz_cheap(double work);
/* Buffer of exactly bytes (bytes == 0: a valid pointer to zero bytes) ending
 * at a PROT_NONE guard page, filled with 1.0f words (input-like: fill == 0)
 * or 0xff bytes (output-like: NaN for every floating type).  NULL when it
 * does not fit the budget.  Freed by fz_release. */
void *fz_alloc(size_t bytes, int poison);
/* Tensor/filter buffer sized from the library's own answer; NULL when the
 * query fails or the size is over budget. */
void *fz_tensor_buf(cudnnTensorDescriptor_t desc, int poison);
void *fz_filter_buf(cudnnFilterDescriptor_t desc, int poison);
/* Unmaps every buffer of the current input. */
void fz_release(void);

/* Aborts when a call returned a status that no input may cause: only
 * SUCCESS, BAD_PARAM, NOT_SUPPORTED and ALLOC_FAILED are answers to bad
 * input; anything else (INTERNAL_ERROR, EXECUTION_FAILED, an unknown value)
 * is a library bug. */
cudnnStatus_t fz_check(cudnnStatus_t status, const char *call);
#define FZ(call) fz_check((call), #call)

/* Every harness defines this (libFuzzer's entry point). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* FDNN_TESTS_FUZZ_UTIL_H */
