/* The joint-name index (src/skeleton/joint_names.c, internal: linked with the
 * static library) that pairs a skeleton's joints by name for mirroring:
 * what it finds, and that the work of pairing n names is linear in n (slots
 * probed and texts compared counted), so that a hash or table that makes
 * pairing quadratic again (pb_joint_mirror_table of 40,000 joints once took
 * 29 s) fails here in milliseconds. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joint_names.h"

Test(joint_names, index_finds_ignoring_case)
{
    const char *const names[] = {"Hips", "LeftArm", "RightArm", "hand_L", "HAND_l", "Spine"};
    jn_index ix;
    cr_assert_eq(jn_index_init(&ix, names, 6), 0);
    cr_expect_eq(jn_index_find(&ix, "hips"), 0);
    cr_expect_eq(jn_index_find(&ix, "RIGHTARM"), 2);
    cr_expect_eq(jn_index_find(&ix, "leftarm"), 1);
    cr_expect_eq(jn_index_find(&ix, "Hand_l"), -2, "two names of one text: several");
    cr_expect_eq(jn_index_find(&ix, "Spin"), -1);
    cr_expect_eq(jn_index_find(&ix, "Spinee"), -1);
    cr_expect_eq(jn_index_find(&ix, ""), -1);
    jn_index_free(&ix);
    cr_assert_eq(jn_index_init(&ix, names, 0), 0, "no names");
    cr_expect_eq(jn_index_find(&ix, "Hips"), -1);
    jn_index_free(&ix);
}

/* 16,384 names in rig families (LeftArm_N / RightArm_N, Hand_N_L / _R,
 * lFoot_N / rFoot_N, centre Spine_N), long shared prefixes and suffixes
 * included: indexed, and each name's counterpart looked up as
 * pb_joint_mirror_table does (twice: there and back). At most 4 probes and
 * 1.01 text comparisons per operation on average (a table at most half full
 * with a hash that spreads these names: about 1.5 and 1); quadratic work
 * would be thousands per operation. */
Test(joint_names, pairing_work_is_linear, .timeout = 60)
{
    const size_t n = 16384;
    char *pool = malloc(n * 48);
    const char **names = malloc(n * sizeof *names);
    cr_assert(pool && names);
    for (size_t j = 0; j < n; j++) {
        char *p = pool + j * 48;
        size_t i = j / 2, side = j % 2;
        switch ((j / 2) % 4) {
        case 0: snprintf(p, 48, "%sArm_%zu", side ? "Right" : "Left", i); break;
        case 1: snprintf(p, 48, "mixamorig:Hand_%zu_%c", i, side ? 'R' : 'L'); break;
        case 2: snprintf(p, 48, "%cFoot%zu", side ? 'r' : 'l', i); break;
        default: snprintf(p, 48, "Spine_%zu_%s", i, side ? "b" : "a"); break;
        }
        names[j] = p;
    }
    jn_index ix;
    cr_assert_eq(jn_index_init(&ix, names, n), 0);
    size_t ops = n, paired = 0;
    char cp[512], back[512];
    for (size_t j = 0; j < n; j++) {
        cr_expect_eq(jn_index_find(&ix, names[j]), (long)j);
        ops++;
        if (jn_counterpart(names[j], cp, sizeof cp) == JN_NONE)
            continue;
        long c = jn_index_find(&ix, cp);
        ops++;
        if (c < 0)
            continue;
        cr_expect_eq((size_t)c, j ^ 1, "%s -> %s", names[j], names[c]);
        cr_assert_neq(jn_counterpart(names[c], back, sizeof back), JN_NONE);
        cr_expect_eq(jn_index_find(&ix, back), (long)j);
        ops++;
        paired++;
    }
    cr_expect_eq(paired, n / 4 * 3, "every family pairs");
    fprintf(stderr, "joint names: %zu operations, %zu probes, %zu texts compared\n", ops, ix.probes,
            ix.texts);
    cr_expect_leq(ix.probes, 4 * ops, "%zu probes for %zu operations", ix.probes, ops);
    cr_expect_leq(ix.texts, ops + ops / 100, "%zu texts compared for %zu operations", ix.texts,
                  ops);
    jn_index_free(&ix);
    free(names);
    free(pool);
}
