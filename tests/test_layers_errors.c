/*
 * pb_pose_blend_layers (include/posebatch.h): every documented error
 * returns its code and writes nothing (layers/errors).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "posebatch.h"
#include "ref.h"
#include "ref_average.h"

/* ------------------------------------------------------------------ errors */

#define EJ 9
static float g_mem[64 * EJ], g_copy[64 * EJ];
static size_t g_at;
static float *take(size_t n)
{
    float *p = g_mem + g_at;
    g_at += n;
    cr_assert(g_at <= 64 * EJ);
    return p;
}
static pb_cquats tq(void)
{
    float *p = take(4 * EJ);
    return (pb_cquats){p, p + EJ, p + 2 * EJ, p + 3 * EJ};
}
static pb_cvec3s tv(void)
{
    float *p = take(3 * EJ);
    return (pb_cvec3s){p, p + EJ, p + 2 * EJ};
}

typedef struct {
    pb_blend_layer bl[2], al[1];
    pb_cpose ref;
    pb_blend_desc desc;
    pb_pose out;
} eset;

static void esetup(eset *ep)
{
    eset e;
    memset(&e, 0, sizeof e);
    g_at = 0;
    for (size_t i = 0; i < 64 * EJ; i++)
        g_mem[i] = (i % 4 == 0) ? 1.0f : 0.25f;
    for (int i = 0; i < 3; i++) {
        pb_blend_layer *l = i < 2 ? &e.bl[i] : &e.al[0];
        l->weight = 0.5f;
        l->joint_weights = take(EJ);
        l->pose.rot = tq();
        l->pose.pos = tv();
        l->pose.scale = tv();
    }
    e.ref.rot = tq();
    e.ref.pos = tv();
    e.ref.scale = tv();
    pb_cquats o = tq();
    pb_cvec3s op = tv(), os = tv();
    e.out.rot = (pb_quats){(float *)o.w, (float *)o.x, (float *)o.y, (float *)o.z};
    e.out.pos = (pb_vec3s){(float *)op.x, (float *)op.y, (float *)op.z};
    e.out.scale = (pb_vec3s){(float *)os.x, (float *)os.y, (float *)os.z};
    *ep = e;
    ep->desc = (pb_blend_desc){EJ, ep->bl, 2, ep->al, 1, PB_BLEND_RAW_REF, 0, &ep->ref};
}

static void expect(const char *what, pb_status want, eset *e, const pb_blend_desc *d,
                   const pb_pose *out)
{
    (void)e;
    memcpy(g_copy, g_mem, sizeof g_mem);
    pb_status st = pb_pose_blend_layers(d, out);
    cr_expect_eq(st, want, "%s: status %d (%s), want %d", what, (int)st, pb_status_str(st),
                 (int)want);
    if (want != PB_OK)
        cr_expect(!memcmp(g_copy, g_mem, sizeof g_mem), "%s: written on error", what);
    else if (d && d->joints)
        cr_expect(memcmp(g_copy, g_mem, sizeof g_mem), "%s: PB_OK but nothing written", what);
}
#define EXPECT(what, want, e) expect(what, want, &(e), &(e).desc, &(e).out)

Test(layers, errors)
{
    eset e;
    esetup(&e);
    EXPECT("valid", PB_OK, e);
    esetup(&e);
    expect("desc NULL", PB_ERR_NULL, &e, NULL, &e.out);
    expect("out NULL", PB_ERR_NULL, &e, &e.desc, NULL);
    e.desc.layer_count = 0;
    EXPECT("no blended layer", PB_ERR_ARG, e);
    esetup(&e);
    e.desc.method = PB_BLEND_ACCURATE;
    EXPECT("PB_BLEND_ACCURATE", PB_ERR_ARG, e);
    e.desc.method = PB_BLEND_METHOD_COUNT;
    EXPECT("unknown method", PB_ERR_ARG, e);
    esetup(&e);
    e.desc.flags = 2;
    EXPECT("unknown flag", PB_ERR_ARG, e);
    esetup(&e);
    e.desc.joints = (size_t)PB_MAX_COUNT + 1;
    EXPECT("joints above PB_MAX_COUNT", PB_ERR_SIZE, e);
    esetup(&e);
    e.desc.additive_count = (size_t)PB_MAX_COUNT + 1;
    EXPECT("additive count above PB_MAX_COUNT", PB_ERR_SIZE, e);
    esetup(&e);
    e.desc.layers = NULL;
    EXPECT("layers NULL", PB_ERR_NULL, e);
    esetup(&e);
    e.desc.additive = NULL;
    EXPECT("additive NULL with a count", PB_ERR_NULL, e);
    esetup(&e);
    e.desc.ref = NULL; /* the heaviest layer's rotations are the reference */
    EXPECT("ref NULL for raw_ref", PB_OK, e);
    esetup(&e);
    e.desc.ref = NULL;
    e.desc.method = PB_BLEND_RAW;
    EXPECT("ref NULL for raw", PB_OK, e);
    esetup(&e);
    e.bl[1].pose.rot.y = NULL;
    EXPECT("layer rotation component NULL", PB_ERR_NULL, e);
    esetup(&e);
    e.bl[0].pose.pos = (pb_cvec3s){NULL, NULL, NULL};
    EXPECT("blended layer without the output's translations", PB_ERR_NULL, e);
    esetup(&e);
    e.bl[0].pose.scale.z = NULL;
    EXPECT("blended layer scale partly NULL", PB_ERR_NULL, e);
    esetup(&e);
    e.al[0].pose.pos = (pb_cvec3s){NULL, NULL, NULL};
    e.al[0].pose.scale = (pb_cvec3s){NULL, NULL, NULL};
    EXPECT("additive layer rotation only", PB_OK, e);
    esetup(&e);
    e.al[0].pose.rot.w = NULL;
    EXPECT("additive rotation NULL", PB_ERR_NULL, e);
    esetup(&e);
    e.out.rot.x = NULL;
    EXPECT("out rotation component NULL", PB_ERR_NULL, e);
    esetup(&e);
    e.bl[1].pose.pos.y = e.out.pos.x + 2;
    EXPECT("input overlapping an output", PB_ERR_ALIAS, e);
    esetup(&e);
    e.bl[0].pose.rot.w = e.out.rot.w;
    EXPECT("input exactly an output", PB_ERR_ALIAS, e);
    esetup(&e);
    e.al[0].joint_weights = e.out.scale.z + 1;
    EXPECT("additive joint weights overlapping an output", PB_ERR_ALIAS, e);
    esetup(&e);
    e.out.pos.y = e.out.rot.z + 3;
    EXPECT("outputs overlapping", PB_ERR_ALIAS, e);
    esetup(&e);
    e.ref.scale.x = e.out.rot.w;
    EXPECT("ref scale an output", PB_ERR_ALIAS, e);
    esetup(&e);
    e.out.pos = (pb_vec3s){NULL, NULL, NULL};
    e.out.scale = (pb_vec3s){NULL, NULL, NULL};
    e.bl[0].pose.pos = (pb_cvec3s){NULL, NULL, NULL};
    EXPECT("rotations only: layer tracks not read", PB_OK, e);
    esetup(&e);
    e.desc.joints = 0;
    e.desc.layers = NULL;
    EXPECT("joints == 0", PB_OK, e);
}
