/* Stand-alone check of the C CRC-64/XZ folding kernels in Sources/COSSCRC64, built and run by
 * scripts/test-crc-arm64.sh natively (x86-64 PCLMULQDQ) and cross-compiled for arm64 under qemu (PMULL).
 *
 * It finishes the folded state the way Sources/OSSCRC64/CRC64+CLMUL.swift does (16 bytes through the table from
 * register 0, then the tail) and compares that with a bitwise CRC on every length 0...4096 at every alignment
 * 0...15, with zero and non-zero starting CRCs, on a few MiB one-shot and in random chunks, and on the check
 * value. With --require-fold it fails unless the CPU probe found the instructions and the kernel really ran.
 *
 * Usage: harness [--require-fold] */
#include "COSSCRC64.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLY 0xC96C5795D7870F42ull /* ECMA-182, reflected */
#define SWEEP_LENGTH 4096
#define SWEEP_ALIGNMENTS 16
#define BIG_LENGTH ((size_t)3 << 20)

static uint64_t table[256];
static uint64_t constants[4];
static unsigned long fold_calls;
static unsigned long failures;

/* Reference: one bit at a time, straight from the definition. `crc` is a finished CRC (init/xorout all ones). */
static uint64_t crc_bitwise(uint64_t crc, const uint8_t *p, size_t n) {
    uint64_t reg = ~crc;
    for (size_t i = 0; i < n; i++) {
        reg ^= p[i];
        for (int bit = 0; bit < 8; bit++) {
            reg = (reg >> 1) ^ (POLY & (0 - (reg & 1)));
        }
    }
    return ~reg;
}

/* The table CRC on the raw register, as the Swift code finishes the folded state. */
static uint64_t table_raw(uint64_t reg, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        reg = table[(reg ^ p[i]) & 0xff] ^ (reg >> 8);
    }
    return reg;
}

/* x^n mod P in the reflected representation (bit 63 is x^0). */
static uint64_t x_power(unsigned n) {
    uint64_t v = 1ull << 63;
    while (n--) {
        v = (v & 1) ? (v >> 1) ^ POLY : v >> 1;
    }
    return v;
}

static void setup(void) {
    for (unsigned b = 0; b < 256; b++) {
        uint64_t reg = b;
        for (int bit = 0; bit < 8; bit++) {
            reg = (reg >> 1) ^ (POLY & (0 - (reg & 1)));
        }
        table[b] = reg;
    }
    constants[0] = x_power(512 + 63);
    constants[1] = x_power(512 - 1);
    constants[2] = x_power(128 + 63);
    constants[3] = x_power(128 - 1);
}

/* The accelerated update, mirroring CRC64CLMUL.update but folding from 4 blocks up (Swift waits for 256 bytes)
   so short inputs exercise the kernel too. */
static uint64_t crc_folded(uint64_t crc, const uint8_t *p, size_t n) {
    size_t blocks = n / 16;
    if (blocks < 4 || !oss_crc64_fold_available()) {
        return ~table_raw(~crc, p, n);
    }
    uint8_t out[16];
    oss_crc64_fold(~crc, p, blocks, constants, out);
    fold_calls++;
    uint64_t reg = table_raw(0, out, 16);
    return ~table_raw(reg, p + blocks * 16, n - blocks * 16);
}

static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void expect_equal(const char *what, size_t a, size_t b, uint64_t got, uint64_t want) {
    if (got != want) {
        if (failures < 20) {
            fprintf(stderr, "FAIL %s (%zu, %zu): got %016llx, want %016llx\n", what, a, b,
                    (unsigned long long)got, (unsigned long long)want);
        }
        failures++;
    }
}

int main(int argc, char **argv) {
    int require_fold = argc > 1 && strcmp(argv[1], "--require-fold") == 0;
    setup();

#if defined(__aarch64__)
    const char *kernel = "PMULL (arm64)";
#elif defined(__x86_64__)
    const char *kernel = "PCLMULQDQ (x86-64)";
#else
    const char *kernel = "none";
#endif
    int available = oss_crc64_fold_available();
    printf("crc-harness: folding kernel %s, detected: %s\n", kernel, available ? "yes" : "no");
    if (oss_crc64_fold_available() != available) {
        fprintf(stderr, "FAIL the CPU probe changed its answer\n");
        failures++;
    }
    if (require_fold && !available) {
        fprintf(stderr, "FAIL --require-fold: the CPU probe did not find the carry-less-multiply instructions\n");
        return 1;
    }

    static const char check[] = "123456789";
    const uint64_t check_value = 0x995DC9BBDF1939FAull;
    expect_equal("check value, bitwise", 0, 9, crc_bitwise(0, (const uint8_t *)check, 9), check_value);
    expect_equal("check value, table", 0, 9, ~table_raw(~0ull, (const uint8_t *)check, 9), check_value);
    expect_equal("check value, folded", 0, 9, crc_folded(0, (const uint8_t *)check, 9), check_value);

    uint64_t seed = 2026;
    uint8_t *big = malloc(BIG_LENGTH + 64);
    if (big == NULL) {
        fprintf(stderr, "FAIL out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < BIG_LENGTH + 64; i++) {
        big[i] = (uint8_t)splitmix(&seed);
    }
    /* A fold-friendly, all-ones and all-zeros pattern at the front catches sign and lane-order slips. */
    memset(big + 16, 0xff, 64);
    memset(big + 80, 0x00, 64);

    /* Every length 0...4096 at every alignment 0...15 (malloc returns 16-byte-aligned memory). The bitwise
       reference grows one byte per length; odd alignments start from a non-zero CRC. */
    for (size_t align = 0; align < SWEEP_ALIGNMENTS; align++) {
        const uint8_t *p = big + align;
        uint64_t start = (align & 1) ? splitmix(&seed) : 0;
        uint64_t want = start;
        for (size_t length = 0; length <= SWEEP_LENGTH; length++) {
            expect_equal("sweep (alignment, length)", align, length, crc_folded(start, p, length), want);
            want = crc_bitwise(want, p + length, 1);
        }
    }

    /* A few MiB one-shot at an odd offset, then the same data in random chunks. */
    const uint8_t *p = big + 3;
    uint64_t want = crc_bitwise(0, p, BIG_LENGTH);
    expect_equal("3 MiB one-shot", 3, BIG_LENGTH, crc_folded(0, p, BIG_LENGTH), want);
    uint64_t chunked = 0;
    size_t offset = 0;
    while (offset < BIG_LENGTH) {
        size_t chunk = (size_t)(splitmix(&seed) % 70000);
        if (chunk > BIG_LENGTH - offset) {
            chunk = BIG_LENGTH - offset;
        }
        chunked = crc_folded(chunked, p + offset, chunk);
        offset += chunk;
    }
    expect_equal("3 MiB in random chunks", 3, BIG_LENGTH, chunked, want);
    free(big);

    if (require_fold && fold_calls == 0) {
        fprintf(stderr, "FAIL --require-fold: the folding kernel never ran\n");
        failures++;
    }
    printf("crc-harness: %lu kernel calls, %lu failures\n", fold_calls, failures);
    return failures == 0 ? 0 : 1;
}
