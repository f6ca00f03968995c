/* Isolation timing used for docs/performance.md (netmem): BN forward training,
 * BN backward, ReLU backward, AddTensor copy/accumulate, ReLU forward on one
 * N=32 tensor, 1 thread, CPU time.  Build: gcc -O2 -I include
 * -I compat/cudart/include bn_act_micro.c -Lbuild -lcudnn; run: ./a.out C H [nhwc]. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cudnn.h>
#include <freednn.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
int main(int argc,char**argv){
  int N=32,C=argc>1?atoi(argv[1]):256,H=argc>2?atoi(argv[2]):56; int nhwc=argc>3&&atoi(argv[3]);
  size_t n=(size_t)N*C*H*H; float*x=malloc(n*4),*y=malloc(n*4),*dy=malloc(n*4),*dx=malloc(n*4);
  for(size_t i=0;i<n;i++){x[i]=(float)((i*2654435761u)%1000)/500.f-1;dy[i]=(float)((i*40503u)%1000)/500.f-1;}
  float *p[8];for(int i=0;i<8;i++){p[i]=malloc(C*4);for(int c=0;c<C;c++)p[i][c]=1.f;}
  cudnnHandle_t h;cudnnCreate(&h);freednnSetNumThreads(h,1);
  cudnnTensorDescriptor_t d,cd;cudnnCreateTensorDescriptor(&d);cudnnCreateTensorDescriptor(&cd);
  cudnnSetTensor4dDescriptor(d,nhwc?CUDNN_TENSOR_NHWC:CUDNN_TENSOR_NCHW,CUDNN_DATA_FLOAT,N,C,H,H);
  cudnnSetTensor4dDescriptor(cd,CUDNN_TENSOR_NCHW,CUDNN_DATA_FLOAT,1,C,1,1);
  cudnnActivationDescriptor_t a;cudnnCreateActivationDescriptor(&a);cudnnSetActivationDescriptor(a,CUDNN_ACTIVATION_RELU,CUDNN_NOT_PROPAGATE_NAN,0);
  const float one=1,zero=0; double t[6]={0};
  for(int it=0;it<6;it++){double t0=now();
    cudnnBatchNormalizationForwardTraining(h,CUDNN_BATCHNORM_SPATIAL,&one,&zero,d,x,d,y,cd,p[0],p[1],0.1,p[2],p[3],1e-5,p[4],p[5]);
    double t1=now();
    cudnnBatchNormalizationBackward(h,CUDNN_BATCHNORM_SPATIAL,&one,&zero,&one,&zero,d,x,d,dy,d,dx,cd,p[0],p[6],p[7],1e-5,p[4],p[5]);
    double t2=now();
    cudnnActivationBackward(h,a,&one,d,y,d,dy,d,x,&zero,d,dx);
    double t3=now();
    cudnnAddTensor(h,&one,d,dy,&zero,d,dx);
    double t4=now();
    cudnnAddTensor(h,&one,d,dy,&one,d,dx);
    double t5=now();
    cudnnActivationForward(h,a,&one,d,x,&zero,d,y);
    double t6=now();
    if(it>0){t[0]+=t1-t0;t[1]+=t2-t1;t[2]+=t3-t2;t[3]+=t4-t3;t[4]+=t5-t4;t[5]+=t6-t5;}}
  double mb=n*4/1e6;
  printf("C=%d H=%d %s MB=%.0f bnfwd %.1f bnbwd %.1f relubwd %.1f copy %.1f acc %.1f relufwd %.1f ms (x5)\n",C,H,nhwc?"nhwc":"nchw",mb,t[0]/5,t[1]/5,t[2]/5,t[3]/5,t[4]/5,t[5]/5);
  printf("  GB/s-equivalent: bnfwd(2) %.1f bnbwd(3) %.1f relubwd(3) %.1f copy(2) %.1f acc(3) %.1f relufwd(2) %.1f\n",2*mb/t[0]*5,3*mb/t[1]*5,3*mb/t[2]*5,2*mb/t[3]*5,3*mb/t[4]*5,2*mb/t[5]*5);
}
