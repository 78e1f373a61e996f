/* BVH writer: the hierarchy, and the motion as Euler angles in each joint's
 * channel order; numbers by numtext.c. The motion is formatted frame by frame
 * into one output buffer and written in chunks of WRITE_CHUNK bytes. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_internal.h"
#include "numtext.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void indent(FILE *f, size_t depth)
{
    for (size_t i = 0; i < depth; i++)
        fputc('\t', f);
}

/* A name that the reader gives back unchanged. */
static int valid_name(const char *s)
{
    if (!s || !s[0] || is_hspace(s[0]))
        return 0;
    size_t n = 0;
    for (; s[n]; n++) {
        unsigned char c = (unsigned char)s[n];
        if ((c < 0x20 && c != '\t') || c == 0x7f || c == '{' || c == '}')
            return 0;
    }
    return !is_hspace(s[n - 1]);
}

/* Validates the in-memory data the writer relies on. */
pb_bvh_code bvh_validate(const pb_bvh *b, pb_bvh_error *err)
{
    const size_t J = b->num_joints;
    if (J == 0 || !b->joints)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "no joints to write");
    if (J > PB_BVH_MAX_JOINTS)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "more than %d joints", PB_BVH_MAX_JOINTS);
    if (!(b->frame_time >= BVH_MIN_FRAME_TIME && b->frame_time <= FLT_MAX))
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0,
                           "frame time %g s: the reader takes %g s up to float range", b->frame_time,
                           BVH_MIN_FRAME_TIME);
    if (b->num_frames > 0 && b->num_frames > MAX_ELEMS / J)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "too many frames");
    if (b->num_frames > 0 && (!b->rot_w || !b->rot_x || !b->rot_y || !b->rot_z || !b->pos_x ||
                              !b->pos_y || !b->pos_z))
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "motion arrays missing");
    if (b->num_end_sites > 0 && !b->end_sites)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "end sites missing");
    for (size_t j = 0; j < J; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        if (!valid_name(jt->name))
            return bvh_set_err(err, PB_BVH_ERR_ARG, 0,
                           "joint %zu: name empty, with braces, control characters or "
                           "leading/trailing blanks (it would not read back)",
                           j);
        if (jt->parent < -1 || (jt->parent >= 0 && (size_t)jt->parent >= j))
            return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "joint %zu: parent %ld does not precede it", j,
                           (long)jt->parent);
        if (jt->num_channels > 6)
            return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "joint %zu: %u channels", j,
                           (unsigned)jt->num_channels);
        int seen = 0;
        for (int c = 0; c < jt->num_channels; c++) {
            if (jt->channels[c] > 5 || (seen & (1 << jt->channels[c])))
                return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "joint %zu: invalid channel list", j);
            seen |= 1 << jt->channels[c];
        }
        for (int a = 0; a < 3; a++)
            if (!isfinite(jt->offset[a]))
                return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "joint %zu: non-finite OFFSET", j);
    }
    for (size_t e = 0; e < b->num_end_sites; e++) {
        const pb_bvh_end_site *E = &b->end_sites[e];
        if (E->parent < 0 || (size_t)E->parent >= J)
            return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "end site %zu: invalid parent", e);
        for (int a = 0; a < 3; a++)
            if (!isfinite(E->offset[a]))
                return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "end site %zu: non-finite OFFSET", e);
    }
    return PB_BVH_OK;
}

typedef struct wstate {
    FILE *f;
    const pb_bvh *b;
    size_t *es_start; /* J + 1: end sites of joint j are es_idx[es_start[j] .. es_start[j+1]) */
    size_t *es_idx;
    size_t *es_next;  /* per joint: next unwritten position in its list */
    uint32_t *nchild; /* JOINT children written so far */
} wstate;

static void write_end_site(wstate *W, size_t e, size_t depth)
{
    char a[3][PB_NT_MAX + 1];
    const pb_bvh_end_site *E = &W->b->end_sites[e];
    for (int k = 0; k < 3; k++)
        a[k][pb_nt_float(a[k], E->offset[k])] = '\0';
    indent(W->f, depth);
    fputs("End Site\n", W->f);
    indent(W->f, depth);
    fputs("{\n", W->f);
    indent(W->f, depth + 1);
    fprintf(W->f, "OFFSET %s %s %s\n", a[0], a[1], a[2]);
    indent(W->f, depth);
    fputs("}\n", W->f);
}

/* Writes the pending end sites of joint p that go before child number n
 * (n = UINT32_MAX: all remaining). */
static void flush_end_sites(wstate *W, size_t p, uint32_t n, size_t depth)
{
    while (W->es_next[p] < W->es_start[p + 1]) {
        size_t e = W->es_idx[W->es_next[p]];
        if (W->b->end_sites[e].child_index > n)
            break;
        write_end_site(W, e, depth);
        W->es_next[p]++;
    }
}

static pb_bvh_code write_hierarchy(wstate *W, pb_bvh_error *err)
{
    const pb_bvh *b = W->b;
    const size_t J = b->num_joints;
    FILE *f = W->f;
    size_t *stack = malloc(J * sizeof *stack);
    if (!stack)
        return bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    size_t depth = 0;
    fputs("HIERARCHY\n", f);
    for (size_t j = 0; j <= J; j++) {
        int32_t parent = j < J ? b->joints[j].parent : -1;
        /* Close joints until the parent is on top. */
        while (depth > 0 && (parent < 0 || stack[depth - 1] != (size_t)parent)) {
            size_t c = stack[--depth];
            flush_end_sites(W, c, UINT32_MAX, depth + 1);
            indent(f, depth);
            fputs("}\n", f);
        }
        if (j == J)
            break;
        if (parent >= 0 && depth == 0) {
            free(stack);
            return bvh_set_err(err, PB_BVH_ERR_ARG, 0,
                           "joints are not in depth-first order (joint %zu)", j);
        }
        if (depth >= PB_BVH_MAX_DEPTH) {
            free(stack);
            return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "nesting deeper than %d", PB_BVH_MAX_DEPTH);
        }
        const pb_bvh_joint *jt = &b->joints[j];
        if (parent >= 0) {
            flush_end_sites(W, (size_t)parent, W->nchild[parent], depth);
            W->nchild[parent]++;
        }
        indent(f, depth);
        fprintf(f, "%s %s\n", parent < 0 ? "ROOT" : "JOINT", jt->name);
        indent(f, depth);
        fputs("{\n", f);
        char a[3][PB_NT_MAX + 1];
        for (int k = 0; k < 3; k++)
            a[k][pb_nt_float(a[k], jt->offset[k])] = '\0';
        indent(f, depth + 1);
        fprintf(f, "OFFSET %s %s %s\n", a[0], a[1], a[2]);
        indent(f, depth + 1);
        fprintf(f, "CHANNELS %u", (unsigned)jt->num_channels);
        for (int c = 0; c < jt->num_channels; c++)
            fprintf(f, " %s", bvh_channel_names[jt->channels[c]]);
        fputc('\n', f);
        stack[depth++] = j;
    }
    free(stack);
    return PB_BVH_OK;
}

typedef struct wjoint {
    int order;       /* pb_euler_order */
    int nrot;
    signed char rot_ch[3]; /* channel slot of each listed rotation */
} wjoint;

typedef struct wframe {
    const pb_bvh *b;
    const wjoint *wj;
    pb_bvh_euler_mode mode;
    double *prev; /* J * 3: the angles written for the previous frame */
    /* per joint, for bvh_choose_angles_n: Euler order, rotation channels,
     * and whether the source's angles were taken (1 byte each) */
    uint8_t *order, *nrot;
    unsigned char *as_read;
} wframe;

/* Longest text of one value and its separator. */
#define VALUE_CHARS (PB_NT_MAX + 1)
/* The output buffer is written out when it holds this many bytes. */
#define WRITE_CHUNK ((size_t)64 * 1024)

/* Formats frame fr as one line (with '\n') into line (C * VALUE_CHARS + 1
 * bytes); first: no previous frame. Returns its length, or 0 with *err
 * filled for a non-finite value. */
static size_t format_frame(wframe *X, size_t fr, int first, char *line, pb_bvh_error *err)
{
    const pb_bvh *b = X->b;
    const size_t J = b->num_joints;
    size_t n = 0;
    const signed char *decimals = b->decimals ? b->decimals + fr * b->num_channels : NULL;
    const size_t o0 = fr * J;
    for (size_t j = 0; j < J; j++) {
        size_t o = o0 + j;
        if (X->nrot[j] > 0 && !(isfinite(b->rot_w[o]) && isfinite(b->rot_x[o]) &&
                                isfinite(b->rot_y[o]) && isfinite(b->rot_z[o]))) {
            bvh_set_err(err, PB_BVH_ERR_ARG, 0, "frame %zu, joint '%s': non-finite rotation", fr,
                        b->joints[j].name);
            return 0;
        }
    }
    /* every joint's angles at once (the dispatched Euler kernel), replacing
     * the previous frame's in X->prev */
    bvh_choose_angles_n(X->mode, J, X->order, X->nrot, b->rot_w + o0, b->rot_x + o0,
                        b->rot_y + o0, b->rot_z + o0, b->euler_deg ? b->euler_deg + 3 * o0 : NULL,
                        first ? NULL : X->prev, X->prev, X->as_read);
    for (size_t j = 0; j < J; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        size_t o = o0 + j;
        const double *deg = &X->prev[3 * j];
        int as_read = X->as_read[j];
        const float pos[3] = {b->pos_x[o], b->pos_y[o], b->pos_z[o]};
        int r = 0;
        for (int c = 0; c < jt->num_channels; c++) {
            int ch = jt->channels[c];
            if (n > 0)
                line[n++] = ' ';
            if (ch < PB_BVH_XROT) {
                if (!isfinite(pos[ch])) {
                    bvh_set_err(err, PB_BVH_ERR_ARG, 0,
                                "frame %zu, joint '%s': non-finite position", fr, jt->name);
                    return 0;
                }
                n += pb_nt_float_pos(line + n, pos[ch],
                                     decimals ? decimals[jt->first_channel + (size_t)c] : 0);
            } else if (as_read) {
                n += pb_nt_double(line + n, deg[r++]); /* the source's value */
            } else {
                n += pb_nt_angle(line + n, deg[r++]);
            }
        }
    }
    line[n++] = '\n';
    return n;
}

/* The longest data line of up to 16 frames spread over the clip (the
 * estimate of a line); -1 with *err filled for a non-finite value. */
static double longest_sampled_line(wframe *X, char *line, pb_bvh_error *err)
{
    const size_t F = X->b->num_frames;
    size_t longest = 0;
    size_t samples = F < 16 ? F : 16;
    for (size_t s = 0; s < samples; s++) {
        size_t fr = samples > 1 ? s * (F - 1) / (samples - 1) : 0;
        size_t n = format_frame(X, fr, 1, line, err);
        if (n == 0)
            return -1.0;
        longest = n > longest ? n : longest;
    }
    return (double)longest;
}

pb_bvh_code pb_bvh_write_stream(FILE *f, const pb_bvh *b, pb_bvh_error *err)
{
    return pb_bvh_write_stream_with(f, b, NULL, err);
}

/* Writes b to f; or, with estimate != NULL, writes nothing and sets
 * *estimate to the bytes of the text with est_frames frames like b's. */
static pb_bvh_code write_text(FILE *f, const pb_bvh *b, const pb_bvh_write_opts *opts,
                              size_t est_frames, double *estimate, pb_bvh_error *err)
{
    pb_bvh_code rc = bvh_validate(b, err);
    if (rc)
        return rc;
    const size_t J = b->num_joints, F = b->num_frames, E = b->num_end_sites;

    locale_t cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t old = cloc ? uselocale(cloc) : (locale_t)0;

    wstate W = {f, b, NULL, NULL, NULL, NULL};
    wjoint *wj = malloc(J * sizeof *wj);
    double *prev = malloc(J * 3 * sizeof *prev);
    uint8_t *jbytes = malloc(3 * J); /* order, nrot, as_read: J each */
    W.es_start = calloc(J + 1, sizeof *W.es_start);
    W.es_idx = malloc((E ? E : 1) * sizeof *W.es_idx);
    W.es_next = malloc(J * sizeof *W.es_next);
    W.nchild = calloc(J, sizeof *W.nchild);
    if (!wj || !prev || !jbytes || !W.es_start || !W.es_idx || !W.es_next || !W.nchild) {
        rc = bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
        goto out;
    }
    /* End sites grouped by parent, stable (counting sort). */
    for (size_t e = 0; e < E; e++)
        W.es_start[b->end_sites[e].parent + 1]++;
    for (size_t j = 0; j < J; j++)
        W.es_start[j + 1] += W.es_start[j];
    for (size_t j = 0; j < J; j++)
        W.es_next[j] = W.es_start[j];
    for (size_t e = 0; e < E; e++)
        W.es_idx[W.es_next[b->end_sites[e].parent]++] = e;
    for (size_t j = 0; j < J; j++)
        W.es_next[j] = W.es_start[j];

    for (size_t j = 0; j < J; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        int axes[3], n = 0;
        for (int c = 0; c < jt->num_channels; c++)
            if (jt->channels[c] >= PB_BVH_XROT) {
                wj[j].rot_ch[n] = (signed char)c;
                axes[n++] = jt->channels[c] - PB_BVH_XROT;
            }
        wj[j].nrot = n;
        for (int a = 0; a < 3 && n < 3; a++) {
            int have = 0;
            for (int k = 0; k < n; k++)
                have |= axes[k] == a;
            if (!have)
                axes[n++] = a;
        }
        wj[j].order = pb_euler_order_from_axes(axes[0], axes[1], axes[2]);
    }

    const size_t limit = opts && opts->max_bytes > 0 && opts->max_bytes < PB_BVH_MAX_FILE_BYTES
                             ? opts->max_bytes
                             : PB_BVH_MAX_FILE_BYTES;
    for (size_t j = 0; j < J; j++) {
        jbytes[j] = (uint8_t)wj[j].order;
        jbytes[J + j] = (uint8_t)wj[j].nrot;
    }
    wframe X = {b, wj, opts ? opts->euler : PB_BVH_EULER_SOURCE, prev, jbytes, jbytes + J,
                jbytes + 2 * J};
    const size_t C = b->num_channels;
    /* One buffer: a line when estimating; else the header and then whole
     * frames, written out whenever WRITE_CHUNK bytes are in it (malloc: every
     * byte written out is formatted first). */
    const size_t line_max = C * VALUE_CHARS + 1;
    const size_t cap = estimate ? line_max : WRITE_CHUNK + line_max;
    char *buf = malloc(cap);
    if (!buf) {
        rc = bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
        goto out;
    }
    /* Never write a text the reader would refuse: too large (estimated up
     * front, before anything is written, then counted while writing), or more
     * frames x joints than its memory bound allows for the bytes (checked at
     * the end). */
    double longest = longest_sampled_line(&X, buf, err);
    double est = longest * (double)(estimate ? est_frames : F);
    if (longest < 0.0) {
        rc = err ? err->code : PB_BVH_ERR_ARG;
        free(buf);
        goto out;
    }
    /* The header, exactly: written to memory first. */
    char *hbuf = NULL;
    size_t hlen = 0;
    FILE *hf = open_memstream(&hbuf, &hlen);
    if (!hf) {
        rc = bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
        free(buf);
        goto out;
    }
    W.f = hf;
    rc = write_hierarchy(&W, err);
    char ft[PB_NT_MAX + 1];
    ft[pb_nt_double(ft, b->frame_time)] = '\0';
    fprintf(hf, "MOTION\nFrames: %zu\nFrame Time: %s\n", F, ft);
    if (fclose(hf) != 0 && rc == PB_BVH_OK)
        rc = bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    W.f = f;
    if (rc == PB_BVH_OK && estimate) {
        *estimate = (double)hlen + est;
        free(hbuf);
        free(buf);
        goto out;
    }
    if (rc == PB_BVH_OK && (double)(F * J) > longest * (double)F + (double)READ_ELEMS_SLACK)
        rc = bvh_set_err(err, PB_BVH_ERR_LIMIT, 0,
                         "%zu frames x %zu joints in lines of at most %.0f bytes: more than a "
                         "reader accepts (joints without channels); nothing written",
                         F, J, longest);
    if (rc == PB_BVH_OK && (double)hlen + est > (double)limit)
        rc = bvh_set_err(err, PB_BVH_ERR_LIMIT, 0,
                         "the text would be about %.0f bytes, more than the %zu that a reader "
                         "accepts; nothing written (fewer frames or a lower rate?)",
                         (double)hlen + est, limit);
    /* The header goes out with the first frames (a long one alone). */
    size_t used = 0;
    if (rc == PB_BVH_OK) {
        if (hlen <= WRITE_CHUNK) {
            memcpy(buf, hbuf, hlen);
            used = hlen;
        } else if (fwrite(hbuf, 1, hlen, f) != hlen) {
            rc = bvh_set_err(err, PB_BVH_ERR_IO, 0, "write error: %s", strerror(errno ? errno : EIO));
        }
    }
    free(hbuf);
    if (rc != PB_BVH_OK) {
        free(buf);
        goto out;
    }
    const size_t head = hlen;
    size_t data_bytes = 0;
    int write_failed = 0;
    for (size_t fr = 0; fr < F; fr++) {
        size_t n = format_frame(&X, fr, fr == 0, buf + used, err);
        if (n == 0) {
            rc = err ? err->code : PB_BVH_ERR_ARG;
            break;
        }
        data_bytes += n;
        if (head + data_bytes > limit) {
            rc = bvh_set_err(err, PB_BVH_ERR_LIMIT, 0,
                             "the text grows past the %zu bytes that a reader accepts at frame "
                             "%zu of %zu",
                             limit, fr + 1, F);
            break;
        }
        used += n;
        if (used >= WRITE_CHUNK) {
            size_t w = fwrite(buf, 1, used, f);
            int bad = w != used || ferror(f);
            used = 0;
            if (bad) {
                write_failed = 1;
                break;
            }
        }
        if (opts && opts->progress && ((fr + 1) % 256 == 0 || fr + 1 == F))
            opts->progress(opts->progress_ctx, fr + 1, F);
    }
    /* What is formatted goes out, also before an error (as the frames before
     * it always did). */
    if (used > 0 && !write_failed)
        (void)fwrite(buf, 1, used, f);
    free(buf);
    if (rc == PB_BVH_OK && (fflush(f) != 0 || ferror(f))) {
        rc = bvh_set_err(err, PB_BVH_ERR_IO, 0, "write error: %s", strerror(errno ? errno : EIO));
        goto out;
    }
    if (rc == PB_BVH_OK && F * J > data_bytes + READ_ELEMS_SLACK)
        rc = bvh_set_err(err, PB_BVH_ERR_LIMIT, 0,
                         "%zu frames x %zu joints in %zu bytes of data: more than a reader "
                         "accepts (joints without channels)",
                         F, J, data_bytes);
    if (rc != PB_BVH_OK)
        goto out;
    if (fflush(f) != 0 || ferror(f))
        rc = bvh_set_err(err, PB_BVH_ERR_IO, 0, "write error: %s", strerror(errno ? errno : EIO));
out:
    if (cloc) {
        uselocale(old);
        freelocale(cloc);
    }
    free(wj);
    free(prev);
    free(jbytes);
    free(W.es_start);
    free(W.es_idx);
    free(W.es_next);
    free(W.nchild);
    return rc;
}

pb_bvh_code pb_bvh_write_stream_with(FILE *f, const pb_bvh *b, const pb_bvh_write_opts *opts,
                                     pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!f || !b)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "stream or bvh is NULL");
    return write_text(f, b, opts, 0, NULL, err);
}

pb_bvh_code pb_bvh_estimate_bytes(const pb_bvh *b, size_t frames, const pb_bvh_write_opts *opts,
                                  double *bytes, pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!b || !bytes)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "bvh or output is NULL");
    *bytes = 0.0;
    if (b->num_frames == 0)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "no frames to estimate from");
    return write_text(NULL, b, opts, frames, bytes, err);
}
