/* SPDX-License-Identifier: Apache-2.0
 * dw_call C H S N OFF DIR ITERS [YOFF]: one depthwise 3x3 (pad 1, stride
 * S) on NHWC tensors of N images, C channels, H x H, timed alone: x OFF
 * bytes and y YOFF (default OFF) bytes past a 64-byte line; DIR 0 forward
 * (DIRECT), 1 backward data (ALGO_0), 2 backward filter (ALGO_0); prints
 * the min and median thread CPU time over ITERS calls (dw_call.sh). */
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
 int C=atoi(argv[1]),H=atoi(argv[2]),S=atoi(argv[3]),N=atoi(argv[4]),off=atoi(argv[5]),dir=atoi(argv[6]),it=atoi(argv[7]);
 int OH=(H+2-3)/S+1;
 cudnnHandle_t h; cudnnCreate(&h);
 cudnnTensorDescriptor_t xd,yd; cudnnFilterDescriptor_t wd; cudnnConvolutionDescriptor_t cd;
 cudnnCreateTensorDescriptor(&xd);cudnnCreateTensorDescriptor(&yd);cudnnCreateFilterDescriptor(&wd);cudnnCreateConvolutionDescriptor(&cd);
 cudnnSetTensor4dDescriptor(xd,CUDNN_TENSOR_NHWC,CUDNN_DATA_FLOAT,N,C,H,H);
 cudnnSetTensor4dDescriptor(yd,CUDNN_TENSOR_NHWC,CUDNN_DATA_FLOAT,N,C,OH,OH);
 cudnnSetFilter4dDescriptor(wd,CUDNN_DATA_FLOAT,CUDNN_TENSOR_NCHW,C,1,3,3);
 cudnnSetConvolution2dDescriptor(cd,1,1,S,S,1,1,CUDNN_CROSS_CORRELATION,CUDNN_DATA_FLOAT);
 cudnnSetConvolutionGroupCount(cd,C);
 size_t xn=(size_t)N*C*H*H,yn=(size_t)N*C*OH*OH;
 char*xb=aligned_alloc(4096,xn*4+4096),*yb=aligned_alloc(4096,yn*4+4096),*wb=aligned_alloc(64,C*9*4+64);
 float*x=(float*)(xb+off),*y=(float*)(yb+off+2048),*w=(float*)wb;
 for(size_t i=0;i<xn;i++)x[i]=(float)(i%13)*0.1f;
 for(size_t i=0;i<yn;i++)y[i]=(float)(i%7)*0.1f;
 for(int i=0;i<C*9;i++)w[i]=0.01f*(i%5);
 float one=1,zero=0; double t[1000]; if(it>1000)it=1000;
 for(int i=-2;i<it;i++){double t0=now();
  if(dir==0)cudnnConvolutionForward(h,&one,xd,x,wd,w,cd,CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,NULL,0,&zero,yd,y);
  else if(dir==1)cudnnConvolutionBackwardData(h,&one,wd,w,yd,y,cd,CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,NULL,0,&zero,xd,x);
  else cudnnConvolutionBackwardFilter(h,&one,xd,x,yd,y,cd,CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,NULL,0,&zero,wd,w);
  if(i>=0)t[i]=now()-t0;}
 qsort(t,it,sizeof(double),cmp);
 printf("C=%d H=%d s=%d N=%d off=%d dir=%d min %.4f med %.4f ms\n",C,H,S,N,off,dir,t[0],t[it/2]);
 return 0;}
