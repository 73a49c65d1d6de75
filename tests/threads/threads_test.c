/*
 * threads_test -- the library used from many threads at once.
 *
 *   aesgen_threads_test [--threads N] [--reps N] [--seed N] [--first-use-only]
 *
 * --reps defaults to AESGEN_THREADS_REPS, else 3 (scripts/hardening.sh sets 1 under
 * valgrind, which runs the threads one at a time anyway).
 *
 * Phase 1, first use (must be the first aesgen call of the process): N threads,
 *   released together by a barrier, race the one-time dispatch set-up through
 *   different entry points (aesgen_init, aesgen_selected_variant,
 *   aesgen_backend_supported). Every thread must see the same selected variants
 *   and backends, the same support answers and the same aesgen_init status;
 *   contexts must serve the selected variants and encrypt and decrypt the
 *   FIPS-197 appendix C examples. With AESGEN_BACKEND set in the environment the
 *   result must also follow it (refused everywhere when it names no usable backend).
 *
 * Phase 2, one round per backend (automatic dispatch, then each backend
 *   aesgen_backend_supported() says runs here, then the "software" class; the
 *   forcing is done by the main thread between rounds, never while workers run):
 *   N threads, released together, run ECB and CBC encryption and decryption and
 *   CTR (each thread its own aesgen_ctr stream, calls split at random points)
 *   over random keys, lengths, buffer offsets, in place and out of place, split
 *   across calls, both on shared contexts (one per key size, set up by the main
 *   thread, used by every thread at once) and on a context each thread sets up
 *   itself during the round. Every output, the chaining state after every job,
 *   the guard bytes around the output and the untouched input are compared
 *   with OpenSSL EVP, computed beforehand by the main thread (so the workers
 *   call only aesgen, and ThreadSanitizer sees no uninstrumented OpenSSL
 *   internals). The shared contexts are read-only: their bytes are compared
 *   (copy and checksum) before and after each round.
 *
 * Phase 3, force race: one thread switches aesgen_force_backend among automatic,
 *   every backend this CPU runs and "software" while the others run aesgen_init;
 *   every context must pair the encryption and decryption variants of one choice.
 *
 * Exit status: 0 pass, 1 a failure (each is printed), 2 usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "aesgen.h"

#define MAX_THREADS 64
#define MAX_BACKENDS 64
#define MAX_PIECES 6
#define GUARD 32
#define GUARD_BYTE 0xa5
#define JOBS_PER_THREAD 30
#define BIG_LEN (16 * 1024 + 48) /* one job in ten per thread is this long (or near it) */
#define ARENA_LEN (GUARD + 16 + BIG_LEN + 64 + GUARD)

enum { MODE_ECB_ENC, MODE_ECB_DEC, MODE_CBC_ENC, MODE_CBC_DEC, MODE_CTR, MODE_COUNT };
static const char *const mode_name[MODE_COUNT] = { "ECB-encrypt", "ECB-decrypt", "CBC-encrypt",
                                                   "CBC-decrypt", "CTR" };
static const unsigned key_bits_list[3] = { 128, 192, 256 };

static unsigned nthreads = 8;
static unsigned reps = 3;
static uint64_t seed = UINT64_C(0x7468726561647331); /* "threads1" */
static int failures;                                  /* main thread only */

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        printf("FAIL: " __VA_ARGS__);                                                              \
        printf("\n");                                                                              \
        failures++;                                                                                \
    } while (0)

static pthread_barrier_t barrier;

/* ------------------------------------------------------------------------ */
/* Deterministic random numbers (splitmix64), main thread only              */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static size_t rnd_below(size_t n) { return (size_t)(rnd64() % (uint64_t)n); }

static void rnd_bytes(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rnd64();
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        printf("FAIL: out of memory\n");
        exit(1);
    }
    return p;
}

static int streq(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static const char *nn(const char *s) { return s ? s : "(null)"; }

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* The test's own 128-bit big-endian counter arithmetic. */
static void ctr_add(uint8_t c[16], uint64_t n)
{
    unsigned carry = 0;
    for (int i = 15; i >= 0; i--) {
        unsigned sum = (unsigned)c[i] + (unsigned)(n & 0xff) + carry;
        c[i] = (uint8_t)sum;
        carry = sum >> 8;
        n >>= 8;
    }
}

static void start_threads(pthread_t *tid, void *(*fn)(void *), void *args, size_t arg_size)
{
    if (pthread_barrier_init(&barrier, NULL, nthreads) != 0) {
        printf("FAIL: pthread_barrier_init\n");
        exit(1);
    }
    for (unsigned t = 0; t < nthreads; t++)
        if (pthread_create(&tid[t], NULL, fn, (char *)args + t * arg_size) != 0) {
            printf("FAIL: pthread_create (thread %u)\n", t);
            exit(1);
        }
}

static void join_threads(pthread_t *tid)
{
    for (unsigned t = 0; t < nthreads; t++)
        if (pthread_join(tid[t], NULL) != 0) {
            printf("FAIL: pthread_join (thread %u)\n", t);
            exit(1);
        }
    pthread_barrier_destroy(&barrier);
}

/* ------------------------------------------------------------------------ */
/* OpenSSL oracle (main thread only)                                         */

static const EVP_CIPHER *ossl_cipher(unsigned bits, int mode)
{
    switch (mode) {
    case MODE_ECB_ENC:
    case MODE_ECB_DEC:
        return bits == 128 ? EVP_aes_128_ecb() : bits == 192 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
    case MODE_CBC_ENC:
    case MODE_CBC_DEC:
        return bits == 128 ? EVP_aes_128_cbc() : bits == 192 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
    default:
        return bits == 128 ? EVP_aes_128_ctr() : bits == 192 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
    }
}

static void oracle(unsigned bits, int mode, const uint8_t *key, const uint8_t iv[16], uint8_t *out,
                   const uint8_t *in, size_t len)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int enc = mode != MODE_ECB_DEC && mode != MODE_CBC_DEC, outl = -1, finl = -1;
    uint8_t fin[16];
    if (x == NULL ||
        EVP_CipherInit_ex(x, ossl_cipher(bits, mode), NULL, key,
                          (mode == MODE_ECB_ENC || mode == MODE_ECB_DEC) ? NULL : iv, enc) != 1 ||
        EVP_CIPHER_CTX_set_padding(x, 0) != 1 ||
        (len != 0 && (EVP_CipherUpdate(x, out, &outl, in, (int)len) != 1 || outl != (int)len)) ||
        EVP_CipherFinal_ex(x, fin, &finl) != 1 || finl != 0) {
        printf("FAIL: OpenSSL oracle failed (AES-%u %s, %zu bytes)\n", bits, mode_name[mode], len);
        exit(1);
    }
    EVP_CIPHER_CTX_free(x);
}

/* ------------------------------------------------------------------------ */
/* Phase 1: the first use of dispatch, raced                                 */

/* FIPS-197 appendix C: key 000102..., plaintext 00112233...ff. */
static const uint8_t fips_pt[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                     0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static const uint8_t fips_ct[3][16] = {
    { 0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a },
    { 0xdd, 0xa9, 0x7c, 0xa4, 0x86, 0x4c, 0xdf, 0xe0, 0x6e, 0xaf, 0x70, 0xa0, 0xec, 0x0d, 0x71, 0x91 },
    { 0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf, 0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49, 0x60, 0x89 },
};

typedef struct first_use {
    unsigned index;
    int init_rc;
    const char *sel_variant[3][2], *sel_backend[3][2];
    const char *ctx_variant[2];
    int supported[MAX_BACKENDS + 1]; /* every backend, then "software" */
    uint8_t ct[16], pt[16];
    int enc_rc, dec_rc;
    aesgen_ctx ctx;
} first_use;

static size_t nbackends; /* read by phase 1 workers: set before they start */
static const char *backend_names[MAX_BACKENDS];

static void query_selected(first_use *f)
{
    for (unsigned k = 0; k < 3; k++)
        for (int d = 0; d < 2; d++) {
            f->sel_variant[k][d] = aesgen_selected_variant(key_bits_list[k], (aesgen_direction)d);
            f->sel_backend[k][d] = aesgen_selected_backend(key_bits_list[k], (aesgen_direction)d);
        }
}

static void query_supported(first_use *f)
{
    for (size_t b = 0; b < nbackends; b++)
        f->supported[b] = aesgen_backend_supported(backend_names[b]);
    f->supported[nbackends] = aesgen_backend_supported("software");
}

static void do_init(first_use *f)
{
    unsigned k = f->index % 3;
    uint8_t key[32];
    for (unsigned i = 0; i < 32; i++)
        key[i] = (uint8_t)i;
    f->init_rc = aesgen_init(&f->ctx, key, key_bits_list[k] / 8);
    if (f->init_rc == AESGEN_OK) {
        f->ctx_variant[0] = aesgen_ctx_variant(&f->ctx, AESGEN_ENCRYPT);
        f->ctx_variant[1] = aesgen_ctx_variant(&f->ctx, AESGEN_DECRYPT);
        f->enc_rc = aesgen_ecb_encrypt(&f->ctx, f->ct, fips_pt, 16);
        f->dec_rc = aesgen_ecb_decrypt(&f->ctx, f->pt, f->ct, 16);
    }
}

static void *first_use_worker(void *arg)
{
    first_use *f = arg;
    pthread_barrier_wait(&barrier);
    /* Threads enter through different functions, each of which runs the one-time set-up. */
    switch (f->index % 3) {
    case 0:
        do_init(f);
        query_selected(f);
        query_supported(f);
        break;
    case 1:
        query_selected(f);
        query_supported(f);
        do_init(f);
        break;
    default:
        query_supported(f);
        do_init(f);
        query_selected(f);
        break;
    }
    return NULL;
}

/* Returns aesgen_init's status in the race (the same in every thread, or a failure). */
static int phase_first_use(void)
{
    /* aesgen_backend_count/name read only the registry: they do not set up dispatch. */
    nbackends = aesgen_backend_count();
    if (nbackends == 0 || nbackends > MAX_BACKENDS) {
        FAIL("aesgen_backend_count() = %zu", nbackends);
        exit(1);
    }
    for (size_t b = 0; b < nbackends; b++) {
        backend_names[b] = aesgen_backend_name(b);
        if (backend_names[b] == NULL) {
            FAIL("aesgen_backend_name(%zu) is NULL below aesgen_backend_count()", b);
            exit(1);
        }
    }

    const unsigned n = nthreads;
    /* first_use holds an aesgen_ctx, which is 64-byte aligned: not plain malloc. */
    first_use *f = aligned_alloc(_Alignof(first_use), n * sizeof *f);
    if (f == NULL) {
        printf("FAIL: out of memory\n");
        exit(1);
    }
    pthread_t tid[MAX_THREADS];
    memset(f, 0, n * sizeof *f);
    for (unsigned t = 0; t < n; t++)
        f[t].index = t;
    start_threads(tid, first_use_worker, f, sizeof *f);
    join_threads(tid);

    /* Now single-threaded, the same questions again: the reference answers. */
    first_use ref;
    memset(&ref, 0, sizeof ref);
    query_selected(&ref);
    query_supported(&ref);
    const int failures_before = failures;

    for (unsigned t = 0; t < n; t++) {
        const first_use *g = &f[t];
        const unsigned k = t % 3;
        for (unsigned kk = 0; kk < 3; kk++)
            for (int d = 0; d < 2; d++) {
                if (!streq(g->sel_variant[kk][d], ref.sel_variant[kk][d]))
                    FAIL("first use: thread %u saw selected variant %s for AES-%u %s, later %s", t,
                         nn(g->sel_variant[kk][d]), key_bits_list[kk], d ? "dec" : "enc",
                         nn(ref.sel_variant[kk][d]));
                if (!streq(g->sel_backend[kk][d], ref.sel_backend[kk][d]))
                    FAIL("first use: thread %u saw selected backend %s for AES-%u %s, later %s", t,
                         nn(g->sel_backend[kk][d]), key_bits_list[kk], d ? "dec" : "enc",
                         nn(ref.sel_backend[kk][d]));
            }
        for (size_t b = 0; b <= nbackends; b++)
            if (g->supported[b] != ref.supported[b])
                FAIL("first use: thread %u: aesgen_backend_supported(%s) = %d, later %d", t,
                     b < nbackends ? backend_names[b] : "software", g->supported[b], ref.supported[b]);
        if (g->init_rc != f[0].init_rc)
            FAIL("first use: thread %u: aesgen_init returned %d, thread 0 %d", t, g->init_rc, f[0].init_rc);
        if (g->init_rc != AESGEN_OK)
            continue;
        for (int d = 0; d < 2; d++)
            if (!streq(g->ctx_variant[d], ref.sel_variant[k][d]))
                FAIL("first use: thread %u: its AES-%u context uses %s for %s, dispatch selects %s", t,
                     key_bits_list[k], nn(g->ctx_variant[d]), d ? "dec" : "enc", nn(ref.sel_variant[k][d]));
        if (g->enc_rc != AESGEN_OK || memcmp(g->ct, fips_ct[k], 16) != 0)
            FAIL("first use: thread %u: AES-%u FIPS-197 C encryption wrong (rc %d)", t, key_bits_list[k],
                 g->enc_rc);
        if (g->dec_rc != AESGEN_OK || memcmp(g->pt, fips_pt, 16) != 0)
            FAIL("first use: thread %u: AES-%u FIPS-197 C decryption wrong (rc %d)", t, key_bits_list[k],
                 g->dec_rc);
    }

    /* The environment decides what every thread must have seen. */
    const char *env = getenv("AESGEN_BACKEND");
    const char *cpu_disable = getenv("AESGEN_CPU_DISABLE");
    if (cpu_disable != NULL)
        printf("first use: AESGEN_CPU_DISABLE=%s\n", cpu_disable);
    if (env != NULL && env[0] != '\0') {
        int sup = aesgen_backend_supported(env);
        if (sup == 1) {
            if (f[0].init_rc != AESGEN_OK)
                FAIL("first use: AESGEN_BACKEND=%s runs here but aesgen_init returned %d", env, f[0].init_rc);
            if (strcmp(env, "software") != 0)
                for (unsigned kk = 0; kk < 3; kk++)
                    for (int d = 0; d < 2; d++)
                        if (!streq(ref.sel_backend[kk][d], env))
                            FAIL("first use: AESGEN_BACKEND=%s but AES-%u %s selects backend %s", env,
                                 key_bits_list[kk], d ? "dec" : "enc", nn(ref.sel_backend[kk][d]));
        } else {
            if (f[0].init_rc != AESGEN_ERR_BACKEND)
                FAIL("first use: AESGEN_BACKEND=%s does not run here (supported: %d) but aesgen_init "
                     "returned %d, not AESGEN_ERR_BACKEND",
                     env, sup, f[0].init_rc);
            for (unsigned kk = 0; kk < 3; kk++)
                for (int d = 0; d < 2; d++)
                    if (ref.sel_variant[kk][d] != NULL)
                        FAIL("first use: AESGEN_BACKEND=%s is refused but AES-%u %s selects %s", env,
                             key_bits_list[kk], d ? "dec" : "enc", ref.sel_variant[kk][d]);
        }
    } else if (f[0].init_rc != AESGEN_OK) {
        FAIL("first use: automatic dispatch but aesgen_init returned %d", f[0].init_rc);
    } else {
        for (unsigned kk = 0; kk < 3; kk++)
            for (int d = 0; d < 2; d++)
                if (ref.sel_variant[kk][d] == NULL)
                    FAIL("first use: automatic dispatch selects nothing for AES-%u %s", key_bits_list[kk],
                         d ? "dec" : "enc");
    }
    printf("first use: %u threads raced the dispatch set-up (aesgen_init %d); AES-128 %s / %s, "
           "AES-256 %s / %s: %s\n",
           n, f[0].init_rc, nn(ref.sel_variant[0][0]), nn(ref.sel_variant[0][1]), nn(ref.sel_variant[2][0]),
           nn(ref.sel_variant[2][1]), failures == failures_before ? "all threads agree" : "DISAGREEMENT");
    const int init_rc = f[0].init_rc;
    for (unsigned t = 0; t < n; t++)
        aesgen_wipe(&f[t].ctx);
    free(f);
    return init_rc;
}

/* ------------------------------------------------------------------------ */
/* Phase 2: concurrent use, per backend                                      */

typedef struct job {
    int mode;
    int shared;    /* 1: the shared context of its key size; 0: the thread's own */
    unsigned bits;
    size_t len, in_off, out_off;
    int in_place;
    unsigned npieces;
    size_t cuts[MAX_PIECES + 1]; /* piece i covers [cuts[i], cuts[i+1]) */
    uint8_t iv[16];              /* CBC IV or CTR initial counter block */
    uint8_t iv_after[16];        /* CBC: the last ciphertext block; CTR: the counter after */
    uint8_t *in, *expect;
} job;

typedef struct worker {
    unsigned index;
    unsigned bits;               /* key size of its own context */
    uint8_t key[32];             /* key of its own context */
    const char *want_variant[2]; /* what dispatch must give its own context */
    job jobs[JOBS_PER_THREAD];
    uint8_t *in_arena, *out_arena;
    /* results, read by the main thread after the join */
    unsigned long long jobs_done, bytes_done;
    unsigned fails;
} worker;

static aesgen_ctx shared_ctx[3];
static uint8_t shared_key[3][32];

static unsigned bits_index(unsigned bits) { return bits == 128 ? 0 : bits == 192 ? 1 : 2; }

static void job_fail(worker *w, const job *j, unsigned rep, const char *what, size_t pos)
{
    w->fails++;
    if (w->fails > 10)
        return;
    printf("FAIL: thread %u job %u (rep %u): AES-%u %s on %s context, %zu bytes, in+%zu out+%zu%s, "
           "%u calls: %s (byte %zu)\n",
           w->index, (unsigned)(j - w->jobs), rep, j->bits, mode_name[j->mode], j->shared ? "the shared" : "its own",
           j->len, j->in_off, j->out_off, j->in_place ? " in place" : "", j->npieces, what, pos);
}

static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return n;
}

static void run_job(worker *w, const aesgen_ctx *own, const job *j, unsigned rep)
{
    const aesgen_ctx *ctx = j->shared ? &shared_ctx[bits_index(j->bits)] : own;
    uint8_t *out_region = w->out_arena, *in_region = w->in_arena;
    memset(out_region, GUARD_BYTE, ARENA_LEN);
    uint8_t *out = out_region + GUARD + j->out_off;
    const uint8_t *in;
    if (j->in_place) {
        memcpy(out, j->in, j->len);
        in = out;
    } else {
        memset(in_region, GUARD_BYTE, ARENA_LEN);
        memcpy(in_region + GUARD + j->in_off, j->in, j->len);
        in = in_region + GUARD + j->in_off;
    }
    uint8_t iv[16];
    aesgen_ctr ctr;
    memcpy(iv, j->iv, 16);
    if (j->mode == MODE_CTR && aesgen_ctr_init(&ctr, j->iv) != AESGEN_OK) {
        job_fail(w, j, rep, "aesgen_ctr_init failed", 0);
        return;
    }
    for (unsigned p = 0; p < j->npieces; p++) {
        const size_t a = j->cuts[p], n = j->cuts[p + 1] - a;
        int rc;
        switch (j->mode) {
        case MODE_ECB_ENC:
            rc = aesgen_ecb_encrypt(ctx, out + a, in + a, n);
            break;
        case MODE_ECB_DEC:
            rc = aesgen_ecb_decrypt(ctx, out + a, in + a, n);
            break;
        case MODE_CBC_ENC:
            rc = aesgen_cbc_encrypt(ctx, iv, out + a, in + a, n);
            break;
        case MODE_CBC_DEC:
            rc = aesgen_cbc_decrypt(ctx, iv, out + a, in + a, n);
            break;
        default:
            rc = aesgen_ctr_crypt(ctx, &ctr, out + a, in + a, n);
            break;
        }
        if (rc != AESGEN_OK) {
            job_fail(w, j, rep, aesgen_status_string(rc), a);
            return;
        }
    }
    size_t pos = first_diff(out, j->expect, j->len);
    if (pos != j->len)
        job_fail(w, j, rep, "output differs from OpenSSL", pos);
    for (size_t i = 0; i < GUARD + j->out_off; i++)
        if (out_region[i] != GUARD_BYTE) {
            job_fail(w, j, rep, "wrote before the output buffer", i);
            break;
        }
    for (uint8_t *q = out + j->len; q < out_region + ARENA_LEN; q++)
        if (*q != GUARD_BYTE) {
            job_fail(w, j, rep, "wrote past the output buffer", (size_t)(q - out));
            break;
        }
    if (!j->in_place && (pos = first_diff(in, j->in, j->len)) != j->len)
        job_fail(w, j, rep, "input changed", pos);
    if ((j->mode == MODE_CBC_ENC || j->mode == MODE_CBC_DEC) && memcmp(iv, j->iv_after, 16) != 0)
        job_fail(w, j, rep, "IV after the calls is not the last ciphertext block", 0);
    if (j->mode == MODE_CTR) {
        if (memcmp(ctr.counter, j->iv_after, 16) != 0)
            job_fail(w, j, rep, "counter after the calls is wrong", 0);
        if (ctr.used != (j->len % 16 == 0 ? 16u : (unsigned)(j->len % 16)))
            job_fail(w, j, rep, "keystream position after the calls is wrong", ctr.used);
        aesgen_ctr_wipe(&ctr);
    }
    w->jobs_done++;
    w->bytes_done += j->len;
}

static void *use_worker(void *arg)
{
    worker *w = arg;
    aesgen_ctx own;
    pthread_barrier_wait(&barrier);
    /* Its own context is set up while the other threads already encrypt. */
    int rc = aesgen_init(&own, w->key, w->bits / 8);
    if (rc != AESGEN_OK) {
        w->fails++;
        printf("FAIL: thread %u: aesgen_init(AES-%u) returned %d\n", w->index, w->bits, rc);
        return NULL;
    }
    for (int d = 0; d < 2; d++)
        if (!streq(aesgen_ctx_variant(&own, (aesgen_direction)d), w->want_variant[d])) {
            w->fails++;
            printf("FAIL: thread %u: its AES-%u context uses %s for %s, dispatch selected %s\n", w->index,
                   w->bits, nn(aesgen_ctx_variant(&own, (aesgen_direction)d)), d ? "dec" : "enc",
                   nn(w->want_variant[d]));
        }
    /* Each thread walks its jobs from a different start, so that at any moment the
     * threads are in different modes and key sizes on the same contexts. */
    for (unsigned r = 0; r < reps; r++)
        for (unsigned i = 0; i < JOBS_PER_THREAD; i++)
            run_job(w, &own, &w->jobs[(i + w->index * 7 + r) % JOBS_PER_THREAD], r);
    aesgen_wipe(&own);
    return NULL;
}

static void make_job(job *j, unsigned bits, int shared, const uint8_t *key)
{
    j->mode = (int)rnd_below(MODE_COUNT);
    j->shared = shared;
    j->bits = bits;
    const int ctr = j->mode == MODE_CTR;
    size_t len;
    switch (rnd_below(10)) {
    case 0:
        len = BIG_LEN - rnd_below(48); /* long: many batches of every backend */
        break;
    case 1:
        len = ctr ? rnd_below(40) : 16 * rnd_below(3); /* empty, or shorter than a batch */
        break;
    default:
        len = rnd_below(2048);
        break;
    }
    if (!ctr)
        len -= len % 16;
    j->len = len;
    j->in_off = rnd_below(16);
    j->out_off = rnd_below(16);
    j->in_place = rnd_below(3) == 0;
    /* Split points: any byte for CTR, block boundaries otherwise. */
    const size_t unit = ctr ? 1 : 16, units = len / unit;
    j->npieces = units == 0 ? 1 : 1 + (unsigned)rnd_below(MAX_PIECES);
    j->cuts[0] = 0;
    for (unsigned p = 1; p < j->npieces; p++)
        j->cuts[p] = rnd_below(units + 1) * unit;
    j->cuts[j->npieces] = len;
    for (unsigned p = 1; p < j->npieces; p++) /* sort (insertion) */
        for (unsigned q = p; q > 1 && j->cuts[q - 1] > j->cuts[q]; q--) {
            size_t t = j->cuts[q];
            j->cuts[q] = j->cuts[q - 1];
            j->cuts[q - 1] = t;
        }
    rnd_bytes(j->iv, 16);
    if (ctr && rnd_below(4) == 0) /* near a carry out of the low words */
        memset(j->iv + 8 + rnd_below(8), 0xff, 1 + rnd_below(8));
    j->in = xmalloc(len);
    j->expect = xmalloc(len);
    rnd_bytes(j->in, len);
    oracle(bits, j->mode, key, j->iv, j->expect, j->in, len);
    switch (j->mode) {
    case MODE_CBC_ENC:
        memcpy(j->iv_after, len ? j->expect + len - 16 : j->iv, 16);
        break;
    case MODE_CBC_DEC:
        memcpy(j->iv_after, len ? j->in + len - 16 : j->iv, 16);
        break;
    case MODE_CTR:
        memcpy(j->iv_after, j->iv, 16);
        ctr_add(j->iv_after, (len + 15) / 16);
        break;
    default:
        break;
    }
}

/* One round: the current dispatch (automatic or forced), N workers at once. */
static void phase_use(const char *label, worker *w)
{
    const int failures_before = failures;
    const char *want[3][2];
    for (unsigned k = 0; k < 3; k++)
        for (int d = 0; d < 2; d++) {
            want[k][d] = aesgen_selected_variant(key_bits_list[k], (aesgen_direction)d);
            if (want[k][d] == NULL) {
                FAIL("%s: dispatch selects nothing for AES-%u %s", label, key_bits_list[k], d ? "dec" : "enc");
                return;
            }
        }

    /* The shared contexts, set up here, read by every worker. */
    aesgen_ctx before[3];
    uint64_t sum_before[3];
    for (unsigned k = 0; k < 3; k++) {
        rnd_bytes(shared_key[k], 32);
        int rc = aesgen_init(&shared_ctx[k], shared_key[k], key_bits_list[k] / 8);
        if (rc != AESGEN_OK) {
            FAIL("%s: aesgen_init(AES-%u) returned %d", label, key_bits_list[k], rc);
            return;
        }
        for (int d = 0; d < 2; d++)
            if (!streq(aesgen_ctx_variant(&shared_ctx[k], (aesgen_direction)d), want[k][d]))
                FAIL("%s: the shared AES-%u context uses %s for %s, dispatch selects %s", label,
                     key_bits_list[k], nn(aesgen_ctx_variant(&shared_ctx[k], (aesgen_direction)d)),
                     d ? "dec" : "enc", want[k][d]);
        memcpy(&before[k], &shared_ctx[k], sizeof before[k]);
        sum_before[k] = fnv1a(&shared_ctx[k], sizeof shared_ctx[k]);
    }

    for (unsigned t = 0; t < nthreads; t++) {
        worker *x = &w[t];
        x->index = t;
        x->bits = key_bits_list[(t + rnd_below(3)) % 3];
        rnd_bytes(x->key, sizeof x->key);
        x->want_variant[0] = want[bits_index(x->bits)][0];
        x->want_variant[1] = want[bits_index(x->bits)][1];
        for (unsigned i = 0; i < JOBS_PER_THREAD; i++) {
            /* Two jobs in three on the shared contexts, the rest on the thread's own. */
            int shared = i % 3 != 2;
            unsigned bits = shared ? key_bits_list[rnd_below(3)] : x->bits;
            make_job(&x->jobs[i], bits, shared, shared ? shared_key[bits_index(bits)] : x->key);
        }
        x->jobs_done = x->bytes_done = 0;
        x->fails = 0;
    }

    pthread_t tid[MAX_THREADS];
    start_threads(tid, use_worker, w, sizeof *w);
    join_threads(tid);

    unsigned long long jobs = 0, bytes = 0;
    for (unsigned t = 0; t < nthreads; t++) {
        jobs += w[t].jobs_done;
        bytes += w[t].bytes_done;
        if (w[t].fails != 0)
            FAIL("%s: thread %u: %u failed checks", label, t, w[t].fails);
        for (unsigned i = 0; i < JOBS_PER_THREAD; i++) {
            free(w[t].jobs[i].in);
            free(w[t].jobs[i].expect);
        }
    }
    const unsigned long long want_jobs = (unsigned long long)nthreads * reps * JOBS_PER_THREAD;
    if (jobs != want_jobs)
        FAIL("%s: %llu of %llu jobs completed", label, jobs, want_jobs);
    for (unsigned k = 0; k < 3; k++) {
        uint64_t sum_after = fnv1a(&shared_ctx[k], sizeof shared_ctx[k]);
        if (sum_after != sum_before[k] || memcmp(&before[k], &shared_ctx[k], sizeof before[k]) != 0)
            FAIL("%s: the shared AES-%u context changed while threads used it (checksum %016" PRIx64
                 " -> %016" PRIx64 ")",
                 label, key_bits_list[k], sum_before[k], sum_after);
        aesgen_wipe(&shared_ctx[k]);
        aesgen_wipe(&before[k]);
    }
    printf("%-22s %u threads, %llu jobs, %.2f MB; AES-128 %s / %s; shared contexts unchanged: %s; %s\n",
           label, nthreads, jobs, (double)bytes / 1e6, want[0][0], want[0][1],
           failures == failures_before ? "yes" : "see above", failures == failures_before ? "ok" : "FAILED");
}

/* ------------------------------------------------------------------------ */
/* Phase 3: aesgen_force_backend racing aesgen_init                          */

#define RACE_INITS 400
#define MAX_CHOICES (MAX_BACKENDS + 2)

/* The (encrypt, decrypt) variant pairs one backend choice gives, per key size. */
static const char *race_pairs[MAX_CHOICES][3][2];
static const char *race_choice[MAX_CHOICES];     /* NULL: automatic */
static size_t race_nchoices;
static _Atomic int race_stop;

typedef struct {
    unsigned index;
    unsigned inits, mixed, refused;
    char first_bad[160];
} race_worker;

static void *race_forcer(void)
{
    /* Cycles through the choices as fast as it can until every initialiser is done. */
    for (size_t i = 0; !race_stop; i++)
        aesgen_force_backend(race_choice[i % race_nchoices]);
    return NULL;
}

static void *race_worker_fn(void *arg)
{
    race_worker *w = arg;
    pthread_barrier_wait(&barrier);
    if (w->index == 0)
        return race_forcer();
    uint8_t key[32] = { (uint8_t)w->index };
    aesgen_ctx ctx;
    for (unsigned i = 0; i < RACE_INITS; i++) {
        unsigned k = (w->index + i) % 3;
        if (aesgen_init(&ctx, key, key_bits_list[k] / 8) != AESGEN_OK) {
            w->refused++;
            continue;
        }
        w->inits++;
        const char *enc = aesgen_ctx_variant(&ctx, AESGEN_ENCRYPT), *dec = aesgen_ctx_variant(&ctx, AESGEN_DECRYPT);
        int ok = 0;
        for (size_t c = 0; c < race_nchoices && !ok; c++)
            ok = streq(race_pairs[c][k][0], enc) && streq(race_pairs[c][k][1], dec);
        if (!ok && w->mixed++ == 0)
            snprintf(w->first_bad, sizeof w->first_bad, "AES-%u %s + %s", key_bits_list[k], nn(enc), nn(dec));
    }
    aesgen_wipe(&ctx);
    return NULL;
}

/* One thread switches the forced backend among automatic, every backend this CPU
 * runs and "software", while the others set up contexts: every context must pair
 * the encryption and decryption variants of one choice, never one of each. */
static void phase_force_race(void)
{
    const int failures_before = failures;
    race_nchoices = 0;
    race_choice[race_nchoices++] = NULL;
    for (size_t b = 0; b < nbackends && race_nchoices < MAX_CHOICES - 1; b++)
        if (aesgen_backend_supported(backend_names[b]) == 1)
            race_choice[race_nchoices++] = backend_names[b];
    race_choice[race_nchoices++] = "software";
    for (size_t c = 0; c < race_nchoices; c++) {
        if (aesgen_force_backend(race_choice[c]) != AESGEN_OK) {
            FAIL("force race: aesgen_force_backend(%s) refused", nn(race_choice[c]));
            return;
        }
        for (unsigned k = 0; k < 3; k++)
            for (int d = 0; d < 2; d++)
                race_pairs[c][k][d] = aesgen_selected_variant(key_bits_list[k], (aesgen_direction)d);
    }
    race_stop = 0;
    race_worker w[MAX_THREADS];
    memset(w, 0, sizeof w);
    for (unsigned t = 0; t < nthreads; t++)
        w[t].index = t;
    pthread_t tid[MAX_THREADS];
    start_threads(tid, race_worker_fn, w, sizeof *w);
    for (unsigned t = 1; t < nthreads; t++)
        pthread_join(tid[t], NULL);
    race_stop = 1;                 /* the forcer, thread 0, runs until the others are done */
    pthread_join(tid[0], NULL);
    pthread_barrier_destroy(&barrier);

    unsigned inits = 0;
    for (unsigned t = 1; t < nthreads; t++) {
        inits += w[t].inits;
        if (w[t].refused != 0)
            FAIL("force race: thread %u: aesgen_init refused %u times", t, w[t].refused);
        if (w[t].mixed != 0)
            FAIL("force race: thread %u: %u contexts mix two choices, first %s", t, w[t].mixed, w[t].first_bad);
    }
    if (aesgen_force_backend(NULL) != AESGEN_OK)
        FAIL("aesgen_force_backend(NULL) failed");
    printf("%-22s %u initialisations by %u threads against %zu backend choices switched by one; %s\n",
           "force race:", inits, nthreads - 1, race_nchoices, failures == failures_before ? "ok" : "FAILED");
}

/* ------------------------------------------------------------------------ */

static unsigned parse_uint(const char *s, unsigned lo, unsigned hi, const char *what)
{
    char *end;
    unsigned long v = strtoul(s, &end, 0);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        printf("usage: %s must be %u..%u\n", what, lo, hi);
        exit(2);
    }
    return (unsigned)v;
}

int main(int argc, char **argv)
{
    int first_use_only = 0;
    const char *env_reps = getenv("AESGEN_THREADS_REPS");
    if (env_reps != NULL && env_reps[0] != '\0')
        reps = parse_uint(env_reps, 1, 1000, "AESGEN_THREADS_REPS");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            nthreads = parse_uint(argv[++i], 2, MAX_THREADS, "--threads");
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = parse_uint(argv[++i], 1, 1000, "--reps");
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            seed = strtoull(argv[++i], &end, 0);
            if (*end != '\0') {
                printf("usage: bad --seed\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--first-use-only") == 0) {
            first_use_only = 1;
        } else {
            printf("usage: %s [--threads N] [--reps N] [--seed N] [--first-use-only]\n", argv[0]);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("aesgen_threads_test: %u threads, %u repetitions, seed 0x%" PRIx64 "\n", nthreads, reps, seed);

    /* Must come first: no aesgen call may set up dispatch before the race. */
    const int env_rc = phase_first_use();
    if (first_use_only || failures != 0)
        goto done;

    rng_state = seed;
    worker *w = xmalloc(nthreads * sizeof *w);
    memset(w, 0, nthreads * sizeof *w);
    for (unsigned t = 0; t < nthreads; t++) {
        w[t].in_arena = xmalloc(ARENA_LEN);
        w[t].out_arena = xmalloc(ARENA_LEN);
    }

    /* Automatic dispatch first (the environment's AESGEN_BACKEND, if any, applies). */
    if (env_rc == AESGEN_OK)
        phase_use("automatic", w);
    else
        printf("automatic round not run: aesgen_init refuses the environment (%d), as checked above\n",
               env_rc);
    /* Then every backend this CPU runs, forced by this thread between rounds:
     * aesgen_force_backend is process-wide and documented for later aesgen_init calls. */
    unsigned rounds = env_rc == AESGEN_OK, not_here = 0;
    for (size_t b = 0; b < nbackends; b++) {
        const char *name = backend_names[b];
        int sup = aesgen_backend_supported(name);
        if (sup != 1) {
            if (sup != 0)
                FAIL("aesgen_backend_supported(%s) = %d for a listed backend", name, sup);
            printf("backend %-14s not run: this CPU cannot run it\n", name);
            not_here++;
            continue;
        }
        if (aesgen_force_backend(name) != AESGEN_OK) {
            FAIL("aesgen_force_backend(%s) refused a supported backend", name);
            continue;
        }
        char label[64];
        snprintf(label, sizeof label, "backend %s:", name);
        phase_use(label, w);
        rounds++;
    }
    if (aesgen_force_backend("software") != AESGEN_OK) {
        FAIL("aesgen_force_backend(software) refused");
    } else {
        phase_use("class software:", w);
        rounds++;
    }
    if (aesgen_force_backend(NULL) != AESGEN_OK)
        FAIL("aesgen_force_backend(NULL) failed");
    phase_force_race();
    printf("%u rounds (automatic%s, %zu backends of %zu, software); %u backends cannot run here\n", rounds,
           env_rc == AESGEN_OK ? "" : " not run", nbackends - not_here, nbackends, not_here);

    for (unsigned t = 0; t < nthreads; t++) {
        free(w[t].in_arena);
        free(w[t].out_arena);
    }
    free(w);
done:
    if (failures != 0) {
        printf("FAIL: %d failures\n", failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
