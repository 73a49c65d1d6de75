/*
 * host_cpu_features.c -- prints the CPU features dispatch would see on the
 * machine running it (names as in the target descriptions). CMake runs it at
 * configure time to register tests only for variants this machine can run.
 */
#include <stdio.h>

#include "dispatch.h"

int main(void)
{
    static const char *const names[] = {"aesni", "ssse3", "avx", "avx2",
                                        "vaes", "avx512f", "avx512vl", "avx512bw"};
    const uint32_t f = aesgen_detect_cpu_features();
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (f & (1u << i))
            printf("%s;", names[i]);
    return 0;
}
