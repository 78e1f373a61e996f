/* glTF 2.0 animation evaluation, batched: samplers that share their key
 * times (one input accessor) and interpolation form a group; at each time
 * the group's key interval and parameter are found once and all its
 * rotations go through one pb_quat_slerp (LINEAR) or one pb_vec3_hermite
 * over their components plus one pb_quat_normalize (CUBICSPLINE), all its
 * vectors through one lerp loop or one pb_vec3_hermite. */
#define PB_GLTF_JSON 1
#include "gltf_internal.h"
#include "io_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t gltf_sampler_offsets(const pb_gltf_animation *a, size_t *soff)
{
    size_t off = 0;
    for (size_t s = 0; s < a->num_samplers; s++) {
        soff[s] = off;
        off += a->samplers[s].components;
    }
    return off;
}

typedef struct group {
    const float *input;
    size_t count;
    pb_gltf_interp interp;
    int rot;
    size_t *members; /* sampler indices */
    size_t num_members, comps;
} group;

/* Component-wise cubic Hermite of n values (pb_vec3_hermite over the
 * components split in three equal parts; arrays hold 3 * ceil(n/3)). */
static pb_status hermite_flat(size_t n3, float x, const float *p0, const float *p1, const float *m0,
                              const float *m1, float *out)
{
    pb_cvec3s a = {p0, p0 + n3, p0 + 2 * n3}, b = {p1, p1 + n3, p1 + 2 * n3};
    pb_cvec3s va = {m0, m0 + n3, m0 + 2 * n3}, vb = {m1, m1 + n3, m1 + 2 * n3};
    pb_vec3s o = {out, out + n3, out + 2 * n3}, none = {NULL, NULL, NULL};
    return pb_vec3_hermite(n3, x, a, b, va, vb, o, none);
}

/* A quaternion whose norm pb_quat_normalize cannot take (a CUBICSPLINE
 * rotation with huge tangents: past 1e18, where its square overflows
 * float) scaled by a power of two into range: exact, so the normalised
 * result is the same direction, and quaternions in range are untouched
 * (their bits unchanged). */
static void in_normalize_range(float *w, float *x, float *y, float *z)
{
    float m = fmaxf(fmaxf(fabsf(*w), fabsf(*x)), fmaxf(fabsf(*y), fabsf(*z)));
    if (!(m > 0x1p60f || (m > 0.0f && m < 0x1p-60f)) || !isfinite(m))
        return;
    int e = ilogbf(m);
    *w = ldexpf(*w, -e), *x = ldexpf(*x, -e), *y = ldexpf(*y, -e), *z = ldexpf(*z, -e);
}

pb_io_code gltf_eval_samplers(const pb_gltf_animation *a, size_t num_times, const float *times,
                              const size_t *soff, size_t total, float *out, pb_io_error *err)
{
    size_t ns = a->num_samplers;
    group *gr = calloc(ns ? ns : 1, sizeof *gr);
    size_t *mem = malloc((ns ? ns : 1) * sizeof *mem);
    size_t ng = 0, maxc = 0;
    if (!gr || !mem) {
        free(gr);
        free(mem);
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    }
    /* groups: members stored contiguously per group (two passes) */
    size_t *gid = malloc((ns ? ns : 1) * sizeof *gid);
    unsigned char *is_rot = malloc(ns ? ns : 1);
    if (!gid || !is_rot) {
        free(gr);
        free(mem);
        free(gid);
        free(is_rot);
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    }
    gltf_rotation_samplers(a, is_rot);
    for (size_t s = 0; s < ns; s++) {
        const pb_gltf_sampler *sm = &a->samplers[s];
        int rot = is_rot[s] && sm->interpolation != PB_GLTF_STEP;
        size_t g = 0;
        while (g < ng && !(gr[g].input == sm->input && gr[g].count == sm->count &&
                           gr[g].interp == sm->interpolation && gr[g].rot == rot))
            g++;
        if (g == ng) {
            gr[ng].input = sm->input;
            gr[ng].count = sm->count;
            gr[ng].interp = sm->interpolation;
            gr[ng].rot = rot;
            ng++;
        }
        gid[s] = g;
        gr[g].num_members++;
        gr[g].comps += sm->components;
    }
    size_t pos = 0;
    for (size_t g = 0; g < ng; g++) {
        gr[g].members = mem + pos;
        pos += gr[g].num_members;
        gr[g].num_members = 0;
        if (gr[g].comps > maxc)
            maxc = gr[g].comps;
    }
    for (size_t s = 0; s < ns; s++) {
        group *g = &gr[gid[s]];
        g->members[g->num_members++] = s;
    }
    free(gid);
    free(is_rot);
    /* scratch: p0, p1, m0, m1, r (each 3 * ceil(maxc / 3) + 3), quats */
    size_t n3 = (maxc + 2) / 3 + 1, len = 3 * n3;
    float *buf = calloc(5 * len + 12 * (maxc / 4 + 1), sizeof *buf);
    if (!buf) {
        free(gr);
        free(mem);
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    }
    float *p0 = buf, *p1 = p0 + len, *m0 = p1 + len, *m1 = m0 + len, *res = m1 + len;
    float *qa = res + len; /* 3 SoA quaternion batches of maxc / 4 + 1 */
    size_t qn = maxc / 4 + 1;
    pb_io_code rc = PB_IO_OK;
    for (size_t i = 0; i < num_times && rc == PB_IO_OK; i++) {
        float t = times[i];
        float *o = out + i * total;
        for (size_t gi = 0; gi < ng; gi++) {
            const group *g = &gr[gi];
            size_t n = g->count, k = 0;
            float x = 0.0f, td = 0.0f;
            int hold = 1; /* the value of key k, no interpolation */
            if (n > 1 && t > g->input[0]) {
                if (t >= g->input[n - 1])
                    k = n - 1;
                else {
                    size_t lo = 0, hi = n - 1; /* input[lo] <= t < input[hi] */
                    while (hi - lo > 1) {
                        size_t mid = lo + (hi - lo) / 2;
                        if (g->input[mid] <= t)
                            lo = mid;
                        else
                            hi = mid;
                    }
                    k = lo;
                    td = g->input[k + 1] - g->input[k];
                    x = (t - g->input[k]) / td;
                    hold = g->interp == PB_GLTF_STEP;
                }
            }
            size_t st = g->interp == PB_GLTF_CUBICSPLINE ? 3 : 1;
            if (hold) {
                for (size_t m = 0; m < g->num_members; m++) {
                    const pb_gltf_sampler *sm = &a->samplers[g->members[m]];
                    size_t c = sm->components;
                    memcpy(o + soff[g->members[m]], sm->output + (k * st + (st == 3)) * c,
                           c * sizeof(float));
                }
                continue;
            }
            /* gather keys k and k + 1 (and tangents) of every member */
            size_t q = 0, f = 0;
            for (size_t m = 0; m < g->num_members; m++) {
                const pb_gltf_sampler *sm = &a->samplers[g->members[m]];
                size_t c = sm->components;
                const float *v0 = sm->output + (k * st + (st == 3)) * c;
                const float *v1 = sm->output + ((k + 1) * st + (st == 3)) * c;
                if (g->rot && st == 1) { /* SoA quaternions for slerp */
                    float *aw = qa, *ax = aw + qn, *ay = ax + qn, *az = ay + qn;
                    float *bw = az + qn, *bx = bw + qn, *by = bx + qn, *bz = by + qn;
                    aw[q] = v0[3], ax[q] = v0[0], ay[q] = v0[1], az[q] = v0[2];
                    bw[q] = v1[3], bx[q] = v1[0], by[q] = v1[1], bz[q] = v1[2];
                    q++;
                    continue;
                }
                for (size_t j = 0; j < c; j++, f++) { /* flat component list */
                    p0[f] = v0[j];
                    p1[f] = v1[j];
                    if (st == 3) {
                        m0[f] = td * v0[c + j];   /* out-tangent of key k */
                        m1[f] = td * (v1 - c)[j]; /* in-tangent of key k + 1 */
                    }
                }
            }
            pb_status ps = PB_OK;
            if (g->rot && st == 1) {
                pb_cquats A = {qa, qa + qn, qa + 2 * qn, qa + 3 * qn};
                pb_cquats B = {qa + 4 * qn, qa + 5 * qn, qa + 6 * qn, qa + 7 * qn};
                float *r = qa + 8 * qn;
                pb_quats R = {r, r + qn, r + 2 * qn, r + 3 * qn};
                ps = pb_quat_slerp(q, x, A, B, 0, R);
                size_t j = 0;
                for (size_t m = 0; m < g->num_members; m++, j++) {
                    float *d = o + soff[g->members[m]];
                    d[0] = R.x[j], d[1] = R.y[j], d[2] = R.z[j], d[3] = R.w[j];
                }
            } else if (st == 3) {
                size_t nn = (f + 2) / 3; /* thirds of the flat list (padding finite) */
                ps = hermite_flat(nn, x, p0, p1, m0, m1, res);
                if (g->rot) { /* normalise each quaternion */
                    size_t nq = f / 4;
                    float *w = qa, *qx = w + qn, *qy = qx + qn, *qz = qy + qn;
                    for (size_t j = 0; j < nq; j++) {
                        w[j] = res[4 * j + 3], qx[j] = res[4 * j], qy[j] = res[4 * j + 1],
                        qz[j] = res[4 * j + 2];
                        in_normalize_range(&w[j], &qx[j], &qy[j], &qz[j]);
                    }
                    pb_cquats Q = {w, qx, qy, qz};
                    pb_quats N = {w, qx, qy, qz};
                    if (ps == PB_OK)
                        ps = pb_quat_normalize(nq, Q, N);
                    for (size_t j = 0; j < nq; j++)
                        res[4 * j + 3] = w[j], res[4 * j] = qx[j], res[4 * j + 1] = qy[j],
                                    res[4 * j + 2] = qz[j];
                }
                size_t at = 0;
                for (size_t m = 0; m < g->num_members; m++) {
                    size_t c = a->samplers[g->members[m]].components;
                    memcpy(o + soff[g->members[m]], res + at, c * sizeof(float));
                    at += c;
                }
            } else { /* LINEAR vectors and weights: (1 - x) a + x b */
                for (size_t j = 0; j < f; j++)
                    res[j] = (1.0f - x) * p0[j] + x * p1[j];
                size_t at = 0;
                for (size_t m = 0; m < g->num_members; m++) {
                    size_t c = a->samplers[g->members[m]].components;
                    memcpy(o + soff[g->members[m]], res + at, c * sizeof(float));
                    at += c;
                }
            }
            if (ps != PB_OK)
                rc = io_set_err(err, PB_IO_ERR_ARG, 0, "evaluation: %s", pb_status_str(ps));
        }
    }
    free(buf);
    free(gr);
    free(mem);
    return rc;
}

pb_io_code pb_gltf_sample(const pb_gltf *g, size_t anim, size_t num_times, const float *times,
                          float *values, pb_io_error *err)
{
    io_clear_err(err);
    if (!g || anim >= g->num_animations || (num_times && (!times || !values)))
        return io_set_err(err, PB_IO_ERR_ARG, 0, "no such animation, or NULL times/values");
    for (size_t i = 0; i < num_times; i++)
        if (!isfinite(times[i]))
            return io_set_err(err, PB_IO_ERR_ARG, 0, "time %zu is not finite", i);
    const pb_gltf_animation *a = &g->animations[anim];
    size_t *soff = malloc((a->num_samplers ? a->num_samplers : 1) * sizeof *soff);
    if (!soff)
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    size_t total = gltf_sampler_offsets(a, soff);
    const size_t chunk = 64;
    float *tmp = malloc((total ? total : 1) * chunk * sizeof *tmp);
    pb_io_code rc = tmp ? PB_IO_OK : io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    for (size_t i0 = 0; i0 < num_times && rc == PB_IO_OK; i0 += chunk) {
        size_t n = num_times - i0 < chunk ? num_times - i0 : chunk;
        rc = gltf_eval_samplers(a, n, times + i0, soff, total, tmp, err);
        for (size_t i = 0; i < n && rc == PB_IO_OK; i++)
            for (size_t c = 0; c < a->num_channels; c++) {
                const pb_gltf_channel *ch = &a->channels[c];
                memcpy(values + (i0 + i) * a->num_values + ch->offset,
                       tmp + i * total + soff[ch->sampler],
                       a->samplers[ch->sampler].components * sizeof(float));
            }
    }
    free(tmp);
    free(soff);
    return rc;
}
