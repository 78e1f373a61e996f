# shellcheck shell=bash
# ik: foot clean-up with two-bone IK on the shipped clip and on the walking
# clips of the shared data (read from there, never copied: the bandai_* clips
# are non-commercial), the printed sliding before and after, given contacts,
# and the error paths.
IK_SHARED="${PB_SHARED_DATA_DIR:-$HERE/../../../shared/data}"
# every 'sliding during contact B -> A' line of $T/err has A < B / r
slides_down() {
  grep -q 'sliding during contact' "$T/err" &&
    awk -v r="$1" '/sliding during contact/ { for (i = 1; i <= NF; i++) if ($i == "->") { b = $(i - 1); a = $(i + 1) }
      if (!(a + 0 < b / r)) bad = 1 } END { exit bad }' "$T/err"
}

echo "== ik: help and usage"
expect "ik --help" 0 ik --help
check "ik --help prints usage on stdout" grep -q '^usage: posebatch ik' "$T/out"
expect "ik without -o" 2 ik "$T/a.bvh"
expect "ik with two inputs" 2 ik "$T/a.bvh" "$T/b.bvh" -o "$T/u.bvh"
expect "ik --up w" 2 ik "$T/a.bvh" -o "$T/u.bvh" --up w
expect "ik --blend -1" 2 ik "$T/a.bvh" -o "$T/u.bvh" --blend -1
expect "ik --contact-speed x" 2 ik "$T/a.bvh" -o "$T/u.bvh" --contact-speed x
check "usage errors write nothing" test ! -e "$T/u.bvh"

echo "== ik: the shipped clip"
expect "ik on the shipped clip" 0 ik "$T/a.bvh" -o "$T/ik.bvh"
check "ik: $F frames" has_frames "$T/ik.bvh" "$F"
check "ik: both feet found and reported" test "$(grep -c 'sliding during contact' "$T/err")" = 2
check "ik: sliding during contact down at least 10x" slides_down 10
expect "ik --feet LeftFoot,RightFoot (the default pair named)" 0 ik "$T/a.bvh" -o "$T/named.bvh" --feet LeftFoot,RightFoot
check "named feet: the same output" cmp -s "$T/ik.bvh" "$T/named.bvh"
expect "ik -o - writes standard output" 0 ik "$T/a.bvh" -o -
check "-o -: the same text" cmp -s "$T/out" "$T/ik.bvh"
expect "ik --feet Nope,RightFoot" 1 ik "$T/a.bvh" -o "$T/u.bvh" --feet Nope,RightFoot
check "the message names the joint" grep -q "no joint 'Nope'" "$T/err"
expect "ik --feet A (not a pair)" 1 ik "$T/a.bvh" -o "$T/u.bvh" --feet LeftFoot
expect "ik --feet Hips,RightFoot (no hip above the root)" 1 ik "$T/a.bvh" -o "$T/u.bvh" --feet Hips,RightFoot
check "failures write nothing" test ! -e "$T/u.bvh"

echo "== ik: given contacts"
printf '# foot first last\nLeftFoot 10 20\nRightFoot 30 40\nRightFoot 100 104\n' >"$T/contacts.txt"
expect "ik --contacts FILE" 0 ik "$T/short.bvh" -o "$T/given.bvh" --contacts "$T/contacts.txt"
check "given: 11 left contact frames in 1 span" grep -q 'LeftFoot: 11 contact frames in 1 spans' "$T/err"
check "given: 16 right contact frames in 2 spans" grep -q 'RightFoot: 16 contact frames in 2 spans' "$T/err"
# data lines 1..7 (frames 0..6: before the first contact's ramp) and 180..200
data_lines() { awk -v a="$2" -v b="$3" 'd { n++; if (n >= a && n <= b) print } /^[ \t]*Frame Time/ { d = 1 }' "$1"; }
own=$(awk -v t="$(frame_time "$T/short.bvh")" 'BEGIN { printf "%.17g", 1 / t }')
expect "resample at the clip's own rate (the writer's text of the source)" 0 \
  resample "$T/short.bvh" --fps "$own" -o "$T/short_own.bvh"
check "given: frames before the first contact's ramp unchanged" \
  test "$(data_lines "$T/short_own.bvh" 1 7)" = "$(data_lines "$T/given.bvh" 1 7)"
check "given: frames after the last contact's ramp unchanged" \
  test "$(data_lines "$T/short_own.bvh" 110 200)" = "$(data_lines "$T/given.bvh" 110 200)"
check "given: a contact frame changed" \
  test "$(data_lines "$T/short_own.bvh" 15 15)" != "$(data_lines "$T/given.bvh" 15 15)"
printf 'LeftFoot 20 10\n' >"$T/bad.txt"
expect "ik --contacts with LAST < FIRST" 1 ik "$T/short.bvh" -o "$T/u.bvh" --contacts "$T/bad.txt"
check "the message names the line" grep -q 'bad.txt:1:' "$T/err"
printf 'LeftFoot 10 900\n' >"$T/bad.txt"
expect "ik --contacts past the last frame" 1 ik "$T/short.bvh" -o "$T/u.bvh" --contacts "$T/bad.txt"
printf 'Nope 10 20\n' >"$T/bad.txt"
expect "ik --contacts naming no joint" 1 ik "$T/short.bvh" -o "$T/u.bvh" --contacts "$T/bad.txt"
expect "ik --contacts missing" 1 ik "$T/short.bvh" -o "$T/u.bvh" --contacts "$T/none.txt"
check "failures write nothing" test ! -e "$T/u.bvh"

echo "== ik: output path rules"
cp "$T/a.bvh" "$T/keep.bvh"
expect "output over the input refused" 1 ik "$T/a.bvh" -o "$T/a.bvh"
check "the input is untouched" cmp -s "$T/a.bvh" "$T/keep.bvh"
cp "$T/contacts.txt" "$T/contacts.bvh"
expect "output over the contacts file refused" 1 ik "$T/short.bvh" -o "$T/contacts.bvh" --contacts "$T/contacts.bvh"
check "the contacts file is untouched" cmp -s "$T/contacts.txt" "$T/contacts.bvh"

echo "== ik: the walking clips of the shared data"
for c in pymo_AV_8Walk_Meredith_HVHA_Rep1 cmu3dsmax_131_01 bandai_dataset-1_dance-short_normal_001; do
  src="$IK_SHARED/mocap/$c.bvh"
  if [ ! -f "$src" ]; then
    skips 3 "ik on $c: $src not found (optional shared data)"
    continue
  fi
  expect "ik on $c" 0 ik "$src" -o "$T/$c.bvh"
  check "$c: the same frames" has_frames "$T/$c.bvh" "$(frames "$src")"
  check "$c: sliding during contact down at least 3x" slides_down 3
  sed 's/^/     /' "$T/err"
  rm -f "$T/$c.bvh"
done
