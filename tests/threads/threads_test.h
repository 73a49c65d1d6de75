/*
 * threads_test.h -- what the files of aesgen_threads_test share (the test is
 * described in threads_test.c):
 *   threads_test.c        options, common helpers, starting and joining the threads, main
 *   threads_first_use.c   phase 1: the first use of dispatch, raced
 *   threads_use.c         phase 2: concurrent use, one round per backend
 *   threads_xts.c         phase 2b: a shared aesgen_xts_key, in the same rounds
 *   threads_force_race.c  phase 3: aesgen_force_backend racing aesgen_init
 * Failures are printed and counted with ts_fail (ts_report.h), main thread only.
 */
#ifndef AESGEN_THREADS_TEST_H
#define AESGEN_THREADS_TEST_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "ts_rng.h"

#define MAX_THREADS 64
#define MAX_BACKENDS 64

extern const unsigned key_bits_list[3]; /* 128, 192, 256 */
extern unsigned nthreads, reps;
extern ts_rng rng;               /* splitmix64, one draw per byte; main thread only */
extern pthread_barrier_t barrier; /* releases the workers of a phase together */

/* The backends of the library (aesgen_backend_name), listed by phase 1. */
extern size_t nbackends;
extern const char *backend_names[MAX_BACKENDS];

void *xmalloc(size_t n);                     /* exits on failure */
int streq(const char *a, const char *b);     /* equal strings, or both NULL */
const char *nn(const char *s);               /* s, or "(null)" */
uint64_t fnv1a(const void *p, size_t n);

/* nthreads threads running fn, thread t on (char *)args + t * arg_size, and the
 * barrier for nthreads; join_threads waits for them and destroys the barrier. */
void start_threads(pthread_t *tid, void *(*fn)(void *), void *args, size_t arg_size);
void join_threads(pthread_t *tid);

/* Phase 1 (must make the first aesgen calls of the process): returns aesgen_init's
 * status in the race. */
int phase_first_use(void);

/* Phase 2: the per-thread state (buffers), then one round under the current dispatch. */
typedef struct worker worker;
worker *workers_new(void);
void workers_free(worker *w);
void phase_use(const char *label, worker *w);

/* Phase 2b: one round of XTS on shared keys under the current dispatch. */
void phase_xts(const char *label);

/* Phase 3. */
void phase_force_race(void);

#endif
