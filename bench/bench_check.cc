// posebatch-bench's startup check (bench_check.h): every kernel of the table
// on every backend against its naive counterpart, outputs poisoned first.

#include "bench_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "naive.h"
#include "posebatch.h"

namespace pbbench
{

namespace
{

constexpr size_t kCheckJoints = 256;
constexpr double kCheckTolerance = 1e-3; // rad for rotations; abs/rel otherwise

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

} // namespace

int check_against_naive(const std::vector<BackendInfo> &backends)
{
    PoseData &d = pose_data(kCheckJoints);
    int warnings = 0;
    for (size_t ki = 0; ki < kKernelCount; ki++) {
        const Kernel &kern = kKernels[ki];
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

} // namespace pbbench
