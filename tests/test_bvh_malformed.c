/* Malformed BVH text: each case is an error with its code, the line it
 * names and a message saying what is wrong, and the output is left empty. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include "bvh_util.h"

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
