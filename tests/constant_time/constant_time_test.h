/*
 * constant_time_test.h -- what the files of aesgen_ct_test share (the test is described in
 * constant_time_test.c):
 *   constant_time_test.c   the harness: failure reporting, test data, secret/public marking
 *               helpers, the memcheck probe, registry helpers, main
 *   constant_time_cases.c  the suite against every software variant and backend
 *   constant_time_gcm.c    GCM over every GHASH variant this CPU runs
 *   constant_time_xts.c    XTS over each software backend
 *   constant_time_leaky.c  --leaky: the deliberately leaky step memcheck must report
 * Functional failures are counted in ts_failures (ts_report.h).
 */
#ifndef AESGEN_CT_TEST_H
#define AESGEN_CT_TEST_H

#include <stddef.h>
#include <stdint.h>

#include <valgrind/memcheck.h>

#include "aesgen_internal.h"

enum {
    CT_EXIT_DONE = 0,
    CT_EXIT_FAIL = 1,
    CT_EXIT_USAGE = 2,
    CT_EXIT_NOT_CHECKED = 3
};

#if defined(__GNUC__) || defined(__clang__)
#define CT_NOINLINE __attribute__((noinline))
#else
#define CT_NOINLINE
#endif

/* Mark memory as secret (undefined) or public (defined). No-ops natively. */
#define SECRET(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (n)))
#define PUBLIC(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))

#define BLK AESGEN_BLOCK_SIZE

extern const char *g_prog;
extern const char *g_only; /* --only filter, or NULL */
extern int g_verbose;
extern unsigned long g_library_calls;
extern unsigned long g_target_failures; /* failures of the current target */

/* constant_time_test.c: helpers */
unsigned long memcheck_errors(void);
/* A functional failure of the current target (the first 8 are printed). */
void fail(const char *label, const char *fmt, const char *detail, size_t nblocks);
/* Deterministic public test data (xorshift64*). */
void fill_random(uint8_t *p, size_t n);
/* A copy of public data marked secret. */
void secret_copy(uint8_t *dst, const uint8_t *src, size_t n);
void xor_bytes(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t n);
/* An output of the library (made public here) against expected data; 1 when equal. */
int check_equal(const char *label, const char *what, size_t nblocks, const uint8_t *got,
                const uint8_t *want, size_t n);
/* A library status must be AESGEN_OK (not marked defined); 1 when it is. */
int check_ok(const char *label, const char *what, size_t nblocks, int rc);
int name_matches(const char *name); /* the --only filter */

/* constant_time_test.c: the registry */
int is_software(const aesgen_variant *v);
size_t key_len_of(unsigned key_bits);
const aesgen_variant *software_partner(const aesgen_variant *v);
int backend_is_software(const char *name);

/* The two modes; each returns the exit status. */
int run_library_tests(int under_memcheck); /* constant_time_cases.c */
int run_leaky(int under_memcheck);         /* constant_time_leaky.c */
/* constant_time_gcm.c: the GCM targets; returns how many made memcheck complain. */
unsigned long run_gcm_tests(size_t *ntargets, size_t *nghash);
/* constant_time_xts.c: the XTS targets; returns how many made memcheck complain. */
unsigned long run_xts_tests(size_t *ntargets);

#endif
