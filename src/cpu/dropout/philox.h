/* SPDX-License-Identifier: Apache-2.0
 * Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
 * 3", SC 2011): a counter-based generator.  Four 32-bit outputs per 128-bit
 * counter under a 64-bit key; ten rounds of two 32x32->64 multiplications
 * with the published multipliers and Weyl key increments. */
#ifndef FDNN_CPU_DROPOUT_PHILOX_H
#define FDNN_CPU_DROPOUT_PHILOX_H

#include <stdint.h>

#define FDNN_PHILOX_M0 0xD2511F53u
#define FDNN_PHILOX_M1 0xCD9E8D57u
#define FDNN_PHILOX_W0 0x9E3779B9u /* golden ratio */
#define FDNN_PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

/* out = Philox4x32-10(counter c, key k). */
static inline void
fdnn_philox4x32_10(const uint32_t c[4], const uint32_t k[2], uint32_t out[4])
{
    uint32_t c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], k0 = k[0], k1 = k[1];
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)FDNN_PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)FDNN_PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c0 = n0;
        c1 = (uint32_t)p1;
        c2 = n2;
        c3 = (uint32_t)p0;
        k0 += FDNN_PHILOX_W0;
        k1 += FDNN_PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* The 32-bit random number of element `i` in forward call `call` under
 * `seed`: output i % 4 of the block with counter (i / 4, call). */
static inline uint32_t
fdnn_dropout_random(uint64_t seed, uint64_t call, uint64_t i)
{
    uint64_t block = i >> 2;
    const uint32_t c[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)call, (uint32_t)(call >> 32)};
    const uint32_t k[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t out[4];
    fdnn_philox4x32_10(c, k, out);
    return out[i & 3];
}

#endif /* FDNN_CPU_DROPOUT_PHILOX_H */
