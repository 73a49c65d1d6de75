/*
 * cbc_streams.c -- CBC encryption of independent messages under one key, over any
 * encryption variant's ECB loop.
 *
 * One CBC chain waits a whole block cipher latency per block, so one message keeps a
 * fraction of the AES unit (or of a fixsliced batch) busy. Here up to L messages are in
 * flight, L being the variant's batch (batch_blocks: a hardware loop's interleave, a
 * fixsliced batch). The lanes' chain values sit in one contiguous buffer; each step
 * XORs the next plaintext block of every live lane into its chain value, runs the ECB
 * loop once over the buffer, in place, and copies each lane's ciphertext (its next
 * chain value) out. A finished message's IV gets its last ciphertext block and its lane
 * takes the next pending message; once none is pending, the last live lane moves into
 * the freed one so the live lanes stay a prefix of the buffer. A lone live lane ends
 * through the variant's own CBC loop. Every branch depends only on lengths.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aesgen_internal.h"

#define MAX_LANES 64 /* more than any variant's batch */
#define CHAIN_ALIGN 64 /* at least any variant's align */

/* ---- checks ---------------------------------------------------------------- */

/* A byte range [lo, hi) of one call's buffers. */
typedef struct span {
    uintptr_t lo, hi;
} span;

static int by_start(const void *a, const void *b)
{
    const uintptr_t x = ((const span *)a)->lo, y = ((const span *)b)->lo;
    return (x > y) - (x < y);
}

/* Whether a written span overlaps another written span or a read one. The written
 * spans are sorted: disjoint ones have increasing ends too, so each read span is
 * compared with the first written span ending past its start. */
static int overlapping(span *w, size_t nw, const span *r, size_t nr)
{
    qsort(w, nw, sizeof *w, by_start);
    for (size_t i = 1; i < nw; i++)
        if (w[i].lo < w[i - 1].hi)
            return 1;
    for (size_t j = 0; j < nr; j++) {
        size_t lo = 0, hi = nw;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (w[mid].hi > r[j].lo)
                hi = mid;
            else
                lo = mid + 1;
        }
        if (lo < nw && w[lo].lo < r[j].hi)
            return 1;
    }
    return 0;
}

/* Every argument rule of aesgen_cbc_encrypt_streams (aesgen.h), before any write. */
static int check_messages(const aesgen_cbc_msg *msgs, size_t count)
{
    if (count == 0)
        return AESGEN_OK;
    if (msgs == NULL)
        return AESGEN_ERR_NULL;
    if (count > AESGEN_CBC_STREAMS_MAX)
        return AESGEN_ERR_LENGTH;
    span written[2 * AESGEN_CBC_STREAMS_MAX], read[AESGEN_CBC_STREAMS_MAX + 1];
    size_t nw = 0, nr = 0;
    for (size_t i = 0; i < count; i++) {
        const aesgen_cbc_msg *m = &msgs[i];
        if (m->iv == NULL)
            return AESGEN_ERR_NULL;
        int rc = aesgen_check_buffers(m->out, m->in, m->len);
        if (rc != AESGEN_OK)
            return rc;
        if (m->len % AESGEN_BLOCK_SIZE != 0 || (uintptr_t)m->iv > UINTPTR_MAX - 16)
            return AESGEN_ERR_LENGTH;
        written[nw++] = (span){(uintptr_t)m->iv, (uintptr_t)m->iv + 16};
        if (m->len == 0)
            continue;
        written[nw++] = (span){(uintptr_t)m->out, (uintptr_t)m->out + m->len};
        if (m->out != m->in) /* in place: the input is the output's span */
            read[nr++] = (span){(uintptr_t)m->in, (uintptr_t)m->in + m->len};
    }
    read[nr++] = (span){(uintptr_t)msgs, (uintptr_t)(msgs + count)};
    return overlapping(written, nw, read, nr) ? AESGEN_ERR_OVERLAP : AESGEN_OK;
}

/* ---- the lane scheduler ------------------------------------------------------ */

typedef struct lane {
    const uint8_t *in;
    uint8_t *out;
    uint8_t *iv;
    size_t blocks; /* left */
} lane;

/* The next message with data from *next on into lane l, its IV into chain; 0 if none.
 * A message of length 0 is left alone: its IV does not change. */
static int take_message(const aesgen_cbc_msg *msgs, size_t count, size_t *next, lane *l, uint8_t chain[16])
{
    while (*next < count && msgs[*next].len == 0)
        ++*next;
    if (*next == count)
        return 0;
    const aesgen_cbc_msg *m = &msgs[(*next)++];
    *l = (lane){m->in, m->out, m->iv, m->len / AESGEN_BLOCK_SIZE};
    memcpy(chain, m->iv, 16);
    return 1;
}

/* acc ^= in, 16 bytes; acc is the chain buffer (aligned), in any caller buffer. */
static inline void xor_into(uint8_t *restrict acc, const uint8_t *restrict in)
{
    uint64_t a[2], b[2];
    memcpy(a, acc, 16);
    memcpy(b, in, 16);
    a[0] ^= b[0];
    a[1] ^= b[1];
    memcpy(acc, a, 16);
}

/* One pass over the live lanes between two ECB calls: each lane's ciphertext (its chain
 * value) to *out (unless out is NULL: before the first call), then its next plaintext
 * block XORed into the chain value (unless in is NULL: after the last call); the
 * pointers move on by a block. */
static void pass_portable(uint8_t *chain, uint8_t **out, const uint8_t **in, size_t live)
{
    for (size_t i = 0; i < live; i++) {
        if (out != NULL) {
            memcpy(out[i], chain + 16 * i, 16);
            out[i] += 16;
        }
        if (in != NULL) {
            xor_into(chain + 16 * i, in[i]);
            in[i] += 16;
        }
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define WIDE_PASS 1
/* The same pass for variants whose loops read the chain buffer in 64-byte zmm loads:
 * written in whole 64-byte stores, four lanes at a time, so those loads are forwarded
 * from the stores; 16-byte stores would make each load wait until they reach the cache
 * (behind the output stores, which miss it when the messages share cache sets). */
__attribute__((target("avx512f"))) static void pass_avx512(uint8_t *chain, uint8_t **out, const uint8_t **in,
                                                           size_t live)
{
    for (size_t g = 0; g < live; g += 4) {
        const size_t n = live - g < 4 ? live - g : 4;
        __m512i c = _mm512_load_si512((const void *)(chain + 16 * g));
        if (out != NULL) {
            _mm_storeu_si128((__m128i *)(void *)out[g], _mm512_castsi512_si128(c));
            if (n > 1)
                _mm_storeu_si128((__m128i *)(void *)out[g + 1], _mm512_extracti32x4_epi32(c, 1));
            if (n > 2)
                _mm_storeu_si128((__m128i *)(void *)out[g + 2], _mm512_extracti32x4_epi32(c, 2));
            if (n > 3)
                _mm_storeu_si128((__m128i *)(void *)out[g + 3], _mm512_extracti32x4_epi32(c, 3));
            for (size_t j = 0; j < n; j++)
                out[g + j] += 16;
        }
        if (in != NULL) {
            __m512i p = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)in[g]));
            if (n > 1)
                p = _mm512_inserti32x4(p, _mm_loadu_si128((const __m128i *)(const void *)in[g + 1]), 1);
            if (n > 2)
                p = _mm512_inserti32x4(p, _mm_loadu_si128((const __m128i *)(const void *)in[g + 2]), 2);
            if (n > 3)
                p = _mm512_inserti32x4(p, _mm_loadu_si128((const __m128i *)(const void *)in[g + 3]), 3);
            for (size_t j = 0; j < n; j++)
                in[g + j] += 16;
            _mm512_store_si512((void *)(chain + 16 * g), _mm512_xor_si512(c, p));
        }
    }
}
#endif

/* `steps` blocks of each of the live lanes: a pass, the ECB call, a pass, ... */
static void run_steps(const aesgen_variant *v, const void *rk, uint8_t *chain, lane *lanes, size_t live,
                      size_t steps)
{
    const uint8_t *in[MAX_LANES];
    uint8_t *out[MAX_LANES];
    for (size_t i = 0; i < live; i++) {
        in[i] = lanes[i].in;
        out[i] = lanes[i].out;
    }
    void (*pass)(uint8_t *, uint8_t **, const uint8_t **, size_t) = pass_portable;
#ifdef WIDE_PASS
    if (v->features & AESGEN_CPU_AVX512F)
        pass = pass_avx512;
#endif
    pass(chain, NULL, in, live);
    for (size_t s = 1;; s++) {
        if (v->align <= CHAIN_ALIGN) /* the chain buffer suits the loop itself */
            v->ecb(rk, chain, chain, live);
        else
            aesgen_variant_ecb(v, rk, chain, chain, live);
        if (s == steps)
            break;
        pass(chain, out, in, live);
    }
    pass(chain, out, NULL, live);
    for (size_t i = 0; i < live; i++) {
        lanes[i].in = in[i];
        lanes[i].out = out[i];
    }
}

static void encrypt_streams(const aesgen_variant *v, const void *rk, const aesgen_cbc_msg *msgs, size_t count)
{
    const size_t width = v->batch_blocks == 0 ? 1 : v->batch_blocks < MAX_LANES ? v->batch_blocks : MAX_LANES;
    _Alignas(CHAIN_ALIGN) uint8_t chain[16 * MAX_LANES];
    lane lanes[MAX_LANES];
    size_t live = 0, next = 0;
    while (live < width && take_message(msgs, count, &next, &lanes[live], chain + 16 * live))
        live++;
    const size_t used = live;

    while (live > 1) {
        size_t steps = lanes[0].blocks;
        for (size_t i = 1; i < live; i++)
            steps = lanes[i].blocks < steps ? lanes[i].blocks : steps;
        run_steps(v, rk, chain, lanes, live, steps);
        for (size_t i = 0; i < live;) {
            lanes[i].blocks -= steps;
            if (lanes[i].blocks != 0) {
                i++;
                continue;
            }
            memcpy(lanes[i].iv, chain + 16 * i, 16);
            if (take_message(msgs, count, &next, &lanes[i], chain + 16 * i)) {
                i++;
                continue;
            }
            /* none pending: the last live lane fills the gap (and is looked at next) */
            live--;
            if (i != live) { /* its steps are subtracted when the loop looks at it */
                lanes[i] = lanes[live];
                memcpy(chain + 16 * i, chain + 16 * live, 16);
            }
        }
    }
    /* One lane left, with nothing pending (a width of 1 takes the messages in turn):
     * the variant's CBC loop runs it at once. */
    while (live == 1) {
        aesgen_variant_cbc(v, rk, lanes[0].out, lanes[0].in, lanes[0].blocks, chain);
        memcpy(lanes[0].iv, chain, 16);
        live = take_message(msgs, count, &next, &lanes[0], chain);
    }
    aesgen_memwipe(chain, 16 * used);
}

int aesgen_cbc_encrypt_streams(const aesgen_ctx *ctx, const aesgen_cbc_msg *msgs, size_t count)
{
    const aesgen_variant *v;
    const void *rk;
    int rc = aesgen_ctx_cipher(ctx, AESGEN_ENCRYPT, &v, &rk);
    if (rc != AESGEN_OK)
        return rc;
    rc = check_messages(msgs, count);
    if (rc == AESGEN_OK && count != 0)
        encrypt_streams(v, rk, msgs, count);
    return rc;
}
