// The runtime frame (bench/runtime_frame.h) per backend, ns per character
// (counter ns_per_char; items are characters):
//   frame/<B>/<J>/<N>   N characters of J joints, each at its own time: two
//                       clips and an additive one sampled, blended under a
//                       mask, local to model, skinning matrices; one call per
//                       step for all N (N = 1: one character per call).
// <B> is a backend this CPU runs natively, or "default" (the dispatcher's
// own choice, as a runtime gets it). Registered at start-up, like every
// benchmark of posebatch-bench.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_registry.h"
#include "runtime_frame.h"

namespace
{

void bench_frame(benchmark::State &st, int backend, size_t J, size_t N)
{
    if (backend >= 0 && pb_backend_force((pb_backend)backend) != PB_OK) {
        st.SkipWithError("pb_backend_force failed");
        return;
    }
    pbframe::Frame fr(J, N);
    std::vector<double> times(N);
    size_t k = 0;
    for (auto _ : st) {
        for (size_t c = 0; c < N; c++)
            times[c] = pbframe::char_time(c, k, fr.duration());
        k++;
        pb_status s = fr.run(times.data());
        if (s != PB_OK) {
            st.SkipWithError(pb_status_str(s));
            break;
        }
        benchmark::DoNotOptimize(fr.mats.data());
        benchmark::ClobberMemory();
    }
    st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)N);
    st.counters["ns_per_char"] =
        benchmark::Counter((double)st.iterations() * (double)N,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

int register_all()
{
    // the dispatcher's choice first (resolved before any forcing)
    std::vector<std::pair<int, std::string>> bs{{(int)pb_backend_active(), "default"}};
    for (auto &nb : pbbench::native_backends())
        bs.push_back(nb);
    const size_t cases[][2] = {{31, 1}, {64, 1}, {100, 1}, {31, 100}, {31, 1000}};
    for (auto &b : bs)
        for (auto &c : cases) {
            std::string name =
                "frame/" + b.second + "/" + std::to_string(c[0]) + "/" + std::to_string(c[1]);
            int id = b.first;
            size_t J = c[0], N = c[1];
            benchmark::RegisterBenchmark(
                name.c_str(), [id, J, N](benchmark::State &st) { bench_frame(st, id, J, N); });
        }
    return 0;
}
const int registered = register_all();

} // namespace
