/* posebatch/retarget.h — part of posebatch/io.h: a clip's motion on
 * another skeleton. */
#ifndef POSEBATCH_RETARGET_H
#define POSEBATCH_RETARGET_H

#include <stddef.h>

#include "bvh.h"
#include "io_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Retargeting: a clip onto another skeleton                                */
/* ------------------------------------------------------------------------ */
/*
 * pb_bvh_retarget plays a clip's motion on another skeleton (joints, OFFSETs
 * and End Sites of a second pb_bvh; its motion, if any, is not read).
 *
 * Matching (pb_bvh_retarget_match). Joints are paired one to one:
 * 1. the map's pairs (source name = target name, exact names);
 * 2. the remaining joints by key, equal keys pairing. A name's key: the part
 *    after its last ':' ("mixamorig:Hips"), split into words at separators
 *    (blank _ - . and others) and case changes ("LeftUpLeg": left up leg,
 *    "LHip": l hip), lower case, leading zeros of numbers dropped; leading
 *    prefix words dropped (mixamorig, bip/biped/character with their number,
 *    joint, jnt, def: "Bip01 L Thigh", "Character1_Hips", "joint_Root"); a
 *    side word first or last (left, l, right, r; or "left"/"right" starting
 *    or ending a lower-case name) is the side; the other words joined are
 *    the core, which names a family where it is one of these (side needed
 *    for the limbs, none for the others):
 *      hips: hips, hip, pelvis, root | spine, spine1, spine2, spine3 |
 *      chest: chest, thorax | upperchest | neck | neck1 | head |
 *      collar: collar, clavicle, shoulder | arm: arm, upperarm, humerus |
 *      forearm: forearm, lowerarm, elbow | hand: hand, wrist |
 *      upleg: upleg, upperleg, thigh, hip, femur |
 *      leg: leg, lowerleg, knee, shin, calf | foot: foot, ankle |
 *      toe: toebase, toe, toes, ball
 *    so "LeftUpLeg", "LeftThigh", "LHip", "l_hip", "UpperLeg_L" all have
 *    the key (left, upleg); other names are their own core ("LThumb":
 *    (left, thumb)). Two joints of one skeleton with one key: a "shoulder"
 *    below a collar-family joint becomes the arm (3ds Max's LeftCollar /
 *    LeftShoulder / LeftElbow / LeftWrist); otherwise the family's own name
 *    (e.g. "hips" over "root") wins, then the first in file order, and the
 *    other stays unmatched.
 * The matched joints must hang under one matched pair, the root pair: the
 * first matched joint of each skeleton (file order) must be matched to the
 * other's first, and every matched joint must be it or below it (else
 * "no root match"). At least min(4, source joints, target joints) pairs are
 * needed ("too few matches"). A matched name used by two joints of its
 * skeleton is an error (ambiguous).
 *
 * Motion. Rest poses are the OFFSETs with identity rotations (BVH's), so a
 * rest alignment A_t (a rotation) per matched target joint t, from the rest
 * positions p (OFFSETs summed, double) of the two skeletons: t's matched
 * descendants without a matched joint between (its "chains"), each with
 * direction p(child) - p(t) and the same for their matches in the source;
 *   one chain: the shortest rotation taking the target direction to the
 *     source's;
 *   several: the rotation taking the target's frame to the source's, each
 *     frame built from a primary direction (a chain to a side-less joint,
 *     e.g. the spine, else the first) and a secondary (a left minus right
 *     pair of chains, e.g. the thighs or shoulders, else the next chain);
 *   none (a leaf of the matching): the shortest rotation between the only
 *     children (joint or End Site) where each joint has exactly one, else
 *     the nearest matched ancestor's A (identity at the root).
 * (A chain of zero length in either skeleton gives way to its own chains,
 * e.g. CMU's Hips -> LHipJoint (at the Hips) -> LeftUpLeg counts as Hips ->
 * LeftUpLeg; a chain whose source match is not below t's match is not
 * used.) Per frame, source global rotations G_s by
 * pb_pose_local_to_model; the target's global G_t = G_s A_t for a matched
 * joint, its parent's for an unmatched one (local rotation identity: the
 * rest pose), and local rotations by pb_pose_model_to_local; where t's
 * parent is matched to s's parent (or both are roots) the local rotation is
 * A_parent^-1 r_s A_t directly (double; a copy when both are identity). So
 * the world direction of every chain (and the frame at a branch point) is
 * the source's wherever the source joints between the pair are at rest; a
 * bend at unmatched source joints between them (CMU's Spine1 and Neck1 on
 * a skeleton without them) is not carried: the target joint takes its
 * matched source joint's global rotation (the source's Head keeps its own).
 * Translation: the root pair's target joint is placed at k times the source
 * joint's model-space position, k = target hip height / source hip height,
 * hip height = the root pair joint's rest height (y) above the lowest rest
 * joint of its skeleton (1 where either is below 1e-6 times its skeleton's
 * extent); the value goes to the position channels of that joint, else of
 * its nearest ancestor having them (else it is dropped). Other matched
 * joints with position channels whose parent pair matches get the OFFSET
 * plus k times the source's displacement from its OFFSET (in the parent's
 * aligned frame); all other positions are OFFSETs. Only components with a
 * position channel move (pb_bvh's contract).
 * Same skeleton (every joint matched to itself, the same OFFSETs and
 * channels): A = identity, k = 1, every rotation and position a bitwise
 * copy; the source angles and decimals are carried over too, so the written
 * text is the source's. Otherwise the work is in double and each value is
 * rounded to float once (a rotation composed through model space: the
 * error of pb_pose_local_to_model / pb_pose_model_to_local in float).
 * src and target may be the same pb_bvh; out may be neither (*out is
 * overwritten without being freed). Reentrant.
 * Errors (nothing written, *out untouched): PB_IO_ERR_ARG (NULL; out equal
 * to src or target; a source without frames; a skeleton without joints or with parents out of order;
 * a map pair with an empty name, naming a joint not in its skeleton, or
 * naming a joint twice; no root match; too few matches; an ambiguous name),
 * PB_IO_ERR_LIMIT (frames x target joints above 2^28), PB_IO_ERR_NOMEM.
 * Messages name the joints (and the map line where the map has them).
 */

/* Explicit pairs: source[i] is played on target[i]. line may be NULL, else
 * line[i] is pair i's line in its map file (for messages). */
typedef struct pb_retarget_map {
    size_t count;
    const char *const *source;
    const char *const *target;
    const long *line;
    /* private: owned storage of a parsed map */
    void *priv_;
} pb_retarget_map;

enum {
    PB_RETARGET_MAP_ONLY = 1u << 0 /* match only the map's pairs (no names) */
};

typedef struct pb_retarget_opts {
    const pb_retarget_map *map; /* NULL: names alone */
    unsigned flags;             /* PB_RETARGET_* */
} pb_retarget_opts;

/* Parses a map text: one pair a line, "source = target", names trimmed of
 * blanks (inside them blanks are kept: "Bip01 L Thigh = LeftUpLeg"), '#'
 * to the end of the line a comment, blank lines ignored. Errors, *out zeroed
 * (nothing to free): PB_IO_ERR_SYNTAX "line N: ..." (no '=', more than
 * one, an empty name, a control character, a NUL byte), PB_IO_ERR_VALUE (a
 * source or target named twice: "line N: source joint 'X' is already mapped
 * on line M"), PB_IO_ERR_LIMIT (more than PB_BVH_MAX_JOINTS pairs, a text
 * over 16 MiB), PB_IO_ERR_NOMEM. Release with pb_retarget_map_free. */
PB_API pb_io_code pb_retarget_map_parse(const char *text, size_t size, pb_retarget_map *out,
                                        pb_io_error *err);
/* The same from a file (PB_IO_ERR_IO "PATH: reason"; text errors "line N:
 * ..." without the path). */
PB_API pb_io_code pb_retarget_map_read_file(const char *path, pb_retarget_map *out,
                                            pb_io_error *err);
/* Releases a parsed map and zeroes it; NULL and zeroed are fine. */
PB_API void pb_retarget_map_free(pb_retarget_map *map);

/* The matching of the rules above: match[t] = the source joint played on
 * target joint t, or -1 (target->num_joints entries). Errors as
 * pb_bvh_retarget's (match untouched); src needs no frames here. */
PB_API pb_io_code pb_bvh_retarget_match(const pb_bvh *src, const pb_bvh *target,
                                        const pb_retarget_opts *opts, long *match,
                                        pb_io_error *err);

/* src's motion on target's skeleton into a new *out (release with
 * pb_bvh_free): a copy of target's skeleton, src's frame count and frame
 * time, motion by the rules above. opts may be NULL. */
PB_API pb_io_code pb_bvh_retarget(const pb_bvh *src, const pb_bvh *target,
                                  const pb_retarget_opts *opts, pb_bvh *out, pb_io_error *err);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_RETARGET_H */
