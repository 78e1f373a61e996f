/* Inverse kinematics: pb_ik_two_bone_solve and pb_ik_aim_solve. Every
 * argument is checked before anything is written; the axes are normalised
 * here (in double; aim's up made across forward) into a copy of the
 * description the kernel reads (simd/kernels_ik.h), or the description
 * itself where they are already. */
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
 * the rest on a 4-lane one), a run of a single pose on a scalar table
 * (ik_one_table): a 1-lane block is a chain of dependent operations, which
 * plain float code runs faster than any vector table's one lane (139 ns a
 * two-bone solve against 185-197 on Zen 5 before the one-pose work,
 * docs/performance.md, "Inverse kinematics"). Each run on its poses'
 * arrays. */
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
static const pb_kernels *ik_one_table(void);
static size_t ik_runs(size_t poses, pb_sk_run run[3])
{
    const size_t n = pb_skeleton_runs(poses, run);
    for (size_t i = 0; i < n; i++)
        if (run[i].poses == 1 && run[i].k->lanes > 1 && getenv_shape_ok())
            run[i].k = ik_one_table();
    return n;
}

#if defined(PB_HAVE_SCALAR_FMA)
extern const pb_kernels pb_kernels_scalar_fma;
#endif
/* The table of a one-pose call (shape dispatch on): the scalar kernels,
 * with fused multiply-adds and VEX encodings where the active backend is
 * AVX2 or AVX-512 (the CPU has them): 20-30 % less time than the baseline
 * x86-64 code on Zen 5 (docs/performance.md, "Inverse kinematics"); the
 * same bits in deterministic builds (no fusion there) */
static const pb_kernels *ik_one_table(void)
{
#if defined(PB_HAVE_SCALAR_FMA)
    const pb_backend b = pb_backend_active();
    if (b == PB_BACKEND_AVX2 || b == PB_BACKEND_AVX512)
        return &pb_kernels_scalar_fma;
#endif
    return &pb_kernels_scalar;
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
PB_CHECKED_EACH(ik,
                (size_t P, size_t n, pb_quats out, uint8_t *reached, const pb_cpose *model,
                 pb_cquats local, pb_cvec3s target, pb_cvec3s pole, const float *weight,
                 const float *soften),
                (P, n, out, reached, model, local, target, pole, weight, soften))

/* The check every call runs first, out of line and on pointers (the
 * batches are the entry point's own arguments: nothing copied): exact
 * where it clears (ik_each would clear too), else ik_each decides and gives
 * the status. The four rotation outputs sorted (five compare-exchanges)
 * must be apart and not NULL; an input (not NULL) outside their hull [o0,
 * o3 + B) is clear with one comparison, one inside it (in a gap between
 * them: small arrays, as one pose has, end up anywhere in the heap) is
 * compared with each, and every input with reached when it is there. The
 * generic glance (check.h) needs the outputs in order and their hull clear
 * of inputs: on Zen 5 a one-pose call of 31 joints spent 13 ns in it and,
 * where an input sat in a gap, 20 more in the array-by-array pass. x1
 * and x2 (b1, b2 bytes; NULL: none) are two more inputs (aim: the chain
 * and its weights). */
typedef struct {
    uintptr_t o0, o1, o2, o3, r; /* the outputs sorted; reached (rl bytes) */
    size_t B, rl;
} ik_outs;
#define IK_CX(a, b)                                                                                \
    do {                                                                                           \
        const uintptr_t lo_ = a < b ? a : b, hi_ = a < b ? b : a;                                  \
        a = lo_, b = hi_;                                                                          \
    } while (0)
/* [u, u + len) meets [o, o + b) iff u + len - 1 - o < len + b - 1,
 * unsigned (len, b > 0) */
static PB_IN_LINE int ik_meet(uintptr_t u, size_t len, uintptr_t o, size_t b)
{
    return u + len - 1 - o < len + b - 1;
}
/* an input inside the outputs' hull (or reached there): each */
static PB_IN_LINE int ik_in_each(const ik_outs *k, uintptr_t u, size_t len)
{
    return !(ik_meet(u, len, k->o0, k->B) | ik_meet(u, len, k->o1, k->B) |
             ik_meet(u, len, k->o2, k->B) | ik_meet(u, len, k->o3, k->B) |
             (k->rl && ik_meet(u, len, k->r, k->rl)));
}
static PB_OUT_OF_LINE int ik_clear(size_t P, size_t n, const pb_quats *out, const uint8_t *reached,
                                   const pb_cpose *model, const pb_cquats *local,
                                   const pb_cvec3s *target, const pb_cvec3s *pole,
                                   const float *weight, const float *soften, const void *x1,
                                   size_t b1, const void *x2, size_t b2)
{
    const size_t B = n * sizeof(float), Bp = P * sizeof(float);
    uintptr_t o0 = (uintptr_t)out->w, o1 = (uintptr_t)out->x, o2 = (uintptr_t)out->y,
              o3 = (uintptr_t)out->z;
    PB_IN_REG(o0);
    PB_IN_REG(o1);
    PB_IN_REG(o2);
    PB_IN_REG(o3);
    const int in_place = (uintptr_t)local->w == o0 && (uintptr_t)local->x == o1 &&
                         (uintptr_t)local->y == o2 && (uintptr_t)local->z == o3;
    IK_CX(o0, o1);
    IK_CX(o2, o3);
    IK_CX(o0, o2);
    IK_CX(o1, o3);
    IK_CX(o1, o2);
    if (o0 == 0 || o0 + B > o1 || o1 + B > o2 || o2 + B > o3)
        return 0;
    ik_outs k = {o0, o1, o2, o3, 0, B, 0};
    /* reached (when there) is one more output: the hull grows to it (every
     * input inside then compared with each) */
    uintptr_t lo = o0, hi = o3 + B;
    if (reached) {
        const uintptr_t r = (uintptr_t)reached;
        if (!ik_in_each(&k, r, P))
            return 0;
        k.r = r, k.rl = P;
        lo = r < lo ? r : lo;
        hi = r + P > hi ? r + P : hi;
    }
    const size_t hull = hi - lo;
    /* the widest gap between the rotation outputs, [g, g + gl) (a pose's
     * other arrays, allocated between, usually lie in one) */
    uintptr_t g = o0 + B;
    size_t gl = o1 - g;
    if (o2 - (o1 + B) > gl) {
        g = o1 + B;
        gl = o2 - g;
    }
    if (o3 - (o2 + B) > gl) {
        g = o2 + B;
        gl = o3 - g;
    }
    /* u (len bytes) not NULL and clear: outside the hull, or inside the
     * widest gap (and apart from reached), or apart from each output */
#define IK_IN(p, len)                                                                              \
    do {                                                                                           \
        uintptr_t u_ = (uintptr_t)(p);                                                             \
        PB_IN_REG(u_);                                                                             \
        if (u_ == 0)                                                                               \
            return 0;                                                                              \
        if (u_ + (len)-1 - lo < (len) + hull - 1 &&                                                \
            !(u_ - g <= gl - (len) && (len) <= gl && !(reached && ik_meet(u_, len, k.r, k.rl))) && \
            !ik_in_each(&k, u_, len))                                                              \
            return 0;                                                                              \
    } while (0)
    IK_IN(model->rot.w, B);
    IK_IN(model->rot.x, B);
    IK_IN(model->rot.y, B);
    IK_IN(model->rot.z, B);
    IK_IN(model->pos.x, B);
    IK_IN(model->pos.y, B);
    IK_IN(model->pos.z, B);
    IK_IN(target->x, Bp);
    IK_IN(target->y, Bp);
    IK_IN(target->z, Bp);
    IK_IN(pole->x, Bp);
    IK_IN(pole->y, Bp);
    IK_IN(pole->z, Bp);
    if (!in_place) {
        IK_IN(local->w, B);
        IK_IN(local->x, B);
        IK_IN(local->y, B);
        IK_IN(local->z, B);
    }
    if (weight)
        IK_IN(weight, Bp);
    if (soften)
        IK_IN(soften, Bp);
    if (x1)
        IK_IN(x1, b1);
    if (x2)
        IK_IN(x2, b2);
#undef IK_IN
    return 1;
}

pb_status pb_ik_two_bone_solve(size_t poses, size_t joints, const pb_ik_two_bone *ik,
                               const pb_cpose *model, pb_cquats local, pb_quats out,
                               uint8_t *reached)
{
    if (!ik || !model)
        return PB_ERR_NULL;
    pb_status st = sizes_ok(poses, joints);
    if (st != PB_OK)
        return st;
    if (!ik_clear(poses, poses * joints, &out, reached, model, &local, &ik->target, &ik->pole,
                  ik->weight, ik->soften, NULL, 0, NULL, 0)) {
        st = ik_each(poses, poses * joints, out, reached, model, local, ik->target, ik->pole,
                     ik->weight, ik->soften);
        if (st != PB_OK)
            return st;
    }
    if (ik->start >= joints || ik->mid >= joints || ik->end >= joints || ik->start == ik->mid ||
        ik->mid == ik->end || ik->start == ik->end)
        return PB_ERR_ARG;
    /* the axis as given when it is unit already (the usual call: no copy) */
    pb_ik_two_bone k;
    const pb_ik_two_bone *use = ik;
    float axis[3];
    if (!unit_axis(ik->mid_axis, axis))
        return PB_ERR_ARG;
    if (memcmp(axis, ik->mid_axis, sizeof axis) != 0) {
        k = *ik;
        memcpy(k.mid_axis, axis, sizeof axis);
        use = &k;
    }
    if (poses == 1 && getenv_shape_ok()) { /* one pose: a scalar table (ik_runs) */
        ik_one_table()->ik_two_bone(1, joints, use, model, &local, &out, reached);
        return PB_OK;
    }
    pb_sk_run run[3];
    const size_t nr = ik_runs(poses, run);
    if (nr == 1) { /* one run: the arrays as given */
        run[0].k->ik_two_bone(poses, joints, use, model, &local, &out, reached);
        return PB_OK;
    }
    for (size_t i = 0, p = 0; i < nr; p += run[i++].poses) {
        const size_t e = p * joints;
        pb_ik_two_bone r = *use;
        r.target = cv_from(use->target, p), r.pole = cv_from(use->pole, p);
        r.weight = f_from(use->weight, p), r.soften = f_from(use->soften, p);
        const pb_cpose m = model_from(model, e);
        const pb_cquats l = cq_from(local, e);
        const pb_quats o = q_from(out, e);
        run[i].k->ik_two_bone(run[i].poses, joints, &r, &m, &l, &o, reached ? reached + p : NULL);
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
    /* the chain and its weights are read while out is written: inputs too */
    if (!ik_clear(poses, poses * joints, &out, NULL, model, &local, &ik->target, &ik->pole,
                  ik->weight, NULL, ik->chain, ik->count * sizeof(size_t), ik->joint_weight,
                  ik->count * sizeof(float))) {
        st = ik_each(poses, poses * joints, out, NULL, model, local, ik->target, ik->pole,
                     ik->weight, NULL);
        if (st != PB_OK)
            return st;
        if (meets_out(ik->chain, ik->count * sizeof(size_t), out, poses * joints) ||
            (ik->joint_weight &&
             meets_out(ik->joint_weight, ik->count * sizeof(float), out, poses * joints)))
            return PB_ERR_ALIAS;
    }
    for (size_t i = 0; i < ik->count; i++)
        if (ik->chain[i] >= joints)
            return PB_ERR_ARG;
    float fw[3], up[3];
    if (!unit_axis(ik->forward, fw) || !unit_axis(ik->up, up))
        return PB_ERR_ARG;
    /* forward and up parallel: |f x u| below 1e-6 */
    const double f[3] = {fw[0], fw[1], fw[2]};
    double u[3] = {up[0], up[1], up[2]};
    const double cx = f[1] * u[2] - f[2] * u[1], cy = f[2] * u[0] - f[0] * u[2],
                 cz = f[0] * u[1] - f[1] * u[0];
    if (!(cx * cx + cy * cy + cz * cz > 1e-12))
        return PB_ERR_ARG;
    /* the kernel takes up across forward (its part along forward removed,
     * normalised: the frame it maps, kernels_ik.h), here in double; an up
     * axis across forward already (the usual call) as given */
    const double uf = f[0] * u[0] + f[1] * u[1] + f[2] * u[2];
    if (uf != 0.0) {
        for (int i = 0; i < 3; i++)
            u[i] -= uf * f[i];
        const double inv = 1.0 / sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int i = 0; i < 3; i++)
            up[i] = (float)(u[i] * inv);
    }
    /* the axes as given when they are unit already (the usual call) */
    pb_ik_aim k;
    const pb_ik_aim *use = ik;
    if (memcmp(fw, ik->forward, sizeof fw) != 0 || memcmp(up, ik->up, sizeof up) != 0) {
        k = *ik;
        memcpy(k.forward, fw, sizeof fw);
        memcpy(k.up, up, sizeof up);
        use = &k;
    }
    if (poses == 1 && getenv_shape_ok()) { /* one pose: a scalar table (ik_runs) */
        ik_one_table()->ik_aim(1, joints, use, model, &local, &out);
        return PB_OK;
    }
    pb_sk_run run[3];
    const size_t nr = ik_runs(poses, run);
    if (nr == 1) { /* one run: the arrays as given */
        run[0].k->ik_aim(poses, joints, use, model, &local, &out);
        return PB_OK;
    }
    for (size_t i = 0, p = 0; i < nr; p += run[i++].poses) {
        const size_t e = p * joints;
        pb_ik_aim r = *use;
        r.target = cv_from(use->target, p), r.pole = cv_from(use->pole, p);
        r.weight = f_from(use->weight, p);
        const pb_cpose m = model_from(model, e);
        const pb_cquats l = cq_from(local, e);
        const pb_quats o = q_from(out, e);
        run[i].k->ik_aim(run[i].poses, joints, &r, &m, &l, &o);
    }
    return PB_OK;
}
