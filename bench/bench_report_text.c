/*
 * bench_report_text.c -- aesgen-bench's human output: the header (versions,
 * CPU, pinning, counter, method, noise), the dispatch summary, the
 * implementations legend, the compact --quick table or one line per row,
 * the errors and notes; and the Linux tcrypt-style lines.
 */
#define _GNU_SOURCE
#include "bench_report.h"

#include "aesgen.h"
#include "aesgen_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- header ----------------------------------------------------------- */

const char *bench_counter_desc(const bench_machine *m, char *buf, size_t n)
{
    switch (m->counter) {
    case CNT_PERF:
        snprintf(buf, n,
                 "core cycles from perf_event_open(PERF_COUNT_HW_CPU_CYCLES), user space only");
        break;
    case CNT_TSC:
        snprintf(buf, n,
                 "TSC ticks from rdtsc (TSC ~%.0f MHz; core clock ~%.0f MHz est.), NOT core "
                 "cycles%s%s",
                 m->tsc_mhz, m->core_mhz, m->counter_why[0] ? "; " : "", m->counter_why);
        break;
    default:
        snprintf(buf, n,
                 "ns from clock_gettime(CLOCK_MONOTONIC), no cycle or tick counter (%s)",
                 m->counter_why[0] ? m->counter_why : "--counter none");
        break;
    }
    return buf;
}

/* The counter-per-byte column's heading; NULL without a counter. */
static const char *count_col(const bench_machine *m)
{
    return m->counter == CNT_PERF ? "cyc/B" : m->counter == CNT_TSC ? "tick/B" : NULL;
}

static void print_header(FILE *f, const bench_run *run)
{
    const bench_opts *o = &run->opts;
    const bench_machine *m = &run->machine;
    char desc[640];
    fprintf(f, "aesgen-bench: aesgen %s; %s; compiler %s%s%s\n", aesgen_version_string(),
            impl_openssl_version(), machine_compiler(), AESGEN_BENCH_BUILD_TYPE[0] ? ", " : "",
            AESGEN_BENCH_BUILD_TYPE);
    fprintf(f, "CPU: %s (%ld online); %s\n", m->cpu, m->online_cpus, m->pin);
    fprintf(f, "time: clock_gettime(CLOCK_MONOTONIC); counter: %s\n",
            bench_counter_desc(m, desc, sizeof desc));
    fprintf(f,
            "method: in place, one call per operation on a keyed context (GCM: one whole "
            "message per call, IV, 16 B AAD and tag included; gcm-open into a separate buffer; "
            "XTS: one data unit per call, tweak included; xts-sectors-enc: 64 sectors of 4 KiB "
            "per call); "
            "samples >= %g ms, median of %d, rows interleaved; MB/s = 10^6 B/s of text; ratio = "
            "speed relative to the peer in this run (>1 = faster)\n",
            o->min_time_ms, o->repeats);
    if (run->samples > run->preempt_unknown)
        fprintf(f,
                "noise: %ld of %ld samples were preempted (involuntary context switch); load "
                "average at start %s; compare ratios within one run\n",
                run->preempted, run->samples - run->preempt_unknown, m->loadavg);
}

/* ---- legends ---------------------------------------------------------- */

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

static void print_impl_legend(FILE *f, const bench_run *run)
{
    const bench_opts *o = &run->opts;
    /* "  name(18) desc...", then per key size and direction "AES-128 enc:
     * variant" with the variant's info (how it computes) on the line below. */
    const int desc_col = 2 + 18 + 1, key_col = desc_col + 2, info_col = key_col + 2;
    fprintf(f, "\nimplementations:\n");
    for (int i = 0; i < run->nimpl; i++) {
        const impl *im = &run->impls[i];
        int n = fprintf(f, "  %-18s ", im->name);
        print_wrapped(f, n > 0 ? n : desc_col, desc_col, im->desc);
        if (im->kind != IMPL_AESGEN)
            continue;
        for (int k = 0; k < NKEYS; k++) {
            if (!o->key_sel[k])
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
                if (im->issue_bpc[k][d] > 0) {
                    const aesgen_variant *v = aesgen_find_variant(im->variant[k][d]);
                    fprintf(f, "%*sissue bound: %.2f B/cycle (%u ops per %u blocks at %u per cycle), "
                               "%.0f MB/s at ~%.0f MHz\n",
                            info_col, "", im->issue_bpc[k][d], v ? (unsigned)v->core_ops : 0u,
                            v ? (unsigned)v->batch_blocks : 0u, v ? (unsigned)v->issue_per_cycle : 0u,
                            im->issue_bpc[k][d] * run->machine.core_mhz, run->machine.core_mhz);
                }
            }
        }
    }
}

static void print_dispatch(FILE *f, const bench_run *run)
{
    const bench_machine *m = &run->machine;
    fprintf(f, "\ndispatch (what aesgen_init picks%s%s%s):\n",
            m->aesgen_env ? " with AESGEN_BACKEND=" : " automatically",
            m->aesgen_env ? m->aesgen_env : "", m->aesgen_env ? " set" : "");
    for (int k = 0; k < NKEYS; k++)
        fprintf(f, "  AES-%u  encrypt: %-12s %-40s decrypt: %-12s %s\n", bench_key_bits[k],
                run->dispatch[k].backend[0], run->dispatch[k].variant[0],
                run->dispatch[k].backend[1], run->dispatch[k].variant[1]);
    fprintf(f, "  GHASH: %s\n", m->ghash);
    if (m->cpu_prefer)
        fprintf(f, "  why: CPU %s is in the per-CPU table (%s): %s; %s [%s]\n", m->cpu_id, m->cpu_name,
                m->cpu_prefer, m->cpu_why, m->cpu_source);
    else
        fprintf(f, "  why: CPU %s has no row in the per-CPU table (generator/cpus/): the targets' ranks decide\n",
                m->cpu_id);
    const char *names[MAX_IMPLS];
    int nb = bench_unique_backends(names, MAX_IMPLS);
    fprintf(f, "  backends:");
    for (int j = 0; j < nb; j++)
        fprintf(f, " %s (%s)", names[j],
                aesgen_backend_supported(names[j]) == 1 ? "runs here" : "not on this CPU");
    fprintf(f, "%s\n", nb ? "" : " none");
}

/* ---- tables ----------------------------------------------------------- */

static const char *cell_status(const bench_row *r)
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
static int name_width(const bench_run *run, int min)
{
    int w = min;
    for (int i = 0; i < run->nimpl; i++)
        if ((int)strlen(run->impls[i].name) > w)
            w = (int)strlen(run->impls[i].name);
    return w;
}

/* Width of an operation's column in the compact layout. */
static int op_col(int op)
{
    int w = (int)strlen(bench_op_name[op]) + 2;
    return w > 12 ? w : 12;
}

/* For a software row: ECB throughput as a fraction of its variant's issue bound at the
 * estimated core clock (the other operations do more than the core: "-"). */
static void print_issue_line(FILE *f, const bench_run *run, int i, int k, int si, int fixed, int nw)
{
    const impl *im = &run->impls[i];
    const bench_opts *o = &run->opts;
    if (!(im->issue_bpc[k][0] > 0 || im->issue_bpc[k][1] > 0) || !(run->machine.core_mhz > 0))
        return;
    fprintf(f, "  %-*s", nw, "  of issue bound");
    for (int op = 0; op < OP_COUNT; op++) {
        if (!o->op_sel[op] || bench_op_fixed_len(op) != fixed)
            continue;
        const bench_row *r = bench_row_at(run, i, k, op, si);
        double bound = (op == OP_ECB_ENC ? im->issue_bpc[k][0] : op == OP_ECB_DEC ? im->issue_bpc[k][1] : 0) *
                       run->machine.core_mhz;
        char cell[32];
        if (bound > 0 && r->status == ROW_OK)
            snprintf(cell, sizeof cell, "%.0f%% ", 100.0 * bench_mbps(bench_op_size(o, op, si), r->ns_st.med) / bound);
        else
            snprintf(cell, sizeof cell, "- ");
        fprintf(f, "%*s", op_col(op), cell);
    }
    fprintf(f, "\n");
}

/* One block of the compact layout: size index si, operations as columns,
 * either those that run at every --sizes entry (fixed 0) or those of a fixed
 * length (fixed 1, si 0: xts-sectors-enc). */
static void print_compact_block(FILE *f, const bench_run *run, int si, int fixed, int nw)
{
    const bench_opts *o = &run->opts;
    int any = -1;
    for (int op = 0; op < OP_COUNT && any < 0; op++)
        if (o->op_sel[op] && bench_op_fixed_len(op) == fixed)
            any = op;
    if (any < 0)
        return;
    size_t len = bench_op_size(o, any, si);
    if (fixed)
        fprintf(f, "\n%zu-byte operations (xts-sectors-enc: %zu sectors of %zu B in one call): MB/s "
                   "(median of %d; ~ = interquartile range > 5%%)\n",
                len, len / bench_xts_sector_bytes, bench_xts_sector_bytes, o->repeats);
    else
        fprintf(f, "\n%zu-byte messages: MB/s (median of %d; ~ = interquartile range > 5%%)\n",
                len, o->repeats);
    for (int k = 0; k < NKEYS; k++) {
        if (!o->key_sel[k])
            continue;
        fprintf(f, "AES-%-*u", nw - 2, bench_key_bits[k]);
        for (int op = 0; op < OP_COUNT; op++)
            if (o->op_sel[op] && bench_op_fixed_len(op) == fixed)
                fprintf(f, "%*s", op_col(op), bench_op_name[op]);
        fprintf(f, "\n");
        for (int i = 0; i < run->nimpl; i++) {
            fprintf(f, "  %-*s", nw, run->impls[i].name);
            for (int op = 0; op < OP_COUNT; op++) {
                if (!o->op_sel[op] || bench_op_fixed_len(op) != fixed)
                    continue;
                const bench_row *r = bench_row_at(run, i, k, op, si);
                char cell[32];
                if (r->status == ROW_OK)
                    snprintf(cell, sizeof cell, "%.1f%s", bench_mbps(len, r->ns_st.med),
                             bench_noisy(r) ? "~" : " ");
                else
                    snprintf(cell, sizeof cell, "%s ", cell_status(r));
                fprintf(f, "%*s", op_col(op), cell);
            }
            fprintf(f, "\n");
            if (run->impls[i].kind != IMPL_AESGEN)
                continue;
            print_issue_line(f, run, i, k, si, fixed, nw);
            int refs[2] = {run->base, run->noaesni};
            for (int x = 0; x < 2; x++) {
                if (refs[x] < 0)
                    continue;
                char label[64];
                snprintf(label, sizeof label, "  vs %s", run->impls[refs[x]].name);
                fprintf(f, "  %-*s", nw, label);
                for (int op = 0; op < OP_COUNT; op++) {
                    if (!o->op_sel[op] || bench_op_fixed_len(op) != fixed)
                        continue;
                    double q = bench_ratio(bench_row_at(run, i, k, op, si),
                                           bench_row_at(run, refs[x], k, op, si));
                    char cell[32];
                    if (isnan(q))
                        snprintf(cell, sizeof cell, "- ");
                    else
                        snprintf(cell, sizeof cell, "%.3fx ", q);
                    fprintf(f, "%*s", op_col(op), cell);
                }
                fprintf(f, "\n");
            }
        }
    }
}

/* The compact layout: one block per (size, key), operations as columns; then
 * one block for the operations of a fixed length. */
static void print_compact(FILE *f, const bench_run *run)
{
    const int nw = name_width(run, 28);
    for (int si = 0; si < run->opts.nsizes; si++)
        print_compact_block(f, run, si, 0, nw);
    print_compact_block(f, run, 0, 1, nw);
}

/* The full layout: one line per (operation, key, size, implementation). */
static void print_lines(FILE *f, const bench_run *run)
{
    const bench_opts *o = &run->opts;
    const char *cc = count_col(&run->machine);
    const int nw = name_width(run, 20);
    int ow = 8; /* the op column: its longest selected name */
    for (int op = 0; op < OP_COUNT; op++)
        if (o->op_sel[op] && (int)strlen(bench_op_name[op]) > ow)
            ow = (int)strlen(bench_op_name[op]);
    fprintf(f, "\n%-*s %4s %8s  %-*s %12s %10s %9s %9s %9s\n", ow, "op", "key", "bytes", nw,
            "implementation", "ns/op", "MB/s", cc ? cc : "", "vs ossl", "vs noaesni");
    for (int op = 0; op < OP_COUNT; op++) {
        if (!o->op_sel[op])
            continue;
        for (int k = 0; k < NKEYS; k++) {
            if (!o->key_sel[k])
                continue;
            if (bench_op_na(op, k, 0)) { /* one line, not one per row: AES-192-XTS */
                fprintf(f, "\n%-*s %4u %8s  every implementation n/a: %s\n", ow,
                        bench_op_name[op], bench_key_bits[k], "-", bench_op_na(op, k, 0));
                continue;
            }
            for (int si = 0; si < bench_op_nsizes(o, op); si++) {
                const size_t len = bench_op_size(o, op, si);
                fprintf(f, "\n");
                for (int i = 0; i < run->nimpl; i++) {
                    const bench_row *r = bench_row_at(run, i, k, op, si);
                    fprintf(f, "%-*s %4u %8zu  %-*s", ow, bench_op_name[op], bench_key_bits[k],
                            len, nw, run->impls[i].name);
                    if (r->status != ROW_OK) {
                        fprintf(f, " %12s  %s\n", cell_status(r), r->note);
                        continue;
                    }
                    char mb[32], cnt[32] = "", q1[32] = "-", q2[32] = "-";
                    snprintf(mb, sizeof mb, "%.1f%s", bench_mbps(len, r->ns_st.med),
                             bench_noisy(r) ? "~" : "");
                    if (r->have_cnt)
                        snprintf(cnt, sizeof cnt, "%.2f", r->cnt_st.med / (double)len);
                    double a = bench_ratio(r, bench_row_at(run, run->base, k, op, si));
                    double b = run->noaesni >= 0
                                   ? bench_ratio(r, bench_row_at(run, run->noaesni, k, op, si))
                                   : NAN;
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

/* ---- tcrypt ----------------------------------------------------------- */

/* Linux tcrypt style: "test N (K bit key, S byte blocks): 1 operation in C
 * cycles (S bytes)", with the unit the counter deserves. */
void bench_report_tcrypt(FILE *f, const bench_run *run)
{
    const bench_opts *o = &run->opts;
    const bench_machine *m = &run->machine;
    const char *unit = counter_unit(m->counter);
    char desc[640];
    fprintf(f, "# aesgen-bench --format tcrypt: counts are %s; median of %d samples per line\n",
            bench_counter_desc(m, desc, sizeof desc), o->repeats);
    static const char *const mode[OP_COUNT] = {"ecb(aes)", "ecb(aes)", "ctr(aes)", "cbc(aes)",
                                               "cbc(aes)", "gcm(aes)", "gcm(aes)", "xts(aes)",
                                               "xts(aes)", "xts(aes)", "cbc(aes)"};
    static const int order[OP_COUNT] = {OP_ECB_ENC, OP_ECB_DEC,  OP_CBC_ENC,  OP_CBC_DEC,
                                        OP_CTR,     OP_GCM_SEAL, OP_GCM_OPEN, OP_XTS_ENC,
                                        OP_XTS_DEC, OP_XTS_SECTORS_ENC, OP_CBC_STREAMS_ENC};
    for (int i = 0; i < run->nimpl; i++) {
        for (int oi = 0; oi < OP_COUNT; oi++) {
            int op = order[oi];
            if (!o->op_sel[op])
                continue;
            fprintf(f, "\ntesting speed of %s (%s) %s%s\n", mode[op], run->impls[i].name,
                    bench_op_is_decrypt(op) ? "decryption" : "encryption",
                    op == OP_XTS_SECTORS_ENC    ? " (64 sectors of 4096 bytes per operation)"
                    : op == OP_CBC_STREAMS_ENC ? " (independent streams, all of them per operation)"
                                               : "");
            int t = 0;
            for (int k = 0; k < NKEYS; k++) {
                if (!o->key_sel[k])
                    continue;
                for (int si = 0; si < bench_op_nsizes(o, op); si++, t++) {
                    const bench_row *r = bench_row_at(run, i, k, op, si);
                    const size_t len = bench_op_size(o, op, si);
                    /* XTS: the key is twice the AES key, as tcrypt counts it */
                    fprintf(f, "test %d (%u bit key, %zu byte blocks): ", t,
                            bench_key_bits[k] * (bench_op_is_xts(op) ? 2 : 1), len);
                    if (r->status != ROW_OK)
                        fprintf(f, "%s (%s)\n", cell_status(r), r->note);
                    else if (m->counter != CNT_NONE && r->have_cnt)
                        fprintf(f, "1 operation in %.0f %s (%zu bytes)\n", r->cnt_st.med, unit,
                                len);
                    else
                        fprintf(f, "1 operation in %.0f ns (%zu bytes)\n", r->ns_st.med,
                                len);
                }
            }
        }
    }
}

/* ---- the text report -------------------------------------------------- */

void bench_report_text(FILE *f, const bench_run *run)
{
    print_header(f, run);
    if (run->opts.quick)
        print_dispatch(f, run);
    print_impl_legend(f, run);
    if (run->opts.quick)
        print_compact(f, run);
    else
        print_lines(f, run);
    if (run->nerrors) {
        fprintf(f, "\nerrors:\n");
        for (int i = 0; i < run->nerrors; i++)
            fprintf(f, "  %s\n", run->errors[i]);
    }
    if (run->nnotes) {
        fprintf(f, "\nnotes:\n");
        for (int i = 0; i < run->nnotes; i++)
            fprintf(f, "  %s\n", run->notes[i]);
    }
}
