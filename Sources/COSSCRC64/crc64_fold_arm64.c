/* arm64 folding kernel (PMULL, the Armv8 Cryptographic Extension). Same math as crc64_fold_x86_64.c: PMULL and
 * PMULL2 are the two halves of PCLMULQDQ's 0x00 / 0x11 selectors. crc64_cpu.c decides at run time whether it
 * may be called; only these functions are built with the "aes" feature, the rest of the target stays baseline
 * Armv8-A. */
#include "COSSCRC64.h"

#if defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#include <arm_neon.h>

#if defined(__clang__)
#define OSS_CRC64_PMULL __attribute__((target("aes")))
#else
#define OSS_CRC64_PMULL __attribute__((target("+crypto")))
#endif

/* Lane 0 holds the first 8 bytes of a block, the higher-degree half in the reflected representation. */
static inline uint64x2_t load_block(const uint8_t *p) {
    return vreinterpretq_u64_u8(vld1q_u8(p));
}

/* One fold step: x moved forward by the distance k encodes (lane 0 times k[0], lane 1 times k[1]), XOR next. */
OSS_CRC64_PMULL
static inline uint64x2_t fold(uint64x2_t x, poly64x2_t k, uint64x2_t next) {
    poly64x2_t xp = vreinterpretq_p64_u64(x);
    uint64x2_t low = vreinterpretq_u64_p128(vmull_p64(vgetq_lane_p64(xp, 0), vgetq_lane_p64(k, 0)));
    uint64x2_t high = vreinterpretq_u64_p128(vmull_high_p64(xp, k));
    return veorq_u64(veorq_u64(low, high), next);
}

OSS_CRC64_PMULL
void oss_crc64_fold(uint64_t reg, const uint8_t *data, size_t blocks, const uint64_t k[4], uint8_t out[16]) {
    const poly64x2_t k512 = vreinterpretq_p64_u64(vld1q_u64(k));
    const poly64x2_t k128 = vreinterpretq_p64_u64(vld1q_u64(k + 2));
    uint64x2_t x0 = load_block(data + 0);
    uint64x2_t x1 = load_block(data + 16);
    uint64x2_t x2 = load_block(data + 32);
    uint64x2_t x3 = load_block(data + 48);
    x0 = veorq_u64(x0, vsetq_lane_u64(reg, vdupq_n_u64(0), 0));
    size_t i = 4;
    for (; i + 4 <= blocks; i += 4) {
        const uint8_t *p = data + i * 16;
        x0 = fold(x0, k512, load_block(p + 0));
        x1 = fold(x1, k512, load_block(p + 16));
        x2 = fold(x2, k512, load_block(p + 32));
        x3 = fold(x3, k512, load_block(p + 48));
    }
    x0 = fold(x0, k128, x1);
    x0 = fold(x0, k128, x2);
    x0 = fold(x0, k128, x3);
    for (; i < blocks; i++) {
        x0 = fold(x0, k128, load_block(data + i * 16));
    }
    vst1q_u8(out, vreinterpretq_u8_u64(x0));
}

#endif
