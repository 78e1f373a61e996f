# shellcheck shell=bash
# posebatch positions: model-space joint positions per frame (CSV, .npy).
# A hand-made clip checks both root conventions by hand; with PB_THREE_DIR=DIR
# (DIR/node_modules holding the npm three), three.js's BVHLoader poses the
# skeleton at every frame of cmu_01_03 and the shared pymo clip and its
# bone.getWorldPosition / getWorldQuaternion must agree (1e-5 of the
# skeleton's size, 1e-5 rad) in both conventions. The .npy files are read
# back with numpy (python3 with numpy, or Debian's /usr/bin/python3).
PYMO="${PB_SHARED_DATA_DIR:-$HERE/../../../shared/data}/mocap/pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh"
MAN="${PB_SHARED_DATA_DIR:-$HERE/../../../shared/data}/gltf/cesium_man.gltf"
NPY_PY=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy' 2>/dev/null; then NPY_PY=$p; break; fi
done
cols() { head -n 1 "$1" | tr ',' '\n' | wc -l; }
rows() { echo $(($(wc -l <"$1") - 1)); }

echo "== positions: CSV"
expect "positions a.bvh -o p.csv" 0 positions "$T/a.bvh" -o "$T/p.csv"
check "header: frame,time,Hips.x,Hips.y,Hips.z,LHipJoint.x" \
  test "$(head -n 1 "$T/p.csv" | cut -d, -f1-6)" = "frame,time,Hips.x,Hips.y,Hips.z,LHipJoint.x"
check "2 + 31 x 3 columns" test "$(cols "$T/p.csv")" = 95
check "one row per frame ($F), every row as wide as the header" \
  awk -F, -v F="$F" 'NR > 1 && NF != 95 { bad++ } END { exit bad || NR - 1 != F }' "$T/p.csv"
check "frame and time columns (0, 1/120 s steps)" \
  awk -F, 'NR == 2 { ok = $1 == 0 && $2 == 0 } NR == 122 { ok = ok && $1 == 120 && ($2 - 0.99999600) ^ 2 < 1e-16 } END { exit !ok }' "$T/p.csv"
check "the root is at its position channels (frame 0: -0.8085 17.8049 18.3516)" \
  awk -F, 'NR == 2 { exit !($3 == -0.8085 && $4 == 17.8049 && $5 == 18.3516) }' "$T/p.csv"
expect "--rotations" 0 positions "$T/a.bvh" -o "$T/r.csv" --rotations
check "--rotations: 2 + 31 x 7 columns, J.qw .. J.qz after J.z" \
  test "$(cols "$T/r.csv")" = 219 -a "$(head -n 1 "$T/r.csv" | cut -d, -f3-10)" = "Hips.x,Hips.y,Hips.z,Hips.qw,Hips.qx,Hips.qy,Hips.qz,LHipJoint.x"
check "--rotations: the same positions" \
  awk -F, 'NR == FNR { for (i = 3; i <= NF; i++) p[FNR, i] = $i; next }
           { for (j = 0; j < 31; j++) for (c = 0; c < 3; c++) if ($(3 + 7 * j + c) != p[FNR, 3 + 3 * j + c]) bad++ }
           END { exit bad > 0 }' "$T/p.csv" "$T/r.csv"
check "--rotations: unit quaternions (1e-6)" \
  awk -F, 'NR > 1 { for (j = 0; j < 31; j++) { k = 6 + 7 * j; n = $k^2 + $(k+1)^2 + $(k+2)^2 + $(k+3)^2; if ((n - 1)^2 > 1e-12) bad++ } }
           END { exit bad > 0 }' "$T/r.csv"
pb positions "$T/a.bvh" -o -
check "-o -: the same CSV on standard output" cmp -s "$T/out" "$T/p.csv"
expect "--joints Head,Hips" 0 positions "$T/a.bvh" -o "$T/hh.csv" --joints Head,Hips
check "--joints: in the order given" test "$(head -n 1 "$T/hh.csv")" = "frame,time,Head.x,Head.y,Head.z,Hips.x,Hips.y,Hips.z"
check "--joints: the full table's columns" \
  test "$(cut -d, -f3-5 "$T/hh.csv" | tail -n +2 | md5sum)" = "$(cut -d, -f51-53 "$T/p.csv" | tail -n +2 | md5sum)" \
    -a "$(cut -d, -f6-8 "$T/hh.csv" | md5sum)" = "$(cut -d, -f3-5 "$T/p.csv" | md5sum)"
expect "--joints=Head (one word)" 0 positions "$T/a.bvh" -o "$T/h.csv" --joints=Head
check "--joints=Head: 5 columns" test "$(cols "$T/h.csv")" = 5

echo "== positions: conventions, by hand"
# root R at channels (1, 2, 3) with OFFSET (10, 0, 0), turned 90 degrees about
# Z; its child C at OFFSET (0, 1, 0): C is at R + Rz(90) (0, 1, 0) = R + (-1, 0, 0)
{
  printf 'HIERARCHY\nROOT R\n{\nOFFSET 10 0 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n'
  printf 'JOINT C\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n}\n'
  printf 'MOTION\nFrames: 1\nFrame Time: 0.5\n1 2 3 90 0 0 0 0 0\n'
} >"$T/two.bvh"
expect "hand-made clip" 0 positions "$T/two.bvh" -o "$T/two.csv"
near() { # file want...: the last row within 1e-6 of the values given
  local f=$1; shift
  tail -n 1 "$f" | awk -F, -v want="$*" '{ n = split(want, w, " "); if (NF != n) exit 1
    for (i = 1; i <= n; i++) if (($i - w[i])^2 > 1e-12) exit 1 }'
}
check "posebatch's convention: R (1,2,3), C (0,2,3)" near "$T/two.csv" 0 0 1 2 3 0 2 3
expect "hand-made clip --three" 0 positions "$T/two.bvh" -o "$T/two3.csv" --three
check "--three: R (11,2,3), C (10,2,3)" near "$T/two3.csv" 0 0 11 2 3 10 2 3
expect "hand-made clip --rotations" 0 positions "$T/two.bvh" -o "$T/twor.csv" --rotations
check "--rotations: both turned 90 degrees about Z" \
  awk -F, 'NR == 2 { h = sqrt(0.5); for (k = 6; k <= 13; k += 7) if (($k - h)^2 > 1e-13 || $(k+1) != 0 || $(k+2) != 0 || ($(k+3) - h)^2 > 1e-13) bad++ }
           END { exit bad > 0 || NR != 2 }' "$T/twor.csv"

echo "== positions: three.js"
three_pos() { # name file mode [expect-fail]
  if [ -z "${PB_THREE_DIR:-}" ] || ! command -v node >/dev/null; then
    echo "skip $1 (PB_THREE_DIR not set or no node)"
    skip_one
    return
  fi
  local flag=() csv="$T/three-$(basename "$2" .bvh)-$3.csv"
  [ "$3" = three ] && flag=(--three)
  if ! "$PB" positions "$2" -o "$csv" --rotations "${flag[@]}" 2>"$T/err"; then no "$1: positions failed"; return; fi
  # the default convention's CSV judged as three.js's must fail where the root OFFSET is not 0
  local mode=$3
  [ -n "${4:-}" ] && mode=three
  if PB_THREE_DIR="$PB_THREE_DIR" node "$HERE/positions_three.mjs" "$2" "$csv" "$mode" >"$T/three" 2>&1
  then if [ -z "${4:-}" ]; then ok "$1: $(tail -n 1 "$T/three")"; else no "$1: three.js agreed"; fi
  else if [ -n "${4:-}" ]; then ok "$1: $(tail -n 1 "$T/three")"; else no "$1: $(tail -n 3 "$T/three" | tr '\n' ' ')"; fi; fi
}
three_pos "cmu_01_03, posebatch's convention" "$T/a.bvh" posebatch
three_pos "cmu_01_03, --three" "$T/a.bvh" three
if [ -f "$PYMO" ]; then
  three_pos "pymo, posebatch's convention" "$PYMO" posebatch
  three_pos "pymo, --three" "$PYMO" three
  three_pos "pymo: the conventions differ (root OFFSET 65.8 units)" "$PYMO" posebatch differ
else
  skips 3 "three.js on the pymo clip: $PYMO not found (optional shared data)"
fi

echo "== positions: .npy"
if [ -z "$NPY_PY" ]; then
  skips 4 ".npy read-back (no python3 with numpy)"
else
  expect "-o p.npy" 0 positions "$T/a.bvh" -o "$T/p.npy"
  check "numpy: float32 ($F, 31, 3), the CSV's values, 64-byte aligned header" "$NPY_PY" -c '
import sys, numpy as np
a = np.load(sys.argv[1])
c = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1, dtype=np.float64)
raw = open(sys.argv[1], "rb").read(10)
hlen = raw[8] | raw[9] << 8
assert raw[:8] == b"\x93NUMPY\x01\x00" and (10 + hlen) % 64 == 0, raw
assert a.dtype == np.float32 and a.shape == (int(sys.argv[3]), 31, 3), (a.dtype, a.shape)
assert np.array_equal(a, c[:, 2:].astype(np.float32).reshape(a.shape))
' "$T/p.npy" "$T/p.csv" "$F"
  expect "-o r.npy --rotations --joints Hips,Head" 0 positions "$T/a.bvh" -o "$T/r.npy" --rotations --joints Hips,Head
  check "numpy: ($F, 2, 7): x y z qw qx qy qz of Hips and Head" "$NPY_PY" -c '
import sys, numpy as np
a = np.load(sys.argv[1])
c = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1, dtype=np.float64)[:, 2:].astype(np.float32).reshape(-1, 31, 7)
assert a.dtype == np.float32 and a.shape == (c.shape[0], 2, 7), a.shape
assert np.array_equal(a[:, 0], c[:, 0]) and np.array_equal(a[:, 1], c[:, 16])
' "$T/r.npy" "$T/r.csv"
  if [ -f "$MAN" ]; then
    expect "--three on a glTF input" 2 positions "$MAN" -o "$T/man3.npy" --three
    expect "glTF input (cesium_man.gltf)" 0 positions "$MAN" -o "$T/man.npy"
    "$PB" positions "$MAN" -o "$T/man.csv" 2>/dev/null
    check "glTF: (frames, joints, 3) as its CSV, finite" "$NPY_PY" -c '
import sys, numpy as np
a = np.load(sys.argv[1])
c = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1, ndmin=2)
assert a.shape == (c.shape[0], (c.shape[1] - 2) // 3, 3) and a.shape[0] > 1 and a.shape[1] > 1, a.shape
assert np.isfinite(a).all() and np.array_equal(a.reshape(len(a), -1), c[:, 2:].astype(np.float32))
' "$T/man.npy" "$T/man.csv"
  else
    skips 3 "positions of a glTF input: $MAN not found (optional shared data)"
  fi
fi

echo "== positions: errors"
expect "no such joint" 1 positions "$T/a.bvh" -o "$T/e1.csv" --joints Hips,Nope
check "no such joint: named, nothing written" \
  test "$(grep -c "no joint named 'Nope'" "$T/err")" = 1 -a ! -e "$T/e1.csv"
expect "a joint named twice" 1 positions "$T/a.bvh" -o "$T/e2.csv" --joints Hips,Head,Hips
check "a joint named twice: said, nothing written" test "$(grep -c "names 'Hips' twice" "$T/err")" = 1 -a ! -e "$T/e2.csv"
expect "--joints with an empty name" 2 positions "$T/a.bvh" -o "$T/e3.csv" --joints Hips,,Head
expect "--joints without a value" 2 positions "$T/a.bvh" -o "$T/e3.csv" --joints
expect "no -o" 2 positions "$T/a.bvh"
expect "-o x.txt" 2 positions "$T/a.bvh" -o "$T/x.txt"
expect "two inputs" 2 positions "$T/a.bvh" "$T/b.bvh" -o "$T/e4.csv"
expect "an unknown option" 2 positions "$T/a.bvh" -o "$T/e4.csv" --fps 30
cp "$T/a.bvh" "$T/in.csv"
expect "output = input" 1 positions "$T/in.csv" -o "$T/in.csv"
check "output = input: refused, untouched" grep -q "would overwrite this input; refused" "$T/err"
check "output = input: input untouched" cmp -s "$T/in.csv" "$T/a.bvh"
ln -s in.csv "$T/link.csv"
expect "output = input through a link" 1 positions "$T/in.csv" -o "$T/link.csv"
check "through a link: input untouched" cmp -s "$T/in.csv" "$T/a.bvh"
expect "an output in a missing directory" 1 positions "$T/a.bvh" -o "$T/nodir/p.csv"
check "missing directory: the reason" grep -q "nodir/p.csv: .*No such file or directory" "$T/err"
mkdir "$T/d.csv"
expect "an output that is a directory" 1 positions "$T/a.bvh" -o "$T/d.csv"
check "a directory: not replaced" grep -q "is a directory; not replaced" "$T/err"
expect "a missing input" 1 positions "$T/missing.bvh" -o "$T/e5.csv"
check "a missing input: nothing written" test ! -e "$T/e5.csv"
mkdir "$T/ro"
echo keep >"$T/ro/p.csv"
chmod 555 "$T/ro"
if [ "$(id -u)" != 0 ]; then
  expect "an unwritable directory" 1 positions "$T/a.bvh" -o "$T/ro/p.csv"
  check "unwritable: untouched" test "$(cat "$T/ro/p.csv")" = keep
elif as_nobody; then
  "${PB_AS[@]}" positions "$T/a.bvh" -o "$T/ro/p.csv" >"$T/out" 2>"$T/err"; rc=$?
  check "an unwritable file (as nobody): exit 1, untouched" test "$rc" -eq 1 -a "$(cat "$T/ro/p.csv")" = keep
else
  skips 1 "an unwritable output (root ignores file modes): $NOBODY_WHY"
fi
chmod 755 "$T/ro"
echo old >"$T/old.csv"
chmod 640 "$T/old.csv"
expect "an existing output is replaced" 0 positions "$T/a.bvh" -o "$T/old.csv"
check "replaced: the new CSV" cmp -s "$T/old.csv" "$T/p.csv"
check "replaced: its mode kept" test "$(stat -c %a "$T/old.csv")" = 640
check "no temporary file left" test -z "$(find "$T" -name '.*.tmp-*')"
expect "/dev/null is written through" 0 positions "$T/a.bvh" -o /dev/null

echo "== positions: signals"
# A long write (the clip at 2400 fps: a ~200 MB CSV), signalled once its
# temporary exists: it dies of the signal and leaves nothing. A SIGINT
# ignored at start ('&' without job control) stays ignored: the file is
# written whole. env --default-signal makes SIGINT deliverable.
"$PB" resample "$T/a.bvh" --fps 2400 -o "$T/big.bvh" 2>/dev/null
pos_interrupt() { # signal dir env...: runs positions on big.bvh into dir, signals it
  local sig=$1 dir=$2 i=0 pid
  shift 2
  mkdir -p "$dir"
  "$@" "$PB" positions "$T/big.bvh" --rotations -o "$dir/x.csv" >"$T/out" 2>"$T/err" &
  pid=$!
  seen=0
  while [ "$i" -lt 2000 ] && kill -0 "$pid" 2>/dev/null; do
    if compgen -G "$dir/.*.tmp-*" >/dev/null; then seen=1; break; fi
    sleep 0.005
    i=$((i + 1))
  done
  kill -s "$sig" "$pid" 2>/dev/null
  { wait "$pid"; rc=$?; } 2>/dev/null
}
pos_interrupt TERM "$T/sigt"
check "SIGTERM while writing: exit 143, nothing left" test "$seen" -eq 1 -a "$rc" -eq 143 -a -z "$(ls -A "$T/sigt")"
if env --default-signal=INT true 2>/dev/null; then
  pos_interrupt INT "$T/sigi" env --default-signal=INT
  check "SIGINT while writing: exit 130, nothing left" test "$seen" -eq 1 -a "$rc" -eq 130 -a -z "$(ls -A "$T/sigi")"
  pos_interrupt INT "$T/sigg" env --ignore-signal=INT
  check "SIGINT ignored at start: written whole" test "$seen" -eq 1 -a "$rc" -eq 0 -a "$(ls -A "$T/sigg")" = x.csv
else
  echo "skip SIGINT (no env --default-signal)"
  skip_one
fi
rm -rf "$T/big.bvh" "$T/sigt" "$T/sigi" "$T/sigg"
expect "--help" 0 positions --help
check "--help: both conventions explained" grep -q -- "--three" "$T/out"
