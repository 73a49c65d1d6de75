/*
 * aesgen_crosscheck -- every variant this CPU can run against the portable
 * reference of the same key size and direction, and every backend through the
 * public API against the portable backend. It needs nothing but the library,
 * so it runs on every target, under qemu-user as well as natively.
 *
 *   aesgen_crosscheck [--variant NAME] [--backend NAME] [--seed N]
 *
 * The reference for a key size and direction is the variant dispatch would
 * pick among the feature-free (portable) ones: the fixsliced variant on the
 * native word. Its FIPS-197 appendix C answers are checked first, so that a
 * broken reference cannot make everything agree.
 *
 * Variants, through their descriptor's functions (round keys in 64-byte
 * aligned buffers of AESGEN_MAX_SCHEDULE_BYTES; setkey must not write beyond
 * schedule_bytes):
 *   - ECB, CBC, (encryption) CTR and (where the variant has a loop for it) XTS
 *     over every block count 0..2*batch+1 and some larger ones, out of place
 *     at input/output offsets 0..15 and in place; bytes around the output, and
 *     the input of an out-of-place call, must be untouched; the CBC IV, CTR
 *     counter and XTS tweak must come back advanced (the XTS reference: the
 *     reference variant's ECB whitened block by block);
 *   - CBC, CTR and XTS split into two calls at every block of the small counts;
 *   - CTR counters whose 32-bit, 64-bit and 128-bit carries fall on every
 *     block of the call;
 *   - decryption variants must also invert the reference encryption (XTS too).
 * The public API (aesgen_force_backend + aesgen_init), for every backend this
 * CPU runs and for automatic dispatch, against the reference backend: ECB,
 * CBC split across calls, CTR at odd byte lengths split across calls at odd
 * points, in place and misaligned. Also printed: what dispatch picks; a
 * feature-free pick must be the reference (the native word: portable32 on
 * 32-bit CPUs).
 *
 * Exit status: 0 all equal, 1 a mismatch (each printed with its case),
 * 2 bad usage, 77 the named variant or backend cannot run here.
 */
#include "aesgen.h"
#include "aesgen_internal.h"
#include "ts_modes.h"
#include "ts_report.h"
#include "ts_rng.h"
#include "ts_variant.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_PASS 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_SKIP 77

#define MAX_BLOCKS 4099  /* largest block count of a case */
#define GUARD 64         /* checked bytes on each side of every buffer */
#define RK_FILL 0xA5     /* round-key buffer contents before setkey */

/* Randomness: splitmix64, bytes least significant first (ts_rng.h). Reporting:
 * subjects and cases, the first TS_MAX_SHOWN mismatches of a subject printed
 * (ts_report.h). */

static ts_rng rng;

/* ---------------------------------------------------------------- buffers */

/* A region: GUARD bytes, up to 15 bytes of offset, the data, GUARD bytes.
 * Outside the data it holds a position-dependent pattern that must survive
 * (ts_region_fill, ts_region_changed). */
#define REGION_BYTES (GUARD + 16 + 16 * (size_t)MAX_BLOCKS + GUARD)

static uint8_t *region_in, *region_out, *src, *expected, *scratch;

/* Checks the pattern of r[0..used) outside [lo, hi). */
static int region_intact(const char *cs, const char *which, const uint8_t *r, size_t lo, size_t hi,
                         size_t used)
{
    const size_t i = ts_region_changed(r, lo, hi, used);
    if (i == used)
        return 1;
    ts_mismatch(cs, "%s: the byte at data%+ld (data: %lu bytes) was overwritten", which,
                (long)i - (long)lo, (unsigned long)(hi - lo));
    return 0;
}

static uint8_t *aligned_alloc64(size_t n)
{
    return ts_alloc64(n, "aesgen_crosscheck");
}

/* ---------------------------------------------------- the reference choice */

/* The reference for a key size and direction: ts_reference_variant, the
 * feature-free variant dispatch prefers (lowest rank, the native word first). */

static const char *dir_name(int direction)
{
    return direction == 0 ? "enc" : "dec";
}

/* FIPS-197 appendix C: key 00 01 02 .., plaintext 00 11 22 .. ff. */
static int check_reference(const aesgen_variant *ref)
{
    uint8_t *rk = aligned_alloc64(AESGEN_MAX_SCHEDULE_BYTES);
    const uint8_t *key = ts_fips197_key, *pt = ts_fips197_pt;
    const uint8_t *ct = ts_fips197_ct[(ref->key_bits - 128) / 64];
    uint8_t in[16], out[16];
    ts_subject_begin("reference %s (FIPS-197 C.%u)", ref->name, (ref->key_bits - 128) / 64 + 1);
    ts_case_begin();
    ref->setkey(rk, key);
    memcpy(in, ref->direction == 0 ? pt : ct, 16);
    aesgen_variant_ecb(ref, rk, out, in, 1);
    ts_same("one block", "output", ref->direction == 0 ? ct : pt, out, 16);
    ts_case_end();
    free(rk);
    return ts_subject_end("");
}

/* ------------------------------------------------------ variant against ref */

enum { ECB = TS_VARIANT_ECB, CBC = TS_VARIANT_CBC, CTR = TS_VARIANT_CTR, XTS = TS_VARIANT_XTS };
static const char *const mode_name[] = {"ECB", "CBC", "CTR", "XTS"};
static const char *const chain_name[] = {"", "iv", "counter", "tweak"};

typedef struct vt {
    const aesgen_variant *v, *ref, *enc_ref; /* enc_ref: decryption variants only */
    uint8_t *rk_v, *rk_r, *rk_e;
    unsigned key_index;
} vt;

/* One case: the variant over n blocks of random data (in place, or from
 * in_off to out_off), in one call or two (split = blocks of the first),
 * against the reference in one aligned out-of-place call. */
static void variant_case(const vt *t, int mode, size_t n, size_t in_off, size_t out_off, int in_place,
                         size_t split, const uint8_t iv0[16], const char *note)
{
    const size_t len = 16 * n;
    const size_t used_in = GUARD + in_off + len + GUARD, used_out = GUARD + out_off + len + GUARD;
    uint8_t iv_ref[16], iv_var[16];
    char cs[256];
    int at = snprintf(cs, sizeof cs, "%s key#%u, %lu blocks, ", mode_name[mode], t->key_index,
                      (unsigned long)n);
    if (in_place)
        at += snprintf(cs + at, sizeof cs - (size_t)at, "in place at +%lu", (unsigned long)in_off);
    else
        at += snprintf(cs + at, sizeof cs - (size_t)at, "in +%lu out +%lu", (unsigned long)in_off,
                       (unsigned long)out_off);
    if (split)
        at += snprintf(cs + at, sizeof cs - (size_t)at, ", two calls %lu+%lu", (unsigned long)split,
                       (unsigned long)(n - split));
    if (mode != ECB) {
        at += snprintf(cs + at, sizeof cs - (size_t)at, ", %s ", chain_name[mode]);
        for (unsigned i = 0; i < 16 && at < (int)sizeof cs - 3; i++)
            at += snprintf(cs + at, sizeof cs - (size_t)at, "%02x", iv0[i]);
    }
    if (note[0])
        snprintf(cs + at, sizeof cs - (size_t)at, " (%s)", note);

    ts_case_begin();
    ts_rng_bytes(&rng, src, len);
    memcpy(iv_ref, iv0, 16);
    ts_variant_run(t->ref, t->rk_r, mode, expected, src, n, iv_ref);

    ts_region_fill(region_in, used_in);
    uint8_t *in = region_in + GUARD + in_off, *out;
    memcpy(in, src, len);
    if (in_place) {
        out = in;
    } else {
        ts_region_fill(region_out, used_out);
        out = region_out + GUARD + out_off;
    }
    memcpy(iv_var, iv0, 16);
    if (split) {
        ts_variant_run(t->v, t->rk_v, mode, out, in, split, iv_var);
        ts_variant_run(t->v, t->rk_v, mode, out + 16 * split, in + 16 * split, n - split, iv_var);
    } else {
        ts_variant_run(t->v, t->rk_v, mode, out, in, n, iv_var);
    }

    ts_same(cs, "output", expected, out, len);
    static const char *const after[] = {"", "IV after the call", "counter after the call",
                                        "tweak after the call"};
    if (mode != ECB)
        ts_same(cs, after[mode], iv_ref, iv_var, 16);
    if (in_place) {
        region_intact(cs, "buffer", region_in, GUARD + in_off, GUARD + in_off + len, used_in);
    } else {
        region_intact(cs, "output buffer", region_out, GUARD + out_off, GUARD + out_off + len,
                      used_out);
        region_intact(cs, "input buffer", region_in, GUARD + in_off, GUARD + in_off + len, used_in);
        ts_same(cs, "input (must be unchanged)", src, in, len);
    }
    ts_case_end();
}

/* A decryption variant must invert the reference encryption. */
static void roundtrip_case(const vt *t, int mode, size_t n)
{
    const size_t len = 16 * n;
    uint8_t iv0[16], iv[16];
    char cs[96];
    snprintf(cs, sizeof cs, "%s key#%u, %lu blocks, decrypting the reference encryption",
             mode_name[mode], t->key_index, (unsigned long)n);
    ts_case_begin();
    ts_rng_bytes(&rng, src, len);
    ts_rng_bytes(&rng, iv0, 16);
    memcpy(iv, iv0, 16);
    ts_variant_run(t->enc_ref, t->rk_e, mode, scratch, src, n, iv);
    memcpy(iv, iv0, 16);
    ts_variant_run(t->v, t->rk_v, mode, expected, scratch, n, iv);
    ts_same(cs, "plaintext", src, expected, len);
    ts_case_end();
}

/* Counter whose carry out of the low `bits` bits (32, 64; 128 = the whole
 * counter wraps to 0) happens after `after` blocks. */
static void carry_counter(uint8_t c[16], unsigned bits, size_t after)
{
    ts_rng_bytes(&rng, c, 16);
    const unsigned low_bytes = bits == 128 ? 8 : bits / 8;
    if (bits == 128)
        memset(c, 0xff, 8);
    /* low_bytes big-endian bytes = 2^(8*low_bytes) - after */
    uint64_t v = (uint64_t)0 - (uint64_t)after;
    for (unsigned i = 0; i < low_bytes; i++)
        c[15 - i] = (uint8_t)(v >> (8 * i));
}

static const struct {
    size_t in_off, out_off;
    int in_place;
} placements[] = {
    {0, 0, 0}, {0, 0, 1}, {1, 7, 0}, {15, 3, 0}, {8, 8, 0}, {5, 5, 1}, {13, 0, 0},
};
#define N_PLACEMENTS (sizeof placements / sizeof placements[0])

static int check_variant(const aesgen_variant *v)
{
    const aesgen_variant *ref = ts_reference_variant(v->key_bits, v->direction);
    const size_t b = v->batch_blocks ? v->batch_blocks : 1;
    const size_t small_max = 2 * b + 1;
    const size_t large[] = {4 * b + 1, 8 * b + 3, 127, 256, 1031, MAX_BLOCKS};
    const size_t n_large = sizeof large / sizeof large[0];
    static const unsigned carry_bits[] = {32, 64, 128};
    vt t;
    uint8_t key[32], iv[16];

    ts_subject_begin("%s vs %s", v->name, ref->name);
    /* What the descriptor promises. */
    ts_case_begin();
    if (v->schedule_bytes > AESGEN_MAX_SCHEDULE_BYTES)
        ts_mismatch("descriptor", "schedule_bytes %lu > AESGEN_MAX_SCHEDULE_BYTES",
                    (unsigned long)v->schedule_bytes);
    if (v->batch_blocks == 0)
        ts_mismatch("descriptor", "batch_blocks is 0");
    if ((v->direction == 0) != (v->ctr != NULL))
        ts_mismatch("descriptor", "ctr must be set exactly for encryption variants");
    if (v->setkey == NULL || v->ecb == NULL || v->cbc == NULL)
        ts_mismatch("descriptor", "setkey, ecb and cbc must be set");
    ts_case_end();
    if (ts_subject.failed)
        return ts_subject_end("descriptor broken");

    t.v = v;
    t.ref = ref;
    t.enc_ref = v->direction == 1 ? ts_reference_variant(v->key_bits, 0) : NULL;
    t.rk_v = aligned_alloc64(AESGEN_MAX_SCHEDULE_BYTES);
    t.rk_r = aligned_alloc64(AESGEN_MAX_SCHEDULE_BYTES);
    t.rk_e = aligned_alloc64(AESGEN_MAX_SCHEDULE_BYTES);
    /* ECB, CBC, CTR (encryption), XTS (where the variant has a loop for it) */
    const int modes = v->xts != NULL ? 4 : v->direction == 0 ? 3 : 2;

    for (unsigned k = 0; k < 3; k++) {
        t.key_index = k;
        if (k == 0)
            for (unsigned i = 0; i < 32; i++)
                key[i] = (uint8_t)i; /* the FIPS-197 key */
        else if (k == 1)
            memset(key, 0xff, sizeof key);
        else
            ts_rng_bytes(&rng, key, sizeof key);

        memset(t.rk_v, RK_FILL, AESGEN_MAX_SCHEDULE_BYTES);
        v->setkey(t.rk_v, key);
        ts_case_begin();
        for (size_t i = v->schedule_bytes; i < AESGEN_MAX_SCHEDULE_BYTES; i++)
            if (t.rk_v[i] != RK_FILL) {
                ts_mismatch("setkey", "wrote byte %lu of the round-key buffer, beyond schedule_bytes %lu",
                            (unsigned long)i, (unsigned long)v->schedule_bytes);
                break;
            }
        ts_case_end();
        ref->setkey(t.rk_r, key);
        if (t.enc_ref)
            t.enc_ref->setkey(t.rk_e, key);

        /* Every count 0..2*batch+1 in every placement (key 0; the other keys
         * in two placements), then the larger counts in three. */
        for (size_t n = 0; n <= small_max + n_large; n++) {
            const size_t count = n <= small_max ? n : large[n - small_max - 1];
            if (n > small_max && count <= small_max)
                continue;
            for (size_t p = 0; p < N_PLACEMENTS; p++) {
                if ((k > 0 || n > small_max) && p != 0 && p != 2 && p != 5)
                    continue;
                if (count == MAX_BLOCKS && p != 2)
                    continue;
                for (int m = 0; m < modes; m++) {
                    if (m == CTR && v->direction != 0)
                        continue;
                    ts_rng_bytes(&rng, iv, 16);
                    variant_case(&t, m, count, placements[p].in_off, placements[p].out_off,
                                 placements[p].in_place, 0, iv, "");
                }
            }
            if (t.enc_ref) {
                roundtrip_case(&t, ECB, count);
                roundtrip_case(&t, CBC, count);
                if (v->xts)
                    roundtrip_case(&t, XTS, count);
            }
        }

        /* Two calls, split at every block of the small counts. */
        for (size_t n = 2; n <= small_max; n++)
            for (size_t s = 1; s < n; s++)
                for (int m = CBC; m < modes; m++) {
                    if (m == CTR && v->direction != 0)
                        continue;
                    ts_rng_bytes(&rng, iv, 16);
                    variant_case(&t, m, n, 3, 9, 0, s, iv, "");
                    if (k == 0) {
                        ts_rng_bytes(&rng, iv, 16);
                        variant_case(&t, m, n, 7, 7, 1, s, iv, "");
                    }
                }

        /* CTR carries on every block of the call. */
        if (v->direction == 0 && k != 1) {
            for (size_t n = 1; n <= small_max + 2; n++) {
                const size_t count = n <= small_max ? n : n == small_max + 1 ? 4 * b + 1 : 8 * b + 3;
                for (unsigned c = 0; c < 3; c++)
                    for (size_t after = 1; after <= count; after++) {
                        if (count > small_max && after > b + 1 && after != count &&
                            after != count / 2)
                            continue;
                        char note[40];
                        snprintf(note, sizeof note, "%u-bit carry after block %lu", carry_bits[c],
                                 (unsigned long)after);
                        carry_counter(iv, carry_bits[c], after);
                        variant_case(&t, CTR, count, 1, 2, 0, 0, iv, note);
                        if (count > 2 && after < count) {
                            carry_counter(iv, carry_bits[c], after);
                            variant_case(&t, CTR, count, 0, 0, 1, after, iv, note);
                        }
                    }
            }
        }
    }
    free(t.rk_v);
    free(t.rk_r);
    free(t.rk_e);

    char what[160];
    snprintf(what, sizeof what, "%s%s%s, 0..%lu blocks and up to %d, offsets, in place, splits%s%s",
             v->direction == 0 ? "ECB CBC CTR" : "ECB CBC", v->xts ? " XTS" : "",
             v == ref ? " (itself in one aligned call)" : "", (unsigned long)small_max, MAX_BLOCKS,
             v->direction == 0 ? ", counter carries" : "", t.enc_ref ? ", inverts encryption" : "");
    return ts_subject_end(what);
}

/* ------------------------------------------------------------- public API */

static aesgen_ctx ctx_test, ctx_ref;

static int api_status(const char *cs, const char *call, int st)
{
    if (st == AESGEN_OK)
        return 1;
    ts_mismatch(cs, "%s returned %d (%s)", call, st, aesgen_status_string(st));
    return 0;
}

/* Sets up ctx_test on `backend` (NULL: automatic) and ctx_ref on `refb`. */
static int api_setup(const char *backend, const char *refb, const uint8_t *key, size_t key_len,
                     const char *cs)
{
    int ok = api_status(cs, "aesgen_force_backend", aesgen_force_backend(backend)) &&
             api_status(cs, "aesgen_init", aesgen_init(&ctx_test, key, key_len)) &&
             api_status(cs, "aesgen_force_backend (reference)", aesgen_force_backend(refb)) &&
             api_status(cs, "aesgen_init (reference)", aesgen_init(&ctx_ref, key, key_len));
    aesgen_force_backend(NULL);
    if (!ok || backend == NULL)
        return ok;
    for (int d = 0; d < 2; d++) {
        const char *name = aesgen_ctx_variant(&ctx_test, (aesgen_direction)d);
        const aesgen_variant *v = aesgen_find_variant(name);
        if (v == NULL || strcmp(v->backend, backend) != 0) {
            ts_mismatch(cs, "the context's %s variant is %s, not one of backend %s", dir_name(d),
                        name ? name : "(none)", backend);
            ok = 0;
        }
    }
    return ok;
}

static int api_blocks(const aesgen_ctx *ctx, int mode, int dir, uint8_t iv[16], uint8_t *out,
                      const uint8_t *in, size_t len)
{
    if (mode == ECB)
        return dir == 0 ? aesgen_ecb_encrypt(ctx, out, in, len) : aesgen_ecb_decrypt(ctx, out, in, len);
    return dir == 0 ? aesgen_cbc_encrypt(ctx, iv, out, in, len) : aesgen_cbc_decrypt(ctx, iv, out, in, len);
}

/* ECB or CBC of n blocks through the API, in pieces of whole blocks. */
static void api_block_case(const char *kcs, int mode, int dir, size_t n, size_t in_off,
                           size_t out_off, int in_place, int pieces)
{
    const size_t len = 16 * n;
    uint8_t iv0[16], iv_ref[16], iv_test[16];
    char cs[200];
    snprintf(cs, sizeof cs, "%s, %s %s, %lu blocks, %s +%lu/+%lu, %d call%s", kcs, mode_name[mode],
             dir_name(dir), (unsigned long)n, in_place ? "in place" : "in/out", (unsigned long)in_off,
             (unsigned long)out_off, pieces, pieces == 1 ? "" : "s (split at random blocks)");
    ts_case_begin();
    ts_rng_bytes(&rng, src, len);
    ts_rng_bytes(&rng, iv0, 16);
    memcpy(iv_ref, iv0, 16);
    memcpy(iv_test, iv0, 16);
    if (!api_status(cs, "reference call", api_blocks(&ctx_ref, mode, dir, iv_ref, expected, src, len))) {
        ts_case_end();
        return;
    }
    uint8_t *in = region_in + GUARD + in_off;
    uint8_t *out = in_place ? in : region_out + GUARD + out_off;
    memcpy(in, src, len);
    size_t done = 0;
    for (int p = 0; p < pieces; p++) {
        size_t take = p == pieces - 1 ? n - done : ts_rng_below(&rng, n - done + 1);
        if (!api_status(cs, "call", api_blocks(&ctx_test, mode, dir, iv_test, out + 16 * done,
                                               in + 16 * done, 16 * take)))
            break;
        done += take;
    }
    ts_same(cs, "output", expected, out, len);
    if (mode == CBC)
        ts_same(cs, "IV after the calls", iv_ref, iv_test, 16);
    ts_case_end();
}

/* CTR through the API: len bytes, the reference in one call, the backend in
 * pieces of odd lengths. */
static void api_ctr_case(const char *kcs, size_t len, const uint8_t c0[16], const char *cnote,
                         size_t in_off, size_t out_off, int in_place, int split)
{
    aesgen_ctr s_ref, s_test;
    char cs[200];
    snprintf(cs, sizeof cs, "%s, CTR %lu bytes, %s, %s +%lu/+%lu, %s", kcs, (unsigned long)len, cnote,
             in_place ? "in place" : "in/out", (unsigned long)in_off, (unsigned long)out_off,
             split ? "split at odd lengths" : "one call");
    ts_case_begin();
    ts_rng_bytes(&rng, src, len);
    aesgen_ctr_init(&s_ref, c0);
    aesgen_ctr_init(&s_test, c0);
    if (!api_status(cs, "reference call", aesgen_ctr_crypt(&ctx_ref, &s_ref, expected, src, len))) {
        ts_case_end();
        return;
    }
    uint8_t *in = region_in + GUARD + in_off;
    uint8_t *out = in_place ? in : region_out + GUARD + out_off;
    memcpy(in, src, len);
    char pieces[64] = "";
    size_t done = 0, np = 0;
    while (done < len) {
        size_t take = len - done;
        if (split) {
            take = 2 * ts_rng_below(&rng, np % 3 == 2 ? 40 : 12) + 1; /* odd: 1..23, now and then up to 79 */
            if (take > len - done)
                take = len - done;
        }
        if (np < 8) {
            size_t at = strlen(pieces);
            snprintf(pieces + at, sizeof pieces - at, "%s%lu", np ? "+" : "", (unsigned long)take);
        } else if (np == 8) {
            strcat(pieces, "+...");
        }
        if (!api_status(cs, "aesgen_ctr_crypt", aesgen_ctr_crypt(&ctx_test, &s_test, out + done, in + done, take)))
            break;
        done += take;
        np++;
    }
    if (!ts_same(cs, "output", expected, out, len) && split && ts_subject.shown <= TS_MAX_SHOWN)
        printf("    pieces: %s\n", pieces);
    ts_same(cs, "counter after the calls", s_ref.counter, s_test.counter, 16);
    if (s_ref.used != s_test.used)
        ts_mismatch(cs, "keystream bytes used: %u, reference %u", (unsigned)s_test.used,
                    (unsigned)s_ref.used);
    else if (s_ref.used > 0 && s_ref.used < 16)
        ts_same(cs, "rest of the keystream block", s_ref.keystream + s_ref.used,
                s_test.keystream + s_ref.used, 16 - s_ref.used);
    ts_case_end();
}

static int check_api(const char *backend, const char *refb)
{
    static const size_t block_counts[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 65, 257};
    static const size_t ctr_lengths[] = {0,  1,  2,  3,   5,   7,   15,  16,   17,  31,
                                         32, 33, 47, 63,  64,  65,  100, 127,  255, 256,
                                         257, 511, 513, 1000, 1023, 4097, 16411};
    uint8_t key[32], c0[16];

    ts_subject_begin("API %s vs %s", backend ? backend : "automatic dispatch", refb);
    for (size_t kl = 16; kl <= 32; kl += 8) {
        for (unsigned k = 0; k < 2; k++) {
            char kcs[48];
            ts_rng_bytes(&rng, key, sizeof key);
            snprintf(kcs, sizeof kcs, "AES-%u key#%u", (unsigned)(kl * 8), k);
            ts_case_begin();
            const int ok = api_setup(backend, refb, key, kl, kcs);
            ts_case_end();
            if (!ok)
                continue;
            for (int mode = ECB; mode <= CBC; mode++)
                for (int dir = 0; dir < 2; dir++)
                    for (size_t i = 0; i < sizeof block_counts / sizeof block_counts[0]; i++) {
                        const size_t n = block_counts[i];
                        api_block_case(kcs, mode, dir, n, ts_rng_below(&rng, 16), ts_rng_below(&rng, 16), 0, 1);
                        api_block_case(kcs, mode, dir, n, 9, 9, 1, mode == CBC ? 3 : 1);
                        if (mode == CBC)
                            api_block_case(kcs, mode, dir, n, 1, 14, 0, 5);
                    }
            for (size_t i = 0; i < sizeof ctr_lengths / sizeof ctr_lengths[0]; i++) {
                const size_t len = ctr_lengths[i];
                static const char *const notes[] = {"random counter", "64-bit carry inside",
                                                    "128-bit wrap inside"};
                for (unsigned c = 0; c < 3; c++) {
                    const size_t blocks = (len + 15) / 16;
                    if (c == 0)
                        ts_rng_bytes(&rng, c0, 16);
                    else
                        carry_counter(c0, c == 1 ? 64 : 128, 1 + ts_rng_below(&rng, blocks ? blocks : 1));
                    char cnote[64];
                    snprintf(cnote, sizeof cnote, "%s", notes[c]);
                    api_ctr_case(kcs, len, c0, cnote, ts_rng_below(&rng, 16), ts_rng_below(&rng, 16), 0, 1);
                    api_ctr_case(kcs, len, c0, cnote, 3, 3, 1, 1);
                    if (c == 0)
                        api_ctr_case(kcs, len, c0, cnote, 0, 5, 0, 0);
                }
            }
        }
    }
    aesgen_wipe(&ctx_test);
    aesgen_wipe(&ctx_ref);
    return ts_subject_end("ECB, CBC split across calls, CTR at odd lengths split at odd points");
}

/* -------------------------------------------------------------------- main */

static void usage(void)
{
    fprintf(stderr, "usage: aesgen_crosscheck [--variant NAME] [--backend NAME] [--seed N]\n");
}

int main(int argc, char **argv)
{
    const char *only_variant = NULL, *only_backend = NULL;
    uint64_t seed = 0x6165736765ull; /* "aesge" */

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            only_variant = argv[++i];
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            only_backend = argv[++i];
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            seed = strtoull(argv[++i], &end, 0);
            if (*end != '\0') {
                usage();
                return EXIT_USAGE;
            }
        } else {
            usage();
            return EXIT_USAGE;
        }
    }
    ts_rng_seed(&rng, seed);

    region_in = aligned_alloc64(REGION_BYTES);
    region_out = aligned_alloc64(REGION_BYTES);
    src = aligned_alloc64(16 * (size_t)MAX_BLOCKS + 16);
    expected = aligned_alloc64(16 * (size_t)MAX_BLOCKS + 16);
    scratch = aligned_alloc64(16 * (size_t)MAX_BLOCKS + 16);

    const char *env_backend = getenv("AESGEN_BACKEND");
    printf("aesgen_crosscheck: %u-bit words, %s-endian, seed 0x%llx, %lu variants in the registry\n",
           TS_NATIVE_WORD_BITS, (const union { uint16_t u; uint8_t b[2]; }){.u = 1}.b[0] ? "little" : "big",
           (unsigned long long)seed, (unsigned long)aesgen_registry_size);

    if (only_variant != NULL) {
        const aesgen_variant *v = aesgen_find_variant(only_variant);
        if (v == NULL) {
            fprintf(stderr, "aesgen_crosscheck: no variant %s\n", only_variant);
            return EXIT_USAGE;
        }
        if (!aesgen_variant_usable(v)) {
            printf("skipped: %s cannot run on this CPU\n", only_variant);
            return EXIT_SKIP;
        }
    }
    if (only_backend != NULL) {
        const int s = aesgen_backend_supported(only_backend);
        if (s < 0) {
            fprintf(stderr, "aesgen_crosscheck: no backend %s\n", only_backend);
            return EXIT_USAGE;
        }
        if (s == 0) {
            printf("skipped: backend %s cannot run on this CPU\n", only_backend);
            return EXIT_SKIP;
        }
    }

    /* The references, and what dispatch picks. */
    int all_ok = 1;
    for (unsigned bits = 128; bits <= 256; bits += 64)
        for (int d = 0; d < 2; d++) {
            const aesgen_variant *ref = ts_reference_variant(bits, d);
            if (ref == NULL) {
                printf("FAIL no feature-free variant for AES-%u %s: nothing to compare with\n", bits,
                       dir_name(d));
                return EXIT_FAIL;
            }
            all_ok &= check_reference(ref);
            const char *picked = aesgen_selected_variant(bits, (aesgen_direction)d);
            const aesgen_variant *pv = aesgen_find_variant(picked);
            printf("     dispatch: AES-%u %s -> %s (%s)\n", bits, dir_name(d), picked ? picked : "(none)",
                   pv ? pv->backend : "?");
            if (pv == NULL || (pv->features == 0 && pv != ref && (env_backend == NULL || !env_backend[0]))) {
                printf("FAIL dispatch: AES-%u %s picks %s, expected a hardware variant or %s\n", bits,
                       dir_name(d), picked ? picked : "nothing", ref->name);
                all_ok = 0;
            }
        }

    /* Every usable variant against its reference. */
    if (only_backend == NULL) {
        unsigned not_here = 0;
        for (size_t i = 0; i < aesgen_registry_size; i++) {
            const aesgen_variant *v = aesgen_registry[i];
            if (only_variant != NULL && strcmp(v->name, only_variant) != 0)
                continue;
            if (!aesgen_variant_usable(v)) {
                not_here++;
                continue;
            }
            all_ok &= check_variant(v);
        }
        if (not_here)
            printf("     %u variants in the registry cannot run on this CPU\n", not_here);
    }

    /* Every usable backend, and automatic dispatch, through the API. */
    if (only_variant == NULL) {
        const aesgen_variant *ref128 = ts_reference_variant(128, 0);
        const char *refb = ref128->backend;
        for (size_t i = 0; i < aesgen_backend_count(); i++) {
            const char *b = aesgen_backend_name(i);
            if (only_backend != NULL && strcmp(b, only_backend) != 0)
                continue;
            if (aesgen_backend_supported(b) != 1)
                continue;
            all_ok &= check_api(b, refb);
        }
        if (only_backend == NULL)
            all_ok &= check_api(NULL, refb);
    }

    printf("%s: %lu cases compared, %lu differ\n", all_ok ? "PASS" : "FAIL", ts_total_cases, ts_total_failed);
    return all_ok ? EXIT_PASS : EXIT_FAIL;
}
