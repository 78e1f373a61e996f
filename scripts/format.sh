#!/usr/bin/env bash
# The tree's C and C++ sources in the house style (.clang-format; Debian 12's
# clang-format 14): `bash scripts/format.sh` rewrites them, `--check` (CI)
# lists those that differ and fails. Generated tables are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'src/*.c' 'src/*.h' 'include/*.h' 'tests/*.c' 'tests/*.h' \
  'bench/*.cc' 'bench/*.c' 'bench/*.h' 'examples/*.c' ':!src/io/numtext_pow5.h')
if [ "${1:-}" = --check ]; then
  clang-format --dry-run -Werror "${files[@]}"
  echo "format: ${#files[@]} files in the house style"
else
  clang-format -i "${files[@]}"
fi
