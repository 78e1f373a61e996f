#!/usr/bin/env bash
# Every kernel fragment (src/simd/kernels_*.h) is self-contained: a
# translation unit of a lane layer and the fragment alone compiles, warnings
# as errors (-fsyntax-only: nothing is generated). The lane layers: scalar,
# and AVX2 where SIMDe is installed (its headers include more, which can hide
# a missing include, so scalar comes first). The static kernels are used by
# the kernel table only (kernels.h), hence -Wno-unused-function.
set -euo pipefail
cd "$(dirname "$0")/.."
cc=${CC:-cc}
flags=(-std=c11 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes
  -Wmissing-prototypes -Wvla -Wno-psabi -Wno-unused-function -fno-math-errno
  -Iinclude -Isrc -Isrc/simd)
layers=(scalar)
if echo '#include <simde/x86/avx2.h>' | "$cc" -E -x c - >/dev/null 2>&1; then
  layers+=(avx2)
fi
failed=0
count=0
for f in src/simd/kernels_*.h; do
  count=$((count + 1))
  for l in "${layers[@]}"; do
    isa=()
    [ "$l" = avx2 ] && isa=(-mavx2 -mfma)
    if ! printf '#include "lanes_%s.h"\n#include "%s"\n' "$l" "${f##*/}" |
      "$cc" "${flags[@]}" "${isa[@]}" -x c -; then
      echo "FAIL: $f after lanes_$l.h"
      failed=$((failed + 1))
    fi
  done
done
if [ "$failed" -gt 0 ]; then
  echo "kernel fragments: $failed of $((count * ${#layers[@]})) do not compile alone"
  exit 1
fi
echo "kernel fragments: $count compile alone after lanes_{$(IFS=,; echo "${layers[*]}")}.h"
