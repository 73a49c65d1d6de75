/*
 * aesgen_api_test -- every error path and documented contract of aesgen.h.
 *
 *   aesgen_api_test                          the whole suite
 *   aesgen_api_test --env-expect-error       run with AESGEN_BACKEND naming no
 *                                            backend, or AESGEN_CPU_DISABLE naming
 *                                            no feature: aesgen_init must fail
 *   aesgen_api_test --env-expect-backend B   run with AESGEN_BACKEND=B: B must
 *                                            be selected (or, if B cannot run
 *                                            here, aesgen_init must fail)
 *   aesgen_api_test --env-expect-software L  run with AESGEN_BACKEND=software: the
 *                                            software class must resolve to the first
 *                                            backend of the list L (a,b,...) that
 *                                            aesgen_backend_supported says runs here
 *   aesgen_api_test --expect-dispatch B      automatic dispatch (typically under
 *                                            AESGEN_CPU_DISABLE) must pick B for
 *                                            every key size and direction
 *
 * Every check prints "FAIL (line N): ..." when it does not hold; the program
 * carries on and exits 1 if any check failed, 0 otherwise.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesgen.h"
#include "aesgen_internal.h"

/* ------------------------------------------------------------------------ */
/* Checking                                                                   */

static unsigned long checks, failures;

static void check_impl(int ok, int line, const char *fmt, ...)
{
    checks++;
    if (ok)
        return;
    failures++;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL (line %d): ", line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

#define CHECK(cond, ...) check_impl((cond) ? 1 : 0, __LINE__, __VA_ARGS__)

static const char *st(int rc)
{
    const char *s = aesgen_status_string(rc);
    return s ? s : "(null)";
}

/* `expr` returned `got`; it must be `want`. */
static void expect_rc_impl(int got, int want, int line, const char *expr)
{
    check_impl(got == want, line, "%s returned %d (%s), expected %d (%s)", expr, got, st(got), want,
               st(want));
}

/* Either of two statuses is acceptable (the contract allows both). */
static void expect_rc2_impl(int got, int want1, int want2, int line, const char *expr)
{
    check_impl(got == want1 || got == want2, line, "%s returned %d (%s), expected %d (%s) or %d (%s)",
               expr, got, st(got), want1, st(want1), want2, st(want2));
}

#define EXPECT_RC(expr, want) expect_rc_impl((expr), (want), __LINE__, #expr)
#define EXPECT_RC2(expr, w1, w2) expect_rc2_impl((expr), (w1), (w2), __LINE__, #expr)

static int streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }
static const char *nn(const char *s) { return s ? s : "(null)"; }

/* Watched memory: a copy is taken by watch(); watch_check() verifies that
 * every watched byte is unchanged ("on error nothing is written"). */
#define MAX_WATCH 6
static struct {
    const char *name;
    const uint8_t *p;
    size_t n;
    uint8_t *copy;
} watches[MAX_WATCH];
static int nwatch;

static void watch(const char *name, const void *p, size_t n)
{
    if (nwatch == MAX_WATCH) {
        printf("internal error: too many watches\n");
        exit(2);
    }
    watches[nwatch].name = name;
    watches[nwatch].p = p;
    watches[nwatch].n = n;
    watches[nwatch].copy = malloc(n ? n : 1);
    if (!watches[nwatch].copy) {
        printf("out of memory\n");
        exit(2);
    }
    memcpy(watches[nwatch].copy, p, n);
    nwatch++;
}

static void watch_check_impl(int line, const char *what)
{
    for (int w = 0; w < nwatch; w++) {
        const volatile uint8_t *p = watches[w].p;
        size_t bad = SIZE_MAX;
        for (size_t i = 0; i < watches[w].n; i++)
            if (p[i] != watches[w].copy[i]) {
                bad = i;
                break;
            }
        check_impl(bad == SIZE_MAX, line, "%s: %s byte %zu was written on error", what,
                   watches[w].name, bad);
        free(watches[w].copy);
    }
    nwatch = 0;
}

#define WATCH_CHECK(what) watch_check_impl(__LINE__, (what))

static void fill(void *p, size_t n, uint8_t seed)
{
    uint8_t *q = p;
    for (size_t i = 0; i < n; i++)
        q[i] = (uint8_t)(seed ^ (i * 37u) ^ 0x5a);
}

static int all_zero_volatile(const void *p, size_t n, size_t *first)
{
    const volatile uint8_t *q = p;
    for (size_t i = 0; i < n; i++)
        if (q[i] != 0) {
            *first = i;
            return 0;
        }
    return 1;
}

static void hex(const char *s, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(s + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* ------------------------------------------------------------------------ */
/* The five data operations                                                   */

enum { OP_ECB_ENC, OP_ECB_DEC, OP_CBC_ENC, OP_CBC_DEC, OP_CTR, OP_COUNT };
static const char *const op_name[OP_COUNT] = {
    "aesgen_ecb_encrypt", "aesgen_ecb_decrypt", "aesgen_cbc_encrypt", "aesgen_cbc_decrypt",
    "aesgen_ctr_crypt"
};

static int op_is_cbc(int op) { return op == OP_CBC_ENC || op == OP_CBC_DEC; }

static int op_call(int op, const aesgen_ctx *ctx, uint8_t *iv, aesgen_ctr *ctr, uint8_t *out,
                   const uint8_t *in, size_t len)
{
    switch (op) {
    case OP_ECB_ENC: return aesgen_ecb_encrypt(ctx, out, in, len);
    case OP_ECB_DEC: return aesgen_ecb_decrypt(ctx, out, in, len);
    case OP_CBC_ENC: return aesgen_cbc_encrypt(ctx, iv, out, in, len);
    case OP_CBC_DEC: return aesgen_cbc_decrypt(ctx, iv, out, in, len);
    default: return aesgen_ctr_crypt(ctx, ctr, out, in, len);
    }
}

/* An initialised stream in the middle of a block, so that every field of it
 * holds something worth watching. */
static void make_midblock_stream(const aesgen_ctx *ctx, aesgen_ctr *ctr)
{
    uint8_t counter[16], junk[5] = { 0 };
    fill(counter, 16, 0x33);
    EXPECT_RC(aesgen_ctr_init(ctr, counter), AESGEN_OK);
    EXPECT_RC(aesgen_ctr_crypt(ctx, ctr, junk, junk, 5), AESGEN_OK);
}

static const uint8_t key32[32] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f
};

/* Runs one op that must fail with `want` and write nothing. `in` and `out`
 * may point into `region`, which is watched whole, together with the IV and
 * the CTR stream. */
static void expect_failure_impl(int line, int op, const aesgen_ctx *ctx, uint8_t *iv,
                                aesgen_ctr *ctr, uint8_t *out, const uint8_t *in, size_t len,
                                int want, int want2, const void *region, size_t region_len,
                                const char *what)
{
    char msg[300];
    if (iv)
        watch("iv", iv, 16);
    if (ctr)
        watch("CTR stream", ctr, sizeof *ctr);
    if (ctx)
        watch("context", ctx, sizeof *ctx);
    if (region)
        watch("buffer", region, region_len);
    int rc = op_call(op, ctx, iv, ctr, out, in, len);
    snprintf(msg, sizeof msg, "%s, %s", op_name[op], what);
    check_impl(rc == want || rc == want2, line, "%s: returned %d (%s), expected %d (%s)", msg, rc,
               st(rc), want, st(want));
    watch_check_impl(line, msg);
}

#define EXPECT_FAILURE(op, ctx, iv, ctr, out, in, len, want, region, rlen, what)                  \
    expect_failure_impl(__LINE__, (op), (ctx), (iv), (ctr), (out), (in), (len), (want), (want),   \
                        (region), (rlen), (what))
#define EXPECT_FAILURE2(op, ctx, iv, ctr, out, in, len, w1, w2, region, rlen, what)                \
    expect_failure_impl(__LINE__, (op), (ctx), (iv), (ctr), (out), (in), (len), (w1), (w2),       \
                        (region), (rlen), (what))

/* ------------------------------------------------------------------------ */
/* Version and status strings                                                 */

static void test_version(void)
{
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", AESGEN_VERSION_MAJOR, AESGEN_VERSION_MINOR,
             AESGEN_VERSION_PATCH);
    const char *v = aesgen_version_string();
    CHECK(streq(v, want), "aesgen_version_string() is \"%s\", the AESGEN_VERSION_* macros say %s",
          nn(v), want);
}

static void test_status_strings(void)
{
    static const int codes[] = { AESGEN_OK,         AESGEN_ERR_NULL,    AESGEN_ERR_KEY_LENGTH,
                                 AESGEN_ERR_LENGTH, AESGEN_ERR_OVERLAP, AESGEN_ERR_CONTEXT,
                                 AESGEN_ERR_BACKEND };
    static const int unknown[] = { 1, 2, -7, -8, 100, -100, INT_MAX, INT_MIN };
    const size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        const char *s = aesgen_status_string(codes[i]);
        CHECK(s != NULL && s[0] != '\0', "aesgen_status_string(%d) is NULL or empty", codes[i]);
        for (size_t j = 0; j < i; j++)
            CHECK(!streq(s, aesgen_status_string(codes[j])),
                  "aesgen_status_string(%d) and (%d) are the same: \"%s\"", codes[i], codes[j],
                  nn(s));
    }
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *s = aesgen_status_string(unknown[i]);
        CHECK(s != NULL && s[0] != '\0', "aesgen_status_string(%d) (unknown code) is NULL or empty",
              unknown[i]);
        for (size_t j = 0; j < n; j++)
            CHECK(!streq(s, aesgen_status_string(codes[j])),
                  "aesgen_status_string(%d) (unknown code) reads like code %d: \"%s\"", unknown[i],
                  codes[j], nn(s));
    }
}

/* ------------------------------------------------------------------------ */
/* Known answers (FIPS-197 appendix C, SP 800-38A F.2.1 and F.5.1)            */

static void test_known_answers(const char *label)
{
    static const char *const fips_ct[3] = { "69c4e0d86a7b0430d8cdb78070b4c55a",
                                            "dda97ca4864cdfe06eaf70a0ec0d7191",
                                            "8ea2b7ca516745bfeafc49904b496089" };
    uint8_t pt[16], ct[16], out[16];
    aesgen_ctx ctx;
    hex("00112233445566778899aabbccddeeff", pt, 16);
    for (int k = 0; k < 3; k++) {
        size_t klen = 16 + 8 * (size_t)k;
        hex(fips_ct[k], ct, 16);
        EXPECT_RC(aesgen_init(&ctx, key32, klen), AESGEN_OK);
        EXPECT_RC(aesgen_ecb_encrypt(&ctx, out, pt, 16), AESGEN_OK);
        CHECK(memcmp(out, ct, 16) == 0, "[%s] FIPS-197 AES-%zu encryption known answer", label,
              klen * 8);
        EXPECT_RC(aesgen_ecb_decrypt(&ctx, out, ct, 16), AESGEN_OK);
        CHECK(memcmp(out, pt, 16) == 0, "[%s] FIPS-197 AES-%zu decryption known answer", label,
              klen * 8);
    }

    uint8_t key[16], iv[16], p[64], c[64], o[64], ctrblk[16];
    hex("2b7e151628aed2a6abf7158809cf4f3c", key, 16);
    hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
        "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
        p, 64);
    EXPECT_RC(aesgen_init(&ctx, key, 16), AESGEN_OK);

    hex("000102030405060708090a0b0c0d0e0f", iv, 16);
    hex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
        "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
        c, 64);
    EXPECT_RC(aesgen_cbc_encrypt(&ctx, iv, o, p, 64), AESGEN_OK);
    CHECK(memcmp(o, c, 64) == 0, "[%s] SP 800-38A F.2.1 CBC-AES128 encryption", label);
    CHECK(memcmp(iv, c + 48, 16) == 0, "[%s] CBC encryption: IV is not the last ciphertext block",
          label);
    hex("000102030405060708090a0b0c0d0e0f", iv, 16);
    EXPECT_RC(aesgen_cbc_decrypt(&ctx, iv, o, c, 64), AESGEN_OK);
    CHECK(memcmp(o, p, 64) == 0, "[%s] SP 800-38A F.2.2 CBC-AES128 decryption", label);
    CHECK(memcmp(iv, c + 48, 16) == 0, "[%s] CBC decryption: IV is not the last ciphertext block",
          label);

    aesgen_ctr ctr;
    hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", ctrblk, 16);
    hex("874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
        "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
        c, 64);
    EXPECT_RC(aesgen_ctr_init(&ctr, ctrblk), AESGEN_OK);
    EXPECT_RC(aesgen_ctr_crypt(&ctx, &ctr, o, p, 64), AESGEN_OK);
    CHECK(memcmp(o, c, 64) == 0, "[%s] SP 800-38A F.5.1 CTR-AES128", label);
    aesgen_wipe(&ctx);
}

/* ------------------------------------------------------------------------ */
/* aesgen_init                                                                */

static void test_init(void)
{
    static const size_t bad_lengths[] = { 0, 1, 15, 17, 23, 25, 31, 33, 64, SIZE_MAX };
    uint8_t key[64];
    aesgen_ctx ctx, good;
    fill(key, sizeof key, 0x11);

    EXPECT_RC(aesgen_init(NULL, key, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_init(NULL, key, 32), AESGEN_ERR_NULL);
    for (size_t kl = 16; kl <= 32; kl += 8) {
        fill(&ctx, sizeof ctx, 0xc3);
        watch("context", &ctx, sizeof ctx);
        int rc = aesgen_init(&ctx, NULL, kl);
        CHECK(rc == AESGEN_ERR_NULL, "aesgen_init(ctx, NULL, %zu) returned %d (%s), expected %s", kl,
              rc, st(rc), st(AESGEN_ERR_NULL));
        WATCH_CHECK("aesgen_init with a NULL key");
    }
    /* key NULL with key_len 0: both rules are broken; either error will do. */
    fill(&ctx, sizeof ctx, 0xc3);
    watch("context", &ctx, sizeof ctx);
    EXPECT_RC2(aesgen_init(&ctx, NULL, 0), AESGEN_ERR_NULL, AESGEN_ERR_KEY_LENGTH);
    WATCH_CHECK("aesgen_init(ctx, NULL, 0)");

    for (size_t i = 0; i < sizeof bad_lengths / sizeof bad_lengths[0]; i++) {
        size_t kl = bad_lengths[i];
        /* on a never-initialised (sentinel) context */
        fill(&ctx, sizeof ctx, 0xc3);
        watch("context", &ctx, sizeof ctx);
        int rc = aesgen_init(&ctx, key, kl);
        CHECK(rc == AESGEN_ERR_KEY_LENGTH, "aesgen_init(ctx, key, %zu) returned %d (%s), expected %s",
              kl, rc, st(rc), st(AESGEN_ERR_KEY_LENGTH));
        WATCH_CHECK("aesgen_init with a bad key length");
        /* on an initialised context: it must stay as it was, and usable */
        EXPECT_RC(aesgen_init(&good, key32, 16), AESGEN_OK);
        watch("initialised context", &good, sizeof good);
        rc = aesgen_init(&good, key, kl);
        CHECK(rc == AESGEN_ERR_KEY_LENGTH,
              "aesgen_init(initialised ctx, key, %zu) returned %d (%s), expected %s", kl, rc, st(rc),
              st(AESGEN_ERR_KEY_LENGTH));
        WATCH_CHECK("re-initialisation with a bad key length");
    }
    {
        /* still the first key after all those failures */
        static const uint8_t pt[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                        0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
        uint8_t out[16], want[16];
        hex("69c4e0d86a7b0430d8cdb78070b4c55a", want, 16);
        EXPECT_RC(aesgen_ecb_encrypt(&good, out, pt, 16), AESGEN_OK);
        CHECK(memcmp(out, want, 16) == 0, "context changed by a failed aesgen_init");
    }
    EXPECT_RC2(aesgen_init(NULL, NULL, 7), AESGEN_ERR_NULL, AESGEN_ERR_KEY_LENGTH);

    for (size_t kl = 16; kl <= 32; kl += 8) {
        fill(&ctx, sizeof ctx, 0xc3);
        EXPECT_RC(aesgen_init(&ctx, key, kl), AESGEN_OK);
        for (int d = 0; d < 2; d++) {
            const char *v = aesgen_ctx_variant(&ctx, (aesgen_direction)d);
            const char *sel = aesgen_selected_variant((unsigned)kl * 8, (aesgen_direction)d);
            CHECK(v != NULL, "aesgen_ctx_variant after aesgen_init(%zu bytes) is NULL", kl);
            CHECK(streq(v, sel), "aesgen_ctx_variant (%s) differs from aesgen_selected_variant (%s)",
                  nn(v), nn(sel));
            const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
            CHECK(var != NULL, "aesgen_find_variant(\"%s\") is NULL", nn(v));
            if (var)
                CHECK(var->key_bits == kl * 8 && var->direction == d,
                      "variant %s serves AES-%u direction %u, not AES-%zu direction %d", var->name,
                      (unsigned)var->key_bits, (unsigned)var->direction, kl * 8, d);
        }
    }
    aesgen_wipe(&ctx);
    aesgen_wipe(&good);
}

/* ------------------------------------------------------------------------ */
/* NULL pointers, lengths, overlap                                            */

static void test_null_pointers(void)
{
    aesgen_ctx ctx;
    aesgen_ctr ctr;
    uint8_t buf[64], in[64], iv[16];
    EXPECT_RC(aesgen_init(&ctx, key32, 16), AESGEN_OK);
    fill(in, sizeof in, 1);

    for (int op = 0; op < OP_COUNT; op++) {
        aesgen_ctr *s = op == OP_CTR ? &ctr : NULL;
        uint8_t *v = op_is_cbc(op) ? iv : NULL;
        fill(buf, sizeof buf, 2);
        fill(iv, 16, 3);
        make_midblock_stream(&ctx, &ctr);

        EXPECT_FAILURE(op, NULL, v, s, buf, in, 16, AESGEN_ERR_NULL, buf, sizeof buf, "NULL ctx");
        EXPECT_FAILURE(op, NULL, v, s, buf, in, 0, AESGEN_ERR_NULL, buf, sizeof buf,
                       "NULL ctx, length 0");
        EXPECT_FAILURE(op, &ctx, v, s, NULL, in, 16, AESGEN_ERR_NULL, NULL, 0, "NULL out");
        EXPECT_FAILURE(op, &ctx, v, s, buf, NULL, 16, AESGEN_ERR_NULL, buf, sizeof buf, "NULL in");
        EXPECT_FAILURE(op, &ctx, v, s, NULL, NULL, 16, AESGEN_ERR_NULL, NULL, 0,
                       "NULL in and out");
        EXPECT_FAILURE(op, &ctx, v, s, buf, NULL, 32, AESGEN_ERR_NULL, buf, sizeof buf,
                       "NULL in, length 32");
        if (op_is_cbc(op)) {
            EXPECT_FAILURE(op, &ctx, NULL, NULL, buf, in, 16, AESGEN_ERR_NULL, buf, sizeof buf,
                           "NULL iv");
            EXPECT_FAILURE(op, &ctx, NULL, NULL, buf, in, 0, AESGEN_ERR_NULL, buf, sizeof buf,
                           "NULL iv, length 0 (iv has 16 bytes whatever the length)");
        }
        if (op == OP_CTR) {
            EXPECT_FAILURE(op, &ctx, NULL, NULL, buf, in, 16, AESGEN_ERR_NULL, buf, sizeof buf,
                           "NULL stream");
            EXPECT_FAILURE(op, &ctx, NULL, NULL, buf, in, 0, AESGEN_ERR_NULL, buf, sizeof buf,
                           "NULL stream, length 0");
        }

        /* Length 0: NULL in and/or out are fine, nothing changes. */
        const uint8_t *nul = NULL;
        for (int k = 0; k < 4; k++) {
            uint8_t *o = (k & 1) ? buf : NULL;
            const uint8_t *i = (k & 2) ? in : nul;
            char what[80];
            snprintf(what, sizeof what, "length 0 with in %s and out %s", i ? "valid" : "NULL",
                     o ? "valid" : "NULL");
            if (v)
                watch("iv", v, 16);
            if (s)
                watch("CTR stream", s, sizeof *s);
            watch("buffer", buf, sizeof buf);
            int rc = op_call(op, &ctx, v, s, o, i, 0);
            CHECK(rc == AESGEN_OK, "%s, %s: returned %d (%s), expected success", op_name[op], what,
                  rc, st(rc));
            WATCH_CHECK(what);
        }
    }

    uint8_t counter[16];
    fill(counter, 16, 4);
    EXPECT_RC(aesgen_ctr_init(NULL, counter), AESGEN_ERR_NULL);
    make_midblock_stream(&ctx, &ctr);
    watch("CTR stream", &ctr, sizeof ctr);
    EXPECT_RC(aesgen_ctr_init(&ctr, NULL), AESGEN_ERR_NULL);
    WATCH_CHECK("aesgen_ctr_init(ctr, NULL)");
    EXPECT_RC(aesgen_ctr_init(NULL, NULL), AESGEN_ERR_NULL);
    aesgen_wipe(&ctx);
}

static void test_lengths(void)
{
    static const size_t bad[] = { 1, 8, 15, 17, 31, 33, 47, 4097 };
    aesgen_ctx ctx;
    aesgen_ctr ctr;
    uint8_t *buf = malloc(8192), *in = malloc(8192), iv[16];
    if (!buf || !in) {
        printf("out of memory\n");
        exit(2);
    }
    EXPECT_RC(aesgen_init(&ctx, key32, 24), AESGEN_OK);
    fill(in, 8192, 5);
    for (int op = 0; op < OP_CTR; op++) {
        uint8_t *v = op_is_cbc(op) ? iv : NULL;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char what[80];
            snprintf(what, sizeof what, "length %zu (not a multiple of 16)", bad[i]);
            fill(buf, 8192, 6);
            fill(iv, 16, 7);
            EXPECT_FAILURE(op, &ctx, v, NULL, buf, in, bad[i], AESGEN_ERR_LENGTH, buf, 8192, what);
            EXPECT_FAILURE(op, &ctx, v, NULL, buf, buf, bad[i], AESGEN_ERR_LENGTH, buf, 8192, what);
        }
    }

    /* Lengths whose buffer would run past the end of the address space. The
     * library has to refuse before it touches a byte. In place, so that the
     * overlap rule does not apply. */
    uintptr_t p = (uintptr_t)buf;
    size_t wrap1 = (size_t)(UINTPTR_MAX - p) + 2;            /* last byte wraps to address 0 */
    size_t wrap16 = (wrap1 + 15) & ~(size_t)15;              /* the same, whole blocks */
    const size_t huge_blocks[] = { SIZE_MAX & ~(size_t)15, wrap16, (SIZE_MAX / 2 + 1) };
    const size_t huge_bytes[] = { SIZE_MAX, wrap1, SIZE_MAX & ~(size_t)15, wrap16 };
    for (int op = 0; op < OP_COUNT; op++) {
        uint8_t *v = op_is_cbc(op) ? iv : NULL;
        aesgen_ctr *s = op == OP_CTR ? &ctr : NULL;
        const size_t *lens = op == OP_CTR ? huge_bytes : huge_blocks;
        size_t nlens = op == OP_CTR ? sizeof huge_bytes / sizeof huge_bytes[0]
                                    : sizeof huge_blocks / sizeof huge_blocks[0];
        for (size_t i = 0; i < nlens; i++) {
            char what[120];
            size_t len = lens[i];
            if ((uintptr_t)len <= UINTPTR_MAX - p)
                continue; /* would not wrap from this address (SIZE_MAX/2+1 on a low heap) */
            fill(buf, 8192, 8);
            fill(iv, 16, 9);
            make_midblock_stream(&ctx, &ctr);
            snprintf(what, sizeof what, "in place, length %zu (wraps the address space)", len);
            EXPECT_FAILURE(op, &ctx, v, s, buf, buf, len, AESGEN_ERR_LENGTH, buf, 8192, what);
            snprintf(what, sizeof what, "distinct buffers, length %zu (wraps)", len);
            EXPECT_FAILURE2(op, &ctx, v, s, buf + 4096, in, len, AESGEN_ERR_LENGTH,
                            AESGEN_ERR_OVERLAP, buf, 8192, what);
            snprintf(what, sizeof what, "NULL buffers, length %zu", len);
            EXPECT_FAILURE2(op, &ctx, v, s, NULL, NULL, len, AESGEN_ERR_NULL, AESGEN_ERR_LENGTH,
                            NULL, 0, what);
        }
    }
    /* SIZE_MAX is neither a multiple of 16 nor addressable. */
    fill(buf, 8192, 10);
    EXPECT_FAILURE(OP_ECB_ENC, &ctx, NULL, NULL, buf, buf, SIZE_MAX, AESGEN_ERR_LENGTH, buf, 8192,
                   "length SIZE_MAX");
    aesgen_wipe(&ctx);
    free(buf);
    free(in);
}

static void test_overlap(void)
{
    aesgen_ctx ctx;
    aesgen_ctr ctr, ctr2;
    uint8_t region[256], ref[64], src[64], iv[16], iv2[16];
    EXPECT_RC(aesgen_init(&ctx, key32, 32), AESGEN_OK);

    for (int op = 0; op < OP_COUNT; op++) {
        uint8_t *v = op_is_cbc(op) ? iv : NULL;
        aesgen_ctr *s = op == OP_CTR ? &ctr : NULL;
        const size_t lens[2] = { 32, op == OP_CTR ? 5 : 48 };
        for (int li = 0; li < 2; li++) {
            size_t len = lens[li];
            const long shifts[] = { 1, 15, 16, (long)len - 1, 4 };
            for (size_t si = 0; si < sizeof shifts / sizeof shifts[0]; si++) {
                for (int sign = -1; sign <= 1; sign += 2) {
                    long d = sign * shifts[si];
                    if (shifts[si] <= 0 || (size_t)shifts[si] >= len)
                        continue;
                    uint8_t *in = region + 96, *out = region + 96 + d;
                    char what[120];
                    snprintf(what, sizeof what, "length %zu, out = in %+ld (overlap by %zu bytes)",
                             len, d, len - (size_t)shifts[si]);
                    fill(region, sizeof region, 11);
                    fill(iv, 16, 12);
                    make_midblock_stream(&ctx, &ctr);
                    EXPECT_FAILURE(op, &ctx, v, s, out, in, len, AESGEN_ERR_OVERLAP, region,
                                   sizeof region, what);
                }
            }
            /* Adjacent (no common byte), exactly in place, and length 0 with
             * shifted pointers are all fine and compute the right thing. */
            const long ok_shifts[] = { 0, (long)len, -(long)len };
            fill(src, sizeof src, 13);
            fill(iv2, 16, 14);
            make_midblock_stream(&ctx, &ctr2);
            EXPECT_RC(op_call(op, &ctx, iv2, &ctr2, ref, src, len), AESGEN_OK);
            for (size_t k = 0; k < 3; k++) {
                uint8_t iv3[16];
                aesgen_ctr c3;
                uint8_t *in = region + 96, *out = region + 96 + ok_shifts[k];
                fill(region, sizeof region, 15);
                memcpy(in, src, len);
                fill(iv3, 16, 14);
                make_midblock_stream(&ctx, &c3);
                int rc = op_call(op, &ctx, iv3, &c3, out, in, len);
                CHECK(rc == AESGEN_OK, "%s, length %zu, out = in %+ld: returned %d (%s)", op_name[op],
                      len, ok_shifts[k], rc, st(rc));
                CHECK(memcmp(out, ref, len) == 0,
                      "%s, length %zu, out = in %+ld: wrong output", op_name[op], len,
                      ok_shifts[k]);
            }
            for (long d = -3; d <= 3; d += 2) {
                char what[80];
                snprintf(what, sizeof what, "length 0 with out = in %+ld", d);
                fill(region, sizeof region, 16);
                watch("buffer", region, sizeof region);
                int rc = op_call(op, &ctx, iv, &ctr, region + 96 + d, region + 96, 0);
                CHECK(rc == AESGEN_OK, "%s, %s: returned %d (%s)", op_name[op], what, rc, st(rc));
                WATCH_CHECK(what);
            }
        }
    }
    aesgen_wipe(&ctx);
}

/* ------------------------------------------------------------------------ */
/* Uninitialised and wiped contexts and streams                               */

static void test_uninitialised(void)
{
    aesgen_ctx zero, wiped, ctx;
    aesgen_ctr ctr, zctr;
    uint8_t buf[64], in[64], iv[16];
    memset(&zero, 0, sizeof zero);
    EXPECT_RC(aesgen_init(&ctx, key32, 16), AESGEN_OK);
    EXPECT_RC(aesgen_init(&wiped, key32, 16), AESGEN_OK);
    aesgen_wipe(&wiped);
    fill(in, sizeof in, 17);

    for (int which = 0; which < 2; which++) {
        const aesgen_ctx *bad = which ? &wiped : &zero;
        const char *label = which ? "wiped context" : "zeroed (never initialised) context";
        for (int op = 0; op < OP_COUNT; op++) {
            uint8_t *v = op_is_cbc(op) ? iv : NULL;
            aesgen_ctr *s = op == OP_CTR ? &ctr : NULL;
            for (size_t len = 0; len <= 32; len += 16) {
                char what[120];
                snprintf(what, sizeof what, "%s, length %zu", label, len);
                fill(buf, sizeof buf, 18);
                fill(iv, 16, 19);
                make_midblock_stream(&ctx, &ctr);
                EXPECT_FAILURE(op, bad, v, s, buf, in, len, AESGEN_ERR_CONTEXT, buf, sizeof buf,
                               what);
            }
        }
        for (int d = 0; d < 2; d++) {
            const char *v = aesgen_ctx_variant(bad, (aesgen_direction)d);
            CHECK(v == NULL, "aesgen_ctx_variant(%s, %d) is \"%s\", expected NULL", label, d, nn(v));
        }
    }

    /* Streams: zeroed, and wiped after use. */
    memset(&zctr, 0, sizeof zctr);
    for (int which = 0; which < 2; which++) {
        const char *label = which ? "wiped CTR stream" : "zeroed (never initialised) CTR stream";
        if (which) {
            make_midblock_stream(&ctx, &zctr);
            aesgen_ctr_wipe(&zctr);
        }
        for (size_t len = 0; len <= 17; len += 17) {
            char what[120];
            snprintf(what, sizeof what, "%s, length %zu", label, len);
            fill(buf, sizeof buf, 20);
            EXPECT_FAILURE(OP_CTR, &ctx, NULL, &zctr, buf, in, len, AESGEN_ERR_CONTEXT, buf,
                           sizeof buf, what);
        }
    }
    /* A valid stream with a bad context leaves the stream alone. */
    make_midblock_stream(&ctx, &ctr);
    fill(buf, sizeof buf, 21);
    EXPECT_FAILURE(OP_CTR, &zero, NULL, &ctr, buf, in, 17, AESGEN_ERR_CONTEXT, buf, sizeof buf,
                   "valid stream, zeroed context");
    aesgen_wipe(&ctx);
}

/* ------------------------------------------------------------------------ */
/* Wiping                                                                     */

static void test_wipe(void)
{
    aesgen_ctx ctx;
    aesgen_ctr ctr;
    size_t first = 0;
    int zero_ok;
    uint8_t buf[100];

    EXPECT_RC(aesgen_init(&ctx, key32, 32), AESGEN_OK);
    aesgen_wipe(&ctx);
    zero_ok = all_zero_volatile(&ctx, sizeof ctx, &first);
    CHECK(zero_ok, "aesgen_wipe left a non-zero byte at offset %zu of the context", first);
    {
        uint8_t tmp[16] = { 0 };
        EXPECT_RC(aesgen_init(&ctx, key32, 16), AESGEN_OK);
        make_midblock_stream(&ctx, &ctr);
        EXPECT_RC(aesgen_ctr_crypt(&ctx, &ctr, tmp, tmp, 16), AESGEN_OK);
    }
    aesgen_ctr_wipe(&ctr);
    zero_ok = all_zero_volatile(&ctr, sizeof ctr, &first);
    CHECK(zero_ok, "aesgen_ctr_wipe left a non-zero byte at offset %zu of the stream", first);
    aesgen_wipe(&ctx);

    fill(buf, sizeof buf, 22);
    {
        uint8_t before[100];
        memcpy(before, buf, sizeof buf);
        aesgen_memwipe(buf + 3, 50);
        zero_ok = all_zero_volatile(buf + 3, 50, &first);
        CHECK(zero_ok, "aesgen_memwipe left a non-zero byte at offset %zu", first);
        CHECK(memcmp(buf, before, 3) == 0 && memcmp(buf + 53, before + 53, 47) == 0,
              "aesgen_memwipe wrote outside [p, p + len)");
        memcpy(before, buf, sizeof buf);
        aesgen_memwipe(buf + 60, 0);
        CHECK(memcmp(buf, before, sizeof buf) == 0, "aesgen_memwipe with length 0 wrote something");
        aesgen_memwipe(NULL, 0); /* NULL with length 0 is allowed */
        aesgen_memwipe(buf, 1);
        CHECK(((volatile uint8_t *)buf)[0] == 0 && memcmp(buf + 1, before + 1, 99) == 0,
              "aesgen_memwipe of one byte");
    }
}

/* ------------------------------------------------------------------------ */
/* CTR behaviour                                                              */

/* The stream stands at absolute keystream position `pos` (bytes) from
 * `start`: see the encoding in aesgen.h (counter = next block to encrypt,
 * used = bytes consumed of the keystream of the block before it). At a block
 * boundary, "used == 16" and "used == 0 with the following block's keystream
 * buffered" both fit that description; a fresh stream must be the former. */
static int ctr_position_ok(const aesgen_ctr *ctr, const uint8_t start[16], uint64_t pos)
{
    uint8_t want[16];
    uint64_t blocks = pos / 16 + (pos % 16 != 0);
    memcpy(want, start, 16);
    for (int i = 15, carry = 0; i >= 0; i--) {
        unsigned sum = (unsigned)want[i] + (unsigned)(blocks & 0xff) + (unsigned)carry;
        want[i] = (uint8_t)sum;
        carry = (int)(sum >> 8);
        blocks >>= 8;
    }
    if (pos % 16)
        return memcmp(ctr->counter, want, 16) == 0 && ctr->used == pos % 16;
    if (memcmp(ctr->counter, want, 16) == 0 && ctr->used == 16)
        return 1; /* block boundary, nothing buffered */
    /* or the next block's keystream already buffered: counter one further */
    for (int i = 15; i >= 0; i--)
        if (++want[i] != 0)
            break;
    return pos != 0 && memcmp(ctr->counter, want, 16) == 0 && ctr->used == 0;
}

static void test_ctr_key(const char *label, size_t key_len)
{
    aesgen_ctx ctx;
    aesgen_ctr a, b;
    uint8_t start[16], msg[300], one[300], pieces[300];
    EXPECT_RC(aesgen_init(&ctx, key32, key_len), AESGEN_OK);
    fill(msg, sizeof msg, 23);

    /* aesgen_ctr_init records the counter block. */
    fill(start, 16, 24);
    EXPECT_RC(aesgen_ctr_init(&a, start), AESGEN_OK);
    CHECK(memcmp(a.counter, start, 16) == 0, "[%s] aesgen_ctr_init did not store the counter",
          label);
    CHECK(ctr_position_ok(&a, start, 0), "[%s] fresh stream does not stand at position 0", label);

    /* Resuming mid-block: many ways to cut 300 bytes give one call's bytes. */
    EXPECT_RC(aesgen_ctr_crypt(&ctx, &a, one, msg, sizeof msg), AESGEN_OK);
    CHECK(ctr_position_ok(&a, start, sizeof msg), "[%s] stream position after one call", label);
    static const size_t patterns[][8] = {
        { 1 }, { 3 }, { 15 }, { 16 }, { 17 }, { 31 }, { 33 }, { 47 },
        { 1, 15, 16, 0, 17, 32, 2, 5 }, { 7, 64, 9, 0, 0, 100, 1, 3 }, { 16, 1, 16, 1, 0, 48, 13, 31 }
    };
    for (size_t pi = 0; pi < sizeof patterns / sizeof patterns[0]; pi++) {
        size_t pos = 0, k = 0, ok_pos = 1;
        EXPECT_RC(aesgen_ctr_init(&b, start), AESGEN_OK);
        memset(pieces, 0, sizeof pieces);
        while (pos < sizeof msg) {
            size_t n = patterns[pi][k % 8];
            if (patterns[pi][1] == 0 && patterns[pi][2] == 0)
                n = patterns[pi][0]; /* one repeated size */
            k++;
            if (n > sizeof msg - pos)
                n = sizeof msg - pos;
            EXPECT_RC(aesgen_ctr_crypt(&ctx, &b, pieces + pos, msg + pos, n), AESGEN_OK);
            pos += n;
            if (!ctr_position_ok(&b, start, pos))
                ok_pos = 0;
        }
        CHECK(memcmp(one, pieces, sizeof msg) == 0,
              "[%s] CTR in calls of %zu, %zu, ... bytes (pattern %zu) differs from one call", label,
              patterns[pi][0], patterns[pi][1], pi);
        CHECK(ok_pos, "[%s] CTR stream counter/used wrong between calls (pattern %zu)", label, pi);
        /* both continue identically */
        uint8_t x[40], y[40];
        aesgen_ctr a2 = a;
        EXPECT_RC(aesgen_ctr_crypt(&ctx, &a2, x, msg, 40), AESGEN_OK);
        EXPECT_RC(aesgen_ctr_crypt(&ctx, &b, y, msg, 40), AESGEN_OK);
        CHECK(memcmp(x, y, 40) == 0, "[%s] streams at the same position continue differently",
              label);
    }

    /* Decryption is the same call. */
    {
        uint8_t back[300];
        EXPECT_RC(aesgen_ctr_init(&b, start), AESGEN_OK);
        EXPECT_RC(aesgen_ctr_crypt(&ctx, &b, back, one, sizeof one), AESGEN_OK);
        CHECK(memcmp(back, msg, sizeof msg) == 0, "[%s] CTR twice is not the identity", label);
    }

    /* Wrap-around and carries, against ECB of the counter blocks. */
    static const struct {
        const char *start, *name;
    } wraps[] = {
        { "ffffffffffffffffffffffffffffffff", "ff..ff -> 00..00 (128-bit wrap)" },
        { "fffffffffffffffffffffffffffffffd", "ff..fd (wrap after 3 blocks)" },
        { "0123456789abcdefffffffffffffffff", "low 64 bits ff..ff (carry into the high half)" },
        { "0123456789abcdeffffffffffffffffe", "low 64 bits ff..fe" },
        { "00000000ffffffffffffffffffffffff", "low 96 bits ff..ff" },
        { "0123456789abcdef01234567ffffffff", "low 32 bits ff..ff" },
    };
    for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
        enum { NB = 11 };
        uint8_t ctrs[16 * NB], ks[16 * NB], zero[16 * NB] = { 0 }, got[16 * NB];
        uint8_t c[16];
        hex(wraps[w].start, start, 16);
        memcpy(c, start, 16);
        for (int i = 0; i < NB; i++) {
            memcpy(ctrs + 16 * i, c, 16);
            for (int j = 15; j >= 0; j--)
                if (++c[j] != 0)
                    break;
        }
        EXPECT_RC(aesgen_ecb_encrypt(&ctx, ks, ctrs, sizeof ctrs), AESGEN_OK);
        /* one call */
        EXPECT_RC(aesgen_ctr_init(&a, start), AESGEN_OK);
        EXPECT_RC(aesgen_ctr_crypt(&ctx, &a, got, zero, sizeof zero), AESGEN_OK);
        CHECK(memcmp(got, ks, sizeof ks) == 0, "[%s] CTR keystream across %s", label, wraps[w].name);
        CHECK(ctr_position_ok(&a, start, sizeof zero), "[%s] counter after %s", label,
              wraps[w].name);
        /* mid-block calls across the wrap */
        static const size_t cut[] = { 7, 20, 1, 53, 16, 0, 3 };
        size_t pos = 0, k = 0;
        EXPECT_RC(aesgen_ctr_init(&a, start), AESGEN_OK);
        while (pos < sizeof zero) {
            size_t n = cut[k++ % 7];
            if (n > sizeof zero - pos)
                n = sizeof zero - pos;
            EXPECT_RC(aesgen_ctr_crypt(&ctx, &a, got + pos, zero + pos, n), AESGEN_OK);
            pos += n;
        }
        CHECK(memcmp(got, ks, sizeof ks) == 0, "[%s] CTR keystream across %s, split mid-block",
              label, wraps[w].name);
        CHECK(ctr_position_ok(&a, start, sizeof zero), "[%s] counter after %s, split", label,
              wraps[w].name);
    }
    aesgen_wipe(&ctx);
}

static void test_ctr(const char *backend)
{
    for (size_t kl = 16; kl <= 32; kl += 8) {
        char label[80];
        snprintf(label, sizeof label, "%s, AES-%zu", backend, kl * 8);
        test_ctr_key(label, kl);
    }
}

/* ------------------------------------------------------------------------ */
/* Backends                                                                   */

static const char *auto_variant[3][2];

static void record_automatic(void)
{
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 2; d++)
            auto_variant[k][d] = aesgen_selected_variant(128 + 64 * (unsigned)k, (aesgen_direction)d);
}

/* Every key size and direction reports `backend` (NULL: the automatic
 * choice recorded at start-up). */
static void check_selection(int line, const char *backend, const char *why)
{
    for (int k = 0; k < 3; k++) {
        unsigned bits = 128 + 64 * (unsigned)k;
        for (int d = 0; d < 2; d++) {
            const char *v = aesgen_selected_variant(bits, (aesgen_direction)d);
            const char *b = aesgen_selected_backend(bits, (aesgen_direction)d);
            if (backend == NULL) {
                check_impl(streq(v, auto_variant[k][d]), line,
                           "%s: AES-%u %s selects %s, automatic choice was %s", why, bits,
                           d ? "decrypt" : "encrypt", nn(v), nn(auto_variant[k][d]));
                continue;
            }
            check_impl(streq(b, backend), line, "%s: aesgen_selected_backend(%u, %d) is %s, not %s",
                       why, bits, d, nn(b), backend);
            const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
            check_impl(var != NULL && streq(var->backend, backend) && var->key_bits == bits &&
                           var->direction == d,
                       line, "%s: aesgen_selected_variant(%u, %d) is %s, not a variant of %s", why,
                       bits, d, nn(v), backend);
        }
    }
}

static void test_backends(void)
{
    size_t n = aesgen_backend_count();
    const char *supported_names[64];
    size_t nsup = 0;
    CHECK(n >= 1, "aesgen_backend_count() is %zu", n);
    for (size_t i = 0; i < n; i++) {
        const char *name = aesgen_backend_name(i);
        CHECK(name != NULL && name[0] != '\0', "aesgen_backend_name(%zu) is NULL or empty", i);
        if (!name)
            continue;
        for (size_t j = 0; j < i; j++)
            CHECK(!streq(name, aesgen_backend_name(j)), "backends %zu and %zu are both named %s", j,
                  i, name);
        int s = aesgen_backend_supported(name);
        CHECK(s == 0 || s == 1, "aesgen_backend_supported(\"%s\") is %d, expected 0 or 1", name, s);
        if (s == 1 && nsup < 64)
            supported_names[nsup++] = name;
        printf("  backend %-16s %s\n", name, s == 1 ? "supported" : "not supported on this CPU");

        /* A prefix or an extension of a name is not a name. */
        char longer[128], shorter[128];
        snprintf(longer, sizeof longer, "%sx", name);
        snprintf(shorter, sizeof shorter, "%s", name);
        shorter[strlen(shorter) - 1] = '\0';
        int known_longer = 0, known_shorter = 0;
        for (size_t j = 0; j < n; j++) {
            known_longer |= streq(longer, aesgen_backend_name(j));
            known_shorter |= streq(shorter, aesgen_backend_name(j));
        }
        if (!known_longer)
            EXPECT_RC(aesgen_backend_supported(longer), AESGEN_ERR_BACKEND);
        if (!known_shorter)
            EXPECT_RC(aesgen_backend_supported(shorter), AESGEN_ERR_BACKEND);
    }
    CHECK(aesgen_backend_name(n) == NULL, "aesgen_backend_name(count) is not NULL");
    CHECK(aesgen_backend_name(n + 1) == NULL, "aesgen_backend_name(count + 1) is not NULL");
    CHECK(aesgen_backend_name(SIZE_MAX) == NULL, "aesgen_backend_name(SIZE_MAX) is not NULL");
    CHECK(nsup >= 1, "no backend is supported on this CPU");
    EXPECT_RC(aesgen_backend_supported("no-such-backend"), AESGEN_ERR_BACKEND);
    EXPECT_RC(aesgen_backend_supported(""), AESGEN_ERR_BACKEND);
    EXPECT_RC2(aesgen_backend_supported(NULL), AESGEN_ERR_BACKEND, AESGEN_ERR_NULL);

    /* Invalid key sizes and directions. */
    static const unsigned bad_bits[] = { 0, 1, 64, 127, 129, 160, 191, 193, 255, 257, 384, 512,
                                         UINT_MAX };
    for (size_t i = 0; i < sizeof bad_bits / sizeof bad_bits[0]; i++)
        for (int d = 0; d < 2; d++) {
            CHECK(aesgen_selected_variant(bad_bits[i], (aesgen_direction)d) == NULL,
                  "aesgen_selected_variant(%u, %d) is not NULL", bad_bits[i], d);
            CHECK(aesgen_selected_backend(bad_bits[i], (aesgen_direction)d) == NULL,
                  "aesgen_selected_backend(%u, %d) is not NULL", bad_bits[i], d);
        }
    for (unsigned bits = 128; bits <= 256; bits += 64) {
        static const int bad_dirs[] = { 2, 3, 255, INT_MAX };
        for (size_t i = 0; i < sizeof bad_dirs / sizeof bad_dirs[0]; i++) {
            CHECK(aesgen_selected_variant(bits, (aesgen_direction)bad_dirs[i]) == NULL,
                  "aesgen_selected_variant(%u, direction %d) is not NULL", bits, bad_dirs[i]);
            CHECK(aesgen_selected_backend(bits, (aesgen_direction)bad_dirs[i]) == NULL,
                  "aesgen_selected_backend(%u, direction %d) is not NULL", bits, bad_dirs[i]);
        }
    }
    {
        aesgen_ctx ctx;
        EXPECT_RC(aesgen_init(&ctx, key32, 16), AESGEN_OK);
        CHECK(aesgen_ctx_variant(&ctx, (aesgen_direction)2) == NULL,
              "aesgen_ctx_variant(ctx, direction 2) is not NULL");
        CHECK(aesgen_ctx_variant(NULL, AESGEN_ENCRYPT) == NULL,
              "aesgen_ctx_variant(NULL, encrypt) is not NULL");
        aesgen_wipe(&ctx);
    }

    check_selection(__LINE__, NULL, "before any aesgen_force_backend");

    /* Each supported backend: forced, reported for every key size, used by
     * new contexts, and correct. */
    for (size_t i = 0; i < nsup; i++) {
        const char *name = supported_names[i];
        char why[96];
        snprintf(why, sizeof why, "after aesgen_force_backend(\"%s\")", name);
        EXPECT_RC(aesgen_force_backend(name), AESGEN_OK);
        check_selection(__LINE__, name, why);
        for (size_t kl = 16; kl <= 32; kl += 8) {
            aesgen_ctx ctx;
            EXPECT_RC(aesgen_init(&ctx, key32, kl), AESGEN_OK);
            for (int d = 0; d < 2; d++) {
                const char *v = aesgen_ctx_variant(&ctx, (aesgen_direction)d);
                const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
                CHECK(var != NULL && streq(var->backend, name),
                      "%s: aesgen_ctx_variant(AES-%zu, %d) is %s, not a variant of %s", why, kl * 8,
                      d, nn(v), name);
                CHECK(streq(v, aesgen_selected_variant((unsigned)kl * 8, (aesgen_direction)d)),
                      "%s: context variant %s differs from the selected one", why, nn(v));
            }
            aesgen_wipe(&ctx);
        }
        test_known_answers(name);
        test_ctr(name);

        /* A bogus name fails and changes nothing. */
        EXPECT_RC(aesgen_force_backend("no-such-backend"), AESGEN_ERR_BACKEND);
        snprintf(why, sizeof why, "after a failed force following \"%s\"", name);
        check_selection(__LINE__, name, why);
        EXPECT_RC(aesgen_force_backend(""), AESGEN_ERR_BACKEND);
        check_selection(__LINE__, name, why);
    }
    /* Backends that exist but cannot run here cannot be forced. */
    for (size_t i = 0; i < n; i++) {
        const char *name = aesgen_backend_name(i);
        if (name && aesgen_backend_supported(name) == 0 && nsup > 0) {
            EXPECT_RC(aesgen_force_backend(supported_names[0]), AESGEN_OK);
            EXPECT_RC(aesgen_force_backend(name), AESGEN_ERR_BACKEND);
            check_selection(__LINE__, supported_names[0], "after forcing an unsupported backend");
        }
    }

    /* Contexts already set up keep their variants. */
    if (nsup >= 2) {
        aesgen_ctx ctx;
        uint8_t pt[16] = { 0 }, c1[16], c2[16];
        EXPECT_RC(aesgen_force_backend(supported_names[0]), AESGEN_OK);
        EXPECT_RC(aesgen_init(&ctx, key32, 16), AESGEN_OK);
        const char *before = aesgen_ctx_variant(&ctx, AESGEN_ENCRYPT);
        EXPECT_RC(aesgen_ecb_encrypt(&ctx, c1, pt, 16), AESGEN_OK);
        EXPECT_RC(aesgen_force_backend(supported_names[1]), AESGEN_OK);
        const char *after = aesgen_ctx_variant(&ctx, AESGEN_ENCRYPT);
        CHECK(streq(before, after), "forcing %s changed the variant of an existing context (%s -> %s)",
              supported_names[1], nn(before), nn(after));
        EXPECT_RC(aesgen_ecb_encrypt(&ctx, c2, pt, 16), AESGEN_OK);
        CHECK(memcmp(c1, c2, 16) == 0, "existing context encrypts differently after a force");
        aesgen_wipe(&ctx);
    } else {
        printf("  note: one supported backend; \"contexts keep their variants\" not exercised\n");
    }

    /* NULL returns to the automatic choice; a bogus name then changes nothing. */
    EXPECT_RC(aesgen_force_backend(NULL), AESGEN_OK);
    check_selection(__LINE__, NULL, "after aesgen_force_backend(NULL)");
    EXPECT_RC(aesgen_force_backend("no-such-backend"), AESGEN_ERR_BACKEND);
    check_selection(__LINE__, NULL, "after a failed force in automatic mode");
}

/* ------------------------------------------------------------------------ */
/* Internal API used by the other tests: registry and aesgen_init_variants    */

static void test_internal(void)
{
    CHECK(aesgen_registry_size >= 1, "the registry is empty");
    CHECK(aesgen_find_variant(NULL) == NULL, "aesgen_find_variant(NULL) is not NULL");
    CHECK(aesgen_find_variant("no_such_variant") == NULL,
          "aesgen_find_variant(\"no_such_variant\") is not NULL");
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        CHECK(v != NULL && v->name != NULL && v->backend != NULL, "registry entry %zu incomplete", i);
        if (!v || !v->name || !v->backend)
            continue;
        CHECK(aesgen_find_variant(v->name) == v, "aesgen_find_variant(\"%s\") is not entry %zu",
              v->name, i);
        CHECK((v->key_bits == 128 || v->key_bits == 192 || v->key_bits == 256) && v->direction <= 1,
              "%s: key_bits %u, direction %u", v->name, (unsigned)v->key_bits,
              (unsigned)v->direction);
        CHECK(v->batch_blocks >= 1 && v->schedule_bytes <= AESGEN_MAX_SCHEDULE_BYTES,
              "%s: batch_blocks %u, schedule_bytes %u", v->name, (unsigned)v->batch_blocks,
              (unsigned)v->schedule_bytes);
        CHECK(v->setkey && v->ecb && v->cbc && (v->direction == 0) == (v->ctr != NULL),
              "%s: function pointers (ctr must be set exactly for encryption variants)", v->name);
        int listed = 0;
        for (size_t b = 0; b < aesgen_backend_count(); b++)
            listed |= streq(aesgen_backend_name(b), v->backend);
        CHECK(listed, "%s: its backend %s is not listed by aesgen_backend_name", v->name,
              v->backend);
    }

    /* aesgen_init_variants refuses a variant of the wrong key size or
     * direction, and changes nothing. */
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (!v || !aesgen_variant_usable(v))
            continue;
        aesgen_ctx ctx;
        size_t kl = v->key_bits / 8, wrong_kl = kl == 16 ? 32 : 16;
        const aesgen_variant *enc = v->direction == 0 ? v : NULL, *dec = v->direction == 1 ? v : NULL;
        EXPECT_RC(aesgen_init_variants(&ctx, key32, kl, enc, dec), AESGEN_OK);
        CHECK(streq(aesgen_ctx_variant(&ctx, (aesgen_direction)v->direction), v->name),
              "aesgen_init_variants did not install %s", v->name);
        fill(&ctx, sizeof ctx, 0x44);
        watch("context", &ctx, sizeof ctx);
        int rc = aesgen_init_variants(&ctx, key32, wrong_kl, enc, dec);
        CHECK(rc == AESGEN_ERR_BACKEND, "aesgen_init_variants(%zu-byte key, %s) returned %d (%s)",
              wrong_kl, v->name, rc, st(rc));
        rc = aesgen_init_variants(&ctx, key32, kl, dec, enc); /* swapped directions */
        CHECK(rc == AESGEN_ERR_BACKEND,
              "aesgen_init_variants with %s in the wrong direction slot returned %d (%s)", v->name,
              rc, st(rc));
        WATCH_CHECK("aesgen_init_variants with a mismatched variant");
    }
}

/* ------------------------------------------------------------------------ */
/* AESGEN_BACKEND environment variable (separate CTest tests)                 */

static int env_expect_error(void)
{
    const char *env = getenv("AESGEN_BACKEND");
    const char *mask = getenv("AESGEN_CPU_DISABLE");
    aesgen_ctx ctx;
    CHECK((env != NULL && aesgen_backend_supported(env) < 0) || mask != NULL,
          "this mode needs AESGEN_BACKEND to name no backend (it is %s) or AESGEN_CPU_DISABLE to name "
          "an unknown feature", nn(env));
    for (size_t kl = 16; kl <= 32; kl += 8) {
        fill(&ctx, sizeof ctx, 0x77);
        watch("context", &ctx, sizeof ctx);
        int rc = aesgen_init(&ctx, key32, kl);
        CHECK(rc == AESGEN_ERR_BACKEND,
              "AESGEN_BACKEND=%s: aesgen_init(%zu-byte key) returned %d (%s), expected %s", nn(env),
              kl, rc, st(rc), st(AESGEN_ERR_BACKEND));
        WATCH_CHECK("aesgen_init under a bogus AESGEN_BACKEND");
    }
    /* aesgen_force_backend overrides the variable. */
    for (size_t i = 0; i < aesgen_backend_count(); i++) {
        const char *name = aesgen_backend_name(i);
        if (name && aesgen_backend_supported(name) == 1) {
            EXPECT_RC(aesgen_force_backend(name), AESGEN_OK);
            int rc = aesgen_init(&ctx, key32, 16);
            CHECK(rc == AESGEN_OK,
                  "aesgen_force_backend(\"%s\") did not override AESGEN_BACKEND=%s: aesgen_init "
                  "returned %d (%s)",
                  name, nn(env), rc, st(rc));
            const char *v = aesgen_ctx_variant(&ctx, AESGEN_ENCRYPT);
            const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
            CHECK(var && streq(var->backend, name), "forced %s, context uses %s", name, nn(v));
            aesgen_wipe(&ctx);
            break;
        }
    }
    return 0;
}

/* Automatic choice, e.g. with CPU features masked, must be this backend. */
static void expect_dispatch(const char *name)
{
    CHECK(getenv("AESGEN_BACKEND") == NULL, "AESGEN_BACKEND is set; this mode tests automatic dispatch");
    aesgen_ctx ctx;
    for (size_t kl = 16; kl <= 32; kl += 8) {
        for (int d = 0; d < 2; d++) {
            const char *b = aesgen_selected_backend((unsigned)kl * 8, (aesgen_direction)d);
            CHECK(streq(b, name), "AES-%zu %s: dispatch picks %s, expected %s", kl * 8,
                  d ? "decrypt" : "encrypt", nn(b), name);
        }
        EXPECT_RC(aesgen_init(&ctx, key32, kl), AESGEN_OK);
        aesgen_wipe(&ctx);
    }
    test_known_answers(name);
}

static int env_expect_backend(const char *name)
{
    const char *env = getenv("AESGEN_BACKEND");
    aesgen_ctx ctx;
    int s = aesgen_backend_supported(name);
    CHECK(streq(env, name), "AESGEN_BACKEND is %s, this mode expects %s", nn(env), name);
    CHECK(s == 0 || s == 1, "AESGEN_BACKEND names %s, which this library does not have", name);
    if (s == 0) {
        /* It exists but cannot run here: aesgen_init must refuse. */
        printf("  note: backend %s cannot run on this CPU; checking that aesgen_init refuses it\n",
               name);
        for (size_t kl = 16; kl <= 32; kl += 8) {
            fill(&ctx, sizeof ctx, 0x77);
            watch("context", &ctx, sizeof ctx);
            int rc = aesgen_init(&ctx, key32, kl);
            CHECK(rc == AESGEN_ERR_BACKEND,
                  "AESGEN_BACKEND=%s (unsupported here): aesgen_init returned %d (%s), expected %s",
                  name, rc, st(rc), st(AESGEN_ERR_BACKEND));
            WATCH_CHECK("aesgen_init under an unsupported AESGEN_BACKEND");
        }
        return 0;
    }
    if (s != 1)
        return 0;
    check_selection(__LINE__, name, "with AESGEN_BACKEND set");
    for (size_t kl = 16; kl <= 32; kl += 8) {
        EXPECT_RC(aesgen_init(&ctx, key32, kl), AESGEN_OK);
        for (int d = 0; d < 2; d++) {
            const char *v = aesgen_ctx_variant(&ctx, (aesgen_direction)d);
            const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
            CHECK(var != NULL && streq(var->backend, name),
                  "AESGEN_BACKEND=%s: AES-%zu context uses %s", name, kl * 8, nn(v));
        }
        aesgen_wipe(&ctx);
    }
    test_known_answers(name);
    /* A call to aesgen_force_backend overrides the variable. */
    for (size_t i = 0; i < aesgen_backend_count(); i++) {
        const char *other = aesgen_backend_name(i);
        if (other && !streq(other, name) && aesgen_backend_supported(other) == 1) {
            EXPECT_RC(aesgen_force_backend(other), AESGEN_OK);
            check_selection(__LINE__, other, "aesgen_force_backend over AESGEN_BACKEND");
            break;
        }
    }
    return 0;
}

/* AESGEN_BACKEND=software: every context gets the best usable software
 * (bitsliced) variant, the same one aesgen_force_backend("software") picks.
 * `ladder` lists the software backends best first (the documented order); the
 * expected one is the first this process can run, as the runtime's CPU view
 * says (under valgrind, say, that view lacks AVX-512 even where the CPU has it). */
static int env_expect_software(const char *ladder)
{
    aesgen_ctx ctx;
    char expect[64] = "";
    for (const char *p = ladder; *p != '\0' && expect[0] == '\0';) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        if (aesgen_backend_supported(name) == 1)
            snprintf(expect, sizeof expect, "%s", name);
        p += len + (end != NULL);
    }
    printf("  the first of %s this CPU runs: %s\n", ladder, expect[0] ? expect : "(none)");
    CHECK(expect[0] != '\0', "no backend of the software ladder %s runs here", ladder);
    CHECK(streq(getenv("AESGEN_BACKEND"), "software"), "AESGEN_BACKEND is %s, this mode expects software",
          nn(getenv("AESGEN_BACKEND")));
    CHECK(aesgen_backend_supported("software") == 1, "the software class is not supported");
    for (size_t kl = 16; kl <= 32; kl += 8) {
        EXPECT_RC(aesgen_init(&ctx, key32, kl), AESGEN_OK);
        for (int d = 0; d < 2; d++) {
            const char *v = aesgen_ctx_variant(&ctx, (aesgen_direction)d);
            const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
            CHECK(var != NULL && var->word_bits != 0 && streq(var->backend, expect),
                  "AESGEN_BACKEND=software: AES-%zu %s uses %s, expected a %s variant", kl * 8,
                  d ? "decryption" : "encryption", nn(v), expect);
        }
        aesgen_wipe(&ctx);
    }
    test_known_answers("software");
    EXPECT_RC(aesgen_force_backend("software"), AESGEN_OK);
    CHECK(streq(aesgen_selected_backend(128, AESGEN_ENCRYPT), expect),
          "aesgen_force_backend(\"software\") selects %s", nn(aesgen_selected_backend(128, AESGEN_ENCRYPT)));
    EXPECT_RC(aesgen_force_backend(NULL), AESGEN_OK);
    return 0;
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && strcmp(argv[1], "--env-expect-error") == 0) {
        printf("aesgen_api_test: AESGEN_BACKEND=%s must be refused\n", nn(getenv("AESGEN_BACKEND")));
        env_expect_error();
    } else if (argc == 3 && strcmp(argv[1], "--env-expect-backend") == 0) {
        printf("aesgen_api_test: AESGEN_BACKEND=%s must be selected\n",
               nn(getenv("AESGEN_BACKEND")));
        env_expect_backend(argv[2]);
    } else if (argc == 3 && strcmp(argv[1], "--env-expect-software") == 0) {
        printf("aesgen_api_test: AESGEN_BACKEND=software must select the best of %s\n", argv[2]);
        env_expect_software(argv[2]);
    } else if (argc == 3 && strcmp(argv[1], "--expect-dispatch") == 0) {
        printf("aesgen_api_test: AESGEN_CPU_DISABLE=%s, dispatch must pick %s\n",
               nn(getenv("AESGEN_CPU_DISABLE")), argv[2]);
        expect_dispatch(argv[2]);
    } else if (argc == 1) {
        const char *env = getenv("AESGEN_BACKEND");
        printf("aesgen_api_test: aesgen %s\n", nn(aesgen_version_string()));
        if (env && *env)
            printf("  note: AESGEN_BACKEND=%s is set; \"automatic\" below means that backend\n", env);
        record_automatic();
        test_version();
        test_status_strings();
        test_known_answers("automatic");
        test_init();
        test_null_pointers();
        test_lengths();
        test_overlap();
        test_uninitialised();
        test_wipe();
        test_ctr("automatic");
        test_backends();
        test_internal();
    } else {
        fprintf(stderr,
                "usage: %s [--env-expect-error | --env-expect-backend NAME | --expect-dispatch NAME]\n",
                argv[0]);
        return 2;
    }
    printf("%s: %lu checks, %lu failed\n", failures ? "FAILED" : "PASS", checks, failures);
    return failures ? 1 : 0;
}
