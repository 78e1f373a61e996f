// The benchmarks on the shipped CMU clip (clip_bench.cc).
#ifndef PB_CLIP_BENCH_H
#define PB_CLIP_BENCH_H

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

// Registers cmu_resample/B/J/4 and cmu_pose_blend/B/J/4 for each backend
// (id >= 0, name) and cmu_write/memset/J/4, appending their names; nothing
// (and a note on stderr) when the clip cannot be read.
void register_clip_benchmarks(const std::vector<std::pair<int, std::string>> &backends,
                              std::vector<std::string> *names);
// Items per iteration of one of them (output joint-samples, or joint-layers
// for cmu_pose_blend).
double clip_bench_items(const std::string &name);

#endif
