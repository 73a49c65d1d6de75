#!/bin/sh
# run_fuzz.sh SECONDS [BUILD_DIR] [libFuzzer options...]
#
# Configures and builds tests/fuzz as a standalone clang project in BUILD_DIR (default
# /tmp/aesgen-fuzz-build; rebuilds are incremental), copies the seed corpus to
# BUILD_DIR/corpus-run (fresh each run, so the committed corpus/ is never written), runs
# fuzz_differential for SECONDS seconds and prints the executions reached. Exit status:
# 0 no crash, 1 a mismatch, sanitizer report or build failure (the reproducer is in
# BUILD_DIR/artifacts/), 77 clang or libFuzzer missing (1 with AESGEN_REQUIRE_FUZZ=ON).
# Environment: CC (default clang-14, else clang), CMAKE (default cmake), JOBS (default 2).
set -eu
secs=${1:?usage: run_fuzz.sh SECONDS [BUILD_DIR] [libFuzzer options...]}
build=${2:-/tmp/aesgen-fuzz-build}
[ $# -ge 2 ] && shift 2 || shift $#
here=$(cd "$(dirname "$0")" && pwd)
cmake=${CMAKE:-cmake}
jobs=${JOBS:-2}

skip() {
    echo "skipped: $*"
    case "${AESGEN_REQUIRE_FUZZ:-OFF}" in
        ON|on|1|TRUE|true|YES|yes) echo "AESGEN_REQUIRE_FUZZ is on: failing"; exit 1 ;;
    esac
    exit 77
}

cc=${CC:-}
if [ -z "$cc" ]; then
    for c in clang-14 clang; do
        if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
    done
fi
[ -n "$cc" ] || skip "no clang (install clang-14 libclang-rt-14-dev)"
command -v "$cc" >/dev/null 2>&1 || skip "no $cc (install clang-14 libclang-rt-14-dev)"
mkdir -p "$build"
probe="$build/probe.c"
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$probe"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe" -o "$build/probe" >"$build/probe.log" 2>&1; then
    cat "$build/probe.log"
    skip "$cc cannot link a libFuzzer target with ASan/UBSan (install libclang-rt-14-dev)"
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
    # -g1 (line tables): enough for sanitizer stack traces; full -g over the large unrolled
# generated functions costs several times the compile time.
CC=$cc "$cmake" -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >"$build/configure.log" 2>&1 \
        || { cat "$build/configure.log"; echo "run_fuzz.sh: configure failed"; exit 1; }
fi
"$cmake" --build "$build" -j"$jobs" >"$build/build.log" 2>&1 \
    || { tail -50 "$build/build.log"; echo "run_fuzz.sh: build failed"; exit 1; }

work="$build/corpus-run"
rm -rf "$work"
mkdir -p "$work" "$build/artifacts"
cp "$here"/corpus/* "$work"/
log="$build/fuzz.log"
echo "run_fuzz.sh: fuzzing for $secs s ($(ls "$work" | wc -l) seeds) with $build/fuzz_differential"
start=$(date +%s)
status=0
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$build/fuzz_differential" -max_total_time="$secs" -print_final_stats=1 -max_len=4200 -timeout=60 \
    -artifact_prefix="$build/artifacts/" "$@" "$work" >"$log" 2>&1 || status=$?
end=$(date +%s)
grep -E '^(INFO: Seed|#[0-9]+ *(INITED|DONE))|^stat::' "$log" || true
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
if [ "$status" -ne 0 ]; then
    tail -60 "$log"
    echo "run_fuzz.sh: FAILED (exit $status) after $((end - start)) s; reproducer in $build/artifacts/," \
         "rerun with: $build/fuzz_differential <file>"
    exit 1
fi
echo "run_fuzz.sh: ${execs:-?} executions in $((end - start)) s, 0 mismatches, corpus grew to $(ls "$work" | wc -l) inputs"
