/* Root motion: pb_clip_root_extract and pb_clip_root_apply (the ground
 * translation and heading of one joint taken out of a clip into a root
 * track, and put back). Per frame in double; every argument is checked
 * before anything is written. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "quat64.h"

/* how far from 1 the norm of a heading pb_clip_root_apply takes may be
 * (skeleton.h) */
#define ROOT_UNIT_TOL 1e-4

typedef struct {
    pb_root_opts o;
    int has_scale;
} setup;

/* Checks shared by both directions; t: the track's 7 arrays (pos x y z, rot
 * w x y z). */
static pb_status check(const pb_clip *clip, const int32_t *parents, const pb_root_opts *opts,
                       const float *const t[7], setup *out)
{
    if (!clip)
        return PB_ERR_NULL;
    const size_t F = clip->frames, J = clip->joints;
    if (F == 0 || J == 0 || F > PB_MAX_COUNT || J > PB_MAX_COUNT || F * J > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    const float *c[10] = {clip->rot.w, clip->rot.x, clip->rot.y,   clip->rot.z,   clip->pos.x,
                          clip->pos.y, clip->pos.z, clip->scale.x, clip->scale.y, clip->scale.z};
    for (int k = 0; k < 7; k++)
        if (!c[k] || !t[k])
            return PB_ERR_NULL;
    const int has_scale = c[7] != NULL;
    if (has_scale && (!c[8] || !c[9]))
        return PB_ERR_NULL;
    pb_root_opts o = PB_ROOT_OPTS_DEFAULT;
    if (opts)
        o = *opts;
    if (o.joint >= J || (unsigned)o.up > 2u || o.components == 0 ||
        (o.components & ~PB_ROOT_ALL) != 0)
        return PB_ERR_ARG;
    if (parents && !chk_parents_ok(parents, J))
        return PB_ERR_ARG;
    /* the track's arrays: disjoint from each other and from the clip's (and
     * the parents) */
    const size_t fb = F * sizeof(float), nb = F * J * sizeof(float);
    for (int a = 0; a < 7; a++) {
        chk_range sa = chk_range_of(t[a], fb);
        for (int b = a + 1; b < 7; b++)
            if (chk_meets(sa, chk_range_of(t[b], fb)))
                return PB_ERR_ALIAS;
        for (int k = 0; k < (has_scale ? 10 : 7); k++)
            if (chk_meets(sa, chk_range_of(c[k], nb)))
                return PB_ERR_ALIAS;
        if (parents && chk_meets(sa, chk_range_of(parents, J * sizeof(int32_t))))
            return PB_ERR_ALIAS;
    }
    out->o = o;
    out->has_scale = has_scale;
    return PB_OK;
}

/* ------------------------------------------------------------ the math */

typedef struct {
    double v[3];
} dv;

static dv rot_dv(dq q, dv v)
{
    dv r;
    dq_rot(q, v.v, r.v);
    return r;
}

/* The heading of rotation r (unit-normalised first) about axis `up`, as the
 * unit quaternion (cos(theta/2), sin(theta/2) e_up): see posebatch.h. */
static dq heading_of(dq r, int up)
{
    const int fw = (up + 1) % 3, sd = (up + 2) % 3;
    r = dq_unit(r);
    dv f = {{0, 0, 0}}, s = {{0, 0, 0}};
    f.v[fw] = 1.0;
    s.v[sd] = 1.0;
    dv rf = rot_dv(r, f);
    double a = rf.v[fw], b = rf.v[sd]; /* ground components of R f along f, s */
    double theta;
    if (hypot(a, b) >= 1e-6) {
        /* Rot_u(theta) f = cos(theta) f + sin(theta) s */
        theta = atan2(b, a);
    } else {
        /* locked: R s is horizontal; Rot_u(theta) s = cos(theta) s - sin(theta) f */
        dv rs = rot_dv(r, s);
        theta = atan2(-rs.v[fw], rs.v[sd]);
    }
    dq h = {cos(0.5 * theta), 0, 0, 0};
    double sn = sin(0.5 * theta);
    if (up == 0)
        h.x = sn;
    else if (up == 1)
        h.y = sn;
    else
        h.z = sn;
    return h;
}

static dq ld_q(const pb_quats *q, size_t i)
{
    dq r = {q->w[i], q->x[i], q->y[i], q->z[i]};
    return r;
}
static void st_q(const pb_quats *q, size_t i, dq v)
{
    q->w[i] = (float)v.w;
    q->x[i] = (float)v.x;
    q->y[i] = (float)v.y;
    q->z[i] = (float)v.z;
}
static dv ld_v(const pb_vec3s *p, size_t i)
{
    dv r = {{p->x[i], p->y[i], p->z[i]}};
    return r;
}
static void st_v(const pb_vec3s *p, size_t i, dv v)
{
    p->x[i] = (float)v.v[0];
    p->y[i] = (float)v.v[1];
    p->z[i] = (float)v.v[2];
}

/* The joints that carry the motion: every top-level root, or the measured
 * joint alone without a parent table. */
static int carries(const int32_t *parents, size_t j, size_t joint)
{
    return parents ? parents[j] == -1 : j == joint;
}

/* ------------------------------------------------------------ extract */

pb_status pb_clip_root_extract(const pb_clip *clip, const int32_t *parents,
                               const pb_root_opts *opts, const pb_root_track *track)
{
    if (!track)
        return PB_ERR_NULL;
    const float *t[7] = {track->pos.x, track->pos.y, track->pos.z, track->rot.w,
                         track->rot.x, track->rot.y, track->rot.z};
    setup su;
    pb_status st = check(clip, parents, opts, t, &su);
    if (st != PB_OK)
        return st;
    const size_t F = clip->frames, J = clip->joints, jm = su.o.joint;
    const int up = (int)su.o.up;
    const int ground = (su.o.components & PB_ROOT_GROUND) != 0;
    const int heading = (su.o.components & PB_ROOT_HEADING) != 0;
    /* model space of the measured joint: its local values when it is a
     * root, else forward kinematics one frame at a time */
    const int need_fk = parents && parents[jm] != -1;
    float *ws = NULL;
    pb_pose model;
    memset(&model, 0, sizeof model);
    if (need_fk) {
        ws = malloc(10 * J * sizeof *ws);
        if (!ws)
            return PB_ERR_NOMEM;
        float *a[10];
        for (int k = 0; k < 10; k++)
            a[k] = ws + (size_t)k * J;
        model.rot = (pb_quats){a[0], a[1], a[2], a[3]};
        model.pos = (pb_vec3s){a[4], a[5], a[6]};
        if (su.has_scale)
            model.scale = (pb_vec3s){a[7], a[8], a[9]};
    }
    dq prev = {1, 0, 0, 0};
    for (size_t f = 0; f < F; f++) {
        dq R;
        dv P;
        if (need_fk) {
            const size_t b = f * J;
            pb_cpose local = {{clip->rot.w + b, clip->rot.x + b, clip->rot.y + b, clip->rot.z + b},
                              {clip->pos.x + b, clip->pos.y + b, clip->pos.z + b},
                              {NULL, NULL, NULL}};
            if (su.has_scale)
                local.scale = (pb_cvec3s){clip->scale.x + b, clip->scale.y + b, clip->scale.z + b};
            /* checked above: cannot fail */
            (void)pb_pose_local_to_model(1, J, parents, &local, &model);
            R = ld_q(&model.rot, jm);
            P = ld_v(&model.pos, jm);
        } else {
            R = ld_q(&clip->rot, f * J + jm);
            P = ld_v(&clip->pos, f * J + jm);
        }
        dv g = {{0, 0, 0}};
        if (ground) {
            g = P;
            g.v[up] = 0.0;
        }
        dq H = {1, 0, 0, 0};
        if (heading) {
            H = heading_of(R, up);
            /* the track is unrolled: each frame in the previous one's
             * hemisphere (the first with w >= 0, as heading_of gives it) */
            if (f > 0 && H.w * prev.w + H.x * prev.x + H.y * prev.y + H.z * prev.z < 0.0) {
                H.w = -H.w;
                H.x = -H.x;
                H.y = -H.y;
                H.z = -H.z;
            }
            prev = H;
        }
        const dq Hi = {H.w, -H.x, -H.y, -H.z};
        for (size_t j = 0; j < J; j++) {
            if (!carries(parents, j, jm))
                continue;
            const size_t i = f * J + j;
            dv p = ld_v(&clip->pos, i);
            for (int k = 0; k < 3; k++)
                p.v[k] -= g.v[k];
            if (heading) {
                p = rot_dv(Hi, p);
                st_q(&clip->rot, i, dq_mul(Hi, ld_q(&clip->rot, i)));
            }
            st_v(&clip->pos, i, p);
        }
        st_v(&track->pos, f, g);
        st_q(&track->rot, f, H);
    }
    free(ws);
    return PB_OK;
}

/* ------------------------------------------------------------ apply */

pb_status pb_clip_root_apply(const pb_clip *clip, const int32_t *parents, const pb_root_opts *opts,
                             const pb_croot_track *track)
{
    if (!track)
        return PB_ERR_NULL;
    const float *t[7] = {track->pos.x, track->pos.y, track->pos.z, track->rot.w,
                         track->rot.x, track->rot.y, track->rot.z};
    setup su;
    pb_status st = check(clip, parents, opts, t, &su);
    if (st != PB_OK)
        return st;
    const size_t F = clip->frames, J = clip->joints, jm = su.o.joint;
    const int ground = (su.o.components & PB_ROOT_GROUND) != 0;
    const int heading = (su.o.components & PB_ROOT_HEADING) != 0;
    /* every heading unit (skeleton.h's tolerance) before anything is
     * written: a zero or scaled H would write w = 0 or scale the rotations
     * and translations */
    for (size_t f = 0; f < F && heading; f++) {
        const double w = track->rot.w[f], x = track->rot.x[f], y = track->rot.y[f],
                     z = track->rot.z[f];
        if (!(fabs(sqrt(w * w + x * x + y * y + z * z) - 1.0) <= ROOT_UNIT_TOL))
            return PB_ERR_ARG;
    }
    for (size_t f = 0; f < F; f++) {
        dq H = {1, 0, 0, 0};
        if (heading) {
            H.w = track->rot.w[f];
            H.x = track->rot.x[f];
            H.y = track->rot.y[f];
            H.z = track->rot.z[f];
        }
        dv g = {{0, 0, 0}};
        if (ground) {
            g.v[0] = track->pos.x[f];
            g.v[1] = track->pos.y[f];
            g.v[2] = track->pos.z[f];
        }
        for (size_t j = 0; j < J; j++) {
            if (!carries(parents, j, jm))
                continue;
            const size_t i = f * J + j;
            dv p = ld_v(&clip->pos, i);
            if (heading) {
                p = rot_dv(H, p);
                st_q(&clip->rot, i, dq_mul(H, ld_q(&clip->rot, i)));
            }
            for (int k = 0; k < 3; k++)
                p.v[k] += g.v[k];
            st_v(&clip->pos, i, p);
        }
    }
    return PB_OK;
}
