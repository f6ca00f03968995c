#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "core/cpu.h"
#include "core/pool.h"
#include "core/memory.h"
#include "cpu/gemm/gemm.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  size_t m=atoi(argv[1]),n=atoi(argv[2]),k=atoi(argv[3]); int T=atoi(argv[4]); int iters=argc>5?atoi(argv[5]):2000;
  float*a=fdnn_aligned_alloc(m*k*4),*b=fdnn_aligned_alloc(k*n*4),*c=fdnn_aligned_alloc(m*n*4);
  for(size_t i=0;i<m*k;i++)a[i]=(float)(i%7)*0.1f; for(size_t i=0;i<k*n;i++)b[i]=(float)(i%5)*0.1f;
  fdnn_pool_t pool=T>1?fdnn_pool_create(T):NULL;
  fdnn_isa_t isa=fdnn_cpu_max_isa();
  fdnn_sgemm_args_t g={.m=m,.n=n,.k=k,.alpha=1,.a=a,.lda=k,.b=b,.ldb=n,.beta=0,.c=c,.ldc=n};
  size_t sb=fdnn_sgemm_scratch_size(&g,T,isa); void*s=fdnn_aligned_alloc(sb+64);
  double best=1e9;
  for(int r=0;r<iters;r++){double t0=now();fdnn_sgemm(&g,pool,isa,s,sb);double t=now()-t0;if(t<best)best=t;}
  printf("%zux%zux%zu T=%d best %.1f us %.1f GF/s\n",m,n,k,T,best*1e6,2.0*m*n*k/best*1e-9);
  return 0;}
