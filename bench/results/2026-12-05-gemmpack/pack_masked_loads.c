#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
#define VAR(name, LD, ST) void name(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, size_t width){ \
 size_t strips = cols / width; size_t se = rows * width; __mmask16 m = (__mmask16)((1u<<width)-1u); if(width>=16) m=0xffff; \
 for (size_t r = 0; r < rows; r++) { const float *s = src + r * src_ld; float *d = dst + r * width; \
  for (size_t t = 0; t < strips; t++, s += width, d += se) { __m512 v = LD; ST; } } }
VAR(mm, _mm512_maskz_loadu_ps(m, s), _mm512_mask_storeu_ps(d, m, v))
VAR(pm, _mm512_loadu_ps(s), _mm512_mask_storeu_ps(d, m, v))
VAR(mp, _mm512_maskz_loadu_ps(m, s), _mm512_storeu_ps(d, v))
VAR(pp, _mm512_loadu_ps(s), _mm512_storeu_ps(d, v))
int main(){
  size_t P=100352, K=256, kc=768; float *dy=aligned_alloc(64,P*K*4+256); memset(dy,1,P*K*4+256);
  float *ap=aligned_alloc(64,(K+32)*kc*4+1024); memset(ap,0,(K+32)*kc*4+1024);
  void (*f[4])(size_t,size_t,const float*,size_t,float*,size_t)={mm,pm,mp,pp};
  const char*nm[4]={"maskld+maskst","plainld+maskst","maskld+plainst","plain"};
  for(int w=14; w<=16; w+=2){ double best[4]={1e9,1e9,1e9,1e9};
   for(int rep=0;rep<7;rep++) for(int v=0;v<4;v++){ double t0=now();
    for(size_t p=0;p+kc<=P;p+=kc) f[v](kc,K,dy+p*K,K,ap,w); double t=now()-t0; if(t<best[v])best[v]=t;}
   printf("DRAM w%d:",w); for(int v=0;v<4;v++) printf("  %s %.1f",nm[v],best[v]); printf("\n");
   for(int v=0;v<4;v++) best[v]=1e9;
   for(int rep=0;rep<7;rep++) for(int v=0;v<4;v++){ double t0=now();
    for(int i=0;i<130;i++) f[v](kc,K,dy,K,ap,w); double t=now()-t0; if(t<best[v])best[v]=t;}
   printf("L2   w%d:",w); for(int v=0;v<4;v++) printf("  %s %.1f",nm[v],best[v]); printf("\n");
  }
}
