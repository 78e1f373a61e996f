/* AMASS (SMPL-H) clips (posebatch/dataset.h): the SMPL-H joint tree and
 * names, and pb_amass_to_bvh / pb_amass_read_file: an .npz of axis-angle
 * poses, root translations and a frame rate, with rest joint positions
 * given by the caller, as the in-memory clip (pb_bvh). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_internal.h"
#include "io_internal.h"
#include "npz_internal.h"

#define SMPLH_J 52
#define SMPL_J 22

static const char *const smplh_names[SMPLH_J] = {
    "pelvis",        "left_hip",      "right_hip",      "spine1",       "left_knee",
    "right_knee",    "spine2",        "left_ankle",     "right_ankle",  "spine3",
    "left_foot",     "right_foot",    "neck",           "left_collar",  "right_collar",
    "head",          "left_shoulder", "right_shoulder", "left_elbow",   "right_elbow",
    "left_wrist",    "right_wrist",   "left_index1",    "left_index2",  "left_index3",
    "left_middle1",  "left_middle2",  "left_middle3",   "left_pinky1",  "left_pinky2",
    "left_pinky3",   "left_ring1",    "left_ring2",     "left_ring3",   "left_thumb1",
    "left_thumb2",   "left_thumb3",   "right_index1",   "right_index2", "right_index3",
    "right_middle1", "right_middle2", "right_middle3",  "right_pinky1", "right_pinky2",
    "right_pinky3",  "right_ring1",   "right_ring2",    "right_ring3",  "right_thumb1",
    "right_thumb2",  "right_thumb3"};
static const int8_t smplh_parents[SMPLH_J] = {-1, 0,  0,  0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                                              9,  9,  12, 13, 14, 16, 17, 18, 19, 20, 22, 23, 20,
                                              25, 26, 20, 28, 29, 20, 31, 32, 20, 34, 35, 21, 37,
                                              38, 21, 40, 41, 21, 43, 44, 21, 46, 47, 21, 49, 50};

const char *pb_smplh_joint_name(size_t j) { return j < SMPLH_J ? smplh_names[j] : NULL; }
int32_t pb_smplh_parent(size_t j) { return j < SMPLH_J ? smplh_parents[j] : -2; }

/* element i of a numeric array as a double */
static double num_at(const pb_npy_array *a, size_t i)
{
    switch (a->dtype) {
    case PB_NPY_F32: return ((const float *)a->data)[i];
    case PB_NPY_F64: return ((const double *)a->data)[i];
    case PB_NPY_I32: return ((const int32_t *)a->data)[i];
    case PB_NPY_I64: return (double)((const int64_t *)a->data)[i];
    case PB_NPY_U8: return ((const uint8_t *)a->data)[i];
    default: return NAN;
    }
}
static int numeric(const pb_npy_array *a) { return a && a->data && a->dtype <= PB_NPY_U8; }
static size_t count_of(const pb_npy_array *a)
{
    size_t n = 1;
    for (int d = 0; d < a->ndim; d++)
        n *= a->shape[d];
    return n;
}

pb_io_code pb_amass_to_bvh(const pb_npz *npz, const float *rest, size_t rest_joints, pb_bvh *out,
                           pb_io_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!npz || !rest || !out)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "pb_amass_to_bvh: NULL argument");
    const pb_npy_array *poses = pb_npz_find(npz, "poses"), *trans = pb_npz_find(npz, "trans");
    const pb_npy_array *rate = pb_npz_find(npz, "mocap_framerate");
    if (!rate)
        rate = pb_npz_find(npz, "mocap_frame_rate");
    if (!numeric(poses) || poses->ndim != 2 ||
        (poses->shape[1] != 3 * SMPLH_J && poses->shape[1] != 3 * SMPL_J))
        return io_set_err(err, PB_IO_ERR_ARG, 0,
                          "AMASS: no array 'poses' of shape (frames, 156) or (frames, 66) "
                          "(axis-angle of 52 or 22 joints)");
    const size_t F = poses->shape[0], J = poses->shape[1] / 3;
    if (F == 0)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "AMASS: 'poses' has no frames");
    if (!numeric(trans) || trans->ndim != 2 || trans->shape[0] != F || trans->shape[1] != 3)
        return io_set_err(err, PB_IO_ERR_ARG, 0,
                          "AMASS: no array 'trans' of shape (%zu, 3) (the root's translation)", F);
    if (!numeric(rate) || count_of(rate) != 1)
        return io_set_err(err, PB_IO_ERR_ARG, 0,
                          "AMASS: no frame rate ('mocap_framerate', one number)");
    const double fps = num_at(rate, 0);
    if (!(fps > 0.0) || !isfinite(fps) || !(1.0 / fps >= BVH_MIN_FRAME_TIME))
        return io_set_err(err, PB_IO_ERR_ARG, 0, "AMASS: frame rate %g is not in (0, %g]", fps,
                          BVH_MAX_RATE);
    if (rest_joints < J)
        return io_set_err(err, PB_IO_ERR_ARG, 0,
                          "AMASS: %zu rest joint positions for %zu joints of poses", rest_joints,
                          J);
    for (size_t i = 0; i < J * 3; i++)
        if (!isfinite(rest[i]))
            return io_set_err(err, PB_IO_ERR_ARG, 0, "AMASS: rest position %zu is not finite",
                              i / 3);
    if (F > MAX_ELEMS / J)
        return io_set_err(err, PB_IO_ERR_LIMIT, 0, "AMASS: %zu frames x %zu joints", F, J);
    for (size_t i = 0; i < F * 3 * J; i++)
        if (!isfinite(num_at(poses, i)))
            return io_set_err(err, PB_IO_ERR_ARG, 0,
                              "AMASS: poses value at frame %zu is not finite", i / (3 * J));
    for (size_t i = 0; i < F * 3; i++)
        if (!isfinite(num_at(trans, i)))
            return io_set_err(err, PB_IO_ERR_ARG, 0,
                              "AMASS: trans value at frame %zu is not finite", i / 3);
    /* the clip's joints in depth-first order (a pb_bvh's, BVH's): order[k]
     * the SMPL-H joint at k, children in index order */
    size_t order[SMPLH_J], at_of[SMPLH_J], stack[SMPLH_J], ns = 0, nk = 0;
    stack[ns++] = 0;
    while (ns > 0) {
        const size_t j = stack[--ns];
        at_of[j] = nk;
        order[nk++] = j;
        for (size_t c = J; c-- > 1;) /* pushed last first: popped in index order */
            if ((size_t)smplh_parents[c] == j)
                stack[ns++] = c;
    }
    pb_bvh b;
    memset(&b, 0, sizeof b);
    size_t pool = 0;
    for (size_t j = 0; j < J; j++)
        pool += strlen(smplh_names[j]) + 1;
    b.num_joints = J;
    b.joints = calloc(J, sizeof *b.joints);
    b.end_sites = calloc(1, sizeof *b.end_sites);
    b.name_pool_ = malloc(pool);
    if (!b.joints || !b.end_sites || !b.name_pool_ || bvh_alloc_motion(&b, F, 0) != PB_IO_OK) {
        pb_bvh_free(&b);
        return io_nomem(err);
    }
    b.num_frames = F;
    b.frame_time = 1.0 / fps;
    const int zyx = pb_euler_order_from_axes(2, 1, 0);
    size_t at = 0, first = 0;
    for (size_t k = 0; k < J; k++) {
        const size_t j = order[k]; /* SMPL-H joint j at clip joint k */
        pb_bvh_joint *jt = &b.joints[k];
        size_t nl = strlen(smplh_names[j]) + 1;
        memcpy(b.name_pool_ + at, smplh_names[j], nl);
        jt->name = b.name_pool_ + at;
        at += nl;
        jt->parent = j == 0 ? -1 : (int32_t)at_of[smplh_parents[j]];
        for (int c = 0; c < 3; c++)
            jt->offset[c] = j == 0 ? rest[c]
                                   : (float)((double)rest[3 * j + (size_t)c] -
                                             rest[3 * (size_t)smplh_parents[j] + (size_t)c]);
        static const uint8_t root_ch[6] = {PB_BVH_XPOS, PB_BVH_YPOS, PB_BVH_ZPOS,
                                           PB_BVH_ZROT, PB_BVH_YROT, PB_BVH_XROT};
        const int nch = j == 0 ? 6 : 3;
        jt->num_channels = (uint8_t)nch;
        memcpy(jt->channels, root_ch + (j == 0 ? 0 : 3), (size_t)nch);
        jt->num_rot = 3;
        jt->rot_order = (uint8_t)zyx;
        jt->first_channel = (uint32_t)first;
        first += (size_t)nch;
    }
    b.num_channels = first;
    for (size_t f = 0; f < F; f++)
        for (size_t k = 0; k < J; k++) {
            const size_t j = order[k], i = f * J + k, o = (f * J + j) * 3;
            const double v[3] = {num_at(poses, o), num_at(poses, o + 1), num_at(poses, o + 2)};
            const double a = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            /* (cos(a/2), sin(a/2) v/a), sin(a/2)/a by its series near 0 */
            const double s = a > 1e-4 ? sin(0.5 * a) / a : 0.5 - a * a / 48.0;
            b.rot_w[i] = (float)cos(0.5 * a);
            b.rot_x[i] = (float)(s * v[0]);
            b.rot_y[i] = (float)(s * v[1]);
            b.rot_z[i] = (float)(s * v[2]);
            const pb_bvh_joint *jt = &b.joints[k];
            if (j == 0) {
                b.pos_x[i] = (float)((double)rest[0] + num_at(trans, 3 * f));
                b.pos_y[i] = (float)((double)rest[1] + num_at(trans, 3 * f + 1));
                b.pos_z[i] = (float)((double)rest[2] + num_at(trans, 3 * f + 2));
            } else {
                b.pos_x[i] = jt->offset[0];
                b.pos_y[i] = jt->offset[1];
                b.pos_z[i] = jt->offset[2];
            }
        }
    *out = b;
    return PB_IO_OK;
}

pb_io_code pb_amass_read_file(const char *path, const char *rest_path, pb_bvh *out,
                              pb_io_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !rest_path || !out)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "pb_amass_read_file: NULL argument");
    pb_npz rz, z;
    pb_io_code rc = pb_npy_read_file(rest_path, &rz, err);
    if (rc != PB_IO_OK)
        return rc;
    const pb_npy_array *r = &rz.arrays[0];
    if (!numeric(r) || r->ndim != 2 || r->shape[1] != 3 || r->shape[0] == 0) {
        pb_npz_free(&rz);
        return io_path_err(err, PB_IO_ERR_ARG, rest_path,
                           "rest joint positions must be a (joints, 3) array of numbers");
    }
    const size_t nr = r->shape[0];
    float *rest = malloc(nr * 3 * sizeof *rest);
    if (!rest) {
        pb_npz_free(&rz);
        return io_nomem(err);
    }
    for (size_t i = 0; i < nr * 3; i++)
        rest[i] = (float)num_at(r, i);
    pb_npz_free(&rz);
    rc = pb_npz_read_file(path, &z, err);
    if (rc == PB_IO_OK) {
        rc = pb_amass_to_bvh(&z, rest, nr, out, err);
        if (rc != PB_IO_OK && err) {
            pb_io_error e = *err;
            io_path_err(err, rc, path, "%s", e.message);
        }
        pb_npz_free(&z);
    }
    free(rest);
    return rc;
}
