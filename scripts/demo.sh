#!/usr/bin/env bash
# The main job: installs what is missing, builds, and resamples the shipped CMU
# clip to four times its rate with every backend this CPU runs (time per
# backend, largest difference from scalar), writing the result.
# posebatch-demo takes a factor, not a rate: the clip's Frame Time is .0083333 s
# (120.0005 fps), so a factor of 4 gives 480.002 fps. For exactly 480 fps use
# the CLI: posebatch resample data/cmu_01_03.bvh --fps 480 -o OUT.bvh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${BUILD:-build}
[ -d "$build" ] || meson setup "$build" -Dtests=disabled -Dbench=disabled
ninja -C "$build"
factor=4 # output frames per source frame
"$build/examples/posebatch-demo" data/cmu_01_03.bvh "$factor" "$build/cmu_01_03_x$factor.bvh"
