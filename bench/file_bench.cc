// Benchmarks of BVH text on the shipped clip (data/cmu_01_03.bvh: 3.4 MB,
// 4511 frames of 31 joints, 96 channels) and its 480 fps resample (13.7 MB,
// 18044 frames: the README's main job):
//   file_parse           pb_bvh_read_memory of the clip's text in memory: the
//                        whole reader, Euler -> quaternion included; MB/s of
//                        input text, ns per input joint-sample;
//   file_parse_numbers   its motion lines' numbers alone: whitespace skipped,
//                        each read by pb_nt_parse (src/io/numtext_read.c,
//                        compiled in); MB/s of the motion text;
//   file_format_numbers  the 480 fps motion text's numbers alone: each value
//                        written by the formatter the writer uses for it
//                        (pb_nt_angle; pb_nt_double for source angles kept as
//                        read; pb_nt_float_pos) with its spaces and line
//                        breaks into one buffer, which is the writer's motion
//                        text byte for byte (checked); MB/s of output text, ns
//                        per output joint-sample;
//   file_write           pb_bvh_write_stream of the 480 fps pb_bvh to
//                        /dev/null: the whole writer, its Euler angle choice
//                        included;
//   file_job             what `posebatch resample data/cmu_01_03.bvh --fps 480
//                        -o OUT` does (less its size estimate): pb_bvh_read_file,
//                        pb_bvh_resample, pb_bvh_write_file into $TMPDIR (a
//                        temporary, fsync, rename);
//   file_job_stream      the same job as the CLI runs it now: pb_bvh_read_file
//                        and pb_bvh_resample_write_file (the resample written
//                        a block at a time; the same bytes);
//   file_job_stream_2t   the same with the writer's frames on 2 threads
//                        (pb_bvh_write_opts.threads; wall time);
//   file_memcpy          memcpy of as many bytes as the 480 fps text: the floor
//                        for producing it.
// The clip is $POSEBATCH_BENCH_CLIP, else the source tree's (PB_BENCH_CLIP).

#include "file_bench.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "posebatch.h"
#include "posebatch/io.h"

extern "C" {
#include "numtext.h"
}

namespace
{

constexpr double kOutFps = 480.0;

enum Kind : unsigned char { kAngle, kAsRead, kPos };

struct FileData {
    bool ok = false;
    std::string path, out_path;
    std::string text;  // the clip
    size_t motion = 0; // offset of its first data line
    pb_bvh src{};
    size_t in_samples = 0; // frames x joints
    pb_bvh out{};          // resampled to kOutFps
    std::string out_text;  // as the writer writes it
    size_t out_motion = 0; // offset of its first data line
    size_t out_samples = 0;
    std::vector<double> vals; // the output's values, frame by frame
    std::vector<Kind> kinds;
    std::vector<signed char> decs;
    std::string buf; // format / memcpy target
};

size_t data_offset(const std::string &t)
{
    size_t p = t.find("Frame Time:");
    if (p == std::string::npos)
        return std::string::npos;
    p = t.find('\n', p);
    return p == std::string::npos ? p : p + 1;
}

bool write_to_string(const pb_bvh &b, std::string *out)
{
    char *mem = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    if (!f)
        return false;
    pb_bvh_error err;
    pb_bvh_code rc = pb_bvh_write_stream(f, &b, &err);
    fclose(f);
    if (rc == PB_BVH_OK)
        out->assign(mem, len);
    free(mem);
    return rc == PB_BVH_OK;
}

void note(const char *path, const char *why)
{
    std::fprintf(stderr, "posebatch-bench: note: %s: %s; the file_* benchmarks are left out\n",
                 path, why);
}

// The output's values and which formatter wrote each (read back from its
// text: a rotation whose pb_nt_angle text is not the written one was a
// source angle kept as read).
bool split_values(FileData &d)
{
    const pb_bvh &b = d.out;
    const size_t C = b.num_channels, F = b.num_frames;
    std::vector<int> joint_of(C), ch_of(C);
    for (size_t j = 0; j < b.num_joints; j++)
        for (int c = 0; c < b.joints[j].num_channels; c++) {
            joint_of[b.joints[j].first_channel + (size_t)c] = (int)j;
            ch_of[b.joints[j].first_channel + (size_t)c] = b.joints[j].channels[c];
        }
    d.vals.resize(F * C);
    d.kinds.resize(F * C);
    d.decs.assign(F * C, 0);
    const char *p = d.out_text.data() + d.out_motion, *end = d.out_text.data() + d.out_text.size();
    char tmp[PB_NT_MAX + 1];
    for (size_t f = 0; f < F; f++)
        for (size_t c = 0; c < C; c++) {
            while (p < end && (*p == ' ' || *p == '\n'))
                p++;
            const char *s = p;
            while (p < end && *p != ' ' && *p != '\n')
                p++;
            double v;
            if (pb_nt_parse(s, (size_t)(p - s), &v) != (size_t)(p - s))
                return false;
            size_t i = f * C + c, o = f * b.num_joints + (size_t)joint_of[c];
            if (ch_of[c] < PB_BVH_XROT) {
                const float *pos[3] = {b.pos_x, b.pos_y, b.pos_z};
                d.vals[i] = pos[ch_of[c]][o];
                d.kinds[i] = kPos;
                d.decs[i] = b.decimals ? b.decimals[i] : 0;
            } else {
                size_t n = pb_nt_angle(tmp, v);
                d.vals[i] = v;
                d.kinds[i] = n == (size_t)(p - s) && std::memcmp(tmp, s, n) == 0 ? kAngle : kAsRead;
            }
        }
    return true;
}

FileData &data()
{
    static FileData d;
    static bool tried = false;
    if (tried)
        return d;
    tried = true;
    const char *path = std::getenv("POSEBATCH_BENCH_CLIP");
    if (!path || !*path)
        path = PB_BENCH_CLIP;
    d.path = path;
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        note(path, "cannot open");
        return d;
    }
    char chunk[65536];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0)
        d.text.append(chunk, got);
    std::fclose(f);
    pb_bvh_error err;
    if (pb_bvh_read_memory(d.text.data(), d.text.size(), &d.src, &err) != PB_BVH_OK) {
        note(path, err.message);
        return d;
    }
    d.motion = data_offset(d.text);
    d.in_samples = d.src.num_frames * d.src.num_joints;
    if (pb_bvh_resample(&d.src, kOutFps, 0, &d.out, &err) != PB_BVH_OK) {
        note(path, err.message);
        return d;
    }
    d.out_samples = d.out.num_frames * d.out.num_joints;
    if (d.motion == std::string::npos || !write_to_string(d.out, &d.out_text) ||
        (d.out_motion = data_offset(d.out_text)) == std::string::npos || !split_values(d)) {
        note(path, "cannot write or read back its resample");
        return d;
    }
    d.buf.assign(d.out_text.size() + d.out.num_channels * (PB_NT_MAX + 1) + 64, '\0');
    const char *tmp = std::getenv("TMPDIR");
    d.out_path = std::string(tmp && *tmp ? tmp : "/tmp") + "/posebatch-bench-" +
                 std::to_string((long)getpid()) + ".bvh";
    std::atexit([] { std::remove(data().out_path.c_str()); });
    d.ok = true;
    return d;
}

// Bytes of text and joint-samples of one iteration of each benchmark.
struct Work {
    double bytes, samples;
};

Work work_of(const std::string &name)
{
    const FileData &d = data();
    if (!d.ok)
        return {NAN, NAN};
    double in = (double)d.text.size(), in_motion = (double)(d.text.size() - d.motion);
    double out = (double)d.out_text.size(), out_motion = (double)(d.out_text.size() - d.out_motion);
    if (name == "file_parse")
        return {in, (double)d.in_samples};
    if (name == "file_parse_numbers")
        return {in_motion, (double)d.in_samples};
    if (name == "file_format_numbers")
        return {out_motion, (double)d.out_samples};
    if (name == "file_write" || name == "file_memcpy")
        return {out, (double)d.out_samples};
    if (name == "file_job" || name == "file_job_stream" || name == "file_job_stream_2t")
        return {out, (double)d.out_samples};
    return {NAN, NAN};
}

void set_counters(benchmark::State &st, const char *name)
{
    Work w = work_of(name);
    st.SetBytesProcessed((int64_t)(w.bytes * (double)st.iterations()));
    st.SetItemsProcessed((int64_t)(w.samples * (double)st.iterations()));
    // seconds per joint-sample (shown with an SI prefix: 12.3n is 12.3 ns)
    st.counters["per_joint_sample"] =
        benchmark::Counter(w.samples * (double)st.iterations(),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void bench_parse(benchmark::State &st)
{
    FileData &d = data();
    for (auto _ : st) {
        pb_bvh b;
        pb_bvh_error err;
        pb_bvh_code rc = pb_bvh_read_memory(d.text.data(), d.text.size(), &b, &err);
        benchmark::DoNotOptimize(rc);
        pb_bvh_free(&b);
    }
    set_counters(st, "file_parse");
}

void bench_parse_numbers(benchmark::State &st)
{
    FileData &d = data();
    const char *begin = d.text.data() + d.motion, *end = d.text.data() + d.text.size();
    for (auto _ : st) {
        double sum = 0.0;
        size_t count = 0;
        for (const char *p = begin;;) {
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
                p++;
            if (p >= end)
                break;
            double v;
            size_t n = pb_nt_parse(p, (size_t)(end - p), &v);
            if (n == 0)
                break;
            p += n;
            sum += v;
            count++;
        }
        benchmark::DoNotOptimize(sum);
        benchmark::DoNotOptimize(count);
    }
    set_counters(st, "file_parse_numbers");
}

// One pass of file_format_numbers; returns the length written.
size_t format_numbers(FileData &d)
{
    const size_t C = d.out.num_channels, F = d.out.num_frames;
    char *o = &d.buf[0];
    const double *v = d.vals.data();
    const Kind *k = d.kinds.data();
    const signed char *dec = d.decs.data();
    for (size_t f = 0; f < F; f++) {
        for (size_t c = 0; c < C; c++) {
            size_t i = f * C + c;
            if (c)
                *o++ = ' ';
            switch (k[i]) {
            case kAngle: o += pb_nt_angle(o, v[i]); break;
            case kAsRead: o += pb_nt_double(o, v[i]); break;
            default: o += pb_nt_float_pos(o, (float)v[i], dec[i]); break;
            }
        }
        *o++ = '\n';
    }
    return (size_t)(o - &d.buf[0]);
}

void bench_format_numbers(benchmark::State &st)
{
    FileData &d = data();
    size_t n = format_numbers(d);
    if (n != d.out_text.size() - d.out_motion ||
        std::memcmp(d.buf.data(), d.out_text.data() + d.out_motion, n) != 0) {
        st.SkipWithError("the formatted numbers are not the writer's motion text");
        return;
    }
    for (auto _ : st) {
        n = format_numbers(d);
        benchmark::DoNotOptimize(n);
        benchmark::ClobberMemory();
    }
    set_counters(st, "file_format_numbers");
}

void bench_write(benchmark::State &st)
{
    FileData &d = data();
    FILE *f = std::fopen("/dev/null", "w");
    if (!f) {
        st.SkipWithError("cannot open /dev/null");
        return;
    }
    for (auto _ : st) {
        pb_bvh_error err;
        pb_bvh_code rc = pb_bvh_write_stream(f, &d.out, &err);
        benchmark::DoNotOptimize(rc);
    }
    std::fclose(f);
    set_counters(st, "file_write");
}

void bench_job(benchmark::State &st)
{
    FileData &d = data();
    for (auto _ : st) {
        pb_bvh src, out;
        pb_bvh_error err;
        if (pb_bvh_read_file(d.path.c_str(), &src, &err) != PB_BVH_OK) {
            st.SkipWithError(err.message);
            return;
        }
        pb_bvh_code rc = pb_bvh_resample(&src, kOutFps, 0, &out, &err);
        if (rc == PB_BVH_OK) {
            rc = pb_bvh_write_file(d.out_path.c_str(), &out, &err);
            pb_bvh_free(&out);
        }
        pb_bvh_free(&src);
        if (rc != PB_BVH_OK) {
            st.SkipWithError(err.message);
            return;
        }
    }
    set_counters(st, "file_job");
}

void bench_job_stream(benchmark::State &st, unsigned threads, const char *name)
{
    FileData &d = data();
    pb_bvh_write_opts wo{};
    wo.threads = threads;
    for (auto _ : st) {
        pb_bvh src;
        pb_bvh_error err;
        if (pb_bvh_read_file(d.path.c_str(), &src, &err) != PB_BVH_OK) {
            st.SkipWithError(err.message);
            return;
        }
        pb_bvh_code rc =
            pb_bvh_resample_write_file(&src, kOutFps, 0, d.out_path.c_str(), &wo, &err);
        pb_bvh_free(&src);
        if (rc != PB_BVH_OK) {
            st.SkipWithError(err.message);
            return;
        }
    }
    set_counters(st, name);
}
void bench_job_stream_1(benchmark::State &st) { bench_job_stream(st, 1, "file_job_stream"); }
void bench_job_stream_2(benchmark::State &st) { bench_job_stream(st, 2, "file_job_stream_2t"); }

void bench_memcpy(benchmark::State &st)
{
    FileData &d = data();
    for (auto _ : st) {
        std::memcpy(&d.buf[0], d.out_text.data(), d.out_text.size());
        benchmark::ClobberMemory();
    }
    set_counters(st, "file_memcpy");
}

const char *const kNames[] = {"file_parse",      "file_parse_numbers", "file_format_numbers",
                              "file_write",      "file_job",           "file_memcpy",
                              "file_job_stream", "file_job_stream_2t"};

} // namespace

void register_file_benchmarks()
{
    if (!data().ok)
        return;
    benchmark::RegisterBenchmark(kNames[0], bench_parse)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(kNames[1], bench_parse_numbers)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(kNames[2], bench_format_numbers)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(kNames[3], bench_write)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(kNames[4], bench_job)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(kNames[5], bench_memcpy)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(kNames[6], bench_job_stream_1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(kNames[7], bench_job_stream_2)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
}

void print_file_table(FILE *out, const std::map<std::string, double> &medians)
{
    bool any = false;
    for (const char *n : kNames)
        any |= medians.count(n) > 0;
    if (!any)
        return;
    const FileData &d = data();
    std::fprintf(
        out,
        "\nBVH text of the shipped clip (%zu bytes in) and of its %g fps resample (%zu bytes "
        "out): median ms per pass, MB/s (10^6 bytes) of the text each reads or writes, ns "
        "per joint-sample (input for file_parse*, output otherwise)\n\n",
        d.text.size(), kOutFps, d.out_text.size());
    std::fprintf(out, "| benchmark | ms | MB/s | ns/joint-sample |\n|:--|--:|--:|--:|\n");
    for (const char *n : kNames) {
        auto it = medians.find(n);
        if (it == medians.end())
            continue;
        Work w = work_of(n);
        double ns = it->second;
        std::fprintf(out, "| %s | %.2f | %.0f | %.2f |\n", n, ns * 1e-6, w.bytes / ns * 1e3,
                     ns / w.samples);
    }
}
