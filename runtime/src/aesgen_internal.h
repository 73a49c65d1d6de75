/*
 * aesgen_internal.h -- library-internal functions, also used by the tests
 * (which link the static library). Not exported from the shared library.
 */
#ifndef AESGEN_INTERNAL_H
#define AESGEN_INTERNAL_H

#include "aesgen.h"
#include "aesgen_bytes.h"
#include "aesgen_variant.h"

/* The variant with this canonical name, or NULL. */
const aesgen_variant *aesgen_find_variant(const char *name);

/* 1 if this CPU (after any feature masking) can run the variant. */
int aesgen_variant_usable(const aesgen_variant *v);

/* Like aesgen_init, but with explicit variants for each direction; a NULL
 * variant means "the one dispatch picks". Returns AESGEN_ERR_BACKEND when a
 * variant has the wrong key size or direction, or cannot run on this CPU. */
int aesgen_init_variants(aesgen_ctx *ctx, const uint8_t *key, size_t key_len,
                         const aesgen_variant *enc, const aesgen_variant *dec);

/* The variant and round keys of a context's direction, if the context is set up
 * (AESGEN_OK, _ERR_NULL, _ERR_CONTEXT). */
int aesgen_ctx_cipher(const aesgen_ctx *ctx, int direction, const aesgen_variant **v, const void **rk);

/* A variant's mode functions with the whole contract of aesgen_variant.h,
 * whatever the variant leaves to its caller (ctr_low64, align): any alignment,
 * and a CTR counter that is one 128-bit integer, advanced by nblocks. The common
 * case (no alignment demand, no wrap of the low 64 counter bits) is inline, so a
 * short message pays for no extra call; variant_call.c has the rest. */
void aesgen_variant_ecb_aligned(const aesgen_variant *v, const void *rk, uint8_t *out, const uint8_t *in,
                                size_t nblocks);
void aesgen_variant_cbc_aligned(const aesgen_variant *v, const void *rk, uint8_t *out, const uint8_t *in,
                                size_t nblocks, uint8_t iv[16]);
void aesgen_variant_ctr_split(const aesgen_variant *v, const void *rk, uint8_t *out, const uint8_t *in,
                              size_t nblocks, uint8_t counter[16]);

static inline void aesgen_variant_ecb(const aesgen_variant *v, const void *rk, uint8_t *out, const uint8_t *in,
                                      size_t nblocks)
{
    if (v->align == 0)
        v->ecb(rk, out, in, nblocks);
    else
        aesgen_variant_ecb_aligned(v, rk, out, in, nblocks);
}

static inline void aesgen_variant_cbc(const aesgen_variant *v, const void *rk, uint8_t *out, const uint8_t *in,
                                      size_t nblocks, uint8_t iv[16])
{
    if (v->align == 0)
        v->cbc(rk, out, in, nblocks, iv);
    else
        aesgen_variant_cbc_aligned(v, rk, out, in, nblocks, iv);
}

static inline void aesgen_variant_ctr(const aesgen_variant *v, const void *rk, uint8_t *out, const uint8_t *in,
                                      size_t nblocks, uint8_t counter[16])
{
    if (v->align == 0 && !v->ctr_low64) {
        v->ctr(rk, out, in, nblocks, counter);
    } else if (v->align == 0 && nblocks != 0 &&
               (uint64_t)(nblocks - 1) <= ~aesgen_load_be64(counter + 8)) {
        /* the low 64 bits take all nblocks (at most reaching 2^64) */
        v->ctr(rk, out, in, nblocks, counter);
        aesgen_ctr_add(counter, nblocks);
    } else {
        aesgen_variant_ctr_split(v, rk, out, in, nblocks, counter);
    }
}

/* The buffers of one call: present when len > 0, inside the address space,
 * and either the same or disjoint (AESGEN_OK, _ERR_NULL, _ERR_LENGTH, _ERR_OVERLAP). */
static inline int aesgen_check_buffers(const uint8_t *out, const uint8_t *in, size_t len)
{
    if (len == 0)
        return AESGEN_OK;
    if (out == NULL || in == NULL)
        return AESGEN_ERR_NULL;
    const uintptr_t o = (uintptr_t)out, i = (uintptr_t)in;
    if (len > UINTPTR_MAX - o || len > UINTPTR_MAX - i)
        return AESGEN_ERR_LENGTH;
    if (o != i && o < i + len && i < o + len)
        return AESGEN_ERR_OVERLAP;
    return AESGEN_OK;
}

/* The GHASH variant with this name, or NULL; 1 if this CPU can run it; the preferred
 * usable one. */
const aesgen_ghash_variant *aesgen_find_ghash(const char *name);
int aesgen_ghash_usable(const aesgen_ghash_variant *g);
const aesgen_ghash_variant *aesgen_pick_ghash(void);
/* The GHASH a GCM key set up without one uses with the AES variant aes: aesgen_pick_ghash,
 * unless aes has stitched GCM loops that read another table layout and a usable GHASH
 * writes that one (then the best-ranked such): one pass beats a wider hash in two. */
const aesgen_ghash_variant *aesgen_pick_ghash_stitching(const aesgen_variant *aes);

/* aesgen_gcm_init with an explicit AES encryption variant and GHASH (NULL: what
 * dispatch picks); AESGEN_ERR_BACKEND when either cannot serve the key here. */
int aesgen_gcm_init_variants(aesgen_gcm_key *key, const uint8_t *k, size_t key_len,
                             const aesgen_variant *aes, const aesgen_ghash_variant *ghash);

/* aesgen_xts_init with explicit AES variants of the key's size, for the data (enc
 * and dec) and the tweak (enc); NULL: what dispatch picks. AESGEN_ERR_BACKEND when
 * one cannot serve the key here. */
int aesgen_xts_init_variants(aesgen_xts_key *key, const uint8_t *k, size_t key_len, const aesgen_variant *enc,
                             const aesgen_variant *dec);

/* Whether n bytes of a and b differ, compared in constant time; only the verdict is
 * made public (aesgen_declassify). */
int aesgen_differs_public(const uint8_t *a, const uint8_t *b, size_t n);

/* The one place the library makes a secret-derived value public: the verdict of
 * a GCM tag check or the XTS halves check, which the API returns by design. A no-op
 * here (a weak definition in api.c); the constant-time test overrides it to tell memcheck. */
void aesgen_declassify(const void *p, size_t len);

/* CPU features detected at run time (AESGEN_CPU_* bits). */
uint32_t aesgen_cpu_features(void);

/* The CPU model dispatch orders backends for (AESGEN_CPU_ID, else cpuid) as text,
 * e.g. "intel-family6h-modelcfh", or "unknown"; the per-CPU preference that applies
 * to it (NULL: none, the targets' ranks as they are); the preference of any model. */
void aesgen_cpu_id_text(char *buf, size_t n);
const aesgen_cpu_preference *aesgen_cpu_preference_active(void);
const aesgen_cpu_preference *aesgen_cpu_preference_of(const aesgen_cpu_id *id);
/* That model's vendor, AESGEN_CPU_VENDOR_* (UNKNOWN off x86-64). */
int aesgen_cpu_vendor(void);

/* The rank dispatch gives a variant of `backend` whose own rank is `rank` under
 * `pref` (NULL: unchanged); and the picks for given features and preference, which
 * aesgen_pick_variant and aesgen_pick_ghash make with this CPU's. */
unsigned aesgen_dispatch_rank(const aesgen_cpu_preference *pref, const char *backend, unsigned rank);
const aesgen_variant *aesgen_pick_variant_for(unsigned key_bits, int direction, const char *backend,
                                              uint32_t features, const aesgen_cpu_preference *pref);
const aesgen_ghash_variant *aesgen_pick_ghash_for(uint32_t features, const aesgen_cpu_preference *pref);

#endif /* AESGEN_INTERNAL_H */
