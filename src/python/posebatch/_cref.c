/* _cref: the C API called directly, for the Python test suite (bit-for-bit
 * comparison of the extension's results with the library's own). Not a user
 * tool. Reads raw float32 structure-of-arrays inputs from stdin, writes the
 * raw float32 outputs (structure of arrays) to stdout.
 *
 *   _cref BACKEND kernel NAME N X FLAGS     NAME: catmull_rom hermite raw_cubic
 *        slerp nlerp vec3_catmull_rom vec3_hermite; inputs: every component
 *        array in argument order; outputs: result then velocity
 *   _cref BACKEND average METHOD N K        stdin: weights[K], ref (4 arrays of
 *        N), samples (K x 4 arrays of N); stdout: 4 arrays of N
 *   _cref BACKEND resample F J FRAME_TIME FPS FLAGS   stdin: rot (4 x F*J),
 *        pos (3 x F*J); stdout: rot, pos, angular velocity, linear velocity of
 *        the output frames (4, 3, 3, 3 arrays)
 *   _cref BACKEND blend METHOD J K          stdin: weights[K], rot (K x 4 x J),
 *        pos (K x 3 x J), ref rot (4 x J), ref pos (3 x J); stdout: rot, pos
 *   _cref BACKEND layers METHOD LINEAR J K JW A AJW   pb_pose_blend_layers, full
 *        transforms (LINEAR: PB_BLEND_LINEAR_SCALE; JW, AJW: joint weights
 *        given); stdin: weights[K], per layer rot (4 x J), pos (3 x J), scale
 *        (3 x J) and with JW joint weights (J); additive weights[A], per
 *        additive layer the same (AJW); ref rot, pos, scale; stdout: rot,
 *        pos, scale
 *   _cref BACKEND time N ITERS             ns per pb_quat_catmull_rom call (with
 *        velocity) on N joints: the C side of bench/python_resample.py
 */
#include <math.h>
#include <posebatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *m)
{
    fprintf(stderr, "_cref: %s\n", m);
    exit(2);
}

static float *rd(size_t count)
{
    float *p = malloc((count ? count : 1) * sizeof *p);
    if (!p || fread(p, sizeof *p, count, stdin) != count)
        die("short input");
    return p;
}

static void wr(const float *p, size_t count)
{
    if (fwrite(p, sizeof *p, count, stdout) != count)
        die("write failed");
}

static pb_cquats cq(const float *p, size_t n)
{
    pb_cquats q = {p, p + n, p + 2 * n, p + 3 * n};
    return q;
}
static pb_quats mq(float *p, size_t n)
{
    pb_quats q = {p, p + n, p + 2 * n, p + 3 * n};
    return q;
}
static pb_cvec3s cv(const float *p, size_t n)
{
    pb_cvec3s v = {p, p + n, p + 2 * n};
    return v;
}
static pb_vec3s mv(float *p, size_t n)
{
    pb_vec3s v = {p, p + n, p + 2 * n};
    return v;
}

static void check(pb_status st)
{
    if (st != PB_OK)
        die(pb_status_str(st));
}

static int kernel(int argc, char **argv)
{
    if (argc < 7)
        die("kernel NAME N X FLAGS");
    const char *name = argv[3];
    size_t n = strtoul(argv[4], NULL, 10);
    float x = strtof(argv[5], NULL);
    unsigned flags = (unsigned)strtoul(argv[6], NULL, 10);
    if (!strcmp(name, "catmull_rom") || !strcmp(name, "raw_cubic")) {
        float *in = rd(16 * n);
        int raw = name[0] == 'r';
        float *out = calloc(8 * n + 1, sizeof *out);
        if (raw)
            check(pb_quat_raw_cubic(n, x, cq(in, n), cq(in + 4 * n, n), cq(in + 8 * n, n),
                                    cq(in + 12 * n, n), flags, mq(out, n), mq(out + 4 * n, n)));
        else
            check(pb_quat_catmull_rom(n, x, cq(in, n), cq(in + 4 * n, n), cq(in + 8 * n, n),
                                      cq(in + 12 * n, n), flags, mq(out, n), mv(out + 4 * n, n)));
        wr(out, (raw ? 8 : 7) * n);
    } else if (!strcmp(name, "hermite")) {
        float *in = rd(14 * n);
        float *out = calloc(7 * n + 1, sizeof *out);
        check(pb_quat_hermite(n, x, cq(in, n), cq(in + 4 * n, n), cv(in + 8 * n, n),
                              cv(in + 11 * n, n), flags, mq(out, n), mv(out + 4 * n, n)));
        wr(out, 7 * n);
    } else if (!strcmp(name, "slerp") || !strcmp(name, "nlerp")) {
        float *in = rd(8 * n);
        float *out = calloc(4 * n + 1, sizeof *out);
        check((name[0] == 's' ? pb_quat_slerp : pb_quat_nlerp)(n, x, cq(in, n), cq(in + 4 * n, n),
                                                               flags, mq(out, n)));
        wr(out, 4 * n);
    } else if (!strcmp(name, "vec3_catmull_rom") || !strcmp(name, "vec3_hermite")) {
        float *in = rd(12 * n);
        float *out = calloc(6 * n + 1, sizeof *out);
        check((name[5] == 'c' ? pb_vec3_catmull_rom : pb_vec3_hermite)(
            n, x, cv(in, n), cv(in + 3 * n, n), cv(in + 6 * n, n), cv(in + 9 * n, n), mv(out, n),
            mv(out + 3 * n, n)));
        wr(out, 6 * n);
    } else {
        die("unknown kernel");
    }
    return 0;
}

static int average(int argc, char **argv)
{
    if (argc < 6)
        die("average METHOD N K");
    const char *m = argv[3];
    size_t n = strtoul(argv[4], NULL, 10), k = strtoul(argv[5], NULL, 10);
    float *wt = rd(k), *ref = rd(4 * n), *s = rd(4 * n * k);
    pb_cquats *smp = malloc(k * sizeof *smp);
    for (size_t i = 0; i < k; i++)
        smp[i] = cq(s + 4 * n * i, n);
    float *out = calloc(4 * n + 1, sizeof *out);
    pb_quats o = mq(out, n);
    pb_status st;
    if (!strcmp(m, "raw"))
        st = pb_quat_average_raw(n, k, smp, wt, o);
    else if (!strcmp(m, "log"))
        st = pb_quat_average_log(n, k, smp, wt, o);
    else if (!strcmp(m, "raw_ref"))
        st = pb_quat_average_raw_ref(n, k, cq(ref, n), smp, wt, o);
    else if (!strcmp(m, "log_ref"))
        st = pb_quat_average_log_ref(n, k, cq(ref, n), smp, wt, o);
    else if (!strcmp(m, "accurate"))
        st = pb_quat_average_accurate(n, k, smp, wt, o);
    else if (!strcmp(m, "basic"))
        st = pb_quat_average_basic(n, k, smp, wt, o);
    else
        die("unknown method");
    check(st);
    wr(out, 4 * n);
    return 0;
}

static int resample(int argc, char **argv)
{
    if (argc < 8)
        die("resample F J FRAME_TIME FPS FLAGS");
    size_t f = strtoul(argv[3], NULL, 10), j = strtoul(argv[4], NULL, 10);
    double ft = strtod(argv[5], NULL), fps = strtod(argv[6], NULL);
    unsigned flags = (unsigned)strtoul(argv[7], NULL, 10);
    size_t fj = f * j;
    float *rot = rd(4 * fj), *pos = rd(3 * fj);
    pb_clip src = {f, j, ft, mq(rot, fj), mv(pos, fj), {NULL, NULL, NULL}};
    size_t fo = pb_clip_resample_frames(&src, fps, flags);
    if (fo == 0)
        die("bad resample arguments");
    size_t m = fo * j;
    float *out = calloc(13 * m + 1, sizeof *out);
    pb_clip dst = {fo, j, 0.0, mq(out, m), mv(out + 4 * m, m), {NULL, NULL, NULL}};
    pb_clip_vel vel = {mv(out + 7 * m, m), mv(out + 10 * m, m), {NULL, NULL, NULL}};
    check(pb_clip_resample(&src, fps, flags, &dst, &vel));
    wr(out, 13 * m);
    return 0;
}

static int blend(int argc, char **argv)
{
    if (argc < 6)
        die("blend METHOD J K");
    pb_blend_method method = (pb_blend_method)strtoul(argv[3], NULL, 10);
    size_t j = strtoul(argv[4], NULL, 10), k = strtoul(argv[5], NULL, 10);
    float *wt = rd(k), *rot = rd(4 * j * k), *pos = rd(3 * j * k), *rr = rd(4 * j), *rp = rd(3 * j);
    pb_cquats *r = malloc(k * sizeof *r);
    pb_cvec3s *p = malloc(k * sizeof *p);
    for (size_t i = 0; i < k; i++) {
        r[i] = cq(rot + 4 * j * i, j);
        p[i] = cv(pos + 3 * j * i, j);
    }
    pb_cpose ref = {cq(rr, j), cv(rp, j), {NULL, NULL, NULL}};
    float *out = calloc(7 * j + 1, sizeof *out);
    pb_pose o = {mq(out, j), mv(out + 4 * j, j), {NULL, NULL, NULL}};
    check(pb_pose_blend(j, k, r, p, NULL, wt, method, &ref, &o));
    wr(out, 7 * j);
    return 0;
}

/* one set of n layers of j joints read from stdin (weights first) */
static pb_blend_layer *read_layers(size_t n, size_t j, int jw)
{
    float *wt = rd(n);
    pb_blend_layer *l = calloc(n + 1, sizeof *l);
    if (!l)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        float *p = rd((10 + (jw ? 1 : 0)) * j);
        l[i].weight = wt[i];
        l[i].pose.rot = cq(p, j);
        l[i].pose.pos = cv(p + 4 * j, j);
        l[i].pose.scale = cv(p + 7 * j, j);
        l[i].joint_weights = jw ? p + 10 * j : NULL;
    }
    return l;
}

static int layers(int argc, char **argv)
{
    if (argc < 10)
        die("layers METHOD LINEAR J K JW A AJW");
    pb_blend_method method = (pb_blend_method)strtoul(argv[3], NULL, 10);
    unsigned flags = strtoul(argv[4], NULL, 10) ? PB_BLEND_LINEAR_SCALE : 0u;
    size_t j = strtoul(argv[5], NULL, 10), k = strtoul(argv[6], NULL, 10),
           a = strtoul(argv[8], NULL, 10);
    pb_blend_layer *bl = read_layers(k, j, atoi(argv[7])), *al = read_layers(a, j, atoi(argv[9]));
    float *r = rd(10 * j);
    pb_cpose ref = {cq(r, j), cv(r + 4 * j, j), cv(r + 7 * j, j)};
    float *out = calloc(10 * j + 1, sizeof *out);
    pb_pose o = {mq(out, j), mv(out + 4 * j, j), mv(out + 7 * j, j)};
    pb_blend_desc d = {j, bl, k, a ? al : NULL, a, method, flags, &ref};
    check(pb_pose_blend_layers(&d, &o));
    wr(out, 10 * j);
    return 0;
}

/* time N ITERS: ns per pb_quat_catmull_rom call with velocity on N joints
 * (structure-of-arrays inputs made once), best of 5 runs, for the
 * benchmark's Python-overhead figure. */
static int timing(int argc, char **argv)
{
    if (argc < 5)
        die("time N ITERS");
    size_t n = strtoul(argv[3], NULL, 10), iters = strtoul(argv[4], NULL, 10);
    float *in = calloc(16 * n + 1, sizeof *in), *out = calloc(7 * n + 1, sizeof *out);
    for (size_t k = 0; k < 4; k++)
        for (size_t i = 0; i < n; i++) {
            float a = 0.1f * (float)(i + k), c = cosf(a), s = sinf(a);
            in[16 * 0 + 4 * k * n + i] = c; /* w */
            in[4 * k * n + n + i] = s;      /* x */
        }
    double best = 1e30;
    for (int run = 0; run < 5; run++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (size_t it = 0; it < iters; it++)
            check(pb_quat_catmull_rom(n, 0.3f, cq(in, n), cq(in + 4 * n, n), cq(in + 8 * n, n),
                                      cq(in + 12 * n, n), 0, mq(out, n), mv(out + 4 * n, n)));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
                    (double)iters;
        if (ns < best)
            best = ns;
    }
    printf("%.2f\n", best);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        die("usage: _cref BACKEND kernel|average|resample|blend|layers ...");
    pb_backend b;
    if (pb_backend_from_name(argv[1], &b) != PB_OK || pb_backend_force(b) != PB_OK)
        die("backend not available");
    if (!strcmp(argv[2], "kernel"))
        return kernel(argc, argv);
    if (!strcmp(argv[2], "average"))
        return average(argc, argv);
    if (!strcmp(argv[2], "resample"))
        return resample(argc, argv);
    if (!strcmp(argv[2], "blend"))
        return blend(argc, argv);
    if (!strcmp(argv[2], "layers"))
        return layers(argc, argv);
    if (!strcmp(argv[2], "time"))
        return timing(argc, argv);
    die("unknown command");
    return 2;
}
