// posebatch-bench's registration and timing loop (bench_registry.h).

#include "bench_registry.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>

#include "posebatch.h"

namespace pbbench
{

namespace
{

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

} // namespace

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

void register_all(Registry &reg)
{
    for (size_t ki = 0; ki < kKernelCount; ki++) {
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

std::vector<std::pair<int, std::string>> native_backends()
{
    std::vector<std::pair<int, std::string>> bs;
    for (int b = 0; b < PB_BACKEND_COUNT; b++)
        if (pb_backend_supported((pb_backend)b) && !pb_backend_emulated((pb_backend)b))
            bs.emplace_back(b, pb_backend_name((pb_backend)b));
    return bs;
}

} // namespace pbbench
