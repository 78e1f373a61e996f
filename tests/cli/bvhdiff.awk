# Compares the motion of two BVH files with the same channel layout, as
# rotations rather than Euler triplets (a writer may pick another triplet for
# the same rotation, e.g. near gimbal lock or across +-180 degrees).
#   awk -f bvhdiff.awk A.bvh B.bvh
# prints "frames FA FB rot_deg R pos P values N changed C lines L max_abs M":
# the largest angle between matching joint rotations (degrees) and the
# largest position channel difference, over the frames both files have; and
# of the N values on those frames' data lines, the C that differ as numbers
# (on L lines), M the largest absolute difference of one (an angle that
# moved by 360 counts as 360 here, not in rot_deg).

function qmul(a, b, r) {
    r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3]
    r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2]
    r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1]
    r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]
}

# The rotation of joint j on a data line (fields f): the product of its
# rotation channels in the listed order (BVH: R = R1 R2 R3 on column vectors);
# channel c is field c + 1.
function joint_quat(f, j, q,    c, ax, h, t, r, k) {
    q[0] = 1; q[1] = q[2] = q[3] = 0
    for (c = first[j]; c < first[j] + nch[j]; c++) {
        ax = rot_axis[c]
        if (ax == 0) continue
        h = f[c + 1] * PI / 360
        t[0] = cos(h); t[1] = t[2] = t[3] = 0; t[ax] = sin(h)
        qmul(q, t, r)
        for (k = 0; k < 4; k++) q[k] = r[k]
    }
}

function angle_deg(a, b,    c, r, v) {
    c[0] = a[0]; c[1] = -a[1]; c[2] = -a[2]; c[3] = -a[3]
    qmul(c, b, r)
    v = sqrt(r[1] * r[1] + r[2] * r[2] + r[3] * r[3])
    return 2 * atan2(v, r[0] < 0 ? -r[0] : r[0]) * 180 / PI
}

# nj, nc start at 0 (numbers): unset, they would index joint 0 as "" and the
# loops below, which count from 0, would skip the ROOT
BEGIN { PI = atan2(0, -1); nj = 0; nc = 0 }

# layout of the first file (the second must match)
FNR == NR && toupper($1) == "CHANNELS" {
    first[nj] = nc; nch[nj] = $2
    for (i = 3; i <= NF; i++) {
        name = tolower($i)
        rot_axis[nc] = name ~ /^xrot/ ? 1 : name ~ /^yrot/ ? 2 : name ~ /^zrot/ ? 3 : 0
        nc++
    }
    nj++
}
/^[ \t]*Frames:/ { frames[FILENAME] = $2 }
/^[ \t]*Frame Time:/ { data[FILENAME] = 1; k = 0; next }
FNR == NR && data[FILENAME] && NF > 0 { line[++k] = $0; next }
FNR != NR && data[FILENAME] && NF > 0 {
    ++k
    if (!(k in line)) next
    na = split(line[k], fa); nb = split($0, fb)
    if (na != nb) { bad_width = 1; next }
    nvals += na
    changed_here = 0
    for (c = 1; c <= na; c++)
        if (fa[c] != fb[c]) {
            changed_here++
            d = fa[c] - fb[c]; if (d < 0) d = -d
            if (d > maxabs) maxabs = d
        }
    nchanged += changed_here
    if (changed_here) nlines++
    for (j = 0; j < nj; j++) {
        # the sum of the Euler angle differences bounds the rotation angle:
        # when it is tiny (same triplet) it stands for the angle, saving trig
        d = 0
        for (c = first[j]; c < first[j] + nch[j]; c++)
            if (rot_axis[c]) d += fa[c + 1] > fb[c + 1] ? fa[c + 1] - fb[c + 1] : fb[c + 1] - fa[c + 1]
        if (d > 1e-4) { joint_quat(fa, j, qa); joint_quat(fb, j, qb); d = angle_deg(qa, qb) }
        if (d > maxrot) maxrot = d
        for (c = first[j]; c < first[j] + nch[j]; c++) {
            if (rot_axis[c]) continue
            d = fa[c + 1] - fb[c + 1]; if (d < 0) d = -d
            if (d > maxpos) maxpos = d
        }
    }
}
END {
    if (bad_width) { print "data lines differ in width"; exit 1 }
    printf "frames %d %d rot_deg %.3g pos %.3g values %d changed %d lines %d max_abs %.3g\n", \
        frames[ARGV[1]], frames[ARGV[2]], maxrot, maxpos, nvals, nchanged, nlines, maxabs
}
