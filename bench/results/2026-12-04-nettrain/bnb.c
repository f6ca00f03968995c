/* The BN + ReLU micro-benchmark of docs/performance.md (nettrain section):
 * cudnnBatchNormalizationForwardTrainingEx / BackwardEx (BN_ACTIVATION) against
 * BN + cudnnActivation* as two calls, NCHW, thread CPU time.
 * gcc -O2 -Iinclude -Icompat/cudart/include bnb.c -Lbuild -lcudnn; ./a.out N C H W */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "cudnn.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
int main(int argc,char**argv){ if(argc<5)return 1;
  int N=atoi(argv[1]),C=atoi(argv[2]),H=atoi(argv[3]),W=atoi(argv[4]); size_t n=(size_t)N*C*H*W;
  cudnnHandle_t h; cudnnCreate(&h);
  cudnnTensorDescriptor_t xd,pd; cudnnCreateTensorDescriptor(&xd); cudnnCreateTensorDescriptor(&pd);
  cudnnSetTensor4dDescriptor(xd,CUDNN_TENSOR_NCHW,CUDNN_DATA_FLOAT,N,C,H,W);
  cudnnSetTensor4dDescriptor(pd,CUDNN_TENSOR_NCHW,CUDNN_DATA_FLOAT,1,C,1,1);
  cudnnActivationDescriptor_t ad; cudnnCreateActivationDescriptor(&ad); cudnnSetActivationDescriptor(ad,CUDNN_ACTIVATION_RELU,CUDNN_NOT_PROPAGATE_NAN,0);
  float *x=malloc(n*4),*y=malloc(n*4),*dy=malloc(n*4),*dx=malloc(n*4),*t=malloc(n*4);
  for(size_t i=0;i<n;i++){x[i]=(float)rand()/RAND_MAX-0.5f;dy[i]=(float)rand()/RAND_MAX-0.5f;}
  float *sc=malloc(C*4),*b=malloc(C*4),*ds=malloc(C*4),*db=malloc(C*4),*sm=malloc(C*4),*si=malloc(C*4);
  for(int c=0;c<C;c++){sc[c]=1;b[c]=0;}
  size_t rs; cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h,CUDNN_BATCHNORM_SPATIAL,CUDNN_BATCHNORM_OPS_BN_ACTIVATION,ad,xd,&rs);
  void *res=malloc(rs); float one=1,zero=0;
  for(int it=0;it<4;it++){
    double t0=now();
    cudnnBatchNormalizationForwardTrainingEx(h,CUDNN_BATCHNORM_SPATIAL,CUDNN_BATCHNORM_OPS_BN_ACTIVATION,&one,&zero,xd,x,NULL,NULL,xd,y,pd,sc,b,0.1,NULL,NULL,1e-5,sm,si,ad,NULL,0,res,rs);
    double t1=now();
    cudnnBatchNormalizationBackwardEx(h,CUDNN_BATCHNORM_SPATIAL,CUDNN_BATCHNORM_OPS_BN_ACTIVATION,&one,&zero,&one,&zero,xd,x,xd,y,xd,dy,NULL,NULL,xd,dx,pd,sc,b,ds,db,1e-5,sm,si,ad,NULL,0,res,rs);
    double t2=now();
    cudnnBatchNormalizationForwardTraining(h,CUDNN_BATCHNORM_SPATIAL,&one,&zero,xd,x,xd,t,pd,sc,b,0.1,NULL,NULL,1e-5,sm,si);
    cudnnActivationForward(h,ad,&one,xd,t,&zero,xd,y);
    double t3=now();
    cudnnActivationBackward(h,ad,&one,xd,y,xd,dy,xd,t,&zero,xd,t);
    cudnnBatchNormalizationBackward(h,CUDNN_BATCHNORM_SPATIAL,&one,&zero,&one,&zero,xd,x,xd,t,xd,dx,pd,sc,ds,db,1e-5,sm,si);
    double t4=now();
    printf("Ex fwd %.1f bwd %.1f | plain+act fwd %.1f bwd %.1f ms\n",t1-t0,t2-t1,t3-t2,t4-t3);
  }
  return 0;
}
