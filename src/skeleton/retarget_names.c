/* Retargeting: which target joint plays which source joint. Name keys
 * (words, side, family), the per-skeleton resolution of keys used twice,
 * the explicit map, and the checks on the result (root pair, count,
 * ambiguous names). The rules are documented in posebatch/io.h. */
#include "retarget_names.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

/* ------------------------------------------------------------ families */

enum { SIDELESS = 0, SIDED = 1 };

static const char *const family_names[] = {
    "hips", "spine",  "spine1", "spine2",  "spine3", "chest", "upperchest", "neck", "neck1",
    "head", "collar", "arm",    "forearm", "hand",   "upleg", "leg",        "foot", "toe",
};
enum {
    F_HIPS,
    F_SPINE,
    F_SPINE1,
    F_SPINE2,
    F_SPINE3,
    F_CHEST,
    F_UPPERCHEST,
    F_NECK,
    F_NECK1,
    F_HEAD,
    F_COLLAR,
    F_ARM,
    F_FOREARM,
    F_HAND,
    F_UPLEG,
    F_LEG,
    F_FOOT,
    F_TOE,
    F_COUNT
};

typedef struct alias {
    const char *core;
    int sided;
    int family;
    int alt;
} alias;

static const alias aliases[] = {
    {"hips", SIDELESS, F_HIPS, -1},
    {"hip", SIDELESS, F_HIPS, -1},
    {"pelvis", SIDELESS, F_HIPS, -1},
    {"root", SIDELESS, F_HIPS, -1},
    {"spine", SIDELESS, F_SPINE, -1},
    {"spine1", SIDELESS, F_SPINE1, -1},
    {"spine2", SIDELESS, F_SPINE2, -1},
    {"spine3", SIDELESS, F_SPINE3, -1},
    {"chest", SIDELESS, F_CHEST, -1},
    {"thorax", SIDELESS, F_CHEST, -1},
    {"upperchest", SIDELESS, F_UPPERCHEST, -1},
    {"neck", SIDELESS, F_NECK, -1},
    {"neck1", SIDELESS, F_NECK1, -1},
    {"head", SIDELESS, F_HEAD, -1},
    {"collar", SIDED, F_COLLAR, -1},
    {"clavicle", SIDED, F_COLLAR, -1},
    {"shoulder", SIDED, F_COLLAR, F_ARM},
    {"arm", SIDED, F_ARM, -1},
    {"upperarm", SIDED, F_ARM, -1},
    {"humerus", SIDED, F_ARM, -1},
    {"forearm", SIDED, F_FOREARM, -1},
    {"lowerarm", SIDED, F_FOREARM, -1},
    {"elbow", SIDED, F_FOREARM, -1},
    {"hand", SIDED, F_HAND, -1},
    {"wrist", SIDED, F_HAND, -1},
    {"upleg", SIDED, F_UPLEG, -1},
    {"upperleg", SIDED, F_UPLEG, -1},
    {"thigh", SIDED, F_UPLEG, -1},
    {"hip", SIDED, F_UPLEG, -1},
    {"femur", SIDED, F_UPLEG, -1},
    {"leg", SIDED, F_LEG, -1},
    {"lowerleg", SIDED, F_LEG, -1},
    {"knee", SIDED, F_LEG, -1},
    {"shin", SIDED, F_LEG, -1},
    {"calf", SIDED, F_LEG, -1},
    {"foot", SIDED, F_FOOT, -1},
    {"ankle", SIDED, F_FOOT, -1},
    {"toebase", SIDED, F_TOE, -1},
    {"toe", SIDED, F_TOE, -1},
    {"toes", SIDED, F_TOE, -1},
    {"ball", SIDED, F_TOE, -1},
};

const char *rt_family_name(int family)
{
    return family >= 0 && family < F_COUNT ? family_names[family] : NULL;
}

int rt_family_is(int family, const char *name)
{
    const char *f = rt_family_name(family);
    return f && strcmp(f, name) == 0;
}

int rt_family_bends(int family)
{
    switch (family) {
    case F_SPINE:
    case F_SPINE1:
    case F_SPINE2:
    case F_SPINE3:
    case F_CHEST:
    case F_UPPERCHEST:
    case F_NECK:
    case F_NECK1: return 1;
    default: return 0;
    }
}

/* ------------------------------------------------------------ name keys */

#define MAX_WORDS 32

typedef struct words {
    int n;
    char w[MAX_WORDS][RT_CORE_MAX];
} words;

static void push_word(words *ws, const char *s, size_t len)
{
    if (ws->n >= MAX_WORDS || len == 0)
        return;
    if (len >= RT_CORE_MAX)
        len = RT_CORE_MAX - 1;
    char *d = ws->w[ws->n++];
    size_t k = 0;
    int digits = 1;
    for (size_t i = 0; i < len; i++)
        digits &= isdigit((unsigned char)s[i]) != 0;
    size_t i = 0;
    if (digits) /* "01" -> "1", "00" -> "0" */
        while (i + 1 < len && s[i] == '0')
            i++;
    for (; i < len; i++)
        d[k++] = (char)tolower((unsigned char)s[i]);
    d[k] = '\0';
}

/* Words of a name: runs of letters and digits, split at lower->upper case
 * changes, at the last capital of a capital run followed by a lower-case
 * letter ("LHip": L Hip) and between letters and digits. */
static void split_words(const char *name, words *ws)
{
    ws->n = 0;
    const char *colon = strrchr(name, ':');
    if (colon && colon[1])
        name = colon + 1;
    size_t n = strlen(name);
    size_t start = 0;
    int in = 0;
    for (size_t i = 0; i <= n; i++) {
        unsigned char c = i < n ? (unsigned char)name[i] : 0;
        int alnum = c && isalnum(c);
        if (!alnum) {
            if (in)
                push_word(ws, name + start, i - start);
            in = 0;
            continue;
        }
        if (!in) {
            start = i;
            in = 1;
            continue;
        }
        unsigned char p = (unsigned char)name[i - 1];
        unsigned char nx = i + 1 < n ? (unsigned char)name[i + 1] : 0;
        int cut = (islower(p) && isupper(c)) || (isupper(p) && isupper(c) && nx && islower(nx)) ||
                  (isdigit(p) != 0) != (isdigit(c) != 0);
        if (cut) {
            push_word(ws, name + start, i - start);
            start = i;
        }
    }
}

static int is_number(const char *w) { return w[0] && isdigit((unsigned char)w[0]); }

static int is_prefix_word(const char *w)
{
    static const char *const p[] = {"mixamorig", "bip", "biped", "character",
                                    "joint",     "jnt", "def"};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (strcmp(w, p[i]) == 0)
            return 1;
    return 0;
}

static char side_of_word(const char *w)
{
    if (strcmp(w, "l") == 0 || strcmp(w, "left") == 0)
        return 'L';
    if (strcmp(w, "r") == 0 || strcmp(w, "right") == 0)
        return 'R';
    return 0;
}

void rt_name_key(const char *name, rt_key *k)
{
    memset(k, 0, sizeof *k);
    k->family = -1;
    k->alt = -1;
    words ws;
    split_words(name, &ws);
    int first = 0, last = ws.n; /* words [first, last) */
    /* prefix words (with the number after "bip01", "character1") */
    while (last - first > 1 && is_prefix_word(ws.w[first])) {
        first++;
        if (last - first > 1 && is_number(ws.w[first]))
            first++;
    }
    if (last - first > 1 && side_of_word(ws.w[first])) {
        k->side = side_of_word(ws.w[first]);
        first++;
    } else if (last - first > 1 && side_of_word(ws.w[last - 1])) {
        k->side = side_of_word(ws.w[last - 1]);
        last--;
    }
    size_t len = 0;
    for (int i = first; i < last; i++) {
        size_t wl = strlen(ws.w[i]);
        if (len + wl >= RT_CORE_MAX)
            break;
        memcpy(k->core + len, ws.w[i], wl);
        len += wl;
    }
    k->core[len] = '\0';
    /* a lower-case name "leftarm", "armright" */
    if (!k->side) {
        static const struct {
            const char *s;
            char side;
        } sw[] = {{"left", 'L'}, {"right", 'R'}};
        for (int i = 0; i < 2 && !k->side; i++) {
            size_t sl = strlen(sw[i].s);
            if (len > sl && strncmp(k->core, sw[i].s, sl) == 0) {
                memmove(k->core, k->core + sl, len - sl + 1);
                k->side = sw[i].side;
            } else if (len > sl && strcmp(k->core + len - sl, sw[i].s) == 0) {
                k->core[len - sl] = '\0';
                k->side = sw[i].side;
            }
        }
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if ((aliases[i].sided != 0) == (k->side != 0) && strcmp(aliases[i].core, k->core) == 0) {
            k->family = aliases[i].family;
            k->alt = aliases[i].alt;
            k->rank = strcmp(aliases[i].core, family_names[k->family]) != 0;
            break;
        }
}

/* ------------------------------------------------------------ key strings */

/* "L#upleg" for a family, "L:thumb" for a core; "" when there is no key */
static void key_string(const rt_key *k, char *out, size_t size)
{
    if (k->family < 0 && !k->core[0]) {
        out[0] = '\0';
        return;
    }
    snprintf(out, size, "%c%c%s", k->side ? k->side : '-', k->family >= 0 ? '#' : ':',
             k->family >= 0 ? family_names[k->family] : k->core);
}

typedef struct keyed {
    char key[RT_CORE_MAX + 4];
    int rank;
    int loser; /* another joint of the skeleton has the key and wins */
    long index;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The keys of a skeleton's joints not in `taken` ("" for those), sorted by
 * key, then rank, then file order; in each run of one key all but the first
 * are losers. NULL when out of memory. */
static keyed *skeleton_keys(const pb_bvh *b, const unsigned char *taken)
{
    size_t J = b->num_joints;
    keyed *ks = calloc(J, sizeof *ks);
    rt_key *raw = calloc(J, sizeof *raw);
    if (!ks || !raw) {
        free(ks);
        free(raw);
        return NULL;
    }
    for (size_t j = 0; j < J; j++) {
        ks[j].index = (long)j;
        if (taken[j])
            continue;
        rt_name_key(b->joints[j].name, &raw[j]);
        key_string(&raw[j], ks[j].key, sizeof ks[j].key);
        ks[j].rank = raw[j].rank;
    }
    /* a joint whose key an ancestor has moves to its alternative family
     * (a "shoulder" below a collar is the arm) */
    for (size_t j = 0; j < J; j++) {
        if (taken[j] || raw[j].alt < 0 || !ks[j].key[0])
            continue;
        for (int32_t a = b->joints[j].parent; a >= 0; a = b->joints[a].parent)
            if (strcmp(ks[a].key, ks[j].key) == 0) {
                rt_key moved = raw[j];
                moved.family = raw[j].alt;
                moved.alt = -1;
                key_string(&moved, ks[j].key, sizeof ks[j].key);
                break;
            }
    }
    qsort(ks, J, sizeof *ks, cmp_keyed);
    for (size_t i = 1; i < J; i++)
        ks[i].loser = strcmp(ks[i].key, ks[i - 1].key) == 0;
    free(raw);
    return ks;
}

static int cmp_key_only(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const keyed *)elem)->key);
}

/* ------------------------------------------------------------ exact names */

typedef struct named {
    const char *name;
    long index;
} named;

static int cmp_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index < y->index ? -1 : x->index > y->index);
}

/* The joints sorted by name (NULL when out of memory). */
static named *name_index(const pb_bvh *b)
{
    named *ix = malloc(b->num_joints * sizeof *ix);
    if (!ix)
        return NULL;
    for (size_t j = 0; j < b->num_joints; j++) {
        ix[j].name = b->joints[j].name;
        ix[j].index = (long)j;
    }
    qsort(ix, b->num_joints, sizeof *ix, cmp_named);
    return ix;
}

/* The first joint named `name`, -1 if none; *other: a second joint of that
 * name, -1 if none. */
static long find_name(const named *ix, size_t n, const char *name, long *other)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ix[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= n || strcmp(ix[lo].name, name) != 0)
        return -1;
    if (other)
        *other = lo + 1 < n && strcmp(ix[lo + 1].name, name) == 0 ? ix[lo + 1].index : -1;
    return ix[lo].index;
}

/* ------------------------------------------------------------ checks */

static pb_io_code check_skeleton(const pb_bvh *b, const char *which, pb_io_error *err)
{
    if (b->num_joints == 0 || !b->joints)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "the %s skeleton has no joints", which);
    for (size_t j = 0; j < b->num_joints; j++) {
        int32_t p = b->joints[j].parent;
        if (p < -1 || (int64_t)p >= (int64_t)j)
            return io_set_err(err, PB_IO_ERR_ARG, 0,
                              "the %s skeleton's joint %zu has parent %ld (parents must come "
                              "first)",
                              which, j, (long)p);
        if (!b->joints[j].name)
            return io_set_err(err, PB_IO_ERR_ARG, 0, "the %s skeleton's joint %zu has no name",
                              which, j);
    }
    return PB_IO_OK;
}

static int is_below(const pb_bvh *b, long j, long anc)
{
    for (long a = j; a >= 0; a = b->joints[a].parent)
        if (a == anc)
            return 1;
    return 0;
}

static void line_prefix(const pb_retarget_map *map, size_t i, char *buf, size_t size)
{
    if (map->line && map->line[i] > 0)
        snprintf(buf, size, "map line %ld: ", map->line[i]);
    else
        snprintf(buf, size, "map pair %zu: ", i + 1);
}

/* The name used twice by a matched joint's skeleton: fills err. */
static pb_io_code ambiguous(pb_io_error *err, const char *which, const char *name, long a, long b)
{
    return io_set_err(err, PB_IO_ERR_ARG, 0,
                      "the %s skeleton has two joints named '%s' (joints %ld and %ld): "
                      "matching by name is ambiguous",
                      which, name, a < b ? a : b, a < b ? b : a);
}

pb_io_code rt_match(const pb_bvh *src, const pb_bvh *tgt, const pb_retarget_map *map, int map_only,
                    long *match_t, pb_io_error *err)
{
    pb_io_code code;
    if ((code = check_skeleton(src, "source", err)) || (code = check_skeleton(tgt, "target", err)))
        return code;
    if (map && map->count && (!map->source || !map->target))
        return io_set_err(err, PB_IO_ERR_ARG, 0, "the map has %zu pairs but no names", map->count);
    const size_t Js = src->num_joints, Jt = tgt->num_joints;
    long *mt = malloc(Jt * sizeof *mt);
    long *ms = malloc(Js * sizeof *ms);
    long *map_of_s = malloc(Js * sizeof *map_of_s); /* map pair that took it, -1 */
    long *map_of_t = malloc(Jt * sizeof *map_of_t);
    unsigned char *taken_s = calloc(Js, 1), *taken_t = calloc(Jt, 1);
    named *ixs = name_index(src), *ixt = name_index(tgt);
    keyed *ks = NULL, *kt = NULL;
    code = PB_IO_OK;
    if (!mt || !ms || !map_of_s || !map_of_t || !taken_s || !taken_t || !ixs || !ixt) {
        code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory matching joints");
        goto done;
    }
    for (size_t j = 0; j < Js; j++)
        ms[j] = map_of_s[j] = -1;
    for (size_t j = 0; j < Jt; j++)
        mt[j] = map_of_t[j] = -1;

    /* 1. the map */
    for (size_t i = 0; map && i < map->count; i++) {
        char at[64];
        line_prefix(map, i, at, sizeof at);
        const char *sn = map->source[i], *tn = map->target[i];
        if (!sn || !tn || !sn[0] || !tn[0]) {
            code = io_set_err(err, PB_IO_ERR_ARG, 0, "%san empty joint name", at);
            goto done;
        }
        long s = find_name(ixs, Js, sn, NULL), t = find_name(ixt, Jt, tn, NULL);
        if (s < 0 || t < 0) {
            code = io_set_err(err, PB_IO_ERR_ARG, 0, "%s%s joint '%s' is not in the %s skeleton",
                              at, s < 0 ? "source" : "target", s < 0 ? sn : tn,
                              s < 0 ? "source" : "target");
            goto done;
        }
        if (map_of_s[s] >= 0 || map_of_t[t] >= 0) {
            long prev = map_of_s[s] >= 0 ? map_of_s[s] : map_of_t[t];
            char before[64];
            line_prefix(map, (size_t)prev, before, sizeof before);
            before[strlen(before) - 2] = '\0'; /* drop ": " */
            code = io_set_err(err, PB_IO_ERR_ARG, 0, "%s%s joint '%s' is mapped twice (also %s)",
                              at, map_of_s[s] >= 0 ? "source" : "target",
                              map_of_s[s] >= 0 ? sn : tn, before);
            goto done;
        }
        map_of_s[s] = map_of_t[t] = (long)i;
        mt[t] = s;
        ms[s] = t;
        taken_s[s] = taken_t[t] = 1;
    }

    /* 2. name keys: each winning target key to the winner of that key in
     * the source */
    if (!map_only) {
        ks = skeleton_keys(src, taken_s);
        kt = skeleton_keys(tgt, taken_t);
        if (!ks || !kt) {
            code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory matching joints");
            goto done;
        }
        for (size_t i = 0; i < Jt; i++) {
            const keyed *e = &kt[i];
            if (!e->key[0] || e->loser)
                continue;
            const keyed *f = bsearch(e->key, ks, Js, sizeof *ks, cmp_key_only);
            if (!f)
                continue;
            while (f->loser) /* bsearch lands on any of a run; its winner is first */
                f--;
            mt[e->index] = f->index;
            ms[f->index] = e->index;
        }
    }

    /* 3. checks: ambiguous names, the root pair, the count */
    size_t count = 0;
    long t_first = -1, s_first = -1;
    for (size_t t = 0; t < Jt; t++) {
        if (mt[t] < 0)
            continue;
        count++;
        if (t_first < 0)
            t_first = (long)t;
        long other = -1;
        find_name(ixt, Jt, tgt->joints[t].name, &other);
        if (other >= 0) {
            code = ambiguous(err, "target", tgt->joints[t].name, (long)t, other);
            goto done;
        }
        find_name(ixs, Js, src->joints[mt[t]].name, &other);
        if (other >= 0) {
            code = ambiguous(err, "source", src->joints[mt[t]].name, mt[t], other);
            goto done;
        }
    }
    for (size_t s = 0; s < Js && s_first < 0; s++)
        if (ms[s] >= 0)
            s_first = (long)s;
    if (count == 0) {
        code = io_set_err(err, PB_IO_ERR_ARG, 0,
                          "no joint of the target matches a source joint by name; give a map");
        goto done;
    }
    if (mt[t_first] != s_first) {
        code = io_set_err(err, PB_IO_ERR_ARG, 0,
                          "no root match: the target's first matched joint '%s' is matched to "
                          "'%s', not to the source's first matched joint '%s'",
                          tgt->joints[t_first].name, src->joints[mt[t_first]].name,
                          src->joints[s_first].name);
        goto done;
    }
    for (size_t t = 0; t < Jt; t++) {
        if (mt[t] < 0)
            continue;
        int bad_t = !is_below(tgt, (long)t, t_first), bad_s = !is_below(src, mt[t], s_first);
        if (bad_t || bad_s) {
            const pb_bvh *b = bad_t ? tgt : src;
            long j = bad_t ? (long)t : mt[t], r = bad_t ? t_first : s_first;
            code = io_set_err(err, PB_IO_ERR_ARG, 0,
                              "no root match: the %s's matched joint '%s' is not below its "
                              "first matched joint '%s' (match the root joints, e.g. in a map)",
                              bad_t ? "target" : "source", b->joints[j].name, b->joints[r].name);
            goto done;
        }
    }
    size_t need = Js < Jt ? Js : Jt;
    if (need > 4)
        need = 4;
    if (count < need) {
        code = io_set_err(err, PB_IO_ERR_ARG, 0,
                          "too few matches: %zu joint%s matched, at least %zu needed "
                          "(min(4, source joints, target joints)); give a map",
                          count, count == 1 ? "" : "s", need);
        goto done;
    }
    memcpy(match_t, mt, Jt * sizeof *mt);
done:
    free(mt);
    free(ms);
    free(map_of_s);
    free(map_of_t);
    free(taken_s);
    free(taken_t);
    free(ixs);
    free(ixt);
    free(ks);
    free(kt);
    return code;
}
