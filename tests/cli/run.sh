#!/usr/bin/env bash
# Tests of the posebatch command-line tool on the shipped CMU clip.
#   bash tests/cli/run.sh BUILD_DIR [SUITE...]
# Runs every tests/cli/suite_*.sh (or the named ones), each in a fresh
# directory with the fixtures of lib.sh. Ends with one line
# "cli: N passed, M failed, K skipped"; exits non-zero if M > 0.
set -u
if [ $# -lt 1 ] || [ ! -x "$1/src/cli/posebatch" ]; then
  echo "usage: bash tests/cli/run.sh BUILD_DIR [SUITE...] (with BUILD_DIR/src/cli/posebatch built)" >&2
  exit 2
fi
PB="$(cd "$1" && pwd)/src/cli/posebatch"
shift
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
TOP=$(mktemp -d)
trap 'chmod -R u+w "$TOP" 2>/dev/null; rm -rf "$TOP"' EXIT
passed=0
failed=0
skipped=0 # checks that cannot run here (skip_one in lib.sh): not failures
if [ $# -gt 0 ]; then suites=("$@"); else suites=("$HERE"/suite_*.sh); fi
for s in "${suites[@]}"; do
  [ -f "$s" ] || s="$HERE/suite_$s.sh"
  name=$(basename "$s" .sh)
  T="$TOP/${name#suite_}"
  mkdir -p "$T"
  fixtures
  echo "=== ${name#suite_}"
  # a suite that does not parse would end where the error is, silently
  if ! bash -n "$s" 2>"$T/parse"; then
    failed=$((failed + 1))
    echo "FAIL $name does not parse: $(head -n 1 "$T/parse")"
    continue
  fi
  # shellcheck disable=SC1090
  . "$s"
done
echo "cli: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
