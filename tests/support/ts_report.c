/* ts_report.c -- counted checks, subjects and cases, hex (see ts_report.h). */
#include "ts_report.h"

#include <stdarg.h>
#include <string.h>

unsigned long ts_checks, ts_failures;
ts_subject_state ts_subject;
unsigned long ts_total_cases, ts_total_failed;

/* ---------------------------------------------------------------- counted checks */

void ts_check_at(int ok, int line, const char *fmt, ...)
{
    ts_checks++;
    if (ok)
        return;
    ts_failures++;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL (line %d): ", line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

void ts_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    ts_failures++;
}

/* ------------------------------------------------------------ subjects and cases */

void ts_subject_begin(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ts_subject.name, sizeof ts_subject.name, fmt, ap);
    va_end(ap);
    ts_subject.cases = ts_subject.failed = 0;
    ts_subject.shown = 0;
}

int ts_subject_end(const char *what)
{
    printf("%s %s: %lu cases%s%s\n", ts_subject.failed ? "FAIL" : "ok  ", ts_subject.name,
           ts_subject.cases, what[0] ? ", " : "", what);
    if (ts_subject.failed)
        printf("     %lu of %lu cases differ\n", ts_subject.failed, ts_subject.cases);
    ts_total_cases += ts_subject.cases;
    ts_total_failed += ts_subject.failed;
    return ts_subject.failed == 0;
}

void ts_case_begin(void)
{
    ts_subject.cases++;
    ts_subject.case_ok = 1;
}

void ts_case_end(void)
{
    if (!ts_subject.case_ok)
        ts_subject.failed++;
}

int ts_mismatch_begin(void)
{
    ts_subject.case_ok = 0;
    if (ts_subject.shown >= TS_MAX_SHOWN) {
        if (ts_subject.shown == TS_MAX_SHOWN)
            printf("  (%s: further mismatches are counted, not shown)\n", ts_subject.name);
        ts_subject.shown++;
        return 0;
    }
    ts_subject.shown++;
    return 1;
}

void ts_mismatch(const char *cs, const char *fmt, ...)
{
    va_list ap;
    if (!ts_mismatch_begin())
        return;
    printf("MISMATCH %s: %s: ", ts_subject.name, cs);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

int ts_same(const char *cs, const char *what, const uint8_t *expected, const uint8_t *got, size_t n)
{
    if (n == 0 || memcmp(expected, got, n) == 0)
        return 1;
    if (!ts_mismatch_begin())
        return 0;
    size_t i = 0;
    while (expected[i] == got[i])
        i++;
    const size_t from = i - i % 16, len = n - from < 16 ? n - from : 16;
    printf("MISMATCH %s: %s: %s differs from byte %lu (block %lu)\n", ts_subject.name, cs, what,
           (unsigned long)i, (unsigned long)(i / 16));
    printf("    expected ");
    ts_hex(stdout, expected + from, len);
    printf("\n    got      ");
    ts_hex(stdout, got + from, len);
    printf("\n");
    return 0;
}

/* ------------------------------------------------------------------------- hex */

void ts_hex(FILE *f, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x", p[i]);
}

void ts_hex_line(FILE *f, const char *label, const uint8_t *p, size_t n)
{
    fprintf(f, "  %s", label);
    ts_hex(f, p, n);
    fputc('\n', f);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int ts_from_hex(uint8_t *out, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const int hi = hex_digit(hex[2 * i]);
        const int lo = hi < 0 ? -1 : hex_digit(hex[2 * i + 1]);
        if (lo < 0)
            return 0;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 1;
}
