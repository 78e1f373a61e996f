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
/* The dispatched kernels (simd/kernels_skeleton.h; lanes are poses). */

pb_status pb_pose_local_to_model(size_t poses, size_t joints, const int32_t *parents,
                                 const pb_cpose *local, const pb_pose *model)
{
    pb_status st = check(poses, joints, parents, local, model);
    if (st != PB_OK)
        return st;
    pb_kernels_for_skeleton()->local_to_model(poses, joints, parents, local, model);
    return PB_OK;
}

pb_status pb_pose_model_to_local(size_t poses, size_t joints, const int32_t *parents,
                                 const pb_cpose *model, const pb_pose *local)
{
    pb_status st = check(poses, joints, parents, model, local);
    if (st != PB_OK)
        return st;
    pb_kernels_for_skeleton()->model_to_local(poses, joints, parents, model, local);
    return PB_OK;
}
