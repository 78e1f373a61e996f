#!/usr/bin/env bash
# Fuzzes the glTF reader, evaluator, resampler, writer and the glTF -> BVH
# conversion (tests/fuzz/fuzz_gltf.c) for a bounded time.
#
#   tests/fuzz/run_gltf.sh [BUILD_DIR] [SECONDS]      (defaults: build-fuzz, 60)
#
# Builds BUILD_DIR with clang and -Dfuzz=true if it has no fuzz_gltf yet,
# makes a seed corpus in a temporary directory with gltf_seeds.py (small
# cuts of ../shared/data/gltf, PB_SHARED_DATA_DIR overrides, plus synthetic
# documents), adds the reproducers in tests/fuzz/regressions/gltf/ (each must
# pass first), and runs libFuzzer with tests/fuzz/gltf.dict. Crash inputs are
# kept in BUILD_DIR/fuzz-artifacts/. Extra libFuzzer flags can be passed in
# FUZZ_FLAGS; FUZZ_CORPUS names a directory to keep the corpus in (it grows
# there from run to run) instead of a temporary one.
set -euo pipefail

. "$(dirname "$0")/prepare.sh"
fuzz_prepare fuzz_gltf "$@"
corpus=${FUZZ_CORPUS:-$work/corpus}
mkdir -p "$corpus"
python3 "$src/tests/fuzz/gltf_seeds.py" "$work/seeds" "$data" >/dev/null

# earlier findings: each must pass before fuzzing (and seeds the run)
regs=()
if ls "$src"/tests/fuzz/regressions/gltf/* >/dev/null 2>&1; then
    regs=("$src"/tests/fuzz/regressions/gltf/*)
    TMPDIR=$work "$exe" "${regs[@]}"
    echo "run_gltf.sh: ${#regs[@]} regression inputs pass" >&2
    cp "${regs[@]}" "$work/seeds/"
fi
echo "run_gltf.sh: $(ls "$work/seeds" | wc -l) seeds; fuzzing for ${secs}s" >&2

# -max_len: the seeds are up to 20 KiB; -timeout: one input's work is
# bounded by the target (well under a second). TMPDIR: the target's empty
# base_dir goes there, so that an abort does not leave it behind.
# shellcheck disable=SC2086
TMPDIR=$work "$exe" "$corpus" "$work/seeds" \
    -dict="$src/tests/fuzz/gltf.dict" \
    -max_total_time="$secs" \
    -rss_limit_mb=2048 \
    -malloc_limit_mb=2048 \
    -timeout=10 \
    -max_len=65536 \
    -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    ${FUZZ_FLAGS:-}
