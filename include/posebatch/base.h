/* posebatch/base.h — part of posebatch.h (the conventions and accuracy
 * bounds are stated there): version, status codes, the batch types, the
 * backends and runtime dispatch. */
#ifndef POSEBATCH_BASE_H
#define POSEBATCH_BASE_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(PB_SHARED_BUILD)
#define PB_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define PB_API __attribute__((visibility("default")))
#else
#define PB_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Version, status                                                          */
/* ------------------------------------------------------------------------ */

#define PB_VERSION_MAJOR 0
#define PB_VERSION_MINOR 1
#define PB_VERSION_PATCH 0

/* Largest element count any function accepts: keeps every byte size and index
 * computation inside ptrdiff_t on 32- and 64-bit targets. */
#define PB_MAX_COUNT ((size_t)1 << 28)

#define PB_ACCURACY_ROTATION_RAD 2e-6f
#define PB_ACCURACY_VELOCITY_REL 1e-5f
#define PB_ACCURACY_VELOCITY_ABS 1e-6f
#define PB_ACCURACY_SCALE_REL 2e-6f
/* pb_quat_average_accurate: error within max(2e-6, this / g) rad, see there */
#define PB_ACCURACY_EIGEN_GAP_RAD 4e-7f

typedef enum pb_status {
    PB_OK = 0,
    PB_ERR_NULL = 1,        /* required pointer is NULL */
    PB_ERR_SIZE = 2,        /* count above PB_MAX_COUNT or size overflow */
    PB_ERR_ARG = 3,         /* invalid argument: k == 0, unknown flags, bad name */
    PB_ERR_ALIAS = 4,       /* forbidden overlap between arrays */
    PB_ERR_UNSUPPORTED = 5, /* backend not built in or not supported by this CPU */
    PB_ERR_NOMEM = 6        /* memory allocation failed (clip-level functions) */
} pb_status;

/* Library version as MAJOR*10000 + MINOR*100 + PATCH of the linked library. */
PB_API uint32_t pb_version(void);
/* Library version as "MAJOR.MINOR.PATCH" (static storage). */
PB_API const char *pb_version_string(void);
/* A short English explanation of a status; never NULL (unknown values get
 * "unknown status"). */
PB_API const char *pb_status_str(pb_status status);

/* ------------------------------------------------------------------------ */
/* Batch types                                                              */
/* ------------------------------------------------------------------------ */

/* n quaternions as four arrays; writable (outputs). */
typedef struct pb_quats {
    float *w, *x, *y, *z;
} pb_quats;
/* n quaternions as four arrays; read-only (inputs). */
typedef struct pb_cquats {
    const float *w, *x, *y, *z;
} pb_cquats;
/* n vec3 as three arrays; writable (outputs). */
typedef struct pb_vec3s {
    float *x, *y, *z;
} pb_vec3s;
/* n vec3 as three arrays; read-only (inputs). */
typedef struct pb_cvec3s {
    const float *x, *y, *z;
} pb_cvec3s;

/* Views of a writable batch as an input. */
static inline pb_cquats pb_cq(pb_quats q)
{
    pb_cquats r = {q.w, q.x, q.y, q.z};
    return r;
}
static inline pb_cvec3s pb_cv(pb_vec3s v)
{
    pb_cvec3s r = {v.x, v.y, v.z};
    return r;
}

/* Flags (bit set; functions reject bits they do not document). */
#define PB_EXACT_VELOCITY 0x1u /* cubic interpolators: exact angular velocity J_l(u) du/dx */
#define PB_LONG_PATH 0x2u      /* slerp / nlerp: go the long way round (> 180 degrees) */
#define PB_CLOSED 0x4u         /* spline over keys: the sequence loops */
#define PB_CLIP_LOOP 0x8u      /* clip resampling: the clip is cyclic (frame F wraps to 0) */

/* ------------------------------------------------------------------------ */
/* Backends and runtime dispatch                                            */
/* ------------------------------------------------------------------------ */

typedef enum pb_backend {
    PB_BACKEND_SCALAR = 0,
    PB_BACKEND_SSE41 = 1,
    PB_BACKEND_AVX2 = 2,   /* AVX2 + FMA */
    PB_BACKEND_AVX512 = 3, /* AVX-512 F/DQ/BW/VL */
    PB_BACKEND_NEON = 4,
    PB_BACKEND_COUNT = 5
} pb_backend;

/* The backend every function uses now. Resolved once, on first use, to the
 * best supported backend, or to $POSEBATCH_BACKEND if that names a supported
 * one (see pb_backend_init_status). Thread-safe. */
PB_API pb_backend pb_backend_active(void);
/* "scalar", "sse41", "avx2", "avx512", "neon"; NULL for values out of range. */
PB_API const char *pb_backend_name(pb_backend backend);
/* Parses a name as printed by pb_backend_name. Errors: PB_ERR_NULL (name or
 * out NULL), PB_ERR_ARG (unknown name); *out is untouched on error. */
PB_API pb_status pb_backend_from_name(const char *name, pb_backend *out);
/* 1 if the backend is built into this library and this CPU runs it, else 0. */
PB_API int pb_backend_supported(pb_backend backend);
/* 1 if the backend runs through SIMDe emulation of its ISA in this build (a
 * test-only build with -Demulated_backends=true: NEON on x86, AVX-512 on AVX2
 * hardware), else 0. Emulated backends are supported (forcible) but never
 * chosen automatically, and are slow: they exist to prove the kernels. */
PB_API int pb_backend_emulated(pb_backend backend);
/* Floats processed per SIMD step by a backend (1 for scalar); 0 if unknown.
 * Some calls run on narrower kernels by their shape (pb_backend_dispatch). */
PB_API int pb_backend_lanes(pb_backend backend);
/* Makes every later call use this backend, process-wide. Errors: PB_ERR_ARG
 * (out of range), PB_ERR_UNSUPPORTED (not built in or not supported by this
 * CPU); the active backend is unchanged on error. Safe to call from any thread,
 * but calls already running finish on the backend they started with. */
PB_API pb_status pb_backend_force(pb_backend backend);
/* Dispatch by call shape. The active backend runs some calls, by their
 * shape, partly or wholly on the kernels of a narrower instruction set that
 * wins there (measured, per CPU family: docs/performance.md, "Model space
 * (FK)" and "Dispatch by call shape"), always with the active backend's
 * rounding (fused multiply-adds where it has them), so results do not depend
 * on the shape: a pose computed alone has the bits it has among others.
 * $POSEBATCH_SHAPE_DISPATCH=0 (read once, at resolution) turns this off:
 * every call runs on the active backend's own kernels. pb_backend_dispatch
 * says what a call runs: `count` poses for PB_DISPATCH_SKELETON
 * (pb_pose_local_to_model, pb_pose_model_to_local), `count` elements (joints
 * x poses) for PB_DISPATCH_ELEMENTWISE (the rotations.h kernels),
 * PB_DISPATCH_BLEND_LAYERS (pb_pose_blend_layers) and PB_DISPATCH_NLERP
 * (pb_quat_nlerp). It fills up to 3 runs, consecutive parts of the call in
 * order, and returns how many (0 for an unknown call or count 0, runs NULL
 * or count above PB_MAX_COUNT). */
typedef enum pb_dispatch_call {
    PB_DISPATCH_SKELETON = 0,
    PB_DISPATCH_ELEMENTWISE = 1,
    PB_DISPATCH_BLEND_LAYERS = 2,
    PB_DISPATCH_NLERP = 3
} pb_dispatch_call;
typedef struct pb_dispatch_run {
    size_t count;    /* poses or elements of this part */
    int lanes;       /* the lane width of its kernels */
    const char *isa; /* their instruction set: "scalar", "sse41", "sse41+fma", "avx2",
                        "avx512", "neon"; " (emulated)" appended for SIMDe emulation) */
} pb_dispatch_run;
PB_API size_t pb_backend_dispatch(pb_dispatch_call call, size_t count, pb_dispatch_run runs[3]);
/* How $POSEBATCH_BACKEND was handled at resolution: PB_OK when unset or
 * honoured, PB_ERR_ARG for an unknown name, PB_ERR_UNSUPPORTED for a backend
 * this CPU or build lacks. In both error cases the library runs the scalar
 * backend (never a silently different SIMD one) until pb_backend_force. */
PB_API pb_status pb_backend_init_status(void);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_BASE_H */
