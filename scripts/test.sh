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
  # the Euler kernels through their io callers (a binary of its own: it links
  # the static library, where those are visible)
  if [ -x "$build/tests/posebatch-euler-tests" ]; then
    POSEBATCH_BACKEND=$b UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
      "$build/tests/posebatch-euler-tests" --jobs=2 >>"$out" 2>&1 || status=1
  fi
  cat "$out" >>"$log"
  grep -E "^\[(FAIL|----)\]|Synthesis|runtime error|Sanitizer" "$out" | head -60 || true
  rm -f "$out"
done
echo "== conformance: every backend against scalar"
out=$(mktemp)
"$build/tests/posebatch-conformance" >"$out" 2>&1 || status=1
if [ -x "$build/tests/posebatch-conformance-euler" ]; then
  "$build/tests/posebatch-conformance-euler" >>"$out" 2>&1 || status=1
fi
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
# The Python package (src/python/, pyproject.toml): pip-installed into a venv that
# sees Debian's numpy / meson-python / pytest / distributed
# (--system-site-packages; Debian's pip refuses system-wide installs), then
# its pytest suite, with the CLI above as the reference for the BVH bytes.
# Not under the sanitizers (the extension is built without them).
case "${MESON_ARGS:-}" in
  *b_sanitize*) py_stage=0 ;;
  *) py_stage=${PYTHON_TESTS:-1} ;;
esac
if [ "$py_stage" != 0 ]; then
  echo "== the posebatch Python package (pip install ., pytest tests/python)"
  out=$(mktemp)
  top=$(pwd)
  case $build in /*) absbuild=$build ;; *) absbuild=$top/$build ;; esac
  pydir="$absbuild-py"   # the wheel's meson build dir and the venv (incremental)
  py_setup=()
  case "${MESON_ARGS:-}" in *werror=true*) py_setup=(--config-settings=setup-args=-Dwerror=true) ;; esac
  cli_bin=""
  [ -x "$build/src/cli/posebatch" ] && cli_bin="$absbuild/src/cli/posebatch"
  # meson-python 0.12 reconfigures a given build dir whenever its native file
  # (.mesonpy-native-file.ini in the source root) matches, even when that dir
  # was never configured: start fresh then.
  [ -f "$pydir/wheel/meson-private/coredata.dat" ] || rm -f .mesonpy-native-file.ini
  if { [ -x "$pydir/venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$pydir/venv"; } &&
     "$pydir/venv/bin/pip" install . --no-build-isolation --no-deps --no-index \
       --config-settings=builddir="$pydir/wheel" "${py_setup[@]}" >"$out" 2>&1; then
    (cd "$pydir" && POSEBATCH_CLI="$cli_bin" timeout 600 venv/bin/python -m pytest -q \
       -p no:cacheprovider "$top/tests/python") >"$out" 2>&1 || status=1
    python3 - "$out" >"$out.sum" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
tail = [l for l in text.splitlines() if re.search(r"\d+ (passed|failed|errors?)\b", l)]
last = tail[-1] if tail else ""
count = lambda w: sum(int(n) for n in re.findall(r"(\d+) " + w + r"\b", last))
p, f = count("passed"), count("failed") + count("errors?")
for l in text.splitlines():
    if l.startswith(("FAILED", "ERROR")):
        print(l)
if not last:
    print(text[-3000:])
    f = max(f, 1)
print(last.strip("= "))
print(f"python: {p} passed, {f} failed")
PY
  else
    status=1
    { tail -n 40 "$out"; echo "python: 0 passed, 1 failed (pip install . failed)"; } >"$out.sum"
  fi
  cat "$out.sum" | tee -a "$log"
  rm -f "$out" "$out.sum"
fi
# one closing line over everything above
python3 - "$log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
p = f = 0
for m in re.finditer(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)", text):
    p += int(m.group(2)); f += int(m.group(3)) + int(m.group(4))
for m in re.finditer(r"^(?:conformance|conformance-euler|cli|python): (\d+) passed, (\d+) failed", text, re.M):
    p += int(m.group(1)); f += int(m.group(2))
print(f"{p} passed, {f} failed")
sys.exit(1 if f or p == 0 else 0)
PY
exit $status
