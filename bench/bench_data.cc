// The benchmark's data: see bench_data.h.
#include "bench_data.h"

#include <cmath>
#include <cstdio>
#include <map>

namespace pbbench
{
namespace
{

// Deterministic generator (splitmix64): the same data on every platform.
class Rng
{
  public:
    explicit Rng(uint64_t seed) : s_(seed) {}
    uint64_t next()
    {
        uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  private:
    uint64_t s_;
};

struct DQuat {
    double w, x, y, z;
};
struct DVec {
    double x, y, z;
};

constexpr double kPi = 3.14159265358979323846;

DVec random_axis(Rng &r)
{
    double z = r.uniform(-1.0, 1.0), phi = r.uniform(0.0, 2.0 * kPi);
    double s = std::sqrt(std::max(0.0, 1.0 - z * z));
    return DVec{s * std::cos(phi), s * std::sin(phi), z};
}

DVec scale(DVec v, double s) { return DVec{v.x * s, v.y * s, v.z * s}; }
DVec add(DVec a, DVec b) { return DVec{a.x + b.x, a.y + b.y, a.z + b.z}; }
double norm(DVec v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }
DVec exp3(DVec v) { return DVec{std::exp(v.x), std::exp(v.y), std::exp(v.z)}; }

// exp of a scaled angle-axis vector (full angle * axis).
DQuat from_scaled_angle_axis(DVec v)
{
    double a = norm(v);
    if (a < 1e-300)
        return DQuat{1, 0, 0, 0};
    double s = std::sin(a / 2) / a;
    return DQuat{std::cos(a / 2), s * v.x, s * v.y, s * v.z};
}

DQuat mul(DQuat q, DQuat p)
{
    return DQuat{q.w * p.w - q.x * p.x - q.y * p.y - q.z * p.z,
                 q.w * p.x + q.x * p.w + q.y * p.z - q.z * p.y,
                 q.w * p.y - q.x * p.z + q.y * p.w + q.z * p.x,
                 q.w * p.z + q.x * p.y - q.y * p.x + q.z * p.w};
}

DQuat random_rotation(Rng &r) // uniform on SO(3) (Shoemake)
{
    double u1 = r.uniform(), u2 = r.uniform(0, 2 * kPi), u3 = r.uniform(0, 2 * kPi);
    double a = std::sqrt(1 - u1), b = std::sqrt(u1);
    return DQuat{a * std::sin(u2), a * std::cos(u2), b * std::sin(u3), b * std::cos(u3)};
}

void put(const Quats &q, nv_quat *nq, size_t j, DQuat v)
{
    q.w[j] = (float)v.w, q.x[j] = (float)v.x, q.y[j] = (float)v.y, q.z[j] = (float)v.z;
    nq[j] = nv_quat{q.w[j], q.x[j], q.y[j], q.z[j]};
}

void put(const Vec3s &a, size_t j, DVec v)
{
    a.x[j] = (float)v.x, a.y[j] = (float)v.y, a.z[j] = (float)v.z;
}

void put(const Vec3s &a, nv_vec3 *na, size_t j, DVec v)
{
    put(a, j, v);
    na[j] = nv_vec3{a.x[j], a.y[j], a.z[j]};
}

// A random velocity that drifts smoothly: keeps its magnitude in [lo, hi].
DVec drift(Rng &r, DVec v, double lo, double hi)
{
    double m = norm(v);
    DVec d = add(v, scale(random_axis(r), 0.15 * m * r.uniform()));
    double md = norm(d);
    return scale(d, std::min(hi, std::max(lo, md)) / md);
}

std::unique_ptr<PoseData> make_pose_data(size_t n)
{
    auto d = std::make_unique<PoseData>();
    d->n = n;
    Arena &a = d->arena;
    for (int f = 0; f < 4; f++) {
        d->key[f].init(a, n), d->nkey[f] = a.alloc<nv_quat>(n);
        d->pos[f].init(a, n), d->npos[f] = a.alloc<nv_vec3>(n);
        d->scl[f].init(a, n), d->nscl[f] = a.alloc<nv_vec3>(n);
    }
    for (int f = 0; f < 2; f++)
        d->angvel[f].init(a, n), d->nangvel[f] = a.alloc<nv_vec3>(n);
    d->ref.init(a, n), d->nref = a.alloc<nv_quat>(n);
    for (size_t i = 0; i < kMaxK; i++) {
        d->sample[i].init(a, n);
        d->sample_list[i] = d->sample[i].in();
        d->sample_pos[i].init(a, n), d->pos_list[i] = d->sample_pos[i].in();
        d->sample_scl[i].init(a, n), d->scl_list[i] = d->sample_scl[i].in();
    }
    d->ref_pos.init(a, n), d->ref_scl.init(a, n);
    d->nsamples = a.alloc<nv_quat>(kMaxK * n);
    d->nsample_pos = a.alloc<nv_vec3>(kMaxK * n);
    d->nsample_scl = a.alloc<nv_vec3>(kMaxK * n);
    d->out_q.init(a, n), d->out_q2.init(a, n), d->out_v.init(a, n), d->out_v2.init(a, n);
    d->nout_q = a.alloc<nv_quat>(n), d->nout_q2 = a.alloc<nv_quat>(n);
    d->nout_v = a.alloc<nv_vec3>(n), d->nout_v2 = a.alloc<nv_vec3>(n);
    d->naccum = a.alloc<nv_vec3>(n);

    Rng r(0x5EED0000ull + n);
    for (size_t j = 0; j < n; j++) {
        // Rotation: frames r_{f+1} = exp(w_f / 2) r_f, the angular velocity w_f
        // (random axis, 0.02..0.1 rad per frame) drifting smoothly.
        DQuat q = random_rotation(r);
        DVec w[4];
        w[0] = scale(random_axis(r), r.uniform(0.02, 0.1));
        for (int f = 0; f < 4; f++) {
            put(d->key[f], d->nkey[f], j, q);
            q = mul(from_scaled_angle_axis(w[f]), q);
            if (f < 3)
                w[f + 1] = drift(r, w[f], 0.02, 0.1);
        }
        // Hermite velocities at key[1] and key[2]: central differences.
        put(d->angvel[0], d->nangvel[0], j, scale(add(w[0], w[1]), 0.5));
        put(d->angvel[1], d->nangvel[1], j, scale(add(w[1], w[2]), 0.5));

        // Translation: within a 1 m box, moving 0.5..3 cm per frame.
        DVec p{r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(-1, 1)};
        DVec v = scale(random_axis(r), r.uniform(0.005, 0.03));
        for (int f = 0; f < 4; f++) {
            put(d->pos[f], d->npos[f], j, p);
            p = add(p, v);
            v = drift(r, v, 0.005, 0.03);
        }

        // Scale: log-scale within +-0.1, changing by up to 1% per frame.
        DVec ls{r.uniform(-0.1, 0.1), r.uniform(-0.1, 0.1), r.uniform(-0.1, 0.1)};
        DVec lv = scale(random_axis(r), r.uniform(0.001, 0.01));
        for (int f = 0; f < 4; f++) {
            put(d->scl[f], d->nscl[f], j, exp3(ls));
            ls = add(ls, lv);
            lv = drift(r, lv, 0.001, 0.01);
        }

        // Averages: reference rotation up to 2 rad from identity (a local joint
        // rotation), samples within 0.5 rad of it.
        DQuat ref = from_scaled_angle_axis(scale(random_axis(r), r.uniform(0.0, 2.0)));
        put(d->ref, d->nref, j, ref);
        for (size_t i = 0; i < kMaxK; i++) {
            DQuat s = mul(ref, from_scaled_angle_axis(scale(random_axis(r), r.uniform(0.0, 0.5))));
            put(d->sample[i], d->nsamples + i * n, j, s);
        }
    }
    for (size_t k = 1; k <= kMaxK; k++) {
        double w[kMaxK], sum = 0;
        for (size_t i = 0; i < k; i++)
            sum += (w[i] = r.uniform(0.5, 1.5));
        for (size_t i = 0; i < kMaxK; i++)
            d->weights[k][i] = i < k ? (float)(w[i] / sum) : 0.0f;
    }

    // Blends: reference translation within a 1 m box and log-scale within
    // +-0.1, the samples' within 10 cm and +-0.05 of them (a generator of
    // their own: the data above does not depend on these).
    Rng rb(0xB1E0D000ull + n);
    for (size_t j = 0; j < n; j++) {
        DVec p{rb.uniform(-1, 1), rb.uniform(-1, 1), rb.uniform(-1, 1)};
        DVec ls{rb.uniform(-0.1, 0.1), rb.uniform(-0.1, 0.1), rb.uniform(-0.1, 0.1)};
        put(d->ref_pos, j, p);
        put(d->ref_scl, j, exp3(ls));
        for (size_t i = 0; i < kMaxK; i++) {
            put(d->sample_pos[i], d->nsample_pos + i * n, j,
                add(p, scale(random_axis(rb), rb.uniform(0.0, 0.1))));
            put(d->sample_scl[i], d->nsample_scl + i * n, j,
                exp3(add(ls, scale(random_axis(rb), rb.uniform(0.0, 0.05)))));
        }
    }
    return d;
}

// resample's clip: every joint turns as the interpolation keys above do
// (0.02..0.1 rad per frame about a smoothly drifting axis), unit quaternions
// in one continuous hemisphere per track.
std::unique_ptr<ClipData> make_clip_data(size_t n)
{
    auto c = std::make_unique<ClipData>();
    Arena &a = c->arena;
    size_t in = kClipFrames * n, out = kClipOutFrames * n;
    c->src_rot.init(a, in), c->nsrc = a.alloc<nv_quat>(in);
    c->out_rot.init(a, out), c->out_vel.init(a, out);
    c->nrot = a.alloc<nv_quat>(out), c->nvel = a.alloc<nv_vec3>(out);
    c->src = pb_clip{kClipFrames, n, 1.0 / kClipFps, c->src_rot.out(), {}, {}};
    c->dst = pb_clip{kClipOutFrames, n, 0.0, c->out_rot.out(), {}, {}};
    c->vel = pb_clip_vel{c->out_vel.out(), {}, {}};

    Rng r(0xC11F0000ull + n);
    for (size_t j = 0; j < n; j++) {
        DQuat q = random_rotation(r);
        DVec w = scale(random_axis(r), r.uniform(0.02, 0.1));
        for (size_t f = 0; f < kClipFrames; f++) {
            put(c->src_rot, c->nsrc, f * n + j, q);
            q = mul(from_scaled_angle_axis(w), q);
            w = drift(r, w, 0.02, 0.1);
        }
    }
    size_t frames = pb_clip_resample_frames(&c->src, kClipOutFps, 0);
    if (frames != kClipOutFrames) {
        std::fprintf(stderr, "posebatch-bench: pb_clip_resample_frames gives %zu frames, not %zu\n",
                     frames, kClipOutFrames);
        std::exit(1);
    }
    return c;
}

} // namespace

PoseData &pose_data(size_t n)
{
    static std::map<size_t, std::unique_ptr<PoseData>> cache;
    auto &slot = cache[n];
    if (!slot)
        slot = make_pose_data(n);
    return *slot;
}

ClipData &clip_data(PoseData &d)
{
    if (!d.clip)
        d.clip = make_clip_data(d.n);
    return *d.clip;
}

} // namespace pbbench
