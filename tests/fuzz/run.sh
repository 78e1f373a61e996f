#!/usr/bin/env bash
# Fuzzes the BVH reader for a bounded time.
#
#   tests/fuzz/run.sh [BUILD_DIR] [SECONDS]      (defaults: build-fuzz, 60)
#
# Builds BUILD_DIR with clang and -Dfuzz=true if it has no fuzz_bvh yet,
# makes a seed corpus in a temporary directory from the real clips in
# ../shared/data/mocap (PB_SHARED_DATA_DIR overrides; each truncated to its
# first 60 frames so inputs stay small) plus a few small synthetic files, and
# runs libFuzzer. Crash inputs are kept in BUILD_DIR/fuzz-artifacts/.
# Extra libFuzzer flags can be passed in FUZZ_FLAGS.
set -euo pipefail

. "$(dirname "$0")/prepare.sh"
fuzz_prepare fuzz_bvh "$@"
frames=${SEED_FRAMES:-60}
corpus=$work/corpus
mkdir -p "$corpus"

nseed=0
if ls "$data"/mocap/*.bvh >/dev/null 2>&1; then
    for f in "$data"/mocap/*.bvh; do
        # Keep the hierarchy, set Frames to min(N, $frames), keep that many
        # data lines; line endings (CRLF) and tabs are preserved.
        awk -v keep="$frames" '
            data >= 0 { if (data < keep) print; data++; next }
            /^[ \t]*[Ff][Rr][Aa][Mm][Ee][Ss][ \t]*:/ {
                if (match($0, /[0-9]+/)) {
                    n = substr($0, RSTART, RLENGTH) + 0
                    if (n > keep) n = keep
                    $0 = substr($0, 1, RSTART - 1) n substr($0, RSTART + RLENGTH)
                }
                print; next
            }
            /^[ \t]*[Ff][Rr][Aa][Mm][Ee][ \t]*[Tt][Ii][Mm][Ee]/ { print; data = 0; next }
            { print }
            BEGIN { data = -1 }
        ' "$f" > "$corpus/$(basename "$f" .bvh).seed.bvh"
        nseed=$((nseed + 1))
    done
else
    echo "run.sh: no clips in $data/mocap; using synthetic seeds only" >&2
fi

# Small synthetic seeds: mixed channel layouts, End Site placement, CRLF.
cat > "$corpus/synthetic1.bvh" <<'BVH'
HIERARCHY
ROOT A
{
 OFFSET 1 2 3
 CHANNELS 0
 JOINT B_End
 {
  OFFSET 0 1 0
  CHANNELS 3 Yposition Xposition Zposition
  End Site { OFFSET 0 0 1 }
  JOINT C { OFFSET 0 2 0 CHANNELS 1 Yrotation }
  JOINT D { OFFSET 0 3 0 CHANNELS 2 Xrotation Zrotation }
  JOINT E { OFFSET 0 4 0 CHANNELS 4 Zrotation Xposition Yrotation Xrotation }
 }
}
ROOT Second Root
{
 OFFSET 5 5 5
 CHANNELS 3 Xrotation Yrotation Zrotation
}
MOTION
Frames: 2
Frame Time: .0083333
7 8 9 100 10 20 30 40 50 60 70 1 2
7 8 9 -170 89 90 -30 40 50 60 70 1e-5 -0
BVH
printf 'HIERARCHY\r\nROOT Hips\r\n{\r\n\tOFFSET 0 0 0\r\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation \r\n\tJOINT Chest\r\n\t{\r\n\t\tOFFSET 0 10 0\r\n\t\tCHANNELS 3 Zrotation Yrotation Xrotation\r\n\t\tEnd Site\r\n\t\t{\r\n\t\t\tOFFSET 0 5 0\r\n\t\t}\r\n\t}\r\n}\r\nMOTION\r\nFrames:\t2\r\nFrame Time:\t0.0333333\r\n1 2 3 179 90 -180 4 5 6\r\n1 2 3 -179 -90 180 4 5 6\r\n' > "$corpus/synthetic2.bvh"
nseed=$((nseed + 2))
echo "run.sh: $nseed seeds in $corpus; fuzzing for ${secs}s" >&2

# shellcheck disable=SC2086
"$exe" "$corpus" \
    -dict="$src/tests/fuzz/bvh.dict" \
    -max_total_time="$secs" \
    -rss_limit_mb=2048 \
    -malloc_limit_mb=2048 \
    -timeout=10 \
    -max_len=131072 \
    -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    ${FUZZ_FLAGS:-}
