// The --summary mode's reporting pieces that know nothing of the kernels:
// a reporter collecting every repetition's time, the CPU's name, number
// formats and a markdown table (summary_tables.cc builds its tables with
// them).
#ifndef PB_BENCH_SUMMARY_REPORT_H
#define PB_BENCH_SUMMARY_REPORT_H

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pbbench
{

// Wraps the display reporter: collects every repetition's time per benchmark
// and forwards to the inner reporter (a console reporter sees only the median
// of each benchmark, other formats everything).
class SummaryReporter : public benchmark::BenchmarkReporter
{
  public:
    SummaryReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner, bool console_only_medians)
        : inner_(std::move(inner)), medians_only_(console_only_medians)
    {
    }

    bool ReportContext(const Context &context) override { return inner_->ReportContext(context); }

    void ReportRuns(const std::vector<Run> &reports) override
    {
        std::vector<Run> forward;
        for (const Run &r : reports) {
            bool fwd = !medians_only_ || r.error_occurred;
            if (r.run_type == Run::RT_Iteration && !r.error_occurred) {
                double ns =
                    r.GetAdjustedRealTime() * 1e9 / benchmark::GetTimeUnitMultiplier(r.time_unit);
                times_[r.run_name.function_name].push_back(ns);
                real_total_ += r.real_accumulated_time;
                cpu_total_ += r.cpu_accumulated_time;
                if (r.repetitions <= 1)
                    fwd = true;
            }
            if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median")
                fwd = true;
            if (fwd)
                forward.push_back(r);
        }
        if (!forward.empty())
            inner_->ReportRuns(forward);
    }

    void Finalize() override { inner_->Finalize(); }

    // Median time per iteration (ns) of each benchmark, by name.
    std::map<std::string, double> medians() const
    {
        std::map<std::string, double> m;
        for (const auto &kv : times_) {
            std::vector<double> t = kv.second;
            std::sort(t.begin(), t.end());
            size_t h = t.size() / 2;
            m[kv.first] = t.size() % 2 ? t[h] : 0.5 * (t[h - 1] + t[h]);
        }
        return m;
    }

    // Wall time over CPU time of all runs: well above 1 when other processes
    // competed for the CPU (absolute figures inflated).
    double wall_over_cpu() const { return cpu_total_ > 0 ? real_total_ / cpu_total_ : 1.0; }

  private:
    std::unique_ptr<benchmark::BenchmarkReporter> inner_;
    bool medians_only_;
    double real_total_ = 0, cpu_total_ = 0;
    std::map<std::string, std::vector<double>> times_;
};

// The CPU's model name from /proc/cpuinfo (x86: with family and model).
std::string cpu_model();
// ns with 3 significant figures; a ratio as "1.23x".
std::string fmt_ns(double v);
std::string fmt_ratio(double v);
// A markdown table: the first column left-aligned, the others right-aligned.
void print_markdown(FILE *out, const std::vector<std::string> &head,
                    const std::vector<std::vector<std::string>> &cells);

} // namespace pbbench

#endif
