#!/usr/bin/env bash
# The shared library exports exactly the PB_API functions of the public
# headers: every dynamic symbol it defines is declared PB_API in
# include/posebatch.h or include/posebatch/*.h, and every such declaration is
# exported. Usage: tests/consumer/check_exports.sh LIBPOSEBATCH.so
set -euo pipefail
lib=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
declared=$(cat "$root/include/posebatch.h" "$root"/include/posebatch/*.h | grep -v "^#" |
  tr '\n' ' ' | grep -oE 'PB_API [^;(]*\(' | grep -oE '[A-Za-z_][A-Za-z0-9_]*\($' |
  tr -d '(' | sort -u)
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' | sort -u)
extra=$(comm -13 <(echo "$declared") <(echo "$exported"))
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
echo "exports: $(echo "$exported" | wc -l) symbols, $(echo "$declared" | wc -l) PB_API declarations"
status=0
if [ -n "$extra" ]; then
  echo "FAIL exported but not public API:"; echo "$extra" | sed 's/^/  /'; status=1
fi
if [ -n "$missing" ]; then
  echo "FAIL declared PB_API but not exported:"; echo "$missing" | sed 's/^/  /'; status=1
fi
if echo "$exported" | grep -qv '^pb_'; then
  echo "FAIL symbols without the pb_ prefix:"; echo "$exported" | grep -v '^pb_' | sed 's/^/  /'; status=1
fi
[ "$status" = 0 ] && echo "exports: only the public pb_ API"
exit $status
