"""A small N-body step: the acceleration of each body, the bodies tiled in shared memory."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close

SOURCE = r"""
#define TILE 64
__global__ void nbody_accel(const float* bodies, float* accel, int n, float soft2) {
    // bodies: x, y, z and the mass of each body; accel: ax, ay, az of each.
    __shared__ float4 tile[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    float4 me = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (i < n) me = make_float4(bodies[4 * i], bodies[4 * i + 1], bodies[4 * i + 2], 0.0f);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        int j = t0 + threadIdx.x;
        tile[threadIdx.x] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // massless past the end
        if (j < n) {
            int b = 4 * j;
            float4 body = make_float4(bodies[b], bodies[b + 1], bodies[b + 2], bodies[b + 3]);
            tile[threadIdx.x] = body;
        }
        __syncthreads();  // the tile is loaded
        for (int k = 0; k < TILE; ++k) {
            float4 other = tile[k];
            float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
            float r2 = dx * dx + dy * dy + dz * dz + soft2;
            float inv_r = 1.0f / sqrtf(r2);
            float s = other.w * inv_r * inv_r * inv_r;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        __syncthreads();  // the tile is used
    }
    if (i < n) {
        accel[3 * i] = ax;
        accel[3 * i + 1] = ay;
        accel[3 * i + 2] = az;
    }
}
"""


def setup(rng):
    n = int(rng.integers(100, 250)) | 1
    bodies = rng.random((n, 4), dtype=np.float32)
    bodies[:, :3] = bodies[:, :3] * 2 - 1
    accel = np.zeros((n, 3), np.float32)
    soft2 = np.float32(0.01)
    p = bodies[:, :3].astype(np.float64)
    d = p[None, :, :] - p[:, None, :]  # d[i, j] = p[j] - p[i]
    r2 = (d**2).sum(axis=2) + soft2
    expected = (d * (bodies[None, :, 3] / r2**1.5)[:, :, None]).sum(axis=1)
    launch = {"grid": (n + 63) // 64, "block": 64}
    return (bodies, accel, np.int32(n), soft2), launch, close(accel, expected, 1e-3, 1e-3)


KERNEL = Kernel(
    "nbody_accel",
    SOURCE,
    setup,
    [
        Bug(
            "unguarded_tile_load",
            "        if (j < n) {\n",
            "        {  // every thread loads a body\n",
            "OutOfBoundsError",
            line="float4 body = make_float4(",
        ),
    ],
)
