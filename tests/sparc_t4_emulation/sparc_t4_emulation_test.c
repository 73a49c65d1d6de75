/*
 * sparc_t4_emulation -- the sparc64-t4 variants' real machine code and C
 * wrappers, run under qemu-sparc64 with the T4 opcodes emulated.
 *
 *   aesgen_sparc_t4_emulation [--seed N] [--sabotage KIND|all]
 *
 * Why it exists: qemu-sparc64 (7.2, Debian 12) has no T4 AES opcodes and no
 * VIS3, so the cross suite never runs the sparc64-t4 variants; only the
 * generator's model executes their instruction streams. Under qemu 7.2,
 * movxtod/movdtox raise SIGILL, but the AES rounds (op3 0x19) do not trap:
 * the old decoder takes op3 0x19 for mulx and quietly multiplies integer
 * registers (so does aes_kexpand1; aes_kexpand0/2 trap). A SIGILL handler
 * alone cannot work, so the test first rewrites those words itself:
 *
 *   1. It finds the T4 functions (aesgen_*__sparc64_t4*, and the opcode probe
 *      sparc_t4_emulation_probe.S) in its own symbol table and replaces every AES round,
 *      key-expansion, movxtod and movdtox word with `illtrap N` (N indexes a
 *      table of the original words), before any of them runs.
 *   2. The SIGILL handler decodes the original word and performs it on the
 *      registers saved in the Linux rt signal frame (FP doubles in the
 *      fpu_save area, %g/%o in pt_regs, %l/%i in the spilled window), and
 *      so every rewritten instruction that follows, then resumes at nPC.
 *      The AES opcodes are computed by this file's byte-wise FIPS-197 code,
 *      with the meaning generator/aesgen/machine/sparc64.py gives them.
 *   3. Start-up checks: those opcodes against FIPS-197 appendices A and B;
 *      the decoder against the assembler (sparc_t4_emulation_probe.S: every form, both FP
 *      register banks, %l/%i/%o/%g operands).
 *   4. Every sparc64-t4 variant, called through its descriptor (the CPU
 *      feature check is bypassed), against the portable reference variant:
 *      FIPS-197 appendix C; ECB, CBC and CTR over 0..40 blocks (and 65, 97),
 *      out of place at input/output offsets 0..15 (the misaligned ones go
 *      through the wrappers' bounce buffers), in place, in two calls, CTR
 *      counters carrying out of the low 64 bits and wrapping at 2^128. Each
 *      call must emulate exactly 2*Nr AES instructions per block, which shows
 *      the T4 code (not something else) produced the output.
 *
 * What it proves: the assembled bytes (opcodes and register fields), the
 * loops, the C wrappers, the calling convention and register-window use,
 * all against OUR reading of the opcodes. What it does not prove: that T4
 * hardware gives the opcodes that meaning (the model's docstring cites the
 * Linux and OpenSSL users of them), timing or constant time, or behaviour
 * on a real kernel: the handler follows the Linux frame layout but has run
 * only under qemu. On a CPU with the T4 opcodes it skips (exit 77);
 * aesgen_crosscheck runs the variants natively there.
 *
 * --sabotage KIND breaks the emulation after the start-up checks and must
 * then see the comparisons fail (exit 0 when it does, or when the generated
 * code never runs the broken instruction): swap-halves, last-as-middle,
 * kexpand1-no-rot, movxtod-swap32, movdtox-low32, no-window-write, or all.
 *
 * Files: this one (the test driver), sparc_t4_emulation_reference.c (the opcodes from FIPS-197),
 * sparc_t4_emulation_emulator.c (the emulator and the rewriting); sparc_t4_emulation_test.h.
 *
 * Exit status: 0 pass, 1 failure, 2 bad usage, 77 skipped.
 */
#define _GNU_SOURCE
#include "aesgen_internal.h"
#include "sparc_t4_emulation_test.h"
#include "ts_modes.h"
#include "ts_report.h"
#include "ts_rng.h"
#include "ts_variant.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__sparc__) || !defined(__arch64__) || !defined(__linux__)
#error "sparc_t4_emulation is for 64-bit SPARC Linux (qemu-sparc64)"
#endif

#define MAX_BLOCKS 97
#define GUARD 32        /* checked bytes on each side of every buffer */
#define RK_FILL 0xA5

/* Randomness: splitmix64, bytes least significant first (ts_rng.h). Reporting:
 * subjects and cases, the first TS_MAX_SHOWN mismatches of a variant printed
 * (ts_report.h). */
static ts_rng rng;
static int stop_at_first_failure; /* sabotage runs: one detection is enough */

/* ------------------------------------------------------ variants against ref */

/* A region: GUARD bytes, up to 15 bytes of offset, the data, GUARD bytes. */
#define REGION_BYTES (GUARD + 16 + 16 * (size_t)MAX_BLOCKS + GUARD)

static uint8_t *region_in, *region_out, *src, *expected;

static void region_intact(const char *cs, const char *which, const uint8_t *r, size_t lo, size_t hi, size_t used)
{
    const size_t i = ts_region_changed(r, lo, hi, used);
    if (i != used)
        ts_mismatch(cs, "%s: the byte at data%+ld was overwritten", which, (long)i - (long)lo);
}

static uint8_t *alloc64(size_t n)
{
    return ts_alloc64(n, "aesgen_sparc_t4_emulation");
}

/* The reference: ts_reference_variant, the feature-free variant dispatch would
 * prefer (as aesgen_crosscheck). */

enum { ECB = TS_VARIANT_ECB, CBC = TS_VARIANT_CBC, CTR = TS_VARIANT_CTR };
static const char *const mode_name[] = {"ECB", "CBC", "CTR"};

typedef struct {
    const aesgen_variant *v, *ref;
    uint8_t *rk_v, *rk_r;
    unsigned key_index, rounds;
} subject;

/* FIPS-197 appendix C: key 00 01 .., plaintext 00 11 .. ff, one ECB block. */
static void known_answer(const subject *t)
{
    const aesgen_variant *vs[2] = {t->v, t->ref};
    const uint8_t *key = ts_fips197_key, *pt = ts_fips197_pt;
    const uint8_t *ct = ts_fips197_ct[(t->v->key_bits - 128) / 64];
    uint8_t out[16];
    for (unsigned j = 0; j < 2; j++) {
        ts_case_begin();
        vs[j]->setkey(j ? t->rk_r : t->rk_v, key);
        aesgen_variant_ecb(vs[j], j ? t->rk_r : t->rk_v, out, t->v->direction ? ct : pt, 1);
        ts_same(j ? "FIPS-197 appendix C, the reference" : "FIPS-197 appendix C", "block",
                t->v->direction ? pt : ct, out, 16);
        ts_case_end();
    }
}

/* One case: n random blocks through the variant (in place, or from in_off to
 * out_off; in two calls when split > 0) against the reference in one call. */
static void variant_case(const subject *t, int mode, size_t n, size_t in_off, size_t out_off, int in_place,
                         size_t split, const uint8_t iv0[16], const char *note)
{
    if (stop_at_first_failure && ts_subject.failed)
        return;
    const size_t len = 16 * n, used_in = GUARD + in_off + len + GUARD, used_out = GUARD + out_off + len + GUARD;
    uint8_t iv_ref[16], iv_var[16];
    char cs[256];
    int at = snprintf(cs, sizeof cs, "%s key#%u, %lu blocks, ", mode_name[mode], t->key_index, (unsigned long)n);
    at += in_place ? snprintf(cs + at, sizeof cs - (size_t)at, "in place at +%lu", (unsigned long)in_off)
                   : snprintf(cs + at, sizeof cs - (size_t)at, "in +%lu out +%lu", (unsigned long)in_off,
                              (unsigned long)out_off);
    if (split)
        at += snprintf(cs + at, sizeof cs - (size_t)at, ", two calls %lu+%lu", (unsigned long)split,
                       (unsigned long)(n - split));
    if (mode != ECB) {
        at += snprintf(cs + at, sizeof cs - (size_t)at, ", %s ", mode == CBC ? "iv" : "counter");
        for (unsigned i = 0; i < 16; i++)
            at += snprintf(cs + at, sizeof cs - (size_t)at, "%02x", iv0[i]);
    }
    if (note[0])
        snprintf(cs + at, sizeof cs - (size_t)at, " (%s)", note);

    ts_case_begin();
    ts_rng_bytes(&rng, src, len);
    memcpy(iv_ref, iv0, 16);
    unsigned long before = count(ALL_MASK);
    ts_variant_run(t->ref, t->rk_r, mode, expected, src, n, iv_ref);
    if (count(ALL_MASK) != before)
        ts_mismatch(cs, "the reference variant ran T4 instructions");

    ts_region_fill(region_in, used_in);
    uint8_t *in = region_in + GUARD + in_off, *out = in;
    memcpy(in, src, len);
    if (!in_place) {
        ts_region_fill(region_out, used_out);
        out = region_out + GUARD + out_off;
    }
    memcpy(iv_var, iv0, 16);
    before = count(ROUNDS_MASK);
    if (split) {
        ts_variant_run(t->v, t->rk_v, mode, out, in, split, iv_var);
        ts_variant_run(t->v, t->rk_v, mode, out + 16 * split, in + 16 * split, n - split, iv_var);
    } else {
        ts_variant_run(t->v, t->rk_v, mode, out, in, n, iv_var);
    }
    const unsigned long ran = count(ROUNDS_MASK) - before, want = 2ul * t->rounds * n;
    if (ran != want)
        ts_mismatch(cs, "%lu AES rounds emulated, expected %lu (2 per round and block)", ran, want);

    ts_same(cs, "output", expected, out, len);
    if (mode != ECB)
        ts_same(cs, mode == CBC ? "IV after the call" : "counter after the call", iv_ref, iv_var, 16);
    if (in_place) {
        region_intact(cs, "buffer", region_in, GUARD + in_off, GUARD + in_off + len, used_in);
    } else {
        region_intact(cs, "output buffer", region_out, GUARD + out_off, GUARD + out_off + len, used_out);
        region_intact(cs, "input buffer", region_in, GUARD + in_off, GUARD + in_off + len, used_in);
        ts_same(cs, "input (must be unchanged)", src, in, len);
    }
    ts_case_end();
}

/* Counter whose low 64 bits carry after `after` blocks; wrap128: the high
 * half is all ones too, so the whole counter wraps to 0 there. */
static void carry_counter(uint8_t c[16], int wrap128, size_t after)
{
    ts_rng_bytes(&rng, c, 8);
    if (wrap128)
        memset(c, 0xff, 8);
    store_be64(c + 8, (uint64_t)0 - (uint64_t)after);
}

/* Every case for one key. full = 0: the short matrix of sabotage runs. */
static void variant_key_cases(const subject *t, int full)
{
    const int modes = t->v->direction == 0 ? 3 : 2;
    const int k = (int)t->key_index;
    uint8_t iv[16];

    for (size_t n = 0; n <= 40; n++)
        for (int m = 0; m < modes; m++) {
            const struct {
                size_t in_off, out_off;
                int in_place;
            } pl[4] = {{0, 0, 0}, {1 + n % 15, (3 + 5 * n) % 16, 0}, {0, 0, 1}, {1 + (7 * n) % 15, 0, 1}};
            for (unsigned p = 0; p < 4; p++) {
                if (k > 0 && p >= 2)
                    continue;
                ts_rng_bytes(&rng, iv, 16);
                variant_case(t, m, n, pl[p].in_off, pl[p].out_off, pl[p].in_place, 0, iv, "");
            }
        }
    if (!full)
        return;

    if (k == 0) {
        /* Every offset pair at 3 blocks; in place at every offset, also across
         * the wrappers' 32-block bounce buffer. */
        static const size_t in_place_counts[] = {1, 2, 3, 33, 40};
        for (size_t a = 0; a < 16; a++)
            for (int m = 0; m < modes; m++) {
                for (size_t b = 0; b < 16; b++) {
                    ts_rng_bytes(&rng, iv, 16);
                    variant_case(t, m, 3, a, b, 0, 0, iv, "");
                }
                for (unsigned i = 0; i < sizeof in_place_counts / sizeof in_place_counts[0]; i++) {
                    ts_rng_bytes(&rng, iv, 16);
                    variant_case(t, m, in_place_counts[i], a, a, 1, 0, iv, "");
                }
            }
        static const size_t large[] = {65, MAX_BLOCKS};
        for (unsigned i = 0; i < 2; i++)
            for (int m = 0; m < modes; m++) {
                ts_rng_bytes(&rng, iv, 16);
                variant_case(t, m, large[i], 0, 0, 0, 0, iv, "");
                ts_rng_bytes(&rng, iv, 16);
                variant_case(t, m, large[i], 5, 11, 0, 0, iv, "");
                ts_rng_bytes(&rng, iv, 16);
                variant_case(t, m, large[i], 13, 13, 1, 0, iv, "");
            }
    }

    /* Two calls: the IV or counter must chain through the wrappers. */
    static const size_t splits[] = {1, 8, 31, 32, 39};
    for (int m = CBC; m < modes; m++)
        for (unsigned i = 0; i < sizeof splits / sizeof splits[0]; i++) {
            ts_rng_bytes(&rng, iv, 16);
            variant_case(t, m, 40, 3, 9, 0, splits[i], iv, "");
            ts_rng_bytes(&rng, iv, 16);
            variant_case(t, m, 40, 8, 8, 1, splits[i], iv, "");
        }

    /* CTR: the low 64 bits carry (the wrappers split the call there) at
     * several blocks of every count, and the whole counter wraps. */
    if (modes == 3 && k != 1)
        for (size_t n = 1; n <= 40; n++) {
            const size_t afters[5] = {1, 2, n / 2, n - 1, n};
            for (unsigned i = 0; i < 5; i++) {
                const size_t after = afters[i];
                unsigned seen = 0;
                while (seen < i && afters[seen] != after)
                    seen++;
                if (after == 0 || after > n || seen < i)
                    continue;
                for (int wrap = 0; wrap < 2; wrap++) {
                    char note[48];
                    snprintf(note, sizeof note, "%s after block %lu", wrap ? "128-bit wrap" : "64-bit carry",
                             (unsigned long)after);
                    carry_counter(iv, wrap, after);
                    if ((after + (size_t)wrap) % 2)
                        variant_case(t, CTR, n, 1 + n % 15, 2, 0, 0, iv, note);
                    else
                        variant_case(t, CTR, n, 0, 0, n % 2, 0, iv, note);
                }
            }
        }
}

static int check_variant(const aesgen_variant *v, int full)
{
    const aesgen_variant *ref = ts_reference_variant(v->key_bits, v->direction);
    subject t = {v, ref, NULL, NULL, 0, v->key_bits / 32 + 6};
    uint8_t key[32];
    const unsigned long rounds0 = count(ROUNDS_MASK), moves0 = count(MOVES_MASK);

    if (ref == NULL) {
        printf("FAIL %s: no feature-free variant to compare with\n", v->name);
        ts_total_failed++;
        return 0;
    }
    ts_subject_begin("%s vs %s", v->name, ref->name);
    t.rk_v = alloc64(AESGEN_MAX_SCHEDULE_BYTES);
    t.rk_r = alloc64(AESGEN_MAX_SCHEDULE_BYTES);
    known_answer(&t);
    for (unsigned k = 0; k < (full ? 3u : 1u); k++) {
        t.key_index = k;
        if (k == 0)
            for (unsigned i = 0; i < 32; i++)
                key[i] = (uint8_t)i;
        else if (k == 1)
            memset(key, 0xff, sizeof key);
        else
            ts_rng_bytes(&rng, key, sizeof key);
        memset(t.rk_v, RK_FILL, AESGEN_MAX_SCHEDULE_BYTES);
        v->setkey(t.rk_v, key);
        ref->setkey(t.rk_r, key);
        ts_case_begin();
        for (size_t i = v->schedule_bytes; i < AESGEN_MAX_SCHEDULE_BYTES; i++)
            if (t.rk_v[i] != RK_FILL) {
                ts_mismatch("setkey", "wrote byte %lu, beyond schedule_bytes %lu", (unsigned long)i,
                            (unsigned long)v->schedule_bytes);
                break;
            }
        ts_case_end();
        variant_key_cases(&t, full);
    }
    free(t.rk_v);
    free(t.rk_r);
    char what[200];
    snprintf(what, sizeof what, "%lu AES rounds and %lu moves emulated", count(ROUNDS_MASK) - rounds0,
             count(MOVES_MASK) - moves0);
    return ts_subject_end(what);
}

/* Every sparc64-t4 variant (failures go to ts_total_failed); returns how many. */
static int check_all_variants(int full)
{
    int n = 0;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (strcmp(v->backend, "sparc64-t4") != 0)
            continue;
        n++;
        if (!check_variant(v, full) && stop_at_first_failure)
            break;
    }
    return n;
}

/* -------------------------------------------------------------------- main */

static void usage(void)
{
    fprintf(stderr, "usage: aesgen_sparc_t4_emulation [--seed N] [--sabotage KIND|all]\n");
}

int main(int argc, char **argv)
{
    int sab_from = 0, sab_to = -1; /* sabotage kinds to run, none by default */
    ts_rng_seed(&rng, 0x7434656d75ull); /* "t4emu" */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            ts_rng_seed(&rng, strtoull(argv[++i], &end, 0));
            if (*end != '\0') {
                usage();
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--sabotage") == 0 && i + 1 < argc) {
            const char *kind = argv[++i];
            sab_from = sab_to = -1;
            if (strcmp(kind, "all") == 0) {
                sab_from = 1;
                sab_to = N_SABOTAGE - 1;
            }
            for (int s = 1; s < N_SABOTAGE; s++)
                if (strcmp(kind, sabotage_name[s]) == 0)
                    sab_from = sab_to = s;
            if (sab_from < 0) {
                usage();
                return EXIT_USAGE;
            }
        } else {
            usage();
            return EXIT_USAGE;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (aesgen_cpu_features() & AESGEN_CPU_SPARC_AES) {
        printf("skipped: this CPU has the T4 opcodes; aesgen_crosscheck runs the sparc64-t4 variants natively\n");
        return EXIT_SKIP;
    }
    make_sbox();
    if (!check_reference_round() || !check_reference_clmul())
        return EXIT_FAIL;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigill;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (!rewrite_t4_code() || sigaction(SIGILL, &sa, NULL) != 0 || !check_probe())
        return EXIT_FAIL;
    unsigned long by_probe[N_KINDS];
    for (unsigned k = 0; k < N_KINDS; k++)
        by_probe[k] = (unsigned long)hot.emulated[k];

    region_in = alloc64(REGION_BYTES);
    region_out = alloc64(REGION_BYTES);
    src = alloc64(16 * (size_t)MAX_BLOCKS);
    expected = alloc64(16 * (size_t)MAX_BLOCKS);

    if (sab_from > 0) {
        /* Each sabotage must make the comparisons fail. */
        int all_detected = 1;
        stop_at_first_failure = 1;
        for (int s = sab_from; s <= sab_to; s++) {
            const unsigned long before = sabotage_exposure(s);
            sabotage = s;
            ts_total_failed = ts_total_cases = 0;
            printf("---- sabotage %s: the comparisons must fail\n", sabotage_name[s]);
            check_all_variants(0);
            sabotage = SAB_NONE;
            if (ts_total_failed == 0 && sabotage_exposure(s) == before) {
                printf("ok   sabotage %s: not applicable, the generated code never ran the instructions it breaks\n",
                       sabotage_name[s]);
                continue;
            }
            printf("%s sabotage %s %s\n", ts_total_failed ? "ok  " : "FAIL", sabotage_name[s],
                   ts_total_failed ? "detected" : "NOT detected: the test cannot see this fault");
            all_detected &= ts_total_failed != 0;
        }
        sabotage = SAB_NONE;
        printf("%s: %s\n", all_detected ? "PASS" : "FAIL",
               all_detected ? "every sabotage was detected" : "a sabotage went unnoticed");
        return all_detected ? EXIT_PASS : EXIT_FAIL;
    }

    const int variants = check_all_variants(1);
    int ok = variants > 0;
    if (variants == 0)
        printf("FAIL no sparc64-t4 variants in the registry\n");
    /* Every round form must have run; the others depend on what the generator emits. */
    printf("     %lu SIGILL traps in all\n", (unsigned long)hot.traps);
    printf("     emulated in the generated code:");
    for (unsigned k = 0; k < N_KINDS; k++)
        printf(" %s %lu%s", kind_name[k], (unsigned long)hot.emulated[k] - by_probe[k], k + 1 < N_KINDS ? "," : "\n");
    for (unsigned k = 0; k < 8; k++)
        if ((unsigned long)hot.emulated[k] == by_probe[k]) {
            printf("FAIL %s never ran in the generated code\n", kind_name[k]);
            ok = 0;
        }
    ok &= ts_total_failed == 0;
    printf("%s: %d sparc64-t4 variants, %lu cases compared, %lu differ\n", ok ? "PASS" : "FAIL", variants,
           ts_total_cases, ts_total_failed);
    return ok ? EXIT_PASS : EXIT_FAIL;
}

