#!/bin/sh
# Rebuilds assets/metrics-kernels.wasm from src/metrics/wasm/kernels.c.
# Only needed after editing the C source: the built module is committed, so
# installs and CI need no compiler. Needs clang and wasm-ld (Debian: apt-get
# install clang lld); any recent clang with the wasm32 target works.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/assets/metrics-kernels.wasm"
${CLANG:-clang} --target=wasm32 -O3 -msimd128 -mbulk-memory -nostdlib \
  -Wall -Wextra -Werror -std=c11 -ffp-contract=off \
  -Wl,--no-entry -Wl,--strip-all -Wl,-z,stack-size=65536 \
  -o "$out" "$here/src/metrics/wasm/kernels.c"
chmod 644 "$out"
echo "built $out ($(wc -c < "$out") bytes)"
