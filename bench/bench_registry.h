// posebatch-bench's registration: the backends to time and one Google
// Benchmark per (kernel, backend, joints, k) of the kernel table, with the
// loop that times it.
#ifndef PB_BENCH_REGISTRY_H
#define PB_BENCH_REGISTRY_H

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench_kernels.h"

namespace pbbench
{

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

// naive, then every backend this CPU runs natively. SIMDe-emulated backends
// (test-only builds) are left out: their timings say nothing about the ISA.
std::vector<BackendInfo> benchmark_backends(bool quiet);

// Every backend this CPU runs natively, as (pb_backend, name), in enum
// order (the skeleton, IK, skinning and runtime-frame benchmarks' lists).
std::vector<std::pair<int, std::string>> native_backends();

// Registers kKernels' benchmarks for reg.backends, filling reg.by_name.
void register_all(Registry &reg);

} // namespace pbbench

#endif
