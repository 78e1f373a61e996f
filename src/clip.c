/* Clip-level work on the dispatched kernels: resampling (Catmull-Rom over
 * source segments, the per-segment offsets computed once per segment). Pose
 * blending is in blend.c. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "clip_step.h"

static const pb_vec3s no_vel = {0, 0, 0};

/* ------------------------------------------------------------- views */

static pb_quats rot_frame_w(const pb_clip *c, size_t f)
{
    size_t o = f * c->joints;
    pb_quats q = {c->rot.w + o, c->rot.x + o, c->rot.y + o, c->rot.z + o};
    return q;
}
static pb_cquats rot_frame(const pb_clip *c, size_t f) { return pb_cq(rot_frame_w(c, f)); }
static pb_vec3s v3_frame_w(pb_vec3s v, size_t joints, size_t f)
{
    if (!v.x)
        return no_vel;
    size_t o = f * joints;
    pb_vec3s r = {v.x + o, v.y + o, v.z + o};
    return r;
}
static pb_cvec3s v3_frame(pb_vec3s v, size_t joints, size_t f)
{
    return pb_cv(v3_frame_w(v, joints, f));
}

/* ---------------------------------------------------------- checking */

/* a frame time or rate: finite, > 0, and its reciprocal finite too (a
 * denormal frame time would give infinite velocity factors, a denormal fps
 * an infinite output frame time) */
static int finite_pos(double v) { return isfinite(v) && v > 0 && isfinite(1.0 / v); }

static pb_status clip_shape(const pb_clip *c)
{
    if (!c)
        return PB_ERR_NULL;
    if (c->frames == 0 || c->joints == 0 || c->frames > PB_MAX_COUNT ||
        c->joints > PB_MAX_COUNT / c->frames)
        return PB_ERR_SIZE;
    return PB_OK;
}

/* A track present in dst must be present in src; outputs first, then every
 * input against them. */
static pb_status sample_check(const pb_clip *src, size_t count, const double *times,
                              const pb_clip *dst, const pb_clip_vel *vel, unsigned flags)
{
    pb_status st = clip_shape(src);
    if (st == PB_OK)
        st = clip_shape(dst);
    if (st != PB_OK)
        return st;
    if (dst->frames != count || dst->joints != src->joints || !finite_pos(src->frame_time) ||
        flags_ok(flags, PB_CLIP_LOOP | PB_EXACT_VELOCITY) != PB_OK)
        return PB_ERR_ARG;
    size_t sn = src->frames * src->joints, dn = count * dst->joints;
    int has_pos = !absent_v(dst->pos), has_scale = !absent_v(dst->scale);
    if ((has_pos && absent_v(src->pos)) || (has_scale && absent_v(src->scale)))
        return PB_ERR_NULL;
    chk c;
    chk_tab tab;
    chk_init(&c, &tab);
    out_q(&c, dst->rot, dn);
    if (has_pos)
        out_v(&c, dst->pos, dn);
    if (has_scale)
        out_v(&c, dst->scale, dn);
    if (vel) {
        opt_out_v(&c, vel->rot, dn);
        if (has_pos)
            opt_out_v(&c, vel->pos, dn);
        if (has_scale)
            opt_out_v(&c, vel->scale, dn);
    }
    in_q_strict(&c, pb_cq(src->rot), sn);
    if (has_pos)
        in_v_strict(&c, pb_cv(src->pos), sn);
    if (has_scale)
        in_v_strict(&c, pb_cv(src->scale), sn);
    /* times is read while outputs are written: no overlap at all */
    if (times && c.st == PB_OK)
        in_bytes_strict(&c, times, count * sizeof(double));
    return c.st;
}

/* ------------------------------------------------------------ sampling */

/* Where a sample falls: segment f (frames f0 f f2 f3), parameter x in [0, 1),
 * and the velocity factor (1/frame_time, or 0 where the pose is held). */
typedef struct {
    size_t f0, f, f2, f3;
    float x;
    double vscale;
} seg_pos;

/* nearbyint and floor for 0 < u < 2^52 without a libm call (the baseline
 * x86-64 build has no rounding instruction: nearbyint, floor and fmax were
 * calls, per output frame): u + 2^52 keeps no fraction bits, so it rounds u as
 * nearbyint does, in any rounding mode (not folded: the sum is inexact); a
 * truncating conversion is floor for positive u. Other u, or evaluation in
 * a wider format (x87), take libm's functions. */
#define PB_TWO52 4503599627370496.0
static int plain_pos(double u) { return FLT_EVAL_METHOD == 0 && u > 0 && u < PB_TWO52; }
static double near_int(double u) { return plain_pos(u) ? (u + PB_TWO52) - PB_TWO52 : nearbyint(u); }
static double floor_of(double u) { return plain_pos(u) ? (double)(uint64_t)u : floor(u); }

/* Where u falls: f, x and vscale (rate: 1 / frame_time); seg_frames adds
 * the segment's other frames, which follow from f alone. */
static PB_IN_LINE seg_pos locate(double u, size_t frames, unsigned flags, double rate)
{
    seg_pos s;
    double last = (double)(frames - 1);
    /* a time computed as f * frame_time comes back as f to a few ulps: make it
     * that frame, exactly */
    double un = near_int(u), au = fabs(u);
    if (fabs(u - un) <= 1e-9 * (au > 1.0 ? au : 1.0))
        u = un;
    s.vscale = rate;
    if (flags & PB_CLIP_LOOP) {
        u = fmod(u, (double)frames);
        if (u < 0)
            u += (double)frames;
        if (!(u < (double)frames)) /* fmod rounding of tiny negatives */
            u = 0;
    } else if (!(u > 0) || !(u < last)) {
        s.vscale = (u < 0 || u > last) ? 0.0 : s.vscale;
        u = u > 0 ? last : 0;
    }
    double fl = floor_of(u);
    s.f = (size_t)fl;
    s.x = (float)(u - fl);
    if (s.x >= 1.0f) { /* u just below an integer rounds up to it */
        s.f++;
        s.x = 0.0f;
    }
    if (flags & PB_CLIP_LOOP)
        s.f %= frames;
    else if (s.f > frames - 1)
        s.f = frames - 1;
    return s;
}
static PB_IN_LINE void seg_frames(seg_pos *s, size_t frames, unsigned flags)
{
    if (flags & PB_CLIP_LOOP) {
        s->f0 = (s->f + frames - 1) % frames;
        s->f2 = (s->f + 1) % frames;
        s->f3 = (s->f + 2) % frames;
    } else {
        s->f0 = s->f ? s->f - 1 : 0;
        s->f2 = s->f + 1 < frames ? s->f + 1 : frames - 1;
        s->f3 = s->f + 2 < frames ? s->f + 2 : frames - 1;
    }
}

/* Rotation offsets of frame pairs (a, b) for all joints, three slots: the
 * current segment needs (f0, f), (f, f2), (f2, f3), and moving on by one
 * segment keeps two of them, so each pair is computed once in a sweep. */
#define PB_OFFSET_SLOTS 3
typedef struct {
    float *buf;
    pb_vec3s d[PB_OFFSET_SLOTS];
    size_t a[PB_OFFSET_SLOTS], b[PB_OFFSET_SLOTS]; /* SIZE_MAX: empty */
    size_t seg;                                    /* segment of use[]; SIZE_MAX: none */
    int use[3];                                    /* slots of d01, d12, d23 */
    pb_quats keep; /* the previous output frame's tail block, padded */
    /* the last run's weights and what they were formed from (wm = 0: none) */
    pb_run_w w;
    float wx[PB_RUN_MAX], wvs;
    size_t wm;
} seg_cache;

/* joints rounded up to whole blocks of the widest backend (16 lanes) */
#define PB_PAD(n) (((n) + 15) & ~(size_t)15)

static int cache_init(seg_cache *c, size_t joints)
{
    size_t pad = PB_PAD(joints);
    c->buf = malloc((3 * PB_OFFSET_SLOTS * joints + 4 * pad) * sizeof(float));
    if (!c->buf)
        return 0;
    float *k = c->buf + 3 * PB_OFFSET_SLOTS * joints;
    pb_quats keep = {k, k + pad, k + 2 * pad, k + 3 * pad};
    c->keep = keep;
    for (int i = 0; i < PB_OFFSET_SLOTS; i++) {
        float *p = c->buf + (size_t)(3 * i) * joints;
        pb_vec3s v = {p, p + joints, p + 2 * joints};
        c->d[i] = v;
        c->a[i] = c->b[i] = SIZE_MAX;
    }
    c->seg = SIZE_MAX;
    c->use[0] = c->use[1] = c->use[2] = 0;
    c->wm = 0;
    return 1;
}

/* Points use[] at the offsets of segment s, computing the missing ones into
 * slots this segment does not need. */
static void cache_segment(const pb_kernels *k, const pb_clip *src, const seg_pos *s, seg_cache *c)
{
    size_t pa[3] = {s->f0, s->f, s->f2}, pb[3] = {s->f, s->f2, s->f3};
    unsigned taken = 0; /* slot i taken: bit i (a register, not an array) */
    for (int p = 0; p < 3; p++) {
        c->use[p] = -1;
        for (int i = 0; i < PB_OFFSET_SLOTS; i++)
            if (!(taken >> i & 1u) && c->a[i] == pa[p] && c->b[i] == pb[p]) {
                c->use[p] = i;
                taken |= 1u << i;
                break;
            }
    }
    for (int p = 0; p < 3; p++) {
        if (c->use[p] >= 0)
            continue;
        int i = 0;
        while (taken >> i & 1u)
            i++;
        taken |= 1u << i;
        c->use[p] = i;
        c->a[i] = pa[p];
        c->b[i] = pb[p];
        k->quat_offset(src->joints, rot_frame(src, pa[p]), rot_frame(src, pb[p]), c->d[i]);
    }
    c->seg = s->f;
}

/* Each frame's weights once for every track (hermite_w_k), not per kernel:
 * the rotations' half form, and with full the whole one for a run of
 * positions or scales (one frame takes the per-call kernels; within a call
 * full follows from m). A run with the parameters of the run before
 * (bitwise) keeps its weights: a resample's parameters repeat every few
 * frames (0, 1/4, 1/2, 3/4 at 4x). */
static void run_weights(seg_cache *c, const float *x, size_t m, float vs, int full)
{
    if (m == c->wm && memcmp(&vs, &c->wvs, sizeof vs) == 0 && memcmp(x, c->wx, m * sizeof *x) == 0)
        return;
    for (size_t f = 0; f < m; f++) {
        c->w.half[f] = hermite_w_k(x[f], vs, 0.5);
        if (full)
            c->w.full[f] = hermite_w_k(x[f], vs, 1.0);
    }
    memcpy(c->wx, x, m * sizeof *x);
    c->wvs = vs;
    c->wm = m;
}

/* the largest pose resampled in runs of several frames (measured: at 1024
 * joints runs were 1.4x slower on AVX2, at 256 1.1x faster, at 31 1.3x) */
#define PB_RUN_JOINTS 256

/* A run: output frames i .. i+m-1, all in segment s (same frames, same
 * velocity factor), at parameters x[0..m-1]. */
static void sample_run(const pb_kernels *k, const pb_clip *src, const seg_pos *s, const float *x,
                       size_t m, unsigned flags, seg_cache *cache, const pb_clip *dst,
                       const pb_clip_vel *vel, size_t i, int has_prev)
{
    size_t J = src->joints;
    if (cache->seg != s->f)
        cache_segment(k, src, s, cache);
    float vs = (float)s->vscale;
    run_weights(cache, x, m, vs, m > 1 && (dst->pos.x || dst->scale.x));
    const pb_run_w *w = &cache->w;
    pb_cquats prev = has_prev ? rot_frame(dst, i - 1) : (pb_cquats){0, 0, 0, 0};
    k->quat_cr_run(J, m, w, rot_frame(src, s->f), pb_cv(cache->d[cache->use[0]]),
                   pb_cv(cache->d[cache->use[1]]), pb_cv(cache->d[cache->use[2]]),
                   flags & PB_EXACT_VELOCITY, prev, cache->keep, rot_frame_w(dst, i),
                   v3_frame_w(vel ? vel->rot : no_vel, J, i));
    /* (one frame: the per-call kernels) */
    if (dst->pos.x && m == 1)
        k->vec3_catmull_rom(J, x[0], vs, v3_frame(src->pos, J, s->f0), v3_frame(src->pos, J, s->f),
                            v3_frame(src->pos, J, s->f2), v3_frame(src->pos, J, s->f3),
                            v3_frame_w(dst->pos, J, i), v3_frame_w(vel ? vel->pos : no_vel, J, i));
    else if (dst->pos.x)
        k->vec3_cr_run(J, m, w, v3_frame(src->pos, J, s->f0), v3_frame(src->pos, J, s->f),
                       v3_frame(src->pos, J, s->f2), v3_frame(src->pos, J, s->f3),
                       v3_frame_w(dst->pos, J, i), v3_frame_w(vel ? vel->pos : no_vel, J, i));
    if (dst->scale.x && m == 1)
        k->scale_catmull_rom(J, x[0], vs, v3_frame(src->scale, J, s->f0),
                             v3_frame(src->scale, J, s->f), v3_frame(src->scale, J, s->f2),
                             v3_frame(src->scale, J, s->f3), v3_frame_w(dst->scale, J, i),
                             v3_frame_w(vel ? vel->scale : no_vel, J, i));
    else if (dst->scale.x)
        k->scale_cr_run(J, m, w, v3_frame(src->scale, J, s->f0), v3_frame(src->scale, J, s->f),
                        v3_frame(src->scale, J, s->f2), v3_frame(src->scale, J, s->f3),
                        v3_frame_w(dst->scale, J, i), v3_frame_w(vel ? vel->scale : no_vel, J, i));
}

/* Samples at source frame positions u_i = (times ? times[i] / frame_time :
 * i * step), consecutive samples in one segment as one run (up to
 * PB_RUN_MAX). With stm, dst holds stm->cap + 1 frames: frame i goes to
 * slot i - base + 1, and before a run that would not fit, frames base .. i-1
 * are handed to stm->emit and the last of them moves to slot 0 (the
 * unrolling's previous frame): the same runs, the same values. */
static pb_status sample_at(const pb_clip *src, size_t count, const double *times, double step,
                           unsigned flags, pb_clip *dst, const pb_clip_vel *vel,
                           const pb_clip_stream *stm)
{
    seg_cache cache;
    if (!cache_init(&cache, src->joints))
        return PB_ERR_NOMEM;
    const pb_kernels *k = pb_kernels_for(src->joints);
    /* runs pay where the per-call work is the cost, at skeleton sizes; on
     * large poses their frames' rows (a multiple of 4 KiB apart at 1024
     * joints) compete for the same L1 sets: one frame per call there */
    const size_t cap = src->joints <= PB_RUN_JOINTS ? PB_RUN_MAX : 1;
    const double rate = 1.0 / src->frame_time;
    seg_pos s, t;
    size_t base = 0; /* stm: the first frame of the block in dst */
    int ahead = 0;   /* t is sample i's, located while extending the last run */
    for (size_t i = 0; i < count;) {
        s = ahead ? t
                  : locate(times ? times[i] / src->frame_time : (double)i * step, src->frames,
                           flags, rate);
        seg_frames(&s, src->frames, flags);
        float x[PB_RUN_MAX];
        x[0] = s.x;
        size_t m = 1;
        ahead = 0;
        while (m < cap && i + m < count) {
            size_t j = i + m;
            t = locate(times ? times[j] / src->frame_time : (double)j * step, src->frames, flags,
                       rate);
            if (t.f != s.f || t.vscale != s.vscale) { /* another segment */
                ahead = 1;
                break;
            }
            x[m++] = t.x;
        }
        size_t slot = i;
        if (stm) {
            if (i - base + m > stm->cap) {
                if (stm->emit(stm->ctx, base, i - base)) {
                    free(cache.buf);
                    return PB_ERR_ARG;
                }
                size_t last = (i - base) * src->joints, J = src->joints;
                memmove(dst->rot.w, dst->rot.w + last, J * sizeof(float));
                memmove(dst->rot.x, dst->rot.x + last, J * sizeof(float));
                memmove(dst->rot.y, dst->rot.y + last, J * sizeof(float));
                memmove(dst->rot.z, dst->rot.z + last, J * sizeof(float));
                base = i;
            }
            slot = i - base + 1;
        }
        sample_run(k, src, &s, x, m, flags, &cache, dst, vel, slot, i > 0);
        i += m;
    }
    free(cache.buf);
    if (stm && count > base && stm->emit(stm->ctx, base, count - base))
        return PB_ERR_ARG;
    return PB_OK;
}

pb_status pb_clip_resample_stream(const pb_clip *src, double fps, unsigned flags, pb_clip *buf,
                                  const pb_clip_stream *stm)
{
    size_t count = pb_clip_resample_frames(src, fps, flags);
    if (count == 0 || !buf || !stm || !stm->emit || stm->cap < PB_RUN_MAX ||
        buf->frames != stm->cap + 1 || buf->joints != src->joints || !buf->rot.w ||
        (src->pos.x && !buf->pos.x) || (src->scale.x && !buf->scale.x))
        return PB_ERR_ARG;
    pb_clip b = *buf;
    if (!src->pos.x)
        memset(&b.pos, 0, sizeof b.pos);
    if (!src->scale.x)
        memset(&b.scale, 0, sizeof b.scale);
    return sample_at(src, count, NULL, pb_clip_step(src->frame_time, fps), flags, &b, NULL, stm);
}

pb_status pb_clip_sample(const pb_clip *src, size_t count, const double *times, unsigned flags,
                         pb_clip *dst, const pb_clip_vel *vel)
{
    if (!times)
        return PB_ERR_NULL;
    pb_status st = sample_check(src, count, times, dst, vel, flags);
    if (st != PB_OK)
        return st;
    for (size_t i = 0; i < count; i++)
        if (!isfinite(times[i]))
            return PB_ERR_ARG;
    return sample_at(src, count, times, 0.0, flags, dst, vel, NULL);
}

/* The step in source frames, snapped to p/q (q <= 64) when within 1e-4
 * relative: BVH files print frame times to 6 or 7 digits (0.008333 is 1/120
 * to 4e-5), and rates are usually rational. */
double pb_clip_step(double frame_time, double fps)
{
    double step = 1.0 / (fps * frame_time);
    for (int q = 1; q <= 64; q++) {
        double p = floor(step * q + 0.5);
        if (p >= 1 && fabs(p / q - step) <= 1e-4 * step)
            return p / q;
    }
    return step;
}

size_t pb_clip_resample_frames(const pb_clip *src, double fps, unsigned flags)
{
    if (clip_shape(src) != PB_OK || !finite_pos(src->frame_time) || !finite_pos(fps) ||
        flags_ok(flags, PB_CLIP_LOOP | PB_EXACT_VELOCITY) != PB_OK)
        return 0;
    double step = pb_clip_step(src->frame_time, fps), n;
    if (!isfinite(step)) /* fps * frame_time underflowed */
        return 0;
    if (flags & PB_CLIP_LOOP)
        n = floor((double)src->frames / step + 0.5);
    else
        n = floor((double)(src->frames - 1) / step * (1.0 + 1e-12)) + 1; /* double rounding */
    if (n < 1)
        n = 1;
    if (!(n <= (double)PB_MAX_COUNT) || (size_t)n > PB_MAX_COUNT / src->joints)
        return 0;
    return (size_t)n;
}

pb_status pb_clip_resample(const pb_clip *src, double fps, unsigned flags, pb_clip *dst,
                           const pb_clip_vel *vel)
{
    if (!dst)
        return PB_ERR_NULL;
    size_t count = pb_clip_resample_frames(src, fps, flags);
    if (count == 0) { /* say why */
        pb_status st = clip_shape(src);
        if (st != PB_OK)
            return st;
        return finite_pos(fps) && finite_pos(src->frame_time) &&
                       isfinite(1.0 / (fps * src->frame_time)) &&
                       flags_ok(flags, PB_CLIP_LOOP | PB_EXACT_VELOCITY) == PB_OK
                   ? PB_ERR_SIZE
                   : PB_ERR_ARG;
    }
    pb_status st = sample_check(src, count, NULL, dst, vel, flags);
    if (st != PB_OK)
        return st;
    st = sample_at(src, count, NULL, pb_clip_step(src->frame_time, fps), flags, dst, vel, NULL);
    if (st == PB_OK)
        dst->frame_time = 1.0 / fps;
    return st;
}
