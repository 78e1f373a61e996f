// posebatch-bench: Google Benchmark harness over the posebatch C API.
//
// Benchmarks are named <kernel>/<backend>/<joints> or, for averages,
// <kernel>/<backend>/<joints>/<k> (k sample poses). <backend> is "naive" (the
// reference texts transcribed per joint over array-of-structs data, naive.c)
// or a library backend that pb_backend_supported() reports for this CPU. One
// iteration processes one pose of <joints> joints; items_per_second counts
// joints, except for the clip-level kernels, which count their own items:
//   resample/B/J/4        one 31-frame 30 fps clip of <joints> joints resampled
//                         4x to 120 fps with angular velocity; items are output
//                         joint-samples (121 output frames x joints);
//   pose_blend/B/J/k      <k> full poses (rotation, translation, scale) blended
//                         around a reference by log_ref (the default method),
//                         pose_blend_raw_ref the same by raw_ref; items are
//                         joint-layers (joints x k).
// bench/clip_bench.cc adds cmu_resample, cmu_write and cmu_pose_blend on the
// shipped CMU clip (real motion capture, 31 joints); --summary prints them in
// a table of their own. bench/file_bench.cc adds file_* (the BVH text of that
// clip: parse, format, write, the whole job, a memcpy floor), also with a
// table of their own.
//
// posebatch-bench --summary [--repetitions=N] [benchmark flags...] runs the
// selection N times (default 5, randomly interleaved) and prints, per kernel
// and pose size, the median ns per item (joint, or as above) of every backend
// and the speedups over scalar and over naive measured in that run.
//
// bench_kernels.cc holds the kernel table, bench_data.cc makes the data
// (bench_data.h), bench_check.cc the startup check, bench_registry.cc the
// registration, summary_report.cc the summary's reporter and table printing,
// summary_tables.cc the summary's tables; this file the command line and main.
//
// To add a kernel: one entry in kKernels (bench_kernels.cc: a library call
// and its naive counterpart on the shared PoseData, which outputs to
// cross-check, and, for a kernel that is not one pose per call, its unit and
// output arrays).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "bench_check.h"
#include "bench_registry.h"
#include "clip_bench.h"
#include "file_bench.h"
#include "summary_report.h"
#include "summary_tables.h"

namespace
{

using namespace pbbench;

void print_help()
{
    benchmark::PrintDefaultHelp();
    std::fprintf(
        stdout,
        "\nposebatch-bench:\n"
        "  benchmarks <kernel>/<backend>/<joints>[/<k>]; backend naive is the reference\n"
        "  texts transcribed per joint (bench/naive.c); items_per_second counts joints\n"
        "  (resample: output joint-samples; pose_blend*: joints x k).\n"
        "  cmu_resample/<backend>/31/4, cmu_write/memset/31/4, cmu_pose_blend/<backend>/31/4:\n"
        "  the shipped CMU clip (bench/clip_bench.cc; $POSEBATCH_BENCH_CLIP overrides\n"
        "  the path).\n"
        "  file_parse, file_parse_numbers, file_format_numbers, file_write, file_job,\n"
        "  file_job_stream(_2t),\n"
        "  file_memcpy: BVH text of that clip and of its 480 fps resample, MB/s and ns\n"
        "  per joint-sample (bench/file_bench.cc).\n"
        "  [--summary [--repetitions=N]]\n"
        "      run the selection N times (default 5, randomly interleaved, default\n"
        "      --benchmark_min_time=%s) and print a table of the median ns per item\n"
        "      per backend with the speedups over scalar and over naive.\n",
        "0.05");
}

bool starts_with(const char *s, const char *prefix)
{
    return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

} // namespace

int main(int argc, char **argv)
{
    bool summary = false, list_only = false, user_min_time = false;
    int repetitions = 5;
    std::string format = "console", min_time = "0.05", color = "auto";
    std::vector<std::string> passthrough;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!std::strcmp(a, "--summary")) {
            summary = true;
            continue;
        }
        if (starts_with(a, "--repetitions")) {
            const char *v = nullptr;
            if (a[13] == '=')
                v = a + 14;
            else if (a[13] == '\0' && i + 1 < argc)
                v = argv[++i];
            char *end = nullptr;
            long n = v ? std::strtol(v, &end, 10) : 0;
            if (!v || *end || n < 1 || n > 1000) {
                std::fprintf(stderr, "posebatch-bench: bad --repetitions (want 1..1000)\n");
                return 1;
            }
            repetitions = (int)n;
            continue;
        }
        if (starts_with(a, "--benchmark_format="))
            format = a + 19;
        if (starts_with(a, "--benchmark_color="))
            color = a + 18;
        if (starts_with(a, "--benchmark_list_tests") &&
            std::strcmp(a, "--benchmark_list_tests=false"))
            list_only = true;
        if (starts_with(a, "--benchmark_min_time=")) {
            user_min_time = true;
            min_time = a + 21;
        }
        if (starts_with(a, "--benchmark_repetitions="))
            repetitions = std::max(1, std::atoi(a + 24));
        passthrough.emplace_back(a);
    }

    std::vector<std::string> args{argv[0]};
    if (summary) {
        args.push_back("--benchmark_repetitions=" + std::to_string(repetitions));
        args.push_back("--benchmark_enable_random_interleaving=true");
        if (!user_min_time)
            args.push_back("--benchmark_min_time=" + min_time);
    }
    args.insert(args.end(), passthrough.begin(), passthrough.end());
    std::vector<char *> cargv;
    for (std::string &s : args)
        cargv.push_back(&s[0]);
    cargv.push_back(nullptr);
    int cargc = (int)args.size();

    benchmark::Initialize(&cargc, cargv.data(), print_help);
    if (benchmark::ReportUnrecognizedArguments(cargc, cargv.data()))
        return 1;

    Registry reg;
    reg.backends = benchmark_backends(list_only);
    register_all(reg);
    std::vector<std::pair<int, std::string>> ids;
    for (const BackendInfo &b : reg.backends)
        ids.push_back({b.id, b.name});
    register_clip_benchmarks(ids, &reg.clip_names);
    register_file_benchmarks();

    if (!list_only)
        check_against_naive(reg.backends);

    if (!summary) {
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        return 0;
    }

    std::unique_ptr<benchmark::BenchmarkReporter> inner;
    bool console = format == "console";
    if (format == "json")
        inner = std::make_unique<benchmark::JSONReporter>();
    else if (console)
        inner = std::make_unique<benchmark::ConsoleReporter>(
            color == "true" || color == "yes" || color == "1" ||
                    ((color == "auto" || color.empty()) && isatty(STDOUT_FILENO))
                ? benchmark::ConsoleReporter::OO_Color
                : benchmark::ConsoleReporter::OO_None);
    else {
        std::fprintf(stderr,
                     "posebatch-bench: --summary supports --benchmark_format=console|json\n");
        return 1;
    }
    SummaryReporter rep(std::move(inner), console);
    benchmark::RunSpecifiedBenchmarks(&rep);
    benchmark::Shutdown();
    if (!list_only) {
        std::fflush(stdout);
        print_table(console ? stdout : stderr, reg, rep.medians(), repetitions, min_time,
                    rep.wall_over_cpu());
        print_file_table(console ? stdout : stderr, rep.medians());
    }
    return 0;
}
