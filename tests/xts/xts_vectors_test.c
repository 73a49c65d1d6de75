/*
 * aesgen_xts_vectors -- the NIST CAVP AES-XTS known answers (XTSGenAES128.rsp,
 * XTSGenAES256.rsp) through aesgen.
 *
 *   aesgen_xts_vectors [--backend NAME | --variants] [--vectors DIR] [--require-vectors]
 *
 * --backend NAME  aesgen_force_backend(NAME); the files of every key size it serves
 * --variants      every pair of AES variants this CPU runs (xts_pairs: each usable
 *                 AES-128 and AES-256 variant in at least one pair), keys set up with
 *                 aesgen_xts_init_variants; the file of the pair's key size
 * (neither)       automatic dispatch
 *
 * Files: <vectors>/nist-cavp/xts/XTSGenAES{128,256}.rsp, both sections. Every record
 * whose DataUnitLen is a whole number of bytes (including those that are not whole
 * blocks: ciphertext stealing) is run both ways, whatever its section: encryption of
 * PT must give CT and decryption of CT must give PT, each out of place and in place,
 * at a random offset (seeded), with guard bytes around the output that must survive
 * and the input unchanged. Records with a bit-granular DataUnitLen are counted and
 * named as not supported (the API takes bytes). A record whose key halves are equal
 * must be refused with AESGEN_ERR_WEAK_KEY, the key untouched.
 *
 * Exit status: 0 all passed, 1 a failure, 2 bad usage, 77 skipped (no vector folder
 * without --require-vectors, or a backend this CPU cannot run).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "ts_rng.h"
#include "ts_variant.h"
#include "xts_common.h"
#include "xts_rsp.h"

#ifndef AESGEN_VECTORS_DIR_DEFAULT
#define AESGEN_VECTORS_DIR_DEFAULT "../shared/vectors"
#endif

#define SEED UINT64_C(0x787473766563733a) /* "xtsvecs:" */
#define MAX_SHOWN 12 /* failure messages per file and subject; the rest are counted */
#define GUARD 32
#define MAX_PAIRS 128

static ts_rng rng;
static uint8_t *region_a, *region_b;
static size_t region_cap;
static int file_errors;
static unsigned long total_run, total_passed;

typedef struct file_stats {
    const char *name, *subject;
    unsigned long run, passed, weak, weak_refused;
    unsigned shown;
} file_stats;

typedef struct rec_ctx {
    file_stats *f;
    const xts_rec *r;
    int ok;
} rec_ctx;

/* ----------------------------------------------------------------- reporting */

static int fail_begin(rec_ctx *rc)
{
    rc->ok = 0;
    if (rc->f->shown++ >= MAX_SHOWN) {
        if (rc->f->shown == MAX_SHOWN + 1)
            printf("  (%s, %s: further failures are counted, not shown)\n", rc->f->name, rc->f->subject);
        return 0;
    }
    const xts_rec *r = rc->r;
    printf("FAIL %s [%s] COUNT = %u (line %u), DataUnitLen %lu, %s: ", rc->f->name, r->decrypt ? "DECRYPT" : "ENCRYPT",
           r->count, r->line, r->du_bits, rc->f->subject);
    return 1;
}

static void fail_msg(rec_ctx *rc, const char *fmt, ...)
{
    va_list ap;
    if (!fail_begin(rc))
        return;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static void print_hex(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
}

static int check_eq(rec_ctx *rc, const char *what, const uint8_t *expected, const uint8_t *got, size_t n)
{
    if (memcmp(expected, got, n) == 0)
        return 1;
    if (fail_begin(rc)) {
        printf("%s\n  expected ", what);
        print_hex(expected, n);
        printf("\n  got      ");
        print_hex(got, n);
        printf("\n");
    }
    return 0;
}

static int check_rc(rec_ctx *rc, const char *what, int got, int want)
{
    if (got == want)
        return 1;
    fail_msg(rc, "%s returned %d (%s), expected %d (%s)", what, got, aesgen_status_string(got), want,
             aesgen_status_string(want));
    return 0;
}

static int check_region(rec_ctx *rc, const char *what, const uint8_t *r, size_t lo, size_t hi, size_t used)
{
    const size_t at = ts_region_changed(r, lo, hi, used);
    if (at == used)
        return 1;
    fail_msg(rc, "%s: byte %zu of the %zu-byte region written (allowed: [%zu,%zu))", what, at, used, lo, hi);
    return 0;
}

/* ------------------------------------------------------------------ records */

static void grow(size_t need)
{
    if (need <= region_cap)
        return;
    free(region_a);
    free(region_b);
    region_cap = need + 1024;
    region_a = ts_alloc64(region_cap, "aesgen_xts_vectors");
    region_b = ts_alloc64(region_cap, "aesgen_xts_vectors");
}

typedef int (*xts_fn)(const aesgen_xts_key *, const uint8_t *, uint8_t *, const uint8_t *, size_t);

/* One direction (from -> to), out of place and in place. */
static void one_way(rec_ctx *rc, const aesgen_xts_key *key, int decrypt, const uint8_t *from, const uint8_t *to)
{
    const xts_rec *r = rc->r;
    const size_t len = r->len, off = ts_rng_below(&rng, 16), used = GUARD + 16 + len + GUARD;
    const xts_fn fn = decrypt ? aesgen_xts_decrypt : aesgen_xts_encrypt;
    const char *op = decrypt ? "decrypt" : "encrypt";
    uint8_t *const in = region_a + GUARD + off, *const out = region_b + GUARD + off;
    char what[96];
    uint8_t tweak[16];
    memcpy(tweak, r->tweak, 16);

    ts_region_fill(region_a, used);
    memcpy(in, from, len);
    ts_region_fill(region_b, used);
    snprintf(what, sizeof what, "%s (out of place)", op);
    if (check_rc(rc, what, fn(key, tweak, out, in, len), AESGEN_OK)) {
        check_eq(rc, what, to, out, len);
        check_region(rc, what, region_b, GUARD + off, GUARD + off + len, used);
        check_eq(rc, "input afterwards", from, in, len);
        check_eq(rc, "tweak afterwards", r->tweak, tweak, 16);
    }

    ts_region_fill(region_b, used);
    memcpy(out, from, len);
    snprintf(what, sizeof what, "%s (in place)", op);
    if (check_rc(rc, what, fn(key, tweak, out, out, len), AESGEN_OK)) {
        check_eq(rc, what, to, out, len);
        check_region(rc, what, region_b, GUARD + off, GUARD + off + len, used);
    }
}

static void run_record(file_stats *f, const xts_subject *s, const xts_rec *r)
{
    rec_ctx rc = {f, r, 1};
    aesgen_xts_key key;
    char why[256];
    const size_t half = r->key_len / 2;

    if (memcmp(r->key, r->key + half, half) == 0) {
        /* equal halves: refused, the key untouched */
        aesgen_xts_key before;
        ts_region_fill((uint8_t *)&key, sizeof key);
        memcpy(&before, &key, sizeof key);
        const int st = xts_subject_key(s, &key, r->key, r->key_len, why, sizeof why);
        f->weak++;
        if (check_rc(&rc, "key set-up with equal halves", st, AESGEN_ERR_WEAK_KEY) &&
            memcmp(&before, &key, sizeof key) == 0)
            f->weak_refused++;
        else if (st == AESGEN_ERR_WEAK_KEY)
            fail_msg(&rc, "key set-up with equal halves wrote to the key");
    } else {
        grow(GUARD + 16 + r->len + GUARD);
        const int st = xts_subject_key(s, &key, r->key, r->key_len, why, sizeof why);
        if (st != AESGEN_OK) {
            fail_msg(&rc, "key set-up: %s", why);
        } else {
            one_way(&rc, &key, 0, r->pt, r->ct);
            one_way(&rc, &key, 1, r->ct, r->pt);
        }
        aesgen_xts_wipe(&key);
    }
    f->run++;
    total_run++;
    if (rc.ok) {
        f->passed++;
        total_passed++;
    }
}

/* ------------------------------------------------------------------- files */

typedef struct loaded {
    const char *name;
    unsigned bits;
    xts_file xf;
    int ok;
} loaded;

static loaded files[2] = {{"nist-cavp/xts/XTSGenAES128.rsp", 128, {0}, 0},
                          {"nist-cavp/xts/XTSGenAES256.rsp", 256, {0}, 0}};

static void load(const char *dir, loaded *l)
{
    char path[4096], err[512];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, l->name) >= sizeof path) {
        printf("FAIL %s: path too long\n", l->name);
        file_errors++;
        return;
    }
    err[0] = '\0';
    const int rc = xts_rsp_parse(path, &l->xf, err, sizeof err);
    if (rc != XTS_RSP_OK || l->xf.sections[0] == 0 || l->xf.sections[1] == 0) {
        printf("FAIL %s: %s\n", l->name, rc != XTS_RSP_OK ? err : "a section without records");
        file_errors++;
        return;
    }
    /* what the file holds, and what of it is not supported */
    unsigned long bitwise[16] = {0}, bitwise_du[16] = {0}, other_bitwise = 0;
    unsigned nb = 0;
    for (size_t i = 0; i < l->xf.n; i++) {
        const xts_rec *r = &l->xf.rec[i];
        if (r->key_len * 4 != l->bits) {
            printf("FAIL %s: line %u: a %zu-byte key in the AES-%u file\n", l->name, r->line, r->key_len, l->bits);
            file_errors++;
            return;
        }
        if (r->du_bits % 8 == 0)
            continue;
        unsigned j = 0;
        while (j < nb && bitwise_du[j] != r->du_bits)
            j++;
        if (j == nb && nb < 16)
            bitwise_du[nb++] = r->du_bits;
        if (j < 16)
            bitwise[j]++;
        else
            other_bitwise++;
    }
    printf("%s: %zu records ([ENCRYPT] %zu, [DECRYPT] %zu)\n", l->name, l->xf.n, l->xf.sections[0],
           l->xf.sections[1]);
    for (unsigned j = 0; j < nb; j++)
        printf("  skipped %lu records with DataUnitLen %lu (not a whole number of bytes): not supported\n", bitwise[j],
               bitwise_du[j]);
    if (other_bitwise)
        printf("  skipped %lu more records with other bit-granular DataUnitLen: not supported\n", other_bitwise);
    l->ok = 1;
}

static void run_file(const loaded *l, const xts_subject *s)
{
    file_stats fs;
    memset(&fs, 0, sizeof fs);
    fs.name = l->name;
    fs.subject = s->name;
    unsigned long skipped = 0;
    for (size_t i = 0; i < l->xf.n; i++) {
        const xts_rec *r = &l->xf.rec[i];
        if (r->du_bits % 8 != 0) {
            skipped++;
            continue;
        }
        run_record(&fs, s, r);
    }
    printf("%-32s %-60s %4lu run, %4lu passed, %4lu failed, %lu skipped (bit-granular), %lu of %lu equal-half keys "
           "refused%s\n",
           l->name, s->name, fs.run, fs.passed, fs.run - fs.passed, skipped, fs.weak_refused, fs.weak,
           fs.run != fs.passed || fs.run == 0 ? "  FAILED" : "");
    if (fs.run == 0)
        file_errors++;
}

/* --------------------------------------------------------------------- main */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: aesgen_xts_vectors [--backend NAME | --variants] [--vectors DIR] [--require-vectors]\n"
            "  --backend NAME     force a backend; every key size it serves\n"
            "  --variants         every pair of AES variants this CPU runs (aesgen_xts_init_variants)\n"
            "  --vectors DIR      folder with nist-cavp/xts/ (default %s)\n"
            "  --require-vectors  a missing folder is a failure, not a skip\n"
            "exit status: 0 passed, 1 failed, 2 usage, 77 skipped\n",
            AESGEN_VECTORS_DIR_DEFAULT);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "aesgen_xts_vectors: %s%s\n", what, arg);
    usage(stderr);
    return XTS_EXIT_USAGE;
}

static int is_directory(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int main(int argc, char **argv)
{
    const char *backend = NULL, *vectors = AESGEN_VECTORS_DIR_DEFAULT;
    int require = 0, variants = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return XTS_EXIT_PASS;
        } else if (strcmp(a, "--require-vectors") == 0) {
            require = 1;
        } else if (strcmp(a, "--variants") == 0) {
            variants = 1;
        } else if (strcmp(a, "--backend") == 0 || strcmp(a, "--vectors") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return usage_error("needs a value: ", a);
            if (a[2] == 'b')
                backend = argv[++i];
            else
                vectors = argv[++i];
        } else {
            return usage_error("unknown argument: ", a);
        }
    }
    if (backend != NULL && variants)
        return usage_error("give at most one of --backend and --variants", "");

    xts_subject subject;
    if (!variants) {
        const int st = xts_subject_init(&subject, backend);
        if (st != XTS_EXIT_PASS)
            return st;
    }

    char dir[4096];
    snprintf(dir, sizeof dir, "%s/nist-cavp/xts", vectors);
    if (!is_directory(dir)) {
        printf("%s: XTS vectors not found at %s (set -DAESGEN_VECTORS_DIR=...)\n", require ? "FAIL" : "skipped", dir);
        return require ? XTS_EXIT_FAIL : XTS_EXIT_SKIP;
    }
    printf("vectors: %s, offsets from seed 0x%" PRIx64 "\n", vectors, SEED);
    ts_rng_seed(&rng, SEED);
    for (int i = 0; i < 2; i++)
        load(vectors, &files[i]);

    if (variants) {
        static xts_pair pairs[MAX_PAIRS];
        const size_t n = xts_pairs(pairs, MAX_PAIRS);
        if (n == 0 || n > MAX_PAIRS) {
            printf("FAIL: %zu variant pairs (at most %d)\n", n, MAX_PAIRS);
            return XTS_EXIT_FAIL;
        }
        printf("%zu pairs of AES variants this CPU runs\n", n);
        for (size_t p = 0; p < n; p++) {
            xts_subject_pair(&subject, pairs[p].enc, pairs[p].dec);
            for (int i = 0; i < 2; i++)
                if (files[i].ok && files[i].bits == pairs[p].enc->key_bits)
                    run_file(&files[i], &subject);
        }
    } else {
        for (int i = 0; i < 2; i++) {
            if (!files[i].ok)
                continue;
            if (!xts_subject_serves(&subject, files[i].bits)) {
                printf("%s not run: %s does not serve AES-%u\n", files[i].name, subject.name, files[i].bits);
                continue;
            }
            run_file(&files[i], &subject);
        }
    }

    printf("total: %lu records run, %lu passed, %lu failed%s\n", total_run, total_passed, total_run - total_passed,
           file_errors ? ", and file errors above" : "");
    for (int i = 0; i < 2; i++)
        xts_file_free(&files[i].xf);
    free(region_a);
    free(region_b);
    if (file_errors != 0 || total_run != total_passed || total_run == 0) {
        printf("FAILED\n");
        return XTS_EXIT_FAIL;
    }
    printf("PASSED\n");
    return XTS_EXIT_PASS;
}
