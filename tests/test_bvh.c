/* Tests of the BVH reader/writer and the Euler conversions of the public
 * file API (include/posebatch/io.h; src/io).
 *
 * Real clips are read from PB_SHARED_DATA_DIR/mocap (located by clipdata.h:
 * set by meson to <source root>/../shared/data; the environment variable of
 * the same name overrides it). When the directory is absent those tests are
 * skipped, with a message. The clips are only read, never copied. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "posebatch/io.h" /* the public file API */
#include "bvh_sample.h"
#include "clipdata.h"

#define PI 3.14159265358979323846

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        abort();
    return p;
}

/* Appends printf output at buf + k (bounded by cap); returns the new length. */
static size_t appendf(char *buf, size_t cap, size_t k, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t appendf(char *buf, size_t cap, size_t k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + k, cap - k, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0 && (size_t)n < cap - k, "appendf overflow");
    return k + (size_t)n;
}

static char *make_tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    char *path = xmalloc(4096);
    snprintf(path, 4096, "%s/pb_bvh_test.XXXXXX", (t && *t) ? t : "/tmp");
    cr_assert_not_null(mkdtemp(path), "mkdtemp: %s", strerror(errno));
    return path;
}

/* Number of entries (other than . and ..) in a directory. */
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = xmalloc((size_t)n + 1);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return b;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* Angle (rad) between two rotations, sign-insensitive, accurate when small. */
static double quat_angle(const double a[4], const double b[4])
{
    /* d = conj(a) b */
    double w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double x = a[0] * b[1] - a[1] * b[0] - a[2] * b[3] + a[3] * b[2];
    double y = a[0] * b[2] + a[1] * b[3] - a[2] * b[0] - a[3] * b[1];
    double z = a[0] * b[3] - a[1] * b[2] + a[2] * b[1] - a[3] * b[0];
    double v = sqrt(x * x + y * y + z * z);
    return 2.0 * atan2(v, fabs(w));
}

static void bvh_quat(const pb_bvh *b, size_t i, double q[4])
{
    double w = b->rot_w[i], x = b->rot_x[i], y = b->rot_y[i], z = b->rot_z[i];
    double n = sqrt(w * w + x * x + y * y + z * z);
    q[0] = w / n;
    q[1] = x / n;
    q[2] = y / n;
    q[3] = z / n;
}

/* Independent reference: rotation matrix of an elementary rotation. */
static void elem(int axis, double deg, double M[3][3])
{
    double r = deg * PI / 180.0, c = cos(r), s = sin(r);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            M[i][j] = i == j;
    int a = (axis + 1) % 3, b = (axis + 2) % 3;
    M[a][a] = c;
    M[a][b] = -s;
    M[b][a] = s;
    M[b][b] = c;
}

static void matmul(double A[3][3], double B[3][3], double C[3][3])
{
    double T[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            T[i][j] = 0;
            for (int k = 0; k < 3; k++)
                T[i][j] += A[i][k] * B[k][j];
        }
    memcpy(C, T, sizeof T);
}

static void quat_to_mat(const double q[4], double R[3][3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0][0] = 1 - 2 * (y * y + z * z);
    R[0][1] = 2 * (x * y - w * z);
    R[0][2] = 2 * (x * z + w * y);
    R[1][0] = 2 * (x * y + w * z);
    R[1][1] = 1 - 2 * (x * x + z * z);
    R[1][2] = 2 * (y * z - w * x);
    R[2][0] = 2 * (x * z - w * y);
    R[2][1] = 2 * (y * z + w * x);
    R[2][2] = 1 - 2 * (x * x + y * y);
}

/* Deterministic uniform in [lo, hi). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(double lo, double hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* ------------------------------------------------------------------------ */
/* Euler <-> quaternion                                                     */
/* ------------------------------------------------------------------------ */

Test(euler, names_and_axes)
{
    const char *names[6] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
    for (int o = 0; o < 6; o++) {
        int ax[3];
        cr_assert_eq(pb_euler_order_axes((pb_euler_order)o, ax), 0);
        cr_assert_str_eq(pb_euler_order_name((pb_euler_order)o), names[o]);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(ax[k], names[o][k] - 'X');
        cr_assert_eq(pb_euler_order_from_axes(ax[0], ax[1], ax[2]), o);
    }
    cr_assert_eq(pb_euler_order_from_axes(0, 0, 1), -1);
    cr_assert_null(pb_euler_order_name(PB_EULER_ORDER_COUNT));
}

/* euler -> quat matches the product of elementary matrices in listed order. */
Test(euler, to_quat_matches_matrix_product)
{
    double maxe = 0;
    for (int o = 0; o < 6; o++) {
        int ax[3];
        pb_euler_order_axes((pb_euler_order)o, ax);
        for (int t = 0; t < 20000; t++) {
            double d[3] = {urand(-400, 400), urand(-400, 400), urand(-400, 400)};
            double q[4], R[3][3], A[3][3], B[3][3], C[3][3], M[3][3];
            pb_euler_to_quat((pb_euler_order)o, d, q);
            cr_assert_float_eq(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-14);
            quat_to_mat(q, R);
            elem(ax[0], d[0], A);
            elem(ax[1], d[1], B);
            elem(ax[2], d[2], C);
            matmul(A, B, M);
            matmul(M, C, M);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    maxe = fmax(maxe, fabs(R[i][j] - M[i][j]));
        }
    }
    cr_assert_lt(maxe, 1e-13, "max matrix difference %g", maxe);
}

/* Round trip for all orders, random angles, exact and near gimbal lock. */
Test(euler, round_trip_all_orders)
{
    double max_free = 0, max_lock = 0;
    for (int o = 0; o < 6; o++) {
        for (int t = 0; t < 40000; t++) {
            double d[3] = {urand(-180, 180), urand(-90, 90), urand(-180, 180)};
            int kind = t % 5;
            if (kind == 1)
                d[1] = 90.0;
            else if (kind == 2)
                d[1] = -90.0;
            else if (kind == 3)
                d[1] = (t & 8 ? 90.0 : -90.0) - urand(-1e-6, 1e-6);
            double q[4], e[3], q2[4];
            pb_euler_to_quat((pb_euler_order)o, d, q);
            pb_euler_from_quat((pb_euler_order)o, q, NULL, e);
            for (int k = 0; k < 3; k++)
                cr_assert(!isnan(e[k]), "NaN for order %d", o);
            cr_assert(e[1] >= -90.0 && e[1] <= 90.0, "middle %g out of range", e[1]);
            cr_assert(e[0] > -180.0 && e[0] <= 180.0 && e[2] > -180.0 && e[2] <= 180.0);
            pb_euler_to_quat((pb_euler_order)o, e, q2);
            double err = quat_angle(q, q2);
            if (kind == 1 || kind == 2) {
                cr_assert_eq(fabs(e[1]), 90.0, "pitch must be exactly +-90, got %.17g", e[1]);
                cr_assert_eq(e[0], 0.0, "locked first angle defaults to 0");
            }
            if (kind == 0 && fabs(fabs(d[1]) - 90.0) > 0.07) { /* outside the lock zone */
                max_free = fmax(max_free, err);
                for (int k = 0; k < 3; k++)
                    cr_assert_float_eq(e[k], d[k], 1e-8, "order %d angle %d: %.12g vs %.12g", o, k,
                                       e[k], d[k]);
            } else {
                max_lock = fmax(max_lock, err);
            }
            /* With prev at a locked rotation: first angle kept. */
            if (kind == 1 || kind == 2) {
                double prev[3] = {d[0] + 7.0, d[1], d[2]};
                pb_euler_from_quat((pb_euler_order)o, q, prev, e);
                cr_assert_eq(e[0], prev[0]);
                cr_assert_eq(fabs(e[1]), 90.0);
                pb_euler_to_quat((pb_euler_order)o, e, q2);
                max_lock = fmax(max_lock, quat_angle(q, q2));
            }
        }
    }
    fprintf(stderr, "euler round trip: max error %.3g rad (free), %.3g rad (at/near lock)\n",
            max_free, max_lock);
    cr_assert_lt(max_free, 1e-12);
    cr_assert_lt(max_lock, 2e-7);
}

/* prev picks the equivalent triple nearest to it, both branches and wraps. */
Test(euler, prev_selects_equivalent_triple)
{
    for (int o = 0; o < 6; o++) {
        for (int t = 0; t < 5000; t++) {
            double d[3] = {urand(-180, 180), urand(-85, 85), urand(-180, 180)};
            int br = t & 1;
            double k0 = floor(urand(-3, 3)), k1 = floor(urand(-3, 3)), k2 = floor(urand(-3, 3));
            double alt[3];
            if (br) {
                alt[0] = d[0] + 180.0 + 360.0 * k0;
                alt[1] = 180.0 - d[1] + 360.0 * k1;
                alt[2] = d[2] + 180.0 + 360.0 * k2;
            } else {
                alt[0] = d[0] + 360.0 * k0;
                alt[1] = d[1] + 360.0 * k1;
                alt[2] = d[2] + 360.0 * k2;
            }
            double q[4], e[3], prev[3];
            pb_euler_to_quat((pb_euler_order)o, d, q);
            for (int k = 0; k < 3; k++)
                prev[k] = alt[k] + urand(-20, 20);
            pb_euler_from_quat((pb_euler_order)o, q, prev, e);
            for (int k = 0; k < 3; k++)
                cr_assert_float_eq(e[k], alt[k], 1e-7, "order %d br %d angle %d: %.9g vs %.9g", o,
                                   br, k, e[k], alt[k]);
        }
    }
}

/* A smooth path through +-180 wraps and through gimbal lock gives a
 * continuous Euler track (no step larger than a few degrees). */
Test(euler, continuity_along_paths)
{
    for (int o = 0; o < 6; o++) {
        for (int path = 0; path < 3; path++) {
            double prev[3], e[3], q[4];
            double maxstep = 0, maxerr = 0;
            const int N = 4000;
            for (int i = 0; i <= N; i++) {
                double s = (double)i / N;
                double d[3];
                if (path == 0) { /* spins past 180 on all axes */
                    d[0] = -170 + 900 * s;
                    d[1] = 60 * sin(6 * s);
                    d[2] = 170 - 700 * s;
                } else if (path == 1) { /* through the lock, twice */
                    d[0] = 30 + 50 * s;
                    d[1] = 95 * sin(PI * 2 * s);
                    d[2] = -20 + 200 * s;
                } else { /* exactly along the lock line */
                    d[0] = 100 * s;
                    d[1] = 90;
                    d[2] = -40 + 10 * s;
                }
                pb_euler_to_quat((pb_euler_order)o, d, q);
                pb_euler_from_quat((pb_euler_order)o, q, i ? prev : NULL, e);
                if (i)
                    for (int k = 0; k < 3; k++)
                        maxstep = fmax(maxstep, fabs(e[k] - prev[k]));
                double q2[4];
                pb_euler_to_quat((pb_euler_order)o, e, q2);
                maxerr = fmax(maxerr, quat_angle(q, q2));
                memcpy(prev, e, sizeof prev);
            }
            cr_assert_lt(maxerr, 2e-7, "order %d path %d: error %g", o, path, maxerr);
            /* Path steps are < 0.25 degrees per angle; through the lock the
             * first and third angle may trade, but never jump by 180. */
            cr_assert_lt(maxstep, path == 1 ? 90.0 : 1.0, "order %d path %d: step %g", o, path,
                         maxstep);
        }
    }
}

Test(euler, partial_orders)
{
    for (int o = 0; o < 6; o++) {
        for (int n = 0; n <= 2; n++) {
            for (int t = 0; t < 3000; t++) {
                double d[3] = {urand(-180, 180), urand(-90, 90), 0};
                if (t % 7 == 0)
                    d[1] = t % 14 ? 90 : -90;
                if (n < 2)
                    d[1] = 0;
                if (n < 1)
                    d[0] = 0;
                double q[4], e[3], q2[4], full[4];
                pb_euler_to_quat_n((pb_euler_order)o, n, d, q);
                pb_euler_to_quat((pb_euler_order)o, d, full);
                cr_assert_lt(quat_angle(q, full), 1e-12);
                pb_euler_from_quat_n((pb_euler_order)o, n, q, NULL, e);
                cr_assert_eq(e[2], 0.0);
                if (n < 2)
                    cr_assert_eq(e[1], 0.0);
                pb_euler_to_quat_n((pb_euler_order)o, n, e, q2);
                cr_assert_lt(quat_angle(q, q2), 1e-9, "order %d n %d", o, n);
            }
        }
    }
}

Test(euler, degenerate_inputs)
{
    double e[3];
    double zero[4] = {0, 0, 0, 0}, nanq[4] = {NAN, 0, 0, 0};
    pb_euler_from_quat(PB_EULER_ZYX, zero, NULL, e);
    cr_assert(isnan(e[0]) && isnan(e[1]) && isnan(e[2]));
    pb_euler_from_quat(PB_EULER_ZYX, nanq, NULL, e);
    cr_assert(isnan(e[0]));
    double big[4] = {1e300, 1e300, 0, 0}, q[4], small[4] = {1e-300, 0, 0, 1e-300};
    pb_euler_from_quat(PB_EULER_XYZ, big, NULL, e);
    pb_euler_to_quat(PB_EULER_XYZ, e, q);
    cr_assert_float_eq(e[0], 90.0, 1e-12);
    pb_euler_from_quat(PB_EULER_XYZ, small, NULL, e);
    cr_assert_float_eq(e[2], 90.0, 1e-12);
    double negw[4] = {-1, 0, 0, 0};
    pb_euler_from_quat(PB_EULER_XYZ, negw, NULL, e);
    cr_assert(e[0] == 0 && e[1] == 0 && e[2] == 0, "%g %g %g", e[0], e[1], e[2]);
}

/* ------------------------------------------------------------------------ */
/* Real clips: read -> write -> read                                        */
/* ------------------------------------------------------------------------ */

/* Values of the data lines of a BVH text (after the Frame Time line). */
static double *data_values(const char *text, size_t frames, size_t channels)
{
    const char *p = strstr(text, "Frame Time");
    if (!p)
        p = strstr(text, "Frame time");
    cr_assert_not_null(p);
    p = strchr(p, '\n');
    cr_assert_not_null(p);
    double *v = xmalloc((frames * channels + 1) * sizeof *v);
    char *end;
    for (size_t i = 0; i < frames * channels; i++) {
        v[i] = strtod(p, &end);
        cr_assert(end != p, "value %zu unreadable", i);
        p = end;
    }
    return v;
}

/* Jumps > 180 degrees between consecutive frames in any rotation channel. */
static size_t count_jumps(const pb_bvh *b, const double *v)
{
    size_t n = 0, C = b->num_channels;
    for (size_t j = 0; j < b->num_joints; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        for (int c = 0; c < jt->num_channels; c++) {
            if (jt->channels[c] < PB_BVH_XROT)
                continue;
            size_t col = jt->first_channel + (size_t)c;
            for (size_t f = 1; f < b->num_frames; f++)
                n += fabs(v[f * C + col] - v[(f - 1) * C + col]) > 180.0;
        }
    }
    return n;
}

static void assert_same_skeleton(const pb_bvh *a, const pb_bvh *b)
{
    cr_assert_eq(a->num_joints, b->num_joints);
    cr_assert_eq(a->num_end_sites, b->num_end_sites);
    cr_assert_eq(a->num_channels, b->num_channels);
    for (size_t j = 0; j < a->num_joints; j++) {
        const pb_bvh_joint *x = &a->joints[j], *y = &b->joints[j];
        cr_assert_str_eq(x->name, y->name);
        cr_assert_eq(x->parent, y->parent, "joint %s", x->name);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(x->offset[k], y->offset[k], "offset of %s", x->name);
        cr_assert_eq(x->num_channels, y->num_channels);
        cr_assert_eq(memcmp(x->channels, y->channels, x->num_channels), 0);
        cr_assert_eq(x->num_rot, y->num_rot);
        cr_assert_eq(x->rot_order, y->rot_order);
        cr_assert_eq(x->first_channel, y->first_channel);
    }
    for (size_t e = 0; e < a->num_end_sites; e++) {
        cr_assert_eq(a->end_sites[e].parent, b->end_sites[e].parent);
        cr_assert_eq(a->end_sites[e].child_index, b->end_sites[e].child_index);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(a->end_sites[e].offset[k], b->end_sites[e].offset[k]);
    }
}

typedef struct rt_result {
    double max_rot_rad; /* max angle between read and re-read quaternions */
    double max_pos_abs; /* max |position difference| */
    double max_pos_rel; /* relative to max(1, |p|) */
    size_t jumps_in, jumps_out;
    double max_value_diff; /* max |written - source| over every data value */
} rt_result;

/* read -> write (in the given Euler mode) -> read of one file; checks and
 * returns the errors. */
static rt_result round_trip(const char *path, const pb_bvh *a, pb_bvh_euler_mode mode)
{
    rt_result r = {0, 0, 0, 0, 0, 0};
    char *dir = make_tmpdir();
    char out[4200];
    snprintf(out, sizeof out, "%s/out.bvh", dir);
    pb_bvh_error err;
    pb_bvh_write_opts wo = {mode, NULL, NULL, 0, 0};
    cr_assert_eq(pb_bvh_write_file_with(out, a, &wo, &err), PB_BVH_OK, "write: %s", err.message);
    cr_assert_eq(dir_entries(dir), 1, "only the output remains");
    pb_bvh b;
    cr_assert_eq(pb_bvh_read_file(out, &b, &err), PB_BVH_OK, "re-read: %s", err.message);
    assert_same_skeleton(a, &b);
    cr_assert_eq(b.num_frames, a->num_frames);
    cr_assert_eq(b.frame_time, a->frame_time, "%.17g vs %.17g", b.frame_time, a->frame_time);
    size_t n = a->num_frames * a->num_joints;
    for (size_t i = 0; i < n; i++) {
        double qa[4], qb[4];
        bvh_quat(a, i, qa);
        bvh_quat(&b, i, qb);
        r.max_rot_rad = fmax(r.max_rot_rad, quat_angle(qa, qb));
        float pa[3] = {a->pos_x[i], a->pos_y[i], a->pos_z[i]};
        float pb[3] = {b.pos_x[i], b.pos_y[i], b.pos_z[i]};
        for (int k = 0; k < 3; k++) {
            double d = fabs((double)pa[k] - (double)pb[k]);
            r.max_pos_abs = fmax(r.max_pos_abs, d);
            r.max_pos_rel = fmax(r.max_pos_rel, d / fmax(1.0, fabs((double)pa[k])));
        }
    }
    /* Continuity of the written Euler channels vs the input's. */
    char *tin = slurp(path, NULL), *tout = slurp(out, NULL);
    double *vin = data_values(tin, a->num_frames, a->num_channels);
    double *vout = data_values(tout, a->num_frames, a->num_channels);
    r.jumps_in = count_jumps(a, vin);
    r.jumps_out = count_jumps(a, vout);
    for (size_t i = 0; i < a->num_frames * a->num_channels; i++)
        r.max_value_diff = fmax(r.max_value_diff, fabs(vin[i] - vout[i]));
    free(vin);
    free(vout);
    free(tin);
    free(tout);
    pb_bvh_free(&b);
    rm_tree(dir);
    free(dir);
    return r;
}

/* Rotation error bound of read -> write -> read: each float quaternion is
 * rounded to 2^-25 per component (<= 1.1e-7 rad, twice), the printed angles
 * to 5e-7 degrees each (3 x 8.7e-9 rad), and near gimbal lock the writer may
 * trade up to 1e-7 rad for continuity: 3.5e-7 in all; measured 7e-8..8.4e-8
 * on the real clips. (The brief allows 1e-5.) */
#define RT_ROT_TOL 5e-7

static void check_clip(const char *name, size_t frames, size_t joints, size_t ends, size_t chans,
                       double frame_time, size_t jumps_in, pb_bvh *keep)
{
    char *path = clip_path(name);
    if (!path) {
        cr_skip_test("shared data not found at %s: %s skipped", data_dir(), name);
        return;
    }
    pb_bvh a;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(path, &a, &err), PB_BVH_OK, "%s: %s", name, err.message);
    cr_assert_eq(a.num_frames, frames);
    cr_assert_eq(a.num_joints, joints);
    cr_assert_eq(a.num_end_sites, ends);
    cr_assert_eq(a.num_channels, chans);
    cr_assert_eq(a.frame_time, frame_time);
    /* Default: the source's own angles (every value as in the source, to float
     * precision: 4 decimals in these files, float spacing below 1.6e-5 at
     * 180 degrees), so the jumps of the source are kept. */
    rt_result r = round_trip(path, &a, PB_BVH_EULER_SOURCE);
    rt_result c = round_trip(path, &a, PB_BVH_EULER_CONTINUOUS);
    fprintf(stderr,
            "round trip %-46s %5zu frames: rot max %.3g rad, pos max %.3g abs / %.3g rel, "
            "values max %.3g off; Euler jumps >180: %zu in input, %zu written, %zu continuous\n",
            name, frames, r.max_rot_rad, r.max_pos_abs, r.max_pos_rel, r.max_value_diff, r.jumps_in,
            r.jumps_out, c.jumps_out);
    cr_assert_lt(r.max_rot_rad, RT_ROT_TOL, "%s: rotation error %g", name, r.max_rot_rad);
    cr_assert_lt(c.max_rot_rad, RT_ROT_TOL, "%s: rotation error %g", name, c.max_rot_rad);
    cr_assert_leq(r.max_pos_rel, 1.2e-7, "%s: position error %g", name, r.max_pos_rel);
    cr_assert_eq(r.jumps_in, jumps_in, "%s: %zu jumps in input", name, r.jumps_in);
    cr_assert_eq(r.jumps_out, jumps_in, "%s: %zu jumps written", name, r.jumps_out);
    cr_assert_leq(r.max_value_diff, 1.6e-5, "%s: a value off by %g", name, r.max_value_diff);
    cr_assert_eq(c.jumps_out, 0, "%s: %zu jumps written (continuous)", name, c.jumps_out);
    if (keep)
        *keep = a;
    else
        pb_bvh_free(&a);
}

static void assert_vec(float x, float y, float z, double ex, double ey, double ez, double tol)
{
    cr_assert_float_eq(x, ex, tol, "%g vs %g", x, ex);
    cr_assert_float_eq(y, ey, tol, "%g vs %g", y, ey);
    cr_assert_float_eq(z, ez, tol, "%g vs %g", z, ez);
}

Test(bvh_clips, cmu_01_03, .timeout = 120)
{
    pb_bvh a;
    check_clip("cmu_01_03.bvh", 4511, 31, 7, 96, 0.0083333, 27, &a);
    const pb_bvh_joint *h = &a.joints[0];
    cr_assert_str_eq(h->name, "Hips");
    cr_assert_eq(h->num_channels, 6);
    cr_assert_eq(h->rot_order, PB_EULER_ZYX);
    for (size_t j = 1; j < a.num_joints; j++) {
        cr_assert_eq(a.joints[j].num_channels, 3);
        cr_assert_eq(a.joints[j].rot_order, PB_EULER_ZYX);
    }
    long lhip = pb_bvh_find_joint(&a, "LHipJoint");
    cr_assert_geq(lhip, 0);
    assert_vec(a.joints[lhip].offset[0], a.joints[lhip].offset[1], a.joints[lhip].offset[2], 0, 0,
               0, 0);
    pb_bvh_free(&a);
}

Test(bvh_clips, cmu3dsmax_131_01, .timeout = 120)
{
    pb_bvh a;
    check_clip("cmu3dsmax_131_01.bvh", 994, 31, 7, 96, 0.0083333, 7, &a);
    const char *zxy[] = {"LeftShoulder", "LeftElbow", "LeftWrist",     "lhand",
                         "LFingers",     "LThumb",    "RightShoulder", "RightElbow",
                         "RightWrist",   "rhand",     "RFingers",      "RThumb"};
    size_t nzxy = 0;
    for (size_t k = 0; k < 12; k++) {
        long j = pb_bvh_find_joint(&a, zxy[k]);
        cr_assert_geq(j, 0, "%s", zxy[k]);
        cr_assert_eq(a.joints[j].rot_order, PB_EULER_ZXY, "%s", zxy[k]);
    }
    for (size_t j = 0; j < a.num_joints; j++)
        nzxy += a.joints[j].rot_order == PB_EULER_ZXY;
    cr_assert_eq(nzxy, 12);
    pb_bvh_free(&a);
}

static void check_bandai(const char *name, size_t frames, size_t jumps, double hx, double hy,
                         double hz)
{
    pb_bvh a;
    memset(&a, 0, sizeof a);
    check_clip(name, frames, 22, 5, 132, 0.0333333, jumps, &a);
    if (!a.num_joints)
        return;
    cr_assert_str_eq(a.joints[0].name, "joint_Root");
    for (size_t j = 0; j < a.num_joints; j++) {
        cr_assert_eq(a.joints[j].num_channels, 6);
        cr_assert_eq(a.joints[j].rot_order, PB_EULER_ZXY);
    }
    /* Static root: identity rotation, zero position in every frame. */
    for (size_t f = 0; f < a.num_frames; f++) {
        size_t i = f * a.num_joints;
        cr_assert(a.rot_w[i] == 1.0f && a.rot_x[i] == 0.0f && a.rot_y[i] == 0.0f &&
                  a.rot_z[i] == 0.0f);
        cr_assert(a.pos_x[i] == 0.0f && a.pos_y[i] == 0.0f && a.pos_z[i] == 0.0f);
    }
    /* Hips position channels replace the OFFSET. */
    assert_vec(a.pos_x[1], a.pos_y[1], a.pos_z[1], hx, hy, hz, 1e-4);
    pb_bvh_free(&a);
}

Test(bvh_clips, bandai_dance_short, .timeout = 120)
{
    check_bandai("bandai_dataset-1_dance-short_normal_001.bvh", 1901, 366, 1.70155, 92.9004,
                 -191.061);
}

Test(bvh_clips, bandai_slash, .timeout = 120)
{
    check_bandai("bandai_dataset-1_slash_normal_002.bvh", 478, 40, -2.04275, 85.0456, -24.1921);
}

Test(bvh_clips, pymo_walk, .timeout = 120)
{
    pb_bvh a;
    memset(&a, 0, sizeof a);
    check_clip("pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh", 1064, 23, 7, 72, 0.008333, 4, &a);
    if (!a.num_joints)
        return;
    cr_assert_eq(a.joints[0].rot_order, PB_EULER_XYZ);
    assert_vec(a.joints[0].offset[0], a.joints[0].offset[1], a.joints[0].offset[2], 11.2666,
               35.4190, -54.3259, 1e-4);
    assert_vec(a.pos_x[0], a.pos_y[0], a.pos_z[0], -6.5115, 35.5548, -163.0160, 1e-4);
    const char *ends[2] = {"LeftHand_End", "RightHand_End"};
    for (int k = 0; k < 2; k++) {
        long j = pb_bvh_find_joint(&a, ends[k]);
        cr_assert_geq(j, 0, "%s is a real joint", ends[k]);
        cr_assert_eq(a.joints[j].num_channels, 3);
        int has_end = 0;
        for (size_t e = 0; e < a.num_end_sites; e++)
            has_end |= a.end_sites[e].parent == j;
        cr_assert(has_end, "%s has an End Site", ends[k]);
    }
    pb_bvh_free(&a);
}

/* Every *.bvh in the shared mocap directory (including ones added later). */
static void round_trip_file(const char *path, const char *name, void *ctx)
{
    (void)ctx;
    pb_bvh a;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(path, &a, &err), PB_BVH_OK, "%s: %s", name, err.message);
    rt_result r = round_trip(path, &a, PB_BVH_EULER_SOURCE);
    rt_result c = round_trip(path, &a, PB_BVH_EULER_CONTINUOUS);
    cr_assert_lt(r.max_rot_rad, RT_ROT_TOL, "%s", name);
    cr_assert_leq(r.max_pos_rel, 1.2e-7, "%s", name);
    cr_assert_eq(r.jumps_out, r.jumps_in, "%s", name);
    cr_assert_leq(r.max_value_diff, 1.6e-5, "%s: a value off by %g", name, r.max_value_diff);
    cr_assert_eq(c.jumps_out, 0, "%s", name);
    pb_bvh_free(&a);
}

Test(bvh_clips, every_file_in_mocap_dir, .timeout = 300)
{
    int count = for_each_mocap_bvh(round_trip_file, NULL);
    if (count < 0) {
        cr_skip_test("shared data not found at %s/mocap", data_dir());
        return;
    }
    cr_assert_gt(count, 0);
}

/* ------------------------------------------------------------------------ */
/* Syntax variants                                                          */
/* ------------------------------------------------------------------------ */

#define k_valid k_sample_bvh /* 20 */

static pb_bvh read_ok(const char *text)
{
    pb_bvh b;
    pb_bvh_error err;
    pb_bvh_code rc = pb_bvh_read_memory(text, strlen(text), &b, &err);
    cr_assert_eq(rc, PB_BVH_OK, "unexpected error: %s", err.message);
    return b;
}

/* Replaces the first occurrence of `from` in the valid text by `to`. */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    cr_assert_not_null(p, "edit: '%s' not found", from);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *r = xmalloc(n);
    size_t pre = (size_t)(p - text);
    memcpy(r, text, pre);
    strcpy(r + pre, to);
    strcat(r, p + strlen(from));
    return r;
}

Test(bvh_syntax, valid_sample)
{
    pb_bvh b = read_ok(k_valid);
    cr_assert_eq(b.num_joints, 2);
    cr_assert_eq(b.num_end_sites, 1);
    cr_assert_eq(b.num_channels, 9);
    cr_assert_eq(b.num_frames, 2);
    cr_assert_eq(b.frame_time, 0.0333333);
    cr_assert_eq(b.joints[1].first_channel, 6);
    cr_assert_eq(b.end_sites[0].parent, 1);
    /* Chest frame 1: Rz(41) Rx(51) Ry(61). */
    double d[3] = {41, 51, 61}, q[4], g[4];
    pb_euler_to_quat(PB_EULER_ZXY, d, q);
    bvh_quat(&b, 3, g);
    cr_assert_lt(quat_angle(q, g), 2e-7);
    assert_vec(b.pos_x[2], b.pos_y[2], b.pos_z[2], 4, 5, 6, 0);
    assert_vec(b.pos_x[3], b.pos_y[3], b.pos_z[3], 0, 10, 0, 0);
    pb_bvh_free(&b);
}

/* Converts LF to another line ending and/or indentation. */
static char *restyle(const char *text, const char *eol, const char *indent_sub)
{
    size_t n = strlen(text);
    size_t cap = n * 8 + 16;
    char *r = xmalloc(cap);
    size_t k = 0;
    int bol = 1;
    for (size_t i = 0; i < n; i++) {
        if (bol && text[i] == ' ' && indent_sub) {
            if (i + 1 < n && text[i + 1] == ' ')
                i++;
            k = appendf(r, cap, k, "%s", indent_sub);
            continue;
        }
        bol = 0;
        if (text[i] == '\n') {
            k = appendf(r, cap, k, "%s", eol);
            bol = 1;
        } else {
            r[k++] = text[i];
        }
    }
    r[k] = '\0';
    return r;
}

static void assert_same_motion(const pb_bvh *a, const pb_bvh *b, double tol)
{
    cr_assert_eq(a->num_frames, b->num_frames);
    cr_assert_eq(a->frame_time, b->frame_time);
    for (size_t i = 0; i < a->num_frames * a->num_joints; i++) {
        double qa[4], qb[4];
        bvh_quat(a, i, qa);
        bvh_quat(b, i, qb);
        cr_assert_lt(quat_angle(qa, qb), tol, "element %zu: %g", i, quat_angle(qa, qb));
        assert_vec(a->pos_x[i], a->pos_y[i], a->pos_z[i], b->pos_x[i], b->pos_y[i], b->pos_z[i],
                   1e-6 * fmax(1.0, fabs(a->pos_y[i])));
    }
}

Test(bvh_syntax, line_endings_whitespace_bom)
{
    pb_bvh ref = read_ok(k_valid);
    const char *eols[] = {"\r\n", "\r", "\n\n", " \t\r\n"};
    const char *inds[] = {NULL, "\t", "\t\t", " \t "};
    for (int e = 0; e < 4; e++) {
        for (int i = 0; i < 4; i++) {
            char *t = restyle(k_valid, eols[e], inds[i]);
            pb_bvh b = read_ok(t);
            assert_same_skeleton(&ref, &b);
            assert_same_motion(&ref, &b, 1e-12);
            pb_bvh_free(&b);
            free(t);
        }
    }
    /* BOM, tabs after the keywords, no trailing newline, spaces before ':'. */
    char *t1 = edit(k_valid, "HIERARCHY", "\xEF\xBB\xBFHIERARCHY");
    char *t2 = edit(t1, "Frames: 2", "Frames:\t2");
    char *t3 = edit(t2, "Frame Time: .0333333", "Frame Time:\t0.0333333");
    size_t n = strlen(t3);
    t3[n - 1] = '\0';
    char *t4 = edit(t3, "Frames:", "FRAMES :");
    pb_bvh b = read_ok(t4);
    assert_same_motion(&ref, &b, 1e-12);
    pb_bvh_free(&b);
    free(t1);
    free(t2);
    free(t3);
    free(t4);
    pb_bvh_free(&ref);
}

/* Writes b to a temp file, reads it back, checks it matches; returns the text. */
static char *write_read_compare(const pb_bvh *b)
{
    char *dir = make_tmpdir();
    char out[4200];
    snprintf(out, sizeof out, "%s/x.bvh", dir);
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_write_file(out, b, &err), PB_BVH_OK, "%s", err.message);
    char *text = slurp(out, NULL);
    pb_bvh c;
    cr_assert_eq(pb_bvh_read_file(out, &c, &err), PB_BVH_OK, "%s\n%s", err.message, text);
    assert_same_skeleton(b, &c);
    assert_same_motion(b, &c, 2e-6);
    pb_bvh_free(&c);
    rm_tree(dir);
    free(dir);
    return text;
}

Test(bvh_syntax, unusual_channel_layouts)
{
    const char *text =
        "HIERARCHY\n"
        "ROOT A\n{\n OFFSET 1 2 3\n CHANNELS 0\n"
        " JOINT B_End\n {\n  OFFSET 0 1 0\n  CHANNELS 3 Yposition Xposition Zposition\n"
        "  End Site\n  {\n   OFFSET 0 0 1\n  }\n"
        "  JOINT C\n  {\n   OFFSET 0 2 0\n   CHANNELS 1 Yrotation\n   End Site { OFFSET 1 1 1 }\n  "
        "}\n"
        "  End Site\n  {\n   OFFSET 0 0 2\n  }\n"
        "  JOINT D { OFFSET 0 3 0 CHANNELS 2 Xrotation Zrotation }\n"
        "  JOINT E\n  {\n   OFFSET 0 4 0\n   CHANNELS 4 Zrotation Xposition Yrotation Xrotation\n  "
        "}\n"
        " }\n}\n"
        "ROOT Second Root\n{\n OFFSET 5 5 5\n CHANNELS 3 xrotation YROTATION Zrotation\n}\n"
        "MOTION\nFrames: 3\nFrame Time: 0.01\n"
        "7 8 9 100 10 20 30 40 50 60 70 1 2\n"
        "7 8 9 170 -20 20 -30 40 50 60 70 1 2\n"
        "7 8 9 -170 89 90 -30 40 50 60 70 1 2\n";
    pb_bvh b = read_ok(text);
    cr_assert_eq(b.num_joints, 6);
    cr_assert_eq(b.num_end_sites, 3);
    cr_assert_eq(b.num_channels, 3 + 1 + 2 + 4 + 3);
    cr_assert_str_eq(b.joints[5].name, "Second Root");
    cr_assert_eq(b.joints[5].parent, -1);
    cr_assert_eq(b.joints[0].num_channels, 0);
    /* Joint A: no channels: identity, OFFSET. */
    cr_assert(b.rot_w[0] == 1.0f && b.pos_x[0] == 1.0f && b.pos_z[0] == 3.0f);
    /* B_End: positions only, listed Y X Z. */
    assert_vec(b.pos_x[1], b.pos_y[1], b.pos_z[1], 8, 7, 9, 0);
    /* C: 1 rotation channel, Y = 100. */
    double q[4], g[4], d[3] = {100, 0, 0};
    pb_euler_to_quat_n(PB_EULER_YXZ, 1, d, q);
    bvh_quat(&b, 2, g);
    cr_assert_lt(quat_angle(q, g), 2e-7);
    cr_assert_eq(b.joints[2].num_rot, 1);
    cr_assert_eq(b.joints[3].num_rot, 2);
    cr_assert_eq(b.joints[3].rot_order, PB_EULER_XZY);
    /* E: Xposition interleaved; rotation order Z Y X. */
    cr_assert_eq(b.joints[4].rot_order, PB_EULER_ZYX);
    cr_assert_eq(b.pos_x[4], 40.0f);
    cr_assert_eq(b.pos_y[4], 4.0f);
    /* End sites: before C (child 0 of B_End), after C (child 1). */
    cr_assert_eq(b.end_sites[0].parent, 1);
    cr_assert_eq(b.end_sites[0].child_index, 0);
    cr_assert_eq(b.end_sites[1].parent, 2);
    cr_assert_eq(b.end_sites[2].parent, 1);
    cr_assert_eq(b.end_sites[2].child_index, 1);
    char *out = write_read_compare(&b);
    /* The written hierarchy keeps the End Site between C and D. */
    const char *c = strstr(out, "JOINT C"), *es = strstr(out, "OFFSET 0 0 2"),
               *dd = strstr(out, "JOINT D");
    cr_assert(c && es && dd && c < es && es < dd, "%s", out);
    cr_assert_not_null(strstr(out, "CHANNELS 4 Zrotation Xposition Yrotation Xrotation"));
    cr_assert_not_null(strstr(out, "ROOT Second Root"));
    free(out);
    pb_bvh_free(&b);
}

Test(bvh_syntax, zero_frames)
{
    char *t = edit(k_valid, "Frames: 2", "Frames: 0");
    t[strstr(t, "1 2 3 10") - t] = '\0';
    pb_bvh b = read_ok(t);
    cr_assert_eq(b.num_frames, 0);
    cr_assert_null(b.rot_w);
    char *out = write_read_compare(&b);
    free(out);
    pb_bvh_free(&b);
    free(t);
}

/* The writer unwraps +-180 flips and keeps channels continuous. */
Test(bvh_write, euler_continuity_synthetic)
{
    /* Chest spins about Z through +-180 and pitches through 90 (gimbal). */
    size_t F = 721;
    size_t cap = F * 80 + 1024;
    char *text = xmalloc(cap);
    size_t k = appendf(text, cap, 0, "%.*s", (int)(strstr(k_valid, "MOTION") - k_valid), k_valid);
    k = appendf(text, cap, k, "MOTION\nFrames: %zu\nFrame Time: 0.01\n", F);
    for (size_t f = 0; f < F; f++) {
        double z = fmod(-179.0 + 1.5 * (double)f + 180.0, 360.0) - 180.0; /* wraps in input */
        double x = 95.0 * sin((double)f * 0.02);
        double y = 30.0 * cos((double)f * 0.013);
        k = appendf(text, cap, k, "0 0 0 %.4f %.4f %.4f %.4f %.4f %.4f\n", z, x, y, -z, y, x);
    }
    pb_bvh b = read_ok(text);
    /* With the source angles (the default), the source's own values. */
    char *src = write_read_compare(&b);
    double *vs = data_values(src, F, 9), *vin = data_values(text, F, 9);
    size_t jin = count_jumps(&b, vin), jsrc = count_jumps(&b, vs);
    for (size_t i = 0; i < F * 9; i++)
        cr_assert_float_eq(vs[i], vin[i], 1e-9, "value %zu: %.9g vs %.9g", i, vs[i], vin[i]);
    free(vs);
    free(src);
    /* Without them: continuous from frame to frame. */
    free(b.euler_deg);
    b.euler_deg = NULL;
    char *out = write_read_compare(&b);
    double *v = data_values(out, F, 9);
    size_t jout = count_jumps(&b, v);
    fprintf(stderr,
            "synthetic spin: %zu jumps >180 in input, %zu written from the source, %zu "
            "continuous\n",
            jin, jsrc, jout);
    cr_assert_gt(jin, 0);
    cr_assert_eq(jsrc, jin);
    cr_assert_eq(jout, 0);
    free(v);
    free(vin);
    free(out);
    free(text);
    pb_bvh_free(&b);
}

/* ------------------------------------------------------------------------ */
/* Malformed input                                                          */
/* ------------------------------------------------------------------------ */

static void expect_error(const char *text, size_t len, pb_bvh_code code, long line,
                         const char *needle)
{
    pb_bvh b;
    pb_bvh_error err;
    memset(&err, 0x55, sizeof err);
    pb_bvh_code rc = pb_bvh_read_memory(text, len, &b, &err);
    cr_assert_eq(rc, code, "expected code %d (%s), got %d: %s", code, pb_bvh_code_str(code), rc,
                 rc ? err.message : "success");
    cr_assert_eq(err.code, code);
    cr_assert_eq(err.line, line, "expected line %ld, got %ld: %s", line, err.line, err.message);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "line %ld: ", line);
    cr_assert_eq(strncmp(err.message, prefix, strlen(prefix)), 0, "message '%s' lacks '%s'",
                 err.message, prefix);
    if (needle)
        cr_assert_not_null(strstr(err.message, needle), "message '%s' lacks '%s'", err.message,
                           needle);
    cr_assert_eq(b.num_joints, 0);
    cr_assert_null(b.joints);
    cr_assert_null(b.rot_w);
}

static void expect_edit(const char *from, const char *to, pb_bvh_code code, long line,
                        const char *needle)
{
    char *t = edit(k_valid, from, to);
    expect_error(t, strlen(t), code, line, needle);
    free(t);
}

/* Cuts the valid text after its first `lines` lines (plus `extra` bytes). */
static void expect_truncated(int lines, size_t extra, pb_bvh_code code, long line,
                             const char *needle)
{
    const char *p = k_valid;
    for (int i = 0; i < lines; i++)
        p = strchr(p, '\n') + 1;
    expect_error(k_valid, (size_t)(p - k_valid) + extra, code, line, needle);
}

Test(bvh_malformed, truncated)
{
    expect_error("", 0, PB_BVH_ERR_SYNTAX, 1, "empty");
    expect_truncated(1, 0, PB_BVH_ERR_SYNTAX, 1, "end of file");
    expect_truncated(9, 0, PB_BVH_ERR_SYNTAX, 9, "missing '}' of joint 'Chest' opened at line 6");
    expect_truncated(12, 0, PB_BVH_ERR_SYNTAX, 12, "End Site");
    expect_truncated(5, 20, PB_BVH_ERR_SYNTAX, 7, "missing '}' of joint 'Chest'");
    expect_truncated(15, 0, PB_BVH_ERR_SYNTAX, 15, "missing MOTION");
    expect_truncated(16, 0, PB_BVH_ERR_SYNTAX, 16, "Frames");
    expect_truncated(17, 0, PB_BVH_ERR_SYNTAX, 17, "Frame Time");
    /* Cut at or inside the data lines: test_bvh_read.c (bvh_read::truncation). */
}

Test(bvh_malformed, frame_count_disagrees)
{
    /* A count that disagrees with the data lines: test_bvh_read.c
     * (bvh_read::frame_count_is_a_claim). One that is not a count at all: */
    expect_edit("Frames: 2", "Frames: 99999999999999999999999999", PB_BVH_ERR_LIMIT, 17, "absurd");
    expect_edit("Frames: 2", "Frames: -2", PB_BVH_ERR_VALUE, 17, "frame count");
    expect_edit("Frames: 2", "Frames: 2.5", PB_BVH_ERR_VALUE, 17, "frame count");
    expect_edit("Frames: 2", "Frames:", PB_BVH_ERR_SYNTAX, 17, "without a count");
    expect_edit("Frames: 2", "Frames: 2 3", PB_BVH_ERR_SYNTAX, 17, NULL);
    expect_edit("Frames: 2", "Frame: 2", PB_BVH_ERR_SYNTAX, 17, "Frames:");
}

Test(bvh_malformed, non_numeric_values)
{
    expect_edit("4 5 6 11", "4 5 x6 11", PB_BVH_ERR_VALUE, 20, "'x6'");
    expect_edit("4 5 6 11", "4 5 nan 11", PB_BVH_ERR_VALUE, 20, "nan");
    expect_edit("4 5 6 11", "4 5 inf 11", PB_BVH_ERR_VALUE, 20, "inf");
    expect_edit("4 5 6 11", "4 5 1e400 11", PB_BVH_ERR_VALUE, 20, NULL);
    expect_edit("4 5 6 11", "4 5 0x10 11", PB_BVH_ERR_VALUE, 20, NULL);
    expect_edit("4 5 6 11", "4 5 6, 11", PB_BVH_ERR_VALUE, 20, NULL);
    expect_edit("4 5 6 11", "4 5 1e39 11", PB_BVH_ERR_VALUE, 20, "float range");
    expect_edit("4 5 6 11", "4 5 - 11", PB_BVH_ERR_VALUE, 20, NULL);
    expect_edit("4 5 6 11", "4 5 1e 11", PB_BVH_ERR_VALUE, 20, NULL);
    expect_edit("OFFSET 0 10 0", "OFFSET 0 ten 0", PB_BVH_ERR_VALUE, 8, "'ten'");
    expect_edit("OFFSET 0 10 0", "OFFSET 0 10", PB_BVH_ERR_VALUE, 9, "CHANNELS");
    expect_edit("OFFSET 0 5 0", "OFFSET 0 5 }", PB_BVH_ERR_SYNTAX, 12, "needs 3 numbers");
    expect_edit("OFFSET 0 10 0", "OFFSET 0 1e39 0", PB_BVH_ERR_VALUE, 8, "float range");
    /* A NUL byte inside the text. */
    char *u = strdup(k_valid);
    if (!u)
        abort();
    u[strstr(u, "4 5 6 11") - u + 2] = '\0';
    expect_error(u, strlen(k_valid), PB_BVH_ERR_VALUE, 20, NULL);
    free(u);
}

Test(bvh_malformed, braces)
{
    expect_edit("  }\n}\n", "  }\n}\n}\n", PB_BVH_ERR_SYNTAX, 16, "unmatched '}'");
    expect_edit("  }\n}\n", "  }\n", PB_BVH_ERR_SYNTAX, 15, "'MOTION' in joint 'Hips'");
    expect_edit("JOINT Chest\n  {\n", "JOINT Chest\n", PB_BVH_ERR_SYNTAX, 7, "expected '{'");
    expect_edit("End Site\n    {\n", "End Site\n", PB_BVH_ERR_SYNTAX, 11, "expected '{'");
    expect_edit("ROOT Hips\n{\n", "ROOT Hips\n{\n{\n", PB_BVH_ERR_SYNTAX, 4, "'{'");
    expect_edit("End Site", "End Sight", PB_BVH_ERR_SYNTAX, 10, "Site");
    expect_edit("JOINT Chest", "JOINT", PB_BVH_ERR_SYNTAX, 6, "without a name");
    expect_edit("HIERARCHY", "HIERARCHIE", PB_BVH_ERR_SYNTAX, 1, "HIERARCHY");
    expect_edit("OFFSET 0 5 0", "OFFSET 0 5 0 CHANNELS 0", PB_BVH_ERR_SYNTAX, 12, "End Site");
}

Test(bvh_malformed, channels)
{
    expect_edit("CHANNELS 3 Zrotation", "CHANNELS 100 Zrotation", PB_BVH_ERR_LIMIT, 9, "100");
    expect_edit("CHANNELS 3 Zrotation", "CHANNELS 99999999999 Zrotation", PB_BVH_ERR_LIMIT, 9,
                NULL);
    expect_edit("CHANNELS 3 Zrotation", "CHANNELS -3 Zrotation", PB_BVH_ERR_VALUE, 9, NULL);
    expect_edit("CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 3 Zrotation Xrotation",
                PB_BVH_ERR_SYNTAX, 10, "expected a channel name");
    expect_edit("CHANNELS 3 Zrotation Xrotation Yrotation",
                "CHANNELS 3 Zrotation Wrotation Yrotation", PB_BVH_ERR_SYNTAX, 9, "Wrotation");
    expect_edit("CHANNELS 3 Zrotation Xrotation Yrotation",
                "CHANNELS 3 Zrotation Zrotation Yrotation", PB_BVH_ERR_SYNTAX, 9, "repeated");
    /* The skeleton has 8 channels, the data lines 9 values. */
    expect_edit("CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 2 Zrotation Xrotation",
                PB_BVH_ERR_MOTION, 19, "expected 8 values");
    expect_edit("1 2 3 10 20 30 40 50 60", "1 2 3 10 20 30 40 50", PB_BVH_ERR_MOTION, 19,
                "expected 9 values (the channel count), found 8");
    expect_edit("1 2 3 10 20 30 40 50 60", "1 2 3 10 20 30 40 50 60 70", PB_BVH_ERR_MOTION, 19,
                "found 10");
    expect_edit("  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
                "Yrotation\n",
                "  OFFSET 0 0 0\n", PB_BVH_ERR_SYNTAX, 5, "no CHANNELS");
    expect_edit("    OFFSET 0 10 0\n", "", PB_BVH_ERR_SYNTAX, 9, "no OFFSET");
    expect_edit("    End Site", "    CHANNELS 0\n    End Site", PB_BVH_ERR_SYNTAX, 10,
                "second CHANNELS");
}

Test(bvh_malformed, motion_section)
{
    expect_edit("MOTION", "MOTIO", PB_BVH_ERR_SYNTAX, 16, "expected ROOT or MOTION");
    expect_edit("MOTION\n", "", PB_BVH_ERR_SYNTAX, 16, "expected ROOT or MOTION");
    expect_edit("Frame Time: .0333333", "Frame Time: -0.1", PB_BVH_ERR_VALUE, 18, "positive");
    expect_edit("Frame Time: .0333333", "Frame Time: 0", PB_BVH_ERR_VALUE, 18, "positive");
    expect_edit("Frame Time: .0333333", "Frame Time: -0", PB_BVH_ERR_VALUE, 18, "positive");
    expect_edit("Frame Time: .0333333", "Frame Time: nan", PB_BVH_ERR_VALUE, 18, "frame time");
    expect_edit("Frame Time: .0333333", "Frame Time: NaN", PB_BVH_ERR_VALUE, 18, "frame time");
    expect_edit("Frame Time: .0333333", "Frame Time: 1e999", PB_BVH_ERR_VALUE, 18, "frame time");
    expect_edit("Frame Time: .0333333", "Frame Time:", PB_BVH_ERR_SYNTAX, 18, "without a value");
    expect_edit("Frame Time: .0333333", "Frametime .0333333", PB_BVH_ERR_SYNTAX, 18, "Frame Time:");
    expect_edit("Frame Time: .0333333\n", "", PB_BVH_ERR_SYNTAX, 18, "Frame Time:");
    expect_edit("ROOT Hips", "MOTION\nROOT Hips", PB_BVH_ERR_SYNTAX, 2, "MOTION before any ROOT");
}

Test(bvh_malformed, too_deep_nesting)
{
    /* Joints nested 300 deep: the JOINT that would open level 257 fails. */
    size_t cap = 300 * 80 + 4096;
    char *t = xmalloc(cap);
    size_t k = 0;
    long line = 1, fail_line = 0;
    k = appendf(t, cap, k, "HIERARCHY\n");
    line++;
    for (int d = 1; d <= 300; d++) {
        if (d == PB_BVH_MAX_DEPTH + 1)
            fail_line = line;
        k = appendf(t, cap, k, "%s J%d\n{\nOFFSET 0 1 0\nCHANNELS 1 Zrotation\n",
                    d == 1 ? "ROOT" : "JOINT", d);
        line += 4;
    }
    for (int d = 1; d <= 300; d++)
        k = appendf(t, cap, k, "}\n");
    k = appendf(t, cap, k, "MOTION\nFrames: 0\nFrame Time: 1\n");
    expect_error(t, k, PB_BVH_ERR_LIMIT, fail_line, "nesting deeper than 256");
    free(t);
}

Test(bvh_malformed, absurd_sizes_allocate_nothing_big)
{
    /* 5000 joints without channels and 1 channel: Frames * joints capped by
     * the data size. */
    size_t cap = 5000 * 60 + 4096;
    char *t = xmalloc(cap);
    size_t k = appendf(t, cap, 0, "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n");
    for (int j = 0; j < 5000; j++)
        k = appendf(t, cap, k, "JOINT j%d { OFFSET 0 0 0 CHANNELS 0 }\n", j);
    k = appendf(t, cap, k, "}\nMOTION\nFrames: 200\nFrame Time: 1\n");
    long fl = 5000 + 8; /* the Frames line */
    for (int f = 0; f < 200; f++)
        k = appendf(t, cap, k, "0\n");
    expect_error(t, k, PB_BVH_ERR_LIMIT, fl, "too large");
    free(t);
    /* No channels at all but frames > 0. */
    const char *nochan = "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\n"
                         "Frames: 3\nFrame Time: 1\n\n\n\n";
    expect_error(nochan, strlen(nochan), PB_BVH_ERR_MOTION, 8, "no channels");
}

/* ------------------------------------------------------------------------ */
/* Writer failure modes                                                     */
/* ------------------------------------------------------------------------ */

Test(bvh_write, failure_leaves_no_temp_and_keeps_destination)
{
    pb_bvh b = read_ok(k_valid);
    char *dir = make_tmpdir();
    char path[4400];
    pb_bvh_error err;

    /* 1. Directory that does not exist. */
    snprintf(path, sizeof path, "%s/missing/out.bvh", dir);
    cr_assert_eq(pb_bvh_write_file(path, &b, &err), PB_BVH_ERR_IO);
    cr_assert_not_null(strstr(err.message, "missing/out.bvh"), "%s", err.message);
    cr_assert_eq(dir_entries(dir), 0);

    /* 2. Destination is a directory (with content that must survive). */
    snprintf(path, sizeof path, "%s/adir", dir);
    cr_assert_eq(mkdir(path, 0777), 0);
    char inner[4500];
    snprintf(inner, sizeof inner, "%s/keep.txt", path);
    spit(inner, "keep");
    cr_assert_eq(pb_bvh_write_file(path, &b, &err), PB_BVH_ERR_IO);
    fprintf(stderr, "write to a directory: %s\n", err.message);
    cr_assert_eq(dir_entries(dir), 1, "no temporary left next to it");
    cr_assert_eq(dir_entries(path), 1);
    snprintf(inner, sizeof inner, "%s/", path);
    cr_assert_eq(pb_bvh_write_file(inner, &b, &err), PB_BVH_ERR_IO);
    cr_assert_eq(dir_entries(dir), 1);

    /* 3. Failure in the middle of writing (non-finite rotation in the last
     *    frame): the existing destination is untouched, no temporary left. */
    snprintf(path, sizeof path, "%s/dest.bvh", dir);
    spit(path, "original content\n");
    b.rot_x[b.num_joints * b.num_frames - 1] = NAN;
    cr_assert_eq(pb_bvh_write_file(path, &b, &err), PB_BVH_ERR_ARG);
    cr_assert_not_null(strstr(err.message, "non-finite"), "%s", err.message);
    char *c = slurp(path, NULL);
    cr_assert_str_eq(c, "original content\n");
    free(c);
    cr_assert_eq(dir_entries(dir), 2, "adir and dest.bvh only");
    b.rot_x[b.num_joints * b.num_frames - 1] = 0.0f;
    b.pos_y[0] = INFINITY;
    cr_assert_eq(pb_bvh_write_file(path, &b, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(dir_entries(dir), 2);
    b.pos_y[0] = 2.0f;

    /* 4. Invalid in-memory data is rejected before any file is created. */
    b.frame_time = 0.0;
    cr_assert_eq(pb_bvh_write_file(path, &b, &err), PB_BVH_ERR_ARG);
    b.frame_time = 0.5;
    b.joints[1].parent = 5;
    cr_assert_eq(pb_bvh_write_file(path, &b, &err), PB_BVH_ERR_ARG);
    b.joints[1].parent = 0;
    const char *saved = b.joints[1].name;
    const char *bad_names[] = {"", " lead", "trail ", "a{b", "new\nline"};
    for (int k = 0; k < 5; k++) {
        b.joints[1].name = bad_names[k];
        cr_assert_eq(pb_bvh_write_file(path, &b, &err), PB_BVH_ERR_ARG, "name '%s'", bad_names[k]);
    }
    b.joints[1].name = saved;
    c = slurp(path, NULL);
    cr_assert_str_eq(c, "original content\n");
    free(c);
    cr_assert_eq(dir_entries(dir), 2);

    /* 5. Success replaces it, keeping its permissions. */
    cr_assert_eq(chmod(path, 0640), 0);
    cr_assert_eq(pb_bvh_write_file(path, &b, &err), PB_BVH_OK, "%s", err.message);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0640);
    cr_assert_eq(dir_entries(dir), 2);
    pb_bvh c2;
    cr_assert_eq(pb_bvh_read_file(path, &c2, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(c2.frame_time, 0.5);
    pb_bvh_free(&c2);

    /* Reading errors. */
    snprintf(path, sizeof path, "%s/nope.bvh", dir);
    cr_assert_eq(pb_bvh_read_file(path, &c2, &err), PB_BVH_ERR_IO);
    cr_assert_eq(err.line, 0);
    cr_assert_not_null(strstr(err.message, "nope.bvh"));
    cr_assert_eq(pb_bvh_read_file(dir, &c2, &err), PB_BVH_ERR_IO);

    rm_tree(dir);
    free(dir);
    pb_bvh_free(&b);
}

/* Offsets and positions of any magnitude read back bit-exactly. */
Test(bvh_write, float_values_round_trip_exactly)
{
    pb_bvh b = read_ok(k_valid);
    const float vals[] = {1e-7f,       3.4e38f,  -1.17549435e-38f, 1.4e-45f,    123456.789f,
                          -0.1f,       1.70155f, 5.1072e-06f,      16777217.0f, -9.87654e20f,
                          0.33333334f, 2.5e-12f, -1e-30f,          65504.5f,    -0.0f};
    const size_t nv = sizeof vals / sizeof vals[0];
    cr_assert_eq(pb_bvh_set_frames(&b, nv, NULL), PB_BVH_OK);
    for (size_t k = 0; k < nv; k++) {
        b.pos_x[2 * k] = vals[k];
        b.pos_y[2 * k] = -vals[(k + 3) % nv];
        b.pos_z[2 * k] = vals[(k + 7) % nv] * 0.5f;
    }
    b.joints[1].offset[0] = 1e-7f;
    b.joints[1].offset[2] = -3.4e38f;
    b.end_sites[0].offset[1] = 1.4e-45f;
    for (size_t f = 0; f < nv; f++) { /* Chest has no position channels: pos = OFFSET */
        b.pos_x[2 * f + 1] = b.joints[1].offset[0];
        b.pos_z[2 * f + 1] = b.joints[1].offset[2];
    }
    char *out = write_read_compare(&b); /* offsets compared bit-exactly */
    cr_assert_null(strstr(out, "-0 "), "no negative zero printed");
    char *dir = make_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/v.bvh", dir);
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_write_file(path, &b, &err), PB_BVH_OK);
    pb_bvh c;
    cr_assert_eq(pb_bvh_read_file(path, &c, &err), PB_BVH_OK, "%s", err.message);
    for (size_t i = 0; i < nv * 2; i++) {
        cr_assert(c.pos_x[i] == b.pos_x[i] && c.pos_y[i] == b.pos_y[i] && c.pos_z[i] == b.pos_z[i],
                  "element %zu: %a %a %a vs %a %a %a", i, (double)c.pos_x[i], (double)c.pos_y[i],
                  (double)c.pos_z[i], (double)b.pos_x[i], (double)b.pos_y[i], (double)b.pos_z[i]);
    }
    pb_bvh_free(&c);
    rm_tree(dir);
    free(dir);
    free(out);
    pb_bvh_free(&b);
}

Test(bvh_write, set_frames_and_non_unit_quaternions)
{
    pb_bvh b = read_ok(k_valid);
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_set_frames(&b, 5, &err), PB_BVH_OK);
    cr_assert_eq(b.num_frames, 5);
    cr_assert_eq(b.rot_w[4 * 2 + 1], 1.0f);
    cr_assert_eq(b.pos_y[4 * 2 + 1], 10.0f);
    cr_assert_eq(b.pos_x[2], 4.0f); /* kept */
    /* Scaled and zero quaternions are written as their rotation / identity. */
    b.rot_w[5] *= 3.0f;
    b.rot_x[5] *= 3.0f;
    b.rot_y[5] *= 3.0f;
    b.rot_z[5] *= 3.0f;
    b.rot_w[7] = b.rot_x[7] = b.rot_y[7] = b.rot_z[7] = 0.0f;
    char *dir = make_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/s.bvh", dir);
    cr_assert_eq(pb_bvh_write_file(path, &b, &err), PB_BVH_OK, "%s", err.message);
    pb_bvh c;
    cr_assert_eq(pb_bvh_read_file(path, &c, &err), PB_BVH_OK, "%s", err.message);
    double qa[4], qb[4];
    bvh_quat(&b, 5, qa);
    bvh_quat(&c, 5, qb);
    cr_assert_lt(quat_angle(qa, qb), 2e-6);
    cr_assert_eq(c.rot_w[7], 1.0f);
    pb_bvh_free(&c);
    cr_assert_eq(pb_bvh_set_frames(&b, 1, &err), PB_BVH_OK);
    cr_assert_eq(b.num_frames, 1);
    cr_assert_eq(pb_bvh_set_frames(&b, (size_t)1 << 40, &err), PB_BVH_ERR_LIMIT);
    cr_assert_eq(b.num_frames, 1);
    rm_tree(dir);
    free(dir);
    pb_bvh_free(&b);
    pb_bvh_free(&b); /* idempotent */
}

/* pb_bvh_resample: an owning copy (skeleton and motion), the frame count of
 * pb_clip_resample_frames, source frames reproduced at the source rate, and
 * *out untouched on every error. */
Test(bvh_resample, public_convenience)
{
    pb_bvh src = read_ok(k_valid), out, same;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_resample(&src, 120.0, 0, &out, &err), PB_BVH_OK, "%s", err.message);
    pb_clip sc = pb_bvh_clip(&src);
    cr_assert_eq(sc.frames, 2);
    cr_assert_eq(out.num_frames, pb_clip_resample_frames(&sc, 120.0, 0));
    cr_assert_eq(out.num_joints, 2);
    cr_assert_float_eq(out.frame_time, 1.0 / 120.0, 1e-15);
    cr_assert_neq(out.joints, src.joints);
    cr_assert_neq(out.joints[1].name, src.joints[1].name);
    cr_assert_str_eq(out.joints[1].name, "Chest");
    cr_assert_eq(out.num_end_sites, 1);
    cr_assert_eq(out.end_sites[0].parent, 1);
    cr_assert_not_null(out.euler_deg); /* source angles carried */
    /* at its own rate: every source frame (rotations up to sign) */
    cr_assert_eq(pb_bvh_resample(&src, 1.0 / src.frame_time, 0, &same, &err), PB_BVH_OK);
    cr_assert_eq(same.num_frames, 2);
    for (size_t i = 0; i < 4; i++) {
        cr_assert_float_eq(same.pos_x[i], src.pos_x[i], 1e-6);
        float d = same.rot_w[i] * src.rot_w[i] + same.rot_x[i] * src.rot_x[i] +
                  same.rot_y[i] * src.rot_y[i] + same.rot_z[i] * src.rot_z[i];
        cr_assert_float_eq(fabsf(d), 1.0f, 1e-6);
    }
    pb_bvh_free(&same);
    /* errors leave *out untouched */
    pb_bvh keep;
    memset(&keep, 0x5a, sizeof keep);
    pb_bvh probe = keep;
    const double bad_fps[] = {0.0, -1.0, NAN, INFINITY};
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(pb_bvh_resample(&src, bad_fps[i], 0, &probe, &err), PB_BVH_ERR_ARG);
        cr_assert_eq(err.line, 0);
        cr_assert(memcmp(&probe, &keep, sizeof keep) == 0);
    }
    cr_assert_eq(pb_bvh_resample(&src, 60.0, 0x100u, &probe, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_resample(NULL, 60.0, 0, &probe, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_resample(&src, 60.0, 0, NULL, NULL), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_resample(&src, 1e11, 0, &probe, &err), PB_BVH_ERR_LIMIT, "%s", err.message);
    pb_bvh empty;
    memset(&empty, 0, sizeof empty);
    cr_assert_eq(pb_bvh_resample(&empty, 60.0, 0, &probe, &err), PB_BVH_ERR_ARG);
    cr_assert(memcmp(&probe, &keep, sizeof keep) == 0);
    /* the loop flag: one period */
    pb_bvh lp;
    cr_assert_eq(pb_bvh_resample(&src, 60.0, PB_CLIP_LOOP, &lp, &err), PB_BVH_OK);
    cr_assert_eq(lp.num_frames, pb_clip_resample_frames(&sc, 60.0, PB_CLIP_LOOP));
    pb_bvh_free(&lp);
    pb_bvh_free(&out);
    pb_bvh_free(&src);
}

Test(bvh_resample, new_motion_owns_a_rest_pose_copy)
{
    pb_bvh a = read_ok(k_valid), m;
    pb_bvh_error err;
    memset(&m, 0x5a, sizeof m);
    pb_bvh keep = m;
    cr_assert_eq(pb_bvh_new_motion(NULL, 3, 0.1, &m, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_new_motion(&a, 3, 0.0, &m, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_new_motion(&a, 3, INFINITY, &m, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_new_motion(&a, (size_t)1 << 28, 0.1, &m, &err), PB_BVH_ERR_LIMIT);
    cr_assert_eq(memcmp(&m, &keep, sizeof m), 0, "*out untouched on error");
    cr_assert_eq(pb_bvh_new_motion(&a, 3, 0.1, &m, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(m.num_frames, 3);
    cr_assert_eq(m.frame_time, 0.1);
    cr_assert_null(m.euler_deg);
    cr_assert(m.joints != a.joints && m.name_pool_ != a.name_pool_, "its own skeleton");
    assert_same_skeleton(&a, &m);
    for (size_t i = 0; i < 3 * m.num_joints; i++) {
        const pb_bvh_joint *jt = &m.joints[i % m.num_joints];
        cr_assert(m.rot_w[i] == 1.0f && m.rot_x[i] == 0.0f && m.rot_y[i] == 0.0f &&
                  m.rot_z[i] == 0.0f);
        assert_vec(m.pos_x[i], m.pos_y[i], m.pos_z[i], jt->offset[0], jt->offset[1], jt->offset[2],
                   0);
    }
    pb_bvh_free(&a); /* the copy stands alone */
    char *out = write_read_compare(&m);
    free(out);
    pb_bvh_free(&m);
}
