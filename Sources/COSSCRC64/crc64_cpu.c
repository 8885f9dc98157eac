/* Run-time detection of the carry-less-multiply instructions oss_crc64_fold needs, probed once per process.
 *
 * Deliberately no __builtin_cpu_supports: it needs compiler-rt's __cpu_model / __cpu_features symbols, which
 * Apple toolchains do not always link. x86-64 asks cpuid directly; arm64 asks the OS (Linux hwcaps, Apple
 * sysctl). Only compiler resource headers are included on Apple targets, so this file also compiles there
 * without an SDK (scripts/test-crc-arm64.sh checks it). */
#include "COSSCRC64.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

static int oss_crc64_probe(void) {
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
        return 0;
    }
    const unsigned int pclmulqdq = 1u << 1, sse41 = 1u << 19; /* CPUID.01H:ECX */
    return (ecx & pclmulqdq) != 0 && (ecx & sse41) != 0;
}

#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_PMULL
#define HWCAP_PMULL (1 << 4)
#endif

static int oss_crc64_probe(void) {
    return (getauxval(AT_HWCAP) & HWCAP_PMULL) != 0;
}

#elif defined(__aarch64__) && defined(__APPLE__)
/* <sys/sysctl.h> is left out on purpose (see above); this is its declaration. */
extern int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

static int oss_crc64_probe(void) {
    int value = 0;
    size_t size = sizeof(value);
    if (sysctlbyname("hw.optional.arm.FEAT_PMULL", &value, &size, NULL, 0) == 0 && size == sizeof(value)) {
        return value != 0;
    }
    /* OS too old to name the feature: trust the build's baseline (every Apple arm64 target enables AES/PMULL). */
#if defined(__ARM_FEATURE_AES) || defined(__ARM_FEATURE_CRYPTO)
    return 1;
#else
    return 0;
#endif
}

#else

static int oss_crc64_probe(void) { return 0; }

#endif

int oss_crc64_fold_available(void) {
    static int cached = -1; /* -1: not probed yet */
    int available = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (available < 0) {
        available = oss_crc64_probe();
        __atomic_store_n(&cached, available, __ATOMIC_RELAXED);
    }
    return available;
}
