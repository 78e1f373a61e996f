/* BVH reader, the MOTION section: the 'Frames:' and 'Frame Time:' lines,
 * then the data lines, counted before anything is allocated, read into the
 * clip's motion arrays (quaternions from the Euler angles as read). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_read_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static pb_bvh_code parse_motion_header(parser *P, size_t *frames, double *frame_time,
                                       long *frames_line)
{
    char b1[48];
    tok t;
    lex_skip_ws(&P->lx);
    if (P->lx.p >= P->lx.end)
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                           "unexpected end of file: expected 'Frames:' after MOTION");
    long line = P->lx.line;
    P->lx.last_line = line;
    *frames_line = line;
    if (!lex_match_kw(&P->lx, "Frames")) {
        const char *s = P->lx.p;
        while (P->lx.p < P->lx.end && !is_space(*P->lx.p))
            P->lx.p++;
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "expected 'Frames:', found '%s'",
                           bvh_show(s, (size_t)(P->lx.p - s), b1));
    }
    lex_skip_hws(&P->lx);
    if (!lex_match_kw(&P->lx, ":"))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "expected ':' after 'Frames'");
    if (!lex_line_value(&P->lx, &t))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "'Frames:' without a count");
    size_t f = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.s[i] < '0' || t.s[i] > '9')
            return bvh_set_err(P->err, PB_BVH_ERR_VALUE, line, "invalid frame count '%s'",
                               bvh_show(t.s, t.n, b1));
        if (f > ((size_t)1 << 40))
            return bvh_set_err(P->err, PB_BVH_ERR_LIMIT, line, "absurd frame count '%s'",
                               bvh_show(t.s, t.n, b1));
        f = f * 10 + (size_t)(t.s[i] - '0');
    }
    if (!lex_rest_blank(&P->lx))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line,
                           "unexpected text after the frame count");
    *frames = f;

    lex_skip_ws(&P->lx);
    if (P->lx.p >= P->lx.end)
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line,
                           "unexpected end of file: expected 'Frame Time:'");
    line = P->lx.line;
    P->lx.last_line = line;
    const char *s0 = P->lx.p;
    int ok = lex_match_kw(&P->lx, "Frame");
    if (ok) {
        lex_skip_hws(&P->lx);
        ok = lex_match_kw(&P->lx, "Time");
    }
    if (ok) {
        lex_skip_hws(&P->lx);
        ok = lex_match_kw(&P->lx, ":");
    }
    if (!ok) {
        P->lx.p = s0;
        while (P->lx.p < P->lx.end && !is_eol(*P->lx.p))
            P->lx.p++;
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "expected 'Frame Time:', found '%s'",
                           bvh_show(s0, (size_t)(P->lx.p - s0), b1));
    }
    if (!lex_line_value(&P->lx, &t))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "'Frame Time:' without a value");
    double ft;
    if (!bvh_parse_number(t.s, t.n, &ft))
        return bvh_set_err(P->err, PB_BVH_ERR_VALUE, line, "invalid frame time '%s'",
                           bvh_show(t.s, t.n, b1));
    if (!(ft > 0.0))
        return bvh_set_err(P->err, PB_BVH_ERR_VALUE, line,
                           "frame time must be positive, found '%s'", bvh_show(t.s, t.n, b1));
    if (ft < 1.0 / MAX_RATE)
        return bvh_set_err(P->err, PB_BVH_ERR_VALUE, line,
                           "Frame Time '%s' means more than %.0f frames per second",
                           bvh_show(t.s, t.n, b1), MAX_RATE);
    if (ft > FLT_MAX)
        return bvh_set_err(P->err, PB_BVH_ERR_VALUE, line, "Frame Time '%s' is out of float range",
                           bvh_show(t.s, t.n, b1));
    if (!lex_rest_blank(&P->lx))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "unexpected text after the frame time");
    *frame_time = ft;
    return PB_BVH_OK;
}

typedef struct jmap {
    signed char rot[3]; /* value index (relative to first_channel) per listed rotation */
    signed char pos[3]; /* value index for x, y, z position, -1 if none */
} jmap;

/* The first line break ('\n' or '\r') at or after p, or end: memchr in
 * windows, so that a text without one kind is not searched to its end for
 * each line. */
static const char *next_eol(const char *p, const char *end)
{
    while (p < end) {
        size_t w = (size_t)(end - p) < 4096 ? (size_t)(end - p) : 4096;
        const char *nl = memchr(p, '\n', w);
        const char *cr = memchr(p, '\r', (size_t)((nl ? nl : p + w) - p));
        if (cr)
            return cr;
        if (nl)
            return nl;
        p += w;
    }
    return end;
}

/* Data lines that hold anything but whitespace from p to end: an upper bound
 * on the frames, counted before anything is allocated. */
static size_t count_data_lines(const char *p, const char *end)
{
    size_t n = 0;
    for (;;) {
        while (p < end && is_space(*p))
            p++;
        if (p >= end)
            return n;
        n++; /* a line with something on it: on to its end */
        p = next_eol(p, end);
    }
}

/* Decimals a number token is written with (digits after the point, less the
 * exponent), 0..17. */
static int decimals_of(const char *s, size_t n)
{
    const char *dot = memchr(s, '.', n);
    long d = 0, e = 0;
    size_t i = 0;
    if (dot)
        for (i = (size_t)(dot - s) + 1; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            d++;
    for (i = 0; i < n && s[i] != 'e' && s[i] != 'E'; i++)
        ;
    if (i < n) {
        int neg = i + 1 < n && s[i + 1] == '-';
        for (i += 1 + (i + 1 < n && (s[i + 1] == '-' || s[i + 1] == '+')); i < n && e < 100; i++)
            e = e * 10 + (s[i] - '0');
        d += neg ? e : -e;
    }
    return d < 0 ? 0 : d > 17 ? 17 : (int)d;
}

/* The data lines: every complete line is a frame, whatever 'Frames:' said
 * (a disagreement is a warning, or an error with PB_BVH_READ_STRICT); a line
 * with the wrong number of values is an error naming it. */
static pb_bvh_code parse_frames(parser *P, pb_bvh *b, size_t header_frames, long frames_line)
{
    char b1[48];
    const size_t J = b->num_joints, C = b->num_channels;
    const size_t remaining = (size_t)(P->lx.end - P->lx.p);
    const unsigned flags = P->opts ? P->opts->flags : 0u;
    const int keep = !(flags & PB_BVH_READ_HEADER_ONLY);

    if (C == 0 && header_frames > 0)
        return bvh_set_err(P->err, PB_BVH_ERR_MOTION, frames_line,
                           "Frames: %zu but the skeleton has no channels", header_frames);
    size_t cap = count_data_lines(P->lx.p, P->lx.end);
    if (J > 0 && cap > MAX_ELEMS / J)
        return bvh_set_err(P->err, PB_BVH_ERR_LIMIT, frames_line,
                           "%zu data lines x %zu joints exceeds 2^28 elements", cap, J);
    /* Memory per input byte: joints without channels multiply frames without
     * needing bytes. */
    if (cap * J > remaining + ELEMS_SLACK)
        return bvh_set_err(P->err, PB_BVH_ERR_LIMIT, frames_line,
                           "%zu frames x %zu joints is too large for the %zu bytes of data", cap, J,
                           remaining);

    jmap *map = malloc((J ? J : 1) * sizeof *map);
    double *vals = malloc((C ? C : 1) * sizeof *vals);
    unsigned char *is_rot = malloc(C ? C : 1);
    uint8_t *jord = malloc(2 * (J ? J : 1)); /* per joint: Euler order, rotation channels */
    if (!map || !vals || !is_rot || !jord || (keep && bvh_alloc_motion(b, cap, 1))) {
        free(map);
        free(vals);
        free(is_rot);
        free(jord);
        return bvh_set_err(P->err, PB_BVH_ERR_NOMEM, frames_line, "out of memory for %zu frames",
                           cap);
    }
    for (size_t j = 0; j < J; j++) {
        jord[j] = b->joints[j].rot_order;
        jord[J + j] = b->joints[j].num_rot;
    }
    for (size_t j = 0; j < J; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        int nr = 0;
        map[j].pos[0] = map[j].pos[1] = map[j].pos[2] = -1;
        map[j].rot[0] = map[j].rot[1] = map[j].rot[2] = -1;
        for (int c = 0; c < jt->num_channels; c++) {
            int ch = jt->channels[c];
            is_rot[jt->first_channel + (uint32_t)c] = ch >= PB_BVH_XROT;
            if (ch < PB_BVH_XROT)
                map[j].pos[ch] = (signed char)c;
            else
                map[j].rot[nr++] = (signed char)c;
        }
    }

    pb_bvh_code rc = PB_BVH_OK;
    size_t f = 0;
    const char *const end = P->lx.end;
    for (;;) {
        lex_skip_ws(&P->lx);
        if (P->lx.p >= end)
            break;
        long line = P->lx.line;
        size_t k = 0;
        const char *p = P->lx.p;
        signed char *dec = keep ? b->decimals + f * C : NULL;
        for (;;) {
            while (p < end && is_hspace(*p))
                p++;
            if (p >= end || is_eol(*p))
                break;
            const char *s = p;
            if (k < C) {
                /* The number is read where it starts; it must be the whole
                 * token (up to whitespace). */
                double v;
                pb_nt_info info;
                size_t len = bvh_number_token(s, end, &v, &info);
                p = s + len;
                if (len == 0) {
                    while (p < end && !is_space(*p))
                        p++;
                    P->lx.p = p;
                    rc = bvh_set_err(P->err, PB_BVH_ERR_VALUE, line,
                                     "invalid number '%s' (value %zu)",
                                     bvh_show(s, (size_t)(p - s), b1), k + 1);
                    goto done;
                }
                if (is_rot[k] && fabs(v) > MAX_ANGLE_DEG) {
                    P->lx.p = p;
                    rc = bvh_set_err(P->err, PB_BVH_ERR_VALUE, line,
                                     "rotation value %zu is '%s' degrees, beyond +-%g", k + 1,
                                     bvh_show(s, len, b1), MAX_ANGLE_DEG);
                    goto done;
                }
                if (dec) {
                    int d = 0;
                    if (!is_rot[k]) {
                        /* decimals_of(s, len), without scanning the token again */
                        if (info.exp > -100 && info.exp < 100) {
                            long dd = (long)(info.frac_digits > 1000 ? 1000 : info.frac_digits) -
                                      info.exp;
                            d = dd < 0 ? 0 : dd > 17 ? 17 : (int)dd;
                        } else {
                            d = decimals_of(s, len);
                        }
                    }
                    dec[k] = (signed char)d;
                }
                vals[k] = v;
            } else {
                while (p < end && !is_space(*p))
                    p++;
            }
            k++;
        }
        P->lx.p = p;
        if (k != C) {
            lex_skip_ws(&P->lx);
            if (P->lx.p >= P->lx.end && k < C)
                rc = bvh_set_err(P->err, PB_BVH_ERR_MOTION, line,
                                 "the last data line holds %zu of the %zu values of a frame (the "
                                 "file is cut inside a frame)",
                                 k, C);
            else
                rc = bvh_set_err(P->err, PB_BVH_ERR_MOTION, line,
                                 "expected %zu values (the channel count), found %zu", C, k);
            break;
        }
        if (f >= cap && keep) { /* cannot happen: every data line was counted */
            rc = bvh_set_err(P->err, PB_BVH_ERR_LIMIT, line, "more data lines than counted");
            break;
        }
        for (size_t j = 0; keep && j < J; j++) {
            const pb_bvh_joint *jt = &b->joints[j];
            const double *v = vals + jt->first_channel;
            size_t o = f * J + j;
            double *deg = b->euler_deg + 3 * o;
            for (int r = 0; r < 3; r++)
                deg[r] = r < jt->num_rot ? v[map[j].rot[r]] : 0.0;
            float pos[3] = {jt->offset[0], jt->offset[1], jt->offset[2]};
            for (int a = 0; a < 3; a++) {
                if (map[j].pos[a] >= 0) {
                    double pv = v[map[j].pos[a]];
                    if (fabs(pv) > FLT_MAX) {
                        rc = bvh_set_err(
                            P->err, PB_BVH_ERR_VALUE, line,
                            "value %u (%s of '%s') is out of float range",
                            (unsigned)(jt->first_channel + (uint32_t)map[j].pos[a] + 1),
                            bvh_channel_names[a], bvh_show(jt->name, strlen(jt->name), b1));
                        goto done;
                    }
                    pos[a] = (float)pv;
                }
            }
            b->pos_x[o] = pos[0];
            b->pos_y[o] = pos[1];
            b->pos_z[o] = pos[2];
        }
        if (keep) /* the frame's rotations at once: the floats of pb_euler_to_quat_n */
            bvh_euler_to_quat_n(J, jord, jord + J, b->euler_deg + 3 * f * J, b->rot_w + f * J,
                                b->rot_x + f * J, b->rot_y + f * J, b->rot_z + f * J);
        f++;
    }
    if (rc == PB_BVH_OK && f != header_frames) {
        if (flags & PB_BVH_READ_STRICT)
            rc = bvh_set_err(P->err, PB_BVH_ERR_MOTION, frames_line,
                             "'Frames: %zu' but the file holds %zu complete data lines",
                             header_frames, f);
        else
            bvh_read_warn(
                P, "line %ld: 'Frames: %zu' but the file holds %zu complete data lines; using %zu",
                frames_line, header_frames, f, f);
    }
done:
    free(map);
    free(vals);
    free(is_rot);
    free(jord);
    if (rc == PB_BVH_OK) {
        b->num_frames = f;
    }
    return rc;
}

pb_bvh_code bvh_read_motion(parser *P, pb_bvh *out)
{
    size_t frames = 0;
    long frames_line = 0;
    pb_bvh_code rc = parse_motion_header(P, &frames, &out->frame_time, &frames_line);
    if (!rc)
        rc = parse_frames(P, out, frames, frames_line);
    return rc;
}
