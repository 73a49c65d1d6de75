/*
 * aesgen_gcm_vectors -- the NIST CAVP AES-GCM known answers through aesgen.
 *
 *   aesgen_gcm_vectors [--ghash NAME | --backend NAME] [--vectors DIR]
 *                      [--require-vectors] [--seed N]
 *
 * --ghash NAME    every key is set up with aesgen_gcm_init_variants(key, k, len, NULL,
 *                 that GHASH) (AES by dispatch); skipped (77) where the CPU cannot run it
 * --backend NAME  aesgen_force_backend(NAME); the files of every key size it serves
 * (neither)       automatic dispatch
 *
 * Files: <vectors>/nist-cavp/gcm/gcmEncryptExtIV{128,192,256}.rsp and
 * gcmDecrypt{128,256}.rsp. Every record with a plaintext (all encryption records,
 * the decryption records without FAIL):
 *   seal out of place (guard bytes around the output and the tag) and in place must
 *   give CT and Tag (Taglen bits: only that many tag bytes written); open out of place
 *   and in place must give PT back; the streaming API must give the same with the AAD
 *   and the text each split at a random point (seeded), both directions.
 * Every FAIL record: open must return AESGEN_ERR_AUTH with the output buffer untouched
 * (in place: the ciphertext still there), a streamed decryption must end in
 * AESGEN_ERR_AUTH from aesgen_gcm_verify.
 *
 * Exit status: 0 all passed, 1 a failure, 2 bad usage, 77 skipped (no vector folder
 * without --require-vectors, or a GHASH/backend this CPU cannot run).
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
#include "gcm_common.h"
#include "gcm_rsp.h"
#include "ts_rng.h"
#include "ts_variant.h"

#ifndef AESGEN_VECTORS_DIR_DEFAULT
#define AESGEN_VECTORS_DIR_DEFAULT "../shared/vectors"
#endif

#define DEFAULT_SEED UINT64_C(0x67636d7665637331) /* "gcmvecs1" */
#define MAX_SHOWN 12 /* failure messages per file; the rest are counted */
#define GUARD 32     /* guard bytes before and after every output */

static gcm_subject subject;
static ts_rng rng;
static uint64_t seed = DEFAULT_SEED;

/* Buffers sized for the largest record (grown as needed). */
static uint8_t *region_a, *region_b;
static size_t region_cap;

typedef struct file_stats {
    const char *name;
    unsigned long run, passed, fail_records, rejected;
    unsigned shown;
    int errors;
} file_stats;

typedef struct rec_ctx {
    file_stats *f;
    const gcm_rec *r;
    int ok;
} rec_ctx;

static unsigned long total_run, total_passed;
static int file_errors;

/* ----------------------------------------------------------------- reporting */

static int fail_begin(rec_ctx *rc)
{
    rc->ok = 0;
    if (rc->f->shown >= MAX_SHOWN) {
        if (rc->f->shown == MAX_SHOWN)
            printf("  (%s: further failures are counted, not shown)\n", rc->f->name);
        rc->f->shown++;
        return 0;
    }
    rc->f->shown++;
    const gcm_rec *r = rc->r;
    printf("FAIL %s [Keylen = %u, IVlen = %u, PTlen = %u, AADlen = %u, Taglen = %u] Count = %u"
           " (line %u): ",
           rc->f->name, r->key_bits, r->iv_bits, r->pt_bits, r->aad_bits, r->tag_bits, r->count,
           r->line);
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
    if (n == 0 || memcmp(expected, got, n) == 0)
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

/* A region of `used` bytes whose pattern must survive outside [lo, hi). */
static int check_region(rec_ctx *rc, const char *what, const uint8_t *r, size_t lo, size_t hi, size_t used)
{
    const size_t at = ts_region_changed(r, lo, hi, used);
    if (at == used)
        return 1;
    fail_msg(rc, "%s: byte %zu of the %zu-byte region written (allowed: [%zu,%zu))", what, at, used, lo, hi);
    return 0;
}

/* ------------------------------------------------------------------ records */

static int grow(size_t need)
{
    if (need <= region_cap)
        return 1;
    free(region_a);
    free(region_b);
    region_cap = need + 1024;
    region_a = ts_alloc64(region_cap, "aesgen_gcm_vectors");
    region_b = ts_alloc64(region_cap, "aesgen_gcm_vectors");
    return 1;
}

/* A record with PT, CT and Tag: seal and open every way. */
static void run_valid(rec_ctx *rc, const aesgen_gcm_key *key)
{
    const gcm_rec *r = rc->r;
    const size_t len = r->pt_len, tl = r->tag_len;
    const size_t off = ts_rng_below(&rng, 16);
    const size_t used = GUARD + 16 + len + GUARD;
    uint8_t tagr[GUARD + 16 + GUARD];
    const size_t tag_used = sizeof tagr;
    uint8_t *const in = region_a + GUARD + off, *const out = region_b + GUARD + off;
    int st;

    /* 1. seal, out of place */
    ts_region_fill(region_a, used);
    memcpy(in, r->pt, len);
    ts_region_fill(region_b, used);
    ts_region_fill(tagr, tag_used);
    st = aesgen_gcm_seal(key, r->iv, r->iv_len, r->aad, r->aad_len, out, in, len, tagr + GUARD, tl);
    if (check_rc(rc, "seal (out of place)", st, AESGEN_OK)) {
        check_eq(rc, "seal (out of place): CT", r->ct, out, len);
        check_eq(rc, "seal (out of place): Tag", r->tag, tagr + GUARD, tl);
        check_region(rc, "seal (out of place): output", region_b, GUARD + off, GUARD + off + len, used);
        check_region(rc, "seal (out of place): tag", tagr, GUARD, GUARD + tl, tag_used);
        check_eq(rc, "seal (out of place): input afterwards", r->pt, in, len);
    }

    /* 2. seal, in place */
    ts_region_fill(region_b, used);
    memcpy(out, r->pt, len);
    ts_region_fill(tagr, tag_used);
    st = aesgen_gcm_seal(key, r->iv, r->iv_len, r->aad, r->aad_len, out, out, len, tagr + GUARD, tl);
    if (check_rc(rc, "seal (in place)", st, AESGEN_OK)) {
        check_eq(rc, "seal (in place): CT", r->ct, out, len);
        check_eq(rc, "seal (in place): Tag", r->tag, tagr + GUARD, tl);
        check_region(rc, "seal (in place): buffer", region_b, GUARD + off, GUARD + off + len, used);
        check_region(rc, "seal (in place): tag", tagr, GUARD, GUARD + tl, tag_used);
    }

    /* 3. open, out of place */
    ts_region_fill(region_a, used);
    memcpy(in, r->ct, len);
    ts_region_fill(region_b, used);
    st = aesgen_gcm_open(key, r->iv, r->iv_len, r->aad, r->aad_len, out, in, len, r->tag, tl);
    if (check_rc(rc, "open (out of place)", st, AESGEN_OK)) {
        check_eq(rc, "open (out of place): PT", r->pt, out, len);
        check_region(rc, "open (out of place): output", region_b, GUARD + off, GUARD + off + len, used);
        check_eq(rc, "open (out of place): input afterwards", r->ct, in, len);
    }

    /* 4. open, in place */
    ts_region_fill(region_b, used);
    memcpy(out, r->ct, len);
    st = aesgen_gcm_open(key, r->iv, r->iv_len, r->aad, r->aad_len, out, out, len, r->tag, tl);
    if (check_rc(rc, "open (in place)", st, AESGEN_OK)) {
        check_eq(rc, "open (in place): PT", r->pt, out, len);
        check_region(rc, "open (in place): buffer", region_b, GUARD + off, GUARD + off + len, used);
    }

    /* 5. streams: the AAD and the text each split at a random point */
    gcm_cuts ac, tc;
    char cuts_a[96], cuts_t[96], what[256];
    const char *failed;
    gcm_cuts_two(&ac, r->aad_len, ts_rng_below(&rng, r->aad_len + 1));
    gcm_cuts_two(&tc, len, ts_rng_below(&rng, len + 1));
    snprintf(what, sizeof what, "stream (AAD calls%s, text calls%s)", gcm_cuts_format(&ac, cuts_a, sizeof cuts_a),
             gcm_cuts_format(&tc, cuts_t, sizeof cuts_t));

    ts_region_fill(region_a, used);
    memcpy(in, r->pt, len);
    ts_region_fill(region_b, used);
    ts_region_fill(tagr, tag_used);
    st = gcm_stream_seal(key, r->iv, r->iv_len, r->aad, &ac, out, in, &tc, tagr + GUARD, tl, &failed);
    if (st != AESGEN_OK) {
        fail_msg(rc, "%s, encrypting: aesgen_gcm_%s returned %d (%s)", what, failed, st, aesgen_status_string(st));
    } else {
        char w[300];
        snprintf(w, sizeof w, "%s, encrypting: CT", what);
        check_eq(rc, w, r->ct, out, len);
        snprintf(w, sizeof w, "%s, encrypting: Tag", what);
        check_eq(rc, w, r->tag, tagr + GUARD, tl);
        check_region(rc, "stream, encrypting: output", region_b, GUARD + off, GUARD + off + len, used);
        check_region(rc, "stream, encrypting: tag", tagr, GUARD, GUARD + tl, tag_used);
    }

    ts_region_fill(region_a, used);
    memcpy(in, r->ct, len);
    ts_region_fill(region_b, used);
    st = gcm_stream_open(key, r->iv, r->iv_len, r->aad, &ac, out, in, &tc, r->tag, tl, &failed);
    if (st != AESGEN_OK) {
        fail_msg(rc, "%s, decrypting: aesgen_gcm_%s returned %d (%s)", what, failed, st, aesgen_status_string(st));
    } else {
        char w[300];
        snprintf(w, sizeof w, "%s, decrypting: PT", what);
        check_eq(rc, w, r->pt, out, len);
        check_region(rc, "stream, decrypting: output", region_b, GUARD + off, GUARD + off + len, used);
    }
}

/* A FAIL record: the tag must be rejected, open writing nothing. */
static void run_fail(rec_ctx *rc, const aesgen_gcm_key *key)
{
    const gcm_rec *r = rc->r;
    const size_t len = r->ct_len, tl = r->tag_len;
    const size_t off = ts_rng_below(&rng, 16);
    const size_t used = GUARD + 16 + len + GUARD;
    uint8_t *const in = region_a + GUARD + off, *const out = region_b + GUARD + off;
    int rejected = 1, st;

    /* 1. open, out of place: AESGEN_ERR_AUTH and not one byte of the output region */
    ts_region_fill(region_a, used);
    memcpy(in, r->ct, len);
    ts_region_fill(region_b, used);
    st = aesgen_gcm_open(key, r->iv, r->iv_len, r->aad, r->aad_len, out, in, len, r->tag, tl);
    rejected &= check_rc(rc, "open of a FAIL record (out of place)", st, AESGEN_ERR_AUTH);
    rejected &= check_region(rc, "open of a FAIL record (out of place): output", region_b, 0, 0, used);
    rejected &= check_eq(rc, "open of a FAIL record (out of place): input afterwards", r->ct, in, len);

    /* 2. open, in place: the ciphertext stays */
    ts_region_fill(region_b, used);
    memcpy(out, r->ct, len);
    st = aesgen_gcm_open(key, r->iv, r->iv_len, r->aad, r->aad_len, out, out, len, r->tag, tl);
    rejected &= check_rc(rc, "open of a FAIL record (in place)", st, AESGEN_ERR_AUTH);
    rejected &= check_eq(rc, "open of a FAIL record (in place): buffer afterwards", r->ct, out, len);
    rejected &= check_region(rc, "open of a FAIL record (in place): around the buffer", region_b, GUARD + off,
                             GUARD + off + len, used);

    /* 3. a streamed decryption: verify refuses (the plaintext it released is allowed) */
    gcm_cuts ac, tc;
    const char *failed;
    gcm_cuts_two(&ac, r->aad_len, ts_rng_below(&rng, r->aad_len + 1));
    gcm_cuts_two(&tc, len, ts_rng_below(&rng, len + 1));
    ts_region_fill(region_b, used);
    st = gcm_stream_open(key, r->iv, r->iv_len, r->aad, &ac, out, in, &tc, r->tag, tl, &failed);
    if (st != AESGEN_ERR_AUTH || failed == NULL || strcmp(failed, "verify") != 0) {
        fail_msg(rc, "streamed decryption of a FAIL record: aesgen_gcm_%s returned %d (%s), expected verify "
                 "to return AESGEN_ERR_AUTH", failed ? failed : "verify", st, aesgen_status_string(st));
        rejected = 0;
    }
    rejected &= check_region(rc, "streamed decryption of a FAIL record: around the output", region_b, GUARD + off,
                             GUARD + off + len, used);
    if (rejected)
        rc->f->rejected++;
}

static void run_record(file_stats *f, const gcm_rec *r)
{
    rec_ctx rc = {f, r, 1};
    aesgen_gcm_key key;
    char why[256];

    grow(GUARD + 16 + r->ct_len + GUARD);
    if (r->ct_len != r->pt_len && r->has_pt) {
        fail_msg(&rc, "PT has %zu bytes, CT %zu", r->pt_len, r->ct_len);
    } else if (!gcm_subject_key(&subject, &key, r->key, r->key_len, why, sizeof why)) {
        fail_msg(&rc, "key set-up: %s", why);
    } else if (r->fail) {
        run_fail(&rc, &key);
    } else {
        run_valid(&rc, &key);
    }
    aesgen_gcm_wipe(&key);
    if (r->fail)
        f->fail_records++;
    f->run++;
    total_run++;
    if (rc.ok) {
        f->passed++;
        total_passed++;
    }
}

/* -------------------------------------------------------------------- files */

static void file_summary(const file_stats *fs)
{
    printf("%-36s %5lu records, %5lu passed, %5lu failed, %4lu of %4lu FAIL records rejected%s\n", fs->name,
           fs->run, fs->passed, fs->run - fs->passed, fs->rejected, fs->fail_records,
           fs->run != fs->passed || fs->errors != 0 ? "  FAILED" : "");
}

static void run_file(const char *dir, const char *name, int decrypt, unsigned bits)
{
    char path[4096], rel[128], err[512];
    file_stats fs;
    gcm_file gf;

    memset(&fs, 0, sizeof fs);
    memset(&gf, 0, sizeof gf);
    snprintf(rel, sizeof rel, "nist-cavp/gcm/%s", name);
    fs.name = rel;
    if (!gcm_subject_serves(&subject, bits)) {
        printf("%-36s not run: %s does not serve AES-%u\n", rel, gcm_subject_name(&subject), bits);
        return;
    }
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel) >= sizeof path) {
        printf("FAIL %s: path too long\n", rel);
        file_errors++;
        return;
    }
    err[0] = '\0';
    const int rc = gcm_rsp_parse(path, decrypt, &gf, err, sizeof err);
    if (rc != GCM_RSP_OK || gf.n == 0) {
        printf("FAIL %s: %s\n", rel, rc != GCM_RSP_OK ? err : "no records");
        fs.errors++;
        file_errors++;
        file_summary(&fs);
        gcm_file_free(&gf);
        return;
    }
    for (size_t i = 0; i < gf.n; i++) {
        const gcm_rec *r = &gf.rec[i];
        if (r->key_bits != bits) {
            printf("FAIL %s: line %u: a %u-bit key in the AES-%u file\n", rel, r->line, r->key_bits, bits);
            fs.errors++;
            file_errors++;
            continue;
        }
        run_record(&fs, r);
    }
    if (decrypt && fs.fail_records == 0) {
        printf("FAIL %s: a decryption file without FAIL records\n", rel);
        fs.errors++;
        file_errors++;
    }
    file_summary(&fs);
    gcm_file_free(&gf);
}

/* --------------------------------------------------------------------- main */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: aesgen_gcm_vectors [--ghash NAME | --backend NAME] [--vectors DIR]\n"
            "                          [--require-vectors] [--seed N]\n"
            "  --ghash NAME       every key with this GHASH variant (AES by dispatch)\n"
            "  --backend NAME     force a backend; every key size it serves\n"
            "  --vectors DIR      folder with nist-cavp/gcm/ (default %s)\n"
            "  --require-vectors  a missing folder is a failure, not a skip\n"
            "  --seed N           the random split points (default 0x%" PRIx64 ")\n"
            "exit status: 0 passed, 1 failed, 2 usage, 77 skipped\n",
            AESGEN_VECTORS_DIR_DEFAULT, DEFAULT_SEED);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "aesgen_gcm_vectors: %s%s\n", what, arg);
    usage(stderr);
    return GCM_EXIT_USAGE;
}

static int is_directory(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int main(int argc, char **argv)
{
    const char *ghash = NULL, *backend = NULL, *vectors = AESGEN_VECTORS_DIR_DEFAULT;
    int require = 0, vectors_given = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return GCM_EXIT_PASS;
        } else if (strcmp(a, "--require-vectors") == 0) {
            require = 1;
            continue;
        } else if (strcmp(a, "--ghash") == 0) {
            slot = &ghash;
        } else if (strcmp(a, "--backend") == 0) {
            slot = &backend;
        } else if (strcmp(a, "--vectors") == 0) {
            if (vectors_given)
                return usage_error("given twice: ", a);
            vectors_given = 1;
            slot = &vectors;
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return usage_error("needs a value: ", a);
            seed = (uint64_t)strtoull(argv[++i], &end, 0);
            if (*end != '\0')
                return usage_error("not a number: ", argv[i]);
            continue;
        } else {
            return usage_error("unknown argument: ", a);
        }
        if (i + 1 >= argc || argv[i + 1][0] == '\0')
            return usage_error("needs a value: ", a);
        if (slot != &vectors && *slot != NULL)
            return usage_error("given twice: ", a);
        *slot = argv[++i];
    }
    if (ghash != NULL && backend != NULL)
        return usage_error("give at most one of --ghash and --backend", "");

    const int st = gcm_subject_init(&subject, ghash, backend);
    if (st != GCM_EXIT_PASS)
        return st;

    char gcm_dir[4096];
    snprintf(gcm_dir, sizeof gcm_dir, "%s/nist-cavp/gcm", vectors);
    if (!is_directory(gcm_dir)) {
        if (require) {
            printf("FAIL: GCM vectors not found at %s (set -DAESGEN_VECTORS_DIR=...)\n", gcm_dir);
            return GCM_EXIT_FAIL;
        }
        printf("skipped: GCM vectors not found at %s (set -DAESGEN_VECTORS_DIR=...)\n", gcm_dir);
        return GCM_EXIT_SKIP;
    }
    printf("vectors: %s, split points from seed 0x%" PRIx64 "\n", vectors, seed);
    ts_rng_seed(&rng, seed);

    static const struct {
        const char *name;
        int decrypt;
        unsigned bits;
    } files[] = {
        {"gcmEncryptExtIV128.rsp", 0, 128}, {"gcmEncryptExtIV192.rsp", 0, 192},
        {"gcmEncryptExtIV256.rsp", 0, 256}, {"gcmDecrypt128.rsp", 1, 128},
        {"gcmDecrypt256.rsp", 1, 256},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        run_file(vectors, files[i].name, files[i].decrypt, files[i].bits);

    printf("total: %lu records, %lu passed, %lu failed%s (seed 0x%" PRIx64 ")\n", total_run, total_passed,
           total_run - total_passed, file_errors ? ", and file errors above" : "", seed);
    free(region_a);
    free(region_b);
    if (file_errors != 0 || total_run != total_passed || total_run == 0) {
        printf("FAILED\n");
        return GCM_EXIT_FAIL;
    }
    printf("PASSED\n");
    return GCM_EXIT_PASS;
}
