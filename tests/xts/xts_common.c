/* xts_common.c -- the subject of an XTS test run, variant pairs, tweaks (xts_common.h). */
#include "xts_common.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ subject */

int xts_subject_init(xts_subject *s, const char *backend_name)
{
    memset(s, 0, sizeof *s);
    if (backend_name == NULL) {
        s->bits[0] = 128, s->bits[1] = 256, s->nbits = 2;
        snprintf(s->name, sizeof s->name, "automatic dispatch");
        printf("automatic dispatch\n");
        return XTS_EXIT_PASS;
    }
    const int sup = aesgen_backend_supported(backend_name);
    if (sup < 0) {
        printf("FAIL: no backend named %s in this library\n", backend_name);
        return XTS_EXIT_FAIL;
    }
    if (sup == 0) {
        printf("skipped: backend %s cannot run on this CPU\n", backend_name);
        return XTS_EXIT_SKIP;
    }
    const int rc = aesgen_force_backend(backend_name);
    if (rc != AESGEN_OK) {
        printf("FAIL: aesgen_force_backend(%s) returned %d (%s)\n", backend_name, rc, aesgen_status_string(rc));
        return XTS_EXIT_FAIL;
    }
    s->backend = backend_name;
    for (unsigned bits = 128; bits <= 256; bits += 128) {
        const char *se = aesgen_selected_backend(bits, AESGEN_ENCRYPT);
        const char *sd = aesgen_selected_backend(bits, AESGEN_DECRYPT);
        if (se == NULL || sd == NULL) {
            printf("note: backend %s does not serve AES-%u %s\n", backend_name, bits,
                   se == NULL ? "encryption" : "decryption");
            continue;
        }
        if (strcmp(se, backend_name) != 0 || strcmp(sd, backend_name) != 0) {
            printf("FAIL: with backend %s forced, AES-%u selects backends %s and %s\n", backend_name, bits, se, sd);
            return XTS_EXIT_FAIL;
        }
        s->bits[s->nbits++] = bits;
    }
    if (s->nbits == 0) {
        printf("skipped: backend %s serves neither AES-128 nor AES-256 on this CPU\n", backend_name);
        return XTS_EXIT_SKIP;
    }
    snprintf(s->name, sizeof s->name, "backend %s (forced)", backend_name);
    printf("backend %s (forced):", backend_name);
    for (unsigned i = 0; i < s->nbits; i++)
        printf(" AES-%u-XTS", s->bits[i]);
    printf("\n");
    return XTS_EXIT_PASS;
}

void xts_subject_pair(xts_subject *s, const aesgen_variant *enc, const aesgen_variant *dec)
{
    memset(s, 0, sizeof *s);
    s->enc = enc;
    s->dec = dec;
    s->bits[0] = enc->key_bits;
    s->nbits = 1;
    snprintf(s->name, sizeof s->name, "variants %s + %s", enc->name, dec->name);
}

int xts_subject_serves(const xts_subject *s, unsigned bits)
{
    for (unsigned i = 0; i < s->nbits; i++)
        if (s->bits[i] == bits)
            return 1;
    return 0;
}

int xts_subject_key(const xts_subject *s, aesgen_xts_key *key, const uint8_t *k, size_t key_len, char *why,
                    size_t why_len)
{
    const int rc = s->enc != NULL ? aesgen_xts_init_variants(key, k, key_len, s->enc, s->dec)
                                  : aesgen_xts_init(key, k, key_len);
    if (rc != AESGEN_OK) {
        snprintf(why, why_len, "%s returned %d (%s)", s->enc != NULL ? "aesgen_xts_init_variants" : "aesgen_xts_init",
                 rc, aesgen_status_string(rc));
        return rc;
    }
    const char *en = aesgen_xts_variant(key, AESGEN_ENCRYPT), *dn = aesgen_xts_variant(key, AESGEN_DECRYPT);
    if (en == NULL || dn == NULL) {
        snprintf(why, why_len, "after key set-up aesgen_xts_variant gives %s (encrypt), %s (decrypt)",
                 en ? en : "NULL", dn ? dn : "NULL");
        return XTS_SUBJECT_MISMATCH;
    }
    const aesgen_variant *e = aesgen_find_variant(en), *d = aesgen_find_variant(dn);
    const unsigned bits = (unsigned)(key_len * 4);
    if (e == NULL || e->key_bits != bits || e->direction != AESGEN_ENCRYPT) {
        snprintf(why, why_len, "the key is encrypted by %s, not an AES-%u encryption variant", en, bits);
        return XTS_SUBJECT_MISMATCH;
    }
    if (d == NULL || d->key_bits != bits || d->direction != AESGEN_DECRYPT) {
        snprintf(why, why_len, "the key is decrypted by %s, not an AES-%u decryption variant", dn, bits);
        return XTS_SUBJECT_MISMATCH;
    }
    if (s->enc != NULL && (e != s->enc || d != s->dec)) {
        snprintf(why, why_len, "the key uses %s + %s, not %s + %s", en, dn, s->enc->name, s->dec->name);
        return XTS_SUBJECT_MISMATCH;
    }
    if (s->backend != NULL && (e->backend == NULL || d->backend == NULL || strcmp(e->backend, s->backend) != 0 ||
                               strcmp(d->backend, s->backend) != 0)) {
        snprintf(why, why_len, "the key uses %s + %s (backends %s, %s), not backend %s", en, dn,
                 e->backend ? e->backend : "?", d->backend ? d->backend : "?", s->backend);
        return XTS_SUBJECT_MISMATCH;
    }
    return AESGEN_OK;
}

/* --------------------------------------------------------------- variant pairs */

static int same_backend(const aesgen_variant *a, const aesgen_variant *b)
{
    return a->backend != NULL && b->backend != NULL && strcmp(a->backend, b->backend) == 0;
}

/* "aes128_enc__x" and "aes128_dec__x": the same but for enc/dec */
static int same_target(const aesgen_variant *e, const aesgen_variant *d)
{
    const char *a = strstr(e->name, "__"), *b = strstr(d->name, "__");
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static int usable_xts(const aesgen_variant *v, int dir)
{
    return (v->key_bits == 128 || v->key_bits == 256) && v->direction == dir && aesgen_variant_usable(v);
}

/* A usable partner of v of the other direction: the same target, else the same backend,
 * else any (lowest rank first), so that no usable variant is left out. */
static const aesgen_variant *partner(const aesgen_variant *v)
{
    const aesgen_variant *best = NULL;
    int best_score = 0;
    const int dir = v->direction == AESGEN_ENCRYPT ? AESGEN_DECRYPT : AESGEN_ENCRYPT;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *w = aesgen_registry[i];
        if (!usable_xts(w, dir) || w->key_bits != v->key_bits)
            continue;
        if (dir == AESGEN_DECRYPT ? same_target(v, w) : same_target(w, v))
            return w;
        const int score = same_backend(v, w) ? 0 : 1;
        if (best == NULL || score < best_score || (score == best_score && w->rank < best->rank)) {
            best = w;
            best_score = score;
        }
    }
    return best;
}

size_t xts_pairs(xts_pair *out, size_t max)
{
    size_t n = 0;
    /* every encryption variant with its own decryption (or its backend's best) */
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *e = aesgen_registry[i];
        if (!usable_xts(e, AESGEN_ENCRYPT))
            continue;
        const aesgen_variant *d = partner(e);
        if (d == NULL)
            continue;
        if (n < max)
            out[n].enc = e, out[n].dec = d;
        n++;
    }
    /* every decryption variant not yet in a pair (bitsliced decryption, ...) */
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *d = aesgen_registry[i];
        if (!usable_xts(d, AESGEN_DECRYPT))
            continue;
        int seen = 0;
        for (size_t j = 0; j < n && j < max; j++)
            seen |= out[j].dec == d;
        if (seen)
            continue;
        const aesgen_variant *e = partner(d);
        if (e == NULL)
            continue;
        if (n < max)
            out[n].enc = e, out[n].dec = d;
        n++;
    }
    return n;
}

/* ----------------------------------------------------------------- tweaks */

void xts_sector_tweak(uint8_t tweak[16], uint64_t n)
{
    for (int i = 0; i < 8; i++)
        tweak[i] = (uint8_t)(n >> (8 * i));
    memset(tweak + 8, 0, 8);
}
