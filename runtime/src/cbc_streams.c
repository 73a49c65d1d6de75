/*
 * cbc_streams.c -- CBC encryption of independent messages under one key.
 *
 * One CBC chain waits a whole block cipher latency per block, so one message keeps a
 * fraction of the AES unit (or of a fixsliced batch) busy. Here up to L messages are in
 * flight, one block of each per step; the lanes' chain values sit in one contiguous
 * buffer. A variant with CBC lanes functions (aesgen_variant.h; the x86-64 AES
 * instruction loops) runs the steps itself, its chains in registers, L its widest
 * function's lanes. Any other runs each step through its ECB loop, L its batch: the next
 * plaintext block of every live lane is XORed into its chain value, the ECB loop runs
 * once over the buffer in place, and each lane's ciphertext (its next chain value) is
 * copied out; blocks reach and leave the messages four steps at a time, through a
 * transposed staging buffer (see GROUP). A finished message's IV gets its last
 * ciphertext block and its lane takes the next pending message; once none is pending,
 * the last live lane moves into the freed one so the live lanes stay a prefix of the
 * buffer. A lone live lane ends through the variant's own CBC loop. Every branch
 * depends only on lengths and addresses.
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
static void sort_spans(span *w, size_t n)
{
    if (n > 32) {
        qsort(w, n, sizeof *w, by_start);
        return;
    }
    /* a few spans, usually in order already: an insertion sort, which costs a tenth of
     * qsort's call overhead for a packet-sized call */
    for (size_t i = 1; i < n; i++) {
        const span x = w[i];
        size_t j = i;
        for (; j > 0 && w[j - 1].lo > x.lo; j--)
            w[j] = w[j - 1];
        w[j] = x;
    }
}

static int overlapping(span *w, size_t nw, const span *r, size_t nr)
{
    sort_spans(w, nw);
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

/* Blocks move between the messages and the chain buffer GROUP steps at a time, through
 * a staging buffer that holds them transposed (stage[t][lane]): each lane's GROUP blocks
 * are one 64-byte read or write of its message instead of GROUP 16-byte ones spread over
 * as many steps, and each step's XOR into the chain values and copy out of them run over
 * contiguous memory. Messages a multiple of 4 KiB apart share L1 sets; touching each of
 * their lines once per GROUP steps keeps that from thrashing the cache. */
#define GROUP 4

/* stage[t][i] = block t of lane i at in[i] + off, t < g. */
static void gather_portable(uint8_t *stage, const uint8_t *const *in, size_t off, size_t live, size_t g)
{
    for (size_t i = 0; i < live; i++)
        for (size_t t = 0; t < g; t++)
            memcpy(stage + 16 * (MAX_LANES * t + i), in[i] + off + 16 * t, 16);
}

/* out[i] + off + 16 t = stage[t][i], t < g. */
static void scatter_portable(const uint8_t *stage, uint8_t *const *out, size_t off, size_t live, size_t g)
{
    for (size_t i = 0; i < live; i++)
        for (size_t t = 0; t < g; t++)
            memcpy(out[i] + off + 16 * t, stage + 16 * (MAX_LANES * t + i), 16);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define WIDE_GROUPS 1
/* A 4x4 transpose of 16-byte blocks: block t of a_j becomes block j of r_t. Its own
 * inverse. Plain variables, not arrays, so the compiler keeps them in registers. */
#define TRANSPOSE4(r0, r1, r2, r3, a0, a1, a2, a3)                                      \
    do {                                                                                \
        const __m512i t0_ = _mm512_shuffle_i64x2(a0, a1, 0x44);                         \
        const __m512i t1_ = _mm512_shuffle_i64x2(a0, a1, 0xEE);                         \
        const __m512i t2_ = _mm512_shuffle_i64x2(a2, a3, 0x44);                         \
        const __m512i t3_ = _mm512_shuffle_i64x2(a2, a3, 0xEE);                         \
        r0 = _mm512_shuffle_i64x2(t0_, t2_, 0x88);                                      \
        r1 = _mm512_shuffle_i64x2(t0_, t2_, 0xDD);                                      \
        r2 = _mm512_shuffle_i64x2(t1_, t3_, 0x88);                                      \
        r3 = _mm512_shuffle_i64x2(t1_, t3_, 0xDD);                                      \
    } while (0)

/* Whole groups of four lanes and four steps in zmm registers; the rest as above. */
__attribute__((target("avx512f"))) static void gather_avx512(uint8_t *stage, const uint8_t *const *in, size_t off,
                                                             size_t live, size_t g)
{
    size_t i = 0;
    for (; g == GROUP && i + 4 <= live; i += 4) {
        const __m512i a0 = _mm512_loadu_si512((const void *)(in[i] + off));
        const __m512i a1 = _mm512_loadu_si512((const void *)(in[i + 1] + off));
        const __m512i a2 = _mm512_loadu_si512((const void *)(in[i + 2] + off));
        const __m512i a3 = _mm512_loadu_si512((const void *)(in[i + 3] + off));
        __m512i r0, r1, r2, r3;
        TRANSPOSE4(r0, r1, r2, r3, a0, a1, a2, a3);
        uint8_t *d = stage + 16 * i;
        _mm512_store_si512((void *)d, r0);
        _mm512_store_si512((void *)(d + 16 * MAX_LANES), r1);
        _mm512_store_si512((void *)(d + 32 * MAX_LANES), r2);
        _mm512_store_si512((void *)(d + 48 * MAX_LANES), r3);
    }
    gather_portable(stage + 16 * i, in + i, off, live - i, g);
}

__attribute__((target("avx512f"))) static void scatter_avx512(const uint8_t *stage, uint8_t *const *out,
                                                              size_t off, size_t live, size_t g)
{
    size_t i = 0;
    for (; g == GROUP && i + 4 <= live; i += 4) {
        const uint8_t *d = stage + 16 * i;
        const __m512i a0 = _mm512_load_si512((const void *)d);
        const __m512i a1 = _mm512_load_si512((const void *)(d + 16 * MAX_LANES));
        const __m512i a2 = _mm512_load_si512((const void *)(d + 32 * MAX_LANES));
        const __m512i a3 = _mm512_load_si512((const void *)(d + 48 * MAX_LANES));
        __m512i r0, r1, r2, r3;
        TRANSPOSE4(r0, r1, r2, r3, a0, a1, a2, a3);
        _mm512_storeu_si512((void *)(out[i] + off), r0);
        _mm512_storeu_si512((void *)(out[i + 1] + off), r1);
        _mm512_storeu_si512((void *)(out[i + 2] + off), r2);
        _mm512_storeu_si512((void *)(out[i + 3] + off), r3);
    }
    scatter_portable(stage + 16 * i, out + i, off, live - i, g);
}
#endif

/* Between two ECB calls over the chain buffer: the ciphertext it holds to `done` (unless
 * NULL), then the next plaintext blocks from `next` XORed into it (unless NULL); n bytes,
 * a multiple of 16, all three buffers 64-byte aligned. The chain buffer is written with
 * stores as wide as the ECB loop's loads, so they forward to them (narrower stores make
 * each load wait until they reach the cache). */
typedef void step_fn(uint8_t *chain, uint8_t *done, const uint8_t *next, size_t n);

static void step_portable(uint8_t *chain, uint8_t *done, const uint8_t *next, size_t n)
{
    for (size_t b = 0; b < n; b += 16) {
        if (done != NULL)
            memcpy(done + b, chain + b, 16);
        if (next != NULL)
            xor_into(chain + b, next + b);
    }
}

#ifdef WIDE_GROUPS
/* For a width of w bytes: the step in w-byte vectors (the lane buffers are padded to a
 * multiple of 64 bytes, so the last vector may run past n into padding). */
#define STEP_FN(name, isa, vec, load, store, xor, w)                                         \
    __attribute__((target(isa))) static void name(uint8_t *chain, uint8_t *done,            \
                                                     const uint8_t *next, size_t n)             \
    {                                                                                           \
        for (size_t b = 0; b < n; b += (w)) {                                                   \
            vec c = load((const void *)(chain + b));                                           \
            if (done != NULL)                                                                   \
                store((void *)(done + b), c);                                                   \
            if (next != NULL)                                                                   \
                store((void *)(chain + b), xor(c, load((const void *)(next + b))));            \
        }                                                                                       \
    }
STEP_FN(step_sse2, "sse2", __m128i, _mm_load_si128, _mm_store_si128, _mm_xor_si128, 16)
STEP_FN(step_avx2, "avx2", __m256i, _mm256_load_si256, _mm256_store_si256, _mm256_xor_si256, 32)
STEP_FN(step_avx512, "avx512f", __m512i, _mm512_load_si512, _mm512_store_si512, _mm512_xor_si512, 64)
#endif

/* `steps` blocks of each of the live lanes (all move on together): for each group of
 * steps, gather, then per step the ECB call between two chain-buffer steps, then scatter. */
static void run_steps(const aesgen_variant *v, const void *rk, uint8_t *chain, uint8_t *stage, lane *lanes,
                      size_t live, size_t steps)
{
    const uint8_t *in[MAX_LANES];
    uint8_t *out[MAX_LANES];
    for (size_t i = 0; i < live; i++) {
        in[i] = lanes[i].in;
        out[i] = lanes[i].out;
    }
    void (*gather)(uint8_t *, const uint8_t *const *, size_t, size_t, size_t) = gather_portable;
    void (*scatter)(const uint8_t *, uint8_t *const *, size_t, size_t, size_t) = scatter_portable;
    step_fn *step = step_portable;
#ifdef WIDE_GROUPS
    /* by what this CPU has, not what the variant needs: a wider store still forwards to
     * the variant's narrower loads of the same bytes */
    const uint32_t cpu = aesgen_cpu_features();
    if (cpu & AESGEN_CPU_AVX512F) {
        gather = gather_avx512;
        scatter = scatter_avx512;
        step = step_avx512;
    } else if (cpu & AESGEN_CPU_AVX2) {
        step = step_avx2;
    } else {
        step = step_sse2;
    }
#endif
    const size_t bytes = 16 * live;
    for (size_t off = 0; off < 16 * steps; off += 16 * GROUP) {
        const size_t g = steps - off / 16 < GROUP ? steps - off / 16 : GROUP;
        gather(stage, in, off, live, g);
        step(chain, NULL, stage, bytes);
        for (size_t t = 0; t < g; t++) {
            if (v->align <= CHAIN_ALIGN) /* the chain buffer suits the loop itself */
                v->ecb(rk, chain, chain, live);
            else
                aesgen_variant_ecb(v, rk, chain, chain, live);
            uint8_t *slot = stage + 16 * MAX_LANES * t;
            step(chain, slot, t + 1 < g ? slot + 16 * MAX_LANES : NULL, bytes);
        }
        scatter(stage, out, off, live, g);
    }
    for (size_t i = 0; i < live; i++) {
        lanes[i].in += 16 * steps;
        lanes[i].out += 16 * steps;
    }
}

/* ---- lanes functions ------------------------------------------------------------ */

/* Messages whose blocks share an L1 set (a multiple of 4 KiB apart: address bits 6-11
 * equal, on x86 and Arm cores with 64-set L1 data caches) evict each other's lines when
 * a step reads and writes one block of each: more than CROWD of them in flight and the
 * lines thrash. Measured on an Intel Xeon (AES-128, vaes512) with 16 in-place messages
 * of 4 KiB, 4 KiB apart: 16 lanes at once 3.0 GB/s, two rounds of 8 lanes 7.7 GB/s.
 * On AMD CPUs crowded messages go through a contiguous buffer instead, STAGE_STEPS blocks
 * of each at a time (run_lanes_staged): each message line is read once and written once,
 * whole, and the function's 16-byte loads and stores stay in the buffer's own lines.
 * Zen 5, vaes512, 4 KiB messages 4 KiB apart, in place: 9 messages 5.9 -> 8.2 GB/s
 * (AES-128), 16 messages 10.2 -> 12.5 (AES-128) and 7.4 -> 10.0 (AES-256), 32 messages
 * 9.0 -> 12.5 and 6.8 -> 11.2, against rounds of 8 lanes; storing straight into the
 * messages instead of copying out: 5.5-5.9 GB/s (the stores are what thrash). On the
 * Intel Xeon a staging buffer of 16 steps ran at 5.5 GB/s against 7.7 for rounds of 8
 * (docs/performance.md), so other vendors keep the rounds.
 * Lanes functions that move whole lines (line_steps 4: each line of a message read
 * once and written once) need no staging: on AMD crowded messages run through them
 * directly, at most LINE_CROWD at once (Zen 5, 16 messages 12.5 -> 16.0 GB/s; 32 at
 * once 11.5, two rounds of 16 14.4). */
#define CROWD 8
#define LINE_CROWD 16
#define STAGE_STEPS 16      /* blocks of each lane per call through the buffer: 256 bytes */
#define MAX_STAGED_LANES 32 /* the widest lanes function */

/* Whether more than CROWD of the first `n` messages with data start in one L1 set. */
static int crowded(const aesgen_cbc_msg *msgs, size_t count, size_t n)
{
    uint8_t in_set[64] = {0};
    for (size_t i = 0, taken = 0; i < count && taken < n; i++) {
        if (msgs[i].len == 0)
            continue;
        taken++;
        if (++in_set[(uintptr_t)msgs[i].in >> 6 & 63] > CROWD)
            return 1;
        if (msgs[i].out != msgs[i].in && ++in_set[(uintptr_t)msgs[i].out >> 6 & 63] > CROWD)
            return 1;
    }
    return 0;
}

/* The narrowest of the variant's lanes functions that takes `live` messages. */
static const aesgen_cbc_lanes *lanes_for(const aesgen_variant *v, size_t live)
{
    const aesgen_cbc_lanes *f = &v->cbc_lanes[0];
    for (size_t k = 1; k < AESGEN_CBC_LANE_KERNELS && v->cbc_lanes[k].lanes >= live; k++)
        f = &v->cbc_lanes[k];
    return f;
}

/* Steps per call while some lanes of the function are idle: they read and write a
 * scratch buffer of that many blocks, which nothing reads. */
#define IDLE_STEPS 16

/* `steps` blocks of each live lane through the variant's lanes function. */
static void run_lanes(const aesgen_variant *v, const void *rk, uint8_t *chain, uint8_t *scratch, lane *lanes,
                      size_t live, size_t steps)
{
    const aesgen_cbc_lanes *f = lanes_for(v, live);
    const uint8_t *in[MAX_LANES];
    uint8_t *out[MAX_LANES];
    for (size_t i = 0; i < f->lanes; i++) {
        in[i] = i < live ? lanes[i].in : scratch;
        out[i] = i < live ? lanes[i].out : scratch;
    }
    const size_t chunk = live < f->lanes ? IDLE_STEPS : steps;
    for (size_t done = 0; done < steps;) {
        const size_t n = steps - done < chunk ? steps - done : chunk;
        f->fn(rk, out, in, n, chain);
        for (size_t i = 0; i < live; i++) {
            in[i] += 16 * n;
            out[i] += 16 * n;
        }
        done += n;
    }
    for (size_t i = 0; i < live; i++) {
        lanes[i].in = in[i];
        lanes[i].out = out[i];
    }
}

/* n blocks from src to dst: a whole STAGE_STEPS by a fixed-size copy, inlined (a
 * library call per lane per call cost more than the staging saved). */
static inline void copy_steps(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n == STAGE_STEPS)
        memcpy(dst, src, 16 * STAGE_STEPS);
    else
        memcpy(dst, src, 16 * n);
}

/* run_lanes for crowded messages: lane i's next STAGE_STEPS blocks are copied to
 * lines + 16 * STAGE_STEPS * i, encrypted there in place, and copied back out. */
static void run_lanes_staged(const aesgen_variant *v, const void *rk, uint8_t *chain, uint8_t *lines,
                             lane *lanes, size_t live, size_t steps)
{
    const aesgen_cbc_lanes *f = lanes_for(v, live);
    const uint8_t *in[MAX_STAGED_LANES];
    uint8_t *out[MAX_STAGED_LANES];
    for (size_t i = 0; i < f->lanes; i++) /* idle lanes run on their own lines, which nothing reads */
        in[i] = out[i] = lines + 16 * STAGE_STEPS * i;
    for (size_t done = 0; done < steps;) {
        const size_t n = steps - done < STAGE_STEPS ? steps - done : STAGE_STEPS;
        for (size_t i = 0; i < live; i++)
            copy_steps(lines + 16 * STAGE_STEPS * i, lanes[i].in + 16 * done, n);
        f->fn(rk, out, in, n, chain);
        for (size_t i = 0; i < live; i++)
            copy_steps(lanes[i].out + 16 * done, lines + 16 * STAGE_STEPS * i, n);
        done += n;
    }
    for (size_t i = 0; i < live; i++) {
        lanes[i].in += 16 * steps;
        lanes[i].out += 16 * steps;
    }
}

static void encrypt_streams(const aesgen_variant *v, const void *rk, const aesgen_cbc_msg *msgs, size_t count)
{
    const int has_lanes = v->cbc_lanes[0].lanes != 0 && v->cbc_lanes[0].lanes <= MAX_LANES;
    size_t width = v->batch_blocks == 0 ? 1 : v->batch_blocks < MAX_LANES ? v->batch_blocks : MAX_LANES;
    int staged = 0;
    if (has_lanes) {
        width = v->cbc_lanes[0].lanes;
        if (width > CROWD && crowded(msgs, count, width)) {
            const int amd = aesgen_cpu_vendor() == AESGEN_CPU_VENDOR_AMD;
            if (v->cbc_lanes[0].line_steps > 1) /* whole lines: crowded messages run as they are */
                width = amd ? (width < LINE_CROWD ? width : LINE_CROWD) : CROWD;
            else {
                staged = width <= MAX_STAGED_LANES && amd;
                width = staged ? width : CROWD;
            }
        }
    }
    /* the lanes' chain values, then the lanes function's scratch */
    _Alignas(CHAIN_ALIGN) uint8_t chain[16 * MAX_LANES + AESGEN_CBC_LANES_SCRATCH(MAX_LANES)];
    /* what the call wipes: every chain value, and the scratch a transposing lanes function
     * may use (a narrower function's lies in the widest's) */
    const size_t widest = v->cbc_lanes[0].lanes, scratch_end = 16 * widest + AESGEN_CBC_LANES_SCRATCH(widest);
    const size_t chain_used = has_lanes && v->cbc_lanes[0].line_steps > 1 && scratch_end > 16 * MAX_LANES
                                  ? scratch_end
                                  : 16 * MAX_LANES;
    memset(chain, 0, 16 * MAX_LANES); /* idle lanes start from zero */
    _Alignas(64) uint8_t lines[16 * STAGE_STEPS * MAX_STAGED_LANES];
    _Alignas(64) uint8_t stage[16 * MAX_LANES * GROUP];
    _Alignas(16) uint8_t scratch[16 * IDLE_STEPS];
    lane lanes[MAX_LANES];
    size_t live = 0, next = 0;
    while (live < width && take_message(msgs, count, &next, &lanes[live], chain + 16 * live))
        live++;
    const size_t used = live;

    while (live > 1) {
        size_t steps = lanes[0].blocks;
        for (size_t i = 1; i < live; i++)
            steps = lanes[i].blocks < steps ? lanes[i].blocks : steps;
        if (staged)
            run_lanes_staged(v, rk, chain, lines, lanes, live, steps);
        else if (has_lanes)
            run_lanes(v, rk, chain, scratch, lanes, live, steps);
        else
            run_steps(v, rk, chain, stage, lanes, live, steps);
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
    /* chain values, and what a transposing lanes function parked: plaintext and ciphertext */
    aesgen_memwipe(chain, chain_used);
    aesgen_memwipe(scratch, sizeof scratch);
    if (staged) /* plaintext and ciphertext of every lane a function ran, idle ones too */
        aesgen_memwipe(lines, 16 * STAGE_STEPS * width);
    for (size_t t = 0; !has_lanes && t < GROUP; t++) /* what the steps wrote: used lanes, to 64 bytes */
        aesgen_memwipe(stage + 16 * MAX_LANES * t, (16 * used + 63) & ~(size_t)63);
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
