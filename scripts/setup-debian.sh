#!/usr/bin/env bash
# Installs, with Debian's apt, whatever the build and tests need and this machine lacks.
# Idempotent: installs nothing when everything is present. Uses sudo when not root.
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
want() { for p in "$@"; do have_pkg "$p" || need+=("$p"); done; }

want cmake make gcc libc6-dev pkg-config libssl-dev valgrind
# benchmark peers: BearSSL ct64, RustCrypto aes 0.6 (built offline from Debian's crate sources)
want libbearssl-dev librust-aes-dev
# and intel-ipsec-mb, which Debian builds for amd64 only
[ "$(dpkg --print-architecture)" != amd64 ] || want libipsec-mb-dev
command -v cargo >/dev/null 2>&1 || want cargo
# cross targets built and tested under qemu-user (tests/cross): compilers, C libraries, qemu
want gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu gcc-riscv64-linux-gnu \
     gcc-arm-linux-gnueabihf gcc-sparc64-linux-gnu \
     libc6-dev-arm64-cross libc6-dev-ppc64el-cross libc6-dev-riscv64-cross \
     libc6-dev-armhf-cross libc6-dev-sparc64-cross qemu-user
# differential fuzzing (tests/fuzz): clang with libFuzzer and the sanitizer runtimes
want clang-14 libclang-rt-14-dev
command -v python3 >/dev/null 2>&1 || want python3
# The generator needs Jinja2 for the python3 on PATH; Debian's package serves /usr/bin/python3.
if ! python3 -c 'import jinja2' >/dev/null 2>&1; then
    want python3-jinja2
fi

if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
echo "setup: installing ${need[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
if ! python3 -c 'import jinja2' >/dev/null 2>&1; then
    # python3 on PATH is not Debian's; fall back to the one python3-jinja2 serves
    if /usr/bin/python3 -c 'import jinja2' >/dev/null 2>&1; then
        echo "setup: note: $(command -v python3) lacks Jinja2; the build will use /usr/bin/python3"
    else
        echo "setup: error: no python3 with Jinja2 after installing python3-jinja2" >&2
        exit 1
    fi
fi
