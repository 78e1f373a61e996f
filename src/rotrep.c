/* Rotation representations (posebatch/rotrep.h): every argument checked
 * before anything is written, then the active backend's kernel
 * (simd/kernels_rotrep.h), which takes matrices as column arrays. */
#include "check.h"
#include "internal.h"

/* the public row-major m[3*r + c] as the kernels' columns col[3*c + r] */
static void columns_of(float *const m[9], float *col[9])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            col[3 * c + r] = m[3 * r + c];
}
static void ccolumns_of(const float *const m[9], const float *col[9])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            col[3 * c + r] = m[3 * r + c];
}

/* `nout` output arrays, then one input batch: a quaternion (q) or `nin`
 * float arrays (in); each output may be exactly an input array */
static inline void rr_list(chk *c, size_t n, float *const *out, int nout, const pb_cquats *q,
                           const float *const *in, int nin)
{
    for (int i = 0; i < nout; i++)
        out_f(c, out[i], n);
    if (q)
        in_q(c, *q, n);
    else
        in_batch(c, in, nin, n, 1);
}
PB_CHECKED(rr,
           (size_t n, float *const *out, int nout, const pb_cquats *q, const float *const *in,
            int nin),
           (n, out, nout, q, in, nin))

pb_status pb_quat_to_mat3(size_t n, pb_cquats q, pb_mat3s out)
{
    PROLOGUE(n);
    pb_status st = rr_check(n, out.m, 9, &q, NULL, 0);
    if (st != PB_OK)
        return st;
    float *col[9];
    columns_of(out.m, col);
    K(n)->quat_to_mat3(n, q, 3, col);
    return PB_OK;
}

pb_status pb_quat_to_rot6d(size_t n, pb_cquats q, pb_rot6ds out)
{
    PROLOGUE(n);
    pb_status st = rr_check(n, out.c, 6, &q, NULL, 0);
    if (st != PB_OK)
        return st;
    K(n)->quat_to_mat3(n, q, 2, out.c);
    return PB_OK;
}

pb_status pb_mat3_to_quat(size_t n, pb_cmat3s m, pb_quats out)
{
    PROLOGUE(n);
    float *o[4] = {out.w, out.x, out.y, out.z};
    pb_status st = rr_check(n, o, 4, NULL, m.m, 9);
    if (st != PB_OK)
        return st;
    const float *col[9];
    ccolumns_of(m.m, col);
    K(n)->mat3_to_quat(n, col, out);
    return PB_OK;
}

pb_status pb_rot6d_to_mat3(size_t n, pb_crot6ds r, pb_mat3s out)
{
    PROLOGUE(n);
    pb_status st = rr_check(n, out.m, 9, NULL, r.c, 6);
    if (st != PB_OK)
        return st;
    float *col[9];
    columns_of(out.m, col);
    K(n)->rot6d_to_mat3(n, r.c, col);
    return PB_OK;
}

pb_status pb_rot6d_to_quat(size_t n, pb_crot6ds r, pb_quats out)
{
    PROLOGUE(n);
    float *o[4] = {out.w, out.x, out.y, out.z};
    pb_status st = rr_check(n, o, 4, NULL, r.c, 6);
    if (st != PB_OK)
        return st;
    K(n)->rot6d_to_quat(n, r.c, out);
    return PB_OK;
}

pb_status pb_quat_to_rotvec(size_t n, pb_cquats q, pb_vec3s out)
{
    PROLOGUE(n);
    float *o[3] = {out.x, out.y, out.z};
    pb_status st = rr_check(n, o, 3, &q, NULL, 0);
    if (st != PB_OK)
        return st;
    K(n)->quat_to_rotvec(n, q, out);
    return PB_OK;
}
