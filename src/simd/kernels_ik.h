/* Inverse kinematics (posebatch/ik.h): two-bone IK and aim IK, written once
 * over the lane layer. Included by kernels.h after the lane layer;
 * arguments arrive checked, the axes normalised (ik.c).
 *
 * Lanes are poses: a block is PB_LANES consecutive poses (the last one
 * partial), the joints' model values read with strided lane loads (stride
 * J, as kernels_skeleton.h's), the per-pose targets and weights with
 * plain ones. A single pose is a block of one lane (its values broadcast:
 * plain loads); ik.c runs it on a scalar table (with fused multiply-adds
 * where the CPU has them), whose plain float code runs this chain of
 * dependent operations faster than one vector lane.
 *
 * No acos, no sincos: the angles are handled as (cos, sin) pairs (the
 * wanted one by the law of cosines, the current one from the bones' dot
 * and cross products), their difference by the product formulas, and a
 * half-angle quaternion from a pair by ik_half_r, as (r + c, s) or (|s|,
 * (r - c) sign s) normalised, neither subtracting nearly equal numbers.
 * One operation order for every backend (bit-identical in deterministic
 * builds). */
#ifndef PB_KERNELS_IK_H
#define PB_KERNELS_IK_H

#include <stdint.h>

#include "internal.h"
#include "lanes_math.h"
#include "kernels_skeleton.h"

/* A batch's pointers read one by one (each into a register): the caller
 * has usually just stored them one by one, and a 16-byte load of two,
 * which a copy of the struct otherwise becomes, waits until those stores
 * retire. */
#if defined(__GNUC__)
#define IK_REG(x) __asm__("" : "+r"(x))
#else
#define IK_REG(x) ((void)0)
#endif
PB_INLINE pb_cquats ik_cq(const pb_cquats *q)
{
    const float *w = q->w, *x = q->x, *y = q->y, *z = q->z;
    IK_REG(w);
    IK_REG(x);
    IK_REG(y);
    IK_REG(z);
    pb_cquats r = {w, x, y, z};
    return r;
}
PB_INLINE pb_quats ik_q(const pb_quats *q)
{
    float *w = q->w, *x = q->x, *y = q->y, *z = q->z;
    IK_REG(w);
    IK_REG(x);
    IK_REG(y);
    IK_REG(z);
    pb_quats r = {w, x, y, z};
    return r;
}

/* below this a squared length (or product of two) counts as zero */
#define PB_IK_TINY 1e-30f

/* a per-pose array (cnt poses from p), or `absent` where it is absent; a
 * single pose broadcast to every lane (a plain load: no masked one) */
PB_INLINE vf ik_ld1(const float *a, size_t p, size_t cnt, float absent)
{
    if (!a)
        return vf_set(absent);
    if (PB_LANES == 1 || cnt == PB_LANES)
        return vf_load(a + p);
    if (cnt == 1)
        return vf_set(a[p]);
    return vf_load_part(a + p, cnt);
}
/* joint values (stride J): strided lane loads; a single pose broadcast */
PB_INLINE vf ik_ldj(const float *p, size_t J, size_t cnt)
{
    if (PB_LANES > 1 && cnt == 1)
        return vf_set(*p);
    return sk_ld(p, J, cnt);
}
PB_INLINE void ik_stj(float *p, size_t J, vf v, size_t cnt)
{
    if (PB_LANES > 1 && cnt == 1) {
        float f[PB_LANES];
        vf_store(f, v);
        *p = f[0];
        return;
    }
    sk_st(p, J, v, cnt);
}
PB_INLINE v3 ik_ld3(pb_cvec3s v, size_t p, size_t cnt)
{
    v3 r = {ik_ld1(v.x, p, cnt, 0.0f), ik_ld1(v.y, p, cnt, 0.0f), ik_ld1(v.z, p, cnt, 0.0f)};
    return r;
}
PB_INLINE vq ik_ldq_j(pb_cquats q, size_t e, size_t J, size_t cnt)
{
    vq r = {ik_ldj(q.w + e, J, cnt), ik_ldj(q.x + e, J, cnt), ik_ldj(q.y + e, J, cnt),
            ik_ldj(q.z + e, J, cnt)};
    return r;
}
PB_INLINE v3 ik_ld3_j(pb_cvec3s v, size_t e, size_t J, size_t cnt)
{
    v3 r = {ik_ldj(v.x + e, J, cnt), ik_ldj(v.y + e, J, cnt), ik_ldj(v.z + e, J, cnt)};
    return r;
}
PB_INLINE void ik_stq_j(pb_quats q, size_t e, size_t J, size_t cnt, vq v)
{
    ik_stj(q.w + e, J, v.w, cnt);
    ik_stj(q.x + e, J, v.x, cnt);
    ik_stj(q.y + e, J, v.y, cnt);
    ik_stj(q.z + e, J, v.z, cnt);
}
PB_INLINE v3 ik_splat3(const float a[3])
{
    v3 r = {vf_set(a[0]), vf_set(a[1]), vf_set(a[2])};
    return r;
}
PB_INLINE vq ik_axis_q(vf c, vf s, v3 axis)
{
    vq r = {c, vf_mul(s, axis.x), vf_mul(s, axis.y), vf_mul(s, axis.z)};
    return r;
}

/* The half-angle pair (cos t/2, sin t/2), cos t/2 >= 0, of the angle t in
 * (-pi, pi] with (cos t, sin t) = (c, s) / r, r = |(c, s)| (r: 1 when the
 * pair is unit up to rounding): (r + c, s) normalised, or for c < 0 the
 * same direction as (|s|, (r - c) sign(s)) (tan t/2 = s / (r + c) = (r -
 * c) / s), so that neither form subtracts nearly equal numbers; a zero
 * pair gives (1, 0). */
PB_INLINE void ik_half_r(vf c, vf s, vf r, vf *hc, vf *hs)
{
    const vm neg = vm_lt(c, vf_zero());
    const vf x = vf_sel(neg, vf_abs(s), vf_add(r, c));
    const vf y = vf_sel(neg, vf_xorsign(vf_sub(r, c), s), s);
    const vf n2 = vf_fma(x, x, vf_mul(y, y));
    const vm z = vm_eq(n2, vf_zero());
    const vf inv = vf_div(vf_set(1.0f), vf_sqrt(vf_sel(z, vf_set(1.0f), n2)));
    *hc = vf_sel(z, vf_set(1.0f), vf_mul(x, inv));
    *hs = vf_mul(y, inv);
}
PB_INLINE void ik_half(vf c, vf s, vf *hc, vf *hs) { ik_half_r(c, s, vf_set(1.0f), hc, hs); }

/* The shortest rotation taking a onto b (ozz's FromVectors): (|a||b| + a.b,
 * a x b) normalised; a half turn about an axis perpendicular to a where
 * they are opposite (real part below 1e-6 |a||b|); the identity where a
 * or b is zero. */
PB_INLINE vq ik_from_vectors(v3 a, v3 b)
{
    const vf n2 = vf_mul(v3_dot(a, a), v3_dot(b, b));
    const vf n = vf_sqrt(n2);
    const vf re = vf_add(n, v3_dot(a, b));
    const v3 c = v3_cross(a, b);
    const vm opp = vm_lt(re, vf_mul(vf_set(1e-6f), n));
    const vm xz = vm_gt(vf_abs(a.x), vf_abs(a.z));
    const vf zero = vf_zero();
    /* |a.x| > |a.z|: (-a.y, a.x, 0), else (0, -a.z, a.y) */
    vq q = {vf_sel(opp, zero, re), vf_sel(opp, vf_sel(xz, vf_neg(a.y), zero), c.x),
            vf_sel(opp, vf_sel(xz, a.x, vf_neg(a.z)), c.y),
            vf_sel(opp, vf_sel(xz, zero, a.y), c.z)};
    const vf q2 = q_dot(q, q);
    const vm ok = vm_and(vm_gt(n2, vf_set(PB_IK_TINY)), vm_gt(q2, vf_zero()));
    q = q_scale(q, vf_div(vf_set(1.0f), vf_sqrt(vf_sel(ok, q2, vf_set(1.0f)))));
    return q_sel(ok, q, q_identity());
}

/* The rotation about the unit k taking the direction of a onto that of
 * the unit bn, both perpendicular to k: (cos, sin) = (a.bn, (a x bn).k),
 * halved (their norm r: a's length in the plane normal to k); the
 * identity where ok is false or a is zero. */
PB_INLINE vq ik_about(v3 a, v3 bn, v3 k, vm ok)
{
    const vf c = v3_dot(a, bn), s = v3_dot(v3_cross(a, bn), k);
    const vf r = vf_sqrt(vf_fma(c, c, vf_mul(s, s)));
    ok = vm_and(ok, vm_gt(r, vf_zero()));
    vf hc, hs;
    ik_half_r(c, s, r, &hc, &hs);
    return q_sel(ok, ik_axis_q(hc, hs, k), q_identity());
}
/* v / |v| (zero where ok is false) */
PB_INLINE v3 ik_unit(v3 v, vf n2, vm ok)
{
    const vf inv = vf_div(vf_set(1.0f), vf_sqrt(vf_sel(ok, n2, vf_set(1.0f))));
    return v3_scale(v, vf_sel(ok, inv, vf_zero()));
}

/* a correction weighted: into the w >= 0 hemisphere, then where w < 1
 * nlerp(identity, c, max(w, 0)) */
/* c negated where the sign bit of c.w is set: the w >= 0 hemisphere
 * (q_xorsign's bits: on one lane a branch, not four moves to and from the
 * integer unit) */
PB_INLINE vq ik_hemi(vq c)
{
    const vq nc = {vf_neg(c.w), vf_neg(c.x), vf_neg(c.y), vf_neg(c.z)};
    return q_sel(vm_i32_ge0(c.w), c, nc);
}
PB_INLINE vq ik_weigh(vq c, vf w)
{
    c = ik_hemi(c);
    const vm part = vm_lt(w, vf_set(1.0f));
    if (!vm_any(part))
        return c;
    const vf wl = vf_max(w, vf_zero());
    const vf om = vf_sub(vf_set(1.0f), wl);
    vq l = {vf_fma(c.w, wl, om), vf_mul(c.x, wl), vf_mul(c.y, wl), vf_mul(c.z, wl)};
    const vf inv = vf_div(vf_set(1.0f), vf_sqrt(q_dot(l, l)));
    return q_sel(part, q_scale(l, inv), c);
}

/* The model-space rotation M as a correction of a joint of model rotation
 * R: R^-1 M R */
PB_INLINE vq ik_to_local(vq R, vq M) { return q_mul(q_inv_mul(R, M), R); }

/* ------------------------------------------------------------ two-bone */

PB_INLINE void ik2_block(size_t J, const pb_ik_two_bone *ik, const pb_cpose *model, pb_cquats local,
                         pb_quats out, uint8_t *reached, size_t p, size_t cnt)
{
    const vf one = vf_set(1.0f), zero = vf_zero();
    const size_t b = p * J;
    const vq Rs = ik_ldq_j(model->rot, b + ik->start, J, cnt);
    const vq Rm = ik_ldq_j(model->rot, b + ik->mid, J, cnt);
    const v3 ps = ik_ld3_j(model->pos, b + ik->start, J, cnt);
    const v3 pm = ik_ld3_j(model->pos, b + ik->mid, J, cnt);
    const v3 pe = ik_ld3_j(model->pos, b + ik->end, J, cnt);
    const v3 target = ik_ld3(ik->target, p, cnt), pole = ik_ld3(ik->pole, p, cnt);
    const vf w = ik_ld1(ik->weight, p, cnt, 1.0f);
    const vf soften = ik_ld1(ik->soften, p, cnt, 1.0f);

    const v3 u = v3_sub(pm, ps), v = v3_sub(pe, pm);
    v3 t = v3_sub(target, ps);
    const vf a2 = v3_dot(u, u), b2 = v3_dot(v, v);
    vf l2 = v3_dot(t, t);
    const vf a = vf_sqrt(a2), bl = vf_sqrt(b2), l = vf_sqrt(l2);

    /* soften: the target pulled in past d_a */
    const vf chain = vf_add(a, bl);
    const vf da = vf_mul(chain, vf_min(vf_max(soften, zero), one));
    const vf ds = vf_sub(chain, da);
    const vm beyond = vm_gt(l, da);
    const vm soft = vm_and(beyond, vm_gt(ds, zero));
    if (vm_any(soft)) {
        const vf three = vf_set(3.0f);
        const vf x = vf_div(vf_sub(l, da), vf_sel(soft, ds, one));
        const vf r = vf_div(three, vf_add(x, three));
        const vf r2 = vf_mul(r, r);
        const vf ls = vf_fnma(ds, vf_mul(r2, r2), vf_add(da, ds));
        const vf k = vf_div(ls, vf_sel(soft, l, one));
        t = v3_sel(soft, v3_scale(t, k), t);
        l2 = vf_sel(soft, vf_mul(ls, ls), l2);
    }
    if (reached) {
        const vm ok =
            vm_and(vm_and(vm_not(beyond), vm_ge(l, vf_abs(vf_sub(a, bl)))), vm_ge(w, one));
        float f[PB_LANES];
        vf_store(f, vf_sel(ok, one, zero));
        for (size_t i = 0; i < cnt; i++)
            reached[p + i] = f[i] != 0.0f;
    }

    /* middle joint: cos of the interior angle wanted (from the target
     * distance) and now (from the end's), the current one's sine signed
     * by the bend's side about the model-space axis; the turn is their
     * difference */
    const v3 axis_l = ik_splat3(ik->mid_axis);
    const v3 axis = sk_rotate(Rm, axis_l);
    const vf ab = vf_mul(vf_add(a, a), bl);
    const vm bones = vm_gt(vf_mul(a2, b2), vf_set(PB_IK_TINY));
    const vf inv = vf_div(one, vf_sel(bones, ab, one));
    const vf sum = vf_add(a2, b2);
    const vf m1 = vf_set(-1.0f);
    const vf cc = vf_min(vf_max(vf_mul(vf_sub(sum, l2), inv), m1), one);
    const vf sc = vf_sqrt(vf_mul(vf_sub(one, cc), vf_add(one, cc)));
    /* the current angle from the bones themselves, not from |d|: cos =
     * -u.v / (ab), sin = |u x v| / (ab) (the law of cosines' sine loses
     * half the digits near straight and folded limbs) */
    const vf inv_ab = vf_add(inv, inv);
    const v3 uxv = v3_cross(u, v);
    const vf ci = vf_min(vf_max(vf_neg(vf_mul(v3_dot(u, v), inv_ab)), m1), one);
    vf si = vf_mul(vf_sqrt(v3_dot(uxv, uxv)), inv_ab);
    si = vf_sel(vm_gt(v3_dot(uxv, axis), zero), vf_neg(si), si);
    /* cos and sin of (wanted - current) */
    const vf cd = vf_sel(bones, vf_fma(cc, ci, vf_mul(sc, si)), one);
    const vf sd = vf_sel(bones, vf_fnma(cc, si, vf_mul(sc, ci)), zero);
    vf hc, hs;
    ik_half(cd, sd, &hc, &hs);
    const vq cm = ik_axis_q(hc, hs, axis_l); /* in the middle joint's frame */
    const vq mm = ik_axis_q(hc, hs, axis);   /* the same in model space */

    /* start joint: the limb pointed at the target, then turned about that
     * direction to put the bend axis along t x pole */
    const v3 d2 = v3_add(u, sk_rotate(mm, v));
    const vq q1 = ik_from_vectors(d2, t);
    const v3 n_ref = v3_cross(t, pole);
    const v3 n_joint = sk_rotate(q1, axis);
    const vm has_t = vm_gt(l2, vf_set(PB_IK_TINY));
    const v3 k = v3_scale(t, vf_div(one, vf_sqrt(vf_sel(has_t, l2, one))));
    /* the pole along the target direction: |t x pole| tiny against |t||pole| */
    const vf pn2 = vf_mul(l2, v3_dot(pole, pole)), nr2 = v3_dot(n_ref, n_ref);
    const vm plane = vm_and(has_t, vm_gt(nr2, vf_mul(vf_set(1e-12f), pn2)));
    const vq qp = ik_about(n_joint, ik_unit(n_ref, nr2, plane), k, plane);
    const vq cs = ik_to_local(Rs, q_mul(qp, q1));

    const vq ws = ik_weigh(cs, w), wm = ik_weigh(cm, w);
    const vm off = vm_le(w, zero);
    const vq id = q_identity();
    const vq ls = ik_ldq_j(local, b + ik->start, J, cnt);
    const vq lm = ik_ldq_j(local, b + ik->mid, J, cnt);
    const vq os = q_mul(ls, q_sel(off, id, ws));
    const vq om = q_mul(lm, q_sel(off, id, wm));
    ik_stq_j(out, b + ik->start, J, cnt, os);
    ik_stq_j(out, b + ik->mid, J, cnt, om);
}

static void k_ik_two_bone(size_t poses, size_t joints, const pb_ik_two_bone *ik,
                          const pb_cpose *model, const pb_cquats *lp, const pb_quats *op,
                          uint8_t *reached)
{
    const pb_cquats local = ik_cq(lp);
    const pb_quats out = ik_q(op);
    size_t p = 0;
    for (; p + PB_LANES <= poses; p += PB_LANES)
        ik2_block(joints, ik, model, local, out, reached, p, PB_LANES);
    if (p < poses)
        ik2_block(joints, ik, model, local, out, reached, p, poses - p);
}

/* ------------------------------------------------------------ aim */

/* The joint's frame A (constants of a call, in the joint's own frame): the
 * forward axis f, the up axis across it u (ik.c gives it so: unit, its
 * part along f removed), and f x u */
typedef struct {
    v3 f, u, fu;
} ik_frame;
PB_INLINE ik_frame ik_aim_frame(const pb_ik_aim *ik)
{
    ik_frame a;
    a.f = ik_splat3(ik->forward);
    a.u = ik_splat3(ik->up);
    a.fu = v3_cross(a.f, a.u);
    return a;
}

/* ik_from_vectors out of line: the rare case (no plane) kept out of the
 * solve's registers */
static __attribute__((noinline)) vq ik_from_vectors_apart(v3 a, v3 b)
{
    return ik_from_vectors(a, b);
}

/* The correction of one joint, in its frame (Rc: the inverse of its model
 * rotation), of tm and pole the target (from the joint) and the pole in
 * model space, t and pl in the joint's frame. With the plane (t and pl not along each
 * other): the rotation taking the frame A = (f, u, f x u) onto B = (t/|t|,
 * the pole's part across t normalised, their cross product), M = B A^T:
 * it takes f onto t and turns the up axis into the plane of t and the
 * pole on the pole's side, which is the shortest rotation from f to t
 * followed by the turn about t (ik.h), as one frame-to-frame rotation:
 * two reciprocal square roots in parallel and one for the quaternion of M
 * (Shepperd's: the candidate of the largest of 1 + tr, 1 + m00 - m11 -
 * m22, ..., each 4 q_k q, scaled by 1 / (2 sqrt(4 q_k^2))), where the
 * composition took six on one chain. Without the plane: the shortest
 * rotation alone; t zero: the identity. Returned unscaled, times *scale
 * (the caller applies it last, off the chain of the local rotation's
 * product). */
PB_INLINE vq ik_aim_solve1(const ik_frame *A, vq Rc, v3 tm, v3 pole, vf *scale)
{
    const vf one = vf_set(1.0f), half = vf_set(0.5f);
    /* n = t x pl (|n| = |t| |pl across t|); the lengths from the model
     * space values (a rotation keeps them), so that the reciprocal square
     * roots start before the rotations into the joint's frame end */
    const v3 nm = v3_cross(tm, pole);
    const vf l2 = v3_dot(tm, tm);
    const vm has_t = vm_gt(l2, vf_set(PB_IK_TINY));
    const vf pn2 = vf_mul(l2, v3_dot(pole, pole)), nr2 = v3_dot(nm, nm);
    const v3 t = sk_rotate(Rc, tm), n = sk_rotate(Rc, nm);
    const vm plane = vm_and(has_t, vm_gt(nr2, vf_mul(vf_set(1e-12f), pn2)));
    const vf it = vf_div(one, vf_sqrt(vf_sel(has_t, l2, one)));
    const vf in = vf_div(one, vf_sqrt(vf_sel(plane, nr2, one)));
    const v3 b1 = v3_scale(t, it), b3 = v3_scale(n, in);
    const v3 b2 = v3_cross(b3, b1);
    /* M_ij = b1_i f_j + b2_i u_j + b3_i (f x u)_j */
#define IK_M(i, j) vf_fma(b3.i, A->fu.j, vf_fma(b2.i, A->u.j, vf_mul(b1.i, A->f.j)))
    const vf m00 = IK_M(x, x), m01 = IK_M(x, y), m02 = IK_M(x, z);
    const vf m10 = IK_M(y, x), m11 = IK_M(y, y), m12 = IK_M(y, z);
    const vf m20 = IK_M(z, x), m21 = IK_M(z, y), m22 = IK_M(z, z);
#undef IK_M
    const vf dw = vf_add(vf_add(one, m00), vf_add(m11, m22));
    const vf dx = vf_sub(vf_add(one, m00), vf_add(m11, m22));
    const vf dy = vf_add(vf_sub(one, m00), vf_sub(m11, m22));
    const vf dz = vf_sub(vf_sub(one, m00), vf_sub(m11, m22));
    const vf s10 = vf_add(m01, m10), s20 = vf_add(m02, m20), s21 = vf_add(m12, m21);
    const vf a21 = vf_sub(m21, m12), a02 = vf_sub(m02, m20), a10 = vf_sub(m10, m01);
    /* the larger of w and x, of y and z, then of the two */
    const vm xw = vm_gt(dx, dw), zy = vm_gt(dz, dy);
    const vf d1 = vf_sel(xw, dx, dw), d2 = vf_sel(zy, dz, dy);
    const vq c1 = {vf_sel(xw, a21, dw), vf_sel(xw, dx, a21), vf_sel(xw, s10, a02),
                   vf_sel(xw, s20, a10)};
    const vq c2 = {vf_sel(zy, a10, a02), vf_sel(zy, s20, s10), vf_sel(zy, s21, dy),
                   vf_sel(zy, dz, s21)};
    const vm second = vm_gt(d2, d1);
    const vf d = vf_sel(second, d2, d1);
    vq q = q_sel(second, c2, c1);
    vf sc = vf_div(half, vf_sqrt(vf_sel(plane, d, one)));
    if (vm_any(vm_andnot(has_t, plane))) {
        q = q_sel(plane, q, ik_from_vectors_apart(A->f, t));
        sc = vf_sel(plane, sc, one);
    }
    *scale = vf_sel(has_t, sc, one);
    return q_sel(has_t, q, q_identity());
}

/* The chain of one block: D, o, the rigid motion the corrections so far
 * give the joints below (x -> D x + o, model space) */
PB_INLINE void aim_block(size_t J, const pb_ik_aim *ik, size_t count, const ik_frame *A,
                         const pb_cpose *model, pb_cquats local, pb_quats out, size_t p, size_t cnt)
{
    const vf zero = vf_zero();
    const size_t b = p * J;
    const v3 target = ik_ld3(ik->target, p, cnt), pole = ik_ld3(ik->pole, p, cnt);
    const vf w = ik_ld1(ik->weight, p, cnt, 1.0f);
    vq D = q_identity();
    v3 o = v3_splat(0.0f);
    for (size_t i = 0; i < count; i++) {
        const size_t e = b + ik->chain[i];
        vq R = ik_ldq_j(model->rot, e, J, cnt);
        v3 pos = ik_ld3_j(model->pos, e, J, cnt);
        if (i > 0) {
            R = q_mul(D, R);
            pos = v3_add(sk_rotate(D, pos), o);
        }
        /* in the joint's frame (forward and up are constants there, and the
         * correction comes out as it is applied) */
        const vq Rc = q_conj(R);
        vf sc;
        vq C = ik_aim_solve1(A, Rc, v3_sub(target, pos), pole, &sc);
        C = ik_hemi(C); /* (sc > 0), as ik_weigh */
        vf wi = w;
        if (ik->joint_weight)
            wi = vf_mul(w, vf_set(ik->joint_weight[i]));
        const vq l = ik_ldq_j(local, e, J, cnt);
        /* full weight: (l C) sc, the scale last; a partial weight (w < 1):
         * l nlerp(identity, C sc, max(w, 0)) */
        vq c = q_scale(C, sc), lc = q_scale(q_mul(l, C), sc);
        const vm part = vm_lt(wi, vf_set(1.0f));
        if (vm_any(part)) {
            const vq cw = q_sel(vm_le(wi, zero), q_identity(), ik_weigh(c, wi));
            lc = q_sel(part, q_mul(l, cw), lc);
            c = q_sel(part, cw, c);
        }
        ik_stq_j(out, e, J, cnt, lc);
        if (i + 1 < count) {
            /* the joints below turn with the weighted correction, about pos */
            const vq M = q_mul(q_mul(R, c), q_conj(R));
            D = q_mul(M, D);
            o = v3_add(sk_rotate(M, v3_sub(o, pos)), pos);
        }
    }
}

/* whole blocks, then the rest; count a constant where the caller knows it */
PB_INLINE void aim_blocks(size_t poses, size_t joints, const pb_ik_aim *ik, size_t count,
                          const ik_frame *A, const pb_cpose *model, pb_cquats local, pb_quats out)
{
    size_t p = 0;
    for (; p + PB_LANES <= poses; p += PB_LANES)
        aim_block(joints, ik, count, A, model, local, out, p, PB_LANES);
    if (p < poses)
        aim_block(joints, ik, count, A, model, local, out, p, poses - p);
}

static void k_ik_aim(size_t poses, size_t joints, const pb_ik_aim *ik, const pb_cpose *model,
                     const pb_cquats *lp, const pb_quats *op)
{
    const pb_cquats local = ik_cq(lp);
    const pb_quats out = ik_q(op);
    const ik_frame A = ik_aim_frame(ik);
    if (ik->count == 1) /* one joint: the chain's motion compiled out */
        aim_blocks(poses, joints, ik, 1, &A, model, local, out);
    else
        aim_blocks(poses, joints, ik, ik->count, &A, model, local, out);
}

#define PB_IK_KERNELS .ik_two_bone = k_ik_two_bone, .ik_aim = k_ik_aim,

#endif
