/* Which pipes 512-bit operations share with the multiply-adds, on an AVX-512 x86
 * CPU (docs/perf.md#exp-and-log-against-numpy: on Zen 4 the permutes, compares
 * into masks and fpclass take the FMA pipes; getmant, getexp, shifts and adds
 * the others; scalef takes two cycles). Each row times eight independent chains
 * of multiply-adds and/or eight of the other operation, in cycles per group of
 * eight, the clock taken from a chain of dependent adds (latency 3):
 *
 *     gcc -O2 -mavx512f -mavx512dq -o /tmp/pipes benches/pipes.c && /tmp/pipes
 *
 * If the pair's cycles are the larger of the two alone, they run on different
 * pipes; if they are the sum, they share. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define N 50000000L
#define R8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
typedef __m512d V;
volatile double sink;
int main(){
  V a[8], c8[8], b=_mm512_set1_pd(1.0000001), c=_mm512_set1_pd(1e-9), t0=_mm512_set1_pd(0.5),t1=_mm512_set1_pd(0.25);
  __m512i idx=_mm512_set1_epi64(3), ii[8]; __mmask8 m[8];
  for(int i=0;i<8;i++){ a[i]=_mm512_set1_pd(1.0+i); c8[i]=_mm512_set1_pd(2.0+i); ii[i]=_mm512_set1_epi64(i); m[i]=i;}
  double t, s;
  V x=a[0]; t=now(); for(long i=0;i<N;i++){ x=_mm512_add_pd(x,c);} s=now()-t; sink=_mm512_reduce_add_pd(x);
  double ghz = 3.0/(s/N*1e9);
  printf("add chain %.3f ns -> %.2f GHz if latency 3\n", s/N*1e9, ghz);
#define FMA(k) a[k]=_mm512_fmadd_pd(a[k],b,c);
#define RUN(name, X) t=now(); for(long i=0;i<N;i++){ R8(X) } s=now()-t; \
  for(int k=0;k<8;k++){ sink=_mm512_reduce_add_pd(a[k])+_mm512_reduce_add_pd(c8[k]); } \
  printf("%-22s %.2f cycles per group of 8\n", name, s/N*1e9*ghz);
  RUN("fma x8", FMA)
#define ADD(k) c8[k]=_mm512_add_pd(c8[k],c);
  RUN("add x8", ADD)
#define FA(k) FMA(k) ADD(k)
  RUN("fma+add x8", FA)
#define PERM(k) c8[k]=_mm512_permutex2var_pd(c8[k],idx,t0);
  RUN("perm x8", PERM)
#define FP(k) FMA(k) PERM(k)
  RUN("fma+perm x8", FP)
#define SC(k) c8[k]=_mm512_scalef_pd(c8[k],c);
  RUN("scalef x8", SC)
#define FS(k) FMA(k) SC(k)
  RUN("fma+scalef x8", FS)
#define GM(k) c8[k]=_mm512_getmant_pd(c8[k],_MM_MANT_NORM_p75_1p5,_MM_MANT_SIGN_src);
  RUN("getmant x8", GM)
#define FG(k) FMA(k) GM(k)
  RUN("fma+getmant x8", FG)
#define GE(k) c8[k]=_mm512_getexp_pd(c8[k]);
  RUN("getexp x8", GE)
#define FGE(k) FMA(k) GE(k)
  RUN("fma+getexp x8", FGE)
#define FC(k) m[k]=_mm512_fpclass_pd_mask(a[k],0x22)^m[k];
  RUN("fpclass x8", FC)
#define FFC(k) FMA(k) FC(k)
  RUN("fma+fpclass x8", FFC)
#define CM(k) m[k]=_mm512_cmp_pd_mask(a[k],t1,1)^m[k];
  RUN("cmp x8", CM)
#define FCM(k) FMA(k) CM(k)
  RUN("fma+cmp x8", FCM)
#define SH(k) ii[k]=_mm512_srli_epi64(ii[k],1);
  RUN("srl x8", SH)
#define FSH(k) FMA(k) SH(k)
  RUN("fma+srl x8", FSH)
#define IA(k) ii[k]=_mm512_add_epi64(ii[k],idx);
  RUN("iadd x8", IA)
#define FIA(k) FMA(k) IA(k)
  RUN("fma+iadd x8", FIA)
#define BL(k) c8[k]=_mm512_mask_blend_pd(m[k],c8[k],t0);
  RUN("blend x8", BL)
#define FBL(k) FMA(k) BL(k)
  RUN("fma+blend x8", FBL)
#define AP(k) ADD(k) PERM(k)
  RUN("add+perm x8", AP)
#define FAP(k) FMA(k) ADD(k) PERM(k)
  RUN("fma+add+perm x8", FAP)
#define CVT(k) c8[k]=_mm512_cvtepi64_pd(ii[k]);
  RUN("cvtqq2pd x8", CVT)
#define FCV(k) FMA(k) CVT(k)
  RUN("fma+cvt x8", FCV)
  for(int k=0;k<8;k++) sink=m[k]+_mm512_reduce_add_epi64(ii[k]);
  return 0;
}
