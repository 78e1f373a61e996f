/* BVH module: the inverse bind matrices of a clip's skeleton (its rest
 * pose: identity rotations at the OFFSETs), over pb_pose_inverse_bind_matrices.
 * Not in the reader-only builds (the BVH fuzz target), which have no core. */
#include "bvh_internal.h"

#include <posebatch/skin.h>

#include <stdint.h>
#include <stdlib.h>

pb_io_code pb_bvh_inverse_bind_matrices(const pb_bvh *bvh, float *out, pb_io_error *err)
{
    io_clear_err(err);
    if (!bvh || !out)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "%s is NULL", bvh ? "out" : "bvh");
    const size_t J = bvh->num_joints;
    if (J == 0)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "the skeleton has no joints");
    /* the rest pose: identity rotations, OFFSET translations */
    float *mem = malloc(J * 7 * sizeof(float));
    int32_t *par = malloc(J * sizeof(int32_t));
    if (!mem || !par) {
        free(mem);
        free(par);
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    }
    for (size_t j = 0; j < J; j++) {
        par[j] = bvh->joints[j].parent;
        mem[j] = 1.0f;
        mem[J + j] = mem[2 * J + j] = mem[3 * J + j] = 0.0f;
        for (int k = 0; k < 3; k++)
            mem[(4 + (size_t)k) * J + j] = bvh->joints[j].offset[k];
    }
    pb_cpose rest = {{mem, mem + J, mem + 2 * J, mem + 3 * J},
                     {mem + 4 * J, mem + 5 * J, mem + 6 * J},
                     {NULL, NULL, NULL}};
    pb_status st = pb_pose_inverse_bind_matrices(J, par, &rest, out);
    free(mem);
    free(par);
    if (st == PB_ERR_ALIAS)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "out overlaps the clip");
    if (st != PB_OK)
        return io_set_err(err, PB_IO_ERR_VALUE, 0, "the rest pose has no inverse: %s",
                          pb_status_str(st));
    return PB_IO_OK;
}
