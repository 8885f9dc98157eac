/* x86-64 folding kernel (PCLMULQDQ). crc64_cpu.c decides at run time whether it may be called. */
#include "COSSCRC64.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* One fold step: the 128-bit reflected value x (low lane = higher-degree half) moved forward by the
   distance the constants encode, then XORed with the next block. */
__attribute__((target("pclmul,sse4.1")))
static inline __m128i fold(__m128i x, __m128i k, __m128i next) {
    __m128i hi = _mm_clmulepi64_si128(x, k, 0x00); /* low lane  x k[low]  */
    __m128i lo = _mm_clmulepi64_si128(x, k, 0x11); /* high lane x k[high] */
    return _mm_xor_si128(_mm_xor_si128(hi, lo), next);
}

__attribute__((target("pclmul,sse4.1")))
void oss_crc64_fold(uint64_t reg, const uint8_t *data, size_t blocks, const uint64_t k[4], uint8_t out[16]) {
    const __m128i k512 = _mm_set_epi64x((long long)k[1], (long long)k[0]);
    const __m128i k128 = _mm_set_epi64x((long long)k[3], (long long)k[2]);
    __m128i x0 = _mm_loadu_si128((const __m128i *)(data + 0));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(data + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(data + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(data + 48));
    x0 = _mm_xor_si128(x0, _mm_set_epi64x(0, (long long)reg));
    size_t i = 4;
    for (; i + 4 <= blocks; i += 4) {
        const uint8_t *p = data + i * 16;
        x0 = fold(x0, k512, _mm_loadu_si128((const __m128i *)(p + 0)));
        x1 = fold(x1, k512, _mm_loadu_si128((const __m128i *)(p + 16)));
        x2 = fold(x2, k512, _mm_loadu_si128((const __m128i *)(p + 32)));
        x3 = fold(x3, k512, _mm_loadu_si128((const __m128i *)(p + 48)));
    }
    x0 = fold(x0, k128, x1);
    x0 = fold(x0, k128, x2);
    x0 = fold(x0, k128, x3);
    for (; i < blocks; i++) {
        x0 = fold(x0, k128, _mm_loadu_si128((const __m128i *)(data + i * 16)));
    }
    _mm_storeu_si128((__m128i *)out, x0);
}

#endif
