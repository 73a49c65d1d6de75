/*
 * cpu.c -- run-time CPU feature detection.
 *
 * The portable backends need nothing; hardware backends add their feature
 * bits (aesgen_variant.h) and detection here.
 */
#include "dispatch.h"

uint32_t aesgen_detect_cpu_features(void)
{
    return AESGEN_CPU_NONE;
}
