/*
 * aesgen_bench.c -- aesgen-bench: throughput of every aesgen backend next
 * to OpenSSL (default and AES-NI masked), BearSSL ct64, RustCrypto aes 0.6
 * (soft backend), libgcrypt and intel-ipsec-mb, in one run: ECB, CBC and
 * CTR, AES-GCM one message per call (gcm-seal, gcm-open), and AES-XTS one
 * data unit per call (xts-enc, xts-dec) or 64 sectors per call
 * (xts-sectors-enc).
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
 *
 * This file only orders the steps; bench.h says where each one lives.
 */
#include "bench_args.h"
#include "bench_peer.h"
#include "bench_report.h"
#include "bench_run.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    /* static: a few hundred KB, and reachable until exit for leak checkers */
    static bench_run run;
    bench_run_init(&run);
    bench_parse_args(argc, argv, &run.opts);
    if (run.opts.peer_only)
        return peer_child_main(run.opts.counter);

    bench_run_collect_dispatch(&run); /* before any aesgen_force_backend */
    bench_run_select_backends(&run);
    bench_run_probe_machine(&run);
    if (bench_run_setup_counter(&run) != 0)
        return 1;

    bench_run_setup_impls(&run);
    if (bench_run_alloc(&run) != 0) {
        fprintf(stderr, "aesgen-bench: error: out of memory\n");
        return 1;
    }

    bench_run_check_all(&run);
    bench_run_warmup(&run);
    bench_run_measure_all(&run);
    bench_run_release_impls(&run);

    switch (run.opts.format) {
    case FMT_JSON:
        bench_report_json(stdout, &run);
        break;
    case FMT_TCRYPT:
        bench_report_tcrypt(stdout, &run);
        break;
    default:
        bench_report_text(stdout, &run);
        break;
    }
    fflush(stdout);
    int status = run.failed ? 1 : 0;
    bench_run_free(&run);
    return status;
}
