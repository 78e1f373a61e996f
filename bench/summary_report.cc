// See summary_report.h.
#include "summary_report.h"

#include <fstream>

namespace pbbench
{

std::string cpu_model()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    const char *keys[] = {"model name", "Hardware", "CPU part", "Processor"};
    std::map<std::string, std::string> found;
    while (std::getline(f, line)) {
        size_t colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
        std::string val = line.substr(std::min(line.size(), colon + 2));
        if (!found.count(key))
            found[key] = val;
    }
    std::string model = "unknown CPU";
    for (const char *k : keys)
        if (found.count(k) && !found[k].empty()) {
            model = found[k];
            break;
        }
    if (found.count("cpu family") && found.count("model")) // x86: names the microarchitecture
        model += " (family " + found["cpu family"] + " model " + found["model"] + ")";
    return model;
}

std::string fmt_ns(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 10 ? "%.2f" : v < 100 ? "%.1f" : "%.0f", v);
    return buf;
}

std::string fmt_ratio(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 10 ? "%.2fx" : "%.1fx", v);
    return buf;
}

// A markdown table: the first column left-aligned, the others right-aligned.
void print_markdown(FILE *out, const std::vector<std::string> &head,
                    const std::vector<std::vector<std::string>> &cells)
{
    std::vector<size_t> width(head.size());
    for (size_t c = 0; c < head.size(); c++) {
        width[c] = head[c].size();
        for (const auto &row : cells)
            width[c] = std::max(width[c], row[c].size());
    }
    auto print_row = [&](const std::vector<std::string> &v) {
        std::fprintf(out, "|");
        for (size_t c = 0; c < v.size(); c++)
            std::fprintf(out, c ? " %*s |" : " %-*s |", (int)width[c], v[c].c_str());
        std::fprintf(out, "\n");
    };
    print_row(head);
    std::fprintf(out, "|");
    for (size_t c = 0; c < head.size(); c++)
        std::fprintf(out, c ? "%s:|" : ":%s|", std::string(width[c] + 1, '-').c_str());
    std::fprintf(out, "\n");
    for (const auto &row : cells)
        print_row(row);
}

} // namespace pbbench
