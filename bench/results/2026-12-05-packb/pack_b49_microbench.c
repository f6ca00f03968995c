#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static void pack(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, int pf)
{
    size_t strips = (cols + 48) / 49;
    for (size_t t = 0; t < strips; t++) {
        size_t valid = cols - t * 49 < 49 ? cols - t * 49 : 49;
        size_t w = valid < 48 ? valid : 48;
        __mmask16 m[3];
        for (int v = 0; v < 3; v++) {
            size_t lanes = w > (size_t)v * 16 ? w - (size_t)v * 16 : 0;
            m[v] = (__mmask16)((1u << (lanes < 16 ? lanes : 16)) - 1u);
        }
        float *d = dst + t * 49 * rows, *dcol = d + 48 * rows;
        const float *s = src + t * 49;
        for (size_t r = 0; r < rows; r++, s += src_ld, d += 48) {
            if (pf) { _mm_prefetch((const char*)(s + pf*src_ld), _MM_HINT_T0); _mm_prefetch((const char*)(s + pf*src_ld)+64, _MM_HINT_T0); _mm_prefetch((const char*)(s + pf*src_ld)+128, _MM_HINT_T0);_mm_prefetch((const char*)(s + pf*src_ld)+192, _MM_HINT_T0);}
            for (int v = 0; v < 3; v++)
                _mm512_storeu_ps(d + 16 * v, _mm512_maskz_loadu_ps(m[v], s + 16 * v));
            dcol[r] = valid == 49 ? s[48] : 0.0f;
        }
    }
}

static void pack_blk(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, int R)
{
    size_t strips = (cols + 48) / 49;
    __mmask16 mk[16][3]; size_t valid_[16];
    for (size_t t = 0; t < strips; t++) {
        size_t valid = cols - t * 49 < 49 ? cols - t * 49 : 49;
        size_t w = valid < 48 ? valid : 48; valid_[t]=valid;
        for (int v = 0; v < 3; v++) {
            size_t lanes = w > (size_t)v * 16 ? w - (size_t)v * 16 : 0;
            mk[t][v] = (__mmask16)((1u << (lanes < 16 ? lanes : 16)) - 1u);
        }
    }
    size_t rowbytes = cols*4;
    for (size_t r0 = 0; r0 < rows; r0 += R) {
        size_t r1 = r0 + R < rows ? r0 + R : rows;
        /* prefetch next block (rows r1 .. r1+R) */
        if (src_ld == cols) {
            const char *nb = (const char*)(src + r1*src_ld); size_t nbytes = (size_t)R*rowbytes;
            for (size_t o = 0; o < nbytes; o += 64) _mm_prefetch(nb + o, _MM_HINT_T0);
        }
        for (size_t t = 0; t < strips; t++) {
            float *d = dst + t * 49 * rows + r0*48, *dcol = dst + t*49*rows + 48 * rows;
            const float *s = src + t * 49 + r0*src_ld;
            for (size_t r = r0; r < r1; r++, s += src_ld, d += 48) {
                for (int v = 0; v < 3; v++)
                    _mm512_storeu_ps(d + 16 * v, _mm512_maskz_loadu_ps(mk[t][v], s + 16 * v));
                dcol[r] = valid_[t] == 49 ? s[48] : 0.0f;
            }
        }
    }
}
static double now(void){struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t); return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc, char **argv){
    size_t rows=1024, cols=196; int nimg = atoi(argv[1]); int pf = argc>2?atoi(argv[2]):0;
    float *src = aligned_alloc(64, sizeof(float)*rows*cols*nimg);
    float *dst = aligned_alloc(64, sizeof(float)*rows*200);
    for (size_t i=0;i<rows*cols*nimg;i++) src[i]=i;
    memset(dst,0,sizeof(float)*rows*200);
    for (int rep=0; rep<3; rep++){
    double t0=now();
    int N=200;
    for (int it=0; it<N; it++) if (pf<0) pack_blk(rows, cols, src + (it%nimg)*rows*cols, cols, dst, -pf); else pack(rows, cols, src + (it%nimg)*rows*cols, cols, dst, pf);
    double t1=now();
    printf("nimg %d pf %d: %.1f us per pack, %.2f GB/s\n", nimg, pf, (t1-t0)/N*1e6, rows*cols*4.0/((t1-t0)/N)/1e9);
    }
}
