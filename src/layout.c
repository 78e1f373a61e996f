/* Interleaved layouts <-> batches (posebatch.h: "Interleaved layouts"):
 * checks, then the active backend's deinterleave / interleave kernels
 * (simd/kernels_layout.h). */
#include <stdint.h>

#include "check.h"
#include "internal.h"

/* floats spanned by n elements of `stride` floats whose last one ends at
 * float `last_end`; 0 when that overflows a byte size */
static size_t span_floats(size_t n, size_t stride, size_t last_end)
{
    const size_t max = (size_t)(PTRDIFF_MAX / sizeof(float));
    if (n == 0)
        return 0;
    if (stride && n - 1 > (max - last_end) / stride)
        return 0;
    return (n - 1) * stride + last_end;
}

static pb_status from_interleaved(size_t n, const float *src, int comps, float *const dst[4])
{
    PROLOGUE(n);
    size_t len = span_floats(n, (size_t)comps, (size_t)comps);
    if (len == 0)
        return PB_ERR_SIZE;
    chk c;
    chk_tab tab;
    chk_init(&c, &tab);
    for (int k = 0; k < comps; k++)
        out_f(&c, dst[k], n);
    in_f(&c, src, len, 0);
    if (c.st != PB_OK)
        return c.st;
    K(n)->deinterleave(n, src, (size_t)comps, comps, dst);
    return PB_OK;
}

static pb_status to_interleaved(size_t n, const float *const src[4], int comps, float *dst)
{
    PROLOGUE(n);
    size_t len = span_floats(n, (size_t)comps, (size_t)comps);
    if (len == 0)
        return PB_ERR_SIZE;
    chk c;
    chk_tab tab;
    chk_init(&c, &tab);
    out_f(&c, dst, len);
    for (int k = 0; k < comps; k++)
        in_f(&c, src[k], n, 0);
    if (c.st != PB_OK)
        return c.st;
    K(n)->interleave(n, src, comps, (size_t)comps, dst);
    return PB_OK;
}

pb_status pb_quats_from_xyzw(size_t n, const float *xyzw, pb_quats out)
{
    float *const dst[4] = {out.x, out.y, out.z, out.w};
    return from_interleaved(n, xyzw, 4, dst);
}
pb_status pb_quats_to_xyzw(size_t n, pb_cquats q, float *xyzw)
{
    const float *const src[4] = {q.x, q.y, q.z, q.w};
    return to_interleaved(n, src, 4, xyzw);
}
pb_status pb_vec3s_from_xyz(size_t n, const float *xyz, pb_vec3s out)
{
    float *const dst[4] = {out.x, out.y, out.z, NULL};
    return from_interleaved(n, xyz, 3, dst);
}
pb_status pb_vec3s_to_xyz(size_t n, pb_cvec3s v, float *xyz)
{
    const float *const src[4] = {v.x, v.y, v.z, NULL};
    return to_interleaved(n, src, 3, xyz);
}

/* ------------------------------------------------------------ AoS poses */

enum { PART_T, PART_R, PART_S, PARTS };
static const int part_comps[PARTS] = {3, 4, 3};

/* The layout's part offsets (-1: absent) and the float where the last
 * transform's parts end; PB_ERR_ARG for parts outside the stride or
 * overlapping. */
static pb_status layout_parts(const pb_aos_layout *l, int off[PARTS], size_t *end)
{
    if (l->stride == 0 || l->stride > PB_AOS_MAX_STRIDE)
        return PB_ERR_ARG;
    off[PART_T] = l->translation;
    off[PART_R] = l->rotation;
    off[PART_S] = l->scale;
    *end = 0;
    for (int p = 0; p < PARTS; p++) {
        if (off[p] == PB_AOS_NONE)
            continue;
        if (off[p] < 0 || (size_t)off[p] + (size_t)part_comps[p] > l->stride)
            return PB_ERR_ARG;
        size_t e = (size_t)off[p] + (size_t)part_comps[p];
        *end = e > *end ? e : *end;
        for (int q = 0; q < p; q++)
            if (off[q] != PB_AOS_NONE && off[p] < off[q] + part_comps[q] &&
                off[q] < off[p] + part_comps[p])
                return PB_ERR_ARG;
    }
    return PB_OK;
}

/* layout_parts, and the floats that n transforms of the layout span
 * (PB_ERR_SIZE when that overflows) */
static pb_status layout_span(size_t n, const pb_aos_layout *l, int off[PARTS], size_t *len)
{
    size_t end;
    pb_status st = layout_parts(l, off, &end);
    if (st != PB_OK)
        return st;
    *len = span_floats(n, l->stride, end);
    return end && *len == 0 ? PB_ERR_SIZE : PB_OK;
}

pb_status pb_pose_from_aos(size_t n, const float *aos, const pb_aos_layout *layout,
                           const pb_pose *out)
{
    PROLOGUE(n);
    if (!layout || !out || !aos)
        return PB_ERR_NULL;
    int off[PARTS];
    size_t len;
    pb_status st = layout_span(n, layout, off, &len);
    if (st != PB_OK)
        return st;
    float *const dst[PARTS][4] = {{out->pos.x, out->pos.y, out->pos.z, NULL},
                                  {out->rot.x, out->rot.y, out->rot.z, out->rot.w},
                                  {out->scale.x, out->scale.y, out->scale.z, NULL}};
    chk c;
    chk_tab tab;
    chk_init(&c, &tab);
    for (int p = 0; p < PARTS; p++)
        if (off[p] != PB_AOS_NONE)
            for (int k = 0; k < part_comps[p]; k++)
                out_f(&c, dst[p][k], n);
    in_f(&c, aos, len, 0);
    if (c.st != PB_OK)
        return c.st;
    const pb_kernels *kt = K(n);
    for (int p = 0; p < PARTS; p++)
        if (off[p] != PB_AOS_NONE)
            kt->deinterleave(n, aos + off[p], layout->stride, part_comps[p], dst[p]);
    return PB_OK;
}

pb_status pb_pose_to_aos(size_t n, const pb_cpose *in, const pb_aos_layout *layout, float *aos)
{
    PROLOGUE(n);
    if (!layout || !in || !aos)
        return PB_ERR_NULL;
    int off[PARTS];
    size_t len;
    pb_status st = layout_span(n, layout, off, &len);
    if (st != PB_OK)
        return st;
    const float *const src[PARTS][4] = {{in->pos.x, in->pos.y, in->pos.z, NULL},
                                        {in->rot.x, in->rot.y, in->rot.z, in->rot.w},
                                        {in->scale.x, in->scale.y, in->scale.z, NULL}};
    chk c;
    chk_tab tab;
    chk_init(&c, &tab);
    out_f(&c, aos, len);
    for (int p = 0; p < PARTS; p++)
        if (off[p] != PB_AOS_NONE)
            for (int k = 0; k < part_comps[p]; k++)
                in_f(&c, src[p][k], n, 0);
    if (c.st != PB_OK)
        return c.st;
    const pb_kernels *kt = K(n);
    for (int p = 0; p < PARTS; p++)
        if (off[p] != PB_AOS_NONE)
            kt->interleave(n, src[p], part_comps[p], layout->stride, aos + off[p]);
    return PB_OK;
}
