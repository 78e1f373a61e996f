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
#include "kernels_skin.h"
#include "kernels_rotrep.h"
#include "kernels_ik.h"

/* --------------------------------------------------------------- table */

/* The table of one backend: each fragment lists its own rows
 * (PB_<FAMILY>_KERNELS, by field name), so a kernel added to a family
 * touches its fragment and internal.h, not this file. */
#define PB_DEFINE_KERNEL_TABLE(name)                                                               \
    const pb_kernels name = {                                                                      \
        .lanes = PB_LANES,                                                                         \
        .isa = PB_ISA,                                                                             \
        PB_PRIMS_KERNELS PB_CUBIC_KERNELS PB_SLERP_KERNELS PB_AVERAGE_KERNELS PB_SPLINE_KERNELS    \
            PB_CLIP_KERNELS PB_BLEND_KERNELS PB_GLANCE_KERNELS PB_EULER_KERNELS PB_LAYOUT_KERNELS  \
                PB_SKELETON_KERNELS PB_SKIN_KERNELS PB_ROTREP_KERNELS PB_IK_KERNELS}

#endif
