/*
 * cpu.c -- run-time CPU feature detection.
 *
 * x86-64: cpuid for the instructions, xgetbv for the operating system's consent
 * to the register state they need (ymm for AVX, zmm and opmask for AVX-512): a
 * CPU may have AVX-512 while the OS or hypervisor keeps it switched off.
 */
#include "dispatch.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

uint32_t aesgen_detect_cpu_features(void)
{
    unsigned a, b, c, d;
    uint32_t f = AESGEN_CPU_NONE;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return f;
    if (c & (1u << 25))
        f |= AESGEN_CPU_AESNI;
    if (c & (1u << 9))
        f |= AESGEN_CPU_SSSE3;
    const uint64_t xcr0 = (c & (1u << 27)) ? xgetbv0() : 0; /* OSXSAVE */
    const int ymm_state = (xcr0 & 0x6) == 0x6;              /* SSE and AVX state */
    const int zmm_state = (xcr0 & 0xe6) == 0xe6;            /* plus opmask, ZMM_Hi256, Hi16_ZMM */
    if ((c & (1u << 28)) && ymm_state)
        f |= AESGEN_CPU_AVX;
    if (__get_cpuid_max(0, 0) < 7)
        return f;
    __cpuid_count(7, 0, a, b, c, d);
    if ((f & AESGEN_CPU_AVX) && (b & (1u << 5)))
        f |= AESGEN_CPU_AVX2;
    if ((f & AESGEN_CPU_AVX) && (c & (1u << 9)))
        f |= AESGEN_CPU_VAES;
    if (zmm_state && (b & (1u << 16))) {
        f |= AESGEN_CPU_AVX512F;
        if (b & (1u << 31))
            f |= AESGEN_CPU_AVX512VL;
        if (b & (1u << 30))
            f |= AESGEN_CPU_AVX512BW;
    }
    return f;
}

#else

uint32_t aesgen_detect_cpu_features(void)
{
    return AESGEN_CPU_NONE;
}

#endif
