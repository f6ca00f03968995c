/* SPDX-License-Identifier: Apache-2.0
 * The dropout descriptor and the layout of the dropout states buffer.
 *
 * The random numbers come from Philox4x32-10 (src/cpu/dropout/philox.h), a
 * counter-based generator: the number used for element i of call k is a
 * pure function of (seed, k, i), so a seed gives the same masks on any
 * machine, ISA level and thread count.  The states buffer that
 * cudnnSetDropoutDescriptor initialises holds the seed and the call counter
 * k, which each cudnnDropoutForward advances by one. */
#ifndef FDNN_CORE_DROPOUT_H
#define FDNN_CORE_DROPOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_DROPOUT_MAGIC 0x504f5244u       /* "DROP" */
#define FDNN_DROPOUT_STATE_MAGIC 0x46444e4e44524f50ull

/* What the user's states buffer holds (cudnnDropoutGetStatesSize bytes). */
typedef struct fdnn_dropout_state {
    uint64_t magic; /* FDNN_DROPOUT_STATE_MAGIC once initialised */
    uint64_t seed;
    uint64_t calls; /* forward calls made with these states */
} fdnn_dropout_state_t;

#define FDNN_DROPOUT_STATES_BYTES 64 /* sizeof(fdnn_dropout_state_t) rounded to a cache line */

struct cudnnDropoutStruct {
    uint32_t magic;
    bool is_set;
    float dropout;  /* probability of zeroing an element, 0 to 1 */
    void *states;   /* the user's buffer, or NULL (descriptor without states) */
    size_t state_bytes;
    unsigned long long seed;
};

#endif /* FDNN_CORE_DROPOUT_H */
