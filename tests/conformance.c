/* Conformance runner, libc only (no Criterion: it must run under qemu-user,
 * where Criterion cannot re-exec itself). Every supported backend is run on
 * one input set and compared with the scalar backend: within the accuracy
 * targets (each backend is within them of the double reference, so two are
 * within twice), or bit for bit in deterministic builds.
 *
 *   posebatch-conformance [--expect BACKEND]
 *
 * --expect checks which backend the dispatcher picked by itself (CI runs this
 * under qemu-x86_64 -cpu Nehalem: sse41, and -cpu core2duo: scalar). Exit
 * status 0 only if every comparison passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"

#define MAXN 1100
/* one field of output: a quaternion batch, a velocity / vec3 batch, a scale
 * batch or plain floats */
enum kind { KQ, KV, KS, KF };
typedef struct {
    enum kind kind;
    float a[4][MAXN];
} field;
typedef struct {
    field f[4];
    int nf;
    size_t count; /* elements to compare when not n (0: n) */
} outputs;

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* inputs: smooth-ish keys with edge cases mixed in */
static float K[5][4][MAXN]; /* 4 keys (quats) + 1 unrelated rotation */
static float V[4][3][MAXN]; /* 4 vec3 / velocities */
static float S[4][3][MAXN]; /* 4 positive scale keys */
static float W[8];

static void make_inputs(void)
{
    for (int i = 0; i < MAXN; i++) {
        double ax = urand() - 0.5, ay = urand() - 0.5, az = urand() - 0.5;
        double an = sqrt(ax * ax + ay * ay + az * az) + 1e-12;
        double base = urand() * 6.28, step = urand() * 0.6;
        int mode = i % 17;
        for (int k = 0; k < 4; k++) {
            double h = 0.5 * (base + step * k);
            if (mode == 1)
                h = 0.5 * (base + 1e-6 * k); /* tiny steps */
            if (mode == 2)                   /* 179.9-degree steps: exactly 180 is ambiguous (two
                            * equally short answers, chosen by rounding) */
                h = 0.5 * (base + 3.13984732 * k);
            double s = sin(h) / an, sign = (mode == 3 && (k & 1)) ? -1.0 : 1.0;
            K[k][0][i] = (float)(sign * cos(h));
            K[k][1][i] = (float)(sign * ax * s);
            K[k][2][i] = (float)(sign * ay * s);
            K[k][3][i] = (float)(sign * az * s);
            if (mode == 4) { /* identity */
                K[k][0][i] = 1;
                K[k][1][i] = K[k][2][i] = K[k][3][i] = 0;
            }
            for (int c = 0; c < 3; c++) {
                /* large velocities, inside the range where the accuracy targets hold
                 * (|u| <= 4 pi; beyond, float rounding of |u| itself dominates) */
                V[k][c][i] = (float)((urand() - 0.5) * (mode == 5 ? 7.0 : 2.0));
                S[k][c][i] = (float)(0.5 + urand() * 2.0);
            }
        }
    }
    /* the long path between nearly equal rotations turns about an axis set by
     * their ulp-level difference: ill-conditioned, so pair with a random key */
    for (int i = 0; i < MAXN; i++) {
        double q[4], n = 0;
        for (int c = 0; c < 4; c++) {
            q[c] = urand() - 0.5;
            n += q[c] * q[c];
        }
        for (int c = 0; c < 4; c++)
            K[4][c][i] = (float)(q[c] / sqrt(n));
    }
    for (int k = 0; k < 8; k++)
        W[k] = (float)(0.05 + urand());
}

static pb_cquats key(int k, size_t o)
{
    pb_cquats q = {K[k][0] + o, K[k][1] + o, K[k][2] + o, K[k][3] + o};
    return q;
}
static pb_cvec3s vec(int k, size_t o)
{
    pb_cvec3s v = {V[k][0] + o, V[k][1] + o, V[k][2] + o};
    return v;
}
static pb_cvec3s scl(int k, size_t o)
{
    pb_cvec3s v = {S[k][0] + o, S[k][1] + o, S[k][2] + o};
    return v;
}
static pb_quats oq(outputs *o, enum kind kind)
{
    field *f = &o->f[o->nf++];
    f->kind = kind;
    pb_quats q = {f->a[0], f->a[1], f->a[2], f->a[3]};
    return q;
}
static pb_vec3s ov(outputs *o, enum kind kind)
{
    field *f = &o->f[o->nf++];
    f->kind = kind;
    pb_vec3s v = {f->a[0], f->a[1], f->a[2]};
    return v;
}

/* Runs kernel `id` on n elements starting at element `off` (unaligned when
 * off is odd). Returns 0 when the id is past the last kernel. */
static int run_kernel(int id, size_t n, size_t off, outputs *o, const char **name)
{
    o->nf = 0;
    o->count = 0;
    pb_status st = PB_OK;
    pb_cquats samples[4] = {key(0, off), key(1, off), key(2, off), key(3, off)};
    switch (id) {
    case 0:
        *name = "quat_mul";
        st = pb_quat_mul(n, key(0, off), key(1, off), oq(o, KQ));
        break;
    case 1:
        *name = "quat_mul_inv";
        st = pb_quat_mul_inv(n, key(0, off), key(1, off), oq(o, KQ));
        break;
    case 2:
        *name = "quat_normalize";
        st = pb_quat_normalize(n, key(2, off), oq(o, KQ));
        break;
    case 3:
        *name = "quat_log";
        st = pb_quat_log(n, key(1, off), ov(o, KV));
        break;
    case 4:
        *name = "quat_exp";
        st = pb_quat_exp(n, vec(0, off), oq(o, KQ));
        break;
    case 5:
        *name = "quat_unroll";
        st = pb_quat_unroll(4, n / 4, key(0, off), oq(o, KQ));
        break;
    case 6: {
        *name = "vec3_catmull_rom";
        pb_vec3s p = ov(o, KV), v = ov(o, KV);
        st = pb_vec3_catmull_rom(n, 0.3f, vec(0, off), vec(1, off), vec(2, off), vec(3, off), p, v);
        break;
    }
    case 7: {
        *name = "quat_hermite";
        pb_quats r = oq(o, KQ);
        st = pb_quat_hermite(n, 0.6f, key(0, off), key(1, off), vec(0, off), vec(1, off), 0, r,
                             ov(o, KV));
        break;
    }
    case 8:
    case 9: {
        *name = id == 8 ? "quat_catmull_rom" : "quat_catmull_rom_exact";
        pb_quats r = oq(o, KQ);
        st = pb_quat_catmull_rom(n, 0.37f, key(0, off), key(1, off), key(2, off), key(3, off),
                                 id == 9 ? PB_EXACT_VELOCITY : 0, r, ov(o, KV));
        break;
    }
    case 10: {
        *name = "quat_raw_cubic";
        pb_quats r = oq(o, KQ);
        st = pb_quat_raw_cubic(n, 0.81f, key(0, off), key(1, off), key(2, off), key(3, off),
                               PB_EXACT_VELOCITY, r, oq(o, KV));
        break;
    }
    case 11: {
        *name = "scale_catmull_rom";
        pb_vec3s s = ov(o, KS);
        st = pb_scale_catmull_rom(n, 0.45f, scl(0, off), scl(1, off), scl(2, off), scl(3, off), s,
                                  ov(o, KV));
        break;
    }
    case 12:
        *name = "slerp";
        st = pb_quat_slerp(n, 0.3f, key(0, off), key(2, off), 0, oq(o, KQ));
        break;
    case 13:
        *name = "slerp_long";
        st = pb_quat_slerp(n, 0.7f, key(0, off), key(4, off), PB_LONG_PATH, oq(o, KQ));
        break;
    case 14:
        *name = "nlerp";
        st = pb_quat_nlerp(n, 0.4f, key(1, off), key(3, off), 0, oq(o, KQ));
        break;
    case 15:
        *name = "average_raw_ref";
        st = pb_quat_average_raw_ref(n, 3, key(3, off), samples, W, oq(o, KQ));
        break;
    case 16:
        *name = "average_log_ref";
        st = pb_quat_average_log_ref(n, 4, key(0, off), samples, W, oq(o, KQ));
        break;
    case 17:
        *name = "average_log";
        st = pb_quat_average_log(n, 2, samples, W, oq(o, KQ));
        break;
    case 18:
        *name = "average_basic";
        st = pb_quat_average_basic(n, 4, samples, W, oq(o, KQ));
        break;
    case 19:
        *name = "average_accurate";
        st = pb_quat_average_accurate(n, 3, samples, W, oq(o, KQ));
        break;
    case 20: {
        *name = "sin_half_angle";
        field *f = &o->f[o->nf++];
        f->kind = KF;
        st = pb_quat_sin_half_angle(n, key(0, off), key(1, off), f->a[0]);
        break;
    }
    case 21: {
        *name = "bezier_controls";
        pb_quats b = oq(o, KQ);
        st = pb_quat_bezier_controls(n, key(0, off), key(1, off), key(2, off), b, oq(o, KQ));
        break;
    }
    case 22:
        *name = "de_casteljau";
        st = pb_quat_de_casteljau(n, 0.55f, key(0, off), key(1, off), key(2, off), key(3, off),
                                  oq(o, KQ));
        break;
    case 23: {
        *name = "shoemake_controls";
        pb_quats b = oq(o, KQ);
        st = pb_quat_shoemake_controls(n, key(0, off), key(1, off), key(2, off), b, oq(o, KQ));
        break;
    }
    /* layout converters: interleaved data read from the key / vector
     * arrays as flat floats; to_* checked through the round trip */
    case 24:
        *name = "quats_from_xyzw";
        st = pb_quats_from_xyzw(n, &K[4][0][0] + off, oq(o, KQ));
        break;
    case 25: {
        static float il[4 * MAXN];
        *name = "quats_to_xyzw";
        st = pb_quats_to_xyzw(n, key(0, off), il);
        if (st == PB_OK)
            st = pb_quats_from_xyzw(n, il, oq(o, KQ));
        break;
    }
    case 26:
        *name = "vec3s_from_xyz";
        st = pb_vec3s_from_xyz(n, &V[1][0][0] + off, ov(o, KV));
        break;
    case 27: {
        static float il[3 * MAXN];
        *name = "vec3s_to_xyz";
        st = pb_vec3s_to_xyz(n, vec(0, off), il);
        if (st == PB_OK)
            st = pb_vec3s_from_xyz(n, il, ov(o, KV));
        break;
    }
    /* sums over more than 16 samples or layers: the compensated block sums */
    case 28:
    case 29:
    case 30:
    case 31: {
        static const char *const nm[4] = {"average_raw_k40", "average_log_ref_k40",
                                          "average_accurate_k40", "pose_blend_layers_k20"};
        pb_cquats s40[40];
        float w40[40];
        pb_blend_layer ly[20];
        for (int i = 0; i < 40; i++) {
            s40[i] = key(i % 5, off);
            w40[i] = 0.01f + 0.002f * (float)i;
        }
        *name = nm[id - 28];
        if (id == 28)
            st = pb_quat_average_raw(n, 40, s40, w40, oq(o, KQ));
        else if (id == 29)
            st = pb_quat_average_log_ref(n, 40, key(0, off), s40, w40, oq(o, KQ));
        else if (id == 30)
            st = pb_quat_average_accurate(n, 40, s40, w40, oq(o, KQ));
        else {
            for (int i = 0; i < 20; i++) {
                ly[i].weight = w40[i];
                ly[i].joint_weights = NULL;
                ly[i].pose.rot = s40[i];
                ly[i].pose.pos = vec(i % 4, off);
                ly[i].pose.scale = scl(i % 4, off);
            }
            pb_cpose ref = {key(1, off), {0, 0, 0}, {0, 0, 0}};
            pb_blend_desc d = {n, ly, 20, NULL, 0, PB_BLEND_RAW_REF, 0, &ref};
            pb_pose out = {oq(o, KQ), ov(o, KV), ov(o, KS)};
            st = pb_pose_blend_layers(&d, &out);
        }
        break;
    }
    /* skeletons: n/10 + 1 poses of a 10-joint tree with two roots (depth up
     * to 4), rotations, positions and scales; then model -> local of the
     * model poses */
    case 32:
    case 33: {
        static const int32_t par[10] = {-1, 0, 1, 2, 1, 4, -1, 6, 7, 0};
        static float m[10][MAXN];
        const size_t P = n / 10 + 1;
        pb_cpose in = {key(0, off), vec(0, off), scl(0, off)};
        pb_pose out = {oq(o, KQ), ov(o, KV), ov(o, KS)};
        o->count = P * 10;
        if (id == 32) {
            *name = "pose_local_to_model";
            st = pb_pose_local_to_model(P, 10, par, &in, &out);
        } else {
            *name = "pose_model_to_local";
            pb_pose mo = {{m[0], m[1], m[2], m[3]}, {m[4], m[5], m[6]}, {m[7], m[8], m[9]}};
            pb_cpose mi = {{m[0], m[1], m[2], m[3]}, {m[4], m[5], m[6]}, {m[7], m[8], m[9]}};
            st = pb_pose_local_to_model(P, 10, par, &in, &mo);
            if (st == PB_OK)
                st = pb_pose_model_to_local(P, 10, par, &mi, &out);
        }
        break;
    }
    /* rotation representations: matrices as three row fields; their inputs
     * rotations (the matrix -> quaternion row choice and Gram-Schmidt of
     * near-parallel halves are ill-conditioned for other input) */
    case 34:
    case 35:
    case 36:
    case 37:
    case 38: {
        static float mm[9][MAXN];
        pb_mat3s m;
        for (int k = 0; k < 9; k++)
            m.m[k] = mm[k];
        pb_cmat3s cm;
        for (int k = 0; k < 9; k++)
            cm.m[k] = mm[k];
        if (id == 34) {
            *name = "quat_to_mat3";
            pb_vec3s r0 = ov(o, KV), r1 = ov(o, KV), r2 = ov(o, KV);
            pb_mat3s out = {{r0.x, r0.y, r0.z, r1.x, r1.y, r1.z, r2.x, r2.y, r2.z}};
            st = pb_quat_to_mat3(n, key(0, off), out);
        } else if (id == 35) {
            *name = "quat_to_rot6d";
            pb_vec3s a = ov(o, KV), b = ov(o, KV);
            pb_rot6ds out = {{a.x, a.y, a.z, b.x, b.y, b.z}};
            st = pb_quat_to_rot6d(n, key(0, off), out);
        } else {
            st = pb_quat_to_mat3(n, key(1, off), m);
            if (st != PB_OK)
                break;
            if (id == 36) {
                *name = "mat3_to_quat";
                st = pb_mat3_to_quat(n, cm, oq(o, KQ));
            } else if (id == 37) {
                *name = "rot6d_to_mat3";
                pb_vec3s r0 = ov(o, KV), r1 = ov(o, KV), r2 = ov(o, KV);
                pb_mat3s out = {{r0.x, r0.y, r0.z, r1.x, r1.y, r1.z, r2.x, r2.y, r2.z}};
                st = pb_rot6d_to_mat3(n, pb_crot6d_of_mat3(cm), out);
            } else {
                *name = "rot6d_to_quat";
                st = pb_rot6d_to_quat(n, pb_crot6d_of_mat3(cm), oq(o, KQ));
            }
        }
        break;
    }
    case 39:
        *name = "quat_to_rotvec";
        st = pb_quat_to_rotvec(n, key(0, off), ov(o, KV));
        break;
    /* skinning matrices: 2 poses of J = n % 34 + 1 joints (every block and
     * tail shape of every lane width), inverse bind matrices made of the
     * inputs, 4x4 for even n, 3x4 for odd */
    case 40: {
        static float ib[34 * 16];
        const size_t J = n % 34 + 1;
        for (size_t j = 0; j < J; j++)
            for (int k = 0; k < 16; k++)
                ib[j * 16 + k] = k % 4 == 3 ? (k == 15) : V[k / 4][k % 3][j + off];
        field *f = &o->f[o->nf++];
        f->kind = KF;
        const int rows3 = n & 1;
        o->count = 2 * J * (rows3 ? 12 : 16);
        *name = "pose_skinning_matrices";
        pb_cpose m = {key(0, off), vec(0, off), scl(0, off)};
        st =
            pb_pose_skinning_matrices(2, J, &m, ib, rows3 ? PB_MATRIX_3X4 : PB_MATRIX_4X4, f->a[0]);
        break;
    }
    /* inverse kinematics: n/5 + 1 poses of 5 joints, unrelated model
     * rotations and positions (the solvers read them only), the local
     * rotations copied to out first (in place: joints not solved kept);
     * weights 0.5 .. 2.5 (some partial), soften 0.2 .. 1 */
    case 41:
    case 42: {
        const size_t P = n / 5 + 1, J = 5;
        pb_quats out = oq(o, KQ);
        o->count = P * J;
        const float *lq[4] = {key(0, off).w, key(0, off).x, key(0, off).y, key(0, off).z};
        float *oa[4] = {out.w, out.x, out.y, out.z};
        for (int k = 0; k < 4; k++)
            memcpy(oa[k], lq[k], P * J * sizeof(float));
        /* joint j near (3j, 1.5j, 0.6j) (bones of about 3.4), targets near
         * the start joint + (3, 2, 1) (IK) or 20 to 30 away (aim), poles
         * near +z: conditioned input (random positions put joints and
         * targets within rounding of each other, where any two orders of
         * operations differ by more than the bound) */
        static float mp[3][MAXN], tg[3][MAXN], pl[3][MAXN], soft[MAXN];
        const double dir[3] = {3.0, 1.5, 0.6}, tdir[3] = {3.0, 2.0, 1.0};
        for (size_t i = 0; i < P * J; i++)
            for (int c = 0; c < 3; c++)
                mp[c][i] = (float)(dir[c] * (double)(i % J) + 0.5 * V[0][c][i + off]);
        for (size_t i = 0; i < P; i++) {
            for (int c = 0; c < 3; c++) {
                double base = id == 41 ? mp[c][i * J + 1] + tdir[c] : 8.0 * tdir[c];
                tg[c][i] = (float)(base + V[1][c][i + off]);
                pl[c][i] = (float)((c == 2 ? 1.0 : 0.0) + 0.3 * V[2][c][i + off]);
            }
            soft[i] = S[1][0][i + off] / 2.5f;
        }
        pb_cpose m = {key(1, off), {mp[0], mp[1], mp[2]}, {0, 0, 0}};
        pb_cvec3s tv = {tg[0], tg[1], tg[2]}, pv = {pl[0], pl[1], pl[2]};
        const float *w = S[0][0] + off;
        if (id == 41) {
            *name = "ik_two_bone_solve";
            pb_ik_two_bone ik = {1, 2, 3, {0.6f, 0.0f, 0.8f}, tv, pv, w, soft};
            st = pb_ik_two_bone_solve(P, J, &ik, &m, key(0, off), out, NULL);
        } else {
            *name = "ik_aim_solve";
            static const size_t chain[3] = {1, 2, 3};
            static const float jw[3] = {0.5f, 0.8f, 1.0f};
            /* rotations within about 60 degrees of the identity: the
             * forward axis never near the opposite of the target
             * direction, where the turn's axis is ill-conditioned */
            static float mr[4][MAXN];
            for (size_t i = 0; i < P * J; i++) {
                double q[4], nn = 0;
                for (int c = 0; c < 4; c++) {
                    q[c] = c == 0 ? 2.0 + fabs(K[1][0][i + off]) : K[1][c][i + off];
                    nn += q[c] * q[c];
                }
                for (int c = 0; c < 4; c++)
                    mr[c][i] = (float)(q[c] / sqrt(nn));
            }
            m.rot.w = mr[0], m.rot.x = mr[1], m.rot.y = mr[2], m.rot.z = mr[3];
            pb_ik_aim ik = {3, chain, jw, {0, 1, 0}, {0, 0, 1}, tv, pv, w};
            st = pb_ik_aim_solve(P, J, &ik, &m, key(0, off), out);
        }
        break;
    }
    /* linear blend skinning: V = n % 361 (at least 1: every block and tail
     * shape) vertices over 5 joints whose matrices are made of the inputs,
     * K = (3n + off) % 8 + 1 influences, 4x4 for even n, 3x4 for odd,
     * normals where bit 1 of n is clear */
    case 43: {
        static float mat[5 * 16], pos[3 * MAXN], nrm[3 * MAXN], wt[8 * MAXN];
        static uint16_t jt[8 * MAXN];
        const size_t Vn = n % 361 ? n % 361 : 1;
        const int Kn = (int)((3 * n + off) % 8) + 1, rows3 = n & 1, normals = !(n & 2);
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 16; k++)
                mat[j * 16 + k] = V[k / 4][k % 3][j + off] * (k >= 12 && !rows3 ? 10.0f : 1.0f);
        for (size_t v = 0; v < Vn; v++) {
            for (int c = 0; c < 3; c++) {
                pos[v * 3 + c] = V[3][c][v + off];
                nrm[v * 3 + c] = S[0][c][v + off];
            }
            for (int k = 0; k < Kn; k++) {
                jt[v * Kn + k] = (uint16_t)((v * 7 + (size_t)k * 3) % 5);
                wt[v * Kn + k] = S[1 + k % 3][k % 3][v + off] / (float)Kn;
            }
        }
        field *f = &o->f[o->nf++], *g = &o->f[o->nf++];
        f->kind = g->kind = KF;
        o->count = 3 * Vn;
        *name = "skin_vertices";
        st = pb_skin_vertices(Vn, Kn, jt, wt, 5, mat, rows3 ? PB_MATRIX_3X4 : PB_MATRIX_4X4, pos,
                              f->a[0], normals ? nrm : NULL, normals ? g->a[0] : NULL);
        if (!normals)
            for (size_t i = 0; i < 3 * Vn; i++)
                g->a[0][i] = 0.0f;
        break;
    }
    default: return 0;
    }
    if (st != PB_OK) {
        printf("FAIL %s: status %s\n", *name, pb_status_str(st));
        o->nf = -1;
    }
    return 1;
}

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* 0 if `got` agrees with `want` (scalar) element i, else prints and returns 1 */
static int compare(const outputs *want, const outputs *got, size_t n, int bitwise,
                   const char *kernel, const char *backend, size_t size)
{
    for (int fi = 0; fi < want->nf; fi++) {
        const field *a = &want->f[fi], *b = &got->f[fi];
        int comps = a->kind == KQ ? 4 : a->kind == KF ? 1 : 3;
        for (size_t i = 0; i < n; i++) {
            double err = 0, lim = 0, nrm = 0, dot = 0, na = 0, nb = 0;
            int nan_a = 0, nan_b = 0, bits = 1;
            for (int c = 0; c < comps; c++) {
                double x = a->a[c][i], y = b->a[c][i];
                nan_a |= isnan(x);
                nan_b |= isnan(y);
                bits &= same_bits(a->a[c][i], b->a[c][i]);
                err += (x - y) * (x - y);
                nrm += x * x;
                dot += x * y;
                na += x * x;
                nb += y * y;
            }
            int bad;
            if (bitwise) {
                bad = !bits;
            } else if (nan_a || nan_b) {
                bad = nan_a != nan_b;
            } else if (a->kind == KQ) {
                /* angle between rotations, sign-insensitive */
                double c = fabs(dot) / sqrt(na * nb);
                double ang = 2.0 * atan2(sqrt(fmax(0.0, 1.0 - c * c)), c);
                err = ang;
                lim = 2.0 * PB_ACCURACY_ROTATION_RAD;
                bad = !(ang <= lim) && fabs(na - 1.0) < 1e-3; /* compare rotations only */
                if (fabs(na - 1.0) >= 1e-3)                   /* non-rotation quaternion (vel4) */
                    bad = !(sqrt(err) <= 2e-5 * sqrt(nrm) + 2e-6);
            } else if (a->kind == KS) {
                err = sqrt(err);
                lim = 2.0 * PB_ACCURACY_SCALE_REL * sqrt(nrm);
                bad = !(err <= lim);
            } else {
                err = sqrt(err);
                lim = 2.0 * (PB_ACCURACY_VELOCITY_REL * sqrt(nrm) + PB_ACCURACY_VELOCITY_ABS);
                bad = !(err <= lim);
            }
            if (bad) {
                printf("FAIL %s on %s, n=%zu, element %zu, field %d: scalar (", kernel, backend,
                       size, i, fi);
                for (int c = 0; c < comps; c++)
                    printf("%s%.9g", c ? ", " : "", a->a[c][i]);
                printf(") %s (", backend);
                for (int c = 0; c < comps; c++)
                    printf("%s%.9g", c ? ", " : "", b->a[c][i]);
                printf(") err %.3g\n", err);
                return 1;
            }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *expect = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc) {
            expect = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--expect BACKEND]\n", argv[0]);
            return 2;
        }
    }
#if defined(PB_DETERMINISTIC)
    const int bitwise = 1;
#else
    const int bitwise = 0;
#endif
    int passed = 0, failed = 0;
    pb_backend picked = pb_backend_active();
    printf("dispatch picked: %s (POSEBATCH_BACKEND status: %s)\n", pb_backend_name(picked),
           pb_status_str(pb_backend_init_status()));
    if (expect) {
        if (strcmp(expect, pb_backend_name(picked)) == 0) {
            passed++;
        } else {
            printf("FAIL dispatch: expected %s, picked %s\n", expect, pb_backend_name(picked));
            failed++;
        }
    }
    make_inputs();
    static outputs want, got;
    for (int b = 1; b < PB_BACKEND_COUNT; b++) {
        if (!pb_backend_supported((pb_backend)b))
            continue;
        int lanes = pb_backend_lanes((pb_backend)b);
        size_t sizes[] = {0, 1, (size_t)lanes - 1, (size_t)lanes, (size_t)lanes + 1, 1000, 1001};
        int fails_before = failed;
        for (int id = 0;; id++) {
            const char *name = "";
            int more = 1;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0] && more; si++) {
                size_t n = sizes[si], off = si & 1; /* odd offsets: unaligned */
                pb_backend_force(PB_BACKEND_SCALAR);
                more = run_kernel(id, n, off, &want, &name);
                if (!more)
                    break;
                pb_backend_force((pb_backend)b);
                run_kernel(id, n, off, &got, &name);
                if (want.nf < 0 || got.nf < 0 ||
                    compare(&want, &got,
                            want.count ? want.count
                            : id == 5  ? n / 4 * 4
                                       : n,
                            bitwise, name, pb_backend_name((pb_backend)b), n))
                    failed++;
                else
                    passed++;
            }
            if (!more)
                break;
        }
        printf("%s%s: %s\n", pb_backend_name((pb_backend)b),
               pb_backend_emulated((pb_backend)b) ? " (emulated)" : "",
               failed == fails_before ? (bitwise ? "bit-identical to scalar" : "agrees with scalar")
                                      : "MISMATCH");
    }
    printf("conformance: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
