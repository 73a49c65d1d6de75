/*
 * aesgen_bench.c -- aesgen-bench: throughput of every aesgen backend next
 * to OpenSSL (default and AES-NI masked), BearSSL ct64, RustCrypto aes 0.6
 * (soft backend) and libgcrypt, in one run.
 *
 * Method (also printed with the results):
 *  - correctness first: every (implementation, key size, operation) is
 *    compared with OpenSSL over an 8 KiB message and every timed size; a
 *    row that disagrees is not timed and the exit status is 1;
 *  - the process is pinned to one CPU (the OpenSSL-masked child inherits it);
 *  - a warm-up, then per (key, operation, size) group each row is calibrated
 *    to samples of at least --min-time-ms, and --repeats rounds of samples
 *    are taken with the rows interleaved (rotated each round), so noise hits
 *    every row alike;
 *  - reported: the median (min/max/quartiles in JSON) of ns per operation,
 *    MB/s (10^6 bytes per second), the counter per byte, and the speed ratio
 *    to OpenSSL measured in the same run.
 */
#define _GNU_SOURCE
#include "aesgen.h"
#include "aesgen_internal.h" /* --variant: aesgen_init_variants */
#include "bench.h"
#include "bench_peer.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef AESGEN_BENCH_BUILD_TYPE
#define AESGEN_BENCH_BUILD_TYPE ""
#endif

#define MAX_IMPLS 64
#define MAX_SIZES 32
#define CHECK_BYTES 8192

enum { FMT_TABLE = 0, FMT_JSON, FMT_TCRYPT };
enum { ROW_OK = 0, ROW_NA, ROW_MISMATCH, ROW_ERROR, ROW_SKIPPED };
static const char *const row_status_name[] = {"ok", "n/a", "mismatch", "error", "skipped"};

/* ---- options ---------------------------------------------------------- */

typedef struct opts {
    int quick;
    int format;
    char *backends[MAX_IMPLS];
    int nbackends;
    char *variants[MAX_IMPLS];
    int nvariants;
    int key_sel[NKEYS];
    int op_sel[OP_COUNT];
    int ops_given;
    size_t sizes[MAX_SIZES];
    int nsizes;
    double min_time_ms;
    int repeats;
    int cpu;
    int no_pin;
    int peer_noaesni;
    int peer_bearssl;
    int peer_rustcrypto;
    int peer_gcrypt;
    int counter; /* -1 auto */
    const char *peer_only;
} opts;

static void usage(FILE *f)
{
    fprintf(f,
"usage: aesgen-bench [options]\n"
"\n"
"Throughput of every aesgen backend that runs on this CPU next to OpenSSL EVP\n"
"(default, i.e. AES-NI here), OpenSSL with AES-NI masked (a child process run\n"
"with OPENSSL_ia32cap=%s), BearSSL ct64, RustCrypto aes 0.6 (soft backend)\n"
"and libgcrypt when built with them.\n"
"Operations run in place on a keyed context; ns per operation, MB/s (10^6 B/s),\n"
"counter per byte and the speed ratio to OpenSSL are medians over interleaved\n"
"samples. Every row is checked against OpenSSL before it is timed.\n"
"\n"
"  --quick             which backend/variant dispatch picks per key size, then a\n"
"                      compact 8 KiB table (ecb-enc, ecb-dec, ctr, cbc-dec)\n"
"  --json              one JSON document on stdout (same as --format json)\n"
"  --format FMT        table (default), json, or tcrypt (Linux tcrypt-style lines)\n"
"  --backend NAME      aesgen backend to measure; repeatable or comma list\n"
"  --variant NAME      also measure one generated variant alone (its key size and\n"
"                      direction only); repeatable or comma list\n"
"                      (default: every backend this CPU supports)\n"
"  --key-bits LIST     e.g. 128,256 (default 128,192,256)\n"
"  --op LIST           ecb-enc,ecb-dec,ctr,cbc-dec,cbc-enc or all\n"
"                      (default all; --quick: the first four)\n"
"  --sizes LIST        message bytes, multiples of 16, K/M suffixes allowed\n"
"                      (default 16,64,256,1024,8192,1M; --quick: 8192)\n"
"  --peers LIST        extra peers: openssl-noaesni, bearssl-ct64,\n"
"                      rustcrypto-aes0.6, gcrypt, all, none\n"
"                      (default all available; plain OpenSSL always runs: it is\n"
"                      the correctness reference and the ratio baseline)\n"
"  --min-time-ms N     minimum duration of one sample (default 2)\n"
"  --repeats N         samples per row; the median is reported (default 11,\n"
"                      --quick: 7)\n"
"  --counter KIND      auto (default: perf core cycles, else TSC ticks), perf,\n"
"                      tsc, or none (nanoseconds only)\n"
"  --cpu N             pin to CPU N (default: the CPU the program starts on)\n"
"  --no-pin            do not pin\n"
"  --help              this text\n"
"\n"
"Exit status: 0 success, 1 a row disagreed with OpenSSL or a call failed,\n"
"2 bad arguments.\n",
            peer_mask_value());
}

static void arg_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "aesgen-bench: error: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try --help)\n");
    exit(2);
}

/* Split a comma list (a copy of it: argv stays intact); calls fn for each
 * non-empty item. */
static void for_each_item(const char *arg, const char *opt, void (*fn)(const char *, void *),
                          void *ctx)
{
    int any = 0;
    char *list = strdup(arg);
    if (!list)
        arg_error("out of memory");
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        if (*t) {
            fn(t, ctx);
            any = 1;
        }
    }
    free(list);
    if (!any)
        arg_error("%s needs a non-empty list", opt);
}

static void add_key(const char *s, void *ctx)
{
    opts *o = ctx;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    int k = (*end == '\0') ? bench_key_index((unsigned)v) : -1;
    if (k < 0)
        arg_error("--key-bits: '%s' is not 128, 192 or 256", s);
    o->key_sel[k] = 1;
}

static void add_op(const char *s, void *ctx)
{
    opts *o = ctx;
    if (strcmp(s, "all") == 0) {
        for (int i = 0; i < OP_COUNT; i++)
            o->op_sel[i] = 1;
        return;
    }
    int op = bench_op_from_name(s);
    if (op < 0)
        arg_error("--op: unknown operation '%s' (ecb-enc, ecb-dec, ctr, cbc-dec, cbc-enc, all)", s);
    o->op_sel[op] = 1;
}

static void add_size(const char *s, void *ctx)
{
    opts *o = ctx;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        arg_error("--sizes: '%s' is not a byte count", s);
    if (*end == '\0' || strcmp(end, "B") == 0)
        ;
    else if (strcmp(end, "K") == 0 || strcmp(end, "k") == 0 || strcmp(end, "KiB") == 0)
        v <<= 10;
    else if (strcmp(end, "M") == 0 || strcmp(end, "MiB") == 0)
        v <<= 20;
    else
        arg_error("--sizes: '%s': unknown suffix (use K or M, binary)", s);
    if (v == 0 || v % 16 != 0 || v > (64ull << 20))
        arg_error("--sizes: %s is not a multiple of 16 between 16 and 64M", s);
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] == v)
            return;
    if (o->nsizes == MAX_SIZES)
        arg_error("--sizes: at most %d sizes", MAX_SIZES);
    o->sizes[o->nsizes++] = (size_t)v;
}

static void add_backend(const char *s, void *ctx)
{
    opts *o = ctx;
    for (int i = 0; i < o->nbackends; i++)
        if (strcmp(o->backends[i], s) == 0)
            return;
    if (o->nbackends == MAX_IMPLS)
        arg_error("--backend: too many backends");
    o->backends[o->nbackends++] = strdup(s);
}

static void add_variant(const char *s, void *ctx)
{
    opts *o = ctx;
    if (aesgen_find_variant(s) == NULL)
        arg_error("--variant: no variant named '%s' (PYTHONPATH=generator python3 -m aesgen list)", s);
    if (!aesgen_variant_usable(aesgen_find_variant(s)))
        arg_error("--variant: variant '%s' cannot run on this CPU", s);
    if (o->nvariants == MAX_IMPLS / 2)
        arg_error("--variant: too many variants");
    o->variants[o->nvariants++] = strdup(s);
}

static void add_peer(const char *s, void *ctx)
{
    opts *o = ctx;
    if (strcmp(s, "none") == 0)
        o->peer_noaesni = o->peer_bearssl = o->peer_rustcrypto = o->peer_gcrypt = 0;
    else if (strcmp(s, "all") == 0) {
        o->peer_noaesni = o->peer_bearssl = 1;
        o->peer_rustcrypto = impl_rustcrypto_available();
        o->peer_gcrypt = impl_gcrypt_available();
    } else if (strcmp(s, "openssl-noaesni") == 0)
        o->peer_noaesni = 1;
    else if (strcmp(s, "bearssl-ct64") == 0) {
        if (!impl_bearssl_available())
            arg_error("--peers: bearssl-ct64 was not built in (BearSSL not found at configure time)");
        o->peer_bearssl = 1;
    } else if (strcmp(s, "rustcrypto-aes0.6") == 0) {
        if (!impl_rustcrypto_available())
            arg_error("--peers: rustcrypto-aes0.6 was not built in (cargo or Debian's "
                      "librust-aes-dev not found at configure time)");
        o->peer_rustcrypto = 1;
    } else if (strcmp(s, "gcrypt") == 0) {
        if (!impl_gcrypt_available())
            arg_error("--peers: gcrypt was not built in (libgcrypt not found at configure time, "
                      "or AESGEN_BENCH_GCRYPT=OFF)");
        o->peer_gcrypt = 1;
    } else if (strcmp(s, "openssl") == 0)
        ; /* always there */
    else
        arg_error("--peers: unknown peer '%s' (openssl-noaesni, bearssl-ct64, "
                  "rustcrypto-aes0.6, gcrypt, all, none)",
                  s);
}

static double parse_number(const char *opt, const char *s, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v >= lo && v <= hi))
        arg_error("%s: '%s' is not a number from %g to %g", opt, s, lo, hi);
    return v;
}

static void parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->min_time_ms = 2.0;
    o->repeats = -1;
    o->cpu = -1;
    o->counter = -1;
    o->peer_noaesni = 1;
    o->peer_bearssl = impl_bearssl_available();
    o->peer_rustcrypto = impl_rustcrypto_available();
    o->peer_gcrypt = impl_gcrypt_available();
    int keys_given = 0, peers_given = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        char *val = NULL;
        char name[64];
        if (strncmp(a, "--", 2) != 0)
            arg_error("unexpected argument '%s'", a);
        char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (nl >= sizeof name)
            arg_error("unknown option '%s'", a);
        memcpy(name, a, nl);
        name[nl] = '\0';
#define NEED_VALUE()                                                                            \
    do {                                                                                        \
        if (eq)                                                                                 \
            val = eq + 1;                                                                       \
        else if (i + 1 < argc)                                                                  \
            val = argv[++i];                                                                    \
        else                                                                                    \
            arg_error("%s needs a value", name);                                               \
    } while (0)
#define NO_VALUE()                                                                              \
    do {                                                                                        \
        if (eq)                                                                                 \
            arg_error("%s takes no value", name);                                              \
    } while (0)
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(name, "--quick") == 0) {
            NO_VALUE();
            o->quick = 1;
        } else if (strcmp(name, "--json") == 0) {
            NO_VALUE();
            o->format = FMT_JSON;
        } else if (strcmp(name, "--format") == 0) {
            NEED_VALUE();
            if (strcmp(val, "table") == 0)
                o->format = FMT_TABLE;
            else if (strcmp(val, "json") == 0)
                o->format = FMT_JSON;
            else if (strcmp(val, "tcrypt") == 0)
                o->format = FMT_TCRYPT;
            else
                arg_error("--format: '%s' is not table, json or tcrypt", val);
        } else if (strcmp(name, "--backend") == 0) {
            NEED_VALUE();
            for_each_item(val, name, add_backend, o);
        } else if (strcmp(name, "--variant") == 0) {
            NEED_VALUE();
            for_each_item(val, name, add_variant, o);
        } else if (strcmp(name, "--key-bits") == 0) {
            NEED_VALUE();
            keys_given = 1;
            for_each_item(val, name, add_key, o);
        } else if (strcmp(name, "--op") == 0) {
            NEED_VALUE();
            o->ops_given = 1;
            for_each_item(val, name, add_op, o);
        } else if (strcmp(name, "--sizes") == 0) {
            NEED_VALUE();
            for_each_item(val, name, add_size, o);
        } else if (strcmp(name, "--peers") == 0) {
            NEED_VALUE();
            if (!peers_given)
                o->peer_noaesni = o->peer_bearssl = o->peer_rustcrypto = o->peer_gcrypt = 0;
            peers_given = 1;
            for_each_item(val, name, add_peer, o);
        } else if (strcmp(name, "--min-time-ms") == 0) {
            NEED_VALUE();
            o->min_time_ms = parse_number(name, val, 0.001, 60000);
        } else if (strcmp(name, "--repeats") == 0) {
            NEED_VALUE();
            o->repeats = (int)parse_number(name, val, 1, 1000);
            if ((double)o->repeats != strtod(val, NULL))
                arg_error("--repeats: '%s' is not a whole number", val);
        } else if (strcmp(name, "--counter") == 0) {
            NEED_VALUE();
            if (strcmp(val, "auto") == 0)
                o->counter = -1;
            else if (strcmp(val, "perf") == 0)
                o->counter = CNT_PERF;
            else if (strcmp(val, "tsc") == 0)
                o->counter = CNT_TSC;
            else if (strcmp(val, "none") == 0)
                o->counter = CNT_NONE;
            else
                arg_error("--counter: '%s' is not auto, perf, tsc or none", val);
        } else if (strcmp(name, "--cpu") == 0) {
            NEED_VALUE();
            o->cpu = (int)parse_number(name, val, 0, 4095);
        } else if (strcmp(name, "--no-pin") == 0) {
            NO_VALUE();
            o->no_pin = 1;
        } else if (strcmp(name, "--peer-only") == 0) { /* hidden: the masked child */
            NEED_VALUE();
            if (strcmp(val, "openssl") != 0)
                arg_error("--peer-only: only 'openssl' is known");
            o->peer_only = val;
        } else {
            arg_error("unknown option '%s'", a);
        }
#undef NEED_VALUE
#undef NO_VALUE
    }
    if (!keys_given)
        for (int k = 0; k < NKEYS; k++)
            o->key_sel[k] = 1;
    if (!o->ops_given)
        for (int op = 0; op < OP_COUNT; op++)
            o->op_sel[op] = !(o->quick && op == OP_CBC_ENC);
    if (o->nsizes == 0) {
        static const size_t full[] = {16, 64, 256, 1024, 8192, 1u << 20};
        if (o->quick)
            o->sizes[o->nsizes++] = 8192;
        else
            for (size_t i = 0; i < sizeof full / sizeof full[0]; i++)
                o->sizes[o->nsizes++] = full[i];
    }
    if (o->repeats < 0)
        o->repeats = o->quick ? 7 : 11;
}

/* ---- results ---------------------------------------------------------- */

typedef struct stats {
    double med, min, max, q1, q3;
} stats;

typedef struct row {
    int status;
    char note[256];
    uint64_t iters;
    int n;
    double *ns;  /* per op, one per sample */
    double *cnt; /* per op, one per sample, < 0 if none */
    stats ns_st, cnt_st;
    int have_cnt;
    int preempted; /* samples with an involuntary context switch */
} row;

static opts O;
static impl g_impl[MAX_IMPLS];
static int g_nimpl;
static int g_base = -1;    /* openssl */
static int g_noaesni = -1; /* openssl-noaesni */
static row *g_rows;
static int g_chk[MAX_IMPLS][NKEYS][OP_COUNT]; /* ROW_* from the correctness check */
static char g_chk_note[MAX_IMPLS][NKEYS][OP_COUNT][200];
static int g_failed;
static long g_samples, g_preempted, g_preempt_unknown;
static char **g_errors, **g_warnings;
static int g_nerrors, g_nwarnings;

static struct {
    char cpu[256], kernel[256], pin[256], counter_why[256], loadavg[64];
    int pinned_cpu, counter;
    double tsc_mhz, core_mhz, warmup_ms;
    long online_cpus;
    peer_info peer;
    char peer_err[256];
    const char *aesgen_env;
} M;

static struct {
    int ok;
    char backend[2][64], variant[2][128];
} g_dispatch[NKEYS];

static void push_msg(char ***list, int *n, const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    char **nl = realloc(*list, (size_t)(*n + 1) * sizeof *nl);
    if (!nl)
        return;
    *list = nl;
    nl[(*n)++] = strdup(buf);
    fprintf(stderr, "aesgen-bench: %s: %s\n", list == &g_errors ? "error" : "note", buf);
}

static void error_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push_msg(&g_errors, &g_nerrors, fmt, ap);
    va_end(ap);
    g_failed = 1;
}

static void warn_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push_msg(&g_warnings, &g_nwarnings, fmt, ap);
    va_end(ap);
}

static row *row_at(int im, int k, int op, int si)
{
    return &g_rows[((im * NKEYS + k) * OP_COUNT + op) * O.nsizes + si];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    if (lo >= n - 1)
        return sorted[n - 1];
    return sorted[lo] + (pos - lo) * (sorted[lo + 1] - sorted[lo]);
}

static void stats_of(const double *v, int n, stats *st)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (!s || n <= 0) {
        free(s);
        memset(st, 0, sizeof *st);
        return;
    }
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    st->min = s[0];
    st->max = s[n - 1];
    st->med = quantile(s, n, 0.5);
    st->q1 = quantile(s, n, 0.25);
    st->q3 = quantile(s, n, 0.75);
    free(s);
}

static double mbps(size_t bytes, double ns) { return ns > 0 ? (double)bytes / ns * 1e3 : 0; }

/* Speed of row r relative to reference row ref (>1: r is faster); NAN if
 * either is missing. */
static double ratio(const row *r, const row *ref)
{
    if (!ref || r->status != ROW_OK || ref->status != ROW_OK || r->ns_st.med <= 0)
        return NAN;
    return ref->ns_st.med / r->ns_st.med;
}

static int noisy(const row *r)
{
    return r->n >= 3 && r->ns_st.med > 0 && (r->ns_st.q3 - r->ns_st.q1) / r->ns_st.med > 0.05;
}

/* ---- set-up ----------------------------------------------------------- */

static void collect_dispatch(void)
{
    M.aesgen_env = getenv("AESGEN_BACKEND");
    for (int k = 0; k < NKEYS; k++) {
        g_dispatch[k].ok = 1;
        for (int d = 0; d < 2; d++) {
            const char *b = aesgen_selected_backend(bench_key_bits[k], (aesgen_direction)d);
            const char *v = aesgen_selected_variant(bench_key_bits[k], (aesgen_direction)d);
            if (!b || !v)
                g_dispatch[k].ok = 0;
            snprintf(g_dispatch[k].backend[d], sizeof g_dispatch[k].backend[d], "%s",
                     b ? b : "(none)");
            snprintf(g_dispatch[k].variant[d], sizeof g_dispatch[k].variant[d], "%s",
                     v ? v : "(none)");
        }
        if (!g_dispatch[k].ok)
            warn_msg("dispatch picks no variant for AES-%u%s%s: aesgen_init would fail",
                     bench_key_bits[k], M.aesgen_env ? " with AESGEN_BACKEND=" : "",
                     M.aesgen_env ? M.aesgen_env : "");
    }
}

/* The library's backend names, each once (in library order). */
static int unique_backends(const char **out, int max)
{
    int n = 0;
    size_t nb = aesgen_backend_count();
    for (size_t j = 0; j < nb && n < max; j++) {
        const char *name = aesgen_backend_name(j);
        int dup = name == NULL;
        for (int i = 0; i < n && !dup; i++)
            dup = strcmp(out[i], name) == 0;
        if (!dup)
            out[n++] = name;
    }
    return n;
}

static void select_backends(void)
{
    const char *names[MAX_IMPLS];
    int nb = unique_backends(names, MAX_IMPLS);
    if ((size_t)nb != aesgen_backend_count())
        warn_msg("aesgen_backend_count() is %zu but there are %d distinct backend names; "
                 "duplicates ignored",
                 aesgen_backend_count(), nb);
    if (O.nbackends > 0) {
        for (int i = 0; i < O.nbackends; i++) {
            int s = aesgen_backend_supported(O.backends[i]);
            if (s < 0) {
                char known[512] = "";
                for (int j = 0; j < nb; j++)
                    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                             j ? ", " : "", names[j]);
                arg_error("--backend: unknown aesgen backend '%s' (known: %s)", O.backends[i],
                          known[0] ? known : "none");
            }
            if (s == 0)
                arg_error("--backend: aesgen backend '%s' cannot run on this CPU", O.backends[i]);
        }
        return;
    }
    for (int j = 0; j < nb && O.nbackends < MAX_IMPLS - 4; j++)
        if (aesgen_backend_supported(names[j]) == 1)
            O.backends[O.nbackends++] = strdup(names[j]);
}

static void setup_impls(void)
{
    for (int i = 0; i < O.nvariants; i++) {
        if (impl_aesgen_variant_create(&g_impl[g_nimpl], O.variants[i]) != 0) {
            error_msg("aesgen variant %s: out of memory", O.variants[i]);
            continue;
        }
        g_nimpl++;
    }
    for (int i = 0; i < O.nbackends; i++) {
        impl *im = &g_impl[g_nimpl];
        if (impl_aesgen_create(im, O.backends[i]) != 0) {
            error_msg("aesgen backend %s: out of memory", O.backends[i]);
            continue;
        }
        g_nimpl++;
    }
    if (impl_openssl_create(&g_impl[g_nimpl], "openssl") != 0) {
        fprintf(stderr, "aesgen-bench: error: OpenSSL set-up failed\n");
        exit(1);
    }
    g_base = g_nimpl++;
    for (int k = 0; k < NKEYS; k++)
        if (O.key_sel[k] && !g_impl[g_base].key_ok[k]) {
            fprintf(stderr, "aesgen-bench: error: %s\n", g_impl[g_base].key_note[k]);
            exit(1);
        }
    if (O.peer_noaesni) {
        if (peer_spawn(&g_impl[g_nimpl], M.counter, &M.peer, M.peer_err, sizeof M.peer_err) == 0)
            g_noaesni = g_nimpl++;
        else
            warn_msg("openssl-noaesni row left out: %s", M.peer_err);
    }
    if (O.peer_bearssl) {
        if (impl_bearssl_create(&g_impl[g_nimpl]) == 0)
            g_nimpl++;
        else
            warn_msg("bearssl-ct64 row left out: set-up failed");
    }
    if (O.peer_rustcrypto) {
        if (impl_rustcrypto_create(&g_impl[g_nimpl]) == 0)
            g_nimpl++;
        else
            warn_msg("rustcrypto-aes0.6 row left out: set-up failed");
    }
    if (O.peer_gcrypt) {
        if (impl_gcrypt_create(&g_impl[g_nimpl]) == 0)
            g_nimpl++;
        else
            warn_msg("gcrypt row left out: set-up failed");
    }
}

/* ---- correctness ------------------------------------------------------ */

static int check_once(impl *im, int k, int op, size_t len, uint8_t *buf, uint8_t *ref,
                      char *note, size_t notelen)
{
    uint8_t iv[16];
    bench_start_iv(op, im->ctr32, iv);
    bench_fill(ref, len);
    if (bench_reference(op, k, iv, ref, len) != 0) {
        snprintf(note, notelen, "OpenSSL reference failed");
        return ROW_ERROR;
    }
    if (im->remote_check) {
        uint64_t h;
        if (im->remote_check(im, k, op, len, &h) != 0) {
            snprintf(note, notelen, "check in the child process failed");
            return ROW_ERROR;
        }
        if (h != bench_fnv64(ref, len)) {
            snprintf(note, notelen, "output differs from OpenSSL at %zu bytes (hash)", len);
            return ROW_MISMATCH;
        }
        return ROW_OK;
    }
    int rc = im->reset(im, k, op);
    bench_fill(buf, len);
    rc |= im->loop(im, k, op, buf, len, 1);
    rc |= im->reset(im, k, op);
    if (rc) {
        snprintf(note, notelen, "call failed during the check at %zu bytes", len);
        return ROW_ERROR;
    }
    for (size_t i = 0; i < len; i++)
        if (buf[i] != ref[i]) {
            snprintf(note, notelen,
                     "output differs from OpenSSL at %zu bytes (first difference at byte %zu)",
                     len, i);
            return ROW_MISMATCH;
        }
    return ROW_OK;
}

static void check_all(uint8_t *buf, uint8_t *ref)
{
    for (int i = 0; i < g_nimpl; i++) {
        impl *im = &g_impl[i];
        for (int k = 0; k < NKEYS; k++) {
            if (!O.key_sel[k])
                continue;
            for (int op = 0; op < OP_COUNT; op++) {
                if (!O.op_sel[op])
                    continue;
                char *note = g_chk_note[i][k][op];
                if (!im->key_ok[k] || !im->op_ok[op]) {
                    g_chk[i][k][op] = ROW_NA;
                    snprintf(note, sizeof g_chk_note[i][k][op], "%s",
                             !im->key_ok[k] && im->key_note[k][0] ? im->key_note[k]
                                                                  : "not offered");
                    continue;
                }
                if (im->remote_check && !peer_alive(im)) {
                    g_chk[i][k][op] = ROW_SKIPPED;
                    snprintf(note, sizeof g_chk_note[i][k][op], "peer process not running");
                    continue;
                }
                int st = check_once(im, k, op, CHECK_BYTES, buf, ref, note, sizeof g_chk_note[i][k][op]);
                for (int si = 0; st == ROW_OK && si < O.nsizes; si++)
                    if (O.sizes[si] != CHECK_BYTES)
                        st = check_once(im, k, op, O.sizes[si], buf, ref, note,
                                        sizeof g_chk_note[i][k][op]);
                g_chk[i][k][op] = st;
                if (st != ROW_OK)
                    error_msg("%s AES-%u %s: %s; row not timed", im->name, bench_key_bits[k],
                              bench_op_name[op], note);
            }
        }
    }
}

/* ---- measurement ------------------------------------------------------ */

static int calibrate(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t *iters)
{
    double min_ns = O.min_time_ms * 1e6;
    uint64_t it = 1;
    bench_sample s;
    for (int tries = 0; tries < 60; tries++) {
        if (impl_sample(im, k, op, buf, len, it, &s) != 0)
            return -1;
        if (s.ns >= min_ns)
            break;
        double per = s.ns > 0 ? s.ns / (double)it : 1.0;
        double want = min_ns * 1.15 / per;
        uint64_t next = want > (double)it * 100 ? it * 100 : (uint64_t)want;
        it = next > it ? next : it + 1;
    }
    *iters = it;
    return 0;
}

static const char *timing_failure(const impl *im)
{
    if (im->remote_sample)
        return peer_alive(im) ? "the peer process answered with an error"
                              : "the peer process stopped answering";
    return "a call failed while timing";
}

static void measure_all(uint8_t *buf)
{
    int total = 0, done = 0;
    int progress = isatty(2);
    for (int k = 0; k < NKEYS; k++)
        for (int op = 0; op < OP_COUNT; op++)
            if (O.key_sel[k] && O.op_sel[op])
                total += O.nsizes;
    for (int k = 0; k < NKEYS; k++) {
        if (!O.key_sel[k])
            continue;
        for (int op = 0; op < OP_COUNT; op++) {
            if (!O.op_sel[op])
                continue;
            for (int si = 0; si < O.nsizes; si++) {
                size_t len = O.sizes[si];
                int members[MAX_IMPLS], nm = 0;
                done++;
                if (progress)
                    fprintf(stderr, "\r  measuring %d/%d: AES-%u %s %zu B        ", done, total,
                            bench_key_bits[k], bench_op_name[op], len);
                bench_fill(buf, len);
                for (int i = 0; i < g_nimpl; i++) {
                    row *r = row_at(i, k, op, si);
                    r->status = g_chk[i][k][op];
                    snprintf(r->note, sizeof r->note, "%s", g_chk_note[i][k][op]);
                    if (r->status != ROW_OK)
                        continue;
                    if (g_impl[i].remote_sample && !peer_alive(&g_impl[i])) {
                        r->status = ROW_SKIPPED;
                        snprintf(r->note, sizeof r->note, "peer process not running");
                        continue;
                    }
                    if (calibrate(&g_impl[i], k, op, buf, len, &r->iters) != 0) {
                        r->status = ROW_ERROR;
                        snprintf(r->note, sizeof r->note, "%s", timing_failure(&g_impl[i]));
                        error_msg("%s AES-%u %s %zu B: %s", g_impl[i].name, bench_key_bits[k],
                                  bench_op_name[op], len, r->note);
                        continue;
                    }
                    r->ns = calloc((size_t)O.repeats, sizeof *r->ns);
                    r->cnt = calloc((size_t)O.repeats, sizeof *r->cnt);
                    if (!r->ns || !r->cnt) {
                        fprintf(stderr, "aesgen-bench: error: out of memory\n");
                        exit(1);
                    }
                    members[nm++] = i;
                }
                for (int rep = 0; rep < O.repeats; rep++) {
                    for (int j = 0; j < nm; j++) {
                        int i = members[(j + rep) % nm];
                        row *r = row_at(i, k, op, si);
                        bench_sample s;
                        if (r->status != ROW_OK)
                            continue;
                        if (impl_sample(&g_impl[i], k, op, buf, len, r->iters, &s) != 0) {
                            r->status = ROW_ERROR;
                            snprintf(r->note, sizeof r->note, "%s", timing_failure(&g_impl[i]));
                            error_msg("%s AES-%u %s %zu B: %s", g_impl[i].name, bench_key_bits[k],
                                      bench_op_name[op], len, r->note);
                            continue;
                        }
                        g_samples++;
                        if (s.preempted < 0)
                            g_preempt_unknown++;
                        else if (s.preempted > 0) {
                            g_preempted++;
                            r->preempted++;
                        }
                        r->ns[r->n] = s.ns / (double)r->iters;
                        r->cnt[r->n] = s.count >= 0 ? s.count / (double)r->iters : -1.0;
                        r->n++;
                    }
                }
                for (int j = 0; j < nm; j++) {
                    row *r = row_at(members[j], k, op, si);
                    if (r->status != ROW_OK || r->n == 0)
                        continue;
                    stats_of(r->ns, r->n, &r->ns_st);
                    r->have_cnt = 1;
                    for (int x = 0; x < r->n; x++)
                        if (r->cnt[x] < 0)
                            r->have_cnt = 0;
                    if (r->have_cnt)
                        stats_of(r->cnt, r->n, &r->cnt_st);
                }
            }
        }
    }
    if (progress)
        fprintf(stderr, "\r%70s\r", "");
}

/* ---- human output ----------------------------------------------------- */

static const char *counter_desc(void)
{
    static char buf[640];
    switch (M.counter) {
    case CNT_PERF:
        snprintf(buf, sizeof buf,
                 "core cycles from perf_event_open(PERF_COUNT_HW_CPU_CYCLES), user space only");
        break;
    case CNT_TSC:
        snprintf(buf, sizeof buf,
                 "TSC ticks from rdtsc (TSC ~%.0f MHz; core clock ~%.0f MHz est.), NOT core "
                 "cycles%s%s",
                 M.tsc_mhz, M.core_mhz, M.counter_why[0] ? "; " : "", M.counter_why);
        break;
    default:
        snprintf(buf, sizeof buf, "ns from clock_gettime(CLOCK_MONOTONIC), no cycle or tick counter (%s)",
                 M.counter_why[0] ? M.counter_why : "--counter none");
        break;
    }
    return buf;
}

static const char *count_col(void)
{
    return M.counter == CNT_PERF ? "cyc/B" : M.counter == CNT_TSC ? "tick/B" : NULL;
}

static void print_header(FILE *f)
{
    fprintf(f, "aesgen-bench: aesgen %s; %s; compiler %s%s%s\n", aesgen_version_string(),
            impl_openssl_version(), machine_compiler(), AESGEN_BENCH_BUILD_TYPE[0] ? ", " : "",
            AESGEN_BENCH_BUILD_TYPE);
    fprintf(f, "CPU: %s (%ld online); %s\n", M.cpu, M.online_cpus, M.pin);
    fprintf(f, "time: clock_gettime(CLOCK_MONOTONIC); counter: %s\n", counter_desc());
    fprintf(f,
            "method: in place, one call per operation on a keyed context; samples >= %g ms, "
            "median of %d, rows interleaved; MB/s = 10^6 B/s; ratio = speed relative to the "
            "peer in this run (>1 = faster)\n",
            O.min_time_ms, O.repeats);
    if (g_samples > g_preempt_unknown)
        fprintf(f,
                "noise: %ld of %ld samples were preempted (involuntary context switch); load "
                "average at start %s; compare ratios within one run\n",
                g_preempted, g_samples - g_preempt_unknown, M.loadavg);
}

/* Width the implementations legend wraps to. */
#define LEGEND_WIDTH 100

/* Print text with the cursor at column col, wrapping to LEGEND_WIDTH onto
 * continuation lines indented to column indent: lines are filled word by
 * word, ending after a "; " when one falls in the last quarter of the line;
 * a word longer than the line breaks after a ':' (libgcrypt's hwflist is one
 * ':'-separated word). Ends with a newline. */
static void print_wrapped(FILE *f, int col, int indent, const char *text)
{
    const char *p = text;
    for (;;) {
        int room = LEGEND_WIDTH - col;
        if (room < 40)
            room = 40;
        size_t len = strlen(p);
        if (len <= (size_t)room) {
            fprintf(f, "%s\n", p);
            return;
        }
        size_t semi = 0, space = 0, colon = 0;
        for (size_t j = 1; j <= (size_t)room && j < len; j++) {
            if (p[j - 1] == ':' && p[j] != ' ')
                colon = j;
            if (p[j] != ' ')
                continue;
            space = j;
            if (p[j - 1] == ';')
                semi = j;
        }
        size_t cut = semi >= (size_t)room * 3 / 4 ? semi : space ? space : colon;
        if (cut == 0) { /* nowhere to break inside the room: at the next space */
            const char *sp = strchr(p + room, ' ');
            if (!sp) {
                fprintf(f, "%s\n", p);
                return;
            }
            cut = (size_t)(sp - p);
        }
        fprintf(f, "%.*s\n%*s", (int)cut, p, indent, "");
        p += cut;
        while (*p == ' ')
            p++;
        col = indent;
        if (*p == '\0') {
            fputc('\n', f);
            return;
        }
    }
}

static void print_impl_legend(FILE *f)
{
    /* "  name(18) desc...", then per key size and direction "AES-128 enc:
     * variant" with the variant's info (how it computes) on the line below. */
    const int desc_col = 2 + 18 + 1, key_col = desc_col + 2, info_col = key_col + 2;
    fprintf(f, "\nimplementations:\n");
    for (int i = 0; i < g_nimpl; i++) {
        impl *im = &g_impl[i];
        int n = fprintf(f, "  %-18s ", im->name);
        print_wrapped(f, n > 0 ? n : desc_col, desc_col, im->desc);
        if (im->kind != IMPL_AESGEN)
            continue;
        for (int k = 0; k < NKEYS; k++) {
            if (!O.key_sel[k])
                continue;
            char label[16];
            snprintf(label, sizeof label, "AES-%u", bench_key_bits[k]);
            if (!im->key_ok[k]) {
                char na[200];
                fprintf(f, "%*s%s: ", key_col, "", label);
                snprintf(na, sizeof na, "n/a (%s)", im->key_note[k]);
                print_wrapped(f, key_col + (int)strlen(label) + 2, info_col, na);
                continue;
            }
            for (int d = 0; d < 2; d++) {
                fprintf(f, "%*s%s %s: %s\n", key_col, "", label, d ? "dec" : "enc",
                        im->variant[k][d]);
                if (im->variant_info[k][d]) {
                    fprintf(f, "%*s", info_col, "");
                    print_wrapped(f, info_col, info_col, im->variant_info[k][d]);
                }
            }
        }
    }
}

static void print_dispatch(FILE *f)
{
    fprintf(f, "\ndispatch (what aesgen_init picks%s%s%s):\n",
            M.aesgen_env ? " with AESGEN_BACKEND=" : " automatically",
            M.aesgen_env ? M.aesgen_env : "", M.aesgen_env ? " set" : "");
    for (int k = 0; k < NKEYS; k++)
        fprintf(f, "  AES-%u  encrypt: %-12s %-40s decrypt: %-12s %s\n", bench_key_bits[k],
                g_dispatch[k].backend[0], g_dispatch[k].variant[0], g_dispatch[k].backend[1],
                g_dispatch[k].variant[1]);
    const char *names[MAX_IMPLS];
    int nb = unique_backends(names, MAX_IMPLS);
    fprintf(f, "  backends:");
    for (int j = 0; j < nb; j++)
        fprintf(f, " %s (%s)", names[j],
                aesgen_backend_supported(names[j]) == 1 ? "runs here" : "not on this CPU");
    fprintf(f, "%s\n", nb ? "" : " none");
}

static const char *cell_status(const row *r)
{
    switch (r->status) {
    case ROW_NA: return "n/a";
    case ROW_MISMATCH: return "WRONG";
    case ROW_ERROR: return "ERROR";
    case ROW_SKIPPED: return "skipped";
    default: return "?";
    }
}

/* Width of the implementation-name column: the longest name, at least min. */
static int name_width(int min)
{
    int w = min;
    for (int i = 0; i < g_nimpl; i++)
        if ((int)strlen(g_impl[i].name) > w)
            w = (int)strlen(g_impl[i].name);
    return w;
}

/* The compact layout: one block per (size, key), operations as columns. */
static void print_compact(FILE *f)
{
    const int nw = name_width(28);
    for (int si = 0; si < O.nsizes; si++) {
        fprintf(f, "\n%zu-byte messages: MB/s (median of %d; ~ = interquartile range > 5%%)\n",
                O.sizes[si], O.repeats);
        for (int k = 0; k < NKEYS; k++) {
            if (!O.key_sel[k])
                continue;
            fprintf(f, "AES-%-*u", nw - 2, bench_key_bits[k]);
            for (int op = 0; op < OP_COUNT; op++)
                if (O.op_sel[op])
                    fprintf(f, "%12s", bench_op_name[op]);
            fprintf(f, "\n");
            for (int i = 0; i < g_nimpl; i++) {
                fprintf(f, "  %-*s", nw, g_impl[i].name);
                for (int op = 0; op < OP_COUNT; op++) {
                    if (!O.op_sel[op])
                        continue;
                    row *r = row_at(i, k, op, si);
                    char cell[32];
                    if (r->status == ROW_OK)
                        snprintf(cell, sizeof cell, "%.1f%s", mbps(O.sizes[si], r->ns_st.med),
                                 noisy(r) ? "~" : " ");
                    else
                        snprintf(cell, sizeof cell, "%s ", cell_status(r));
                    fprintf(f, "%12s", cell);
                }
                fprintf(f, "\n");
                if (g_impl[i].kind != IMPL_AESGEN)
                    continue;
                int refs[2] = {g_base, g_noaesni};
                for (int x = 0; x < 2; x++) {
                    if (refs[x] < 0)
                        continue;
                    char label[64];
                    snprintf(label, sizeof label, "  vs %s", g_impl[refs[x]].name);
                    fprintf(f, "  %-*s", nw, label);
                    for (int op = 0; op < OP_COUNT; op++) {
                        if (!O.op_sel[op])
                            continue;
                        double q = ratio(row_at(i, k, op, si), row_at(refs[x], k, op, si));
                        char cell[32];
                        if (isnan(q))
                            snprintf(cell, sizeof cell, "- ");
                        else
                            snprintf(cell, sizeof cell, "%.3fx ", q);
                        fprintf(f, "%12s", cell);
                    }
                    fprintf(f, "\n");
                }
            }
        }
    }
}

/* The full layout: one line per (operation, key, size, implementation). */
static void print_lines(FILE *f)
{
    const char *cc = count_col();
    const int nw = name_width(20);
    fprintf(f, "\n%-8s %4s %8s  %-*s %12s %10s %9s %9s %9s\n", "op", "key", "bytes", nw,
            "implementation", "ns/op", "MB/s", cc ? cc : "", "vs ossl", "vs noaesni");
    for (int op = 0; op < OP_COUNT; op++) {
        if (!O.op_sel[op])
            continue;
        for (int k = 0; k < NKEYS; k++) {
            if (!O.key_sel[k])
                continue;
            for (int si = 0; si < O.nsizes; si++) {
                fprintf(f, "\n");
                for (int i = 0; i < g_nimpl; i++) {
                    row *r = row_at(i, k, op, si);
                    fprintf(f, "%-8s %4u %8zu  %-*s", bench_op_name[op], bench_key_bits[k],
                            O.sizes[si], nw, g_impl[i].name);
                    if (r->status != ROW_OK) {
                        fprintf(f, " %12s  %s\n", cell_status(r), r->note);
                        continue;
                    }
                    char mb[32], cnt[32] = "", q1[32] = "-", q2[32] = "-";
                    snprintf(mb, sizeof mb, "%.1f%s", mbps(O.sizes[si], r->ns_st.med),
                             noisy(r) ? "~" : "");
                    if (r->have_cnt)
                        snprintf(cnt, sizeof cnt, "%.2f", r->cnt_st.med / (double)O.sizes[si]);
                    double a = ratio(r, row_at(g_base, k, op, si));
                    double b = g_noaesni >= 0 ? ratio(r, row_at(g_noaesni, k, op, si)) : NAN;
                    if (!isnan(a))
                        snprintf(q1, sizeof q1, "%.3fx", a);
                    if (!isnan(b))
                        snprintf(q2, sizeof q2, "%.3fx", b);
                    fprintf(f, " %12.1f %10s %9s %9s %9s\n", r->ns_st.med, mb, cnt, q1, q2);
                }
            }
        }
    }
}

/* Linux tcrypt style: "test N (K bit key, S byte blocks): 1 operation in C
 * cycles (S bytes)", with the unit the counter deserves. */
static void print_tcrypt(FILE *f)
{
    const char *unit = counter_unit(M.counter);
    fprintf(f, "# aesgen-bench --format tcrypt: counts are %s; median of %d samples per line\n",
            counter_desc(), O.repeats);
    static const char *const mode[OP_COUNT] = {"ecb(aes)", "ecb(aes)", "ctr(aes)", "cbc(aes)",
                                               "cbc(aes)"};
    static const int order[OP_COUNT] = {OP_ECB_ENC, OP_ECB_DEC, OP_CBC_ENC, OP_CBC_DEC, OP_CTR};
    for (int i = 0; i < g_nimpl; i++) {
        for (int oi = 0; oi < OP_COUNT; oi++) {
            int op = order[oi];
            if (!O.op_sel[op])
                continue;
            fprintf(f, "\ntesting speed of %s (%s) %s\n", mode[op], g_impl[i].name,
                    bench_op_is_decrypt(op) ? "decryption" : "encryption");
            int t = 0;
            for (int k = 0; k < NKEYS; k++) {
                if (!O.key_sel[k])
                    continue;
                for (int si = 0; si < O.nsizes; si++, t++) {
                    row *r = row_at(i, k, op, si);
                    fprintf(f, "test %d (%u bit key, %zu byte blocks): ", t, bench_key_bits[k],
                            O.sizes[si]);
                    if (r->status != ROW_OK)
                        fprintf(f, "%s (%s)\n", cell_status(r), r->note);
                    else if (M.counter != CNT_NONE && r->have_cnt)
                        fprintf(f, "1 operation in %.0f %s (%zu bytes)\n", r->cnt_st.med, unit,
                                O.sizes[si]);
                    else
                        fprintf(f, "1 operation in %.0f ns (%zu bytes)\n", r->ns_st.med,
                                O.sizes[si]);
                }
            }
        }
    }
}

/* ---- JSON output ------------------------------------------------------ */

static void jstr(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void jnum(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fputs("null", f);
    else
        fprintf(f, "%.6g", v);
}

static void jstats(FILE *f, const stats *s, double scale)
{
    fputs("{\"median\": ", f);
    jnum(f, s->med * scale);
    fputs(", \"min\": ", f);
    jnum(f, s->min * scale);
    fputs(", \"max\": ", f);
    jnum(f, s->max * scale);
    fputs(", \"q1\": ", f);
    jnum(f, s->q1 * scale);
    fputs(", \"q3\": ", f);
    jnum(f, s->q3 * scale);
    fputs("}", f);
}

static void jlist(FILE *f, char **v, int n)
{
    fputs("[", f);
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        jstr(f, v[i]);
    }
    fputs("]", f);
}

static void print_json(FILE *f)
{
    fputs("{\n  \"tool\": \"aesgen-bench\",\n  \"schema_version\": 1,\n  \"mode\": ", f);
    jstr(f, O.quick ? "quick" : "full");
    fputs(",\n  \"status\": ", f);
    jstr(f, g_failed ? "failed" : "ok");
    fputs(",\n  \"machine\": {\n    \"cpu_model\": ", f);
    jstr(f, M.cpu);
    fprintf(f, ",\n    \"online_cpus\": %ld,\n    \"kernel\": ", M.online_cpus);
    jstr(f, M.kernel);
    fputs(",\n    \"compiler\": ", f);
    jstr(f, machine_compiler());
    fputs(",\n    \"build_type\": ", f);
    jstr(f, AESGEN_BENCH_BUILD_TYPE);
    fputs(",\n    \"aesgen_version\": ", f);
    jstr(f, aesgen_version_string());
    fputs(",\n    \"openssl_version\": ", f);
    jstr(f, impl_openssl_version());
    fputs(",\n    \"bearssl\": ", f);
    jstr(f, impl_bearssl_version());
    fputs(",\n    \"rustcrypto\": ", f);
    jstr(f, impl_rustcrypto_version());
    fputs(",\n    \"gcrypt\": ", f);
    jstr(f, impl_gcrypt_version());
    fputs(",\n    \"pinning\": {\"pinned\": ", f);
    fputs(M.pinned_cpu >= 0 ? "true" : "false", f);
    fputs(", \"cpu\": ", f);
    if (M.pinned_cpu >= 0)
        fprintf(f, "%d", M.pinned_cpu);
    else
        fputs("null", f);
    fputs(", \"detail\": ", f);
    jstr(f, M.pin);
    fputs("},\n    \"clock\": {\"time\": \"clock_gettime(CLOCK_MONOTONIC)\", \"counter\": ", f);
    jstr(f, counter_kind_name(M.counter));
    fputs(", \"counter_unit\": ", f);
    jstr(f, M.counter == CNT_NONE ? NULL : counter_unit(M.counter));
    fputs(", \"counter_is_core_cycles\": ", f);
    fputs(M.counter == CNT_PERF ? "true" : "false", f);
    fputs(", \"detail\": ", f);
    jstr(f, counter_desc());
    fputs(", \"tsc_mhz_estimate\": ", f);
    jnum(f, M.tsc_mhz > 0 ? M.tsc_mhz : NAN);
    fputs(", \"core_mhz_estimate\": ", f);
    jnum(f, M.core_mhz > 0 ? M.core_mhz : NAN);
    fputs(", \"core_mhz_method\": \"dependent register-add chain, 1 cycle per add assumed\"}",
          f);
    fputs(",\n    \"openssl_noaesni_child\": ", f);
    if (g_noaesni >= 0) {
        fputs("{\"openssl_version\": ", f);
        jstr(f, M.peer.openssl_version);
        fputs(", \"OPENSSL_ia32cap\": ", f);
        jstr(f, M.peer.ia32cap);
        fputs(", \"counter\": ", f);
        jstr(f, M.peer.counter);
        fputs("}", f);
    } else {
        fputs("null", f);
    }
    fputs("\n  },\n  \"method\": {", f);
    fprintf(f, "\"min_sample_ms\": %g, \"repeats\": %d, \"warmup_ms\": %g, ", O.min_time_ms,
            O.repeats, M.warmup_ms);
    fputs("\"statistic\": \"median\", \"in_place\": true, \"interleaved\": true, "
          "\"per_op\": \"one call over the whole message on a keyed context; key and IV set-up "
          "excluded; CBC IV and CTR counter carry on between calls\", "
          "\"mb_per_s\": \"10^6 bytes per second\", "
          "\"ratio\": \"speed relative to the named row in this run: ref_ns / this_ns\", "
          "\"check_bytes\": 8192, ",
          f);
    fputs("\"load_average_at_start\": ", f);
    jstr(f, M.loadavg);
    fprintf(f, ", \"samples\": %ld, \"preempted_samples\": ", g_samples);
    if (g_samples > g_preempt_unknown)
        fprintf(f, "%ld", g_preempted);
    else
        fputs("null", f);
    fputs("},\n", f);
    fputs("  \"aesgen_backend_env\": ", f);
    jstr(f, M.aesgen_env);
    fputs(",\n  \"dispatch\": [", f);
    for (int k = 0; k < NKEYS; k++) {
        fprintf(f, "%s\n    {\"key_bits\": %u", k ? "," : "", bench_key_bits[k]);
        for (int d = 0; d < 2; d++) {
            fprintf(f, ", \"%s\": {\"backend\": ", d ? "decrypt" : "encrypt");
            jstr(f, g_dispatch[k].backend[d]);
            fputs(", \"variant\": ", f);
            jstr(f, g_dispatch[k].variant[d]);
            fputs("}", f);
        }
        fputs("}", f);
    }
    fputs("\n  ],\n  \"backends\": [", f);
    const char *names[MAX_IMPLS];
    int nb = unique_backends(names, MAX_IMPLS);
    for (int j = 0; j < nb; j++) {
        fputs(j ? ", " : "", f);
        fputs("{\"name\": ", f);
        jstr(f, names[j]);
        fprintf(f, ", \"supported\": %s}", aesgen_backend_supported(names[j]) == 1 ? "true" : "false");
    }
    fputs("],\n  \"implementations\": [", f);
    for (int i = 0; i < g_nimpl; i++) {
        impl *im = &g_impl[i];
        static const char *const kinds[] = {"aesgen", "openssl", "bearssl", "openssl-child",
                                            "rustcrypto", "gcrypt"};
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        jstr(f, im->name);
        fputs(", \"kind\": ", f);
        jstr(f, kinds[im->kind]);
        fputs(", \"description\": ", f);
        jstr(f, im->desc);
        if (im->kind == IMPL_AESGEN) {
            fputs(", \"variants\": {", f);
            int first = 1;
            for (int k = 0; k < NKEYS; k++) {
                if (!O.key_sel[k])
                    continue;
                fprintf(f, "%s\"%u\": ", first ? "" : ", ", bench_key_bits[k]);
                first = 0;
                if (im->key_ok[k]) {
                    fputs("{\"encrypt\": ", f);
                    jstr(f, im->variant[k][0]);
                    fputs(", \"decrypt\": ", f);
                    jstr(f, im->variant[k][1]);
                    fputs(", \"encrypt_info\": ", f);
                    jstr(f, im->variant_info[k][0]);
                    fputs(", \"decrypt_info\": ", f);
                    jstr(f, im->variant_info[k][1]);
                    fputs("}", f);
                } else {
                    fputs("null", f);
                }
            }
            fputs("}", f);
        }
        fputs("}", f);
    }
    fputs("\n  ],\n  \"rows\": [", f);
    int first = 1;
    for (int op = 0; op < OP_COUNT; op++) {
        if (!O.op_sel[op])
            continue;
        for (int k = 0; k < NKEYS; k++) {
            if (!O.key_sel[k])
                continue;
            for (int si = 0; si < O.nsizes; si++) {
                for (int i = 0; i < g_nimpl; i++) {
                    row *r = row_at(i, k, op, si);
                    size_t len = O.sizes[si];
                    fprintf(f, "%s\n    {\"impl\": ", first ? "" : ",");
                    first = 0;
                    jstr(f, g_impl[i].name);
                    fprintf(f, ", \"op\": \"%s\", \"key_bits\": %u, \"bytes\": %zu, \"status\": \"%s\"",
                            bench_op_name[op], bench_key_bits[k], len, row_status_name[r->status]);
                    if (r->status != ROW_OK) {
                        fputs(", \"note\": ", f);
                        jstr(f, r->note);
                        fputs("}", f);
                        continue;
                    }
                    fprintf(f, ", \"iterations_per_sample\": %llu, \"samples\": %d, "
                               "\"preempted_samples\": %d, \"ns_per_op\": ",
                            (unsigned long long)r->iters, r->n, r->preempted);
                    jstats(f, &r->ns_st, 1.0);
                    fputs(", \"mb_per_s\": {\"median\": ", f);
                    jnum(f, mbps(len, r->ns_st.med));
                    fputs(", \"min\": ", f);
                    jnum(f, mbps(len, r->ns_st.max));
                    fputs(", \"max\": ", f);
                    jnum(f, mbps(len, r->ns_st.min));
                    fputs("}, \"count_unit\": ", f);
                    jstr(f, r->have_cnt ? counter_unit(M.counter) : NULL);
                    fputs(", \"count_per_op\": ", f);
                    if (r->have_cnt)
                        jstats(f, &r->cnt_st, 1.0);
                    else
                        fputs("null", f);
                    fputs(", \"count_per_byte\": ", f);
                    jnum(f, r->have_cnt ? r->cnt_st.med / (double)len : NAN);
                    fputs(", \"ratio_to_openssl\": ", f);
                    jnum(f, ratio(r, row_at(g_base, k, op, si)));
                    fputs(", \"ratio_to_openssl_noaesni\": ", f);
                    jnum(f, g_noaesni >= 0 ? ratio(r, row_at(g_noaesni, k, op, si)) : NAN);
                    fputs("}", f);
                }
            }
        }
    }
    fputs("\n  ],\n  \"errors\": ", f);
    jlist(f, g_errors, g_nerrors);
    fputs(",\n  \"notes\": ", f);
    jlist(f, g_warnings, g_nwarnings);
    fputs("\n}\n", f);
}

/* ---- main ------------------------------------------------------------- */

int main(int argc, char **argv)
{
    parse_args(argc, argv, &O);
    if (O.peer_only)
        return peer_child_main(O.counter);

    collect_dispatch(); /* before any aesgen_force_backend */
    select_backends();

    machine_cpu_model(M.cpu, sizeof M.cpu);
    machine_kernel(M.kernel, sizeof M.kernel);
    M.online_cpus = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(M.loadavg, sizeof M.loadavg, "unknown");
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        double l1, l5, l15;
        if (fscanf(la, "%lf %lf %lf", &l1, &l5, &l15) == 3)
            snprintf(M.loadavg, sizeof M.loadavg, "%.2f %.2f %.2f", l1, l5, l15);
        fclose(la);
    }
    if (O.no_pin) {
        M.pinned_cpu = -1;
        snprintf(M.pin, sizeof M.pin, "not pinned (--no-pin)");
    } else {
        M.pinned_cpu = pin_to_cpu(O.cpu, M.pin, sizeof M.pin);
        if (M.pinned_cpu < 0 && O.cpu >= 0)
            arg_error("--cpu %d: %s", O.cpu, M.pin);
        if (M.pinned_cpu < 0)
            warn_msg("%s", M.pin);
    }
    M.counter = counter_setup(O.counter, M.counter_why, sizeof M.counter_why);
    if (O.counter >= 0 && M.counter != O.counter) {
        fprintf(stderr, "aesgen-bench: error: --counter %s unavailable: %s\n",
                counter_kind_name(O.counter), M.counter_why);
        return 1;
    }

    setup_impls();

    size_t maxlen = CHECK_BYTES;
    for (int i = 0; i < O.nsizes; i++)
        if (O.sizes[i] > maxlen)
            maxlen = O.sizes[i];
    uint8_t *buf = aligned_alloc(64, (maxlen + 63) & ~(size_t)63);
    uint8_t *ref = aligned_alloc(64, (maxlen + 63) & ~(size_t)63);
    g_rows = calloc((size_t)g_nimpl * NKEYS * OP_COUNT * (size_t)O.nsizes, sizeof *g_rows);
    if (!buf || !ref || !g_rows) {
        fprintf(stderr, "aesgen-bench: error: out of memory\n");
        return 1;
    }

    check_all(buf, ref);

    M.warmup_ms = O.min_time_ms * 20;
    if (M.warmup_ms < 50)
        M.warmup_ms = 50;
    if (M.warmup_ms > 300)
        M.warmup_ms = 300;
    clock_warmup(M.warmup_ms, &M.tsc_mhz, &M.core_mhz);

    measure_all(buf);

    for (int i = 0; i < g_nimpl; i++) {
        if (g_impl[i].kind == IMPL_REMOTE)
            peer_stop(&g_impl[i]);
        else
            impl_destroy(&g_impl[i]);
    }

    switch (O.format) {
    case FMT_JSON:
        print_json(stdout);
        break;
    case FMT_TCRYPT:
        print_tcrypt(stdout);
        break;
    default:
        print_header(stdout);
        if (O.quick)
            print_dispatch(stdout);
        print_impl_legend(stdout);
        if (O.quick)
            print_compact(stdout);
        else
            print_lines(stdout);
        if (g_nerrors) {
            printf("\nerrors:\n");
            for (int i = 0; i < g_nerrors; i++)
                printf("  %s\n", g_errors[i]);
        }
        if (g_nwarnings) {
            printf("\nnotes:\n");
            for (int i = 0; i < g_nwarnings; i++)
                printf("  %s\n", g_warnings[i]);
        }
        break;
    }
    fflush(stdout);
    free(buf);
    free(ref);
    return g_failed ? 1 : 0;
}
