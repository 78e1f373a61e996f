/* The BVH <-> glTF conversion: a round trip within 1e-3 degrees, and a
 * skin converted to BVH. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_text.h"
#include "gltf_util.h"

/* ---- BVH <-> glTF ---------------------------------------------------------- */

Test(gltf, bvh_gltf_bvh_round_trip_within_1e_3_degrees)
{
    pb_bvh b, back;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &b, &err), PB_BVH_OK, "%s",
                 err.message);
    pb_gltf g;
    cr_assert_eq(pb_gltf_from_bvh(&b, &g, &err), PB_BVH_OK, "%s", err.message);
    char *dir = tmpdir();
    char out[512];
    snprintf(out, sizeof out, "%s/c.glb", dir);
    cr_assert_eq(pb_gltf_write_file(out, &g, &err), PB_BVH_OK, "%s", err.message);
    pb_gltf h = read_ok(out);
    cr_assert_eq(h.num_nodes, b.num_joints + b.num_end_sites);
    cr_assert_eq(pb_gltf_to_bvh(&h, -1, 0, 0, &back, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(back.num_joints, b.num_joints);
    cr_assert_eq(back.num_end_sites, b.num_end_sites);
    cr_assert_eq(back.num_frames, b.num_frames);
    cr_assert_eq(back.frame_time, b.frame_time);
    double worst = 0, worst_pos = 0;
    for (size_t j = 0; j < b.num_joints; j++) {
        cr_assert_str_eq(back.joints[j].name, b.joints[j].name);
        cr_assert_eq(back.joints[j].parent, b.joints[j].parent);
        cr_assert_eq(back.joints[j].num_channels, b.joints[j].num_channels);
        cr_assert_eq(memcmp(back.joints[j].channels, b.joints[j].channels, 6), 0);
    }
    for (size_t e = 0; e < b.num_end_sites; e++) {
        cr_assert_eq(back.end_sites[e].parent, b.end_sites[e].parent);
        cr_assert_eq(back.end_sites[e].child_index, b.end_sites[e].child_index);
    }
    for (size_t i = 0; i < b.num_frames * b.num_joints; i++) {
        double a4[4] = {b.rot_w[i], b.rot_x[i], b.rot_y[i], b.rot_z[i]};
        double b4[4] = {back.rot_w[i], back.rot_x[i], back.rot_y[i], back.rot_z[i]};
        worst = fmax(worst, rot_angle(a4, b4) * 180 / 3.14159265358979323846);
        worst_pos = fmax(worst_pos, fabs((double)b.pos_x[i] - back.pos_x[i]));
    }
    fprintf(stderr, "BVH -> glTF -> BVH: max rotation difference %.3g degrees\n", worst);
    cr_assert_lt(worst, 1e-3, "%g degrees", worst);
    cr_assert_eq(worst_pos, 0.0);
    /* and through BVH text again */
    snprintf(out, sizeof out, "%s/c.bvh", dir);
    cr_assert_eq(pb_bvh_write_file(out, &back, &err), PB_BVH_OK, "%s", err.message);
    pb_bvh again;
    cr_assert_eq(pb_bvh_read_file(out, &again, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(again.num_frames, b.num_frames);
    pb_bvh_free(&again);
    pb_bvh_free(&back);
    pb_gltf_free(&h);
    pb_gltf_free(&g);
    pb_bvh_free(&b);
    rmtree(dir);
}

Test(gltf, gltf_to_bvh_of_a_skin)
{
    pb_gltf g = read_sample_or_skip("Fox.glb");
    pb_bvh b;
    pb_bvh_error err;
    cr_assert_eq(pb_gltf_default_skin(&g), 0);
    cr_assert_eq(pb_gltf_to_bvh(&g, 1, 0, 0, &b, &err), PB_BVH_ERR_ARG);
    cr_assert_not_null(strstr(err.message, "skin 1: the file has 1 skin"), "%s", err.message);
    cr_assert_eq(pb_gltf_to_bvh(&g, 0, 2, 0, &b, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_geq(b.num_joints, g.skins[0].num_joints);
    /* the Run animation: keys 1/24 s apart but the last 0.2 s: frames at the
     * median interval over its whole span */
    const pb_gltf_animation *run = &g.animations[2];
    cr_assert_float_eq(b.frame_time, 1.0 / 24, 1e-6);
    cr_assert_eq(b.num_frames, (size_t)floor((run->t_max - run->t_min) / b.frame_time + 1e-3) + 1);
    /* every skin joint is a BVH joint with its name, rotations as sampled */
    float *v = malloc(g.animations[2].num_values * sizeof *v);
    float t = g.animations[2].t_min + 5 * (float)b.frame_time;
    cr_assert_eq(pb_gltf_sample(&g, 2, 1, &t, v, &err), PB_BVH_OK);
    for (size_t c = 0; c < g.animations[2].num_channels; c++) {
        const pb_gltf_channel *ch = &g.animations[2].channels[c];
        if (ch->path != PB_GLTF_ROTATION)
            continue;
        long j = pb_bvh_find_joint(&b, g.nodes[ch->node].name);
        cr_assert_geq(j, 0, "%s", g.nodes[ch->node].name);
        size_t e = 5 * b.num_joints + (size_t)j;
        const float *q = v + ch->offset;
        double d = fabs((double)q[3] * b.rot_w[e] + (double)q[0] * b.rot_x[e] +
                        (double)q[1] * b.rot_y[e] + (double)q[2] * b.rot_z[e]);
        cr_assert_gt(d, 1 - 1e-6);
    }
    free(v);
    pb_bvh_free(&b);
    pb_gltf_free(&g);
}

/* A node tree whose "bvh_channels" extras give no joint a channel (an empty
 * list is a valid BVH "CHANNELS 0"): a BVH of the skeleton and no frames,
 * which writes and reads back; with and without an animation of its nodes.
 * Found by the glTF fuzzer: one frame of no values was written, which no
 * reader takes. */
Test(gltf, to_bvh_with_no_channels_has_no_frames)
{
    static const char *const docs[2] = {
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"root\",\"children\":[1],"
        "\"extras\":{\"bvh_channels\":[]}},{\"name\":\"b\",\"translation\":[0,1,0],"
        "\"extras\":{\"bvh_channels\":[]}}]}",
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"root\",\"children\":[1],"
        "\"extras\":{\"bvh_channels\":[]}},{\"name\":\"b\",\"extras\":{\"bvh_channels\":[]}}],"
        "\"buffers\":[{\"byteLength\":40,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAAAAAAAACAPw==\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":40}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","
        "\"min\":[0],\"max\":[1]},{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5126,"
        "\"count\":2,\"type\":\"VEC4\"}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1,\"interpolation\":\"STEP\"}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}}]}]}",
    };
    for (int d = 0; d < 2; d++) {
        pb_gltf g;
        pb_io_error err;
        cr_assert_eq(pb_gltf_read_memory(docs[d], strlen(docs[d]), NULL, &g, &err), PB_IO_OK,
                     "doc %d: %s", d, err.message);
        cr_assert_eq(g.num_animations, (size_t)d);
        pb_bvh b;
        cr_assert_eq(pb_gltf_to_bvh(&g, -1, 0, 0, &b, &err), PB_IO_OK, "doc %d: %s", d,
                     err.message);
        cr_expect_eq(b.num_joints, 2);
        cr_expect_eq(b.num_channels, 0);
        cr_expect_eq(b.num_frames, 0, "doc %d: %zu frames", d, b.num_frames);
        pb_bvh c = bvh_round_trip(&b);
        cr_expect_eq(c.num_joints, 2);
        cr_expect_eq(c.num_frames, 0);
        pb_bvh_free(&c);
        pb_bvh_free(&b);
        pb_gltf_free(&g);
    }
}

/* A CUBICSPLINE whose curve passes float range between its keys: the
 * conversion refuses with PB_IO_ERR_VALUE naming the frame and joint,
 * whether the frames are few or many (above 16 the size estimate samples
 * first; it used to fail there with PB_IO_ERR_ARG from the writer's check,
 * and convert a clip of infinities below). Found by the glTF fuzzer. */
Test(gltf, to_bvh_of_a_curve_beyond_float_range_is_refused)
{
    static const char curve[] =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"root\"}],"
        "\"buffers\":[{\"byteLength\":80,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAgD8AAAAAAAAAAAAAAACwQ3h/AAAAAAAAAACwQ3h/AAAAAAAAAAAAAAAAAAAAAAAAAACwQ3h/"
        "AAAAAAAAAAAAAAAAAAAAAAAAAAA=\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},"
        "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":72}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","
        "\"min\":[0],\"max\":[1]},{\"bufferView\":1,\"componentType\":5126,\"count\":6,"
        "\"type\":\"VEC3\"}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1,"
        "\"interpolation\":\"CUBICSPLINE\"}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}";
    pb_gltf g;
    pb_io_error err;
    cr_assert_eq(pb_gltf_read_memory(curve, strlen(curve), NULL, &g, &err), PB_IO_OK, "%s",
                 err.message);
    const double fts[2] = {0.5, 0.05}; /* 3 frames, 21 frames */
    for (int k = 0; k < 2; k++) {
        pb_bvh b;
        memset(&b, 0x5a, sizeof b);
        pb_bvh before = b;
        cr_expect_eq(pb_gltf_to_bvh(&g, -1, 0, fts[k], &b, &err), PB_IO_ERR_VALUE, "frame time %g",
                     fts[k]);
        cr_expect(strstr(err.message, "joint 'root'") && strstr(err.message, "not finite"), "%s",
                  err.message);
        cr_expect_eq(memcmp(&b, &before, sizeof b), 0, "*out untouched");
    }
    /* at the keys themselves the curve is finite: converts */
    pb_bvh b;
    cr_assert_eq(pb_gltf_to_bvh(&g, -1, 0, 1.0, &b, &err), PB_IO_OK, "%s", err.message);
    cr_expect_eq(b.num_frames, 2);
    cr_expect_eq(b.pos_x[1], 3.3e38f);
    pb_bvh_free(&b);
    pb_gltf_free(&g);
}

/* A chain of n nodes, with an End Site leaf under the last when `end`. */
static char *chain_doc(int n, int end)
{
    size_t cap = (size_t)n * 64 + 256, k = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    k += (size_t)snprintf(s + k, cap - k, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
    for (int i = 0; i < n; i++) {
        k += (size_t)snprintf(s + k, cap - k, "%s{\"name\":\"j%d\"", i ? "," : "", i);
        if (i + 1 < n || end)
            k += (size_t)snprintf(s + k, cap - k, ",\"children\":[%d]", i + 1);
        k += (size_t)snprintf(s + k, cap - k, "}");
    }
    if (end)
        k += (size_t)snprintf(s + k, cap - k,
                              ",{\"name\":\"e\",\"extras\":{\"bvh_end_site\":true}}");
    snprintf(s + k, cap - k, "]}");
    return s;
}

/* The BVH reader takes joints nested at most PB_BVH_MAX_DEPTH deep and End
 * Sites under shallower joints: pb_gltf_to_bvh refuses deeper trees
 * (PB_IO_ERR_LIMIT), the writer refuses such in-memory data, and the
 * deepest allowed chain converts, writes and reads back. */
Test(gltf, to_bvh_nesting_is_what_the_reader_takes)
{
    const struct {
        int n, end;
        pb_io_code rc;
    } cases[] = {{PB_BVH_MAX_DEPTH + 1, 0, PB_IO_ERR_LIMIT},
                 {PB_BVH_MAX_DEPTH, 1, PB_IO_ERR_LIMIT},
                 {PB_BVH_MAX_DEPTH, 0, PB_IO_OK},
                 {PB_BVH_MAX_DEPTH - 1, 1, PB_IO_OK}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *text_in = chain_doc(cases[c].n, cases[c].end);
        pb_gltf g;
        pb_io_error err;
        cr_assert_eq(pb_gltf_read_memory(text_in, strlen(text_in), NULL, &g, &err), PB_IO_OK, "%s",
                     err.message);
        pb_bvh b;
        pb_io_code rc = pb_gltf_to_bvh(&g, -1, 0, 0, &b, &err);
        cr_expect_eq(rc, cases[c].rc, "case %zu: %s", c, err.message);
        if (rc == PB_IO_OK) {
            pb_bvh r = bvh_round_trip(&b);
            cr_expect_eq(r.num_joints, b.num_joints);
            pb_bvh_free(&r);
            if (!cases[c].end && cases[c].n == PB_BVH_MAX_DEPTH) {
                /* an End Site under the deepest joint: the writer refuses */
                pb_bvh_end_site es = {(int32_t)b.num_joints - 1, 0, {0, 1, 0}}, *own = b.end_sites;
                size_t own_n = b.num_end_sites;
                b.end_sites = &es;
                b.num_end_sites = 1;
                bvh_write_refused(&b, PB_IO_ERR_ARG, "End Site");
                b.end_sites = own;
                b.num_end_sites = own_n;
            }
            pb_bvh_free(&b);
        } else
            cr_expect(strstr(err.message, "deeper than 256") != NULL, "%s", err.message);
        pb_gltf_free(&g);
        free(text_in);
    }
}

/* pb_gltf_from_bvh's skin: every node a joint in node order, inverse bind
 * matrices the translations by minus each node's rest position (summed in
 * double here), kept through a file; converting back with that skin gives
 * the joints and End Sites that converting every node gives. */
Test(gltf, bvh_to_gltf_has_a_skin_of_the_rest_pose)
{
    pb_bvh b;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &b, &err), PB_BVH_OK, "%s",
                 err.message);
    pb_gltf g;
    cr_assert_eq(pb_gltf_from_bvh(&b, &g, &err), PB_BVH_OK, "%s", err.message);
    const size_t J = b.num_joints, N = J + b.num_end_sites;
    cr_assert_eq(g.num_skins, 1);
    cr_assert_eq(g.skins[0].num_joints, N);
    cr_assert(g.skins[0].inverse_bind);
    char *dir = tmpdir();
    char out[512];
    snprintf(out, sizeof out, "%s/s.glb", dir);
    cr_assert_eq(pb_gltf_write_file(out, &g, &err), PB_BVH_OK, "%s", err.message);
    pb_gltf h = read_ok(out);
    cr_assert_eq(h.num_skins, 1);
    cr_assert_eq(h.skins[0].num_joints, N);
    cr_assert(h.skins[0].inverse_bind);
    cr_assert_eq(pb_gltf_default_skin(&h), 0);
    double *at = calloc(3 * N, sizeof *at);
    cr_assert(at);
    for (size_t i = 0; i < N; i++) {
        const int32_t p = i < J ? b.joints[i].parent : b.end_sites[i - J].parent;
        const float *off = i < J ? b.joints[i].offset : b.end_sites[i - J].offset;
        for (int k = 0; k < 3; k++)
            at[3 * i + k] = (p >= 0 ? at[3 * (size_t)p + k] : 0.0) + off[k];
        for (int s = 0; s < 2; s++) {
            const pb_gltf_skin *sk = s ? &h.skins[0] : &g.skins[0];
            cr_assert_eq(sk->joints[i], (int32_t)i);
            const float *m = sk->inverse_bind + 16 * i;
            for (int k = 0; k < 12; k++)
                cr_assert(m[k] == (k % 5 == 0 ? 1.0f : 0.0f), "node %zu, element %d", i, k);
            for (int k = 0; k < 3; k++)
                cr_assert(fabs(m[12 + k] + at[3 * i + k]) <= 1e-6 * (1 + fabs(at[3 * i + k])),
                          "node %zu: %g, rest position %g", i, (double)m[12 + k], at[3 * i + k]);
            cr_assert(m[15] == 1.0f);
        }
    }
    free(at);
    /* back to BVH through the skin and through every node: the same */
    pb_bvh by_skin, by_nodes;
    cr_assert_eq(pb_gltf_to_bvh(&h, 0, 0, 0, &by_skin, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(pb_gltf_to_bvh(&h, -1, 0, 0, &by_nodes, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(by_skin.num_joints, J);
    cr_assert_eq(by_skin.num_end_sites, b.num_end_sites);
    cr_assert_eq(by_nodes.num_end_sites, b.num_end_sites);
    for (size_t j = 0; j < J; j++) {
        cr_assert_str_eq(by_skin.joints[j].name, b.joints[j].name);
        cr_assert_eq(by_skin.joints[j].parent, b.joints[j].parent);
    }
    for (size_t e = 0; e < b.num_end_sites; e++) {
        cr_assert_eq(by_skin.end_sites[e].parent, b.end_sites[e].parent);
        cr_assert_eq(by_skin.end_sites[e].child_index, b.end_sites[e].child_index);
    }
    cr_assert_eq(by_skin.num_frames, b.num_frames);
    cr_assert_eq(memcmp(by_skin.rot_x, by_nodes.rot_x, J * b.num_frames * sizeof(float)), 0);
    pb_bvh_free(&by_skin);
    pb_bvh_free(&by_nodes);
    pb_gltf_free(&h);
    pb_gltf_free(&g);
    /* rest positions beyond float range (OFFSETs that are not, summed) */
    pb_bvh far;
    const char *text = "HIERARCHY\nROOT a\n{\nOFFSET 0 3e38 0\nCHANNELS 3 Zrotation Yrotation "
                       "Xrotation\nJOINT b\n{\nOFFSET 0 3e38 0\nCHANNELS 3 Zrotation Yrotation "
                       "Xrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n}\nMOTION\nFrames: 1\nFrame "
                       "Time: 0.1\n0 0 0 0 0 0\n";
    cr_assert_eq(pb_bvh_read_memory(text, strlen(text), &far, &err), PB_BVH_OK, "%s", err.message);
    pb_gltf x;
    cr_assert_eq(pb_gltf_from_bvh(&far, &x, &err), PB_IO_ERR_VALUE);
    cr_assert(strstr(err.message, "beyond float range"), "%s", err.message);
    cr_assert_eq(x.num_nodes, 0);
    pb_bvh_free(&far);
    pb_bvh_free(&b);
    rmtree(dir);
}
