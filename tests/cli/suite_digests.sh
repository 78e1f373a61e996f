# shellcheck shell=bash
# Output bytes: every case of digest_cases.sh (each BVH clip of data/ and
# ../shared/data/mocap at 30, 60, 120, 240 and 480 fps in each --euler mode
# and with --loop, convert both ways, the glTF sample models resampled,
# blend) must give the sha256 that digests.txt recorded for it, on the SIMD
# backend in use (POSEBATCH_BACKEND, else the one 'posebatch cpu' picks;
# scalar when the table has none for it). Cases whose inputs are missing
# (../shared/data, PB_SHARED_DATA_DIR) are counted as skipped.
#
# A mismatching BVH output is compared, value by value, with the output of
# a reference CLI when PB_DIGEST_REF names one (a build directory, or the
# CLI, of the commit that digests.txt names; same backend): how many values
# changed and by how much at most (bvhdiff.awk), to show that a change
# stays in the last digits. A deliberate change is re-baselined with
#   bash tests/cli/make_digests.sh BUILD_DIR
# shellcheck source=digest_cases.sh
. "$HERE/digest_cases.sh"
DG_TABLE="$HERE/digests.txt"
echo "== output bytes ($(sed -n 's/^#   //p' "$DG_TABLE" | head -n 1 | cut -c1-12)'s digests)"
dg_be=${POSEBATCH_BACKEND:-$("$PB" cpu | awk '/^backend:/ { print $2; exit }')}
if ! awk -v be="$dg_be" '/^# backends:/ { for (i = 3; i <= NF; i++) f = f || $i == be } END { exit !f }' "$DG_TABLE"; then
  echo "     (digests.txt has no digests for backend '$dg_be': the cases run on scalar)"
  dg_be=scalar
fi
dg_ref=
if [ -n "${PB_DIGEST_REF:-}" ]; then
  dg_ref=$(dg_cli "$PB_DIGEST_REF")
  [ -x "$dg_ref" ] || { echo "     (PB_DIGEST_REF: no CLI at $dg_ref; no numeric diffs)"; dg_ref=; }
fi
mkdir -p "$T/dg" "$T/dgref"
declare -A dg_skips=()
dg_t0=$(date +%s)
# the table's cases, each once, in its order
awk '/^#/ { next } { k = $0; sub(/^[^ ]+ [^ ]+ /, "", k); if (!(k in seen)) { seen[k] = 1; print k } }' \
  "$DG_TABLE" >"$T/dg/cases"
# every case digest_cases.sh makes of the inputs here is in the table (a
# case added there needs make_digests.sh)
dg_cases | sort >"$T/dg/want"
dg_new=$(sort "$T/dg/cases" | comm -23 "$T/dg/want" -)
if [ -z "$dg_new" ]; then
  ok "digests.txt has every case of digest_cases.sh ($(wc -l <"$T/dg/want") with the inputs here)"
else
  : >"$T/err"
  no "cases without a digest (run make_digests.sh): $(echo "$dg_new" | head -n 3 | tr '\n' ';')"
fi
# each case with the digest for this backend
while IFS= read -r dg_case; do
  dg_want=$(awk -v c="$dg_case" -v be="$dg_be" '
    /^#/ { next }
    { k = $0; sub(/^[^ ]+ [^ ]+ /, "", k) }
    k == c { n = split($2, b, ","); for (i = 1; i <= n; i++) if (b[i] == be || b[i] == "any") { print $1; exit } }' "$DG_TABLE")
  POSEBATCH_BACKEND=$dg_be dg_run "$PB" "$T/dg" "$dg_case"
  rc=$?
  if [ "$rc" -eq 3 ]; then
    dg_skips[$dg_missing]=$((${dg_skips[$dg_missing]:-0} + 1))
    skip_one
    continue
  fi
  if [ -z "$dg_want" ]; then
    no "$dg_case: no digest for backend $dg_be in digests.txt"
    continue
  fi
  if [ "$rc" -ne 0 ]; then
    cp "$T/dg/err" "$T/err"
    no "$dg_case: exit $rc"
    continue
  fi
  dg_mine=$dg_out # (dg_run of the reference sets dg_out again)
  dg_got=$(sha256sum <"$dg_mine" | cut -d' ' -f1)
  if [ "$dg_got" = "$dg_want" ]; then
    ok "$dg_case"
  else
    : >"$T/err"
    no "$dg_case: sha256 ${dg_got:0:16}..., digests.txt ${dg_want:0:16}..."
    case $dg_mine in
      *.bvh)
        if [ -n "$dg_ref" ] && POSEBATCH_BACKEND=$dg_be dg_run "$dg_ref" "$T/dgref" "$dg_case"; then
          awk -f "$DIFF" "$dg_mine" "$T/dgref/out.bvh" | awk '$1 != "frames" { print "     | " $0; next } {
            printf "     | against PB_DIGEST_REF: %s of %s values changed (on %s of %s frames), largest change %s;", $11, $9, $13, $3, $15
            printf " as rotations %s deg, positions %s", $5, $7
            if ($2 != $3) printf "; frames %s, reference %s", $2, $3
            print "" }'
          cmp -s <(sed '/^MOTION/q' "$dg_mine") <(sed '/^MOTION/q' "$T/dgref/out.bvh") ||
            echo "     | the HIERARCHY differs from the reference's"
        elif [ -z "$dg_ref" ]; then
          echo "     | (PB_DIGEST_REF=BUILD_DIR of the table's commit: how many values changed, by how much)"
        else
          echo "     | (the reference CLI failed on this case)"
        fi ;;
      *) echo "     | $(wc -c <"$dg_mine") bytes" ;;
    esac
  fi
  rm -f "$dg_mine" "$T/dgref"/out.*
done <"$T/dg/cases"
for dg_m in $(printf '%s\n' "${!dg_skips[@]}" | sort); do
  echo "skip ${dg_skips[$dg_m]} cases: $dg_m not found ($(dg_path "$dg_m"))"
done
echo "     (backend $dg_be, $(($(date +%s) - dg_t0)) s)"
rm -rf "$T/dg" "$T/dgref"
