// Forward kinematics (pb_pose_local_to_model) per backend against a naive
// per-joint loop, in ns per joint (the counter ns_per_joint; items are
// joints x poses):
//   fk/<B>/31/<P>      the CMU 31-joint skeleton (data/cmu_01_03.bvh's parent
//                      table), P poses per call, rotations and positions;
//   fk/<B>/1024/<P>    a 1024-joint tree (each joint's parent 1..4 joints
//                      before it, a root every 128);
//   fk_cmu/<B>/31      the whole shipped clip (data/cmu_01_03.bvh, 4511
//                      frames x 31 joints: its rotations and positions) in
//                      one call (read from $POSEBATCH_BENCH_CLIP or the
//                      source tree; left out when it cannot be read).
// <B> is "naive" (one pose at a time, one joint at a time over structs, the
// composition as a user writes it) or a backend this CPU runs natively.
// Registered at start-up, like every benchmark of posebatch-bench.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "posebatch.h"
#include "posebatch/io.h"

namespace
{

// data/cmu_01_03.bvh's parent table (hips, legs, spine, neck, head, arms, hands)
const int32_t kCmu31[31] = {-1, 0,  1,  2,  3,  4,  0,  6,  7,  8,  9,  0,  11, 12, 13, 14,
                            15, 13, 17, 18, 19, 20, 21, 20, 13, 24, 25, 26, 27, 28, 27};

std::vector<int32_t> tree_parents(size_t J)
{
    if (J == 31)
        return std::vector<int32_t>(kCmu31, kCmu31 + 31);
    std::vector<int32_t> p(J);
    uint32_t s = 12345u;
    for (size_t j = 0; j < J; j++) {
        s = s * 1664525u + 1013904223u;
        size_t back = 1 + (s >> 28) % 4;
        p[j] = j % 128 == 0 ? -1 : (int32_t)(j - (back > j % 128 ? j % 128 : back));
    }
    return p;
}

struct Poses {
    size_t n;
    std::vector<float> a; // 7 tracks of n: w x y z px py pz
    explicit Poses(size_t n_) : n(n_), a(7 * n_)
    {
        uint32_t s = 777u;
        auto u = [&s]() {
            s = s * 1664525u + 1013904223u;
            return (float)(s >> 8) / 16777216.0f - 0.5f;
        };
        for (size_t i = 0; i < n; i++) {
            float q[4] = {u() + 1.0f, u(), u(), u()};
            float m = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            for (int c = 0; c < 4; c++)
                a[c * n + i] = q[c] / m;
            for (int c = 4; c < 7; c++)
                a[c * n + i] = u();
        }
    }
    float *t(int k) { return a.data() + (size_t)k * n; }
    pb_cpose cpose()
    {
        return {{t(0), t(1), t(2), t(3)}, {t(4), t(5), t(6)}, {nullptr, nullptr, nullptr}};
    }
    pb_pose pose()
    {
        return {{t(0), t(1), t(2), t(3)}, {t(4), t(5), t(6)}, {nullptr, nullptr, nullptr}};
    }
};

// the naive baseline: structs, one pose and one joint at a time
struct NvXf {
    float w, x, y, z, px, py, pz;
};
void naive_fk(size_t P, size_t J, const int32_t *par, const NvXf *in, NvXf *out)
{
    for (size_t p = 0; p < P; p++) {
        const NvXf *l = in + p * J;
        NvXf *m = out + p * J;
        for (size_t j = 0; j < J; j++) {
            if (par[j] < 0) {
                m[j] = l[j];
                continue;
            }
            const NvXf a = m[par[j]], b = l[j];
            NvXf r;
            r.w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z;
            r.x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y;
            r.y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x;
            r.z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w;
            // rotate (px, py, pz) by a: v + 2w (u x v) + 2 u x (u x v)
            float tx = 2 * (a.y * b.pz - a.z * b.py), ty = 2 * (a.z * b.px - a.x * b.pz),
                  tz = 2 * (a.x * b.py - a.y * b.px);
            r.px = a.px + b.px + a.w * tx + (a.y * tz - a.z * ty);
            r.py = a.py + b.py + a.w * ty + (a.z * tx - a.x * tz);
            r.pz = a.pz + b.pz + a.w * tz + (a.x * ty - a.y * tx);
            m[j] = r;
        }
    }
}

void set_counters(benchmark::State &st, size_t joints_per_call)
{
    st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)joints_per_call);
    st.counters["ns_per_joint"] =
        benchmark::Counter((double)st.iterations() * (double)joints_per_call,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// the shipped clip's parents and tracks, read once (nullptr: unreadable)
const pb_bvh *shipped_clip()
{
    static pb_bvh b{};
    static int state = 0; // 0 untried, 1 ok, -1 failed
    if (state == 0) {
        const char *path = std::getenv("POSEBATCH_BENCH_CLIP");
        if (!path || !*path)
            path = PB_BENCH_CLIP;
        pb_io_error err;
        state = pb_bvh_read_file(path, &b, &err) == PB_IO_OK ? 1 : -1;
        if (state < 0)
            std::fprintf(stderr, "posebatch-bench: note: %s: %s; fk_cmu left out\n", path,
                         err.message);
    }
    return state > 0 ? &b : nullptr;
}

void bench_fk(benchmark::State &st, int backend, size_t J, size_t P, const pb_bvh *clip)
{
    std::vector<int32_t> par = tree_parents(J);
    Poses local(P * J), model(P * J);
    if (clip) {
        for (size_t j = 0; j < J; j++)
            par[j] = clip->joints[j].parent;
        const float *src[7] = {clip->rot_w, clip->rot_x, clip->rot_y, clip->rot_z,
                               clip->pos_x, clip->pos_y, clip->pos_z};
        for (int k = 0; k < 7; k++)
            std::copy(src[k], src[k] + P * J, local.t(k));
    }
    if (backend < 0) {
        std::vector<NvXf> in(P * J), out(P * J);
        for (size_t i = 0; i < P * J; i++)
            in[i] = {local.t(0)[i], local.t(1)[i], local.t(2)[i], local.t(3)[i],
                     local.t(4)[i], local.t(5)[i], local.t(6)[i]};
        for (auto _ : st) {
            naive_fk(P, J, par.data(), in.data(), out.data());
            benchmark::DoNotOptimize(out.data());
            benchmark::ClobberMemory();
        }
    } else {
        if (pb_backend_force((pb_backend)backend) != PB_OK) {
            st.SkipWithError("pb_backend_force failed");
            return;
        }
        pb_cpose in = local.cpose();
        pb_pose out = model.pose();
        for (auto _ : st) {
            pb_status s = pb_pose_local_to_model(P, J, par.data(), &in, &out);
            benchmark::DoNotOptimize(s);
            benchmark::ClobberMemory();
        }
    }
    set_counters(st, P * J);
}

int register_all()
{
    std::vector<std::pair<int, std::string>> bs{{-1, "naive"}};
    for (auto &nb : pbbench::native_backends())
        bs.push_back(nb);
    const size_t cases[][2] = {{31, 1},  {31, 2},    {31, 4},   {31, 8},   {31, 16},
                               {31, 64}, {31, 1024}, {1024, 1}, {1024, 4}, {1024, 64}};
    for (auto &b : bs) {
        for (auto &c : cases) {
            std::string name =
                "fk/" + b.second + "/" + std::to_string(c[0]) + "/" + std::to_string(c[1]);
            int id = b.first;
            size_t J = c[0], P = c[1];
            benchmark::RegisterBenchmark(name.c_str(), [id, J, P](benchmark::State &st) {
                bench_fk(st, id, J, P, nullptr);
            });
        }
        // the whole shipped clip in one call
        const pb_bvh *clip = shipped_clip();
        if (!clip)
            continue;
        std::string name = "fk_cmu/" + b.second + "/" + std::to_string(clip->num_joints);
        int id = b.first;
        benchmark::RegisterBenchmark(name.c_str(), [id, clip](benchmark::State &st) {
            bench_fk(st, id, clip->num_joints, clip->num_frames, clip);
        });
    }
    return 0;
}

const int registered = register_all();

} // namespace
