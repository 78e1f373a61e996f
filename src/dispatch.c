/* Backend table, CPU detection, POSEBATCH_BACKEND, forcing. Resolution happens
 * once (pthread_once); the active entry is an atomic pointer so that
 * pb_backend_force is safe against concurrent calls. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <cpuid.h>
#endif

#include "internal.h"

#if defined(PB_HAVE_SSE41)
extern const pb_kernels pb_kernels_sse41;
#endif
#if defined(PB_HAVE_AVX2)
extern const pb_kernels pb_kernels_avx2;
#endif
#if defined(PB_HAVE_SSE41_FMA)
extern const pb_kernels pb_kernels_sse41_fma;
#endif
#if defined(PB_HAVE_AVX512)
extern const pb_kernels pb_kernels_avx512;
#endif
#if defined(PB_HAVE_AVX512_EMULATED)
extern const pb_kernels pb_kernels_avx512_emulated;
#endif
#if defined(PB_HAVE_NEON) || defined(PB_HAVE_NEON_EMULATED)
extern const pb_kernels pb_kernels_neon;
#endif

static const char *const backend_names[PB_BACKEND_COUNT] = {"scalar", "sse41", "avx2", "avx512",
                                                            "neon"};

#if defined(__x86_64__) || defined(__i386__)
static int x86_has(const char *what)
{
    __builtin_cpu_init();
    /* GCC's avx* checks include the OS XSAVE state for the wider registers */
    if (strcmp(what, "sse41") == 0)
        return __builtin_cpu_supports("sse4.1");
    if (strcmp(what, "avx2") == 0)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("sse4.1");
    if (strcmp(what, "avx512") == 0)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return 0;
}
#endif

/* The kernels that run backend b on this CPU, or NULL; *emulated tells
 * whether they are a SIMDe emulation (test-only builds). */
static const pb_kernels *runnable(pb_backend b, int *emulated)
{
    *emulated = 0;
    switch (b) {
    case PB_BACKEND_SCALAR: return &pb_kernels_scalar;
#if defined(PB_HAVE_SSE41)
    case PB_BACKEND_SSE41: return x86_has("sse41") ? &pb_kernels_sse41 : NULL;
#endif
#if defined(PB_HAVE_AVX2)
    case PB_BACKEND_AVX2: return x86_has("avx2") ? &pb_kernels_avx2 : NULL;
#endif
#if defined(PB_HAVE_AVX512) || defined(PB_HAVE_AVX512_EMULATED)
    case PB_BACKEND_AVX512:
#if defined(PB_HAVE_AVX512)
        if (x86_has("avx512"))
            return &pb_kernels_avx512;
#endif
#if defined(PB_HAVE_AVX512_EMULATED)
        *emulated = 1;
        return x86_has("avx2") ? &pb_kernels_avx512_emulated : NULL;
#else
        return NULL;
#endif
#endif
#if defined(PB_HAVE_NEON)
    case PB_BACKEND_NEON: return &pb_kernels_neon; /* Advanced SIMD is mandatory on AArch64 */
#elif defined(PB_HAVE_NEON_EMULATED)
    case PB_BACKEND_NEON: *emulated = 1; return &pb_kernels_neon;
#endif
    default: return NULL;
    }
}

static const pb_kernels *built_in(pb_backend b)
{
    int emulated;
    return runnable(b, &emulated);
}

int pb_backend_emulated(pb_backend b)
{
    int emulated;
    if ((int)b < 0 || b >= PB_BACKEND_COUNT)
        return 0;
    return runnable(b, &emulated) != NULL && emulated;
}

static const int backend_lanes[PB_BACKEND_COUNT] = {1, 4, 8, 16, 4};

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
static _Atomic int active_backend = PB_BACKEND_SCALAR;
/* every runnable backend's kernels, filled once by resolve (then ready):
 * a call reads the active index and this table, no CPU query per call */
static const pb_kernels *tables[PB_BACKEND_COUNT];
static _Atomic int ready = 0;
static pb_status init_status = PB_OK;

int pb_backend_supported(pb_backend b)
{
    if ((int)b < 0 || b >= PB_BACKEND_COUNT)
        return 0;
    return built_in(b) != NULL;
}

/* the narrow companion of each backend (pb_kernels_for), or NULL */
static const pb_kernels *narrow[PB_BACKEND_COUNT];
/* the skeleton kernels' tables by call shape (pb_skeleton_runs): for whole
 * blocks (NULL: the backend's own) and the 4-lane one for what is left */
static const pb_kernels *sk_wide[PB_BACKEND_COUNT], *sk_four[PB_BACKEND_COUNT];

#if defined(PB_HAVE_AVX512) && defined(PB_HAVE_AVX2)
/* the AMD family (cpuid leaf 1), 0 on other vendors: 0x19 (Zen 3, Zen 4)
 * executes each 512-bit operation as two 256-bit halves */
static unsigned amd_family(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d) || b != 0x68747541u /* "Auth" */ ||
        d != 0x69746e65u /* "enti" */ || c != 0x444d4163u /* "cAMD" */)
        return 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    unsigned family = (a >> 8) & 0xf;
    if (family == 0xf)
        family += (a >> 20) & 0xff;
    return family;
#else
    return 0;
#endif
}
#endif

/* POSEBATCH_SHAPE_DISPATCH=0: every call on the active backend's own
 * tables (to measure or test one backend's kernels alone) */
static int shape_dispatch(void)
{
    const char *e = getenv("POSEBATCH_SHAPE_DISPATCH");
    return !(e && strcmp(e, "0") == 0);
}

/* the companions (by call shape) of the backends that have them */
static void companions(void)
{
    if (!shape_dispatch())
        return;
#if defined(PB_HAVE_SSE41_FMA) && defined(PB_HAVE_AVX2)
    /* the 4-lane kernels with the AVX2 backend's fused operations, for what
     * is left after whole 8- or 16-pose blocks */
    if (tables[PB_BACKEND_AVX2] == &pb_kernels_avx2) {
        sk_four[PB_BACKEND_AVX2] = &pb_kernels_sse41_fma;
#if defined(PB_HAVE_AVX512)
        if (tables[PB_BACKEND_AVX512] == &pb_kernels_avx512)
            sk_four[PB_BACKEND_AVX512] = &pb_kernels_sse41_fma;
#endif
    }
#endif
#if defined(PB_HAVE_AVX512) && defined(PB_HAVE_AVX2)
    if (tables[PB_BACKEND_AVX512] == &pb_kernels_avx512 && tables[PB_BACKEND_AVX2]) {
        const unsigned f = amd_family();
        /* Zen 4: small element-wise batches on the 256-bit kernels */
        if (f == 0x19)
            narrow[PB_BACKEND_AVX512] = tables[PB_BACKEND_AVX2];
        /* Zen 4 and Zen 5: forward kinematics on 8 lanes at every pose
         * count (16 poses on Zen 5: 2.7 ns a joint-pose against 3.4) */
        if (f == 0x19 || f == 0x1a)
            sk_wide[PB_BACKEND_AVX512] = tables[PB_BACKEND_AVX2];
    }
#endif
}

static void resolve(void)
{
    pb_backend best = PB_BACKEND_SCALAR;
    static const pb_backend order[] = {PB_BACKEND_AVX512, PB_BACKEND_AVX2, PB_BACKEND_SSE41,
                                       PB_BACKEND_NEON};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (pb_backend_supported(order[i]) && !pb_backend_emulated(order[i])) {
            best = order[i];
            break;
        }
    }
    const char *env = getenv("POSEBATCH_BACKEND");
    if (env && *env) {
        pb_backend want;
        if (pb_backend_from_name(env, &want) != PB_OK) {
            init_status = PB_ERR_ARG;
            best = PB_BACKEND_SCALAR;
        } else if (!pb_backend_supported(want)) {
            init_status = PB_ERR_UNSUPPORTED;
            best = PB_BACKEND_SCALAR;
        } else {
            best = want;
        }
    }
    for (int b = 0; b < PB_BACKEND_COUNT; b++)
        tables[b] = built_in((pb_backend)b);
    companions();
    atomic_store(&active_backend, (int)best);
    atomic_store_explicit(&ready, 1, memory_order_release);
}

pb_backend pb_backend_active(void)
{
    pthread_once(&resolve_once, resolve);
    return (pb_backend)atomic_load(&active_backend);
}

/* the active backend's table, or its narrow companion for n below `below`
 * with n % 16 in 1..8 (1..8, and 17..24 when below is 32), and with whole
 * set for n = 16 too */
static const pb_kernels *kernels_for(size_t n, size_t below, int whole)
{
    if (!atomic_load_explicit(&ready, memory_order_acquire))
        pthread_once(&resolve_once, resolve);
    int b = atomic_load_explicit(&active_backend, memory_order_relaxed);
    /* n % 16 in 1..8, at most one whole block before it */
    if (narrow[b] && n < below && ((n & 15) - 1 < 8 || (whole && n == 16)))
        return narrow[b];
    return tables[b];
}
const pb_kernels *pb_kernels_for(size_t n) { return kernels_for(n, 32, 0); }
const pb_kernels *pb_kernels_for_blend(size_t n) { return kernels_for(n, 16, 0); }
const pb_kernels *pb_kernels_for_nlerp(size_t n) { return kernels_for(n, 32, 1); }
size_t pb_skeleton_runs(size_t poses, pb_sk_run run[3])
{
    if (!atomic_load_explicit(&ready, memory_order_acquire))
        pthread_once(&resolve_once, resolve);
    int b = atomic_load_explicit(&active_backend, memory_order_relaxed);
    const pb_kernels *w = sk_wide[b] ? sk_wide[b] : tables[b], *f = sk_four[b], *own = tables[b];
    if (!f || poses == 1) { /* one pose: the one-pose path, the own table's gathers */
        if (poses == 1)
            w = own;
        run[0].k = w;
        run[0].poses = poses;
        return 1;
    }
    /* whole blocks of w's lanes, then the rest on the 4 lanes, except a
     * last single pose: the one-pose path of the backend's own table (its
     * gathers are the widest: on Zen 5 at 31 joints 6.8 ns a joint on 16
     * lanes, 7.0 on 8, 14 on 4) */
    size_t n = 0, lw = (size_t)w->lanes, whole = poses / lw * lw;
    size_t single = (poses - whole) % 4 == 1, four = poses - whole - single;
    if (whole) {
        run[n].k = w;
        run[n++].poses = whole;
    }
    if (four) {
        run[n].k = f;
        run[n++].poses = four;
    }
    if (single && n && run[n - 1].k == own)
        run[n - 1].poses++;
    else if (single) {
        run[n].k = own;
        run[n++].poses = 1;
    }
    return n;
}

size_t pb_backend_dispatch(pb_dispatch_call call, size_t count, pb_dispatch_run runs[3])
{
    if (!runs || count == 0 || count > PB_MAX_COUNT)
        return 0;
    pb_sk_run r[3];
    size_t n = 1;
    switch (call) {
    case PB_DISPATCH_SKELETON: n = pb_skeleton_runs(count, r); break;
    case PB_DISPATCH_ELEMENTWISE: r[0].k = pb_kernels_for(count); break;
    case PB_DISPATCH_BLEND_LAYERS: r[0].k = pb_kernels_for_blend(count); break;
    case PB_DISPATCH_NLERP: r[0].k = pb_kernels_for_nlerp(count); break;
    default: return 0;
    }
    if (n == 1)
        r[0].poses = count;
    for (size_t i = 0; i < n; i++) {
        runs[i].count = r[i].poses;
        runs[i].lanes = r[i].k->lanes;
        runs[i].isa = r[i].k->isa;
    }
    return n;
}

pb_status pb_backend_init_status(void)
{
    pthread_once(&resolve_once, resolve);
    return init_status;
}

const char *pb_backend_name(pb_backend b)
{
    if ((int)b < 0 || b >= PB_BACKEND_COUNT)
        return NULL;
    return backend_names[b];
}

pb_status pb_backend_from_name(const char *name, pb_backend *out)
{
    if (!name || !out)
        return PB_ERR_NULL;
    for (int i = 0; i < PB_BACKEND_COUNT; i++) {
        if (strcmp(name, backend_names[i]) == 0) {
            *out = (pb_backend)i;
            return PB_OK;
        }
    }
    return PB_ERR_ARG;
}

int pb_backend_lanes(pb_backend b)
{
    if ((int)b < 0 || b >= PB_BACKEND_COUNT)
        return 0;
    return backend_lanes[b];
}

pb_status pb_backend_force(pb_backend b)
{
    if ((int)b < 0 || b >= PB_BACKEND_COUNT)
        return PB_ERR_ARG;
    if (!pb_backend_supported(b))
        return PB_ERR_UNSUPPORTED;
    pthread_once(&resolve_once, resolve);
    atomic_store(&active_backend, (int)b);
    return PB_OK;
}
