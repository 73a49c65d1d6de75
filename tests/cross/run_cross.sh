#!/bin/sh
# run_cross.sh -- one cross target: configure a build tree with its toolchain file,
# build it, and run its test suite (vectors, FIPS-197, crosscheck) under qemu-user.
# The native suite's cross_<name> tests call this (tests/cross/CMakeLists.txt); by hand:
#
#   sh tests/cross/run_cross.sh --name aarch64 --triple aarch64-linux-gnu \
#      --qemu qemu-aarch64 --packages "gcc-aarch64-linux-gnu libc6-dev-arm64-cross" \
#      --source . --build build/cross/aarch64 \
#      --toolchain cmake/toolchains/aarch64-linux-gnu.cmake [--vectors DIR] [--require-vectors ON]
#
# Other options: --cmake PATH, --ctest PATH, --generator NAME, --build-type TYPE,
# --require-cross ON (missing tools fail instead of skipping), --jobs N (default 2),
# and -- followed by extra cmake -D arguments for the cross tree.
# The build tree is reused, so a rerun rebuilds only what changed.
#
# Exit status: 0 the target's suite passed; 1 configure, build or a test failed (or a
# tool is missing with --require-cross ON); 77 skipped: a cross compiler, its C library
# or qemu is missing (the message names the Debian packages to install).
set -u

name= triple= qemu= packages= source= build= toolchain=
cmake=cmake ctest=ctest generator= build_type=Release vectors= require_vectors=OFF
require_cross=OFF jobs=2

usage() {
    echo "usage: run_cross.sh --name N --triple T --qemu Q --packages P --source DIR --build DIR --toolchain FILE [options] [-- cmake args]" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
        --) shift; break ;;
        --*)
            [ $# -ge 2 ] || usage
            case $1 in
                --name) name=$2 ;;
                --triple) triple=$2 ;;
                --qemu) qemu=$2 ;;
                --packages) packages=$2 ;;
                --source) source=$2 ;;
                --build) build=$2 ;;
                --toolchain) toolchain=$2 ;;
                --cmake) cmake=$2 ;;
                --ctest) ctest=$2 ;;
                --generator) generator=$2 ;;
                --build-type) build_type=$2 ;;
                --vectors) vectors=$2 ;;
                --require-vectors) require_vectors=$2 ;;
                --require-cross) require_cross=$2 ;;
                --jobs) jobs=$2 ;;
                *) usage ;;
            esac
            shift 2 ;;
        *) usage ;;
    esac
done
[ -n "$name" ] && [ -n "$triple" ] && [ -n "$qemu" ] && [ -n "$source" ] && [ -n "$build" ] &&
    [ -n "$toolchain" ] || usage

case $require_cross in ON|on|On|TRUE|true|True|YES|yes|1) require_cross=ON ;; *) require_cross=OFF ;; esac

# --- the tools: the cross compiler, its C library (Debian: /usr/<triple>), qemu-user
missing= missing_pkgs=
gcc_pkg=$(echo "$packages" | tr ' ' '\n' | grep '^gcc-' || true)
libc_pkg=$(echo "$packages" | tr ' ' '\n' | grep '^libc6-dev-' || true)
if ! command -v "$triple-gcc" >/dev/null 2>&1; then
    missing="$missing $triple-gcc"
    missing_pkgs="$missing_pkgs $gcc_pkg"
fi
if [ ! -e "/usr/$triple/include/stdio.h" ]; then
    missing="$missing /usr/$triple/include/stdio.h"
    missing_pkgs="$missing_pkgs $libc_pkg"
fi
if ! command -v "$qemu" >/dev/null 2>&1; then
    missing="$missing $qemu"
    missing_pkgs="$missing_pkgs qemu-user"
fi
if [ -n "$missing" ]; then
    echo "cross $name: missing:$missing"
    if [ "$require_cross" = ON ]; then
        echo "FAILED: cross toolchain missing and AESGEN_REQUIRE_CROSS=ON: sudo apt-get install$missing_pkgs"
        exit 1
    fi
    echo "skipped: install$missing_pkgs"
    exit 77
fi

now() { date +%s; }
mkdir -p "$build" || exit 1
log_dir=$build/aesgen-cross-logs
mkdir -p "$log_dir" || exit 1

# A tree configured with another generator cannot be reused.
if [ -n "$generator" ] && [ -f "$build/CMakeCache.txt" ] &&
   ! grep -qx "CMAKE_GENERATOR:INTERNAL=$generator" "$build/CMakeCache.txt"; then
    echo "cross $name: $build was configured with another generator; starting afresh"
    rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
fi

# --- configure (the probe of the target's CPU features runs under qemu here)
t0=$(now)
set -- -S "$source" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DCMAKE_BUILD_TYPE="$build_type" -DAESGEN_BUILD_BENCH=OFF -DAESGEN_CROSS_TESTS=ON \
    -DAESGEN_REQUIRE_VECTORS="$require_vectors" "$@"
[ -n "$generator" ] && set -- -G "$generator" "$@"
[ -n "$vectors" ] && set -- "$@" -DAESGEN_VECTORS_DIR="$vectors"
if ! "$cmake" "$@" >"$log_dir/configure.log" 2>&1; then
    echo "cross $name: configure FAILED ($log_dir/configure.log):"
    tail -n 40 "$log_dir/configure.log"
    exit 1
fi
t1=$(now)
echo "cross $name: $triple-gcc, tests under $qemu (configured in $((t1 - t0)) s, $build)"
sed -n 's/^-- aesgen: /cross '"$name"': /p' "$log_dir/configure.log"

# --- build
if ! "$cmake" --build "$build" --parallel "$jobs" >"$log_dir/build.log" 2>&1; then
    echo "cross $name: build FAILED ($log_dir/build.log):"
    tail -n 60 "$log_dir/build.log"
    exit 1
fi
t2=$(now)
warnings=$(grep -c 'warning:' "$log_dir/build.log" || true)
echo "cross $name: built in $((t2 - t1)) s ($warnings compiler warnings; $log_dir/build.log)"

# --- the target's suite, under qemu (CMAKE_CROSSCOMPILING_EMULATOR)
"$ctest" --test-dir "$build" --output-on-failure --no-tests=error --parallel "$jobs" \
    >"$log_dir/test.log" 2>&1
rc=$?
t3=$(now)
# Per-test lines and the summary; on failure ctest's output of the failing tests too.
if [ $rc -eq 0 ]; then
    grep -E 'Test +#|tests passed|Total Test time|^[a-z_]+ += ' "$log_dir/test.log"
else
    cat "$log_dir/test.log"
fi
echo "cross $name: tests ran in $((t3 - t2)) s; total $((t3 - t0)) s"
if [ $rc -ne 0 ]; then
    echo "cross $name: FAILED (ctest exit $rc; $log_dir/test.log)"
    exit 1
fi
echo "cross $name: passed"
exit 0
