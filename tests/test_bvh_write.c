/* The BVH writer: Euler channels continuous across +-180 flips (or the
 * source's own angles), a failure leaves no temporary and keeps the
 * destination, values of any magnitude read back bit-exactly,
 * pb_bvh_set_frames and non-unit quaternions. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include "bvh_text.h"
#include "bvh_util.h"

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

/* In-memory data whose data-line layout disagrees with itself, or frames
 * with no channel to hold them, are refused before anything is written:
 * the text would not read back (or the writer would index past the
 * decimals). */
Test(bvh_write, inconsistent_channel_layout_is_refused)
{
    pb_bvh b = read_ok(k_valid);
    pb_bvh_error err;
    /* first_channel that skips a value */
    b.joints[1].first_channel += 1;
    bvh_write_refused(&b, PB_BVH_ERR_ARG, "joint 1: first_channel");
    b.joints[1].first_channel -= 1;
    /* num_channels that is not the joints' sum */
    b.num_channels -= 1;
    bvh_write_refused(&b, PB_BVH_ERR_ARG, "num_channels");
    double est = 0;
    cr_expect_eq(pb_bvh_estimate_bytes(&b, 10, NULL, &est, &err), PB_BVH_ERR_ARG);
    b.num_channels += 1;
    /* frames but no channel anywhere: "Frames: N" with empty lines */
    uint8_t nch[2] = {b.joints[0].num_channels, b.joints[1].num_channels};
    size_t C = b.num_channels;
    b.joints[0].num_channels = b.joints[1].num_channels = 0;
    b.joints[1].first_channel = 0;
    b.num_channels = 0;
    bvh_write_refused(&b, PB_BVH_ERR_ARG, "no joint has a channel");
    /* with no frames, the skeleton writes and reads back */
    size_t F = b.num_frames;
    b.num_frames = 0;
    pb_bvh c = bvh_round_trip(&b);
    cr_expect_eq(c.num_frames, 0);
    pb_bvh_free(&c);
    b.num_frames = F;
    b.joints[0].num_channels = nch[0];
    b.joints[1].num_channels = nch[1];
    b.joints[1].first_channel = nch[0];
    b.num_channels = C;
    pb_bvh_free(&b);
}

/* A channel listed twice in one joint's CHANNELS line is a file the reader
 * refuses, so the writer refuses it too, before writing anything: each
 * position and rotation channel repeated in place of another, at the root
 * and below it. */
Test(bvh_write, channel_listed_twice_is_refused)
{
    pb_bvh b = read_ok(k_valid);
    /* the reader's side: such a file is refused */
    static const char *const twice =
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xrotation Xrotation Yrotation\n"
        " End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n1 2 3\n";
    pb_bvh c;
    pb_io_error rerr;
    cr_expect_neq(pb_bvh_read_memory(twice, strlen(twice), &c, &rerr), PB_IO_OK,
                  "the reader takes a channel twice");
    for (size_t j = 0; j < b.num_joints; j++)
        for (int k = 1; k < b.joints[j].num_channels; k++) {
            pb_bvh_joint *jt = &b.joints[j];
            uint8_t keep = jt->channels[k];
            jt->channels[k] = jt->channels[k - 1];
            char want[64];
            snprintf(want, sizeof want, "joint %zu: invalid channel list", j);
            bvh_write_refused(&b, PB_BVH_ERR_ARG, want);
            jt->channels[k] = keep;
        }
    /* unchanged, it writes */
    c = bvh_round_trip(&b);
    pb_bvh_free(&c);
    pb_bvh_free(&b);
}

/* A joint that turns 179 degrees a frame for 5600 frames, written without
 * source angles: the continuous choice unrolls past the reader's +-1e6
 * degrees; the writer brings such an angle back by whole turns, so the text
 * reads back, with every rotation kept (the glTF fuzzer's open finding
 * bvh_write_continuous_euler_beyond_1e6). */
Test(bvh_write, continuous_angles_stay_within_what_the_reader_takes)
{
    const size_t F = 5600;
    size_t cap = F * 4 + 256;
    char *text = xmalloc(cap);
    size_t k = appendf(text, cap, 0,
                       "HIERARCHY\nROOT spin\n{\n\tOFFSET 0 0 0\n\tCHANNELS 1 Yrotation\n}\n"
                       "MOTION\nFrames: %zu\nFrame Time: 0.01\n",
                       F);
    for (size_t f = 0; f < F; f++)
        k = appendf(text, cap, k, "0\n");
    pb_bvh b = read_ok(text);
    free(b.euler_deg); /* no source angles: the continuous choice */
    b.euler_deg = NULL;
    for (size_t f = 0; f < F; f++) {
        double t = fmod(179.0 * (double)f, 360.0) * (3.14159265358979323846 / 180.0);
        b.rot_w[f] = (float)cos(t / 2), b.rot_x[f] = 0.0f, b.rot_y[f] = (float)sin(t / 2),
        b.rot_z[f] = 0.0f;
    }
    size_t len = 0;
    char *out = bvh_text(&b, &len);
    pb_bvh c;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_memory(out, len, &c, &err), PB_BVH_OK, "%s", err.message);
    double *v = data_values(out, F, 1), lo = 0, hi = 0, worst = 0;
    size_t jumps = 0;
    for (size_t f = 0; f < F; f++) {
        lo = v[f] < lo ? v[f] : lo;
        hi = v[f] > hi ? v[f] : hi;
        jumps += f > 0 && fabs(v[f] - v[f - 1]) > 180.0;
        double qa[4], qb[4];
        bvh_quat(&b, f, qa);
        bvh_quat(&c, f, qb);
        double d = quat_angle(qa, qb);
        worst = d > worst ? d : worst;
    }
    fprintf(stderr, "spin: angles %.1f .. %.1f degrees, %zu jump(s), worst %.3g rad\n", lo, hi,
            jumps, worst);
    cr_expect_gt(hi, 9e5, "continuous: unrolled far");
    cr_expect_leq(fabs(lo), 1e6);
    cr_expect_leq(hi, 1e6);
    cr_expect_eq(jumps, 1, "one turn-back");
    cr_expect_lt(worst, 2e-6);
    free(v);
    free(out);
    pb_bvh_free(&c);
    pb_bvh_free(&b);
    free(text);
}
