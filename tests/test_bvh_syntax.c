/* The BVH reader on the syntax variants it accepts: the sample text,
 * line endings, indentation, a BOM, unusual channel layouts (no channels,
 * positions only, partial rotations, several roots, End Sites between
 * joints) and zero frames, each written and read back the same. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include "bvh_util.h"

/* ------------------------------------------------------------------------ */
/* Syntax variants                                                          */
/* ------------------------------------------------------------------------ */

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
