/* Inverse kinematics: pb_ik_two_bone_solve and pb_ik_aim_solve. Every
 * argument is checked before anything is written; the axes are normalised
 * here (in double) into a copy of the description the kernel reads
 * (simd/kernels_ik.h). */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"

/* a finite, non-zero axis normalised in double into out; 0 if it is not */
static int unit_axis(const float a[3], float out[3])
{
    const double x = a[0], y = a[1], z = a[2];
    const double n2 = x * x + y * y + z * z;
    if (n2 == 1.0) { /* unit already (an axis such as (0, 1, 0)): as given */
        out[0] = a[0], out[1] = a[1], out[2] = a[2];
        return 1;
    }
    if (!(n2 > 0.0) || !isfinite(n2))
        return 0;
    const double inv = 1.0 / sqrt(n2);
    out[0] = (float)(x * inv), out[1] = (float)(y * inv), out[2] = (float)(z * inv);
    return 1;
}

/* whether [p, p + bytes) overlaps one of out's arrays of n floats */
static int meets_out(const void *p, size_t bytes, pb_quats out, size_t n)
{
    const chk_range r = chk_range_of(p, bytes);
    const float *o[4] = {out.w, out.x, out.y, out.z};
    for (int k = 0; k < 4; k++)
        if (chk_meets(r, chk_range_of(o[k], n * sizeof(float))))
            return 1;
    return 0;
}

/* POSEBATCH_SHAPE_DISPATCH=0: every run on the tables pb_skeleton_runs
 * gives (dispatch.c's switch, read here once) */
static int getenv_shape_ok(void)
{
    static _Atomic int v = -1; /* -1: not read yet (a race reads it twice: the same) */
    int r = atomic_load_explicit(&v, memory_order_relaxed);
    if (r < 0) {
        const char *e = getenv("POSEBATCH_SHAPE_DISPATCH");
        r = !(e && strcmp(e, "0") == 0);
        atomic_store_explicit(&v, r, memory_order_relaxed);
    }
    return r;
}

/* ------------------------------------------------------------ call shapes */
/* The runs of pb_skeleton_runs (whole blocks on the widest table that wins,
 * the rest on a 4-lane one), a run of a single pose on the scalar table:
 * a 1-lane block is a chain of dependent operations, which the scalar
 * backend's plain float code runs faster than any vector table's one lane
 * (139 ns a two-bone solve against 185-197 on Zen 5, docs/performance.md,
 * "Inverse kinematics"). Each run on its poses' arrays. */
static pb_cvec3s cv_from(pb_cvec3s v, size_t e)
{
    pb_cvec3s r = {v.x + e, v.y + e, v.z + e};
    return r;
}
static pb_cquats cq_from(pb_cquats q, size_t e)
{
    pb_cquats r = {q.w + e, q.x + e, q.y + e, q.z + e};
    return r;
}
static pb_quats q_from(pb_quats q, size_t e)
{
    pb_quats r = {q.w + e, q.x + e, q.y + e, q.z + e};
    return r;
}
static const float *f_from(const float *a, size_t e) { return a ? a + e : NULL; }
static pb_cpose model_from(const pb_cpose *m, size_t e)
{
    pb_cpose r = {cq_from(m->rot, e), cv_from(m->pos, e), {NULL, NULL, NULL}};
    return r;
}
static size_t ik_runs(size_t poses, pb_sk_run run[3])
{
    const size_t n = pb_skeleton_runs(poses, run);
    for (size_t i = 0; i < n; i++)
        if (run[i].poses == 1 && run[i].k->lanes > 1 && getenv_shape_ok())
            run[i].k = &pb_kernels_scalar;
    return n;
}

static pb_status sizes_ok(size_t poses, size_t joints)
{
    if (poses == 0 || joints == 0 || poses > PB_MAX_COUNT || joints > PB_MAX_COUNT ||
        poses * joints > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    return PB_OK;
}

/* the arrays shared by both solvers: out (P*J), reached (P bytes, may be
 * NULL), then the inputs: model rot and pos (P*J, no overlap with an
 * output), local (P*J, may be exactly out), target and pole (P), weight
 * (P, may be NULL) */
static inline void ik_list(chk *c, size_t P, size_t n, pb_quats out, uint8_t *reached,
                           const pb_cpose *model, pb_cquats local, pb_cvec3s target, pb_cvec3s pole,
                           const float *weight, const float *soften)
{
    out_q(c, out, n);
    if (reached)
        out_bytes(c, reached, P);
    in_q_strict(c, model->rot, n);
    in_v_strict(c, model->pos, n);
    /* in place (local exactly out, the usual call) needs no check, and
     * listed it would fail the glance (an input inside the outputs) */
    if (local.w != out.w || local.x != out.x || local.y != out.y || local.z != out.z)
        in_q(c, local, n);
    in_v_strict(c, target, P);
    in_v_strict(c, pole, P);
    if (weight)
        in_f(c, weight, P, 0);
    if (soften)
        in_f(c, soften, P, 0);
}
PB_CHECKED(ik,
           (size_t P, size_t n, pb_quats out, uint8_t *reached, const pb_cpose *model,
            pb_cquats local, pb_cvec3s target, pb_cvec3s pole, const float *weight,
            const float *soften),
           (P, n, out, reached, model, local, target, pole, weight, soften))

pb_status pb_ik_two_bone_solve(size_t poses, size_t joints, const pb_ik_two_bone *ik,
                               const pb_cpose *model, pb_cquats local, pb_quats out,
                               uint8_t *reached)
{
    if (!ik || !model)
        return PB_ERR_NULL;
    pb_status st = sizes_ok(poses, joints);
    if (st != PB_OK)
        return st;
    st = ik_check(poses, poses * joints, out, reached, model, local, ik->target, ik->pole,
                  ik->weight, ik->soften);
    if (st != PB_OK)
        return st;
    pb_ik_two_bone k = *ik;
    if (k.start >= joints || k.mid >= joints || k.end >= joints || k.start == k.mid ||
        k.mid == k.end || k.start == k.end || !unit_axis(ik->mid_axis, k.mid_axis))
        return PB_ERR_ARG;
    pb_sk_run run[3];
    const size_t nr = ik_runs(poses, run);
    for (size_t i = 0, p = 0; i < nr; p += run[i++].poses) {
        const size_t e = p * joints;
        pb_ik_two_bone r = k;
        r.target = cv_from(k.target, p), r.pole = cv_from(k.pole, p);
        r.weight = f_from(k.weight, p), r.soften = f_from(k.soften, p);
        const pb_cpose m = model_from(model, e);
        run[i].k->ik_two_bone(run[i].poses, joints, &r, &m, cq_from(local, e), q_from(out, e),
                              reached ? reached + p : NULL);
    }
    return PB_OK;
}

pb_status pb_ik_aim_solve(size_t poses, size_t joints, const pb_ik_aim *ik, const pb_cpose *model,
                          pb_cquats local, pb_quats out)
{
    if (!ik || !model)
        return PB_ERR_NULL;
    pb_status st = sizes_ok(poses, joints);
    if (st != PB_OK)
        return st;
    if (!ik->chain)
        return PB_ERR_NULL;
    if (ik->count == 0 || ik->count > joints)
        return PB_ERR_SIZE;
    st = ik_check(poses, poses * joints, out, NULL, model, local, ik->target, ik->pole, ik->weight,
                  NULL);
    if (st != PB_OK)
        return st;
    /* the chain and its weights are read while out is written */
    if (meets_out(ik->chain, ik->count * sizeof(size_t), out, poses * joints) ||
        (ik->joint_weight &&
         meets_out(ik->joint_weight, ik->count * sizeof(float), out, poses * joints)))
        return PB_ERR_ALIAS;
    for (size_t i = 0; i < ik->count; i++)
        if (ik->chain[i] >= joints)
            return PB_ERR_ARG;
    pb_ik_aim k = *ik;
    if (!unit_axis(ik->forward, k.forward) || !unit_axis(ik->up, k.up))
        return PB_ERR_ARG;
    /* forward and up parallel: |f x u| below 1e-6 */
    const double f[3] = {k.forward[0], k.forward[1], k.forward[2]};
    const double u[3] = {k.up[0], k.up[1], k.up[2]};
    const double cx = f[1] * u[2] - f[2] * u[1], cy = f[2] * u[0] - f[0] * u[2],
                 cz = f[0] * u[1] - f[1] * u[0];
    if (!(cx * cx + cy * cy + cz * cz > 1e-12))
        return PB_ERR_ARG;
    pb_sk_run run[3];
    const size_t nr = ik_runs(poses, run);
    for (size_t i = 0, p = 0; i < nr; p += run[i++].poses) {
        const size_t e = p * joints;
        pb_ik_aim r = k;
        r.target = cv_from(k.target, p), r.pole = cv_from(k.pole, p);
        r.weight = f_from(k.weight, p);
        const pb_cpose m = model_from(model, e);
        run[i].k->ik_aim(run[i].poses, joints, &r, &m, cq_from(local, e), q_from(out, e));
    }
    return PB_OK;
}
