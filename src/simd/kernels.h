/* Every batch kernel, written once over the lane layer: the list of the
 * kernel fragments (each one self-contained: it includes what it uses) and
 * the kernel table. A backend translation unit includes its lanes_<isa>.h,
 * then this file, then instantiates PB_DEFINE_KERNEL_TABLE(name). Arguments
 * arrive validated (internal.h). */
#ifndef PB_KERNELS_H
#define PB_KERNELS_H

#include "internal.h"

#include "kernels_common.h"
#include "kernels_prims.h"
#include "kernels_cubic.h"
#include "kernels_slerp.h"
#include "kernels_average.h"
#include "kernels_spline.h"
#include "kernels_blend.h"
#include "kernels_glance.h"
#include "kernels_clip.h"
#include "kernels_layout.h"
#include "kernels_euler.h"
#include "kernels_skeleton.h"

/* --------------------------------------------------------------- table */

#define PB_DEFINE_KERNEL_TABLE(name)                                                               \
    const pb_kernels name = {.quat_mul = k_quat_mul,                                               \
                             .quat_mul_inv = k_quat_mul_inv,                                       \
                             .quat_inv_mul = k_quat_inv_mul,                                       \
                             .quat_abs = k_quat_abs,                                               \
                             .quat_normalize = k_quat_normalize,                                   \
                             .quat_log = k_quat_log,                                               \
                             .quat_exp = k_quat_exp,                                               \
                             .quat_unroll = k_quat_unroll,                                         \
                             .quat_delta_to_angular_velocity = k_quat_delta_to_angular_velocity,   \
                             .vec3_hermite = k_vec3_hermite,                                       \
                             .vec3_catmull_rom = k_vec3_catmull_rom,                               \
                             .quat_hermite = k_quat_hermite,                                       \
                             .quat_catmull_rom = k_quat_catmull_rom,                               \
                             .quat_raw_cubic = k_quat_raw_cubic,                                   \
                             .scale_hermite = k_scale_hermite,                                     \
                             .scale_catmull_rom = k_scale_catmull_rom,                             \
                             .quat_slerp = k_quat_slerp,                                           \
                             .quat_nlerp = k_quat_nlerp,                                           \
                             .average_raw = k_average_raw,                                         \
                             .average_log = k_average_log,                                         \
                             .average_accurate = k_average_accurate,                               \
                             .average_basic = k_average_basic,                                     \
                             .sin_half_angle = k_sin_half_angle,                                   \
                             .tangent_offset = k_tangent_offset,                                   \
                             .bezier_controls = k_bezier_controls,                                 \
                             .de_casteljau = k_de_casteljau,                                       \
                             .shoemake_controls = k_shoemake_controls,                             \
                             .quat_offset = k_quat_offset,                                         \
                             .quat_cr_run = k_quat_cr_run,                                         \
                             .vec3_cr_run = k_vec3_cr_run,                                         \
                             .scale_cr_run = k_scale_cr_run,                                       \
                             .vec3_blend = k_vec3_blend,                                           \
                             .pose_blend = k_pose_blend,                                           \
                             .layers_glance = k_layers_glance,                                     \
                             .euler_choose = k_euler_choose,                                       \
                             .euler_to_quat = k_euler_to_quat,                                     \
                             .angles_lerp = k_angles_lerp,                                         \
                             PB_LAYOUT_KERNELS PB_SKELETON_KERNELS}

#endif
