#!/usr/bin/env bash
# Installs what is missing, builds with every backend (emulated NEON, and
# emulated AVX-512 where the CPU lacks it) and runs the test suite.
# Extra meson options can be passed in MESON_ARGS; the build dir in BUILD.
# The optional clips of ../shared/data (PB_SHARED_DATA_DIR) are read where
# they are; where they are not (a plain clone), the tests that need them are
# skipped and say why. Ends with "N passed, M failed, K skipped" over every
# stage and, where one failed, "failed stages: ...".
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
bash scripts/setup.sh
build=${BUILD:-build-test}
if [ ! -d "$build" ]; then
  # shellcheck disable=SC2086
  meson setup "$build" -Demulated_backends=true -Dtests=enabled -Dbench=disabled ${MESON_ARGS:-}
fi
ninja -C "$build"
log=$(mktemp)
skips=$(mktemp)
trap 'rm -f "$log" "$skips"' EXIT
status=0
failed_stages=()
stage_failed() { # name: the stage fails the run and is named at the end
  status=1
  case " ${failed_stages[*]-} " in *" $1 "*) ;; *) failed_stages+=("$1") ;; esac
}
shared=${PB_SHARED_DATA_DIR:-../shared/data}
if [ ! -d "$shared/mocap" ]; then
  echo "== note: the optional clips of ../shared/data are not here ($shared/mocap):"
  echo "   the tests that read them are skipped, each with its reason (README: Data)"
fi
# The Criterion suite, once per backend: every backend is held to the same
# double-precision reference. Criterion prints its own synthesis line; its
# JSON report names the skipped tests and their reasons. A Criterion binary
# also exits 1 on a logged warning.
# PB_SUITE_BACKENDS=dispatched (CI's sanitizer stage): the suite on scalar
# and on the backend the dispatcher picks only; the conformance runner below
# still runs every backend's kernels (every size, every tail) in this build
suite_backends="scalar sse41 avx2 avx512 neon"
if [ "${PB_SUITE_BACKENDS:-}" = dispatched ]; then
  picked=$("$build/tests/posebatch-conformance" 2>/dev/null | sed -n 's/^dispatch picked: \([a-z0-9]*\).*/\1/p')
  suite_backends="scalar ${picked:-}"
  [ "${picked:-scalar}" = scalar ] && suite_backends=scalar
  echo "== the Criterion suite on $suite_backends only (PB_SUITE_BACKENDS=dispatched)"
fi
for b in $suite_backends; do
  echo "== Criterion suite, backend $b"
  if ! POSEBATCH_BACKEND=$b "$build/tests/posebatch-conformance" --expect "$b" >/dev/null 2>&1; then
    echo "   (backend $b not available on this machine: skipped)"
    continue
  fi
  out=$(mktemp)
  : >"$skips"
  bins=("$build/tests/posebatch-tests")
  # the Euler kernels through their io callers (a binary of its own: it links
  # the static library, where those are visible)
  if [ -x "$build/tests/posebatch-euler-tests" ]; then bins+=("$build/tests/posebatch-euler-tests"); fi
  # then, for a backend that runs some call shapes on narrower kernels
  # (AVX2 and AVX-512: forward kinematics by pose count, docs/architecture.md,
  # "One pose, and dispatch by call shape"), the skeleton and skinning suites
  # again on its own kernels alone (POSEBATCH_SHAPE_DISPATCH=0)
  runs=("${bins[@]}")
  case $b in avx2 | avx512) runs+=("own:$build/tests/posebatch-tests") ;; esac
  for bin in "${runs[@]}"; do
    rc=0
    own=1 filter=()
    case $bin in own:*) bin=${bin#own:} own=0 filter=(--filter '@(skeleton|skin)/*') ;; esac
    POSEBATCH_BACKEND=$b POSEBATCH_SHAPE_DISPATCH=$own \
      UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
      "$bin" --jobs=2 "${filter[@]}" -Ojson:"$out.json" >"$out.one" 2>&1 || rc=$?
    cat "$out.one" >>"$out"
    if [ "$rc" != 0 ]; then
      stage_failed "criterion-$b"
      # a binary can exit non-zero with every test passing: say why
      grep -qE "Synthesis: .*(Failing|Crashing): [1-9]" "$out.one" ||
        echo "   ${bin##*/} exited $rc with no failing test: $(grep -E '^\[WARN\]' "$out.one" | head -n 3 | tr '\n' ' ')" >>"$out"
    fi
    python3 -c '
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(0)
for suite in report.get("test_suites", []):
    for t in suite.get("tests", []):
        if t.get("status") == "SKIPPED":
            why = "; ".join(t.get("messages") or []) or "no reason given"
            print("[SKIP] %s::%s: %s" % (suite["name"], t["name"], why))' "$out.json" >>"$skips"
    rm -f "$out.one" "$out.json"
  done
  echo "criterion skipped: $(wc -l <"$skips")" >>"$out"
  cat "$out" >>"$log"
  grep -E "^\[(FAIL|----)\]|Synthesis|runtime error|Sanitizer|exited [0-9]+ with no failing" "$out" | head -60 || true
  if [ -s "$skips" ]; then echo "   ($(wc -l <"$skips") tests skipped: the reasons below)"; fi
  rm -f "$out"
done
if [ -s "$skips" ]; then
  echo "   skipped Criterion tests, on each backend, by reason:"
  sed -E 's/^\[SKIP\] [^:]*::[^:]*: //' "$skips" | sort | uniq -c | sort -rn | sed 's/^/   /'
fi
echo "== conformance: every backend against scalar"
out=$(mktemp)
"$build/tests/posebatch-conformance" >"$out" 2>&1 || stage_failed conformance
# and each backend's own kernels alone (no dispatch by call shape)
echo "(each backend's own kernels, POSEBATCH_SHAPE_DISPATCH=0:)" >>"$out"
POSEBATCH_SHAPE_DISPATCH=0 "$build/tests/posebatch-conformance" >>"$out" 2>&1 ||
  stage_failed conformance
if [ -x "$build/tests/posebatch-conformance-euler" ]; then
  "$build/tests/posebatch-conformance-euler" >>"$out" 2>&1 || stage_failed conformance
fi
cat "$out" >>"$log"
grep -E "^FAIL" "$out" | head -20 || true
grep -vE "^FAIL" "$out" || true
rm -f "$out"
if [ -x "$build/src/cli/posebatch" ]; then
  echo "== the posebatch CLI on the shipped clip"
  out=$(mktemp)
  bash tests/cli/run.sh "$build" >"$out" 2>&1 || stage_failed cli
  cat "$out" >>"$log"
  # failures, then why checks were skipped: "skip NAME (REASON)" lines that
  # share a reason as one line with their count ("skip N ..." lines as they are)
  awk '/^FAIL/ { print; next }
    /^skip / {
      if ($2 !~ /^[0-9]+$/ && match($0, / \([^()]*\)$/)) {
        r = substr($0, RSTART + 1); if (!(r in n)) order[++k] = r; n[r]++; one[r] = $0
      } else order[++k] = "=" $0
      next }
    /^cli:/ { last = $0 }
    END {
      for (i = 1; i <= k; i++) {
        r = order[i]
        if (substr(r, 1, 1) == "=") print "   " substr(r, 2)
        else if (n[r] == 1) print "   " one[r]
        else print "   skip " n[r] " checks " r
      }
      if (last != "") print last }' "$out"
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
    # -rfEs: every failed test, error and skipped test (with its reason) in
    # the summary, so that a CI log names what failed
    (cd "$pydir" && POSEBATCH_CLI="$cli_bin" timeout 600 venv/bin/python -m pytest -q -rfEs \
       -p no:cacheprovider "$top/tests/python") >"$out" 2>&1 || stage_failed python
    python3 - "$out" >"$out.sum" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
tail = [l for l in text.splitlines() if re.search(r"\d+ (passed|failed|errors?|skipped)\b", l)]
last = tail[-1] if tail else ""
count = lambda w: sum(int(n) for n in re.findall(r"(\d+) " + w + r"\b", last))
p, f, s = count("passed"), count("failed") + count("errors?"), count("skipped")
for l in text.splitlines():
    if l.startswith(("FAILED", "ERROR", "SKIPPED")):
        print("   " + l)
if f:  # the assertion lines of the failures ("E   ..."), at most 4000 characters
    print("\n".join("   " + l for l in text.splitlines() if l.startswith("E "))[:4000])
if not last:
    print(text[-3000:])
    f = max(f, 1)
print(last.strip("= "))
print(f"python: {p} passed, {f} failed, {s} skipped")
PY
  else
    stage_failed python-install
    { tail -n 40 "$out"; echo "python: 0 passed, 1 failed (pip install . failed)"; } >"$out.sum"
  fi
  tee -a "$log" <"$out.sum"
  rm -f "$out" "$out.sum"
fi
# one closing line over everything above, then the stages that failed
if ! python3 - "$log" "$(($(date +%s) - t0))" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
p = f = s = 0
for m in re.finditer(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)", text):
    p += int(m.group(2)); f += int(m.group(3)) + int(m.group(4))
for m in re.finditer(r"^criterion skipped: (\d+)", text, re.M):
    s += int(m.group(1))
for m in re.finditer(r"^(?:conformance|conformance-euler|cli|python): (\d+) passed, (\d+) failed(?:, (\d+) skipped)?", text, re.M):
    p += int(m.group(1)); f += int(m.group(2)); s += int(m.group(3) or 0)
t = int(sys.argv[2])
print(f"(took {t // 60} min {t % 60} s)")
print(f"{p} passed, {f} failed, {s} skipped")
sys.exit(1 if f or p == 0 else 0)
PY
then
  [ ${#failed_stages[@]} -gt 0 ] || stage_failed "summary (a failed test, or none ran)"
fi
if [ ${#failed_stages[@]} -gt 0 ]; then
  list=$(printf '%s, ' "${failed_stages[@]}")
  echo "failed stages: ${list%, }"
fi
exit $status
