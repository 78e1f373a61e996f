// posebatch-bench: Google Benchmark harness over the posebatch C API.
//
// Benchmarks are named <kernel>/<backend>/<joints> or, for averages,
// <kernel>/<backend>/<joints>/<k> (k sample poses). <backend> is "naive" (the
// reference texts transcribed per joint over array-of-structs data, naive.c)
// or a library backend that pb_backend_supported() reports for this CPU. One
// iteration processes one pose of <joints> joints; items_per_second counts
// joints, except for the clip-level kernels, which count their own items:
//   resample/B/J/4        one 31-frame 30 fps clip of <joints> joints resampled
//                         4x to 120 fps with angular velocity; items are output
//                         joint-samples (121 output frames x joints);
//   pose_blend/B/J/k      <k> full poses (rotation, translation, scale) blended
//                         around a reference by log_ref (the default method),
//                         pose_blend_raw_ref the same by raw_ref; items are
//                         joint-layers (joints x k).
// bench/clip_bench.cc adds cmu_resample, cmu_write and cmu_pose_blend on the
// shipped CMU clip (real motion capture, 31 joints); --summary prints them in
// a table of their own. bench/file_bench.cc adds file_* (the BVH text of that
// clip: parse, format, write, the whole job, a memcpy floor), also with a
// table of their own.
//
// posebatch-bench --summary [--repetitions=N] [benchmark flags...] runs the
// selection N times (default 5, randomly interleaved) and prints, per kernel
// and pose size, the median ns per item (joint, or as above) of every backend
// and the speedups over scalar and over naive measured in that run.
//
// bench_data.cc makes the data (bench_data.h), summary_report.cc holds the
// summary's reporter and table printing; this file the kernel table, the
// startup check, the registration, the summary's tables and main.
//
// To add a kernel: one entry in kKernels (a library call and its naive
// counterpart on the shared PoseData, which outputs to cross-check, and, for
// a kernel that is not one pose per call, its unit and output arrays).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench_data.h"
#include "clip_bench.h"
#include "file_bench.h"
#include "summary_report.h"
#include "naive.h"
#include "posebatch.h"

namespace
{

using namespace pbbench;

constexpr size_t kJointCounts[] = {16, 24, 31, 32, 33, 48, 64, 100, 256, 1024, 16384};
constexpr size_t kSampleCounts[] = {2, 4, 8};
constexpr size_t kCheckJoints = 256;
constexpr int kNaive = -1;               // backend id of the naive baseline
constexpr double kCheckTolerance = 1e-3; // rad for rotations; abs/rel otherwise

// ---------------------------------------------------------------------------
// The kernel table
// ---------------------------------------------------------------------------

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
Outputs pose_outputs(PoseData &d)
{
    Outputs o;
    o.count = d.n;
    o.q = d.out_q, o.q2 = d.out_q2, o.v = d.out_v, o.v2 = d.out_v2;
    o.nq = d.nout_q, o.nq2 = d.nout_q2, o.nv = d.nout_v, o.nv2 = d.nout_v2;
    return o;
}

// resample's: the resampled rotations (q) and angular velocities (v),
// the latter compared per source frame (per unit x, as quat_catmull_rom's),
// not per second. At the clip's ends (the first and last source segments,
// where the clamped neighbour is the end frame itself) the naive side is off
// by up to ~5e-4 rad per frame: the text's acos-based log of r r^-1, whose
// float vector part (~1e-8) passes its 1e-8 guard, gives an offset of a few
// 1e-4 rad instead of 0.
Outputs clip_outputs(PoseData &d)
{
    ClipData &c = clip_data(d);
    Outputs o;
    o.count = kClipOutFrames * d.n;
    o.v_unit = 1.0 / kClipFps;
    o.q = c.out_rot, o.v = c.out_vel;
    o.nq = c.nrot, o.nv = c.nvel;
    return o;
}

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

size_t items_per_call(const Kernel &kern, size_t joints, size_t k)
{
    switch (kern.unit) {
    case Unit::JointLayer: return joints * k;
    case Unit::OutputSample: return joints * kClipOutFrames;
    case Unit::Joint: break;
    }
    return joints;
}

// pose_blend, pose_blend_raw_ref: pb_pose_blend of k full poses around the reference (which
// has translations and scales), and the naive per-joint equivalent.
pb_status blend_lib(const Call &c, pb_blend_method method)
{
    const PoseData &d = *c.d;
    pb_cpose ref{d.ref.in(), d.ref_pos.in(), d.ref_scl.in()};
    pb_pose out{d.out_q.out(), d.out_v.out(), d.out_v2.out()};
    return pb_pose_blend(d.n, c.k, d.sample_list, d.pos_list, d.scl_list, d.weights[c.k], method,
                         &ref, &out);
}

// pose_blend_linear: the same k poses as pb_blend_layer structs through
// pb_pose_blend_layers, raw_ref rotations and linear scales (ozz's semantics).
pb_status blend_layers_lib(const Call &c)
{
    const PoseData &d = *c.d;
    pb_blend_layer layers[kMaxK];
    for (size_t i = 0; i < c.k; i++)
        layers[i] = pb_blend_layer{d.weights[c.k][i], nullptr,
                                   pb_cpose{d.sample_list[i], d.pos_list[i], d.scl_list[i]}};
    pb_cpose ref{d.ref.in(), d.ref_pos.in(), d.ref_scl.in()};
    pb_blend_desc desc{d.n, layers, c.k, nullptr, 0, PB_BLEND_RAW_REF, PB_BLEND_LINEAR_SCALE, &ref};
    pb_pose out{d.out_q.out(), d.out_v.out(), d.out_v2.out()};
    return pb_pose_blend_layers(&desc, &out);
}

pb_status blend_naive(const Call &c, int log_average, int log_scale = 1)
{
    const PoseData &d = *c.d;
    nv_pose_blend_ref(d.n, c.k, log_average, log_scale, d.nref, d.nsamples, d.nsample_pos,
                      d.nsample_scl, d.weights[c.k], d.naccum, d.nout_q, d.nout_v, d.nout_v2);
    return PB_OK;
}

const Kernel kKernels[] = {
    {"quat_catmull_rom", false, OUT_Q_ROT | OUT_V,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_quat_catmull_rom(d.n, c.x, d.key[0].in(), d.key[1].in(), d.key[2].in(),
                                    d.key[3].in(), 0, d.out_q.out(), d.out_v.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_quat_catmull_rom(d.n, c.x, d.nkey[0], d.nkey[1], d.nkey[2], d.nkey[3], d.nout_q,
                             d.nout_v);
         return PB_OK;
     }},
    {"quat_hermite", false, OUT_Q_ROT | OUT_V,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_quat_hermite(d.n, c.x, d.key[1].in(), d.key[2].in(), d.angvel[0].in(),
                                d.angvel[1].in(), 0, d.out_q.out(), d.out_v.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_quat_hermite(d.n, c.x, d.nkey[1], d.nkey[2], d.nangvel[0], d.nangvel[1], d.nout_q,
                         d.nout_v);
         return PB_OK;
     }},
    {"raw_cubic", false, OUT_Q_ROT | OUT_Q2_4D,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_quat_raw_cubic(d.n, c.x, d.key[0].in(), d.key[1].in(), d.key[2].in(),
                                  d.key[3].in(), 0, d.out_q.out(), d.out_q2.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_quat_raw_cubic(d.n, c.x, d.nkey[0], d.nkey[1], d.nkey[2], d.nkey[3], d.nout_q,
                           d.nout_q2);
         return PB_OK;
     }},
    {"vec3_catmull_rom", false, OUT_V | OUT_V2,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_vec3_catmull_rom(d.n, c.x, d.pos[0].in(), d.pos[1].in(), d.pos[2].in(),
                                    d.pos[3].in(), d.out_v.out(), d.out_v2.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_vec3_catmull_rom(d.n, c.x, d.npos[0], d.npos[1], d.npos[2], d.npos[3], d.nout_v,
                             d.nout_v2);
         return PB_OK;
     }},
    {"scale_catmull_rom", false, OUT_V | OUT_V2,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_scale_catmull_rom(d.n, c.x, d.scl[0].in(), d.scl[1].in(), d.scl[2].in(),
                                     d.scl[3].in(), d.out_v.out(), d.out_v2.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_scale_catmull_rom(d.n, c.x, d.nscl[0], d.nscl[1], d.nscl[2], d.nscl[3], d.nout_v,
                              d.nout_v2);
         return PB_OK;
     }},
    {"slerp", false, OUT_Q_ROT,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_quat_slerp(d.n, c.x, d.key[1].in(), d.key[2].in(), 0, d.out_q.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_quat_slerp(d.n, c.x, d.nkey[1], d.nkey[2], d.nout_q);
         return PB_OK;
     }},
    {"nlerp", false, OUT_Q_ROT,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_quat_nlerp(d.n, c.x, d.key[1].in(), d.key[2].in(), 0, d.out_q.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_quat_nlerp(d.n, c.x, d.nkey[1], d.nkey[2], d.nout_q);
         return PB_OK;
     }},
    {"average_raw", true, OUT_Q_ROT,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_quat_average_raw(d.n, c.k, d.sample_list, d.weights[c.k], d.out_q.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_average_raw(d.n, c.k, d.nsamples, d.weights[c.k], d.nout_q);
         return PB_OK;
     }},
    {"average_log", true, OUT_Q_ROT,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_quat_average_log(d.n, c.k, d.sample_list, d.weights[c.k], d.out_q.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_average_log(d.n, c.k, d.nsamples, d.weights[c.k], d.naccum, d.nout_q);
         return PB_OK;
     }},
    {"average_raw_ref", true, OUT_Q_ROT,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_quat_average_raw_ref(d.n, c.k, d.ref.in(), d.sample_list, d.weights[c.k],
                                        d.out_q.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_average_raw_ref(d.n, c.k, d.nref, d.nsamples, d.weights[c.k], d.nout_q);
         return PB_OK;
     }},
    {"average_log_ref", true, OUT_Q_ROT,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_quat_average_log_ref(d.n, c.k, d.ref.in(), d.sample_list, d.weights[c.k],
                                        d.out_q.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_average_log_ref(d.n, c.k, d.nref, d.nsamples, d.weights[c.k], d.naccum, d.nout_q);
         return PB_OK;
     }},
    {"average_accurate", true, OUT_Q_ROT,
     [](const Call &c) {
         const PoseData &d = *c.d;
         return pb_quat_average_accurate(d.n, c.k, d.sample_list, d.weights[c.k], d.out_q.out());
     },
     [](const Call &c) {
         const PoseData &d = *c.d;
         nv_average_accurate(d.n, c.k, d.nsamples, d.weights[c.k], d.nout_q);
         return PB_OK;
     }},
    {"resample", false, OUT_Q_ROT | OUT_V,
     [](const Call &c) {
         ClipData &cd = clip_data(*c.d);
         return pb_clip_resample(&cd.src, kClipOutFps, 0, &cd.dst, &cd.vel);
     },
     [](const Call &c) {
         ClipData &cd = clip_data(*c.d);
         nv_clip_resample(c.d->n, kClipFrames, (float)kClipFps, 1.0 / kClipUpsample, kClipOutFrames,
                          cd.nsrc, cd.nrot, cd.nvel);
         return PB_OK;
     },
     Unit::OutputSample, clip_outputs},
    {"pose_blend_raw_ref", true, OUT_Q_ROT | OUT_V | OUT_V2 | OUT_POSE,
     [](const Call &c) { return blend_lib(c, PB_BLEND_RAW_REF); },
     [](const Call &c) { return blend_naive(c, 0); }, Unit::JointLayer},
    {"pose_blend", true, OUT_Q_ROT | OUT_V | OUT_V2 | OUT_POSE,
     [](const Call &c) { return blend_lib(c, PB_BLEND_LOG_REF); },
     [](const Call &c) { return blend_naive(c, 1); }, Unit::JointLayer},
    {"pose_blend_linear", true, OUT_Q_ROT | OUT_V | OUT_V2 | OUT_POSE, blend_layers_lib,
     [](const Call &c) { return blend_naive(c, 0, 0); }, Unit::JointLayer},
};

// The summary's note on a kernel's unit (none for Unit::Joint).
std::string unit_note(const Kernel &kern)
{
    char buf[256];
    switch (kern.unit) {
    case Unit::JointLayer:
        std::snprintf(buf, sizeof buf,
                      "%s: ns per joint-layer = time / (joints x k): k full poses (rotation, "
                      "translation, scale) blended",
                      kern.name);
        return buf;
    case Unit::OutputSample:
        std::snprintf(buf, sizeof buf,
                      "%s: ns per output joint-sample = time / (joints x %zu): a %zu-frame "
                      "%g fps clip resampled to %g fps with angular velocity",
                      kern.name, kClipOutFrames, kClipFrames, kClipFps, kClipOutFps);
        return buf;
    case Unit::Joint: break;
    }
    return "";
}

// ---------------------------------------------------------------------------
// Backends
// ---------------------------------------------------------------------------

struct BackendInfo {
    int id; // kNaive or a pb_backend
    std::string name;
};

// naive, then every backend this CPU runs natively. SIMDe-emulated backends
// (test-only builds) are left out: their timings say nothing about the ISA.
std::vector<BackendInfo> benchmark_backends(bool quiet)
{
    std::vector<BackendInfo> v{{kNaive, "naive"}};
    for (int b = 0; b < PB_BACKEND_COUNT; b++) {
        if (!pb_backend_supported((pb_backend)b))
            continue;
        if (pb_backend_emulated((pb_backend)b)) {
            if (!quiet)
                std::fprintf(stderr, "posebatch-bench: note: skipping emulated backend %s\n",
                             pb_backend_name((pb_backend)b));
            continue;
        }
        v.push_back({b, pb_backend_name((pb_backend)b)});
    }
    return v;
}

void clobber_outputs(const PoseData &d)
{
    benchmark::DoNotOptimize(d.out_q.w);
    benchmark::DoNotOptimize(d.out_q2.w);
    benchmark::DoNotOptimize(d.out_v.x);
    benchmark::DoNotOptimize(d.out_v2.x);
    benchmark::DoNotOptimize(d.nout_q);
    benchmark::DoNotOptimize(d.nout_q2);
    benchmark::DoNotOptimize(d.nout_v);
    benchmark::DoNotOptimize(d.nout_v2);
    benchmark::ClobberMemory();
}

// Interpolation parameters cycled through, one per iteration.
constexpr float kXs[8] = {0.0625f, 0.1875f, 0.3125f, 0.4375f, 0.5625f, 0.6875f, 0.8125f, 0.9375f};

void run_benchmark(benchmark::State &st, const Kernel *kern, int backend, size_t joints, size_t k)
{
    if (backend != kNaive) {
        pb_status s = pb_backend_force((pb_backend)backend);
        if (s != PB_OK) {
            st.SkipWithError((std::string("pb_backend_force: ") + pb_status_str(s)).c_str());
            return;
        }
    }
    PoseData &d = pose_data(joints);
    KernelFn fn = backend == kNaive ? kern->naive : kern->lib;
    Call c{&d, k, kXs[0]};
    pb_status s = fn(c); // also warms the caches
    if (s != PB_OK) {
        st.SkipWithError((std::string(kern->name) + ": " + pb_status_str(s)).c_str());
        return;
    }
    unsigned i = 0;
    for (auto _ : st) {
        c.x = kXs[i++ & 7u];
        s = fn(c);
        benchmark::DoNotOptimize(s);
        clobber_outputs(d);
    }
    st.SetItemsProcessed(st.iterations() * (int64_t)items_per_call(*kern, joints, k));
}

// ---------------------------------------------------------------------------
// Startup check: library and naive agree on the benchmark data
// ---------------------------------------------------------------------------

void fill_nan(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;
}

void poison(const Outputs &o)
{
    size_t n = o.count;
    for (float *p : {o.q.w, o.q.x, o.q.y, o.q.z, o.q2.w, o.q2.x, o.q2.y, o.q2.z, o.v.x, o.v.y,
                     o.v.z, o.v2.x, o.v2.y, o.v2.z})
        if (p)
            fill_nan(p, n);
    if (o.nq)
        fill_nan(&o.nq[0].w, 4 * n);
    if (o.nq2)
        fill_nan(&o.nq2[0].w, 4 * n);
    if (o.nv)
        fill_nan(&o.nv[0].x, 3 * n);
    if (o.nv2)
        fill_nan(&o.nv2[0].x, 3 * n);
}

struct Worst {
    double err = 0;
    size_t joint = 0;
    const char *what = "";
    void add(double e, size_t j, const char *w)
    {
        if (!(e <= err)) { // NaN sticks
            if (std::isnan(err))
                return;
            err = e, joint = j, what = w;
        }
    }
};

double rotation_error(const Quats &a, const nv_quat &b, size_t j)
{
    double aw = a.w[j], ax = a.x[j], ay = a.y[j], az = a.z[j];
    double na = std::sqrt(aw * aw + ax * ax + ay * ay + az * az);
    double nb =
        std::sqrt((double)b.w * b.w + (double)b.x * b.x + (double)b.y * b.y + (double)b.z * b.z);
    double c = std::fabs(aw * b.w + ax * b.x + ay * b.y + az * b.z) / (na * nb);
    return 2.0 * std::acos(std::min(1.0, c));
}

double vec_error(const double *a, const double *b, int dim)
{
    double e = 0, m = 0;
    for (int i = 0; i < dim; i++) {
        e += (a[i] - b[i]) * (a[i] - b[i]);
        m += b[i] * b[i];
    }
    return std::sqrt(e) / std::max(1.0, std::sqrt(m)); // absolute below 1, relative above
}

double vec3_error(const Vec3s &a, const nv_vec3 &b, size_t j, double unit = 1.0)
{
    double x[3] = {unit * a.x[j], unit * a.y[j], unit * a.z[j]};
    double y[3] = {unit * b.x, unit * b.y, unit * b.z};
    return vec_error(x, y, 3);
}

Worst compare_outputs(const Kernel &kern, const Outputs &o)
{
    bool pose = kern.outputs & OUT_POSE, rot = kern.outputs & OUT_Q_ROT;
    const char *v_what = pose ? "translation error" : rot ? "velocity error" : "value error";
    const char *v2_what = pose ? "scale error" : "velocity error";
    Worst w;
    for (size_t j = 0; j < o.count; j++) {
        if (kern.outputs & OUT_Q_ROT)
            w.add(rotation_error(o.q, o.nq[j], j), j, "rotation error (rad)");
        if (kern.outputs & OUT_Q2_4D) {
            const nv_quat &b = o.nq2[j];
            double x[4] = {o.q2.w[j], o.q2.x[j], o.q2.y[j], o.q2.z[j]};
            double y[4] = {b.w, b.x, b.y, b.z};
            w.add(vec_error(x, y, 4), j, "4D velocity error");
        }
        if (kern.outputs & OUT_V)
            w.add(vec3_error(o.v, o.nv[j], j, o.v_unit), j, v_what);
        if (kern.outputs & OUT_V2)
            w.add(vec3_error(o.v2, o.nv2[j], j), j, v2_what);
    }
    return w;
}

// Prints one warning line per (kernel, backend, k) that disagrees; returns the
// number of warnings. Not a test: the test suite is the judge of accuracy.
int check_against_naive(const std::vector<BackendInfo> &backends)
{
    PoseData &d = pose_data(kCheckJoints);
    int warnings = 0;
    for (const Kernel &kern : kKernels) {
        std::vector<size_t> ks;
        if (kern.averages)
            ks.assign(std::begin(kSampleCounts), std::end(kSampleCounts));
        else
            ks.push_back(0);
        for (const BackendInfo &b : backends) {
            if (b.id == kNaive)
                continue;
            for (size_t k : ks) {
                std::string label = std::string(kern.name) + "/" + b.name;
                if (k)
                    label += "/k=" + std::to_string(k);
                pb_status s = pb_backend_force((pb_backend)b.id);
                Call c{&d, k, 0.375f};
                Outputs o = kern.outputs_of(d);
                poison(o);
                kern.naive(c);
                if (s == PB_OK)
                    s = kern.lib(c);
                if (s != PB_OK) {
                    std::fprintf(stderr, "posebatch-bench: warning: %s: library call failed: %s\n",
                                 label.c_str(), pb_status_str(s));
                    warnings++;
                    continue;
                }
                Worst w = compare_outputs(kern, o);
                if (!(w.err <= kCheckTolerance)) {
                    std::fprintf(stderr,
                                 "posebatch-bench: warning: %s disagrees with naive: %s %.3g "
                                 "at element %zu (tolerance %g); its timings may be meaningless\n",
                                 label.c_str(), w.what, w.err, w.joint, kCheckTolerance);
                    warnings++;
                }
            }
        }
    }
    return warnings;
}

// ---------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------

struct BenchId {
    size_t kernel;  // index into kKernels
    size_t backend; // index into the backend list
    size_t joints;
    size_t k;
};

struct Registry {
    std::vector<BackendInfo> backends;
    std::map<std::string, BenchId> by_name;
    std::vector<std::string> clip_names; // clip_bench.cc's, registered after kKernels'
};

void register_all(Registry &reg)
{
    for (size_t ki = 0; ki < sizeof kKernels / sizeof kKernels[0]; ki++) {
        const Kernel *kern = &kKernels[ki];
        for (size_t bi = 0; bi < reg.backends.size(); bi++) {
            const BackendInfo &b = reg.backends[bi];
            for (size_t joints : kJointCounts) {
                std::vector<size_t> ks;
                if (kern->averages)
                    ks.assign(std::begin(kSampleCounts), std::end(kSampleCounts));
                else
                    ks.push_back(0);
                for (size_t k : ks) {
                    std::string name =
                        std::string(kern->name) + "/" + b.name + "/" + std::to_string(joints);
                    // resample's k is its upsampling factor (one value)
                    size_t shown_k =
                        k ? k : (std::strcmp(kern->name, "resample") == 0 ? kClipUpsample : 0);
                    if (shown_k)
                        name += "/" + std::to_string(shown_k);
                    int id = b.id;
                    benchmark::RegisterBenchmark(name.c_str(),
                                                 [kern, id, joints, k](benchmark::State &st) {
                                                     run_benchmark(st, kern, id, joints, k);
                                                 });
                    reg.by_name[name] = BenchId{ki, bi, joints, k};
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Summary mode
// ---------------------------------------------------------------------------

// A summary row: (kernel, joints, k); ns per item per backend, NaN if absent.
struct Row {
    std::string label;
    std::vector<double> ns;
};

// The shipped clip's benchmarks (clip_bench.cc), per backend: ns per item;
// the resample's over the write floor and over the synthetic resample at 1024
// joints of the same backend, in this run.
void print_clip_table(FILE *out, const Registry &reg, const std::map<std::string, double> &medians,
                      const std::vector<Row> &rows, const std::map<std::string, size_t> &row_of)
{
    auto ns_of = [&](const std::string &name) {
        auto it = medians.find(name);
        return it == medians.end() ? NAN : it->second / clip_bench_items(name);
    };
    double write = NAN;
    for (const std::string &n : reg.clip_names)
        if (n.rfind("cmu_write/", 0) == 0)
            write = ns_of(n);
    std::vector<std::vector<std::string>> cells;
    for (const char *kind : {"cmu_resample", "cmu_pose_blend"}) {
        // (the synthetic pose_blend blends scales too: no like-for-like figure)
        bool res = std::strcmp(kind, "cmu_resample") == 0;
        auto srow = res ? row_of.find("resample/1024") : row_of.end();
        for (size_t b = 0; b < reg.backends.size(); b++) {
            std::string prefix = std::string(kind) + "/" + reg.backends[b].name + "/";
            for (const std::string &n : reg.clip_names) {
                if (n.rfind(prefix, 0) != 0)
                    continue;
                double v = ns_of(n);
                if (std::isnan(v))
                    continue;
                double s = srow == row_of.end() ? NAN : rows[srow->second].ns[b];
                cells.push_back({n, fmt_ns(v),
                                 res && !std::isnan(write) ? fmt_ratio(v / write) : "-",
                                 std::isnan(s) ? "-" : fmt_ratio(v / s)});
            }
        }
    }
    if (cells.empty())
        return;
    if (!std::isnan(write))
        cells.push_back({"cmu_write/memset (the same output bytes)", fmt_ns(write), "1.00x", "-"});
    std::fprintf(out,
                 "\nthe shipped clip (data/cmu_01_03.bvh, 31 joints, rotations and positions): "
                 "ns per output joint-sample (cmu_resample, 120 -> 480 fps) or per joint-layer "
                 "(cmu_pose_blend, log_ref of frames f..f+3 around f, every f); the resample over "
                 "the write floor and over the synthetic resample/1024 of the same backend, "
                 "this run\n\n");
    print_markdown(out, {"benchmark", "ns", "over write", "over synthetic 1024"}, cells);
}

void print_table(FILE *out, const Registry &reg, const std::map<std::string, double> &medians,
                 int repetitions, const std::string &min_time, double wall_over_cpu)
{
    // Rows: (kernel, joints, k) in registration order; columns: backends with a result.
    std::vector<Row> rows;
    std::map<std::string, size_t> row_of;
    std::vector<bool> have(reg.backends.size(), false);
    std::vector<std::string> notes; // units other than ns/joint
    std::vector<std::pair<BenchId, std::string>> ordered;
    for (const auto &kv : reg.by_name)
        ordered.push_back({kv.second, kv.first});
    std::sort(ordered.begin(), ordered.end(), [](const auto &a, const auto &b) {
        const BenchId &x = a.first, &y = b.first;
        if (x.kernel != y.kernel)
            return x.kernel < y.kernel;
        if (x.joints != y.joints)
            return x.joints < y.joints;
        if (x.k != y.k)
            return x.k < y.k;
        return x.backend < y.backend;
    });
    for (const auto &e : ordered) {
        auto it = medians.find(e.second);
        if (it == medians.end())
            continue;
        const BenchId &id = e.first;
        std::string label = std::string(kKernels[id.kernel].name) + "/" + std::to_string(id.joints);
        if (id.k)
            label += "/" + std::to_string(id.k);
        if (!row_of.count(label)) {
            row_of[label] = rows.size();
            rows.push_back(Row{label, std::vector<double>(reg.backends.size(), NAN)});
        }
        const Kernel &kern = kKernels[id.kernel];
        rows[row_of[label]].ns[id.backend] =
            it->second / (double)items_per_call(kern, id.joints, id.k);
        std::string note = unit_note(kern);
        if (!note.empty() && std::find(notes.begin(), notes.end(), note) == notes.end())
            notes.push_back(note);
        have[id.backend] = true;
    }
    if (rows.empty()) {
        std::fprintf(out, "posebatch-bench: no results to summarise\n");
        return;
    }

    size_t naive = 0, scalar = SIZE_MAX;
    for (size_t b = 0; b < reg.backends.size(); b++)
        if (reg.backends[b].id == PB_BACKEND_SCALAR)
            scalar = b;

    std::vector<std::string> head{"benchmark"};
    std::vector<std::vector<std::string>> cells(rows.size());
    for (size_t r = 0; r < rows.size(); r++)
        cells[r].push_back(rows[r].label);
    auto column = [&](const std::string &title, auto value) {
        head.push_back(title);
        for (size_t r = 0; r < rows.size(); r++) {
            double v = value(rows[r]);
            cells[r].push_back(std::isnan(v)                             ? "-"
                               : title.find(" vs ") == std::string::npos ? fmt_ns(v)
                                                                         : fmt_ratio(v));
        }
    };
    for (size_t b = 0; b < reg.backends.size(); b++)
        if (have[b])
            column(reg.backends[b].name, [b](const Row &row) { return row.ns[b]; });
    if (scalar != SIZE_MAX && have[scalar])
        for (size_t b = 0; b < reg.backends.size(); b++)
            if (have[b] && b != scalar && b != naive)
                column(reg.backends[b].name + " vs scalar",
                       [b, scalar](const Row &row) { return row.ns[scalar] / row.ns[b]; });
    if (have[naive])
        for (size_t b = 0; b < reg.backends.size(); b++)
            if (have[b] && b != naive)
                column(reg.backends[b].name + " vs naive",
                       [b, naive](const Row &row) { return row.ns[naive] / row.ns[b]; });

    std::fprintf(out, "\nposebatch %s on %s, %ld logical CPUs\n", pb_version_string(),
                 cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    std::fprintf(out,
                 "ns/joint%s: median of %d repetition%s (min_time %s s each, wall/CPU time "
                 "%.2f); \"X vs Y\": time(Y) / time(X), both from this run\n",
                 notes.empty() ? "" : " (other units below)", repetitions,
                 repetitions == 1 ? "" : "s", min_time.c_str(), wall_over_cpu);
    for (const std::string &note : notes)
        std::fprintf(out, "  %s\n", note.c_str());
    std::fprintf(out, "\n");
    if (wall_over_cpu > 1.15)
        std::fprintf(out,
                     "note: wall time was %.2fx the CPU time: the machine was busy, absolute "
                     "figures are inflated (ratios less so)\n\n",
                     wall_over_cpu);
    print_markdown(out, head, cells);

    // Small skeletons: each row's cost per unit over the same kernel's at
    // 1024 joints (same k), per backend, from this run.
    std::vector<std::vector<std::string>> ratio_cells;
    std::vector<std::string> ratio_head{"benchmark"};
    std::vector<size_t> ratio_cols;
    for (size_t b = 0; b < reg.backends.size(); b++)
        if (have[b] && b != naive) {
            ratio_head.push_back(reg.backends[b].name + " / 1024");
            ratio_cols.push_back(b);
        }
    for (const Row &row : rows) {
        std::string label = row.label;
        size_t s1 = label.find('/'), s2 = label.find('/', s1 + 1);
        std::string joints =
            label.substr(s1 + 1, s2 == std::string::npos ? std::string::npos : s2 - s1 - 1);
        if (joints == "1024")
            continue;
        std::string big =
            label.substr(0, s1 + 1) + "1024" + (s2 == std::string::npos ? "" : label.substr(s2));
        auto it = row_of.find(big);
        if (it == row_of.end())
            continue;
        std::vector<std::string> line{label};
        for (size_t b : ratio_cols) {
            double v = row.ns[b] / rows[it->second].ns[b];
            line.push_back(std::isnan(v) ? "-" : fmt_ratio(v));
        }
        ratio_cells.push_back(line);
    }
    if (ratio_cells.empty()) {
        print_clip_table(out, reg, medians, rows, row_of);
        return;
    }
    std::fprintf(out, "\nsmall skeletons: cost per unit over the same kernel's at 1024 joints "
                      "(same k, same backend, this run)\n\n");
    print_markdown(out, ratio_head, ratio_cells);
    print_clip_table(out, reg, medians, rows, row_of);
}

void print_help()
{
    benchmark::PrintDefaultHelp();
    std::fprintf(
        stdout,
        "\nposebatch-bench:\n"
        "  benchmarks <kernel>/<backend>/<joints>[/<k>]; backend naive is the reference\n"
        "  texts transcribed per joint (bench/naive.c); items_per_second counts joints\n"
        "  (resample: output joint-samples; pose_blend*: joints x k).\n"
        "  cmu_resample/<backend>/31/4, cmu_write/memset/31/4, cmu_pose_blend/<backend>/31/4:\n"
        "  the shipped CMU clip (bench/clip_bench.cc; $POSEBATCH_BENCH_CLIP overrides\n"
        "  the path).\n"
        "  file_parse, file_parse_numbers, file_format_numbers, file_write, file_job,\n"
        "  file_job_stream(_2t),\n"
        "  file_memcpy: BVH text of that clip and of its 480 fps resample, MB/s and ns\n"
        "  per joint-sample (bench/file_bench.cc).\n"
        "  [--summary [--repetitions=N]]\n"
        "      run the selection N times (default 5, randomly interleaved, default\n"
        "      --benchmark_min_time=%s) and print a table of the median ns per item\n"
        "      per backend with the speedups over scalar and over naive.\n",
        "0.05");
}

bool starts_with(const char *s, const char *prefix)
{
    return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

} // namespace

int main(int argc, char **argv)
{
    bool summary = false, list_only = false, user_min_time = false;
    int repetitions = 5;
    std::string format = "console", min_time = "0.05", color = "auto";
    std::vector<std::string> passthrough;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!std::strcmp(a, "--summary")) {
            summary = true;
            continue;
        }
        if (starts_with(a, "--repetitions")) {
            const char *v = nullptr;
            if (a[13] == '=')
                v = a + 14;
            else if (a[13] == '\0' && i + 1 < argc)
                v = argv[++i];
            char *end = nullptr;
            long n = v ? std::strtol(v, &end, 10) : 0;
            if (!v || *end || n < 1 || n > 1000) {
                std::fprintf(stderr, "posebatch-bench: bad --repetitions (want 1..1000)\n");
                return 1;
            }
            repetitions = (int)n;
            continue;
        }
        if (starts_with(a, "--benchmark_format="))
            format = a + 19;
        if (starts_with(a, "--benchmark_color="))
            color = a + 18;
        if (starts_with(a, "--benchmark_list_tests") &&
            std::strcmp(a, "--benchmark_list_tests=false"))
            list_only = true;
        if (starts_with(a, "--benchmark_min_time=")) {
            user_min_time = true;
            min_time = a + 21;
        }
        if (starts_with(a, "--benchmark_repetitions="))
            repetitions = std::max(1, std::atoi(a + 24));
        passthrough.emplace_back(a);
    }

    std::vector<std::string> args{argv[0]};
    if (summary) {
        args.push_back("--benchmark_repetitions=" + std::to_string(repetitions));
        args.push_back("--benchmark_enable_random_interleaving=true");
        if (!user_min_time)
            args.push_back("--benchmark_min_time=" + min_time);
    }
    args.insert(args.end(), passthrough.begin(), passthrough.end());
    std::vector<char *> cargv;
    for (std::string &s : args)
        cargv.push_back(&s[0]);
    cargv.push_back(nullptr);
    int cargc = (int)args.size();

    benchmark::Initialize(&cargc, cargv.data(), print_help);
    if (benchmark::ReportUnrecognizedArguments(cargc, cargv.data()))
        return 1;

    Registry reg;
    reg.backends = benchmark_backends(list_only);
    register_all(reg);
    std::vector<std::pair<int, std::string>> ids;
    for (const BackendInfo &b : reg.backends)
        ids.push_back({b.id, b.name});
    register_clip_benchmarks(ids, &reg.clip_names);
    register_file_benchmarks();

    if (!list_only)
        check_against_naive(reg.backends);

    if (!summary) {
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        return 0;
    }

    std::unique_ptr<benchmark::BenchmarkReporter> inner;
    bool console = format == "console";
    if (format == "json")
        inner = std::make_unique<benchmark::JSONReporter>();
    else if (console)
        inner = std::make_unique<benchmark::ConsoleReporter>(
            color == "true" || color == "yes" || color == "1" ||
                    ((color == "auto" || color.empty()) && isatty(STDOUT_FILENO))
                ? benchmark::ConsoleReporter::OO_Color
                : benchmark::ConsoleReporter::OO_None);
    else {
        std::fprintf(stderr,
                     "posebatch-bench: --summary supports --benchmark_format=console|json\n");
        return 1;
    }
    SummaryReporter rep(std::move(inner), console);
    benchmark::RunSpecifiedBenchmarks(&rep);
    benchmark::Shutdown();
    if (!list_only) {
        std::fflush(stdout);
        print_table(console ? stdout : stderr, reg, rep.medians(), repetitions, min_time,
                    rep.wall_over_cpu());
        print_file_table(console ? stdout : stderr, rep.medians());
    }
    return 0;
}
