/* SPDX-License-Identifier: Apache-2.0
 * bench-vnni-peak: this core's vpdpbusd (zmm) rate, the ceiling of the
 * integer convolution's VNNI kernel (docs/performance.md compares the
 * kernel's rate with it).  24 independent accumulators, no loads, the
 * calling thread's CPU time; prints G instructions per second.  Run only
 * on a CPU with AVX512_VNNI. */
#include <stdio.h>
#include <time.h>

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define DP(r) "vpdpbusd %%zmm0, %%zmm1, %%zmm" #r "\n\t"

int
main(void)
{
    const long iters = 20000000;
    long n = iters;
    const double t0 = now_s();
    __asm__ volatile("vpxord %%zmm0, %%zmm0, %%zmm0\n\t"
                     "vpxord %%zmm1, %%zmm1, %%zmm1\n\t"
                     "1:\n\t" DP(2) DP(3) DP(4) DP(5) DP(6) DP(7) DP(8) DP(9) DP(10) DP(11) DP(12) DP(13) DP(14)
                         DP(15) DP(16) DP(17) DP(18) DP(19) DP(20) DP(21) DP(22) DP(23) DP(24) DP(25)
                     "dec %0\n\t"
                     "jnz 1b\n\t"
                     : "+r"(n)
                     :
                     : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                       "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",
                       "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25");
    const double t = now_s() - t0;
    printf("vpdpbusd zmm: %.3f G/s (1 thread, CPU time)\n", (double)iters * 24 / t / 1e9);
    return 0;
}
