// The --summary mode's tables of the kernel benchmarks: per kernel and pose
// size, the median ns per item of every backend and the speedups, the small
// skeletons' cost over 1024 joints, and the shipped clip's table.
#ifndef PB_BENCH_SUMMARY_TABLES_H
#define PB_BENCH_SUMMARY_TABLES_H

#include <cstdio>
#include <map>
#include <string>

#include "bench_registry.h"

namespace pbbench
{

// Prints the tables from the median ns per iteration of each benchmark.
void print_table(FILE *out, const Registry &reg, const std::map<std::string, double> &medians,
                 int repetitions, const std::string &min_time, double wall_over_cpu);

} // namespace pbbench

#endif
