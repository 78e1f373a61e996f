/* BVH writer: the hierarchy, and the motion as Euler angles in each joint's
 * channel order; numbers by numtext_write.c. The motion is formatted frame by frame
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
#include <pthread.h>
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
                           "frame time %g s: the reader takes %g s up to float range",
                           b->frame_time, BVH_MIN_FRAME_TIME);
    if (b->num_frames > 0 && b->num_frames > MAX_ELEMS / J)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "too many frames");
    if (b->num_frames > 0 &&
        (!b->rot_w || !b->rot_x || !b->rot_y || !b->rot_z || !b->pos_x || !b->pos_y || !b->pos_z))
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "motion arrays missing");
    if (b->num_frames > 0 && b->num_channels == 0)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0,
                           "%zu frames but no joint has a channel (a frame of no values does "
                           "not read back; 0 frames can be written)",
                           b->num_frames);
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
            return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "joint %zu: parent %ld does not precede it",
                               j, (long)jt->parent);
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
    pb_bvh_code rc = bvh_check_channels(b, err);
    if (rc)
        return rc;
    for (size_t e = 0; e < b->num_end_sites; e++) {
        const pb_bvh_end_site *E = &b->end_sites[e];
        if (E->parent < 0 || (size_t)E->parent >= J)
            return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "end site %zu: invalid parent", e);
        for (int a = 0; a < 3; a++)
            if (!isfinite(E->offset[a]))
                return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "end site %zu: non-finite OFFSET", e);
    }
    return bvh_check_depth(b, PB_BVH_ERR_ARG, err);
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
    int order; /* pb_euler_order */
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
    size_t frame0; /* the text frame of b's frame 0 (messages) */
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
            bvh_set_err(err, PB_BVH_ERR_ARG, 0, "frame %zu, joint '%s': non-finite rotation",
                        X->frame0 + fr, b->joints[j].name);
            return 0;
        }
    }
    /* every joint's angles at once (the dispatched Euler kernel), replacing
     * the previous frame's in X->prev */
    bvh_choose_angles_n(X->mode, J, X->order, X->nrot, b->rot_w + o0, b->rot_x + o0, b->rot_y + o0,
                        b->rot_z + o0, b->euler_deg ? b->euler_deg + 3 * o0 : NULL,
                        first ? NULL : X->prev, X->prev, X->as_read);
    /* a computed angle the reader would refuse (a joint spinning for
     * thousands of turns, unrolled continuously) goes back by whole turns:
     * the same rotation, and the next frame continues from there */
    for (size_t j = 0; j < J; j++)
        for (int r = 0; r < X->nrot[j] && !X->as_read[j]; r++)
            if (fabs(X->prev[3 * j + (size_t)r]) > BVH_MAX_ANGLE_DEG)
                X->prev[3 * j + (size_t)r] = remainder(X->prev[3 * j + (size_t)r], 360.0);
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
                                "frame %zu, joint '%s': non-finite position", X->frame0 + fr,
                                jt->name);
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
/* The frame loop's state: whole frames formatted into buf and written out
 * whenever WRITE_CHUNK bytes are in it. */
typedef struct wloop {
    FILE *f;
    wframe *X;
    const pb_bvh_write_opts *opts;
    char *buf;
    size_t used, head, data_bytes, limit, total;
    int write_failed;
    unsigned threads; /* opts->threads, at least 1 */
    locale_t loc;     /* the C locale the writer runs in (0: none made) */
} wloop;

/* text frame fr's n bytes counted; past the limit, the error naming it */
static pb_bvh_code count_frame(wloop *L, size_t n, size_t fr, pb_bvh_error *err)
{
    L->data_bytes += n;
    if (L->head + L->data_bytes > L->limit)
        return bvh_set_err(err, PB_BVH_ERR_LIMIT, 0,
                           "the text grows past the %zu bytes that a reader accepts at frame "
                           "%zu of %zu",
                           L->limit, fr + 1, L->total);
    return PB_BVH_OK;
}

/* ------------------------------------------------ frames on several threads */

/* Where each frame's Euler triple depends on that frame alone (the source's
 * angles in SOURCE mode, or PRINCIPAL), frames are independent: a block is
 * cut into parts formatted on threads of their own into buffers of their
 * own, then written out in order, so the text is the same bytes. */
#define PAR_MIN_FRAMES 64 /* fewer frames in a block: one thread */
#define PAR_MAX 64        /* threads at most */

typedef struct wpart {
    wframe X; /* its own prev and as_read */
    const pb_bvh *block;
    size_t f0, f1; /* the block's frames f0 .. f1-1 */
    char *text;    /* (f1 - f0) lines */
    size_t *len;   /* each frame's bytes; 0 from a failing frame on */
    size_t bytes;
    pb_bvh_error err;
    pb_bvh_code rc;
    locale_t loc;
} wpart;

static void *format_part(void *arg)
{
    wpart *P = arg;
    locale_t old = P->loc ? uselocale(P->loc) : (locale_t)0;
    P->X.b = P->block;
    P->rc = PB_BVH_OK;
    P->bytes = 0;
    for (size_t fr = P->f0; fr < P->f1; fr++) {
        size_t n = format_frame(&P->X, fr, 1, P->text + P->bytes, &P->err);
        P->len[fr - P->f0] = n;
        if (n == 0) {
            P->rc = P->err.code ? P->err.code : PB_BVH_ERR_ARG;
            break;
        }
        P->bytes += n;
    }
    if (P->loc)
        uselocale(old);
    return NULL;
}

static int frames_independent(const wframe *X, const pb_bvh *block)
{
    return X->mode == PB_BVH_EULER_PRINCIPAL ||
           (X->mode == PB_BVH_EULER_SOURCE && block->euler_deg != NULL);
}

/* block's frames on L->threads threads, *rc the outcome; -1 (nothing done)
 * when there are too few frames or no memory for the parts: the caller then
 * goes on alone */
static int write_frames_par(wloop *L, const pb_bvh *block, size_t first, pb_bvh_error *err,
                            pb_bvh_code *rc)
{
    const wframe *X = L->X;
    const size_t F = block->num_frames, J = block->num_joints;
    size_t T = L->threads < PAR_MAX ? L->threads : PAR_MAX;
    if (T > F / (PAR_MIN_FRAMES / 2))
        T = F / (PAR_MIN_FRAMES / 2);
    if (T < 2)
        return -1;
    const size_t line_max = block->num_channels * VALUE_CHARS + 1;
    wpart P[PAR_MAX];
    pthread_t tid[PAR_MAX];
    size_t made = 0;
    int ok = 1;
    for (size_t t = 0; t < T; t++) {
        wpart *p = &P[t];
        memset(p, 0, sizeof *p);
        p->X = *X;
        p->X.frame0 = first;
        p->block = block;
        p->f0 = F * t / T;
        p->f1 = F * (t + 1) / T;
        p->loc = L->loc;
        p->X.prev = malloc(3 * J * sizeof(double));
        p->X.as_read = malloc(J);
        p->text = malloc((p->f1 - p->f0) * line_max);
        p->len = malloc((p->f1 - p->f0) * sizeof(size_t));
        made = t + 1;
        if (!p->X.prev || !p->X.as_read || !p->text || !p->len) {
            ok = 0;
            break;
        }
    }
    size_t started = 0;
    if (ok) {
        for (size_t t = 1; t < T; t++) {
            if (pthread_create(&tid[t], NULL, format_part, &P[t]) != 0)
                break;
            started = t;
        }
        format_part(&P[0]);
        for (size_t t = started + 1; t < T; t++) /* threads that did not start */
            format_part(&P[t]);
        for (size_t t = 1; t <= started; t++)
            pthread_join(tid[t], NULL);
        /* in order: each frame's bytes, the limit, the frame at fault */
        *rc = PB_BVH_OK;
        for (size_t t = 0; t < T && *rc == PB_BVH_OK; t++) {
            size_t off = 0;
            for (size_t fr = P[t].f0; fr < P[t].f1; fr++) {
                size_t n = P[t].len[fr - P[t].f0];
                if (n == 0) {
                    if (err)
                        *err = P[t].err;
                    *rc = P[t].rc;
                    break;
                }
                if ((*rc = count_frame(L, n, first + fr, err)) != PB_BVH_OK)
                    break;
                off += n;
            }
            /* the frames formatted before any error go out, as alone */
            if (L->used > 0 && fwrite(L->buf, 1, L->used, L->f) != L->used)
                L->write_failed = 1;
            L->used = 0;
            if (!L->write_failed && off > 0 && fwrite(P[t].text, 1, off, L->f) != off)
                L->write_failed = 1;
            if (L->write_failed || ferror(L->f)) {
                L->write_failed = 1;
                if (*rc == PB_BVH_OK)
                    *rc = bvh_set_err(err, PB_BVH_ERR_IO, 0, "write error: %s",
                                      strerror(errno ? errno : EIO));
                break;
            }
            size_t done = first + P[t].f1;
            if (L->opts && L->opts->progress && *rc == PB_BVH_OK)
                L->opts->progress(L->opts->progress_ctx, done, L->total);
        }
    }
    for (size_t t = 0; t < made; t++) {
        free(P[t].X.prev);
        free(P[t].X.as_read);
        free(P[t].text);
        free(P[t].len);
    }
    return ok ? 0 : -1;
}

/* the frames of block, text frames first .. first + block->num_frames - 1 */
static pb_bvh_code write_frames(void *ctx, const pb_bvh *block, size_t first, pb_bvh_error *err)
{
    wloop *L = ctx;
    wframe *X = L->X;
    X->b = block;
    X->frame0 = first;
    const size_t F = block->num_frames;
    pb_bvh_code prc;
    if (L->threads > 1 && F >= PAR_MIN_FRAMES && frames_independent(X, block) &&
        write_frames_par(L, block, first, err, &prc) == 0)
        return prc;
    for (size_t fr = 0; fr < F; fr++) {
        size_t n = format_frame(X, fr, first + fr == 0, L->buf + L->used, err);
        if (n == 0)
            return err ? err->code : PB_BVH_ERR_ARG;
        pb_bvh_code rc = count_frame(L, n, first + fr, err);
        if (rc != PB_BVH_OK)
            return rc;
        L->used += n;
        if (L->used >= WRITE_CHUNK) {
            size_t w = fwrite(L->buf, 1, L->used, L->f);
            int bad = w != L->used || ferror(L->f);
            L->used = 0;
            if (bad) {
                L->write_failed = 1;
                return bvh_set_err(err, PB_BVH_ERR_IO, 0, "write error: %s",
                                   strerror(errno ? errno : EIO));
            }
        }
        size_t done = first + fr + 1;
        if (L->opts && L->opts->progress && (done % 256 == 0 || done == L->total))
            L->opts->progress(L->opts->progress_ctx, done, L->total);
    }
    return PB_BVH_OK;
}

/* the whole clip as one block */
static pb_bvh_code feed_whole(void *ctx, bvh_deliver_fn deliver, void *wctx, pb_bvh_error *err)
{
    return deliver(wctx, ctx, 0, err);
}

/* Writes b to f; or, with estimate != NULL, writes nothing and sets
 * *estimate to the bytes of the text with est_frames frames like b's. With
 * feed, b is the header (skeleton, num_frames, frame_time) and the frames
 * come from the feed; like is then the clip whose frames estimate a line. */
static pb_bvh_code write_text_fed(FILE *f, const pb_bvh *b, const pb_bvh *like,
                                  const bvh_feed *feed, const pb_bvh_write_opts *opts,
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
    wframe X = {like,           wj,     opts ? opts->euler : PB_BVH_EULER_SOURCE,
                prev,           jbytes, jbytes + J,
                jbytes + 2 * J, 0};
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
            rc = bvh_set_err(err, PB_BVH_ERR_IO, 0, "write error: %s",
                             strerror(errno ? errno : EIO));
        }
    }
    free(hbuf);
    if (rc != PB_BVH_OK) {
        free(buf);
        goto out;
    }
    wloop L = {f,
               &X,
               opts,
               buf,
               used,
               hlen,
               0,
               limit,
               F,
               0,
               opts && opts->threads > 1 ? opts->threads : 1,
               cloc};
    bvh_feed whole = {feed_whole, (void *)b};
    rc = (feed ? feed : &whole)->run((feed ? feed : &whole)->ctx, write_frames, &L, err);
    const size_t data_bytes = L.data_bytes;
    /* What is formatted goes out, also before an error (as the frames before
     * it always did). */
    if (L.used > 0 && !L.write_failed)
        (void)fwrite(buf, 1, L.used, f);
    free(buf);
    if (rc == PB_BVH_OK && (L.write_failed || fflush(f) != 0 || ferror(f))) {
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
    return write_text_fed(f, b, b, NULL, opts, 0, NULL, err);
}

pb_bvh_code bvh_write_fed(FILE *f, const pb_bvh *head, const pb_bvh *like,
                          const pb_bvh_write_opts *opts, const bvh_feed *feed, pb_bvh_error *err)
{
    return write_text_fed(f, head, like, feed, opts, 0, NULL, err);
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
    return write_text_fed(NULL, b, b, NULL, opts, frames, bytes, err);
}
