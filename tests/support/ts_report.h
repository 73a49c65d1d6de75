/*
 * ts_report.h -- how the hand-written tests count and print what they check.
 *
 * Three styles, each shared by the tests that used it (all print to stdout):
 *
 *   Counted checks (api; threads uses ts_fail only):
 *     TS_CHECK(cond, fmt, ...)  counts a check; when cond is false prints
 *                               "FAIL (line N): <message>" and counts a failure.
 *     ts_fail(fmt, ...)         prints "FAIL: <message>" and counts a failure.
 *     ts_checks, ts_failures    the counts.
 *
 *   Subjects and cases (crosscheck, sparc_t4_emulation): a subject (a variant, a
 *   backend) is a run of cases; a case fails when any of its comparisons does. The
 *   first TS_MAX_SHOWN mismatches of a subject are printed ("MISMATCH <subject>:
 *   <case>: ..."), the rest counted. ts_subject_end prints "ok   <subject>: N cases"
 *   or "FAIL ..." and adds the subject's counts to ts_total_cases/ts_total_failed.
 *
 *   Hex: ts_hex prints bytes as lowercase hex digits, ts_hex_line prints
 *   "  <label><hex>\n"; ts_from_hex parses them back.
 *
 * All state is zero-initialised (.bss) and for one thread.
 */
#ifndef AESGEN_TS_REPORT_H
#define AESGEN_TS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__) || defined(__clang__)
#define TS_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define TS_PRINTF(fmt_index, first_arg)
#endif

/* ---------------------------------------------------------------- counted checks */

extern unsigned long ts_checks, ts_failures;

/* One check at source line `line`; ok != 0 passes. Flushes stdout after a failure. */
void ts_check_at(int ok, int line, const char *fmt, ...) TS_PRINTF(3, 4);
#define TS_CHECK(cond, ...) ts_check_at((cond) ? 1 : 0, __LINE__, __VA_ARGS__)

/* A failure without a check: "FAIL: <message>\n", ts_failures + 1. */
void ts_fail(const char *fmt, ...) TS_PRINTF(1, 2);

/* ------------------------------------------------------------ subjects and cases */

#define TS_MAX_SHOWN 10 /* mismatches printed per subject; the rest are counted */

typedef struct ts_subject_state {
    char name[160];
    unsigned long cases, failed; /* of the current subject */
    unsigned shown;              /* mismatches so far, shown or not */
    int case_ok;                 /* the current case has no mismatch yet */
} ts_subject_state;

extern ts_subject_state ts_subject;
extern unsigned long ts_total_cases, ts_total_failed; /* over the finished subjects */

void ts_subject_begin(const char *fmt, ...) TS_PRINTF(1, 2);
/* Prints the subject's line (`what`, if not empty, after the case count); returns 1
 * when none of its cases failed. */
int ts_subject_end(const char *what);
void ts_case_begin(void);
void ts_case_end(void);
/* Marks the case failed; returns 1 when this mismatch is to be printed. */
int ts_mismatch_begin(void);
/* "MISMATCH <subject>: <cs>: <message>" (within the TS_MAX_SHOWN). */
void ts_mismatch(const char *cs, const char *fmt, ...) TS_PRINTF(2, 3);
/* Compares n bytes; on a difference prints the first differing block of each and
 * returns 0. */
int ts_same(const char *cs, const char *what, const uint8_t *expected, const uint8_t *got, size_t n);

/* ------------------------------------------------------------------------- hex */

void ts_hex(FILE *f, const uint8_t *p, size_t n);
void ts_hex_line(FILE *f, const char *label, const uint8_t *p, size_t n);
/* 2n hex digits (either case) into n bytes; returns 0 at the first non-hex digit. */
int ts_from_hex(uint8_t *out, const char *hex, size_t n);

#endif
