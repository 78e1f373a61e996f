// The kernel table (bench_kernels.h): per kernel, the library call and its
// naive counterpart on the shared PoseData.

#include "bench_kernels.h"

#include <cstdio>

#include "naive.h"

namespace pbbench
{

Outputs pose_outputs(PoseData &d)
{
    Outputs o;
    o.count = d.n;
    o.q = d.out_q, o.q2 = d.out_q2, o.v = d.out_v, o.v2 = d.out_v2;
    o.nq = d.nout_q, o.nq2 = d.nout_q2, o.nv = d.nout_v, o.nv2 = d.nout_v2;
    return o;
}

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

size_t items_per_call(const Kernel &kern, size_t joints, size_t k)
{
    switch (kern.unit) {
    case Unit::JointLayer: return joints * k;
    case Unit::OutputSample: return joints * kClipOutFrames;
    case Unit::Joint: break;
    }
    return joints;
}

namespace
{

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

} // namespace

extern const Kernel kKernels[] = {
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
extern const size_t kKernelCount = sizeof kKernels / sizeof kKernels[0];

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

} // namespace pbbench
