/*
 * threads_use.c -- aesgen_threads_test, phase 2: concurrent use, one round per
 * backend, every output checked against OpenSSL EVP computed beforehand by the main
 * thread (see threads_test.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesgen.h"
#include "threads_test.h"
#include "ts_modes.h"
#include "ts_oracle.h"
#include "ts_report.h"

#define MAX_PIECES 6
#define GUARD 32
#define GUARD_BYTE 0xa5
#define JOBS_PER_THREAD 30
#define BIG_LEN (16 * 1024 + 48) /* one job in ten per thread is this long (or near it) */
#define ARENA_LEN (GUARD + 16 + BIG_LEN + 64 + GUARD)

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

struct worker {
    unsigned index;
    unsigned bits;               /* key size of its own context */
    uint8_t key[32];             /* key of its own context */
    const char *want_variant[2]; /* what dispatch must give its own context */
    job jobs[JOBS_PER_THREAD];
    uint8_t *in_arena, *out_arena;
    /* results, read by the main thread after the join */
    unsigned long long jobs_done, bytes_done;
    unsigned fails;
};

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
           w->index, (unsigned)(j - w->jobs), rep, j->bits, ts_mode_name[j->mode], j->shared ? "the shared" : "its own",
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
    if (j->mode == TS_MODE_CTR && aesgen_ctr_init(&ctr, j->iv) != AESGEN_OK) {
        job_fail(w, j, rep, "aesgen_ctr_init failed", 0);
        return;
    }
    for (unsigned p = 0; p < j->npieces; p++) {
        const size_t a = j->cuts[p], n = j->cuts[p + 1] - a;
        const int rc = ts_crypt(j->mode, ctx, iv, &ctr, out + a, in + a, n);
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
    if ((j->mode == TS_MODE_CBC_ENC || j->mode == TS_MODE_CBC_DEC) && memcmp(iv, j->iv_after, 16) != 0)
        job_fail(w, j, rep, "IV after the calls is not the last ciphertext block", 0);
    if (j->mode == TS_MODE_CTR) {
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
    j->mode = (int)ts_rng_below(&rng, TS_MODE_COUNT);
    j->shared = shared;
    j->bits = bits;
    const int ctr = j->mode == TS_MODE_CTR;
    size_t len;
    switch (ts_rng_below(&rng, 10)) {
    case 0:
        len = BIG_LEN - ts_rng_below(&rng, 48); /* long: many batches of every backend */
        break;
    case 1:
        len = ctr ? ts_rng_below(&rng, 40) : 16 * ts_rng_below(&rng, 3); /* empty, or shorter than a batch */
        break;
    default:
        len = ts_rng_below(&rng, 2048);
        break;
    }
    if (!ctr)
        len -= len % 16;
    j->len = len;
    j->in_off = ts_rng_below(&rng, 16);
    j->out_off = ts_rng_below(&rng, 16);
    j->in_place = ts_rng_below(&rng, 3) == 0;
    /* Split points: any byte for CTR, block boundaries otherwise. */
    const size_t unit = ctr ? 1 : 16, units = len / unit;
    j->npieces = units == 0 ? 1 : 1 + (unsigned)ts_rng_below(&rng, MAX_PIECES);
    j->cuts[0] = 0;
    for (unsigned p = 1; p < j->npieces; p++)
        j->cuts[p] = ts_rng_below(&rng, units + 1) * unit;
    j->cuts[j->npieces] = len;
    for (unsigned p = 1; p < j->npieces; p++) /* sort (insertion) */
        for (unsigned q = p; q > 1 && j->cuts[q - 1] > j->cuts[q]; q--) {
            size_t t = j->cuts[q];
            j->cuts[q] = j->cuts[q - 1];
            j->cuts[q - 1] = t;
        }
    ts_rng_bytes_low(&rng, j->iv, 16);
    if (ctr && ts_rng_below(&rng, 4) == 0) /* near a carry out of the low words */
        memset(j->iv + 8 + ts_rng_below(&rng, 8), 0xff, 1 + ts_rng_below(&rng, 8));
    j->in = xmalloc(len);
    j->expect = xmalloc(len);
    ts_rng_bytes_low(&rng, j->in, len);
    if (ts_oracle_oneshot(bits, j->mode, key, j->iv, j->expect, j->in, len) != NULL) {
        printf("FAIL: OpenSSL oracle failed (AES-%u %s, %zu bytes)\n", bits, ts_mode_name[j->mode], len);
        exit(1);
    }
    switch (j->mode) {
    case TS_MODE_CBC_ENC:
        memcpy(j->iv_after, len ? j->expect + len - 16 : j->iv, 16);
        break;
    case TS_MODE_CBC_DEC:
        memcpy(j->iv_after, len ? j->in + len - 16 : j->iv, 16);
        break;
    case TS_MODE_CTR:
        memcpy(j->iv_after, j->iv, 16);
        ts_ctr_add(j->iv_after, (len + 15) / 16);
        break;
    default:
        break;
    }
}

worker *workers_new(void)
{
    worker *w = xmalloc(nthreads * sizeof *w);
    memset(w, 0, nthreads * sizeof *w);
    for (unsigned t = 0; t < nthreads; t++) {
        w[t].in_arena = xmalloc(ARENA_LEN);
        w[t].out_arena = xmalloc(ARENA_LEN);
    }
    return w;
}

void workers_free(worker *w)
{
    for (unsigned t = 0; t < nthreads; t++) {
        free(w[t].in_arena);
        free(w[t].out_arena);
    }
    free(w);
}

/* One round: the current dispatch (automatic or forced), N workers at once. */
void phase_use(const char *label, worker *w)
{
    const unsigned long failures_before = ts_failures;
    const char *want[3][2];
    for (unsigned k = 0; k < 3; k++)
        for (int d = 0; d < 2; d++) {
            want[k][d] = aesgen_selected_variant(key_bits_list[k], (aesgen_direction)d);
            if (want[k][d] == NULL) {
                ts_fail("%s: dispatch selects nothing for AES-%u %s", label, key_bits_list[k], d ? "dec" : "enc");
                return;
            }
        }

    /* The shared contexts, set up here, read by every worker. */
    aesgen_ctx before[3];
    uint64_t sum_before[3];
    for (unsigned k = 0; k < 3; k++) {
        ts_rng_bytes_low(&rng, shared_key[k], 32);
        int rc = aesgen_init(&shared_ctx[k], shared_key[k], key_bits_list[k] / 8);
        if (rc != AESGEN_OK) {
            ts_fail("%s: aesgen_init(AES-%u) returned %d", label, key_bits_list[k], rc);
            return;
        }
        for (int d = 0; d < 2; d++)
            if (!streq(aesgen_ctx_variant(&shared_ctx[k], (aesgen_direction)d), want[k][d]))
                ts_fail("%s: the shared AES-%u context uses %s for %s, dispatch selects %s", label,
                     key_bits_list[k], nn(aesgen_ctx_variant(&shared_ctx[k], (aesgen_direction)d)),
                     d ? "dec" : "enc", want[k][d]);
        memcpy(&before[k], &shared_ctx[k], sizeof before[k]);
        sum_before[k] = fnv1a(&shared_ctx[k], sizeof shared_ctx[k]);
    }

    for (unsigned t = 0; t < nthreads; t++) {
        worker *x = &w[t];
        x->index = t;
        x->bits = key_bits_list[(t + ts_rng_below(&rng, 3)) % 3];
        ts_rng_bytes_low(&rng, x->key, sizeof x->key);
        x->want_variant[0] = want[bits_index(x->bits)][0];
        x->want_variant[1] = want[bits_index(x->bits)][1];
        for (unsigned i = 0; i < JOBS_PER_THREAD; i++) {
            /* Two jobs in three on the shared contexts, the rest on the thread's own. */
            int shared = i % 3 != 2;
            unsigned bits = shared ? key_bits_list[ts_rng_below(&rng, 3)] : x->bits;
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
            ts_fail("%s: thread %u: %u failed checks", label, t, w[t].fails);
        for (unsigned i = 0; i < JOBS_PER_THREAD; i++) {
            free(w[t].jobs[i].in);
            free(w[t].jobs[i].expect);
        }
    }
    const unsigned long long want_jobs = (unsigned long long)nthreads * reps * JOBS_PER_THREAD;
    if (jobs != want_jobs)
        ts_fail("%s: %llu of %llu jobs completed", label, jobs, want_jobs);
    for (unsigned k = 0; k < 3; k++) {
        uint64_t sum_after = fnv1a(&shared_ctx[k], sizeof shared_ctx[k]);
        if (sum_after != sum_before[k] || memcmp(&before[k], &shared_ctx[k], sizeof before[k]) != 0)
            ts_fail("%s: the shared AES-%u context changed while threads used it (checksum %016" PRIx64
                 " -> %016" PRIx64 ")",
                 label, key_bits_list[k], sum_before[k], sum_after);
        aesgen_wipe(&shared_ctx[k]);
        aesgen_wipe(&before[k]);
    }
    printf("%-22s %u threads, %llu jobs, %.2f MB; AES-128 %s / %s; shared contexts unchanged: %s; %s\n",
           label, nthreads, jobs, (double)bytes / 1e6, want[0][0], want[0][1],
           ts_failures == failures_before ? "yes" : "see above", ts_failures == failures_before ? "ok" : "FAILED");
}
