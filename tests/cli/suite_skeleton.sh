# shellcheck shell=bash
# mirror and root-motion: the shipped CMU clip, and the pymo walk of
# ../shared/data/mocap (PB_SHARED_DATA_DIR) when it is there (else skipped).
MOCAP="${PB_SHARED_DATA_DIR:-$HERE/../../../shared/data}/mocap"
WALK="$MOCAP/pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh"

# The ROOT's six channels (3 positions, then 3 rotation angles: CMU and
# pymo) on every data line of two clips, within tol_pos units and tol_deg
# degrees (angles modulo 360). bvhdiff.awk (close_to) checks the other
# joints: its joint table starts at index "" (an unset awk variable), so
# that joint 0, the root, is not compared there.
root_close() { # a.bvh b.bvh tol_pos tol_deg
  awk -v tp="$3" -v td="$4" '
    FNR == 1 { d = 0; k = 0 }
    /^[ \t]*Frame Time/ { d = 1; next }
    d && NF && FNR == NR { for (i = 1; i <= 6; i++) v[k, i] = $i; k++; next }
    d && NF { if (!((k, 1) in v)) exit 1
              for (i = 1; i <= 6; i++) { e = $i - v[k, i]; if (e < 0) e = -e
                if (i > 3) { e = e % 360; if (e > 180) e = 360 - e }
                if (e > (i <= 3 ? tp : td)) exit 1 }
              k++; n++ }
    END { exit !(n > 0 && n == k) }' "$1" "$2"
}

echo "== mirror"
for c in mirror root-motion; do
  expect "$c --help" 0 $c --help
  check "$c --help prints usage on stdout" grep -q "^usage: posebatch $c" "$T/out"
done
expect "mirror" 0 mirror "$T/a.bvh" -o "$T/m1.bvh" --print-pairs
check "mirror: pairs by name (LeftUpLeg=RightUpLeg, LHipJoint=RHipJoint)" \
  grep -qx 'LeftUpLeg=RightUpLeg' "$T/err"
check "mirror: bare l/r letters pair (LHipJoint=RHipJoint)" grep -qx 'LHipJoint=RHipJoint' "$T/err"
check "mirror: 12 pairs on the CMU skeleton" test "$(wc -l <"$T/err")" -eq 12
differs() { ! close_to "$@"; }
check "mirror: the motion changes (> 1 degree somewhere)" differs "$T/a.bvh" "$T/m1.bvh" 1 1
expect "mirror the mirror" 0 mirror "$T/m1.bvh" -o "$T/m2.bvh"
check "mirror twice: the source's motion exactly" close_to "$T/a.bvh" "$T/m2.bvh" 0 0
check "mirror twice: the source's root exactly" root_close "$T/a.bvh" "$T/m2.bvh" 0 0
expect "mirror a third time" 0 mirror "$T/m2.bvh" -o "$T/m3.bvh"
check "mirror three times: the first mirror's file byte for byte" cmp -s "$T/m1.bvh" "$T/m3.bvh"
# the root's x channel (field 1) is negated, y and z kept
check "mirror: root x negated, y, z kept" awk -v a="$T/a.bvh" -v m="$T/m1.bvh" 'BEGIN {
  while ((getline l < a) > 0) if (l ~ /^Frame Time/) break
  while ((getline l < m) > 0) if (l ~ /^Frame Time/) break
  getline l < a; split(l, x); getline l < m; split(l, y)
  exit !(x[1] + y[1] == 0 && x[2] == y[2] && x[3] == y[3] && x[1] != 0) }'
for p in xz xy; do
  expect "mirror --plane $p" 0 mirror "$T/a.bvh" -o "$T/p1.bvh" --plane "$p"
  expect "mirror --plane $p again" 0 mirror "$T/p1.bvh" -o "$T/p2.bvh" --plane "$p"
  check "mirror --plane $p twice: the source" close_to "$T/a.bvh" "$T/p2.bvh" 0 0
  check "mirror --plane $p twice: the source's root" root_close "$T/a.bvh" "$T/p2.bvh" 0 0
done
expect "mirror to glTF" 0 mirror "$T/a.bvh" -o "$T/m.glb"
expect "mirror a glTF back to BVH" 0 mirror "$T/m.glb" -o "$T/mg.bvh"
check "glTF mirrored back: the source (< 2e-4 deg: float glTF rotations)" \
  close_to "$T/a.bvh" "$T/mg.bvh" 2e-4 0
# a renamed joint loses its family partner: the hierarchy no longer mirrors,
# and an explicit pair mends it
expect "mirror: LHipJointX has no partner, its children do" 1 mirror "$T/renamed.bvh" -o "$T/x.bvh"
check "mirror: says which parents are not paired" grep -q "parents 'LHipJointX' and 'RHipJoint'" "$T/err"
check "mirror: nothing written on error" test ! -e "$T/x.bvh"
expect "mirror --pair LHipJointX=RHipJoint" 0 mirror "$T/renamed.bvh" -o "$T/x.bvh" \
  --pair LHipJointX=RHipJoint --print-pairs
check "mirror --pair: the explicit pair is used" grep -qx 'LHipJointX=RHipJoint' "$T/err"
sed 's/JOINT RightUpLeg/JOINT RUpLegX/' "$T/a.bvh" >"$T/noright.bvh"
expect "mirror: LeftUpLeg without RightUpLeg" 1 mirror "$T/noright.bvh" -o "$T/x2.bvh"
check "mirror: names the missing counterpart" grep -q "'LeftUpLeg' has no counterpart 'RightUpLeg'" "$T/err"
expect "mirror --plane bad" 2 mirror "$T/a.bvh" -o "$T/x3.bvh" --plane ab
expect "mirror --pair without =" 2 mirror "$T/a.bvh" -o "$T/x3.bvh" --pair LeftArm
expect "mirror --pair naming no joint" 1 mirror "$T/a.bvh" -o "$T/x3.bvh" --pair Nope=Hips
check "mirror --pair: names the unknown joint" grep -q "no joint named 'Nope'" "$T/err"
expect "mirror without -o" 2 mirror "$T/a.bvh"
expect "mirror two inputs" 2 mirror "$T/a.bvh" "$T/b.bvh" -o "$T/x3.bvh"
expect "mirror onto its input" 1 mirror "$T/a.bvh" -o "$T/a.bvh"
check "mirror onto its input: input intact" cmp -s "$T/a.bvh" "$CLIP"
expect "mirror to stdout" 0 mirror "$T/a.bvh" -o -
check "mirror to stdout: a BVH" grep -q '^HIERARCHY' "$T/out"

echo "== root-motion"
expect "root-motion" 0 root-motion "$T/a.bvh" -o "$T/ip.bvh" --root-csv "$T/r.csv"
check "root-motion: the CSV header" test "$(head -1 "$T/r.csv")" = "frame,time,x,y,z,qw,qx,qy,qz"
check "root-motion: one CSV line per frame" test "$(wc -l <"$T/r.csv")" -eq $((F + 1))
check "root-motion: the root at the ground origin" awk '/^Frame Time/ { d = 1; next }
  d && NF { n++; if ($1 + 0 != 0 || $3 + 0 != 0) bad = 1 } END { exit bad || !n }' "$T/ip.bvh"
expect "root-motion --apply" 0 root-motion "$T/ip.bvh" -o "$T/back.bvh" --apply "$T/r.csv"
check "extract + apply: every frame back (< 1e-4 deg, < 1e-4 units)" \
  close_to "$T/a.bvh" "$T/back.bvh" 1e-4 1e-4
check "extract + apply: the root back (< 1e-4 deg, < 1e-4 units)" \
  root_close "$T/a.bvh" "$T/back.bvh" 1e-4 1e-4
differs_root() { ! root_close "$@"; }
check "root-motion: the in-place root differs from the source's" \
  differs_root "$T/a.bvh" "$T/ip.bvh" 1 1
expect "root-motion --components ground" 0 root-motion "$T/a.bvh" -o "$T/g.bvh" \
  --root-csv "$T/g.csv" --components ground
check "ground only: identity headings" awk -F, 'NR > 1 && ($6 != 1 || $7 != 0 || $8 != 0 || $9 != 0) { exit 1 }' "$T/g.csv"
expect "root-motion --components heading --up z" 0 root-motion "$T/a.bvh" -o "$T/h.bvh" \
  --root-csv "$T/h.csv" --components heading --up z
check "heading only: no ground translation" awk -F, 'NR > 1 && ($3 != 0 || $4 != 0 || $5 != 0) { exit 1 }' "$T/h.csv"
check "heading about z only" awk -F, 'NR > 1 && ($7 != 0 || $8 != 0) { exit 1 }' "$T/h.csv"
expect "root-motion --joint LowerBack (below the root)" 0 root-motion "$T/a.bvh" -o "$T/j.glb" --joint LowerBack
expect "root-motion --up w" 2 root-motion "$T/a.bvh" -o "$T/x4.bvh" --up w
expect "root-motion --components bad" 2 root-motion "$T/a.bvh" -o "$T/x4.bvh" --components ground,
expect "root-motion --root-csv with --apply" 2 root-motion "$T/a.bvh" -o "$T/x4.bvh" --root-csv "$T/q.csv" --apply "$T/r.csv"
expect "root-motion --joint Nope" 1 root-motion "$T/a.bvh" -o "$T/x4.bvh" --joint Nope
check "root-motion --joint: names it" grep -q "no joint named 'Nope'" "$T/err"
head -50 "$T/r.csv" >"$T/short.csv"
expect "root-motion --apply with too few frames" 1 root-motion "$T/ip.bvh" -o "$T/x4.bvh" --apply "$T/short.csv"
check "root-motion --apply: says how many" grep -q "49 frames, the clip has $F" "$T/err"
check "root-motion: nothing written on error" test ! -e "$T/x4.bvh"
expect "root-motion --root-csv onto the input" 1 root-motion "$T/a.bvh" -o "$T/x5.bvh" --root-csv "$T/a.bvh"
check "root-motion: input intact" cmp -s "$T/a.bvh" "$CLIP"

echo "== root-motion: the pymo walk"
if [ -f "$WALK" ]; then
  expect "walk: root-motion" 0 root-motion "$WALK" -o "$T/w.bvh" --root-csv "$T/w.csv"
  # the stride: the largest ground distance the hips travel in one second
  # (a gait cycle) of the source; in place they stay within 5% of it
  check "walk: hips within 5% of the stride of their start" awk -v src="$WALK" '
    BEGIN { while ((getline l < src) > 0) { if (l ~ /^Frame Time/) { split(l, t, ":"); ft = t[2] + 0; break } }
            n = 0; while ((getline l < src) > 0) { split(l, f); x[n] = f[1]; z[n] = f[3]; n++ }
            k = int(1 / ft + 0.5); stride = 0
            for (i = 0; i + k < n; i += 5) { e = sqrt((x[i + k] - x[i]) ^ 2 + (z[i + k] - z[i]) ^ 2); if (e > stride) stride = e }
            if (stride < 10) { bad = 1; exit } }
    /^Frame Time/ { d = 1; next }
    d && NF { if (!s) { sx = $1; sz = $3; s = 1 }
              if (sqrt(($1 - sx) ^ 2 + ($3 - sz) ^ 2) > 0.05 * stride) bad = 1 }
    END { exit bad || !s }' "$T/w.bvh"
  expect "walk: apply" 0 root-motion "$T/w.bvh" -o "$T/wb.bvh" --apply "$T/w.csv"
  check "walk: extract + apply reproduces every frame (< 1e-4 deg, < 1e-4 units)" \
    close_to "$WALK" "$T/wb.bvh" 1e-4 1e-4
  check "walk: extract + apply reproduces the root (< 1e-4 deg, < 1e-4 units)" \
    root_close "$WALK" "$T/wb.bvh" 1e-4 1e-4
else
  skips 5 "root-motion on the pymo walk: $WALK not found (optional shared data)"
fi
