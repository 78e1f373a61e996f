// Linear blend skinning (pb_skin_vertices) per backend, in ns per vertex
// (the counter ns_per_vertex; items are vertices):
//   skin/<B>/<V>      V vertices (1000 and 100000), 4 influences each over
//                     64 joints (indices and weights from a fixed generator,
//                     weights summing to 1), positions and normals, 4x4
//                     column-major skinning matrices;
//   skin_pos/<B>/<V>  the same, positions only.
// <B> is "default" (the backend dispatch picks) or a backend this CPU runs
// natively. Registered at start-up, like every benchmark of posebatch-bench.
// docs/performance.md ("Skinning") compares it with ozz-animation's
// SkinningJob on the same data.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "posebatch.h"

namespace
{

struct SkinMesh {
    size_t V, J = 64;
    std::vector<uint16_t> jt;
    std::vector<float> wt, pos, nrm, mat, opos, onrm;
    explicit SkinMesh(size_t v)
        : V(v), jt(v * 4), wt(v * 4), pos(v * 3), nrm(v * 3), mat(64 * 16), opos(v * 3), onrm(v * 3)
    {
        uint32_t s = 4242u;
        auto u = [&s]() {
            s = s * 1664525u + 1013904223u;
            return (float)(s >> 8) / 16777216.0f;
        };
        for (size_t i = 0; i < V; i++) {
            float sum = 0;
            for (int k = 0; k < 4; k++) {
                jt[i * 4 + k] = (uint16_t)(u() * 63.99f);
                wt[i * 4 + k] = u() + 0.01f;
                sum += wt[i * 4 + k];
            }
            for (int k = 0; k < 4; k++)
                wt[i * 4 + k] /= sum;
            for (int c = 0; c < 3; c++) {
                pos[i * 3 + c] = u() * 2.0f - 1.0f;
                nrm[i * 3 + c] = u() * 2.0f - 1.0f;
            }
        }
        for (size_t j = 0; j < J; j++) {
            for (int k = 0; k < 16; k++)
                mat[j * 16 + k] = u() - 0.5f;
            mat[j * 16 + 3] = mat[j * 16 + 7] = mat[j * 16 + 11] = 0.0f;
            mat[j * 16 + 15] = 1.0f;
        }
    }
};

void bench_skin(benchmark::State &st, int backend, size_t V, bool normals)
{
    SkinMesh m(V);
    if (pb_backend_force((pb_backend)backend) != PB_OK) {
        st.SkipWithError("pb_backend_force failed");
        return;
    }
    for (auto _ : st) {
        pb_status s = pb_skin_vertices(
            V, 4, m.jt.data(), m.wt.data(), m.J, m.mat.data(), PB_MATRIX_4X4, m.pos.data(),
            m.opos.data(), normals ? m.nrm.data() : nullptr, normals ? m.onrm.data() : nullptr);
        benchmark::DoNotOptimize(s);
        benchmark::ClobberMemory();
    }
    st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)V);
    st.counters["ns_per_vertex"] =
        benchmark::Counter((double)st.iterations() * (double)V,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

int register_all()
{
    // "default": the backend resolved at start-up, before any is forced
    std::vector<std::pair<int, std::string>> bs{{(int)pb_backend_active(), "default"}};
    for (auto &nb : pbbench::native_backends())
        bs.push_back(nb);
    for (auto &b : bs)
        for (size_t V : {(size_t)1000, (size_t)100000})
            for (bool normals : {true, false}) {
                std::string name = std::string(normals ? "skin/" : "skin_pos/") + b.second + "/" +
                                   std::to_string(V);
                int id = b.first;
                benchmark::RegisterBenchmark(name.c_str(), [id, V, normals](benchmark::State &st) {
                    bench_skin(st, id, V, normals);
                });
            }
    return 0;
}

const int registered = register_all();

} // namespace
