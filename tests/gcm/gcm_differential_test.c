/*
 * aesgen_gcm_differential -- aesgen's AES-GCM against OpenSSL's (EVP).
 *
 *   aesgen_gcm_differential [--ghash NAME | --backend NAME] [--quick] [--seed N]
 *   (AESGEN_GCM_DIFFERENTIAL_QUICK=1 in the environment is --quick, and so is the
 *   AESGEN_DIFFERENTIAL_QUICK=1 that scripts/hardening.sh sets under valgrind)
 *
 * --ghash NAME    keys set up with aesgen_gcm_init_variants(key, k, len, NULL, that
 *                 GHASH), AES by dispatch; skipped (77) where the CPU cannot run it
 * --backend NAME  aesgen_force_backend(NAME); every key size it serves, GHASH by dispatch
 * (neither)       automatic dispatch
 *
 * Every case (random key, IV, AAD, text from the seed) is sealed by OpenSSL; aesgen
 * must give the same ciphertext and tag (the first tag_len bytes) one-shot and
 * streamed (AAD and text split at random points, empty calls included), and must
 * open OpenSSL's output both ways, in place or out of place at input/output offsets
 * 0..15, with guard bytes around every output and the tag that must survive
 * (nothing outside them written). Most cases then tamper with one thing (a bit of
 * the ciphertext, the tag, the AAD or the IV, or the AAD a byte shorter or longer):
 * aesgen_gcm_open must return AESGEN_ERR_AUTH without writing a byte of out, and a
 * streamed open must end in AESGEN_ERR_AUTH from aesgen_gcm_verify.
 *
 * Sweeps, every key size: text lengths 0..2048 (--quick: every 7th above 300), AAD
 * lengths 0..300, IV lengths 1..128, every tag length, every pair of offsets, random
 * splits, tampering, 64 KiB + odd and (not --quick) 1 MiB + 13, the inc32 counter
 * wrap (IVs solved so that J0 ends just below 2^32 in its low word), and the stitched
 * seal's texts of whole chunks and just past them with AADs around 16 bytes.
 *
 * Exit status: 0 all passed, 1 a mismatch (each printed with its case; --seed N
 * reproduces a run), 2 usage, 77 the GHASH or backend cannot run on this CPU.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcm_differential.h"
#include "gcm_gf128.h"
#include "ts_report.h"
#include "ts_variant.h"

#define DEFAULT_SEED UINT64_C(0x67636d6469666631) /* "gcmdiff1" */
#define GUARD 48
#define ARENA_LEN (GUARD + 16 + GCM_MAX_LEN + GUARD)

gcm_config gcm_cfg;
ts_rng gcm_rng;
uint8_t *gcm_pt, *gcm_aad;
EVP_CIPHER_CTX *gcm_ossl;

static uint8_t *in_arena, *out_arena, *exp_ct, *tam_ct, *scratch;
static uint8_t *tam_aad;
static unsigned long long case_no, bytes_through;

static const char *const tamper_name[TAMPER_KINDS] = {
    "one bit of the ciphertext", "one bit of the tag", "one bit of the AAD",
    "one bit of the IV",         "the AAD one byte shorter", "the AAD one byte longer",
};

/* ------------------------------------------------------------------ cases */

void gcm_case_data(const gcm_case *c)
{
    ts_rng_bytes(&gcm_rng, gcm_pt, c->len);
    ts_rng_bytes(&gcm_rng, gcm_aad, c->aad_len);
}

void gcm_case_random(gcm_case *c, const char *sweep, unsigned bits, size_t len, size_t aad_max)
{
    memset(c, 0, sizeof *c);
    c->sweep = sweep;
    c->bits = bits;
    ts_rng_bytes(&gcm_rng, c->key, sizeof c->key);
    c->iv_len = ts_rng_below(&gcm_rng, 8) == 0 ? 1 + ts_rng_below(&gcm_rng, GCM_OSSL_MAX_IV) : 12;
    ts_rng_bytes(&gcm_rng, c->iv, c->iv_len);
    c->aad_len = ts_rng_below(&gcm_rng, aad_max + 1);
    c->len = len;
    c->tag_len = gcm_tag_lengths[ts_rng_below(&gcm_rng, GCM_TAG_LENGTH_COUNT)];
    c->in_place = ts_rng_below(&gcm_rng, 3) == 0;
    c->in_off = ts_rng_below(&gcm_rng, 16);
    c->out_off = ts_rng_below(&gcm_rng, 16);
    gcm_cuts_random(&c->aad_cuts, &gcm_rng, c->aad_len, 4);
    gcm_cuts_random(&c->text_cuts, &gcm_rng, c->len, 6);
    c->tamper = (int)ts_rng_below(&gcm_rng, TAMPER_KINDS);
    c->wrap_block = -1;
}

static const gcm_case *cur;

static void print_case(const gcm_case *c)
{
    char cuts[GCM_MAX_PIECES * 48];
    printf("  case #%llu (sweep %s), seed 0x%" PRIx64 "%s, %s\n", case_no, c->sweep, gcm_cfg.seed,
           gcm_cfg.quick ? " --quick" : "", gcm_subject_name(&gcm_cfg.subject));
    printf("  AES-%u-GCM, text %zu bytes, AAD %zu bytes, IV %zu bytes, tag %zu bytes, %s, ", c->bits,
           c->len, c->aad_len, c->iv_len, c->tag_len, c->in_place ? "in place" : "out of place");
    if (c->in_place)
        printf("buffer at 64n+%zu\n", c->out_off);
    else
        printf("input at 64n+%zu, output at 64n+%zu\n", c->in_off, c->out_off);
    printf("  stream AAD calls:%s\n", gcm_cuts_format(&c->aad_cuts, cuts, sizeof cuts));
    printf("  stream text calls:%s\n", gcm_cuts_format(&c->text_cuts, cuts, sizeof cuts));
    if (c->wrap_block >= 0)
        printf("  the counter's low 32 bits wrap at text block %ld\n", c->wrap_block);
    ts_hex_line(stdout, "key: ", c->key, c->bits / 8);
    ts_hex_line(stdout, "iv:  ", c->iv, c->iv_len < 64 ? c->iv_len : 64);
    ts_hex_line(stdout, "aad: ", gcm_aad, c->aad_len < 64 ? c->aad_len : 64);
    ts_hex_line(stdout, "pt:  ", gcm_pt, c->len < 64 ? c->len : 64);
    if (c->len > 64 || c->aad_len > 64 || c->iv_len > 64)
        printf("  (IV, AAD and text shown up to 64 bytes; the seed gives all of them)\n");
}

/* A mismatch of the current case: the message, then (once per case) the case. */
static int case_printed;
static void mismatch(const char *fmt, ...)
{
    va_list ap;
    if (!ts_mismatch_begin())
        return;
    printf("MISMATCH %s: case #%llu: ", ts_subject.name, case_no);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!case_printed && cur != NULL) {
        print_case(cur);
        case_printed = 1;
    }
    fflush(stdout);
}

static int same(const char *what, const uint8_t *expected, const uint8_t *got, size_t n)
{
    if (n == 0 || memcmp(expected, got, n) == 0)
        return 1;
    size_t i = 0;
    while (expected[i] == got[i])
        i++;
    const size_t from = i - i % 16, m = n - from < 16 ? n - from : 16;
    char e[40], g[40];
    for (size_t k = 0; k < m; k++) {
        snprintf(e + 2 * k, 3, "%02x", expected[from + k]);
        snprintf(g + 2 * k, 3, "%02x", got[from + k]);
    }
    mismatch("%s differs from byte %zu (block %zu)\n    expected %s\n    got      %s", what, i, i / 16, e, g);
    return 0;
}

static int status_is(const char *what, int got, int want)
{
    if (got == want)
        return 1;
    mismatch("%s returned %d (%s), expected %d (%s)", what, got, aesgen_status_string(got), want,
             aesgen_status_string(want));
    return 0;
}

/* The regions of a call: both arenas filled with the guard pattern, the input copied in. */
typedef struct placed {
    uint8_t *in, *out;
    size_t used;
} placed;

static placed place(const gcm_case *c, const uint8_t *data, int null_if_empty)
{
    placed p;
    p.used = GUARD + 16 + c->len + GUARD;
    ts_region_fill(out_arena, p.used);
    p.out = out_arena + GUARD + c->out_off;
    if (c->in_place) {
        p.in = p.out;
    } else {
        ts_region_fill(in_arena, p.used);
        p.in = in_arena + GUARD + c->in_off;
    }
    memcpy(p.in, data, c->len);
    if (c->len == 0 && null_if_empty)
        p.in = p.out = NULL;
    return p;
}

/* Nothing written outside [out, out + len); an out-of-place input still holds `data`. */
static int guards_ok(const char *what, const gcm_case *c, const placed *p, const uint8_t *data)
{
    char w[160];
    const size_t lo = GUARD + c->out_off;
    size_t at = ts_region_changed(out_arena, lo, lo + c->len, p->used);
    if (at != p->used) {
        mismatch("%s: byte %zd relative to the output written (a guard byte)", what, (ptrdiff_t)at - (ptrdiff_t)lo);
        return 0;
    }
    if (!c->in_place) {
        const size_t ilo = GUARD + c->in_off;
        at = ts_region_changed(in_arena, ilo, ilo + c->len, p->used);
        if (at != p->used) {
            mismatch("%s: byte %zd relative to the input written (out of place)", what, (ptrdiff_t)at - (ptrdiff_t)ilo);
            return 0;
        }
        snprintf(w, sizeof w, "%s: the input afterwards (out of place)", what);
        return same(w, data, in_arena + ilo, c->len);
    }
    return 1;
}

static int tag_guards_ok(const char *what, const uint8_t *tagr, size_t tag_len)
{
    const size_t at = ts_region_changed(tagr, GUARD, GUARD + tag_len, GUARD + 16 + GUARD);
    if (at == GUARD + 16 + GUARD)
        return 1;
    mismatch("%s: tag buffer byte %zd written (tag_len %zu)", what, (ptrdiff_t)at - GUARD, tag_len);
    return 0;
}

void gcm_oracle_check(const char *failed)
{
    if (failed == NULL)
        return;
    printf("FAIL: OpenSSL oracle: %s failed (seed 0x%llx)\n", failed, (unsigned long long)gcm_cfg.seed);
    exit(1);
}

/* The IV to give OpenSSL for (iv, iv_len): itself, or for IVs longer than OpenSSL
 * takes, a 16-byte one with the same J0 (GCM depends on the IV only through J0). */
static const uint8_t *oracle_iv(const gcm_case *c, const uint8_t *iv, size_t iv_len, uint8_t iv16[16], size_t *n)
{
    if (iv_len <= GCM_OSSL_MAX_IV) {
        *n = iv_len;
        return iv;
    }
    static const uint8_t zero[16];
    uint8_t h[16], j0[16];
    gcm_oracle_check(ts_oracle_ecb_block(gcm_ossl, c->bits, c->key, zero, h));
    gf128_j0(j0, h, iv, iv_len);
    if (!gf128_iv_for_j0(iv16, 16, h, j0)) {
        printf("FAIL: no 16-byte IV with the J0 of a %zu-byte one (the test's GF(2^128) arithmetic?)\n", iv_len);
        exit(1);
    }
    *n = 16;
    return iv16;
}

/* The keystream block at the wrap must be E_K(J0[0..12) || 00000000): proof that the
 * case reaches the wrap and that OpenSSL counts as inc32 does. */
static void check_wrap(const gcm_case *c)
{
    const size_t at = (size_t)c->wrap_block * 16;
    if (c->wrap_block < 0 || at >= c->len)
        return;
    uint8_t block[16], ks[16];
    memcpy(block, c->j0, 12);
    memset(block + 12, 0, 4);
    gcm_oracle_check(ts_oracle_ecb_block(gcm_ossl, c->bits, c->key, block, ks));
    const size_t n = c->len - at < 16 ? c->len - at : 16;
    for (size_t k = 0; k < n; k++)
        if ((uint8_t)(exp_ct[at + k] ^ gcm_pt[at + k]) != ks[k]) {
            printf("FAIL: the test's counter-wrap case does not reach the wrap (or OpenSSL carries "
                   "out of the low 32 bits)\n");
            print_case(c);
            exit(1);
        }
}

static void run_tampered(gcm_case *c, const aesgen_gcm_key *key, const uint8_t exp_tag[16])
{
    uint8_t t_iv[GCM_MAX_IV], t_tag[16];
    size_t t_aad_len = c->aad_len;
    int kind = c->tamper;
    if ((kind == TAMPER_CT_BIT && c->len == 0) ||
        ((kind == TAMPER_AAD_BIT || kind == TAMPER_AAD_SHORT) && c->aad_len == 0))
        kind = TAMPER_TAG_BIT;
    memcpy(t_iv, c->iv, c->iv_len);
    memcpy(tam_aad, gcm_aad, c->aad_len);
    memcpy(tam_ct, exp_ct, c->len);
    memcpy(t_tag, exp_tag, 16);
    const size_t bit = ts_rng_next(&gcm_rng) % 8;
    switch (kind) {
    case TAMPER_CT_BIT: tam_ct[ts_rng_below(&gcm_rng, c->len)] ^= (uint8_t)(1u << bit); break;
    case TAMPER_TAG_BIT: t_tag[ts_rng_below(&gcm_rng, c->tag_len)] ^= (uint8_t)(1u << bit); break;
    case TAMPER_AAD_BIT: tam_aad[ts_rng_below(&gcm_rng, c->aad_len)] ^= (uint8_t)(1u << bit); break;
    case TAMPER_IV_BIT: t_iv[ts_rng_below(&gcm_rng, c->iv_len)] ^= (uint8_t)(1u << bit); break;
    case TAMPER_AAD_SHORT: t_aad_len--; break;
    default: tam_aad[t_aad_len++] = (uint8_t)ts_rng_next(&gcm_rng); break;
    }
    char what[96];
    snprintf(what, sizeof what, "open with %s", tamper_name[kind]);

    /* the oracle must refuse it too (else the tampering changed nothing) */
    int authentic = 1;
    uint8_t iv16[16];
    size_t oiv_len;
    const uint8_t *oiv = oracle_iv(c, t_iv, c->iv_len, iv16, &oiv_len);
    gcm_oracle_check(ts_oracle_gcm_open(gcm_ossl, c->bits, c->key, oiv, oiv_len, tam_aad, t_aad_len, scratch,
                                        tam_ct, c->len, t_tag, c->tag_len, &authentic));
    if (authentic) {
        printf("FAIL: OpenSSL accepts the tampered message (%s); the test is wrong\n", what);
        print_case(c);
        exit(1);
    }

    /* one-shot: AESGEN_ERR_AUTH and not a byte of out written */
    placed p = place(c, tam_ct, 0);
    int rc = aesgen_gcm_open(key, t_iv, c->iv_len, tam_aad, t_aad_len, p.out, p.in, c->len, t_tag, c->tag_len);
    if (status_is(what, rc, AESGEN_ERR_AUTH)) {
        char w[160];
        if (c->in_place) {
            snprintf(w, sizeof w, "%s (in place): the buffer afterwards (the ciphertext must stay)", what);
            same(w, tam_ct, p.out, c->len);
        } else {
            const size_t at = ts_region_changed(out_arena, 0, 0, p.used);
            if (at != p.used)
                mismatch("%s: out written though the tag was refused (byte %zd relative to out)", what,
                         (ptrdiff_t)at - (ptrdiff_t)(GUARD + c->out_off));
        }
        snprintf(w, sizeof w, "%s (refused)", what);
        guards_ok(w, c, &p, tam_ct);
    }

    /* streamed: verify refuses (the plaintext it released is allowed) */
    gcm_cuts ac = c->aad_cuts;
    if (t_aad_len != c->aad_len)
        gcm_cuts_random(&ac, &gcm_rng, t_aad_len, 4);
    const char *failed = NULL;
    p = place(c, tam_ct, 0);
    rc = gcm_stream_open(key, t_iv, c->iv_len, tam_aad, &ac, p.out, p.in, &c->text_cuts, t_tag,
                        c->tag_len, &failed);
    if (rc != AESGEN_ERR_AUTH || failed == NULL || strcmp(failed, "verify") != 0) {
        mismatch("streamed %s: aesgen_gcm_%s returned %d (%s), expected verify to return AESGEN_ERR_AUTH", what,
                 failed ? failed : "verify", rc, aesgen_status_string(rc));
    } else {
        char w[160];
        snprintf(w, sizeof w, "streamed %s", what);
        guards_ok(w, c, &p, tam_ct);
    }
}

int gcm_case_run(gcm_case *c)
{
    uint8_t exp_tag[16], tagr[GUARD + 16 + GUARD];
    aesgen_gcm_key key;
    char why[256];
    const char *failed = NULL;
    int rc;

    cur = c;
    case_no++;
    case_printed = 0;
    ts_case_begin();
    const uint8_t *aad = c->aad_len == 0 && (case_no & 1) ? NULL : gcm_aad;

    uint8_t iv16[16];
    size_t oiv_len;
    const uint8_t *oiv = oracle_iv(c, c->iv, c->iv_len, iv16, &oiv_len);
    gcm_oracle_check(ts_oracle_gcm_seal(gcm_ossl, c->bits, c->key, oiv, oiv_len, gcm_aad, c->aad_len, exp_ct, gcm_pt,
                                        c->len, exp_tag));
    check_wrap(c);
    if (!gcm_subject_key(&gcm_cfg.subject, &key, c->key, c->bits / 8, why, sizeof why)) {
        mismatch("key set-up: %s", why);
        goto done;
    }
    bytes_through += 4 * (unsigned long long)c->len;

    /* 1. one-shot seal */
    placed p = place(c, gcm_pt, 1);
    ts_region_fill(tagr, sizeof tagr);
    rc = aesgen_gcm_seal(&key, c->iv, c->iv_len, aad, c->aad_len, p.out, p.in, c->len, tagr + GUARD, c->tag_len);
    if (status_is("aesgen_gcm_seal", rc, AESGEN_OK)) {
        same("aesgen_gcm_seal: ciphertext", exp_ct, out_arena + GUARD + c->out_off, c->len);
        same("aesgen_gcm_seal: tag", exp_tag, tagr + GUARD, c->tag_len);
        guards_ok("aesgen_gcm_seal", c, &p, gcm_pt);
        tag_guards_ok("aesgen_gcm_seal", tagr, c->tag_len);
    }

    /* 2. streamed seal */
    p = place(c, gcm_pt, 0);
    ts_region_fill(tagr, sizeof tagr);
    rc = gcm_stream_seal(&key, c->iv, c->iv_len, gcm_aad, &c->aad_cuts, p.out, p.in, &c->text_cuts,
                        tagr + GUARD, c->tag_len, &failed);
    if (rc != AESGEN_OK) {
        mismatch("streamed seal: aesgen_gcm_%s returned %d (%s)", failed, rc, aesgen_status_string(rc));
    } else {
        same("streamed seal: ciphertext", exp_ct, out_arena + GUARD + c->out_off, c->len);
        same("streamed seal: tag", exp_tag, tagr + GUARD, c->tag_len);
        guards_ok("streamed seal", c, &p, gcm_pt);
        tag_guards_ok("streamed seal", tagr, c->tag_len);
    }

    /* 3. one-shot open of OpenSSL's output */
    uint8_t tag_in[16];
    memcpy(tag_in, exp_tag, 16);
    p = place(c, exp_ct, 1);
    rc = aesgen_gcm_open(&key, c->iv, c->iv_len, aad, c->aad_len, p.out, p.in, c->len, tag_in, c->tag_len);
    if (status_is("aesgen_gcm_open of OpenSSL's output", rc, AESGEN_OK)) {
        same("aesgen_gcm_open: plaintext", gcm_pt, out_arena + GUARD + c->out_off, c->len);
        guards_ok("aesgen_gcm_open", c, &p, exp_ct);
        same("aesgen_gcm_open: its tag argument afterwards", exp_tag, tag_in, c->tag_len);
    }

    /* 4. streamed open */
    p = place(c, exp_ct, 0);
    rc = gcm_stream_open(&key, c->iv, c->iv_len, gcm_aad, &c->aad_cuts, p.out, p.in, &c->text_cuts,
                        tag_in, c->tag_len, &failed);
    if (rc != AESGEN_OK) {
        mismatch("streamed open of OpenSSL's output: aesgen_gcm_%s returned %d (%s)", failed, rc,
                 aesgen_status_string(rc));
    } else {
        same("streamed open: plaintext", gcm_pt, out_arena + GUARD + c->out_off, c->len);
        guards_ok("streamed open", c, &p, exp_ct);
    }

    /* 5. tampered */
    if (c->tamper != TAMPER_NONE)
        run_tampered(c, &key, exp_tag);
done:
    aesgen_gcm_wipe(&key);
    const int ok = ts_subject.case_ok;
    ts_case_end();
    cur = NULL;
    return ok;
}

/* --------------------------------------------------------------------- main */

static double now_seconds(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: aesgen_gcm_differential [--ghash NAME | --backend NAME] [--quick] [--seed N]\n"
            "  --ghash NAME    keys with this GHASH variant (AES by dispatch)\n"
            "  --backend NAME  force an AES backend (GHASH by dispatch)\n"
            "  --quick         fewer lengths, no 1 MiB message (or AESGEN_GCM_DIFFERENTIAL_QUICK=1)\n"
            "  --seed N        the cases (default 0x%" PRIx64 ")\n"
            "exit status: 0 passed, 1 a mismatch, 2 usage, 77 skipped\n",
            DEFAULT_SEED);
}

typedef void (*sweep_fn)(unsigned bits);

int main(int argc, char **argv)
{
    const char *ghash = NULL, *backend = NULL;

    setvbuf(stdout, NULL, _IOLBF, 0);
    gcm_cfg.seed = DEFAULT_SEED;
    /* AESGEN_DIFFERENTIAL_QUICK too: scripts/hardening.sh sets it for the whole suite
     * under valgrind (ctest cannot add an argument there) */
    static const char *const quick_vars[] = {"AESGEN_GCM_DIFFERENTIAL_QUICK", "AESGEN_DIFFERENTIAL_QUICK"};
    for (size_t i = 0; i < 2; i++) {
        const char *quick_env = getenv(quick_vars[i]);
        if (quick_env != NULL && strcmp(quick_env, "1") == 0)
            gcm_cfg.quick = 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ghash") == 0 && i + 1 < argc && ghash == NULL) {
            ghash = argv[++i];
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc && backend == NULL) {
            backend = argv[++i];
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            gcm_cfg.seed = (uint64_t)strtoull(argv[++i], &end, 0);
            if (argv[i][0] == '\0' || *end != '\0') {
                usage(stderr);
                return GCM_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--quick") == 0) {
            gcm_cfg.quick = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return GCM_EXIT_PASS;
        } else {
            fprintf(stderr, "aesgen_gcm_differential: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return GCM_EXIT_USAGE;
        }
    }
    if (ghash != NULL && backend != NULL) {
        fprintf(stderr, "aesgen_gcm_differential: give at most one of --ghash and --backend\n");
        usage(stderr);
        return GCM_EXIT_USAGE;
    }
    printf("aesgen_gcm_differential: seed 0x%" PRIx64 "%s, oracle %s\n", gcm_cfg.seed,
           gcm_cfg.quick ? " (quick)" : "", ts_oracle_version());
    const int st = gcm_subject_init(&gcm_cfg.subject, ghash, backend);
    if (st != GCM_EXIT_PASS)
        return st;
    for (unsigned i = 0; i < gcm_cfg.subject.nbits; i++) {
        aesgen_gcm_key key;
        char why[256];
        uint8_t k[32] = {0};
        if (gcm_subject_key(&gcm_cfg.subject, &key, k, gcm_cfg.subject.bits[i] / 8, why, sizeof why))
            printf("  AES-%u: %s with %s%s\n", gcm_cfg.subject.bits[i], aesgen_gcm_variant(&key), aesgen_gcm_ghash(&key),
                   aesgen_gcm_stitched(&key) ? ", stitched" : "");
        aesgen_gcm_wipe(&key);
    }

    in_arena = ts_alloc64(ARENA_LEN, "aesgen_gcm_differential");
    out_arena = ts_alloc64(ARENA_LEN, "aesgen_gcm_differential");
    exp_ct = ts_alloc64(GCM_MAX_LEN, "aesgen_gcm_differential");
    tam_ct = ts_alloc64(GCM_MAX_LEN, "aesgen_gcm_differential");
    scratch = ts_alloc64(GCM_MAX_LEN, "aesgen_gcm_differential");
    gcm_pt = ts_alloc64(GCM_MAX_LEN, "aesgen_gcm_differential");
    gcm_aad = ts_alloc64(GCM_MAX_AAD + 64, "aesgen_gcm_differential");
    tam_aad = ts_alloc64(GCM_MAX_AAD + 64, "aesgen_gcm_differential");
    gcm_ossl = EVP_CIPHER_CTX_new();
    if (gcm_ossl == NULL) {
        printf("FAIL: OpenSSL oracle: EVP_CIPHER_CTX_new failed\n");
        return GCM_EXIT_FAIL;
    }

    const double t0 = now_seconds();
    ts_rng_seed(&gcm_rng, gcm_cfg.seed);
    gcm_check_gf128();

    static const struct {
        const char *name;
        sweep_fn fn;
    } sweeps[] = {
        {"lengths", gcm_sweep_lengths}, {"aad", gcm_sweep_aad},       {"iv", gcm_sweep_iv},
        {"tags", gcm_sweep_tags},       {"offsets", gcm_sweep_offsets}, {"splits", gcm_sweep_splits},
        {"tamper", gcm_sweep_tamper},   {"large", gcm_sweep_large},   {"counter-wrap", gcm_sweep_counter_wrap},
        {"stitched", gcm_sweep_stitched},
    };
    for (unsigned i = 0; i < gcm_cfg.subject.nbits; i++)
        for (size_t s = 0; s < sizeof sweeps / sizeof sweeps[0]; s++) {
            char what[64];
            const double t = now_seconds();
            ts_subject_begin("%s AES-%u", sweeps[s].name, gcm_cfg.subject.bits[i]);
            sweeps[s].fn(gcm_cfg.subject.bits[i]);
            snprintf(what, sizeof what, "%.2f s", now_seconds() - t);
            ts_subject_end(what);
        }

    printf("%s: %lu cases, %lu failed, %.1f MB through aesgen, %.2f s (seed 0x%" PRIx64 "%s)\n",
           ts_total_failed ? "FAILED" : "PASSED", ts_total_cases, ts_total_failed, (double)bytes_through / 1e6,
           now_seconds() - t0, gcm_cfg.seed, gcm_cfg.quick ? ", quick" : "");
    EVP_CIPHER_CTX_free(gcm_ossl);
    gcm_ossl = NULL;
    free(in_arena);
    free(out_arena);
    free(exp_ct);
    free(tam_ct);
    free(scratch);
    free(gcm_pt);
    free(gcm_aad);
    free(tam_aad);
    if (ts_total_cases == 0)
        return GCM_EXIT_FAIL;
    return ts_total_failed ? GCM_EXIT_FAIL : GCM_EXIT_PASS;
}
