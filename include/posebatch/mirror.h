/* posebatch/mirror.h — part of posebatch/io.h: the left/right pairing of
 * joints by name, and a BVH clip mirrored. */
#ifndef POSEBATCH_MIRROR_H
#define POSEBATCH_MIRROR_H

#include <stddef.h>
#include <stdint.h>

#include "bvh.h"
#include "io_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Mirroring a clip (src/skeleton/mirror.c; name families: src/skeleton/joint_names.c)  */
/* ------------------------------------------------------------------------ */
/*
 * The left/right pairing of a skeleton's joints by name, and a whole BVH
 * clip mirrored with it (pb_clip_mirror of posebatch.h for the motion, plus
 * the skeleton's OFFSETs and End Sites, reflected and swapped).
 *
 * Name families (ASCII case ignored), the first that applies to a name:
 *   "left"/"right" anywhere, the first occurrence (LeftUpLeg/RightUpLeg,
 *       HandLeft/HandRight, mixamorig:LeftArm);
 *   a "_L"/"_R" or ".L"/".R" ending (Hand_L/Hand_R, hand.l);
 *   an "L_"/"R_" start (L_Hip/R_Hip);
 *   a bare "l"/"r" first letter before a letter or digit (lhip/rhip,
 *       LHipJoint/RHipJoint, LThumb), a side only where the counterpart
 *       exists ("lowerback" has no "rowerback" and is a centre joint).
 * The counterpart is the name with that part swapped, looked up ignoring
 * case. A joint of the first three families whose counterpart is missing is
 * an error (PB_IO_ERR_ARG naming both names), unless an explicit pair names
 * it; a joint of no family is on the centre line (mirror[j] = j).
 * Explicit pairs come first and override the families: {a, b} pairs joints
 * a and b (a == b: a centre joint); each name must be a joint, and a joint
 * may be in one pair only. Names must be unambiguous (two joints whose names
 * differ only in case: PB_IO_ERR_ARG when either is looked up). The result
 * is an involution (checked: a family counterpart that is already paired
 * otherwise is PB_IO_ERR_ARG).
 */
typedef struct pb_joint_pair {
    const char *a, *b;
} pb_joint_pair;

/* The mirror table (mirror[j], n entries written; see pb_clip_mirror) of n
 * joint names. Errors (mirror untouched): PB_IO_ERR_ARG (NULL, a name NULL,
 * the problems above, each message naming the joints). */
PB_API pb_io_code pb_joint_mirror_table(size_t n, const char *const *names,
                                        const pb_joint_pair *pairs, size_t num_pairs,
                                        int32_t *mirror, pb_io_error *err);
/* The same for a BVH's joints (num_joints entries). */
PB_API pb_io_code pb_bvh_mirror_table(const pb_bvh *bvh, const pb_joint_pair *pairs,
                                      size_t num_pairs, int32_t *mirror, pb_io_error *err);

/* src reflected in `plane` with its left and right swapped, into a new *out
 * (release with pb_bvh_free): the same joints (names, channels, order); joint
 * j gets the reflected motion of joint mirror[j] (pb_clip_mirror), its OFFSET
 * is the reflected OFFSET of mirror[j], and each End Site the reflected offset
 * of the End Site at the same place under mirror[j]; source angles
 * (euler_deg) are carried over reflected (an angle about the plane's normal
 * axis kept, the others negated: exactly the reflected rotation in the same
 * channel order) and decimals swapped with their joints, so the written file
 * keeps the source's digits. Forward kinematics of out is then exactly the
 * reflection of src's with paired joints swapped (a mirrored left foot walks
 * the reflected path of the source's right foot); mirroring twice gives src
 * back bit for bit. mirror == NULL: pb_bvh_mirror_table(src) without
 * explicit pairs. A source without frames gives a skeleton without frames.
 * Errors (*out untouched): PB_IO_ERR_ARG (NULL; a plane out of range; a
 * table entry out of range or not an involution; a pair whose parents are
 * not themselves paired (mirror[parent of j] != parent of mirror[j]); paired
 * joints with different channel lists or End Site counts; each message names
 * the joints), PB_IO_ERR_NOMEM. */
PB_API pb_io_code pb_bvh_mirror(const pb_bvh *src, const int32_t *mirror, pb_mirror_plane plane,
                                pb_bvh *out, pb_io_error *err);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_MIRROR_H */
