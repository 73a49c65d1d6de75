/*
 * threads_first_use.c -- aesgen_threads_test, phase 1: the first use of dispatch,
 * raced by every thread through different entry points (see threads_test.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesgen.h"
#include "threads_test.h"
#include "ts_modes.h"
#include "ts_report.h"

/* ------------------------------------------------------------------------ */
/* Phase 1: the first use of dispatch, raced                                 */

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

size_t nbackends; /* read by phase 1 workers: set before they start */
const char *backend_names[MAX_BACKENDS];

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
        f->enc_rc = aesgen_ecb_encrypt(&f->ctx, f->ct, ts_fips197_pt, 16);
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
int phase_first_use(void)
{
    /* aesgen_backend_count/name read only the registry: they do not set up dispatch. */
    nbackends = aesgen_backend_count();
    if (nbackends == 0 || nbackends > MAX_BACKENDS) {
        ts_fail("aesgen_backend_count() = %zu", nbackends);
        exit(1);
    }
    for (size_t b = 0; b < nbackends; b++) {
        backend_names[b] = aesgen_backend_name(b);
        if (backend_names[b] == NULL) {
            ts_fail("aesgen_backend_name(%zu) is NULL below aesgen_backend_count()", b);
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
    const unsigned long failures_before = ts_failures;

    for (unsigned t = 0; t < n; t++) {
        const first_use *g = &f[t];
        const unsigned k = t % 3;
        for (unsigned kk = 0; kk < 3; kk++)
            for (int d = 0; d < 2; d++) {
                if (!streq(g->sel_variant[kk][d], ref.sel_variant[kk][d]))
                    ts_fail("first use: thread %u saw selected variant %s for AES-%u %s, later %s", t,
                         nn(g->sel_variant[kk][d]), key_bits_list[kk], d ? "dec" : "enc",
                         nn(ref.sel_variant[kk][d]));
                if (!streq(g->sel_backend[kk][d], ref.sel_backend[kk][d]))
                    ts_fail("first use: thread %u saw selected backend %s for AES-%u %s, later %s", t,
                         nn(g->sel_backend[kk][d]), key_bits_list[kk], d ? "dec" : "enc",
                         nn(ref.sel_backend[kk][d]));
            }
        for (size_t b = 0; b <= nbackends; b++)
            if (g->supported[b] != ref.supported[b])
                ts_fail("first use: thread %u: aesgen_backend_supported(%s) = %d, later %d", t,
                     b < nbackends ? backend_names[b] : "software", g->supported[b], ref.supported[b]);
        if (g->init_rc != f[0].init_rc)
            ts_fail("first use: thread %u: aesgen_init returned %d, thread 0 %d", t, g->init_rc, f[0].init_rc);
        if (g->init_rc != AESGEN_OK)
            continue;
        for (int d = 0; d < 2; d++)
            if (!streq(g->ctx_variant[d], ref.sel_variant[k][d]))
                ts_fail("first use: thread %u: its AES-%u context uses %s for %s, dispatch selects %s", t,
                     key_bits_list[k], nn(g->ctx_variant[d]), d ? "dec" : "enc", nn(ref.sel_variant[k][d]));
        if (g->enc_rc != AESGEN_OK || memcmp(g->ct, ts_fips197_ct[k], 16) != 0)
            ts_fail("first use: thread %u: AES-%u FIPS-197 C encryption wrong (rc %d)", t, key_bits_list[k],
                 g->enc_rc);
        if (g->dec_rc != AESGEN_OK || memcmp(g->pt, ts_fips197_pt, 16) != 0)
            ts_fail("first use: thread %u: AES-%u FIPS-197 C decryption wrong (rc %d)", t, key_bits_list[k],
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
                ts_fail("first use: AESGEN_BACKEND=%s runs here but aesgen_init returned %d", env, f[0].init_rc);
            if (strcmp(env, "software") != 0)
                for (unsigned kk = 0; kk < 3; kk++)
                    for (int d = 0; d < 2; d++)
                        if (!streq(ref.sel_backend[kk][d], env))
                            ts_fail("first use: AESGEN_BACKEND=%s but AES-%u %s selects backend %s", env,
                                 key_bits_list[kk], d ? "dec" : "enc", nn(ref.sel_backend[kk][d]));
        } else {
            if (f[0].init_rc != AESGEN_ERR_BACKEND)
                ts_fail("first use: AESGEN_BACKEND=%s does not run here (supported: %d) but aesgen_init "
                     "returned %d, not AESGEN_ERR_BACKEND",
                     env, sup, f[0].init_rc);
            for (unsigned kk = 0; kk < 3; kk++)
                for (int d = 0; d < 2; d++)
                    if (ref.sel_variant[kk][d] != NULL)
                        ts_fail("first use: AESGEN_BACKEND=%s is refused but AES-%u %s selects %s", env,
                             key_bits_list[kk], d ? "dec" : "enc", ref.sel_variant[kk][d]);
        }
    } else if (f[0].init_rc != AESGEN_OK) {
        ts_fail("first use: automatic dispatch but aesgen_init returned %d", f[0].init_rc);
    } else {
        for (unsigned kk = 0; kk < 3; kk++)
            for (int d = 0; d < 2; d++)
                if (ref.sel_variant[kk][d] == NULL)
                    ts_fail("first use: automatic dispatch selects nothing for AES-%u %s", key_bits_list[kk],
                         d ? "dec" : "enc");
    }
    printf("first use: %u threads raced the dispatch set-up (aesgen_init %d); AES-128 %s / %s, "
           "AES-256 %s / %s: %s\n",
           n, f[0].init_rc, nn(ref.sel_variant[0][0]), nn(ref.sel_variant[0][1]), nn(ref.sel_variant[2][0]),
           nn(ref.sel_variant[2][1]), ts_failures == failures_before ? "all threads agree" : "DISAGREEMENT");
    const int init_rc = f[0].init_rc;
    for (unsigned t = 0; t < n; t++)
        aesgen_wipe(&f[t].ctx);
    free(f);
    return init_rc;
}
