/*
 * cpu.c -- run-time CPU feature detection.
 *
 * x86-64: cpuid for the instructions, xgetbv for the operating system's
 * consent to the register state they need (ymm for AVX, zmm and opmask for
 * AVX-512): a CPU may have AVX-512 while the OS or hypervisor keeps it off.
 * Linux on AArch64, 32-bit ARM, POWER and SPARC: the kernel's hardware-capability words.
 * RISC-V: the riscv_hwprobe system call where the kernel has it. The CPU model
 * (vendor, family, model) for the per-CPU dispatch table: cpuid on x86-64,
 * unknown elsewhere so far. Everywhere:
 * a feature the compiler was told the target has (e.g. -march=rv64gc_zkne)
 * counts as present, as BoringSSL does.
 */
#define _GNU_SOURCE
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
    if (c & (1u << 1))
        f |= AESGEN_CPU_PCLMUL;
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
    if ((f & AESGEN_CPU_AVX) && (c & (1u << 10)))
        f |= AESGEN_CPU_VPCLMULQDQ;
    if (zmm_state && (b & (1u << 16))) {
        f |= AESGEN_CPU_AVX512F;
        if (b & (1u << 31))
            f |= AESGEN_CPU_AVX512VL;
        if (b & (1u << 30))
            f |= AESGEN_CPU_AVX512BW;
    }
    return f;
}

void aesgen_detect_cpu_id(aesgen_cpu_id *id)
{
    unsigned a, b, c, d;
    id->vendor = AESGEN_CPU_VENDOR_UNKNOWN;
    id->family = 0;
    id->model = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return;
    if (b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e) /* "GenuineIntel" */
        id->vendor = AESGEN_CPU_VENDOR_INTEL;
    else if (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163) /* "AuthenticAMD" */
        id->vendor = AESGEN_CPU_VENDOR_AMD;
    if (id->vendor == AESGEN_CPU_VENDOR_UNKNOWN || !__get_cpuid(1, &a, &b, &c, &d))
        return;
    /* The displayed family and model: the extended fields count for family 0xf
     * (family), and for families 6 and 0xf (model). */
    unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
    if (family == 0xf)
        family += (a >> 20) & 0xff;
    if (family == 0x6 || family >= 0xf)
        model |= ((a >> 16) & 0xf) << 4;
    id->family = (uint16_t)family;
    id->model = (uint8_t)model;
}

#elif defined(__linux__) && (defined(__aarch64__) || defined(__arm__) || defined(__powerpc64__) || \
                             defined(__sparc__) || defined(__riscv))
#include <sys/auxv.h>
#include <unistd.h>
#if defined(__riscv)
#include <sys/syscall.h>
#endif

uint32_t aesgen_detect_cpu_features(void)
{
    uint32_t f = AESGEN_CPU_NONE;
#if defined(__aarch64__)
    if (getauxval(AT_HWCAP) & (1ul << 3)) /* HWCAP_AES */
        f |= AESGEN_CPU_ARM_AES;
    if (getauxval(AT_HWCAP) & (1ul << 4)) /* HWCAP_PMULL */
        f |= AESGEN_CPU_ARM_PMULL;
#if defined(__ARM_FEATURE_CRYPTO) || defined(__ARM_FEATURE_AES)
    f |= AESGEN_CPU_ARM_AES | AESGEN_CPU_ARM_PMULL;
#endif
#elif defined(__arm__)
    if (getauxval(AT_HWCAP) & (1ul << 12)) /* HWCAP_NEON */
        f |= AESGEN_CPU_NEON;
#if defined(__ARM_NEON)
    f |= AESGEN_CPU_NEON;
#endif
#elif defined(__powerpc64__)
    if (getauxval(AT_HWCAP2) & 0x02000000ul) /* PPC_FEATURE2_VEC_CRYPTO */
        f |= AESGEN_CPU_PPC_VCRYPTO;
#if defined(__CRYPTO__)
    f |= AESGEN_CPU_PPC_VCRYPTO;
#endif
#elif defined(__sparc__)
    /* HWCAP_SPARC_CRYPTO says the CFR register exists; its bit 0 is AES. */
    if (getauxval(AT_HWCAP) & 0x04000000ul) {
        unsigned long cfr;
        __asm__ volatile("rd %%asr26, %0" : "=r"(cfr));
        if (cfr & 1)
            f |= AESGEN_CPU_SPARC_AES;
    }
    if (getauxval(AT_HWCAP) & 0x00020000ul) /* HWCAP_SPARC_VIS3 */
        f |= AESGEN_CPU_SPARC_VIS3;
#elif defined(__riscv)
#if defined(__NR_riscv_hwprobe)
    /* riscv_hwprobe(RISCV_HWPROBE_KEY_IMA_EXT_0): bit 7 ZBC, 9 ZBKC, 11 ZKND, 12 ZKNE
     * (these bits since Linux 6.8); an older kernel or emulator answers ENOSYS. */
    struct {
        int64_t key;
        uint64_t value;
    } pair = {4, 0};
    if (syscall(__NR_riscv_hwprobe, &pair, 1, 0, NULL, 0) == 0 && pair.key == 4) {
        if (pair.value & (1ull << 11))
            f |= AESGEN_CPU_RV_ZKND;
        if (pair.value & (1ull << 12))
            f |= AESGEN_CPU_RV_ZKNE;
        if (pair.value & (1ull << 7 | 1ull << 9))
            f |= AESGEN_CPU_RV_CLMUL;
    }
#endif
#if defined(__riscv_zkne)
    f |= AESGEN_CPU_RV_ZKNE;
#endif
#if defined(__riscv_zknd)
    f |= AESGEN_CPU_RV_ZKND;
#endif
#if defined(__riscv_zbc) || defined(__riscv_zbkc)
    f |= AESGEN_CPU_RV_CLMUL;
#endif
#endif
    return f;
}

#else

uint32_t aesgen_detect_cpu_features(void)
{
    return AESGEN_CPU_NONE;
}

#endif

#if !(defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)))
void aesgen_detect_cpu_id(aesgen_cpu_id *id)
{
    id->vendor = AESGEN_CPU_VENDOR_UNKNOWN;
    id->family = 0;
    id->model = 0;
}
#endif
