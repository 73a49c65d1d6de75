/*
 * aesgen_bytes.h -- byte-order-independent loads and stores, CTR counter
 * arithmetic, and wiping, for the runtime and the generated sources.
 */
#ifndef AESGEN_BYTES_H
#define AESGEN_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "aesgen.h"

#if defined(__GNUC__)
#define AESGEN_NOINLINE __attribute__((noinline))
#else
#define AESGEN_NOINLINE
#endif

/* Little-endian loads and stores at any alignment. On little-endian hosts
 * memcpy compiles to one plain move; elsewhere the bytes are assembled
 * explicitly, which is correct in either byte order. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define AESGEN_LITTLE_ENDIAN 1
#else
#define AESGEN_LITTLE_ENDIAN 0
#endif

static inline uint32_t aesgen_load_le32(const uint8_t *p)
{
#if AESGEN_LITTLE_ENDIAN
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

static inline void aesgen_store_le32(uint8_t *p, uint32_t v)
{
#if AESGEN_LITTLE_ENDIAN
    memcpy(p, &v, sizeof v);
#else
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
#endif
}

/* One 64-bit move on little-endian hosts: two 32-bit stores read back as one 64-bit
 * load defeat store-to-load forwarding (a stall of about a dozen cycles each). */
static inline uint64_t aesgen_load_le64(const uint8_t *p)
{
#if AESGEN_LITTLE_ENDIAN
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
#else
    return (uint64_t)aesgen_load_le32(p) | (uint64_t)aesgen_load_le32(p + 4) << 32;
#endif
}

static inline void aesgen_store_le64(uint8_t *p, uint64_t v)
{
#if AESGEN_LITTLE_ENDIAN
    memcpy(p, &v, sizeof v);
#else
    aesgen_store_le32(p, (uint32_t)v);
    aesgen_store_le32(p + 4, (uint32_t)(v >> 32));
#endif
}

static inline uint32_t aesgen_load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* x, through a value the compiler cannot see into: keeps it from rewriting
 * arithmetic on a secret into a loop bound or a branch. */
static inline uint32_t aesgen_value_barrier32(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+r"(x));
    return x;
#else
    volatile uint32_t v = x;
    return v;
#endif
}

static inline void aesgen_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint64_t aesgen_load_be64(const uint8_t *p)
{
#if AESGEN_LITTLE_ENDIAN && defined(__GNUC__)
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return __builtin_bswap64(v);
#else
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
#endif
}

static inline void aesgen_store_be64(uint8_t *p, uint64_t v)
{
#if AESGEN_LITTLE_ENDIAN && defined(__GNUC__)
    v = __builtin_bswap64(v);
    memcpy(p, &v, sizeof v);
#else
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
#endif
}

/* counter += n as a 128-bit big-endian integer, wrapping at 2^128; the carry into
 * the high half is computed, not branched on or compared. */
static inline void aesgen_ctr_add(uint8_t counter[16], uint64_t n)
{
    const uint64_t hi = aesgen_load_be64(counter), lo = aesgen_load_be64(counter + 8);
    const uint64_t l = lo + n;
    const uint64_t carry = ((lo & n) | ((lo | n) & ~l)) >> 63;
    aesgen_store_be64(counter, hi + carry);
    aesgen_store_be64(counter + 8, l);
}

static inline void aesgen_ctr_increment(uint8_t counter[16])
{
    aesgen_ctr_add(counter, 1);
}

/* The count blocks counter, counter + 1, ... (128-bit big-endian, wrapping at
 * 2^128) into out; the carry into the high half is computed, not branched on. */
static inline void aesgen_ctr_blocks(uint8_t *out, const uint8_t counter[16], size_t count)
{
    const uint64_t hi = aesgen_load_be64(counter), lo = aesgen_load_be64(counter + 8);
    for (size_t b = 0; b < count; b++) {
        const uint64_t l = lo + (uint64_t)b;
        const uint64_t carry = ((lo & (uint64_t)b) | ((lo | (uint64_t)b) & ~l)) >> 63;
        aesgen_store_be64(out + 16 * b, hi + carry);
        aesgen_store_be64(out + 16 * b + 8, l);
    }
}

/* Zero a 16-byte secret (a tag, E_K(J0), a hash value) in place: one store and a barrier
 * the compiler cannot remove, where aesgen_memwipe is a call through the library's exported
 * symbol and then one into the C library (GCM's short messages make several). */
static inline void aesgen_wipe16(uint8_t p[16])
{
#if defined(__GNUC__)
    memset(p, 0, 16);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    aesgen_memwipe(p, 16);
#endif
}

/* out = in ^ ks over len bytes, a multiple of 8, eight at a time. */
static inline void aesgen_xor_words(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t len)
{
    for (size_t i = 0; i < len; i += 8)
        aesgen_store_le64(out + i, aesgen_load_le64(in + i) ^ aesgen_load_le64(ks + i));
}

/* dst = src, len bytes: up to 128 bytes as 16-byte blocks in fixed-size copies, then the
 * rest in at most four, without a call into the C library (GCM's short messages made four
 * such calls per message: 16-byte seal 65 -> 55 TSC ticks on Zen 5); longer copies
 * through memcpy, whose wide moves then win. */
static inline void aesgen_copy_short(uint8_t *dst, const uint8_t *src, size_t len)
{
    if (len > 128) {
        memcpy(dst, src, len);
        return;
    }
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        memcpy(dst + i, src + i, 16);
#if defined(__GNUC__)
        __asm__("" : : : "memory"); /* no loop GCC turns back into a memcpy call */
#endif
    }
    if (len & 8) {
        memcpy(dst + i, src + i, 8);
        i += 8;
    }
    if (len & 4) {
        memcpy(dst + i, src + i, 4);
        i += 4;
    }
    if (len & 2) {
        memcpy(dst + i, src + i, 2);
        i += 2;
    }
    if (len & 1)
        dst[i] = src[i];
}

#endif /* AESGEN_BYTES_H */
