/* pb_bvh_features (posebatch/dataset.h): a clip's motion features as named
 * arrays: resampled and mirrored through the file API, joints found by
 * name (the retargeting's name keys), then the batch functions
 * pb_clip_features or pb_humanml3d_features (posebatch/features.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_internal.h"
#include "io_internal.h"
#include "npz_internal.h"
#include "retarget_names.h"

#define HML_J PB_HUMANML3D_JOINTS

/* ------------------------------------------------------------ the arrays */

typedef struct {
    pb_npz *z;
    size_t cap;
    int oom;
} arrays;

static void *own(arrays *a, size_t bytes)
{
    void *p = a->oom ? NULL : npz_alloc(a->z, bytes ? bytes : 1);
    if (!p)
        a->oom = 1;
    return p;
}
static const char *own_str(arrays *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = own(a, n);
    if (p)
        memcpy(p, s, n);
    return p;
}
/* a new array entry: name, type, up to three axes (ndim of them) */
static void add(arrays *a, const char *name, pb_npy_dtype t, int ndim, size_t s0, size_t s1,
                size_t s2, const void *data)
{
    if (a->oom)
        return;
    pb_npz *z = a->z;
    if (z->count == a->cap) {
        size_t nc = a->cap ? 2 * a->cap : 16;
        pb_npy_array *na = realloc(z->arrays, nc * sizeof *na);
        if (!na) {
            a->oom = 1;
            return;
        }
        z->arrays = na;
        a->cap = nc;
    }
    pb_npy_array *r = &z->arrays[z->count++];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->dtype = t;
    r->ndim = ndim;
    r->shape[0] = s0;
    r->shape[1] = s1;
    r->shape[2] = s2;
    r->data = data;
}
/* n strings (copied) as a 1-D array */
static void add_strs(arrays *a, const char *name, size_t n, const char *(*at)(const void *, size_t),
                     const void *ctx)
{
    const char **v = own(a, n * sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        v[i] = own_str(a, at(ctx, i));
    add(a, name, PB_NPY_STR, 1, n, 0, 0, v);
}
static void add_scalar_str(arrays *a, const char *name, const char *s)
{
    const char **v = own(a, sizeof *v);
    if (v)
        v[0] = own_str(a, s);
    add(a, name, PB_NPY_STR, 0, 0, 0, 0, v);
}
static void add_scalar_f64(arrays *a, const char *name, double x)
{
    double *v = own(a, sizeof *v);
    if (v)
        *v = x;
    add(a, name, PB_NPY_F64, 0, 0, 0, 0, v);
}

/* ------------------------------------------------------------ options text */

typedef struct {
    char *p;
    size_t len, cap;
    int oom;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->oom)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t nc = (t->len + n + 1) * 2;
        char *np = realloc(t->p, nc);
        if (!np) {
            t->oom = 1;
            return;
        }
        t->p = np;
        t->cap = nc;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}
static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }
/* a JSON string: quotes, backslashes and control characters escaped */
static void put_json_str(text *t, const char *s)
{
    puts_(t, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char e[8];
        if (c == '"' || c == '\\') {
            e[0] = '\\';
            e[1] = (char)c;
            put(t, e, 2);
        } else if (c < 0x20) {
            snprintf(e, sizeof e, "\\u%04x", c);
            puts_(t, e);
        } else {
            put(t, s, 1);
        }
    }
    puts_(t, "\"");
}
static void put_key(text *t, const char *k)
{
    puts_(t, t->len > 1 ? ", " : "");
    put_json_str(t, k);
    puts_(t, ": ");
}
static void put_num(text *t, const char *k, double v)
{
    char b[40];
    put_key(t, k);
    snprintf(b, sizeof b, "%.17g", v);
    puts_(t, b);
}
static void put_str(text *t, const char *k, const char *v)
{
    put_key(t, k);
    if (v)
        put_json_str(t, v);
    else
        puts_(t, "null");
}

/* ------------------------------------------------------------ joints */

static const char *joint_name_at(const void *ctx, size_t i)
{
    return ((const pb_bvh *)ctx)->joints[i].name;
}
static const char *smpl_name_at(const void *ctx, size_t i)
{
    (void)ctx;
    return pb_smplh_joint_name(i);
}

/* a == b ignoring ASCII case */
static int same_ci(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        int ca = *a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a;
        int cb = *b >= 'A' && *b <= 'Z' ? *b - 'A' + 'a' : *b;
        if (ca != cb)
            return 0;
    }
    return *a == *b;
}

/* the one joint named so (exactly), or -1 with the error set */
static long joint_by_name(const pb_bvh *b, const char *name, const char *what, pb_io_error *err)
{
    long at = -1;
    size_t hits = 0;
    for (size_t j = 0; j < b->num_joints; j++)
        if (strcmp(b->joints[j].name, name) == 0 && hits++ == 0)
            at = (long)j;
    if (hits == 1)
        return at;
    io_set_err(err, PB_IO_ERR_ARG, 0,
               hits ? "%s '%s': %zu joints have that name" : "%s '%s': no joint has that name",
               what, name, hits);
    return -1;
}

/* the rest height of the root joint above the lowest rest joint along up */
static double leg_length(const pb_bvh *b, int up, size_t root)
{
    /* the joints' rest positions (the End Sites' after them, unused) */
    double(*p)[3] = calloc(b->num_joints + b->num_end_sites, sizeof *p);
    if (!p)
        return 1.0;
    bvh_rest_positions(b, &p[0][0]);
    double lo = p[0][up];
    for (size_t j = 1; j < b->num_joints; j++)
        lo = p[j][up] < lo ? p[j][up] : lo;
    double l = p[root][up] - lo;
    free(p);
    return l > 1e-9 ? l : 1.0;
}

static int is_family(const rt_key *k, const char *fam)
{
    const char *n = rt_family_name(k->family);
    return n && strcmp(n, fam) == 0;
}

/* feet by name: every joint of the foot and toe families, left first */
static size_t feet_by_family(const pb_bvh *b, size_t *out)
{
    size_t n = 0;
    for (int s = 0; s < 2; s++)
        for (size_t j = 0; j < b->num_joints; j++) {
            rt_key k;
            rt_name_key(b->joints[j].name, &k);
            if (k.side == (s ? 'R' : 'L') && (is_family(&k, "foot") || is_family(&k, "toe")))
                out[n++] = j;
        }
    return n;
}

/* --------------------------------------------------- HumanML3D's joints */

/* each SMPL joint's family and side (spine1..3: the chain rule) */
static const struct {
    const char *family;
    char side;
} smpl_key[HML_J] = {
    {"hips", 0},      {"upleg", 'L'},   {"upleg", 'R'},  {NULL, 0},    {"leg", 'L'}, {"leg", 'R'},
    {NULL, 0},        {"foot", 'L'},    {"foot", 'R'},   {NULL, 0},    {"toe", 'L'}, {"toe", 'R'},
    {"neck", 0},      {"collar", 'L'},  {"collar", 'R'}, {"head", 0},  {"arm", 'L'}, {"arm", 'R'},
    {"forearm", 'L'}, {"forearm", 'R'}, {"hand", 'L'},   {"hand", 'R'}};

static int smpl_index(const char *name)
{
    for (int i = 0; i < HML_J; i++)
        if (same_ci(pb_smplh_joint_name((size_t)i), name))
            return i;
    return -1;
}

/* Where SMPL joint i is in the clip: at joint a, or between joints a and b
 * (a point of the spine chain): P_a + t (P_b - P_a). */
typedef struct {
    long a, b;
    double t;
} smpl_src;

/* spine1..3 (slots 3, 6, 9, those still free): three of the joints between
 * the pelvis and the neck, evenly spaced, when there are three or more
 * apart from each other in the rest pose (CMU's LowerBack sits on its
 * Hips); else the points at 1/4, 1/2 and 3/4 of the chain's rest length */
static void spine_points(const pb_bvh *b, smpl_src src[HML_J])
{
    const long pelvis = src[0].a, neck = src[12].a;
    long pts[PB_BVH_MAX_DEPTH + 2];
    size_t n = 0;
    for (long j = neck; j >= 0 && n < PB_BVH_MAX_DEPTH + 1; j = b->joints[j].parent) {
        pts[n++] = j;
        if (j == pelvis)
            break;
    }
    if (n < 2 || pts[n - 1] != pelvis)
        return;                          /* the neck is not below the pelvis: reported as missing */
    for (size_t i = 0; i < n / 2; i++) { /* pelvis first */
        long x = pts[i];
        pts[i] = pts[n - 1 - i];
        pts[n - 1 - i] = x;
    }
    double(*rest)[3] = calloc(b->num_joints + b->num_end_sites, sizeof *rest);
    if (!rest)
        return;
    bvh_rest_positions(b, &rest[0][0]); /* (the End Sites' unused) */
    /* the chain without points on the one before (rest), and its lengths */
    long keep[PB_BVH_MAX_DEPTH + 2];
    double cum[PB_BVH_MAX_DEPTH + 2];
    size_t m = 1;
    keep[0] = pts[0];
    cum[0] = 0.0;
    for (size_t i = 1; i < n; i++) {
        const double *p = rest[pts[i]], *q = rest[keep[m - 1]];
        double d = sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                        (p[2] - q[2]) * (p[2] - q[2]));
        if (d > 1e-9 || i == n - 1) {
            keep[m] = pts[i];
            cum[m] = cum[m - 1] + d;
            m++;
        }
    }
    free(rest);
    static const int spine[3] = {3, 6, 9};
    const size_t inner = m - 2; /* between the pelvis and the neck */
    for (int s = 0; s < 3; s++) {
        if (src[spine[s]].a >= 0)
            continue;
        if (inner >= 3) {
            const size_t pick[3] = {0, inner / 2, inner - 1}; /* 0, round((k-1)/2), k-1 */
            src[spine[s]] = (smpl_src){keep[1 + pick[s]], keep[1 + pick[s]], 0.0};
            continue;
        }
        const double at = cum[m - 1] * (s + 1) / 4.0;
        size_t k = 0;
        while (k + 2 < m && cum[k + 1] < at)
            k++;
        const double len = cum[k + 1] - cum[k];
        src[spine[s]] = (smpl_src){keep[k], keep[k + 1], len > 0 ? (at - cum[k]) / len : 0.0};
    }
}

/* src[i]: where SMPL joint i is in the clip, by the rules of
 * posebatch/dataset.h */
static pb_io_code map_smpl(const pb_bvh *b, const pb_retarget_map *map, smpl_src src[HML_J],
                           pb_io_error *err)
{
    const size_t J = b->num_joints;
    long slot[HML_J];
    for (int i = 0; i < HML_J; i++)
        slot[i] = -1;
    for (size_t m = 0; map && m < map->count; m++) {
        const int i = smpl_index(map->target[m]);
        if (i < 0)
            return io_set_err(err, PB_IO_ERR_ARG, map->line ? map->line[m] : 0,
                              "map: '%s' is not one of the 22 SMPL joints (pelvis, left_hip, ...)",
                              map->target[m]);
        long j = joint_by_name(b, map->source[m], "map", err);
        if (j < 0)
            return err ? err->code : PB_IO_ERR_ARG;
        slot[i] = j;
    }
    /* a skeleton named as SMPL's (every one of the 22 names): by name (a
     * partial match, CMU's "Spine1" say, would be another joint) */
    long named[HML_J];
    int all = 1;
    for (int i = 0; i < HML_J; i++) {
        named[i] = -1;
        for (size_t j = 0; j < J && named[i] < 0; j++)
            if (same_ci(b->joints[j].name, pb_smplh_joint_name((size_t)i)))
                named[i] = (long)j;
        all &= named[i] >= 0;
    }
    for (int i = 0; i < HML_J && all; i++)
        if (slot[i] < 0)
            slot[i] = named[i];
    rt_key *k = malloc(J * sizeof *k);
    unsigned char *used = calloc(J, 1);
    if (!k || !used) {
        free(k);
        free(used);
        return io_nomem(err);
    }
    for (int i = 0; i < HML_J; i++)
        if (slot[i] >= 0)
            used[slot[i]] = 1;
    for (size_t j = 0; j < J; j++) {
        rt_name_key(b->joints[j].name, &k[j]);
        /* a "shoulder" (a collar alias) below a collar of its side is the arm */
        if (is_family(&k[j], "collar") && k[j].alt >= 0)
            for (int32_t a = b->joints[j].parent; a >= 0; a = b->joints[a].parent)
                if (is_family(&k[a], "collar") && k[a].side == k[j].side) {
                    k[j].family = k[j].alt;
                    break;
                }
    }
    for (int i = 0; i < HML_J; i++)
        for (size_t j = 0; j < J && slot[i] < 0 && smpl_key[i].family; j++)
            if (!used[j] && k[j].side == smpl_key[i].side && is_family(&k[j], smpl_key[i].family)) {
                slot[i] = (long)j;
                used[j] = 1;
            }
    free(k);
    free(used);
    if (slot[0] < 0)
        slot[0] = 0; /* the pelvis: the root when no name says it */
    for (int i = 0; i < HML_J; i++)
        src[i] = (smpl_src){slot[i], slot[i], 0.0};
    if ((slot[3] < 0 || slot[6] < 0 || slot[9] < 0) && slot[12] >= 0)
        spine_points(b, src);
    char missing[512] = "";
    for (int i = 0; i < HML_J; i++)
        if (src[i].a < 0) {
            size_t l = strlen(missing);
            snprintf(missing + l, sizeof missing - l, "%s%s", l ? ", " : "",
                     pb_smplh_joint_name((size_t)i));
        }
    if (missing[0])
        return io_set_err(err, PB_IO_ERR_ARG, 0,
                          "humanml3d: no joint found for SMPL joint(s) %s; name them in a map "
                          "file ('source joint = smpl_joint' lines)",
                          missing);
    for (int i = 0; i < HML_J; i++)
        for (int m = 0; m < i; m++)
            if (src[i].a == src[m].a && src[i].b == src[m].b && src[i].t == src[m].t)
                return io_set_err(err, PB_IO_ERR_ARG, 0,
                                  "humanml3d: joint '%s' taken for both %s and %s; name them in a "
                                  "map file",
                                  b->joints[src[i].a].name, pb_smplh_joint_name((size_t)m),
                                  pb_smplh_joint_name((size_t)i));
    return PB_IO_OK;
}

/* ------------------------------------------------------------ features */

static pb_io_code status_err(pb_status st, const char *what, pb_io_error *err)
{
    return io_set_err(err, st == PB_ERR_NOMEM ? PB_IO_ERR_NOMEM : PB_IO_ERR_ARG, 0, "%s: %s", what,
                      pb_status_str(st));
}

static const char *const axis_names[3] = {"x", "y", "z"};

static pb_io_code posebatch_layout(const pb_bvh *w, const pb_clip *clip, const int32_t *parents,
                                   const pb_feature_file_opts *o, arrays *a, text *t,
                                   pb_io_error *err)
{
    const size_t F = w->num_frames, J = w->num_joints;
    size_t root = 0;
    if (o->root) {
        long r = joint_by_name(w, o->root, "root", err);
        if (r < 0)
            return PB_IO_ERR_ARG;
        root = (size_t)r;
    }
    size_t *feet = malloc((o->feet ? o->num_feet : 2 * J) * sizeof *feet + 1);
    if (!feet)
        return io_nomem(err);
    size_t nf = 0;
    if (o->feet) {
        for (size_t i = 0; i < o->num_feet; i++) {
            long f = o->feet[i] ? joint_by_name(w, o->feet[i], "foot", err) : -1;
            if (f < 0) {
                free(feet);
                return o->feet[i] ? PB_IO_ERR_ARG
                                  : io_set_err(err, PB_IO_ERR_ARG, 0, "a foot name is NULL");
            }
            feet[nf++] = (size_t)f;
        }
    } else {
        nf = feet_by_family(w, feet);
    }
    const double L = leg_length(w, (int)o->up, root);
    const double cs =
        o->contact_speed >= 0 ? o->contact_speed : 0.5 * L * (o->scale > 0 ? o->scale : 1);
    const double ch =
        o->contact_height >= 0 ? o->contact_height : 0.1 * L * (o->scale > 0 ? o->scale : 1);
    pb_feature_opts fo = {root, o->up, nf, feet, (float)cs, (float)ch};
    pb_features out;
    out.root_yaw_vel = own(a, F * sizeof(float));
    out.root_vel = own(a, 2 * F * sizeof(float));
    out.root_height = own(a, F * sizeof(float));
    out.positions = own(a, 3 * F * J * sizeof(float));
    out.velocities = own(a, 3 * F * J * sizeof(float));
    out.rot6d = own(a, 6 * F * J * sizeof(float));
    out.contacts = own(a, F * nf * sizeof(float));
    pb_io_code rc = PB_IO_OK;
    if (a->oom) {
        rc = io_nomem(err);
    } else {
        pb_status st = pb_clip_features(clip, parents, &fo, &out);
        if (st != PB_OK)
            rc = status_err(st, "features", err);
    }
    if (rc == PB_IO_OK) {
        add(a, "root_yaw_vel", PB_NPY_F32, 1, F, 0, 0, out.root_yaw_vel);
        add(a, "root_vel", PB_NPY_F32, 2, F, 2, 0, out.root_vel);
        add(a, "root_height", PB_NPY_F32, 1, F, 0, 0, out.root_height);
        add(a, "positions", PB_NPY_F32, 3, F, J, 3, out.positions);
        add(a, "velocities", PB_NPY_F32, 3, F, J, 3, out.velocities);
        add(a, "rot6d", PB_NPY_F32, 3, F, J, 6, out.rot6d);
        add(a, "contacts", PB_NPY_F32, 2, F, nf, 0, out.contacts);
        const char **fn = own(a, (nf ? nf : 1) * sizeof *fn);
        for (size_t i = 0; fn && i < nf; i++)
            fn[i] = own_str(a, w->joints[feet[i]].name);
        add(a, "feet", PB_NPY_STR, 1, nf, 0, 0, fn);
        put_str(t, "root", w->joints[root].name);
        put_key(t, "feet");
        puts_(t, "[");
        for (size_t i = 0; i < nf; i++) {
            puts_(t, i ? ", " : "");
            put_json_str(t, w->joints[feet[i]].name);
        }
        puts_(t, "]");
        put_num(t, "contact_speed", (double)fo.contact_speed);
        put_num(t, "contact_height", (double)fo.contact_height);
        put_num(t, "leg_length", L);
    }
    free(feet);
    return rc;
}

/* positions of the 22 joints, y up: (x, y, z) turned from up */
static void y_up(int up, const double in[3], float out[3])
{
    if (up == 2) { /* z up: (x, z, -y) */
        out[0] = (float)in[0];
        out[1] = (float)in[2];
        out[2] = (float)-in[1];
    } else if (up == 0) { /* x up: (-y, x, z) */
        out[0] = (float)-in[1];
        out[1] = (float)in[0];
        out[2] = (float)in[2];
    } else {
        out[0] = (float)in[0];
        out[1] = (float)in[1];
        out[2] = (float)in[2];
    }
}

static pb_io_code humanml3d_layout(const pb_bvh *w, const pb_clip *clip, const int32_t *parents,
                                   const pb_feature_file_opts *o, arrays *a, text *t,
                                   pb_io_error *err)
{
    const size_t F = w->num_frames, J = w->num_joints;
    if (F < 2)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "humanml3d: %zu frame at %g fps; it needs 2", F,
                          1.0 / w->frame_time);
    smpl_src slot[HML_J];
    pb_io_code rc = map_smpl(w, o->map, slot, err);
    if (rc != PB_IO_OK)
        return rc;
    float *m = malloc(7 * F * J * sizeof *m);
    if (!m)
        return io_nomem(err);
    const size_t n = F * J;
    pb_pose model = {
        {m, m + n, m + 2 * n, m + 3 * n}, {m + 4 * n, m + 5 * n, m + 6 * n}, {0, 0, 0}};
    pb_cpose local = {pb_cq(clip->rot), pb_cv(clip->pos), {0, 0, 0}};
    pb_status st = pb_pose_local_to_model(F, J, parents, &local, &model);
    if (st != PB_OK) {
        free(m);
        return status_err(st, "forward kinematics", err);
    }
    float *joints = own(a, F * HML_J * 3 * sizeof(float));
    float *feat = own(a, (F - 1) * PB_HUMANML3D_DIM * sizeof(float));
    if (a->oom) {
        free(m);
        return io_nomem(err);
    }
    for (size_t f = 0; f < F; f++)
        for (int i = 0; i < HML_J; i++) {
            const size_t ea = f * J + (size_t)slot[i].a, eb = f * J + (size_t)slot[i].b;
            const double u = slot[i].t;
            const double p[3] = {model.pos.x[ea] + u * ((double)model.pos.x[eb] - model.pos.x[ea]),
                                 model.pos.y[ea] + u * ((double)model.pos.y[eb] - model.pos.y[ea]),
                                 model.pos.z[ea] + u * ((double)model.pos.z[eb] - model.pos.z[ea])};
            y_up((int)o->up, p, joints + (f * HML_J + (size_t)i) * 3);
        }
    free(m);
    const double thr = o->feet_threshold >= 0 ? o->feet_threshold : 0.002;
    st = pb_humanml3d_features(F, joints, o->target, (float)thr, feat);
    if (st != PB_OK)
        return status_err(st, "humanml3d", err);
    int32_t *par = own(a, HML_J * sizeof *par);
    const char **src = own(a, HML_J * sizeof *src);
    for (int i = 0; par && src && i < HML_J; i++) {
        par[i] = pb_smplh_parent((size_t)i);
        char nm[600];
        if (slot[i].t == 0.0)
            snprintf(nm, sizeof nm, "%s", w->joints[slot[i].a].name);
        else
            snprintf(nm, sizeof nm, "%.280s~%.280s@%.3f", w->joints[slot[i].a].name,
                     w->joints[slot[i].b].name, slot[i].t);
        src[i] = own_str(a, nm);
    }
    add(a, "features", PB_NPY_F32, 2, F - 1, PB_HUMANML3D_DIM, 0, feat);
    add(a, "joints", PB_NPY_F32, 3, F, HML_J, 3, joints);
    add_strs(a, "joint_names", HML_J, smpl_name_at, NULL);
    add(a, "parents", PB_NPY_I32, 1, HML_J, 0, 0, par);
    add(a, "source_joints", PB_NPY_STR, 1, HML_J, 0, 0, src);
    put_num(t, "feet_threshold", thr);
    put_str(t, "target", o->target ? "given" : "the clip's first frame");
    put_num(t, "map_pairs", o->map ? (double)o->map->count : 0.0);
    return PB_IO_OK;
}

pb_io_code pb_bvh_features(const pb_bvh *clip, const pb_feature_file_opts *opts, pb_npz *out,
                           pb_io_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!clip || !out)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "pb_bvh_features: NULL argument");
    const pb_feature_file_opts dflt = PB_FEATURE_FILE_OPTS_DEFAULT;
    pb_feature_file_opts o = opts ? *opts : dflt;
    if (clip->num_frames == 0 || !clip->rot_w || clip->num_joints == 0)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "the clip has no frames");
    if ((unsigned)o.layout > 1u || (unsigned)o.up > 2u)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "unknown layout or up axis");
    if (o.scale == 0.0)
        o.scale = 1.0;
    if (!(o.fps >= 0.0) || !isfinite(o.fps) || !(o.scale > 0.0) || !isfinite(o.scale) ||
        isnan(o.contact_speed) || isnan(o.contact_height) || isnan(o.feet_threshold))
        return io_set_err(err, PB_IO_ERR_ARG, 0,
                          "fps, scale and the thresholds must be numbers (fps >= 0, scale > 0)");
    const double fps = o.fps > 0 ? o.fps : o.layout == PB_FEATURES_HUMANML3D ? 20.0 : 0.0;
    pb_bvh rs, mr;
    memset(&rs, 0, sizeof rs);
    memset(&mr, 0, sizeof mr);
    const pb_bvh *w = clip;
    pb_io_code rc = PB_IO_OK;
    if (fps > 0 && fabs(fps * clip->frame_time - 1.0) > 1e-9) {
        rc = pb_bvh_resample(clip, fps, 0, &rs, err);
        w = &rs;
    }
    if (rc == PB_IO_OK && o.mirror) {
        static const pb_mirror_plane across[3] = {PB_MIRROR_XY, PB_MIRROR_YZ, PB_MIRROR_XZ};
        rc = pb_bvh_mirror(w, NULL, across[o.up], &mr, err);
        w = &mr;
    }
    const size_t F = w->num_frames, J = w->num_joints, n = F * J;
    int32_t *parents = NULL;
    float *scaled = NULL;
    if (rc == PB_IO_OK) {
        parents = malloc(J * sizeof *parents);
        scaled = o.scale != 1.0 ? malloc(3 * n * sizeof *scaled) : NULL;
        if (!parents || (o.scale != 1.0 && !scaled))
            rc = io_nomem(err);
    }
    arrays a = {out, 0, 0};
    text t = {NULL, 0, 0, 0};
    if (rc == PB_IO_OK) {
        for (size_t j = 0; j < J; j++)
            parents[j] = w->joints[j].parent;
        pb_clip clip_w = pb_bvh_clip(w);
        if (scaled) {
            const float *src[3] = {w->pos_x, w->pos_y, w->pos_z};
            for (int k = 0; k < 3; k++)
                for (size_t i = 0; i < n; i++)
                    scaled[(size_t)k * n + i] = (float)(src[k][i] * o.scale);
            clip_w.pos = (pb_vec3s){scaled, scaled + n, scaled + 2 * n};
        }
        puts_(&t, "{");
        put_str(&t, "layout", o.layout == PB_FEATURES_HUMANML3D ? "humanml3d" : "posebatch");
        put_num(&t, "fps", 1.0 / w->frame_time);
        put_num(&t, "source_fps", 1.0 / clip->frame_time);
        put_num(&t, "frames", (double)F);
        put_key(&t, "mirror");
        puts_(&t, o.mirror ? "true" : "false");
        put_str(&t, "up", axis_names[o.up]);
        put_num(&t, "scale", o.scale);
        put_str(&t, "source", o.source);
        put_str(&t, "posebatch", pb_version_string());
        if (o.layout == PB_FEATURES_HUMANML3D)
            rc = humanml3d_layout(w, &clip_w, parents, &o, &a, &t, err);
        else
            rc = posebatch_layout(w, &clip_w, parents, &o, &a, &t, err);
        puts_(&t, "}");
    }
    if (rc == PB_IO_OK && o.layout == PB_FEATURES_POSEBATCH) {
        add_strs(&a, "joint_names", J, joint_name_at, w);
        int32_t *par = own(&a, J * sizeof *par);
        if (par)
            memcpy(par, parents, J * sizeof *par);
        add(&a, "parents", PB_NPY_I32, 1, J, 0, 0, par);
    }
    if (rc == PB_IO_OK) {
        add_scalar_f64(&a, "fps", 1.0 / w->frame_time);
        add_scalar_str(&a, "layout", o.layout == PB_FEATURES_HUMANML3D ? "humanml3d" : "posebatch");
        add_scalar_str(&a, "options", t.p ? t.p : "{}");
        if (a.oom || t.oom)
            rc = io_nomem(err);
    }
    free(t.p);
    free(parents);
    free(scaled);
    pb_bvh_free(&rs);
    pb_bvh_free(&mr);
    if (rc != PB_IO_OK)
        pb_npz_free(out);
    return rc;
}
