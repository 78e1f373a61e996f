# shellcheck shell=bash
# Reading real files: the data lines are the truth and 'Frames:' a claim
# (--strict makes it binding), absurd numbers and binary input are clear
# errors, and what is written looks like its source (Euler triples, position
# digits) and is never more than a reader accepts.
lacks() { ! grep -q "$1" "$2"; } # the file does not hold the text
data_of() { awk '/^[ \t]*Frame Time/ { d = 1; next } d' "$1"; } # the data lines
# largest |a - b| over every value of two files' data lines
max_value_diff() {
  paste -d '\n' <(data_of "$1") <(data_of "$2") | awk '
    NR % 2 == 1 { n = split($0, a, " ") }
    NR % 2 == 0 { m = split($0, b, " "); if (m != n) { print "inf"; exit }
                  for (i = 1; i <= n; i++) { d = a[i] - b[i]; if (d < 0) d = -d; if (d > mx) mx = d } }
    END { print mx + 0 }'
}
# the rotation columns of a file's data lines (1-based, space separated)
rot_columns() {
  awk '/CHANNELS/ { for (i = 3; i <= NF; i++) { c++; if ($i ~ /rotation/) printf "%d ", c } }
       /^[ \t]*MOTION/ { exit }' "$1"
}
# the range of every rotation value: "min max"
rot_range() {
  data_of "$1" | awk -v cols="$(rot_columns "$1")" '
    BEGIN { n = split(cols, c, " "); lo = 1e30; hi = -1e30 }
    { for (i = 1; i <= n; i++) { v = $(c[i]) + 0; if (v < lo) lo = v; if (v > hi) hi = v } }
    END { print lo, hi }'
}
# How far the rotation values of OUT leave the range of the same column in
# SRC, widened by the column's largest frame-to-frame step below 180 degrees:
# "EXCESS col C value V range LO..HI step S" (EXCESS 0: never).
range_excess() { # SRC OUT
  awk -v cols="$(rot_columns "$1")" '
    BEGIN { n = split(cols, c, " ") }
    FNR == 1 { file++ }
    /^[ \t]*Frame Time/ { d[file] = 1; next }
    !d[file] { next }
    file == 1 { for (i = 1; i <= n; i++) { v = $(c[i]) + 0
        if (!(i in lo) || v < lo[i]) lo[i] = v; if (!(i in hi) || v > hi[i]) hi[i] = v
        if (seen) { s = v - p[i]; if (s < 0) s = -s; if (s < 180 && s > st[i]) st[i] = s }
        p[i] = v }; seen = 1 }
    file == 2 { for (i = 1; i <= n; i++) { v = $(c[i]) + 0
        e = (v < lo[i] - st[i]) ? lo[i] - st[i] - v : (v > hi[i] + st[i]) ? v - hi[i] - st[i] : 0
        if (e > worst) { worst = e; wc = c[i]; wv = v; wl = lo[i]; wh = hi[i]; ws = st[i] } } }
    END { printf "%g col %d value %g range %g..%g step %g\n", worst, wc, wv, wl, wh, ws }' "$1" "$2"
}
# jumps of more than 180 degrees between consecutive frames in a rotation column
rot_jumps() {
  data_of "$1" | awk -v cols="$(rot_columns "$1")" '
    BEGIN { n = split(cols, c, " ") }
    NR > 1 { for (i = 1; i <= n; i++) { d = $(c[i]) - p[i]; if (d > 180 || d < -180) j++ } }
    { for (i = 1; i <= n; i++) p[i] = $(c[i]) }
    END { print j + 0 }'
}

echo "== the data lines count, 'Frames:' is a claim"
awk -v n=$((F - 1)) '/^Frames:/ { print "Frames: " n; next } { print }' "$T/a.bvh" >"$T/short1.bvh"
flines=$(grep -n '^Frames:' "$T/a.bvh" | cut -d: -f1)
expect "info: 'Frames: $((F - 1))' over $F data lines" 0 info "$T/short1.bvh"
check "info: a warning naming the file, the line and both counts" grep -qF \
  "posebatch: $T/short1.bvh: warning: line $flines: 'Frames: $((F - 1))' but the file holds $F complete data lines; using $F" "$T/err"
check "info: every data line is a frame" grep -qE "frames: +$F\$" "$T/out"
expect "resample: the same file" 0 resample "$T/short1.bvh" -o "$T/s240.bvh" --fps 240
check "resample: $(expected_frames "$T/a.bvh" 240) frames, as from the right header" \
  has_frames "$T/s240.bvh" "$(expected_frames "$T/a.bvh" 240)"
expect "blend: the same file" 0 blend "$T/short1.bvh" "$T/a.bvh" --weights 0.5,0.5 -o "$T/sb.bvh"
check "blend: all $F frames" has_frames "$T/sb.bvh" "$F"
awk '/^Frames:/ { print "Frames: 5000"; next } { print }' "$T/a.bvh" >"$T/long1.bvh"
expect "info: 'Frames: 5000' over $F data lines" 0 info "$T/long1.bvh"
check "info: warned, $F frames used" grep -qF "'Frames: 5000' but the file holds $F complete data lines; using $F" "$T/err"
expect "info --strict refuses a count that disagrees" 1 info --strict "$T/short1.bvh"
check "--strict: the error names the file and the line" grep -qF "posebatch: $T/short1.bvh: line $flines: 'Frames: $((F - 1))' but the file holds $F" "$T/err"
expect "resample --strict" 1 resample --strict "$T/long1.bvh" -o "$T/x.bvh" --fps 60
expect "info --strict on a right count" 0 info --strict "$T/a.bvh"
check "a right count: no warning" test ! -s "$T/err"
# a file cut inside its last frame
head -c -40 "$T/a.bvh" >"$T/cut.bvh"
lines=$(wc -l <"$T/cut.bvh")
expect "a last line cut inside a frame" 1 info "$T/cut.bvh"
check "the error names the line and says it is cut" grep -qE "cut.bvh: line $((lines + 1)): the last data line holds [0-9]+ of the 96 values of a frame" "$T/err"

echo "== absurd numbers, binary input"
awk -v L=$((flines + 10)) 'NR == L { $5 = "1e39" } { print }' "$T/a.bvh" >"$T/huge.bvh"
expect "a rotation of 1e39 degrees" 1 resample "$T/huge.bvh" -o "$T/x.bvh" --fps 60
check "the error names the line and the value" grep -qF "huge.bvh: line $((flines + 10)): rotation value 5 is '1e39' degrees, beyond +-1e+06" "$T/err"
check "nothing written" test ! -e "$T/x.bvh"
sed 's/^Frame Time: .*/Frame Time: 4.9e-324/' "$T/a.bvh" >"$T/denormal.bvh"
expect "Frame Time 4.9e-324" 1 info "$T/denormal.bvh"
check "the error names Frame Time and the rate" grep -qF "Frame Time '4.9e-324' means more than 100000 frames per second" "$T/err"
check "no 'inf fps' printed" lacks "inf fps" "$T/out"
start=$(date +%s%N)
expect "info /dev/zero" 1 info /dev/zero
ms=$((($(date +%s%N) - start) / 1000000))
check "/dev/zero: 'binary data', in ${ms} ms (< 1000)" test "$ms" -lt 1000 -a -n "$(grep 'binary data (NUL bytes), not BVH text' "$T/err")"
printf 'glTF\002\000\000\000\020\000\000\000' >"$T/x.glb"
# (every command reads glTF files since issue 15; standard input is BVH only)
pb_stdin() { # FILE args...: the CLI with FILE on standard input
  local f=$1; shift
  "$PB" "$@" <"$f" >"$T/out" 2>"$T/err"; rc=$?
}
pb_stdin "$T/x.glb" resample - -o "$T/x.bvh" --fps 60
check "a GLB on a BVH input (stdin): exit 1" test "$rc" -eq 1
check "GLB: 'this is a binary glTF (.glb) file, not BVH'" grep -qF "(stdin): this is a binary glTF (.glb) file, not BVH" "$T/err"
printf '{\n  "asset": { "version": "2.0" }\n}\n' >"$T/x.gltf"
pb_stdin "$T/x.gltf" info -
check "a .gltf on a BVH input (stdin): exit 1" test "$rc" -eq 1
check ".gltf: 'this is a glTF (.gltf) file, not BVH'" grep -qF "this is a glTF (.gltf) file, not BVH" "$T/err"
rd_gltf="${PB_SHARED_DATA_DIR:-$HERE/../../../shared/data}/gltf"
[ -d "$rd_gltf" ] || skips 1 "the shared glTF models on a BVH input (no $rd_gltf)"
for g in "$rd_gltf/"*; do
  [ -f "$g" ] || continue
  pb_stdin "$g" info -
  check "$(basename "$g") on stdin: exit 1, named as glTF" test "$rc" -eq 1 -a -n "$(grep "this is a .*glTF .* file, not BVH" "$T/err")"
done
check "no output from refused input" test ! -e "$T/x.bvh"
sed '0,/JOINT LeftUpLeg/s//JOINT LHipJoint/' "$T/a.bvh" >"$T/dup.bvh"
expect "info: a duplicate joint name" 0 info "$T/dup.bvh"
check "a warning naming the name and both lines" grep -qE "dup.bvh: warning: line [0-9]+: joint name 'LHipJoint' is already used at line [0-9]+" "$T/err"

echo "== written files look like their sources"
own=$(awk -v t="$(frame_time "$T/a.bvh")" 'BEGIN { printf "%.17g", 1 / t }')
expect "resample at the source's own rate" 0 resample "$T/a.bvh" -o "$T/own.bvh" --fps "$own"
check "every value as in the source (|diff| <= 1e-9)" \
  awk -v d="$(max_value_diff "$T/a.bvh" "$T/own.bvh")" 'BEGIN { exit !(d <= 1e-9) }'
check "the source's $(rot_jumps "$T/a.bvh") jumps of >180 degrees kept" \
  test "$(rot_jumps "$T/own.bvh")" = "$(rot_jumps "$T/a.bvh")"
expect "--euler continuous" 0 resample "$T/a.bvh" -o "$T/cont.bvh" --fps "$own" --euler continuous
check "--euler continuous: no jump" test "$(rot_jumps "$T/cont.bvh")" = 0
check "--euler continuous: the same rotations" close_to "$T/a.bvh" "$T/cont.bvh" 1e-3 1e-3
expect "--euler principal" 0 resample "$T/a.bvh" -o "$T/princ.bvh" --fps "$own" --euler principal
check "--euler principal: the same rotations" close_to "$T/a.bvh" "$T/princ.bvh" 1e-3 1e-3
read -r plo phi < <(rot_range "$T/princ.bvh")
check "--euler principal: every angle in [-180, 180] ($plo .. $phi; the source's: $(rot_range "$T/a.bvh"))" \
  awk -v a="$plo" -v b="$phi" 'BEGIN { exit !(a >= -180 && b <= 180) }'
expect "--euler bogus" 2 resample "$T/a.bvh" -o "$T/x.bvh" --fps 60 --euler bogus
expect "resample 120 -> 240 fps" 0 resample "$T/a.bvh" -o "$T/r240.bvh" --fps 240
check "240 fps: each angle within its source column's range +- its largest step ($(range_excess "$T/a.bvh" "$T/r240.bvh"))" \
  test "$(range_excess "$T/a.bvh" "$T/r240.bvh" | cut -d' ' -f1)" = 0
expect "240 fps --euler continuous" 0 resample "$T/a.bvh" -o "$T/r240c.bvh" --fps 240 --euler continuous
check "--euler continuous drifts out of the range (as before: $(range_excess "$T/a.bvh" "$T/r240c.bvh"))" \
  test "$(range_excess "$T/a.bvh" "$T/r240c.bvh" | cut -d' ' -f1)" != 0
# positions keep the source's digits: 91.753342 is not 91.75334
awk -v L=$((flines + 2)) 'NR == L { $1 = "91.753342" } { print }' "$T/short.bvh" >"$T/digits.bvh"
own200=$(awk -v t="$(frame_time "$T/digits.bvh")" 'BEGIN { printf "%.17g", 1 / t }')
expect "resample a clip with a 6-decimal position" 0 resample "$T/digits.bvh" -o "$T/digits2.bvh" --fps "$own200"
check "91.753342 written as 91.753342" grep -q '^91\.753342 ' "$T/digits2.bvh"

echo "== never more than a reader accepts"
start=$(date +%s%N)
expect "resample to 80000 fps (a 2.4 GB text)" 1 resample "$T/a.bvh" -o "$T/big.bvh" --fps 80000
ms=$((($(date +%s%N) - start) / 1000000))
check "refused up front, in ${ms} ms (< 2000)" test "$ms" -lt 2000
check "the message gives the size and the limit" grep -qE "a.bvh: at 80000 fps the output would be about 2\.[0-9]+ GB \([0-9]+ frames\), more than the 2\.15 GB a BVH file may have; nothing written" "$T/err"
check "nothing written" test ! -e "$T/big.bvh"

echo "== memory per input byte"
# 15 joints without channels under a 1-channel root, 2 million frames of "0":
# 4 MB of text that would be 32 million joint-frames (900 MB of motion).
{
  printf 'HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n'
  for j in $(seq 15); do printf 'JOINT J%d\n{\nOFFSET 0 1 0\nCHANNELS 0\n}\n' "$j"; done
  printf '}\nMOTION\nFrames: 2000000\nFrame Time: 0.01\n'
  yes 0 | head -n 2000000
} >"$T/dense.bvh"
if ldd "$PB" 2>/dev/null | grep -q libasan; then
  # AddressSanitizer reserves terabytes of address space: no ulimit -v.
  pb info "$T/dense.bvh"
  echo "     (AddressSanitizer build: run without the 300 MB address-space limit)"
else
  ( ulimit -v 300000; exec "$PB" info "$T/dense.bvh" ) >"$T/out" 2>"$T/err"; rc=$?
fi
check "info on 4 MB claiming 32M joint-frames: exit 1 under a 300 MB limit" test "$rc" -eq 1
check "the error is the reader's memory bound" grep -q "2000000 frames x 16 joints is too large for the 4000001 bytes of data" "$T/err"

echo "== long input paths"
long=$(printf 'd%.0s' $(seq 4500))
expect "info on a 4500-byte path" 1 info "$T/$long.bvh"
check "the OS reason is in the message" grep -q "File name too long" "$T/err"
