/*
 * bench_measure.c -- the rows of one aesgen-bench run checked against
 * OpenSSL, calibrated and sampled (interleaved, rotated each round), and
 * the statistics the reports read.
 */
#define _GNU_SOURCE
#include "bench_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- rows ------------------------------------------------------------- */

bench_row *bench_row_at(const bench_run *run, int im, int k, int op, int si)
{
    return &run->rows[((im * NKEYS + k) * OP_COUNT + op) * run->opts.nsizes + si];
}

int bench_op_nsizes(const bench_opts *o, int op)
{
    return bench_op_fixed_len(op) ? 1 : o->nsizes;
}

size_t bench_op_size(const bench_opts *o, int op, int si)
{
    return bench_op_len(op, o->sizes[si]);
}

/* ---- statistics ------------------------------------------------------- */

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

static void stats_of(const double *v, int n, bench_stats *st)
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

double bench_mbps(size_t bytes, double ns) { return ns > 0 ? (double)bytes / ns * 1e3 : 0; }

double bench_ratio(const bench_row *r, const bench_row *ref)
{
    if (!ref || r->status != ROW_OK || ref->status != ROW_OK || r->ns_st.med <= 0)
        return NAN;
    return ref->ns_st.med / r->ns_st.med;
}

int bench_noisy(const bench_row *r)
{
    return r->n >= 3 && r->ns_st.med > 0 && (r->ns_st.q3 - r->ns_st.q1) / r->ns_st.med > 0.05;
}

/* ---- correctness ------------------------------------------------------ */

/* One row, one size: OpenSSL's output next to the row's. For gcm-seal both
 * are ciphertext || tag; for gcm-open the row opens a message OpenSSL sealed
 * (bench_prepare) and must give back the canonical plaintext, which OpenSSL
 * also gets by sealing and opening it; xts-dec likewise decrypts OpenSSL's
 * XTS ciphertext. */
static int check_once(impl *im, int k, int op, size_t len, uint8_t *buf, uint8_t *ref,
                      char *note, size_t notelen)
{
    uint8_t iv[16];
    size_t out = bench_out_bytes(op, len);
    bench_start_iv(op, im->ctr32, iv);
    bench_fill(ref, bench_in_bytes(op, len));
    int rc = op == OP_GCM_OPEN  ? bench_reference(OP_GCM_SEAL, k, iv, ref, len)
             : op == OP_XTS_DEC ? bench_reference(OP_XTS_ENC, k, iv, ref, len)
                                : 0;
    if (rc != 0 || bench_reference(op, k, iv, ref, len) != 0) {
        snprintf(note, notelen, "OpenSSL reference failed");
        return ROW_ERROR;
    }
    if (im->remote_check) {
        uint64_t h;
        if (im->remote_check(im, k, op, len, &h) != 0) {
            snprintf(note, notelen, "check in the child process failed");
            return ROW_ERROR;
        }
        if (h != bench_fnv64(ref, out)) {
            snprintf(note, notelen, "output differs from OpenSSL at %zu bytes (hash)", len);
            return ROW_MISMATCH;
        }
        return ROW_OK;
    }
    if (bench_prepare(op, k, buf, len) != 0) {
        snprintf(note, notelen, "OpenSSL failed to prepare the input");
        return ROW_ERROR;
    }
    rc = im->reset(im, k, op);
    rc |= im->loop(im, k, op, buf, len, 1);
    rc |= im->reset(im, k, op);
    if (rc) {
        snprintf(note, notelen, "%s during the check at %zu bytes",
                 op == OP_GCM_OPEN ? "the call failed or rejected a valid tag" : "call failed",
                 len);
        return ROW_ERROR;
    }
    for (size_t i = 0; i < out; i++)
        if (buf[i] != ref[i]) {
            snprintf(note, notelen,
                     "%s differs from OpenSSL at %zu bytes (first difference at byte %zu)",
                     i >= len ? "tag" : "output", len, i);
            return ROW_MISMATCH;
        }
    return ROW_OK;
}

void bench_run_check_all(bench_run *run)
{
    const bench_opts *o = &run->opts;
    uint8_t *buf = run->buf, *ref = run->ref;
    for (int i = 0; i < run->nimpl; i++) {
        impl *im = &run->impls[i];
        for (int k = 0; k < NKEYS; k++) {
            if (!o->key_sel[k])
                continue;
            for (int op = 0; op < OP_COUNT; op++) {
                if (!o->op_sel[op])
                    continue;
                char *note = run->chk_note[i][k][op];
                if (bench_op_na(op, k, 0)) { /* no row can (AES-192-XTS) */
                    run->chk[i][k][op] = ROW_NA;
                    snprintf(note, sizeof run->chk_note[i][k][op], "%s", bench_op_na(op, k, 0));
                    continue;
                }
                if (!im->key_ok[k] || !im->op_ok[op]) {
                    run->chk[i][k][op] = ROW_NA;
                    snprintf(note, sizeof run->chk_note[i][k][op], "%s",
                             !im->key_ok[k] && im->key_note[k][0] ? im->key_note[k]
                             : im->op_note[op][0]                 ? im->op_note[op]
                                                                  : "not offered");
                    continue;
                }
                if (im->remote_check && !peer_alive(im)) {
                    run->chk[i][k][op] = ROW_SKIPPED;
                    snprintf(note, sizeof run->chk_note[i][k][op], "peer process not running");
                    continue;
                }
                size_t notelen = sizeof run->chk_note[i][k][op];
                /* CHECK_BYTES (per stream for cbc-enc-streams), then every timed size it
                 * can run at */
                const size_t check_len = bench_op_len(op, CHECK_BYTES);
                int st = bench_op_fixed_len(op)
                             ? ROW_OK
                             : check_once(im, k, op, check_len, buf, ref, note, notelen);
                for (int si = 0; st == ROW_OK && si < bench_op_nsizes(o, op); si++) {
                    size_t len = bench_op_size(o, op, si);
                    if ((len != check_len || bench_op_fixed_len(op)) && !bench_op_na(op, k, len))
                        st = check_once(im, k, op, len, buf, ref, note, notelen);
                }
                run->chk[i][k][op] = st;
                if (st != ROW_OK)
                    bench_run_error(run, "%s AES-%u %s: %s; row not timed", im->name,
                                    bench_key_bits[k], bench_op_name[op], note);
            }
        }
    }
}

/* ---- measurement ------------------------------------------------------ */

/* The iteration count that makes one sample last at least --min-time-ms. */
static int calibrate(const bench_run *run, impl *im, int k, int op, size_t len, uint64_t *iters)
{
    uint8_t *buf = run->buf;
    double min_ns = run->opts.min_time_ms * 1e6;
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

/* Row i of the group failed while timing: say why, and fail the run. */
static void timing_failed(bench_run *run, int i, int k, int op, size_t len, bench_row *r)
{
    r->status = ROW_ERROR;
    snprintf(r->note, sizeof r->note, "%s", timing_failure(&run->impls[i]));
    bench_run_error(run, "%s AES-%u %s %zu B: %s", run->impls[i].name, bench_key_bits[k],
                    bench_op_name[op], len, r->note);
}

/* One (key, operation, size) group: calibrate every row that passed the
 * check, then take --repeats rounds with the rows rotated each round, so
 * noise hits every row alike. */
static void measure_group(bench_run *run, int k, int op, int si)
{
    const bench_opts *o = &run->opts;
    uint8_t *buf = run->buf;
    size_t len = bench_op_size(o, op, si);
    const char *na = bench_op_na(op, k, len);
    int members[MAX_IMPLS], nm = 0;
    int prepared = na || bench_prepare(op, k, buf, len) == 0; /* outside every timing */
    if (!prepared)
        bench_run_error(run, "AES-%u %s %zu B: OpenSSL failed to prepare the input (%s)",
                        bench_key_bits[k], bench_op_name[op], len,
                        op == OP_XTS_DEC ? "the ciphertext to decrypt" : "the message to open");
    for (int i = 0; i < run->nimpl; i++) {
        bench_row *r = bench_row_at(run, i, k, op, si);
        r->status = run->chk[i][k][op];
        snprintf(r->note, sizeof r->note, "%s", run->chk_note[i][k][op]);
        if (r->status == ROW_OK && na) { /* this size only (an XTS unit > 16 MiB) */
            r->status = ROW_NA;
            snprintf(r->note, sizeof r->note, "%s", na);
        }
        if (r->status != ROW_OK)
            continue;
        if (!prepared) {
            r->status = ROW_ERROR;
            snprintf(r->note, sizeof r->note, "no prepared input (OpenSSL failed)");
            continue;
        }
        if (run->impls[i].remote_sample && !peer_alive(&run->impls[i])) {
            r->status = ROW_SKIPPED;
            snprintf(r->note, sizeof r->note, "peer process not running");
            continue;
        }
        if (calibrate(run, &run->impls[i], k, op, len, &r->iters) != 0) {
            timing_failed(run, i, k, op, len, r);
            continue;
        }
        r->ns = calloc((size_t)o->repeats, sizeof *r->ns);
        r->cnt = calloc((size_t)o->repeats, sizeof *r->cnt);
        if (!r->ns || !r->cnt) {
            fprintf(stderr, "aesgen-bench: error: out of memory\n");
            exit(1);
        }
        members[nm++] = i;
    }
    for (int rep = 0; rep < o->repeats; rep++) {
        for (int j = 0; j < nm; j++) {
            int i = members[(j + rep) % nm];
            bench_row *r = bench_row_at(run, i, k, op, si);
            bench_sample s;
            if (r->status != ROW_OK)
                continue;
            if (impl_sample(&run->impls[i], k, op, buf, len, r->iters, &s) != 0) {
                timing_failed(run, i, k, op, len, r);
                continue;
            }
            run->samples++;
            if (s.preempted < 0)
                run->preempt_unknown++;
            else if (s.preempted > 0) {
                run->preempted++;
                r->preempted++;
            }
            r->ns[r->n] = s.ns / (double)r->iters;
            r->cnt[r->n] = s.count >= 0 ? s.count / (double)r->iters : -1.0;
            r->n++;
        }
    }
    for (int j = 0; j < nm; j++) {
        bench_row *r = bench_row_at(run, members[j], k, op, si);
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

void bench_run_measure_all(bench_run *run)
{
    const bench_opts *o = &run->opts;
    int total = 0, done = 0;
    int progress = isatty(2);
    for (int k = 0; k < NKEYS; k++)
        for (int op = 0; op < OP_COUNT; op++)
            if (o->key_sel[k] && o->op_sel[op])
                total += bench_op_nsizes(o, op);
    for (int k = 0; k < NKEYS; k++) {
        if (!o->key_sel[k])
            continue;
        for (int op = 0; op < OP_COUNT; op++) {
            if (!o->op_sel[op])
                continue;
            for (int si = 0; si < bench_op_nsizes(o, op); si++) {
                done++;
                if (progress)
                    fprintf(stderr, "\r  measuring %d/%d: AES-%u %s %zu B        ", done, total,
                            bench_key_bits[k], bench_op_name[op], bench_op_size(o, op, si));
                measure_group(run, k, op, si);
            }
        }
    }
    if (progress)
        fprintf(stderr, "\r%70s\r", "");
}
