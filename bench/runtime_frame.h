// The runtime frame: what an animation runtime does per character per frame,
// on posebatch's API: sample two clips and an additive clip at the
// character's time (pb_clip_sample), blend the two with the additive layer
// under a mask (pb_pose_blend_layers, ozz-animation's semantics: the raw
// running-sum average and linear scales), local to model
// (pb_pose_local_to_model), skinning matrices (pb_pose_skinning_matrices,
// 4x4). N characters of one skeleton, each at its own time, in one call per
// step (N = 1: one character). The data (skeleton, clips, mask, inverse bind
// matrices) is deterministic, so that a comparison program can build the
// same for another library (bench/runtime_bench.cc registers it;
// docs/performance.md, "The runtime frame", names the comparison).
#ifndef PB_BENCH_RUNTIME_FRAME_H
#define PB_BENCH_RUNTIME_FRAME_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "posebatch.h"

namespace pbframe
{

// data/cmu_01_03.bvh's parent table
static const int32_t kCmu31[31] = {-1, 0,  1,  2,  3,  4,  0,  6,  7,  8,  9,  0,  11, 12, 13, 14,
                                   15, 13, 17, 18, 19, 20, 21, 20, 13, 24, 25, 26, 27, 28, 27};

struct Rng {
    uint32_t s;
    float u() // [-0.5, 0.5)
    {
        s = s * 1664525u + 1013904223u;
        return (float)(s >> 8) / 16777216.0f - 0.5f;
    }
};

// J joints in depth-first order (children before the next sibling's
// subtree, as BVH files and ozz-animation's skeletons list them): the CMU
// table at 31, else chains of 3..8 joints hung from earlier joints (a
// humanoid-like tree), numbered depth-first
inline std::vector<int32_t> skeleton(size_t J)
{
    if (J == 31)
        return std::vector<int32_t>(kCmu31, kCmu31 + 31);
    Rng r{4242u};
    std::vector<int32_t> p(J);
    size_t j = 0;
    p[j++] = -1;
    while (j < J) {
        int32_t a = (int32_t)((r.u() + 0.5f) * (float)j);
        size_t len = 3 + (size_t)((r.u() + 0.5f) * 6.0f);
        for (size_t k = 0; k < len && j < J; k++, j++) {
            p[j] = a;
            a = (int32_t)j;
        }
    }
    // renumber depth-first
    std::vector<std::vector<size_t>> kids(J);
    for (size_t i = 1; i < J; i++)
        kids[(size_t)p[i]].push_back(i);
    std::vector<size_t> stack{0}, order;
    while (!stack.empty()) {
        size_t v = stack.back();
        stack.pop_back();
        order.push_back(v);
        for (size_t k = kids[v].size(); k-- > 0;)
            stack.push_back(kids[v][k]);
    }
    std::vector<int32_t> id(J), q(J);
    for (size_t i = 0; i < J; i++)
        id[order[i]] = (int32_t)i;
    for (size_t i = 0; i < J; i++)
        q[(size_t)id[i]] = p[i] < 0 ? -1 : id[(size_t)p[i]];
    return q;
}

// A clip of F frames at 30 fps: smooth rotations (a slow turn about a
// random axis per joint), translations near the rest offsets, scales near 1
struct Clip {
    size_t F, J;
    std::vector<float> a; // 10 tracks of F*J
    pb_clip clip;
    Clip(size_t F_, size_t J_, uint32_t seed, float amp) : F(F_), J(J_), a(10 * F_ * J_)
    {
        Rng r{seed};
        const size_t n = F * J;
        for (size_t j = 0; j < J; j++) {
            float ax[3] = {r.u(), r.u(), r.u()};
            float m = std::sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]) + 1e-6f;
            float ph = r.u() * 6.0f, fr = 0.5f + r.u(), off[3] = {r.u(), r.u() + 1.0f, r.u()};
            for (size_t f = 0; f < F; f++) {
                size_t i = f * J + j;
                float ang = amp * std::sin(ph + fr * (float)f / 30.0f * 6.2831853f);
                float s = std::sin(ang / 2), c = std::cos(ang / 2);
                a[i] = c;
                for (int k = 0; k < 3; k++) {
                    a[(1 + k) * n + i] = s * ax[k] / m;
                    a[(4 + k) * n + i] = off[k] * 10.0f + 0.1f * std::sin(ang);
                    a[(7 + k) * n + i] = 1.0f + 0.02f * std::sin(ang + (float)k);
                }
            }
        }
        clip = pb_clip{
            F, J, 1.0 / 30.0, {t(0), t(1), t(2), t(3)}, {t(4), t(5), t(6)}, {t(7), t(8), t(9)}};
    }
    float *t(int k) { return a.data() + (size_t)k * F * J; }
    float key(int k, size_t f, size_t j) const { return a[(size_t)k * F * J + f * J + j]; }
};

// Poses of n = N*J transforms (10 tracks)
struct Poses {
    size_t n;
    std::vector<float> a;
    explicit Poses(size_t n_) : n(n_), a(10 * n_) {}
    float *t(int k) { return a.data() + (size_t)k * n; }
    pb_pose pose() { return {{t(0), t(1), t(2), t(3)}, {t(4), t(5), t(6)}, {t(7), t(8), t(9)}}; }
    pb_cpose cpose() { return {{t(0), t(1), t(2), t(3)}, {t(4), t(5), t(6)}, {t(7), t(8), t(9)}}; }
    pb_clip clip(size_t frames, size_t J)
    {
        return pb_clip{frames,
                       J,
                       1.0 / 30.0,
                       {t(0), t(1), t(2), t(3)},
                       {t(4), t(5), t(6)},
                       {t(7), t(8), t(9)}};
    }
};

// the additive layer's mask: the upper body (joints from the first chain
// off the root onwards, every other joint in the generated trees)
inline float mask_of(size_t j) { return j >= 11 || j % 2 == 1 ? 1.0f : 0.0f; }

struct Frame {
    size_t J, N, F;
    std::vector<int32_t> parents;
    Clip A, B, C;
    std::vector<float> mask, ibm, mats;
    Poses sa, sb, sc, local, model;
    Frame(size_t J_, size_t N_, size_t F_ = 60)
        : J(J_), N(N_), F(F_), parents(skeleton(J_)), A(F_, J_, 11u, 0.8f), B(F_, J_, 22u, 0.8f),
          C(F_, J_, 33u, 0.2f), mask(N_ * J_), ibm(J_ * 16), mats(N_ * J_ * 16), sa(N_ * J_),
          sb(N_ * J_), sc(N_ * J_), local(N_ * J_), model(N_ * J_)
    {
        for (size_t i = 0; i < N * J; i++)
            mask[i] = mask_of(i % J);
        // the rest pose: clip A's first frame
        pb_cpose rest = {{A.t(0), A.t(1), A.t(2), A.t(3)}, {A.t(4), A.t(5), A.t(6)}, {}};
        if (pb_pose_inverse_bind_matrices(J, parents.data(), &rest, ibm.data()) != PB_OK)
            std::abort();
    }
    double duration() const { return (double)(F - 1) / 30.0; }
    // one frame: character c at times[c]
    pb_status run(const double *times)
    {
        pb_clip da = sa.clip(N, J), db = sb.clip(N, J), dc = sc.clip(N, J);
        pb_status st = pb_clip_sample(&A.clip, N, times, 0, &da, nullptr);
        if (st == PB_OK)
            st = pb_clip_sample(&B.clip, N, times, 0, &db, nullptr);
        if (st == PB_OK)
            st = pb_clip_sample(&C.clip, N, times, 0, &dc, nullptr);
        pb_blend_layer layers[2] = {{0.6f, nullptr, sa.cpose()}, {0.4f, nullptr, sb.cpose()}};
        pb_blend_layer add[1] = {{1.0f, mask.data(), sc.cpose()}};
        pb_blend_desc d = {N * J, layers, 2, add, 1, PB_BLEND_RAW, PB_BLEND_LINEAR_SCALE, nullptr};
        pb_pose lo = local.pose();
        if (st == PB_OK)
            st = pb_pose_blend_layers(&d, &lo);
        pb_cpose lc = local.cpose();
        pb_pose mo = model.pose();
        if (st == PB_OK)
            st = pb_pose_local_to_model(N, J, parents.data(), &lc, &mo);
        pb_cpose mc = model.cpose();
        if (st == PB_OK)
            st = pb_pose_skinning_matrices(N, J, &mc, ibm.data(), PB_MATRIX_4X4, mats.data());
        return st;
    }
};

// character c's time at step k: each its own phase, wrapped into the clip
inline double char_time(size_t c, size_t k, double duration)
{
    return std::fmod(0.137 * (double)c + (double)k / 60.0, duration);
}

} // namespace pbframe

#endif
