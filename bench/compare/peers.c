/* C baselines of the comparison suite (bench/compare/run.sh), compiled with
 * `cc -O2`: index math over precomputed strides, a blocked SSE transpose and
 * a memory copy. Same inputs and timing method as the crate's side: a
 * monotonic clock (CLOCK_MONOTONIC) around N passes after one warm-up pass,
 * printed as `RESULT <work> <case> <ns per item>`. */

#define _POSIX_C_SOURCE 199309L
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xmmintrin.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Keeps a value alive so that the compiler cannot drop the work. */
#define KEEP(v) __asm__ volatile("" : : "r"(v) : "memory")

/* The shape of the index-math cases: row-major [50, 40, 100, 50]. The rank
 * and strides are read at run time, as a library would. */
static int64_t dims[4] = {50, 40, 100, 50};
static int64_t strides[4];
static int rank = 4;
#define INDEX_COUNT 10000000LL
#define RAVEL_COUNT 1000000LL

static int64_t unravel_all(int64_t count) {
  int64_t sum = 0, index[4];
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t rest = linear;
    KEEP(rest);
    for (int d = 0; d < rank; ++d) {
      index[d] = rest / strides[d];
      rest -= index[d] * strides[d];
    }
    sum += index[0] ^ index[1] ^ index[2] ^ index[3];
  }
  return sum;
}

static int64_t ravel_all(const int64_t* indices, int64_t count) {
  int64_t sum = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t* index = indices + 4 * k;
    KEEP(index);
    int64_t linear = 0;
    for (int d = 0; d < rank; ++d) linear += index[d] * strides[d];
    sum += linear;
  }
  return sum;
}

/* Transposes the row-major n x n matrix of 4-byte elements `src` into `dst`,
 * in 64 x 64 blocks of 4 x 4 SSE transposes (n a multiple of 64). */
static void transpose_sse(const uint32_t* src, uint32_t* dst, int64_t n) {
  for (int64_t bi = 0; bi < n; bi += 64)
    for (int64_t bj = 0; bj < n; bj += 64)
      for (int64_t i = bi; i < bi + 64; i += 4)
        for (int64_t j = bj; j < bj + 64; j += 4) {
          __m128 r0 = _mm_loadu_ps((const float*)(src + (i + 0) * n + j));
          __m128 r1 = _mm_loadu_ps((const float*)(src + (i + 1) * n + j));
          __m128 r2 = _mm_loadu_ps((const float*)(src + (i + 2) * n + j));
          __m128 r3 = _mm_loadu_ps((const float*)(src + (i + 3) * n + j));
          _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
          _mm_storeu_ps((float*)(dst + (j + 0) * n + i), r0);
          _mm_storeu_ps((float*)(dst + (j + 1) * n + i), r1);
          _mm_storeu_ps((float*)(dst + (j + 2) * n + i), r2);
          _mm_storeu_ps((float*)(dst + (j + 3) * n + i), r3);
        }
}

int main(void) {
  strides[rank - 1] = 1;
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];

  double t;
  int64_t s = unravel_all(INDEX_COUNT);
  KEEP(s);
  t = now_ns();
  for (int p = 0; p < 3; ++p) {
    s = unravel_all(INDEX_COUNT);
    KEEP(s);
  }
  printf("RESULT unravel rank4 %.3f\n", (now_ns() - t) / (3.0 * INDEX_COUNT));

  int64_t* indices = malloc(sizeof(int64_t) * 4 * RAVEL_COUNT);
  for (int64_t k = 0; k < RAVEL_COUNT; ++k) {
    int64_t rest = (k * 7919) % INDEX_COUNT;
    for (int d = 0; d < rank; ++d) {
      indices[4 * k + d] = rest / strides[d];
      rest -= indices[4 * k + d] * strides[d];
    }
  }
  s = ravel_all(indices, RAVEL_COUNT);
  KEEP(s);
  t = now_ns();
  for (int p = 0; p < 10; ++p) {
    s = ravel_all(indices, RAVEL_COUNT);
    KEEP(s);
  }
  printf("RESULT ravel rank4 %.3f\n", (now_ns() - t) / (10.0 * RAVEL_COUNT));
  free(indices);

  const int mibs[3] = {1, 16, 256};
  for (int m = 0; m < 3; ++m) {
    size_t bytes = (size_t)mibs[m] << 20;
    int64_t n = 1;
    while (n * n * 4 < (int64_t)bytes) n *= 2;
    uint8_t* src = malloc(bytes);
    uint8_t* dst = malloc(bytes);
    for (size_t i = 0; i < bytes; ++i) src[i] = (uint8_t)(i * 131 % 251);
    memset(dst, 1, bytes);
    int passes = 512 / mibs[m];
    if (passes < 4) passes = 4;
    if (passes > 200) passes = 200;
    transpose_sse((const uint32_t*)src, (uint32_t*)dst, n);
    t = now_ns();
    for (int p = 0; p < passes; ++p) {
      transpose_sse((const uint32_t*)src, (uint32_t*)dst, n);
      KEEP(dst);
    }
    printf("RESULT transpose %dMiB %.3f\n", mibs[m], (now_ns() - t) / passes);
    memcpy(dst, src, bytes);
    t = now_ns();
    for (int p = 0; p < passes; ++p) {
      KEEP(src);
      memcpy(dst, src, bytes);
      KEEP(dst);
    }
    printf("RESULT copy %dMiB %.3f\n", mibs[m], (now_ns() - t) / passes);
    free(src);
    free(dst);
  }
  return 0;
}
