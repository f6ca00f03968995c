/* Microbenchmark: the interior rows of one NHWC image by groups of G blocks, rows
 * inner (dwl1 session).  Build as kernel_row.c; usage: kb3 C W iters G */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "cpu/kernels/dwconv_cb.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
/* interior of an H x W NHWC image (rows 1..H-2 of padded input (H)x(W+2)), groups of G blocks, rows inner */
int main(int argc,char**argv){
  int C=atoi(argv[1]), W=atoi(argv[2]), it=atoi(argv[3]), G=atoi(argv[4]);
  int B=C/16, H=W+2, Wp=W+2;
  float *x=aligned_alloc(256,(size_t)H*Wp*C*4), *y=aligned_alloc(256,(size_t)H*W*C*4), *w=aligned_alloc(64,(size_t)B*9*16*4);
  for(size_t i=0;i<(size_t)H*Wp*C;i++)x[i]=(i%7)*.1f;
  for(int i=0;i<B*144;i++)w[i]=(i%5)*.1f;
  double best=1e9; long calls=0;
  for(int rep=0;rep<5;rep++){ double t0=now(); calls=0;
  for(int i=0;i<it;i++)
    for(int b0=0;b0<B;b0+=G)
      for(int oh=0;oh<H-2;oh++){
        const float *src[9],*wt[9];
        for(int r=0;r<3;r++)for(int q=0;q<3;q++){src[r*3+q]=x+(size_t)(oh+r)*Wp*C+q*C+b0*16; wt[r*3+q]=w+b0*144+(r*3+q)*16;}
        int nb=B-b0<G?B-b0:G;
        fdnn_f32_dwcb_rows_args_t a={.src=src,.wt=wt,.taps=9,.count=W,.blocks=nb,.tail=16,.src_step=C,.src_bstride=16,.w_bstride=144,.out=y+(size_t)oh*W*C+b0*16,.out_step=C,.out_bstride=16,.alpha=1,.beta=0,.rows_of_3=1,.tap_step=C};
        fdnn_f32_dwcb_rows__avx512(&a); calls++;
      }
  double t=now()-t0; if(t<best)best=t;}
  printf("C=%d W=%d G=%d: %.2f us/image  %.2f cyc/outvec  calls/image %ld\n",C,W,G,best/it*1e6,best/it*3.6e9/(B*W*(H-2)),calls/it);
  return 0;}
