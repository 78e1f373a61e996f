/* Motion features of a clip (posebatch/features.h): the root motion taken
 * out (pb_clip_root_extract) of a copy, forward kinematics of it
 * (pb_pose_local_to_model), then per frame in double the root track, the
 * velocities between frames through the headings, the 6D of the local
 * rotations (pb_quat_to_rot6d) and the contacts. Every argument is checked
 * before anything is written. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "quat64.h"

#define CHUNK 2048 /* elements of the 6D's structure-of-arrays scratch */

/* the outputs' float counts, in pb_features' order */
static void out_sizes(size_t F, size_t J, size_t nfeet, size_t n[7])
{
    n[0] = F;
    n[1] = 2 * F;
    n[2] = F;
    n[3] = 3 * F * J;
    n[4] = 3 * F * J;
    n[5] = 6 * F * J;
    n[6] = F * nfeet;
}
static void out_ptrs(const pb_features *o, float *p[7])
{
    p[0] = o->root_yaw_vel;
    p[1] = o->root_vel;
    p[2] = o->root_height;
    p[3] = o->positions;
    p[4] = o->velocities;
    p[5] = o->rot6d;
    p[6] = o->contacts;
}

static pb_status check(const pb_clip *clip, const int32_t *parents, const pb_feature_opts *o,
                       const pb_features *out)
{
    if (!clip || !parents || !out)
        return PB_ERR_NULL;
    const size_t F = clip->frames, J = clip->joints;
    if (F == 0 || J == 0 || F > PB_MAX_COUNT || J > PB_MAX_COUNT || F * J > PB_MAX_COUNT / 6)
        return PB_ERR_SIZE;
    const float *c[10] = {clip->rot.w, clip->rot.x, clip->rot.y,   clip->rot.z,   clip->pos.x,
                          clip->pos.y, clip->pos.z, clip->scale.x, clip->scale.y, clip->scale.z};
    for (int k = 0; k < 7; k++)
        if (!c[k])
            return PB_ERR_NULL;
    const int has_scale = c[7] || c[8] || c[9];
    if (has_scale && (!c[7] || !c[8] || !c[9]))
        return PB_ERR_NULL;
    if (o->num_feet > 0 && !o->feet)
        return PB_ERR_NULL;
    const double ft = clip->frame_time;
    if (!(ft > 0.0) || !isfinite(ft) || !isfinite(1.0 / ft))
        return PB_ERR_ARG;
    if (o->root >= J || (unsigned)o->up > 2u || !chk_parents_ok(parents, J))
        return PB_ERR_ARG;
    if (o->num_feet > PB_MAX_COUNT / F)
        return PB_ERR_SIZE;
    for (size_t k = 0; k < o->num_feet; k++)
        if (o->feet[k] >= J)
            return PB_ERR_ARG;
    if (o->num_feet > 0 && (!(o->contact_speed >= 0.0f) || !(o->contact_height >= 0.0f)))
        return PB_ERR_ARG;
    /* outputs: apart from each other and from every input */
    size_t n[7];
    float *p[7];
    out_sizes(F, J, o->num_feet, n);
    out_ptrs(out, p);
    for (int a = 0; a < 7; a++) {
        if (!p[a])
            continue;
        chk_range r = chk_range_of(p[a], n[a] * sizeof(float));
        for (int b = a + 1; b < 7; b++)
            if (p[b] && chk_meets(r, chk_range_of(p[b], n[b] * sizeof(float))))
                return PB_ERR_ALIAS;
        for (int k = 0; k < 10; k++)
            if (c[k] && chk_meets(r, chk_range_of(c[k], F * J * sizeof(float))))
                return PB_ERR_ALIAS;
        if (chk_meets(r, chk_range_of(parents, J * sizeof(int32_t))) ||
            (o->num_feet && chk_meets(r, chk_range_of(o->feet, o->num_feet * sizeof(size_t)))) ||
            chk_meets(r, chk_range_of(clip, sizeof *clip)) ||
            chk_meets(r, chk_range_of(o, sizeof *o)) ||
            chk_meets(r, chk_range_of(out, sizeof *out)))
            return PB_ERR_ALIAS;
    }
    return PB_OK;
}

/* one frame's pair (a, b) and what takes positions of a and b into frame
 * f's facing frame: Da = H_f^-1 H_a, Db = H_f^-1 H_b, dg = H_f^-1 (g_b - g_a) */
typedef struct {
    size_t a, b;
    dq da, db;
    double dg[3];
} pair_xf;

static dq heading_at(const pb_root_track *t, size_t f)
{
    dq h = {t->rot.w[f], t->rot.x[f], t->rot.y[f], t->rot.z[f]};
    return dq_unit(h);
}
static pair_xf pair_of(const pb_root_track *t, size_t F, size_t f)
{
    pair_xf p;
    memset(&p, 0, sizeof p);
    p.a = F == 1 ? 0 : f + 1 < F ? f : F - 2;
    p.b = F == 1 ? 0 : p.a + 1;
    const dq hf_inv = dq_conj(heading_at(t, f));
    p.da = dq_mul(hf_inv, heading_at(t, p.a));
    p.db = dq_mul(hf_inv, heading_at(t, p.b));
    const double d[3] = {(double)t->pos.x[p.b] - t->pos.x[p.a],
                         (double)t->pos.y[p.b] - t->pos.y[p.a],
                         (double)t->pos.z[p.b] - t->pos.z[p.a]};
    dq_rot(hf_inv, d, p.dg);
    return p;
}
/* H_f^-1 (P_j(b) - P_j(a)) from the facing-frame positions m (model pos) */
static void velocity(const pair_xf *p, const pb_vec3s *m, size_t J, size_t j, double v[3])
{
    const size_t ia = p->a * J + j, ib = p->b * J + j;
    const double pa[3] = {m->x[ia], m->y[ia], m->z[ia]}, pb[3] = {m->x[ib], m->y[ib], m->z[ib]};
    double ra[3], rb[3];
    dq_rot(p->da, pa, ra);
    dq_rot(p->db, pb, rb);
    for (int k = 0; k < 3; k++)
        v[k] = rb[k] - ra[k] + p->dg[k];
}

pb_status pb_clip_features(const pb_clip *clip, const int32_t *parents, const pb_feature_opts *opts,
                           const pb_features *out)
{
    const pb_feature_opts dflt = {0, PB_AXIS_Y, 0, NULL, 0.0f, 0.0f};
    const pb_feature_opts *o = opts ? opts : &dflt;
    pb_status st = check(clip, parents, o, out);
    if (st != PB_OK)
        return st;
    const size_t F = clip->frames, J = clip->joints, n = F * J;
    const int has_scale = clip->scale.x != NULL, up = (int)o->up;
    const double fps = 1.0 / clip->frame_time;
    /* the copy (rot, pos), the model pose (rot, pos, scale), the track */
    const size_t words = (has_scale ? 17 : 14) * n + 7 * F + 6 * CHUNK;
    float *ws = malloc(words * sizeof *ws);
    if (!ws)
        return PB_ERR_NOMEM;
    float *a = ws;
    pb_clip c = {F,
                 J,
                 clip->frame_time,
                 {a, a + n, a + 2 * n, a + 3 * n},
                 {a + 4 * n, a + 5 * n, a + 6 * n},
                 clip->scale};
    memcpy(c.rot.w, clip->rot.w, n * sizeof(float));
    memcpy(c.rot.x, clip->rot.x, n * sizeof(float));
    memcpy(c.rot.y, clip->rot.y, n * sizeof(float));
    memcpy(c.rot.z, clip->rot.z, n * sizeof(float));
    memcpy(c.pos.x, clip->pos.x, n * sizeof(float));
    memcpy(c.pos.y, clip->pos.y, n * sizeof(float));
    memcpy(c.pos.z, clip->pos.z, n * sizeof(float));
    a += 7 * n;
    pb_pose model = {
        {a, a + n, a + 2 * n, a + 3 * n}, {a + 4 * n, a + 5 * n, a + 6 * n}, {0, 0, 0}};
    a += 7 * n;
    if (has_scale) {
        model.scale = (pb_vec3s){a, a + n, a + 2 * n};
        a += 3 * n;
    }
    pb_root_track tr = {{a, a + F, a + 2 * F}, {a + 3 * F, a + 4 * F, a + 5 * F, a + 6 * F}};
    a += 7 * F;
    float *scratch = a;
    pb_root_opts ro = {o->root, o->up, PB_ROOT_ALL};
    st = pb_clip_root_extract(&c, parents, &ro, &tr);
    pb_cpose local = {pb_cq(c.rot), pb_cv(c.pos), pb_cv(c.scale)};
    if (st == PB_OK)
        st = pb_pose_local_to_model(F, J, parents, &local, &model);
    if (st != PB_OK) {
        free(ws);
        return st;
    }
    const pb_vec3s *mp = &model.pos;
    const int g0 = up == 0 ? 1 : 0, g1 = up == 2 ? 1 : 2; /* ground axes in order */
    for (size_t f = 0; f < F; f++) {
        const pair_xf p = pair_of(&tr, F, f);
        if (out->root_yaw_vel) {
            dq d = dq_mul(dq_conj(heading_at(&tr, p.a)), heading_at(&tr, p.b));
            if (d.w < 0.0)
                d = (dq){-d.w, -d.x, -d.y, -d.z};
            const double s = up == 0 ? d.x : up == 1 ? d.y : d.z;
            out->root_yaw_vel[f] = (float)(2.0 * atan2(s, d.w) * fps);
        }
        if (out->root_vel) {
            out->root_vel[2 * f] = (float)(p.dg[g0] * fps);
            out->root_vel[2 * f + 1] = (float)(p.dg[g1] * fps);
        }
        if (out->root_height) {
            const float *h = up == 0 ? mp->x : up == 1 ? mp->y : mp->z;
            out->root_height[f] = h[f * J + o->root];
        }
        for (size_t j = 0; j < J && (out->positions || out->velocities); j++) {
            const size_t i = f * J + j;
            if (out->positions) {
                out->positions[3 * i] = mp->x[i];
                out->positions[3 * i + 1] = mp->y[i];
                out->positions[3 * i + 2] = mp->z[i];
            }
            if (out->velocities) {
                double v[3];
                velocity(&p, mp, J, j, v);
                for (int k = 0; k < 3; k++)
                    out->velocities[3 * i + (size_t)k] = (float)(v[k] * fps);
            }
        }
    }
    /* the 6D of the local rotations (the root's without its heading) */
    for (size_t off = 0; off < n && out->rot6d; off += CHUNK) {
        const size_t m = n - off < CHUNK ? n - off : CHUNK;
        pb_rot6ds r;
        for (int k = 0; k < 6; k++)
            r.c[k] = scratch + (size_t)k * CHUNK;
        pb_cquats q = {c.rot.w + off, c.rot.x + off, c.rot.y + off, c.rot.z + off};
        (void)pb_quat_to_rot6d(m, q, r); /* checked arrays: cannot fail */
        for (size_t i = 0; i < m; i++)
            for (int k = 0; k < 6; k++)
                out->rot6d[6 * (off + i) + (size_t)k] = r.c[k][i];
    }
    /* contacts: slow and near the foot's own lowest point */
    const float *hgt = up == 0 ? mp->x : up == 1 ? mp->y : mp->z;
    for (size_t k = 0; k < o->num_feet && out->contacts; k++) {
        const size_t j = o->feet[k];
        float lo = hgt[j];
        for (size_t f = 1; f < F; f++)
            lo = hgt[f * J + j] < lo ? hgt[f * J + j] : lo;
        for (size_t f = 0; f < F; f++) {
            const pair_xf p = pair_of(&tr, F, f);
            double v[3];
            velocity(&p, mp, J, j, v);
            const double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * fps;
            const double h = (double)hgt[f * J + j] - lo;
            out->contacts[f * o->num_feet + k] =
                speed < o->contact_speed && h < o->contact_height ? 1.0f : 0.0f;
        }
    }
    free(ws);
    return PB_OK;
}
