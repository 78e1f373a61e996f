// The kernels posebatch-bench times: per kernel, a library call and its naive
// per-joint counterpart on the shared PoseData (bench_data.h), the outputs the
// startup check compares, and the unit items_per_second counts; the pose sizes
// and sample counts they run at, and the backends (naive or a library one).
#ifndef PB_BENCH_KERNELS_H
#define PB_BENCH_KERNELS_H

#include <cstddef>
#include <string>

#include "bench_data.h"
#include "posebatch.h"

namespace pbbench
{

constexpr size_t kJointCounts[] = {16, 24, 31, 32, 33, 48, 64, 100, 256, 1024, 16384};
constexpr size_t kSampleCounts[] = {2, 4, 8};
constexpr int kNaive = -1; // backend id of the naive baseline

struct BackendInfo {
    int id; // kNaive or a pb_backend
    std::string name;
};

struct Call {
    PoseData *d;
    size_t k; // samples (averages only)
    float x;  // interpolation parameter
};

using KernelFn = pb_status (*)(const Call &);

// Outputs of a kernel that the startup check compares (library vs naive).
enum : unsigned {
    OUT_Q_ROT = 1u, // q as a rotation (sign-insensitive angle)
    OUT_Q2_4D = 2u, // q2 as a raw 4-vector
    OUT_V = 4u,     // v as a vec3
    OUT_V2 = 8u,    // v2 as a vec3
    OUT_POSE = 16u, // v and v2 are a pose's translations and scales
};

// The output arrays a kernel writes, library (SoA) and naive (AoS), count
// elements each; absent ones null. v_unit: v is compared after scaling by it.
struct Outputs {
    size_t count = 0;
    double v_unit = 1.0;
    Quats q, q2;
    Vec3s v, v2;
    nv_quat *nq = nullptr, *nq2 = nullptr;
    nv_vec3 *nv = nullptr, *nv2 = nullptr;
};

// The shared one-pose outputs (out_q, out_q2, out_v, out_v2).
Outputs pose_outputs(PoseData &d);

// resample's: the resampled rotations (q) and angular velocities (v),
// the latter compared per source frame (per unit x, as quat_catmull_rom's),
// not per second. At the clip's ends (the first and last source segments,
// where the clamped neighbour is the end frame itself) the naive side is off
// by up to ~5e-4 rad per frame: the text's acos-based log of r r^-1, whose
// float vector part (~1e-8) passes its 1e-8 guard, gives an offset of a few
// 1e-4 rad instead of 0.
Outputs clip_outputs(PoseData &d);

// What items_per_second counts and the summary divides the time by.
enum class Unit {
    Joint,        // one pose of n joints per call
    JointLayer,   // n joints x k blended poses
    OutputSample, // n joints x kClipOutFrames output frames
};

struct Kernel {
    const char *name;
    bool averages; // registered per k in kSampleCounts
    unsigned outputs;
    KernelFn lib;
    KernelFn naive;
    Unit unit = Unit::Joint;
    Outputs (*outputs_of)(PoseData &) = pose_outputs;
};

size_t items_per_call(const Kernel &kern, size_t joints, size_t k);

// The table: a kernel is one entry (bench_kernels.cc).
extern const Kernel kKernels[];
extern const size_t kKernelCount;

// The summary's note on a kernel's unit (none for Unit::Joint).
std::string unit_note(const Kernel &kern);

} // namespace pbbench

#endif
