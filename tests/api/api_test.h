/*
 * api_test.h -- what the files of aesgen_api_test share (the test is described in
 * api_test.c):
 *   api_test.c  the modes of the command line, main
 *   api_checks.c       checking helpers: statuses, watched memory, failing calls
 *   api_errors.c       version and status strings, aesgen_init, NULL pointers, lengths,
 *                      overlap, uninitialised and wiped contexts and streams, wiping
 *   api_ctr.c          known answers (FIPS-197, SP 800-38A) and CTR behaviour
 *   api_backends.c     backends, the internal registry, the environment variables
 *   api_cpu_table.c    the per-CPU dispatch table and AESGEN_CPU_ID
 * Checks are counted and reported by ts_report.h: "FAIL (line N): ...", N a line
 * of the file holding the check.
 */
#ifndef AESGEN_API_TEST_H
#define AESGEN_API_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "ts_modes.h"
#include "ts_report.h"

/* ------------------------------------------------------------------------ */
/* Checking (api_checks.c)                                                   */

#define CHECK(cond, ...) TS_CHECK(cond, __VA_ARGS__)

const char *st(int rc); /* aesgen_status_string, never NULL */
int streq(const char *a, const char *b); /* both non-NULL and equal */
const char *nn(const char *s);           /* s, or "(null)" */

/* `expr` returned `got`; it must be `want` (or, rc2, either of two statuses). */
void expect_rc_impl(int got, int want, int line, const char *expr);
void expect_rc2_impl(int got, int want1, int want2, int line, const char *expr);
#define EXPECT_RC(expr, want) expect_rc_impl((expr), (want), __LINE__, #expr)
#define EXPECT_RC2(expr, w1, w2) expect_rc2_impl((expr), (w1), (w2), __LINE__, #expr)

/* Watched memory: a copy is taken by watch(); WATCH_CHECK verifies that every
 * watched byte is unchanged ("on error nothing is written") and ends the watches. */
void watch(const char *name, const void *p, size_t n);
void watch_check_impl(int line, const char *what);
#define WATCH_CHECK(what) watch_check_impl(__LINE__, (what))

void fill(void *p, size_t n, uint8_t seed);
int all_zero_volatile(const void *p, size_t n, size_t *first);
void hex(const char *s, uint8_t *out, size_t n); /* 2n hex digits into n bytes */

/* The five data operations are TS_MODE_* (ts_modes.h), called with ts_crypt;
 * op_name[] names their functions. */
extern const char *const op_name[TS_MODE_COUNT];

/* An initialised stream in the middle of a block. */
void make_midblock_stream(const aesgen_ctx *ctx, aesgen_ctr *ctr);

/* Runs one op that must fail with `want` (or want2) and write nothing: the IV, the
 * CTR stream, the context and `region` are watched. */
void expect_failure_impl(int line, int op, const aesgen_ctx *ctx, uint8_t *iv, aesgen_ctr *ctr,
                         uint8_t *out, const uint8_t *in, size_t len, int want, int want2,
                         const void *region, size_t region_len, const char *what);
#define EXPECT_FAILURE(op, ctx, iv, ctr, out, in, len, want, region, rlen, what)                  \
    expect_failure_impl(__LINE__, (op), (ctx), (iv), (ctr), (out), (in), (len), (want), (want),   \
                        (region), (rlen), (what))
#define EXPECT_FAILURE2(op, ctx, iv, ctr, out, in, len, w1, w2, region, rlen, what)                \
    expect_failure_impl(__LINE__, (op), (ctx), (iv), (ctr), (out), (in), (len), (w1), (w2),       \
                        (region), (rlen), (what))

/* The key of most checks: FIPS-197's 00 01 .. 1f (ts_modes.h). */
#define key32 ts_fips197_key

/* ------------------------------------------------------------------------ */
/* The tests                                                                 */

/* api_errors.c */
void test_version(void);
void test_status_strings(void);
void test_init(void);
void test_null_pointers(void);
void test_lengths(void);
void test_overlap(void);
void test_uninitialised(void);
void test_wipe(void);
void test_differs_public(void);

/* api_ctr.c; label / backend: printed with the failures */
void test_known_answers(const char *label);
void test_ctr(const char *backend);

/* api_backends.c */
void record_automatic(void); /* before any aesgen_force_backend */
void test_backends(void);
void test_internal(void);
int env_expect_error(void);
void expect_dispatch(const char *name);
int env_expect_backend(const char *name);
int env_expect_software(const char *ladder);

/* api_cpu_table.c */
void test_cpu_table(void);
void expect_cpu_row(void);

#endif
