# shellcheck shell=bash
# glTF 2.0 in the CLI: info, resample (LINEAR, --cubic), convert BVH <-> glTF,
# malformed input, output paths. The sample models are read from
# ../shared/data/gltf (PB_SHARED_DATA_DIR), never copied into the repository.
# With PB_GLTF_VALIDATOR=DIR (a node_modules holding the npm gltf-validator),
# every glTF written here is also checked by the Khronos glTF-Validator: no
# error beyond those its input already has. With PB_THREE_DIR=DIR (DIR/node_modules
# holding the npm three), three.js samples them too (GLTFLoader +
# AnimationMixer at 200 random times; BVH outputs through BVHLoader at 200
# random frames) and must agree with posebatch's sampling within 1e-5 rad.
GLTF_DIR="${PB_SHARED_DATA_DIR:-$HERE/../../../shared/data}/gltf"
FOX="$GLTF_DIR/Fox.glb"
MAN="$GLTF_DIR/cesium_man.gltf"
echo "== glTF"
# the errors the validator reports for a file: "CODE:count ..." (warnings not counted)
gltf_errors() {
  NODE_PATH="$PB_GLTF_VALIDATOR" node "$HERE/gltf_validate.js" "$1" |
    awk '{ for (i = 6; i <= NF; i++) if ($i !~ /^warning:/) printf "%s ", $i; print "errors", $3 }'
}
valid_clean() { # name file: the validator finds no error
  if [ -z "${PB_GLTF_VALIDATOR:-}" ]; then
    echo "skip $1 (PB_GLTF_VALIDATOR not set)"
    skip_one
    return
  fi
  local a; a=$(gltf_errors "$2")
  if [ "$a" = "errors 0" ]; then ok "$1: validator: no errors"; else no "$1: validator: $a"; fi
}
validated() { # name output input: the output's validator errors are the input's
  if [ -z "${PB_GLTF_VALIDATOR:-}" ]; then
    echo "skip $1 (PB_GLTF_VALIDATOR not set)"
    skip_one
    return
  fi
  local a b
  a=$(gltf_errors "$2"); b=$(gltf_errors "$3")
  if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "$1: validator: $a"
  else no "$1: validator: output '$a', input '$b'"; fi
}
DUMP="$(dirname "$(dirname "$(dirname "$PB")")")/tests/gltf-dump"
three_agrees() { # name file [animation]: three.js samples like posebatch
  if [ -z "${PB_THREE_DIR:-}" ] || [ ! -x "$DUMP" ]; then
    echo "skip $1 (PB_THREE_DIR not set or tests/gltf-dump not built)"
    skip_one
    return
  fi
  local script=gltf_three.mjs
  case "$2" in *.bvh) script=bvh_three.mjs ;; esac
  if "$DUMP" "$2" "${3:-0}" 200 "$RANDOM" | PB_THREE_DIR="$PB_THREE_DIR" node "$HERE/$script" "$2" "${3:-0}" >"$T/three" 2>&1
  then ok "$1: $(tail -n 1 "$T/three")"
  else no "$1: $(tail -n 3 "$T/three" | tr '\n' ' ')"; fi
}
if [ ! -f "$FOX" ] || [ ! -f "$MAN" ]; then
  echo "skip the glTF suite (counted as one): $GLTF_DIR has no Fox.glb / cesium_man.gltf"
  skip_one
else
  # info
  expect "info Fox.glb" 0 info "$FOX"
  check "info: 3 animations" grep -q "animations: 3" "$T/out"
  check "info: the skin's 24 joints" grep -q "24 joints" "$T/out"
  expect "info --json cesium_man.gltf" 0 info --json "$MAN"
  check "info --json: one object, 57 channels, 0 .. 2 s" python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).read())
a = o["animations"][0]
sys.exit(not (o["format"] == "gltf" and o["nodes"] == 22 and a["channels"] == 57 and a["start"] == 0 and a["end"] == 2))' "$T/out"

  # resample: LINEAR keys at 60 fps
  expect "resample Fox.glb --fps 60" 0 resample "$FOX" --fps 60 -o "$T/fox60.glb"
  check "a GLB (magic bytes glTF)" test "$(head -c 4 "$T/fox60.glb")" = glTF
  pb info --json "$T/fox60.glb"
  check "keys: floor(T * 60) + 1 per animation and one at the end, all LINEAR, same length" python3 -c '
import json, math, sys
src = json.loads(open(sys.argv[1]).read()); out = json.loads(open(sys.argv[2]).read())
def keys(t):
    n = math.floor(t * 60 + 1e-3)
    return n + 1 + (t * 60 - n > 1e-3)
ok = all(b["max_keys"] == keys(a["end"] - a["start"]) and b["interpolation"] == ["LINEAR"]
         and b["end"] == a["end"] and b["channels"] == a["channels"]
         for a, b in zip(src["animations"], out["animations"]))
sys.exit(not ok)' <("$PB" info --json "$FOX") "$T/out"
  validated "resample Fox.glb --fps 60" "$T/fox60.glb" "$FOX"
  for a in 0 1 2; do three_agrees "three.js samples fox60.glb animation $a" "$T/fox60.glb" "$a"; done

  # --cubic, .gltf output (JSON with the buffer as a data: URI)
  expect "resample --cubic cesium_man.gltf --fps 30 -o .gltf" 0 resample --cubic "$MAN" --fps 30 -o "$T/man30.gltf"
  check "JSON with CUBICSPLINE samplers and one embedded buffer" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for a in d["animations"] for x in a["samplers"]]
sys.exit(not (all(x["interpolation"] == "CUBICSPLINE" for x in s) and len(d["buffers"]) == 1
              and d["buffers"][0]["uri"].startswith("data:application/octet-stream;base64,")))' "$T/man30.gltf"
  check "everything but animation data unchanged (meshes, skins, materials, nodes, images)" python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
keys = [k for k in a if k not in ("accessors", "bufferViews", "buffers", "animations")]
sys.exit(not (all(a[k] == b.get(k) for k in keys) and set(a) == set(b)))' "$MAN" "$T/man30.gltf"
  validated "resample --cubic cesium_man.gltf" "$T/man30.gltf" "$MAN"
  three_agrees "three.js samples man30.gltf (CUBICSPLINE)" "$T/man30.gltf"
  expect "resample --cubic Fox.glb -o .glb" 0 resample --cubic "$FOX" --fps 24 -o "$T/foxc.glb"
  validated "resample --cubic Fox.glb" "$T/foxc.glb" "$FOX"
  expect "resample the resampled again" 0 resample "$T/foxc.glb" --fps 30 -o "$T/foxc30.glb"
  validated "resample of a CUBICSPLINE output" "$T/foxc30.glb" "$FOX"

  # output paths: directory, standard output, /dev/null, refusals
  mkdir -p "$T/outdir"
  expect "resample -o DIR" 0 resample "$FOX" "$MAN" --fps 10 -o "$T/outdir"
  check "DIR/Fox.glb and DIR/cesium_man.gltf" test -s "$T/outdir/Fox.glb" -a -s "$T/outdir/cesium_man.gltf"
  check "no temporaries left" test "$(ls -A "$T/outdir" | wc -l)" = 2
  expect "resample -o - (a GLB input: GLB on stdout)" 0 resample "$FOX" --fps 10 -o -
  check "stdout is a GLB" test "$(head -c 4 "$T/out")" = glTF
  expect "resample -o /dev/null" 0 resample "$FOX" --fps 10 -o /dev/null
  cp "$FOX" "$T/fox.glb"
  expect "an output that is the input" 1 resample "$T/fox.glb" --fps 10 -o "$T/fox.glb"
  check "the input is untouched" cmp -s "$FOX" "$T/fox.glb"
  expect "--loop on glTF" 1 resample "$FOX" --fps 10 --loop -o "$T/l.glb"
  check "names the reason" grep -q "loop is for BVH inputs" "$T/err"
  expect "resample glTF -o x.bvh" 1 resample "$FOX" --fps 10 -o "$T/x.bvh"
  check "nothing written" test ! -e "$T/x.bvh" -a ! -e "$T/l.glb"

  # SIGTERM while the temporary is being written: it is removed, the process
  # dies of the signal (the glTF writer goes through file_write.c as BVH does)
  mkdir -p "$T/sig"
  "$PB" resample --cubic "$FOX" --fps 20000 -o "$T/sig/big.gltf" 2>"$T/err" &
  pid=$!
  for _ in $(seq 1 600); do ls -A "$T/sig" | grep -q '\.tmp-' && break; sleep 0.05; done
  seen=$(ls -A "$T/sig")
  kill -TERM "$pid" 2>/dev/null
  wait "$pid"; rc=$?
  check "SIGTERM during a glTF write: exit 143 (a temporary was being written: ${seen:-none})" \
    test "$rc" = 143 -a -n "$seen"
  check "no temporary and no output left" test -z "$(ls -A "$T/sig")"

  # malformed input: clear errors, nothing written
  head -c 1000 "$FOX" >"$T/cut.glb"
  expect "a cut GLB" 1 resample "$T/cut.glb" --fps 30 -o "$T/cut_out.glb"
  check "says GLB and the sizes" grep -q "GLB: header length" "$T/err"
  printf '{\n "asset": {"version": "2.0"},\n "nodes": [ }\n' >"$T/bad.gltf"
  expect "bad JSON" 1 info "$T/bad.gltf"
  check "line and column" grep -q "bad.gltf: line 3, column" "$T/err"
  python3 - "$MAN" "$T/badacc.gltf" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["animations"][0]["samplers"][2]["input"] = 1   # a VEC4 UNSIGNED_SHORT accessor
json.dump(d, open(sys.argv[2], "w"))
PY
  expect "a sampler input that is not float" 1 resample "$T/badacc.gltf" --fps 30 -o "$T/badacc_out.gltf"
  check "names the JSON path" grep -q "animations\[0\].samplers\[2\].input: accessor 1 is" "$T/err"
  check "nothing written" test ! -e "$T/cut_out.glb" -a ! -e "$T/badacc_out.gltf"

  # convert BVH -> glTF -> BVH: every rotation within 1e-3 degrees
  expect "convert a.bvh a.glb" 0 convert "$T/a.bvh" "$T/a.glb"
  valid_clean "convert BVH -> GLB" "$T/a.glb"
  three_agrees "three.js samples a.glb (from BVH)" "$T/a.glb"
  expect "convert a.glb back.bvh" 0 convert "$T/a.glb" "$T/back.bvh"
  check "same frames, channel layout, joint names" cmp -s <(sed -n '/^MOTION/q;p' "$T/a.bvh" | tr -d '\r' | awk '{$1=$1; print}' | grep -v OFFSET) \
    <(sed -n '/^MOTION/q;p' "$T/back.bvh" | awk '{$1=$1; print}' | grep -v OFFSET)
  awk -f "$DIFF" "$T/a.bvh" "$T/back.bvh" >"$T/diff"
  check "round trip: rotations within 1e-3 degrees ($(cat "$T/diff"))" close_to "$T/a.bvh" "$T/back.bvh" 1e-3 1e-4
  three_agrees "three.js BVHLoader reads back.bvh" "$T/back.bvh"
  expect "convert a.bvh a.gltf (JSON)" 0 convert "$T/a.bvh" "$T/a.gltf"
  valid_clean "convert BVH -> glTF JSON" "$T/a.gltf"
  expect "convert Fox.glb fox.bvh (its one skin)" 0 convert "$FOX" "$T/fox.bvh"
  pb info "$T/fox.bvh"
  check "a BVH of 25 joints (the skin's 24 and an ancestor)" grep -q "joints: *25 " "$T/out"
  check "83 frames (one per key of Survey)" has_frames "$T/fox.bvh" 83
  three_agrees "three.js BVHLoader reads fox.bvh" "$T/fox.bvh"
  expect "convert --animation 2 --fps 30" 0 convert "$FOX" "$T/run.bvh" --animation 2 --fps 30
  check "Run at 30 fps: floor(1.158333 * 30) + 1 = 35 frames" has_frames "$T/run.bvh" 35
  expect "convert --skin 1 (one skin)" 1 convert "$FOX" "$T/s.bvh" --skin 1
  check "says so" grep -q "skin 1: the file has 1 skin" "$T/err"
  expect "convert --animation 5" 1 convert "$FOX" "$T/s.bvh" --animation 5
  expect "convert BVH to BVH" 2 convert "$T/a.bvh" "$T/x.bvh"
  expect "convert to an unknown extension" 2 convert "$T/a.bvh" "$T/x.fbx"
  expect "convert --skin on a BVH input" 2 convert "$T/a.bvh" "$T/x.glb" --skin 0
  check "nothing written by the failures" test ! -e "$T/s.bvh" -a ! -e "$T/x.bvh" -a ! -e "$T/x.glb"
  # extras that give no joint a channel: a skeleton without frames, which
  # reads back; the commands that need frames say so (found by the fuzzer)
  printf '%s' '{"asset":{"version":"2.0"},"nodes":[{"name":"root","children":[1],"extras":{"bvh_channels":[]}},{"name":"b","translation":[0,1,0],"extras":{"bvh_channels":[]}}]}' >"$T/nochan.gltf"
  expect "convert a glTF whose extras give no channel" 0 convert "$T/nochan.gltf" "$T/nochan.bvh"
  check "no frames" has_frames "$T/nochan.bvh" 0
  expect "the BVH reads back" 0 info "$T/nochan.bvh"
  expect "positions of a glTF of no frames" 1 positions "$T/nochan.gltf" -o "$T/nochan.csv"
  check "says the file has no frames" grep -q "nochan.gltf: the file has no frames" "$T/err"
  expect "mirror of a glTF of no frames" 1 mirror "$T/nochan.gltf" -o "$T/nochan_m.bvh"
  check "nothing written" test ! -e "$T/nochan.csv" -a ! -e "$T/nochan_m.bvh"

  echo "== blend of glTF inputs"
  expect "convert Fox.glb to BVH" 0 convert "$FOX" "$T/fox_conv.bvh"
  expect "blend Fox.glb with itself" 0 blend "$FOX" "$FOX" --weights 1,1 -o "$T/foxblend.bvh"
  check "the blend of Fox with itself is Fox (1e-3 deg)" close_to "$T/fox_conv.bvh" "$T/foxblend.bvh" 1e-3 1e-3
  expect "blend a glTF and its BVH conversion" 0 blend "$FOX" "$T/fox_conv.bvh" --weights 1,3 -o "$T/foxmix.bvh"
  check "the mixed blend is Fox too" close_to "$T/fox_conv.bvh" "$T/foxmix.bvh" 1e-3 1e-3
  expect "blend into a .glb" 0 blend "$MAN" "$MAN" --weights 1,1 -o "$T/manblend.glb"
  check "the .glb output is GLB" test "$(head -c 4 "$T/manblend.glb")" = glTF
  expect "info of the blended .glb" 0 info "$T/manblend.glb"
  expect "blend glTF skeletons that differ" 1 blend "$FOX" "$T/a.bvh" --weights 1,1 -o "$T/x.bvh"
  check "skeleton mismatch named, nothing written" test ! -e "$T/x.bvh"
fi

# a buffer uri outside the asset's directory is refused, never copied into an
# output; a FIFO buffer fails at once (it used to hang info/resample/convert)
if [ -f "$MAN" ]; then
  mkdir -p "$T/uri/asset"
  printf 'top secret\n' >"$T/uri/secret.bin"
  python3 - "$MAN" "$T/uri/asset" <<'PY'
import base64, json, sys
g = json.load(open(sys.argv[1]))
raw = base64.b64decode(g["buffers"][0]["uri"].split(",", 1)[1])
open(sys.argv[2] + "/cm.bin", "wb").write(raw)
for name, uri in [("up", "../secret.bin"), ("fifo", "fifo.bin"), ("ok", "cm.bin")]:
    g["buffers"][0]["uri"] = uri
    json.dump(g, open(f"{sys.argv[2]}/{name}.gltf", "w"))
PY
  mkfifo "$T/uri/asset/fifo.bin"
  pb resample "$T/uri/asset/up.gltf" --fps 30 -o "$T/uri/up_out.gltf"
  if [ "$rc" = 1 ] && grep -q "uri '../secret.bin': outside" "$T/err" && [ ! -e "$T/uri/up_out.gltf" ]
  then ok "uri '../secret.bin': refused, nothing written"; else no "uri '../secret.bin' (rc $rc)"; fi
  F=$T/uri/asset/fifo.gltf
  for cmd in "info $F" "resample $F --fps 30 -o $T/uri/f.gltf" "convert $F $T/uri/f.bvh"; do
    # shellcheck disable=SC2086
    rc=0; timeout 10 "$PB" $cmd >"$T/out" 2>"$T/err" || rc=$?
    if [ "$rc" = 1 ] && grep -q "not a regular file" "$T/err"; then ok "FIFO buffer: ${cmd%% *} fails at once"
    else no "FIFO buffer: ${cmd%% *} (rc $rc)"; fi
  done
  expect "a buffer file inside the asset's directory" 0 info "$T/uri/asset/ok.gltf"
fi

# resample writes what its output's name says, never BVH text into a .glb
expect "resample BVH -o x.glb" 0 resample "$CLIP" --fps 30 -o "$T/bvh30.glb"
check "a GLB (magic bytes glTF), readable" test "$(head -c 4 "$T/bvh30.glb")" = glTF
expect "the .glb reads back" 0 info "$T/bvh30.glb"
expect "resample BVH --cubic: refused (--cubic is for glTF inputs)" 1 resample "$CLIP" --fps 30 --cubic -o "$T/cubic.bvh"
check "says why, nothing written" sh -c "grep -q 'cubic is for glTF inputs' '$T/err' && test ! -e '$T/cubic.bvh'"
if [ -f "$MAN" ]; then
  # no accessor left behind by the resampled animations (the validator's
  # UNUSED_OBJECT, checked here without node)
  expect "resample cesium_man.gltf" 0 resample "$MAN" --fps 60 -o "$T/man60.gltf"
  check "every accessor of the output is referenced" python3 -c '
import json, sys
g = json.load(open(sys.argv[1])); used = set()
for m in g.get("meshes", []):
    for p in m["primitives"]:
        used |= set(p["attributes"].values()) | ({p["indices"]} if "indices" in p else set())
        for t in p.get("targets", []): used |= set(t.values())
used |= {s["inverseBindMatrices"] for s in g.get("skins", []) if "inverseBindMatrices" in s}
used |= {x for a in g.get("animations", []) for s in a["samplers"] for x in (s["input"], s["output"])}
sys.exit(set(range(len(g["accessors"]))) != used)' "$T/man60.gltf"
fi

# convert BVH -> glTF writes a skin (every node a joint, inverse bind
# matrices of the rest pose) so that importers make an armature: checked in
# the JSON here, by three.js's GLTFLoader (PB_THREE_DIR) and by Blender's own
# importer (PB_BLENDER, or a blender on PATH); and --scale
echo "== convert: the skin, --scale"
expect "convert a.bvh sk.gltf" 0 convert "$T/a.bvh" "$T/sk.gltf"
check "one skin of every node; its inverse bind matrices translate by minus each rest position" python3 -c '
import base64, json, struct, sys
d = json.load(open(sys.argv[1]))
nodes, skins = d["nodes"], d["skins"]
assert len(skins) == 1 and skins[0]["joints"] == list(range(len(nodes))), skins
assert skins[0]["skeleton"] == 0 and d["scenes"][0]["nodes"] == [0]
acc = d["accessors"][skins[0]["inverseBindMatrices"]]
assert acc["type"] == "MAT4" and acc["componentType"] == 5126 and acc["count"] == len(nodes)
view = d["bufferViews"][acc["bufferView"]]
raw = base64.b64decode(d["buffers"][0]["uri"].split(",", 1)[1])
m = struct.unpack_from("<%df" % (16 * len(nodes)), raw, view["byteOffset"] + acc.get("byteOffset", 0))
parent = {c: p for p, n in enumerate(nodes) for c in n.get("children", [])}
def rest(i):
    t = nodes[i].get("translation", [0, 0, 0])
    return [a + b for a, b in zip(rest(parent[i]), t)] if i in parent else t
for i in range(len(nodes)):
    w = rest(i)
    want = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -w[0], -w[1], -w[2], 1]
    assert all(abs(a - b) <= 1e-5 * (1 + abs(b)) for a, b in zip(m[16 * i:16 * i + 16], want)), (i, m[16 * i:16 * i + 16], want)
assert len(nodes) == 38' "$T/sk.gltf"
valid_clean "the skinned glTF" "$T/sk.gltf"
expect "convert a.bvh sk.glb" 0 convert "$T/a.bvh" "$T/sk.glb"
pb positions "$T/a.bvh" -o "$T/sk_pos.csv"
if [ -z "${PB_THREE_DIR:-}" ] || ! command -v node >/dev/null; then
  echo "skip three.js finds the skin (PB_THREE_DIR not set or no node)"
  skip_one
elif PB_THREE_DIR="$PB_THREE_DIR" node "$HERE/skin_three.mjs" "$T/sk.glb" "$T/sk_pos.csv" >"$T/three" 2>&1; then
  ok "three.js GLTFLoader: $(tail -n 1 "$T/three")"
else
  no "three.js GLTFLoader: $(tail -n 3 "$T/three" | tr '\n' ' ')"
fi
BLENDER=${PB_BLENDER:-$(command -v blender || true)}
if [ -z "$BLENDER" ]; then
  echo "skip Blender imports an armature (no blender; PB_BLENDER=PATH or apt-get install blender)"
  skip_one
elif "$BLENDER" -b --factory-startup --python "$HERE/skin_blender.py" -- "$T/sk.glb" "$T/sk_pos.csv" >"$T/blender" 2>&1 &&
  grep -q "^blender-skin: .*)$" "$T/blender"; then
  ok "Blender's importer: $(grep '^blender-skin:' "$T/blender")"
else
  no "Blender's importer: $(grep -E '^blender-skin:|Error' "$T/blender" | head -3 | tr '\n' ' ')"
fi
expect "convert --scale 0.056444 (CMU units to metres)" 0 convert "$T/a.bvh" "$T/skm.glb" --scale 0.056444
pb positions "$T/skm.glb" -o "$T/skm_pos.csv"
check "every joint position times 0.056444 (1e-6 of the size)" awk -F, '
  NR == FNR { if (FNR > 1) for (i = 3; i <= NF; i++) a[FNR, i] = $i; next }
  FNR > 1 { for (i = 3; i <= NF; i++) { d = $i - 0.056444 * a[FNR, i]; if (d * d > 1e-12) bad++ } n++ }
  END { exit bad > 0 || n < 2 }' "$T/sk_pos.csv" "$T/skm_pos.csv"
expect "convert skm.glb back with --scale 17.7166" 0 convert "$T/skm.glb" "$T/skm.bvh" --scale 17.7166
check "the OFFSETs come back (1e-4)" awk '
  NR == FNR { if ($1 == "OFFSET") o[++n] = $2 " " $3 " " $4; next }
  $1 == "OFFSET" { split(o[++m], w, " "); for (k = 1; k <= 3; k++) { d = $(k + 1) - w[k]; if (d * d > 1e-8) bad++ } }
  END { exit bad > 0 || m != n || n < 2 }' "$T/a.bvh" "$T/skm.bvh"
expect "--scale 0" 2 convert "$T/a.bvh" "$T/x0.glb" --scale 0
expect "--scale -1" 2 convert "$T/a.bvh" "$T/x0.glb" --scale=-1
expect "--scale 1e38: beyond float range" 1 convert "$T/a.bvh" "$T/x0.glb" --scale 1e38
check "says so, nothing written" bash -c 'grep -q "beyond float range" "$1" && test ! -e "$2"' _ "$T/err" "$T/x0.glb"
