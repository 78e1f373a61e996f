/* libFuzzer target for the glTF reader, evaluator, resampler and writer and
 * the glTF -> BVH conversion (src/io/gltf_*.c), linked with the library
 * (the resampler and the evaluator call the batch kernels).
 *
 * Each input is read with pb_gltf_read_memory, base_dir an empty temporary
 * directory (made once), so that file URIs resolve to nothing. A document
 * that reads is checked for the structure io.h promises and then
 *   - sampled (pb_gltf_sample) at a few times per animation (rotations unit),
 *   - written to memory as GLB and as .gltf JSON and read back: our own
 *     output must read, and read back to the same nodes and animations
 *     (key times and values bit for bit: the writer stores FLOAT; resampled
 *     rotations to 4e-6, as the reader renormalises keys off by 1e-6),
 *   - resampled at 30 fps, LINEAR and CUBICSPLINE, each result written,
 *     read back and compared the same way,
 *   - converted with pb_gltf_to_bvh (the default skin, the keys' own frame
 *     time), the BVH written to memory and read back (it must read, with the
 *     same skeleton and frame count), and that BVH converted back with
 *     pb_gltf_from_bvh, written as GLB and read back.
 * Any violation aborts. Errors are fine only where the document asks for
 * more than the contract allows: limits, keys that do not increase in float
 * at 30 fps, values beyond float range (cubic overshoot), which the writers
 * must then refuse rather than write. The work per input is bounded:
 * documents holding more than MAX_WORK values go no further than the
 * reader, and a step whose output would exceed MAX_WORK floats is skipped
 * (estimated before it is taken).
 *
 * FUZZ_GLTF_VERBOSE=1 says what each input did (for triage);
 * FUZZ_GLTF_STRICT=0 leaves out the samplers no channel uses when
 * comparing. Reproducers: tests/fuzz/regressions/gltf/ (must pass),
 * gltf-open/ (open findings). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "posebatch/io.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORK 1e5 /* floats one step may produce */
#define FPS 30.0

static char base_dir[64];
static int verbose; /* FUZZ_GLTF_VERBOSE=1: say what each input did (triage) */
/* Compare the values of samplers that no channel with a node uses too (on
 * unless FUZZ_GLTF_STRICT=0: their round trip was an open finding until
 * only rotation channels made a sampler a rotation). */
static int strict;

static void say(const char *fmt, const char *what, const char *detail)
{
    if (verbose)
        fprintf(stderr, fmt, what, detail);
}

static void remove_base_dir(void)
{
    if (base_dir[0])
        rmdir(base_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(base_dir, sizeof base_dir, "%s/pb_fuzz_gltf.XXXXXX",
             tmp && tmp[0] && strlen(tmp) < 32 ? tmp : "/tmp");
    if (!mkdtemp(base_dir)) {
        perror("fuzz_gltf: mkdtemp");
        abort();
    }
    atexit(remove_base_dir);
    const char *v = getenv("FUZZ_GLTF_VERBOSE");
    verbose = v && v[0] && strcmp(v, "0") != 0;
    v = getenv("FUZZ_GLTF_STRICT");
    strict = !(v && strcmp(v, "0") == 0);
    return 0;
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_gltf: check failed: %s\n", what);
        abort();
    }
}

static void check_rc(pb_bvh_code rc, const pb_bvh_error *err, const char *what)
{
    if (rc != PB_BVH_OK) {
        fprintf(stderr, "fuzz_gltf: %s failed: %s (%s)\n", what, err->message, pb_bvh_code_str(rc));
        abort();
    }
}

/* The error contract (io.h, Errors): code recorded, message set; a
 * reader's output zeroed, any other function's untouched (the caller
 * filled it with POISON first). */
#define POISON 0xA5
static void check_error(pb_bvh_code rc, const pb_bvh_error *err, const void *out, size_t out_size,
                        int reader)
{
    check(err->code == rc, "error code recorded");
    check(memchr(err->message, '\0', sizeof err->message) != NULL, "message terminated");
    check(err->message[0] != '\0', "message non-empty");
    const unsigned char *p = out;
    for (size_t i = 0; i < out_size; i++)
        check(p[i] == (reader ? 0 : POISON),
              reader ? "output zeroed on error (readers)" : "output untouched on error");
}

static size_t sampler_values(const pb_gltf_animation *a)
{
    size_t n = 0;
    for (size_t s = 0; s < a->num_samplers; s++)
        n += a->samplers[s].components;
    return n;
}

/* Structure the reader promises. */
static void check_doc(const pb_gltf *g)
{
    for (size_t n = 0; n < g->num_nodes; n++) {
        const pb_gltf_node *nd = &g->nodes[n];
        check(nd->name != NULL, "node name set");
        check(nd->parent >= -1 && (nd->parent < 0 || (size_t)nd->parent < g->num_nodes),
              "node parent in range");
        for (size_t k = 0; k < nd->num_children; k++)
            check(nd->children[k] >= 0 && (size_t)nd->children[k] < g->num_nodes &&
                      g->nodes[nd->children[k]].parent == (int32_t)n,
                  "children and parents agree");
    }
    for (size_t s = 0; s < g->num_skins; s++)
        for (size_t k = 0; k < g->skins[s].num_joints; k++)
            check(g->skins[s].joints[k] >= 0 && (size_t)g->skins[s].joints[k] < g->num_nodes,
                  "skin joint in range");
    for (size_t i = 0; i < g->num_animations; i++) {
        const pb_gltf_animation *a = &g->animations[i];
        size_t off = 0;
        for (size_t c = 0; c < a->num_channels; c++) {
            const pb_gltf_channel *ch = &a->channels[c];
            check(ch->node >= 0 && (size_t)ch->node < g->num_nodes, "channel node in range");
            check(ch->sampler < a->num_samplers, "channel sampler in range");
            check(ch->offset == off, "channel offsets contiguous");
            size_t comps = a->samplers[ch->sampler].components;
            check(ch->path == PB_GLTF_WEIGHTS || comps == (ch->path == PB_GLTF_ROTATION ? 4u : 3u),
                  "channel components match its path");
            off += comps;
        }
        check(off == a->num_values, "num_values is the sum of the channels' components");
        for (size_t s = 0; s < a->num_samplers; s++) {
            const pb_gltf_sampler *sm = &a->samplers[s];
            check(sm->count > 0 && sm->input && sm->output, "sampler has keys");
            check(sm->input[0] >= a->t_min && sm->input[sm->count - 1] <= a->t_max,
                  "keys within t_min .. t_max");
            for (size_t k = 1; k < sm->count; k++)
                check(sm->input[k] > sm->input[k - 1], "key times increase");
        }
        if (a->num_samplers)
            check(isfinite(a->t_min) && isfinite(a->t_max) && a->t_min <= a->t_max,
                  "t_min <= t_max, finite");
    }
}

/* b is a read-back of a: same nodes and animations, keys bit for bit. */
static void check_same(const pb_gltf *a, const pb_gltf *b, const char *what)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%s reads back to the same document", what);
    check(a->num_nodes == b->num_nodes && a->num_skins == b->num_skins &&
              a->num_animations == b->num_animations,
          msg);
    for (size_t n = 0; n < a->num_nodes; n++) {
        const pb_gltf_node *p = &a->nodes[n], *q = &b->nodes[n];
        snprintf(msg, sizeof msg, "%s reads back to the same document (node %zu)", what, n);
        check(strcmp(p->name, q->name) == 0 && p->parent == q->parent && p->mesh == q->mesh &&
                  p->skin == q->skin && p->num_children == q->num_children &&
                  memcmp(p->translation, q->translation, sizeof p->translation) == 0 &&
                  memcmp(p->rotation, q->rotation, sizeof p->rotation) == 0 &&
                  memcmp(p->scale, q->scale, sizeof p->scale) == 0,
              msg);
    }
    for (size_t i = 0; i < a->num_animations; i++) {
        const pb_gltf_animation *x = &a->animations[i], *y = &b->animations[i];
        snprintf(msg, sizeof msg, "%s reads back to the same document (animation %zu)", what, i);
        check(x->num_channels == y->num_channels && x->num_samplers == y->num_samplers &&
                  x->num_values == y->num_values,
              msg);
        for (size_t c = 0; c < x->num_channels; c++)
            check(x->channels[c].node == y->channels[c].node &&
                      x->channels[c].path == y->channels[c].path &&
                      x->channels[c].sampler == y->channels[c].sampler,
                  msg);
        for (size_t s = 0; s < x->num_samplers; s++) {
            const pb_gltf_sampler *u = &x->samplers[s], *v = &y->samplers[s];
            size_t nout =
                u->count * u->components * (u->interpolation == PB_GLTF_CUBICSPLINE ? 3 : 1);
            snprintf(msg, sizeof msg,
                     "%s reads back to the same document (animation %zu, sampler %zu: "
                     "%zu keys of %zu, interpolation %d, read back %zu keys of %zu, %d)",
                     what, i, s, u->count, u->components, (int)u->interpolation, v->count,
                     v->components, (int)v->interpolation);
            check(u->interpolation == v->interpolation && u->count == v->count &&
                      u->components == v->components,
                  msg);
            check(memcmp(u->input, v->input, u->count * sizeof *u->input) == 0, msg);
            /* rotation keys (a rotation channel's sampler) read back
             * renormalised where their norm is off 1 by more than 1e-6 (the
             * reader's rule): resampled rotations (slerp of keys within
             * that) can be just outside it */
            int rot = 0, used = 0;
            for (size_t c = 0; c < x->num_channels; c++)
                if (x->channels[c].sampler == s) {
                    used = 1;
                    rot |= x->channels[c].path == PB_GLTF_ROTATION;
                }
            if (!used && !strict)
                continue;
            for (size_t k = 0; k < nout; k++)
                if (memcmp(&u->output[k], &v->output[k], sizeof(float)) != 0 &&
                    !(rot && fabsf(u->output[k] - v->output[k]) <=
                                 4e-6f * fmaxf(fabsf(u->output[k]), fabsf(v->output[k])))) {
                    snprintf(msg, sizeof msg,
                             "%s reads back to the same document (animation %zu, sampler %zu: "
                             "output value %zu is %.9g, read back %.9g)",
                             what, i, s, k, (double)u->output[k], (double)v->output[k]);
                    check(0, msg);
                }
        }
    }
}

/* A few times per animation: before, at and between its keys, after. */
static void sample_all(const pb_gltf *g)
{
    for (size_t i = 0; i < g->num_animations; i++) {
        const pb_gltf_animation *a = &g->animations[i];
        enum { NT = 6 };
        if ((double)a->num_values * NT > MAX_WORK || a->num_samplers == 0)
            continue;
        float span = a->t_max - a->t_min;
        float t[NT] = {a->t_min - 1.0f,        a->t_min, a->t_min + 0.25f * span,
                       a->t_min + 0.5f * span, a->t_max, a->t_max + 1.0f};
        float *v = malloc(NT * (a->num_values ? a->num_values : 1) * sizeof *v);
        if (!v)
            return;
        pb_bvh_error err;
        check_rc(pb_gltf_sample(g, i, NT, t, v, &err), &err, "pb_gltf_sample");
        /* rotations are unit (io.h; keys are unit to 1e-6), unless a cubic
         * spline overshoots float range on the way (NaN or Inf then) */
        for (size_t c = 0; c < a->num_channels; c++)
            if (a->channels[c].path == PB_GLTF_ROTATION)
                for (size_t k = 0; k < NT; k++) {
                    const float *q = v + k * a->num_values + a->channels[c].offset;
                    double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] +
                                    (double)q[2] * q[2] + (double)q[3] * q[3]);
                    if (!isfinite(n))
                        continue;
                    if (!(fabs(n - 1) <= 1e-5)) {
                        fprintf(stderr, "fuzz_gltf: animation %zu channel %zu at %.9g: norm %.9g\n",
                                i, c, (double)t[k], n);
                        check(0, "pb_gltf_sample: rotations are unit");
                    }
                }
        free(v);
    }
}

/* Writes g as GLB or JSON, reads it back (it must read), compares. A
 * document with non-finite values (which no reader takes) may be refused by
 * the writer instead (may_refuse): it must not be written. */
static void write_read(const pb_gltf *g, int binary, const char *what, int may_refuse)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    check(f != NULL, "open_memstream");
    pb_bvh_error err;
    pb_bvh_code rc = pb_gltf_write_stream(f, g, binary, &err);
    fclose(f);
    char msg[96];
    snprintf(msg, sizeof msg, "%s: pb_gltf_write_stream (%s)", what, binary ? "GLB" : "JSON");
    if (rc && may_refuse && rc != PB_BVH_ERR_NOMEM && rc != PB_BVH_ERR_IO) {
        say("fuzz_gltf: %s: %s\n", "not written (not finite)", err.message);
        free(buf);
        return;
    }
    check_rc(rc, &err, msg);
    pb_gltf b;
    rc = pb_gltf_read_memory(buf, len, base_dir, &b, &err);
    snprintf(msg, sizeof msg, "%s: reading our own %s", what, binary ? "GLB" : "JSON");
    check_rc(rc, &err, msg);
    free(buf);
    check_doc(&b);
    check_same(g, &b, msg);
    pb_gltf_free(&b);
}

static size_t resample_keys(const pb_gltf_animation *a)
{
    double span = (double)a->t_max - (double)a->t_min;
    double nk = floor(span * FPS + 1e-3) + 2;
    return nk < 1e18 ? (size_t)nk : (size_t)-1;
}

static void resample_all(const pb_gltf *g)
{
    double work = 0;
    for (size_t i = 0; i < g->num_animations; i++)
        work += (double)resample_keys(&g->animations[i]) *
                (double)sampler_values(&g->animations[i]) * 3;
    if (work > MAX_WORK) {
        say("fuzz_gltf: %s%s\n", "resample skipped (work bound)", "");
        return;
    }
    for (int cubic = 0; cubic < 2; cubic++) {
        pb_gltf r;
        memset(&r, POISON, sizeof r);
        pb_bvh_error err;
        pb_bvh_code rc = pb_gltf_resample(g, FPS, cubic ? PB_GLTF_RESAMPLE_CUBIC : 0, &r, &err);
        if (rc) {
            check_error(rc, &err, &r, sizeof r, 0);
            /* keys far from zero that do not increase in float at 30 fps */
            if (rc != PB_BVH_ERR_VALUE)
                check_rc(rc, &err, "pb_gltf_resample");
            say("fuzz_gltf: %s: %s\n", "resample refused", err.message);
            continue;
        }
        check_doc(&r);
        for (size_t i = 0; i < r.num_animations; i++)
            for (size_t s = 0; s < r.animations[i].num_samplers; s++) {
                const pb_gltf_sampler *sm = &r.animations[i].samplers[s];
                check(sm->interpolation == (cubic ? PB_GLTF_CUBICSPLINE : PB_GLTF_LINEAR) &&
                          sm->count <= resample_keys(&g->animations[i]),
                      "resampled keys");
            }
        sample_all(&r);
        /* a source whose values reach float range can overshoot it here
         * (cubic tangents, Hermite evaluation): such a result may not be
         * written, but what is written must read */
        int finite = 1;
        for (size_t i = 0; i < r.num_animations && finite; i++)
            for (size_t s = 0; s < r.animations[i].num_samplers && finite; s++) {
                const pb_gltf_sampler *sm = &r.animations[i].samplers[s];
                size_t n = sm->count * sm->components * (cubic ? 3 : 1);
                for (size_t k = 0; k < n && finite; k++)
                    finite = isfinite(sm->output[k]);
            }
        write_read(&r, !cubic, cubic ? "resampled CUBIC" : "resampled LINEAR", !finite);
        say("fuzz_gltf: %s%s\n", cubic ? "resampled CUBIC" : "resampled LINEAR",
            finite ? "" : " (values not finite)");
        pb_gltf_free(&r);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The frame time pb_gltf_to_bvh takes from the keys of animation `anim`
 * (its "bvh_frame_time" extras, else its longest sampler's median key
 * interval, else 1/30), a little below, or 0 when unknown. */
static double keys_frame_time(const pb_gltf *g, size_t anim, const char *json, size_t json_len)
{
    const pb_gltf_animation *a = &g->animations[anim];
    json_t *root = json_loadb(json, json_len, 0, NULL);
    json_t *x = json_object_get(
        json_object_get(json_array_get(json_object_get(root, "animations"), anim), "extras"),
        "bvh_frame_time");
    double ft = json_is_number(x) ? json_number_value(x) : 0;
    json_decref(root);
    if (ft > 0)
        return ft;
    const pb_gltf_sampler *best = NULL;
    for (size_t s = 0; s < a->num_samplers; s++)
        if (!best || a->samplers[s].count > best->count)
            best = &a->samplers[s];
    if (!best || best->count < 2)
        return 1.0 / 30.0;
    size_t m = best->count - 1;
    double *d = malloc(m * sizeof *d);
    if (!d)
        return 0;
    for (size_t k = 0; k < m; k++)
        d[k] = (double)best->input[k + 1] - best->input[k];
    qsort(d, m, sizeof *d, cmp_double);
    ft = d[m / 2] * (1 - 1e-4); /* whole-rate rounding moves it by < 2e-5 */
    free(d);
    return ft;
}

static int bvh_finite(const pb_bvh *b)
{
    size_t n = b->num_frames * b->num_joints;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(b->rot_w[i]) || !isfinite(b->rot_x[i]) || !isfinite(b->rot_y[i]) ||
            !isfinite(b->rot_z[i]) || !isfinite(b->pos_x[i]) || !isfinite(b->pos_y[i]) ||
            !isfinite(b->pos_z[i]))
            return 0;
    return 1;
}

static void to_bvh(const pb_gltf *g, const char *json, size_t json_len)
{
    long skin = pb_gltf_default_skin(g);
    size_t nj = g->num_nodes; /* joints: at most every node */
    double frames = 1, values = 0;
    if (g->num_animations) {
        const pb_gltf_animation *a = &g->animations[0];
        double ft = keys_frame_time(g, 0, json, json_len);
        if (!(ft >= 1e-5)) {
            say("fuzz_gltf: %s%s\n", "to_bvh skipped (frame time)", "");
            return; /* refused by the frame time check, or unknown */
        }
        frames = floor(((double)a->t_max - a->t_min) / ft + 1e-3) + 1;
        values = (double)a->num_values;
    }
    if (frames * ((double)nj * 7 + values) > MAX_WORK) {
        say("fuzz_gltf: %s%s\n", "to_bvh skipped (work bound)", "");
        return;
    }
    pb_bvh b;
    memset(&b, POISON, sizeof b);
    pb_bvh_error err;
    pb_bvh_code rc = pb_gltf_to_bvh(g, skin, 0, 0.0, &b, &err);
    if (rc) {
        check_error(rc, &err, &b, sizeof b, 0);
        /* no nodes; more than PB_BVH_MAX_JOINTS; a frame time from the keys
         * that no BVH can have (without animations: one frame of the rest
         * pose, whatever the frame time) */
        check(rc == PB_BVH_ERR_LIMIT || (rc == PB_BVH_ERR_VALUE && g->num_animations) ||
                  (rc == PB_BVH_ERR_ARG && g->num_nodes == 0),
              "pb_gltf_to_bvh fails only for what a BVH cannot hold");
        say("fuzz_gltf: %s: %s\n", "to_bvh refused", err.message);
        return;
    }
    /* no frame when no joint has a channel (a frame of no values does not
     * read back) */
    check(b.num_joints > 0 && b.num_joints <= nj &&
              (b.num_channels ? b.num_frames >= 1 : b.num_frames == 0) &&
              (double)b.num_frames <= frames,
          "to_bvh: joints and frames");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    check(f != NULL, "open_memstream");
    rc = pb_bvh_write_stream(f, &b, &err);
    fclose(f);
    if (rc) {
        /* motion that overshoots float range (cubic splines) cannot be
         * written; anything else that to_bvh makes must be */
        if (!(rc == PB_BVH_ERR_ARG && !bvh_finite(&b)))
            check_rc(rc, &err, "writing the BVH of pb_gltf_to_bvh");
        say("fuzz_gltf: %s: %s\n", "BVH not written", err.message);
        free(buf);
        pb_bvh_free(&b);
        return;
    }
    pb_bvh c;
    rc = pb_bvh_read_memory(buf, len, &c, &err);
    check_rc(rc, &err, "reading the BVH written from pb_gltf_to_bvh");
    free(buf);
    check(c.num_joints == b.num_joints && c.num_frames == b.num_frames &&
              c.num_channels == b.num_channels && c.num_end_sites == b.num_end_sites,
          "the BVH of pb_gltf_to_bvh reads back with the same skeleton and frames");
    for (size_t j = 0; j < b.num_joints; j++)
        check(strcmp(b.joints[j].name, c.joints[j].name) == 0 &&
                  b.joints[j].parent == c.joints[j].parent,
              "the BVH of pb_gltf_to_bvh reads back with the same names and parents");
    pb_bvh_free(&b);
    /* and back to glTF */
    pb_gltf h;
    rc = pb_gltf_from_bvh(&c, &h, &err);
    check_rc(rc, &err, "pb_gltf_from_bvh of a BVH that was read");
    check_doc(&h);
    write_read(&h, 1, "pb_gltf_from_bvh", 0);
    say("fuzz_gltf: %s%s\n", "to_bvh, BVH written and read back, from_bvh written and read back",
        "");
    pb_gltf_free(&h);
    pb_bvh_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pb_gltf g;
    memset(&g, POISON, sizeof g);
    pb_bvh_error err;
    pb_bvh_code rc = pb_gltf_read_memory(data, size, base_dir, &g, &err);
    if (rc != PB_BVH_OK) {
        check_error(rc, &err, &g, sizeof g, 1);
        say("fuzz_gltf: %s: %s\n", "not read", err.message);
        return 0;
    }
    say("fuzz_gltf: %s%s\n", "read", "");
    check_doc(&g);
    /* Accessors without a bufferView are zeros: a few bytes of JSON can
     * claim 2^28 values per sampler (the reader takes them: see
     * regressions/gltf-open/); such documents go no further */
    double held = 0;
    for (size_t i = 0; i < g.num_animations; i++)
        for (size_t s = 0; s < g.animations[i].num_samplers; s++) {
            const pb_gltf_sampler *sm = &g.animations[i].samplers[s];
            held +=
                (double)sm->count *
                (1.0 + (double)sm->components * (sm->interpolation == PB_GLTF_CUBICSPLINE ? 3 : 1));
        }
    if (held > MAX_WORK) {
        say("fuzz_gltf: %s%s\n", "skipped (work bound: values held)", "");
        pb_gltf_free(&g);
        return 0;
    }
    sample_all(&g);
    write_read(&g, 1, "read", 0);
    /* the JSON form is kept for to_bvh's look at the extras */
    char *json = NULL;
    size_t json_len = 0;
    FILE *f = open_memstream(&json, &json_len);
    check(f != NULL, "open_memstream");
    check_rc(pb_gltf_write_stream(f, &g, 0, &err), &err, "read: pb_gltf_write_stream (JSON)");
    fclose(f);
    pb_gltf j;
    check_rc(pb_gltf_read_memory(json, json_len, base_dir, &j, &err), &err,
             "read: reading our own JSON");
    check_same(&g, &j, "read: JSON");
    pb_gltf_free(&j);
    resample_all(&g);
    to_bvh(&g, json, json_len);
    free(json);
    pb_gltf_free(&g);
    return 0;
}
