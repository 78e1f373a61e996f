# shellcheck shell=bash
# The cases of the output-bytes regression suite (suite_digests.sh) and of
# the script that records their digests (make_digests.sh), sourced by both
# with HERE set to tests/cli.
#
# A case is one line: the CLI command and its arguments, inputs written
# data/FILE (this repository's data/) or shared/FILE (PB_SHARED_DATA_DIR,
# by default ../shared/data next to the repository), then '>' and the
# output's extension, e.g.
#   resample shared/mocap/x.bvh --fps 60 --euler principal > .bvh
#   convert data/cmu_01_03.bvh > .glb
# dg_run runs it with the output in a directory of the caller's.
DG_DATA="$HERE/../../data"
DG_SHARED="${PB_SHARED_DATA_DIR:-$HERE/../../../shared/data}"

# The BVH clips, as case names: data/*.bvh, then shared/mocap/*.bvh but
# those byte-identical to a data/ clip (already covered).
dg_bvh_clips() {
  local f g dup
  for f in "$DG_DATA"/*.bvh; do [ -f "$f" ] && echo "data/${f##*/}"; done
  for f in "$DG_SHARED"/mocap/*.bvh; do
    [ -f "$f" ] || continue
    dup=
    for g in "$DG_DATA"/*.bvh; do cmp -s "$f" "$g" && dup=1; done
    [ -n "$dup" ] || echo "shared/mocap/${f##*/}"
  done
}

# Every case, one a line. What each adds:
# - each BVH clip at 30, 60, 120, 240 and 480 fps in each Euler mode (the
#   default, source angles, and --euler continuous, principal): the
#   resampler, and the writer's choice of triples at the clip's own rate
#   (120 or 30 fps: the source's values again) and at rates above and
#   below it; with --loop at each rate (the seam, a travelling root);
# - convert BVH -> .glb and -> .gltf, and glTF -> BVH (the shared sample
#   models; at their keys' rate and at 60 fps), and those models resampled
#   at each rate (LINEAR; .gltf and --cubic at 60; --loop is for BVH only);
# - blend: the shipped clip with itself (weights 1,2; present everywhere),
#   and two Bandai clips of one skeleton (the default method, log_ref,
#   each other method, --ref first and accurate, each --euler mode,
#   --weights-as-given, --fps 60).
DG_RATES="30 60 120 240 480"
dg_cases() {
  local c fps e m
  for c in $(dg_bvh_clips); do
    for fps in $DG_RATES; do
      echo "resample $c --fps $fps > .bvh"
      for e in continuous principal; do echo "resample $c --fps $fps --euler $e > .bvh"; done
      echo "resample $c --fps $fps --loop > .bvh"
    done
    echo "convert $c > .glb"
    echo "convert $c > .gltf"
  done
  for c in "$DG_SHARED"/gltf/*.glb "$DG_SHARED"/gltf/*.gltf; do
    [ -f "$c" ] || continue
    c="shared/gltf/${c##*/}"
    echo "convert $c > .bvh"
    echo "convert $c --fps 60 > .bvh"
    for fps in $DG_RATES; do echo "resample $c --fps $fps > .glb"; done
    echo "resample $c --fps 60 > .gltf"
    echo "resample $c --fps 60 --cubic > .glb"
  done
  echo "blend data/cmu_01_03.bvh data/cmu_01_03.bvh --weights 1,2 > .bvh"
  local a=shared/mocap/bandai_dataset-1_dance-short_normal_001.bvh
  local b=shared/mocap/bandai_dataset-1_slash_normal_002.bvh
  if [ -f "$(dg_path "$a")" ] && [ -f "$(dg_path "$b")" ]; then
    echo "blend $a $b --weights 1,2 > .bvh"
    for m in raw_ref log raw accurate; do echo "blend $a $b --weights 1,2 --method $m > .bvh"; done
    for m in first accurate; do echo "blend $a $b --weights 1,2 --ref $m > .bvh"; done
    for e in continuous principal; do echo "blend $a $b --weights 1,2 --euler $e > .bvh"; done
    echo "blend $a $b --weights 0.5,0.25 --weights-as-given > .bvh"
    echo "blend $a $b --weights 1,2 --fps 60 > .bvh"
  fi
}

dg_path() { # data/FILE or shared/FILE: its path here
  case $1 in
    data/*) echo "$DG_DATA/${1#data/}" ;;
    shared/*) echo "$DG_SHARED/${1#shared/}" ;;
    *) echo "$1" ;;
  esac
}

# dg_run CLI CASE DIR: runs the case with CLI (stderr in DIR/err); its
# output is DIR/out.EXT (dg_out). Returns the CLI's status, or 3 with
# dg_missing set to the first input that is not there.
dg_run() {
  local cli=$1 dir=$2 w ext='' cmd i
  local -a words args=()
  read -r -a words <<<"$3"
  cmd=${words[0]}
  dg_missing=
  for ((i = 1; i < ${#words[@]}; i++)); do
    w=${words[i]}
    case $w in
      '>') ext=${words[i + 1]}; break ;;
      data/* | shared/*)
        args+=("$(dg_path "$w")")
        [ -f "${args[-1]}" ] || { [ -n "$dg_missing" ] || dg_missing=$w; } ;;
      *) args+=("$w") ;;
    esac
  done
  [ -z "$dg_missing" ] || return 3
  dg_out=$dir/out$ext
  rm -f "$dg_out"
  if [ "$cmd" = convert ]; then
    "$cli" convert "${args[@]}" "$dg_out" >/dev/null 2>"$dir/err"
  else
    "$cli" "$cmd" "${args[@]}" -o "$dg_out" >/dev/null 2>"$dir/err"
  fi
}

# The CLI of a build directory, or the CLI itself.
dg_cli() {
  if [ -d "$1" ]; then echo "$1/src/cli/posebatch"; else echo "$1"; fi
}
