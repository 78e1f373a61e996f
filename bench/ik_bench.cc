// Inverse kinematics per backend, in ns per solve (the counter
// ns_per_solve; items are solves):
//   ik2/<B>/<P>     pb_ik_two_bone_solve, P poses of the CMU 31-joint
//                   skeleton per call (a leg: joints 2, 3, 4, a hinge about
//                   z), reachable targets, in place on the local rotations;
//   aim/<B>/<P>     pb_ik_aim_solve, one joint (count 1), P poses per call;
//   aim3/<B>/<P>    the same over a chain of 3 joints (a spine and head).
// P = 1 (one character per call: the runtime's call), 4 and 64. <B> is a
// backend this CPU runs natively. The comparison with ozz-animation's
// IKTwoBoneJob / IKAimJob (built outside the project) is in
// docs/performance.md, "Inverse kinematics".

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "posebatch.h"

namespace
{

const int32_t kCmu31[31] = {-1, 0,  1,  2,  3,  4,  0,  6,  7,  8,  9,  0,  11, 12, 13, 14,
                            15, 13, 17, 18, 19, 20, 21, 20, 13, 24, 25, 26, 27, 28, 27};
const size_t kJ = 31;

struct IkData {
    size_t P;
    std::vector<float> l[7], m[7], tgt[3], pole[3];
    explicit IkData(size_t P_) : P(P_)
    {
        uint32_t s = 4242u;
        auto u = [&s]() {
            s = s * 1664525u + 1013904223u;
            return (float)(s >> 8) / 16777216.0f - 0.5f;
        };
        const size_t n = P * kJ;
        for (auto &v : l)
            v.resize(n);
        for (auto &v : m)
            v.resize(n);
        for (auto &v : tgt)
            v.resize(P);
        for (auto &v : pole)
            v.resize(P);
        for (size_t i = 0; i < n; i++) {
            float q[4] = {1.0f, 0.4f * u(), 0.4f * u(), 0.4f * u()};
            const size_t j = i % kJ;
            if (j == 3) { // the knee: a hinge about z, bones in the xy planes
                float h = 1.2f * u();
                q[0] = std::cos(h), q[1] = 0, q[2] = 0, q[3] = std::sin(h);
            }
            float nn = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            for (int k = 0; k < 4; k++)
                l[k][i] = q[k] / nn;
            l[4][i] = 4 * u(), l[5][i] = -20.0f + 4 * u(), l[6][i] = j == 3 || j == 4 ? 0 : 4 * u();
        }
        pb_cpose lp = {{l[0].data(), l[1].data(), l[2].data(), l[3].data()},
                       {l[4].data(), l[5].data(), l[6].data()},
                       {nullptr, nullptr, nullptr}};
        pb_pose mp = {{m[0].data(), m[1].data(), m[2].data(), m[3].data()},
                      {m[4].data(), m[5].data(), m[6].data()},
                      {nullptr, nullptr, nullptr}};
        if (pb_pose_local_to_model(P, kJ, kCmu31, &lp, &mp) != PB_OK)
            std::abort();
        for (size_t p = 0; p < P; p++) {
            const size_t b = p * kJ + 2;
            float d = 12.0f + 20.0f * (u() + 0.5f);
            float dx = u(), dy = u(), dz = u(), dn = std::sqrt(dx * dx + dy * dy + dz * dz);
            tgt[0][p] = m[4][b] + d * dx / dn, tgt[1][p] = m[5][b] + d * dy / dn;
            tgt[2][p] = m[6][b] + d * dz / dn;
            pole[0][p] = u(), pole[1][p] = 0.2f * u(), pole[2][p] = 1.0f;
        }
    }
    pb_cpose model() const
    {
        return {{m[0].data(), m[1].data(), m[2].data(), m[3].data()},
                {m[4].data(), m[5].data(), m[6].data()},
                {nullptr, nullptr, nullptr}};
    }
};

void set_solves(benchmark::State &st, size_t solves)
{
    st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)solves);
    st.counters["ns_per_solve"] =
        benchmark::Counter((double)st.iterations() * (double)solves,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// kind 0: two-bone, 1: aim one joint, 3: aim over a chain of 3
void bench_ik(benchmark::State &st, int backend, int kind, size_t P)
{
    if (pb_backend_force((pb_backend)backend) != PB_OK) {
        st.SkipWithError("pb_backend_force failed");
        return;
    }
    IkData d(P);
    const pb_cpose m = d.model();
    // in place, as a runtime calls it (the corrected pose corrected again:
    // the same work)
    pb_quats lq = {d.l[0].data(), d.l[1].data(), d.l[2].data(), d.l[3].data()};
    static const size_t chain[3] = {13, 14, 16};
    pb_ik_two_bone ik2 = {2,
                          3,
                          4,
                          {0, 0, 1},
                          {d.tgt[0].data(), d.tgt[1].data(), d.tgt[2].data()},
                          {d.pole[0].data(), d.pole[1].data(), d.pole[2].data()},
                          nullptr,
                          nullptr};
    pb_ik_aim aim = {kind == 3 ? 3u : 1u,
                     kind == 3 ? chain : chain + 2,
                     nullptr,
                     {0, 1, 0},
                     {0, 0, 1},
                     {d.tgt[0].data(), d.tgt[1].data(), d.tgt[2].data()},
                     {d.pole[0].data(), d.pole[1].data(), d.pole[2].data()},
                     nullptr};
    for (auto _ : st) {
        pb_status s = kind == 0 ? pb_ik_two_bone_solve(P, kJ, &ik2, &m, pb_cq(lq), lq, nullptr)
                                : pb_ik_aim_solve(P, kJ, &aim, &m, pb_cq(lq), lq);
        benchmark::DoNotOptimize(s);
        benchmark::ClobberMemory();
    }
    set_solves(st, P);
}

int register_all()
{
    const char *kinds[] = {"ik2", "aim", "", "aim3"};
    for (auto &nb : pbbench::native_backends()) {
        const int b = nb.first;
        for (int kind : {0, 1, 3})
            for (size_t P : {1, 4, 64}) {
                std::string name =
                    std::string(kinds[kind]) + "/" + nb.second + "/" + std::to_string(P);
                benchmark::RegisterBenchmark(
                    name.c_str(), [b, kind, P](benchmark::State &st) { bench_ik(st, b, kind, P); });
            }
    }
    return 0;
}

const int registered = register_all();

} // namespace
