/* The max-pooling (3x3, stride 2, pad 1, NCHW 32x64x112x112) micro-benchmark
 * of docs/performance.md (nettrain section), thread CPU time. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "cudnn.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
int main(void){
  int N=32,C=64,H=112,W=112,OH=56,OW=56; size_t n=(size_t)N*C*H*W, m=(size_t)N*C*OH*OW;
  cudnnHandle_t h; cudnnCreate(&h);
  cudnnTensorDescriptor_t xd,yd; cudnnCreateTensorDescriptor(&xd); cudnnCreateTensorDescriptor(&yd);
  cudnnSetTensor4dDescriptor(xd,CUDNN_TENSOR_NCHW,CUDNN_DATA_FLOAT,N,C,H,W);
  cudnnSetTensor4dDescriptor(yd,CUDNN_TENSOR_NCHW,CUDNN_DATA_FLOAT,N,C,OH,OW);
  cudnnPoolingDescriptor_t pd; cudnnCreatePoolingDescriptor(&pd);
  cudnnSetPooling2dDescriptor(pd,CUDNN_POOLING_MAX,CUDNN_NOT_PROPAGATE_NAN,3,3,1,1,2,2);
  float *x=malloc(n*4),*dx=malloc(n*4),*y=malloc(m*4),*dy=malloc(m*4);
  for(size_t i=0;i<n;i++){x[i]=(float)rand()/RAND_MAX;dx[i]=0;} for(size_t i=0;i<m;i++)dy[i]=1;
  float one=1,zero=0;
  for(int it=0;it<5;it++){
    double t0=now(); cudnnPoolingForward(h,pd,&one,xd,x,&zero,yd,y);
    double t1=now(); cudnnPoolingBackward(h,pd,&one,yd,y,yd,dy,xd,x,&zero,xd,dx);
    double t2=now(); printf("fwd %.1f bwd %.1f ms\n",t1-t0,t2-t1);
  }
}
