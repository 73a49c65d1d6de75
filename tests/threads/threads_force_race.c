/*
 * threads_force_race.c -- aesgen_threads_test, phase 3: aesgen_force_backend
 * switched by one thread while the others run aesgen_init (see threads_test.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aesgen.h"
#include "threads_test.h"
#include "ts_report.h"

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
void phase_force_race(void)
{
    const unsigned long failures_before = ts_failures;
    race_nchoices = 0;
    race_choice[race_nchoices++] = NULL;
    for (size_t b = 0; b < nbackends && race_nchoices < MAX_CHOICES - 1; b++)
        if (aesgen_backend_supported(backend_names[b]) == 1)
            race_choice[race_nchoices++] = backend_names[b];
    race_choice[race_nchoices++] = "software";
    for (size_t c = 0; c < race_nchoices; c++) {
        if (aesgen_force_backend(race_choice[c]) != AESGEN_OK) {
            ts_fail("force race: aesgen_force_backend(%s) refused", nn(race_choice[c]));
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
            ts_fail("force race: thread %u: aesgen_init refused %u times", t, w[t].refused);
        if (w[t].mixed != 0)
            ts_fail("force race: thread %u: %u contexts mix two choices, first %s", t, w[t].mixed, w[t].first_bad);
    }
    if (aesgen_force_backend(NULL) != AESGEN_OK)
        ts_fail("aesgen_force_backend(NULL) failed");
    printf("%-22s %u initialisations by %u threads against %zu backend choices switched by one; %s\n",
           "force race:", inits, nthreads - 1, race_nchoices, ts_failures == failures_before ? "ok" : "FAILED");
}
