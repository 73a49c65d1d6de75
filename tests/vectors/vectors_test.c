/*
 * aesgen_vectors -- known-answer tests of the aesgen library.
 *
 *   aesgen_vectors --variant NAME [--vectors DIR] [--require-vectors]
 *   aesgen_vectors --backend NAME [--vectors DIR] [--require-vectors]
 *   aesgen_vectors --fips197 (--variant NAME | --backend NAME)
 *
 * --variant tests one generated variant: it is put in its direction's slot
 * with aesgen_init_variants and only the records of its key size and
 * direction run (an encryption variant also runs the SP 800-38A CTR
 * examples, both of which use the forward cipher). --backend forces a
 * backend and runs everything through aesgen_init.
 *
 * Data: the NIST CAVP KAT, MMT and MCT response files for ECB and CBC, the
 * SP 800-38A appendix F examples (ECB, CBC, CTR) and, built in, the FIPS-197
 * appendix C examples. Every record is run out of place and in place, the
 * CBC IV (CTR counter) must come back advanced, and multi-block records run
 * once more split into two calls. The Monte Carlo tests follow AESAVS 6.4
 * and each outer iteration is also checked to lead to the next record.
 *
 * Exit status: 0 all passed, 1 a failure, 2 bad usage, 77 skipped.
 */
#include "aesgen.h"
#include "aesgen_internal.h"
#include "vectors_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/stat.h>

#ifndef AESGEN_VECTORS_DIR_DEFAULT
#define AESGEN_VECTORS_DIR_DEFAULT "../shared/vectors"
#endif

#define EXIT_PASS 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_SKIP 77

/* Failure messages printed per file before the rest are only counted. */
#define MAX_SHOWN 12

#define MCT_INNER 1000

/* ------------------------------------------------------------------ state */

static struct {
    const aesgen_variant *variant; /* --variant: the variant under test */
    const char *backend;           /* --backend: the forced backend */
    unsigned only_bits;            /* 0: every key size */
    int only_dir;                  /* -1: both directions */
    unsigned long run, passed;     /* records, over all files */
    int file_errors;               /* files missing, unreadable or malformed */
} H;

typedef struct file_stats {
    const char *name; /* as printed: path below the vectors folder */
    unsigned long run, passed;
    unsigned shown;
    int errors; /* file-level problems: missing, malformed, nothing to run */
} file_stats;

typedef struct rec_ctx {
    file_stats *f;
    const char *section;
    unsigned count;
    int ok;
} rec_ctx;

static const char *dir_word(int dir)
{
    return dir == VEC_ENC ? "encrypt" : "decrypt";
}

static const char *mode_word(int mode)
{
    return mode == VEC_ECB ? "ECB" : mode == VEC_CBC ? "CBC" : "CTR";
}

static void print_hex(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        printf("%02x", p[i]);
}

/* Start a failure message for a record; returns 0 when it is not shown. */
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
    printf("FAIL %s [%s] COUNT = %u: ", rc->f->name, rc->section, rc->count);
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

/* Compare; on a difference print expected and got. Returns 1 if equal. */
static int check_eq(rec_ctx *rc, const char *what, const uint8_t *expected, const uint8_t *got,
                    size_t n)
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

static int check_status(rec_ctx *rc, const char *what, int st)
{
    if (st == AESGEN_OK)
        return 1;
    fail_msg(rc, "%s returned %d (%s)", what, st, aesgen_status_string(st));
    return 0;
}

static void record_done(rec_ctx *rc)
{
    rc->f->run++;
    H.run++;
    if (rc->ok) {
        rc->f->passed++;
        H.passed++;
    }
}

/* ------------------------------------------------------ library interface */

/* Set up a context for key; dir is the direction the record will use. */
static int setup_ctx(rec_ctx *rc, aesgen_ctx *ctx, const uint8_t *key, size_t key_len, int dir)
{
    const char *name;
    int st;

    if (H.variant != NULL) {
        const aesgen_variant *enc = H.variant->direction == VEC_ENC ? H.variant : NULL;
        const aesgen_variant *dec = H.variant->direction == VEC_DEC ? H.variant : NULL;
        st = aesgen_init_variants(ctx, key, key_len, enc, dec);
        if (!check_status(rc, "aesgen_init_variants", st))
            return 0;
    } else {
        st = aesgen_init(ctx, key, key_len);
        if (!check_status(rc, "aesgen_init", st))
            return 0;
    }
    name = aesgen_ctx_variant(ctx, (aesgen_direction)dir);
    if (name == NULL) {
        fail_msg(rc, "aesgen_ctx_variant gives no %s variant after key set-up", dir_word(dir));
        return 0;
    }
    if (H.variant != NULL) {
        if (strcmp(name, H.variant->name) != 0) {
            fail_msg(rc, "the context uses variant %s, not %s", name, H.variant->name);
            return 0;
        }
    } else {
        const aesgen_variant *v = aesgen_find_variant(name);
        if (v == NULL || v->backend == NULL || strcmp(v->backend, H.backend) != 0) {
            fail_msg(rc, "the context uses variant %s (backend %s), not backend %s", name,
                     v != NULL && v->backend != NULL ? v->backend : "?", H.backend);
            return 0;
        }
    }
    return 1;
}

/* One ECB or CBC call; iv is ignored for ECB. */
static int crypt_blocks(const aesgen_ctx *ctx, int mode, int dir, uint8_t iv[16], uint8_t *out,
                        const uint8_t *in, size_t len)
{
    if (mode == VEC_ECB)
        return dir == VEC_ENC ? aesgen_ecb_encrypt(ctx, out, in, len)
                              : aesgen_ecb_decrypt(ctx, out, in, len);
    return dir == VEC_ENC ? aesgen_cbc_encrypt(ctx, iv, out, in, len)
                          : aesgen_cbc_decrypt(ctx, iv, out, in, len);
}

/* c += n as one 128-bit big-endian integer (mod 2^128). */
static void counter_add(uint8_t c[16], size_t n)
{
    unsigned carry = 0;
    int i;
    for (i = 15; i >= 0; i--) {
        unsigned s = (unsigned)c[i] + (unsigned)(n & 0xffu) + carry;
        c[i] = (uint8_t)s;
        carry = s >> 8;
        n >>= 8;
    }
}

/* ------------------------------------------------- ECB, CBC, CTR records */

typedef struct bufs {
    uint8_t *a, *b; /* len + 16 bytes each */
} bufs;

static int bufs_alloc(bufs *x, size_t len)
{
    x->a = malloc(len + 16);
    x->b = malloc(len + 16);
    if (x->a == NULL || x->b == NULL) {
        free(x->a);
        free(x->b);
        return 0;
    }
    return 1;
}

static void bufs_free(bufs *x)
{
    free(x->a);
    free(x->b);
}

/* ECB or CBC record in the record's direction. */
static void run_block_record(file_stats *f, const char *section, const vec_record *r, int mode)
{
    rec_ctx rc = {f, section, r->count, 1};
    const int dir = r->dir;
    const size_t len = r->pt_len;
    const size_t nblocks = len / 16;
    const uint8_t *in = dir == VEC_ENC ? r->pt : r->ct;
    const uint8_t *expect = dir == VEC_ENC ? r->ct : r->pt;
    const uint8_t *last_ct = r->ct + len - 16;
    aesgen_ctx ctx;
    uint8_t iv[16];
    bufs x;
    int st;

    if (!bufs_alloc(&x, len)) {
        fail_msg(&rc, "out of memory");
        record_done(&rc);
        return;
    }
    if (setup_ctx(&rc, &ctx, r->key, r->key_len, dir)) {
        /* 1. out of place */
        uint8_t *src = x.a, *dst = x.b;
        memcpy(src, in, len);
        memset(dst, 0xa5, len);
        memcpy(iv, r->iv, 16);
        st = crypt_blocks(&ctx, mode, dir, iv, dst, src, len);
        if (check_status(&rc, "out-of-place call", st)) {
            check_eq(&rc, "out of place", expect, dst, len);
            check_eq(&rc, "input buffer after an out-of-place call", in, src, len);
            if (mode == VEC_CBC)
                check_eq(&rc, "IV after an out-of-place call (last ciphertext block)", last_ct,
                         iv, 16);
        }

        /* 2. in place */
        memcpy(src, in, len);
        memcpy(iv, r->iv, 16);
        st = crypt_blocks(&ctx, mode, dir, iv, src, src, len);
        if (check_status(&rc, "in-place call", st)) {
            check_eq(&rc, "in place", expect, src, len);
            if (mode == VEC_CBC)
                check_eq(&rc, "IV after an in-place call (last ciphertext block)", last_ct, iv,
                         16);
        }

        /* 3. two calls split at a block boundary, on odd addresses */
        if (nblocks >= 2) {
            const size_t k = nblocks / 2 * 16;
            uint8_t *usrc = x.a + 1, *udst = x.b + 3;
            memcpy(usrc, in, len);
            memset(udst, 0xa5, len);
            memcpy(iv, r->iv, 16);
            st = crypt_blocks(&ctx, mode, dir, iv, udst, usrc, k);
            if (check_status(&rc, "first call of a split", st)) {
                if (mode == VEC_CBC)
                    check_eq(&rc, "IV between the two calls of a split", r->ct + k - 16, iv, 16);
                st = crypt_blocks(&ctx, mode, dir, iv, udst + k, usrc + k, len - k);
                if (check_status(&rc, "second call of a split", st)) {
                    check_eq(&rc, "split into two calls (unaligned buffers)", expect, udst, len);
                    if (mode == VEC_CBC)
                        check_eq(&rc, "IV after a split", last_ct, iv, 16);
                }
            }
        }
    }
    aesgen_wipe(&ctx);
    bufs_free(&x);
    record_done(&rc);
}

/* CTR record: encryption and decryption are the same keystream XOR. */
static void run_ctr_record(file_stats *f, const char *section, const vec_record *r)
{
    rec_ctx rc = {f, section, r->count, 1};
    const size_t len = r->pt_len;
    const size_t nblocks = len / 16;
    const uint8_t *in = r->dir == VEC_ENC ? r->pt : r->ct;
    const uint8_t *expect = r->dir == VEC_ENC ? r->ct : r->pt;
    uint8_t end_counter[16];
    aesgen_ctx ctx;
    aesgen_ctr ctr;
    bufs x;
    int st;

    memcpy(end_counter, r->iv, 16);
    counter_add(end_counter, nblocks);
    if (!bufs_alloc(&x, len)) {
        fail_msg(&rc, "out of memory");
        record_done(&rc);
        return;
    }
    if (setup_ctx(&rc, &ctx, r->key, r->key_len, VEC_ENC)) {
        uint8_t *src = x.a, *dst = x.b;

        /* 1. out of place */
        memcpy(src, in, len);
        memset(dst, 0xa5, len);
        st = aesgen_ctr_init(&ctr, r->iv);
        if (check_status(&rc, "aesgen_ctr_init", st)) {
            st = aesgen_ctr_crypt(&ctx, &ctr, dst, src, len);
            if (check_status(&rc, "out-of-place call", st)) {
                check_eq(&rc, "out of place", expect, dst, len);
                check_eq(&rc, "input buffer after an out-of-place call", in, src, len);
                check_eq(&rc, "counter after the call", end_counter, ctr.counter, 16);
            }
        }

        /* 2. in place */
        memcpy(src, in, len);
        st = aesgen_ctr_init(&ctr, r->iv);
        if (check_status(&rc, "aesgen_ctr_init", st)) {
            st = aesgen_ctr_crypt(&ctx, &ctr, src, src, len);
            if (check_status(&rc, "in-place call", st)) {
                check_eq(&rc, "in place", expect, src, len);
                check_eq(&rc, "counter after an in-place call", end_counter, ctr.counter, 16);
            }
        }

        /* 3. two calls split at a block boundary, on odd addresses */
        if (nblocks >= 2) {
            const size_t k = nblocks / 2 * 16;
            uint8_t *usrc = x.a + 1, *udst = x.b + 3;
            memcpy(usrc, in, len);
            memset(udst, 0xa5, len);
            st = aesgen_ctr_init(&ctr, r->iv);
            if (check_status(&rc, "aesgen_ctr_init", st)) {
                st = aesgen_ctr_crypt(&ctx, &ctr, udst, usrc, k);
                if (check_status(&rc, "first call of a split", st)) {
                    st = aesgen_ctr_crypt(&ctx, &ctr, udst + k, usrc + k, len - k);
                    if (check_status(&rc, "second call of a split", st)) {
                        check_eq(&rc, "split into two calls (unaligned buffers)", expect, udst,
                                 len);
                        check_eq(&rc, "counter after a split", end_counter, ctr.counter, 16);
                    }
                }
            }
        }

        /* 4. calls that end inside a block: 7 bytes, 30 bytes, the rest */
        if (len > 37) {
            memcpy(src, in, len);
            memset(dst, 0xa5, len);
            st = aesgen_ctr_init(&ctr, r->iv);
            if (check_status(&rc, "aesgen_ctr_init", st)) {
                st = aesgen_ctr_crypt(&ctx, &ctr, dst, src, 7);
                if (st == AESGEN_OK)
                    st = aesgen_ctr_crypt(&ctx, &ctr, dst + 7, src + 7, 30);
                if (st == AESGEN_OK)
                    st = aesgen_ctr_crypt(&ctx, &ctr, dst + 37, src + 37, len - 37);
                if (check_status(&rc, "calls of 7, 30 and the remaining bytes", st))
                    check_eq(&rc, "calls of 7, 30 and the remaining bytes", expect, dst, len);
            }
        }
    }
    aesgen_wipe(&ctx);
    bufs_free(&x);
    record_done(&rc);
}

/* ------------------------------------------------------------ Monte Carlo */

/*
 * AESAVS 6.4: 1000 inner iterations under one key. ECB feeds each output
 * back as the next input. CBC chains through the IV the library hands back
 * (checked after every call) and feeds IV[i] as the second input, then the
 * output two iterations back. last/prev receive the outputs of iterations
 * 999 and 998.
 */
static int mct_inner(rec_ctx *rc, const aesgen_ctx *ctx, int mode, int dir, int in_place,
                     const uint8_t iv0[16], const uint8_t in0[16], uint8_t last[16],
                     uint8_t prev[16])
{
    uint8_t x[16], y[16], chain[16];
    int j, st;

    memcpy(x, in0, 16);
    memcpy(chain, iv0, 16);
    memset(last, 0, 16);
    memset(prev, 0, 16);
    for (j = 0; j < MCT_INNER; j++) {
        if (in_place) {
            memcpy(y, x, 16);
            st = crypt_blocks(ctx, mode, dir, chain, y, y, 16);
        } else {
            st = crypt_blocks(ctx, mode, dir, chain, y, x, 16);
        }
        if (st != AESGEN_OK) {
            fail_msg(rc, "%s call in inner iteration %d returned %d (%s)",
                     in_place ? "in-place" : "out-of-place", j, st, aesgen_status_string(st));
            return 0;
        }
        if (mode == VEC_CBC && memcmp(chain, dir == VEC_ENC ? y : x, 16) != 0) {
            fail_msg(rc, "IV not the ciphertext block after %s inner iteration %d",
                     in_place ? "in-place" : "out-of-place", j);
            return 0;
        }
        memcpy(prev, last, 16);
        memcpy(last, y, 16);
        if (mode == VEC_ECB)
            memcpy(x, y, 16);
        else
            memcpy(x, j == 0 ? iv0 : prev, 16);
    }
    return 1;
}

static void run_mct_record(file_stats *f, const char *section, const vec_record *r,
                           const vec_record *next, int mode)
{
    rec_ctx rc = {f, section, r->count, 1};
    const int dir = r->dir;
    const uint8_t *in = dir == VEC_ENC ? r->pt : r->ct;
    const uint8_t *expect = dir == VEC_ENC ? r->ct : r->pt;
    uint8_t last[16], prev[16], key[32];
    aesgen_ctx ctx;
    size_t i;

    if (r->pt_len != 16) {
        fail_msg(&rc, "a Monte Carlo record must be one block, not %zu bytes", r->pt_len);
        record_done(&rc);
        return;
    }
    if (setup_ctx(&rc, &ctx, r->key, r->key_len, dir)) {
        if (mct_inner(&rc, &ctx, mode, dir, 1, r->iv, in, last, prev))
            check_eq(&rc, "Monte Carlo, in place", expect, last, 16);
        if (mct_inner(&rc, &ctx, mode, dir, 0, r->iv, in, last, prev) &&
            check_eq(&rc, "Monte Carlo, out of place", expect, last, 16) && next != NULL) {
            /* The outer step must produce the next record's inputs. */
            const uint8_t *next_in = dir == VEC_ENC ? next->pt : next->ct;
            const size_t kl = r->key_len;
            memcpy(key, r->key, kl);
            for (i = 0; i < 16; i++)
                key[kl - 16 + i] ^= last[i];
            for (i = 0; i < kl - 16; i++) /* 192: last 64 bits of prev; 256: all of it */
                key[i] ^= prev[32 - kl + i];
            if (next->key_len != kl)
                fail_msg(&rc, "next record has a different key length");
            else
                check_eq(&rc, "next outer iteration's KEY", next->key, key, kl);
            if (next->pt_len == 16)
                check_eq(&rc, "next outer iteration's input block", next_in,
                         mode == VEC_ECB ? last : prev, 16);
            if (mode == VEC_CBC)
                check_eq(&rc, "next outer iteration's IV", next->iv, last, 16);
        }
    }
    aesgen_wipe(&ctx);
    record_done(&rc);
}

/* ------------------------------------------------------------------ files */

enum file_kind { K_RSP, K_MCT, K_SP };

typedef struct file_spec {
    char rel[64];
    int kind;
    int mode;      /* the only mode in the file */
    unsigned bits; /* key size of every record; 0 for SP 800-38A (titles say) */
} file_spec;

static int wanted(unsigned bits, int dir, int mode)
{
    if (H.only_bits != 0 && bits != H.only_bits)
        return 0;
    /* CTR runs the forward cipher for both of its examples. */
    if (H.only_dir >= 0 && (mode == VEC_CTR ? VEC_ENC : dir) != H.only_dir)
        return 0;
    return 1;
}

static void file_error(file_stats *fs, const char *fmt, ...)
{
    va_list ap;
    printf("FAIL %s: ", fs->name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fs->errors++;
    H.file_errors++;
}

static void file_summary(const file_stats *fs)
{
    printf("%-32s %5lu records, %5lu passed%s\n", fs->name, fs->run, fs->passed,
           fs->run != fs->passed || fs->errors != 0 ? ", FAILED" : "");
}

static void run_file(const char *dir, const file_spec *spec)
{
    char path[4096], err[512], section[64];
    file_stats fs;
    vec_file vf;
    size_t i, selected = 0;
    int rc;

    memset(&fs, 0, sizeof fs);
    memset(&vf, 0, sizeof vf);
    fs.name = spec->rel;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, spec->rel) >= sizeof path) {
        file_error(&fs, "path too long");
        file_summary(&fs);
        return;
    }
    err[0] = '\0';
    rc = spec->kind == K_SP ? vec_parse_sp80038a(path, &vf, err, sizeof err)
                            : vec_parse_rsp(path, &vf, err, sizeof err);
    if (rc != VEC_OK || vf.n == 0) {
        if (rc != VEC_OK)
            file_error(&fs, "%s", err);
        else
            file_error(&fs, "no records read from %s", path);
        file_summary(&fs);
        vec_file_free(&vf);
        return;
    }

    for (i = 0; i < vf.n; i++) {
        const vec_record *r = &vf.rec[i];
        int mode = spec->mode;

        /* What the file promises about every record. */
        if (spec->kind == K_SP) {
            if (r->mode != spec->mode) {
                file_error(&fs, "line %u: a %s example in a %s file", r->line,
                           mode_word(r->mode), mode_word(spec->mode));
                continue;
            }
        } else {
            if (r->key_bits != spec->bits) {
                file_error(&fs, "line %u: a %u-bit key in a %u-bit file", r->line, r->key_bits,
                           spec->bits);
                continue;
            }
            if (r->has_iv != (mode == VEC_CBC)) {
                file_error(&fs, "line %u: %s", r->line,
                           mode == VEC_CBC ? "CBC record without an IV" : "ECB record with an IV");
                continue;
            }
        }
        if (!wanted(r->key_bits, r->dir, mode))
            continue;
        selected++;

        if (spec->kind == K_SP)
            snprintf(section, sizeof section, "%s-AES%u %s", mode_word(mode), r->key_bits,
                     r->dir == VEC_ENC ? "(Encryption)" : "(Decryption)");
        else
            snprintf(section, sizeof section, "%s", r->dir == VEC_ENC ? "ENCRYPT" : "DECRYPT");

        if (spec->kind == K_MCT) {
            const vec_record *next = NULL;
            if (i + 1 < vf.n && vf.rec[i + 1].dir == r->dir)
                next = &vf.rec[i + 1];
            run_mct_record(&fs, section, r, next, mode);
        } else if (mode == VEC_CTR) {
            run_ctr_record(&fs, section, r);
        } else {
            run_block_record(&fs, section, r, mode);
        }
    }
    if (selected == 0)
        file_error(&fs, "%zu records read, none of them for this test", vf.n);
    file_summary(&fs);
    vec_file_free(&vf);
}

static size_t build_file_list(file_spec *list, size_t max)
{
    static const struct {
        const char *folder, *name;
        int kind;
    } families[] = {
        {"kat", "GFSbox", K_RSP}, {"kat", "KeySbox", K_RSP}, {"kat", "VarKey", K_RSP},
        {"kat", "VarTxt", K_RSP}, {"mmt", "MMT", K_RSP},     {"mct", "MCT", K_MCT},
    };
    static const unsigned sizes[] = {128, 192, 256};
    static const char *const sp[] = {"AES_ECB.txt", "AES_CBC.txt", "AES_CTR.txt"};
    size_t n = 0, fam, s;
    int mode;

    for (fam = 0; fam < sizeof families / sizeof families[0]; fam++)
        for (mode = VEC_ECB; mode <= VEC_CBC; mode++)
            for (s = 0; s < 3; s++) {
                if (!wanted(sizes[s], H.only_dir < 0 ? VEC_ENC : H.only_dir, mode) || n >= max)
                    continue;
                snprintf(list[n].rel, sizeof list[n].rel, "nist-cavp/%s/%s%s%u.rsp",
                         families[fam].folder, mode_word(mode), families[fam].name, sizes[s]);
                list[n].kind = families[fam].kind;
                list[n].mode = mode;
                list[n].bits = sizes[s];
                n++;
            }
    for (mode = VEC_ECB; mode <= VEC_CTR; mode++) {
        if (mode == VEC_CTR && H.only_dir == VEC_DEC)
            continue; /* CTR has no use for the inverse cipher */
        if (n >= max)
            break;
        snprintf(list[n].rel, sizeof list[n].rel, "sp800-38a/%s", sp[mode]);
        list[n].kind = K_SP;
        list[n].mode = mode;
        list[n].bits = 0;
        n++;
    }
    return n;
}

/* --------------------------------------------------------------- FIPS-197 */

static void run_fips197(void)
{
    static const struct {
        const char *name;
        unsigned bits;
        uint8_t ct[16];
    } ex[3] = {
        {"FIPS-197 C.1 AES-128", 128,
         {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4,
          0xc5, 0x5a}},
        {"FIPS-197 C.2 AES-192", 192,
         {0xdd, 0xa9, 0x7c, 0xa4, 0x86, 0x4c, 0xdf, 0xe0, 0x6e, 0xaf, 0x70, 0xa0, 0xec, 0x0d,
          0x71, 0x91}},
        {"FIPS-197 C.3 AES-256", 256,
         {0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf, 0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49,
          0x60, 0x89}},
    };
    /* 1 block, then the same block 33 times (every batch width up to 32). */
    enum { REPEAT = 33 };
    static uint8_t pt[16 * REPEAT], ct[16 * REPEAT];
    size_t e, i;
    int dir;

    for (e = 0; e < 3; e++) {
        file_stats fs;
        vec_record r;
        if (H.only_bits != 0 && ex[e].bits != H.only_bits)
            continue;
        memset(&fs, 0, sizeof fs);
        fs.name = ex[e].name;
        for (i = 0; i < 16 * REPEAT; i++) {
            pt[i] = (uint8_t)(0x11 * (i % 16)); /* 00112233...ff */
            ct[i] = ex[e].ct[i % 16];
        }
        memset(&r, 0, sizeof r);
        r.key_bits = ex[e].bits;
        r.key_len = ex[e].bits / 8;
        for (i = 0; i < r.key_len; i++)
            r.key[i] = (uint8_t)i; /* 000102... */
        r.pt = pt;
        r.ct = ct;
        for (dir = VEC_ENC; dir <= VEC_DEC; dir++) {
            if (H.only_dir >= 0 && dir != H.only_dir)
                continue;
            r.dir = dir;
            r.count = 0;
            r.pt_len = r.ct_len = 16;
            run_block_record(&fs, dir == VEC_ENC ? "encrypt" : "decrypt", &r, VEC_ECB);
            r.count = 1;
            r.pt_len = r.ct_len = 16 * REPEAT;
            run_block_record(&fs, dir == VEC_ENC ? "encrypt x33" : "decrypt x33", &r, VEC_ECB);
        }
        file_summary(&fs);
    }
}

/* ------------------------------------------------------------------- main */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: aesgen_vectors --variant NAME [--vectors DIR] [--require-vectors]\n"
            "       aesgen_vectors --backend NAME [--vectors DIR] [--require-vectors]\n"
            "       aesgen_vectors --fips197 (--variant NAME | --backend NAME)\n"
            "  --variant NAME     test one generated variant (its key size and direction)\n"
            "  --backend NAME     force a backend; test every key size and direction\n"
            "  --vectors DIR      folder with nist-cavp/ and sp800-38a/ (default %s)\n"
            "  --require-vectors  a missing folder is a failure, not a skip\n"
            "  --fips197          only the built-in FIPS-197 appendix C examples\n"
            "exit status: 0 passed, 1 failed, 2 usage, 77 skipped\n",
            AESGEN_VECTORS_DIR_DEFAULT);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "aesgen_vectors: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return EXIT_USAGE;
}

static int is_directory(const char *path)
{
#if defined(_WIN32)
    struct _stat st;
    return _stat(path, &st) == 0 && (st.st_mode & _S_IFDIR) != 0;
#else
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
#endif
}

int main(int argc, char **argv)
{
    const char *variant_name = NULL, *backend_name = NULL;
    const char *vectors = AESGEN_VECTORS_DIR_DEFAULT;
    int vectors_given = 0, require = 0, fips = 0;
    int i;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return EXIT_PASS;
        } else if (strcmp(a, "--require-vectors") == 0) {
            require = 1;
        } else if (strcmp(a, "--fips197") == 0) {
            fips = 1;
        } else if (strcmp(a, "--variant") == 0) {
            slot = &variant_name;
        } else if (strcmp(a, "--backend") == 0) {
            slot = &backend_name;
        } else if (strcmp(a, "--vectors") == 0) {
            if (vectors_given)
                return usage_error("%s given twice", a);
            vectors_given = 1;
            slot = &vectors;
        } else {
            return usage_error("unknown argument '%s'", a);
        }
        if (slot != NULL) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return usage_error("%s needs a value", a);
            if (slot != &vectors && *slot != NULL)
                return usage_error("%s given twice", a);
            *slot = argv[++i];
        }
    }
    if ((variant_name == NULL) == (backend_name == NULL))
        return usage_error("%s", "give exactly one of --variant NAME and --backend NAME");

    H.only_dir = -1;
    if (variant_name != NULL) {
        const aesgen_variant *v = aesgen_find_variant(variant_name);
        if (v == NULL) {
            printf("FAIL: no variant named %s in this library\n", variant_name);
            return EXIT_FAIL;
        }
        if ((v->key_bits != 128 && v->key_bits != 192 && v->key_bits != 256) ||
            v->direction > 1) {
            printf("FAIL: variant %s has key_bits %u and direction %u\n", v->name,
                   (unsigned)v->key_bits, (unsigned)v->direction);
            return EXIT_FAIL;
        }
        if (!aesgen_variant_usable(v)) {
            printf("skipped: variant %s needs CPU features 0x%lx, this CPU offers 0x%lx\n",
                   v->name, (unsigned long)v->features, (unsigned long)aesgen_cpu_features());
            return EXIT_SKIP;
        }
        H.variant = v;
        H.only_bits = v->key_bits;
        H.only_dir = v->direction;
        printf("variant %s (backend %s): AES-%u %s\n", v->name, v->backend ? v->backend : "?",
               (unsigned)v->key_bits, dir_word(v->direction));
    } else {
        int sup = aesgen_backend_supported(backend_name);
        int st;
        unsigned bits;
        int dir;
        if (sup < 0) {
            printf("FAIL: no backend named %s in this library\n", backend_name);
            return EXIT_FAIL;
        }
        if (sup == 0) {
            printf("skipped: backend %s cannot run on this CPU\n", backend_name);
            return EXIT_SKIP;
        }
        st = aesgen_force_backend(backend_name);
        if (st != AESGEN_OK) {
            printf("FAIL: aesgen_force_backend(%s) returned %d (%s)\n", backend_name, st,
                   aesgen_status_string(st));
            return EXIT_FAIL;
        }
        H.backend = backend_name;
        for (bits = 128; bits <= 256; bits += 64)
            for (dir = VEC_ENC; dir <= VEC_DEC; dir++) {
                const char *sel = aesgen_selected_backend(bits, (aesgen_direction)dir);
                if (sel == NULL || strcmp(sel, backend_name) != 0) {
                    printf("FAIL: with backend %s forced, AES-%u %s selects backend %s\n",
                           backend_name, bits, dir_word(dir), sel ? sel : "(none)");
                    return EXIT_FAIL;
                }
            }
        printf("backend %s: every key size, both directions\n", backend_name);
    }

    if (fips) {
        run_fips197();
    } else {
        file_spec files[64];
        size_t n, k;
        if (!is_directory(vectors)) {
            if (require) {
                printf("FAIL: vectors not found at %s (set -DAESGEN_VECTORS_DIR=...)\n",
                       vectors);
                return EXIT_FAIL;
            }
            printf("skipped: vectors not found at %s (set -DAESGEN_VECTORS_DIR=...)\n", vectors);
            return EXIT_SKIP;
        }
        printf("vectors: %s\n", vectors);
        n = build_file_list(files, sizeof files / sizeof files[0]);
        for (k = 0; k < n; k++)
            run_file(vectors, &files[k]);
    }

    printf("total: %lu records, %lu passed, %lu failed%s\n", H.run, H.passed, H.run - H.passed,
           H.file_errors ? ", and file errors above" : "");
    if (H.file_errors != 0 || H.run != H.passed || H.run == 0) {
        printf("FAILED\n");
        return EXIT_FAIL;
    }
    printf("PASSED\n");
    return EXIT_PASS;
}
