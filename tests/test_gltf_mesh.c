#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
/* glTF meshes for skinning: pb_gltf_read_mesh on a GLB built in memory
 * (two triangles over four vertices: positions, normals, unsigned byte
 * joints, float weights, unsigned short indices; a skin with its
 * inverseBindMatrices): the values read back exactly, a second primitive
 * concatenated, and each malformed mesh an error naming its JSON path with
 * nothing returned. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "glb_build.h"
#include "posebatch/io.h"

/* BIN: positions 0 (48 bytes), normals 48 (48), joints 96 (16), weights 112
 * (64), indices 176 (12), inverse bind matrices 188 (128); 316 bytes */
static unsigned char bin[316];
static void fill_bin(void)
{
    float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, nrm[12];
    for (int i = 0; i < 12; i++)
        nrm[i] = i % 3 == 2 ? 1.0f : 0.0f;
    const unsigned char jt[16] = {0, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0};
    float wt[16] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0, 1, 0, 0, 0};
    const uint16_t ix[6] = {0, 1, 2, 0, 2, 3};
    float ib[32];
    for (int k = 0; k < 32; k++)
        ib[k] = k % 5 == 0 ? 1.0f : 0.0f;
    ib[16 + 12] = -2.0f; /* joint 1: a translation by -2 in x */
    memcpy(bin, pos, 48);
    memcpy(bin + 48, nrm, 48);
    memcpy(bin + 96, jt, 16);
    memcpy(bin + 112, wt, 64);
    memcpy(bin + 176, ix, 12);
    memcpy(bin + 188, ib, 128);
}

/* the document with `prims` as mesh 0's primitives (accessors: 0 POSITION,
 * 1 NORMAL, 2 JOINTS_0, 3 WEIGHTS_0, 4 indices, 5 inverseBindMatrices, 6
 * JOINTS_0 normalized) */
static pb_io_code read_doc(const char *prims, pb_gltf *g, pb_io_error *err)
{
    static char json[4096];
    snprintf(
        json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":316}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":96},"
        "{\"buffer\":0,\"byteOffset\":96,\"byteLength\":16},"
        "{\"buffer\":0,\"byteOffset\":112,\"byteLength\":64},"
        "{\"buffer\":0,\"byteOffset\":176,\"byteLength\":12},"
        "{\"buffer\":0,\"byteOffset\":188,\"byteLength\":128}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5126,\"count\":4,\"type\":"
        "\"VEC3\"},"
        "{\"bufferView\":1,\"componentType\":5121,\"count\":4,\"type\":\"VEC4\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":4,\"type\":\"VEC4\"},"
        "{\"bufferView\":3,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"},"
        "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},"
        "{\"bufferView\":1,\"componentType\":5121,\"normalized\":true,\"count\":4,"
        "\"type\":\"VEC4\"}],"
        "\"nodes\":[{\"children\":[1]},{\"translation\":[2,0,0]},{\"mesh\":0,\"skin\":0}],"
        "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":5}],"
        "\"meshes\":[{\"primitives\":[%s]}]}",
        prims);
    size_t size = 0;
    unsigned char *glb = glb_build(json, bin, sizeof bin, &size);
    cr_assert(glb);
    pb_io_code rc = pb_gltf_read_memory(glb, size, NULL, g, err);
    free(glb);
    return rc;
}

#define PRIM_OK                                                                                    \
    "{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"JOINTS_0\":2,\"WEIGHTS_0\":3},\"indices\":4}"

Test(gltf_mesh, reads_a_skinned_mesh)
{
    fill_bin();
    pb_gltf g;
    pb_io_error err;
    cr_assert_eq(read_doc(PRIM_OK "," PRIM_OK, &g, &err), PB_IO_OK, "%s", err.message);
    cr_assert_eq(g.num_skins, 1);
    cr_assert(g.skins[0].inverse_bind);
    cr_assert(g.skins[0].inverse_bind[16 + 12] == -2.0f && g.skins[0].inverse_bind[15] == 1.0f);
    pb_gltf_mesh m;
    cr_assert_eq(pb_gltf_read_mesh(&g, 0, &m, &err), PB_IO_OK, "%s", err.message);
    cr_assert_eq(m.num_vertices, 8);
    cr_assert_eq(m.num_triangles, 4);
    cr_assert(m.normals && m.joints && m.weights);
    const float *pos = (const float *)(const void *)bin;
    for (int i = 0; i < 24; i++)
        cr_assert(m.positions[i] == pos[i % 12], "position float %d", i);
    cr_assert(m.normals[2] == 1.0f && m.normals[0] == 0.0f);
    cr_assert(m.joints[1] == 1 && m.joints[4] == 1 && m.joints[9] == 1 && m.joints[16 + 1] == 1);
    cr_assert(m.weights[8] == 0.25f && m.weights[9] == 0.75f);
    const uint32_t tri[12] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
    for (int i = 0; i < 12; i++)
        cr_assert_eq(m.triangles[i], tri[i], "index %d", i);
    pb_gltf_mesh_free(&m);
    cr_assert(!m.positions && m.num_vertices == 0);
    /* no mesh 1; NULLs */
    cr_assert_eq(pb_gltf_read_mesh(&g, 1, &m, &err), PB_IO_ERR_ARG);
    cr_assert(!m.positions);
    cr_assert_eq(pb_gltf_read_mesh(NULL, 0, &m, &err), PB_IO_ERR_ARG);
    cr_assert_eq(pb_gltf_read_mesh(&g, 0, NULL, &err), PB_IO_ERR_ARG);
    pb_gltf_free(&g);
}

Test(gltf_mesh, unindexed_vertices_must_make_whole_triangles)
{
    fill_bin();
    pb_gltf g;
    pb_io_error err;
    cr_assert_eq(read_doc("{\"attributes\":{\"POSITION\":0},\"mode\":4}", &g, &err), PB_IO_OK);
    pb_gltf_mesh m;
    cr_assert_eq(pb_gltf_read_mesh(&g, 0, &m, &err), PB_IO_ERR_VALUE); /* 4 indices */
    cr_assert(strstr(err.message, "not whole triangles"), "%s", err.message);
    pb_gltf_free(&g);
}

/* each malformed primitive: the code and a message naming the path */
Test(gltf_mesh, malformed_meshes_are_errors)
{
    fill_bin();
    static const struct {
        const char *prim, *says;
        pb_io_code code;
    } cases[] = {
        {"{\"attributes\":{\"POSITION\":0},\"indices\":4,\"mode\":1}", "only triangles",
         PB_IO_ERR_VALUE},
        {"{\"attributes\":{\"NORMAL\":1},\"indices\":4}", "no POSITION", PB_IO_ERR_VALUE},
        {"{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":2},\"indices\":4}", "come together",
         PB_IO_ERR_VALUE},
        {"{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":6,\"WEIGHTS_0\":3},\"indices\":4}",
         "not normalized", PB_IO_ERR_VALUE},
        {"{\"attributes\":{\"POSITION\":0,\"NORMAL\":3},\"indices\":4}", "expected VEC3",
         PB_IO_ERR_VALUE},
        {"{\"attributes\":{\"POSITION\":0},\"indices\":2}", "expected SCALAR", PB_IO_ERR_VALUE},
        {"{\"attributes\":{\"POSITION\":9},\"indices\":4}", "POSITION", PB_IO_ERR_VALUE},
        {PRIM_OK ",{\"attributes\":{\"POSITION\":0},\"indices\":4}", "come together",
         PB_IO_ERR_VALUE},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pb_gltf g;
        pb_io_error err;
        cr_assert_eq(read_doc(cases[c].prim, &g, &err), PB_IO_OK, "case %zu: %s", c, err.message);
        pb_gltf_mesh m;
        cr_assert_eq(pb_gltf_read_mesh(&g, 0, &m, &err), cases[c].code, "case %zu: %s", c,
                     err.message);
        cr_assert(strstr(err.message, "meshes[0].primitives["), "case %zu: %s", c, err.message);
        cr_assert(strstr(err.message, cases[c].says), "case %zu: %s", c, err.message);
        cr_assert(!m.positions && !m.triangles && m.num_vertices == 0, "case %zu", c);
        pb_gltf_free(&g);
    }
}

/* an index past its primitive's vertices */
Test(gltf_mesh, index_out_of_range)
{
    fill_bin();
    uint16_t bad = 4;
    memcpy(bin + 176 + 10, &bad, 2);
    pb_gltf g;
    pb_io_error err;
    cr_assert_eq(read_doc(PRIM_OK, &g, &err), PB_IO_OK);
    pb_gltf_mesh m;
    cr_assert_eq(pb_gltf_read_mesh(&g, 0, &m, &err), PB_IO_ERR_VALUE);
    cr_assert(strstr(err.message, "index 5 is 4"), "%s", err.message);
    pb_gltf_free(&g);
}

/* pb_gltf_mesh_write_file: the mesh read above, its normals scaled, written
 * as .glb and .gltf and read back: the same positions and triangles, unit
 * normals, no joints; a zero normal drops NORMAL; bad meshes are errors
 * that write nothing. */
Test(gltf_mesh, writes_a_posed_mesh_that_reads_back)
{
    fill_bin();
    pb_gltf g;
    pb_io_error err;
    cr_assert_eq(read_doc(PRIM_OK, &g, &err), PB_IO_OK, "%s", err.message);
    pb_gltf_mesh m;
    cr_assert_eq(pb_gltf_read_mesh(&g, 0, &m, &err), PB_IO_OK, "%s", err.message);
    for (size_t k = 0; k < 3 * m.num_vertices; k++)
        m.normals[k] *= 3.0f;
    char dir[] = "/tmp/pb_mesh_XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[2][64];
    snprintf(path[0], sizeof path[0], "%s/m.glb", dir);
    snprintf(path[1], sizeof path[1], "%s/m.gltf", dir);
    for (int f = 0; f < 2; f++) {
        cr_assert_eq(pb_gltf_mesh_write_file(path[f], &m, &err), PB_IO_OK, "%s", err.message);
        pb_gltf h;
        pb_gltf_mesh r;
        cr_assert_eq(pb_gltf_read_file(path[f], &h, &err), PB_IO_OK, "%s", err.message);
        cr_assert_eq(h.num_skins, 0);
        cr_assert_eq(pb_gltf_read_mesh(&h, 0, &r, &err), PB_IO_OK, "%s", err.message);
        cr_assert_eq(r.num_vertices, m.num_vertices);
        cr_assert_eq(r.num_triangles, m.num_triangles);
        cr_assert(!r.joints && !r.weights && r.normals);
        for (size_t k = 0; k < 3 * m.num_vertices; k++) {
            cr_assert(r.positions[k] == m.positions[k], "%s: position %zu", path[f], k);
            cr_assert(r.normals[k] == m.normals[k] / 3.0f, "%s: normal %zu", path[f], k);
        }
        for (size_t k = 0; k < 3 * m.num_triangles; k++)
            cr_assert_eq(r.triangles[k], m.triangles[k]);
        pb_gltf_mesh_free(&r);
        pb_gltf_free(&h);
    }
    FILE *fp = fopen(path[0], "rb");
    unsigned char head[4];
    cr_assert(fp && fread(head, 1, 4, fp) == 4 && memcmp(head, "glTF", 4) == 0);
    fclose(fp);
    /* a zero normal: no NORMAL */
    m.normals[3] = m.normals[4] = m.normals[5] = 0.0f;
    cr_assert_eq(pb_gltf_mesh_write_file(path[0], &m, &err), PB_IO_OK, "%s", err.message);
    pb_gltf h;
    pb_gltf_mesh r;
    cr_assert_eq(pb_gltf_read_file(path[0], &h, &err), PB_IO_OK, "%s", err.message);
    cr_assert_eq(pb_gltf_read_mesh(&h, 0, &r, &err), PB_IO_OK, "%s", err.message);
    cr_assert(!r.normals && r.num_vertices == m.num_vertices);
    pb_gltf_mesh_free(&r);
    pb_gltf_free(&h);
    /* errors write nothing */
    char bad[64];
    snprintf(bad, sizeof bad, "%s/bad.glb", dir);
    cr_assert_eq(pb_gltf_mesh_write_file(NULL, &m, &err), PB_IO_ERR_ARG);
    cr_assert_eq(pb_gltf_mesh_write_file(bad, NULL, &err), PB_IO_ERR_ARG);
    pb_gltf_mesh e = m;
    e.num_triangles = 0;
    cr_assert_eq(pb_gltf_mesh_write_file(bad, &e, &err), PB_IO_ERR_ARG);
    cr_assert(strstr(err.message, "no triangles"), "%s", err.message);
    e = m;
    e.triangles[4] = (uint32_t)m.num_vertices;
    cr_assert_eq(pb_gltf_mesh_write_file(bad, &e, &err), PB_IO_ERR_VALUE);
    cr_assert(strstr(err.message, "triangle 1"), "%s", err.message);
    e.triangles[4] = 0;
    e.positions[7] = NAN;
    cr_assert_eq(pb_gltf_mesh_write_file(bad, &e, &err), PB_IO_ERR_VALUE);
    cr_assert(strstr(err.message, "vertex 2"), "%s", err.message);
    cr_assert(access(bad, F_OK) != 0, "an error wrote %s", bad);
    remove(path[0]);
    remove(path[1]);
    rmdir(dir);
    pb_gltf_mesh_free(&m);
    pb_gltf_free(&g);
}
