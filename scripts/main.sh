#!/usr/bin/env bash
# The main job: install what is missing, generate (every variant checked by the model),
# build, and run the benchmark self-test (backend per key size, throughput next to OpenSSL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
build=${AESGEN_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DAESGEN_REGENERATE=ON \
      -DAESGEN_PYTHON="$(bash scripts/python.sh)"
cmake --build "$build" -j"$(nproc)" --target aesgen-bench
"$build"/bench/aesgen-bench --quick
