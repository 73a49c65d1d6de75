/*
 * aesgen_cbc_lanes -- an encryption variant's CBC lanes functions, called directly.
 *
 *   aesgen_cbc_lanes --variant NAME [--seed N]
 *
 * Each lanes function (aesgen_variant.h: one per width, widest first) runs on step
 * counts 0..5, around 8 and 16, and 37, in place and out of place, every lane's message
 * at its own misalignment 0..15 between guard bytes, with the FIPS-197 key and two
 * random keys. Each lane's output and chain value must equal OpenSSL EVP's CBC
 * encryption of that message from that lane's chain value, and no guard byte may change
 * (nor a byte past the function's scratch, which follows the chain values).
 *
 * Exit status: 0 passed, 1 a failure (printed with the seed), 2 usage, 77 the variant
 * cannot run on this CPU.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "ts_oracle.h"
#include "ts_rng.h"

#define EXIT_SKIP 77
#define DEFAULT_SEED UINT64_C(0x6362632d6c616e31) /* "cbc-lan1" */
#define MAX_STEPS 37
#define GUARD 32
#define SLOT (GUARD + 16 + 16 * MAX_STEPS + GUARD) /* one lane's buffer: guard, misalignment, blocks, guard */

static ts_rng rng;
static uint64_t seed = DEFAULT_SEED;
static unsigned long checks, failures;

static void check(int ok, const char *what, const char *fn, size_t steps, int in_place, size_t lane)
{
    checks++;
    if (ok)
        return;
    failures++;
    printf("FAIL %s: %s, %zu steps, %s, lane %zu (seed 0x%" PRIx64 ")\n", fn, what, steps,
           in_place ? "in place" : "out of place", lane, seed);
}

static int guards_intact(const uint8_t *slot, size_t from, size_t to)
{
    for (size_t i = 0; i < SLOT; i++)
        if ((i < from || i >= to) && slot[i] != (uint8_t)(0xC5 ^ i))
            return 0;
    return 1;
}

static void fill_guards(uint8_t *slot)
{
    for (size_t i = 0; i < SLOT; i++)
        slot[i] = (uint8_t)(0xC5 ^ i);
}

static void run(const aesgen_variant *v, const aesgen_cbc_lanes *f, const char *fn, const void *rk,
                const uint8_t *key, size_t steps, int in_place)
{
    const size_t lanes = f->lanes, len = 16 * steps;
    uint8_t *ins = malloc(lanes * SLOT), *outs = malloc(lanes * SLOT), *plain = malloc(lanes * len + 1);
    uint8_t *want = malloc(len + 1);
    const uint8_t **in = malloc(lanes * sizeof *in);
    uint8_t **out = malloc(lanes * sizeof *out);
    /* the chain values, the function's scratch, then guard bytes */
    _Alignas(64) uint8_t chains[16 * 64 + AESGEN_CBC_LANES_SCRATCH(64) + GUARD], start[16 * 64];
    const size_t used = 16 * lanes + AESGEN_CBC_LANES_SCRATCH(lanes);
    if (!ins || !outs || !plain || !want || !in || !out || lanes > 64) {
        printf("out of memory\n");
        exit(1);
    }
    ts_rng_bytes(&rng, plain, lanes * len);
    ts_rng_bytes(&rng, start, 16 * lanes);
    memcpy(chains, start, 16 * lanes);
    memset(chains + used, 0xA7, GUARD);
    for (size_t i = 0; i < lanes; i++) {
        uint8_t *is = ins + i * SLOT, *os = outs + i * SLOT;
        fill_guards(is);
        fill_guards(os);
        in[i] = is + GUARD + ts_rng_below(&rng, 16);
        out[i] = in_place ? (uint8_t *)in[i] : os + GUARD + ts_rng_below(&rng, 16);
        memcpy((uint8_t *)in[i], plain + i * len, len);
    }
    f->fn(rk, out, in, steps, chains);
    int guard_kept = 1;
    for (size_t i = 0; i < GUARD; i++)
        guard_kept &= chains[used + i] == 0xA7;
    check(guard_kept, "bytes past the chain values and scratch changed", fn, steps, in_place, 0);
    for (size_t i = 0; i < lanes; i++) {
        const char *bad = ts_oracle_oneshot(v->key_bits, TS_MODE_CBC_ENC, key, start + 16 * i, want,
                                            plain + i * len, len);
        if (bad != NULL) {
            printf("OpenSSL failed: %s\n", bad);
            exit(1);
        }
        check(memcmp(out[i], want, len) == 0, "ciphertext differs from OpenSSL's", fn, steps, in_place, i);
        const uint8_t *last = steps ? want + len - 16 : start + 16 * i;
        check(memcmp(chains + 16 * i, last, 16) == 0, "chain value after is not the last ciphertext block", fn,
              steps, in_place, i);
        const uint8_t *is = ins + i * SLOT, *os = outs + i * SLOT;
        const size_t io = (size_t)(in[i] - is), oo = (size_t)(out[i] - os);
        check(guards_intact(is, io, io + len), "bytes around the input changed", fn, steps, in_place, i);
        if (!in_place) {
            check(memcmp(in[i], plain + i * len, len) == 0, "input changed", fn, steps, in_place, i);
            check(guards_intact(os, oo, oo + len), "bytes around the output changed", fn, steps, in_place, i);
        }
    }
    free(ins), free(outs), free(plain), free(want), free(in), free(out);
}

int main(int argc, char **argv)
{
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc)
            name = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s --variant NAME [--seed N]\n", argv[0]);
            return 2;
        }
    }
    const aesgen_variant *v = name ? aesgen_find_variant(name) : NULL;
    if (v == NULL || v->direction != AESGEN_ENCRYPT) {
        fprintf(stderr, "--variant needs the name of an encryption variant\n");
        return 2;
    }
    if (!aesgen_variant_usable(v)) {
        printf("variant %s cannot run here: skipped\n", name);
        return EXIT_SKIP;
    }
    if (v->cbc_lanes[0].lanes == 0) {
        printf("FAIL %s has no CBC lanes functions\n", name);
        return 1;
    }
    ts_rng_seed(&rng, seed);
    static const size_t steps[] = {0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, MAX_STEPS};
    _Alignas(64) uint8_t rk[AESGEN_MAX_SCHEDULE_BYTES];
    uint8_t key[32];
    for (int k = 0; k < 3; k++) {
        for (size_t b = 0; b < sizeof key; b++)
            key[b] = k == 0 ? (uint8_t)b : 0; /* FIPS-197's key, then random ones */
        if (k > 0)
            ts_rng_bytes(&rng, key, sizeof key);
        v->setkey(rk, key);
        for (size_t j = 0; j < AESGEN_CBC_LANE_KERNELS && v->cbc_lanes[j].lanes != 0; j++) {
            char fn[160];
            snprintf(fn, sizeof fn, "%s cbc_lanes[%zu] (%u lanes, %u step%s per line)", name, j,
                     v->cbc_lanes[j].lanes, v->cbc_lanes[j].line_steps, v->cbc_lanes[j].line_steps > 1 ? "s" : "");
            check(v->cbc_lanes[j].line_steps == 1 || v->cbc_lanes[j].line_steps == 4, "line_steps is neither 1 nor 4",
                  fn, 0, 0, 0);
            for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++)
                for (int in_place = 0; in_place < 2; in_place++)
                    run(v, &v->cbc_lanes[j], fn, rk, key, steps[s], in_place);
        }
    }
    printf("%s: %lu checks, %lu failures (seed 0x%" PRIx64 ")\n", name, checks, failures, seed);
    return failures == 0 ? 0 : 1;
}
