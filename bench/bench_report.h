/*
 * bench_report.h -- what aesgen-bench prints once a run is over: the text
 * table (bench_report_text.c, also the tcrypt lines) and the JSON document
 * (bench_report_json.c). Reports only read the run.
 */
#ifndef AESGEN_BENCH_REPORT_H
#define AESGEN_BENCH_REPORT_H

#include "bench_run.h"

#include <stddef.h>
#include <stdio.h>

#ifndef AESGEN_BENCH_BUILD_TYPE
#define AESGEN_BENCH_BUILD_TYPE ""
#endif

/* The default format: header, dispatch (--quick), the implementations
 * legend, the compact (--quick) or one-line-per-row table, errors, notes. */
void bench_report_text(FILE *f, const bench_run *run);

/* --format tcrypt: Linux tcrypt-style lines. */
void bench_report_tcrypt(FILE *f, const bench_run *run);

/* --format json: one JSON document (schema_version 1). */
void bench_report_json(FILE *f, const bench_run *run);

/* What the run's counter counts, in words, written to buf[n]; returns buf. */
const char *bench_counter_desc(const bench_machine *m, char *buf, size_t n);

#endif /* AESGEN_BENCH_REPORT_H */
