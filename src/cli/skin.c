/* posebatch skin: a skinned glTF model posed at a time of one of its
 * animations (linear blend skinning: pb_pose_skinning_matrices and
 * pb_skin_vertices), written as a Wavefront OBJ mesh or a static glTF
 * (pb_gltf_mesh_write_file). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_obj.h"

static const char usage[] =
    "usage: posebatch skin MODEL.glb|MODEL.gltf -o OUT.obj|OUT.glb|OUT.gltf [options]\n"
    "\n"
    "Poses a skinned glTF model at a time of one of its animations and\n"
    "writes the posed mesh (positions, normals where the mesh has them,\n"
    "triangles) as Wavefront OBJ, or as a static glTF model (one mesh, no\n"
    "skin, no materials; .glb binary, .gltf JSON) by OUT's extension. The mesh is the first node's "
    "that has a\n"
    "mesh and a skin (with --skin N: the first whose skin is N); its\n"
    "JOINTS_0 / WEIGHTS_0 (4 influences) and the skin's inverseBindMatrices\n"
    "drive linear blend skinning, as glTF defines it (the mesh node's own\n"
    "transform is not applied).\n"
    "\n"
    "  -o, --output FILE  OUT.obj, OUT.glb or OUT.gltf ('-': OBJ to standard\n"
    "                     output)\n"
    "      --time T       seconds into the animation (default 0; before the\n"
    "                     first key the first value, after the last the last)\n"
    "      --animation N  which animation (default 0; a file without\n"
    "                     animations gives its rest pose)\n"
    "      --skin N       which skin (default: the first skinned mesh's)\n"
    "      --backend NAME scalar, sse41, avx2, avx512, neon\n"
    "\n"
    "Exit status: 0 done, 1 the model could not be read, posed or written,\n"
    "2 usage error.\n";

typedef struct skin_job {
    const char *in, *out;
    double time;
    int have_time;
    pb_gltf g;
    pb_gltf_mesh mesh;
    float *mem;
} skin_job;

static const char *const own_names[] = {"--time="};
static int take_own(void *ctx, int which, char *val)
{
    skin_job *s = ctx;
    (void)which;
    if (cli_parse_double(val, &s->time) != 0)
        return cli_usage_error("skin", "--time: '%s' is not a number", val);
    s->have_time = 1;
    return CLI_OK;
}

/* the nodes in an order where each parent comes before its children
 * (passes over the nodes, each placing those whose parent is placed):
 * order[k] the node, pos[node] its place; -1 when some node is never placed
 * (a cycle: the reader refuses those; defensive) */
static int node_order(const pb_gltf *g, int32_t *order, int32_t *pos)
{
    const size_t n = g->num_nodes;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        pos[i] = -1;
    /* as many passes as the tree is deep, at worst */
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < n; i++) {
            const int32_t p = g->nodes[i].parent;
            if (pos[i] < 0 && (p < 0 || pos[p] >= 0)) {
                pos[i] = (int32_t)k;
                order[k++] = (int32_t)i;
                again = 1;
            }
        }
    }
    return k == n ? 0 : -1;
}

/* every node's local TRS at the time (the node's own, then the animation's
 * channels), then model transforms (pb_pose_local_to_model), then the
 * skin's joints' skinning matrices into S (16 floats a joint) */
static int skinning_matrices(skin_job *s, long skin, long anim, float *S)
{
    const pb_gltf *g = &s->g;
    const size_t n = g->num_nodes;
    float *a = s->mem; /* 20 tracks of n: local w x y z px py pz sx sy sz, model the same */
    int32_t *order = malloc(n * 2 * sizeof *order), *par = malloc(n * sizeof *par);
    if (!order || !par) {
        free(order), free(par);
        cli_error("out of memory");
        return -1;
    }
    int32_t *pos = order + n;
    int rc = -1;
    if (node_order(g, order, pos) != 0) {
        cli_error("%s: the node hierarchy has a cycle", s->in);
        goto done;
    }
    float *tr[10];
    for (int k = 0; k < 10; k++)
        tr[k] = a + (size_t)k * n;
    for (size_t k = 0; k < n; k++) {
        const pb_gltf_node *nd = &g->nodes[order[k]];
        for (int c = 0; c < 4; c++)
            tr[c][k] = nd->rotation[c];
        for (int c = 0; c < 3; c++) {
            tr[4 + c][k] = nd->translation[c];
            tr[7 + c][k] = nd->scale[c];
        }
        par[k] = nd->parent < 0 ? -1 : pos[nd->parent];
    }
    if (anim >= 0) {
        const pb_gltf_animation *an = &g->animations[anim];
        float *vals = malloc((an->num_values ? an->num_values : 1) * sizeof *vals);
        pb_io_error err;
        const float t = (float)s->time;
        if (!vals) {
            cli_error("out of memory");
            goto done;
        }
        if (pb_gltf_sample(g, (size_t)anim, 1, &t, vals, &err) != PB_IO_OK) {
            cli_report_bvh(s->in, &err);
            free(vals);
            goto done;
        }
        for (size_t c = 0; c < an->num_channels; c++) {
            const pb_gltf_channel *ch = &an->channels[c];
            const float *v = vals + ch->offset;
            const size_t k = (size_t)pos[ch->node];
            if (ch->path == PB_GLTF_ROTATION) {
                tr[0][k] = v[3], tr[1][k] = v[0], tr[2][k] = v[1], tr[3][k] = v[2];
            } else if (ch->path == PB_GLTF_TRANSLATION || ch->path == PB_GLTF_SCALE) {
                const int base = ch->path == PB_GLTF_SCALE ? 7 : 4;
                for (int d = 0; d < 3; d++)
                    tr[base + d][k] = v[d];
            }
        }
        free(vals);
    }
    pb_status st = pb_quat_normalize(n, (pb_cquats){tr[0], tr[1], tr[2], tr[3]},
                                     (pb_quats){tr[0], tr[1], tr[2], tr[3]});
    float *m = a + 10 * n;
    pb_cpose local = {{tr[0], tr[1], tr[2], tr[3]}, {tr[4], tr[5], tr[6]}, {tr[7], tr[8], tr[9]}};
    pb_pose model = {{m, m + n, m + 2 * n, m + 3 * n},
                     {m + 4 * n, m + 5 * n, m + 6 * n},
                     {m + 7 * n, m + 8 * n, m + 9 * n}};
    if (st == PB_OK)
        st = pb_pose_local_to_model(1, n, par, &local, &model);
    if (st != PB_OK) {
        cli_report_status(s->in, "model transforms", st);
        goto done;
    }
    /* the skin's joints, in its order */
    const pb_gltf_skin *sk = &g->skins[skin];
    const size_t J = sk->num_joints;
    float *jm = malloc(J * 10 * sizeof *jm);
    if (!jm) {
        cli_error("out of memory");
        goto done;
    }
    for (size_t j = 0; j < J; j++)
        for (int k = 0; k < 10; k++)
            jm[(size_t)k * J + j] = m[(size_t)k * n + (size_t)pos[sk->joints[j]]];
    pb_cpose jp = {{jm, jm + J, jm + 2 * J, jm + 3 * J},
                   {jm + 4 * J, jm + 5 * J, jm + 6 * J},
                   {jm + 7 * J, jm + 8 * J, jm + 9 * J}};
    st = pb_pose_skinning_matrices(1, J, &jp, sk->inverse_bind, PB_MATRIX_4X4, S);
    free(jm);
    if (st != PB_OK) {
        cli_report_status(s->in, "skinning matrices", st);
        goto done;
    }
    rc = 0;
done:
    free(order), free(par);
    return rc;
}

static int write_cb(FILE *f, void *ctx)
{
    const skin_job *s = ctx;
    char comment[512];
    snprintf(comment, sizeof comment, "posebatch skin %s at %.9g s", s->in, s->time);
    return cli_obj_write(f, comment, s->mesh.num_vertices, s->mem,
                         s->mesh.normals ? s->mem + 3 * s->mesh.num_vertices : NULL,
                         s->mesh.num_triangles, s->mesh.triangles);
}

static int run(skin_job *s, long want_skin, long anim)
{
    pb_io_error err;
    if (pb_gltf_read_file(s->in, &s->g, &err) != PB_IO_OK) {
        cli_report_bvh(s->in, &err);
        return -1;
    }
    const pb_gltf *g = &s->g;
    long node = -1;
    for (size_t i = 0; i < g->num_nodes && node < 0; i++)
        if (g->nodes[i].mesh >= 0 && g->nodes[i].skin >= 0 &&
            (want_skin < 0 || g->nodes[i].skin == want_skin))
            node = (long)i;
    if (node < 0) {
        if (want_skin >= 0)
            cli_error("%s: no node has a mesh and skin %ld", s->in, want_skin);
        else
            cli_error("%s: no node has a mesh and a skin (nothing to skin)", s->in);
        return -1;
    }
    if (anim >= 0 && (size_t)anim >= g->num_animations) {
        if (anim > 0 || g->num_animations > 0) {
            cli_error("%s: --animation %ld: the file has %zu animation%s", s->in, anim,
                      g->num_animations, g->num_animations == 1 ? "" : "s");
            return -1;
        }
    }
    if (anim < 0)
        anim = g->num_animations ? 0 : -1;
    else if (g->num_animations == 0)
        anim = -1;
    const long skin = g->nodes[node].skin;
    if (pb_gltf_read_mesh(g, (size_t)g->nodes[node].mesh, &s->mesh, &err) != PB_IO_OK) {
        cli_report_bvh(s->in, &err);
        return -1;
    }
    const pb_gltf_mesh *m = &s->mesh;
    if (!m->joints) {
        cli_error("%s: mesh %d has no JOINTS_0 / WEIGHTS_0 (not skinned)", s->in,
                  (int)g->nodes[node].mesh);
        return -1;
    }
    const size_t n = g->num_nodes, J = g->skins[skin].num_joints, V = m->num_vertices;
    const size_t floats = 20 * n + 16 * J + 6 * V;
    s->mem = malloc(floats * sizeof *s->mem);
    if (!s->mem) {
        cli_error("out of memory");
        return -1;
    }
    float *S = s->mem + 20 * n;
    if (skinning_matrices(s, skin, anim, S) != 0)
        return -1;
    /* the posed mesh at the start of mem (positions, then normals) */
    float *out = malloc(6 * V * sizeof *out);
    if (!out) {
        cli_error("out of memory");
        return -1;
    }
    pb_status st = pb_skin_vertices(V, 4, m->joints, m->weights, J, S, PB_MATRIX_4X4, m->positions,
                                    out, m->normals, m->normals ? out + 3 * V : NULL);
    if (st == PB_ERR_ARG) {
        cli_error("%s: a JOINTS_0 index is past the skin's %zu joints", s->in, J);
        free(out);
        return -1;
    }
    if (st != PB_OK) {
        cli_report_status(s->in, "skinning", st);
        free(out);
        return -1;
    }
    free(s->mem);
    s->mem = out;
    if (cli_has_ext(s->out, ".glb") || cli_has_ext(s->out, ".gltf")) {
        pb_gltf_mesh posed = *m;
        posed.positions = out;
        posed.normals = m->normals ? out + 3 * V : NULL;
        posed.joints = NULL;
        posed.weights = NULL;
        if (pb_gltf_mesh_write_file(s->out, &posed, &err) != PB_IO_OK) {
            cli_report_bvh(s->out, &err);
            return -1;
        }
        return 0;
    }
    return cli_write_text(s->out, write_cb, s);
}

int cmd_skin(int argc, char **argv)
{
    skin_job s;
    memset(&s, 0, sizeof s);
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return CLI_OK;
        }
    int rc = cli_take_own("skin", &argc, argv, own_names, 1, take_own, &s);
    if (rc != CLI_OK)
        return rc;
    cli_opts o;
    rc = cli_parse(argc, argv, OPT_OUT | OPT_BACKEND | OPT_SKIN, usage, &o);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if (o.num_inputs != 1)
        return cli_usage_error(o.cmd, "one model expected, %zu given", o.num_inputs);
    if (!o.out)
        return cli_usage_error(o.cmd, "-o OUT.obj (or .glb, .gltf) is required");
    if (!cli_is_dash(o.out) && !cli_has_ext(o.out, ".obj") && !cli_has_ext(o.out, ".glb") &&
        !cli_has_ext(o.out, ".gltf"))
        return cli_usage_error(o.cmd, "-o %s: the output is .obj, .glb or .gltf", o.out);
    if (!isfinite(s.time))
        return cli_usage_error(o.cmd, "--time must be finite");
    s.in = o.inputs[0];
    s.out = o.out;
    if (cli_is_dash(s.in))
        return cli_usage_error(o.cmd, "the model is a glTF file, not standard input");
    cli_file in = {s.in, NULL, NULL}, out = {s.out, NULL, NULL};
    if (cli_protect(&in, 1, &out, 1) != CLI_OK)
        return CLI_FAILED;
    rc = run(&s, o.skin, o.animation) == 0 ? CLI_OK : CLI_FAILED;
    free(s.mem);
    pb_gltf_mesh_free(&s.mesh);
    pb_gltf_free(&s.g);
    return rc;
}
