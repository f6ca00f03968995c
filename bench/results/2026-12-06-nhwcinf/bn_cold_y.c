#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
int main(int argc,char**argv){
  int C=atoi(argv[1]),H=atoi(argv[2]); int nb=atoi(argv[3]); /* y buffers rotated */
  int coldx=argc>4?atoi(argv[4]):0;
  cudnnHandle_t h; cudnnCreate(&h);
  cudnnTensorDescriptor_t xd,cd; cudnnCreateTensorDescriptor(&xd); cudnnCreateTensorDescriptor(&cd);
  cudnnSetTensor4dDescriptor(xd,CUDNN_TENSOR_NHWC,CUDNN_DATA_FLOAT,1,C,H,H);
  cudnnSetTensor4dDescriptor(cd,CUDNN_TENSOR_NCHW,CUDNN_DATA_FLOAT,1,C,1,1);
  size_t n=(size_t)C*H*H;
  float **x=malloc(sizeof(float*)*nb),**y=malloc(sizeof(float*)*nb);
  for(int i=0;i<nb;i++){x[i]=aligned_alloc(64,n*4);y[i]=aligned_alloc(64,n*4);for(size_t j=0;j<n;j++){x[i][j]=(float)(j%7);y[i][j]=1;}}
  float *s=malloc(C*4),*b=malloc(C*4),*m=malloc(C*4),*v=malloc(C*4);
  for(int c=0;c<C;c++){s[c]=1;b[c]=0;m[c]=0;v[c]=1;}
  float one=1,zero=0;
  char *junk=malloc(64<<20);
  double tot=0;int reps=200;
  for(int r=0;r<reps;r++){
    int i=r%nb;
    float *xx=coldx?x[i]:x[0];
    memset(xx,0,n*4); /* x freshly written, as by the conv */
    double t0=now();
    cudnnBatchNormalizationForwardInference(h,CUDNN_BATCHNORM_SPATIAL,&one,&zero,xd,xx,xd,y[i],cd,s,b,m,v,1e-5);
    tot+=now()-t0;
  }
  printf("C=%d H=%d ybufs=%d: %.4f ms/call\n",C,H,nb,tot/reps);
  return 0;
}
