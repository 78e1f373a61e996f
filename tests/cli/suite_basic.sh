# shellcheck shell=bash
# Help, info, resample, blend and the error paths on the shipped clip.
echo "== help, version, cpu"
for c in "" resample blend info cpu; do
  # shellcheck disable=SC2086
  expect "posebatch${c:+ $c} --help" 0 $c --help
  check "posebatch${c:+ $c} --help prints usage on stdout" grep -q '^usage: posebatch' "$T/out"
done
expect "--version" 0 --version
check "--version prints the version" grep -qE '^posebatch [0-9]+\.[0-9]+\.[0-9]+$' "$T/out"
expect "cpu" 0 cpu
check "cpu prints exactly two lines" test "$(wc -l <"$T/out")" -eq 2
check "cpu line 1 is 'backend: NAME'" grep -qxE 'backend: (scalar|sse41|avx2|avx512|neon)' <(sed -n 1p "$T/out")
check "cpu line 2 is 'supported: NAME...'" grep -qxE 'supported:( (scalar|sse41|avx2|avx512|neon))+' <(sed -n 2p "$T/out")
active=$(sed -n 's/^backend: //p' "$T/out")
supported=$(sed -n 's/^supported: //p' "$T/out")
check "the active backend is supported" grep -qw "$active" <<<"$supported"

echo "== info"
expect "info" 0 info "$T/a.bvh"
check "info: 31 joints" grep -qE 'joints: +31 ' "$T/out"
check "info: $F frames" grep -qE "frames: +$F\$" "$T/out"
check "info: the rate" grep -q '(120.0005 fps)' "$T/out"
check "info: the joint tree" test "$(grep -cE '^ +[A-Za-z0-9]+  \[' "$T/out")" -eq 31
check "info: channel layouts" grep -qE '30 joints: Zrotation Yrotation Xrotation' "$T/out"
expect "info: one good file, one missing" 1 info "$T/a.bvh" "$T/missing.bvh"
check "info: still describes the good file" grep -qE "frames: +$F\$" "$T/out"

echo "== resample"
n240=$(expected_frames "$T/a.bvh" 240)
expect "resample to 240 fps" 0 resample "$T/a.bvh" -o "$T/r240.bvh" --fps 240
check "240 fps: $n240 frames" has_frames "$T/r240.bvh" "$n240"
check "240 fps: Frame Time 1/240" awk -v t="$(frame_time "$T/r240.bvh")" 'BEGIN { d = t - 1 / 240; exit !(d < 1e-15 && d > -1e-15) }'
n120=$(expected_frames "$T/r240.bvh" 120)
expect "resample back to 120 fps" 0 resample "$T/r240.bvh" -o "$T/r120.bvh" --fps 120
check "back to 120 fps: $n120 frames" has_frames "$T/r120.bvh" "$n120"
check "back to 120 fps: close to the source (< 10 deg, < 1 unit)" \
  close_to "$T/a.bvh" "$T/r120.bvh" 10 1 any
# at the source's own rate every output frame is a source frame
own=$(awk -v t="$(frame_time "$T/a.bvh")" 'BEGIN { printf "%.17g", 1 / t }')
expect "resample at the source rate" 0 resample "$T/a.bvh" -o "$T/same.bvh" --fps "$own"
check "source rate: the clip reproduced (1e-3 deg)" close_to "$T/a.bvh" "$T/same.bvh" 1e-3 1e-3
nloop=$(expected_frames "$T/a.bvh" 240 loop)
expect "resample --loop" 0 resample "$T/a.bvh" -o "$T/loop.bvh" --fps 240 --loop
check "--loop: $nloop frames" has_frames "$T/loop.bvh" "$nloop"
mkdir "$T/outdir"
expect "two inputs, -o DIR, -j 2" 0 resample "$T/a.bvh" "$T/b.bvh" -o "$T/outdir" --fps 240 -j 2
check "-o DIR: both outputs, $n240 frames" has_frames "$T/outdir/a.bvh" "$n240"
check "-o DIR: b.bvh written" has_frames "$T/outdir/b.bvh" "$n240"
check "-j 2 output equals the single run" cmp -s "$T/outdir/a.bvh" "$T/r240.bvh"
expect "one frame" 0 resample "$T/one.bvh" -o "$T/one240.bvh" --fps 240
check "one frame: 1 frame out" has_frames "$T/one240.bvh" 1
expect "one frame --loop" 0 resample "$T/one.bvh" -o "$T/one240l.bvh" --fps 240 --loop
check "one frame --loop: $(expected_frames "$T/one.bvh" 240 loop) frames" \
  has_frames "$T/one240l.bvh" "$(expected_frames "$T/one.bvh" 240 loop)"
expect "--backend scalar" 0 resample "$T/short.bvh" -o "$T/scalar.bvh" --fps 240 --backend scalar
for b in $supported; do
  [ "$b" = scalar ] && continue
  expect "--backend $b" 0 resample "$T/short.bvh" -o "$T/$b.bvh" --fps 240 --backend "$b"
  check "--backend $b agrees with scalar" close_to "$T/scalar.bvh" "$T/$b.bvh" 1e-3 1e-3
done

echo "== blend"
for m in log_ref raw_ref log raw accurate; do
  expect "blend itself 0.5,0.5 --method $m" 0 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 --method $m -o "$T/blend.bvh"
  check "--method $m reproduces the clip (1e-3 deg)" close_to "$T/a.bvh" "$T/blend.bvh" 1e-3 1e-3
done
for r in heaviest rest first accurate; do
  expect "blend itself --ref $r" 0 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 --ref $r -o "$T/blend.bvh"
  check "--ref $r reproduces the clip (1e-3 deg)" close_to "$T/a.bvh" "$T/blend.bvh" 1e-3 1e-3
done
expect "blend three, 0.2,0.3,0.5" 0 blend "$T/a.bvh" "$T/b.bvh" "$T/a.bvh" --weights 0.2,0.3,0.5 -o "$T/blend.bvh"
check "three-way blend reproduces the clip" close_to "$T/a.bvh" "$T/blend.bvh" 1e-3 1e-3
expect "blend the long and the short clip" 0 blend "$T/a.bvh" "$T/short.bvh" --weights 0.5,0.5 -o "$T/blend.bvh"
check "output has the shortest input's 200 frames" has_frames "$T/blend.bvh" 200
expect "blend --fps 60" 0 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 --fps 60 -o "$T/blend60.bvh"
check "--fps 60: $(expected_frames "$T/a.bvh" 60) frames" has_frames "$T/blend60.bvh" "$(expected_frames "$T/a.bvh" 60)"
expect "blend one-frame clips" 0 blend "$T/one.bvh" "$T/one.bvh" --weights 0.5,0.5 -o "$T/blend1.bvh"
check "one-frame blend reproduces it" close_to "$T/one.bvh" "$T/blend1.bvh" 1e-3 1e-3

echo "== errors"
expect "no command" 2
expect "unknown command" 2 frobnicate
expect "unknown option" 2 resample "$T/a.bvh" -o "$T/x.bvh" --fps 240 --bogus
expect "option of another command" 2 resample "$T/a.bvh" -o "$T/x.bvh" --fps 240 --weights 1
expect "missing --fps" 2 resample "$T/a.bvh" -o "$T/x.bvh"
expect "missing -o" 2 resample "$T/a.bvh" --fps 240
expect "--fps without a value" 2 resample "$T/a.bvh" -o "$T/x.bvh" --fps
for v in abc 240x 0 -5 1e6 nan inf ""; do
  expect "--fps '$v'" 2 resample "$T/a.bvh" -o "$T/x.bvh" --fps "$v"
done
for v in 0 257 1.5 x; do
  expect "-j '$v'" 2 resample "$T/a.bvh" -o "$T/x.bvh" --fps 240 -j "$v"
done
expect "--backend unknown" 2 resample "$T/a.bvh" -o "$T/x.bvh" --fps 240 --backend mmx
check "no output after usage errors" test ! -e "$T/x.bvh"
expect "weights: too few" 2 blend "$T/a.bvh" "$T/b.bvh" --weights 1 -o "$T/x.bvh"
expect "weights: not a number" 2 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,x -o "$T/x.bvh"
expect "weights: empty item" 2 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5, -o "$T/x.bvh"
expect "weights: not finite" 2 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,inf -o "$T/x.bvh"
expect "--method unknown" 2 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 --method median -o "$T/x.bvh"
expect "--ref unknown" 2 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 --ref mean -o "$T/x.bvh"

expect "missing input" 1 resample "$T/missing.bvh" -o "$T/x.bvh" --fps 240
check "missing input: 'posebatch: FILE: message'" grep -q "^posebatch: $T/missing.bvh: " "$T/err"
printf 'HIERARCHY\nROOT {\n' >"$T/broken.bvh"
expect "malformed input" 1 resample "$T/broken.bvh" -o "$T/x.bvh" --fps 240
check "malformed input: message names the file" grep -q "^posebatch: $T/broken.bvh: " "$T/err"
check "no output for failed inputs" test ! -e "$T/x.bvh"
mkdir "$T/partial"
expect "one good, one missing input" 1 resample "$T/a.bvh" "$T/missing.bvh" -o "$T/partial" --fps 60
check "the good input is still written" test -s "$T/partial/a.bvh"
check "and nothing for the missing one" test ! -e "$T/partial/missing.bvh"
expect "mismatched skeletons: names" 1 blend "$T/a.bvh" "$T/renamed.bvh" --weights 0.5,0.5 -o "$T/x.bvh"
check "mismatch message names the joint" grep -q "skeleton differs.*LHipJointX" "$T/err"
expect "mismatched skeletons: channels" 1 blend "$T/a.bvh" "$T/reordered.bvh" --weights 0.5,0.5 -o "$T/x.bvh"
check "mismatch message names the channels" grep -q "skeleton differs.*channels" "$T/err"
printf 'HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n}\nMOTION\nFrames: 1\nFrame Time: 0.01\n0 0 0\n' \
  >"$T/tiny.bvh"
expect "mismatched skeletons: joint count" 1 blend "$T/a.bvh" "$T/tiny.bvh" --weights 0.5,0.5 -o "$T/x.bvh"
check "mismatch message gives the counts" grep -q "skeleton differs.*1 joints, not 31" "$T/err"
check "no blend output after errors" test ! -e "$T/x.bvh"

expect "output = input" 1 resample "$T/a.bvh" -o "$T/a.bvh" --fps 240
check "the input is untouched" cmp -s "$T/a.bvh" "$CLIP"
expect "output = input, spelled differently" 1 resample "$T/a.bvh" -o "$T/outdir/../a.bvh" --fps 240
expect "-o DIR holding the inputs" 1 resample "$T/a.bvh" "$T/b.bvh" -o "$T" --fps 240
check "the inputs are untouched" cmp -s "$T/b.bvh" "$CLIP"
expect "blend output = an input" 1 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 -o "$T/b.bvh"
check "the blend input is untouched" cmp -s "$T/b.bvh" "$CLIP"

# A directory that cannot be written: read-only where that binds (not for
# root), below a regular file, and a write that fails half-way (file size
# limit, SIGXFSZ ignored so that write() fails with EFBIG).
mkdir "$T/ro"
chmod 555 "$T/ro"
if ! touch "$T/ro/probe" 2>/dev/null; then
  expect "read-only output dir" 1 resample "$T/a.bvh" "$T/b.bvh" -o "$T/ro" --fps 240
  check "read-only dir: nothing left" no_files_in "$T/ro"
else
  rm -f "$T/ro/probe"
  # root: a read-only directory binds nobody
  if [ "$(id -u)" = 0 ] && as_nobody && chmod a+r "$T/b.bvh"; then
    "${PB_AS[@]}" resample "$T/a.bvh" "$T/b.bvh" -o "$T/ro" --fps 240 >"$T/out" 2>"$T/err"; rc=$?
    check "read-only output dir (as nobody): exit 1" test "$rc" -eq 1
    check "read-only dir: the reason given" grep -q "Permission denied" "$T/err"
    check "read-only dir: nothing left" no_files_in "$T/ro"
  else
    skips 2 "a read-only output dir (it does not bind root): ${NOBODY_WHY:-not root, yet the directory is writable}"
  fi
fi
expect "output below a regular file" 1 resample "$T/a.bvh" -o "$T/b.bvh/x.bvh" --fps 240
mkdir "$T/full"
( trap '' XFSZ; ulimit -f 64; exec "$PB" resample "$T/a.bvh" "$T/b.bvh" -o "$T/full" --fps 240 -j 2 ) \
  >"$T/out" 2>"$T/err"; rc=$?
check "write fails half-way: exit 1" test "$rc" -eq 1
check "write fails half-way: error reported" grep -q "^posebatch: $T/full/a.bvh: " "$T/err"
check "write fails half-way: no partial or temporary file" no_files_in "$T/full"
( trap '' XFSZ; ulimit -f 64; exec "$PB" blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 -o "$T/full/x.bvh" ) \
  >"$T/out" 2>"$T/err"; rc=$?
check "blend write fails: exit 1, nothing left" test "$rc" -eq 1 -a -z "$(ls -A "$T/full")"

