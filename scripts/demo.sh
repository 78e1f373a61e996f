#!/usr/bin/env bash
# The main job: installs what is missing, builds, and resamples the shipped CMU
# clip (120 -> 480 fps) with every backend this CPU runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${BUILD:-build}
[ -d "$build" ] || meson setup "$build" -Dtests=disabled -Dbench=disabled
ninja -C "$build"
"$build/examples/posebatch-demo" data/cmu_01_03.bvh 4 "$build/cmu_01_03_480fps.bvh"
