/*
 * sparc_t4_emulation -- the sparc64-t4 variants' real machine code and C
 * wrappers, and the VIS3 GHASH variants' (ghash__sparc64_vis3_*), run under
 * qemu-sparc64 with the T4 opcodes and VIS3's xmulx/xmulxhi emulated.
 *
 *   aesgen_sparc_t4_emulation [--seed N] [--sabotage KIND|all]
 *
 * Why it exists: qemu-sparc64 (7.2, Debian 12) has no T4 AES opcodes and no
 * VIS3, so the cross suite never runs the sparc64-t4 variants; only the
 * generator's model executes their instruction streams. Under qemu 7.2,
 * movxtod/movdtox raise SIGILL, but the AES rounds (op3 0x19) do not trap:
 * the old decoder takes op3 0x19 for mulx and quietly multiplies integer
 * registers (so does aes_kexpand1; aes_kexpand0/2 trap). A SIGILL handler
 * alone cannot work, so the test first rewrites those words itself. The same
 * holds for the GHASH variants on VIS3's carry-less multiply (xmulx, xmulxhi:
 * qemu 7.2 raises SIGILL on them and does not report HWCAP_SPARC_VIS3), so
 * no other test runs them either; their words are rewritten the same way:
 *
 *   1. It finds the T4 functions (aesgen_*__sparc64_t4*, and the opcode probe
 *      sparc_t4_emulation_probe.S) and the VIS3 GHASH's functions (static C
 *      functions: by the name, or by their file's STT_FILE symbol for the
 *      helpers) in its own symbol table and replaces every AES round,
 *      key-expansion, movxtod, movdtox, xmulx and xmulxhi word with
 *      `illtrap N` (N indexes a table of the original words), before any of
 *      them runs. Such a word in any other function fails the test.
 *   2. The SIGILL handler decodes the original word and performs it on the
 *      registers saved in the Linux rt signal frame (FP doubles in the
 *      fpu_save area, %g/%o in pt_regs, %l/%i in the spilled window), and
 *      so every rewritten instruction that follows, then resumes at nPC.
 *      The AES opcodes are computed by byte-wise FIPS-197 code, with the
 *      meaning generator/aesgen/machine/sparc64.py gives them; xmulx and
 *      xmulxhi (the low and high 64 bits of the 64 x 64 carry-less product)
 *      by a bit-by-bit multiply (sparc_t4_emulation_reference.c).
 *   3. Start-up checks: those opcodes against FIPS-197 appendices A and B;
 *      the carry-less multiply against products worked by hand and the
 *      library's aesgen_clmul64; the decoder against the assembler
 *      (sparc_t4_emulation_probe.S: every form, both FP register banks,
 *      %l/%i/%o/%g operands).
 *   4. Every sparc64-t4 variant, called through its descriptor (the CPU
 *      feature check is bypassed), against the portable reference variant:
 *      FIPS-197 appendix C; ECB, CBC and CTR over 0..40 blocks (and 65, 97),
 *      out of place at input/output offsets 0..15 (the misaligned ones go
 *      through the wrappers' bounce buffers), in place, in two calls, CTR
 *      counters carrying out of the low 64 bits and wrapping at 2^128; the
 *      xts loop called directly over 0..40 blocks (and 65, 97) at 8-byte
 *      aligned offsets, in place and not, in two calls, the tweak left in
 *      tweak[] compared with the reference whitened around the portable ECB
 *      (misaligned buffers: the ECB fallback xts.c takes). Each
 *      call must emulate exactly 2*Nr AES instructions per block, which shows
 *      the T4 code (not something else) produced the output.
 *   5. Every __sparc64_vis3 GHASH variant, called through its descriptor (the
 *      feature check bypassed), against ghash__portable_x4: GCM test case 2;
 *      hash keys (the zero AES key's, GCM's 1, all ones, random), y after
 *      0..40 blocks (and 97) from a random y, at aligned and unaligned
 *      addresses, in one call and in two; only y is compared (the tables have
 *      other layouts), and setkey must stay within table_bytes. Every call
 *      must emulate exactly the xmulx and xmulxhi its method does (3 products
 *      a block, 2 a reduction, one reduction per group of `blocks` and one
 *      for the tail; 6 per power of H in setkey).
 *
 * What it proves: the assembled bytes (opcodes and register fields), the
 * loops, the C wrappers, the calling convention and register-window use,
 * all against OUR reading of the opcodes; for the VIS3 GHASH, the .word
 * encodings of aesgen_clmul64_vis3 and the generated C around them. What it
 * does not prove: that T4 hardware gives the opcodes that meaning (the
 * model's docstring cites the Linux and OpenSSL users of them), timing or
 * constant time, or behaviour on a real kernel: the handler follows the
 * Linux frame layout but has run only under qemu. On a CPU with the T4
 * opcodes it skips (exit 77); aesgen_crosscheck runs the AES variants, and
 * the GCM tests (gcm_*_ghash_*) the VIS3 GHASH, natively there.
 *
 * --sabotage KIND breaks the emulation after the start-up checks and must
 * then see the comparisons fail (exit 0 when it does, or when the generated
 * code never runs the broken instruction): swap-halves, last-as-middle,
 * kexpand1-no-rot, movxtod-swap32, movdtox-low32, no-window-write,
 * xmulx-no-bit63, xmulxhi-shl1 (the last two break the GHASH), or all.
 *
 * Files: this one (the test driver), sparc_t4_emulation_reference.c (the opcodes from FIPS-197,
 * the carry-less multiply bit by bit), sparc_t4_emulation_emulator.c (the emulator and the
 * rewriting); sparc_t4_emulation_test.h.
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

enum { ECB = TS_VARIANT_ECB, CBC = TS_VARIANT_CBC, CTR = TS_VARIANT_CTR, XTS = TS_VARIANT_XTS };
static const char *const mode_name[] = {"ECB", "CBC", "CTR", "XTS"};
static const char *const iv_name[] = {"", "iv", "counter", "tweak"};

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

/* The variant under test. XTS: xts.c and ts_variant_run call the loop when the
 * buffers have the alignment the variant declares (8 here) and whiten around its
 * ECB otherwise. An aligned case calls the loop directly, so that it surely runs
 * (with the tweak in an aligned copy); a misaligned one takes ts_variant_run's
 * fallback, as xts.c would. */
static void run_subject(const subject *t, int mode, uint8_t *out, const uint8_t *in, size_t n, uint8_t iv[16])
{
    const uintptr_t align = t->v->align ? t->v->align : 1;
    if (mode != XTS || t->v->xts == NULL || (((uintptr_t)out | (uintptr_t)in) & (align - 1)) != 0) {
        ts_variant_run(t->v, t->rk_v, mode, out, in, n, iv);
        return;
    }
    _Alignas(16) uint64_t tweak[2];
    memcpy(tweak, iv, 16);
    t->v->xts(t->rk_v, out, in, n, (uint8_t *)tweak);
    memcpy(iv, tweak, 16);
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
        at += snprintf(cs + at, sizeof cs - (size_t)at, ", %s ", iv_name[mode]);
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
        run_subject(t, mode, out, in, split, iv_var);
        run_subject(t, mode, out + 16 * split, in + 16 * split, n - split, iv_var);
    } else {
        run_subject(t, mode, out, in, n, iv_var);
    }
    const unsigned long ran = count(ROUNDS_MASK) - before, want = 2ul * t->rounds * n;
    if (ran != want)
        ts_mismatch(cs, "%lu AES rounds emulated, expected %lu (2 per round and block)", ran, want);

    ts_same(cs, "output", expected, out, len);
    if (mode != ECB)
        ts_same(cs, mode == CBC ? "IV after the call" : mode == CTR ? "counter after the call" : "tweak after the call",
                iv_ref, iv_var, 16);
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
    /* XTS: the loop itself at 8-byte aligned placements, the fallback at the last,
     * misaligned one (see run_subject). */
    if (t->v->xts != NULL)
        for (size_t n = 0; n <= 40; n++) {
            const struct {
                size_t in_off, out_off;
                int in_place;
            } pl[5] = {{0, 0, 0}, {8, 8 * (n % 2), 0}, {0, 0, 1}, {8, 8, 1}, {1 + n % 15, (3 + 5 * n) % 16, 0}};
            for (unsigned p = 0; p < 5; p++) {
                if (k > 0 && p >= 2)
                    continue;
                ts_rng_bytes(&rng, iv, 16);
                variant_case(t, XTS, n, pl[p].in_off, pl[p].out_off, pl[p].in_place, 0, iv, "");
            }
        }
    if (!full)
        return;

    if (t->v->xts != NULL) {
        static const size_t xts_large[] = {65, MAX_BLOCKS}, xts_splits[] = {1, 2, 3, 8, 31, 39};
        for (unsigned i = 0; k == 0 && i < 2; i++) {
            ts_rng_bytes(&rng, iv, 16);
            variant_case(t, XTS, xts_large[i], 0, 8, 0, 0, iv, "");
            ts_rng_bytes(&rng, iv, 16);
            variant_case(t, XTS, xts_large[i], 8, 8, 1, 0, iv, "");
        }
        /* Two calls: the tweak must chain through tweak[]. */
        for (unsigned i = 0; i < sizeof xts_splits / sizeof xts_splits[0]; i++) {
            ts_rng_bytes(&rng, iv, 16);
            variant_case(t, XTS, 40, 8, 0, 0, xts_splits[i], iv, "");
            ts_rng_bytes(&rng, iv, 16);
            variant_case(t, XTS, 40, 0, 0, 1, xts_splits[i], iv, "");
        }
    }

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

/* ------------------------------------------------ VIS3 GHASH against portable */

/* The GHASH variants on VIS3's xmulx/xmulxhi (ghash__sparc64_vis3_*), called through
 * their descriptors (the CPU feature check bypassed) against ghash__portable_x4. Their
 * tables have other layouts, so only y is compared. */
#define GHASH_REF_NAME "ghash__portable_x4"
#define TABLE_GUARD 64

typedef struct {
    const aesgen_ghash_variant *g, *ref;
    uint8_t *ht_v, *ht_r;
    unsigned key_index;
} ghash_subject;

/* The 64 x 64 products (each one asm statement: one xmulx and one xmulxhi, both
 * always run) a variant of this method does, as generated/common/ghash_pair_x4_karatsuba_clmul*.h
 * spell them: Karatsuba, 3 per block; the reduction by clmul, 2 per reduction (its
 * header's "Update: 47 operations per 4 blocks (14 carry-less multiplies)" is 3 * 4 + 2);
 * a tail of k < blocks blocks is k blocks and one reduction; the set-up forms H^2 ..
 * H^blocks, each a schoolbook product (4) and a reduction (2). Any other method is
 * unknown here (0: the test fails until its counts are added). */
static int ghash_method_known(const aesgen_ghash_variant *g)
{
    return strstr(g->info, "karatsuba") != NULL && strstr(g->info, "reduction by clmul") != NULL;
}

static unsigned long ghash_update_products(const aesgen_ghash_variant *g, size_t n)
{
    const size_t b = g->blocks, rem = n % b;
    return (unsigned long)((n / b) * (3 * b + 2) + (rem ? 3 * rem + 2 : 0));
}

static unsigned long ghash_setkey_products(const aesgen_ghash_variant *g)
{
    return 6ul * (g->blocks - 1u);
}

/* The emulated xmulx and xmulxhi since (x0, h0) must both be `want`. */
static void clmul_counts(const char *cs, unsigned long x0, unsigned long h0, unsigned long want)
{
    const unsigned long x = (unsigned long)hot.emulated[K_XMULX] - x0;
    const unsigned long h = (unsigned long)hot.emulated[K_XMULXHI] - h0;
    if (x != want || h != want)
        ts_mismatch(cs, "%lu xmulx and %lu xmulxhi emulated, expected %lu of each", x, h, want);
}

/* GCM test case 2 (McGrew and Viega; SP 800-38D's examples): the zero AES key's H, and
 * GHASH over its ciphertext block and the lengths block (no AAD, 128 bits of text). */
static void ghash_known_answer(const ghash_subject *t)
{
    uint8_t h[16], data[32], want[16], y[16];
    ts_from_hex(h, "66e94bd4ef8a2c3b884cfa59ca342b2e", 16);
    ts_from_hex(data, "0388dace60b6a392f328c2b971b2fe78", 16);
    ts_from_hex(data + 16, "00000000000000000000000000000080", 16);
    ts_from_hex(want, "f38cbb1ad69223dcc3457ae5b6b0f885", 16);
    for (unsigned j = 0; j < 2; j++) {
        const aesgen_ghash_variant *g = j ? t->ref : t->g;
        uint8_t *ht = j ? t->ht_r : t->ht_v;
        ts_case_begin();
        g->setkey(ht, h);
        memset(y, 0, 16);
        g->update(ht, y, data, 2);
        ts_same(j ? "GCM test case 2, the reference" : "GCM test case 2", "GHASH", want, y, 16);
        ts_case_end();
    }
}

/* One case: n random blocks from a random y, the data at +data_off, y at +y_off
 * (both unaligned for most), through the variant (in two calls when split > 0)
 * against the reference in one call. */
static void ghash_case(const ghash_subject *t, size_t n, size_t split, size_t data_off, size_t y_off)
{
    if (stop_at_first_failure && ts_subject.failed)
        return;
    const size_t len = 16 * n, used_in = GUARD + data_off + len + GUARD, used_y = GUARD + y_off + 16 + GUARD;
    uint8_t y0[16], y_ref[16];
    char cs[160];
    int at = snprintf(cs, sizeof cs, "GHASH H#%u, %lu blocks at +%lu, y at +%lu", t->key_index, (unsigned long)n,
                      (unsigned long)data_off, (unsigned long)y_off);
    if (split)
        snprintf(cs + at, sizeof cs - (size_t)at, ", two calls %lu+%lu", (unsigned long)split,
                 (unsigned long)(n - split));

    ts_case_begin();
    ts_rng_bytes(&rng, src, len);
    ts_rng_bytes(&rng, y0, 16);
    memcpy(y_ref, y0, 16);
    unsigned long before = count(ALL_MASK);
    t->ref->update(t->ht_r, y_ref, src, n);
    if (count(ALL_MASK) != before)
        ts_mismatch(cs, "the reference GHASH ran emulated instructions");

    ts_region_fill(region_in, used_in);
    ts_region_fill(region_out, used_y);
    uint8_t *in = region_in + GUARD + data_off, *y = region_out + GUARD + y_off;
    memcpy(in, src, len);
    memcpy(y, y0, 16);
    const unsigned long x0 = (unsigned long)hot.emulated[K_XMULX], h0 = (unsigned long)hot.emulated[K_XMULXHI];
    before = count(ALL_MASK & ~CLMUL_MASK);
    if (split) {
        t->g->update(t->ht_v, y, in, split);
        t->g->update(t->ht_v, y, in + 16 * split, n - split);
    } else {
        t->g->update(t->ht_v, y, in, n);
    }
    if (count(ALL_MASK & ~CLMUL_MASK) != before)
        ts_mismatch(cs, "the GHASH variant ran T4 AES instructions or moves");
    clmul_counts(cs, x0, h0,
                 split ? ghash_update_products(t->g, split) + ghash_update_products(t->g, n - split)
                       : ghash_update_products(t->g, n));

    ts_same(cs, "y", y_ref, y, 16);
    region_intact(cs, "y buffer", region_out, GUARD + y_off, GUARD + y_off + 16, used_y);
    region_intact(cs, "data buffer", region_in, GUARD + data_off, GUARD + data_off + len, used_in);
    ts_same(cs, "data (must be unchanged)", src, in, len);
    ts_case_end();
}

/* The hash keys: 0 the zero AES key's, 1 the identity of GCM's field (the byte 0x80
 * first), 2 all ones, then random ones. full = 0: the zero key's and one random. */
static void ghash_hash_key(unsigned k, uint8_t h[16])
{
    if (k == 0) {
        ts_from_hex(h, "66e94bd4ef8a2c3b884cfa59ca342b2e", 16);
    } else if (k == 1) {
        memset(h, 0, 16);
        h[0] = 0x80;
    } else if (k == 2) {
        memset(h, 0xff, 16);
    } else {
        ts_rng_bytes(&rng, h, 16);
    }
}

static int check_ghash_variant(const aesgen_ghash_variant *g, int full)
{
    ghash_subject t = {g, aesgen_find_ghash(GHASH_REF_NAME), NULL, NULL, 0};
    const unsigned long x0 = (unsigned long)hot.emulated[K_XMULX], h0 = (unsigned long)hot.emulated[K_XMULXHI];
    if (t.ref == NULL) {
        printf("FAIL %s: no %s to compare with\n", g->name, GHASH_REF_NAME);
        ts_total_failed++;
        return 0;
    }
    if (!ghash_method_known(g) || g->blocks == 0) {
        printf("FAIL %s: the xmulx/xmulxhi counts of its method (%s) are not known to this test\n", g->name,
               g->info);
        ts_total_failed++;
        return 0;
    }
    ts_subject_begin("%s vs %s", g->name, t.ref->name);
    t.ht_v = alloc64(g->table_bytes + TABLE_GUARD);
    t.ht_r = alloc64(t.ref->table_bytes);
    ghash_known_answer(&t);
    const unsigned keys = full ? 7 : 2;
    for (unsigned k = 0; k < keys; k++) {
        uint8_t h[16];
        ghash_hash_key(full || k == 0 ? k : 3, h);
        t.key_index = k;
        ts_case_begin();
        memset(t.ht_v, RK_FILL, g->table_bytes + TABLE_GUARD);
        const unsigned long sx = (unsigned long)hot.emulated[K_XMULX], sh = (unsigned long)hot.emulated[K_XMULXHI];
        g->setkey(t.ht_v, h);
        clmul_counts("setkey", sx, sh, ghash_setkey_products(g));
        for (size_t i = g->table_bytes; i < g->table_bytes + TABLE_GUARD; i++)
            if (t.ht_v[i] != RK_FILL) {
                ts_mismatch("setkey", "wrote byte %lu, beyond table_bytes %lu", (unsigned long)i,
                            (unsigned long)g->table_bytes);
                break;
            }
        t.ref->setkey(t.ht_r, h);
        ts_case_end();
        /* Every count 0..40 (every residue around blocks, several groups), in one call
         * with the buffers aligned and not, and in two calls split at varying points. */
        for (size_t n = 0; n <= 40; n++) {
            ghash_case(&t, n, 0, 0, 0);
            if (!full)
                continue;
            ghash_case(&t, n, 0, 1 + (n + k) % 15, 1 + (3 * n + k) % 15);
            if (n >= 2)
                ghash_case(&t, n, 1 + (5 * n + k) % (n - 1), (7 * n) % 16, n % 2);
        }
        if (full && k == 0) {
            static const size_t splits[] = {1, 2, 3, 4, 5, 7, 8, 9, 32, 33, 39};
            for (unsigned i = 0; i < sizeof splits / sizeof splits[0]; i++)
                ghash_case(&t, 40, splits[i], 3, 5);
            ghash_case(&t, MAX_BLOCKS, 0, 0, 0);
            ghash_case(&t, MAX_BLOCKS, 45, 9, 3);
        }
    }
    free(t.ht_v);
    free(t.ht_r);
    char what[200];
    snprintf(what, sizeof what, "%lu xmulx and %lu xmulxhi emulated",
             (unsigned long)hot.emulated[K_XMULX] - x0, (unsigned long)hot.emulated[K_XMULXHI] - h0);
    return ts_subject_end(what);
}

/* Every __sparc64_vis3 GHASH variant (failures go to ts_total_failed); returns how many. */
static int check_all_ghash(int full)
{
    int n = 0;
    for (size_t i = 0; i < aesgen_ghash_registry_size; i++) {
        const aesgen_ghash_variant *g = aesgen_ghash_registry[i];
        if (strstr(g->name, "__sparc64_vis3") == NULL)
            continue;
        n++;
        if (!check_ghash_variant(g, full) && stop_at_first_failure)
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
            if (ts_total_failed == 0)
                check_all_ghash(0);
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
    const int ghashes = check_all_ghash(1);
    int ok = variants > 0 && ghashes > 0;
    if (variants == 0)
        printf("FAIL no sparc64-t4 variants in the registry\n");
    if (ghashes == 0)
        printf("FAIL no __sparc64_vis3 GHASH variants in the registry\n");
    /* Every round form must have run; the others depend on what the generator emits. */
    printf("     %lu SIGILL traps in all\n", (unsigned long)hot.traps);
    printf("     emulated in the generated code:");
    for (unsigned k = 0; k < N_KINDS; k++)
        printf(" %s %lu%s", kind_name[k], (unsigned long)hot.emulated[k] - by_probe[k], k + 1 < N_KINDS ? "," : "\n");
    for (unsigned k = 0; k < N_KINDS; k++)
        if ((k < 8 || k == K_XMULX || k == K_XMULXHI) && (unsigned long)hot.emulated[k] == by_probe[k]) {
            printf("FAIL %s never ran in the generated code\n", kind_name[k]);
            ok = 0;
        }
    ok &= ts_total_failed == 0;
    printf("%s: %d sparc64-t4 variants and %d VIS3 GHASH variants, %lu cases compared, %lu differ\n",
           ok ? "PASS" : "FAIL", variants, ghashes, ts_total_cases, ts_total_failed);
    return ok ? EXIT_PASS : EXIT_FAIL;
}

