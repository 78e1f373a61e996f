/* Backend table, CPU detection, POSEBATCH_BACKEND, forcing. Resolution happens
 * once (pthread_once); the active entry is an atomic pointer so that
 * pb_backend_force is safe against concurrent calls. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if defined(PB_HAVE_SSE41)
extern const pb_kernels pb_kernels_sse41;
#endif
#if defined(PB_HAVE_AVX2)
extern const pb_kernels pb_kernels_avx2;
#endif
#if defined(PB_HAVE_AVX512)
extern const pb_kernels pb_kernels_avx512;
#endif
#if defined(PB_HAVE_NEON)
extern const pb_kernels pb_kernels_neon;
#endif

static const char *const backend_names[PB_BACKEND_COUNT] = {"scalar", "sse41", "avx2", "avx512",
                                                            "neon"};

/* What the CPU runs, per backend; the scalar backend runs everywhere. */
static int cpu_has(pb_backend b)
{
    switch (b) {
    case PB_BACKEND_SCALAR:
        return 1;
#if defined(__x86_64__) || defined(__i386__)
    case PB_BACKEND_SSE41:
        __builtin_cpu_init();
        return __builtin_cpu_supports("sse4.1");
    case PB_BACKEND_AVX2:
        /* GCC's checks include the OS XSAVE state for the YMM registers */
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("sse4.1");
    case PB_BACKEND_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
#if defined(__aarch64__)
    case PB_BACKEND_NEON:
        return 1; /* Advanced SIMD is mandatory on AArch64 */
#endif
    default:
        return 0;
    }
}

static const pb_kernels *built_in(pb_backend b)
{
    switch (b) {
    case PB_BACKEND_SCALAR:
        return &pb_kernels_scalar;
#if defined(PB_HAVE_SSE41)
    case PB_BACKEND_SSE41:
        return &pb_kernels_sse41;
#endif
#if defined(PB_HAVE_AVX2)
    case PB_BACKEND_AVX2:
        return &pb_kernels_avx2;
#endif
#if defined(PB_HAVE_AVX512)
    case PB_BACKEND_AVX512:
        return &pb_kernels_avx512;
#endif
#if defined(PB_HAVE_NEON)
    case PB_BACKEND_NEON:
        return &pb_kernels_neon;
#endif
    default:
        return NULL;
    }
}

static const int backend_lanes[PB_BACKEND_COUNT] = {1, 4, 8, 16, 4};

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
static _Atomic int active_backend = PB_BACKEND_SCALAR;
static pb_status init_status = PB_OK;

int pb_backend_supported(pb_backend b)
{
    if ((int)b < 0 || b >= PB_BACKEND_COUNT)
        return 0;
    return built_in(b) != NULL && cpu_has(b);
}

static void resolve(void)
{
    pb_backend best = PB_BACKEND_SCALAR;
    static const pb_backend order[] = {PB_BACKEND_AVX512, PB_BACKEND_AVX2, PB_BACKEND_SSE41,
                                       PB_BACKEND_NEON};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (pb_backend_supported(order[i])) {
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
    atomic_store(&active_backend, (int)best);
}

pb_backend pb_backend_active(void)
{
    pthread_once(&resolve_once, resolve);
    return (pb_backend)atomic_load(&active_backend);
}

const pb_kernels *pb_active_kernels(void)
{
    return built_in(pb_backend_active());
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
