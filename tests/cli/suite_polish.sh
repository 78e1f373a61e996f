# shellcheck shell=bash
# Blend weights (normalised, --weights-as-given), repeated joint names,
# --loop on travelling and non-cyclic clips, thousands of inputs, progress
# within a file, info --json, strict numbers.

# Values of column $2 (1-based) of the data lines of a BVH file, one a line.
column() { awk -v c="$2" 'd { print $c } /^[ \t]*Frame Time/ { d = 1 }' "$1"; }
first_value() { column "$1" "$2" | head -1; }
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && d >= -t) }'; }

echo "== blend weights"
hip=$(first_value "$T/a.bvh" 2)
expect "blend --weights 1,1" 0 blend "$T/a.bvh" "$T/b.bvh" --weights 1,1 -o "$T/w11.bvh"
check "1,1 is 0.5,0.5: hip height $hip, not doubled" near "$(first_value "$T/w11.bvh" 2)" "$hip" 1e-3
check "1,1 reproduces the clip" close_to "$T/a.bvh" "$T/w11.bvh" 1e-3 1e-3
expect "blend --weights 2,2" 0 blend "$T/a.bvh" "$T/b.bvh" --weights 2,2 -o "$T/w22.bvh"
check "2,2 reproduces the clip" close_to "$T/a.bvh" "$T/w22.bvh" 1e-3 1e-3
"$PB" blend "$T/a.bvh" "$T/short.bvh" --weights 3,1 -o "$T/w31.bvh" 2>"$T/err"
"$PB" blend "$T/a.bvh" "$T/short.bvh" --weights 0.75,0.25 -o "$T/w75.bvh" 2>"$T/err"
check "3,1 gives the same file as 0.75,0.25" cmp -s "$T/w31.bvh" "$T/w75.bvh"
for w in 0,0 1,-1 -1,-0.5 0.5,-0.5; do
  expect "--weights $w (sum <= 0)" 2 blend "$T/a.bvh" "$T/b.bvh" --weights "$w" -o "$T/x.bvh"
done
check "sum <= 0: the message says so" grep -q "weights.*sum must be > 0" "$T/err"
check "no output after a weight sum <= 0" test ! -e "$T/x.bvh"
expect "--weights-as-given 1,1" 0 blend "$T/a.bvh" "$T/b.bvh" --weights 1,1 --weights-as-given -o "$T/add.bvh"
check "--weights-as-given 1,1 doubles the hip height" \
  near "$(first_value "$T/add.bvh" 2)" "$(awk -v h="$hip" 'BEGIN { print 2 * h }')" 1e-3
expect "--weights-as-given 1,-1 (sum 0) is allowed" 0 blend "$T/a.bvh" "$T/b.bvh" --weights 1,-1 --weights-as-given -o "$T/add0.bvh"
expect "--weights-as-given without --weights" 2 blend "$T/a.bvh" "$T/b.bvh" --weights-as-given -o "$T/x.bvh"
expect "--weights-as-given on resample" 2 resample "$T/a.bvh" -o "$T/x.bvh" --fps 30 --weights-as-given
expect "blend --help" 0 blend --help
check "blend --help: weights divided by their sum" grep -q "divided by their sum" "$T/out"
check "blend --help: --weights-as-given" grep -q -- "--weights-as-given" "$T/out"

echo "== repeated joint names"
# LeftUpLeg renamed RightUpLeg: the name is used twice
sed 's/JOINT LeftUpLeg$/JOINT RightUpLeg/; s/JOINT LeftUpLeg\r$/JOINT RightUpLeg/' "$CLIP" >"$T/dup.bvh"
l1=$(grep -n 'JOINT RightUpLeg' "$T/dup.bvh" | sed -n 1p | cut -d: -f1)
l2=$(grep -n 'JOINT RightUpLeg' "$T/dup.bvh" | sed -n 2p | cut -d: -f1)
check "fixture: RightUpLeg twice" test -n "$l1" -a -n "$l2"
expect "blend a clip with a repeated joint name" 1 blend "$T/a.bvh" "$T/dup.bvh" --weights 0.5,0.5 -o "$T/x.bvh"
check "the message names the file, the joint and both lines" \
  grep -q "^posebatch: $T/dup.bvh: line $l2: joint name 'RightUpLeg' is already used at line $l1 (names must be unique)" "$T/err"
expect "repeated names in the first input too" 1 blend "$T/dup.bvh" "$T/dup.bvh" --weights 0.5,0.5 -o "$T/x.bvh"
check "no output with repeated names" test ! -e "$T/x.bvh"

echo "== --loop: travelling, stationary and non-cyclic clips"
# 60 frames at 30 fps of a two-joint skeleton: run (the root moves 10 units a
# frame, bobbing), still (the root circles in place), ramp (a joint turns 90
# degrees over the clip: not cyclic)
synth() { # kind
  awk -v kind="$1" -v F=60 'BEGIN {
    pi = atan2(0, -1)
    print "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation"
    print "\tJOINT Leg\n\t{\n\t\tOFFSET 0 -8 0\n\t\tCHANNELS 3 Zrotation Yrotation Xrotation"
    print "\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 -8 0\n\t\t}\n\t}\n}"
    print "MOTION\nFrames: " F "\nFrame Time: 0.0333333"
    for (f = 0; f < F; f++) {
      a = 2 * pi * f / F
      if (kind == "run") { x = 10 * f + 3 * sin(2 * a); y = 17.7 + sin(2 * a) }
      else { x = 10 * sin(a); y = 17.7 + cos(a) }
      leg = kind == "ramp" ? 90 * f / F : 30 * sin(a)
      printf "%.6f %.6f 0 0 %.6f 0 0 0 %.6f\n", x, y, 5 * sin(a), leg
    }
  }'
}
for k in run still ramp; do synth $k >"$T/$k.bvh"; done
expect "--loop a running clip" 0 resample "$T/run.bvh" --loop --fps 120 -o "$T/run_l.bvh"
check "run: 240 frames" has_frames "$T/run_l.bvh" 240
check "run: no seam warning" test ! -s "$T/err"
check "run: the root moves forward at every frame, across the seam too" \
  awk 'd { n++; if (n > 1 && $1 <= prev) exit 1; prev = $1 } /^[ \t]*Frame Time/ { d = 1 } END { exit !(n == 240) }' "$T/run_l.bvh"
# the last output frame is at source frame 59.75: 597.5 + 3 sin(2 pi 59.75 / 30)
check "run: the last frame is where the run is (597.3)" near "$(column "$T/run_l.bvh" 1 | tail -1)" 597.33 0.05
expect "--loop a stationary cyclic clip" 0 resample "$T/still.bvh" --loop --fps 120 -o "$T/still_l.bvh"
check "still: no seam warning" test ! -s "$T/err"
check "still: the root follows its circle at every frame, the seam too (< 0.02)" \
  awk 'BEGIN { pi = atan2(0, -1) } d { u = i++ * 0.25; e = $1 - 10 * sin(2 * pi * u / 60); if (e < 0) e = -e; if (e > m) m = e }
       /^[ \t]*Frame Time/ { d = 1 } END { exit !(i == 240 && m < 0.02) }' "$T/still_l.bvh"
expect "--loop a clip that is not cyclic" 0 resample "$T/ramp.bvh" --loop --fps 120 -o "$T/ramp_l.bvh"
check "not cyclic: a warning naming the file and the joint" \
  grep -q "^posebatch: $T/ramp.bvh: warning: --loop: .*'Leg' turns 88.5 degrees" "$T/err"
check "not cyclic: still written" has_frames "$T/ramp_l.bvh" 240
expect "no --loop: no seam warning" 0 resample "$T/ramp.bvh" --fps 120 -o "$T/ramp_c.bvh"
check "no --loop: stderr empty" test ! -s "$T/err"
expect "resample --help" 0 resample --help
check "resample --help: the root's displacement is carried" grep -q "displacement" "$T/out"
check "resample --help: the seam warning" grep -q "not cyclic" "$T/out"

echo "== thousands of inputs"
mkdir "$T/many" "$T/manyout"
(cd "$T/manyout" && seq -f "m%g.bvh" 1 3000 | xargs touch)
t0=$(date +%s%N)
# shellcheck disable=SC2046
"$PB" resample $(seq -f "$T/many/m%g.bvh" 1 3000) -o "$T/manyout" --fps 30 >"$T/out" 2>"$T/err"
rc=$?
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
check "3000 missing inputs, existing outputs: exit 1" test "$rc" -eq 1
check "3000 inputs set up and run in under 1.5 s (took ${ms} ms)" test "$ms" -lt 1500
check "3000 inputs: one error each" test "$(grep -c 'No such file' "$T/err")" -eq 3000
check "the existing outputs are untouched" test -z "$(find "$T/manyout" -type f -size +0)"
cp "$T/one.bvh" "$T/many/x.bvh"
for i in $(seq 1 500); do ln -s x.bvh "$T/many/s$i.bvh"; done
t0=$(date +%s%N)
# shellcheck disable=SC2046
"$PB" resample $(seq -f "$T/many/s%g.bvh" 1 500) -o "$T/many" --fps 30 >"$T/out" 2>"$T/err"
rc=$?
t1=$(date +%s%N)
check "500 links to one input in its own directory: all refused, exit 1" \
  test "$rc" -eq 1 -a "$(grep -c 'refused' "$T/err")" -eq 500
check "the links are still links to the input" test -L "$T/many/s500.bvh" -a "$(readlink "$T/many/s500.bvh")" = x.bvh
mkdir "$T/h1" "$T/h2" "$T/hout"
cp "$T/one.bvh" "$T/h1/c.bvh"
cp "$T/one.bvh" "$T/h2/c.bvh"
ln "$T/h1/c.bvh" "$T/hout/c.bvh"
expect "an output that is a hard link to an input" 1 resample "$T/h1/c.bvh" -o "$T/hout/" --fps 30
check "hard link: refused as this input" grep -q "the output $T/hout/c.bvh would overwrite this input; refused" "$T/err"
rm "$T/hout/c.bvh"
expect "two inputs with one output name" 1 resample "$T/h1/c.bvh" "$T/h2/c.bvh" -o "$T/hout" --fps 30
check "the second is skipped, naming the first" \
  grep -q "^posebatch: $T/h2/c.bvh: output $T/hout/c.bvh is also the output of $T/h1/c.bvh; skipped" "$T/err"
check "the first is written" has_frames "$T/hout/c.bvh" 1

echo "== progress"
expect "stderr not a terminal: no progress" 0 resample "$T/a.bvh" "$T/b.bvh" -o "$T/prog/" --fps 480
check "stderr not a terminal: nothing on stderr" test ! -s "$T/err"
if command -v script >/dev/null && script -qc true /dev/null >/dev/null 2>&1; then
  script -qc "'$PB' resample '$T/a.bvh' '$T/short.bvh' -o '$T/prog2/' --fps 480" /dev/null \
    </dev/null >"$T/tty" 2>&1
  tr '\r' '\n' <"$T/tty" >"$T/ttylines"
  check "terminal: percent of frames within the first file" grep -qE "\[1/2\] $T/a.bvh [0-9]+%" "$T/ttylines"
  check "terminal: several steps up to 100%" \
    test "$(grep -cE "\[1/2\] $T/a.bvh [0-9]+%" "$T/ttylines")" -ge 10 -a -n "$(grep -E "\[1/2\] $T/a.bvh 100%" "$T/ttylines")"
  check "terminal: file counts as before" grep -qE "\[2/2\] $T/short.bvh\$" "$T/ttylines"
  check "terminal: the outputs are the same" cmp -s "$T/prog/a.bvh" "$T/prog2/a.bvh"
else
  echo "     (no usable 'script': the terminal progress is not tested)"
fi

echo "== info --json"
expect "info --json" 0 info --json "$T/a.bvh"
check "info --json: valid JSON" python3 -m json.tool "$T/out" /dev/null
check "info --json: one line" test "$(wc -l <"$T/out")" -eq 1
check "info --json: the fields" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
j = d["joints"]
assert d["file"] == sys.argv[2] and d["joint_count"] == 31 == len(j), d["joint_count"]
assert d["frames"] == int(sys.argv[3]) and d["channels"] == 96 and d["end_sites"] == 7
assert d["frame_time"] == 0.0083333 and abs(d["fps"] * d["frame_time"] - 1) < 1e-12
assert abs(d["duration"] - (d["frames"] - 1) * d["frame_time"]) < 1e-9
assert j[0]["name"] == "Hips" and j[0]["parent"] is None and len(j[0]["channels"]) == 6
assert j[1]["name"] == "LHipJoint" and j[1]["parent"] == 0
assert j[0]["channels"][:3] == ["Xposition", "Yposition", "Zposition"]
assert all(len(x["offset"]) == 3 for x in j) and d["warnings"] == []
' "$T/out" "$T/a.bvh" "$F"
printf 'HIERARCHY\nROOT Hi"p\\s\xff\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n}\nMOTION\nFrames: 3\nFrame Time: 0.01\n0 0 0\n1 1 1\n' \
  >"$T/odd.bvh"
expect "info --json: three files, one missing" 1 info --json "$T/a.bvh" "$T/missing.bvh" "$T/odd.bvh"
check "three files, one missing: two lines, each valid JSON" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
d = [json.loads(l) for l in lines]
assert d[0]["joint_count"] == 31
n = d[1]["joints"][0]["name"]
assert n == "Hi\"p\\s\ufffd", repr(n)
assert d[1]["frames"] == 2 and len(d[1]["warnings"]) == 1, d[1]
assert "Frames: 3" in d[1]["warnings"][0], d[1]["warnings"]
' "$T/out"
check "the missing file is reported on stderr" grep -q "^posebatch: $T/missing.bvh: " "$T/err"
if command -v jq >/dev/null; then
  check "jq reads the lines" test "$(jq -r '.joints[0].parent' <"$T/out" | tr '\n' ' ')" = "null null "
fi
expect "--json does not apply to resample" 2 resample "$T/a.bvh" -o "$T/x.bvh" --fps 30 --json

echo "== strict numbers"
for v in 0x1e 0X1E 0x1p4 1e-320 0.0009 " 30" "30 " 1e 1e+ . +.e1 infinity -inf NaN 3,0 1_0; do
  expect "--fps '$v'" 2 resample "$T/a.bvh" -o "$T/x.bvh" --fps "$v"
done
check "the message gives the range" grep -q "\[0.001, 100000\]" "$T/err"
for v in 0.001 +30 30. .5e2 1E1; do
  expect "--fps '$v'" 0 resample "$T/one.bvh" -o "$T/ok.bvh" --fps "$v"
done
expect "blend --fps 0x1e" 2 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 --fps 0x1e -o "$T/x.bvh"
for w in 0x1,1 "1, 1" 0.5,infinity 0.5,nan 1e39,1; do
  expect "--weights '$w'" 2 blend "$T/a.bvh" "$T/b.bvh" --weights "$w" -o "$T/x.bvh"
done
check "no output after bad numbers" test ! -e "$T/x.bvh"
