/* SPDX-License-Identifier: Apache-2.0
 * ab_drv: one depthwise 3x3 layer (pad 1) through the cuDNN API, 1 thread,
 * per-thread CPU time per call, median and minimum of ITERS calls (2 warm-up).
 * Usage: ab_drv N C H STRIDE DIR(0 fwd, 1 bwd_d, 2 bwd_w) NHWC(0/1) ITERS
 * Build: gcc -O2 -o ab_drv ab_drv.c -Iinclude -Icompat/cudart/include -Lbuild -lcudnn
 * and run with LD_LIBRARY_PATH set to the library to measure. */
#include <cudnn.h>
#include <freednn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  int N=atoi(argv[1]),C=atoi(argv[2]),H=atoi(argv[3]),S=atoi(argv[4]),dir=atoi(argv[5]),nhwc=atoi(argv[6]),it=atoi(argv[7]);
  int W=H,OH=(H+2-3)/S+1,OW=OH;
  cudnnHandle_t h;cudnnCreate(&h);freednnSetNumThreads(h,1);
  cudnnTensorDescriptor_t xd,yd;cudnnFilterDescriptor_t wd;cudnnConvolutionDescriptor_t cd;
  cudnnCreateTensorDescriptor(&xd);cudnnCreateTensorDescriptor(&yd);cudnnCreateFilterDescriptor(&wd);cudnnCreateConvolutionDescriptor(&cd);
  cudnnTensorFormat_t f=nhwc?CUDNN_TENSOR_NHWC:CUDNN_TENSOR_NCHW;
  cudnnSetTensor4dDescriptor(xd,f,CUDNN_DATA_FLOAT,N,C,H,W);cudnnSetTensor4dDescriptor(yd,f,CUDNN_DATA_FLOAT,N,C,OH,OW);
  cudnnSetFilter4dDescriptor(wd,CUDNN_DATA_FLOAT,f,C,1,3,3);
  cudnnSetConvolution2dDescriptor(cd,1,1,S,S,1,1,CUDNN_CROSS_CORRELATION,CUDNN_DATA_FLOAT);cudnnSetConvolutionGroupCount(cd,C);
  size_t xn=(size_t)N*C*H*W,yn=(size_t)N*C*OH*OW;float*x=malloc(xn*4),*y=malloc(yn*4),*w=malloc(C*9*4);
  for(size_t i=0;i<xn;i++)x[i]=(i%7)*0.1f;for(size_t i=0;i<yn;i++)y[i]=(i%5)*0.1f;for(int i=0;i<C*9;i++)w[i]=(i%3)*0.1f;
  float one=1,zero=0;double t[10000];
  for(int i=-2;i<it;i++){double t0=now();int st;
    if(dir==0)st=cudnnConvolutionForward(h,&one,xd,x,wd,w,cd,CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,NULL,0,&zero,yd,y);
    else if(dir==1)st=cudnnConvolutionBackwardData(h,&one,wd,w,yd,y,cd,CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,NULL,0,&zero,xd,x);
    else st=cudnnConvolutionBackwardFilter(h,&one,xd,x,yd,y,cd,CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,NULL,0,&zero,wd,w);
    if(st){printf("status %d\n",st);return 1;}
    if(i>=0)t[i]=now()-t0;}
  qsort(t,it,sizeof(double),cmp);printf("N%d C%d H%d s%d dir%d %s: med %.4f min %.4f ms\n",N,C,H,S,dir,nhwc?"nhwc":"nchw",t[it/2],t[0]);return 0;}
