/* Double-precision skeleton reference (ref_skeleton.h). */
#include "ref_skeleton.h"

rv3 ref_rotate(rq q, rv3 v)
{
    rq p = rq_mul(rq_mul(q, rq_make(0.0, v.x, v.y, v.z)), rq_conj(q));
    double n2 = rq_dot(q, q); /* the rotation of q / |q| */
    return rv3_make(p.x / n2, p.y / n2, p.z / n2);
}

static rv3 mul3(rv3 a, rv3 b) { return rv3_make(a.x * b.x, a.y * b.y, a.z * b.z); }
static rv3 div3(rv3 a, rv3 b) { return rv3_make(a.x / b.x, a.y / b.y, a.z / b.z); }

void ref_local_to_model(size_t J, const int32_t *parents, const ref_xf *local, ref_xf *model)
{
    for (size_t j = 0; j < J; j++) {
        if (parents[j] < 0) {
            model[j] = local[j];
            continue;
        }
        const ref_xf *a = &model[parents[j]];
        model[j].r = rq_mul(a->r, local[j].r);
        model[j].t = rv3_add(a->t, ref_rotate(a->r, mul3(a->s, local[j].t)));
        model[j].s = mul3(a->s, local[j].s);
    }
}

void ref_model_to_local(size_t J, const int32_t *parents, const ref_xf *model, ref_xf *local)
{
    for (size_t j = 0; j < J; j++) {
        if (parents[j] < 0) {
            local[j] = model[j];
            continue;
        }
        const ref_xf *a = &model[parents[j]];
        local[j].r = rq_mul(rq_conj(a->r), model[j].r);
        local[j].t = div3(ref_rotate(rq_conj(a->r), rv3_sub(model[j].t, a->t)), a->s);
        local[j].s = div3(model[j].s, a->s);
    }
}

void ref_depths(size_t J, const int32_t *parents, int *depth)
{
    for (size_t j = 0; j < J; j++)
        depth[j] = parents[j] < 0 ? 1 : depth[parents[j]] + 1;
}
