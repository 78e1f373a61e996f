/* Retargeting a clip onto another skeleton (posebatch/io.h, "Retargeting"):
 * rest alignments from the two rest poses, source model space by
 * pb_pose_local_to_model, target local rotations by pb_pose_model_to_local,
 * root translation scaled by the hip heights. Joint matching:
 * retarget_names.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "quat64.h"
#include "retarget_names.h"

/* ------------------------------------------------------------ double quaternions */

static const dq DQ_ID = {1.0, 0.0, 0.0, 0.0};

static int is_id(dq a) { return a.w == 1.0 && a.x == 0.0 && a.y == 0.0 && a.z == 0.0; }

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}
static double norm3(const double a[3]) { return sqrt(dot3(a, a)); }
static int same3(const double a[3], const double b[3])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* The shortest rotation taking direction a to direction b (non-zero);
 * exactly the identity for equal vectors. */
static dq minrot(const double a[3], const double b[3])
{
    if (same3(a, b))
        return DQ_ID;
    double na = norm3(a), nb = norm3(b);
    double ua[3] = {a[0] / na, a[1] / na, a[2] / na}, ub[3] = {b[0] / nb, b[1] / nb, b[2] / nb};
    double c[3];
    cross3(ua, ub, c);
    double d = dot3(ua, ub);
    if (d < -1.0 + 1e-12) { /* opposite: half a turn about any perpendicular */
        double e[3] = {1, 0, 0};
        if (fabs(ua[0]) > 0.9)
            e[0] = 0, e[1] = 1;
        cross3(ua, e, c);
        double n = norm3(c);
        dq r = {0.0, c[0] / n, c[1] / n, c[2] / n};
        return r;
    }
    dq r = {1.0 + d, c[0], c[1], c[2]};
    return dq_unit(r);
}

/* Orthonormal frame (columns) of primary p and secondary s; 0 when s is
 * (nearly) parallel to p. */
static int frame_of(const double p[3], const double s[3], double m[3][3])
{
    double np = norm3(p);
    double e1[3] = {p[0] / np, p[1] / np, p[2] / np};
    double d = dot3(s, e1);
    double e2[3] = {s[0] - d * e1[0], s[1] - d * e1[1], s[2] - d * e1[2]};
    double n2 = norm3(e2);
    if (!(n2 > 1e-6 * norm3(s)))
        return 0;
    for (int i = 0; i < 3; i++)
        e2[i] /= n2;
    double e3[3];
    cross3(e1, e2, e3);
    for (int i = 0; i < 3; i++) {
        m[i][0] = e1[i];
        m[i][1] = e2[i];
        m[i][2] = e3[i];
    }
    return 1;
}

/* Shepperd's method */
static dq quat_of_matrix(double m[3][3])
{
    double tr = m[0][0] + m[1][1] + m[2][2];
    dq q;
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q.w = 0.25 * s;
        q.x = (m[2][1] - m[1][2]) / s;
        q.y = (m[0][2] - m[2][0]) / s;
        q.z = (m[1][0] - m[0][1]) / s;
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        double s = sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2;
        q.w = (m[2][1] - m[1][2]) / s;
        q.x = 0.25 * s;
        q.y = (m[0][1] + m[1][0]) / s;
        q.z = (m[0][2] + m[2][0]) / s;
    } else if (m[1][1] > m[2][2]) {
        double s = sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2;
        q.w = (m[0][2] - m[2][0]) / s;
        q.x = (m[0][1] + m[1][0]) / s;
        q.y = 0.25 * s;
        q.z = (m[1][2] + m[2][1]) / s;
    } else {
        double s = sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2;
        q.w = (m[1][0] - m[0][1]) / s;
        q.x = (m[0][2] + m[2][0]) / s;
        q.y = (m[1][2] + m[2][1]) / s;
        q.z = 0.25 * s;
    }
    if (q.w < 0)
        q.w = -q.w, q.x = -q.x, q.y = -q.y, q.z = -q.z;
    return dq_unit(q);
}

/* The rotation taking the target's frame (pt, st) to the source's (ps, ss);
 * the shortest rotation of the primaries where a frame is degenerate. */
static dq frame_rot(const double pt[3], const double st[3], const double ps[3], const double ss[3])
{
    if (same3(pt, ps) && same3(st, ss))
        return DQ_ID;
    double mt[3][3], ms[3][3], a[3][3];
    if (!frame_of(pt, st, mt) || !frame_of(ps, ss, ms))
        return minrot(pt, ps);
    for (int i = 0; i < 3; i++) /* a = ms mt^T */
        for (int j = 0; j < 3; j++)
            a[i][j] = ms[i][0] * mt[j][0] + ms[i][1] * mt[j][1] + ms[i][2] * mt[j][2];
    return quat_of_matrix(a);
}

/* ------------------------------------------------------------ skeleton facts */

typedef struct skel {
    size_t J;
    int32_t *parent;
    double (*rest)[3];  /* rest model-space positions */
    int *nchild;        /* joint children + End Sites */
    double (*child)[3]; /* the offset of the first of them */
    double extent;      /* largest distance of a rest position from the first joint */
} skel;

static void skel_free(skel *k)
{
    free(k->parent);
    free(k->rest);
    free(k->nchild);
    free(k->child);
}

static int skel_init(const pb_bvh *b, skel *k)
{
    size_t J = b->num_joints;
    k->J = J;
    k->parent = malloc(J * sizeof *k->parent);
    k->rest = malloc(J * sizeof *k->rest);
    k->nchild = calloc(J, sizeof *k->nchild);
    k->child = calloc(J, sizeof *k->child);
    if (!k->parent || !k->rest || !k->nchild || !k->child)
        return -1;
    k->extent = 0;
    for (size_t j = 0; j < J; j++) {
        int32_t p = b->joints[j].parent;
        k->parent[j] = p;
        for (int c = 0; c < 3; c++)
            k->rest[j][c] = (p >= 0 ? k->rest[p][c] : 0.0) + (double)b->joints[j].offset[c];
        if (p >= 0 && k->nchild[p]++ == 0)
            for (int c = 0; c < 3; c++)
                k->child[p][c] = b->joints[j].offset[c];
        double d[3] = {k->rest[j][0] - k->rest[0][0], k->rest[j][1] - k->rest[0][1],
                       k->rest[j][2] - k->rest[0][2]};
        double n = norm3(d);
        if (n > k->extent)
            k->extent = n;
    }
    for (size_t e = 0; e < b->num_end_sites; e++) {
        int32_t p = b->end_sites[e].parent;
        if (p < 0 || (size_t)p >= J)
            continue;
        /* an End Site listed before the joint children is the first child */
        if (k->nchild[p]++ == 0 || b->end_sites[e].child_index == 0)
            for (int c = 0; c < 3; c++)
                k->child[p][c] = b->end_sites[e].offset[c];
    }
    return 0;
}

static int below(const skel *k, long j, long anc)
{
    for (long a = j; a >= 0; a = k->parent[a])
        if (a == anc)
            return 1;
    return 0;
}

static double hip_height(const skel *k, long hips)
{
    double lo = k->rest[hips][1];
    for (size_t j = 0; j < k->J; j++)
        if (k->rest[j][1] < lo)
            lo = k->rest[j][1];
    return k->rest[hips][1] - lo;
}

/* ------------------------------------------------------------ alignment */

typedef struct plan {
    long *match;           /* target -> source, -1 */
    dq *align;             /* per target joint (identity where unmatched) */
    unsigned char *direct; /* local rotation straight from the source's */
    long t_root, s_root;   /* the root pair */
    long holder;           /* target joint taking the root translation, -1 */
    double k;              /* translation scale */
} plan;

static void plan_free(plan *p)
{
    free(p->match);
    free(p->align);
    free(p->direct);
}

/* Pushes the list first, next[first], ... on the stack so that it pops in
 * list order; returns the new stack size. */
static long push_chains(long *stack, long sp, long first, const long *next)
{
    long n = 0;
    for (long u = first; u >= 0; u = next[u])
        n++;
    long i = sp + n;
    for (long u = first; u >= 0; u = next[u])
        stack[--i] = u;
    return sp + n;
}

/* A[t] for each matched t, in file order (ancestors first). */
static int compute_alignments(const pb_bvh *src, const pb_bvh *tgt, const skel *ks, const skel *kt,
                              plan *pl)
{
    size_t Jt = kt->J;
    long *nma = malloc(Jt * sizeof *nma);   /* nearest matched ancestor */
    long *head = malloc(Jt * sizeof *head); /* chains of t: a linked list */
    long *next = malloc(Jt * sizeof *next);
    long *tail = malloc(Jt * sizeof *tail);
    long *stack = malloc(Jt * sizeof *stack);
    char *side = malloc(Jt);
    if (!nma || !head || !next || !tail || !side || !stack) {
        free(nma), free(head), free(next), free(tail), free(side), free(stack);
        return -1;
    }
    for (size_t t = 0; t < Jt; t++) {
        long p = kt->parent[t];
        nma[t] = p < 0 ? -1 : (pl->match[p] >= 0 ? p : nma[p]);
        head[t] = next[t] = tail[t] = -1;
        rt_key key;
        rt_name_key(tgt->joints[t].name, &key);
        side[t] = key.side;
    }
    for (size_t t = 0; t < Jt; t++)
        if (pl->match[t] >= 0 && nma[t] >= 0) {
            long a = nma[t];
            if (tail[a] < 0)
                head[a] = (long)t;
            else
                next[tail[a]] = (long)t;
            tail[a] = (long)t;
        }
    const double eps_t = 1e-6 * kt->extent + 1e-30, eps_s = 1e-6 * ks->extent + 1e-30;
    for (size_t t = 0; t < Jt; t++) {
        pl->align[t] = DQ_ID;
        long s = pl->match[t];
        if (s < 0)
            continue;
        /* valid chains */
        long first = -1, center = -1, left = -1, right = -1, nvalid = 0, second = -1;
        /* t's chains in file order; one of zero length (in either
         * skeleton) gives way to its own chains */
        long sp = push_chains(stack, 0, head[t], next);
        while (sp > 0) {
            long u = stack[--sp];
            long su = pl->match[u];
            if (su == s || !below(ks, su, s))
                continue;
            double dt[3], ds[3];
            for (int c = 0; c < 3; c++) {
                dt[c] = kt->rest[u][c] - kt->rest[t][c];
                ds[c] = ks->rest[su][c] - ks->rest[s][c];
            }
            if (!(norm3(dt) > eps_t) || !(norm3(ds) > eps_s)) {
                sp = push_chains(stack, sp, head[u], next);
                continue;
            }
            nvalid++;
            if (first < 0)
                first = u;
            else if (second < 0)
                second = u;
            if (!side[u] && center < 0)
                center = u;
            if (side[u] == 'L' && left < 0)
                left = u;
            if (side[u] == 'R' && right < 0)
                right = u;
        }
        double pt[3], ps[3];
        if (nvalid >= 1) {
            long pu = center >= 0 ? center : first;
            for (int c = 0; c < 3; c++) {
                pt[c] = kt->rest[pu][c] - kt->rest[t][c];
                ps[c] = ks->rest[pl->match[pu]][c] - ks->rest[s][c];
            }
            if (nvalid == 1) {
                pl->align[t] = minrot(pt, ps);
                continue;
            }
            double st[3], ss[3];
            if (left >= 0 && right >= 0 && left != pu && right != pu) {
                for (int c = 0; c < 3; c++) {
                    st[c] = kt->rest[left][c] - kt->rest[right][c];
                    ss[c] = ks->rest[pl->match[left]][c] - ks->rest[pl->match[right]][c];
                }
            } else {
                long su = pu == first ? second : first;
                for (int c = 0; c < 3; c++) {
                    st[c] = kt->rest[su][c] - kt->rest[t][c];
                    ss[c] = ks->rest[pl->match[su]][c] - ks->rest[s][c];
                }
            }
            pl->align[t] = frame_rot(pt, st, ps, ss);
            continue;
        }
        /* a leaf of the matching */
        if (kt->nchild[t] == 1 && ks->nchild[s] == 1 && norm3(kt->child[t]) > eps_t &&
            norm3(ks->child[s]) > eps_s)
            pl->align[t] = minrot(kt->child[t], ks->child[s]);
        else if (nma[t] >= 0)
            pl->align[t] = pl->align[nma[t]];
    }
    (void)src;
    free(nma), free(head), free(next), free(tail), free(side), free(stack);
    return 0;
}

static int has_pos(const pb_bvh_joint *j)
{
    for (int c = 0; c < j->num_channels; c++)
        if (j->channels[c] <= PB_BVH_ZPOS)
            return 1;
    return 0;
}

/* mask of position components with a channel */
static unsigned pos_mask(const pb_bvh_joint *j)
{
    unsigned m = 0;
    for (int c = 0; c < j->num_channels; c++)
        if (j->channels[c] <= PB_BVH_ZPOS)
            m |= 1u << j->channels[c];
    return m;
}

static pb_io_code make_plan(const pb_bvh *src, const pb_bvh *tgt, const pb_retarget_opts *opts,
                            skel *ks, skel *kt, plan *pl, pb_io_error *err)
{
    memset(pl, 0, sizeof *pl);
    memset(ks, 0, sizeof *ks);
    memset(kt, 0, sizeof *kt);
    if (opts && (opts->flags & ~(unsigned)PB_RETARGET_MAP_ONLY))
        return io_set_err(err, PB_IO_ERR_ARG, 0, "unknown flags 0x%x", opts->flags);
    size_t Jt = tgt->num_joints;
    pl->match = malloc((Jt ? Jt : 1) * sizeof *pl->match);
    if (!pl->match)
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    pb_io_code code = rt_match(src, tgt, opts ? opts->map : NULL,
                               opts && (opts->flags & PB_RETARGET_MAP_ONLY), pl->match, err);
    if (code)
        return code;
    pl->align = malloc(Jt * sizeof *pl->align);
    pl->direct = calloc(Jt, 1);
    if (!pl->align || !pl->direct || skel_init(src, ks) || skel_init(tgt, kt) ||
        compute_alignments(src, tgt, ks, kt, pl))
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    pl->t_root = pl->s_root = -1;
    for (size_t t = 0; t < Jt && pl->t_root < 0; t++)
        if (pl->match[t] >= 0)
            pl->t_root = (long)t, pl->s_root = pl->match[t];
    for (size_t t = 0; t < Jt; t++) {
        long s = pl->match[t], p = kt->parent[t];
        if (s < 0)
            continue;
        pl->direct[t] =
            p < 0 ? ks->parent[s] < 0 : (pl->match[p] >= 0 && ks->parent[s] == pl->match[p]);
    }
    double hs = hip_height(ks, pl->s_root), ht = hip_height(kt, pl->t_root);
    pl->k = (hs > 1e-6 * ks->extent && ht > 1e-6 * kt->extent) ? ht / hs : 1.0;
    if (hs == ht)
        pl->k = 1.0;
    pl->holder = -1;
    for (long a = pl->t_root; a >= 0; a = kt->parent[a])
        if (has_pos(&tgt->joints[a])) {
            pl->holder = a;
            break;
        }
    return PB_IO_OK;
}

pb_io_code pb_bvh_retarget_match(const pb_bvh *src, const pb_bvh *target,
                                 const pb_retarget_opts *opts, long *match, pb_io_error *err)
{
    io_clear_err(err);
    if (!src || !target || !match)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "%s is NULL",
                          !src      ? "src"
                          : !target ? "target"
                                    : "match");
    if (opts && (opts->flags & ~(unsigned)PB_RETARGET_MAP_ONLY))
        return io_set_err(err, PB_IO_ERR_ARG, 0, "unknown flags 0x%x", opts->flags);
    return rt_match(src, target, opts ? opts->map : NULL,
                    opts && (opts->flags & PB_RETARGET_MAP_ONLY), match, err);
}

/* ------------------------------------------------------------ motion */

static dq load_q(const pb_bvh *b, size_t i)
{
    dq q = {b->rot_w[i], b->rot_x[i], b->rot_y[i], b->rot_z[i]};
    return q;
}

static void store_q(float *w, float *x, float *y, float *z, size_t i, dq q)
{
    w[i] = (float)q.w;
    x[i] = (float)q.x;
    y[i] = (float)q.y;
    z[i] = (float)q.z;
}

/* every target joint matched to the same joint, same channels and offsets,
 * identity alignments, direct, k = 1: the source's angles and digits apply */
static int is_same(const pb_bvh *src, const pb_bvh *tgt, const plan *pl)
{
    if (src->num_joints != tgt->num_joints || src->num_channels != tgt->num_channels ||
        pl->k != 1.0)
        return 0;
    for (size_t j = 0; j < tgt->num_joints; j++) {
        const pb_bvh_joint *a = &src->joints[j], *b = &tgt->joints[j];
        if (pl->match[j] != (long)j || !is_id(pl->align[j]) || !pl->direct[j] ||
            a->num_channels != b->num_channels ||
            memcmp(a->channels, b->channels, a->num_channels) != 0 ||
            a->rot_order != b->rot_order || a->num_rot != b->num_rot ||
            memcmp(a->offset, b->offset, sizeof a->offset) != 0)
            return 0;
    }
    return 1;
}

pb_io_code pb_bvh_retarget(const pb_bvh *src, const pb_bvh *target, const pb_retarget_opts *opts,
                           pb_bvh *out, pb_io_error *err)
{
    io_clear_err(err);
    if (!src || !target || !out)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "%s is NULL",
                          !src      ? "src"
                          : !target ? "target"
                                    : "out");
    if (out == src || out == target)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "out is the %s", out == src ? "source" : "target");
    if (src->num_frames == 0 || !src->rot_w || !src->pos_x)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "the source clip has no frames");
    skel ks, kt;
    plan pl;
    pb_bvh nb;
    memset(&nb, 0, sizeof nb);
    float *buf = NULL;
    pb_io_code code = make_plan(src, target, opts, &ks, &kt, &pl, err);
    if (code)
        goto done;
    code = pb_bvh_new_motion(target, src->num_frames, src->frame_time, &nb, err);
    if (code)
        goto done;
    const size_t F = src->num_frames, Js = src->num_joints, Jt = target->num_joints;
    /* source model space: 7 arrays of F x Js; target model rotations: 4 of F x Jt */
    buf = malloc((7 * F * Js + 4 * F * Jt) * sizeof(float));
    if (!buf) {
        code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory for %zu frames", F);
        goto done;
    }
    float *g[7], *h[4];
    for (int c = 0; c < 7; c++)
        g[c] = buf + (size_t)c * F * Js;
    for (int c = 0; c < 4; c++)
        h[c] = buf + 7 * F * Js + (size_t)c * F * Jt;
    pb_cpose sl = {{src->rot_w, src->rot_x, src->rot_y, src->rot_z},
                   {src->pos_x, src->pos_y, src->pos_z},
                   {NULL, NULL, NULL}};
    pb_pose sm = {{g[0], g[1], g[2], g[3]}, {g[4], g[5], g[6]}, {NULL, NULL, NULL}};
    pb_status st = pb_pose_local_to_model(F, Js, ks.parent, &sl, &sm);
    if (st != PB_OK) {
        code =
            io_set_err(err, PB_IO_ERR_ARG, 0, "source forward kinematics: %s", pb_status_str(st));
        goto done;
    }
    /* target model rotations */
    for (size_t f = 0; f < F; f++)
        for (size_t t = 0; t < Jt; t++) {
            size_t i = f * Jt + t;
            long s = pl.match[t];
            if (s >= 0) {
                size_t si = f * Js + (size_t)s;
                if (is_id(pl.align[t])) {
                    h[0][i] = g[0][si], h[1][i] = g[1][si], h[2][i] = g[2][si], h[3][i] = g[3][si];
                } else {
                    dq gs = {g[0][si], g[1][si], g[2][si], g[3][si]};
                    store_q(h[0], h[1], h[2], h[3], i, dq_mul(gs, pl.align[t]));
                }
            } else if (kt.parent[t] >= 0) {
                size_t pi = f * Jt + (size_t)kt.parent[t];
                h[0][i] = h[0][pi], h[1][i] = h[1][pi], h[2][i] = h[2][pi], h[3][i] = h[3][pi];
            } else {
                h[0][i] = 1.0f, h[1][i] = h[2][i] = h[3][i] = 0.0f;
            }
        }
    pb_cpose tm = {{h[0], h[1], h[2], h[3]}, {NULL, NULL, NULL}, {NULL, NULL, NULL}};
    pb_pose tl = {{nb.rot_w, nb.rot_x, nb.rot_y, nb.rot_z}, {NULL, NULL, NULL}, {NULL, NULL, NULL}};
    st = pb_pose_model_to_local(F, Jt, kt.parent, &tm, &tl);
    if (st != PB_OK) {
        code = io_set_err(err, PB_IO_ERR_ARG, 0, "target model to local: %s", pb_status_str(st));
        goto done;
    }
    /* exact local rotations where the chain corresponds; rest where unmatched */
    for (size_t t = 0; t < Jt; t++) {
        long s = pl.match[t], p = kt.parent[t];
        if (s < 0) {
            for (size_t f = 0; f < F; f++) {
                size_t i = f * Jt + t;
                nb.rot_w[i] = 1.0f, nb.rot_x[i] = nb.rot_y[i] = nb.rot_z[i] = 0.0f;
            }
            continue;
        }
        if (!pl.direct[t])
            continue;
        dq ap = p >= 0 ? pl.align[p] : DQ_ID, at = pl.align[t];
        int copy = is_id(ap) && is_id(at);
        dq api = dq_conj(ap);
        for (size_t f = 0; f < F; f++) {
            size_t i = f * Jt + t, si = f * Js + (size_t)s;
            if (copy) {
                nb.rot_w[i] = src->rot_w[si], nb.rot_x[i] = src->rot_x[si];
                nb.rot_y[i] = src->rot_y[si], nb.rot_z[i] = src->rot_z[si];
            } else {
                store_q(nb.rot_w, nb.rot_x, nb.rot_y, nb.rot_z, i,
                        dq_mul(dq_mul(api, load_q(src, si)), at));
            }
        }
    }
    /* positions: the root pair's translation, matched displacements */
    for (size_t t = 0; t < Jt; t++) {
        const pb_bvh_joint *tj = &target->joints[t];
        unsigned mask = pos_mask(tj);
        float *pt[3] = {nb.pos_x, nb.pos_y, nb.pos_z};
        if ((long)t == pl.holder) {
            const long s = pl.s_root, tr = pl.t_root;
            const int root_itself = (long)t == tr && kt.parent[t] < 0;
            for (size_t f = 0; f < F; f++) {
                size_t i = f * Jt + t, si = f * Js + (size_t)s;
                for (int c = 0; c < 3; c++) {
                    if (!(mask & (1u << c)))
                        continue;
                    double w = pl.k * (double)g[4 + c][si];
                    pt[c][i] = root_itself ? (float)w
                                           : (float)((double)tj->offset[c] + (w - kt.rest[tr][c]));
                }
            }
            continue;
        }
        long s = pl.match[t], p = kt.parent[t];
        if (s < 0 || !mask || !pl.direct[t] || p < 0)
            continue;
        const pb_bvh_joint *sj = &src->joints[s];
        dq api = dq_conj(pl.align[p]);
        int copy =
            is_id(api) && pl.k == 1.0 && memcmp(sj->offset, tj->offset, sizeof tj->offset) == 0;
        const float *ps[3] = {src->pos_x, src->pos_y, src->pos_z};
        for (size_t f = 0; f < F; f++) {
            size_t i = f * Jt + t, si = f * Js + (size_t)s;
            double d[3], r[3];
            for (int c = 0; c < 3; c++)
                d[c] = (double)ps[c][si] - (double)sj->offset[c];
            dq_rot(api, d, r);
            for (int c = 0; c < 3; c++)
                if (mask & (1u << c))
                    pt[c][i] = copy ? ps[c][si] : (float)((double)tj->offset[c] + pl.k * r[c]);
        }
    }
    /* the same skeleton: the source's angles and digits */
    if (is_same(src, target, &pl)) {
        if (src->euler_deg) {
            nb.euler_deg = malloc(3 * F * Js * sizeof(double));
            if (!nb.euler_deg) {
                code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
                goto done;
            }
            memcpy(nb.euler_deg, src->euler_deg, 3 * F * Js * sizeof(double));
        }
        if (src->decimals && src->num_channels) {
            nb.decimals = malloc(F * src->num_channels);
            if (!nb.decimals) {
                code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
                goto done;
            }
            memcpy(nb.decimals, src->decimals, F * src->num_channels);
        }
    }
    *out = nb;
    memset(&nb, 0, sizeof nb);
done:
    pb_bvh_free(&nb);
    free(buf);
    skel_free(&ks);
    skel_free(&kt);
    plan_free(&pl);
    return code;
}
