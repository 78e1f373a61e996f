#!/usr/bin/env bash
# Every kernel fragment (src/simd/kernels_*.h) is self-contained: a
# translation unit of a lane layer and the fragment alone compiles, warnings
# as errors (-fsyntax-only: nothing is generated). The lane layers: scalar,
# and AVX2 where SIMDe is installed (its headers include more, which can hide
# a missing include, so scalar comes first). The static kernels are used by
# the kernel table only (kernels.h), hence -Wno-unused-function.
# The same for the public headers: each of include/posebatch.h and
# include/posebatch/*.h compiles alone, as C11 and as C++11.
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
cxx=${CXX:-c++}
headers=0
for h in include/posebatch.h include/posebatch/*.h; do
  headers=$((headers + 1))
  inc="#include \"${h#include/}\""
  if ! printf '%s\n' "$inc" | "$cc" -std=c11 -fsyntax-only -Wall -Wextra -Wpedantic -Werror \
    -Iinclude -x c -; then
    echo "FAIL: $h alone (C11)"
    failed=$((failed + 1))
  fi
  if ! printf '%s\n' "$inc" | "$cxx" -std=c++11 -fsyntax-only -Wall -Wextra -Werror \
    -Iinclude -x c++ -; then
    echo "FAIL: $h alone (C++11)"
    failed=$((failed + 1))
  fi
done
if [ "$failed" -gt 0 ]; then
  echo "kernel fragments and public headers: $failed compiles failed"
  exit 1
fi
echo "kernel fragments: $count compile alone after lanes_{$(IFS=,; echo "${layers[*]}")}.h;" \
  "public headers: $headers compile alone (C11, C++11)"
