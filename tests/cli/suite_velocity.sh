# shellcheck shell=bash
# resample --velocity-csv: per output frame, each joint's angular speed.
echo "== --velocity-csv"
expect "resample --velocity-csv" 0 resample "$T/short.bvh" -o "$T/v.bvh" --fps 240 --velocity-csv "$T/v.csv"
check "header: frame,time and the 31 joint names" \
  test "$(head -n 1 "$T/v.csv" | tr ',' '\n' | wc -l)" = 33 -a "$(head -n 1 "$T/v.csv" | cut -d, -f1-3)" = "frame,time,Hips"
check "one row per output frame ($(frames "$T/v.bvh"))" test "$(($(wc -l <"$T/v.csv") - 1))" = "$(frames "$T/v.bvh")"
# a joint spinning about Z at 1 degree per frame, 100 frames per second: 100 deg/s
{
  printf 'HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Yrotation Xrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n'
  printf 'MOTION\nFrames: 50\nFrame Time: 0.01\n'
  for f in $(seq 0 49); do printf '%d 0 0\n' "$f"; done
} >"$T/spin.bvh"
expect "a steady spin" 0 resample "$T/spin.bvh" -o "$T/spin2.bvh" --fps 400 --velocity-csv "$T/spin.csv"
# (the first and last source segments have the clamped ends' slower tangents;
# float32 velocities: 2e-5 relative, 2e-3 deg/s here)
check "its speed is 100 deg/s away from the ends (within 2e-3)" \
  awk -F, 'NR > 1 && $1 >= 4 && $1 <= 192 { n++; d = $3 - 100; if (d < 0) d = -d; if (d > 2e-3) bad++ }
           END { exit bad > 0 || n != 189 }' "$T/spin.csv"
check "the time column steps by 1/400 s" awk -F, 'NR == 4 { exit !($1 == 2 && $2 == 0.005) }' "$T/spin.csv"
expect "--velocity-csv with two inputs" 2 resample "$T/a.bvh" "$T/b.bvh" -o "$T/vd" --fps 60 --velocity-csv "$T/x.csv"
check "no CSV after the usage error" test ! -e "$T/x.csv"
expect "--velocity-csv on blend" 2 blend "$T/a.bvh" "$T/b.bvh" --weights 1,1 -o "$T/x.bvh" --velocity-csv "$T/x.csv"
cp "$T/short.bvh" "$T/vin.bvh"
expect "--velocity-csv naming the input" 1 resample "$T/vin.bvh" -o "$T/vo.bvh" --fps 60 --velocity-csv "$T/vin.bvh"
check "the input is kept" cmp -s "$T/vin.bvh" "$T/short.bvh"
echo keep >"$T/vkeep.csv"
expect "--velocity-csv into a missing directory" 1 resample "$T/short.bvh" -o "$T/vo2.bvh" --fps 60 --velocity-csv "$T/nodir/v.csv"
check "no CSV in a missing directory" test ! -e "$T/nodir/v.csv"
