/*
 * bench_args.h -- aesgen-bench's command line: the options it parsed and
 * the error every bad argument ends in (exit status 2).
 */
#ifndef AESGEN_BENCH_ARGS_H
#define AESGEN_BENCH_ARGS_H

#include "bench.h"

#include <stddef.h>

#define MAX_IMPLS 64
#define MAX_SIZES 32

enum bench_format { FMT_TABLE = 0, FMT_JSON, FMT_TCRYPT };

typedef struct bench_opts {
    int quick;
    int format; /* FMT_* */
    char *backends[MAX_IMPLS]; /* --backend, or (bench_run_select_backends) all that run here */
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
    int peer_sel[PEER_COUNT]; /* optional peer libraries, by bench_peer_id */
    int counter; /* -1 auto */
    const char *peer_only;
} bench_opts;

/* Fill *o from argv, defaults included; prints --help and exits 0, or exits
 * 2 through bench_arg_error on a bad argument. */
void bench_parse_args(int argc, char **argv, bench_opts *o);

/* "aesgen-bench: error: ... (try --help)" on stderr, then exit(2). */
_Noreturn void bench_arg_error(const char *fmt, ...) BENCH_PRINTF(1, 2);

#endif /* AESGEN_BENCH_ARGS_H */
