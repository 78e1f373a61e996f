#!/usr/bin/env bash
# CI stage: the installed library as a user gets it. Installs BUILD_DIR (a
# configured build with default_library=both, e.g. CI's build-ci) into a
# temporary root with `meson install --destdir`, then
#   - checks the installed files (headers, static and shared library, .pc,
#     CMake package) and that the shared library exports only the public API;
#   - checks that the README's C blocks are lines of examples/*.c
#     (examples/check_readme.py), and builds examples/quickstart.c (the
#     README's C quick start, whole) against the install, shared and static,
#     and runs it;
#   - builds examples/resample_file.c against it through pkg-config, shared
#     and static, runs both on data/cmu_01_03.bvh (120 -> 60 fps) and compares
#     their outputs byte for byte;
#   - builds the CMake consumer (tests/consumer/CMakeLists.txt, main.c) with
#     find_package(posebatch), shared and with POSEBATCH_STATIC, and runs it;
#   - configures a parent Meson project with posebatch as a subproject and
#     checks that only the library is built there (no tests, benchmark, CLI,
#     examples).
# Ends with "install: N passed, M failed". Usage: tests/consumer/run.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: tests/consumer/run.sh BUILD_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
check() { # name, command...
  local name=$1; shift
  local out
  if out=$("$@" 2>&1); then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name"; echo "$out" | tail -n 20 | sed 's/^/     /'
  fi
}
finish() { echo "install: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

check "README's C blocks are examples/*.c lines (examples/check_readme.py)" \
  python3 examples/check_readme.py

if [ "$(meson introspect "$build" --buildoptions 2>/dev/null |
        python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="default_library"][0])')" != both ]; then
  echo "FAIL $build is not configured with default_library=both"; failed=1; finish
fi
root=$work/root
check "meson install --destdir" meson install -C "$build" --destdir "$root" --quiet
pc=$(find "$root" -name posebatch.pc | head -n 1)
libdir=$(dirname "$(dirname "$pc")")
prefix=$(dirname "$(find "$root" -path '*/include/posebatch.h' | head -n 1)")/..
check "installed: headers, libraries, .pc, CMake package" bash -c "
  test -f '$prefix/include/posebatch.h' && test -f '$prefix/include/posebatch/io.h' &&
  test -f '$prefix/include/posebatch/bvh.h' && test -f '$prefix/include/posebatch/mirror.h' &&
  test -f '$prefix/include/posebatch/base.h' && test -f '$prefix/include/posebatch/layout.h' &&
  test -f '$libdir/libposebatch.a' && test -e '$libdir/libposebatch.so' &&
  test -f '$pc' && test -f '$libdir/cmake/posebatch/posebatchConfig.cmake' &&
  test -f '$libdir/cmake/posebatch/posebatchConfigVersion.cmake'"
check "shared library exports only the public API (nm -D)" \
  bash tests/consumer/check_exports.sh "$libdir/libposebatch.so"

# pkg-config through the destdir: the sysroot is prepended to -I and -L
export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$(dirname "$pc")
cflags=$(pkg-config --cflags posebatch)
clip=data/cmu_01_03.bvh
# the README's quick start: a 45 degree turn about z (joint 0) and x (joint
# 1), 30 degrees (0.5236 rad) per unit of x
qs_expect='joint 0: rotation 0.9238[78][0-9] -?0.000000 -?0.000000 0.38268[0-9], velocity -?0.0000 -?0.0000 0.5236
joint 1: rotation 0.9238[78][0-9] 0.38268[0-9] -?0.000000 -?0.000000, velocity 0.5236 -?0.0000 -?0.0000'
for kind in posebatch posebatch-static; do
  check "pkg-config $kind: examples/quickstart.c (the README's) builds and runs" bash -c "
    cc -std=c11 -Wall -Wextra -Werror examples/quickstart.c $cflags \
       \$(pkg-config --libs $kind) -Wl,-rpath,'$libdir' -o '$work/qs' &&
    '$work/qs' >'$work/qs.out' && cat '$work/qs.out' && test \"\$(grep -cxE '$qs_expect' '$work/qs.out')\" = 2"
done
check "pkg-config: resample_file.c, shared" bash -c "
  cc -std=c11 -Wall -Wextra -Werror examples/resample_file.c $cflags \
     \$(pkg-config --libs posebatch) -Wl,-rpath,'$libdir' -o '$work/rf_shared' &&
  readelf -d '$work/rf_shared' | grep -q 'libposebatch.so.0' &&
  '$work/rf_shared' $clip 60 '$work/shared.bvh' && grep -qE 'Frames:[[:space:]]+2256' '$work/shared.bvh'"
check "pkg-config: resample_file.c, static" bash -c "
  cc -std=c11 -Wall -Wextra -Werror examples/resample_file.c $cflags \
     \$(pkg-config --libs posebatch-static) \
     -o '$work/rf_static' &&
  ! readelf -d '$work/rf_static' | grep -q libposebatch &&
  '$work/rf_static' $clip 60 '$work/static.bvh' && cmp '$work/shared.bvh' '$work/static.bvh'"
# the installed CLI finds its library under any prefix (RUNPATH = prefix/libdir)
installed_libdir=${libdir#"$root"}
installed_exe=$(find "$root" -path '*/bin/posebatch' | head -n 1)
check "installed posebatch: RUNPATH is the install's libdir ($installed_libdir)" bash -c "
  test -n '$installed_exe' && readelf -d '$installed_exe' | grep -E 'R(UN)?PATH' |
  grep -qF '[$installed_libdir]'"
fox=../shared/data/gltf/Fox.glb
if [ -f "$fox" ]; then
  check "pkg-config: resample_gltf.c, shared, on Fox.glb" bash -c "
    cc -std=c11 -Wall -Wextra -Werror examples/resample_gltf.c $cflags \
       \$(pkg-config --libs posebatch) -Wl,-rpath,'$libdir' -o '$work/rg_shared' &&
    '$work/rg_shared' $fox 60 '$work/fox60.glb' && test \"\$(head -c 4 '$work/fox60.glb')\" = glTF"
fi
check "resample_file.c: an error names its line" bash -c "
  printf 'HIERARCHY\nROOT a\n{\n  OFFSET 0 0 x\n' > '$work/bad.bvh' &&
  ! '$work/rf_shared' '$work/bad.bvh' 60 '$work/o.bvh' 2>'$work/err' &&
  grep -q 'line 4' '$work/err' && test ! -e '$work/o.bvh'"

# CMake: find_package(posebatch) from the (relocated) install
for kind in shared static; do
  opt=$([ $kind = static ] && echo -DPOSEBATCH_STATIC=ON || echo -DPOSEBATCH_STATIC=OFF)
  check "CMake find_package consumer, $kind" bash -c "
    cmake -S tests/consumer -B '$work/cmake-$kind' -DCMAKE_PREFIX_PATH='$prefix' $opt \
          -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build '$work/cmake-$kind' >/dev/null &&
    if [ $kind = static ]; then ! readelf -d '$work/cmake-$kind/consumer' | grep -q libposebatch;
    else readelf -d '$work/cmake-$kind/consumer' | grep -q libposebatch.so.0; fi &&
    '$work/cmake-$kind/consumer' $clip | tee /dev/stderr | grep -q '31 joints, 4511 frames'"
done

# As a subproject: only the library (configure only: no second build)
parent=$work/parent
mkdir -p "$parent/subprojects"
ln -s "$PWD" "$parent/subprojects/posebatch"
cat > "$parent/meson.build" <<'MESON'
project('parent', 'c')
posebatch_dep = dependency('posebatch', fallback: ['posebatch', 'posebatch_dep'])
executable('app', 'app.c', dependencies: posebatch_dep)
MESON
printf '#include <posebatch/io.h>\nint main(void) { return pb_bvh_code_str(PB_BVH_OK)[0] != 111; }\n' > "$parent/app.c"
cat > "$work/targets.py" <<'PY'
import json, sys
t = json.load(sys.stdin)
exes = sorted(x["name"] for x in t if x["type"] == "executable")
libs = sorted({x["type"] for x in t if x["name"] == "posebatch"})
print("executables:", " ".join(exes), "| posebatch:", ", ".join(libs))
sys.exit(0 if exes == ["app"] and "shared library" in libs else 1)
PY
check "Meson subproject: only the library (no tests, bench, CLI, examples)" bash -c "
  cd '$parent' && env -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR meson setup b --force-fallback-for=posebatch >/dev/null &&
  meson introspect b --targets | python3 '$work/targets.py'"
finish
