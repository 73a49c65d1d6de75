#!/usr/bin/env bash
# Hardening runs (docs/hardening.md), each in its own build tree:
#   1. asan:     the CTest suite built with -fsanitize=address,undefined (gcc), any
#                report fails the test;
#   2. memcheck: the CTest suite of a normal build under valgrind memcheck
#                (ctest -T memcheck); any memcheck error or leak fails the run;
#   3. tsan:     the threads tests built with -fsanitize=thread (library included).
# Tests that cannot run in a stage are listed with the reason before it starts.
#
#   scripts/hardening.sh [asan] [memcheck] [tsan]     (default: all three)
#
# Environment: AESGEN_HARDENING_DIR (build trees, default build-hardening/),
# AESGEN_HARDENING_JOBS (ctest and make jobs, default 2), AESGEN_MEMCHECK_BUILD_DIR
# (a configured normal build tree for the memcheck stage to reuse, e.g. build-tests),
# AESGEN_VECTORS_DIR (passed to CMake when set), CI=true (missing vectors fail instead
# of skipping, as in scripts/test.sh).
# The whole script is one { } block, so bash reads all of it before running any of it
# (an edit to this file during a run cannot change the run).
{
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh

stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(asan memcheck tsan)
for s in "${stages[@]}"; do
    case $s in asan | memcheck | tsan) ;; *) echo "hardening: unknown stage '$s' (asan, memcheck, tsan)" >&2; exit 2 ;; esac
done

top=${AESGEN_HARDENING_DIR:-build-hardening}
jobs=${AESGEN_HARDENING_JOBS:-2}
require=OFF
[ "${CI:-}" = "true" ] && require=ON
python=$(bash scripts/python.sh)
summary=()

# gcc's sanitizer runtimes come with gcc (libgcc-12-dev depends on them); valgrind from setup.
for p in libasan8 libubsan1 libtsan2 valgrind; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        echo "hardening: error: package $p is not installed (scripts/setup-debian.sh should bring it)" >&2
        exit 1
    fi
done

now() { date +%s; }

# Prints the tests of a build tree that carry one of the labels, with the reason.
excluded() { # build-dir label-regex reason
    local names
    names=$(ctest --test-dir "$1" -N -L "$2" | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ')
    printf '  excluded (label %s): %s\n    why: %s\n' "$2" "${names:-none registered}" "$3"
}

# RelWithDebInfo with -g1 (line tables only): enough for sanitizer and valgrind stack
# traces, and gcc's variable tracking (-g) over the large unrolled generated functions
# costs 5 to 10 times the compile time (72 s instead of 6 s for one portable variant
# with sanitizers).
configure() { # build-dir c-flags [extra cmake args...]
    local dir=$1 flags=$2
    shift 2
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
        -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
        -DAESGEN_REQUIRE_VECTORS="$require" -DAESGEN_PYTHON="$python" \
        ${AESGEN_VECTORS_DIR:+-DAESGEN_VECTORS_DIR="$AESGEN_VECTORS_DIR"} "$@" >"$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log"; return 1; }
    grep -E '^-- aesgen: (this CPU has|tests run on)' "$dir.configure.log" || true
}

# --- 1. AddressSanitizer + UndefinedBehaviorSanitizer over the suite ---------------------
stage_asan() {
    local dir=$top/asan t0 t1 t2
    local san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    echo "== hardening: asan (ASan+UBSan build of the suite) in $dir"
    t0=$(now)
    mkdir -p "$top"
    configure "$dir" "$san" -DAESGEN_SWEEP_TESTS=OFF || return 1
    cmake --build "$dir" -j"$jobs" >"$dir.build.log" 2>&1 || { tail -50 "$dir.build.log"; return 1; }
    t1=$(now)
    echo "  built in $((t1 - t0)) s"
    local skip='generator|constant_time|cross|consumer|fuzz|porter|provider_cli'
    excluded "$dir" generator "Python unit tests and checks of the generator: they run none of our C (the normal suite runs them)"
    excluded "$dir" constant_time "they run the test under valgrind, which cannot run an ASan executable (shadow memory); the memcheck stage covers the suite under valgrind"
    excluded "$dir" cross "they configure and build their own cross trees (not sanitized) and run them under qemu-user; the normal suite runs them"
    excluded "$dir" consumer "they install the library and configure and build separate consumer projects with their own flags (unsanitized products against a sanitized library do not link); the normal suite runs them"
    excluded "$dir" fuzz "it builds its own clang libFuzzer tree, already with ASan and UBSan, and fuzzes for a fixed time; the normal suite runs it"
    excluded "$dir" porter "it copies the tree and builds its own (unsanitized) library to follow the porter's documented path; the normal suite runs it"
    excluded "$dir" provider_cli "it runs the system openssl binary, which is not built with ASan and cannot load the ASan-built provider module (the ASan runtime must come first); provider_differential and provider_load_loop run the same module under ASan"
    printf '  excluded: the sweep (configured with -DAESGEN_SWEEP_TESTS=OFF)\n    why: ~300 test-only variants of the same templates (other interleaves, key policies, lane widths); built with sanitizers they take 8 of this stage'"'"'s 13 minutes here; the normal suite runs them\n'
    # A sanitizer report aborts the test with a non-zero status, so it fails; leaks too (LSan).
    local rc=0
    ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        ctest --test-dir "$dir" --output-on-failure -j"$jobs" -LE "$skip" --no-tests=error | tee "$dir.ctest.log" ||
        rc=1
    t2=$(now)
    summary+=("asan: $(grep -E 'tests passed' "$dir.ctest.log" | tail -1); build $((t1 - t0)) s, tests $((t2 - t1)) s")
    return $rc
}

# --- 2. valgrind memcheck over the suite of a normal build --------------------------------
# AESGEN_MEMCHECK_BUILD_DIR names an existing, configured normal build tree to reuse
# (.ci/run passes scripts/test.sh's build-tests: the very binaries the suite just
# tested, and no second build); otherwise $top/memcheck is configured and built.
stage_memcheck() {
    local dir=${AESGEN_MEMCHECK_BUILD_DIR:-} log=$top/memcheck t0 t1 t2
    t0=$(now)
    mkdir -p "$top"
    if [ -n "$dir" ] && [ -f "$dir/CMakeCache.txt" ]; then
        echo "== hardening: memcheck (the suite under valgrind memcheck) in $dir (reused)"
    else
        dir=$top/memcheck
        echo "== hardening: memcheck (the suite under valgrind memcheck) in $dir"
        configure "$dir" "" || return 1
    fi
    cmake --build "$dir" -j"$jobs" >"$log.build.log" 2>&1 || { tail -50 "$log.build.log"; return 1; }
    t1=$(now)
    echo "  built in $((t1 - t0)) s"
    local skip_labels='generator|constant_time|cross|consumer|fuzz|sweep|porter|provider_cli' skip_names='exported_symbols|vaes|avx512|vpclmul|^vectors_aes|^gcm_vectors_backend'
    excluded "$dir" generator "Python: valgrind would check the interpreter, not our C"
    excluded "$dir" constant_time "they run valgrind memcheck themselves (valgrind cannot run under valgrind)"
    excluded "$dir" cross "their binaries run under qemu-user in their own trees; valgrind would check cmake and qemu"
    excluded "$dir" consumer "they drive cmake to install, configure and build separate projects; valgrind would check cmake and the compiler"
    excluded "$dir" fuzz "a shell script that builds and runs a clang libFuzzer binary with ASan (valgrind cannot run ASan executables); the normal suite runs it"
    excluded "$dir" porter "a Python script that copies the tree and drives the generator, cmake and the compiler; valgrind would check those"
    excluded "$dir" provider_cli "a shell script running the openssl binary (children are not traced): valgrind would check sh; provider_differential and provider_load_loop run the module under valgrind"
    excluded "$dir" sweep "test-only variants (other interleaves, key policies, lane widths) of the shipped templates and the same runtime; the normal suite and the asan stage run them, and under valgrind they would double this stage"
    local names
    names=$(ctest --test-dir "$dir" -N -LE "$skip_labels" -R "$skip_names" | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ')
    printf '  excluded (names %s): %s\n    why: %s\n' "$skip_names" "${names:-none registered}" \
        "exported_symbols runs cmake and nm, none of our code; valgrind 3.19 cannot execute VAES, VPCLMULQDQ or AVX-512 and hides them from cpuid, so those variants cannot be selected or run under it (they would report skipped, and the dispatch-ladder test would see aesni instead of vaes256); vectors_<variant> (every CAVP file per variant, ~400 s under valgrind here): under valgrind every variant still runs fips197_<variant> and differential_<variant> (all lengths 0..2048, all offset pairs, tails, splits), and every CAVP file runs through the API on every backend (vectors_backend_*); the asan stage and the normal suite run vectors_<variant>; gcm_vectors_backend_<backend>: under valgrind every GCM CAVP file runs on every GHASH (gcm_vectors_ghash_*) and every backend runs gcm_differential_backend_*"
    rm -rf "$dir/Testing/Temporary/MemoryChecker."*
    # --error-exitcode makes a test with any memcheck error (or a definite or possible
    # leak: --errors-for-leak-kinds) exit 97, so it fails; the defect count is checked too.
    local vg_opts="--error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite,possible"
    vg_opts+=" --show-leak-kinds=definite,possible --num-callers=30 --trace-children=no"
    local rc=0
    # The threads test runs its rounds once (not 3 times): valgrind serialises the threads.
    # The differential tests run their --quick sweep (every ECB/CBC length 0..2048 once
    # instead of 4 times, CTR lengths 0..300 and every 7th above, all 256 offset pairs at
    # 2 lengths instead of 4-6, 64 KiB buffers but not 1 MiB, 40 split trials instead of
    # 200, every counter carry): about a fifth of the full sweep.
    AESGEN_THREADS_REPS=1 AESGEN_DIFFERENTIAL_QUICK=1 ctest --test-dir "$dir" -T memcheck --output-on-failure -j"$jobs" \
        --overwrite MemoryCheckCommand="$(command -v valgrind)" \
        --overwrite MemoryCheckCommandOptions="$vg_opts" \
        -LE "$skip_labels" -E "$skip_names" --no-tests=error | tee "$log.ctest.log" || rc=1
    t2=$(now)
    # ctest -T memcheck lists the defects by kind after "Memory checking results:".
    if sed -n '/Memory checking results:/,$p' "$log.ctest.log" | grep -qE ' - [0-9]+'; then
        echo "hardening: memcheck reported defects:" >&2
        sed -n '/Memory checking results:/,$p' "$log.ctest.log" >&2
        rc=1
    fi
    summary+=("memcheck: $(grep -E 'tests passed' "$log.ctest.log" | tail -1); build $((t1 - t0)) s, tests $((t2 - t1)) s")
    return $rc
}

# --- 3. ThreadSanitizer: the threads tests, library instrumented too ---------------------
stage_tsan() {
    local dir=$top/tsan t0 t1 t2
    local san="-fsanitize=thread -fno-omit-frame-pointer"
    echo "== hardening: tsan (ThreadSanitizer build of the threads tests) in $dir"
    t0=$(now)
    mkdir -p "$top"
    configure "$dir" "$san" -DAESGEN_BUILD_BENCH=OFF -DAESGEN_SWEEP_TESTS=OFF || return 1
    cmake --build "$dir" -j"$jobs" --target aesgen_threads_test >"$dir.build.log" 2>&1 ||
        { tail -50 "$dir.build.log"; return 1; }
    t1=$(now)
    echo "  built in $((t1 - t0)) s"
    echo "  runs label threads only: the other tests are single-threaded (asan and memcheck run them)"
    # gcc 12's TSan cannot map its shadow with some kernels' ASLR settings
    # ("unexpected memory mapping"); then run without address randomisation.
    local wrap=()
    if ! TSAN_OPTIONS=exitcode=66 "$dir/tests/threads/aesgen_threads_test" --threads 2 --first-use-only \
            >"$dir.probe.log" 2>&1 && grep -q 'unexpected memory mapping' "$dir.probe.log"; then
        echo "  TSan cannot map its shadow here with ASLR: running under setarch -R"
        wrap=(setarch "$(uname -m)" -R)
    fi
    local rc=0
    TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:report_signal_unsafe=1" \
        "${wrap[@]}" ctest --test-dir "$dir" --output-on-failure -j1 -L threads --no-tests=error |
        tee "$dir.ctest.log" || rc=1
    t2=$(now)
    summary+=("tsan: $(grep -E 'tests passed' "$dir.ctest.log" | tail -1); build $((t1 - t0)) s, tests $((t2 - t1)) s")
    return $rc
}

status=0
for s in "${stages[@]}"; do
    "stage_$s" || { status=1; summary+=("$s: FAILED"); }
done
echo "== hardening summary"
printf '  %s\n' "${summary[@]}"
exit $status
}
