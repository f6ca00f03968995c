/* The weight-gradient product alone (dG^T X, m = g (argv[1], 2048 LSTM, 1536 GRU), n = 512, k = 1600):
 * fdnn_sgemm trans_a with its scratch preallocated, against a plain transposition of dG plus the packed-B
 * product (fdnn_sgemm_bpack). Build: gcc -O2 -std=c11 -Isrc -Iinclude -Icompat/cudart/include -Ibuild/generated
 * wgrad_gemm.c build/libfdnn_internal.a -lm -lpthread. Medians of 7, thread CPU time. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include "core/cpu.h"
#include "cpu/gemm/gemm.h"
#include "cpu/gemm/sgemm_bpack.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  size_t m=argc>1?atoi(argv[1]):2048,n=512,k=1600;
  fdnn_isa_t isa=fdnn_cpu_max_isa();
  float *dG=aligned_alloc(64,k*m*4),*X=aligned_alloc(64,k*n*4),*C=aligned_alloc(64,m*n*4),*At=aligned_alloc(64,m*k*4);
  for(size_t i=0;i<k*m;i++)dG[i]=(float)rand()/RAND_MAX; for(size_t i=0;i<k*n;i++)X[i]=(float)rand()/RAND_MAX;
  for(size_t i=0;i<m*n;i++)C[i]=0;
  size_t pb=fdnn_sgemm_bpack_bytes(m,n,k,false,isa); void*buf=aligned_alloc(64,(pb+63)/64*64);
  double t1[7],t2[7],t3[7];
  for(int r=0;r<7;r++){
    fdnn_sgemm_args_t g={.trans_a=true,.trans_b=false,.m=m,.n=n,.k=k,.alpha=1,.a=dG,.lda=m,.b=X,.ldb=n,.beta=0,.c=C,.ldc=n};
    static void*scr=NULL; size_t sb2=fdnn_sgemm_scratch_size(&g,1,isa); if(!scr){scr=aligned_alloc(64,(sb2+63)/64*64+64); memset(scr,0,sb2);} double s=now(); fdnn_sgemm(&g,NULL,isa,scr,sb2); t1[r]=now()-s;
    s=now();
    for(size_t i0=0;i0<k;i0+=16)for(size_t j0=0;j0<m;j0+=16)for(size_t i=i0;i<i0+16&&i<k;i++)for(size_t j=j0;j<j0+16;j++)At[j*k+i]=dG[i*m+j];
    t2[r]=now()-s; s=now();
    fdnn_sgemm_bpack_t pk; fdnn_sgemm_bpack_init(&pk,m,n,k,X,n,false,NULL,isa,buf,pb);
    {size_t sb=fdnn_sgemm_bpacked_scratch_size(&pk,m); if(r==0)printf("nr %zu mr %zu scratch %zu\n",pk.nr,pk.mr,sb);} fdnn_sgemm_bpacked(&pk,m,1,At,k,0,C,n,NULL,NULL,NULL,0); fdnn_sgemm_bpack_free(&pk);
    t3[r]=now()-s;
  }
  qsort(t1,7,8,cmp);qsort(t2,7,8,cmp);qsort(t3,7,8,cmp);
  double fl=2.0*m*n*k/1e6;
  printf("n=%zu sgemm ta %.2f ms (%.0f GF/s)  transpose %.2f ms  bpack+bpacked %.2f ms (%.0f GF/s)\n",n,t1[3],fl/t1[3],t2[3],t3[3],fl/t3[3]);
}
