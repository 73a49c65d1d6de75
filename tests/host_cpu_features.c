/*
 * host_cpu_features.c -- prints the CPU features dispatch would see on the
 * machine running it (names as in the target descriptions). CMake runs it at
 * configure time to register tests only for variants this machine can run.
 */
#include <stdio.h>

#include "cpu_feature_names.h"
#include "dispatch.h"

int main(void)
{
    const uint32_t f = aesgen_detect_cpu_features();
    for (unsigned i = 0; i < AESGEN_CPU_FEATURE_COUNT; i++)
        if (f & aesgen_cpu_feature_names[i].bit)
            printf("%s;", aesgen_cpu_feature_names[i].name);
    return 0;
}
