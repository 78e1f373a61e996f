/* Helpers of the BVH tests (test_bvh_clips.c, test_bvh_syntax.c,
 * test_bvh_malformed.c, test_bvh_write.c, test_bvh_resample.c,
 * test_euler_convert.c): allocation, text building, temporary directories
 * and files, rotation comparison, the sample text edited and read, data
 * values and Euler jumps of a written text, skeleton and motion
 * comparison, a write -> read check. */
#ifndef PB_TESTS_BVH_UTIL_H
#define PB_TESTS_BVH_UTIL_H

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

#define k_valid k_sample_bvh /* 20 */

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        abort();
    return p;
}

/* Appends printf output at buf + k (bounded by cap); returns the new length. */
static inline size_t appendf(char *buf, size_t cap, size_t k, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline size_t appendf(char *buf, size_t cap, size_t k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + k, cap - k, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0 && (size_t)n < cap - k, "appendf overflow");
    return k + (size_t)n;
}

static inline char *make_tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    char *path = xmalloc(4096);
    snprintf(path, 4096, "%s/pb_bvh_test.XXXXXX", (t && *t) ? t : "/tmp");
    cr_assert_not_null(mkdtemp(path), "mkdtemp: %s", strerror(errno));
    return path;
}

/* Number of entries (other than . and ..) in a directory. */
static inline int dir_entries(const char *dir)
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

static inline void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int len = snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        cr_assert(len > 0 && (size_t)len < sizeof p, "path too long in %s", dir);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static inline char *slurp(const char *path, size_t *len)
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

static inline void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* Angle (rad) between two rotations, sign-insensitive, accurate when small. */
static inline double quat_angle(const double a[4], const double b[4])
{
    /* d = conj(a) b */
    double w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double x = a[0] * b[1] - a[1] * b[0] - a[2] * b[3] + a[3] * b[2];
    double y = a[0] * b[2] + a[1] * b[3] - a[2] * b[0] - a[3] * b[1];
    double z = a[0] * b[3] - a[1] * b[2] + a[2] * b[1] - a[3] * b[0];
    double v = sqrt(x * x + y * y + z * z);
    return 2.0 * atan2(v, fabs(w));
}

static inline void bvh_quat(const pb_bvh *b, size_t i, double q[4])
{
    double w = b->rot_w[i], x = b->rot_x[i], y = b->rot_y[i], z = b->rot_z[i];
    double n = sqrt(w * w + x * x + y * y + z * z);
    q[0] = w / n;
    q[1] = x / n;
    q[2] = y / n;
    q[3] = z / n;
}

/* Values of the data lines of a BVH text (after the Frame Time line). */
static inline double *data_values(const char *text, size_t frames, size_t channels)
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
static inline size_t count_jumps(const pb_bvh *b, const double *v)
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

static inline void assert_same_skeleton(const pb_bvh *a, const pb_bvh *b)
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

static inline void assert_vec(float x, float y, float z, double ex, double ey, double ez,
                              double tol)
{
    cr_assert_float_eq(x, ex, tol, "%g vs %g", x, ex);
    cr_assert_float_eq(y, ey, tol, "%g vs %g", y, ey);
    cr_assert_float_eq(z, ez, tol, "%g vs %g", z, ez);
}

static inline pb_bvh read_ok(const char *text)
{
    pb_bvh b;
    pb_bvh_error err;
    pb_bvh_code rc = pb_bvh_read_memory(text, strlen(text), &b, &err);
    cr_assert_eq(rc, PB_BVH_OK, "unexpected error: %s", err.message);
    return b;
}

/* Replaces the first occurrence of `from` in the valid text by `to`. */
static inline char *edit(const char *text, const char *from, const char *to)
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

static inline void assert_same_motion(const pb_bvh *a, const pb_bvh *b, double tol)
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

/* Writes b to a temp file, reads it back, checks it matches; returns the text. */
static inline char *write_read_compare(const pb_bvh *b)
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

#endif /* PB_TESTS_BVH_UTIL_H */
