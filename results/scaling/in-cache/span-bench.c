// The far-move span reads of the lane kernel (SeenLanes::stamp_moves) alone, outside the
// project, to see what the memory costs a step at N ~ 10^8 (results/scaling/in-cache.md).
// Random values below 837 stand in for the table (the addresses, not the values, are what
// is measured); lane blocks of 32 positions from START to N, thread t taking blocks t,
// t + T, t + 2T, ... (neighbours at the same time); for each move s = k^2 >= 36 the 32
// values at n0 - s are stamped into 32 byte arrays of 1024, the span of the move AHEAD
// moves later prefetched (both its lines).
//   gcc -O3 -march=native -o span-bench span-bench.c -lpthread -lm
//   ./span-bench N START MODE AHEAD THREADS
// MODE 0: u16 table, read value by value (the project's kernel); 3: the same, one vector
// load stored to a buffer and read back; 1: 10-bit packed table, scalar unpacking;
// 2: 10-bit packed, AVX-512 VBMI unpacking (vpermb, vpsrlvw) to a buffer.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <math.h>
#include <sys/mman.h>
#include <x86intrin.h>
#define L 32
#define G 1024
static uint16_t *g; static uint8_t *pk; static long N, START; static int MODE, AHEAD, THREADS;
static long *moves; static long nmoves;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
typedef struct {int id; long steps; uint64_t sink;} arg_t;
static __m512i PERM[8], SHIFT[8];
static void init_tabs(void){ for(int ph=0;ph<8;ph++){ uint8_t perm[64]; uint16_t sh[32]; for(int j=0;j<32;j++){ int bit=ph+10*j; perm[2*j]=bit>>3; perm[2*j+1]=(bit>>3)+1; sh[j]=bit&7; } PERM[ph]=_mm512_loadu_si512(perm); SHIFT[ph]=_mm512_loadu_si512(sh);} }
static inline unsigned get10(const uint8_t *p, long m){ long b=m*10; uint32_t w; memcpy(&w,p+(b>>3),4); return (w>>(b&7))&1023; }
static void *work(void *a_){
  arg_t *a=a_; uint8_t (*seen)[G]=aligned_alloc(64,L*G); memset(seen,0,L*G); uint8_t stamp=0; long steps=0;
  for(long n0=START + a->id*L; n0+L<=N; n0+=THREADS*L){
    if(++stamp==0){memset(seen,0,L*G);stamp=1;}
    long K=0; while(K<nmoves && moves[K]<=n0) K++;
    for(long i=0;i<K;i++){
      long s=moves[i];
      if(i+AHEAD<K){ long at=n0-moves[i+AHEAD];
        if(MODE==0||MODE==3){ const char*p=(const char*)(g+at); _mm_prefetch(p,_MM_HINT_T0); _mm_prefetch(p+63,_MM_HINT_T0);} 
        else { const char*p=(const char*)(pk+((at*10)>>3)); _mm_prefetch(p,_MM_HINT_T0); _mm_prefetch(p+63,_MM_HINT_T0);} }
      long p0=n0-s;
      if(MODE==3){ __m512i v=_mm512_loadu_si512(g+p0); uint16_t tmp[32] __attribute__((aligned(64))); _mm512_store_si512(tmp,v); _Pragma("GCC unroll 32") for(int j=0;j<L;j++) seen[j][tmp[j]&(G-1)]=stamp; } else if(MODE==0){ const uint16_t*src=g+p0; _Pragma("GCC unroll 32") for(int j=0;j<L;j++) seen[j][src[j]&(G-1)]=stamp; }
      else if(MODE==2){ long bit=p0*10; int ph=bit&7; __m512i raw=_mm512_loadu_si512(pk+(bit>>3)); __m512i v=_mm512_and_si512(_mm512_srlv_epi16(_mm512_permutexvar_epi8(PERM[ph],raw),SHIFT[ph]),_mm512_set1_epi16(1023)); uint16_t tmp[32] __attribute__((aligned(64))); _mm512_store_si512(tmp,v); _Pragma("GCC unroll 32") for(int j=0;j<L;j++) seen[j][tmp[j]]=stamp; } else { const uint8_t*pb=pk+((p0*10)>>3); int sh=(p0*10)&7; _Pragma("GCC unroll 32") for(int j=0;j<L;j++){ uint32_t w; memcpy(&w,pb+((sh+10*j)>>3),4); seen[j][(w>>((sh+10*j)&7))&1023]=stamp;} } if(0){ for(int j=0;j<L;j++) seen[j][get10(pk,p0+j)]=stamp; }
      steps+=L;
    }
    a->sink+=seen[5][7];
  }
  a->steps=steps; return 0;
}
int main(int argc,char**argv){
  N=atol(argv[1]); START=atol(argv[2]); MODE=atoi(argv[3]); AHEAD=atoi(argv[4]); THREADS=atoi(argv[5]);
  size_t gb=(N+64)*2; g=mmap(0,gb,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(g,gb,MADV_HUGEPAGE);
  size_t pb=(N+64)*10/8+64; pk=mmap(0,pb,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(pk,pb,MADV_HUGEPAGE);
  uint64_t x=88172645463325252ull; for(long i=0;i<N+64;i++){x^=x<<13;x^=x>>7;x^=x<<17; unsigned v=(x>>20)%837; g[i]=v; long b=i*10; uint32_t w; memcpy(&w,pk+(b>>3),4); w&=~(1023u<<(b&7)); w|=v<<(b&7); memcpy(pk+(b>>3),&w,4);} 
  for(long i=0;i<N;i+=12345) if(get10(pk,i)!=g[i]){printf("pack bug\n");return 1;}
  nmoves=0; moves=malloc(sizeof(long)*100000); for(long k=6;k*k<=N;k++) moves[nmoves++]=k*k; // s>=32 only
  init_tabs(); pthread_t t[8]; arg_t a[8]; double t0=now();
  for(int i=0;i<THREADS;i++){a[i].id=i;a[i].sink=0;pthread_create(&t[i],0,work,&a[i]);}
  long steps=0; for(int i=0;i<THREADS;i++){pthread_join(t[i],0);steps+=a[i].steps;}
  double dt=now()-t0; printf("mode %d ahead %d threads %d: %.3f s, %.4f ns/step\n",MODE,AHEAD,THREADS,dt,dt*1e9/steps);
}
