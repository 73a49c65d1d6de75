/*
 * cpu_feature_names.h -- the names of the AESGEN_CPU_* bits, as the target
 * descriptions, AESGEN_CPU_DISABLE and the configure-time probe spell them.
 */
#ifndef AESGEN_CPU_FEATURE_NAMES_H
#define AESGEN_CPU_FEATURE_NAMES_H

#include "aesgen_variant.h"

static const struct {
    const char *name;
    uint32_t bit;
} aesgen_cpu_feature_names[] = {
    {"aesni", AESGEN_CPU_AESNI},       {"ssse3", AESGEN_CPU_SSSE3},
    {"avx", AESGEN_CPU_AVX},           {"avx2", AESGEN_CPU_AVX2},
    {"vaes", AESGEN_CPU_VAES},         {"avx512f", AESGEN_CPU_AVX512F},
    {"avx512vl", AESGEN_CPU_AVX512VL}, {"avx512bw", AESGEN_CPU_AVX512BW},
    {"arm_aes", AESGEN_CPU_ARM_AES},   {"ppc_vcrypto", AESGEN_CPU_PPC_VCRYPTO},
    {"rv_zkne", AESGEN_CPU_RV_ZKNE},   {"rv_zknd", AESGEN_CPU_RV_ZKND},
    {"sparc_aes", AESGEN_CPU_SPARC_AES}, {"neon", AESGEN_CPU_NEON},
};

#define AESGEN_CPU_FEATURE_COUNT (sizeof aesgen_cpu_feature_names / sizeof aesgen_cpu_feature_names[0])

#endif /* AESGEN_CPU_FEATURE_NAMES_H */
