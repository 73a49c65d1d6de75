/*
 * constant_time_test.c -- constant-time test of the software aesgen variants ("ctgrind"):
 * the bitsliced/fixsliced ones, portable C and SIMD (word_bits != 0), that
 * this CPU runs (valgrind hides AVX-512, so those variants are not run here).
 *
 * Run under valgrind memcheck. Every secret (key, plaintext, ciphertext, IV,
 * counter) is marked undefined with VALGRIND_MAKE_MEM_UNDEFINED before it
 * enters the library. Memcheck propagates undefinedness through ordinary data
 * flow (XOR, AND, shifts, loads from fixed addresses) without a word, but
 * reports every conditional branch and every memory address computed from an
 * undefined value:
 *   "Conditional jump or move depends on uninitialised value(s)"
 *   "Use of uninitialised value of size N"
 * So a clean run means no key- or data-dependent branch or table index was
 * executed on the paths exercised here. Limits: memcheck does not flag cmov,
 * nor instructions whose timing depends on operands (division); and it drops
 * a load whose result is never used, so a secret-indexed load that is thrown
 * away goes unreported. It reports a secret-indexed load once and then treats
 * the loaded value as public.
 *
 * Outputs are marked defined again (VALGRIND_MAKE_MEM_DEFINED) before this
 * program inspects them, so that its own checks do not trip memcheck. The
 * status codes returned by the library are never marked defined: a status
 * computed from secrets would be reported where this program tests it.
 *
 * Modes
 *   (default)       every software variant of the registry through
 *                   aesgen_init_variants, then every software backend through
 *                   aesgen_force_backend + aesgen_init. Must run clean.
 *   --leaky         a deliberately leaky AES step (secret-indexed S-box load
 *                   and a secret-dependent branch). Must make memcheck report.
 *   --allow-native  run even when not under valgrind (debugging only: then
 *                   nothing about timing is checked).
 *   --only TEXT     only variants/backends whose name contains TEXT.
 *
 * Files: this one (the harness: helpers, memcheck probe, registry helpers,
 * main), constant_time_cases.c (the suite against the library), constant_time_leaky.c (--leaky);
 * constant_time_test.h.
 *
 * Exit codes (valgrind --error-exitcode=99 replaces them when memcheck
 * reported anything; this program never exits with 77 or 99 itself):
 *   0 done, 1 wrong output or library error, 2 usage,
 *   3 not running under valgrind memcheck: nothing was checked.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "constant_time_test.h"
#include "ts_report.h"

const char *g_prog = "aesgen_ct_test";
const char *g_only; /* --only filter, or NULL */
int g_verbose;
unsigned long g_library_calls;
unsigned long g_target_failures; /* failures of the current target */

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

unsigned long memcheck_errors(void)
{
    return (unsigned long)VALGRIND_COUNT_ERRORS;
}

void fail(const char *label, const char *fmt, const char *detail, size_t nblocks)
{
    ++ts_failures;
    if (++g_target_failures > 8) {
        if (g_target_failures == 9) {
            printf("  FAIL %s: further failures of this target not shown\n", label);
        }
        return;
    }
    printf("  FAIL %s: %s", label, fmt);
    if (detail != NULL) {
        printf(" (%s)", detail);
    }
    printf(" [%zu block(s)]\n", nblocks);
}

/* Deterministic test data; values do not matter to memcheck, only to the
 * functional sanity checks. */
static uint64_t g_rng = 0x243f6a8885a308d3u;

void fill_random(uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        g_rng ^= g_rng >> 12;
        g_rng ^= g_rng << 25;
        g_rng ^= g_rng >> 27;
        p[i] = (uint8_t)((g_rng * 0x2545f4914f6cdd1du) >> 56);
    }
}

/* A copy of public data marked secret: the form in which inputs reach the
 * library. */
void secret_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n != 0) {
        memmove(dst, src, n);
        SECRET(dst, n);
    }
}

void xor_bytes(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        dst[i] = (uint8_t)(a[i] ^ b[i]);
    }
}

/* Compare an output of the library (made public here) with expected data. */
int check_equal(const char *label, const char *what, size_t nblocks,
                const uint8_t *got, const uint8_t *want, size_t n)
{
    PUBLIC(got, n);
    if (n != 0 && memcmp(got, want, n) != 0) {
        fail(label, what, "output mismatch", nblocks);
        return 0;
    }
    return 1;
}

/* A library status must be AESGEN_OK. Not marked defined on purpose. */
int check_ok(const char *label, const char *what, size_t nblocks, int rc)
{
    ++g_library_calls;
    if (rc != AESGEN_OK) {
        fail(label, what, aesgen_status_string(rc), nblocks);
        return 0;
    }
    return 1;
}

int name_matches(const char *name)
{
    return g_only == NULL || (name != NULL && strstr(name, g_only) != NULL);
}

/* ------------------------------------------------------------------------ */
/* Is memcheck really watching?                                             */
/* ------------------------------------------------------------------------ */

/* 1 if running under memcheck and it tracks definedness (GET_VBITS is a
 * memcheck request: another tool, or a native run, answers 0). */
static int memcheck_tracks_definedness(void)
{
    uint8_t probe[8];
    uint8_t vbits[8];
    unsigned rc;
    size_t i;
    int ok = 1;

    if (!RUNNING_ON_VALGRIND) {
        return 0;
    }
    memset(probe, 0x5a, sizeof probe);
    memset(vbits, 0, sizeof vbits);
    SECRET(probe, sizeof probe);
    rc = VALGRIND_GET_VBITS(probe, vbits, sizeof probe);
    PUBLIC(probe, sizeof probe);
    if (rc != 1) {
        return 0;
    }
    for (i = 0; i < sizeof vbits; ++i) {
        ok &= vbits[i] == 0xff; /* 1 bits = undefined */
    }
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Registry helpers                                                         */
/* ------------------------------------------------------------------------ */

int is_software(const aesgen_variant *v)
{
    return v != NULL && v->word_bits != 0 && aesgen_variant_usable(v);
}

size_t key_len_of(unsigned key_bits)
{
    return (size_t)key_bits / 8u;
}

/* The software variant for the other direction: same backend first, then any
 * software one of that key size. NULL: let dispatch pick. */
const aesgen_variant *software_partner(const aesgen_variant *v)
{
    const aesgen_variant *fallback = NULL;
    size_t i;
    for (i = 0; i < aesgen_registry_size; ++i) {
        const aesgen_variant *w = aesgen_registry[i];
        if (!is_software(w) || w->key_bits != v->key_bits ||
            w->direction == v->direction || !aesgen_variant_usable(w)) {
            continue;
        }
        if (w->backend != NULL && v->backend != NULL && strcmp(w->backend, v->backend) == 0) {
            return w;
        }
        if (fallback == NULL) {
            fallback = w;
        }
    }
    return fallback;
}

/* A backend is software when it has at least one variant and all of its
 * variants are software (and usable here). */
int backend_is_software(const char *name)
{
    size_t i, n = 0;
    for (i = 0; i < aesgen_registry_size; ++i) {
        const aesgen_variant *w = aesgen_registry[i];
        if (w == NULL || w->backend == NULL || strcmp(w->backend, name) != 0) {
            continue;
        }
        if (!is_software(w)) {
            return 0;
        }
        ++n;
    }
    return n != 0;
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: valgrind --error-exitcode=99 %s [--leaky] [--only TEXT] [--verbose]\n"
            "       %s --allow-native ...   (debugging: run without valgrind, checks nothing)\n"
            "Marks keys and data undefined and reports, through valgrind memcheck, any\n"
            "branch or memory address that depends on them. Exit 0 done, 1 failure,\n"
            "2 usage, 3 not under valgrind memcheck (nothing checked).\n",
            g_prog, g_prog);
}

int main(int argc, char **argv)
{
    int leaky = 0, allow_native = 0, under_memcheck, i;

    setvbuf(stdout, NULL, _IOLBF, 0); /* interleave with valgrind's stderr */
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--leaky") == 0) {
            leaky = 1;
        } else if (strcmp(argv[i], "--allow-native") == 0) {
            allow_native = 1;
        } else if (strcmp(argv[i], "--verbose") == 0) {
            g_verbose = 1;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            g_only = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return CT_EXIT_DONE;
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", g_prog, argv[i]);
            usage(stderr);
            return CT_EXIT_USAGE;
        }
    }

    under_memcheck = memcheck_tracks_definedness();
    if (!under_memcheck) {
        if (RUNNING_ON_VALGRIND) {
            printf("%s: running under valgrind, but not with memcheck (use --tool=memcheck)\n",
                   g_prog);
        } else {
            printf("%s: NOT running under valgrind: constant-time behaviour is NOT checked.\n"
                   "  Run it as: valgrind --error-exitcode=99 %s%s\n",
                   g_prog, argc > 0 ? argv[0] : g_prog, leaky ? " --leaky" : "");
        }
        if (!allow_native) {
            printf("%s: nothing was tested (exit %d). --allow-native runs the functional "
                   "part anyway.\n", g_prog, CT_EXIT_NOT_CHECKED);
            return CT_EXIT_NOT_CHECKED;
        }
        printf("%s: --allow-native: running without memcheck; only functional checks count\n",
               g_prog);
    } else {
        printf("%s: under valgrind memcheck (headers %d.%d); secrets are marked undefined\n",
               g_prog, __VALGRIND_MAJOR__, __VALGRIND_MINOR__);
    }

    if (leaky) {
        return run_leaky(under_memcheck);
    }
    return run_library_tests(under_memcheck);
}
