/*
 * bench_run.h -- the state of one aesgen-bench run and the steps that fill
 * it: dispatch and backend discovery, machine facts, row set-up and memory
 * (bench_run.c); the correctness check against OpenSSL, calibration,
 * measurement and statistics (bench_measure.c). The reports
 * (bench_report.h) only read it.
 */
#ifndef AESGEN_BENCH_RUN_H
#define AESGEN_BENCH_RUN_H

#include "bench.h"
#include "bench_args.h"
#include "bench_peer.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes of the first correctness check of every row (then each timed size). */
#define CHECK_BYTES 8192

enum row_status { ROW_OK = 0, ROW_NA, ROW_MISMATCH, ROW_ERROR, ROW_SKIPPED };

typedef struct bench_stats {
    double med, min, max, q1, q3;
} bench_stats;

/* One (implementation, key size, operation, message size) cell. */
typedef struct bench_row {
    int status; /* ROW_* */
    char note[256];
    uint64_t iters;
    int n;
    double *ns;  /* per op, one per sample */
    double *cnt; /* per op, one per sample, < 0 if none */
    bench_stats ns_st, cnt_st;
    int have_cnt;
    int preempted; /* samples with an involuntary context switch */
} bench_row;

/* The machine and its clocks, as this run found them. */
typedef struct bench_machine {
    char cpu[256], kernel[256], pin[256], counter_why[256], loadavg[64];
    int pinned_cpu, counter;
    double tsc_mhz, core_mhz, warmup_ms;
    long online_cpus;
    peer_info peer; /* what the openssl-noaesni child reported */
    char peer_err[256];
    const char *aesgen_env; /* AESGEN_BACKEND, or NULL */
    /* Why dispatch chose: the CPU model it ordered backends for, and that model's
     * row of the per-CPU table (NULL strings: no row, the targets' ranks). */
    char cpu_id[48];
    const char *cpu_name, *cpu_prefer, *cpu_why, *cpu_source;
    char ghash[96]; /* the GHASH variant dispatch picks */
} bench_machine;

/* What aesgen_init picks for one key size ([0] encrypt, [1] decrypt). */
typedef struct bench_dispatch {
    int ok;
    char backend[2][64], variant[2][128];
} bench_dispatch;

typedef struct bench_run {
    bench_opts opts;
    bench_machine machine;
    bench_dispatch dispatch[NKEYS];

    impl impls[MAX_IMPLS];
    int nimpl;
    int base;    /* the openssl row: reference and ratio baseline */
    int noaesni; /* the openssl-noaesni row, -1 if none */

    /* Correctness check per (impl, key, op): ROW_* and why. */
    int chk[MAX_IMPLS][NKEYS][OP_COUNT];
    char chk_note[MAX_IMPLS][NKEYS][OP_COUNT][200];

    bench_row *rows; /* nimpl x NKEYS x OP_COUNT x nsizes: bench_row_at */
    uint8_t *buf, *ref; /* message and reference buffers, 64-byte aligned */

    int failed; /* exit status 1 */
    long samples, preempted, preempt_unknown;
    char **errors, **notes; /* also printed to stderr as they happen */
    int nerrors, nnotes;
} bench_run;

/* ---- the steps, in the order main takes them ------------------------- */

void bench_run_init(bench_run *run); /* before bench_parse_args(&run->opts) */
/* Before any aesgen_force_backend. */
void bench_run_collect_dispatch(bench_run *run);
/* --backend checked (exits 2), or every backend this CPU runs. */
void bench_run_select_backends(bench_run *run);
/* CPU, kernel, load average; pins the process (exits 2 on a bad --cpu). */
void bench_run_probe_machine(bench_run *run);
/* 0, or -1 after the error message (--counter KIND unavailable). */
int bench_run_setup_counter(bench_run *run);
/* The rows: variants, backends, openssl (exits 1 if it fails), peers. */
void bench_run_setup_impls(bench_run *run);
int bench_run_alloc(bench_run *run); /* buffers and rows: 0, or -1 */
void bench_run_check_all(bench_run *run);   /* bench_measure.c */
void bench_run_warmup(bench_run *run);
void bench_run_measure_all(bench_run *run); /* bench_measure.c */
void bench_run_release_impls(bench_run *run);
void bench_run_free(bench_run *run);

/* ---- messages and backends (bench_run.c) ----------------------------- */

/* An error (the run fails) or a note, kept for the report and printed to
 * stderr now. */
void bench_run_error(bench_run *run, const char *fmt, ...) BENCH_PRINTF(2, 3);
void bench_run_note(bench_run *run, const char *fmt, ...) BENCH_PRINTF(2, 3);

/* The library's backend names, each once (in library order). */
int bench_unique_backends(const char **out, int max);

/* ---- reading the results (bench_measure.c) --------------------------- */

bench_row *bench_row_at(const bench_run *run, int im, int k, int op, int si);

/* The message sizes op runs at: every --sizes entry (si < o->nsizes), or for an
 * operation of a fixed length (bench_op_fixed_len) that length alone (si 0). */
int bench_op_nsizes(const bench_opts *o, int op);
size_t bench_op_size(const bench_opts *o, int op, int si);

double bench_mbps(size_t bytes, double ns);
/* Speed of row r relative to reference row ref (>1: r is faster); NAN if
 * either is missing. */
double bench_ratio(const bench_row *r, const bench_row *ref);
/* Interquartile range over 5% of the median. */
int bench_noisy(const bench_row *r);

#endif /* AESGEN_BENCH_RUN_H */
