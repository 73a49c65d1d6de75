/*
 * bench_report_json.c -- aesgen-bench --format json: one document,
 * schema_version 1, read by `aesgen report` and `aesgen tune` (generator/).
 * Its keys and their order are an interface: change them only with the
 * schema version.
 */
#define _GNU_SOURCE
#include "bench_report.h"

#include "aesgen.h"

#include <math.h>
#include <stdio.h>

static const char *const row_status_name[] = {"ok", "n/a", "mismatch", "error", "skipped"};

/* ---- JSON values ------------------------------------------------------ */

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

static void jstats(FILE *f, const bench_stats *s, double scale)
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

/* ---- sections --------------------------------------------------------- */

/* "machine": versions, pinning, clocks, the openssl-noaesni child. */
static void json_machine(FILE *f, const bench_run *run)
{
    const bench_machine *m = &run->machine;
    char desc[640];
    fputs("{\n    \"cpu_model\": ", f);
    jstr(f, m->cpu);
    fprintf(f, ",\n    \"online_cpus\": %ld,\n    \"kernel\": ", m->online_cpus);
    jstr(f, m->kernel);
    fputs(",\n    \"compiler\": ", f);
    jstr(f, machine_compiler());
    fputs(",\n    \"build_type\": ", f);
    jstr(f, AESGEN_BENCH_BUILD_TYPE);
    fputs(",\n    \"aesgen_version\": ", f);
    jstr(f, aesgen_version_string());
    fputs(",\n    \"openssl_version\": ", f);
    jstr(f, impl_openssl_version());
    /* Every known peer has its key, null when it is not built in. */
    for (int p = 0; p < PEER_COUNT; p++) {
        const bench_peer_lib *lib = bench_peers[p].lib;
        fprintf(f, ",\n    \"%s\": ", bench_peers[p].json_key);
        jstr(f, lib && lib->version ? lib->version() : NULL);
    }
    fputs(",\n    \"pinning\": {\"pinned\": ", f);
    fputs(m->pinned_cpu >= 0 ? "true" : "false", f);
    fputs(", \"cpu\": ", f);
    if (m->pinned_cpu >= 0)
        fprintf(f, "%d", m->pinned_cpu);
    else
        fputs("null", f);
    fputs(", \"detail\": ", f);
    jstr(f, m->pin);
    fputs("},\n    \"clock\": {\"time\": \"clock_gettime(CLOCK_MONOTONIC)\", \"counter\": ", f);
    jstr(f, counter_kind_name(m->counter));
    fputs(", \"counter_unit\": ", f);
    jstr(f, m->counter == CNT_NONE ? NULL : counter_unit(m->counter));
    fputs(", \"counter_is_core_cycles\": ", f);
    fputs(m->counter == CNT_PERF ? "true" : "false", f);
    fputs(", \"detail\": ", f);
    jstr(f, bench_counter_desc(m, desc, sizeof desc));
    fputs(", \"tsc_mhz_estimate\": ", f);
    jnum(f, m->tsc_mhz > 0 ? m->tsc_mhz : NAN);
    fputs(", \"core_mhz_estimate\": ", f);
    jnum(f, m->core_mhz > 0 ? m->core_mhz : NAN);
    fputs(", \"core_mhz_method\": \"dependent register-add chain, 1 cycle per add assumed\"}",
          f);
    fputs(",\n    \"openssl_noaesni_child\": ", f);
    if (run->noaesni >= 0) {
        fputs("{\"openssl_version\": ", f);
        jstr(f, m->peer.openssl_version);
        fputs(", \"OPENSSL_ia32cap\": ", f);
        jstr(f, m->peer.ia32cap);
        fputs(", \"counter\": ", f);
        jstr(f, m->peer.counter);
        fputs("}", f);
    } else {
        fputs("null", f);
    }
    fputs("\n  }", f);
}

static void json_method(FILE *f, const bench_run *run)
{
    const bench_opts *o = &run->opts;
    fputs("{", f);
    fprintf(f, "\"min_sample_ms\": %g, \"repeats\": %d, \"warmup_ms\": %g, ", o->min_time_ms,
            o->repeats, run->machine.warmup_ms);
    fputs("\"statistic\": \"median\", \"in_place\": true, \"interleaved\": true, "
          "\"per_op\": \"one call over the whole message on a keyed context; key and IV set-up "
          "excluded; CBC IV and CTR counter carry on between calls; gcm-seal and gcm-open: one "
          "whole message per call (12-byte IV, 16 bytes of AAD, the text, a 16-byte tag), IV "
          "set-up included, seal in place, open of a prepared sealed message into a separate "
          "buffer; bytes count the text only; xts-enc and xts-dec: one data unit per call with "
          "a 16-byte tweak, tweak set-up included, in place, AES-128-XTS and AES-256-XTS (key "
          "twice the AES key; no AES-192-XTS); xts-sectors-enc: 262144 bytes of sectors of "
          "xts_sector_bytes per call (tweak = sector number, 16 bytes little-endian), whatever "
          "the sizes\", "
          "\"mb_per_s\": \"10^6 bytes per second\", "
          "\"ratio\": \"speed relative to the named row in this run: ref_ns / this_ns\", "
          "\"check_bytes\": 8192, ",
          f);
    fprintf(f, "\"xts_sector_bytes\": %zu, \"cbc_streams\": %u, \"stream_gap\": %zu, ", bench_xts_sector_bytes,
            bench_cbc_streams, bench_stream_gap);
    fputs("\"load_average_at_start\": ", f);
    jstr(f, run->machine.loadavg);
    fprintf(f, ", \"samples\": %ld, \"preempted_samples\": ", run->samples);
    if (run->samples > run->preempt_unknown)
        fprintf(f, "%ld", run->preempted);
    else
        fputs("null", f);
    fputs("}", f);
}

static void json_dispatch(FILE *f, const bench_run *run)
{
    fputs("[", f);
    for (int k = 0; k < NKEYS; k++) {
        fprintf(f, "%s\n    {\"key_bits\": %u", k ? "," : "", bench_key_bits[k]);
        for (int d = 0; d < 2; d++) {
            fprintf(f, ", \"%s\": {\"backend\": ", d ? "decrypt" : "encrypt");
            jstr(f, run->dispatch[k].backend[d]);
            fputs(", \"variant\": ", f);
            jstr(f, run->dispatch[k].variant[d]);
            fputs("}", f);
        }
        fputs("}", f);
    }
    fputs("\n  ]", f);
}

/* Why dispatch chose: the CPU model and its row of the per-CPU table (or null). */
static void json_dispatch_cpu(FILE *f, const bench_machine *m)
{
    fputs("{\"cpu_id\": ", f);
    jstr(f, m->cpu_id);
    fputs(", \"ghash\": ", f);
    jstr(f, m->ghash);
    fputs(", \"cpu_row\": ", f);
    if (m->cpu_prefer) {
        fputs("{\"name\": ", f);
        jstr(f, m->cpu_name);
        fputs(", \"prefer\": ", f);
        jstr(f, m->cpu_prefer);
        fputs(", \"why\": ", f);
        jstr(f, m->cpu_why);
        fputs(", \"source\": ", f);
        jstr(f, m->cpu_source);
        fputs("}", f);
    } else {
        fputs("null", f);
    }
    fputs("}", f);
}

static void json_backends(FILE *f)
{
    const char *names[MAX_IMPLS];
    int nb = bench_unique_backends(names, MAX_IMPLS);
    fputs("[", f);
    for (int j = 0; j < nb; j++) {
        fputs(j ? ", " : "", f);
        fputs("{\"name\": ", f);
        jstr(f, names[j]);
        fprintf(f, ", \"supported\": %s}",
                aesgen_backend_supported(names[j]) == 1 ? "true" : "false");
    }
    fputs("]", f);
}

static void json_implementations(FILE *f, const bench_run *run)
{
    /* by enum impl_kind */
    static const char *const kinds[] = {"aesgen",     "openssl", "bearssl", "openssl-child",
                                        "rustcrypto", "gcrypt",  "ipsecmb"};
    fputs("[", f);
    for (int i = 0; i < run->nimpl; i++) {
        const impl *im = &run->impls[i];
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
                if (!run->opts.key_sel[k])
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
                    for (int d = 0; d < 2; d++) {
                        fprintf(f, ", \"%s_issue_bound_mb_per_s\": ", d ? "decrypt" : "encrypt");
                        if (im->issue_bpc[k][d] > 0 && run->machine.core_mhz > 0)
                            fprintf(f, "%.1f", im->issue_bpc[k][d] * run->machine.core_mhz);
                        else
                            fputs("null", f);
                    }
                    fputs("}", f);
                } else {
                    fputs("null", f);
                }
            }
            fputs("}", f);
        }
        fputs("}", f);
    }
    fputs("\n  ]", f);
}

/* One row object (without the separator before it). */
static void json_row(FILE *f, const bench_run *run, int i, int k, int op, int si)
{
    const bench_row *r = bench_row_at(run, i, k, op, si);
    size_t len = bench_op_size(&run->opts, op, si);
    fputs("{\"impl\": ", f);
    jstr(f, run->impls[i].name);
    fprintf(f, ", \"op\": \"%s\", \"key_bits\": %u, \"bytes\": %zu, \"status\": \"%s\"",
            bench_op_name[op], bench_key_bits[k], len, row_status_name[r->status]);
    if (r->status != ROW_OK) {
        fputs(", \"note\": ", f);
        jstr(f, r->note);
        fputs("}", f);
        return;
    }
    fprintf(f, ", \"iterations_per_sample\": %llu, \"samples\": %d, "
               "\"preempted_samples\": %d, \"ns_per_op\": ",
            (unsigned long long)r->iters, r->n, r->preempted);
    jstats(f, &r->ns_st, 1.0);
    fputs(", \"mb_per_s\": {\"median\": ", f);
    jnum(f, bench_mbps(len, r->ns_st.med));
    fputs(", \"min\": ", f);
    jnum(f, bench_mbps(len, r->ns_st.max));
    fputs(", \"max\": ", f);
    jnum(f, bench_mbps(len, r->ns_st.min));
    fputs("}, \"count_unit\": ", f);
    jstr(f, r->have_cnt ? counter_unit(run->machine.counter) : NULL);
    fputs(", \"count_per_op\": ", f);
    if (r->have_cnt)
        jstats(f, &r->cnt_st, 1.0);
    else
        fputs("null", f);
    fputs(", \"count_per_byte\": ", f);
    jnum(f, r->have_cnt ? r->cnt_st.med / (double)len : NAN);
    fputs(", \"ratio_to_openssl\": ", f);
    jnum(f, bench_ratio(r, bench_row_at(run, run->base, k, op, si)));
    fputs(", \"ratio_to_openssl_noaesni\": ", f);
    jnum(f, run->noaesni >= 0 ? bench_ratio(r, bench_row_at(run, run->noaesni, k, op, si)) : NAN);
    fputs("}", f);
}

static void json_rows(FILE *f, const bench_run *run)
{
    const bench_opts *o = &run->opts;
    int first = 1;
    fputs("[", f);
    for (int op = 0; op < OP_COUNT; op++) {
        if (!o->op_sel[op])
            continue;
        for (int k = 0; k < NKEYS; k++) {
            if (!o->key_sel[k])
                continue;
            for (int si = 0; si < bench_op_nsizes(o, op); si++) {
                for (int i = 0; i < run->nimpl; i++) {
                    fputs(first ? "\n    " : ",\n    ", f);
                    first = 0;
                    json_row(f, run, i, k, op, si);
                }
            }
        }
    }
    fputs("\n  ]", f);
}

/* ---- the document ----------------------------------------------------- */

void bench_report_json(FILE *f, const bench_run *run)
{
    fputs("{\n  \"tool\": \"aesgen-bench\",\n  \"schema_version\": 1,\n  \"mode\": ", f);
    jstr(f, run->opts.quick ? "quick" : "full");
    fputs(",\n  \"status\": ", f);
    jstr(f, run->failed ? "failed" : "ok");
    fputs(",\n  \"machine\": ", f);
    json_machine(f, run);
    fputs(",\n  \"method\": ", f);
    json_method(f, run);
    fputs(",\n  \"aesgen_backend_env\": ", f);
    jstr(f, run->machine.aesgen_env);
    fputs(",\n  \"dispatch\": ", f);
    json_dispatch(f, run);
    fputs(",\n  \"dispatch_reason\": ", f);
    json_dispatch_cpu(f, &run->machine);
    fputs(",\n  \"backends\": ", f);
    json_backends(f);
    fputs(",\n  \"implementations\": ", f);
    json_implementations(f, run);
    fputs(",\n  \"rows\": ", f);
    json_rows(f, run);
    fputs(",\n  \"errors\": ", f);
    jlist(f, run->errors, run->nerrors);
    fputs(",\n  \"notes\": ", f);
    jlist(f, run->notes, run->nnotes);
    fputs("\n}\n", f);
}
