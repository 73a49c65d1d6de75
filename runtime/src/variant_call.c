/*
 * variant_call.c -- a variant's mode functions with the whole contract of
 * aesgen_variant.h. Generated loops leave two things to their caller, once,
 * here rather than in every variant: a CTR loop that counts only in the low 64
 * bits of the counter (ctr_low64) is split where those bits wrap, and the
 * counter advanced; loops that need aligned buffers (align) get them through a
 * bounce buffer and an aligned copy of the IV or counter. The common case is
 * inline in aesgen_internal.h; these are the paths it leaves.
 */
#include <stdint.h>
#include <string.h>

#include "aesgen_bytes.h"
#include "aesgen_internal.h"

#define BOUNCE_BLOCKS 32

static int misaligned(const aesgen_variant *v, const void *a, const void *b)
{
    return v->align != 0 && (((uintptr_t)a | (uintptr_t)b) & (uintptr_t)(v->align - 1)) != 0;
}

void aesgen_variant_ecb_aligned(const aesgen_variant *v, const void *rk, uint8_t *out, const uint8_t *in,
                                size_t nblocks)
{
    if (!misaligned(v, out, in)) {
        v->ecb(rk, out, in, nblocks);
        return;
    }
    uint64_t buf[2 * BOUNCE_BLOCKS];
    while (nblocks != 0) {
        const size_t n = nblocks < BOUNCE_BLOCKS ? nblocks : BOUNCE_BLOCKS;
        memcpy(buf, in, 16 * n);
        v->ecb(rk, (uint8_t *)buf, (const uint8_t *)buf, n);
        memcpy(out, buf, 16 * n);
        in += 16 * n;
        out += 16 * n;
        nblocks -= n;
    }
    aesgen_memwipe(buf, sizeof buf);
}

void aesgen_variant_cbc_aligned(const aesgen_variant *v, const void *rk, uint8_t *out, const uint8_t *in,
                                size_t nblocks, uint8_t iv[16])
{
    uint64_t chain[2];
    memcpy(chain, iv, 16);
    if (!misaligned(v, out, in)) {
        v->cbc(rk, out, in, nblocks, (uint8_t *)chain);
    } else {
        uint64_t buf[2 * BOUNCE_BLOCKS];
        while (nblocks != 0) {
            const size_t n = nblocks < BOUNCE_BLOCKS ? nblocks : BOUNCE_BLOCKS;
            memcpy(buf, in, 16 * n);
            v->cbc(rk, (uint8_t *)buf, (const uint8_t *)buf, n, (uint8_t *)chain);
            memcpy(out, buf, 16 * n);
            in += 16 * n;
            out += 16 * n;
            nblocks -= n;
        }
        aesgen_memwipe(buf, sizeof buf);
    }
    memcpy(iv, chain, 16);
}

/* v->ctr through an aligned copy of the counter and, for misaligned buffers, a
 * bounce buffer. A ctr_low64 loop leaves the counter alone (the copy is advanced
 * between bounced pieces); any other advances it, and the copy is written back. */
static void ctr_aligned(const aesgen_variant *v, const void *rk, uint8_t *out, const uint8_t *in,
                        size_t nblocks, uint8_t counter[16])
{
    uint64_t ctr[2];
    memcpy(ctr, counter, 16);
    if (!misaligned(v, out, in)) {
        v->ctr(rk, out, in, nblocks, (uint8_t *)ctr);
    } else {
        uint64_t buf[2 * BOUNCE_BLOCKS];
        while (nblocks != 0) {
            const size_t n = nblocks < BOUNCE_BLOCKS ? nblocks : BOUNCE_BLOCKS;
            memcpy(buf, in, 16 * n);
            v->ctr(rk, (uint8_t *)buf, (const uint8_t *)buf, n, (uint8_t *)ctr);
            memcpy(out, buf, 16 * n);
            if (v->ctr_low64)
                aesgen_ctr_add((uint8_t *)ctr, n);
            in += 16 * n;
            out += 16 * n;
            nblocks -= n;
        }
        aesgen_memwipe(buf, sizeof buf);
    }
    if (!v->ctr_low64)
        memcpy(counter, ctr, 16);
}

void aesgen_variant_ctr_split(const aesgen_variant *v, const void *rk, uint8_t *out, const uint8_t *in,
                              size_t nblocks, uint8_t counter[16])
{
    if (!v->ctr_low64) {
        if (v->align == 0)
            v->ctr(rk, out, in, nblocks, counter);
        else
            ctr_aligned(v, rk, out, in, nblocks, counter);
        return;
    }
    while (nblocks != 0) {
        /* blocks until the low 64 bits wrap, minus one (so that 2^64 fits) */
        const uint64_t to_wrap_minus_1 = ~aesgen_load_be64(counter + 8);
        size_t n = nblocks;
        if ((uint64_t)(n - 1) > to_wrap_minus_1)
            n = (size_t)to_wrap_minus_1 + 1;
        if (v->align == 0)
            v->ctr(rk, out, in, n, counter);
        else
            ctr_aligned(v, rk, out, in, n, counter);
        aesgen_ctr_add(counter, n);
        in += 16 * n;
        out += 16 * n;
        nblocks -= n;
    }
}
