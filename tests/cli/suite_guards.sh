# shellcheck shell=bash
# What the commands guard against (issues 44 and 47): outputs that say the
# wrong rate, outputs named like no clip format, an output over an input
# named by an option, work out of proportion to the input, FIFOs, root
# tracks that do not hold a unit heading or their frames in order, joint
# names that repeat, messages that name the wrong thing. Small synthetic
# inputs written here; every check runs in well under a second.

# 200 frames at 120 fps of the shipped clip (the fixture short.bvh)
echo "== a rate changed is a rate said"
expect "BVH -> glb" 0 convert "$T/short.bvh" "$T/s.glb"
expect "the glb resampled at 30 fps" 0 resample "$T/s.glb" --fps 30 -o "$T/s30.glb"
expect "converted back to BVH" 0 convert "$T/s30.glb" "$T/s30.bvh"
check "its Frame Time is 1/30 s (not the source's 1/120)" \
  awk '/^Frame Time/ { t = $NF + 0; exit !(t > 0.03333 && t < 0.03334) }' "$T/s30.bvh"
check "its frames are the resample's: 50, not 200" has_frames "$T/s30.bvh" 50
expect "positions of the resampled glb" 0 positions "$T/s30.glb" -o "$T/s30.csv"
check "positions: one line per resampled frame (50)" test "$(wc -l <"$T/s30.csv")" -eq 51

echo "== output names"
expect "resample two inputs -o one.bvh (no such directory)" 2 resample "$T/a.bvh" "$T/short.bvh" \
  -o "$T/one_out.bvh" --fps 30
check "no directory one_out.bvh made" test ! -e "$T/one_out.bvh"
check "the message says to end the name in '/'" grep -q "end the name in '/'" "$T/err"
expect "resample two inputs -o new/ (made)" 0 resample "$T/one.bvh" "$T/short.bvh" -o "$T/newdir/" --fps 30
check "both written into it" test -f "$T/newdir/one.bvh" -a -f "$T/newdir/short.bvh"
expect "resample -o x.fbx" 2 resample "$T/short.bvh" -o "$T/x.fbx" --fps 30
check "nothing written" test ! -e "$T/x.fbx"
check "the message names the extensions" grep -q "must end in .bvh, .glb or .gltf" "$T/err"
echo keep >"$T/notes.txt"
expect "resample -o an existing .txt" 2 resample "$T/short.bvh" -o "$T/notes.txt" --fps 30
check "the .txt is untouched" test "$(cat "$T/notes.txt")" = keep
for c in mirror root-motion; do
  expect "$c -o x.fbx" 2 $c "$T/short.bvh" -o "$T/x.fbx"
done
expect "blend -o x.txt" 2 blend "$T/short.bvh" "$T/short.bvh" --weights 1,1 -o "$T/x.txt"
expect "retarget -o x.txt" 2 retarget "$T/short.bvh" --to "$T/a.bvh" -o "$T/x.txt"
check "nothing written by any" test ! -e "$T/x.fbx" -a ! -e "$T/x.txt"
ln -s real.bvh "$T/lnk"
expect "-o a link to a .bvh name" 0 mirror "$T/one.bvh" -o "$T/lnk"
check "the link's target written" test -L "$T/lnk" -a -f "$T/real.bvh"

echo "== every input is protected by one rule"
expect "root-motion: the track" 0 root-motion "$T/short.bvh" -o "$T/ip.bvh" --root-csv "$T/r.csv"
cp "$T/r.csv" "$T/track.bvh"
expect "root-motion -o F --apply F" 1 root-motion "$T/ip.bvh" -o "$T/track.bvh" --apply "$T/track.bvh"
check "the --apply file is untouched" cmp -s "$T/r.csv" "$T/track.bvh"
check "the message names the --apply file" grep -q "would overwrite the --apply file" "$T/err"
ln -s track.bvh "$T/tlink.bvh"
expect "root-motion -o LINK --apply F (LINK -> F)" 1 root-motion "$T/ip.bvh" -o "$T/tlink.bvh" --apply "$T/track.bvh"
check "through the link: untouched" cmp -s "$T/r.csv" "$T/track.bvh"
cp "$T/one.bvh" "$T/skel.bvh"
echo "Hips = Hips" >"$T/map.bvh"
expect "retarget -o the --to file" 1 retarget "$T/short.bvh" --to "$T/skel.bvh" -o "$T/skel.bvh"
check "the --to file is untouched" cmp -s "$T/one.bvh" "$T/skel.bvh"
expect "retarget -o the --map file" 1 retarget "$T/short.bvh" --to "$T/one.bvh" --map "$T/map.bvh" -o "$T/map.bvh"
check "the --map file is untouched" test "$(cat "$T/map.bvh")" = "Hips = Hips"
expect "resample --velocity-csv onto its input" 1 resample "$T/short.bvh" -o "$T/v.bvh" --fps 30 \
  --velocity-csv "$T/short.bvh"
check "the input is untouched, nothing written" \
  test "$(frames "$T/short.bvh")" = 200 -a ! -e "$T/v.bvh"
cp "$T/one.bvh" "$T/h1.bvh"
ln "$T/h1.bvh" "$T/h2.bvh"
expect "root-motion --root-csv onto its -o (a hard link)" 1 root-motion "$T/short.bvh" -o "$T/h1.bvh" \
  --root-csv "$T/h2.bvh"
check "  neither written" cmp -s "$T/one.bvh" "$T/h1.bvh"

echo "== work in proportion to the input"
# 4 keys at 0, 1, 2 and 1e7 s: at its keys' rate (1 s) 10 million frames
cat >"$T/long.gltf" <<'EOF'
{"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"name": "Hips", "children": [1]}, {"name": "Spine", "translation": [0, 1, 0]}], "buffers": [{"byteLength": 128, "uri": "data:application/octet-stream;base64,AAAAAAAAgD8AAABAgJYYSwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAACAPwAAAAAAAAAAAACAPwAAAAAAAAAAAACAPwAAAAAAAAAAAACAPwAAAAA="}], "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 16}, {"buffer": 0, "byteOffset": 16, "byteLength": 64}, {"buffer": 0, "byteOffset": 80, "byteLength": 48}], "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "SCALAR", "min": [0], "max": [10000000.0]}, {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC4"}, {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC3"}], "animations": [{"name": "long", "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}, {"sampler": 1, "target": {"node": 0, "path": "translation"}}, {"sampler": 0, "target": {"node": 1, "path": "rotation"}}], "samplers": [{"input": 0, "output": 1}, {"input": 0, "output": 2}]}]}
EOF
msg="long.gltf: at 1 fps the output would be about 0.18 GB (10000001 frames), more than the 0.064 GB allowed at more than 1000 frames for each of the input's 4 keys; nothing written"
t0=$(date +%s%N)
expect "convert (1.2 KB -> 10 million frames)" 1 convert "$T/long.gltf" "$T/long.bvh"
check "convert: the size message" grep -qF "$msg" "$T/err"
for c in positions mirror root-motion; do
  ext=bvh
  [ $c = positions ] && ext=csv
  expect "$c" 1 $c "$T/long.gltf" -o "$T/long_$c.$ext"
  check "$c: the same message" grep -qF "$msg" "$T/err"
done
expect "blend" 1 blend "$T/long.gltf" "$T/long.gltf" --weights 1,1 -o "$T/long_blend.bvh"
check "blend: the same message" grep -qF "$msg" "$T/err"
expect "retarget --to it" 1 retarget "$T/short.bvh" --to "$T/long.gltf" -o "$T/long_rt.bvh"
check "retarget: the same message" grep -qF "$msg" "$T/err"
expect "resample --fps 1" 1 resample "$T/long.gltf" --fps 1 -o "$T/long_r.gltf"
check "resample: the same message, its own size" \
  grep -q "long.gltf: at 1 fps the output would be about 0.4[0-9]* GB ([0-9]* frames), more than the 0.064 GB allowed at more than 1000 frames" "$T/err"
t1=$(date +%s%N)
check "all refused up front, in $(((t1 - t0) / 1000000)) ms (< 3000)" test $(((t1 - t0) / 1000000)) -lt 3000
check "nothing written" test -z "$(find "$T" -maxdepth 1 -name 'long?*' ! -name long.gltf)"
expect "convert at --fps 0.001 (10,001 frames): written" 0 convert "$T/long.gltf" "$T/long.bvh" --fps 0.001
check "10001 frames" has_frames "$T/long.bvh" 10001

echo "== FIFOs"
if mkfifo "$T/fifo" 2>/dev/null; then
  mkdir "$T/fdir"
  mkfifo "$T/fdir/one.bvh"
  timeout 20 "$PB" resample "$T/one.bvh" "$T/short.bvh" -o "$T/fdir/" --fps 30 >"$T/out" 2>"$T/err"
  rc=$?
  check "a FIFO in -o DIR: that clip skipped (exit 1, not blocked)" test "$rc" -eq 1
  check "  with a message naming it" grep -q "fdir/one.bvh is already there and is not a regular file; skipped" "$T/err"
  check "  the other clip written" has_frames "$T/fdir/short.bvh" 50
  check "  the FIFO still a FIFO" test -p "$T/fdir/one.bvh"
  for c in "root-motion $T/ip.bvh -o $T/f1.bvh --apply" "retarget $T/short.bvh -o $T/f2.bvh --to" \
    "retarget $T/short.bvh -o $T/f3.bvh --to $T/one.bvh --map"; do
    read -r -a w <<<"$c"
    timeout 20 "$PB" "${w[@]}" "$T/fifo" >"$T/out" 2>"$T/err"
    rc=$?
    check "${w[0]} ${w[-1]} FIFO: refused (exit 1, not blocked)" test "$rc" -eq 1
    check "  the message says it is a FIFO" grep -q "needs a regular file, and this is a FIFO" "$T/err"
  done
else
  echo "     (no mkfifo here; skipped)"
  skip_one
fi

echo "== root-motion --apply: the CSV's frames and headings"
# r.csv: 200 frames of short.bvh; ip.bvh its in-place clip
expect "the track applied as written" 0 root-motion "$T/ip.bvh" -o "$T/back.bvh" --apply "$T/r.csv"
awk -F, -v OFS=, 'NR == 3 { $6 = 0; $7 = 0; $8 = 0; $9 = 0 } { print }' "$T/r.csv" >"$T/zero.csv"
expect "a zero heading" 1 root-motion "$T/ip.bvh" -o "$T/x1.bvh" --apply "$T/zero.csv"
check "  the message names line 3 and the norm" grep -q "zero.csv: line 3: the heading .* is not a unit quaternion (its norm 0 is not within 0.0001 of 1)" "$T/err"
awk -F, -v OFS=, 'NR == 5 { $6 = 2 * $6; $7 = 2 * $7; $8 = 2 * $8; $9 = 2 * $9 } { print }' "$T/r.csv" >"$T/twice.csv"
expect "a heading of norm 2" 1 root-motion "$T/ip.bvh" -o "$T/x1.bvh" --apply "$T/twice.csv"
check "  line 5" grep -q "twice.csv: line 5: the heading" "$T/err"
awk -F, -v OFS=, 'NR > 1 { $6 = sprintf("%.4f", $6); $7 = sprintf("%.4f", $7); $8 = sprintf("%.4f", $8); $9 = sprintf("%.4f", $9) } { print }' \
  "$T/r.csv" >"$T/four.csv"
expect "headings to 4 decimals (within 1e-4 of unit)" 0 root-motion "$T/ip.bvh" -o "$T/x2.bvh" --apply "$T/four.csv"
awk 'NR == 3 { l = $0; next } NR == 4 { print; print l; next } { print }' "$T/r.csv" >"$T/shuffled.csv"
expect "two lines swapped" 1 root-motion "$T/ip.bvh" -o "$T/x1.bvh" --apply "$T/shuffled.csv"
check "  line 3 holds frame 2 where 1 was expected" grep -q "shuffled.csv: line 3: frame 2 where frame 1 was expected" "$T/err"
awk 'NR == 4 { print l } { l = $0 } NR != 4 { print }' "$T/r.csv" >"$T/repeated.csv"
expect "a frame repeated (in place of the next)" 1 root-motion "$T/ip.bvh" -o "$T/x1.bvh" --apply "$T/repeated.csv"
check "  line 4 holds frame 1 again" grep -q "repeated.csv: line 4: frame 1 where frame 2 was expected" "$T/err"
awk 'NR != 10' "$T/r.csv" >"$T/skipped.csv"
expect "a frame skipped" 1 root-motion "$T/ip.bvh" -o "$T/x1.bvh" --apply "$T/skipped.csv"
check "  line 10 holds frame 9 where 8 was expected" grep -q "skipped.csv: line 10: frame 9 where frame 8 was expected" "$T/err"
check "nothing written by any" test ! -e "$T/x1.bvh"

echo "== root-motion: the clip and its CSV together"
cp "$T/one.bvh" "$T/keep.bvh"
expect "--root-csv into a missing directory" 1 root-motion "$T/short.bvh" -o "$T/keep.bvh" \
  --root-csv "$T/nodir/r.csv"
check "the clip is not written either (the old one kept)" cmp -s "$T/one.bvh" "$T/keep.bvh"
check "no temporary left" test -z "$(find "$T" -maxdepth 1 -name '.*.tmp-*')"
expect "-o a new glb with --root-csv into a missing directory" 1 root-motion "$T/short.bvh" \
  -o "$T/new.glb" --root-csv "$T/nodir/r.csv"
check "no glb written" test ! -e "$T/new.glb"
expect "both written" 0 root-motion "$T/short.bvh" -o "$T/both.glb" --root-csv "$T/both.csv"
check "the glb and the CSV are there" test -s "$T/both.glb" -a "$(wc -l <"$T/both.csv")" -eq 201

echo "== joint names that repeat"
sed 's/JOINT LeftToeBase/JOINT LeftFoot/' "$T/short.bvh" >"$T/dup.bvh"
expect "positions CSV: two joints named LeftFoot" 1 positions "$T/dup.bvh" -o "$T/dup.csv"
check "  names the joint" grep -q "several joints are named 'LeftFoot'" "$T/err"
check "  nothing written" test ! -e "$T/dup.csv"
expect "positions .npy of it (by index)" 0 positions "$T/dup.bvh" -o "$T/dup.npy"
expect "positions --joints of unique names" 0 positions "$T/dup.bvh" -o "$T/dup.csv" --joints Hips,Head
expect "root-motion --joint LeftFoot (two of them)" 1 root-motion "$T/dup.bvh" -o "$T/dup2.bvh" --joint LeftFoot
check "  says it cannot choose" grep -q "2 joints are named 'LeftFoot'; --joint cannot choose" "$T/err"

echo "== root-motion: a root that never moves"
cat >"$T/static.bvh" <<'EOF'
HIERARCHY
ROOT joint_Root
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Hips
  {
    OFFSET 0 1 0
    CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
    End Site
    {
      OFFSET 0 1 0
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.0333333
0 0 0 0 0 0 0 1 0 0 0 0
0 0 0 0 0 0 1 1 0 0 10 0
0 0 0 0 0 0 2 1 0 0 20 0
EOF
expect "root-motion of it" 0 root-motion "$T/static.bvh" -o "$T/static_ip.bvh"
check "warns that joint_Root does not move and names Hips" \
  grep -q "warning: the measured joint 'joint_Root' does not move.*--joint 'Hips'" "$T/err"
expect "root-motion --joint Hips" 0 root-motion "$T/static.bvh" -o "$T/static_ip.bvh" --joint Hips
check "  no warning" test ! -s "$T/err"
expect "root-motion --components heading of it" 0 root-motion "$T/static.bvh" -o "$T/static_ip.bvh" \
  --components heading
check "  warns that joint_Root does not turn" \
  grep -q "warning: the measured joint 'joint_Root' does not turn.*--joint 'Hips'" "$T/err"
expect "root-motion --components heading of a clip whose root turns" 0 root-motion "$T/short.bvh" \
  -o "$T/h_ip.bvh" --components heading
check "  no warning" test ! -s "$T/err"

echo "== messages that name what is wrong"
echo '[1, 2]' >"$T/arr.gltf"
expect "convert a JSON array named .gltf" 1 convert "$T/arr.gltf" "$T/arr.bvh"
check "  says it is a JSON array, not 'both BVH'" grep -q "arr.gltf: a JSON array, not glTF" "$T/err"
cp "$T/arr.gltf" "$T/arr.json"
expect "convert a JSON array named .json" 1 convert "$T/arr.json" "$T/arr.bvh"
check "  the same" grep -q "arr.json: a JSON array, not glTF" "$T/err"
# a GLB whose JSON chunk is padded with NULs instead of spaces
{
  printf '\x67\x6c\x54\x46\x02\x00\x00\x00\x48\x00\x00\x00\x34\x00\x00\x00\x4a\x53\x4f\x4e'
  printf '{"asset":{"version":"2.0"},"nodes":[{"name":"a"}]}\0\0'
} >"$T/nul.glb"
expect "a GLB with a NUL-padded JSON chunk" 1 info "$T/nul.glb"
check "  says the padding is NUL bytes" grep -q "nul.glb: GLB: the JSON chunk ends in NUL bytes; glTF pads it with spaces" "$T/err"
cat >"$T/two.gltf" <<'EOF'
{"asset":{"version":"2.0"},"nodes":[{"name":"A","children":[1]},{"name":"B"}],"skins":[{"joints":[0]},{"joints":[1]}],"buffers":[{"byteLength":60,"uri":"data:application/octet-stream;base64,AAAAAAAAAD8AAIA/AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/"}],"bufferViews":[{"buffer":0,"byteLength":12},{"buffer":0,"byteOffset":12,"byteLength":48}],"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"SCALAR","min":[0],"max":[1]},{"bufferView":1,"componentType":5126,"count":3,"type":"VEC4"}],"animations":[{"channels":[{"sampler":0,"target":{"node":0,"path":"rotation"}}],"samplers":[{"input":0,"output":1}]}]}
EOF
expect "mirror of a glTF with two skins" 1 mirror "$T/two.gltf" -o "$T/two.bvh"
check "  points to 'posebatch convert ... --skin N'" \
  grep -q "2 skins, and this command reads one.*'posebatch convert .* --skin N'" "$T/err"
check "  names no C function" sh -c '! grep -q "pb_" "$1"' sh "$T/err"
expect "convert --skin 1 of it" 0 convert "$T/two.gltf" "$T/two.bvh" --skin 1

echo "== resample --help: the frame count"
expect "resample --help" 0 resample --help
check "the help's formula snaps the step to p/q" grep -q "taken as the fraction p/q" "$T/out"
# 297 frames at 0.008333 s to 60 fps: the step snaps to 2, floor(296 / 2) + 1
# = 149 frames (floor(296 * 0.008333 * 60) + 1 would say 148)
awk '/^[ \t]*Frames:/ { print "Frames: 297"; next } /^Frame Time/ { print "Frame Time: 0.008333"; d = 1; next }
  d && n++ >= 297 { exit } { print }' "$T/a.bvh" >"$T/x297.bvh"
expect "297 frames at 0.008333 s to 60 fps" 0 resample "$T/x297.bvh" --fps 60 -o "$T/x60.bvh"
check "149 frames, as the help says" has_frames "$T/x60.bvh" 149
