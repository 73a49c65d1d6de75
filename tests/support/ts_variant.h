/*
 * ts_variant.h -- what the tests that call generated variants through their
 * descriptors share (aesgen_internal.h): the reference variant, one call of a
 * variant's mode function, 64-byte aligned buffers, and guard regions.
 */
#ifndef AESGEN_TS_VARIANT_H
#define AESGEN_TS_VARIANT_H

#include <stddef.h>
#include <stdint.h>

#include "aesgen_internal.h"

/* The native word of this CPU, the word the reference variant is preferred on. */
#define TS_NATIVE_WORD_BITS (UINTPTR_MAX > 0xffffffffu ? 64u : 32u)

/* The feature-free variant dispatch prefers for a key size and direction: the lowest
 * rank among the usable variants without CPU features, on the native word first
 * (ties: the registry's order). NULL when there is none. */
const aesgen_variant *ts_reference_variant(unsigned key_bits, int direction);

/* A descriptor's mode functions, through the runtime's aesgen_variant_ecb/cbc/ctr (the
 * whole contract of aesgen_variant.h): ECB over n blocks, CBC and CTR chaining through iv.
 * XTS: the variant's xts loop, iv the first block's (encrypted) tweak, left holding the
 * next one's; a variant without one is whitened block by block around its ECB here
 * (the reference). */
enum { TS_VARIANT_ECB, TS_VARIANT_CBC, TS_VARIANT_CTR, TS_VARIANT_XTS };
void ts_variant_run(const aesgen_variant *v, const uint8_t *rk, int mode, uint8_t *out,
                    const uint8_t *in, size_t n, uint8_t iv[16]);

/* n bytes (rounded up to a multiple of 64) at a 64-byte boundary; on failure prints
 * "<prog>: out of memory" to stderr and exits with status 1. Free with free(). */
uint8_t *ts_alloc64(size_t n, const char *prog);

/* Guard regions: bytes around the data of a call hold a position-dependent pattern
 * that must survive it. ts_region_fill writes the pattern to r[0..used);
 * ts_region_changed returns the first index of r[0..used) outside [lo, hi) whose
 * pattern changed, or `used` when there is none. */
void ts_region_fill(uint8_t *r, size_t used);
size_t ts_region_changed(const uint8_t *r, size_t lo, size_t hi, size_t used);

#endif
