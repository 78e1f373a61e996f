/* Skeletons: pb_pose_local_to_model and pb_pose_model_to_local (forward
 * kinematics and its inverse over P poses of one parent table). Every
 * argument is checked before anything is written. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "internal.h"

/* ------------------------------------------------------------ checking */

typedef struct { uintptr_t lo, hi; } range;

static range range_of(const void *p, size_t bytes)
{
    range s = {(uintptr_t)p, (uintptr_t)p + bytes};
    return s;
}
static int meets(range a, range b) { return a.lo < b.hi && b.lo < a.hi; }

/* the pose's arrays in track order w x y z, px py pz, sx sy sz (NULL: absent) */
static void pose_ptrs(const pb_cpose *p, const float *a[10])
{
    const float *v[10] = {p->rot.w, p->rot.x, p->rot.y, p->rot.z, p->pos.x,
                          p->pos.y, p->pos.z, p->scale.x, p->scale.y, p->scale.z};
    memcpy(a, v, sizeof v);
}
static pb_cpose as_const(const pb_pose *p)
{
    pb_cpose c = {{p->rot.w, p->rot.x, p->rot.y, p->rot.z},
                  {p->pos.x, p->pos.y, p->pos.z},
                  {p->scale.x, p->scale.y, p->scale.z}};
    return c;
}
static int some_null(const float *const *a, int k)
{
    for (int i = 0; i < k; i++)
        if (!a[i])
            return 1;
    return 0;
}
static int all_null(const float *const *a, int k)
{
    for (int i = 0; i < k; i++)
        if (a[i])
            return 0;
    return 1;
}

/* The shared checks of both directions: in is the pose read, out the one
 * written; pos_needed: out has positions, so in must have them. */
static pb_status check(size_t poses, size_t joints, const int32_t *parents, const pb_cpose *in,
                       const pb_pose *out)
{
    if (!parents || !in || !out)
        return PB_ERR_NULL;
    if (poses == 0 || joints == 0 || poses > PB_MAX_COUNT || joints > PB_MAX_COUNT ||
        poses * joints > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    const size_t n = poses * joints;
    const float *ia[10], *oa[10];
    pose_ptrs(in, ia);
    pb_cpose oc = as_const(out);
    pose_ptrs(&oc, oa);
    /* rotations required; a track is all or nothing */
    if (some_null(ia, 4) || some_null(oa, 4))
        return PB_ERR_NULL;
    for (int t = 4; t < 10; t += 3) {
        if (!all_null(ia + t, 3) && some_null(ia + t, 3))
            return PB_ERR_NULL;
        if (!all_null(oa + t, 3) && some_null(oa + t, 3))
            return PB_ERR_NULL;
    }
    if (oa[4] && !ia[4]) /* positions asked for, none given */
        return PB_ERR_NULL;
    if (ia[7] && !oa[7]) /* input scales must reach the output */
        return PB_ERR_NULL;
    for (size_t j = 0; j < joints; j++)
        if (parents[j] < -1 || (int64_t)parents[j] >= (int64_t)j)
            return PB_ERR_ARG;
    /* aliasing: outputs disjoint from each other, from parents, and from
     * every input except the same track's own array */
    const size_t bytes = n * sizeof(float);
    range par = range_of(parents, joints * sizeof(int32_t));
    for (int o = 0; o < 10; o++) {
        if (!oa[o])
            continue;
        range so = range_of(oa[o], bytes);
        if (meets(so, par))
            return PB_ERR_ALIAS;
        for (int p = 0; p < 10; p++) {
            if (p != o && oa[p] && meets(so, range_of(oa[p], bytes)))
                return PB_ERR_ALIAS;
            if (ia[p] && meets(so, range_of(ia[p], bytes)) && !(p == o && ia[p] == oa[o]))
                return PB_ERR_ALIAS;
        }
    }
    return PB_OK;
}

/* ------------------------------------------------------------ the math */

typedef struct { float w, x, y, z; } q4;
typedef struct { float x, y, z; } v3f;

static q4 qmul(q4 a, q4 b)
{
    q4 r = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
    return r;
}
static q4 qconj(q4 a)
{
    q4 r = {a.w, -a.x, -a.y, -a.z};
    return r;
}
/* rotate v by unit q: v + 2 w (u x v) + 2 u x (u x v) */
static v3f qrot(q4 q, v3f v)
{
    v3f t = {2.0f * (q.y * v.z - q.z * v.y), 2.0f * (q.z * v.x - q.x * v.z),
             2.0f * (q.x * v.y - q.y * v.x)};
    v3f r = {v.x + q.w * t.x + (q.y * t.z - q.z * t.y), v.y + q.w * t.y + (q.z * t.x - q.x * t.z),
             v.z + q.w * t.z + (q.x * t.y - q.y * t.x)};
    return r;
}
static q4 qld(pb_cquats q, size_t i)
{
    q4 r = {q.w[i], q.x[i], q.y[i], q.z[i]};
    return r;
}
static void qst(pb_quats q, size_t i, q4 v)
{
    q.w[i] = v.w;
    q.x[i] = v.x;
    q.y[i] = v.y;
    q.z[i] = v.z;
}
static v3f vld(pb_cvec3s v, size_t i, float dflt)
{
    v3f r = {dflt, dflt, dflt};
    if (v.x) {
        r.x = v.x[i];
        r.y = v.y[i];
        r.z = v.z[i];
    }
    return r;
}
static void vst(pb_vec3s v, size_t i, v3f a)
{
    v.x[i] = a.x;
    v.y[i] = a.y;
    v.z[i] = a.z;
}

pb_status pb_pose_local_to_model(size_t poses, size_t joints, const int32_t *parents,
                                 const pb_cpose *local, const pb_pose *model)
{
    pb_status st = check(poses, joints, parents, local, model);
    if (st != PB_OK)
        return st;
    const int want_pos = model->pos.x != NULL, want_scale = model->scale.x != NULL;
    pb_cpose m = as_const(model);
    for (size_t p = 0; p < poses; p++) {
        const size_t b = p * joints;
        for (size_t j = 0; j < joints; j++) {
            const size_t i = b + j;
            q4 r = qld(local->rot, i);
            v3f t = vld(local->pos, i, 0.0f), s = vld(local->scale, i, 1.0f);
            if (parents[j] >= 0) {
                const size_t a = b + (size_t)parents[j];
                q4 R = qld(m.rot, a);
                v3f S = vld(m.scale, a, 1.0f);
                r = qmul(R, r);
                if (want_pos) {
                    v3f T = vld(m.pos, a, 0.0f);
                    v3f st3 = {S.x * t.x, S.y * t.y, S.z * t.z};
                    v3f u = qrot(R, st3);
                    t.x = T.x + u.x;
                    t.y = T.y + u.y;
                    t.z = T.z + u.z;
                }
                s.x *= S.x;
                s.y *= S.y;
                s.z *= S.z;
            }
            qst(model->rot, i, r);
            if (want_pos)
                vst(model->pos, i, t);
            if (want_scale)
                vst(model->scale, i, s);
        }
    }
    return PB_OK;
}

pb_status pb_pose_model_to_local(size_t poses, size_t joints, const int32_t *parents,
                                 const pb_cpose *model, const pb_pose *local)
{
    pb_status st = check(poses, joints, parents, model, local);
    if (st != PB_OK)
        return st;
    const int want_pos = local->pos.x != NULL, want_scale = local->scale.x != NULL;
    for (size_t p = 0; p < poses; p++) {
        const size_t b = p * joints;
        /* children first: in place, a joint's parent is read before it is
         * overwritten */
        for (size_t jj = joints; jj-- > 0;) {
            const size_t i = b + jj;
            q4 r = qld(model->rot, i);
            v3f t = vld(model->pos, i, 0.0f), s = vld(model->scale, i, 1.0f);
            if (parents[jj] >= 0) {
                const size_t a = b + (size_t)parents[jj];
                q4 Ri = qconj(qld(model->rot, a));
                v3f S = vld(model->scale, a, 1.0f);
                r = qmul(Ri, r);
                if (want_pos) {
                    v3f T = vld(model->pos, a, 0.0f);
                    v3f d = {t.x - T.x, t.y - T.y, t.z - T.z};
                    v3f u = qrot(Ri, d);
                    t.x = u.x / S.x;
                    t.y = u.y / S.y;
                    t.z = u.z / S.z;
                }
                s.x /= S.x;
                s.y /= S.y;
                s.z /= S.z;
            }
            qst(local->rot, i, r);
            if (want_pos)
                vst(local->pos, i, t);
            if (want_scale)
                vst(local->scale, i, s);
        }
    }
    return PB_OK;
}
