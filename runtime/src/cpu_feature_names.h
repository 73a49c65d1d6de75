/*
 * cpu_feature_names.h -- the AESGEN_CPU_* bits by name (the generated
 * cpu_features.h lists them), for AESGEN_CPU_DISABLE and the configure-time probe.
 */
#ifndef AESGEN_CPU_FEATURE_NAMES_H
#define AESGEN_CPU_FEATURE_NAMES_H

#include <stdint.h>

#include "cpu_features.h"

#define AESGEN_FEATURE_NAME_ENTRY(name, bit) {name, bit},
static const struct {
    const char *name;
    uint32_t bit;
} aesgen_cpu_feature_names[] = {AESGEN_CPU_FEATURES(AESGEN_FEATURE_NAME_ENTRY)};
#undef AESGEN_FEATURE_NAME_ENTRY

#define AESGEN_CPU_FEATURE_COUNT (sizeof aesgen_cpu_feature_names / sizeof aesgen_cpu_feature_names[0])

#endif /* AESGEN_CPU_FEATURE_NAMES_H */
