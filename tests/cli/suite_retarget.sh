# shellcheck shell=bash
# retarget: a clip onto the same skeleton (every value kept), onto the pymo
# skeleton of the shared data (names, frames, the -v report), BVH and glTF
# in and out, map files, and the error paths.
RT_SHARED="${PB_SHARED_DATA_DIR:-$HERE/../../../shared/data}"
PYMO="$RT_SHARED/mocap/pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh"
joint_names() { awk '/^MOTION/ { exit } $1 == "ROOT" || $1 == "JOINT" { print $2 }' "$1"; }

echo "== retarget: help and usage"
expect "retarget --help" 0 retarget --help
check "retarget --help prints usage on stdout" grep -q '^usage: posebatch retarget' "$T/out"
expect "retarget without --to" 2 retarget "$T/a.bvh" -o "$T/u.bvh"
expect "retarget without -o" 2 retarget "$T/a.bvh" --to "$T/b.bvh"
expect "retarget without an input" 2 retarget --to "$T/b.bvh" -o "$T/u.bvh"
expect "retarget with two inputs" 2 retarget "$T/a.bvh" "$T/b.bvh" --to "$T/b.bvh" -o "$T/u.bvh"
expect "retarget with an unknown option" 2 retarget "$T/a.bvh" --to "$T/b.bvh" -o "$T/u.bvh" --nope
expect "retarget --map-only without --map" 2 retarget "$T/a.bvh" --to "$T/b.bvh" -o "$T/u.bvh" --map-only
expect "retarget --euler bogus" 2 retarget "$T/a.bvh" --to "$T/b.bvh" -o "$T/u.bvh" --euler bogus
check "usage errors write nothing" test ! -e "$T/u.bvh"

echo "== retarget: the same skeleton"
expect "retarget onto its own skeleton" 0 retarget "$T/a.bvh" --to "$T/b.bvh" -o "$T/same.bvh"
check "same skeleton: $F frames" has_frames "$T/same.bvh" "$F"
check "same skeleton: every value the source's" close_to "$T/a.bvh" "$T/same.bvh" 0 0
check "same skeleton: quiet without -v" test ! -s "$T/err"
own=$(awk -v t="$(frame_time "$T/a.bvh")" 'BEGIN { printf "%.17g", 1 / t }')
expect "resample at the clip's own rate (the writer's text of the source)" 0 \
  resample "$T/a.bvh" --fps "$own" -o "$T/own.bvh"
check "same skeleton: the text of the source as the writer writes it" cmp -s "$T/own.bvh" "$T/same.bvh"
expect "retarget -o - writes standard output" 0 retarget "$T/a.bvh" --to "$T/b.bvh" -o -
check "-o -: the same text" cmp -s "$T/out" "$T/same.bvh"
expect "retarget from standard input" 0 retarget - --to "$T/b.bvh" -o "$T/stdin.bvh" <"$T/a.bvh"
check "from standard input: the same text" cmp -s "$T/stdin.bvh" "$T/same.bvh"

echo "== retarget: output path rules"
cp "$T/a.bvh" "$T/keep.bvh"
expect "output over the input refused" 1 retarget "$T/a.bvh" --to "$T/b.bvh" -o "$T/a.bvh"
check "the input is untouched" cmp -s "$T/a.bvh" "$T/keep.bvh"
check "the message says why" grep -q 'would overwrite this input; refused' "$T/err"
expect "output over the skeleton refused" 1 retarget "$T/a.bvh" --to "$T/b.bvh" -o "$T/b.bvh"
check "the skeleton is untouched" cmp -s "$T/b.bvh" "$T/keep.bvh"

echo "== retarget: glTF"
expect "retarget to .glb" 0 retarget "$T/a.bvh" --to "$T/b.bvh" -o "$T/same.glb"
check "the .glb is glTF" test "$(head -c 4 "$T/same.glb")" = "glTF"
expect "retarget a .glb input onto a .glb skeleton, to BVH" 0 \
  retarget "$T/same.glb" --to "$T/same.glb" -o "$T/from_glb.bvh"
check "glTF round trip close to the source (< 0.01 deg, < 1e-3)" \
  close_to "$T/a.bvh" "$T/from_glb.bvh" 0.01 0.001
expect "retarget to .gltf" 0 retarget "$T/a.bvh" --to "$T/b.bvh" -o "$T/same.gltf"
check "the .gltf is JSON" grep -q '"asset"' "$T/same.gltf"

echo "== retarget: maps"
printf '# the hips\nHips = Hips\n\nLeftUpLeg=LeftUpLeg  # a comment\n' >"$T/good.map"
expect "a good map" 0 retarget "$T/a.bvh" --to "$T/b.bvh" --map "$T/good.map" -o "$T/m.bvh"
check "a good map: the same values" close_to "$T/a.bvh" "$T/m.bvh" 0 0
printf 'Hips = Hips\nSpine Spine1\n' >"$T/syntax.map"
expect "a map line without '='" 1 retarget "$T/a.bvh" --to "$T/b.bvh" --map "$T/syntax.map" -o "$T/m2.bvh"
check "the message names the map and its line" grep -q "syntax.map: line 2: expected 'source = target'" "$T/err"
printf 'Hips = Hips\nNoSuchJoint = Spine\n' >"$T/unknown.map"
expect "a map naming an unknown joint" 1 retarget "$T/a.bvh" --to "$T/b.bvh" --map "$T/unknown.map" -o "$T/m2.bvh"
check "the message names the joint and the line" grep -q "map line 2: source joint 'NoSuchJoint' is not in the source skeleton" "$T/err"
printf 'Hips = Hips\nSpine = Spine\nSpine1 = Spine\n' >"$T/dup.map"
expect "a map naming a target twice" 1 retarget "$T/a.bvh" --to "$T/b.bvh" --map "$T/dup.map" -o "$T/m2.bvh"
check "the message names both lines" grep -q "line 3: target joint 'Spine' is already mapped on line 2" "$T/err"
expect "--map-only with two pairs" 1 retarget "$T/a.bvh" --to "$T/b.bvh" --map "$T/good.map" --map-only -o "$T/m2.bvh"
check "too few matches" grep -q 'too few matches: 2 joints matched' "$T/err"
expect "a missing map file" 1 retarget "$T/a.bvh" --to "$T/b.bvh" --map "$T/missing.map" -o "$T/m2.bvh"
check "failures write nothing" test ! -e "$T/m2.bvh"

echo "== retarget: no joint in common"
sed -E 's/^([ \t]*(ROOT|JOINT) )/\1zz/' "$T/a.bvh" >"$T/alien.bvh"
expect "a skeleton with no known name" 1 retarget "$T/a.bvh" --to "$T/alien.bvh" -o "$T/m3.bvh"
check "the message says so" grep -q 'no joint of the target matches' "$T/err"

echo "== retarget: onto the pymo skeleton"
if [ -f "$PYMO" ]; then
  expect "retarget onto pymo -v" 0 retarget "$T/a.bvh" --to "$PYMO" -o "$T/pymo.bvh" -v
  check "pymo: the target's joints, in its order" \
    test "$(joint_names "$T/pymo.bvh")" = "$(joint_names "$PYMO")"
  check "pymo: the source's $F frames" has_frames "$T/pymo.bvh" "$F"
  check "pymo: the source's frame time" test "$(frame_time "$T/pymo.bvh")" = "$(frame_time "$T/same.bvh")"
  check "-v: the count" grep -q '19 of 23 target joints matched' "$T/err"
  check "-v: a family match" grep -qE 'LeftUpLeg +<- LeftUpLeg' "$T/err"
  check "-v: unmatched target joints keep the rest pose" grep -qE 'LeftHand_End +<- \(rest\)' "$T/err"
  check "-v: unused source joints" grep -qE '^posebatch: +Neck1$' "$T/err"
  expect "and back onto the CMU skeleton" 0 retarget "$T/pymo.bvh" --to "$T/a.bvh" -o "$T/back.bvh"
  check "back: $F frames" has_frames "$T/back.bvh" "$F"
else
  skips 10 "retarget onto the pymo skeleton: $PYMO not found (optional shared data)"
fi
