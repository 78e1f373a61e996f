/* Test helper for the three.js comparison (tests/cli/gltf_three.mjs): samples
 * animation ANIM of a glTF file with pb_gltf_sample at N random times in
 * [t_min, t_max) (seeded) and prints JSON: {"times": [...], "channels":
 * [{"node", "path", "values": [per time, its components]}]}.
 * A .bvh FILE (ANIM ignored): N random frames of pb_bvh_read_file, printed as
 * {"times": [f * frame_time], "joints": [{"name", "values": [x, y, z, w per
 * time]}]} (BVHLoader's keys are the frames: no interpolation compared).
 *   gltf-dump FILE ANIM N SEED */
#include <posebatch/io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dump_bvh(const char *path, size_t n, unsigned seed)
{
    pb_bvh b;
    pb_bvh_error err;
    if (pb_bvh_read_file(path, &b, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return 1;
    }
    size_t *f = malloc(n * sizeof *f);
    if (!f || !b.num_frames)
        return 1;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        f[i] = (size_t)((seed >> 8) % b.num_frames);
    }
    printf("{\"times\":[");
    for (size_t i = 0; i < n; i++)
        printf("%s%.17g", i ? "," : "", (double)f[i] * b.frame_time);
    printf("],\"joints\":[");
    for (size_t j = 0; j < b.num_joints; j++) {
        printf("%s{\"name\":\"%s\",\"values\":[", j ? "," : "", b.joints[j].name);
        for (size_t i = 0; i < n; i++) {
            size_t e = f[i] * b.num_joints + j;
            printf("%s%.9g,%.9g,%.9g,%.9g", i ? "," : "", (double)b.rot_x[e], (double)b.rot_y[e],
                   (double)b.rot_z[e], (double)b.rot_w[e]);
        }
        printf("]}");
    }
    printf("]}\n");
    free(f);
    pb_bvh_free(&b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s FILE ANIM N SEED\n", argv[0]);
        return 2;
    }
    size_t len = strlen(argv[1]);
    if (len > 4 && strcmp(argv[1] + len - 4, ".bvh") == 0)
        return dump_bvh(argv[1], (size_t)atol(argv[3]), (unsigned)atol(argv[4]));
    pb_gltf g;
    pb_bvh_error err;
    if (pb_gltf_read_file(argv[1], &g, &err)) {
        fprintf(stderr, "%s: %s\n", argv[1], err.message);
        return 1;
    }
    size_t a = (size_t)atol(argv[2]), n = (size_t)atol(argv[3]);
    unsigned seed = (unsigned)atol(argv[4]);
    if (a >= g.num_animations || n == 0) {
        fprintf(stderr, "no animation %zu or N == 0\n", a);
        return 2;
    }
    const pb_gltf_animation *an = &g.animations[a];
    float *t = malloc(n * sizeof *t), *v = malloc(n * (an->num_values + 1) * sizeof *v);
    if (!t || !v)
        return 1;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        t[i] = an->t_min + (an->t_max - an->t_min) * (float)((seed >> 8) & 0xFFFFFF) / 16777216.0f;
    }
    if (pb_gltf_sample(&g, a, n, t, v, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    static const char *paths[] = {"translation", "rotation", "scale", "weights"};
    printf("{\"times\":[");
    for (size_t i = 0; i < n; i++)
        printf("%s%.17g", i ? "," : "", (double)t[i]); /* exact */
    printf("],\"channels\":[");
    for (size_t c = 0; c < an->num_channels; c++) {
        const pb_gltf_channel *ch = &an->channels[c];
        size_t k = an->samplers[ch->sampler].components;
        printf("%s{\"node\":%d,\"path\":\"%s\",\"values\":[", c ? "," : "", ch->node,
               paths[ch->path]);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < k; j++)
                printf("%s%.9g", i || j ? "," : "", (double)v[i * an->num_values + ch->offset + j]);
        printf("]}");
    }
    printf("]}\n");
    free(t);
    free(v);
    pb_gltf_free(&g);
    return 0;
}
