/* Malformed glTF input: a defect in the JSON, the container or a GLB chunk
 * is an error naming its JSON path (or what is wrong), and nothing is
 * read. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "gltf_util.h"

static void expect_error(doc *d, const char *needle)
{
    pb_gltf g;
    pb_bvh_error err;
    memset(&g, 0x5a, sizeof g);
    pb_bvh_code rc = doc_read(d, &g, &err);
    cr_assert_neq(rc, PB_BVH_OK, "accepted; expected '%s'", needle);
    cr_assert_eq(err.code, rc);
    cr_assert_not_null(strstr(err.message, needle), "message '%s' lacks '%s'", err.message, needle);
    cr_assert_eq(g.num_nodes, 0);
    cr_assert_null(g.priv_);
    json_decref(d->root);
}

static json_t *sampler0(doc *d)
{
    return json_array_get(
        json_object_get(json_array_get(json_object_get(d->root, "animations"), 0), "samplers"), 0);
}

Test(gltf, malformed_inputs_name_their_json_path)
{
    int tin, rout;
    doc d = base_doc(&tin, &rout);
    pb_gltf g;
    pb_bvh_error err;
    cr_assert_eq(doc_read(&d, &g, &err), PB_BVH_OK, "%s", err.message);
    pb_gltf_free(&g);
    json_decref(d.root);

    /* input accessor not float */
    d = base_doc(&tin, &rout);
    unsigned char bytes[2] = {0, 1};
    int bad = doc_acc(&d, bytes, 2, 5121, 1, "SCALAR", 0);
    json_object_set_new(sampler0(&d), "input", json_integer(bad));
    char want[128];
    snprintf(want, sizeof want, "animations[0].samplers[0].input: accessor %d is not float", bad);
    expect_error(&d, want);

    /* times not increasing */
    d = base_doc(&tin, &rout);
    float t2[2] = {1, 1};
    int ti = doc_floats(&d, t2, 2, "SCALAR");
    json_object_set_new(sampler0(&d), "input", json_integer(ti));
    expect_error(&d, "animations[0].samplers[0].input: accessor 2: key times are not strictly");

    /* output count does not match */
    d = base_doc(&tin, &rout);
    float q3[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    int o3 = doc_floats(&d, q3, 3, "VEC4");
    json_object_set_new(sampler0(&d), "output", json_integer(o3));
    expect_error(&d, "animations[0].samplers[0].output: accessor 2 has 3 elements for 2 keys");

    /* rotation from a VEC3 accessor */
    d = base_doc(&tin, &rout);
    float v3[6] = {0};
    int o4 = doc_floats(&d, v3, 2, "VEC3");
    json_object_set_new(sampler0(&d), "output", json_integer(o4));
    expect_error(&d, "animations[0].samplers[0].output: accessor 2 is VEC3, expected VEC4");

    /* translation from UNSIGNED_SHORT normalized (rotations and weights only) */
    d = base_doc(&tin, &rout);
    unsigned short us[6] = {0};
    int o5 = doc_acc(&d, us, 2, 5123, 2, "VEC3", 1);
    json_object_set_new(sampler0(&d), "output", json_integer(o5));
    json_object_set_new(
        json_object_get(
            json_array_get(json_object_get(json_array_get(json_object_get(d.root, "animations"), 0),
                                           "channels"),
                           0),
            "target"),
        "path", json_string("translation"));
    expect_error(&d, "output: accessor 2 is not float (normalized UNSIGNED_SHORT)");

    /* accessor past its bufferView */
    d = base_doc(&tin, &rout);
    json_object_set_new(json_array_get(d.accs, (size_t)rout), "count", json_integer(3));
    expect_error(&d, "accessors[1]: 3 elements of 16 bytes");

    /* unknown interpolation, node out of range, bad path */
    d = base_doc(&tin, &rout);
    json_object_set_new(sampler0(&d), "interpolation", json_string("SMOOTH"));
    expect_error(&d, "animations[0].samplers[0]: 'interpolation' is not LINEAR");
    d = base_doc(&tin, &rout);
    json_t *tg = json_object_get(
        json_array_get(
            json_object_get(json_array_get(json_object_get(d.root, "animations"), 0), "channels"),
            0),
        "target");
    json_object_set_new(tg, "node", json_integer(7));
    expect_error(&d, "animations[0].channels[0].target: 'node' is 7");
    d = base_doc(&tin, &rout);
    tg = json_object_get(
        json_array_get(
            json_object_get(json_array_get(json_object_get(d.root, "animations"), 0), "channels"),
            0),
        "target");
    json_object_set_new(tg, "path", json_string("colour"));
    expect_error(&d, "animations[0].channels[0].target: 'path' 'colour'");

    /* bufferView past its buffer; buffer larger than its data */
    d = base_doc(&tin, &rout);
    json_object_set_new(json_array_get(d.views, 0), "byteLength", json_integer(4000));
    expect_error(&d, "bufferViews[0]: byteOffset 0 + byteLength 4000 is past the end of buffer 0");

    /* a node that is its own ancestor; two parents */
    d = base_doc(&tin, &rout);
    json_object_set_new(json_array_get(json_object_get(d.root, "nodes"), 1), "children",
                        json_pack("[i]", 0));
    expect_error(&d, "has a cycle");
    d = base_doc(&tin, &rout);
    json_array_append_new(json_object_get(d.root, "nodes"), json_pack("{s:[i]}", "children", 1));
    expect_error(&d, "nodes[2].children[0]: node 1 is already a child of node 0");

    /* a TRS beyond float range (read as an infinity, it reached the BVH
     * writer as an OFFSET: found by the glTF fuzzer), given or from a
     * matrix's decomposition */
    d = base_doc(&tin, &rout);
    json_object_set_new(json_array_get(json_object_get(d.root, "nodes"), 1), "translation",
                        json_pack("[f,f,f]", 0.0, 0.0, -1.1e108));
    expect_error(&d, "nodes[1]: 'translation' is beyond float range");
    d = base_doc(&tin, &rout);
    json_t *n1 = json_array_get(json_object_get(d.root, "nodes"), 1);
    json_object_del(n1, "translation");
    json_object_del(n1, "rotation");
    json_object_del(n1, "scale");
    json_object_set_new(n1, "matrix",
                        json_pack("[f,f,f,f, f,f,f,f, f,f,f,f, f,f,f,f]", 3e38, 0.0, 3e38, 0.0, 0.0,
                                  1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0));
    expect_error(&d, "nodes[1]: 'matrix': its scale is beyond float range");

    /* sparse indices not increasing */
    d = base_doc(&tin, &rout);
    unsigned char si[2] = {1, 1};
    float sv[8] = {0, 0, 0, 1, 0, 0, 0, 1};
    int iv = doc_view(&d, si, 2), vv = doc_view(&d, sv, sizeof sv);
    json_object_set_new(json_array_get(d.accs, (size_t)rout), "sparse",
                        json_pack("{s:i,s:{s:i,s:i},s:{s:i}}", "count", 2, "indices", "bufferView",
                                  iv, "componentType", 5121, "values", "bufferView", vv));
    expect_error(&d, "accessors[1].sparse.indices: index 1 is 1");

    /* an absurd accessor: refused before any memory is taken */
    d = base_doc(&tin, &rout);
    json_array_append_new(d.accs, json_pack("{s:i,s:i,s:s}", "componentType", 5126, "count",
                                            1 << 30, "type", "VEC4"));
    json_object_set_new(sampler0(&d), "output", json_integer(2));
    expect_error(&d, "accessors[2]: 1073741824 VEC4 elements: more than 2^28 values");

    /* version 1.0 */
    d = base_doc(&tin, &rout);
    json_object_set_new(json_object_get(d.root, "asset"), "version", json_string("1.0"));
    expect_error(&d, "asset.version: '1.0': only glTF 2.x");
}

Test(gltf, json_and_container_errors)
{
    pb_gltf g;
    pb_bvh_error err;
    const char *bad = "{\n  \"asset\": {\"version\": \"2.0\"},\n  \"nodes\": [1, }\n}";
    cr_assert_eq(pb_gltf_read_memory(bad, strlen(bad), NULL, &g, &err), PB_BVH_ERR_SYNTAX);
    cr_assert_eq(err.line, 3, "%s", err.message);
    cr_assert_not_null(strstr(err.message, "line 3, column"), "%s", err.message);
    const char *dup = "{\"asset\":{\"version\":\"2.0\"},\"asset\":{}}";
    cr_assert_neq(pb_gltf_read_memory(dup, strlen(dup), NULL, &g, &err), PB_BVH_OK);
    cr_assert_not_null(strstr(err.message, "duplicate"), "%s", err.message);
    const char *bvh = "HIERARCHY\nROOT a\n";
    cr_assert_neq(pb_gltf_read_memory(bvh, strlen(bvh), NULL, &g, &err), PB_BVH_OK);
    cr_assert_not_null(strstr(err.message, "this is a BVH file, not glTF"), "%s", err.message);
    unsigned char glb[24] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 200, 0, 0, 0};
    cr_assert_neq(pb_gltf_read_memory(glb, sizeof glb, NULL, &g, &err), PB_BVH_OK);
    cr_assert_not_null(strstr(err.message, "GLB: header length 200"), "%s", err.message);
    const char *b64bad = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,"
                         "\"uri\":\"data:application/octet-stream;base64,AA*A\"}]}";
    cr_assert_neq(pb_gltf_read_memory(b64bad, strlen(b64bad), NULL, &g, &err), PB_BVH_OK);
    cr_assert_not_null(strstr(err.message, "buffers[0]: uri: invalid base64 character"), "%s",
                       err.message);
    const char *nofile = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,"
                         "\"uri\":\"missing%20file.bin\"}]}";
    cr_assert_eq(pb_gltf_read_memory(nofile, strlen(nofile), "/nonexistent", &g, &err),
                 PB_BVH_ERR_IO);
    cr_assert_not_null(strstr(err.message, "/nonexistent/missing file.bin"), "%s", err.message);
    cr_assert_eq(pb_gltf_read_file("/nonexistent/x.glb", &g, &err), PB_BVH_ERR_IO);
}

/* d as a GLB file in a buffer of exactly its size (malloc'd: under ASan a
 * read past it is reported): the JSON chunk, then a BIN chunk of d's bytes
 * whose length field claims `extra` bytes more than the file holds. The
 * buffer's byteLength is the claim and the last bufferView is moved by
 * `shift` bytes, so that a reader taking the claim reads past the end. */
static unsigned char *doc_glb(doc *d, uint32_t extra, size_t shift, size_t *size)
{
    json_t *last = json_array_get(d->views, json_array_size(d->views) - 1);
    json_object_set_new(
        last, "byteOffset",
        json_integer(json_integer_value(json_object_get(last, "byteOffset")) + (json_int_t)shift));
    json_object_set_new(d->root, "buffers",
                        json_pack("[{s:I}]", "byteLength", (json_int_t)d->len + extra));
    char *text = json_dumps(d->root, JSON_COMPACT);
    size_t jl = strlen(text), jp = (jl + 3) & ~(size_t)3;
    *size = 12 + 8 + jp + 8 + d->len;
    unsigned char *g = malloc(*size), *p = g;
    cr_assert_not_null(g);
    uint32_t head[5] = {0x46546C67u, 2, (uint32_t)*size, (uint32_t)jp, 0x4E4F534Au};
    uint32_t bin[2] = {(uint32_t)d->len + extra, 0x004E4942u};
    memcpy(p, head, sizeof head); /* little-endian hosts (x86, aarch64) */
    p += sizeof head;
    memcpy(p, text, jl);
    memset(p + jl, ' ', jp - jl);
    p += jp;
    memcpy(p, bin, sizeof bin);
    memcpy(p + sizeof bin, d->bin, d->len);
    free(text);
    return g;
}

/* A GLB BIN chunk claiming more bytes than the file has is malformed
 * (PB_BVH_ERR_SYNTAX), by 1 byte to 8 (the chunk header's size, where a
 * bound off by a header would still take it) and by 2^32 - 1 - its size;
 * the exact claim reads. Each in a buffer of exactly the file's size (run
 * under ASan in CI). */
Test(gltf, glb_bin_chunk_past_the_end_is_refused)
{
    static const uint32_t extras[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12};
    const size_t ne = sizeof extras / sizeof extras[0];
    for (size_t i = 0; i <= ne; i++) { /* the last: the largest claim */
        int tin, rout;
        doc d = base_doc(&tin, &rout);
        uint32_t extra = i < ne ? extras[i] : 0xFFFFFFFFu - (uint32_t)d.len;
        size_t size;
        /* the rotations' view moved to end at the claimed end (4-byte steps) */
        unsigned char *glb = doc_glb(&d, extra, extra <= 12 ? extra & ~3u : 0, &size);
        pb_gltf g;
        pb_bvh_error err;
        memset(&g, 0x5a, sizeof g);
        pb_bvh_code rc = pb_gltf_read_memory(glb, size, NULL, &g, &err);
        if (extra == 0) {
            cr_assert_eq(rc, PB_BVH_OK, "%s", err.message);
            float t = 1, v[4];
            cr_assert_eq(pb_gltf_sample(&g, 0, 1, &t, v, &err), PB_BVH_OK);
            cr_assert(v[0] == 0 && v[1] == 0 && v[2] == 1 && v[3] == 0);
            pb_gltf_free(&g);
        } else {
            cr_assert_eq(rc, PB_BVH_ERR_SYNTAX, "BIN chunk %u bytes past the end: %d (%s)", extra,
                         rc, rc ? err.message : "accepted");
            cr_assert_not_null(strstr(err.message, "GLB: the BIN chunk"), "%s", err.message);
            cr_assert_null(g.priv_);
        }
        free(glb);
        json_decref(d.root);
    }
}

/* An accessor with no bufferView reads as zeros: the values that no byte
 * backs are bounded by the document's size (2^20 + 16 per byte), so that a
 * few hundred bytes cannot ask for a GiB (the glTF fuzzer's open finding
 * read_419_bytes_to_1_GiB). Within the bound such an accessor reads. */
Test(gltf, zeros_without_a_buffer_are_bounded_by_the_document)
{
    const char *fmt =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"m\",\"mesh\":0}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{}}],\"weights\":[0,0,0,0]}],"
        "\"buffers\":[{\"byteLength\":8,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAgD8=\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","
        "\"min\":[0],\"max\":[1]},{\"componentType\":5126,\"count\":%zu,\"type\":\"SCALAR\"}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}]}]}";
    char text[1024];
    const size_t counts[2] = {8, (size_t)1 << 22}; /* 4 targets; 2^21 targets */
    for (int k = 0; k < 2; k++) {
        int n = snprintf(text, sizeof text, fmt, counts[k]);
        pb_gltf g;
        pb_io_error err;
        pb_io_code rc = pb_gltf_read_memory(text, (size_t)n, NULL, &g, &err);
        if (k == 0) {
            cr_assert_eq(rc, PB_IO_OK, "%s", err.message);
            cr_expect_eq(g.animations[0].samplers[0].components, 4);
            cr_expect_eq(g.animations[0].samplers[0].output[5], 0.0f);
            pb_gltf_free(&g);
        } else {
            cr_expect_eq(rc, PB_IO_ERR_LIMIT, "%s", err.message);
            cr_expect(strstr(err.message, "accessors[1]") && strstr(err.message, "no bufferView"),
                      "%s", err.message);
        }
    }
}

/* A sampler serves channels of one width: a rotation channel (VEC4) and a
 * translation or scale channel (VEC3) sharing it is refused, naming the
 * second channel, whichever comes first (else the VEC3 channel would read
 * the rotation's 4-component keys, or the rotation the VEC3 ones);
 * translation and scale, both VEC3, may share one. */
Test(gltf, sampler_shared_by_rotation_and_vec3_is_refused)
{
    const struct {
        const char *first, *second;
        int vec4; /* the sampler's output: VEC4, else VEC3 */
        const char *want;
    } cases[] = {
        {"translation", "rotation", 1,
         "animations[0].channels[1]: sampler 0 also animates translation, not rotation"},
        {"rotation", "translation", 1,
         "animations[0].channels[1]: sampler 0 also animates rotation, not translation"},
        {"rotation", "scale", 1,
         "animations[0].channels[1]: sampler 0 also animates rotation, not scale"},
        {"scale", "rotation", 0,
         "animations[0].channels[1]: sampler 0 also animates scale, not rotation"},
        {"translation", "scale", 0, NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        doc d;
        doc_init(&d);
        float t[2] = {0, 1}, q[8] = {0, 0, 0, 1, 0, 0, 1, 0}, v[6] = {0, 1, 0, 1, 2, 3};
        int tin = doc_floats(&d, t, 2, "SCALAR");
        int out = cases[k].vec4 ? doc_floats(&d, q, 2, "VEC4") : doc_floats(&d, v, 2, "VEC3");
        int node[] = {1};
        const char *path[] = {cases[k].first};
        const char *interp[] = {"LINEAR"};
        doc_anim(&d, 1, node, path, &tin, &out, interp);
        json_t *ch =
            json_object_get(json_array_get(json_object_get(d.root, "animations"), 0), "channels");
        json_array_append_new(ch, json_pack("{s:i,s:{s:i,s:s}}", "sampler", 0, "target", "node", 0,
                                            "path", cases[k].second));
        if (cases[k].want) {
            expect_error(&d, cases[k].want);
            continue;
        }
        pb_gltf g;
        pb_bvh_error err;
        cr_expect_eq(doc_read(&d, &g, &err), PB_BVH_OK, "%s and %s: %s", cases[k].first,
                     cases[k].second, err.message);
        cr_expect_eq(g.animations[0].num_channels, 2);
        cr_expect_eq(g.animations[0].samplers[0].components, 3);
        pb_gltf_free(&g);
        json_decref(d.root);
    }
}
