/* ts_variant.c -- reference variant, descriptor calls, buffers (see ts_variant.h). */
#include "ts_variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0 for the native word (and for hardware variants), 1 narrower, 2 wider. */
static unsigned width_fit(const aesgen_variant *v)
{
    return v->word_bits == 0 || v->word_bits == TS_NATIVE_WORD_BITS ? 0u
           : v->word_bits < TS_NATIVE_WORD_BITS                    ? 1u
                                                                   : 2u;
}

const aesgen_variant *ts_reference_variant(unsigned key_bits, int direction)
{
    const aesgen_variant *best = NULL;
    unsigned long best_score = 0;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (v->key_bits != key_bits || v->direction != direction || v->features != 0 ||
            !aesgen_variant_usable(v))
            continue;
        const unsigned long score = (unsigned long)v->rank * 4u + width_fit(v);
        if (best == NULL || score < best_score) {
            best = v;
            best_score = score;
        }
    }
    return best;
}

/* t * alpha in GF(2^128), little-endian bytes (IEEE 1619 5.2); test code, so a branch */
static void xts_times_alpha(uint8_t t[16])
{
    const int carry = t[15] >> 7;
    for (int i = 15; i > 0; i--)
        t[i] = (uint8_t)(t[i] << 1 | t[i - 1] >> 7);
    t[0] = (uint8_t)(t[0] << 1 ^ (carry ? 0x87 : 0));
}

static void xts_by_blocks(const aesgen_variant *v, const uint8_t *rk, uint8_t *out, const uint8_t *in,
                          size_t n, uint8_t tweak[16])
{
    for (size_t j = 0; j < n; j++) {
        uint8_t b[16];
        for (int i = 0; i < 16; i++)
            b[i] = in[16 * j + (size_t)i] ^ tweak[i];
        aesgen_variant_ecb(v, rk, b, b, 1);
        for (int i = 0; i < 16; i++)
            out[16 * j + (size_t)i] = b[i] ^ tweak[i];
        xts_times_alpha(tweak);
    }
}

void ts_variant_run(const aesgen_variant *v, const uint8_t *rk, int mode, uint8_t *out,
                    const uint8_t *in, size_t n, uint8_t iv[16])
{
    /* through the runtime, which does what a variant leaves to its caller (ctr_low64, align) */
    if (mode == TS_VARIANT_XTS) {
        /* xts.c calls it only so too (the tweak buffer is the caller's, aligned) */
        if (v->xts != NULL && (v->align == 0 || ((uintptr_t)out | (uintptr_t)in) % v->align == 0)) {
            _Alignas(16) uint8_t tweak[16];
            memcpy(tweak, iv, 16);
            v->xts(rk, out, in, n, tweak);
            memcpy(iv, tweak, 16);
        }
        else
            xts_by_blocks(v, rk, out, in, n, iv);
    } else if (mode == TS_VARIANT_ECB)
        aesgen_variant_ecb(v, rk, out, in, n);
    else if (mode == TS_VARIANT_CBC)
        aesgen_variant_cbc(v, rk, out, in, n, iv);
    else
        aesgen_variant_ctr(v, rk, out, in, n, iv);
}

uint8_t *ts_alloc64(size_t n, const char *prog)
{
    void *p = aligned_alloc(64, (n + 63) / 64 * 64);
    if (p == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        exit(1);
    }
    return p;
}

static uint8_t pattern(size_t i)
{
    return (uint8_t)(i * 131u + 7u);
}

void ts_region_fill(uint8_t *r, size_t used)
{
    for (size_t i = 0; i < used; i++)
        r[i] = pattern(i);
}

size_t ts_region_changed(const uint8_t *r, size_t lo, size_t hi, size_t used)
{
    for (size_t i = 0; i < used; i++)
        if ((i < lo || i >= hi) && r[i] != pattern(i))
            return i;
    return used;
}
