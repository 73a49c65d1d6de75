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
 * Phase 2b, in the same rounds (threads_xts.c): one shared aesgen_xts_key per key
 *   size (AES-128/256-XTS), N threads encrypting and decrypting single units and
 *   runs of sectors with it at once; every output is compared with the result the
 *   main thread computed alone beforehand (itself checked against OpenSSL), and the
 *   shared keys' bytes before and after the round.
 *
 * Phase 3, force race: one thread switches aesgen_force_backend among automatic,
 *   every backend this CPU runs and "software" while the others run aesgen_init;
 *   every context must pair the encryption and decryption variants of one choice.
 *
 * Files: this one (options, helpers, main), threads_first_use.c (phase 1),
 * threads_use.c (phase 2), threads_xts.c (phase 2b), threads_force_race.c (phase 3);
 * threads_test.h.
 *
 * Exit status: 0 pass, 1 a failure (each is printed), 2 usage error.
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
#include "ts_report.h"

const unsigned key_bits_list[3] = { 128, 192, 256 };

unsigned nthreads = 8;
unsigned reps = 3;
static uint64_t seed = UINT64_C(0x7468726561647331); /* "threads1" */
ts_rng rng;
pthread_barrier_t barrier;

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        printf("FAIL: out of memory\n");
        exit(1);
    }
    return p;
}

int streq(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

const char *nn(const char *s) { return s ? s : "(null)"; }

uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

void start_threads(pthread_t *tid, void *(*fn)(void *), void *args, size_t arg_size)
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

void join_threads(pthread_t *tid)
{
    for (unsigned t = 0; t < nthreads; t++)
        if (pthread_join(tid[t], NULL) != 0) {
            printf("FAIL: pthread_join (thread %u)\n", t);
            exit(1);
        }
    pthread_barrier_destroy(&barrier);
}

/* ------------------------------------------------------------------------ */
/* Options and main                                                          */

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
    if (first_use_only || ts_failures != 0)
        goto done;

    ts_rng_seed(&rng, seed);
    worker *w = workers_new();

    /* Automatic dispatch first (the environment's AESGEN_BACKEND, if any, applies). */
    if (env_rc == AESGEN_OK) {
        phase_use("automatic", w);
        phase_xts("automatic");
    } else
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
                ts_fail("aesgen_backend_supported(%s) = %d for a listed backend", name, sup);
            printf("backend %-14s not run: this CPU cannot run it\n", name);
            not_here++;
            continue;
        }
        if (aesgen_force_backend(name) != AESGEN_OK) {
            ts_fail("aesgen_force_backend(%s) refused a supported backend", name);
            continue;
        }
        char label[64];
        snprintf(label, sizeof label, "backend %s:", name);
        phase_use(label, w);
        phase_xts(label);
        rounds++;
    }
    if (aesgen_force_backend("software") != AESGEN_OK) {
        ts_fail("aesgen_force_backend(software) refused");
    } else {
        phase_use("class software:", w);
        phase_xts("class software:");
        rounds++;
    }
    if (aesgen_force_backend(NULL) != AESGEN_OK)
        ts_fail("aesgen_force_backend(NULL) failed");
    phase_force_race();
    printf("%u rounds (automatic%s, %zu backends of %zu, software); %u backends cannot run here\n", rounds,
           env_rc == AESGEN_OK ? "" : " not run", nbackends - not_here, nbackends, not_here);

    workers_free(w);
done:
    if (ts_failures != 0) {
        printf("FAIL: %lu failures\n", ts_failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
