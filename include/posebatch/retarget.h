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
 * joint outside the distributed chains (below), its parent's for an
 * unmatched one outside them (local rotation identity: the rest pose), and
 * local rotations by pb_pose_model_to_local; where t's parent is matched to
 * s's parent (or both are roots), neither in a distributed chain, the local
 * rotation is A_parent^-1 r_s A_t directly (double; a copy when both are
 * identity). So the world direction of every chain (and the frame at a
 * branch point) of a matched joint outside the distributed chains is the
 * source's wherever the source joints between the pair are at rest.
 *
 * Chains: a torso or neck of another length. Pinned: the root pair and
 * every matched target joint but those of the torso and neck families
 * (spine, spine1, spine2, spine3, chest, upperchest, neck, neck1) with a
 * matched joint below them. Free: the other target joints below the root
 * pair that have a pinned joint below them, reached through free joints.
 * A chain: free joints c_1 -> ... -> c_m, c_1 the child of a pinned joint
 * or of a chain's end P, c_m (the end) the first with a pinned child or
 * with two children or more leading to pinned joints (a branch: a chest
 * carrying the collars and the neck). Its source joints: S_P, the match of
 * P (the source end of P's chain where P is one's end), and S_E, the
 * deepest source joint strictly above the matches of the pinned joints
 * below c_m (reached through free joints); S_E must be S_P or below it
 * (else the chain keeps the rules above). Where c_1 .. c_m are matched one
 * to one to the source path below S_P down to S_E (CMU onto CMU), the rules
 * above hold; else the source's bend is spread over the chain by bone
 * length:
 *   the end: G_t(c_m) = G_s(S_E) A_E, A_E c_m's rest alignment against S_E
 *     (the rules above, c_m's chains and S_E);
 *   c_k, k < m: the target path P -> c_1 -> ... -> c_m is split into its
 *     bones, each turned by the joint at its top (P, c_1, ...), their rest
 *     lengths scaled to add up to 1 (each the same where they add up to
 *     nothing); the source path S_P = u_0 -> u_1 -> ... -> S_E likewise,
 *     bone i turned by u_i and spanning [a_i, b_i]; c_k's bone spans
 *     [a, b] and G_t(c_k) = G_s(u_0) exp(sum_i w_i log(G_s(u_0)^-1
 *     G_s(u_i))) A_P, w_i = |[a, b] ^ [a_i, b_i]| / (b - a) (a bone of zero
 *     length: 1 for the source bone over a, the last one at 1), log the
 *     rotation vector taken the short way, A_P the alignment of P (A_E of
 *     P's chain where P is one's end).
 * E.g. Spine, Spine1, Spine2 bent 30 degrees each with bones of 1 onto
 * Spine, Chest with bones of 1.5 below the hips and above a head: Chest
 * (the end) takes Spine2's 90 degrees; Spine's bone spans [1/2, 1], over a
 * third of Spine's bone (turned 30) and two thirds of Spine1's (60): 50.
 * The end's bones point as the source end's; a target joint whose bone
 * lies where the source's path is turned only by S_P (CMU's LowerBack over
 * Bandai's long Hips -> Spine bone) stays with P, and a chain whose source
 * path has no joint between S_P and S_E bends at its end only.
 *
 * Translation. Root travel: the root pair's target joint is placed at k
 * times the source joint's model-space position (x, z; y as below), k the
 * ratio of the leg lengths: per side (L, R) the first matched target joint
 * of the upleg family and the first matched one of the foot family of that
 * side below it, whose match is below the upleg's match; a leg's length is
 * the rest length of the path from the foot joint up to the upleg joint
 * (bone lengths summed); k = the target's legs over the source's, summed
 * over the sides found. Without such a pair (nothing tells how long a
 * stride is) k = target hip height / source hip height, hip height = the
 * root pair joint's rest height (y) above the lowest rest joint of its
 * skeleton (1 where either is below 1e-6 times its skeleton's extent).
 * Height: with foot pairs (matched target joints of the foot and toe
 * families), in every frame the root is raised or lowered so that the
 * lowest of those target joints is at k times the height of the lowest of
 * their source joints: y = 0 is the ground of both (a skeleton carries no
 * floor: a rest pose need not stand on one, CMU's hips rest at 0 and
 * Bandai's legs lie along x, so the clips' y = 0 is taken as theirs), and
 * a foot on the source's ground is on the target's, one h above it k h
 * above it; a foot joint's height above the ground when the foot is down
 * is the source's times k. The target's foot heights are found by forward
 * kinematics of the output's values (double) and the difference is added
 * to the y channel of the joint that takes the root translation (its
 * ancestors are at rest, so its y is the world's); without foot pairs or a
 * y channel there the height is k times the source's. The value goes to the
 * position channels of the root pair's joint, else of its nearest ancestor
 * having them (else it is dropped). Other matched joints with position
 * channels whose parent pair matches (neither in a distributed chain) get
 * the OFFSET plus k times the source's displacement from its OFFSET (in
 * the parent's aligned frame); all other positions are OFFSETs. Only
 * components with a position channel move (pb_bvh's contract).
 * Same skeleton (every joint matched to itself, the same OFFSETs and
 * channels): A = identity, k = 1, no distributed chain, the height not
 * placed by the feet (they are the source's), every rotation and position
 * a bitwise copy; the source angles and decimals are carried over too, so
 * the written text is the source's. Otherwise the work is in double and
 * each value is rounded to float once (a rotation composed through model
 * space: the error of pb_pose_local_to_model / pb_pose_model_to_local in
 * float; the root's height a second time after the feet place it).
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
