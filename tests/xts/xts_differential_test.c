/*
 * aesgen_xts_differential -- aesgen's AES-XTS against OpenSSL's (EVP aes-128-xts,
 * aes-256-xts: a 32- or 64-byte key, the tweak as the 16-byte IV, one
 * EVP_CipherUpdate per data unit).
 *
 *   aesgen_xts_differential [--backend NAME] [--quick] [--seed N]
 *   (AESGEN_DIFFERENTIAL_QUICK=1 in the environment is --quick, as scripts/hardening.sh
 *   sets it under valgrind)
 *
 * --backend NAME  aesgen_force_backend(NAME); every XTS key size it serves (the key's
 *                 variants, aesgen_xts_variant, must be of that backend)
 * (neither)       automatic dispatch
 *
 * Every case has a random key (distinct halves), tweak and data unit (from the seed);
 * OpenSSL encrypts it, aesgen must give the same ciphertext and decrypt it back, in
 * place or out of place at input/output offsets 0..15, with guard bytes around the
 * output that must survive and the input unchanged.
 *
 * Sweeps, both key sizes: every unit length 16..4096 (--quick: every 7th above 300);
 * every pair of offsets; 64 KiB, 64 KiB + 13, 1 MiB and 1 MiB + 7 (--quick: not the
 * 1 MiB ones); the sector calls (unit lengths 16, 17, 512, 520, 4096, counts 1..17,
 * and 63, 64, 65, 129, 200 sectors of 16, 17 and 520 bytes; sector numbers random,
 * across 2^8, 2^32 and up to 2^64 - 1) against a loop of
 * single-unit calls with the little-endian tweak and against OpenSSL per sector, both
 * directions, in place and out of place; one sector past 2^64 - 1 is AESGEN_ERR_LENGTH
 * and writes nothing.
 *
 * Exit status: 0 all passed, 1 a mismatch (each printed with its case; --seed N
 * reproduces a run), 2 usage, 77 the backend cannot run on this CPU.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "ts_oracle.h"
#include "ts_report.h"
#include "ts_rng.h"
#include "ts_variant.h"
#include "xts_common.h"

#define DEFAULT_SEED UINT64_C(0x787473646966663a) /* "xtsdiff:" */
#define GUARD 48
#define MAX_LEN (((size_t)1 << 20) + 64) /* the largest unit, or sector run, of a case */
#define ARENA_LEN (GUARD + 16 + MAX_LEN + GUARD)

static xts_subject subject;
static ts_rng rng;
static uint64_t seed = DEFAULT_SEED;
static int quick;
static EVP_CIPHER_CTX *ossl;
static uint8_t *in_arena, *out_arena, *pt, *exp_ct, *scratch;
static unsigned long long case_no, bytes_through;

/* ------------------------------------------------------------------ oracle */

/* One data unit through OpenSSL (enc: 1 encrypt, 0 decrypt). */
static const char *ossl_xts(unsigned bits, int enc, const uint8_t *key, const uint8_t tweak[16], uint8_t *out,
                            const uint8_t *in, size_t len)
{
    const EVP_CIPHER *c = bits == 128 ? EVP_aes_128_xts() : EVP_aes_256_xts();
    int outl = -1;
    if (EVP_CipherInit_ex(ossl, c, NULL, key, tweak, enc) != 1)
        return "EVP_CipherInit_ex";
    if (EVP_CipherUpdate(ossl, out, &outl, in, (int)len) != 1)
        return "EVP_CipherUpdate";
    if (outl < 0 || (size_t)outl != len)
        return "EVP_CipherUpdate output length";
    return NULL;
}

/* ------------------------------------------------------------------- cases */

typedef struct xcase {
    const char *sweep;
    unsigned bits;
    uint8_t key[64];
    uint8_t tweak[16];
    size_t len;
    int in_place;
    size_t in_off, out_off;
} xcase;

static const xcase *cur;
static int case_printed;

static void random_key(uint8_t *key, unsigned bits)
{
    const size_t half = bits / 8;
    do
        ts_rng_bytes(&rng, key, 2 * half);
    while (memcmp(key, key + half, half) == 0);
}

static void case_random(xcase *c, const char *sweep, unsigned bits, size_t len)
{
    memset(c, 0, sizeof *c);
    c->sweep = sweep;
    c->bits = bits;
    random_key(c->key, bits);
    ts_rng_bytes(&rng, c->tweak, 16);
    c->len = len;
    c->in_place = ts_rng_below(&rng, 3) == 0;
    c->in_off = ts_rng_below(&rng, 16);
    c->out_off = ts_rng_below(&rng, 16);
}

static void print_case(const xcase *c)
{
    printf("  case #%llu (sweep %s), seed 0x%" PRIx64 "%s, %s\n", case_no, c->sweep, seed, quick ? " --quick" : "",
           subject.name);
    printf("  AES-%u-XTS, unit %zu bytes, %s, ", c->bits, c->len, c->in_place ? "in place" : "out of place");
    if (c->in_place)
        printf("buffer at 64n+%zu\n", c->out_off);
    else
        printf("input at 64n+%zu, output at 64n+%zu\n", c->in_off, c->out_off);
    ts_hex_line(stdout, "key:   ", c->key, c->bits / 4);
    ts_hex_line(stdout, "tweak: ", c->tweak, 16);
    ts_hex_line(stdout, "pt:    ", pt, c->len < 64 ? c->len : 64);
}

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
    if (memcmp(expected, got, n) == 0)
        return 1;
    size_t i = 0;
    while (expected[i] == got[i])
        i++;
    const size_t from = i - i % 16, m = n - from < 16 ? n - from : 16;
    char e[40], g[40];
    for (size_t j = 0; j < m; j++) {
        snprintf(e + 2 * j, 3, "%02x", expected[from + j]);
        snprintf(g + 2 * j, 3, "%02x", got[from + j]);
    }
    mismatch("%s differs from byte %zu of %zu (block %zu)\n    expected %s\n    got      %s", what, i, n, i / 16, e, g);
    return 0;
}

static int expect_rc(const char *what, int got, int want)
{
    if (got == want)
        return 1;
    mismatch("%s returned %d (%s), expected %d (%s)", what, got, aesgen_status_string(got), want,
             aesgen_status_string(want));
    return 0;
}

static int guards(const char *what, const uint8_t *arena, size_t off, size_t len)
{
    const size_t used = GUARD + 16 + len + GUARD, at = ts_region_changed(arena, GUARD + off, GUARD + off + len, used);
    if (at == used)
        return 1;
    mismatch("%s: byte %zd relative to the output written (the output is %zu bytes)", what,
             (ptrdiff_t)at - (ptrdiff_t)(GUARD + off), len);
    return 0;
}

static int case_key(aesgen_xts_key *key, const uint8_t *k, unsigned bits)
{
    char why[256];
    const int rc = xts_subject_key(&subject, key, k, bits / 4, why, sizeof why);
    if (rc != AESGEN_OK)
        mismatch("key set-up: %s", why);
    return rc == AESGEN_OK;
}

/* The case c (its plaintext in pt): OpenSSL encrypts; aesgen encrypts and decrypts. */
static void run_case(const xcase *c)
{
    aesgen_xts_key key;
    const char *err;
    const size_t len = c->len, used = GUARD + 16 + len + GUARD;
    case_no++;
    cur = c;
    case_printed = 0;
    ts_case_begin();
    if ((err = ossl_xts(c->bits, 1, c->key, c->tweak, exp_ct, pt, len)) != NULL) {
        mismatch("OpenSSL oracle: %s failed", err);
        ts_case_end();
        return;
    }
    if (case_key(&key, c->key, c->bits)) {
        for (int dec = 0; dec < 2; dec++) {
            const uint8_t *from = dec ? exp_ct : pt, *to = dec ? pt : exp_ct;
            const char *op = dec ? "decrypt" : "encrypt";
            char what[64];
            uint8_t *out = out_arena + GUARD + c->out_off;
            uint8_t *in = c->in_place ? out : in_arena + GUARD + c->in_off;
            ts_region_fill(out_arena, used);
            if (!c->in_place)
                ts_region_fill(in_arena, used);
            memcpy(in, from, len);
            const int rc = dec ? aesgen_xts_decrypt(&key, c->tweak, out, in, len)
                               : aesgen_xts_encrypt(&key, c->tweak, out, in, len);
            bytes_through += len;
            snprintf(what, sizeof what, "aesgen_xts_%s", op);
            if (!expect_rc(what, rc, AESGEN_OK))
                continue;
            snprintf(what, sizeof what, "%s: %s", op, dec ? "plaintext" : "ciphertext");
            same(what, to, out, len);
            snprintf(what, sizeof what, "%s: around the output", op);
            guards(what, out_arena, c->out_off, len);
            if (!c->in_place) {
                snprintf(what, sizeof what, "%s: the input afterwards", op);
                same(what, from, in, len);
                snprintf(what, sizeof what, "%s: around the input", op);
                guards(what, in_arena, c->in_off, len);
            }
        }
        aesgen_xts_wipe(&key);
    }
    ts_case_end();
    cur = NULL;
}

/* ------------------------------------------------------------------ sweeps */

static void sweep_lengths(unsigned bits)
{
    xcase c;
    for (size_t len = 16; len <= 4096; len++) {
        if (quick && len > 300 && len % 7 != 0)
            continue;
        case_random(&c, "lengths", bits, len);
        ts_rng_bytes(&rng, pt, len);
        run_case(&c);
    }
}

static void sweep_offsets(unsigned bits)
{
    xcase c;
    static const size_t lens[] = {16, 17, 31, 47, 64, 127, 128, 129, 255, 256, 257};
    for (size_t i = 0; i < 16; i++)
        for (size_t o = 0; o < 16; o++) {
            case_random(&c, "offsets", bits, lens[(i * 16 + o) % (sizeof lens / sizeof lens[0])]);
            c.in_place = 0;
            c.in_off = i;
            c.out_off = o;
            ts_rng_bytes(&rng, pt, c.len);
            run_case(&c);
        }
    for (size_t o = 0; o < 16; o++) {
        case_random(&c, "offsets", bits, 16 + ts_rng_below(&rng, 500));
        c.in_place = 1;
        c.out_off = o;
        ts_rng_bytes(&rng, pt, c.len);
        run_case(&c);
    }
}

static void sweep_large(unsigned bits)
{
    static const size_t lens[] = {65536, 65536 + 13, (size_t)1 << 20, ((size_t)1 << 20) + 7};
    xcase c;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        if (quick && lens[i] > 65536 + 13)
            continue;
        case_random(&c, "large", bits, lens[i]);
        ts_rng_bytes(&rng, pt, c.len);
        run_case(&c);
    }
}

/* ----------------------------------------------------------------- sectors */

static void print_sector_case(unsigned bits, const uint8_t *k, uint64_t sector, size_t unit, size_t count, int in_place)
{
    printf("  case #%llu (sweep sectors), seed 0x%" PRIx64 ", %s\n", case_no, seed, subject.name);
    printf("  AES-%u-XTS, sector %" PRIu64 " (0x%" PRIx64 "), unit %zu bytes, count %zu, %s\n", bits, sector, sector,
           unit, count, in_place ? "in place" : "out of place");
    ts_hex_line(stdout, "key: ", k, bits / 4);
}

/* count units of `unit` bytes from `sector`: the sector call against a loop of single
 * calls and against OpenSSL, both directions. */
static void sector_case(unsigned bits, uint64_t sector, size_t unit, size_t count)
{
    aesgen_xts_key key;
    uint8_t k[64], tweak[16];
    const size_t total = unit * count, used = GUARD + 16 + total + GUARD;
    const int in_place = ts_rng_below(&rng, 2) == 0;
    const size_t in_off = ts_rng_below(&rng, 16), out_off = ts_rng_below(&rng, 16);
    case_no++;
    cur = NULL;
    ts_case_begin();
    const unsigned long shown0 = ts_subject.shown;
    random_key(k, bits);
    ts_rng_bytes(&rng, pt, total);
    /* OpenSSL, one unit per sector */
    for (size_t i = 0; i < count; i++) {
        xts_sector_tweak(tweak, sector + i);
        const char *err = ossl_xts(bits, 1, k, tweak, exp_ct + i * unit, pt + i * unit, unit);
        if (err != NULL) {
            mismatch("OpenSSL oracle: %s failed", err);
            ts_case_end();
            return;
        }
    }
    if (!case_key(&key, k, bits)) {
        ts_case_end();
        return;
    }
    for (int dec = 0; dec < 2; dec++) {
        const uint8_t *from = dec ? exp_ct : pt, *to = dec ? pt : exp_ct;
        const char *op = dec ? "decrypt" : "encrypt";
        char what[96];
        uint8_t *out = out_arena + GUARD + out_off;
        uint8_t *in = in_place ? out : in_arena + GUARD + in_off;
        /* the sector call */
        ts_region_fill(out_arena, used);
        if (!in_place)
            ts_region_fill(in_arena, used);
        memcpy(in, from, total);
        int rc = dec ? aesgen_xts_decrypt_sectors(&key, sector, unit, count, out, in)
                     : aesgen_xts_encrypt_sectors(&key, sector, unit, count, out, in);
        bytes_through += total;
        snprintf(what, sizeof what, "aesgen_xts_%s_sectors", op);
        if (expect_rc(what, rc, AESGEN_OK)) {
            snprintf(what, sizeof what, "%s_sectors against OpenSSL per sector", op);
            same(what, to, out, total);
            snprintf(what, sizeof what, "%s_sectors: around the output", op);
            guards(what, out_arena, out_off, total);
            if (!in_place) {
                snprintf(what, sizeof what, "%s_sectors: the input afterwards", op);
                same(what, from, in, total);
            }
        }
        /* a loop of single-unit calls (out of place, into scratch) must give the same */
        for (size_t i = 0; i < count; i++) {
            xts_sector_tweak(tweak, sector + i);
            rc = dec ? aesgen_xts_decrypt(&key, tweak, scratch + i * unit, from + i * unit, unit)
                     : aesgen_xts_encrypt(&key, tweak, scratch + i * unit, from + i * unit, unit);
            if (!expect_rc(dec ? "aesgen_xts_decrypt" : "aesgen_xts_encrypt", rc, AESGEN_OK))
                break;
        }
        snprintf(what, sizeof what, "%s_sectors against a loop of single-unit calls", op);
        same(what, scratch, out, total);
    }
    aesgen_xts_wipe(&key);
    if (ts_subject.shown != shown0 && ts_subject.shown <= TS_MAX_SHOWN)
        print_sector_case(bits, k, sector, unit, count, in_place);
    ts_case_end();
}

static void sweep_sectors(unsigned bits)
{
    static const size_t units[] = {16, 17, 512, 520, 4096};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        for (size_t count = 1; count <= 17; count++) {
            uint64_t sector;
            switch (count % 5) {
            case 0:
                sector = ts_rng_next(&rng);
                break;
            case 1:
                sector = 0x100 - ts_rng_below(&rng, count + 1); /* across 2^8 */
                break;
            case 2:
                sector = UINT64_C(0x100000000) - ts_rng_below(&rng, count + 1); /* across 2^32 */
                break;
            case 3:
                sector = UINT64_MAX - (count - 1); /* the last sector is 2^64 - 1 */
                break;
            default:
                sector = ts_rng_below(&rng, 1000);
                break;
            }
            if (quick && u == 4 && count % 4 != 0)
                continue;
            sector_case(bits, sector, units[u], count);
        }
    /* more sectors than one call's batch of tweaks is likely to hold (64, 128, ...) */
    static const size_t many[] = {63, 64, 65, 129, 200};
    for (size_t i = 0; i < sizeof many / sizeof many[0]; i++) {
        sector_case(bits, ts_rng_next(&rng), 16, many[i]);
        sector_case(bits, UINT64_C(0x100000000) - many[i] / 2, 17, many[i]);
        sector_case(bits, UINT64_MAX - (many[i] - 1), 520, many[i]);
    }
    /* UINT64_MAX - 16: 17 sectors end at 2^64 - 1, 18 would pass it */
    sector_case(bits, UINT64_MAX - 16, 512, 17);
    sector_case(bits, UINT64_MAX, 520, 1);
    static const struct {
        uint64_t sector;
        size_t count;
    } past[] = {{UINT64_MAX - 16, 18}, {UINT64_MAX, 2}, {UINT64_MAX - 1, 3}, {0, SIZE_MAX / 512 + 1}};
    for (size_t i = 0; i < sizeof past / sizeof past[0]; i++) {
        aesgen_xts_key key;
        uint8_t k[64];
        /* the buffers given: count units, or (count * 512 beyond the address space) one */
        const size_t count = past[i].count < 64 ? past[i].count : 1;
        const size_t total = 512 * count, used = GUARD + 16 + total + GUARD;
        char what[128];
        case_no++;
        ts_case_begin();
        random_key(k, bits);
        if (case_key(&key, k, bits)) {
            for (int dec = 0; dec < 2; dec++) {
                ts_region_fill(out_arena, used);
                ts_region_fill(in_arena, used);
                const int rc =
                    dec ? aesgen_xts_decrypt_sectors(&key, past[i].sector, 512, past[i].count, out_arena + GUARD,
                                                     in_arena + GUARD)
                        : aesgen_xts_encrypt_sectors(&key, past[i].sector, 512, past[i].count, out_arena + GUARD,
                                                     in_arena + GUARD);
                snprintf(what, sizeof what, "aesgen_xts_%s_sectors(sector 0x%" PRIx64 ", 512, count %zu)",
                         dec ? "decrypt" : "encrypt", past[i].sector, past[i].count);
                expect_rc(what, rc, AESGEN_ERR_LENGTH);
                const size_t at = ts_region_changed(out_arena, 0, 0, used);
                if (at != used)
                    mismatch("%s: byte %zu of the output written", what, at - GUARD);
            }
            aesgen_xts_wipe(&key);
        }
        ts_case_end();
    }
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
            "usage: aesgen_xts_differential [--backend NAME] [--quick] [--seed N]\n"
            "  --backend NAME  force an AES backend (else automatic dispatch)\n"
            "  --quick         fewer lengths, no 1 MiB unit (or AESGEN_DIFFERENTIAL_QUICK=1)\n"
            "  --seed N        the cases (default 0x%" PRIx64 ")\n"
            "exit status: 0 passed, 1 a mismatch, 2 usage, 77 skipped\n",
            DEFAULT_SEED);
}

typedef void (*sweep_fn)(unsigned bits);

int main(int argc, char **argv)
{
    const char *backend = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *quick_env = getenv("AESGEN_DIFFERENTIAL_QUICK");
    if (quick_env != NULL && strcmp(quick_env, "1") == 0)
        quick = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc && backend == NULL) {
            backend = argv[++i];
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            seed = (uint64_t)strtoull(argv[++i], &end, 0);
            if (argv[i][0] == '\0' || *end != '\0') {
                usage(stderr);
                return XTS_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return XTS_EXIT_PASS;
        } else {
            fprintf(stderr, "aesgen_xts_differential: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return XTS_EXIT_USAGE;
        }
    }
    printf("aesgen_xts_differential: seed 0x%" PRIx64 "%s, oracle %s\n", seed, quick ? " (quick)" : "",
           ts_oracle_version());
    const int st = xts_subject_init(&subject, backend);
    if (st != XTS_EXIT_PASS)
        return st;
    for (unsigned i = 0; i < subject.nbits; i++) {
        aesgen_xts_key key;
        char why[256];
        uint8_t k[64];
        for (int j = 0; j < 64; j++)
            k[j] = (uint8_t)j;
        if (xts_subject_key(&subject, &key, k, subject.bits[i] / 4, why, sizeof why) == AESGEN_OK)
            printf("  AES-%u-XTS: %s, %s\n", subject.bits[i], aesgen_xts_variant(&key, AESGEN_ENCRYPT),
                   aesgen_xts_variant(&key, AESGEN_DECRYPT));
        else
            printf("  AES-%u-XTS: %s\n", subject.bits[i], why);
        aesgen_xts_wipe(&key);
    }

    in_arena = ts_alloc64(ARENA_LEN, "aesgen_xts_differential");
    out_arena = ts_alloc64(ARENA_LEN, "aesgen_xts_differential");
    pt = ts_alloc64(MAX_LEN, "aesgen_xts_differential");
    exp_ct = ts_alloc64(MAX_LEN, "aesgen_xts_differential");
    scratch = ts_alloc64(MAX_LEN, "aesgen_xts_differential");
    ossl = EVP_CIPHER_CTX_new();
    if (ossl == NULL) {
        printf("FAIL: OpenSSL oracle: EVP_CIPHER_CTX_new failed\n");
        return XTS_EXIT_FAIL;
    }

    const double t0 = now_seconds();
    ts_rng_seed(&rng, seed);
    static const struct {
        const char *name;
        sweep_fn fn;
    } sweeps[] = {
        {"lengths", sweep_lengths},
        {"offsets", sweep_offsets},
        {"large", sweep_large},
        {"sectors", sweep_sectors},
    };
    for (unsigned i = 0; i < subject.nbits; i++)
        for (size_t s = 0; s < sizeof sweeps / sizeof sweeps[0]; s++) {
            char what[64];
            const double t = now_seconds();
            ts_subject_begin("%s AES-%u-XTS", sweeps[s].name, subject.bits[i]);
            sweeps[s].fn(subject.bits[i]);
            snprintf(what, sizeof what, "%.2f s", now_seconds() - t);
            ts_subject_end(what);
        }

    printf("%s: %lu cases, %lu failed, %.1f MB through aesgen, %.2f s (seed 0x%" PRIx64 "%s)\n",
           ts_total_failed ? "FAILED" : "PASSED", ts_total_cases, ts_total_failed, (double)bytes_through / 1e6,
           now_seconds() - t0, seed, quick ? ", quick" : "");
    EVP_CIPHER_CTX_free(ossl);
    free(in_arena);
    free(out_arena);
    free(pt);
    free(exp_ct);
    free(scratch);
    if (ts_total_cases == 0)
        return XTS_EXIT_FAIL;
    return ts_total_failed ? XTS_EXIT_FAIL : XTS_EXIT_PASS;
}
