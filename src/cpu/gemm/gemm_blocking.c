/* SPDX-License-Identifier: Apache-2.0
 * Block sizes of the GEMM driver.  See gemm_blocking.h and docs/gemm.md. */
#include "cpu/gemm/gemm_blocking.h"

#include "core/cpu.h"

static size_t
clamp(size_t x, size_t lo, size_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

fdnn_gemm_blocking_t
fdnn_gemm_blocking(size_t mr, size_t nr, size_t elem_bytes)
{
    size_t l1 = fdnn_cpu_l1d_bytes(), l2 = fdnn_cpu_l2_bytes();
    if (l1 == 0)
        l1 = 32 * 1024;
    if (l2 == 0)
        l2 = 1024 * 1024;
    fdnn_gemm_blocking_t b;
    /* kc: the B micro-panel (kc x nr) is reused by every A strip of the tile,
     * so it should stay in L1 next to the streaming A strip: two thirds of
     * L1 (256 floats for NR = 32 and 48 KiB; the 14x32 kernel runs at about
     * 92% of peak from L1 at kc = 256, 79% at kc = 64, where the epilogue
     * weighs more).  At least 256 even for wide tiles: the 8x48 kernel still
     * runs at 93% with its 48 KiB B panel at kc = 256, and a smaller block
     * costs more in epilogues than the L1 misses it saves.  A multiple of 8
     * keeps the panels 32-byte aligned. */
    b.kc = clamp(l1 * 2 / 3 / (nr * elem_bytes) / 8 * 8, 256, 512);
    /* mc: the A block (mc x kc) is reused for every NR strip of the tile and
     * should stay in L2 (a quarter, leaving room for B and C); capped so a
     * problem still splits into several parallel items. */
    b.mc = clamp(l2 / 4 / (b.kc * elem_bytes) / mr, 1, 12) * mr;
    /* nt: wide enough that reloading the A block is amortised (8 strips),
     * narrow enough that a ResNet-50 layer (n = 196 .. 3136) gives enough
     * tiles to balance two or more threads. */
    b.nt = 8 * nr;
    /* Panels: a few MB of packed A and B at most (kc x nc is 2 MiB for
     * float on AVX-512). */
    b.mb = 16 * b.mc;
    b.nc = 8 * b.nt;
    return b;
}

fdnn_gemm_blocking_t
fdnn_gemm_blocking_k(size_t mr, size_t nr, size_t elem_bytes, size_t kc_max, size_t k)
{
    fdnn_gemm_blocking_t b = fdnn_gemm_blocking(mr, nr, elem_bytes);
    if (kc_max == 0)
        return b;
    size_t l2 = fdnn_cpu_l2_bytes();
    if (l2 == 0)
        l2 = 1024 * 1024;
    b.kc = kc_max;
    /* the driver's equal blocks (gemm_driver.inc, run): at most kc_max, a multiple of 8 */
    size_t blocks = k > 0 ? (k + kc_max - 1) / kc_max : 1;
    size_t kb = k > 0 ? (k + blocks - 1) / blocks : 1;
    kb = (kb + 7) / 8 * 8;
    b.mc = clamp(l2 / 4 / (kb * elem_bytes) / mr, 1, 12) * mr;
    b.mb = 16 * b.mc;
    return b;
}

bool
fdnn_gemm_is_small(size_t m, size_t n, size_t k)
{
    /* Below about 64 K multiply-adds one thread finishes in a few microseconds,
     * less than it takes to wake the pool. */
    return (double)m * (double)n * (double)(k > 0 ? k : 1) < 65536.0;
}
