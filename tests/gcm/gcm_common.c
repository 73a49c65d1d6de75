/* gcm_common.c -- the subject of a GCM test run, cut points, streams (gcm_common.h). */
#include "gcm_common.h"

#include <stdio.h>
#include <string.h>

const size_t gcm_tag_lengths[GCM_TAG_LENGTH_COUNT] = {16, 15, 14, 13, 12, 8, 4};

/* ------------------------------------------------------------------ subject */

static char subject_line[160];

int gcm_subject_init(gcm_subject *s, const char *ghash_name, const char *backend_name)
{
    memset(s, 0, sizeof *s);
    if (ghash_name != NULL) {
        const aesgen_ghash_variant *g = aesgen_find_ghash(ghash_name);
        if (g == NULL) {
            printf("FAIL: no GHASH variant named %s in this library (%zu built in:", ghash_name,
                   aesgen_ghash_registry_size);
            for (size_t i = 0; i < aesgen_ghash_registry_size; i++)
                printf(" %s", aesgen_ghash_registry[i]->name);
            printf(")\n");
            return GCM_EXIT_FAIL;
        }
        if (!aesgen_ghash_usable(g)) {
            printf("skipped: GHASH %s needs CPU features 0x%lx, this CPU offers 0x%lx\n", g->name,
                   (unsigned long)g->features, (unsigned long)aesgen_cpu_features());
            return GCM_EXIT_SKIP;
        }
        s->ghash = g;
        s->bits[0] = 128, s->bits[1] = 192, s->bits[2] = 256, s->nbits = 3;
        snprintf(subject_line, sizeof subject_line, "GHASH %s", g->name);
        printf("GHASH %s (backend %s, %u blocks per reduction): every key size, AES by dispatch unless "
               "another usable variant has stitched functions reading this table\n",
               g->name, g->backend ? g->backend : "?", (unsigned)g->blocks);
        return GCM_EXIT_PASS;
    }
    if (backend_name != NULL) {
        const int sup = aesgen_backend_supported(backend_name);
        if (sup < 0) {
            printf("FAIL: no backend named %s in this library\n", backend_name);
            return GCM_EXIT_FAIL;
        }
        if (sup == 0) {
            printf("skipped: backend %s cannot run on this CPU\n", backend_name);
            return GCM_EXIT_SKIP;
        }
        const int rc = aesgen_force_backend(backend_name);
        if (rc != AESGEN_OK) {
            printf("FAIL: aesgen_force_backend(%s) returned %d (%s)\n", backend_name, rc,
                   aesgen_status_string(rc));
            return GCM_EXIT_FAIL;
        }
        s->backend = backend_name;
        for (unsigned bits = 128; bits <= 256; bits += 64) {
            const char *sel = aesgen_selected_backend(bits, AESGEN_ENCRYPT);
            if (sel == NULL) {
                printf("note: backend %s does not serve AES-%u encryption\n", backend_name, bits);
                continue;
            }
            if (strcmp(sel, backend_name) != 0) {
                printf("FAIL: with backend %s forced, AES-%u encryption selects backend %s\n",
                       backend_name, bits, sel);
                return GCM_EXIT_FAIL;
            }
            s->bits[s->nbits++] = bits;
        }
        if (s->nbits == 0) {
            printf("skipped: backend %s serves no key size on this CPU\n", backend_name);
            return GCM_EXIT_SKIP;
        }
        snprintf(subject_line, sizeof subject_line, "backend %s (forced)", backend_name);
        printf("backend %s (forced), GHASH by dispatch:", backend_name);
        for (unsigned i = 0; i < s->nbits; i++)
            printf(" AES-%u", s->bits[i]);
        printf("\n");
        return GCM_EXIT_PASS;
    }
    s->bits[0] = 128, s->bits[1] = 192, s->bits[2] = 256, s->nbits = 3;
    snprintf(subject_line, sizeof subject_line, "automatic dispatch");
    printf("automatic dispatch\n");
    return GCM_EXIT_PASS;
}

int gcm_subject_serves(const gcm_subject *s, unsigned bits)
{
    for (unsigned i = 0; i < s->nbits; i++)
        if (s->bits[i] == bits)
            return 1;
    return 0;
}

const char *gcm_subject_name(const gcm_subject *s)
{
    (void)s;
    return subject_line;
}

/* The AES variant a GHASH subject's keys use: dispatch's, unless it does not stitch with
 * this GHASH and another usable encryption variant of the key size does (so that the
 * stitched functions of, say, AES-NI run through the API where dispatch prefers VAES). */
static const aesgen_variant *stitching_with(const aesgen_ghash_variant *g, unsigned key_bits)
{
    const char *picked = aesgen_selected_variant(key_bits, AESGEN_ENCRYPT);
    const aesgen_variant *d = picked != NULL ? aesgen_find_variant(picked) : NULL;
    if (d == NULL || (d->gcm_blocks != 0 && g->table != NULL && strcmp(d->gcm_table, g->table) == 0))
        return NULL;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (v->key_bits == key_bits && v->direction == AESGEN_ENCRYPT && v->gcm_blocks != 0 &&
            g->table != NULL && strcmp(v->gcm_table, g->table) == 0 && aesgen_variant_usable(v))
            return v;
    }
    return NULL;
}

int gcm_subject_key(const gcm_subject *s, aesgen_gcm_key *key, const uint8_t *k, size_t key_len,
                    char *why, size_t why_len)
{
    const int rc = s->ghash != NULL
                       ? aesgen_gcm_init_variants(key, k, key_len, stitching_with(s->ghash, (unsigned)key_len * 8),
                                                  s->ghash)
                       : aesgen_gcm_init(key, k, key_len);
    if (rc != AESGEN_OK) {
        snprintf(why, why_len, "%s returned %d (%s)",
                 s->ghash != NULL ? "aesgen_gcm_init_variants" : "aesgen_gcm_init", rc,
                 aesgen_status_string(rc));
        return 0;
    }
    const char *aes = aesgen_gcm_variant(key), *gh = aesgen_gcm_ghash(key);
    if (aes == NULL || gh == NULL) {
        snprintf(why, why_len, "after key set-up aesgen_gcm_variant gives %s, aesgen_gcm_ghash %s",
                 aes ? aes : "NULL", gh ? gh : "NULL");
        return 0;
    }
    const aesgen_variant *v = aesgen_find_variant(aes);
    if (v == NULL || v->key_bits != key_len * 8 || v->direction != AESGEN_ENCRYPT) {
        snprintf(why, why_len, "the key is served by %s, not an AES-%zu encryption variant", aes,
                 key_len * 8);
        return 0;
    }
    if (s->ghash != NULL && strcmp(gh, s->ghash->name) != 0) {
        snprintf(why, why_len, "the key uses GHASH %s, not %s", gh, s->ghash->name);
        return 0;
    }
    if (s->backend != NULL && (v->backend == NULL || strcmp(v->backend, s->backend) != 0)) {
        snprintf(why, why_len, "the key uses %s (backend %s), not backend %s", aes,
                 v->backend ? v->backend : "?", s->backend);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------- cut points */

void gcm_cuts_whole(gcm_cuts *c, size_t len)
{
    c->pieces = 1;
    c->at[0] = 0;
    c->at[1] = len;
}

void gcm_cuts_two(gcm_cuts *c, size_t len, size_t at)
{
    c->pieces = 2;
    c->at[0] = 0;
    c->at[1] = at <= len ? at : len;
    c->at[2] = len;
}

void gcm_cuts_random(gcm_cuts *c, ts_rng *r, size_t len, size_t max_pieces)
{
    if (max_pieces < 1)
        max_pieces = 1;
    if (max_pieces > GCM_MAX_PIECES)
        max_pieces = GCM_MAX_PIECES;
    c->pieces = 1 + ts_rng_below(r, max_pieces);
    c->at[0] = 0;
    for (size_t i = 1; i < c->pieces; i++) {
        const size_t kind = ts_rng_below(r, 6);
        size_t p = ts_rng_below(r, len + 1);
        if (kind == 0 && i > 1)
            p = c->at[i - 1]; /* an empty call */
        else if (kind == 1)
            p -= p % 16; /* a block boundary */
        c->at[i] = p;
    }
    /* sort the inner cuts (insertion: at most 11) */
    for (size_t i = 2; i < c->pieces; i++)
        for (size_t j = i; j > 1 && c->at[j - 1] > c->at[j]; j--) {
            const size_t t = c->at[j];
            c->at[j] = c->at[j - 1];
            c->at[j - 1] = t;
        }
    c->at[c->pieces] = len;
}

const char *gcm_cuts_format(const gcm_cuts *c, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->pieces && used < n; i++) {
        const int w = snprintf(buf + used, n - used, " [%zu,%zu)", c->at[i], c->at[i + 1]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

/* ----------------------------------------------------------------- streams */

/* start, the AAD and the text; then the caller's finish or verify */
static int stream_body(aesgen_gcm_stream *s, const aesgen_gcm_key *key, aesgen_direction dir,
                       const uint8_t *iv, size_t iv_len, const uint8_t *aad, const gcm_cuts *aad_cuts,
                       uint8_t *out, const uint8_t *in, const gcm_cuts *text_cuts, const char **failed)
{
    int rc = aesgen_gcm_start(s, key, dir, iv, iv_len);
    if (rc != AESGEN_OK) {
        *failed = "start";
        return rc;
    }
    for (size_t i = 0; i < aad_cuts->pieces; i++) {
        const size_t a = aad_cuts->at[i], b = aad_cuts->at[i + 1];
        rc = aesgen_gcm_aad(s, aad != NULL ? aad + a : NULL, b - a);
        if (rc != AESGEN_OK) {
            *failed = "aad";
            return rc;
        }
    }
    for (size_t i = 0; i < text_cuts->pieces; i++) {
        const size_t a = text_cuts->at[i], b = text_cuts->at[i + 1];
        rc = aesgen_gcm_update(s, out != NULL ? out + a : NULL, in != NULL ? in + a : NULL, b - a);
        if (rc != AESGEN_OK) {
            *failed = "update";
            return rc;
        }
    }
    *failed = NULL;
    return AESGEN_OK;
}

int gcm_stream_seal(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                    const gcm_cuts *aad_cuts, uint8_t *out, const uint8_t *in, const gcm_cuts *text_cuts,
                    uint8_t *tag, size_t tag_len, const char **failed)
{
    aesgen_gcm_stream s;
    int rc = stream_body(&s, key, AESGEN_ENCRYPT, iv, iv_len, aad, aad_cuts, out, in, text_cuts, failed);
    if (rc == AESGEN_OK) {
        rc = aesgen_gcm_finish(&s, tag, tag_len);
        *failed = rc == AESGEN_OK ? NULL : "finish";
    }
    aesgen_gcm_stream_wipe(&s);
    return rc;
}

int gcm_stream_open(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                    const gcm_cuts *aad_cuts, uint8_t *out, const uint8_t *in, const gcm_cuts *text_cuts,
                    const uint8_t *tag, size_t tag_len, const char **failed)
{
    aesgen_gcm_stream s;
    int rc = stream_body(&s, key, AESGEN_DECRYPT, iv, iv_len, aad, aad_cuts, out, in, text_cuts, failed);
    if (rc == AESGEN_OK) {
        rc = aesgen_gcm_verify(&s, tag, tag_len);
        *failed = rc == AESGEN_OK ? NULL : "verify";
    }
    aesgen_gcm_stream_wipe(&s);
    return rc;
}
