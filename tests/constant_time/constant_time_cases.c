/*
 * constant_time_cases.c -- aesgen_ct_test: the suite run against each software variant and
 * backend with every secret marked undefined (see constant_time_test.c): the FIPS-197 known
 * answer, then ECB, CBC and CTR over every block count up to 2*batch+1, in place and
 * misaligned, in pieces, round trips; then GCM (constant_time_gcm.c) and XTS
 * (constant_time_xts.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "constant_time_test.h"
#include "ts_modes.h"
#include "ts_report.h"

/* ------------------------------------------------------------------------ */
/* The suite run against one initialised set-up                             */
/* ------------------------------------------------------------------------ */

typedef struct ct_target {
    char label[160];
    unsigned key_bits;
    const aesgen_variant *enc; /* explicit variants (variant mode) */
    const aesgen_variant *dec;
    const char *backend;       /* non-NULL: backend mode */
    int test_enc;              /* run the encryption-direction checks */
    int test_dec;              /* run the decryption-direction checks */
    size_t batch;              /* largest batch_blocks involved */
} ct_target;

/* FIPS-197 Appendix C: key 00 01 02 ..., plaintext 00 11 22 ... ff
 * (ts_fips197_pt, ts_fips197_ct in ts_modes.h). */

/* Key set-up with the key marked secret. */
static int setup_ctx(const ct_target *t, aesgen_ctx *ctx, const uint8_t *key_public)
{
    uint8_t key[32];
    size_t klen = key_len_of(t->key_bits);
    int rc;

    secret_copy(key, key_public, klen);
    if (t->backend != NULL) {
        rc = aesgen_force_backend(t->backend);
        if (!check_ok(t->label, "aesgen_force_backend", 0, rc)) {
            return 0;
        }
        rc = aesgen_init(ctx, key, klen);
        if (!check_ok(t->label, "aesgen_init", 0, rc)) {
            return 0;
        }
    } else {
        rc = aesgen_init_variants(ctx, key, klen, t->enc, t->dec);
        if (!check_ok(t->label, "aesgen_init_variants", 0, rc)) {
            return 0;
        }
    }
    aesgen_memwipe(key, sizeof key);

    /* The context must be served by the variants we meant to test. */
    {
        const char *enc_name = aesgen_ctx_variant(ctx, AESGEN_ENCRYPT);
        const char *dec_name = aesgen_ctx_variant(ctx, AESGEN_DECRYPT);
        if (t->backend == NULL) {
            if ((t->enc != NULL && (enc_name == NULL || strcmp(enc_name, t->enc->name) != 0)) ||
                (t->dec != NULL && (dec_name == NULL || strcmp(dec_name, t->dec->name) != 0))) {
                fail(t->label, "aesgen_ctx_variant does not name the requested variant",
                     enc_name, 0);
                return 0;
            }
        } else {
            const char *names[2];
            int d;
            names[0] = enc_name;
            names[1] = dec_name;
            for (d = 0; d < 2; ++d) {
                const aesgen_variant *w = names[d] ? aesgen_find_variant(names[d]) : NULL;
                if (w == NULL || !is_software(w) || w->backend == NULL ||
                    strcmp(w->backend, t->backend) != 0) {
                    fail(t->label, "context not served by the forced portable backend",
                         names[d] ? names[d] : "(null)", 0);
                    return 0;
                }
            }
        }
    }
    return 1;
}

/* Block counts 1 .. 2*batch+1 (every tail path), thinned for large batches. */
static size_t block_counts(size_t batch, size_t *out, size_t cap)
{
    size_t n = 0, i;
    if (batch == 0) {
        batch = 1;
    }
    if (2 * batch + 1 <= 17) {
        for (i = 1; i <= 2 * batch + 1 && n < cap; ++i) {
            out[n++] = i;
        }
    } else {
        const size_t pick[] = { 1, 2, 3, batch - 1, batch, batch + 1,
                                2 * batch - 1, 2 * batch, 2 * batch + 1 };
        for (i = 0; i < sizeof pick / sizeof pick[0] && n < cap; ++i) {
            if (n == 0 || pick[i] > out[n - 1]) {
                out[n++] = pick[i];
            }
        }
    }
    return n;
}

typedef struct bufs {
    size_t cap;       /* bytes usable in each buffer (plus 4 bytes of slack for misalignment) */
    uint8_t *truth;   /* public test data */
    uint8_t *truth2;  /* public expected values */
    uint8_t *in;      /* secret inputs */
    uint8_t *out;
    uint8_t *out2;
    uint8_t *out3;
} bufs;

static int bufs_alloc(bufs *b, size_t bytes)
{
    b->cap = bytes;
    b->truth = malloc(bytes + 4);
    b->truth2 = malloc(bytes + 4);
    b->in = malloc(bytes + 4);
    b->out = malloc(bytes + 4);
    b->out2 = malloc(bytes + 4);
    b->out3 = malloc(bytes + 4);
    return b->truth && b->truth2 && b->in && b->out && b->out2 && b->out3;
}

static void bufs_free(bufs *b)
{
    free(b->truth);
    free(b->truth2);
    free(b->in);
    free(b->out);
    free(b->out2);
    free(b->out3);
    memset(b, 0, sizeof *b);
}

/* Encryption direction: ECB, CBC, CTR (including partial blocks). */
static void suite_encrypt(const ct_target *t, const aesgen_ctx *ctx, bufs *b, size_t nb,
                          int have_dec)
{
    const char *L = t->label;
    size_t len = nb * BLK, i;
    /* misaligned views: alignment is public, but it selects code paths */
    uint8_t *in = b->in + (nb % 4);
    uint8_t *out = b->out + ((nb + 1) % 4);
    uint8_t *out2 = b->out2 + ((nb + 2) % 4);
    uint8_t *out3 = b->out3;
    uint8_t iv0[16], iv[16], ctr0[16], ctrblk[16];
    aesgen_ctr s;

    /* --- ECB --- */
    fill_random(b->truth, len);
    secret_copy(in, b->truth, len);
    if (!check_ok(L, "ecb_encrypt", nb, aesgen_ecb_encrypt(ctx, out, in, len))) {
        return;
    }
    if (have_dec) { /* round trip while everything is still secret */
        if (check_ok(L, "ecb_decrypt (round trip)", nb, aesgen_ecb_decrypt(ctx, out2, out, len))) {
            check_equal(L, "ECB decrypt(encrypt(x)) != x", nb, out2, b->truth, len);
        }
    }
    /* in place gives the same ciphertext */
    secret_copy(out3, b->truth, len);
    if (check_ok(L, "ecb_encrypt in place", nb, aesgen_ecb_encrypt(ctx, out3, out3, len))) {
        PUBLIC(out, len);
        check_equal(L, "ECB in place != out of place", nb, out3, out, len);
    }
    PUBLIC(out, len);
    memcpy(b->truth2, out, len); /* public ECB ciphertext of truth */

    /* every block alone equals the batched result (largest count only) */
    if (nb == 2 * (t->batch ? t->batch : 1) + 1) {
        for (i = 0; i < nb; ++i) {
            secret_copy(in, b->truth + i * BLK, BLK);
            if (!check_ok(L, "ecb_encrypt single", nb, aesgen_ecb_encrypt(ctx, out3, in, BLK)) ||
                !check_equal(L, "ECB single block != batched", nb, out3, b->truth2 + i * BLK, BLK)) {
                break;
            }
        }
    }

    /* --- CBC: c[i] = E(p[i] ^ c[i-1]), checked through ECB --- */
    fill_random(iv0, 16);
    secret_copy(iv, iv0, 16);
    secret_copy(in, b->truth, len);
    if (check_ok(L, "cbc_encrypt", nb, aesgen_cbc_encrypt(ctx, iv, out, in, len))) {
        PUBLIC(out, len);
        PUBLIC(iv, 16);
        check_equal(L, "CBC encrypt: IV not updated to the last ciphertext block", nb,
                    iv, out + len - BLK, 16);
        for (i = 0; i < nb; ++i) {
            xor_bytes(b->truth2 + i * BLK, b->truth + i * BLK, i ? out + (i - 1) * BLK : iv0, BLK);
        }
        secret_copy(in, b->truth2, len);
        if (check_ok(L, "ecb_encrypt (CBC check)", nb, aesgen_ecb_encrypt(ctx, out2, in, len))) {
            check_equal(L, "CBC ciphertext != E(p ^ previous)", nb, out2, out, len);
        }
        /* independent messages: the whole one, its first half, an empty one; all secret */
        {
            uint8_t ivs[3][16];
            const size_t half = BLK * (nb / 2);
            for (i = 0; i < 3; ++i) {
                secret_copy(ivs[i], iv0, 16);
            }
            secret_copy(in, b->truth, len);
            aesgen_cbc_msg m[3] = {{ivs[0], out2, in, len}, {ivs[1], out3, in, half}, {ivs[2], NULL, NULL, 0}};
            if (check_ok(L, "cbc_encrypt_streams", nb, aesgen_cbc_encrypt_streams(ctx, m, 3))) {
                PUBLIC(out2, len);
                PUBLIC(out3, half);
                check_equal(L, "CBC streams: whole message != aesgen_cbc_encrypt", nb, out2, out, len);
                check_equal(L, "CBC streams: first half != aesgen_cbc_encrypt's", nb, out3, out, half);
            }
        }
        if (have_dec) {
            secret_copy(iv, iv0, 16);
            secret_copy(in, out, len);
            if (check_ok(L, "cbc_decrypt (round trip)", nb, aesgen_cbc_decrypt(ctx, iv, out2, in, len))) {
                check_equal(L, "CBC decrypt(encrypt(x)) != x", nb, out2, b->truth, len);
            }
        }
    }

    /* --- CTR --- counter chosen so that the low 32 bits carry inside the run */
    fill_random(ctr0, 16);
    ctr0[12] = 0xff;
    ctr0[13] = 0xff;
    ctr0[14] = 0xff;
    ctr0[15] = (uint8_t)(0xff - (nb / 2));
    /* one call over all blocks */
    secret_copy(ctrblk, ctr0, 16);
    if (!check_ok(L, "ctr_init", nb, aesgen_ctr_init(&s, ctrblk))) {
        return;
    }
    secret_copy(in, b->truth, len);
    if (!check_ok(L, "ctr_crypt", nb, aesgen_ctr_crypt(ctx, &s, out, in, len))) {
        return;
    }
    PUBLIC(out, len);
    PUBLIC(s.counter, 16);
    memcpy(ctrblk, ctr0, 16);
    for (i = 0; i < nb; ++i) {
        ts_ctr_add(ctrblk, 1);
    }
    check_equal(L, "CTR: counter not advanced by the block count", nb, s.counter, ctrblk, 16);
    aesgen_ctr_wipe(&s);

    /* keystream == ECB of the counter blocks */
    memcpy(ctrblk, ctr0, 16);
    for (i = 0; i < nb; ++i) {
        memcpy(b->truth2 + i * BLK, ctrblk, 16);
        ts_ctr_add(ctrblk, 1);
    }
    secret_copy(in, b->truth2, len);
    if (check_ok(L, "ecb_encrypt (CTR check)", nb, aesgen_ecb_encrypt(ctx, out2, in, len))) {
        PUBLIC(out2, len);
        xor_bytes(out2, out2, b->truth, len);
        check_equal(L, "CTR output != plaintext ^ E(counter)", nb, out, out2, len);
    }

    /* the same stream in pieces that start and end inside blocks */
    {
        size_t c1 = len < 5 ? len : 5;
        size_t c2 = (len - c1) / 2 + 3 > len - c1 ? len - c1 : (len - c1) / 2 + 3;
        size_t c3 = len - c1 - c2;
        int ok;
        secret_copy(ctrblk, ctr0, 16);
        ok = check_ok(L, "ctr_init", nb, aesgen_ctr_init(&s, ctrblk));
        secret_copy(in, b->truth, len);
        ok = ok && check_ok(L, "ctr_crypt piece 1", nb, aesgen_ctr_crypt(ctx, &s, out2, in, c1));
        ok = ok && check_ok(L, "ctr_crypt piece 2", nb,
                            aesgen_ctr_crypt(ctx, &s, out2 + c1, in + c1, c2));
        ok = ok && check_ok(L, "ctr_crypt piece 3", nb,
                            aesgen_ctr_crypt(ctx, &s, out2 + c1 + c2, in + c1 + c2, c3));
        if (ok) {
            check_equal(L, "CTR in pieces != CTR in one call", nb, out2, out, len);
        }
        aesgen_ctr_wipe(&s);
    }

    /* one call ending in a partial block, in place, then decrypting it back */
    {
        size_t plen = len - 7;
        secret_copy(ctrblk, ctr0, 16);
        if (check_ok(L, "ctr_init", nb, aesgen_ctr_init(&s, ctrblk))) {
            secret_copy(out3, b->truth, plen);
            if (check_ok(L, "ctr_crypt partial in place", nb,
                         aesgen_ctr_crypt(ctx, &s, out3, out3, plen))) {
                aesgen_ctr_wipe(&s);
                secret_copy(ctrblk, ctr0, 16);
                if (check_ok(L, "ctr_init", nb, aesgen_ctr_init(&s, ctrblk)) &&
                    check_ok(L, "ctr_crypt partial (decrypt)", nb,
                             aesgen_ctr_crypt(ctx, &s, out2, out3, plen))) {
                    check_equal(L, "CTR partial: decrypt(encrypt(x)) != x", nb, out2, b->truth, plen);
                }
                check_equal(L, "CTR partial != prefix of the full stream", nb, out3, out, plen);
            }
        }
        aesgen_ctr_wipe(&s);
    }
}

/* Decryption direction: ECB, CBC. */
static void suite_decrypt(const ct_target *t, const aesgen_ctx *ctx, bufs *b, size_t nb,
                          int have_enc)
{
    const char *L = t->label;
    size_t len = nb * BLK, i;
    uint8_t *in = b->in + ((nb + 3) % 4);
    uint8_t *out = b->out + (nb % 4);
    uint8_t *out2 = b->out2 + ((nb + 1) % 4);
    uint8_t *out3 = b->out3;
    uint8_t iv0[16], iv[16];

    /* --- ECB --- */
    fill_random(b->truth, len); /* the ciphertext */
    secret_copy(in, b->truth, len);
    if (!check_ok(L, "ecb_decrypt", nb, aesgen_ecb_decrypt(ctx, out, in, len))) {
        return;
    }
    if (have_enc) {
        if (check_ok(L, "ecb_encrypt (round trip)", nb, aesgen_ecb_encrypt(ctx, out2, out, len))) {
            check_equal(L, "ECB encrypt(decrypt(y)) != y", nb, out2, b->truth, len);
        }
    }
    secret_copy(out3, b->truth, len);
    if (check_ok(L, "ecb_decrypt in place", nb, aesgen_ecb_decrypt(ctx, out3, out3, len))) {
        PUBLIC(out, len);
        check_equal(L, "ECB decrypt in place != out of place", nb, out3, out, len);
    }
    PUBLIC(out, len);
    memcpy(b->truth2, out, len); /* public D(ciphertext) */

    if (nb == 2 * (t->batch ? t->batch : 1) + 1) {
        for (i = 0; i < nb; ++i) {
            secret_copy(in, b->truth + i * BLK, BLK);
            if (!check_ok(L, "ecb_decrypt single", nb, aesgen_ecb_decrypt(ctx, out3, in, BLK)) ||
                !check_equal(L, "ECB decrypt single block != batched", nb, out3,
                             b->truth2 + i * BLK, BLK)) {
                break;
            }
        }
    }

    /* --- CBC: p[i] = D(c[i]) ^ c[i-1] --- */
    fill_random(iv0, 16);
    secret_copy(iv, iv0, 16);
    secret_copy(in, b->truth, len);
    if (check_ok(L, "cbc_decrypt", nb, aesgen_cbc_decrypt(ctx, iv, out2, in, len))) {
        PUBLIC(iv, 16);
        check_equal(L, "CBC decrypt: IV not updated to the last ciphertext block", nb,
                    iv, b->truth + len - BLK, 16);
        for (i = 0; i < nb; ++i) {
            xor_bytes(b->truth2 + i * BLK, b->truth2 + i * BLK,
                      i ? b->truth + (i - 1) * BLK : iv0, BLK);
        }
        check_equal(L, "CBC plaintext != D(c) ^ previous", nb, out2, b->truth2, len);
    }
    /* in place */
    secret_copy(iv, iv0, 16);
    secret_copy(out3, b->truth, len);
    if (check_ok(L, "cbc_decrypt in place", nb, aesgen_cbc_decrypt(ctx, iv, out3, out3, len))) {
        check_equal(L, "CBC decrypt in place != out of place", nb, out3, b->truth2, len);
    }
}

/* Runs the whole suite for one target; returns the new memcheck errors. */
static unsigned long run_target(const ct_target *t)
{
    aesgen_ctx ctx;
    uint8_t key[32];
    uint8_t blk[16], res[16];
    size_t counts[32], ncounts, i;
    const uint8_t *kat_ct = ts_fips197_ct[t->key_bits == 128 ? 0 : t->key_bits == 192 ? 1 : 2];
    unsigned long errors_before = memcheck_errors();
    unsigned long failures_before = ts_failures;
    int have_enc, have_dec;
    bufs b;

    printf("%s\n", t->label);
    g_target_failures = 0;

    /* 1. FIPS-197 known answer, key and data secret */
    for (i = 0; i < 32; ++i) {
        key[i] = (uint8_t)i;
    }
    if (!setup_ctx(t, &ctx, key)) {
        goto done;
    }
    /* aesgen_ctx_variant answers NULL for a direction the context cannot do */
    have_enc = aesgen_ctx_variant(&ctx, AESGEN_ENCRYPT) != NULL;
    have_dec = aesgen_ctx_variant(&ctx, AESGEN_DECRYPT) != NULL;
    if ((t->test_enc && !have_enc) || (t->test_dec && !have_dec)) {
        fail(t->label, "context lacks the direction under test", NULL, 0);
        aesgen_wipe(&ctx);
        goto done;
    }
    if (t->test_enc || have_enc) {
        secret_copy(blk, ts_fips197_pt, 16);
        if (check_ok(t->label, "ecb_encrypt (FIPS-197)", 1, aesgen_ecb_encrypt(&ctx, res, blk, 16))) {
            check_equal(t->label, "FIPS-197 known answer (encrypt)", 1, res, kat_ct, 16);
        }
    }
    if (t->test_dec || have_dec) {
        secret_copy(blk, kat_ct, 16);
        if (check_ok(t->label, "ecb_decrypt (FIPS-197)", 1, aesgen_ecb_decrypt(&ctx, res, blk, 16))) {
            check_equal(t->label, "FIPS-197 known answer (decrypt)", 1, res, ts_fips197_pt, 16);
        }
    }
    aesgen_wipe(&ctx);

    /* 2. a random secret key, every block count up to 2*batch+1 */
    fill_random(key, sizeof key);
    if (!setup_ctx(t, &ctx, key)) {
        goto done;
    }
    ncounts = block_counts(t->batch, counts, sizeof counts / sizeof counts[0]);
    if (!bufs_alloc(&b, counts[ncounts - 1] * BLK)) {
        bufs_free(&b);
        fail(t->label, "out of memory", NULL, 0);
        aesgen_wipe(&ctx);
        goto done;
    }
    for (i = 0; i < ncounts; ++i) {
        if (t->test_enc) {
            suite_encrypt(t, &ctx, &b, counts[i], have_dec);
        }
        if (t->test_dec) {
            suite_decrypt(t, &ctx, &b, counts[i], have_enc);
        }
    }
    bufs_free(&b);
    aesgen_wipe(&ctx);
    if (g_verbose) {
        printf("  block counts 1..%zu (%zu counts)\n", counts[ncounts - 1], ncounts);
    }

done:
    {
        unsigned long errs = memcheck_errors() - errors_before;
        if (errs != 0) {
            printf("  LEAK? memcheck reported %lu error(s) while testing this (see above)\n", errs);
        } else if (ts_failures == failures_before) {
            printf("  ok\n");
        }
        fflush(stdout);
        return errs;
    }
}

/* ------------------------------------------------------------------------ */
/* Default mode                                                             */
/* ------------------------------------------------------------------------ */

int run_library_tests(int under_memcheck)
{
    size_t i, ntargets = 0, nbackends = 0, nvariants = 0, nghash = 0;
    unsigned long leaky_targets = 0;
    unsigned covered[3][2] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
    int k, d;

    printf("%s: library %s, %zu registered variant(s)\n", g_prog, aesgen_version_string(),
           (size_t)aesgen_registry_size);

    /* 1. every portable variant, through aesgen_init_variants */
    for (i = 0; i < aesgen_registry_size; ++i) {
        const aesgen_variant *v = aesgen_registry[i];
        const aesgen_variant *partner;
        ct_target t;
        int kidx;

        if (!is_software(v)) {
            continue;
        }
        kidx = v->key_bits == 128 ? 0 : v->key_bits == 192 ? 1 : v->key_bits == 256 ? 2 : -1;
        if (kidx < 0 || v->direction > 1) {
            ts_fail("variant %s has key_bits %u, direction %u", v->name,
                    (unsigned)v->key_bits, (unsigned)v->direction);
            continue;
        }
        ++nvariants;
        covered[kidx][v->direction] += 1;
        if (!name_matches(v->name)) {
            continue;
        }
        if (!aesgen_variant_usable(v)) {
            ts_fail("portable variant %s reported unusable on this CPU", v->name);
            continue;
        }
        partner = software_partner(v);
        memset(&t, 0, sizeof t);
        t.key_bits = v->key_bits;
        t.batch = v->batch_blocks;
        if (partner != NULL && partner->batch_blocks > t.batch) {
            t.batch = partner->batch_blocks;
        }
        if (v->direction == AESGEN_ENCRYPT) {
            t.enc = v;
            t.dec = partner;
            t.test_enc = 1;
        } else {
            t.enc = partner;
            t.dec = v;
            t.test_dec = 1;
        }
        snprintf(t.label, sizeof t.label, "variant %s (batch %u, other direction: %s)", v->name,
                 (unsigned)v->batch_blocks, partner ? partner->name : "dispatch");
        leaky_targets += run_target(&t) != 0;
        ++ntargets;
    }

    /* 2. every portable backend, through the public API */
    for (i = 0; i < aesgen_backend_count(); ++i) {
        const char *name = aesgen_backend_name(i);
        unsigned key_bits;

        size_t j;
        int seen = 0;

        if (name == NULL || !backend_is_software(name)) {
            continue;
        }
        for (j = 0; j < i && !seen; ++j) {
            const char *earlier = aesgen_backend_name(j);
            seen = earlier != NULL && strcmp(earlier, name) == 0;
        }
        if (seen) {
            /* not a constant-time matter, but do not test it twice */
            printf("note: aesgen_backend_name(%zu) repeats backend %s\n", i, name);
            continue;
        }
        ++nbackends;
        if (!name_matches(name)) {
            continue;
        }
        if (aesgen_backend_supported(name) != 1) {
            ts_fail("portable backend %s reported unsupported on this CPU", name);
            continue;
        }
        for (key_bits = 128; key_bits <= 256; key_bits += 64) {
            ct_target t;
            int dirs = 0;
            memset(&t, 0, sizeof t);
            t.key_bits = key_bits;
            t.backend = name;
            t.test_enc = 1;
            t.test_dec = 1;
            for (j = 0; j < aesgen_registry_size; ++j) {
                const aesgen_variant *w = aesgen_registry[j];
                if (w == NULL || w->backend == NULL || strcmp(w->backend, name) != 0 ||
                    w->key_bits != key_bits || w->direction > 1) {
                    continue;
                }
                dirs |= 1 << w->direction;
                if (w->batch_blocks > t.batch) {
                    t.batch = w->batch_blocks;
                }
            }
            if (dirs != 3) {
                /* its variants were tested one by one above */
                printf("backend %s, AES-%u: %s, public-API run skipped\n", name, key_bits,
                       dirs == 0 ? "no variant" : (dirs & 1) ? "no decryption variant"
                                                            : "no encryption variant");
                continue;
            }
            snprintf(t.label, sizeof t.label, "backend %s, AES-%u, public API (aesgen_init)",
                     name, key_bits);
            leaky_targets += run_target(&t) != 0;
            ++ntargets;
        }
    }
    aesgen_force_backend(NULL);

    /* 3. GCM: every GHASH variant this CPU runs */
    {
        size_t gcm_targets = 0;
        leaky_targets += run_gcm_tests(&gcm_targets, &nghash);
        ntargets += gcm_targets;
    }

    /* 4. XTS: each software backend */
    {
        size_t xts_targets = 0;
        leaky_targets += run_xts_tests(&xts_targets);
        ntargets += xts_targets;
    }

    /* the run must not be vacuous */
    for (k = 0; k < 3; ++k) {
        for (d = 0; d < 2; ++d) {
            if (covered[k][d] == 0) {
                ts_fail("no portable variant for AES-%d %s in the registry", 128 + 64 * k,
                        d ? "decryption" : "encryption");
            }
        }
    }
    if (nbackends == 0) {
        ts_fail("no portable backend found");
    }
    if (ntargets == 0) {
        ts_fail("nothing tested (--only %s)", g_only ? g_only : "not given");
    }

    printf("%s: %zu portable variant(s), %zu portable backend(s), %zu GHASH variant(s), "
           "%zu target(s), %lu library call(s) checked\n",
           g_prog, nvariants, nbackends, nghash, ntargets, g_library_calls);
    printf("%s: %lu functional failure(s)", g_prog, ts_failures);
    if (under_memcheck) {
        printf(", %lu memcheck error(s) in %lu target(s)", memcheck_errors(), leaky_targets);
    }
    printf("\n");
    if (ts_failures != 0) {
        printf("%s: FAIL\n", g_prog);
        return CT_EXIT_FAIL;
    }
    if (memcheck_errors() != 0) {
        printf("%s: memcheck reported secret-dependent branches or addresses: FAIL\n", g_prog);
        return CT_EXIT_FAIL; /* valgrind turns this into --error-exitcode anyway */
    }
    if (!under_memcheck) {
        printf("%s: (--allow-native) functional checks passed; constant time NOT checked\n",
               g_prog);
        return CT_EXIT_DONE;
    }
    printf("%s: PASS (no secret-dependent branch or memory address seen by memcheck)\n", g_prog);
    return CT_EXIT_DONE;
}
