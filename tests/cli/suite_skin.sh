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
expect "skin: -o not .obj, .glb or .gltf" 2 skin "$CLIP" -o "$T/x.bvh"
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
  # the same posed mesh as a static glTF: .glb and .gltf
  expect "skin cesium_man.gltf --time 1.93 -o man.glb" 0 skin "$MAN" --time 1.93 -o "$T/man.glb"
  expect "skin cesium_man.gltf --time 1.93 -o man.gltf" 0 skin "$MAN" --time 1.93 -o "$T/man.gltf"
  check "man.glb and man.gltf: the OBJ's positions, unit normals, triangles; POSITION min/max" python3 -c '
import base64, json, math, struct, sys
def load(p):
    raw = open(p, "rb").read()
    if raw[:4] == b"glTF":
        jl = struct.unpack_from("<I", raw, 12)[0]
        return json.loads(raw[20:20 + jl]), raw[28 + jl:]
    d = json.loads(raw)
    return d, base64.b64decode(d["buffers"][0]["uri"].split(",", 1)[1])
def acc(d, b, i, fmt):
    a = d["accessors"][i]; v = d["bufferViews"][a["bufferView"]]
    n = a["count"] * {"VEC3": 3, "SCALAR": 1}[a["type"]]
    return struct.unpack_from("<%d%s" % (n, fmt), b, v["byteOffset"])
obj = [l.split() for l in open(sys.argv[1])]
V = [tuple(map(float, l[1:4])) for l in obj if l and l[0] == "v"]
N = [tuple(map(float, l[1:4])) for l in obj if l and l[0] == "vn"]
F = [int(x.split("/")[0]) - 1 for l in obj if l and l[0] == "f" for x in l[1:4]]
for p in sys.argv[2:]:
    d, b = load(p)
    prim = d["meshes"][0]["primitives"][0]
    pos = acc(d, b, prim["attributes"]["POSITION"], "f")
    nrm = acc(d, b, prim["attributes"]["NORMAL"], "f")
    idx = acc(d, b, prim["indices"], "I")
    assert len(pos) == 3 * len(V) and list(idx) == F and "skins" not in d, p
    assert all(abs(pos[3 * i + k] - V[i][k]) <= 1e-6 * (1 + abs(V[i][k])) for i in range(len(V)) for k in range(3)), p
    for i, n in enumerate(N):
        l = math.sqrt(sum(x * x for x in n))
        assert all(abs(nrm[3 * i + k] - n[k] / l) <= 1e-6 for k in range(3)), (p, i)
    a = d["accessors"][prim["attributes"]["POSITION"]]
    assert all(abs(x - y) <= 1e-6 * (1 + abs(y)) for x, y in zip(a["min"], [min(pos[k::3]) for k in range(3)])), p
    assert all(abs(x - y) <= 1e-6 * (1 + abs(y)) for x, y in zip(a["max"], [max(pos[k::3]) for k in range(3)])), p
' "$T/man.obj" "$T/man.glb" "$T/man.gltf"
  if [ -n "${PB_GLTF_VALIDATOR:-}" ]; then
    for f in man.glb man.gltf; do
      v=$(NODE_PATH="$PB_GLTF_VALIDATOR" node "$HERE/gltf_validate.js" "$T/$f")
      check "$f: the Khronos glTF-Validator: ${v#* }" test "${v##*errors }" = "0 warnings 0"
    done
  else
    skips 2 "the validator on skin's glTF outputs (PB_GLTF_VALIDATOR not set)"
  fi
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
