/*
 * .npz and .npy (posebatch/npz.h): arrays written and read back bit for bit
 * (every dtype, 0-d to 3-d, empty, strings with non-ASCII text), the bytes
 * numpy expects (magic, 64-byte header, stored entries, CRC-32 of the
 * zip's reference value), the writer's refusals, and a reader that never
 * crashes on a damaged archive (every truncation, every single flipped
 * byte: an error or, where the byte is not checked, the same arrays).
 * tests/python/test_features.py reads the writer's files with numpy.load
 * and gives the reader numpy's own (savez, savez_compressed).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "posebatch/io.h"

static char *tmp_path(const char *name)
{
    static char buf[4][256];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 256, "/tmp/pb_npz_%d_%s", (int)getpid(), name);
    return p;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    cr_assert(b && fread(b, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return b;
}
static void spit(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(b, 1, n, f) == n);
    fclose(f);
}

static const float f32[2][3] = {{1.5f, -0.0f, 3.25e-40f}, {INFINITY, 7, -8}};
static const double f64[4] = {1e300, -2.5, 0.1, 3};
static const int32_t i32[3] = {-1, 0, 2147483647};
static const int64_t i64[2] = {-9000000000000LL, 5};
static const uint8_t u8[2][2][2] = {{{0, 1}, {2, 255}}, {{3, 4}, {5, 6}}};
static const double scalar = 120.0;
static const char *const strs[3] = {"Hips", "LeftUpLeg",
                                    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"};

static void sample(pb_npy_array a[8])
{
    memset(a, 0, 8 * sizeof *a);
    a[0] = (pb_npy_array){"f32", PB_NPY_F32, 2, {2, 3}, f32};
    a[1] = (pb_npy_array){"f64", PB_NPY_F64, 1, {4}, f64};
    a[2] = (pb_npy_array){"i32", PB_NPY_I32, 1, {3}, i32};
    a[3] = (pb_npy_array){"i64", PB_NPY_I64, 1, {2}, i64};
    a[4] = (pb_npy_array){"u8", PB_NPY_U8, 3, {2, 2, 2}, u8};
    a[5] = (pb_npy_array){"fps", PB_NPY_F64, 0, {0}, &scalar};
    a[6] = (pb_npy_array){"names", PB_NPY_STR, 1, {3}, strs};
    a[7] = (pb_npy_array){"empty", PB_NPY_F32, 2, {0, 5}, NULL};
}

static void expect_same(const pb_npz *z, const pb_npy_array *a, size_t n)
{
    cr_assert_eq(z->count, n);
    for (size_t i = 0; i < n; i++) {
        const pb_npy_array *r = pb_npz_find(z, a[i].name);
        cr_assert(r, "array %s not read back", a[i].name);
        cr_expect_eq(r->dtype, a[i].dtype, "%s dtype", a[i].name);
        cr_assert_eq(r->ndim, a[i].ndim, "%s ndim", a[i].name);
        size_t count = 1;
        for (int d = 0; d < a[i].ndim; d++) {
            cr_expect_eq(r->shape[d], a[i].shape[d], "%s shape[%d]", a[i].name, d);
            count *= a[i].shape[d];
        }
        if (a[i].dtype == PB_NPY_STR) {
            const char *const *s = r->data, *const *w = a[i].data;
            for (size_t k = 0; k < count; k++)
                cr_expect_str_eq(s[k], w[k]);
        } else if (count) {
            size_t item = a[i].dtype == PB_NPY_F64 || a[i].dtype == PB_NPY_I64 ? 8
                          : a[i].dtype == PB_NPY_U8                            ? 1
                                                                               : 4;
            cr_expect(memcmp(r->data, a[i].data, count * item) == 0, "%s data differs", a[i].name);
        }
    }
}

Test(npz, round_trip)
{
    pb_npy_array a[8];
    sample(a);
    const char *p = tmp_path("rt.npz");
    pb_io_error err;
    cr_assert_eq(pb_npz_write_file(p, a, 8, &err), PB_IO_OK, "%s", err.message);
    pb_npz z;
    cr_assert_eq(pb_npz_read_file(p, &z, &err), PB_IO_OK, "%s", err.message);
    expect_same(&z, a, 8);
    cr_expect_null(pb_npz_find(&z, "nope"));
    pb_npz_free(&z);
    cr_expect_null(z.arrays);
    /* the same arrays, the same bytes */
    size_t n1, n2;
    unsigned char *b1 = slurp(p, &n1);
    cr_assert_eq(pb_npz_write_file(p, a, 8, &err), PB_IO_OK);
    unsigned char *b2 = slurp(p, &n2);
    cr_expect(n1 == n2 && memcmp(b1, b2, n1) == 0, "two writes differ");
    /* what numpy expects: a local header, NAME.npy, the .npy magic, a
     * header of 64 bytes with its newline */
    cr_expect(memcmp(b1, "PK\x03\x04", 4) == 0);
    cr_expect(memcmp(b1 + 30, "f32.npy\x93NUMPY\x01\x00", 15) == 0);
    unsigned hl = b1[30 + 7 + 8] | (unsigned)b1[30 + 7 + 9] << 8;
    cr_expect_eq((10 + hl) % 64, 0u);
    cr_expect_eq(b1[30 + 7 + 10 + hl - 1], '\n');
    cr_expect(memcmp(b1 + 30 + 7 + 10,
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 58) == 0);
    free(b1);
    free(b2);
    unlink(p);
}

/* zip's CRC-32 check value: "123456789" -> 0xCBF43926, through an entry of
 * those 9 bytes' worth: one u8 array whose .npy header is known is too
 * long; the CRC field of a known stored entry is checked instead */
Test(npz, crc_of_known_entry)
{
    static const uint8_t v[1] = {42};
    pb_npy_array a = {"x", PB_NPY_U8, 1, {1}, v};
    const char *p = tmp_path("crc.npz");
    cr_assert_eq(pb_npz_write_file(p, &a, 1, NULL), PB_IO_OK);
    size_t n;
    unsigned char *b = slurp(p, &n);
    /* the entry: "\x93NUMPY\x01\x00" + 118 header bytes + one byte */
    const unsigned char *data = b + 30 + 5;
    unsigned hl = data[8] | (unsigned)data[9] << 8;
    size_t len = 10 + hl + 1;
    /* bitwise CRC-32, written here from its definition */
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        c ^= data[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    c = ~c;
    uint32_t got = b[14] | (uint32_t)b[15] << 8 | (uint32_t)b[16] << 16 | (uint32_t)b[17] << 24;
    cr_expect_eq(got, c, "CRC %08x, want %08x", got, c);
    /* and the definition itself: the standard check value */
    c = 0xFFFFFFFFu;
    for (const char *s = "123456789"; *s; s++) {
        c ^= (unsigned char)*s;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    cr_expect_eq(~c, 0xCBF43926u);
    free(b);
    unlink(p);
}

Test(npz, writer_refusals)
{
    pb_npy_array a[8];
    sample(a);
    const char *p = tmp_path("bad.npz");
    pb_io_error err;
    pb_npy_array b = a[0];
    b.name = "a/b";
    cr_expect_eq(pb_npz_write_file(p, &b, 1, &err), PB_IO_ERR_ARG);
    b.name = "";
    cr_expect_eq(pb_npz_write_file(p, &b, 1, &err), PB_IO_ERR_ARG);
    b.name = "x\ny";
    cr_expect_eq(pb_npz_write_file(p, &b, 1, &err), PB_IO_ERR_ARG);
    pb_npy_array twice[2] = {a[0], a[0]};
    cr_expect_eq(pb_npz_write_file(p, twice, 2, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "twice"), "%s", err.message);
    b = a[0];
    b.data = NULL;
    cr_expect_eq(pb_npz_write_file(p, &b, 1, &err), PB_IO_ERR_ARG);
    b = a[0];
    b.dtype = PB_NPY_OTHER;
    cr_expect_eq(pb_npz_write_file(p, &b, 1, &err), PB_IO_ERR_ARG);
    b = a[0];
    b.ndim = 9;
    cr_expect_eq(pb_npz_write_file(p, &b, 1, &err), PB_IO_ERR_ARG);
    static const char *const nul[2] = {"a", NULL};
    pb_npy_array s = {"s", PB_NPY_STR, 1, {2}, nul};
    cr_expect_eq(pb_npz_write_file(p, &s, 1, &err), PB_IO_ERR_ARG);
    b = a[0];
    b.ndim = 2;
    b.shape[0] = (size_t)1 << 40;
    cr_expect_eq(pb_npz_write_file(p, &b, 1, &err), PB_IO_ERR_LIMIT);
    cr_expect_neq(access(p, F_OK), 0, "a refused archive was written");
}

/* every prefix and every single-byte change of a small archive: an error
 * or the arrays, never a crash (ASan builds check the reads) */
Test(npz, damaged_archives, .timeout = 120)
{
    pb_npy_array a[8];
    sample(a);
    const char *p = tmp_path("dmg.npz"), *q = tmp_path("dmg2.npz");
    cr_assert_eq(pb_npz_write_file(p, a, 8, NULL), PB_IO_OK);
    size_t n;
    unsigned char *b = slurp(p, &n);
    pb_npz z;
    pb_io_error err;
    for (size_t len = 0; len < n; len++) {
        spit(q, b, len);
        pb_io_code rc = pb_npz_read_file(q, &z, &err);
        cr_expect_neq(rc, PB_IO_OK, "a prefix of %zu of %zu bytes was read", len, n);
        cr_expect_null(z.arrays);
    }
    unsigned char *c = malloc(n);
    cr_assert(c);
    for (size_t i = 0; i < n; i++) {
        memcpy(c, b, n);
        c[i] ^= (unsigned char)(0x5a + i);
        spit(q, c, n);
        if (pb_npz_read_file(q, &z, &err) == PB_IO_OK)
            pb_npz_free(&z);
    }
    free(c);
    free(b);
    unlink(p);
    unlink(q);
}

/* an .npy of 128 bytes: its header dict, then 16 bytes of data */
static void npy_by_hand(const char *path, const char *dict, const unsigned char data[16])
{
    unsigned char buf[128];
    const size_t hl = 128 - 10 - 16;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)hl;
    buf[9] = 0;
    memset(buf + 10, ' ', hl);
    memcpy(buf + 10, dict, strlen(dict));
    buf[10 + hl - 1] = '\n';
    memcpy(buf + 112, data, 16);
    spit(path, buf, 128);
}

Test(npz, npy_file_and_errors)
{
    const char *p = tmp_path("one.npy");
    /* '>f8' (big-endian) 2 x 1: converted */
    const unsigned char be[16] = {0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xc0, 0x24, 0, 0, 0, 0, 0, 0};
    npy_by_hand(p, "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 1), }", be);
    pb_npz z;
    pb_io_error err;
    cr_assert_eq(pb_npy_read_file(p, &z, &err), PB_IO_OK, "%s", err.message);
    cr_assert_eq(z.count, 1u);
    char want[256];
    snprintf(want, sizeof want, "%s", strrchr(p, '/') + 1);
    want[strlen(want) - 4] = '\0';
    cr_expect_str_eq(z.arrays[0].name, want);
    const double *d = z.arrays[0].data;
    cr_expect(z.arrays[0].dtype == PB_NPY_F64 && z.arrays[0].ndim == 2 && d[0] == 1.5 &&
              d[1] == -10.0);
    pb_npz_free(&z);
    /* Fortran order refused by name; a data part shorter than the shape */
    npy_by_hand(p, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 1), }", be);
    cr_expect_eq(pb_npy_read_file(p, &z, &err), PB_IO_ERR_SYNTAX);
    cr_expect(strstr(err.message, "Fortran"), "%s", err.message);
    npy_by_hand(p, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), }", be);
    cr_expect_eq(pb_npy_read_file(p, &z, &err), PB_IO_ERR_SYNTAX);
    cr_expect(strstr(err.message, "shorter"), "%s", err.message);
    /* a type not taken: read, with no data */
    npy_by_hand(p, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", be);
    cr_assert_eq(pb_npy_read_file(p, &z, &err), PB_IO_OK, "%s", err.message);
    cr_expect(z.arrays[0].dtype == PB_NPY_OTHER && z.arrays[0].data == NULL);
    pb_npz_free(&z);
    cr_expect_eq(pb_npz_read_file(p, &z, &err), PB_IO_ERR_SYNTAX); /* an .npy is no .npz */
    cr_expect_eq(pb_npz_read_file("/nonexistent/x.npz", &z, &err), PB_IO_ERR_IO);
    unlink(p);
}

/* ---- AMASS (posebatch/dataset.h) ------------------------------------------ */

/* an AMASS archive of F frames of J joints (52 or 22): joint 0 turned by
 * 90 degrees about z in frame 1, every other joint at rest */
static void amass_npz(const char *path, size_t F, size_t J, double fps, int with_trans)
{
    double *poses = calloc(F * 3 * J, sizeof *poses), *trans = calloc(F * 3, sizeof *trans);
    cr_assert(poses && trans);
    for (size_t f = 0; f < F; f++) {
        trans[3 * f] = 0.1 * (double)f;
        trans[3 * f + 2] = 0.9;
    }
    if (F > 1)
        poses[3 * J + 2] = 1.5707963267948966; /* frame 1, joint 0, about z */
    pb_npy_array a[3] = {{"poses", PB_NPY_F64, 2, {F, 3 * J}, poses},
                         {"mocap_framerate", PB_NPY_F64, 0, {0}, &fps},
                         {"trans", PB_NPY_F64, 2, {F, 3}, trans}};
    pb_io_error err;
    cr_assert_eq(pb_npz_write_file(path, a, with_trans ? 3 : 2, &err), PB_IO_OK, "%s", err.message);
    free(poses);
    free(trans);
}

Test(amass, clip_from_archive)
{
    const char *p = tmp_path("amass.npz");
    amass_npz(p, 3, 22, 60.0, 1);
    pb_npz z;
    pb_io_error err;
    cr_assert_eq(pb_npz_read_file(p, &z, &err), PB_IO_OK, "%s", err.message);
    float rest[22 * 3];
    for (int j = 0; j < 22; j++) {
        rest[3 * j] = (float)(0.01 * j);
        rest[3 * j + 1] = (float)(1.0 - 0.04 * j);
        rest[3 * j + 2] = 0.0f;
    }
    pb_bvh b;
    cr_assert_eq(pb_amass_to_bvh(&z, rest, 22, &b, &err), PB_IO_OK, "%s", err.message);
    cr_expect_eq(b.num_joints, 22u);
    cr_expect_eq(b.num_frames, 3u);
    cr_expect(fabs(b.frame_time - 1.0 / 60) < 1e-15);
    /* depth first: pelvis, left_hip, left_knee, left_ankle, left_foot, right_hip */
    static const char *const first[6] = {"pelvis",     "left_hip",  "left_knee",
                                         "left_ankle", "left_foot", "right_hip"};
    for (int k = 0; k < 6; k++)
        cr_expect_str_eq(b.joints[k].name, first[k]);
    cr_expect(b.joints[0].parent == -1 && b.joints[5].parent == 0 && b.joints[2].parent == 1);
    /* OFFSET rest[j] - rest[parent]: left_knee (SMPL 4) under left_hip (1) */
    cr_expect(fabsf(b.joints[2].offset[1] - (rest[13] - rest[4])) < 1e-7f);
    /* the pelvis at rest[0] + trans; frame 1 turned 90 degrees about z */
    cr_expect(fabsf(b.pos_x[22 * 2] - (rest[0] + 0.2f)) < 1e-6f);
    cr_expect(fabsf(b.pos_z[22 * 1] - 0.9f) < 1e-6f);
    cr_expect(fabsf(b.rot_w[22] - 0.70710678f) < 1e-7f && fabsf(b.rot_z[22] - 0.70710678f) < 1e-7f);
    cr_expect(b.rot_w[0] == 1.0f && b.rot_x[0] == 0.0f);
    cr_expect_str_eq(pb_smplh_joint_name(21), "right_wrist");
    cr_expect_str_eq(pb_smplh_joint_name(51), "right_thumb3");
    cr_expect_null(pb_smplh_joint_name(52));
    cr_expect_eq(pb_smplh_parent(22), 20);
    cr_expect_eq(pb_smplh_parent(52), -2);
    /* too few rest positions; no trans; a zero frame rate */
    pb_bvh c;
    cr_expect_eq(pb_amass_to_bvh(&z, rest, 21, &c, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "rest"), "%s", err.message);
    pb_npz_free(&z);
    amass_npz(p, 3, 52, 60.0, 0);
    cr_assert_eq(pb_npz_read_file(p, &z, &err), PB_IO_OK);
    cr_expect_eq(pb_amass_to_bvh(&z, rest, 52, &c, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "trans"), "%s", err.message);
    pb_npz_free(&z);
    amass_npz(p, 3, 22, 0.0, 1);
    cr_assert_eq(pb_npz_read_file(p, &z, &err), PB_IO_OK);
    cr_expect_eq(pb_amass_to_bvh(&z, rest, 22, &c, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "frame rate"), "%s", err.message);
    pb_npz_free(&z);
    pb_bvh_free(&b);
    unlink(p);
}
