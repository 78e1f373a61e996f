// The --summary mode's tables (summary_tables.h), built with summary_report.h's
// formats and markdown printer.

#include "summary_tables.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <unistd.h>

#include "clip_bench.h"
#include "posebatch.h"
#include "summary_report.h"

namespace pbbench
{

namespace
{

// A summary row: (kernel, joints, k); ns per item per backend, NaN if absent.
struct Row {
    std::string label;
    std::vector<double> ns;
};

// The shipped clip's benchmarks (clip_bench.cc), per backend: ns per item;
// the resample's over the write floor and over the synthetic resample at 1024
// joints of the same backend, in this run.
void print_clip_table(FILE *out, const Registry &reg, const std::map<std::string, double> &medians,
                      const std::vector<Row> &rows, const std::map<std::string, size_t> &row_of)
{
    auto ns_of = [&](const std::string &name) {
        auto it = medians.find(name);
        return it == medians.end() ? NAN : it->second / clip_bench_items(name);
    };
    double write = NAN;
    for (const std::string &n : reg.clip_names)
        if (n.rfind("cmu_write/", 0) == 0)
            write = ns_of(n);
    std::vector<std::vector<std::string>> cells;
    for (const char *kind : {"cmu_resample", "cmu_pose_blend"}) {
        // (the synthetic pose_blend blends scales too: no like-for-like figure)
        bool res = std::strcmp(kind, "cmu_resample") == 0;
        auto srow = res ? row_of.find("resample/1024") : row_of.end();
        for (size_t b = 0; b < reg.backends.size(); b++) {
            std::string prefix = std::string(kind) + "/" + reg.backends[b].name + "/";
            for (const std::string &n : reg.clip_names) {
                if (n.rfind(prefix, 0) != 0)
                    continue;
                double v = ns_of(n);
                if (std::isnan(v))
                    continue;
                double s = srow == row_of.end() ? NAN : rows[srow->second].ns[b];
                cells.push_back({n, fmt_ns(v),
                                 res && !std::isnan(write) ? fmt_ratio(v / write) : "-",
                                 std::isnan(s) ? "-" : fmt_ratio(v / s)});
            }
        }
    }
    if (cells.empty())
        return;
    if (!std::isnan(write))
        cells.push_back({"cmu_write/memset (the same output bytes)", fmt_ns(write), "1.00x", "-"});
    std::fprintf(out,
                 "\nthe shipped clip (data/cmu_01_03.bvh, 31 joints, rotations and positions): "
                 "ns per output joint-sample (cmu_resample, 120 -> 480 fps) or per joint-layer "
                 "(cmu_pose_blend, log_ref of frames f..f+3 around f, every f); the resample over "
                 "the write floor and over the synthetic resample/1024 of the same backend, "
                 "this run\n\n");
    print_markdown(out, {"benchmark", "ns", "over write", "over synthetic 1024"}, cells);
}

} // namespace

void print_table(FILE *out, const Registry &reg, const std::map<std::string, double> &medians,
                 int repetitions, const std::string &min_time, double wall_over_cpu)
{
    // Rows: (kernel, joints, k) in registration order; columns: backends with a result.
    std::vector<Row> rows;
    std::map<std::string, size_t> row_of;
    std::vector<bool> have(reg.backends.size(), false);
    std::vector<std::string> notes; // units other than ns/joint
    std::vector<std::pair<BenchId, std::string>> ordered;
    for (const auto &kv : reg.by_name)
        ordered.push_back({kv.second, kv.first});
    std::sort(ordered.begin(), ordered.end(), [](const auto &a, const auto &b) {
        const BenchId &x = a.first, &y = b.first;
        if (x.kernel != y.kernel)
            return x.kernel < y.kernel;
        if (x.joints != y.joints)
            return x.joints < y.joints;
        if (x.k != y.k)
            return x.k < y.k;
        return x.backend < y.backend;
    });
    for (const auto &e : ordered) {
        auto it = medians.find(e.second);
        if (it == medians.end())
            continue;
        const BenchId &id = e.first;
        std::string label = std::string(kKernels[id.kernel].name) + "/" + std::to_string(id.joints);
        if (id.k)
            label += "/" + std::to_string(id.k);
        if (!row_of.count(label)) {
            row_of[label] = rows.size();
            rows.push_back(Row{label, std::vector<double>(reg.backends.size(), NAN)});
        }
        const Kernel &kern = kKernels[id.kernel];
        rows[row_of[label]].ns[id.backend] =
            it->second / (double)items_per_call(kern, id.joints, id.k);
        std::string note = unit_note(kern);
        if (!note.empty() && std::find(notes.begin(), notes.end(), note) == notes.end())
            notes.push_back(note);
        have[id.backend] = true;
    }
    if (rows.empty()) {
        std::fprintf(out, "posebatch-bench: no results to summarise\n");
        return;
    }

    size_t naive = 0, scalar = SIZE_MAX;
    for (size_t b = 0; b < reg.backends.size(); b++)
        if (reg.backends[b].id == PB_BACKEND_SCALAR)
            scalar = b;

    std::vector<std::string> head{"benchmark"};
    std::vector<std::vector<std::string>> cells(rows.size());
    for (size_t r = 0; r < rows.size(); r++)
        cells[r].push_back(rows[r].label);
    auto column = [&](const std::string &title, auto value) {
        head.push_back(title);
        for (size_t r = 0; r < rows.size(); r++) {
            double v = value(rows[r]);
            cells[r].push_back(std::isnan(v)                             ? "-"
                               : title.find(" vs ") == std::string::npos ? fmt_ns(v)
                                                                         : fmt_ratio(v));
        }
    };
    for (size_t b = 0; b < reg.backends.size(); b++)
        if (have[b])
            column(reg.backends[b].name, [b](const Row &row) { return row.ns[b]; });
    if (scalar != SIZE_MAX && have[scalar])
        for (size_t b = 0; b < reg.backends.size(); b++)
            if (have[b] && b != scalar && b != naive)
                column(reg.backends[b].name + " vs scalar",
                       [b, scalar](const Row &row) { return row.ns[scalar] / row.ns[b]; });
    if (have[naive])
        for (size_t b = 0; b < reg.backends.size(); b++)
            if (have[b] && b != naive)
                column(reg.backends[b].name + " vs naive",
                       [b, naive](const Row &row) { return row.ns[naive] / row.ns[b]; });

    std::fprintf(out, "\nposebatch %s on %s, %ld logical CPUs\n", pb_version_string(),
                 cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    std::fprintf(out,
                 "ns/joint%s: median of %d repetition%s (min_time %s s each, wall/CPU time "
                 "%.2f); \"X vs Y\": time(Y) / time(X), both from this run\n",
                 notes.empty() ? "" : " (other units below)", repetitions,
                 repetitions == 1 ? "" : "s", min_time.c_str(), wall_over_cpu);
    for (const std::string &note : notes)
        std::fprintf(out, "  %s\n", note.c_str());
    std::fprintf(out, "\n");
    if (wall_over_cpu > 1.15)
        std::fprintf(out,
                     "note: wall time was %.2fx the CPU time: the machine was busy, absolute "
                     "figures are inflated (ratios less so)\n\n",
                     wall_over_cpu);
    print_markdown(out, head, cells);

    // Small skeletons: each row's cost per unit over the same kernel's at
    // 1024 joints (same k), per backend, from this run.
    std::vector<std::vector<std::string>> ratio_cells;
    std::vector<std::string> ratio_head{"benchmark"};
    std::vector<size_t> ratio_cols;
    for (size_t b = 0; b < reg.backends.size(); b++)
        if (have[b] && b != naive) {
            ratio_head.push_back(reg.backends[b].name + " / 1024");
            ratio_cols.push_back(b);
        }
    for (const Row &row : rows) {
        std::string label = row.label;
        size_t s1 = label.find('/'), s2 = label.find('/', s1 + 1);
        std::string joints =
            label.substr(s1 + 1, s2 == std::string::npos ? std::string::npos : s2 - s1 - 1);
        if (joints == "1024")
            continue;
        std::string big =
            label.substr(0, s1 + 1) + "1024" + (s2 == std::string::npos ? "" : label.substr(s2));
        auto it = row_of.find(big);
        if (it == row_of.end())
            continue;
        std::vector<std::string> line{label};
        for (size_t b : ratio_cols) {
            double v = row.ns[b] / rows[it->second].ns[b];
            line.push_back(std::isnan(v) ? "-" : fmt_ratio(v));
        }
        ratio_cells.push_back(line);
    }
    if (ratio_cells.empty()) {
        print_clip_table(out, reg, medians, rows, row_of);
        return;
    }
    std::fprintf(out, "\nsmall skeletons: cost per unit over the same kernel's at 1024 joints "
                      "(same k, same backend, this run)\n\n");
    print_markdown(out, ratio_head, ratio_cells);
    print_clip_table(out, reg, medians, rows, row_of);
}

} // namespace pbbench
