# Sourced by run.sh and run_gltf.sh: fuzz_prepare TARGET [BUILD_DIR]
# [SECONDS] sets src, build, secs, data and exe (BUILD_DIR/tests/fuzz/TARGET,
# built with clang and -Dfuzz=true if it is not there yet) and makes a
# temporary work directory, removed on exit, with BUILD_DIR/fuzz-artifacts/
# beside it for crash inputs.
fuzz_prepare() {
    local target=$1
    src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    build=${2:-build-fuzz}
    secs=${3:-60}
    case $build in /*) ;; *) build=$src/$build ;; esac
    data=${PB_SHARED_DATA_DIR:-$src/../shared/data}
    exe=$build/tests/fuzz/$target
    if [ ! -x "$exe" ]; then
        if [ ! -f "$build/build.ninja" ]; then
            CC=${CC:-clang} meson setup "$build" "$src" -Dfuzz=true -Dtests=disabled -Dbench=disabled
        fi
        ninja -C "$build" "tests/fuzz/$target"
    fi
    work=$(mktemp -d "${TMPDIR:-/tmp}/pb_$target.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$build/fuzz-artifacts"
}
