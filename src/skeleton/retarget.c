/* Retargeting a clip onto another skeleton (posebatch/retarget.h): rest
 * alignments from the two rest poses, source model space by
 * pb_pose_local_to_model, the bend of torso and neck chains of other
 * lengths distributed, target local rotations by pb_pose_model_to_local,
 * root travel scaled by the leg lengths and the root height placed by the
 * feet. Joint matching: retarget_names.c. */
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
    size_t *kid0;       /* joint children of j: kids[kid0[j] .. kid0[j + 1]), file order */
    long *kids;
    double extent; /* largest distance of a rest position from the first joint */
} skel;

static void skel_free(skel *k)
{
    free(k->parent);
    free(k->rest);
    free(k->nchild);
    free(k->child);
    free(k->kid0);
    free(k->kids);
}

static int skel_init(const pb_bvh *b, skel *k)
{
    size_t J = b->num_joints;
    k->J = J;
    k->parent = malloc(J * sizeof *k->parent);
    k->rest = malloc(J * sizeof *k->rest);
    k->nchild = calloc(J, sizeof *k->nchild);
    k->child = calloc(J, sizeof *k->child);
    k->kid0 = calloc(J + 1, sizeof *k->kid0);
    k->kids = malloc((J ? J : 1) * sizeof *k->kids);
    if (!k->parent || !k->rest || !k->nchild || !k->child || !k->kid0 || !k->kids)
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
        if (p >= 0)
            k->kid0[p + 1]++;
        double d[3] = {k->rest[j][0] - k->rest[0][0], k->rest[j][1] - k->rest[0][1],
                       k->rest[j][2] - k->rest[0][2]};
        double n = norm3(d);
        if (n > k->extent)
            k->extent = n;
    }
    for (size_t j = 0; j < J; j++) /* counts to starts; then fill in file order */
        k->kid0[j + 1] += k->kid0[j];
    for (size_t j = 0; j < J; j++)
        if (k->parent[j] >= 0)
            k->kids[k->kid0[k->parent[j]]++] = (long)j;
    for (size_t j = J; j > 0; j--) /* back to starts */
        k->kid0[j] = k->kid0[j - 1];
    k->kid0[0] = 0;
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

/* the rest length of the path from j up to its ancestor anc (bone lengths
 * summed) */
static double path_length(const skel *k, long j, long anc)
{
    double len = 0.0;
    for (; j >= 0 && j != anc; j = k->parent[j]) {
        long p = k->parent[j];
        if (p < 0)
            break;
        double d[3] = {k->rest[j][0] - k->rest[p][0], k->rest[j][1] - k->rest[p][1],
                       k->rest[j][2] - k->rest[p][2]};
        len += norm3(d);
    }
    return len;
}

/* ------------------------------------------------------------ plan */

/* A distributed chain (posebatch/retarget.h, "Chains"): target joints
 * t[0] .. t[m - 1] (the end), below `start`; source bones u[0] -> u[1] ...
 * u[n - 1] -> src_end, u[0] the joint start plays; w[k * n + i]: the share
 * of source bone i in the target bone that t[k] turns (k < m - 1). */
typedef struct chain {
    long start, m, n, src_end;
    long *t, *u;
    double *w;
    dq a_start, a_end; /* rest alignments of start and of the end */
} chain;

typedef struct plan {
    long *match;           /* target -> source, -1 */
    rt_key *key;           /* target joints' name keys */
    dq *align;             /* per target joint (identity where unmatched) */
    unsigned char *direct; /* local rotation straight from the source's */
    long t_root, s_root;   /* the root pair */
    long holder;           /* target joint taking the root translation, -1 */
    double k;              /* translation scale */
    int legs;              /* k is the leg-length ratio (else hip heights) */
    long *feet_t, *feet_s; /* the foot pairs placing the root height */
    size_t nfeet;
    int ground;           /* place the root height by the feet */
    struct chain *chains; /* the distributed chains */
    size_t nchains;
    long *cidx; /* per target joint: its chain, -1 */
} plan;

static void plan_free(plan *p)
{
    free(p->match);
    free(p->key);
    free(p->align);
    free(p->direct);
    free(p->feet_t);
    free(p->feet_s);
    for (size_t c = 0; c < p->nchains; c++) {
        free(p->chains[c].t);
        free(p->chains[c].u);
        free(p->chains[c].w);
    }
    free(p->chains);
    free(p->cidx);
}

/* ------------------------------------------------------------ alignment */

typedef struct aligner {
    const skel *ks, *kt;
    const plan *pl;
    long *stack;  /* target joints, kt->J */
    long *chains; /* kt->J */
} aligner;

/* Pushes j's joint children on the stack so that they pop in file order;
 * returns the new stack size. */
static long push_kids(const skel *k, long *stack, long sp, long j)
{
    for (size_t i = k->kid0[j + 1]; i-- > k->kid0[j];)
        stack[sp++] = k->kids[i];
    return sp;
}

/* t's chains against source joint s, in file order, into a->chains: its
 * matched descendants without a matched joint between whose match is below
 * s (not s); one of zero length in either skeleton gives way to its own. */
static long collect_chains(aligner *a, long t, long s)
{
    const skel *kt = a->kt, *ks = a->ks;
    const long *match = a->pl->match;
    const double eps_t = 1e-6 * kt->extent + 1e-30, eps_s = 1e-6 * ks->extent + 1e-30;
    long n = 0, sp = push_kids(kt, a->stack, 0, t);
    while (sp > 0) {
        long u = a->stack[--sp], su = match[u];
        if (su >= 0) {
            if (su == s || !below(ks, su, s))
                continue;
            double dt[3], ds[3];
            for (int c = 0; c < 3; c++) {
                dt[c] = kt->rest[u][c] - kt->rest[t][c];
                ds[c] = ks->rest[su][c] - ks->rest[s][c];
            }
            if (norm3(dt) > eps_t && norm3(ds) > eps_s) {
                a->chains[n++] = u;
                continue;
            }
        }
        sp = push_kids(kt, a->stack, sp, u);
    }
    return n;
}

/* The chains an alignment uses: n of them; the primary pu (the first
 * side-less one, else the first); the secondary sa - sb (left minus right
 * where both are there and are not pu), else sa - t (sb = -1: the other of
 * the first two). */
typedef struct pick {
    long n, pu, sa, sb;
} pick;

static pick pick_chains(aligner *a, long t, long s)
{
    const plan *pl = a->pl;
    pick k = {collect_chains(a, t, s), -1, -1, -1};
    long first = -1, second = -1, center = -1, left = -1, right = -1;
    for (long i = 0; i < k.n; i++) {
        long u = a->chains[i];
        char side = pl->key[u].side;
        if (first < 0)
            first = u;
        else if (second < 0)
            second = u;
        if (!side && center < 0)
            center = u;
        if (side == 'L' && left < 0)
            left = u;
        if (side == 'R' && right < 0)
            right = u;
    }
    k.pu = center >= 0 ? center : first;
    if (left >= 0 && right >= 0 && left != k.pu && right != k.pu)
        k.sa = left, k.sb = right;
    else
        k.sa = k.pu == first ? second : first;
    return k;
}

/* A pick's primary and secondary directions in rest positions r, joints
 * mapped by map (NULL: the joints themselves), from joint t; q is 0 for
 * a pick of one chain (sa < 0) */
static void pick_dirs(const pick *k, const double (*r)[3], const long *map, long t, double p[3],
                      double q[3])
{
    long pu = map ? map[k->pu] : k->pu;
    for (int c = 0; c < 3; c++)
        p[c] = r[pu][c] - r[t][c], q[c] = 0.0;
    if (k->sa < 0) /* one chain (n == 1): no secondary direction */
        return;
    long sa = map ? map[k->sa] : k->sa, sb = k->sb < 0 ? t : map ? map[k->sb] : k->sb;
    for (int c = 0; c < 3; c++)
        q[c] = r[sa][c] - r[sb][c];
}

/* The rest alignment of target joint t played by source joint s (the
 * rules in posebatch/retarget.h); `leaf` where t has no chains and no
 * single children to align. */
static dq align_one(aligner *a, long t, long s, dq leaf)
{
    const skel *kt = a->kt, *ks = a->ks;
    const double eps_t = 1e-6 * kt->extent + 1e-30, eps_s = 1e-6 * ks->extent + 1e-30;
    pick k = pick_chains(a, t, s);
    if (k.n >= 1) {
        double pt[3], ps[3], st[3], ss[3];
        pick_dirs(&k, (const double(*)[3])kt->rest, NULL, t, pt, st);
        pick_dirs(&k, (const double(*)[3])ks->rest, a->pl->match, s, ps, ss);
        return k.n == 1 ? minrot(pt, ps) : frame_rot(pt, st, ps, ss);
    }
    /* a leaf of the matching */
    if (kt->nchild[t] == 1 && ks->nchild[s] == 1 && norm3(kt->child[t]) > eps_t &&
        norm3(ks->child[s]) > eps_s)
        return minrot(kt->child[t], ks->child[s]);
    return leaf;
}

/* A[t] for each matched t, in file order (ancestors first); the leaf rule
 * falls back on the nearest matched ancestor's. */
static void compute_alignments(aligner *a, plan *pl)
{
    const skel *kt = a->kt;
    for (size_t t = 0; t < kt->J; t++) {
        pl->align[t] = DQ_ID;
        if (pl->match[t] < 0)
            continue;
        long m = kt->parent[t];
        while (m >= 0 && pl->match[m] < 0)
            m = kt->parent[m];
        pl->align[t] = align_one(a, (long)t, pl->match[t], m >= 0 ? pl->align[m] : DQ_ID);
    }
}

/* ------------------------------------------------------------ legs and feet */

/* k from the legs: per side (L, R) the first matched target joint of the
 * upleg family and the first matched foot-family joint of that side below
 * it whose match is below the upleg's match; the target's path lengths
 * over the source's, both sides summed. 0 when no side has such a pair. */
static int leg_ratio(const skel *ks, const skel *kt, const plan *pl, double *k)
{
    double lt = 0.0, ls = 0.0;
    int sides = 0;
    for (int i = 0; i < 2; i++) {
        const char side = i ? 'R' : 'L';
        long u = -1, f = -1;
        for (size_t t = 0; t < kt->J && u < 0; t++)
            if (pl->match[t] >= 0 && pl->key[t].side == side &&
                rt_family_is(pl->key[t].family, "upleg"))
                u = (long)t;
        for (size_t t = 0; u >= 0 && t < kt->J && f < 0; t++)
            if (pl->match[t] >= 0 && pl->key[t].side == side &&
                rt_family_is(pl->key[t].family, "foot") && (long)t != u && below(kt, (long)t, u) &&
                pl->match[t] != pl->match[u] && below(ks, pl->match[t], pl->match[u]))
                f = (long)t;
        if (f < 0)
            continue;
        double a = path_length(kt, f, u), b = path_length(ks, pl->match[f], pl->match[u]);
        if (!(a > 1e-6 * kt->extent) || !(b > 1e-6 * ks->extent))
            continue;
        lt += a, ls += b, sides++;
    }
    if (!sides)
        return 0;
    *k = lt == ls ? 1.0 : lt / ls;
    return 1;
}

/* the foot pairs: matched target joints of the foot and toe families */
static int find_feet(const skel *kt, plan *pl)
{
    pl->feet_t = malloc(kt->J * sizeof *pl->feet_t);
    pl->feet_s = malloc(kt->J * sizeof *pl->feet_s);
    if (!pl->feet_t || !pl->feet_s)
        return -1;
    for (size_t t = 0; t < kt->J; t++)
        if (pl->match[t] >= 0 &&
            (rt_family_is(pl->key[t].family, "foot") || rt_family_is(pl->key[t].family, "toe"))) {
            pl->feet_t[pl->nfeet] = (long)t;
            pl->feet_s[pl->nfeet++] = pl->match[t];
        }
    return 0;
}

/* ------------------------------------------------------------ chains */

/* The source joint a chain ending at target joint e plays: the deepest
 * source joint strictly above the matches of the pinned joints below e
 * (reached through free joints only); -1 if none. */
static long chain_source(aligner *a, const unsigned char *pinned, const unsigned char *is_free,
                         long e)
{
    const skel *kt = a->kt, *ks = a->ks;
    long lca = -1, sp = push_kids(kt, a->stack, 0, e), n = 0;
    while (sp > 0) {
        long u = a->stack[--sp];
        if (pinned[u]) {
            long su = a->pl->match[u];
            a->chains[n++] = su;
            if (lca < 0)
                lca = su;
            while (lca >= 0 && !below(ks, su, lca))
                lca = ks->parent[lca];
            if (lca < 0)
                return -1;
        } else if (is_free[u]) {
            sp = push_kids(kt, a->stack, sp, u);
        }
    }
    for (long i = 0; i < n && lca >= 0; i++)
        if (a->chains[i] == lca) {
            lca = ks->parent[lca];
            break;
        }
    return lca;
}

/* The bone lengths along a path of m joints p[0] .. p[m - 1] below `top`:
 * len[j] = |rest(p[j]) - rest(p[j - 1])|, p[-1] = top; all 1 where they
 * add up to (nearly) zero. Returns the total. */
static double bone_lengths(const skel *k, long top, const long *p, long m, double *len)
{
    double total = 0.0;
    for (long j = 0; j < m; j++) {
        long a = j ? p[j - 1] : top;
        double d[3] = {k->rest[p[j]][0] - k->rest[a][0], k->rest[p[j]][1] - k->rest[a][1],
                       k->rest[p[j]][2] - k->rest[a][2]};
        total += len[j] = norm3(d);
    }
    if (!(total > 1e-6 * k->extent)) {
        for (long j = 0; j < m; j++)
            len[j] = 1.0;
        total = (double)m;
    }
    return total;
}

/* The chain c's target joints (c->start, c->m, c->src_end set; the last
 * joint `end`) and source bones (u[0] = src_start, played by start), and the
 * weights: the target bone turned by t[k] spans [a, b] of the target
 * path's length (both normalized), source bone i spans [a_i, b_i]; t[k]'s
 * share of bone i is |[a, b] ^ [a_i, b_i]| / (b - a); a bone of zero
 * length takes the source bone at a (the last one at the end). */
static int chain_weights(const skel *ks, const skel *kt, chain *c, long end, long src_start)
{
    long n = 0;
    for (long u = c->src_end; u != src_start; u = ks->parent[u])
        n++;
    c->n = n;
    c->t = malloc((size_t)c->m * sizeof *c->t);
    c->u = malloc((size_t)(n + 1) * sizeof *c->u);
    c->w = calloc((size_t)(c->m * n) + 1, sizeof *c->w);
    double *lt = malloc((size_t)c->m * sizeof *lt), *ls = malloc((size_t)(n + 1) * sizeof *ls);
    long *path = malloc((size_t)(n + 1) * sizeof *path);
    if (!c->t || !c->u || !c->w || !lt || !ls || !path) {
        free(lt), free(ls), free(path);
        return -1;
    }
    for (long j = c->m - 1, t = end; j >= 0; j--, t = kt->parent[t])
        c->t[j] = t;
    for (long i = n - 1, u = c->src_end; i >= 0; i--, u = ks->parent[u])
        path[i] = u; /* path[i]: the end of source bone i */
    c->u[0] = src_start;
    for (long i = 1; i < n; i++)
        c->u[i] = path[i - 1];
    double tt = bone_lengths(kt, c->start, c->t, c->m, lt);
    double ts = n ? bone_lengths(ks, src_start, path, n, ls) : 1.0;
    double a = lt[0] / tt; /* t[k] turns target bone k + 1 */
    for (long k = 0; k + 1 < c->m; k++) {
        double b = a + lt[k + 1] / tt, ai = 0.0;
        for (long i = 0; i < n; i++) {
            double bi = i + 1 < n ? ai + ls[i] / ts : 1.0;
            double lo = a > ai ? a : ai, hi = b < bi ? b : bi;
            if (b > a) {
                if (hi > lo)
                    c->w[k * n + i] = (hi - lo) / (b - a);
            } else if ((a < bi || i + 1 == n) && !(a < ai)) {
                c->w[k * n + i] = 1.0;
            }
            ai = bi;
        }
        a = b;
    }
    free(lt), free(ls), free(path);
    return 0;
}

/* The chains whose bend is distributed (posebatch/retarget.h, "Chains").
 * Pinned: matched joints but those of the torso and neck families with a
 * matched joint below them (the root pair always). Free: the other joints
 * below the root pair with a pinned joint below them, reached through free
 * joints. A chain: a path of free joints from one below a pinned joint or a
 * chain's end, to its end: a free joint with a pinned child or with two or
 * more children leading to pinned joints. */
static int plan_chains(aligner *a, plan *pl)
{
    const skel *kt = a->kt, *ks = a->ks;
    const size_t J = kt->J;
    unsigned char *pinned = calloc(J, 1), *reach = calloc(J, 1), *is_free = calloc(J, 1);
    unsigned char *in_root = calloc(J, 1);
    long *ncon = calloc(J, sizeof *ncon), *con = malloc(J * sizeof *con);
    long *sigma = malloc(J * sizeof *sigma);
    dq *sa = malloc(J * sizeof *sa); /* the alignment going with sigma */
    pl->chains = calloc(J, sizeof *pl->chains);
    int rc = -1;
    if (!pinned || !reach || !is_free || !in_root || !ncon || !con || !sigma || !sa || !pl->chains)
        goto done;
    for (size_t t = 0; t < J; t++) {
        long p = kt->parent[t];
        in_root[t] = (long)t == pl->t_root || (p >= 0 && in_root[p]);
        pl->cidx[t] = -1;
    }
    for (size_t i = J; i-- > 0;) { /* children before parents */
        long p = kt->parent[i];
        int bends = rt_family_bends(pl->key[i].family);
        pinned[i] = pl->match[i] >= 0 && ((long)i == pl->t_root || !bends || !reach[i]);
        if (p >= 0 && (pinned[i] || reach[i])) {
            reach[p] = 1;
            ncon[p]++;
            con[p] = (long)i;
        }
    }
    for (size_t t = 0; t < J; t++) {
        is_free[t] = in_root[t] && !pinned[t] && reach[t];
        sigma[t] = pinned[t] ? pl->match[t] : -1;
        sa[t] = pl->align[t];
    }
    for (size_t t = 0; t < J; t++) {
        long p = kt->parent[t];
        /* the first joint of a chain: below a pinned joint or a chain's end */
        if (!is_free[t] || (is_free[p] && !(ncon[p] >= 2 || pinned[con[p]])))
            continue;
        long e = (long)t, m = 1;
        while (!(ncon[e] >= 2 || pinned[con[e]]))
            e = con[e], m++;
        long s0 = sigma[p], se = chain_source(a, pinned, is_free, e);
        int valid = s0 >= 0 && se >= 0 && below(ks, se, s0);
        /* one to one: the chain's joints matched to the source's path */
        int same = valid;
        long u = se;
        for (long j = e; same && j != p; j = kt->parent[j], u = ks->parent[u])
            same = u != s0 && pl->match[j] == u;
        same = same && u == s0;
        sigma[e] = valid ? se : pl->match[e];
        if (!valid || same)
            continue;
        chain *c = &pl->chains[pl->nchains++];
        c->start = p;
        c->m = m;
        c->src_end = se;
        c->a_start = sa[p];
        sa[e] = c->a_end = align_one(a, e, se, sa[p]);
        if (chain_weights(ks, kt, c, e, s0))
            goto done;
        for (long k = 0; k < m; k++)
            pl->cidx[c->t[k]] = (long)(c - pl->chains);
    }
    rc = 0;
done:
    free(pinned), free(reach), free(is_free), free(in_root), free(ncon), free(con), free(sigma);
    free(sa);
    return rc;
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

/* every target joint played by the source joint of its index, with the
 * same OFFSET, an identity alignment, directly, k = 1 */
static int congruent(const pb_bvh *src, const pb_bvh *tgt, const plan *pl)
{
    if (src->num_joints != tgt->num_joints || pl->k != 1.0)
        return 0;
    for (size_t j = 0; j < tgt->num_joints; j++)
        if (pl->match[j] != (long)j || !is_id(pl->align[j]) || !pl->direct[j] || pl->cidx[j] >= 0 ||
            memcmp(src->joints[j].offset, tgt->joints[j].offset, sizeof src->joints[j].offset))
            return 0;
    return 1;
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
    pl->key = malloc(Jt * sizeof *pl->key);
    pl->align = malloc(Jt * sizeof *pl->align);
    pl->direct = calloc(Jt, 1);
    pl->cidx = malloc(Jt * sizeof *pl->cidx);
    aligner al = {ks, kt, pl, malloc(Jt * sizeof(long)), malloc(Jt * sizeof(long))};
    int bad = !pl->key || !pl->align || !pl->direct || !pl->cidx || !al.stack || !al.chains ||
              skel_init(src, ks) || skel_init(tgt, kt);
    if (!bad) {
        for (size_t t = 0; t < Jt; t++)
            rt_name_key(tgt->joints[t].name, &pl->key[t]);
        pl->t_root = pl->s_root = -1;
        for (size_t t = 0; t < Jt && pl->t_root < 0; t++)
            if (pl->match[t] >= 0)
                pl->t_root = (long)t, pl->s_root = pl->match[t];
        compute_alignments(&al, pl);
        bad = plan_chains(&al, pl) || find_feet(kt, pl);
    }
    free(al.stack);
    free(al.chains);
    if (bad)
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    for (size_t t = 0; t < Jt; t++) {
        long s = pl->match[t], p = kt->parent[t];
        if (s < 0 || pl->cidx[t] >= 0 || (p >= 0 && pl->cidx[p] >= 0))
            continue;
        pl->direct[t] =
            p < 0 ? ks->parent[s] < 0 : (pl->match[p] >= 0 && ks->parent[s] == pl->match[p]);
    }
    pl->legs = leg_ratio(ks, kt, pl, &pl->k);
    if (!pl->legs) {
        double hs = hip_height(ks, pl->s_root), ht = hip_height(kt, pl->t_root);
        pl->k = (hs > 1e-6 * ks->extent && ht > 1e-6 * kt->extent) ? ht / hs : 1.0;
        if (hs == ht)
            pl->k = 1.0;
    }
    pl->holder = -1;
    for (long a = pl->t_root; a >= 0; a = kt->parent[a])
        if (has_pos(&tgt->joints[a])) {
            pl->holder = a;
            break;
        }
    pl->ground = pl->nfeet > 0 && pl->holder >= 0 &&
                 (pos_mask(&tgt->joints[pl->holder]) & (1u << PB_BVH_YPOS)) &&
                 !congruent(src, tgt, pl);
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

/* rotation vector (angle times axis) of q, the short way */
static void dq_log(dq q, double v[3])
{
    if (q.w < 0)
        q.w = -q.w, q.x = -q.x, q.y = -q.y, q.z = -q.z;
    double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    double k = n > 0.0 ? 2.0 * atan2(n, q.w) / n : 2.0;
    v[0] = q.x * k, v[1] = q.y * k, v[2] = q.z * k;
}

static dq dq_exp(const double v[3])
{
    double a = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(a > 0.0))
        return DQ_ID;
    double k = sin(0.5 * a) / a;
    dq r = {cos(0.5 * a), v[0] * k, v[1] * k, v[2] * k};
    return r;
}

/* The target model rotations of chain c's joints in one frame (source model
 * rotations g[0..3] from index base; lg: n vectors of scratch): t[k] for
 * k < m - 1 gets G_s(u[0]) exp(sum_i w[k][i] log(G_s(u[0])^-1 G_s(u[i])))
 * A_start, the end G_s(src_end) A_end. */
static void chain_frame(const chain *c, float *const g[7], size_t base, dq *gt, double (*lg)[3])
{
    size_t b0 = base + (size_t)c->u[0];
    dq g0 = {g[0][b0], g[1][b0], g[2][b0], g[3][b0]}, g0i = dq_conj(g0);
    for (long i = 0; i < c->n; i++) {
        size_t bi = base + (size_t)c->u[i];
        dq gi = {g[0][bi], g[1][bi], g[2][bi], g[3][bi]};
        dq_log(dq_mul(g0i, gi), lg[i]);
    }
    for (long k = 0; k + 1 < c->m; k++) {
        double v[3] = {0.0, 0.0, 0.0};
        for (long i = 0; i < c->n; i++) {
            double w = c->w[k * c->n + i];
            v[0] += w * lg[i][0], v[1] += w * lg[i][1], v[2] += w * lg[i][2];
        }
        gt[c->t[k]] = dq_mul(dq_mul(g0, dq_exp(v)), c->a_start);
    }
    size_t be = base + (size_t)c->src_end;
    dq ge = {g[0][be], g[1][be], g[2][be], g[3][be]};
    gt[c->t[c->m - 1]] = dq_mul(ge, c->a_end);
}

/* every target joint matched to the same joint, same channels and offsets,
 * identity alignments, direct, k = 1: the source's angles and digits apply */
static int is_same(const pb_bvh *src, const pb_bvh *tgt, const plan *pl)
{
    if (src->num_channels != tgt->num_channels || !congruent(src, tgt, pl))
        return 0;
    for (size_t j = 0; j < tgt->num_joints; j++) {
        const pb_bvh_joint *a = &src->joints[j], *b = &tgt->joints[j];
        if (a->num_channels != b->num_channels ||
            memcmp(a->channels, b->channels, a->num_channels) != 0 ||
            a->rot_order != b->rot_order || a->num_rot != b->num_rot)
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
    dq *gt = NULL;
    double(*gp)[3] = NULL, (*lg)[3] = NULL;
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
    /* target model rotations (gt: this frame's, in double; a chain's
     * joints all set at its first) */
    gt = malloc(Jt * sizeof *gt);
    lg = malloc((Js + 1) * sizeof *lg);
    if (!gt || !lg) {
        code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
        goto done;
    }
    for (size_t f = 0; f < F; f++)
        for (size_t t = 0; t < Jt; t++) {
            size_t i = f * Jt + t;
            long s = pl.match[t], p = kt.parent[t], ci = pl.cidx[t];
            if (ci >= 0) {
                const chain *c = &pl.chains[ci];
                if (c->t[0] == (long)t)
                    chain_frame(c, g, f * Js, gt, lg);
                store_q(h[0], h[1], h[2], h[3], i, gt[t]);
            } else if (s >= 0) {
                size_t si = f * Js + (size_t)s;
                dq gs = {g[0][si], g[1][si], g[2][si], g[3][si]};
                if (is_id(pl.align[t])) {
                    gt[t] = gs;
                    h[0][i] = g[0][si], h[1][i] = g[1][si], h[2][i] = g[2][si], h[3][i] = g[3][si];
                } else {
                    gt[t] = dq_mul(gs, pl.align[t]);
                    store_q(h[0], h[1], h[2], h[3], i, gt[t]);
                }
            } else if (p >= 0) {
                size_t pi = f * Jt + (size_t)p;
                gt[t] = gt[p];
                h[0][i] = h[0][pi], h[1][i] = h[1][pi], h[2][i] = h[2][pi], h[3][i] = h[3][pi];
            } else {
                gt[t] = DQ_ID;
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
        if (s < 0 && pl.cidx[t] < 0) {
            for (size_t f = 0; f < F; f++) {
                size_t i = f * Jt + t;
                nb.rot_w[i] = 1.0f, nb.rot_x[i] = nb.rot_y[i] = nb.rot_z[i] = 0.0f;
            }
            continue;
        }
        if (s < 0 || !pl.direct[t])
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
    /* the root height: the lowest foot pair's target joint at k times its
     * source joint's height (forward kinematics of the written values, in
     * double; the holder's ancestors are at rest) */
    if (pl.ground) {
        gp = malloc(Jt * sizeof *gp);
        if (!gp) {
            code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
            goto done;
        }
        for (size_t f = 0; f < F; f++) {
            for (size_t t = 0; t < Jt; t++) {
                size_t i = f * Jt + t;
                long p = kt.parent[t];
                dq r = load_q(&nb, i);
                double v[3] = {nb.pos_x[i], nb.pos_y[i], nb.pos_z[i]};
                if (p < 0) {
                    gt[t] = r;
                    memcpy(gp[t], v, sizeof v);
                } else {
                    double o[3];
                    gt[t] = dq_mul(gt[p], r);
                    dq_rot(gt[p], v, o);
                    for (int c = 0; c < 3; c++)
                        gp[t][c] = gp[p][c] + o[c];
                }
            }
            double lt = HUGE_VAL, ls = HUGE_VAL;
            for (size_t n = 0; n < pl.nfeet; n++) {
                double yt = gp[pl.feet_t[n]][1], ys = g[5][f * Js + (size_t)pl.feet_s[n]];
                lt = yt < lt ? yt : lt;
                ls = ys < ls ? ys : ls;
            }
            size_t i = f * Jt + (size_t)pl.holder;
            nb.pos_y[i] = (float)((double)nb.pos_y[i] + (pl.k * ls - lt));
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
    free(gt);
    free(gp);
    free(lg);
    skel_free(&ks);
    skel_free(&kt);
    plan_free(&pl);
    return code;
}
