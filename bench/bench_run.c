/*
 * bench_run.c -- setting up one aesgen-bench run: what dispatch picks,
 * which backends and peers become rows, the machine facts, the counter,
 * the warm-up, memory, and the messages (errors and notes) the reports
 * list. Checking and measuring the rows is bench_measure.c. All state is in
 * the bench_run the caller passes.
 */
#define _GNU_SOURCE
#include "bench_run.h"

#include "aesgen.h"
#include "aesgen_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- messages --------------------------------------------------------- */

static void push_msg(const char *kind, char ***list, int *n, const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    char **nl = realloc(*list, (size_t)(*n + 1) * sizeof *nl);
    if (!nl)
        return;
    *list = nl;
    nl[(*n)++] = strdup(buf);
    fprintf(stderr, "aesgen-bench: %s: %s\n", kind, buf);
}

void bench_run_error(bench_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push_msg("error", &run->errors, &run->nerrors, fmt, ap);
    va_end(ap);
    run->failed = 1;
}

void bench_run_note(bench_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push_msg("note", &run->notes, &run->nnotes, fmt, ap);
    va_end(ap);
}

/* ---- set-up ----------------------------------------------------------- */

void bench_run_init(bench_run *run)
{
    memset(run, 0, sizeof *run);
    run->base = -1;
    run->noaesni = -1;
}

void bench_run_collect_dispatch(bench_run *run)
{
    bench_machine *m = &run->machine;
    m->aesgen_env = getenv("AESGEN_BACKEND");
    aesgen_cpu_id_text(m->cpu_id, sizeof m->cpu_id);
    const aesgen_cpu_preference *pref = aesgen_cpu_preference_active();
    if (pref != NULL) {
        m->cpu_name = pref->name;
        m->cpu_prefer = pref->prefer;
        m->cpu_why = pref->why;
        m->cpu_source = pref->source;
    }
    const aesgen_ghash_variant *g = aesgen_pick_ghash();
    snprintf(m->ghash, sizeof m->ghash, "%s", g ? g->name : "(none)");
    for (int k = 0; k < NKEYS; k++) {
        run->dispatch[k].ok = 1;
        for (int d = 0; d < 2; d++) {
            const char *b = aesgen_selected_backend(bench_key_bits[k], (aesgen_direction)d);
            const char *v = aesgen_selected_variant(bench_key_bits[k], (aesgen_direction)d);
            if (!b || !v)
                run->dispatch[k].ok = 0;
            snprintf(run->dispatch[k].backend[d], sizeof run->dispatch[k].backend[d], "%s",
                     b ? b : "(none)");
            snprintf(run->dispatch[k].variant[d], sizeof run->dispatch[k].variant[d], "%s",
                     v ? v : "(none)");
        }
        if (!run->dispatch[k].ok)
            bench_run_note(run, "dispatch picks no variant for AES-%u%s%s: aesgen_init would fail",
                           bench_key_bits[k], m->aesgen_env ? " with AESGEN_BACKEND=" : "",
                           m->aesgen_env ? m->aesgen_env : "");
    }
}

int bench_unique_backends(const char **out, int max)
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

void bench_run_select_backends(bench_run *run)
{
    bench_opts *o = &run->opts;
    const char *names[MAX_IMPLS];
    int nb = bench_unique_backends(names, MAX_IMPLS);
    if ((size_t)nb != aesgen_backend_count())
        bench_run_note(run,
                       "aesgen_backend_count() is %zu but there are %d distinct backend names; "
                       "duplicates ignored",
                       aesgen_backend_count(), nb);
    if (o->nbackends > 0) {
        for (int i = 0; i < o->nbackends; i++) {
            int s = aesgen_backend_supported(o->backends[i]);
            if (s < 0) {
                char known[512] = "";
                for (int j = 0; j < nb; j++)
                    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                             j ? ", " : "", names[j]);
                bench_arg_error("--backend: unknown aesgen backend '%s' (known: %s)",
                                o->backends[i], known[0] ? known : "none");
            }
            if (s == 0)
                bench_arg_error("--backend: aesgen backend '%s' cannot run on this CPU",
                                o->backends[i]);
        }
        return;
    }
    for (int j = 0; j < nb && o->nbackends < MAX_IMPLS - 4; j++)
        if (aesgen_backend_supported(names[j]) == 1)
            o->backends[o->nbackends++] = strdup(names[j]);
}

void bench_run_setup_impls(bench_run *run)
{
    const bench_opts *o = &run->opts;
    bench_machine *m = &run->machine;
    const int xts_sel = o->op_sel[OP_XTS_ENC] || o->op_sel[OP_XTS_DEC] ||
                        o->op_sel[OP_XTS_SECTORS_ENC];
    for (int i = 0; i < o->nvariants; i++) {
        if (impl_aesgen_variant_create(&run->impls[run->nimpl], o->variants[i]) != 0) {
            bench_run_error(run, "aesgen variant %s: out of memory", o->variants[i]);
            continue;
        }
        run->nimpl++;
    }
    for (int i = 0; i < o->nbackends; i++) {
        impl *im = &run->impls[run->nimpl];
        if (impl_aesgen_create(im, o->backends[i]) != 0) {
            bench_run_error(run, "aesgen backend %s: out of memory", o->backends[i]);
            continue;
        }
        /* Every backend that sets up keys serves GCM too: a failure is the
         * library's, not a gap to report as n/a. */
        if ((o->op_sel[OP_GCM_SEAL] || o->op_sel[OP_GCM_OPEN]) && im->op_note[OP_GCM_SEAL][0])
            bench_run_error(run, "%s: %s", im->name, im->op_note[OP_GCM_SEAL]);
        /* XTS likewise (AES-128 and AES-256; AES-192 has none). */
        if (xts_sel && im->op_note[OP_XTS_ENC][0])
            bench_run_error(run, "%s: %s", im->name, im->op_note[OP_XTS_ENC]);
        run->nimpl++;
    }
    if (o->op_sel[OP_CBC_STREAMS_ENC])
        bench_run_note(run, "cbc-enc-streams: %u messages of the row's size per call, %zu bytes apart%s",
                       bench_cbc_streams, bench_stream_gap,
                       bench_stream_gap == 0 ? " (back to back: 4 KiB messages share L1 sets)" : "");
    if (xts_sel && o->key_sel[bench_key_index(192)])
        bench_run_note(run, "AES-192 XTS rows are n/a: %s",
                       bench_op_na(OP_XTS_ENC, bench_key_index(192), 0));
    if (impl_openssl_create(&run->impls[run->nimpl], "openssl") != 0) {
        fprintf(stderr, "aesgen-bench: error: OpenSSL set-up failed\n");
        exit(1);
    }
    run->base = run->nimpl++;
    for (int k = 0; k < NKEYS; k++)
        if (o->key_sel[k] && !run->impls[run->base].key_ok[k]) {
            fprintf(stderr, "aesgen-bench: error: %s\n", run->impls[run->base].key_note[k]);
            exit(1);
        }
    if (o->peer_noaesni) {
        if (peer_spawn(&run->impls[run->nimpl], m->counter, &m->peer, m->peer_err,
                       sizeof m->peer_err) == 0)
            run->noaesni = run->nimpl++;
        else
            bench_run_note(run, "openssl-noaesni row left out: %s", m->peer_err);
    }
    for (int p = 0; p < PEER_COUNT; p++) {
        if (!o->peer_sel[p])
            continue;
        const bench_peer_lib *lib = bench_peers[p].lib;
        if (lib && lib->create(&run->impls[run->nimpl]) == 0)
            run->nimpl++;
        else
            bench_run_note(run, "%s row left out: set-up failed", bench_peers[p].name);
    }
}

/* ---- machine ---------------------------------------------------------- */

void bench_run_probe_machine(bench_run *run)
{
    const bench_opts *o = &run->opts;
    bench_machine *m = &run->machine;
    machine_cpu_model(m->cpu, sizeof m->cpu);
    machine_kernel(m->kernel, sizeof m->kernel);
    m->online_cpus = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(m->loadavg, sizeof m->loadavg, "unknown");
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        double l1, l5, l15;
        if (fscanf(la, "%lf %lf %lf", &l1, &l5, &l15) == 3)
            snprintf(m->loadavg, sizeof m->loadavg, "%.2f %.2f %.2f", l1, l5, l15);
        fclose(la);
    }
    if (o->no_pin) {
        m->pinned_cpu = -1;
        snprintf(m->pin, sizeof m->pin, "not pinned (--no-pin)");
    } else {
        m->pinned_cpu = pin_to_cpu(o->cpu, m->pin, sizeof m->pin);
        if (m->pinned_cpu < 0 && o->cpu >= 0)
            bench_arg_error("--cpu %d: %s", o->cpu, m->pin);
        if (m->pinned_cpu < 0)
            bench_run_note(run, "%s", m->pin);
    }
}

int bench_run_setup_counter(bench_run *run)
{
    const bench_opts *o = &run->opts;
    bench_machine *m = &run->machine;
    m->counter = counter_setup(o->counter, m->counter_why, sizeof m->counter_why);
    if (o->counter >= 0 && m->counter != o->counter) {
        fprintf(stderr, "aesgen-bench: error: --counter %s unavailable: %s\n",
                counter_kind_name(o->counter), m->counter_why);
        return -1;
    }
    return 0;
}

/* Warm up for 20 samples' worth, within 50 to 300 ms; also estimates the
 * TSC and core clocks. */
void bench_run_warmup(bench_run *run)
{
    bench_machine *m = &run->machine;
    m->warmup_ms = run->opts.min_time_ms * 20;
    if (m->warmup_ms < 50)
        m->warmup_ms = 50;
    if (m->warmup_ms > 300)
        m->warmup_ms = 300;
    clock_warmup(m->warmup_ms, &m->tsc_mhz, &m->core_mhz);
}

/* ---- memory ----------------------------------------------------------- */

int bench_run_alloc(bench_run *run)
{
    const bench_opts *o = &run->opts;
    size_t maxlen = CHECK_BYTES;
    for (int op = 0; op < OP_COUNT; op++) {
        const size_t check = bench_in_bytes(op, bench_op_len(op, CHECK_BYTES)); /* the check's length */
        if (o->op_sel[op] && !bench_op_fixed_len(op) && check > maxlen)
            maxlen = check;
        for (int si = 0; o->op_sel[op] && si < bench_op_nsizes(o, op); si++) {
            const size_t n = bench_in_bytes(op, bench_op_size(o, op, si));
            if (n > maxlen)
                maxlen = n;
        }
    }
    /* room for a GCM tag and gcm-open's separate input (bench.h) */
    run->buf = aligned_alloc(64, bench_buf_bytes(maxlen));
    run->ref = aligned_alloc(64, bench_buf_bytes(maxlen));
    run->rows = calloc((size_t)run->nimpl * NKEYS * OP_COUNT * (size_t)o->nsizes,
                       sizeof *run->rows);
    return run->buf && run->ref && run->rows ? 0 : -1;
}

/* Stop the openssl-noaesni child and free every row's library state. */
void bench_run_release_impls(bench_run *run)
{
    for (int i = 0; i < run->nimpl; i++) {
        if (run->impls[i].kind == IMPL_REMOTE)
            peer_stop(&run->impls[i]);
        else
            impl_destroy(&run->impls[i]);
    }
}

void bench_run_free(bench_run *run)
{
    bench_opts *o = &run->opts;
    if (run->rows)
        for (size_t i = 0; i < (size_t)run->nimpl * NKEYS * OP_COUNT * (size_t)o->nsizes; i++) {
            free(run->rows[i].ns);
            free(run->rows[i].cnt);
        }
    free(run->rows);
    free(run->buf);
    free(run->ref);
    for (int i = 0; i < run->nerrors; i++)
        free(run->errors[i]);
    for (int i = 0; i < run->nnotes; i++)
        free(run->notes[i]);
    free(run->errors);
    free(run->notes);
    for (int i = 0; i < o->nbackends; i++)
        free(o->backends[i]);
    for (int i = 0; i < o->nvariants; i++)
        free(o->variants[i]);
}
