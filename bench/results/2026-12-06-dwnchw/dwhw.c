/* min-of-N timing of one depthwise layer, NCHW, algo 0: dwh dir C H stride [n] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "cudnn.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  const char*dir=argv[1];int C=atoi(argv[2]),H=atoi(argv[3]),s=atoi(argv[4]),N=argc>5?atoi(argv[5]):1;int it=argc>6?atoi(argv[6]):200;
  int O=(H+2-3)/s+1;
  cudnnHandle_t h;cudnnCreate(&h);
  cudnnTensorDescriptor_t x,y;cudnnFilterDescriptor_t w;cudnnConvolutionDescriptor_t c;
  cudnnCreateTensorDescriptor(&x);cudnnCreateTensorDescriptor(&y);cudnnCreateFilterDescriptor(&w);cudnnCreateConvolutionDescriptor(&c);
  cudnnSetTensor4dDescriptor(x,CUDNN_TENSOR_NCHW,CUDNN_DATA_FLOAT,N,C,H,H);
  cudnnSetTensor4dDescriptor(y,CUDNN_TENSOR_NCHW,CUDNN_DATA_FLOAT,N,C,O,O);
  cudnnSetFilter4dDescriptor(w,CUDNN_DATA_FLOAT,CUDNN_TENSOR_NCHW,C,1,3,3);
  cudnnSetConvolution2dDescriptor(c,1,1,s,s,1,1,CUDNN_CROSS_CORRELATION,CUDNN_DATA_FLOAT);
  cudnnSetConvolutionGroupCount(c,C);
  size_t nx=(size_t)N*C*H*H,ny=(size_t)N*C*O*O;
  float*X=malloc(nx*4),*Y=malloc(ny*4),*W=malloc(C*9*4);
  for(size_t i=0;i<nx;i++)X[i]=(float)(i%7)*0.1f-0.3f;for(size_t i=0;i<ny;i++)Y[i]=(float)(i%5)*0.1f-0.2f;for(int i=0;i<C*9;i++)W[i]=0.01f*(i%11);
  float a=1,b=0;double*t=malloc(it*sizeof(double));
  for(int i=-3;i<it;i++){double t0=now();int st;
    if(dir[0]=='d') st=cudnnConvolutionBackwardData(h,&a,w,W,y,Y,c,0,NULL,0,&b,x,X);
    else if(dir[0]=='w') st=cudnnConvolutionBackwardFilter(h,&a,x,X,y,Y,c,0,NULL,0,&b,w,W);
    else st=cudnnConvolutionForward(h,&a,x,X,w,W,c,1,NULL,0,&b,y,Y);
    if(st){printf("err %d\n",st);return 1;} if(i>=0)t[i]=now()-t0;}
  qsort(t,it,sizeof(double),cmp);printf("%s C=%d H=%d s=%d N=%d min %.4f med %.4f ms\n",dir,C,H,s,N,t[0],t[it/2]);return 0;}
