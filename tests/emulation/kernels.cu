// Kernels for the host emulation's test driver, in the form gpuvec's Python
// layer hands to the host compiler: the emulation header first, then the
// user's source (extern __shared__ already rewritten), then one entry per
// kernel. Build: c++ -std=c++17 -O2 -fPIC -shared -ffp-contract=off
//                  -I csrc/include -x c++ kernels.cu -o libkernels.so
#include <stdexcept>

#include "gpuvec/cuda_emulation.h"

// --- The classic tutorial kernels -----------------------------------------------------------

__global__ void doublify(float* a) {
  int idx = threadIdx.x + threadIdx.y * 4;
  a[idx] *= 2;
}

extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}

// The shared-memory tree reduction: each block writes the sum of its part.
#define BLOCK 256
__global__ void block_sums(const float* in, float* out, int n) {
  __shared__ float partial[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      partial[tid] += partial[tid + stride];
    }
    __syncthreads();
  }
  if (tid == 0) {
    out[blockIdx.x] = partial[0];
  }
}

// The warp-shuffle sum: each warp sums its values with __shfl_down_sync, and
// lane 0 adds the warp's sum to the total.
__inline__ __device__ int warp_sum(int value) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffff, value, offset);
  }
  return value;
}

__global__ void sum_kernel(const int* in, int* total, int n) {
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    sum += in[i];
  }
  sum = warp_sum(sum);
  if ((threadIdx.x & (warpSize - 1)) == 0) {
    atomicAdd(total, sum);
  }
}

// The same on doubles, with the butterfly (__shfl_xor_sync): every lane ends
// with the warp's sum.
__global__ void sum_double(const double* in, double* total, int n) {
  double sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    sum += in[i];
  }
  for (int mask = 16; mask > 0; mask >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, mask);
  if (threadIdx.x % 32 == 31) atomicAdd(total, sum);
}

__global__ void histogram(const unsigned char* values, int* counts, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&counts[values[i]], 1);
  }
}

// Dynamic shared memory, as rewritten from `extern __shared__ float tile[];`.
__global__ void reverse_blocks(float* data) {
  float* const tile = static_cast<float*>(gpuvec_dynamic_shared());
  int t = threadIdx.x;
  int base = blockIdx.x * blockDim.x;
  tile[t] = data[base + t];
  __syncthreads();
  data[base + t] = tile[blockDim.x - 1 - t];
}

__global__ void coordinates(int* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    out[(z * ny + y) * nx + x] = 10000 * z + 100 * y + x;
  }
}

__global__ void matrix_add(const double* a, const double* b, double* c, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
  }
}

template <typename T, int FACTOR>
__global__ void scale(T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = x[i] * FACTOR;
  }
}

// A template with __shared__ inside, run cooperatively.
template <typename T>
__global__ void block_max(const T* in, T* out, int n) {
  __shared__ T best[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  best[threadIdx.x] = i < n ? in[i] : in[0];
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      best[threadIdx.x] = max(best[threadIdx.x], best[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = best[0];
}

// --- Checked mode: `float* out` rewritten to `gpuvec_checked<float> out` ---------------------

__global__ void fill(gpuvec_checked<float> out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) {  // the bug: i == n is one past the end
    out[i] = 1.0f;
  }
}

__device__ float twice(const float* x) { return 2 * x[0]; }

// What kernels do with pointers, on checked ones (all in bounds).
__global__ void pointer_moves(gpuvec_checked<const float> in, gpuvec_checked<float> out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  gpuvec_checked<const float> p = in + i;
  float v = *p + p[0u] + (in + n - 1 - i)[(long long)0] * 0 + twice(&in[i]) + twice(p);
  auto q = out;
  q += i;
  *q = v;
  atomicAdd(&out[i], 1.0f);
  atomicAdd(out + i, 1.0f);
  if (p - in != i || !(p >= in) || p == nullptr) out[i] = -1;
  ++q;
  q--;
  q[0] += __ldg(in + i) + __ldg(&in[i]);
}

// --- Barriers, warps and atomics ------------------------------------------------------------

// The early-return guard before __syncthreads: returned threads drop out.
__global__ void early_return(const int* in, int* out, unsigned int* voters, int n) {
  __shared__ int s[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = in[i];
  __syncthreads();
  int count = __syncthreads_count(s[threadIdx.x] % 2 == 0);
  int all = __syncthreads_and(s[threadIdx.x] >= 0);
  int any = __syncthreads_or(s[threadIdx.x] == 7);
  out[i] = count * 100 + all * 10 + any;
  voters[i] = __ballot_sync(0xffffffff, 1);  // the lanes still there
}

// Two halves of a warp meet apart, at the same time.
__global__ void half_warps(int* out) {
  int lane = threadIdx.x % 32;
  int v = threadIdx.x * 10;
  if (lane < 16) {
    v = __shfl_down_sync(0x0000ffff, v, 1, 16);
  } else {
    v = __shfl_up_sync(0xffff0000, v, 1, 16);
  }
  __syncwarp();
  out[threadIdx.x] = v;
}

// Dynamic shared memory at file scope, as rewritten from
// `extern __shared__ int scratch[];`.
#define scratch (static_cast<int*>(gpuvec_dynamic_shared()))
__global__ void rotate(int* data) {
  int t = threadIdx.x, n = blockDim.x;
  scratch[t] = data[blockIdx.x * n + t];
  __syncthreads();
  data[blockIdx.x * n + t] = scratch[(t + 1) % n];
}
#undef scratch

__global__ void absolutes(const int* i, const long long* l, const float* f, const double* d,
                          double* out) {
  out[0] = abs(i[0]) + abs(l[0]) + abs(f[0]) + abs(d[0]) + fabsf(f[0]) + fabs(d[0]);
  out[1] = max(3, 4u) + min(-1LL, 2LL) + max(2.5f, 1.0f) + min(1.5, 2.0f) + min(7u, 3u);
  out[2] = rsqrt(4.0) + exp2f(3.0f) + log2f(8.0f) + log10f(100.0f) + powf(2.0f, 5.0f) +
           __fmul_rn(1.5f, 2.0f) + __int_as_float(__float_as_int(0.25f)) + __float2int_rn(2.5f) +
           __float2int_rn(3.5f) + __brev(1u) / 2147483648.0 + __umulhi(1u << 31, 4u);
}

__global__ void throws_plain(int n) {
  if ((int)threadIdx.x == n) throw 42;
}

// Votes and shuffles of every flavour, including partial warps and widths.
__global__ void warp_ops(const int* in, int* out) {
  int t = threadIdx.x;
  int lane = t % 32;
  int v = in[blockIdx.x * blockDim.x + t];
  unsigned int ballot = __ballot_sync(0xffffffff, v & 1);
  int any = __any_sync(0xffffffff, v == 5);
  int all = __all_sync(0xffffffff, v >= 0);
  int up = __shfl_up_sync(0xffffffff, v, 3, 16);
  int down = __shfl_down_sync(0xffffffff, v, 5, 8);
  int xr = __shfl_xor_sync(0xffffffff, v, 1);
  int from = __shfl_sync(0xffffffff, v, 7);
  long long wide = __shfl_sync(0xffffffff, (long long)v << 33, lane ^ 3);
  float f = __shfl_down_sync(0xffffffff, (float)v + 0.5f, 1);
  unsigned int active = __activemask();
  __syncwarp();
  int half = -1;
  if (lane < 16) half = __shfl_sync(0x0000ffff, v, 15 - lane);  // half a warp meets
  int* o = out + (blockIdx.x * blockDim.x + t) * 11;
  o[0] = (int)ballot;
  o[1] = any;
  o[2] = all;
  o[3] = up;
  o[4] = down;
  o[5] = xr;
  o[6] = from;
  o[7] = (int)(wide >> 33);
  o[8] = (int)(f * 2);
  o[9] = (int)active;
  o[10] = half;
}

__global__ void atomics(float* f, double* d, int* i, unsigned int* u, unsigned long long* ull) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&f[0], 0.5f);
  atomicAdd(&d[0], 0.25);
  atomicSub(&i[0], 1);
  atomicMin(&i[1], -t);
  atomicMax(&i[2], t);
  atomicOr(&u[0], 1u << (t % 32));
  atomicAnd(&u[1], ~(1u << (t % 32)));
  atomicXor(&u[2], 1u);
  atomicInc(&u[3], 9u);
  atomicAdd(&ull[0], 3ull);
  atomicExch(&f[1], 7.0f);
  atomicMax(&f[2], (float)t);
  int old = atomicCAS(&i[3], t, t + 1);  // i[3] climbs only when t matches it
  (void)old;
}

__global__ void math(const float* x, float* y, const double* a, double* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  y[i] = sqrtf(fabsf(v)) * v + expf(-v * v) / (1.0f + v * v) + __saturatef(v) +
         rsqrtf(1.0f + v * v) + fmaf(v, v, 1.0f) + tanhf(v) + erff(v) + min(v, 0.5f) +
         (float)__popc(i) + (float)__clz(i) + (float)__ffs(i) + __fdividef(v, 3.0f) + floorf(v) +
         roundf(v) + truncf(v) + ceilf(v);
  double w = a[i];
  b[i] = sqrt(fabs(w)) * w + exp(-w * w) + rsqrt(1.0 + w * w) + fma(w, w, 1.0) + max(w, 0.25) +
         pow(fabs(w), 1.5) + log1p(fabs(w)) + sin(w) + cos(w);
}

// --- Failures -------------------------------------------------------------------------------

// Half the warp waits at __syncthreads, the other half at a warp barrier for
// the first half: neither can go on.
__global__ void deadlock(int* out) {
  if (threadIdx.x < 16) {
    __syncthreads();
  } else {
    out[threadIdx.x] = __shfl_sync(0xffffffff, (int)threadIdx.x, 0);
  }
}

__global__ void asserts(const int* in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(in[i] != 42);
}

__global__ void traps(int n) {
  if ((int)(blockIdx.x * blockDim.x + threadIdx.x) == n) __trap();
}

__global__ void throws(int n) {
  if ((int)threadIdx.x == n) throw std::runtime_error("thrown in the kernel");
  __syncthreads();
}

// The barrier-timing kernel: every thread meets the others `rounds` times.
__global__ void barriers(int rounds, int* out) {
  int sum = 0;
  for (int r = 0; r < rounds; ++r) {
    sum += r;
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// The entries gpuvec generates, one per kernel.
GPUVEC_EMULATION_KERNEL(gpuvec_entry_doublify, doublify)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_vecadd, vecadd)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_block_sums, block_sums)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_sum_kernel, sum_kernel)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_sum_double, sum_double)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_histogram, histogram)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_reverse_blocks, reverse_blocks)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_coordinates, coordinates)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_matrix_add, matrix_add)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_scale_f3, (scale<float, 3>))
GPUVEC_EMULATION_KERNEL(gpuvec_entry_scale_d2, (scale<double, 2>))
GPUVEC_EMULATION_KERNEL(gpuvec_entry_block_max, (block_max<int>))
GPUVEC_EMULATION_KERNEL(gpuvec_entry_fill, fill)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_pointer_moves, pointer_moves)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_early_return, early_return)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_warp_ops, warp_ops)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_atomics, atomics)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_math, math)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_deadlock, deadlock)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_asserts, asserts)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_traps, traps)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_throws, throws)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_barriers, barriers)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_half_warps, half_warps)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_rotate, rotate)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_absolutes, absolutes)
GPUVEC_EMULATION_KERNEL(gpuvec_entry_throws_plain, throws_plain)
