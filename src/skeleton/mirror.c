/* Mirroring at the file level: the left/right table of a skeleton's joint
 * names (pb_joint_mirror_table, pb_bvh_mirror_table) and a whole BVH clip
 * reflected with its skeleton (pb_bvh_mirror). The name families are
 * joint_names.c's; the motion is pb_clip_mirror's. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_internal.h"
#include "io_internal.h"
#include "joint_names.h"

/* ------------------------------------------------------------ the table */

static pb_io_code find_named(jn_index *ix, const char *name, long *out, pb_io_error *err)
{
    long i = name ? jn_index_find(ix, name) : -1;
    if (!name)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "explicit pair: a name is NULL");
    if (i == -1)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "explicit pair: no joint named '%s'", name);
    if (i == -2)
        return io_set_err(err, PB_IO_ERR_ARG, 0,
                          "explicit pair: several joints are named '%s' (ignoring case)", name);
    *out = i;
    return PB_IO_OK;
}

pb_io_code pb_joint_mirror_table(size_t n, const char *const *names, const pb_joint_pair *pairs,
                                 size_t num_pairs, int32_t *mirror, pb_io_error *err)
{
    io_clear_err(err);
    if ((n && (!names || !mirror)) || (num_pairs && !pairs))
        return io_set_err(err, PB_IO_ERR_ARG, 0, "%s is NULL",
                          !names    ? "names"
                          : !mirror ? "mirror"
                                    : "pairs");
    if (n > (size_t)INT32_MAX)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "%zu joints: too many", n);
    for (size_t j = 0; j < n; j++)
        if (!names[j])
            return io_set_err(err, PB_IO_ERR_ARG, 0, "the name of joint %zu is NULL", j);
    int32_t *m = malloc((n ? n : 1) * sizeof *m);
    jn_index ix; /* the names by their text: each look-up a few probes */
    if (!m || jn_index_init(&ix, names, n) != 0) {
        free(m);
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    }
    for (size_t j = 0; j < n; j++)
        m[j] = -1;
    pb_io_code code = PB_IO_OK;
    /* explicit pairs first */
    for (size_t p = 0; p < num_pairs && code == PB_IO_OK; p++) {
        long a = 0, b = 0;
        code = find_named(&ix, pairs[p].a, &a, err);
        if (code == PB_IO_OK)
            code = find_named(&ix, pairs[p].b, &b, err);
        if (code != PB_IO_OK)
            break;
        if (m[a] != -1 || m[b] != -1) {
            long t = m[a] != -1 ? a : b;
            code = io_set_err(err, PB_IO_ERR_ARG, 0,
                              "explicit pair %s=%s: joint '%s' is already paired with '%s'",
                              pairs[p].a, pairs[p].b, names[t], names[m[t]]);
            break;
        }
        m[a] = (int32_t)b;
        m[b] = (int32_t)a;
    }
    /* then the name families */
    char cp[512], back[512];
    for (size_t j = 0; j < n && code == PB_IO_OK; j++) {
        if (m[j] != -1)
            continue;
        jn_side_kind kind = jn_counterpart(names[j], cp, sizeof cp);
        long c = kind == JN_NONE ? -1 : jn_index_find(&ix, cp);
        if (kind == JN_NONE || (kind == JN_WEAK && c == -1)) {
            m[j] = (int32_t)j; /* centre line */
            continue;
        }
        if (c == -1) {
            code = io_set_err(err, PB_IO_ERR_ARG, 0,
                              "joint '%s' has no counterpart '%s' (give one with an explicit "
                              "pair, '%s=%s' for a centre joint)",
                              names[j], cp, names[j], names[j]);
            break;
        }
        if (c == -2) {
            code = io_set_err(err, PB_IO_ERR_ARG, 0,
                              "joint '%s': several joints are named '%s' (ignoring case)", names[j],
                              cp);
            break;
        }
        /* the counterpart's own family must lead back here */
        jn_side_kind bk = jn_counterpart(names[c], back, sizeof back);
        if ((size_t)c == j || bk == JN_NONE || jn_index_find(&ix, back) != (long)j) {
            code = io_set_err(err, PB_IO_ERR_ARG, 0,
                              "joint '%s' pairs by name with '%s', but '%s' does not pair back "
                              "(give an explicit pair)",
                              names[j], names[c], names[c]);
            break;
        }
        if (m[c] != -1) {
            code = io_set_err(err, PB_IO_ERR_ARG, 0,
                              "joint '%s' pairs by name with '%s', which an explicit pair gives "
                              "to '%s'",
                              names[j], names[c], names[m[c]]);
            break;
        }
        m[j] = (int32_t)c;
        m[c] = (int32_t)j;
    }
    if (code == PB_IO_OK)
        memcpy(mirror, m, n * sizeof *m);
    jn_index_free(&ix);
    free(m);
    return code;
}

pb_io_code pb_bvh_mirror_table(const pb_bvh *bvh, const pb_joint_pair *pairs, size_t num_pairs,
                               int32_t *mirror, pb_io_error *err)
{
    io_clear_err(err);
    if (!bvh || (bvh->num_joints && (!bvh->joints || !mirror)))
        return io_set_err(err, PB_IO_ERR_ARG, 0, "%s is NULL", !bvh ? "bvh" : "mirror");
    const size_t J = bvh->num_joints;
    const char **names = malloc((J ? J : 1) * sizeof *names);
    if (!names)
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    for (size_t j = 0; j < J; j++)
        names[j] = bvh->joints[j].name;
    pb_io_code code = pb_joint_mirror_table(J, names, pairs, num_pairs, mirror, err);
    free(names);
    return code;
}

/* ------------------------------------------------------------ the clip */

static const char *jname(const pb_bvh *b, long j) { return j < 0 ? "(none)" : b->joints[j].name; }

/* The table against src's skeleton: an involution that respects the
 * hierarchy, between joints with the same channels and End Site counts. */
static pb_io_code check_table(const pb_bvh *src, const int32_t *m, pb_io_error *err)
{
    const size_t J = src->num_joints;
    for (size_t j = 0; j < J; j++) {
        if (m[j] < 0 || (size_t)m[j] >= J)
            return io_set_err(err, PB_IO_ERR_ARG, 0,
                              "mirror table: joint %zu ('%s') -> %ld: not a joint", j,
                              jname(src, (long)j), (long)m[j]);
        if ((size_t)m[m[j]] != j)
            return io_set_err(err, PB_IO_ERR_ARG, 0,
                              "mirror table is not an involution: '%s' -> '%s' but '%s' -> '%s'",
                              jname(src, (long)j), jname(src, m[j]), jname(src, m[j]),
                              jname(src, m[m[j]]));
    }
    size_t *ends = calloc(J ? J : 1, sizeof *ends);
    if (!ends)
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    for (size_t e = 0; e < src->num_end_sites; e++) {
        int32_t p = src->end_sites[e].parent;
        if (p < 0 || (size_t)p >= J) {
            free(ends);
            return io_set_err(err, PB_IO_ERR_ARG, 0, "End Site %zu: parent %ld is not a joint", e,
                              (long)p);
        }
        ends[p]++;
    }
    pb_io_code code = PB_IO_OK;
    for (size_t j = 0; j < J && code == PB_IO_OK; j++) {
        const pb_bvh_joint *a = &src->joints[j], *b = &src->joints[m[j]];
        long pa = a->parent, pb = b->parent;
        long mpa = pa < 0 ? -1 : (long)m[pa];
        if (pb != mpa)
            code = io_set_err(err, PB_IO_ERR_ARG, 0,
                              "'%s' and '%s' are paired but their parents '%s' and '%s' are "
                              "not",
                              a->name, b->name, jname(src, pa), jname(src, pb));
        else if (a->num_channels != b->num_channels ||
                 memcmp(a->channels, b->channels, a->num_channels) != 0)
            code = io_set_err(err, PB_IO_ERR_ARG, 0,
                              "'%s' and '%s' are paired but have different channel lists", a->name,
                              b->name);
        else if (ends[j] != ends[m[j]])
            code = io_set_err(err, PB_IO_ERR_ARG, 0,
                              "'%s' and '%s' are paired but have %zu and %zu End Sites", a->name,
                              b->name, ends[j], ends[m[j]]);
    }
    free(ends);
    return code;
}

/* src's End Sites by parent, in file order: those of joint j are
 * order[start[j] .. start[j + 1] - 1] (start: J + 1 entries); one pass, so
 * that mirroring is linear in the End Sites as well. 0, or -1 when out of
 * memory. (Parents checked by check_table.) */
static int end_sites_by_joint(const pb_bvh *b, size_t **start_out, size_t **order_out)
{
    const size_t J = b->num_joints, E = b->num_end_sites;
    size_t *start = calloc(J + 1, sizeof *start), *order = malloc((E ? E : 1) * sizeof *order);
    size_t *fill = calloc(J ? J : 1, sizeof *fill);
    if (!start || !order || !fill) {
        free(start);
        free(order);
        free(fill);
        return -1;
    }
    for (size_t e = 0; e < E; e++)
        start[b->end_sites[e].parent + 1]++;
    for (size_t j = 0; j < J; j++)
        start[j + 1] += start[j];
    for (size_t e = 0; e < E; e++) {
        size_t p = (size_t)b->end_sites[e].parent;
        order[start[p] + fill[p]++] = e;
    }
    free(fill);
    *start_out = start;
    *order_out = order;
    return 0;
}

pb_io_code pb_bvh_mirror(const pb_bvh *src, const int32_t *mirror, pb_mirror_plane plane,
                         pb_bvh *out, pb_io_error *err)
{
    io_clear_err(err);
    if (!src || !out)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "%s is NULL", src ? "out" : "src");
    if ((unsigned)plane > 2u)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "unknown mirror plane %d", (int)plane);
    const size_t J = src->num_joints, F = src->num_frames;
    if (J == 0 || !src->joints)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "the clip has no joints");
    if (F > 0 && !src->rot_w)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "the clip has no motion arrays");
    pb_io_code lay = bvh_check_channels(src, err); /* decimals are copied by it */
    if (lay != PB_IO_OK)
        return lay;
    int32_t *own = NULL;
    if (!mirror) {
        own = malloc(J * sizeof *own);
        if (!own)
            return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
        pb_io_code c = pb_bvh_mirror_table(src, NULL, 0, own, err);
        if (c != PB_IO_OK) {
            free(own);
            return c;
        }
        mirror = own;
    }
    pb_io_code code = check_table(src, mirror, err);
    pb_bvh nb;
    memset(&nb, 0, sizeof nb);
    if (code == PB_IO_OK)
        code = pb_bvh_new_motion(src, F, src->frame_time, &nb, err);
    if (code != PB_IO_OK) {
        free(own);
        return code;
    }
    const int n = (int)plane;
    /* the skeleton: OFFSETs and End Sites reflected and swapped */
    for (size_t j = 0; j < J; j++)
        for (int k = 0; k < 3; k++) {
            float v = src->joints[mirror[j]].offset[k];
            nb.joints[j].offset[k] = k == n ? -v : v;
        }
    /* End Site e, the k-th of joint p, gets the k-th of mirror[p] (which
     * has as many: check_table) */
    size_t *start = NULL, *order = NULL, *rank = NULL;
    if (nb.num_end_sites > 0 &&
        (end_sites_by_joint(src, &start, &order) != 0 || !(rank = calloc(J, sizeof *rank))))
        code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    for (size_t e = 0; e < nb.num_end_sites && code == PB_IO_OK; e++) {
        size_t p = (size_t)nb.end_sites[e].parent;
        size_t se = order[start[mirror[p]] + rank[p]++];
        for (int c = 0; c < 3; c++) {
            float v = src->end_sites[se].offset[c];
            nb.end_sites[e].offset[c] = c == n ? -v : v;
        }
    }
    free(start);
    free(order);
    free(rank);
    if (code == PB_IO_OK && F > 0) {
        pb_clip sc = pb_bvh_clip(src), dc = pb_bvh_clip(&nb);
        pb_status st = pb_clip_mirror(&sc, mirror, plane, &dc);
        if (st != PB_OK)
            code = io_set_err(err, PB_IO_ERR_ARG, 0, "mirroring failed: %s", pb_status_str(st));
    }
    /* source angles: an angle about the normal axis kept, the others
     * negated (M Rot_a(t) M = Rot_a(t) for a = n, Rot_a(-t) otherwise), in
     * the same channel order, since paired joints share their channels */
    if (code == PB_IO_OK && F > 0 && src->euler_deg) {
        nb.euler_deg = malloc(3 * F * J * sizeof *nb.euler_deg);
        if (!nb.euler_deg)
            code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory for the angles");
        /* per joint, which of its three angles keep their sign */
        unsigned char *keep = code == PB_IO_OK ? malloc(3 * J) : NULL;
        if (code == PB_IO_OK && !keep)
            code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory for the angles");
        for (size_t j = 0; j < J && code == PB_IO_OK; j++) {
            int axes[3] = {0, 1, 2};
            pb_euler_order_axes((pb_euler_order)src->joints[j].rot_order, axes);
            for (int k = 0; k < 3; k++)
                keep[3 * j + (size_t)k] = axes[k] == n;
        }
        for (size_t f = 0; f < F && code == PB_IO_OK; f++) /* frame-major, as stored */
            for (size_t j = 0; j < J; j++) {
                const double *s = src->euler_deg + 3 * (f * J + (size_t)mirror[j]);
                double *d = nb.euler_deg + 3 * (f * J + j);
                for (int k = 0; k < 3; k++)
                    d[k] = keep[3 * j + (size_t)k] ? s[k] : -s[k];
            }
        free(keep);
    }
    if (code == PB_IO_OK && F > 0 && src->decimals && src->num_channels) {
        const size_t C = src->num_channels;
        nb.decimals = malloc(F * C);
        if (!nb.decimals)
            code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory for the decimals");
        for (size_t f = 0; f < F && code == PB_IO_OK; f++)
            for (size_t j = 0; j < J; j++)
                memcpy(nb.decimals + f * C + src->joints[j].first_channel,
                       src->decimals + f * C + src->joints[mirror[j]].first_channel,
                       src->joints[j].num_channels);
    }
    free(own);
    if (code != PB_IO_OK) {
        pb_bvh_free(&nb);
        return code;
    }
    *out = nb;
    return PB_IO_OK;
}
