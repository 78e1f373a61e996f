// The file benchmarks on the shipped clip (file_bench.cc).
#ifndef PB_FILE_BENCH_H
#define PB_FILE_BENCH_H

#include <cstdio>
#include <map>
#include <string>

// Registers file_parse, file_parse_numbers, file_format_numbers, file_write,
// file_job and file_memcpy (nothing, with a note on stderr, when the clip
// cannot be read).
void register_file_benchmarks();
// --summary: their table (MB/s of text and ns per joint-sample) from the
// median ns per iteration of each; nothing when none ran.
void print_file_table(FILE *out, const std::map<std::string, double> &medians);

#endif
