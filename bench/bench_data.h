// The benchmark's data (bench_kernels.cc's kernels read it): one pose of n
// joints in structure-of-arrays form for the library and array-of-structs for
// the naive transcriptions, and the resample benchmark's clip, made
// deterministically (splitmix64) so every platform times the same numbers.
#ifndef PB_BENCH_DATA_H
#define PB_BENCH_DATA_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "naive.h"
#include "posebatch.h"

namespace pbbench
{

constexpr size_t kMaxK = 8; // sample poses at most (averages, blends)

// resample: kClipFrames frames at kClipFps resampled to kClipOutFps.
constexpr size_t kClipFrames = 31;
constexpr double kClipFps = 30.0;
constexpr size_t kClipUpsample = 4;
constexpr double kClipOutFps = kClipFps * kClipUpsample;
constexpr size_t kClipOutFrames = (kClipFrames - 1) * kClipUpsample + 1; // clamp mode

// ---------------------------------------------------------------------------
// 64-byte aligned storage
// ---------------------------------------------------------------------------

struct FreeDeleter {
    void operator()(void *p) const { std::free(p); }
};

class Arena
{
  public:
    template <class T> T *alloc(size_t count)
    {
        size_t bytes = (count * sizeof(T) + 63) / 64 * 64;
        void *p = std::aligned_alloc(64, bytes ? bytes : 64);
        if (!p)
            throw std::bad_alloc();
        std::memset(p, 0, bytes);
        blocks_.emplace_back(p);
        return static_cast<T *>(p);
    }

  private:
    std::vector<std::unique_ptr<void, FreeDeleter>> blocks_;
};

struct Quats {
    float *w = nullptr, *x = nullptr, *y = nullptr, *z = nullptr;
    void init(Arena &a, size_t n)
    {
        w = a.alloc<float>(n);
        x = a.alloc<float>(n);
        y = a.alloc<float>(n);
        z = a.alloc<float>(n);
    }
    pb_quats out() const { return pb_quats{w, x, y, z}; }
    pb_cquats in() const { return pb_cquats{w, x, y, z}; }
};

struct Vec3s {
    float *x = nullptr, *y = nullptr, *z = nullptr;
    void init(Arena &a, size_t n)
    {
        x = a.alloc<float>(n);
        y = a.alloc<float>(n);
        z = a.alloc<float>(n);
    }
    pb_vec3s out() const { return pb_vec3s{x, y, z}; }
    pb_cvec3s in() const { return pb_cvec3s{x, y, z}; }
};

// ---------------------------------------------------------------------------
// Benchmark data: one pose of n joints, in SoA (library) and AoS (naive) form
// ---------------------------------------------------------------------------

// resample's clip of n joints (rotations only) and its outputs, both
// frame-major (joint j of frame f at f*n + j): made on first use, since at
// 16384 joints it takes about 130 MB.
struct ClipData {
    Arena arena;
    Quats src_rot; // kClipFrames * n
    nv_quat *nsrc;
    Quats out_rot; // kClipOutFrames * n, and the angular velocity (rad/s)
    Vec3s out_vel;
    nv_quat *nrot;
    nv_vec3 *nvel;
    pb_clip src, dst;
    pb_clip_vel vel;
};

struct PoseData {
    size_t n = 0;
    Arena arena;

    // Four consecutive frames of smooth motion (interpolation kernels).
    Quats key[4];
    nv_quat *nkey[4];
    Vec3s angvel[2]; // angular velocity (scaled angle-axis per frame) at key[1], key[2]
    nv_vec3 *nangvel[2];
    Vec3s pos[4];
    nv_vec3 *npos[4];
    Vec3s scl[4];
    nv_vec3 *nscl[4];

    // Averages: a reference pose and kMaxK poses near it (frames of different
    // nearby clips); weights[k] holds k positive weights summing to 1.
    Quats ref;
    nv_quat *nref;
    Quats sample[kMaxK];
    pb_cquats sample_list[kMaxK];
    nv_quat *nsamples; // sample i of joint j at nsamples[i*n + j]
    float weights[kMaxK + 1][kMaxK];

    // Pose blends: translations and scales of the samples (laid out as the
    // rotations) and of the reference.
    Vec3s sample_pos[kMaxK], sample_scl[kMaxK], ref_pos, ref_scl;
    pb_cvec3s pos_list[kMaxK], scl_list[kMaxK];
    nv_vec3 *nsample_pos, *nsample_scl;

    std::unique_ptr<ClipData> clip; // clip_data()

    // Outputs (shared by all kernels) and the naive log averages' scratch.
    Quats out_q, out_q2;
    Vec3s out_v, out_v2;
    nv_quat *nout_q, *nout_q2;
    nv_vec3 *nout_v, *nout_v2, *naccum;
};

// The pose of n joints (made on first use, kept), and its resample clip.
PoseData &pose_data(size_t n);
ClipData &clip_data(PoseData &d);

} // namespace pbbench

#endif
