#!/usr/bin/env bash
# Installs what is missing, builds with every backend (emulated NEON, and
# emulated AVX-512 where the CPU lacks it) and runs the test suite.
# Extra meson options can be passed in MESON_ARGS; the build dir in BUILD.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${BUILD:-build-test}
if [ ! -d "$build" ]; then
  # shellcheck disable=SC2086
  meson setup "$build" -Demulated_backends=true -Dtests=enabled -Dbench=disabled ${MESON_ARGS:-}
fi
ninja -C "$build"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# The Criterion suite, once per backend: every backend is held to the same
# double-precision reference. Criterion prints its own synthesis line.
for b in scalar sse41 avx2 avx512 neon; do
  echo "== Criterion suite, backend $b"
  if ! POSEBATCH_BACKEND=$b "$build/tests/posebatch-conformance" --expect "$b" >/dev/null 2>&1; then
    echo "   (backend $b not available on this machine: skipped)"
    continue
  fi
  out=$(mktemp)
  POSEBATCH_BACKEND=$b UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
    "$build/tests/posebatch-tests" --jobs=2 >"$out" 2>&1 || status=1
  cat "$out" >>"$log"
  grep -E "^\[(FAIL|----)\]|Synthesis|runtime error|Sanitizer" "$out" | head -60 || true
  rm -f "$out"
done
echo "== conformance: every backend against scalar"
out=$(mktemp)
"$build/tests/posebatch-conformance" >"$out" 2>&1 || status=1
cat "$out" >>"$log"
grep -E "^FAIL" "$out" | head -20 || true
grep -vE "^FAIL" "$out" || true
rm -f "$out"
if [ -x "$build/src/cli/posebatch" ]; then
  echo "== the posebatch CLI on the shipped clip"
  out=$(mktemp)
  bash tests/cli/run.sh "$build" >"$out" 2>&1 || status=1
  cat "$out" >>"$log"
  grep -E "^(FAIL|cli:)" "$out" || true
  rm -f "$out"
fi
# one closing line over everything above
python3 - "$log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
p = f = 0
for m in re.finditer(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)", text):
    p += int(m.group(2)); f += int(m.group(3)) + int(m.group(4))
for m in re.finditer(r"^(?:conformance|cli): (\d+) passed, (\d+) failed", text, re.M):
    p += int(m.group(1)); f += int(m.group(2))
print(f"{p} passed, {f} failed")
sys.exit(1 if f or p == 0 else 0)
PY
exit $status
