#!/usr/bin/env bash
# The whole test suite through CTest: install what is missing, build, run everything.
# In CI (CI=true) missing test vectors, cross compilers or qemu fail instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
build=${AESGEN_TEST_BUILD_DIR:-build-tests}
require=OFF
[ "${CI:-}" = "true" ] && require=ON
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DAESGEN_REQUIRE_VECTORS="$require" \
      -DAESGEN_REQUIRE_CROSS="$require" -DAESGEN_REQUIRE_FUZZ="$require" \
      -DAESGEN_PYTHON="$(bash scripts/python.sh)"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
