/*
 * abi_test.c -- every variant's entry points called the way a strict caller
 * would, with buffers that end (or start) exactly at an inaccessible page.
 *
 * x86-64: each call goes through a trampoline that fills the callee-saved
 * registers with canaries and checks them, the stack pointer and the direction
 * flag afterwards. Everywhere: input, output, round keys and IV/counter/tweak sit
 * against PROT_NONE guard pages, so any read or write past them faults; every
 * block count from 0 to 2 x batch + 1 is run, in place and out of place, and
 * the result compared with the portable variant of the same key size (XTS: its
 * ECB whitened block by block). CBC lanes functions: 0..5 steps of every lane, each
 * lane's message and the pointer arrays against guard pages. Stitched GCM functions:
 * 0..3 chunks, seal and open, the hash state and the GHASH table against guard pages
 * too, compared with the twin's CTR and a GHASH variant of the table's layout.
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "aesgen_internal.h"
#include "ts_variant.h"

static int failures;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL: " __VA_ARGS__);                         \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

typedef void (*any_fn)(void);

#if defined(__x86_64__) && defined(__ELF__)
uint64_t aesgen_abi_call(any_fn fn, const uint64_t args[6], uint64_t after[8]);

static void call6(const char *what, any_fn fn, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                  uint64_t a4, uint64_t a5)
{
    static const uint64_t canary[6] = {0x1111111111111111u, 0x2222222222222222u, 0x3333333333333333u,
                                       0x4444444444444444u, 0x5555555555555555u, 0x6666666666666666u};
    static const char *const names[6] = {"rbx", "rbp", "r12", "r13", "r14", "r15"};
    const uint64_t args[6] = {a0, a1, a2, a3, a4, a5};
    uint64_t after[8];
    aesgen_abi_call(fn, args, after);
    for (int i = 0; i < 6; i++)
        CHECK(after[i] == canary[i], "%s: callee-saved %s not preserved", what, names[i]);
    CHECK(after[6] == 0, "%s: stack pointer moved by %lld", what, (long long)after[6]);
    CHECK(after[7] == 0, "%s: returned with the direction flag set", what);
}
#define TRAMPOLINE "trampoline with callee-saved canaries"
#else
static void call6(const char *what, any_fn fn, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                  uint64_t a4, uint64_t a5)
{
    (void)what;
    ((void (*)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t))(void (*)(void))fn)(a0, a1, a2, a3, a4,
                                                                                               a5);
}
#define TRAMPOLINE "direct calls (no trampoline on this architecture)"
#endif

static void call(const char *what, any_fn fn, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                 uint64_t a4)
{
    call6(what, fn, a0, a1, a2, a3, a4, 0);
}

/* A buffer of len bytes that ends at an inaccessible page (at_end) or starts
 * right after one. Pages are never freed: the test is short. */
static uint8_t *guarded(size_t len, int at_end)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t span = (len + page - 1) / page * page;
    uint8_t *base = mmap(NULL, span + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    if (mprotect(base, page, PROT_NONE) != 0 || mprotect(base + page + span, page, PROT_NONE) != 0) {
        perror("mprotect");
        exit(2);
    }
    return at_end ? base + page + span - len : base + page;
}

static const aesgen_variant *portable_twin(const aesgen_variant *v)
{
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *p = aesgen_registry[i];
        if (p->features == 0 && p->key_bits == v->key_bits && p->direction == v->direction && p != v)
            return p;
    }
    return NULL;
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

/* The CBC lanes functions (encryption variants that have them): every lane's input and
 * output against a guard page, the pointer arrays and the chain values too; each lane's
 * ciphertext and chain value compared with the twin's CBC encryption of that lane. */
#define LANE_MAX_STEPS 5
static size_t lanes_functions;
static void test_lanes(const aesgen_variant *v, const aesgen_variant *twin, const uint8_t *twin_rk,
                       const uint8_t *rk, int at_end)
{
    for (size_t k = 0; k < AESGEN_CBC_LANE_KERNELS && v->cbc_lanes[k].lanes != 0; k++) {
        const size_t lanes = v->cbc_lanes[k].lanes, most = 16 * LANE_MAX_STEPS;
        lanes_functions += at_end == 0;
        uint8_t *in_base[64], *out_base[64];
        if (lanes > 64) {
            CHECK(0, "%s: %zu lanes, more than the test's 64", v->name, lanes);
            return;
        }
        for (size_t i = 0; i < lanes; i++) {
            in_base[i] = guarded(most, at_end);
            out_base[i] = guarded(most, at_end);
        }
        const uint8_t **in = (const uint8_t **)(void *)guarded(lanes * sizeof *in, at_end);
        uint8_t **out = (uint8_t **)(void *)guarded(lanes * sizeof *out, at_end);
        /* the chain values are 64-byte aligned (aesgen_variant.h): after the guard page;
         * the function's scratch after them, to the next guard page */
        uint8_t *chains = guarded(16 * lanes + AESGEN_CBC_LANES_SCRATCH(lanes), 0), *start = malloc(16 * lanes), *want = malloc(most);
        for (size_t steps = 0; steps <= LANE_MAX_STEPS; steps++) {
            for (int in_place = 0; in_place < 2; in_place++) {
                const size_t skip = at_end ? most - 16 * steps : 0; /* the message ends at the guard */
                for (size_t i = 0; i < lanes; i++) {
                    in[i] = in_base[i] + skip;
                    out[i] = in_place ? in_base[i] + skip : out_base[i] + skip;
                    fill((uint8_t *)in[i], 16 * steps, (unsigned)(steps + 7 * i));
                }
                fill(chains, 16 * lanes, 5u + (unsigned)steps);
                memcpy(start, chains, 16 * lanes);
                char what[200];
                snprintf(what, sizeof what, "%s cbc_lanes (%zu lanes), %zu steps%s, buffers %s a guard page",
                         v->name, lanes, steps, in_place ? " in place" : "", at_end ? "ending at" : "after");
                uint8_t **ins_copy = malloc(lanes * sizeof *ins_copy);
                for (size_t i = 0; i < lanes; i++) { /* the twin's input before the call overwrites it */
                    ins_copy[i] = malloc(most);
                    memcpy(ins_copy[i], in[i], 16 * steps);
                }
                call(what, (any_fn)v->cbc_lanes[k].fn, (uintptr_t)rk, (uintptr_t)out, (uintptr_t)in, steps,
                     (uintptr_t)chains);
                for (size_t i = 0; i < lanes; i++) {
                    uint8_t chain[16];
                    memcpy(chain, start + 16 * i, 16);
                    twin->cbc(twin_rk, want, ins_copy[i], steps, chain);
                    CHECK(memcmp(out[i], want, 16 * steps) == 0, "%s: lane %zu differs from %s", what, i,
                          twin->name);
                    CHECK(memcmp(chains + 16 * i, chain, 16) == 0, "%s: lane %zu chain value differs", what, i);
                    free(ins_copy[i]);
                }
                free(ins_copy);
            }
        }
        free(start);
        free(want);
    }
}

/* A usable GHASH variant whose table has the layout the stitched functions read. */
static const aesgen_ghash_variant *ghash_reading(const char *table)
{
    for (size_t i = 0; i < aesgen_ghash_registry_size; i++) {
        const aesgen_ghash_variant *g = aesgen_ghash_registry[i];
        if (g->table != NULL && strcmp(g->table, table) == 0 && aesgen_ghash_usable(g))
            return g;
    }
    return NULL;
}

/* The stitched GCM functions: 0..3 chunks, seal and open, in place and not, a seal with
 * and without a block hashed before the text and one after it; the output against the
 * twin's CTR, y against the GHASH variant's update over the ciphertext (and those
 * blocks). */
#define GCM_MAX_CHUNKS 3
static size_t gcm_functions;
static void test_gcm(const aesgen_variant *v, const aesgen_variant *twin, const uint8_t *twin_rk,
                     const uint8_t *rk, int at_end)
{
    if (v->gcm_blocks == 0)
        return;
    const aesgen_ghash_variant *g = ghash_reading(v->gcm_table);
    if (g == NULL) {
        CHECK(0, "%s: no usable GHASH variant writes the table \"%s\"", v->name, v->gcm_table);
        return;
    }
    uint8_t h[16] = {0};
    twin->ecb(twin_rk, h, h, 1);
    uint8_t *table = guarded(g->table_bytes, at_end);
    g->setkey(table, h);
    gcm_functions += 2 * (at_end == 0);
    for (size_t chunks = 0; chunks <= GCM_MAX_CHUNKS; chunks++) {
        const size_t n = chunks * v->gcm_blocks, len = 16 * n;
        uint8_t *in = guarded(len ? len : 1, at_end), *out = guarded(len ? len : 1, at_end);
        uint8_t *counter = guarded(16, at_end), *after = guarded(16, at_end), *before = guarded(16, at_end);
        aesgen_gcm_hash *hash = (aesgen_gcm_hash *)(void *)guarded(sizeof(aesgen_gcm_hash), at_end);
        uint8_t *want = malloc(len + 1), twin_counter[16], y[16], counter_before[16];
        fill(after, 16, 77);
        fill(before, 16, 78);
        for (int open = 0; open < 2; open++) {
            for (int run = 0; run < (open ? 2 : 8); run++) { /* a seal's runs 2..7: blocks around */
                const int in_place = run & 1, hash_after = run >> 1 & 1, hash_before = run >> 2;
                char what[160];
                uint8_t *dst = in_place ? in : out;
                snprintf(what, sizeof what, "%s gcm_%s, %zu blocks%s%s%s, buffers %s a guard page", v->name,
                         open ? "open" : "seal", n, in_place ? " in place" : "", hash_before ? ", a block before" : "",
                         hash_after ? ", a block after" : "", at_end ? "ending at" : "after");
                fill(in, len, (unsigned)n + 7u * (unsigned)open);
                fill(counter, 16, 41);
                counter[8] = 0; /* the low 64 bits must not wrap within the call */
                memcpy(twin_counter, counter, 16);
                memcpy(counter_before, counter, 16);
                fill(hash->y, 16, 5);
                hash->table = table;
                hash->after = hash_after ? after : NULL;
                hash->before = hash_before ? before : NULL;
                memcpy(y, hash->y, 16);
                if (hash_before)
                    g->update(table, y, before, 1);
                twin->ctr(twin_rk, want, in, n, twin_counter);
                if (open && n != 0)
                    g->update(table, y, in, n);
                call6(what, (any_fn)(open ? v->gcm_open : v->gcm_seal), (uintptr_t)rk, (uintptr_t)dst,
                      (uintptr_t)in, n, (uintptr_t)counter, (uintptr_t)hash);
                if (!open && n != 0)
                    g->update(table, y, want, n);
                if (hash_after)
                    g->update(table, y, after, 1);
                CHECK(memcmp(dst, want, len) == 0, "%s: output differs from %s", what, twin->name);
                CHECK(memcmp(hash->y, y, 16) == 0, "%s: y differs from %s", what, g->name);
                CHECK(hash->table == table && hash->after == (hash_after ? after : NULL) &&
                          hash->before == (hash_before ? before : NULL),
                      "%s: the table's or a block's address changed", what);
                CHECK(memcmp(counter, counter_before, 16) == 0, "%s: the counter changed", what);
            }
        }
        free(want);
    }
}

/* The XTS units function (variants that have one): 1..3 units of 1..2 iterations, in
 * place and not, data and tweaks against guard pages; each unit against the twin's ECB
 * whitened with its tweak, the tweaks left as they were. */
#define UNITS_MAX 3
static size_t units_functions;
static void test_xts_units(const aesgen_variant *v, const aesgen_variant *twin, const uint8_t *twin_rk,
                           const uint8_t *rk, int at_end)
{
    if (v->xts_units == NULL)
        return;
    CHECK(v->xts_units_blocks == v->batch_blocks && v->xts != NULL,
          "%s: an XTS units function for %u blocks per iteration (batch %u)", v->name,
          (unsigned)v->xts_units_blocks, (unsigned)v->batch_blocks);
    if (v->xts_units_blocks == 0)
        return;
    units_functions += at_end == 0;
    for (size_t units = 1; units <= UNITS_MAX; units++) {
        for (size_t k = 1; k <= 2; k++) {
            const size_t nb = k * v->xts_units_blocks, len = 16 * nb * units;
            uint8_t *in = guarded(len, at_end), *out = guarded(len, at_end), *tweaks = guarded(16 * units, at_end);
            uint8_t *want = malloc(len), tweak[16], before[16 * UNITS_MAX];
            for (int in_place = 0; in_place < 2; in_place++) {
                char what[160];
                uint8_t *dst = in_place ? in : out;
                snprintf(what, sizeof what, "%s xts_units, %zu units of %zu blocks%s, buffers %s a guard page",
                         v->name, units, nb, in_place ? " in place" : "", at_end ? "ending at" : "after");
                fill(in, len, (unsigned)(units * 5 + k));
                fill(tweaks, 16 * units, (unsigned)(units + 3 * k + 1));
                memcpy(before, tweaks, 16 * units);
                for (size_t u = 0; u < units; u++) {
                    memcpy(tweak, tweaks + 16 * u, 16);
                    ts_variant_run(twin, twin_rk, TS_VARIANT_XTS, want + 16 * nb * u, in + 16 * nb * u, nb, tweak);
                }
                call6(what, (any_fn)v->xts_units, (uintptr_t)rk, (uintptr_t)dst, (uintptr_t)in, nb,
                      (uintptr_t)tweaks, units);
                CHECK(memcmp(dst, want, len) == 0, "%s: output differs from %s", what, twin->name);
                CHECK(memcmp(tweaks, before, 16 * units) == 0, "%s: the tweaks changed", what);
            }
            free(want);
        }
    }
}

static void test_variant(const aesgen_variant *v)
{
    const aesgen_variant *twin = portable_twin(v);
    if (twin == NULL) {
        CHECK(0, "%s: no portable variant to compare with", v->name);
        return;
    }
    uint8_t key[32];
    fill(key, sizeof key, v->key_bits);
    _Alignas(64) static uint8_t twin_rk[AESGEN_MAX_SCHEDULE_BYTES];
    twin->setkey(twin_rk, key);
    const size_t max_blocks = 2 * (size_t)v->batch_blocks + 1;
    for (int at_end = 0; at_end < 2; at_end++) {
        /* a schedule needs only 8-byte alignment (aesgen_variant.h): 8 bytes past a page
         * boundary, or ending at the guard page */
        uint8_t *rk = at_end ? guarded(v->schedule_bytes, 1) : guarded(v->schedule_bytes + 8, 0) + 8;
        call("setkey", (any_fn)v->setkey, (uintptr_t)rk, (uintptr_t)key, 0, 0, 0);
        for (size_t n = 0; n <= max_blocks; n++) {
            const size_t len = 16 * n;
            uint8_t *in = guarded(len ? len : 1, at_end), *out = guarded(len ? len : 1, at_end);
            uint8_t *iv = guarded(16, at_end);
            uint8_t *want = malloc(len + 1), *twin_iv = malloc(16);
            char what[160];
            for (int mode = 0; mode < 4; mode++) {
                void (*fn)(void) = mode == 0   ? (any_fn)v->ecb
                                   : mode == 1 ? (any_fn)v->cbc
                                   : mode == 2 ? (any_fn)v->ctr
                                               : (any_fn)v->xts;
                if (fn == NULL)
                    continue;
                static const char *const mode_names[4] = {"ecb", "cbc", "ctr", "xts"};
                for (int in_place = 0; in_place < 2; in_place++) {
                    uint8_t *dst = in_place ? in : out;
                    snprintf(what, sizeof what, "%s %s, %zu blocks%s, buffers %s a guard page", v->name,
                             mode_names[mode], n, in_place ? " in place" : "", at_end ? "ending at" : "after");
                    fill(in, len, (unsigned)n + 17u * (unsigned)mode);
                    fill(iv, 16, 99);
                    if (mode == 2 && v->ctr_low64)
                        iv[8] = 0;   /* the loop's low 64 bits must not wrap within the call */
                    memcpy(twin_iv, iv, 16);
                    uint8_t iv_before[16];
                    memcpy(iv_before, iv, 16);
                    if (mode == 0)
                        twin->ecb(twin_rk, want, in, n);
                    else if (mode == 1)
                        twin->cbc(twin_rk, want, in, n, twin_iv);
                    else if (mode == 2)
                        twin->ctr(twin_rk, want, in, n, twin_iv);
                    else /* the portable twin has no XTS loop: its ECB, whitened block by block */
                        ts_variant_run(twin, twin_rk, TS_VARIANT_XTS, want, in, n, twin_iv);
                    call(what, fn, (uintptr_t)rk, (uintptr_t)dst, (uintptr_t)in, n, (uintptr_t)iv);
                    CHECK(memcmp(dst, want, len) == 0, "%s: output differs from %s", what, twin->name);
                    /* a ctr_low64 loop leaves the counter to its caller */
                    const uint8_t *iv_want = mode == 2 && v->ctr_low64 ? iv_before : twin_iv;
                    CHECK(mode == 0 || memcmp(iv, iv_want, 16) == 0, "%s: IV/counter/tweak differs after the call",
                          what);
                }
            }
            free(want);
            free(twin_iv);
        }
        test_lanes(v, twin, twin_rk, rk, at_end);
        test_gcm(v, twin, twin_rk, rk, at_end);
        test_xts_units(v, twin, twin_rk, rk, at_end);
    }
}

int main(void)
{
    size_t tested = 0;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (!aesgen_variant_usable(v))
            continue;
        test_variant(v);
        tested++;
    }
    printf("abi_test: %zu variants (%zu CBC lanes functions, %zu GCM functions, %zu XTS units functions), every "
           "entry point through a %s, buffers against guard pages: %s\n",
           tested, lanes_functions, gcm_functions, units_functions, TRAMPOLINE, failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
