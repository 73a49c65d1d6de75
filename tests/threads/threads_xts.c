/*
 * threads_xts.c -- aesgen_threads_test, phase 2b: one shared aesgen_xts_key per key
 * size (AES-128-XTS, AES-256-XTS), set up by the main thread under the round's
 * dispatch and used by every thread at once (see threads_test.c).
 *
 * Each thread runs its own jobs: encryption or decryption of one data unit (any
 * tweak, 16 bytes to a few KiB, ciphertext stealing included) or of many sectors
 * (aesgen_xts_*_sectors: a first sector, optionally next to the 2^32 carry, a unit
 * length and a count across the 64-tweak group), in place or not, at buffer
 * offsets 0..15, on the shared key of the job's size. The expected output of every
 * job is computed beforehand by the main thread, single-threaded, with the same
 * shared key (and checked there against OpenSSL EVP aes-xts, unit by unit, so a
 * wrong single-threaded answer is caught too); the workers call only aesgen. Checked
 * per job: status, output, guard bytes around the output, untouched input; per
 * round: the shared keys' bytes (copy and checksum) before and after.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "aesgen.h"
#include "threads_test.h"
#include "ts_oracle_xts.h"
#include "ts_report.h"

#define XTS_JOBS 16
#define XTS_MAX_LEN (16 * 1024) /* a job's bytes, all units */
#define GUARD 32
#define GUARD_BYTE 0xa5
#define XTS_ARENA (GUARD + 16 + XTS_MAX_LEN + GUARD)

typedef struct xts_job {
    int k;                  /* 0: AES-128-XTS, 1: AES-256-XTS */
    int decrypt, sectors, in_place;
    size_t len;             /* one unit: its length; sectors: unit_len * count */
    size_t unit_len, count; /* sectors */
    uint64_t sector;
    uint8_t tweak[16];      /* one unit */
    size_t in_off, out_off;
    uint8_t *in, *expect;
} xts_job;

typedef struct xts_worker {
    unsigned index;
    xts_job jobs[XTS_JOBS];
    uint8_t *in_arena, *out_arena;
    unsigned long long jobs_done, bytes_done;
    unsigned fails;
} xts_worker;

static const unsigned xts_bits[2] = {128, 256};
static aesgen_xts_key shared_xts[2];
static uint8_t shared_xts_key[2][64];

static int xts_call(const xts_job *j, const aesgen_xts_key *key, uint8_t *out, const uint8_t *in)
{
    if (j->sectors)
        return j->decrypt ? aesgen_xts_decrypt_sectors(key, j->sector, j->unit_len, j->count, out, in)
                          : aesgen_xts_encrypt_sectors(key, j->sector, j->unit_len, j->count, out, in);
    return j->decrypt ? aesgen_xts_decrypt(key, j->tweak, out, in, j->len)
                      : aesgen_xts_encrypt(key, j->tweak, out, in, j->len);
}

static void xts_job_fail(xts_worker *w, const xts_job *j, unsigned rep, const char *what, size_t pos)
{
    w->fails++;
    if (w->fails > 10)
        return;
    if (j->sectors)
        printf("FAIL: thread %u XTS job %u (rep %u): AES-%u-XTS %s, sectors %" PRIu64
               " + %zu x %zu bytes, in+%zu out+%zu%s: %s (byte %zu)\n",
               w->index, (unsigned)(j - w->jobs), rep, xts_bits[j->k], j->decrypt ? "decrypt" : "encrypt",
               j->sector, j->count, j->unit_len, j->in_off, j->out_off, j->in_place ? " in place" : "", what, pos);
    else
        printf("FAIL: thread %u XTS job %u (rep %u): AES-%u-XTS %s, one unit of %zu bytes, in+%zu out+%zu%s: "
               "%s (byte %zu)\n",
               w->index, (unsigned)(j - w->jobs), rep, xts_bits[j->k], j->decrypt ? "decrypt" : "encrypt", j->len,
               j->in_off, j->out_off, j->in_place ? " in place" : "", what, pos);
}

static size_t diff_at(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return n;
}

static void run_xts_job(xts_worker *w, const xts_job *j, unsigned rep)
{
    uint8_t *out_region = w->out_arena, *in_region = w->in_arena;
    memset(out_region, GUARD_BYTE, XTS_ARENA);
    uint8_t *out = out_region + GUARD + j->out_off;
    const uint8_t *in;
    if (j->in_place) {
        memcpy(out, j->in, j->len);
        in = out;
    } else {
        memset(in_region, GUARD_BYTE, XTS_ARENA);
        memcpy(in_region + GUARD + j->in_off, j->in, j->len);
        in = in_region + GUARD + j->in_off;
    }
    const int rc = xts_call(j, &shared_xts[j->k], out, in);
    if (rc != AESGEN_OK) {
        xts_job_fail(w, j, rep, aesgen_status_string(rc), 0);
        return;
    }
    size_t pos = diff_at(out, j->expect, j->len);
    if (pos != j->len)
        xts_job_fail(w, j, rep, "output differs from the single-threaded result", pos);
    for (size_t i = 0; i < GUARD + j->out_off; i++)
        if (out_region[i] != GUARD_BYTE) {
            xts_job_fail(w, j, rep, "wrote before the output buffer", i);
            break;
        }
    for (uint8_t *q = out + j->len; q < out_region + XTS_ARENA; q++)
        if (*q != GUARD_BYTE) {
            xts_job_fail(w, j, rep, "wrote past the output buffer", (size_t)(q - out));
            break;
        }
    if (!j->in_place && (pos = diff_at(in, j->in, j->len)) != j->len)
        xts_job_fail(w, j, rep, "input changed", pos);
    w->jobs_done++;
    w->bytes_done += j->len;
}

static void *xts_worker_main(void *arg)
{
    xts_worker *w = arg;
    pthread_barrier_wait(&barrier);
    for (unsigned r = 0; r < reps; r++)
        for (unsigned i = 0; i < XTS_JOBS; i++)
            run_xts_job(w, &w->jobs[(i + w->index * 5 + r) % XTS_JOBS], r);
    return NULL;
}

/* A job and its expected output: aesgen on the shared key, here, alone; that
 * result checked against OpenSSL unit by unit. Returns 0 when that failed. */
static int make_xts_job(xts_job *j, EVP_CIPHER_CTX *ossl, const char *label)
{
    memset(j, 0, sizeof *j);
    j->k = (int)ts_rng_below(&rng, 2);
    j->decrypt = (int)ts_rng_below(&rng, 2);
    j->sectors = ts_rng_below(&rng, 2) == 0;
    j->in_place = ts_rng_below(&rng, 3) == 0;
    j->in_off = ts_rng_below(&rng, 16);
    j->out_off = ts_rng_below(&rng, 16);
    if (j->sectors) {
        /* counts around the 64-tweak group, or a few units; units of 16 bytes up */
        const size_t c = ts_rng_below(&rng, 4);
        j->count = c == 0 ? 1 + ts_rng_below(&rng, 8) : c == 1 ? 60 + ts_rng_below(&rng, 10) : 1 + ts_rng_below(&rng, 140);
        const size_t max_unit = XTS_MAX_LEN / j->count;
        j->unit_len = 16 + ts_rng_below(&rng, (max_unit < 600 ? max_unit : 600) - 15);
        j->len = j->count * j->unit_len;
        uint64_t s;
        ts_rng_bytes_low(&rng, (uint8_t *)&s, sizeof s);
        const size_t form = ts_rng_below(&rng, 3);
        if (form == 0)
            s &= 0xffff;
        else if (form == 1) /* across the 2^32 carry */
            s = (UINT64_C(1) << 32) - 1 - ts_rng_below(&rng, 64);
        if (s > UINT64_MAX - (j->count - 1))
            s = UINT64_MAX - (j->count - 1);
        j->sector = s;
    } else {
        const size_t c = ts_rng_below(&rng, 5);
        j->len = c == 0 ? 16 + ts_rng_below(&rng, 32) : c == 1 ? 1024 - 16 + ts_rng_below(&rng, 40)
                                                                 : 16 + ts_rng_below(&rng, 4096);
        ts_rng_bytes_low(&rng, j->tweak, 16);
    }
    j->in = xmalloc(j->len);
    j->expect = xmalloc(j->len);
    ts_rng_bytes_low(&rng, j->in, j->len);
    const int rc = xts_call(j, &shared_xts[j->k], j->expect, j->in);
    if (rc != AESGEN_OK) {
        ts_fail("%s: single-threaded XTS job returned %d (%s)", label, rc, aesgen_status_string(rc));
        return 0;
    }
    uint8_t *want = xmalloc(j->len);
    const size_t n = j->sectors ? j->unit_len : j->len;
    for (size_t u = 0; u < (j->sectors ? j->count : 1); u++) {
        uint8_t tw[16] = {0};
        if (j->sectors)
            for (size_t i = 0; i < 8; i++)
                tw[i] = (uint8_t)((j->sector + u) >> (8 * i));
        else
            memcpy(tw, j->tweak, 16);
        const char *e = ts_oracle_xts(ossl, xts_bits[j->k], !j->decrypt, shared_xts_key[j->k], tw, want + u * n,
                                      j->in + u * n, n);
        if (e != NULL) {
            printf("FAIL: OpenSSL XTS oracle failed: %s\n", e);
            exit(1);
        }
    }
    const size_t pos = diff_at(want, j->expect, j->len);
    free(want);
    if (pos != j->len) {
        ts_fail("%s: single-threaded AES-%u-XTS %s (%s, %zu bytes) differs from OpenSSL at byte %zu", label,
                xts_bits[j->k], j->decrypt ? "decrypt" : "encrypt", j->sectors ? "sectors" : "one unit", j->len, pos);
        return 0;
    }
    return 1;
}

void phase_xts(const char *label)
{
    const unsigned long failures_before = ts_failures;
    EVP_CIPHER_CTX *ossl = EVP_CIPHER_CTX_new();
    if (ossl == NULL) {
        printf("FAIL: EVP_CIPHER_CTX_new\n");
        exit(1);
    }
    aesgen_xts_key before[2];
    uint64_t sum_before[2];
    for (int k = 0; k < 2; k++) {
        const size_t half = xts_bits[k] / 8;
        ts_rng_bytes_low(&rng, shared_xts_key[k], 2 * half);
        if (memcmp(shared_xts_key[k], shared_xts_key[k] + half, half) == 0)
            shared_xts_key[k][2 * half - 1] ^= 1;
        const int rc = aesgen_xts_init(&shared_xts[k], shared_xts_key[k], 2 * half);
        if (rc != AESGEN_OK) {
            ts_fail("%s: aesgen_xts_init(AES-%u-XTS) returned %d", label, xts_bits[k], rc);
            EVP_CIPHER_CTX_free(ossl);
            return;
        }
        for (int d = 0; d < 2; d++) {
            const char *want = aesgen_selected_variant(xts_bits[k], (aesgen_direction)d);
            if (!streq(aesgen_xts_variant(&shared_xts[k], (aesgen_direction)d), want))
                ts_fail("%s: the shared AES-%u-XTS key uses %s for %s, dispatch selects %s", label, xts_bits[k],
                        nn(aesgen_xts_variant(&shared_xts[k], (aesgen_direction)d)), d ? "dec" : "enc", nn(want));
        }
    }

    xts_worker *w = xmalloc(nthreads * sizeof *w);
    memset(w, 0, nthreads * sizeof *w);
    int ok = 1;
    for (unsigned t = 0; t < nthreads; t++) {
        w[t].index = t;
        w[t].in_arena = xmalloc(XTS_ARENA);
        w[t].out_arena = xmalloc(XTS_ARENA);
        for (unsigned i = 0; i < XTS_JOBS; i++)
            ok &= make_xts_job(&w[t].jobs[i], ossl, label);
    }
    EVP_CIPHER_CTX_free(ossl);
    for (int k = 0; k < 2; k++) {
        memcpy(&before[k], &shared_xts[k], sizeof before[k]);
        sum_before[k] = fnv1a(&shared_xts[k], sizeof shared_xts[k]);
    }

    unsigned long long jobs = 0, bytes = 0;
    if (ok) {
        pthread_t tid[MAX_THREADS];
        start_threads(tid, xts_worker_main, w, sizeof *w);
        join_threads(tid);
        for (unsigned t = 0; t < nthreads; t++) {
            jobs += w[t].jobs_done;
            bytes += w[t].bytes_done;
            if (w[t].fails != 0)
                ts_fail("%s: XTS thread %u: %u failed checks", label, t, w[t].fails);
        }
        const unsigned long long want_jobs = (unsigned long long)nthreads * reps * XTS_JOBS;
        if (jobs != want_jobs)
            ts_fail("%s: %llu of %llu XTS jobs completed", label, jobs, want_jobs);
    }
    for (unsigned t = 0; t < nthreads; t++) {
        for (unsigned i = 0; i < XTS_JOBS; i++) {
            free(w[t].jobs[i].in);
            free(w[t].jobs[i].expect);
        }
        free(w[t].in_arena);
        free(w[t].out_arena);
    }
    free(w);
    for (int k = 0; k < 2; k++) {
        const uint64_t sum_after = fnv1a(&shared_xts[k], sizeof shared_xts[k]);
        if (sum_after != sum_before[k] || memcmp(&before[k], &shared_xts[k], sizeof before[k]) != 0)
            ts_fail("%s: the shared AES-%u-XTS key changed while threads used it (checksum %016" PRIx64
                    " -> %016" PRIx64 ")",
                    label, xts_bits[k], sum_before[k], sum_after);
        aesgen_xts_wipe(&shared_xts[k]);
        aesgen_xts_wipe(&before[k]);
    }
    printf("%-22s %u threads, %llu XTS jobs, %.2f MB; AES-128-XTS %s / %s; shared keys unchanged: %s; %s\n",
           label, nthreads, jobs, (double)bytes / 1e6, nn(aesgen_selected_variant(128, AESGEN_ENCRYPT)),
           nn(aesgen_selected_variant(128, AESGEN_DECRYPT)), ts_failures == failures_before ? "yes" : "see above",
           ts_failures == failures_before ? "ok" : "FAILED");
}
