# shellcheck shell=bash
# posebatch skin: the glTF sample models (Fox.glb: no normals, no indices;
# cesium_man.gltf: normals, indices) posed at times of their animations,
# against a double-precision Python reference (skin_ref.py: its own glTF
# reading, sampling and LBS), within 1e-5 of the mesh's extent; bad input
# and outputs that would overwrite inputs. The models are read from
# ../shared/data/gltf (PB_SHARED_DATA_DIR), never copied into the repository.
GLTF_DIR="${PB_SHARED_DATA_DIR:-$HERE/../../../shared/data}/gltf"
FOX="$GLTF_DIR/Fox.glb"
MAN="$GLTF_DIR/cesium_man.gltf"
echo "== skin"
# usage errors and refusals need no model
expect "skin: no -o" 2 skin "$CLIP"
expect "skin: -o not .obj" 2 skin "$CLIP" -o "$T/x.bvh"
expect "skin: --time not a number" 2 skin "$CLIP" --time abc -o "$T/x.obj"
expect "skin: a BVH is no skinned model" 1 skin "$CLIP" -o "$T/x.obj"
check "skin: nothing written on failure" test ! -e "$T/x.obj"
check "skin: says why" grep -q "posebatch:" "$T/err"
if [ ! -f "$FOX" ] || [ ! -f "$MAN" ]; then
  skips 1 "$GLTF_DIR has no Fox.glb / cesium_man.gltf (the skin suite's models)"
else
  for t in 0 0.7 1.93; do
    expect "skin cesium_man.gltf --time $t" 0 skin "$MAN" --time "$t" -o "$T/man.obj"
    if python3 "$HERE/skin_ref.py" "$MAN" "$t" 0 "$T/man.obj" >"$T/ref" 2>&1; then
      ok "cesium_man at $t s: $(cat "$T/ref")"
    else
      no "cesium_man at $t s: $(cat "$T/ref")"
    fi
  done
  check "cesium_man: normals and 4672 triangles" test "$(grep -c '^vn ' "$T/man.obj")" = 3273 -a "$(grep -c '^f ' "$T/man.obj")" = 4672
  for a in 0 2; do
    expect "skin Fox.glb --animation $a --time 0.5" 0 skin "$FOX" --animation "$a" --time 0.5 -o "$T/fox$a.obj"
    if python3 "$HERE/skin_ref.py" "$FOX" 0.5 "$a" "$T/fox$a.obj" >"$T/ref" 2>&1; then
      ok "Fox animation $a at 0.5 s: $(cat "$T/ref")"
    else
      no "Fox animation $a at 0.5 s: $(cat "$T/ref")"
    fi
  done
  check "Fox: no normals, 576 triangles" test "$(grep -c '^vn ' "$T/fox0.obj")" = 0 -a "$(grep -c '^f ' "$T/fox0.obj")" = 576
  check "Fox: the two animations pose it differently" sh -c 'test -s "$1" && test -s "$2" && ! cmp -s "$1" "$2"' sh "$T/fox0.obj" "$T/fox2.obj"
  expect "skin -o - (standard output)" 0 skin "$FOX" -o -
  check "skin -o -: OBJ on stdout" grep -q '^v ' "$T/out"
  expect "skin --animation past the last" 1 skin "$FOX" --animation 3 -o "$T/y.obj"
  check "skin --animation 3: says how many" grep -q "3 animations" "$T/err"
  expect "skin --skin 1 (the file has one)" 1 skin "$FOX" --skin 1 -o "$T/y.obj"
  check "no output left by the failures" test ! -e "$T/y.obj"
  cp "$FOX" "$T/fox_copy.obj"
  expect "skin: the output would overwrite the model" 1 skin "$T/fox_copy.obj" -o "$T/fox_copy.obj"
  check "the model is intact" cmp -s "$FOX" "$T/fox_copy.obj"
  # deterministic across backends: same OBJ text within float rounding
  for b in scalar avx2; do
    pb cpu
    if grep -q "$b" "$T/out"; then
      expect "skin --backend $b" 0 skin "$MAN" --time 0.7 --backend "$b" -o "$T/man_$b.obj"
      if python3 "$HERE/skin_ref.py" "$MAN" 0.7 0 "$T/man_$b.obj" >"$T/ref" 2>&1; then
        ok "cesium_man on $b: $(cat "$T/ref")"
      else
        no "cesium_man on $b: $(cat "$T/ref")"
      fi
    fi
  done
fi
