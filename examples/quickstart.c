/* One pose of two joints halfway between the second and third of four keys,
 * with its angular velocity: the README's C quick start, whole. */
#include <posebatch.h>
#include <stdio.h>

int main(void)
{
    /* four keys, each n = 2 quaternions as four arrays (w, x, y, z): joint 0
     * turns about z and joint 1 about x, 30 degrees a key (0, 30, 60, 90) */
    const float zero[] = {0, 0}, w0[] = {1, 1};
    const float w1[] = {0.9659258f, 0.9659258f}, x1[] = {0, 0.2588190f}, z1[] = {0.2588190f, 0};
    const float w2[] = {0.8660254f, 0.8660254f}, x2[] = {0, 0.5f}, z2[] = {0.5f, 0};
    const float w3[] = {0.7071068f, 0.7071068f}, x3[] = {0, 0.7071068f}, z3[] = {0.7071068f, 0};
    pb_cquats r0 = {w0, zero, zero, zero}, r1 = {w1, x1, zero, z1}, r2 = {w2, x2, zero, z2},
              r3 = {w3, x3, zero, z3};
    float ow[2], ox[2], oy[2], oz[2], vx[2], vy[2], vz[2];
    pb_quats rot = {ow, ox, oy, oz};
    pb_vec3s vel = {vx, vy, vz}; /* or {0, 0, 0} to skip the velocity */
    pb_status st = pb_quat_catmull_rom(2, 0.5f, r0, r1, r2, r3, 0, rot, vel);
    if (st != PB_OK) {
        fprintf(stderr, "posebatch: %s\n", pb_status_str(st));
        return 1;
    }
    /* 45 degrees about z and x; 30 degrees (0.5236 rad) per unit of x */
    for (int j = 0; j < 2; j++)
        printf("joint %d: rotation %.6f %.6f %.6f %.6f, velocity %.4f %.4f %.4f\n", j, ow[j], ox[j],
               oy[j], oz[j], vx[j], vy[j], vz[j]);
    return 0;
}
