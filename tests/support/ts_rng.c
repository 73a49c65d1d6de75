/* ts_rng.c -- splitmix64 and its byte streams (see ts_rng.h). */
#include "ts_rng.h"

#include <string.h>

uint64_t ts_rng_next(ts_rng *r)
{
    uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

size_t ts_rng_below(ts_rng *r, size_t n)
{
    return n == 0 ? 0 : (size_t)(ts_rng_next(r) % (uint64_t)n);
}

void ts_rng_bytes(ts_rng *r, uint8_t *p, size_t n)
{
    while (n > 0) {
        const uint64_t v = ts_rng_next(r);
        for (unsigned i = 0; i < 8 && n > 0; i++, n--)
            *p++ = (uint8_t)(v >> (8 * i));
    }
}

void ts_rng_bytes_native(ts_rng *r, uint8_t *p, size_t n)
{
    while (n >= 8) {
        const uint64_t v = ts_rng_next(r);
        memcpy(p, &v, 8);
        p += 8;
        n -= 8;
    }
    if (n) {
        const uint64_t v = ts_rng_next(r);
        memcpy(p, &v, n);
    }
}

void ts_rng_bytes_low(ts_rng *r, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)ts_rng_next(r);
}
