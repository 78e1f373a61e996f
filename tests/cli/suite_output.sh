# shellcheck shell=bash
# Output paths: what -o may replace (devices, FIFOs, symbolic links,
# read-only files, sockets), signals that leave no temporary file behind,
# long names and paths, and '-' for standard input / output.
tmps_in() { compgen -G "$1/.*.tmp-*" >/dev/null; } # a temporary file is there
no_tmps_in() { ! tmps_in "$1"; }
ref60="$T/ref60.bvh"
"$PB" resample "$T/a.bvh" -o "$ref60" --fps 60 2>/dev/null

echo "== devices and FIFOs are written through"
# As root, the null and full devices are private nodes in $T (and /dev/stdout
# a link of our own): a regression must not replace the machine's /dev/null.
# Other users cannot replace anything in /dev, so they use the real ones.
dev_null=/dev/null dev_full=/dev/full dev_stdout=/dev/stdout
if [ "$(id -u)" = 0 ]; then
  dev_null=$T/devnull dev_full=$T/devfull dev_stdout=$T/stdout
  mknod -m 666 "$dev_null" c 1 3 2>/dev/null || dev_null=
  mknod -m 666 "$dev_full" c 1 7 2>/dev/null || dev_full=
  ln -s /proc/self/fd/1 "$dev_stdout"
  [ -n "$dev_null" ] || skips 3 "the null device (root, but no mknod here)"
  [ -n "$dev_full" ] || skips 3 "the full device (root, but no mknod here)"
fi
if [ -n "$dev_null" ]; then
  expect "-o (a null device)" 0 resample "$T/a.bvh" -o "$dev_null" --fps 60
  check "the null device is still a character device" test -c "$dev_null"
  check "null device: no temporary file beside it" no_tmps_in "$(dirname "$dev_null")"
fi
if [ -n "$dev_full" ] && [ -c "$dev_full" ]; then
  expect "-o (a full device)" 1 resample "$T/a.bvh" -o "$dev_full" --fps 60
  check "full device: the OS reason is reported" grep -q "^posebatch: $dev_full: .*No space left on device" "$T/err"
  check "the full device is still a character device" test -c "$dev_full"
fi
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/fromfifo" &
cat_pid=$!
expect "-o FIFO" 0 resample "$T/a.bvh" -o "$T/fifo" --fps 60
wait "$cat_pid"
check "the FIFO is still a FIFO" test -p "$T/fifo"
check "the reader got the whole clip" cmp -s "$T/fromfifo" "$ref60"
if [ -L "$dev_stdout" ] && [ -e /proc/self/fd/1 ]; then
  "$PB" resample "$T/a.bvh" -o "$dev_stdout" --fps 60 2>"$T/err" | cat >"$T/frompipe"
  check "-o (a link to /proc/self/fd/1) into a pipe (/proc/self/fd/1 names 'pipe:[N]')" cmp -s "$T/frompipe" "$ref60"
  check "the stdout link is still a link" test -L "$dev_stdout"
fi

echo "== symbolic links are followed"
mkdir "$T/real" "$T/sub"
echo old >"$T/real/t.bvh"
ln -s real/t.bvh "$T/l1"
ln -s ../l1 "$T/sub/l2"
expect "-o a chain of relative links" 0 resample "$T/a.bvh" -o "$T/sub/l2" --fps 60
check "the links stay links" test -L "$T/sub/l2" -a -L "$T/l1"
check "their final target is replaced" cmp -s "$T/real/t.bvh" "$ref60"
check "nothing else beside the link or the target" \
  test "$(ls -A "$T/sub")" = l2 -a "$(ls -A "$T/real")" = t.bvh
ln -s "$T/real/abs.bvh" "$T/labs"
expect "-o a dangling absolute link" 0 resample "$T/a.bvh" -o "$T/labs" --fps 60
check "dangling link: its target is created" cmp -s "$T/real/abs.bvh" "$ref60"
check "dangling link: still a link" test -L "$T/labs"
ln -s nowhere/x.bvh "$T/ldead"
expect "-o a link into a missing directory" 1 resample "$T/a.bvh" -o "$T/ldead" --fps 60
check "the message names the link's target" grep -q "nowhere/x.bvh: No such file or directory" "$T/err"
ln -s loopb "$T/loopa"
ln -s loopa "$T/loopb"
expect "-o a symbolic link loop" 1 resample "$T/a.bvh" -o "$T/loopa" --fps 60
check "a loop: still links" test -L "$T/loopa" -a -L "$T/loopb"

echo "== other files are refused"
if python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/sock" 2>/dev/null; then
  expect "-o a socket" 1 resample "$T/a.bvh" -o "$T/sock" --fps 60
  check "socket: 'is a socket; not replaced'" grep -q "sock: is a socket; not replaced" "$T/err"
  check "the socket is still a socket" test -S "$T/sock"
else
  skips 3 "-o a socket (no python3 to make one)"
fi
if mknod "$T/blk" b 7 250 2>/dev/null; then
  expect "-o a block device node" 1 resample "$T/a.bvh" -o "$T/blk" --fps 60
  check "the block device is still one" test -b "$T/blk"
  ln -s blk "$T/lblk"
  expect "-o a link to a block device" 1 resample "$T/a.bvh" -o "$T/lblk" --fps 60
  check "link to a block device: message names it" grep -q "target .*blk is a block device" "$T/err"
  rm -f "$T/blk" "$T/lblk"
else
  skips 5 "-o a block device (cannot make a block device node here)"
fi
check "no temporary file left anywhere" no_tmps_in "$T"

echo "== read-only outputs"
# A file the caller could not open for writing is refused, even where its
# directory would let a rename replace it. Root may write to any file: as
# root, run these as nobody (setpriv) or skip them.
mkdir "$T/rw"
chmod 777 "$T/rw"
echo keep >"$T/rw/ro.bvh"
chmod 444 "$T/rw/ro.bvh"
pb_ro=("$PB")
if [ "$(id -u)" = 0 ]; then
  if as_nobody; then pb_ro=("${PB_AS[@]}"); else pb_ro=(); fi
fi
if [ ${#pb_ro[@]} -gt 0 ]; then
  echo keep >"$T/rw/theirs.bvh" # owned by whoever runs this: another user for nobody
  [ "$(id -u)" = 0 ] || chmod 444 "$T/rw/theirs.bvh"
  "${pb_ro[@]}" resample "$T/a.bvh" -o "$T/rw/ro.bvh" --fps 60 >"$T/out" 2>"$T/err"; rc=$?
  check "read-only file: exit 1" test "$rc" -eq 1
  check "read-only file: 'not replaced' with the reason" grep -q "ro.bvh: cannot write to it: Permission denied; not replaced" "$T/err"
  check "read-only file: untouched" test "$(cat "$T/rw/ro.bvh")" = keep
  "${pb_ro[@]}" resample "$T/a.bvh" -o "$T/rw/theirs.bvh" --fps 60 >"$T/out" 2>"$T/err"; rc=$?
  check "a file the caller cannot write: exit 1, untouched" test "$rc" -eq 1 -a "$(cat "$T/rw/theirs.bvh")" = keep
  check "read-only: no temporary file left" no_tmps_in "$T/rw"
else
  skips 5 "read-only outputs (root ignores file modes): $NOBODY_WHY"
fi
if [ "$(id -u)" = 0 ]; then
  expect "root replaces a read-only file" 0 resample "$T/a.bvh" -o "$T/rw/ro.bvh" --fps 60
  check "and keeps its mode 444" test "$(stat -c %a "$T/rw/ro.bvh")" = 444
  check "with the new content" cmp -s "$T/rw/ro.bvh" "$ref60"
  echo old >"$T/rw/nobodys.bvh"
  chown 65534:65534 "$T/rw/nobodys.bvh"
  expect "root replaces another user's file" 0 resample "$T/a.bvh" -o "$T/rw/nobodys.bvh" --fps 60
  check "and keeps its owner" test "$(stat -c %u:%g "$T/rw/nobodys.bvh")" = 65534:65534
fi

echo "== long names and paths"
n244=$(printf '%0240d' 7).bvh
expect "a 244-byte file name" 0 resample "$T/a.bvh" -o "$T/$n244" --fps 60
check "244-byte name: written" cmp -s "$T/$n244" "$ref60"
mkdir "$T/long" "$T/longout"
p239=$(printf '%0239d' 1)
cp "$T/a.bvh" "$T/long/${p239}1.bvh"
cp "$T/a.bvh" "$T/long/${p239}2.bvh"
expect "two 245-byte names alike but for one byte, -j 2" 0 \
  resample "$T/long/${p239}1.bvh" "$T/long/${p239}2.bvh" -o "$T/longout" --fps 60 -j 2
check "both written" cmp -s "$T/longout/${p239}1.bvh" "$T/longout/${p239}2.bvh"
check "long names: no temporary file left" no_tmps_in "$T/longout"
deep=$T
for i in $(seq 30); do deep=$deep/$(printf '%0100d' "$i"); done
expect "a 3000-byte path in missing directories" 1 resample "$T/a.bvh" -o "$deep/x.bvh" --fps 60
check "the message keeps the OS reason" grep -q "cannot create a temporary file next to it: No such file or directory\$" "$T/err"
check "the message keeps the whole path" grep -qF "$deep/x.bvh: " "$T/err"
for i in $(seq 20); do deep=$deep/$(printf '%0100d' "$i"); done
expect "a path beyond PATH_MAX" 1 resample "$T/a.bvh" -o "$deep/x.bvh" --fps 60
check "beyond PATH_MAX: the reason is kept" grep -q "File name too long\$" "$T/err"

echo "== signals remove temporary files"
# A long write (the clip at 4000 fps, ~120 MB per output), interrupted once a
# temporary file exists. The signals must not be ignored in the child ('&'
# ignores SIGINT without job control): env --default-signal resets them.
if env --default-signal=INT true 2>/dev/null; then dflt=(env --default-signal=INT,TERM,HUP); else dflt=(); fi
interrupt() { # signal dir min_tmps args...: runs, signals, sets rc and seen
  local sig=$1 dir=$2 want=$3 i=0 pid
  shift 3
  "${dflt[@]}" "$PB" "$@" >"$T/out" 2>"$T/err" &
  pid=$!
  seen=0
  while [ "$i" -lt 2000 ] && kill -0 "$pid" 2>/dev/null; do
    if [ "$(compgen -G "$dir/.*.tmp-*" | wc -l)" -ge "$want" ]; then seen=1; break; fi
    sleep 0.005
    i=$((i + 1))
  done
  kill -s "$sig" "$pid" 2>/dev/null
  { wait "$pid"; rc=$?; } 2>/dev/null
}
sigs=(HUP:129 TERM:143)
[ ${#dflt[@]} -gt 0 ] && sigs=(INT:130 "${sigs[@]}") || echo "     (no env --default-signal: SIGINT not tested)"
for s in "${sigs[@]}"; do
  sig=${s%:*} want=${s#*:}
  mkdir "$T/sig$sig"
  interrupt "$sig" "$T/sig$sig" 1 resample "$T/a.bvh" -o "$T/sig$sig/big.bvh" --fps 4000
  check "SIG$sig: caught while writing" test "$seen" -eq 1
  check "SIG$sig: exit $want" test "$rc" -eq "$want"
  check "SIG$sig: nothing left in the output directory" no_files_in "$T/sig$sig"
done
mkdir "$T/sigj"
cp "$T/a.bvh" "$T/c.bvh"
interrupt TERM "$T/sigj" 2 resample "$T/a.bvh" "$T/b.bvh" "$T/c.bvh" -o "$T/sigj" --fps 4000 -j 2
check "-j 2, SIGTERM: caught while two were writing" test "$seen" -eq 1
check "-j 2, SIGTERM: exit 143" test "$rc" -eq 143
check "-j 2, SIGTERM: no temporary file left" no_tmps_in "$T/sigj"
rm -rf "$T/sigj"
mkdir "$T/sigb"
interrupt TERM "$T/sigb" 1 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 --fps 4000 -o "$T/sigb/x.bvh"
check "blend, SIGTERM: exit 143, nothing left" test "$rc" -eq 143 -a -z "$(ls -A "$T/sigb")"
# nohup: a SIGHUP ignored when posebatch starts stays ignored
mkdir "$T/nohup"
dflt_saved=("${dflt[@]}")
dflt=(nohup)
interrupt HUP "$T/nohup" 1 resample "$T/a.bvh" -o "$T/nohup/big.bvh" --fps 4000
dflt=("${dflt_saved[@]}")
check "SIGHUP under nohup: ignored, exit 0" test "$seen" -eq 1 -a "$rc" -eq 0
check "SIGHUP under nohup: the output written, no temporary" \
  test "$(ls -A "$T/nohup")" = big.bvh
rm -rf "$T/nohup" "$T"/sig*

echo "== standard input and output"
# in $T, so that a file named '-' (a regression) lands there
suite_cwd=$PWD
cd "$T" || exit 1
expect "resample -o -" 0 resample "$T/a.bvh" -o - --fps 60
check "-o -: the clip on stdout" cmp -s "$T/out" "$ref60"
check "-o -: no file named '-'" test ! -e "$T/-"
expect "resample - (stdin)" 0 resample - -o "$T/fromstdin.bvh" --fps 60 <"$T/a.bvh"
check "stdin: same output as from the file" cmp -s "$T/fromstdin.bvh" "$ref60"
expect "resample - -o -" 0 resample - -o - --fps 60 <"$T/a.bvh"
check "stdin to stdout" cmp -s "$T/out" "$ref60"
expect "resample - -o DIR/" 0 resample - -o "$T/sdir/" --fps 60 <"$T/a.bvh"
check "stdin under -o DIR is DIR/stdin.bvh" cmp -s "$T/sdir/stdin.bvh" "$ref60"
expect "resample - with another input, -o DIR/" 0 resample - "$T/b.bvh" -o "$T/sdir2/" --fps 60 <"$T/a.bvh"
check "both written: stdin.bvh and b.bvh" test "$(ls "$T/sdir2" | tr '\n' ' ')" = "b.bvh stdin.bvh "
expect "-o - with two inputs" 2 resample "$T/a.bvh" "$T/b.bvh" -o - --fps 60
expect "'-' twice" 2 resample - - -o "$T/sdir3" --fps 60 </dev/null
check "usage errors write nothing" test ! -e "$T/sdir3" -a ! -s "$T/out"
printf 'HIERARCHY\nROOT {\n' >"$T/broken.bvh"
expect "malformed stdin" 1 resample - -o "$T/x.bvh" --fps 60 <"$T/broken.bvh"
check "malformed stdin: 'posebatch: (stdin): ...'" grep -q "^posebatch: (stdin): " "$T/err"
expect "blend -o -" 0 blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 -o -
"$PB" blend "$T/a.bvh" "$T/b.bvh" --weights 0.5,0.5 -o "$T/blendref.bvh" 2>/dev/null
check "blend -o -: same as the file" cmp -s "$T/out" "$T/blendref.bvh"
expect "blend - B" 0 blend - "$T/b.bvh" --weights 0.5,0.5 -o "$T/blendstdin.bvh" <"$T/a.bvh"
check "blend from stdin: same as from the file" cmp -s "$T/blendstdin.bvh" "$T/blendref.bvh"
expect "blend - -" 2 blend - - --weights 0.5,0.5 -o "$T/x.bvh" </dev/null
expect "info -" 0 info - <"$T/a.bvh"
check "info -: $F frames" grep -qE "frames: +$F\$" "$T/out"
( cd "$T" && "$PB" resample a.bvh -o - --fps 60 >"$T/out" 2>"$T/err" ); rc=$?
check "-o - in a directory: stdout, not a file named '-'" test "$rc" -eq 0 -a ! -e "$T/-"
cd "$suite_cwd" || exit 1
