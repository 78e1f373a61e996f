/* posebatch/euler.h — part of posebatch/io.h: Euler angles <-> quaternions
 * in double precision, the BVH convention. */
#ifndef POSEBATCH_EULER_H
#define POSEBATCH_EULER_H

#include "../posebatch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Euler angles <-> quaternions (double precision)                          */
/* ------------------------------------------------------------------------ */
/*
 * Convention (the BVH one): an order names the rotation axes in the order the
 * channels are listed, and the rotation is the product of the elementary
 * rotations in that order, applied to column vectors:
 *
 *     order ZXY, angles (a, b, c)  ->  R = Rz(a) * Rx(b) * Ry(c)
 *
 * i.e. intrinsic rotations in listed order (equivalently extrinsic in reverse
 * order). Angles are in degrees; angle k belongs to the k-th axis of the
 * order. Quaternions are (w, x, y, z) with the Hamilton product, matching
 * R: v' = q v q*, so q = q_a(a) * q_b(b) * q_c(c).
 *
 * Partial orders: a BVH joint may list fewer than three rotation channels.
 * The `_n` variants use only the first n (0..3) axes of the order; the
 * remaining angles are zero. The enum always holds a full permutation: the
 * listed axes first, the missing ones appended.
 */
typedef enum pb_euler_order {
    PB_EULER_XYZ = 0,
    PB_EULER_XZY = 1,
    PB_EULER_YXZ = 2,
    PB_EULER_YZX = 3,
    PB_EULER_ZXY = 4,
    PB_EULER_ZYX = 5,
    PB_EULER_ORDER_COUNT = 6
} pb_euler_order;

/* Axis indices (0 = x, 1 = y, 2 = z) of an order, in listed order. Returns 0,
 * or -1 (axes untouched) for an order out of range. */
PB_API int pb_euler_order_axes(pb_euler_order order, int axes[3]);
/* The order whose first axes are a0, a1, a2 (a permutation of 0, 1, 2); -1 if
 * they are not a permutation. */
PB_API int pb_euler_order_from_axes(int a0, int a1, int a2);
/* "XYZ", "XZY", ...; NULL for an order out of range. */
PB_API const char *pb_euler_order_name(pb_euler_order order);

/* q = q_a0(deg[0]) q_a1(deg[1]) q_a2(deg[2]) (unit; (w, x, y, z)). Any finite
 * angles; NaN/Inf angles give a NaN quaternion. */
PB_API void pb_euler_to_quat(pb_euler_order order, const double deg[3], double q[4]);
/* Same with only the first n axes (n = 0 gives the identity; n > 3 is taken
 * as 3). deg[k] for k >= n is not read. */
PB_API void pb_euler_to_quat_n(pb_euler_order order, int n, const double deg[3], double q[4]);

/* Inverse: the angles (degrees) with pb_euler_to_quat(order, deg) == +-q.
 * q need not be unit (it is normalised; a zero or non-finite q gives NaN
 * angles so that the caller can detect it; never NaN for a finite non-zero q).
 *
 * prev == NULL: the principal triple, middle angle in [-90, 90], the others in
 * (-180, 180].
 * prev != NULL: among all equivalent triples -- the two Tait-Bryan branches
 * (a, b, c) and (a + 180, 180 - b, c + 180), each with any multiple of 360
 * added to any angle -- the one closest (sum of squared differences) to prev;
 * the result is therefore continuous along a smooth rotation track, with no
 * +-180 or +-360 jumps.
 *
 * Gimbal lock (middle angle at +-90, where only a + c or a - c is defined):
 * the first angle is kept at prev[0] (0 without prev) and the third absorbs
 * the rest; the middle angle is exactly +-90 (+ multiples of 360) when the
 * input is exactly locked. Near the lock (cos(middle) < 1e-3, i.e. within
 * 0.057 degrees of +-90) the first angle is pulled towards prev[0] (0
 * without prev) as far as that changes the rotation by at most 1e-7 rad,
 * which removes the jitter that the lock amplifies from float-rounded input;
 * elsewhere the decomposition is exact to double rounding. */
PB_API void pb_euler_from_quat(pb_euler_order order, const double q[4], const double prev[3],
                               double deg[3]);
/* Same for a rotation that is a product of only the first n axes (n = 0..3).
 * deg[k] for k >= n is set to 0. For n < 3 the rotation is projected onto the
 * representable ones if it is not exactly representable (n = 1: the twist
 * about the axis; n = 2: the third angle is taken as zero). prev[k] for
 * k >= n is not read. */
PB_API void pb_euler_from_quat_n(pb_euler_order order, int n, const double q[4],
                                 const double prev[3], double deg[3]);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_EULER_H */
