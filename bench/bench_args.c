/*
 * bench_args.c -- aesgen-bench's command line: --help, the options and
 * their defaults. Every bad argument ends in bench_arg_error (exit 2).
 */
#define _GNU_SOURCE
#include "bench_args.h"

#include "aesgen.h"
#include "aesgen_internal.h" /* --variant: aesgen_find_variant */
#include "bench_peer.h"      /* the mask value --help names */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
"usage: aesgen-bench [options]\n"
"\n"
"Throughput of every aesgen backend that runs on this CPU next to OpenSSL EVP\n"
"(default, i.e. AES-NI here), OpenSSL with AES-NI masked (a child process run\n"
"with OPENSSL_ia32cap=%s), BearSSL ct64, RustCrypto aes 0.6 (soft backend),\n"
"libgcrypt and intel-ipsec-mb when built with them.\n"
"Operations run in place on a keyed context; ns per operation, MB/s (10^6 B/s),\n"
"counter per byte and the speed ratio to OpenSSL are medians over interleaved\n"
"samples. Every row is checked against OpenSSL before it is timed.\n"
"GCM: one operation is one whole message (12-byte IV, 16 bytes of AAD, the\n"
"text, a 16-byte tag), IV set-up included; gcm-seal runs in place, gcm-open\n"
"opens one prepared valid message into a separate buffer and must authenticate.\n"
"XTS (AES-128 and AES-256 only): xts-enc/xts-dec encrypt/decrypt one data unit\n"
"of the row's size with a 16-byte tweak per call, tweak set-up included;\n"
"xts-sectors-enc is 262144 bytes of sectors (tweak = sector number) per call,\n"
"64 of 4 KiB unless --sector-bytes says otherwise, whatever --sizes says (aesgen\n"
"and OpenSSL rows only).\n"
"cbc-enc-streams is --streams independent CBC encryptions of the row's size in one\n"
"call (aesgen_cbc_encrypt_streams; intel-ipsec-mb: that many jobs submitted, then\n"
"flushed); MB/s counts every stream (aesgen and ipsecmb rows only).\n"
"\n"
"  --quick             which backend/variant dispatch picks per key size, then a\n"
"                      compact 8 KiB table (ecb-enc, ecb-dec, ctr, cbc-dec,\n"
"                      gcm-seal, gcm-open, xts-enc, xts-dec)\n"
"  --json              one JSON document on stdout (same as --format json)\n"
"  --format FMT        table (default), json, or tcrypt (Linux tcrypt-style lines)\n"
"  --backend NAME      aesgen backend to measure; repeatable or comma list\n"
"  --variant NAME      also measure one generated variant alone (its key size and\n"
"                      direction only); repeatable or comma list\n"
"                      (default: every backend this CPU supports)\n"
"  --key-bits LIST     e.g. 128,256 (default 128,192,256)\n"
"  --op LIST           ecb-enc,ecb-dec,ctr,cbc-dec,cbc-enc,gcm-seal,gcm-open,\n"
"                      xts-enc,xts-dec,xts-sectors-enc,cbc-enc-streams or all\n"
"                      (default all; --quick: all but cbc-enc, xts-sectors-enc\n"
"                      and cbc-enc-streams); e.g.\n"
"                      --op gcm-seal,gcm-open for AES-GCM alone\n"
"  --sizes LIST        message bytes, multiples of 16, K/M suffixes allowed\n"
"                      (default 16,64,256,1024,8192,1M; --quick: 8192)\n"
"  --streams K         messages per cbc-enc-streams call (1..64, default 8)\n"
"  --stream-gap BYTES  bytes between one cbc-enc-streams message and the next\n"
"                      (0..65536, default 0: back to back, so messages of 4 KiB\n"
"                      share L1 sets; e.g. 64 puts each in sets of its own)\n"
"  --sector-bytes N    xts-sectors-enc's sector size: 16 to 262144, a power of two\n"
"                      (default 4096)\n"
"  --peers LIST        extra peers: openssl-noaesni, bearssl-ct64,\n"
"                      rustcrypto-aes0.6, gcrypt, ipsecmb, all, none\n"
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

void bench_arg_error(const char *fmt, ...)
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
        bench_arg_error("out of memory");
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
        bench_arg_error("%s needs a non-empty list", opt);
}

static void add_key(const char *s, void *ctx)
{
    bench_opts *o = ctx;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    int k = (*end == '\0') ? bench_key_index((unsigned)v) : -1;
    if (k < 0)
        bench_arg_error("--key-bits: '%s' is not 128, 192 or 256", s);
    o->key_sel[k] = 1;
}

static void add_op(const char *s, void *ctx)
{
    bench_opts *o = ctx;
    if (strcmp(s, "all") == 0) {
        for (int i = 0; i < OP_COUNT; i++)
            o->op_sel[i] = 1;
        return;
    }
    int op = bench_op_from_name(s);
    if (op < 0)
        bench_arg_error("--op: unknown operation '%s' "
                        "(ecb-enc, ecb-dec, ctr, cbc-dec, cbc-enc, gcm-seal, gcm-open, xts-enc, "
                        "xts-dec, xts-sectors-enc, all)",
                        s);
    o->op_sel[op] = 1;
}

static void add_size(const char *s, void *ctx)
{
    bench_opts *o = ctx;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        bench_arg_error("--sizes: '%s' is not a byte count", s);
    if (*end == '\0' || strcmp(end, "B") == 0)
        ;
    else if (strcmp(end, "K") == 0 || strcmp(end, "k") == 0 || strcmp(end, "KiB") == 0)
        v <<= 10;
    else if (strcmp(end, "M") == 0 || strcmp(end, "MiB") == 0)
        v <<= 20;
    else
        bench_arg_error("--sizes: '%s': unknown suffix (use K or M, binary)", s);
    if (v == 0 || v % 16 != 0 || v > (64ull << 20))
        bench_arg_error("--sizes: %s is not a multiple of 16 between 16 and 64M", s);
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] == v)
            return;
    if (o->nsizes == MAX_SIZES)
        bench_arg_error("--sizes: at most %d sizes", MAX_SIZES);
    o->sizes[o->nsizes++] = (size_t)v;
}

static void add_backend(const char *s, void *ctx)
{
    bench_opts *o = ctx;
    for (int i = 0; i < o->nbackends; i++)
        if (strcmp(o->backends[i], s) == 0)
            return;
    if (o->nbackends == MAX_IMPLS)
        bench_arg_error("--backend: too many backends");
    o->backends[o->nbackends++] = strdup(s);
}

static void add_variant(const char *s, void *ctx)
{
    bench_opts *o = ctx;
    if (aesgen_find_variant(s) == NULL)
        bench_arg_error("--variant: no variant named '%s' "
                        "(PYTHONPATH=generator python3 -m aesgen list)",
                        s);
    if (!aesgen_variant_usable(aesgen_find_variant(s)))
        bench_arg_error("--variant: variant '%s' cannot run on this CPU", s);
    if (o->nvariants == MAX_IMPLS / 2)
        bench_arg_error("--variant: too many variants");
    o->variants[o->nvariants++] = strdup(s);
}

/* The optional peer library --peers calls s, or -1. */
static int peer_by_name(const char *s)
{
    for (int p = 0; p < PEER_COUNT; p++)
        if (strcmp(s, bench_peers[p].name) == 0)
            return p;
    return -1;
}

static void add_peer(const char *s, void *ctx)
{
    bench_opts *o = ctx;
    int p = peer_by_name(s);
    if (strcmp(s, "none") == 0) {
        o->peer_noaesni = 0;
        for (int j = 0; j < PEER_COUNT; j++)
            o->peer_sel[j] = 0;
    } else if (strcmp(s, "all") == 0) {
        o->peer_noaesni = 1;
        for (int j = 0; j < PEER_COUNT; j++)
            o->peer_sel[j] = bench_peers[j].lib != NULL;
        /* As "all" always has, it asks for bearssl-ct64 even when it is not
         * built in; such a run notes "bearssl-ct64 row left out: set-up
         * failed". */
        o->peer_sel[PEER_BEARSSL] = 1;
    } else if (strcmp(s, "openssl-noaesni") == 0)
        o->peer_noaesni = 1;
    else if (p >= 0) {
        if (!bench_peers[p].lib)
            bench_arg_error("--peers: %s was not built in (%s)", s, bench_peers[p].missing);
        o->peer_sel[p] = 1;
    } else if (strcmp(s, "openssl") == 0)
        ; /* always there */
    else
        bench_arg_error("--peers: unknown peer '%s' (openssl-noaesni, bearssl-ct64, "
                        "rustcrypto-aes0.6, gcrypt, ipsecmb, all, none)",
                        s);
}

static double parse_number(const char *opt, const char *s, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v >= lo && v <= hi))
        bench_arg_error("%s: '%s' is not a number from %g to %g", opt, s, lo, hi);
    return v;
}

void bench_parse_args(int argc, char **argv, bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->min_time_ms = 2.0;
    o->repeats = -1;
    o->cpu = -1;
    o->counter = -1;
    o->peer_noaesni = 1;
    for (int p = 0; p < PEER_COUNT; p++)
        o->peer_sel[p] = bench_peers[p].lib != NULL; /* every peer built in */
    int keys_given = 0, peers_given = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        char *val = NULL;
        char name[64];
        if (strncmp(a, "--", 2) != 0)
            bench_arg_error("unexpected argument '%s'", a);
        char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (nl >= sizeof name)
            bench_arg_error("unknown option '%s'", a);
        memcpy(name, a, nl);
        name[nl] = '\0';
#define NEED_VALUE()                                                                            \
    do {                                                                                        \
        if (eq)                                                                                 \
            val = eq + 1;                                                                       \
        else if (i + 1 < argc)                                                                  \
            val = argv[++i];                                                                    \
        else                                                                                    \
            bench_arg_error("%s needs a value", name);                                          \
    } while (0)
#define NO_VALUE()                                                                              \
    do {                                                                                        \
        if (eq)                                                                                 \
            bench_arg_error("%s takes no value", name);                                         \
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
                bench_arg_error("--format: '%s' is not table, json or tcrypt", val);
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
        } else if (strcmp(name, "--streams") == 0) {
            NEED_VALUE();
            bench_cbc_streams = (unsigned)parse_number(name, val, 1, BENCH_MAX_STREAMS);
            if ((double)bench_cbc_streams != strtod(val, NULL))
                bench_arg_error("--streams: '%s' is not a whole number", val);
        } else if (strcmp(name, "--stream-gap") == 0) {
            NEED_VALUE();
            const double n = parse_number(name, val, 0, BENCH_MAX_STREAM_GAP);
            bench_stream_gap = (size_t)n;
            if ((double)bench_stream_gap != n)
                bench_arg_error("--stream-gap: '%s' is not a whole number", val);
        } else if (strcmp(name, "--sector-bytes") == 0) {
            NEED_VALUE();
            const double n = parse_number(name, val, 16, (double)BENCH_XTS_SECTORS_BYTES);
            bench_xts_sector_bytes = (size_t)n;
            if ((double)bench_xts_sector_bytes != n || (bench_xts_sector_bytes & (bench_xts_sector_bytes - 1)) != 0)
                bench_arg_error("--sector-bytes: '%s' is not a power of two from 16 to 262144", val);
        } else if (strcmp(name, "--sizes") == 0) {
            NEED_VALUE();
            for_each_item(val, name, add_size, o);
        } else if (strcmp(name, "--peers") == 0) {
            NEED_VALUE();
            if (!peers_given) { /* the first --peers replaces the default set */
                o->peer_noaesni = 0;
                for (int p = 0; p < PEER_COUNT; p++)
                    o->peer_sel[p] = 0;
            }
            peers_given = 1;
            for_each_item(val, name, add_peer, o);
        } else if (strcmp(name, "--min-time-ms") == 0) {
            NEED_VALUE();
            o->min_time_ms = parse_number(name, val, 0.001, 60000);
        } else if (strcmp(name, "--repeats") == 0) {
            NEED_VALUE();
            o->repeats = (int)parse_number(name, val, 1, 1000);
            if ((double)o->repeats != strtod(val, NULL))
                bench_arg_error("--repeats: '%s' is not a whole number", val);
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
                bench_arg_error("--counter: '%s' is not auto, perf, tsc or none", val);
        } else if (strcmp(name, "--cpu") == 0) {
            NEED_VALUE();
            o->cpu = (int)parse_number(name, val, 0, 4095);
        } else if (strcmp(name, "--no-pin") == 0) {
            NO_VALUE();
            o->no_pin = 1;
        } else if (strcmp(name, "--peer-only") == 0) { /* hidden: the masked child */
            NEED_VALUE();
            if (strcmp(val, "openssl") != 0)
                bench_arg_error("--peer-only: only 'openssl' is known");
            o->peer_only = val;
        } else {
            bench_arg_error("unknown option '%s'", a);
        }
#undef NEED_VALUE
#undef NO_VALUE
    }
    if (!keys_given)
        for (int k = 0; k < NKEYS; k++)
            o->key_sel[k] = 1;
    if (!o->ops_given)
        for (int op = 0; op < OP_COUNT; op++)
            o->op_sel[op] = !(o->quick && (op == OP_CBC_ENC || op == OP_XTS_SECTORS_ENC ||
                                           op == OP_CBC_STREAMS_ENC));
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
