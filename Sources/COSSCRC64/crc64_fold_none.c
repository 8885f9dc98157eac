/* Architectures without a folding kernel: oss_crc64_fold_available() is 0 there, so this is never called;
   it only keeps the symbol defined. */
#include "COSSCRC64.h"

#if !(defined(__GNUC__) || defined(__clang__)) || !(defined(__x86_64__) || defined(__aarch64__))

void oss_crc64_fold(uint64_t reg, const uint8_t *data, size_t blocks, const uint64_t k[4], uint8_t out[16]) {
    (void)reg; (void)data; (void)blocks; (void)k;
    for (int i = 0; i < 16; i++) {
        out[i] = 0;
    }
}

#endif
