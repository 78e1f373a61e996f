/* Skeletons: pb_pose_local_to_model and pb_pose_model_to_local (forward
 * kinematics and its inverse over P poses of one parent table). Every
 * argument is checked before anything is written. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "internal.h"

/* ------------------------------------------------------------ checking */

/* the pose's arrays in track order w x y z, px py pz, sx sy sz (NULL: absent) */
static void pose_ptrs(const pb_cpose *p, const float *a[10])
{
    const float *v[10] = {p->rot.w, p->rot.x, p->rot.y,   p->rot.z,   p->pos.x,
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
    if (!chk_parents_ok(parents, joints))
        return PB_ERR_ARG;
    /* aliasing: outputs disjoint from each other, from parents, and from
     * every input except the same track's own array */
    return chk_tracks_apart(10, oa, ia, n * sizeof(float), parents, joints * sizeof(int32_t));
}

/* ------------------------------------------------------------ the work */
/* The dispatched kernels (simd/kernels_skeleton.h; lanes are poses), by
 * call shape: the runs of pb_skeleton_runs, each on its poses' arrays. */

/* the arrays of poses [p, ...) of J joints */
static pb_cpose cpose_from(const pb_cpose *a, size_t e)
{
    pb_cpose r = *a;
    const float **t[10] = {&r.rot.w, &r.rot.x, &r.rot.y,   &r.rot.z,   &r.pos.x,
                           &r.pos.y, &r.pos.z, &r.scale.x, &r.scale.y, &r.scale.z};
    for (int k = 0; k < 10; k++)
        if (*t[k])
            *t[k] += e;
    return r;
}
static pb_pose pose_from(const pb_pose *a, size_t e)
{
    pb_pose r = *a;
    float **t[10] = {&r.rot.w, &r.rot.x, &r.rot.y,   &r.rot.z,   &r.pos.x,
                     &r.pos.y, &r.pos.z, &r.scale.x, &r.scale.y, &r.scale.z};
    for (int k = 0; k < 10; k++)
        if (*t[k])
            *t[k] += e;
    return r;
}

typedef void (*sk_kernel)(const pb_kernels *k, size_t poses, size_t joints, const int32_t *parents,
                          const pb_cpose *in, const pb_pose *out);
static void run_l2m(const pb_kernels *k, size_t poses, size_t joints, const int32_t *parents,
                    const pb_cpose *in, const pb_pose *out)
{
    k->local_to_model(poses, joints, parents, in, out);
}
static void run_m2l(const pb_kernels *k, size_t poses, size_t joints, const int32_t *parents,
                    const pb_cpose *in, const pb_pose *out)
{
    k->model_to_local(poses, joints, parents, in, out);
}
static void run_shape(sk_kernel f, size_t poses, size_t joints, const int32_t *parents,
                      const pb_cpose *in, const pb_pose *out)
{
    pb_sk_run run[3];
    const size_t n = pb_skeleton_runs(poses, run);
    if (n == 1) {
        f(run[0].k, poses, joints, parents, in, out);
        return;
    }
    size_t p = 0;
    for (size_t i = 0; i < n; i++) {
        const pb_cpose a = cpose_from(in, p * joints);
        const pb_pose b = pose_from(out, p * joints);
        f(run[i].k, run[i].poses, joints, parents, &a, &b);
        p += run[i].poses;
    }
}

pb_status pb_pose_local_to_model(size_t poses, size_t joints, const int32_t *parents,
                                 const pb_cpose *local, const pb_pose *model)
{
    pb_status st = check(poses, joints, parents, local, model);
    if (st != PB_OK)
        return st;
    run_shape(run_l2m, poses, joints, parents, local, model);
    return PB_OK;
}

pb_status pb_pose_model_to_local(size_t poses, size_t joints, const int32_t *parents,
                                 const pb_cpose *model, const pb_pose *local)
{
    pb_status st = check(poses, joints, parents, model, local);
    if (st != PB_OK)
        return st;
    run_shape(run_m2l, poses, joints, parents, model, local);
    return PB_OK;
}
