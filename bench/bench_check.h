// posebatch-bench's startup check: library and naive agree on the benchmark
// data.
#ifndef PB_BENCH_CHECK_H
#define PB_BENCH_CHECK_H

#include <vector>

#include "bench_kernels.h"

namespace pbbench
{

// Prints one warning line per (kernel, backend, k) that disagrees; returns the
// number of warnings. Not a test: the test suite is the judge of accuracy.
int check_against_naive(const std::vector<BackendInfo> &backends);

} // namespace pbbench

#endif
