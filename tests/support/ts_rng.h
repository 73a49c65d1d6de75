/*
 * ts_rng.h -- the tests' deterministic random numbers: splitmix64.
 *
 * One generator, three ways of turning it into bytes, because the tests that
 * share it did so in three ways and their seeds must keep giving the same cases:
 *
 *   ts_rng_bytes         8 bytes per draw, least significant byte first; the last
 *                        draw gives only the bytes still needed (crosscheck,
 *                        sparc_t4_emulation). The same on every host.
 *   ts_rng_bytes_native  8 bytes per draw in the host's byte order (memcpy of the
 *                        draw; the last draw gives its first bytes in memory)
 *                        (differential). Equal to ts_rng_bytes on little-endian
 *                        hosts, byte-swapped per draw on big-endian ones.
 *   ts_rng_bytes_low     one draw per byte, its low 8 bits (threads).
 *
 * Not thread-safe: one generator per thread (the tests draw on the main thread).
 */
#ifndef AESGEN_TS_RNG_H
#define AESGEN_TS_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_rng {
    uint64_t state;
} ts_rng;

static inline void ts_rng_seed(ts_rng *r, uint64_t seed) { r->state = seed; }

/* The next 64-bit number of splitmix64. */
uint64_t ts_rng_next(ts_rng *r);

/* next % n, uniform enough in [0, n) for test-case selection; 0 (and no draw) for n == 0. */
size_t ts_rng_below(ts_rng *r, size_t n);

void ts_rng_bytes(ts_rng *r, uint8_t *p, size_t n);
void ts_rng_bytes_native(ts_rng *r, uint8_t *p, size_t n);
void ts_rng_bytes_low(ts_rng *r, uint8_t *p, size_t n);

#endif
