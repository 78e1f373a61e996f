/* The table of formats (src/io/formats.c): what a file is, a clip from any
 * format, a clip to the format an output's name asks for. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clipdata.h"
#include "posebatch/io.h"

Test(formats, by_head_and_by_name)
{
    cr_expect_eq(pb_io_format_of_head("glTF\x02\0\0\0", 8), PB_IO_FORMAT_GLB);
    cr_expect_eq(pb_io_format_of_head("\xEF\xBB\xBF \r\n\t{\"asset\"", 15), PB_IO_FORMAT_GLTF);
    cr_expect_eq(pb_io_format_of_head("HIERARCHY\nROOT a", 16), PB_IO_FORMAT_BVH);
    cr_expect_eq(pb_io_format_of_head("", 0), PB_IO_FORMAT_BVH);
    cr_expect_eq(pb_io_format_of_name("a/b.GLB"), PB_IO_FORMAT_GLB);
    cr_expect_eq(pb_io_format_of_name("x.gltf"), PB_IO_FORMAT_GLTF);
    cr_expect_eq(pb_io_format_of_name(".glb"), PB_IO_FORMAT_BVH); /* a name, not an extension */
    cr_expect_eq(pb_io_format_of_name("x.bvh"), PB_IO_FORMAT_BVH);
    cr_expect_str_eq(pb_io_format_name(PB_IO_FORMAT_GLB), "glb");
    cr_expect_null(pb_io_format_name((pb_io_format)7));
}

Test(formats, files_by_content_streams_by_name, .timeout = 10)
{
    char dir[] = "/tmp/pb_formats.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char p[256];
    snprintf(p, sizeof p, "%s/text.glb", dir); /* BVH text under a .glb name */
    FILE *f = fopen(p, "w");
    fputs("HIERARCHY\n", f);
    fclose(f);
    cr_expect_eq(pb_io_format_of_file(p), PB_IO_FORMAT_BVH);
    snprintf(p, sizeof p, "%s/fifo.gltf", dir); /* never opened: no byte lost, no wait */
    cr_assert_eq(mkfifo(p, 0600), 0);
    cr_expect_eq(pb_io_format_of_file(p), PB_IO_FORMAT_GLTF);
    unlink(p);
    snprintf(p, sizeof p, "%s/text.glb", dir);
    unlink(p);
    rmdir(dir);
    cr_expect_eq(pb_io_format_of_file("-"), PB_IO_FORMAT_BVH);
}

Test(formats, clips_in_and_out_of_every_format)
{
    char dir[] = "/tmp/pb_formats.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    pb_bvh a, b;
    pb_bvh_error err;
    cr_assert_eq(pb_io_read_clip(repo_clip_path("cmu_01_03.bvh"), NULL, &a, &err), PB_BVH_OK, "%s",
                 err.message);
    const char *names[] = {"c.glb", "c.gltf", "c.bvh"};
    const pb_io_format want[] = {PB_IO_FORMAT_GLB, PB_IO_FORMAT_GLTF, PB_IO_FORMAT_BVH};
    for (int i = 0; i < 3; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        cr_assert_eq(pb_io_write_clip(p, &a, NULL, &err), PB_BVH_OK, "%s", err.message);
        cr_expect_eq(pb_io_format_of_file(p), want[i], "%s", names[i]);
        cr_assert_eq(pb_io_read_clip(p, NULL, &b, &err), PB_BVH_OK, "%s", err.message);
        cr_expect_eq(b.num_joints, a.num_joints);
        cr_expect_eq(b.num_frames, a.num_frames);
        for (size_t j = 0; j < a.num_joints; j++)
            cr_expect_str_eq(b.joints[j].name, a.joints[j].name);
        pb_bvh_free(&b);
        unlink(p);
    }
    rmdir(dir);
    pb_bvh_free(&a);
    cr_expect_eq(pb_io_read_clip(NULL, NULL, &a, &err), PB_BVH_ERR_ARG);
}

/* The io names of the release before (pb_bvh_code, pb_bvh_error, PB_BVH_*)
 * still compile and mean the same types and values. */
Test(formats, old_io_names_are_aliases)
{
    _Static_assert(PB_BVH_OK == PB_IO_OK && PB_BVH_ERR_IO == PB_IO_ERR_IO &&
                       PB_BVH_ERR_SYNTAX == PB_IO_ERR_SYNTAX &&
                       PB_BVH_ERR_VALUE == PB_IO_ERR_VALUE && PB_BVH_ERR_LIMIT == PB_IO_ERR_LIMIT &&
                       PB_BVH_ERR_MOTION == PB_IO_ERR_MOTION &&
                       PB_BVH_ERR_NOMEM == PB_IO_ERR_NOMEM && PB_BVH_ERR_ARG == PB_IO_ERR_ARG,
                   "old codes");
    pb_bvh_error old_err;
    pb_io_error *e = &old_err; /* the same type */
    pb_bvh_code (*read)(const char *, pb_gltf *, pb_bvh_error *) = pb_gltf_read_file;
    cr_expect_eq(read("/nonexistent.glb", &(pb_gltf){0}, e), PB_BVH_ERR_IO);
    for (int c = 0; c <= PB_IO_ERR_ARG; c++)
        cr_expect_str_eq(pb_bvh_code_str((pb_bvh_code)c), pb_io_code_str((pb_io_code)c));
}
