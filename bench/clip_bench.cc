// Benchmarks on the shipped CMU clip (data/cmu_01_03.bvh: 4511 frames, 31
// joints, real motion capture): what bench_kernels.cc's synthetic poses do not
// have, joints that hardly move (offsets of rounding noise) next to fast ones.
//   cmu_resample/B/31/4   pb_clip_resample of its rotations and positions,
//                         120 -> 480 fps (the README's main job); items are
//                         output joint-samples;
//   cmu_write/memset/31/4 memset of the same output bytes (7 arrays): the
//                         floor for any resampler, in the same run;
//   cmu_pose_blend/B/31/4 pb_pose_blend (log_ref, rotations and positions)
//                         of frames f..f+3 around frame f, for every f; items
//                         are joint-layers.
// The clip is read from $POSEBATCH_BENCH_CLIP, else from the source tree's
// data/ (PB_BENCH_CLIP); when it cannot be read these are left out, saying so.

#include "clip_bench.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "posebatch.h"
#include "posebatch/io.h"

namespace
{

constexpr size_t kFactor = 4; // 120 -> 480 fps
constexpr size_t kLayers = 4;

struct ShippedClip {
    bool ok = false;
    pb_bvh bvh{};
    pb_clip src{};
    pb_clip dst{};
    size_t out_frames = 0;
    std::vector<float> out;       // 7 arrays of out_frames * joints
    std::vector<float> blend_out; // 7 arrays of joints (scales unused)
};

ShippedClip &shipped()
{
    static ShippedClip c;
    static bool tried = false;
    if (tried)
        return c;
    tried = true;
    const char *path = std::getenv("POSEBATCH_BENCH_CLIP");
    if (!path || !*path)
        path = PB_BENCH_CLIP;
    pb_bvh_error err;
    if (pb_bvh_read_file(path, &c.bvh, &err) != PB_BVH_OK) {
        std::fprintf(stderr, "posebatch-bench: note: %s: %s; the cmu_* benchmarks are left out\n",
                     path, err.message);
        return c;
    }
    const pb_bvh &b = c.bvh;
    size_t J = b.num_joints;
    c.src = pb_clip{b.num_frames,
                    J,
                    b.frame_time,
                    {b.rot_w, b.rot_x, b.rot_y, b.rot_z},
                    {b.pos_x, b.pos_y, b.pos_z},
                    {nullptr, nullptr, nullptr}};
    c.out_frames = pb_clip_resample_frames(&c.src, (double)kFactor / b.frame_time, 0);
    if (c.out_frames == 0 || b.num_frames < kLayers) {
        std::fprintf(stderr,
                     "posebatch-bench: note: %s: too short; the cmu_* benchmarks are left out\n",
                     path);
        return c;
    }
    size_t n = c.out_frames * J;
    c.out.assign(7 * n, 0.0f);
    float *o = c.out.data();
    c.dst = pb_clip{c.out_frames,
                    J,
                    0.0,
                    {o, o + n, o + 2 * n, o + 3 * n},
                    {o + 4 * n, o + 5 * n, o + 6 * n},
                    {nullptr, nullptr, nullptr}};
    c.blend_out.assign(7 * J, 0.0f);
    c.ok = true;
    return c;
}

pb_cquats rot_frame(const pb_bvh &b, size_t f)
{
    size_t o = f * b.num_joints;
    return pb_cquats{b.rot_w + o, b.rot_x + o, b.rot_y + o, b.rot_z + o};
}
pb_cvec3s pos_frame(const pb_bvh &b, size_t f)
{
    size_t o = f * b.num_joints;
    return pb_cvec3s{b.pos_x + o, b.pos_y + o, b.pos_z + o};
}

bool force(benchmark::State &st, int backend)
{
    if (backend < 0)
        return true;
    pb_status s = pb_backend_force((pb_backend)backend);
    if (s != PB_OK)
        st.SkipWithError((std::string("pb_backend_force: ") + pb_status_str(s)).c_str());
    return s == PB_OK;
}

void bench_resample(benchmark::State &st, int backend)
{
    ShippedClip &c = shipped();
    if (!force(st, backend))
        return;
    double fps = (double)kFactor / c.bvh.frame_time;
    for (auto _ : st) {
        pb_status s = pb_clip_resample(&c.src, fps, 0, &c.dst, nullptr);
        benchmark::DoNotOptimize(s);
        benchmark::ClobberMemory();
    }
    st.SetItemsProcessed(st.iterations() * (int64_t)(c.out_frames * c.bvh.num_joints));
}

void bench_write(benchmark::State &st)
{
    ShippedClip &c = shipped();
    size_t n = c.out_frames * c.bvh.num_joints;
    int v = 0;
    for (auto _ : st) {
        for (int a = 0; a < 7; a++)
            std::memset(c.out.data() + a * n, v, n * sizeof(float));
        v ^= 1;
        benchmark::ClobberMemory();
    }
    st.SetItemsProcessed(st.iterations() * (int64_t)n);
}

void bench_pose_blend(benchmark::State &st, int backend)
{
    ShippedClip &c = shipped();
    if (!force(st, backend))
        return;
    const pb_bvh &b = c.bvh;
    size_t J = b.num_joints, calls = b.num_frames - (kLayers - 1);
    const float w[kLayers] = {0.4f, 0.3f, 0.2f, 0.1f};
    float *o = c.blend_out.data();
    pb_pose out{{o, o + J, o + 2 * J, o + 3 * J}, {o + 4 * J, o + 5 * J, o + 6 * J}, {}};
    for (auto _ : st) {
        for (size_t f = 0; f < calls; f++) {
            pb_cquats rot[kLayers];
            pb_cvec3s pos[kLayers];
            for (size_t i = 0; i < kLayers; i++) {
                rot[i] = rot_frame(b, f + i);
                pos[i] = pos_frame(b, f + i);
            }
            pb_cpose ref{rot[0], pos[0], {}};
            pb_status s =
                pb_pose_blend(J, kLayers, rot, pos, nullptr, w, PB_BLEND_LOG_REF, &ref, &out);
            benchmark::DoNotOptimize(s);
        }
        benchmark::ClobberMemory();
    }
    st.SetItemsProcessed(st.iterations() * (int64_t)(calls * J * kLayers));
}

} // namespace

void register_clip_benchmarks(const std::vector<std::pair<int, std::string>> &backends,
                              std::vector<std::string> *names)
{
    if (!shipped().ok)
        return;
    std::string J = std::to_string(shipped().bvh.num_joints), K = std::to_string(kFactor);
    for (const auto &b : backends) {
        if (b.first < 0) // no naive counterpart
            continue;
        std::string name = "cmu_resample/" + b.second + "/" + J + "/" + K;
        int id = b.first;
        benchmark::RegisterBenchmark(name.c_str(),
                                     [id](benchmark::State &st) { bench_resample(st, id); });
        names->push_back(name);
    }
    std::string wname = "cmu_write/memset/" + J + "/" + K;
    benchmark::RegisterBenchmark(wname.c_str(), [](benchmark::State &st) { bench_write(st); });
    names->push_back(wname);
    for (const auto &b : backends) {
        if (b.first < 0)
            continue;
        std::string name = "cmu_pose_blend/" + b.second + "/" + J + "/" + std::to_string(kLayers);
        int id = b.first;
        benchmark::RegisterBenchmark(name.c_str(),
                                     [id](benchmark::State &st) { bench_pose_blend(st, id); });
        names->push_back(name);
    }
}

double clip_bench_items(const std::string &name)
{
    const ShippedClip &c = shipped();
    if (!c.ok)
        return 0;
    size_t J = c.bvh.num_joints;
    if (name.rfind("cmu_pose_blend/", 0) == 0)
        return (double)((c.bvh.num_frames - (kLayers - 1)) * J * kLayers);
    return (double)(c.out_frames * J);
}
