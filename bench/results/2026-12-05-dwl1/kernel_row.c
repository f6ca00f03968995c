/* Microbenchmark of fdnn_f32_dwcb_rows__avx512 on one interior row (dwl1 session).
 * Build: gcc -O2 -Isrc -Iinclude kernel_row.c -o kb build/libfdnn_internal.a -lm -lpthread
 * usage: kb C W iters [x_blocked y_blocked] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "cpu/kernels/dwconv_cb.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
/* one output row: C channels (blocks), W positions interior, 3 rows of data, NHWC */
int main(int argc,char**argv){
  int C=atoi(argv[1]), W=atoi(argv[2]), it=atoi(argv[3]); int xblk=argc>4?atoi(argv[4]):0, yblk=argc>5?atoi(argv[5]):0;
  int B=C/16;
  float *x=aligned_alloc(64,(size_t)3*(W+2)*C*4+64), *y=aligned_alloc(64,(size_t)W*C*4*4+64), *w=aligned_alloc(64,(size_t)B*9*16*4);
  for(size_t i=0;i<(size_t)3*(W+2)*C;i++)x[i]=(i%7)*.1f;
  for(int i=0;i<B*144;i++)w[i]=(i%5)*.1f;
  const float *src[9],*wt[9];
  int64_t xs=xblk?16:C, xb=xblk?3*(W+2)*16:16, xr=xblk?(W+2)*16:(W+2)*C;
  for(int r=0;r<3;r++)for(int q=0;q<3;q++){src[r*3+q]=x+(size_t)r*xr+q*xs; wt[r*3+q]=w+(r*3+q)*16;}
  fdnn_f32_dwcb_rows_args_t a={.src=src,.wt=wt,.taps=9,.count=W,.blocks=B,.tail=16,.src_step=xs,.src_bstride=xb,.w_bstride=144,.out=y,.out_step=yblk?16:(yblk==0?C:C),.out_bstride=yblk?W*16:16,.alpha=1,.beta=0,.rows_of_3=1,.tap_step=xs};
  double t0=now();
  for(int i=0;i<it;i++) fdnn_f32_dwcb_rows__avx512(&a);
  double t=now()-t0;
  printf("xblk=%d yblk=%d C=%d W=%d: %.2f ns/call  %.2f cyc(3.6GHz)/outvec\n",xblk,yblk,C,W,t/it*1e9,t/it*3.6e9/(B*W));
  return 0;}
