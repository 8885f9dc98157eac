#ifndef COSSCRC64_H
#define COSSCRC64_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU can run oss_crc64_fold, else 0: x86-64 with PCLMULQDQ and SSE4.1 (cpuid), arm64 with PMULL
/// (Linux AT_HWCAP, Apple sysctl hw.optional.arm.FEAT_PMULL). Probed once, then cached.
int oss_crc64_fold_available(void);

/// Folds `blocks` 16-byte blocks of `data` (blocks >= 4) with carry-less multiplication.
///
/// `reg` is the raw CRC register (already inverted) and is XORed into the first 8 bytes. On return `out`
/// holds a 16-byte value congruent, modulo the CRC polynomial, to the register-adjusted data: feeding those
/// 16 bytes through the table CRC from register 0 yields the register after `data`.
///
/// `k` holds the folding constants in the reflected representation (bit 63 is x^0):
/// k[0] = x^(512+63) mod P, k[1] = x^(512-1) mod P (fold by 64 bytes), k[2] = x^(128+63) mod P,
/// k[3] = x^(128-1) mod P (fold by 16 bytes).
void oss_crc64_fold(uint64_t reg, const uint8_t *data, size_t blocks, const uint64_t k[4], uint8_t out[16]);

#endif
