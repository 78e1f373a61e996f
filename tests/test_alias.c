/*
 * The argument checks against a brute-force model, on random layouts.
 *
 * Whatever shortcuts the checks take (a sorted table of the outputs, a span
 * test that lets most inputs pass with one comparison), the status must be
 * the one the contract gives array by array in registration order (outputs
 * first, then the inputs as the function lists them): the first NULL, or the
 * first output meeting an earlier output, or the first input meeting an
 * output other than exactly (an input may be exactly an output array where
 * the function allows it). Layouts are drawn to hit every case: batches in
 * one block, equally spaced, shuffled, overlapping by a few floats, exactly
 * an output batch (in place), an output batch's arrays permuted, NULL
 * components.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"

#define N 19                          /* joints: a tail on every backend */
#define BLOCKS 16                     /* blocks of 4 slots of N floats */
#define POOL (BLOCKS * 4 * N + 2 * N) /* a margin of N at both ends */
#define ROUNDS 4000

static float pool[POOL];

static uint64_t rng_state;
static unsigned rnd(unsigned m)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng_state >> 33) % m;
}

/* one array of N floats: pool offset, or -1 for NULL */
typedef struct {
    int off[4];
    int cnt;
    int out;
} batch;

static float *at(int off) { return off < 0 ? NULL : pool + off; }

/* Each batch gets a block of its own (distinct blocks: no overlap), its
 * arrays in order, reversed or shuffled, and then, now and then, one array
 * or the whole batch moved by up to N floats either way (a partial overlap
 * or none), a NULL component, or (inputs) exactly an output batch, in order
 * or permuted. */
/* run: the outputs instead packed in the lowest, the highest or the middle
 * blocks, in order, their arrays in order (one buffer cut track after
 * track: the layout the checks take at a glance), the run ending exactly
 * where the next input block starts (or starting where the one below
 * ends), and the events (as for any batch) for one batch only, its shifts
 * half the time by one float. run 2: the same run with its arrays in a
 * random order across the outputs (quaternions stored x, y, z, w, tracks
 * in another order: the pose blend's glance sorts them). */
static void place(batch *b, int nb, int run)
{
    int blocks[BLOCKS];
    for (int i = 0; i < BLOCKS; i++)
        blocks[i] = i;
    for (int i = BLOCKS - 1; i > 0; i--) {
        int j = (int)rnd((unsigned)i + 1), t = blocks[i];
        blocks[i] = blocks[j];
        blocks[j] = t;
    }
    int nouts = 0;
    while (nouts < nb && b[nouts].out)
        nouts++;
    int packed = 0; /* run: the next output's offset */
    if (run) {
        /* the run's blocks: the lowest, the highest or the middle ones (inputs
         * on both sides); the other batches in the others, shuffled */
        int where = (int)rnd(3);
        int b0 = where == 0 ? 0 : where == 1 ? BLOCKS - nouts : BLOCKS / 2 - nouts / 2;
        int rest = nouts;
        for (int i = 0; i < BLOCKS; i++)
            if (i < b0 || i >= b0 + nouts)
                blocks[rest++] = i;
        for (int k = 0; k < nouts; k++)
            blocks[k] = b0 + k;
        for (int i = BLOCKS - 1; i > nouts; i--) {
            int j = nouts + (int)rnd((unsigned)(i - nouts) + 1), t = blocks[i];
            blocks[i] = blocks[j];
            blocks[j] = t;
        }
        /* packed against the block above (the one below for the highest) */
        int total = 0;
        for (int k = 0; k < nouts; k++)
            total += b[k].cnt * N;
        packed = where == 1 ? N + b0 * 4 * N : N + (b0 + nouts) * 4 * N - total;
    }
    int slots[64], ns = 0; /* run 2: the run's array slots, shuffled */
    if (run == 2) {
        for (int k = 0; k < nouts; k++)
            for (int i = 0; i < b[k].cnt; i++, ns++)
                slots[ns] = packed + N * ns;
        for (int i = ns - 1; i > 0; i--) {
            int j = (int)rnd((unsigned)i + 1), t = slots[i];
            slots[i] = slots[j];
            slots[j] = t;
        }
        ns = 0;
    }
    int ev = (int)rnd((unsigned)nb); /* run: the one batch with an event */
    for (int k = 0; k < nb; k++) {
        int base = N + blocks[k] * 4 * N, order = run && k < nouts ? 0 : (int)rnd(3);
        if (run && k < nouts) {
            base = packed;
            packed += b[k].cnt * N;
        }
        for (int i = 0; i < b[k].cnt; i++)
            b[k].off[i] = run == 2 && k < nouts ? slots[ns++]
                                                : base + N * (order == 1 ? b[k].cnt - 1 - i : i);
        if (order == 2)
            for (int i = b[k].cnt - 1; i > 0; i--) {
                int j = (int)rnd((unsigned)i + 1), t = b[k].off[i];
                b[k].off[i] = b[k].off[j];
                b[k].off[j] = t;
            }
        int event = (int)rnd(100);
        int shift = (int)rnd(2 * N + 1) - N;
        if (run) { /* one batch's event, shifts often by one float: the edges */
            event = k == ev ? (int)rnd(30) : 100;
            if (rnd(2))
                shift = rnd(2) ? 1 : -1;
        }
        if (event < 6) { /* one array moved */
            b[k].off[rnd((unsigned)b[k].cnt)] += shift;
        } else if (event < 12) { /* the whole batch moved */
            for (int i = 0; i < b[k].cnt; i++)
                b[k].off[i] += shift;
        } else if (event < 15) {
            b[k].off[rnd((unsigned)b[k].cnt)] = -1;
        } else if (event < 30 && !b[k].out && nouts > 0) { /* an output's arrays */
            const batch *o = &b[rnd((unsigned)nouts)];
            for (int i = 0; i < b[k].cnt; i++)
                b[k].off[i] = o->off[i % o->cnt];
            if (event >= 24) /* permuted */
                for (int i = b[k].cnt - 1; i > 0; i--) {
                    int j = (int)rnd((unsigned)i + 1), t = b[k].off[i];
                    b[k].off[i] = b[k].off[j];
                    b[k].off[j] = t;
                }
        }
    }
}

static int meets(int a, int b) { return a < b + N && b < a + N; }

/* the contract, array by array in registration order */
static pb_status model(const batch *bs, int nb, int exact_ok)
{
    int outs[16], nout = 0;
    pb_status st = PB_OK;
    for (int k = 0; k < nb; k++)
        for (int i = 0; i < bs[k].cnt; i++) {
            int o = bs[k].off[i];
            pb_status s = PB_OK;
            if (o < 0) {
                s = PB_ERR_NULL;
            } else {
                for (int j = 0; j < nout; j++)
                    if (meets(o, outs[j]) && (bs[k].out || !exact_ok || o != outs[j]))
                        s = PB_ERR_ALIAS;
                if (bs[k].out)
                    outs[nout++] = o;
            }
            if (st == PB_OK)
                st = s;
        }
    return st;
}

static pb_quats qof(const batch *b)
{
    pb_quats q = {at(b->off[0]), at(b->off[1]), at(b->off[2]), at(b->off[3])};
    return q;
}
static pb_cquats cqof(const batch *b)
{
    pb_cquats q = {at(b->off[0]), at(b->off[1]), at(b->off[2]), at(b->off[3])};
    return q;
}
static pb_vec3s vof(const batch *b)
{
    pb_vec3s v = {at(b->off[0]), at(b->off[1]), at(b->off[2])};
    return v;
}
static pb_cvec3s cvof(const batch *b)
{
    pb_cvec3s v = {at(b->off[0]), at(b->off[1]), at(b->off[2])};
    return v;
}

static void fill_pool(void)
{
    for (int i = 0; i < POOL; i++)
        pool[i] = 0.5f;
}

/* pb_quat_hermite: outputs rot (4), vel (3); inputs r0, r1 (4), v0, v1 (3) */
Test(alias, hermite_matches_the_model)
{
    rng_state = 12345;
    int seen[8] = {0};
    for (int r = 0; r < ROUNDS; r++) {
        batch b[6] = {{{0}, 4, 1}, {{0}, 3, 1}, {{0}, 4, 0}, {{0}, 4, 0}, {{0}, 3, 0}, {{0}, 3, 0}};
        place(b, 6, r & 1); /* every other round the outputs in one run */
        fill_pool();
        pb_status want = model(b, 6, 1);
        pb_status got = pb_quat_hermite(N, 0.3f, cqof(&b[2]), cqof(&b[3]), cvof(&b[4]), cvof(&b[5]),
                                        0, qof(&b[0]), vof(&b[1]));
        cr_assert_eq(got, want, "round %d: status %d, the contract says %d", r, got, want);
        seen[got]++;
    }
    /* every outcome was drawn often enough to mean something */
    cr_expect_gt(seen[PB_OK], ROUNDS / 10);
    cr_expect_gt(seen[PB_ERR_ALIAS], ROUNDS / 10);
    cr_expect_gt(seen[PB_ERR_NULL], ROUNDS / 100);
}

/* pb_quat_nlerp: output out (4); inputs a, b (4), exactly out allowed */
Test(alias, nlerp_in_place_and_permuted)
{
    rng_state = 777;
    int ok = 0, in_place = 0;
    for (int r = 0; r < ROUNDS; r++) {
        batch b[3] = {{{0}, 4, 1}, {{0}, 4, 0}, {{0}, 4, 0}};
        place(b, 3, r & 1);
        fill_pool();
        pb_status want = model(b, 3, 1);
        pb_status got = pb_quat_nlerp(N, 0.3f, cqof(&b[1]), cqof(&b[2]), 0, qof(&b[0]));
        cr_assert_eq(got, want, "round %d: status %d, the contract says %d", r, got, want);
        ok += got == PB_OK;
        in_place += got == PB_OK && !memcmp(b[1].off, b[0].off, sizeof b[0].off);
    }
    cr_expect_gt(ok, ROUNDS / 10);
    cr_expect_gt(in_place, ROUNDS / 50);
}

/* pb_pose_blend, raw_ref: outputs rot (4), pos (3), scale (3); inputs the
 * reference's tracks (4, 3, 3) and k = 3 poses (4, 3, 3 each); no input may
 * be even exactly an output */
Test(alias, pose_blend_matches_the_model)
{
    rng_state = 4242;
    int ok = 0, alias = 0, ok_run = 0;
    for (int r = 0; r < ROUNDS; r++) {
        enum { NB = 15 };
        batch b[NB] = {{{0}, 4, 1}, {{0}, 3, 1}, {{0}, 3, 1}};
        for (int k = 3; k < NB; k++)
            b[k].cnt = (k == 3 || (k >= 6 && k < 9)) ? 4 : 3;
        place(b, NB, r & 1); /* every other round the outputs in one run */
        fill_pool();
        /* outputs first; no input of a blend may alias an output at all */
        pb_status want = model(b, NB, 0);
        pb_cquats rot[3] = {cqof(&b[6]), cqof(&b[7]), cqof(&b[8])};
        pb_cvec3s pos[3] = {cvof(&b[9]), cvof(&b[10]), cvof(&b[11])};
        pb_cvec3s scl[3] = {cvof(&b[12]), cvof(&b[13]), cvof(&b[14])};
        const float w[3] = {0.2f, 0.3f, 0.5f};
        pb_cpose ref = {cqof(&b[3]), cvof(&b[4]), cvof(&b[5])};
        pb_pose out = {qof(&b[0]), vof(&b[1]), vof(&b[2])};
        pb_status got = pb_pose_blend(N, 3, rot, pos, scl, w, PB_BLEND_RAW_REF, &ref, &out);
        /* the library checks the inputs in another order than b[] lists
         * them, which only decides which error comes first when there are
         * several: compare success and failure */
        cr_assert_eq(got == PB_OK, want == PB_OK, "round %d: status %d, the contract says %d", r,
                     got, want);
        ok += got == PB_OK;
        ok_run += got == PB_OK && (r & 1);
        alias += got == PB_ERR_ALIAS;
    }
    cr_expect_gt(ok - ok_run, ROUNDS / 100);
    cr_expect_gt(ok_run, ROUNDS / 50);
    cr_expect_gt(alias, ROUNDS / 10);
}

/* pb_pose_blend_layers, raw_ref: outputs rot (4), pos (3), scale (3);
 * inputs the reference's tracks, two blended layers (rot, pos, scale, joint
 * weights: absent when drawn NULL) and one additive layer (rot, pos; its
 * scale absent); no input may be even exactly an output. A quarter of the
 * rounds place the outputs in one ascending run below or above every input
 * batch, the layout the check takes at a glance, and a quarter in such a
 * run with the ten arrays in a random order (the glance sorts them). */
Test(alias, pose_blend_layers_matches_the_model)
{
    rng_state = 9191;
    int ok = 0, alias = 0, ok_run = 0, ok_perm = 0, alias_perm = 0;
    enum { R = 4 * ROUNDS }; /* 13 input batches: a round without error is rarer */
    for (int r = 0; r < R; r++) {
        enum { NB = 16 };
        static const int cnt[NB] = {4, 3, 3, 4, 3, 3, 4, 3, 3, 1, 4, 3, 3, 1, 4, 3};
        batch b[NB];
        for (int k = 0; k < NB; k++) {
            b[k].cnt = cnt[k];
            b[k].out = k < 3;
        }
        int run = rnd(2) ? 1 + (int)rnd(2) : 0;
        place(b, NB, run);
        fill_pool();
        /* joint weights drawn NULL are absent, not an error: out of the model */
        batch m[NB];
        int nm = 0;
        for (int k = 0; k < NB; k++)
            if (!((k == 9 || k == 13) && b[k].off[0] < 0))
                m[nm++] = b[k];
        pb_status want = model(m, nm, 0);
        pb_blend_layer layers[2], add;
        for (int i = 0; i < 2; i++) {
            const batch *l = &b[6 + 4 * i];
            layers[i].weight = 0.5f + (float)i;
            layers[i].joint_weights = at(l[3].off[0]);
            pb_cpose p = {cqof(&l[0]), cvof(&l[1]), cvof(&l[2])};
            layers[i].pose = p;
        }
        add.weight = 0.5f;
        add.joint_weights = NULL;
        pb_cpose ap = {cqof(&b[14]), cvof(&b[15]), {NULL, NULL, NULL}};
        add.pose = ap;
        pb_cpose ref = {cqof(&b[3]), cvof(&b[4]), cvof(&b[5])};
        pb_blend_desc d = {N, layers, 2, &add, 1, PB_BLEND_RAW_REF, 0u, &ref};
        pb_pose out = {qof(&b[0]), vof(&b[1]), vof(&b[2])};
        pb_status got = pb_pose_blend_layers(&d, &out);
        /* success and failure as the model (the order of several errors is
         * the library's, as for pb_pose_blend) */
        cr_assert_eq(got == PB_OK, want == PB_OK,
                     "round %d (run %d): status %d, the contract says %d", r, run, got, want);
        ok += got == PB_OK;
        ok_run += got == PB_OK && run == 1;
        ok_perm += got == PB_OK && run == 2;
        alias += got == PB_ERR_ALIAS;
        alias_perm += got == PB_ERR_ALIAS && run == 2;
    }
    cr_expect_gt(ok_run, R / 50);
    cr_expect_gt(ok_perm, R / 50);
    cr_expect_gt(alias_perm, R / 50);
    cr_expect_gt(ok - ok_run - ok_perm, R / 50);
    cr_expect_gt(alias, R / 2);
}

/* An input of another length than the call's arrays (the weights: k floats)
 * right below or right after the outputs' run is fine, and one float into
 * it is not, whichever pass decides. */
Test(alias, weights_at_the_edges_of_the_outputs)
{
    enum { K = 3 };
    fill_pool();
    float *run = pool + 8 * N; /* the output: 4 arrays of N floats in order */
    pb_quats out = {run, run + N, run + 2 * N, run + 3 * N};
    pb_cquats samples[K];
    for (int i = 0; i < K; i++) { /* well below the run (inputs may overlap one another) */
        const float *s = pool + N + i;
        pb_cquats q = {s, s, s, s};
        samples[i] = q;
    }
    const struct {
        const float *w;
        pb_status want;
    } cases[] = {
        {run - K, PB_OK},
        {run - K + 1, PB_ERR_ALIAS},
        {run + 4 * N, PB_OK},
        {run + 4 * N - 1, PB_ERR_ALIAS},
        {run + 2 * N, PB_ERR_ALIAS},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pb_status got = pb_quat_average_raw(N, K, samples, cases[c].w, out);
        cr_assert_eq(got, cases[c].want, "case %zu: status %d, want %d", c, got, cases[c].want);
    }
}
