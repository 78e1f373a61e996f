/* Retargeting (pb_bvh_retarget, pb_bvh_retarget_match, the map parser):
 * the same skeleton reproduces the clip bit for bit; CMU onto the pymo and
 * Bandai skeletons and back keeps every matched joint's global rotation
 * (but the torso and neck chains', whose bend is distributed:
 * test_retarget_feet.c);
 * feet keep their height curve; an A-pose target keeps the world arm
 * directions of a T-pose source; names by family; errors. Forward
 * kinematics here is a plain double-precision reference, not the
 * library's. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_text.h"
#include "clipdata.h"
#include "posebatch/io.h"
#include "ref.h"

#define PI 3.14159265358979323846

static void qv(rq q, const double v[3], double o[3])
{
    rq p = {0, v[0], v[1], v[2]}, c = {q.w, -q.x, -q.y, -q.z};
    rq r = rq_mul(rq_mul(q, p), c);
    o[0] = r.x, o[1] = r.y, o[2] = r.z;
}
/* angle between rotations, radians */
static double qangle(rq a, rq b)
{
    double na = sqrt(a.w * a.w + a.x * a.x + a.y * a.y + a.z * a.z);
    double nb = sqrt(b.w * b.w + b.x * b.x + b.y * b.y + b.z * b.z);
    double d = fabs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z) / (na * nb);
    return 2.0 * acos(d > 1.0 ? 1.0 : d);
}

/* global rotations and positions of frame f, double (caller frees) */
static void fk(const pb_bvh *b, size_t f, rq *g, double (*p)[3])
{
    size_t J = b->num_joints;
    for (size_t j = 0; j < J; j++) {
        size_t i = f * J + j;
        rq r = {b->rot_w[i], b->rot_x[i], b->rot_y[i], b->rot_z[i]};
        double t[3] = {b->pos_x[i], b->pos_y[i], b->pos_z[i]};
        int32_t a = b->joints[j].parent;
        if (a < 0) {
            g[j] = r;
            memcpy(p[j], t, sizeof t);
        } else {
            double o[3];
            g[j] = rq_mul(g[a], r);
            qv(g[a], t, o);
            for (int c = 0; c < 3; c++)
                p[j][c] = p[a][c] + o[c];
        }
    }
}

static void read_or_die(const char *path, pb_bvh *b)
{
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(path, b, &err), PB_IO_OK, "%s: %s", path, err.message);
}

static void retarget_or_die(const pb_bvh *s, const pb_bvh *t, pb_bvh *out)
{
    pb_io_error err;
    cr_assert_eq(pb_bvh_retarget(s, t, NULL, out, &err), PB_IO_OK, "%s", err.message);
}

/* pb_bvh_retarget_match of s onto t: per joint of t, the joint of s (the
 * caller frees it) */
static long *match_or_die(const pb_bvh *s, const pb_bvh *t)
{
    long *match = malloc(t->num_joints * sizeof(long));
    pb_io_error err;
    cr_assert(match);
    cr_assert_eq(pb_bvh_retarget_match(s, t, NULL, match, &err), PB_IO_OK, "%s", err.message);
    return match;
}

/* the shared clip `other` into tgt (the test is skipped where it is
 * missing) and the repository's cmu_01_03 into cmu */
/* a name of the torso and neck families (spine, chest, neck: their joints'
 * rotations are the chains' distributed bend, not their match's) */
static int bends(const char *name)
{
    return strstr(name, "Spine") || strstr(name, "Chest") || strstr(name, "Neck");
}

static void read_cmu_and_shared(const char *other, pb_bvh *cmu, pb_bvh *tgt)
{
    const char *p = clip_path(other);
    if (!p)
        cr_skip_test("shared clip missing");
    read_or_die(p, tgt);
    read_or_die(repo_clip_path("cmu_01_03.bvh"), cmu);
}

/* ------------------------------------------------------------ identity */

Test(retarget, same_skeleton_is_bitwise_identity)
{
    pb_bvh src, out;
    read_or_die(repo_clip_path("cmu_01_03.bvh"), &src);
    retarget_or_die(&src, &src, &out);
    cr_assert_eq(out.num_frames, src.num_frames);
    cr_assert_eq(out.frame_time, src.frame_time);
    size_t n = src.num_frames * src.num_joints;
    const float *a[7] = {src.rot_w, src.rot_x, src.rot_y, src.rot_z,
                         src.pos_x, src.pos_y, src.pos_z};
    const float *b[7] = {out.rot_w, out.rot_x, out.rot_y, out.rot_z,
                         out.pos_x, out.pos_y, out.pos_z};
    for (int k = 0; k < 7; k++)
        cr_assert(memcmp(a[k], b[k], n * sizeof(float)) == 0, "track %d differs", k);
    /* and the written text is the source's text */
    size_t la, lb;
    char *ta = bvh_text(&src, &la), *tb = bvh_text(&out, &lb);
    cr_assert(la == lb && memcmp(ta, tb, la) == 0, "written texts differ");
    free(ta);
    free(tb);
    pb_bvh_free(&out);
    pb_bvh_free(&src);
}

/* ------------------------------------------------------------ round trips */

/* the largest angle (degrees) between the source's global rotation and the
 * round trip's, over frames and over the source joints matched to a target
 * joint which is matched back to them (torso and neck joints left out) */
static double round_trip_error(const pb_bvh *src, const pb_bvh *tgt, size_t *compared)
{
    long *fwd = match_or_die(src, tgt), *back = match_or_die(tgt, src);
    pb_bvh mid, rt;
    retarget_or_die(src, tgt, &mid);
    retarget_or_die(&mid, src, &rt);
    size_t J = src->num_joints;
    rq *g1 = malloc(J * sizeof *g1), *g2 = malloc(J * sizeof *g2);
    double(*p1)[3] = malloc(J * sizeof *p1), (*p2)[3] = malloc(J * sizeof *p2);
    double worst = 0.0;
    *compared = 0;
    unsigned char *both = calloc(J, 1);
    for (size_t j = 0; j < J; j++)
        if (back[j] >= 0 && fwd[back[j]] == (long)j && !bends(src->joints[j].name))
            both[j] = 1, ++*compared;
    for (size_t f = 0; f < src->num_frames; f++) {
        fk(src, f, g1, p1);
        fk(&rt, f, g2, p2);
        for (size_t j = 0; j < J; j++) {
            if (!both[j])
                continue;
            double a = qangle(g1[j], g2[j]) * 180.0 / PI;
            if (a > worst)
                worst = a;
        }
    }
    free(g1), free(g2), free(p1), free(p2), free(fwd), free(back), free(both);
    pb_bvh_free(&mid);
    pb_bvh_free(&rt);
    return worst;
}

static void round_trip(const char *other)
{
    pb_bvh cmu, tgt;
    read_cmu_and_shared(other, &cmu, &tgt);
    size_t compared;
    double worst = round_trip_error(&cmu, &tgt, &compared);
    fprintf(stderr,
            "retarget round trip cmu_01_03 -> %s -> cmu: %zu joints compared, largest "
            "global rotation error %.3g degrees\n",
            other, compared, worst);
    cr_expect_geq(compared, 14, "only %zu joints matched both ways", compared);
    cr_expect_lt(worst, 0.01, "round trip error %g degrees", worst);
    pb_bvh_free(&cmu);
    pb_bvh_free(&tgt);
}

Test(retarget, round_trip_pymo) { round_trip("pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh"); }
Test(retarget, round_trip_bandai) { round_trip("bandai_dataset-1_slash_normal_002.bvh"); }

/* ------------------------------------------------------------ feet */

static double correlation(const double *a, const double *b, size_t n)
{
    double ma = 0, mb = 0;
    for (size_t i = 0; i < n; i++)
        ma += a[i], mb += b[i];
    ma /= (double)n, mb /= (double)n;
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; i++) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / sqrt(saa * sbb);
}

static void feet(const char *other, const char *lfoot, const char *rfoot)
{
    pb_bvh cmu, tgt, out;
    read_cmu_and_shared(other, &cmu, &tgt);
    retarget_or_die(&cmu, &tgt, &out);
    const char *names[2][2] = {{"LeftFoot", lfoot}, {"RightFoot", rfoot}};
    size_t F = cmu.num_frames;
    double *ys = malloc(F * sizeof *ys), *yt = malloc(F * sizeof *yt);
    rq *gs = malloc(cmu.num_joints * sizeof *gs), *gt = malloc(out.num_joints * sizeof *gt);
    double(*ps)[3] = malloc(cmu.num_joints * sizeof *ps);
    double(*pt)[3] = malloc(out.num_joints * sizeof *pt);
    for (int side = 0; side < 2; side++) {
        long js = pb_bvh_find_joint(&cmu, names[side][0]);
        long jt = pb_bvh_find_joint(&out, names[side][1]);
        cr_assert(js >= 0 && jt >= 0);
        for (size_t f = 0; f < F; f++) {
            fk(&cmu, f, gs, ps);
            fk(&out, f, gt, pt);
            ys[f] = ps[js][1];
            yt[f] = pt[jt][1];
        }
        double r = correlation(ys, yt, F);
        fprintf(stderr, "retarget cmu_01_03 -> %s: %s height correlation %.4f\n", other,
                names[side][1], r);
        cr_expect_gt(r, 0.95, "%s: correlation %g", names[side][1], r);
    }
    free(ys), free(yt), free(gs), free(gt), free(ps), free(pt);
    pb_bvh_free(&out);
    pb_bvh_free(&cmu);
    pb_bvh_free(&tgt);
}

Test(retarget, foot_height_pymo)
{
    feet("pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh", "LeftFoot", "RightFoot");
}
Test(retarget, foot_height_bandai)
{
    feet("bandai_dataset-1_slash_normal_002.bvh", "Foot_L", "Foot_R");
}

/* ------------------------------------------------------------ A-pose vs T-pose */

static int is_under(const pb_bvh *b, long j, long anc)
{
    for (; j >= 0; j = b->joints[j].parent)
        if (j == anc)
            return 1;
    return 0;
}

static void rotate_z(float v[3], double deg)
{
    double a = deg * PI / 180.0, c = cos(a), s = sin(a);
    double x = v[0], y = v[1];
    v[0] = (float)(c * x - s * y);
    v[1] = (float)(s * x + c * y);
}

/* the arms below each shoulder joint ("LeftArm", "RightArm") turned down
 * 45 degrees: every offset below them rotated about z (and the positions of
 * those joints, which have no position channels, with them) */
static void make_apose(pb_bvh *b)
{
    const char *arm[2] = {"LeftArm", "RightArm"};
    const double deg[2] = {-45.0, 45.0};
    for (int s = 0; s < 2; s++) {
        long a = pb_bvh_find_joint(b, arm[s]);
        cr_assert(a >= 0);
        for (size_t j = 0; j < b->num_joints; j++)
            if ((long)j != a && is_under(b, (long)j, a)) {
                rotate_z(b->joints[j].offset, deg[s]);
                for (size_t f = 0; f < b->num_frames; f++) { /* no position channels here */
                    size_t i = f * b->num_joints + j;
                    b->pos_x[i] = b->joints[j].offset[0];
                    b->pos_y[i] = b->joints[j].offset[1];
                    b->pos_z[i] = b->joints[j].offset[2];
                }
            }
        for (size_t e = 0; e < b->num_end_sites; e++)
            if (is_under(b, b->end_sites[e].parent, a))
                rotate_z(b->end_sites[e].offset, deg[s]);
    }
}

/* largest angle (degrees) between the world directions of the arm bones */
static double arm_direction_error(const pb_bvh *a, const pb_bvh *b)
{
    const char *bones[4][2] = {{"LeftArm", "LeftForeArm"},
                               {"LeftForeArm", "LeftHand"},
                               {"RightArm", "RightForeArm"},
                               {"RightForeArm", "RightHand"}};
    rq *ga = malloc(a->num_joints * sizeof *ga), *gb = malloc(b->num_joints * sizeof *gb);
    double(*pa)[3] = malloc(a->num_joints * sizeof *pa);
    double(*pb)[3] = malloc(b->num_joints * sizeof *pb);
    double worst = 0;
    for (size_t f = 0; f < a->num_frames; f++) {
        fk(a, f, ga, pa);
        fk(b, f, gb, pb);
        for (int k = 0; k < 4; k++) {
            long a0 = pb_bvh_find_joint(a, bones[k][0]), a1 = pb_bvh_find_joint(a, bones[k][1]);
            long b0 = pb_bvh_find_joint(b, bones[k][0]), b1 = pb_bvh_find_joint(b, bones[k][1]);
            double u[3], v[3];
            for (int c = 0; c < 3; c++) {
                u[c] = pa[a1][c] - pa[a0][c];
                v[c] = pb[b1][c] - pb[b0][c];
            }
            double d = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) /
                       sqrt((u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) *
                            (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
            double ang = acos(d > 1 ? 1 : d < -1 ? -1 : d) * 180.0 / PI;
            if (ang > worst)
                worst = ang;
        }
    }
    free(ga), free(gb), free(pa), free(pb);
    return worst;
}

Test(retarget, apose_target_keeps_world_arm_directions)
{
    pb_bvh t, a, onto_a, back;
    read_or_die(repo_clip_path("cmu_01_03.bvh"), &t);
    read_or_die(repo_clip_path("cmu_01_03.bvh"), &a);
    make_apose(&a);
    retarget_or_die(&t, &a, &onto_a);
    /* the A-pose skeleton played with the T-pose clip's raw rotations would
     * hold its arms 45 degrees off; retargeted, the directions agree */
    double raw = arm_direction_error(&t, &a), err = arm_direction_error(&t, &onto_a);
    fprintf(stderr,
            "retarget T-pose -> A-pose: arm directions off by %.3g degrees (raw "
            "rotations: %.3g)\n",
            err, raw);
    cr_expect_gt(raw, 40.0);
    cr_expect_lt(err, 1e-3, "arm directions off by %g degrees", err);
    /* and back onto the T-pose skeleton */
    retarget_or_die(&onto_a, &t, &back);
    err = arm_direction_error(&t, &back);
    cr_expect_lt(err, 1e-3, "back: arm directions off by %g degrees", err);
    pb_bvh_free(&t);
    pb_bvh_free(&a);
    pb_bvh_free(&onto_a);
    pb_bvh_free(&back);
}

/* ------------------------------------------------------------ world directions */

static double dir_angle(const double u[3], const double v[3])
{
    double d =
        (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) /
        sqrt((u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    return acos(d > 1 ? 1 : d < -1 ? -1 : d) * 180.0 / PI;
}

/* the source joints strictly between s (an ancestor) and u have identity
 * local rotations in frame f */
static int path_at_rest(const pb_bvh *b, size_t f, long u, long s)
{
    for (long a = b->joints[u].parent; a != s; a = b->joints[a].parent) {
        size_t i = f * b->num_joints + (size_t)a;
        if (fabs(b->rot_w[i]) < 1.0f - 1e-7f)
            return 0;
    }
    return 1;
}

static int side_of(const char *name)
{
    return strstr(name, "Left") || strstr(name, "_L")    ? 'L'
           : strstr(name, "Right") || strstr(name, "_R") ? 'R'
                                                         : 0;
}

/* rest positions (OFFSETs summed) */
static double (*rest_positions(const pb_bvh *b))[3]
{
    double(*r)[3] = malloc(b->num_joints * sizeof *r);
    for (size_t j = 0; j < b->num_joints; j++) {
        int32_t a = b->joints[j].parent;
        for (int c = 0; c < 3; c++)
            r[j][c] = (a >= 0 ? r[a][c] : 0.0) + b->joints[j].offset[c];
    }
    return r;
}

static double dist3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

/* The chains of t below joint `from` (t itself at first): the matched
 * joints whose nearest matched ancestor is `from`, with their match below
 * t's; one at zero rest distance from t (in either skeleton) is replaced by
 * its own. Appends to chains[n..], returns the new count. */
static int collect_chains(const pb_bvh *src, const pb_bvh *out, const long *match, double (*rs)[3],
                          double (*rt)[3], long t, long from, long *chains, int n)
{
    for (size_t u = (size_t)from + 1; u < out->num_joints && n < 64; u++) {
        if (match[u] < 0 || !is_under(out, (long)u, from))
            continue;
        long a = out->joints[u].parent;
        while (a != from && match[a] < 0)
            a = out->joints[a].parent;
        if (a != from || !is_under(src, match[u], match[t]) || match[u] == match[t])
            continue;
        if (dist3(rt[u], rt[t]) < 1e-9 || dist3(rs[match[u]], rs[match[t]]) < 1e-9)
            n = collect_chains(src, out, match, rs, rt, t, (long)u, chains, n);
        else
            chains[n++] = (long)u;
    }
    return n;
}

/* The contract's rest alignment, checked in world space at every frame:
 * for each matched target joint t outside the torso and neck chains, its chains (nearest matched descendants
 * u whose match lies below t's match; those whose source paths bend at
 * unmatched joints in that frame are skipped): with one chain, the world direction
 * t -> u is the source's; with several, the primary's (the first side-less
 * chain, else the first) and the left-minus-right chains' component across
 * it. Returns the largest angle (degrees); *checked: directions compared. */
static double world_directions(const pb_bvh *src, const pb_bvh *out, const long *match,
                               size_t frames, size_t *checked)
{
    size_t Js = src->num_joints, Jt = out->num_joints;
    rq *gs = malloc(Js * sizeof *gs), *gt = malloc(Jt * sizeof *gt);
    double(*ps)[3] = malloc(Js * sizeof *ps), (*pt)[3] = malloc(Jt * sizeof *pt);
    double(*rs)[3] = rest_positions(src), (*rt)[3] = rest_positions(out);
    double worst = 0;
    *checked = 0;
    for (size_t f = 0; f < frames; f++) {
        fk(src, f, gs, ps);
        fk(out, f, gt, pt);
        for (size_t t = 0; t < Jt; t++) {
            if (match[t] < 0 || bends(out->joints[t].name))
                continue;
            long chains[64];
            int n = collect_chains(src, out, match, rs, rt, (long)t, (long)t, chains, 0);
            /* G_t = G_s A carries the source joint's rotation: a bend at
             * unmatched source joints between the pair is not carried, so
             * only joints whose source paths are at rest in this frame */
            int at_rest = 1;
            for (int i = 0; i < n; i++)
                at_rest &= path_at_rest(src, f, match[chains[i]], match[t]);
            if (!at_rest)
                continue;
            if (n == 0)
                continue;
            long primary = chains[0], left = -1, right = -1;
            for (int i = n - 1; i >= 0; i--)
                if (!side_of(out->joints[chains[i]].name))
                    primary = chains[i];
            for (int i = n - 1; i >= 0; i--) {
                int sd = side_of(out->joints[chains[i]].name);
                if (chains[i] != primary && sd == 'L')
                    left = chains[i];
                if (chains[i] != primary && sd == 'R')
                    right = chains[i];
            }
            double dt[3], ds[3];
            for (int c = 0; c < 3; c++) {
                dt[c] = pt[primary][c] - pt[t][c];
                ds[c] = ps[match[primary]][c] - ps[match[t]][c];
            }
            double a = dir_angle(dt, ds);
            worst = a > worst ? a : worst;
            ++*checked;
            if (n >= 2 && left >= 0 && right >= 0) {
                double lt[3], ls[3], kt = 0, ks = 0, nt = 0, ns = 0;
                for (int c = 0; c < 3; c++) {
                    lt[c] = pt[left][c] - pt[right][c];
                    ls[c] = ps[match[left]][c] - ps[match[right]][c];
                    kt += lt[c] * dt[c], ks += ls[c] * ds[c];
                    nt += dt[c] * dt[c], ns += ds[c] * ds[c];
                }
                for (int c = 0; c < 3; c++) {
                    lt[c] -= kt / nt * dt[c];
                    ls[c] -= ks / ns * ds[c];
                }
                a = dir_angle(lt, ls);
                worst = a > worst ? a : worst;
                ++*checked;
            }
        }
    }
    free(gs), free(gt), free(ps), free(pt), free(rs), free(rt);
    return worst;
}

/* cmu retargeted onto tgt gives out: at least 12 world bone directions per
 * frame of the 600, each within 1e-3 degrees of cmu's (what: tgt in the
 * printed summary) */
static void expect_world_directions(const pb_bvh *cmu, const pb_bvh *tgt, const pb_bvh *out,
                                    const char *what)
{
    long *match = match_or_die(cmu, tgt);
    size_t checked;
    double worst = world_directions(cmu, out, match, 600, &checked);
    fprintf(stderr,
            "retarget cmu_01_03 -> %s: %zu world bone directions per frame over 600 "
            "frames, largest difference %.3g degrees\n",
            what, checked / 600, worst);
    cr_expect_geq(checked / 600, 12);
    cr_expect_lt(worst, 1e-3, "world directions off by %g degrees", worst);
    free(match);
}

static void directions(const char *other)
{
    pb_bvh cmu, tgt, out;
    read_cmu_and_shared(other, &cmu, &tgt);
    retarget_or_die(&cmu, &tgt, &out);
    expect_world_directions(&cmu, &tgt, &out, other);
    pb_bvh_free(&out);
    pb_bvh_free(&cmu);
    pb_bvh_free(&tgt);
}

/* the CMU skeleton turned a quarter turn about y (every OFFSET): the frames
 * at the branch points (hips, chest) turn the clip with it */
Test(retarget, world_directions_turned_skeleton)
{
    pb_bvh cmu, turned, out;
    read_or_die(repo_clip_path("cmu_01_03.bvh"), &cmu);
    read_or_die(repo_clip_path("cmu_01_03.bvh"), &turned);
    for (size_t j = 0; j < turned.num_joints; j++) {
        float *o = turned.joints[j].offset, x = o[0];
        o[0] = o[2], o[2] = -x;
    }
    for (size_t e = 0; e < turned.num_end_sites; e++) {
        float *o = turned.end_sites[e].offset, x = o[0];
        o[0] = o[2], o[2] = -x;
    }
    retarget_or_die(&cmu, &turned, &out);
    expect_world_directions(&cmu, &turned, &out, "its skeleton turned 90 degrees");
    /* the hips (whose chains start with bones of zero length: LHipJoint,
     * RHipJoint, LowerBack) turn by the quarter turn: G_t = G_s R^-1 */
    const rq rinv = {cos(PI / 4), 0, -sin(PI / 4), 0};
    for (size_t f = 0; f < 600; f++) {
        size_t i = f * cmu.num_joints;
        rq gs = {cmu.rot_w[i], cmu.rot_x[i], cmu.rot_y[i], cmu.rot_z[i]};
        rq gt = {out.rot_w[i], out.rot_x[i], out.rot_y[i], out.rot_z[i]};
        double a = qangle(gt, rq_mul(gs, rinv)) * 180.0 / PI;
        cr_assert_lt(a, 1e-3, "frame %zu: the hips off by %g degrees", f, a);
    }
    pb_bvh_free(&out);
    pb_bvh_free(&cmu);
    pb_bvh_free(&turned);
}

Test(retarget, world_directions_pymo) { directions("pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh"); }
Test(retarget, world_directions_bandai) { directions("bandai_dataset-1_slash_normal_002.bvh"); }

/* ------------------------------------------------------------ names */

static const char skel_text[] =
    "HIERARCHY\nROOT %s\n{\nOFFSET 0 0 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation "
    "Xrotation Yrotation\n"
    "JOINT %s\n{\nOFFSET 1 -1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
    "JOINT %s\n{\nOFFSET 0 -4 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
    "JOINT %s\n{\nOFFSET 0 -4 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
    "End Site\n{\nOFFSET 0 0 1\n}\n}\n}\n}\n"
    "JOINT %s\n{\nOFFSET 0 2 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
    "End Site\n{\nOFFSET 0 1 0\n}\n}\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n"
    "0 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

static void make_skel(pb_bvh *b, const char *n0, const char *n1, const char *n2, const char *n3,
                      const char *n4)
{
    char text[2048];
    int len = snprintf(text, sizeof text, skel_text, n0, n1, n2, n3, n4);
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_memory(text, (size_t)len, b, &err), PB_IO_OK, "%s", err.message);
}

Test(retarget, names_match_by_family)
{
    pb_bvh cmu, b;
    read_or_die(repo_clip_path("cmu_01_03.bvh"), &cmu);
    const char *sets[][5] = {
        {"mixamorig:Hips", "mixamorig:LeftUpLeg", "mixamorig:LeftLeg", "mixamorig:LeftFoot",
         "mixamorig:Spine"},
        {"Bip01 Pelvis", "Bip01 L Thigh", "Bip01 L Calf", "Bip01 L Foot", "Bip01 Spine"},
        {"Character1_Hips", "Character1_LeftUpLeg", "Character1_LeftLeg", "Character1_LeftFoot",
         "Character1_Spine"},
        {"root", "l_hip", "l_knee", "l_ankle", "spine"},
        {"pelvis", "LHip", "LeftKnee", "LeftAnkle", "SPINE"},
        {"Hips", "UpperLeg_L", "LowerLeg_L", "Foot_L", "Spine"},
        {"hips", "thigh.L", "shin.L", "foot.L", "spine"},
    };
    const char *want[5] = {"Hips", "LeftUpLeg", "LeftLeg", "LeftFoot", "Spine"};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        make_skel(&b, sets[k][0], sets[k][1], sets[k][2], sets[k][3], sets[k][4]);
        long match[5];
        pb_io_error err;
        cr_assert_eq(pb_bvh_retarget_match(&cmu, &b, NULL, match, &err), PB_IO_OK, "set %zu: %s", k,
                     err.message);
        for (int j = 0; j < 5; j++)
            cr_expect(match[j] >= 0 && strcmp(cmu.joints[match[j]].name, want[j]) == 0,
                      "set %zu: '%s' matched to '%s', want '%s'", k, sets[k][j],
                      match[j] >= 0 ? cmu.joints[match[j]].name : "(none)", want[j]);
        pb_bvh_free(&b);
    }
    pb_bvh_free(&cmu);
}

/* 3ds Max's CMU skeleton: LeftCollar / LeftShoulder / LeftElbow / LeftWrist,
 * LeftHip / LeftKnee / LeftAnkle / LeftToe */
Test(retarget, names_3dsmax_arm_chain)
{
    pb_bvh cmu, max;
    read_cmu_and_shared("cmu3dsmax_131_01.bvh", &cmu, &max);
    long *match = match_or_die(&cmu, &max);
    const char *pairs[][2] = {{"LeftCollar", "LeftShoulder"}, {"LeftShoulder", "LeftArm"},
                              {"LeftElbow", "LeftForeArm"},   {"LeftWrist", "LeftHand"},
                              {"RightShoulder", "RightArm"},  {"LeftHip", "LeftUpLeg"},
                              {"LeftKnee", "LeftLeg"},        {"LeftAnkle", "LeftFoot"},
                              {"LeftToe", "LeftToeBase"},     {"Hips", "Hips"}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        long t = pb_bvh_find_joint(&max, pairs[k][0]);
        cr_assert(t >= 0);
        cr_expect(match[t] >= 0 && strcmp(cmu.joints[match[t]].name, pairs[k][1]) == 0,
                  "%s matched to %s, want %s", pairs[k][0],
                  match[t] >= 0 ? cmu.joints[match[t]].name : "(none)", pairs[k][1]);
    }
    free(match);
    pb_bvh_free(&cmu);
    pb_bvh_free(&max);
}

/* ------------------------------------------------------------ errors */

static void expect_map_error(const char *text, pb_io_code code, const char *needle)
{
    pb_retarget_map m;
    pb_io_error err;
    cr_assert_eq(pb_retarget_map_parse(text, strlen(text), &m, &err), code, "'%s': %s", text,
                 err.message);
    cr_expect(strstr(err.message, needle), "'%s': message '%s' lacks '%s'", text, err.message,
              needle);
    cr_expect_eq(m.count, 0);
}

Test(retarget, map_file_errors)
{
    expect_map_error("Hips = Hips\nSpine Chest\n", PB_IO_ERR_SYNTAX, "line 2: expected");
    expect_map_error("a = b = c\n", PB_IO_ERR_SYNTAX, "line 1: more than one '='");
    expect_map_error("# c\n\n = b\n", PB_IO_ERR_SYNTAX, "line 3: an empty source");
    expect_map_error("a =   # nothing\n", PB_IO_ERR_SYNTAX, "line 1: an empty target");
    expect_map_error("a = b\nc = d\na = e\n", PB_IO_ERR_VALUE,
                     "line 3: source joint 'a' is already mapped on line 1");
    expect_map_error("a = b\nc = b\n", PB_IO_ERR_VALUE,
                     "line 2: target joint 'b' is already mapped on line 1");
    expect_map_error("a\x01 = b\n", PB_IO_ERR_SYNTAX, "control character");

    pb_retarget_map m;
    pb_io_error err;
    const char ok[] = "# comment\r\n  Bip01 L Thigh =\tLeftUpLeg  # a comment\r\n\nHips=Hips";
    cr_assert_eq(pb_retarget_map_parse(ok, strlen(ok), &m, &err), PB_IO_OK, "%s", err.message);
    cr_assert_eq(m.count, 2);
    cr_expect_str_eq(m.source[0], "Bip01 L Thigh");
    cr_expect_str_eq(m.target[0], "LeftUpLeg");
    cr_expect_eq(m.line[0], 2);
    cr_expect_str_eq(m.source[1], "Hips");
    cr_expect_eq(m.line[1], 4);
    pb_retarget_map_free(&m);
    cr_expect_eq(m.count, 0);

    cr_expect_eq(pb_retarget_map_read_file("/nonexistent/map.txt", &m, &err), PB_IO_ERR_IO);
    cr_expect(strstr(err.message, "/nonexistent/map.txt"), "%s", err.message);
}

Test(retarget, map_naming_unknown_joints)
{
    pb_bvh cmu, out;
    read_or_die(repo_clip_path("cmu_01_03.bvh"), &cmu);
    const char *cases[][2] = {
        {"Hips = Hips\nNoSuch = Spine\n",
         "map line 2: source joint 'NoSuch' is not in the source skeleton"},
        {"Hips = Nope\n", "map line 1: target joint 'Nope' is not in the target skeleton"}};
    for (int k = 0; k < 2; k++) {
        pb_retarget_map m;
        pb_io_error err;
        cr_assert_eq(pb_retarget_map_parse(cases[k][0], strlen(cases[k][0]), &m, &err), PB_IO_OK);
        pb_retarget_opts o = {&m, 0};
        memset(&out, 0x5a, sizeof out);
        cr_expect_eq(pb_bvh_retarget(&cmu, &cmu, &o, &out, &err), PB_IO_ERR_ARG);
        cr_expect(strstr(err.message, cases[k][1]), "message '%s'", err.message);
        cr_expect_eq(out.num_joints, (size_t)0x5a5a5a5a5a5a5a5aull, "out touched");
        pb_retarget_map_free(&m);
    }
    /* arrays given directly: a pair repeating a joint */
    const char *src[2] = {"Hips", "Spine"}, *tgt[2] = {"Hips", "Hips"};
    pb_retarget_map m = {2, src, tgt, NULL, NULL};
    pb_retarget_opts o = {&m, 0};
    pb_io_error err;
    cr_expect_eq(pb_bvh_retarget(&cmu, &cmu, &o, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "map pair 2: target joint 'Hips' is mapped twice"), "%s",
              err.message);
    /* a map alone, pairs crossing over: Spine played on Hips */
    const char *s2[4] = {"Spine", "LeftUpLeg", "LeftLeg", "LeftFoot"};
    const char *t2[4] = {"Hips", "LeftUpLeg", "LeftLeg", "LeftFoot"};
    pb_retarget_map m2 = {4, s2, t2, NULL, NULL};
    pb_retarget_opts o2 = {&m2, PB_RETARGET_MAP_ONLY};
    cr_expect_eq(pb_bvh_retarget(&cmu, &cmu, &o2, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "no root match"), "%s", err.message);
    pb_bvh_free(&cmu);
}

Test(retarget, too_few_matches_and_no_root_match)
{
    pb_bvh cmu, b, out;
    read_or_die(repo_clip_path("cmu_01_03.bvh"), &cmu);
    pb_io_error err;
    /* only Hips and Spine have known names */
    make_skel(&b, "Hips", "a1", "a2", "a3", "Spine");
    cr_expect_eq(pb_bvh_retarget(&cmu, &b, NULL, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "too few matches: 2 joints matched, at least 4"), "%s",
              err.message);
    pb_bvh_free(&b);
    /* the hips unknown: the legs and the spine hang under no matched joint */
    make_skel(&b, "Base", "LeftUpLeg", "LeftLeg", "LeftFoot", "Spine");
    cr_expect_eq(pb_bvh_retarget(&cmu, &b, NULL, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "no root match"), "%s", err.message);
    pb_bvh_free(&b);
    /* nothing at all */
    make_skel(&b, "a0", "a1", "a2", "a3", "a4");
    cr_expect_eq(pb_bvh_retarget(&cmu, &b, NULL, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "no joint of the target matches"), "%s", err.message);
    pb_bvh_free(&b);
    /* a name used twice in the target, matched */
    make_skel(&b, "Hips", "LeftUpLeg", "LeftLeg", "LeftLeg", "Spine");
    cr_expect_eq(pb_bvh_retarget(&cmu, &b, NULL, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "two joints named 'LeftLeg'"), "%s", err.message);
    pb_bvh_free(&b);
    /* NULLs, no frames, bad flags */
    cr_expect_eq(pb_bvh_retarget(NULL, &cmu, NULL, &out, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_retarget(&cmu, NULL, NULL, &out, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_retarget(&cmu, &cmu, NULL, NULL, &err), PB_IO_ERR_ARG);
    pb_bvh other = cmu;
    cr_expect_eq(pb_bvh_retarget(&cmu, &other, NULL, &cmu, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_retarget(&other, &cmu, NULL, &cmu, &err), PB_IO_ERR_ARG);
    cr_expect_eq(other.num_joints, cmu.num_joints);
    pb_retarget_opts bad = {NULL, 1u << 7};
    cr_expect_eq(pb_bvh_retarget(&cmu, &cmu, &bad, &out, &err), PB_IO_ERR_ARG);
    pb_bvh empty = cmu;
    empty.num_frames = 0;
    cr_expect_eq(pb_bvh_retarget(&empty, &cmu, NULL, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "no frames"), "%s", err.message);
    pb_bvh_free(&cmu);
}

/* a small target without legs or feet (an arm hanging from the hips): the
 * root travel scaled by the hip heights, the root height too (no feet to
 * place it by) */
Test(retarget, root_translation_scaled_by_hip_height_without_legs)
{
    pb_bvh cmu, b, out;
    read_or_die(repo_clip_path("cmu_01_03.bvh"), &cmu);
    make_skel(&b, "Hips", "LeftShoulder", "LeftArm", "LeftForeArm", "Spine");
    retarget_or_die(&cmu, &b, &out);
    /* target hip height 9 (Hips at 0, LeftForeArm at -9); CMU's from its
     * rest pose: Hips minus the lowest joint */
    double low = 0;
    for (size_t j = 0; j < cmu.num_joints; j++) {
        double y = 0;
        for (long a = (long)j; a >= 0; a = cmu.joints[a].parent)
            y += cmu.joints[a].offset[1];
        low = y < low ? y : low;
    }
    double k = 9.0 / (0.0 - low);
    for (size_t f = 0; f < cmu.num_frames; f += 7) {
        size_t i = f * cmu.num_joints, o = f * out.num_joints;
        cr_expect_float_eq(out.pos_x[o], k * cmu.pos_x[i], 1e-4);
        cr_expect_float_eq(out.pos_y[o], k * cmu.pos_y[i], 1e-4);
        cr_expect_float_eq(out.pos_z[o], k * cmu.pos_z[i], 1e-4);
    }
    pb_bvh_free(&b);
    pb_bvh_free(&out);
    pb_bvh_free(&cmu);
}
