/* posebatch/layout.h — part of posebatch.h (conventions: there):
 * interleaved layouts <-> batches. */
#ifndef POSEBATCH_LAYOUT_H
#define POSEBATCH_LAYOUT_H

#include "base.h"
#include "clip.h" /* pb_pose, pb_cpose */

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Interleaved layouts <-> batches                                          */
/* ------------------------------------------------------------------------ */
/*
 * Engines and glTF store quaternions as (x, y, z, w), vectors as xyz and
 * poses as arrays of transform structs; these convert to and from the
 * batches above (element i of the interleaved data <-> element i of the
 * batch). Pure data movement: bit-exact (NaN payloads and -0 kept), the same
 * on every backend, vectorised (register transposes for the dense layouts).
 * Errors as everywhere (nothing written): PB_ERR_NULL, PB_ERR_SIZE (n above
 * PB_MAX_COUNT, or the interleaved size overflowing), PB_ERR_ALIAS (the
 * interleaved array overlapping any batch array, or batch arrays
 * overlapping each other); PB_ERR_ARG for an invalid layout.
 */

/* out.w[i] = xyzw[4i+3], out.x[i] = xyzw[4i], ... (4n floats read). */
PB_API pb_status pb_quats_from_xyzw(size_t n, const float *xyzw, pb_quats out);
/* xyzw[4i] = q.x[i], ..., xyzw[4i+3] = q.w[i] (4n floats written). */
PB_API pb_status pb_quats_to_xyzw(size_t n, pb_cquats q, float *xyzw);
/* out.x[i] = xyz[3i], out.y[i] = xyz[3i+1], out.z[i] = xyz[3i+2]. */
PB_API pb_status pb_vec3s_from_xyz(size_t n, const float *xyz, pb_vec3s out);
/* xyz[3i] = v.x[i], xyz[3i+1] = v.y[i], xyz[3i+2] = v.z[i]. */
PB_API pb_status pb_vec3s_to_xyz(size_t n, pb_cvec3s v, float *xyz);

/* An engine's transform struct as floats: each transform is `stride` floats;
 * translation x, y, z, rotation x, y, z, w and scale x, y, z start at the
 * given float offsets, or are absent (PB_AOS_NONE). E.g.
 * struct { float t[3], r[4], s[3]; } is {10, 0, 3, 7}, PB_AOS_TRS. The parts
 * present must lie within the stride and not overlap (else PB_ERR_ARG);
 * stride <= PB_AOS_MAX_STRIDE. */
#define PB_AOS_NONE (-1)
#define PB_AOS_MAX_STRIDE 4096
typedef struct pb_aos_layout {
    size_t stride;                    /* floats from one transform to the next */
    int translation, rotation, scale; /* float offsets, or PB_AOS_NONE */
} pb_aos_layout;
#define PB_AOS_TRS                                                                                 \
    {                                                                                              \
        10, 0, 3, 7                                                                                \
    }

/* n transforms of aos (laid out by layout) into out: each part the layout
 * has goes to out's track (which must be present: PB_ERR_NULL); out's other
 * tracks are not touched. Reads (n-1)*stride floats plus the last
 * transform's parts. */
PB_API pb_status pb_pose_from_aos(size_t n, const float *aos, const pb_aos_layout *layout,
                                  const pb_pose *out);
/* The reverse: each part the layout has is written from in's track (which
 * must be present); the floats of a transform that the layout does not name
 * (padding, other fields) are not written. */
PB_API pb_status pb_pose_to_aos(size_t n, const pb_cpose *in, const pb_aos_layout *layout,
                                float *aos);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_LAYOUT_H */
