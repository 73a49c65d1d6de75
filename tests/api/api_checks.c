/*
 * api_checks.c -- aesgen_api_test: the checking helpers (see api_test.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test.h"

/* ------------------------------------------------------------------------ */
/* Checking: counted by ts_report.h (TS_CHECK, ts_check_at)                   */

const char *st(int rc)
{
    const char *s = aesgen_status_string(rc);
    return s ? s : "(null)";
}

/* `expr` returned `got`; it must be `want`. */
void expect_rc_impl(int got, int want, int line, const char *expr)
{
    ts_check_at(got == want, line, "%s returned %d (%s), expected %d (%s)", expr, got, st(got), want,
                st(want));
}

/* Either of two statuses is acceptable (the contract allows both). */
void expect_rc2_impl(int got, int want1, int want2, int line, const char *expr)
{
    ts_check_at(got == want1 || got == want2, line, "%s returned %d (%s), expected %d (%s) or %d (%s)",
                expr, got, st(got), want1, st(want1), want2, st(want2));
}

int streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }
const char *nn(const char *s) { return s ? s : "(null)"; }

/* Watched memory: a copy is taken by watch(); watch_check() verifies that
 * every watched byte is unchanged ("on error nothing is written"). */
#define MAX_WATCH 6
static struct {
    const char *name;
    const uint8_t *p;
    size_t n;
    uint8_t *copy;
} watches[MAX_WATCH];
static int nwatch;

void watch(const char *name, const void *p, size_t n)
{
    if (nwatch == MAX_WATCH) {
        printf("internal error: too many watches\n");
        exit(2);
    }
    watches[nwatch].name = name;
    watches[nwatch].p = p;
    watches[nwatch].n = n;
    watches[nwatch].copy = malloc(n ? n : 1);
    if (!watches[nwatch].copy) {
        printf("out of memory\n");
        exit(2);
    }
    memcpy(watches[nwatch].copy, p, n);
    nwatch++;
}

void watch_check_impl(int line, const char *what)
{
    for (int w = 0; w < nwatch; w++) {
        const volatile uint8_t *p = watches[w].p;
        size_t bad = SIZE_MAX;
        for (size_t i = 0; i < watches[w].n; i++)
            if (p[i] != watches[w].copy[i]) {
                bad = i;
                break;
            }
        ts_check_at(bad == SIZE_MAX, line, "%s: %s byte %zu was written on error", what,
                    watches[w].name, bad);
        free(watches[w].copy);
    }
    nwatch = 0;
}

void fill(void *p, size_t n, uint8_t seed)
{
    uint8_t *q = p;
    for (size_t i = 0; i < n; i++)
        q[i] = (uint8_t)(seed ^ (i * 37u) ^ 0x5a);
}

int all_zero_volatile(const void *p, size_t n, size_t *first)
{
    const volatile uint8_t *q = p;
    for (size_t i = 0; i < n; i++)
        if (q[i] != 0) {
            *first = i;
            return 0;
        }
    return 1;
}

void hex(const char *s, uint8_t *out, size_t n)
{
    ts_from_hex(out, s, n);
}

/* ------------------------------------------------------------------------ */
/* The five data operations                                                   */

const char *const op_name[TS_MODE_COUNT] = {
    "aesgen_ecb_encrypt", "aesgen_ecb_decrypt", "aesgen_cbc_encrypt", "aesgen_cbc_decrypt",
    "aesgen_ctr_crypt"
};

/* An initialised stream in the middle of a block, so that every field of it
 * holds something worth watching. */
void make_midblock_stream(const aesgen_ctx *ctx, aesgen_ctr *ctr)
{
    uint8_t counter[16], junk[5] = { 0 };
    fill(counter, 16, 0x33);
    EXPECT_RC(aesgen_ctr_init(ctr, counter), AESGEN_OK);
    EXPECT_RC(aesgen_ctr_crypt(ctx, ctr, junk, junk, 5), AESGEN_OK);
}

/* Runs one op that must fail with `want` and write nothing. `in` and `out`
 * may point into `region`, which is watched whole, together with the IV and
 * the CTR stream. */
void expect_failure_impl(int line, int op, const aesgen_ctx *ctx, uint8_t *iv, aesgen_ctr *ctr,
                         uint8_t *out, const uint8_t *in, size_t len, int want, int want2,
                         const void *region, size_t region_len, const char *what)
{
    char msg[300];
    if (iv)
        watch("iv", iv, 16);
    if (ctr)
        watch("CTR stream", ctr, sizeof *ctr);
    if (ctx)
        watch("context", ctx, sizeof *ctx);
    if (region)
        watch("buffer", region, region_len);
    int rc = ts_crypt(op, ctx, iv, ctr, out, in, len);
    snprintf(msg, sizeof msg, "%s, %s", op_name[op], what);
    ts_check_at(rc == want || rc == want2, line, "%s: returned %d (%s), expected %d (%s)", msg, rc,
                st(rc), want, st(want));
    watch_check_impl(line, msg);
}
