# Helpers and fixtures for the CLI suites (sourced by run.sh, which sets PB,
# HERE, T (this suite's directory), passed, failed and skipped).
# shellcheck shell=bash
CLIP="$HERE/../../data/cmu_01_03.bvh"
DIFF="$HERE/bvhdiff.awk"
ok() { passed=$((passed + 1)); echo "ok   $1"; }
skip_one() { skipped=$((skipped + 1)); } # a check that cannot run here (say why once)
skips() { # count reason: that many checks cannot run here, and why
  skipped=$((skipped + $1)); echo "skip $1 check$([ "$1" = 1 ] || echo s): $2"
}
no() { failed=$((failed + 1)); echo "FAIL $1"; [ -s "$T/err" ] && sed 's/^/     | /' "$T/err" | head -5; }
check() { # name command...: passes when the command succeeds
  local name=$1; shift
  if "$@"; then ok "$name"; else no "$name"; fi
}
pb() { # runs the CLI: stdout in $T/out, stderr in $T/err, status in $rc
  "$PB" "$@" >"$T/out" 2>"$T/err"; rc=$?
}
expect() { # name status args...: the CLI exits with that status
  local name=$1 want=$2; shift 2
  pb "$@"
  if [ "$rc" -eq "$want" ]; then ok "$name (exit $want)"; else no "$name: exit $rc, expected $want"; fi
}
frames() { awk '/^[ \t]*Frames[ \t]*:/ { print $NF; exit }' "$1"; }
frame_time() { awk '/^[ \t]*Frame Time[ \t]*:/ { print $NF; exit }' "$1"; }
# Expected output frames (pb_clip_resample_frames): the step in source frames
# s = 1 / (fps T), snapped to p/q (q <= 64) when within 1e-4 relative; clamp
# floor((F-1) / s) + 1, loop round(F / s), at least 1.
expected_frames() { # file fps [loop]
  awk -v F="$(frames "$1")" -v T="$(frame_time "$1")" -v fps="$2" -v loop="${3:-}" 'BEGIN {
    s = 1 / (fps * T)
    for (q = 1; q <= 64; q++) {
      p = int(s * q + 0.5); d = p / q - s; if (d < 0) d = -d
      if (p >= 1 && d <= 1e-4 * s) { s = p / q; break }
    }
    if (loop) { n = int(F / s + 0.5); print (n < 1 ? 1 : n); exit }
    print int((F - 1) / s * (1 + 1e-12)) + 1 }'
}
has_frames() { [ "$(frames "$1")" = "$2" ]; }
# rot_deg and pos from bvhdiff.awk within the bounds; the same frame counts
# unless a fifth argument says "any"
close_to() { # a.bvh b.bvh max_deg max_pos [any]
  awk -f "$DIFF" "$1" "$2" | awk -v r="$3" -v p="$4" -v any="${5:-}" \
    '{ exit !((any || $2 == $3) && $5 + 0 <= r && $7 + 0 <= p) }'
}
no_files_in() { [ -z "$(ls -A "$1")" ]; }

# The fixtures every suite starts from, in $T: a.bvh and b.bvh (the shipped
# clip), one.bvh (its first frame), short.bvh (200 frames), renamed.bvh (one
# joint renamed), reordered.bvh (one joint's channels reordered); F = frames.
fixtures() {
  cp "$CLIP" "$T/a.bvh"
  cp "$CLIP" "$T/b.bvh"
  F=$(frames "$T/a.bvh")
  # a one-frame clip and a 200-frame clip cut from the shipped one
  awk '/^[ \t]*Frames:/ { print "Frames: 1"; next } d && n++ >= 1 { exit } { print } /^[ \t]*Frame Time/ { d = 1 }' \
    "$CLIP" >"$T/one.bvh"
  awk '/^[ \t]*Frames:/ { print "Frames: 200"; next } d && n++ >= 200 { exit } { print } /^[ \t]*Frame Time/ { d = 1 }' \
    "$CLIP" >"$T/short.bvh"
  # the same clip with one joint renamed, and with one joint's channels reordered
  sed 's/JOINT LHipJoint/JOINT LHipJointX/' "$CLIP" >"$T/renamed.bvh"
  sed '0,/CHANNELS 3 Zrotation Yrotation Xrotation/s//CHANNELS 3 Xrotation Yrotation Zrotation/' \
    "$CLIP" >"$T/reordered.bvh"
}

# Checks that need a caller whom file modes bind (root bypasses them) run the
# CLI as nobody (setpriv) when root runs the suites. nobody may not reach the
# build (a clone under /root, mode 700), so it runs a copy of the CLI and of
# the libraries it loads from the build, made in this run's temporary
# directory, on inputs in $T. as_nobody: sets PB_AS (the command that runs
# the CLI as nobody) and returns 0; or, where setpriv is missing or nobody
# cannot run that copy on $T/a.bvh, sets NOBODY_WHY and returns 1.
as_nobody() {
  PB_AS=() NOBODY_WHY=
  local id=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  if ! "${id[@]}" true 2>/dev/null; then
    NOBODY_WHY="root, and no setpriv (util-linux) to run the CLI as nobody"
    return 1
  fi
  local d="$TOP/nobody-cli" build lib
  build=$(dirname "$(dirname "$(dirname "$PB")")")
  if [ ! -x "$d/posebatch" ]; then
    mkdir -p "$d/lib" && cp "$PB" "$d/posebatch"
    # the build's own libraries (found through RUNPATH); the system's stay
    ldd "$PB" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
      while read -r lib; do
        case $lib in "$build"/*) cp "$lib" "$d/lib/" ;; esac
      done
    chmod -R a+rX "$d"
  fi
  chmod a+x "$TOP" "$T" && chmod a+r "$T/a.bvh"
  PB_AS=("${id[@]}" env LD_LIBRARY_PATH="$d/lib" "$d/posebatch")
  if ! "${PB_AS[@]}" info "$T/a.bvh" >/dev/null 2>"$T/nobody.err"; then
    NOBODY_WHY="nobody cannot run a copy of the CLI ($d) on $T/a.bvh: $(head -n 1 "$T/nobody.err")"
    PB_AS=()
    return 1
  fi
  rm -f "$T/nobody.err"
}
