// The host emulation's test driver: loads kernels.cu's library through
// gpuvec::host::load_library / find_entry / launch_kernel and checks every
// kernel against plain C++. With --bench it also times the kernels of the
// performance targets. Built and run by run.sh.
//
//   driver LIBKERNELS LIBBADABI [--bench]
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "../../csrc/host/emulation/fiber.hpp"
#include "../../csrc/host/emulation/stack_pool.hpp"
#include "../../csrc/kit/error.hpp"
#include "../../csrc/kit/kernel_backends.hpp"
#include "gpuvec/kernels.h"

namespace host = gpuvec::host;

namespace {

int failures = 0;

#define CHECK(condition)                                                   \
  do {                                                                     \
    if (!(condition)) {                                                    \
      ++failures;                                                          \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #condition); \
    }                                                                      \
  } while (0)

// --- Launching ------------------------------------------------------------------------------

template <class T>
gpuvec_kernel_arg pointer(const char* name, T* data, int64_t count) {
  gpuvec_kernel_arg arg{};
  arg.kind = GPUVEC_KERNEL_ARG_POINTER;
  arg.name = name;
  arg.data = const_cast<std::remove_const_t<T>*>(data);
  arg.memory = GPUVEC_MEMORY_HOST;
  arg.count = count;
  arg.itemsize = sizeof(T);
  arg.writes = !std::is_const<T>::value;
  return arg;
}

template <class T>
gpuvec_kernel_arg value(const char* name, T v) {
  static_assert(sizeof(T) <= 16, "a value argument has at most 16 bytes");
  gpuvec_kernel_arg arg{};
  arg.kind = GPUVEC_KERNEL_ARG_VALUE;
  arg.name = name;
  memcpy(arg.value.bytes, &v, sizeof v);
  arg.size = sizeof v;
  return arg;
}

void* library = nullptr;

void launch(const char* entry, int flags, gpuvec_dim3 grid, gpuvec_dim3 block,
            const std::vector<gpuvec_kernel_arg>& args, size_t shared_mem = 0) {
  gpuvec_kernel_config config{grid, block, shared_mem};
  host::launch_kernel(host::find_entry(library, entry), flags, config, args.data(),
                      static_cast<int>(args.size()));
}

// The error that body throws (status GPUVEC_SUCCESS when it throws none).
template <class Body>
gpuvec::Error error_of(Body body) {
  try {
    body();
  } catch (const gpuvec::Error& e) {
    return e;
  }
  return gpuvec::Error(GPUVEC_SUCCESS, "");
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

gpuvec_dim3 dim(uint32_t x, uint32_t y = 1, uint32_t z = 1) { return {x, y, z}; }
uint32_t blocks(int64_t n, int64_t per_block) {
  return static_cast<uint32_t>((n + per_block - 1) / per_block);
}

constexpr int kPlain = 0;
constexpr int kCoop = GPUVEC_KERNEL_COOPERATIVE;
constexpr int kChecked = GPUVEC_KERNEL_CHECKED;

std::mt19937 rng(1234);

std::vector<float> normal_floats(size_t n) {
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// --- The classic kernels --------------------------------------------------------------------

void test_doublify() {
  std::vector<float> a = normal_floats(16), expected = a;
  for (float& x : expected) x *= 2;
  launch("gpuvec_entry_doublify", kPlain, dim(1, 1), dim(4, 4, 1), {pointer("a", a.data(), 16)});
  CHECK(a == expected);
}

void test_vecadd() {
  for (int64_t n :
       {int64_t{1}, int64_t{255}, int64_t{257}, int64_t{65537}, (int64_t{1} << 24) + 11}) {
    std::vector<float> a = normal_floats(n), b = normal_floats(n), c(n, NAN);
    launch("gpuvec_entry_vecadd", kPlain, dim(blocks(n, 256)), dim(256),
           {pointer("a", (const float*)a.data(), n), pointer("b", (const float*)b.data(), n),
            pointer("c", c.data(), n), value("n", static_cast<int>(n))});
    bool same = true;
    for (int64_t i = 0; i < n; ++i) same &= c[i] == a[i] + b[i];
    CHECK(same);
  }
}

// The tree of block_sums, in the same order: the sums match bit for bit.
std::vector<float> tree_sums(const std::vector<float>& in) {
  const int64_t n = in.size(), nb = blocks(n, 256);
  std::vector<float> out(nb);
  for (int64_t b = 0; b < nb; ++b) {
    float partial[256];
    for (int t = 0; t < 256; ++t) partial[t] = b * 256 + t < n ? in[b * 256 + t] : 0.0f;
    for (int stride = 128; stride > 0; stride >>= 1)
      for (int t = 0; t < stride; ++t) partial[t] += partial[t + stride];
    out[b] = partial[0];
  }
  return out;
}

void test_block_sums() {
  for (int64_t n : {256, 1000, 65537, 1 << 20}) {
    std::vector<float> in = normal_floats(n), out(blocks(n, 256), NAN);
    launch("gpuvec_entry_block_sums", kCoop, dim(out.size()), dim(256),
           {pointer("in", (const float*)in.data(), n), pointer("out", out.data(), out.size()),
            value("n", static_cast<int>(n))});
    CHECK(out == tree_sums(in));
  }
}

void test_warp_sums() {
  const int n = 53735;
  std::vector<int> values(n);
  for (int i = 0; i < n; ++i) values[i] = i;
  int total = 0;
  launch(
      "gpuvec_entry_sum_kernel", kCoop, dim(blocks(n, 256)), dim(256),
      {pointer("in", (const int*)values.data(), n), pointer("total", &total, 1), value("n", n)});
  CHECK(total == 1443698245);
  // Fewer blocks than values (the grid-stride loop), on doubles.
  std::vector<double> doubles(values.begin(), values.end());
  double sum = 0;
  launch(
      "gpuvec_entry_sum_double", kCoop, dim(7), dim(96),
      {pointer("in", (const double*)doubles.data(), n), pointer("total", &sum, 1), value("n", n)});
  CHECK(sum == 1443698245.0);
}

void test_histogram() {
  const int64_t n = 100003;
  std::vector<unsigned char> values(n);
  for (auto& v : values) v = static_cast<unsigned char>(rng() % 256);
  std::vector<int> counts(256, 0), expected(256, 0);
  for (auto v : values) ++expected[v];
  launch("gpuvec_entry_histogram", kPlain, dim(blocks(n, 512)), dim(512),
         {pointer("values", (const unsigned char*)values.data(), n),
          pointer("counts", counts.data(), 256), value("n", static_cast<long long>(n))});
  CHECK(counts == expected);
}

void test_dynamic_shared() {
  std::vector<float> x = normal_floats(64 * 5), expected(x.size());
  for (int b = 0; b < 5; ++b)
    for (int t = 0; t < 64; ++t) expected[b * 64 + t] = x[b * 64 + 63 - t];
  launch("gpuvec_entry_reverse_blocks", kCoop, dim(5), dim(64), {pointer("data", x.data(), 320)},
         64 * sizeof(float));
  CHECK(x == expected);
}

void test_grids() {
  const int nx = 37, ny = 11, nz = 5;
  std::vector<int> out(nx * ny * nz, -7);
  launch(
      "gpuvec_entry_coordinates", kPlain, dim(blocks(nx, 8), blocks(ny, 4), blocks(nz, 2)),
      dim(8, 4, 2),
      {pointer("out", out.data(), out.size()), value("nx", nx), value("ny", ny), value("nz", nz)});
  bool same = true;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) same &= out[(z * ny + y) * nx + x] == 10000 * z + 100 * y + x;
  CHECK(same);

  const int rows = 67, cols = 131;
  std::vector<double> a(rows * cols), b(rows * cols), c(rows * cols, NAN);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.5 * i, b[i] = 1.0 / (i + 1);
  launch("gpuvec_entry_matrix_add", kPlain, dim(blocks(cols, 16), blocks(rows, 16)), dim(16, 16),
         {pointer("a", (const double*)a.data(), a.size()),
          pointer("b", (const double*)b.data(), b.size()), pointer("c", c.data(), c.size()),
          value("rows", rows), value("cols", cols)});
  same = true;
  for (size_t i = 0; i < a.size(); ++i) same &= c[i] == a[i] + b[i];
  CHECK(same);
}

void test_templates() {
  std::vector<float> x32 = normal_floats(1001), e32 = x32;
  std::vector<double> x64(1001), e64(1001);
  for (int i = 0; i < 1001; ++i) x64[i] = e64[i] = 0.25 * i - 3;
  for (float& v : e32) v *= 3;
  for (double& v : e64) v *= 2;
  launch("gpuvec_entry_scale_f3", kPlain, dim(4), dim(256),
         {pointer("x", x32.data(), 1001), value("n", 1001)});
  launch("gpuvec_entry_scale_d2", kPlain, dim(4), dim(256),
         {pointer("x", x64.data(), 1001), value("n", 1001)});
  CHECK(x32 == e32);
  CHECK(x64 == e64);

  const int n = 1000;  // block_max<int>: __shared__ inside a template, cooperative
  std::vector<int> in(n), out(blocks(n, 128), -1);
  for (int i = 0; i < n; ++i) in[i] = static_cast<int>((i * 7919) % 1009);
  launch("gpuvec_entry_block_max", kCoop, dim(out.size()), dim(128),
         {pointer("in", (const int*)in.data(), n), pointer("out", out.data(), out.size()),
          value("n", n)});
  bool same = true;
  for (size_t b = 0; b < out.size(); ++b) {
    int best = in[0];
    for (int i = b * 128; i < std::min<int>(n, b * 128 + 128); ++i) best = std::max(best, in[i]);
    same &= out[b] == best;
  }
  CHECK(same);
}

// --- Checked mode ---------------------------------------------------------------------------

void test_checked() {
  for (int flags : {kChecked, kChecked | kCoop}) {
    std::vector<float> buffer(20, 0.0f);  // out is the first 16: the last 4 must stay zero
    const gpuvec::Error e = error_of([&] {
      launch("gpuvec_entry_fill", flags, dim(5), dim(4),
             {pointer("out", buffer.data(), 16), value("n", 16)});
    });
    CHECK(e.status() == GPUVEC_ERROR_INDEX);
    // The message names the kernel's file and line too (gpuvec's #line gives
    // the user's; here, this folder's kernels.cu).
    const std::string what = e.what();
    CHECK(what.rfind("index 16 is out of bounds for parameter 'out' of length 16, at ", 0) == 0);
    CHECK(what.find("kernels.cu:") != std::string::npos);
    CHECK(what.find("in kernel 'fill' (thread (0, 0, 0) of block (4, 0, 0))") !=
          std::string::npos);
    CHECK(std::all_of(buffer.begin() + 16, buffer.end(), [](float v) { return v == 0; }));
    CHECK(std::all_of(buffer.begin(), buffer.begin() + 16, [](float v) { return v == 1; }));
  }
  // After a fault the blocks not started yet are skipped: here every block faults once.
  std::vector<float> small(4, 0.0f);
  const gpuvec::Error e = error_of([&] {
    launch("gpuvec_entry_fill", kChecked, dim(64), dim(1),
           {pointer("out", small.data(), 4), value("n", 100)});
  });
  CHECK(std::string(e.what()).rfind("index 4 is out of bounds for parameter 'out' of length 4",
                                    0) == 0);
  CHECK(std::string(e.what()).find("(thread (0, 0, 0) of block (4, 0, 0))") != std::string::npos);
  // A correct launch passes.
  std::vector<float> out(16, 0.0f);
  launch("gpuvec_entry_fill", kChecked, dim(4), dim(4),
         {pointer("out", out.data(), 16), value("n", 15)});
  CHECK(std::all_of(out.begin(), out.end(), [](float v) { return v == 1; }));

  const int n = 100;
  std::vector<float> in(n), moved(n, NAN);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i + 1);
  launch(
      "gpuvec_entry_pointer_moves", kChecked, dim(blocks(n, 32)), dim(32),
      {pointer("in", (const float*)in.data(), n), pointer("out", moved.data(), n), value("n", n)});
  bool same = true;
  for (int i = 0; i < n; ++i) same &= moved[i] == 8 * in[i] + 2;
  CHECK(same);
}

// --- Barriers, warps and atomics ------------------------------------------------------------

void test_early_return() {
  const int n = 100;  // the second block of 64 has 36 live threads
  std::vector<int> in(n), out(n, -1);
  std::vector<unsigned int> voters(n, 0);
  for (int i = 0; i < n; ++i) in[i] = (i * 5) % 11;
  launch("gpuvec_entry_early_return", kCoop, dim(2), dim(64),
         {pointer("in", (const int*)in.data(), n), pointer("out", out.data(), n),
          pointer("voters", voters.data(), n), value("n", n)});
  bool same = true;
  for (int b = 0; b < 2; ++b) {
    int even = 0, seven = 0;
    for (int i = b * 64; i < std::min(n, b * 64 + 64); ++i)
      even += in[i] % 2 == 0, seven |= in[i] == 7;
    for (int i = b * 64; i < std::min(n, b * 64 + 64); ++i)
      same &= out[i] == even * 100 + 10 + seven;
  }
  CHECK(same);
  CHECK(voters[0] == 0xffffffffu && voters[64] == 0xffffffffu && voters[99] == 0xfu);
}

void test_half_warps() {
  std::vector<int> out(64, -1);
  launch("gpuvec_entry_half_warps", kCoop, dim(1), dim(64), {pointer("out", out.data(), 64)});
  bool same = true;
  for (int t = 0; t < 64; ++t) {
    const int lane = t % 32;
    const int src = lane < 16 ? (lane < 15 ? t + 1 : t) : (lane > 16 ? t - 1 : t);
    same &= out[t] == src * 10;
  }
  CHECK(same);
}

void test_big_blocks_and_grids() {
  int out[2] = {0, 0};  // 1024 threads (32 warps) meet 5 times
  launch("gpuvec_entry_barriers", kCoop, dim(2), dim(1024),
         {value("rounds", 5), pointer("out", out, 2)});
  CHECK(out[0] == 10 && out[1] == 10);

  const int nx = 2, ny = 65535, nz = 2;  // the largest grid.y
  std::vector<int> cells(nx * ny * nz, -7);
  launch("gpuvec_entry_coordinates", kPlain, dim(1, ny, 2), dim(2, 1, 1),
         {pointer("out", cells.data(), cells.size()), value("nx", nx), value("ny", ny),
          value("nz", nz)});
  bool same = true;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) same &= cells[(z * ny + y) * nx + x] == 10000 * z + 100 * y + x;
  CHECK(same);

  std::vector<int> data(3 * 40);
  for (int i = 0; i < 120; ++i) data[i] = i;
  launch("gpuvec_entry_rotate", kCoop, dim(3), dim(40), {pointer("data", data.data(), 120)},
         40 * sizeof(int));
  same = true;
  for (int b = 0; b < 3; ++b)
    for (int t = 0; t < 40; ++t) same &= data[b * 40 + t] == b * 40 + (t + 1) % 40;
  CHECK(same);
}

void test_math_overloads() {
  const int i = -3;
  const long long l = -5;
  const float f = -1.5f;
  const double d = -2.25;
  double out[3] = {0, 0, 0};
  launch("gpuvec_entry_absolutes", kPlain, dim(1), dim(1),
         {pointer("i", &i, 1), pointer("l", &l, 1), pointer("f", &f, 1), pointer("d", &d, 1),
          pointer("out", out, 3)});
  CHECK(out[0] == 3 + 5 + 1.5 + 2.25 + 1.5 + 2.25);
  CHECK(out[1] == 4 - 1 + 2.5 + 1.5 + 3);
  CHECK(out[2] == 0.5 + 8 + 3 + 2 + 32 + 3 + 0.25 + 2 + 4 + 1 + 2);
}

void test_warp_ops() {
  const int per_block = 48, nb = 2;  // the second warp of each block has 16 lanes
  std::vector<int> in(per_block * nb), out(in.size() * 11, -99);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>((i * 7 + 3) % 13);
  launch(
      "gpuvec_entry_warp_ops", kCoop, dim(nb), dim(per_block),
      {pointer("in", (const int*)in.data(), in.size()), pointer("out", out.data(), out.size())});
  bool same = true;
  for (int b = 0; b < nb; ++b) {
    for (int t = 0; t < per_block; ++t) {
      const int lane = t % 32, first = b * per_block + t - lane;
      const int lanes = std::min(32, per_block - (t - lane));
      auto v = [&](int l) { return in[first + l]; };
      unsigned int ballot = 0;
      int any = 0, all = 1;
      for (int l = 0; l < lanes; ++l)
        ballot |= (v(l) & 1u) << l, any |= v(l) == 5, all &= v(l) >= 0;
      const int* o = &out[(b * per_block + t) * 11];
      same &= o[0] == static_cast<int>(ballot) && o[1] == any && o[2] == all;
      same &= o[3] == v(lane % 16 >= 3 ? lane - 3 : lane);
      same &= o[4] == v(lane % 8 + 5 < 8 ? lane + 5 : lane);
      same &= o[5] == v(lane ^ 1) && o[6] == v(7) && o[7] == v(lane ^ 3);
      // A source lane that does not exist gives the caller its own value.
      same &= o[8] == 2 * v(lane + 1 < lanes ? lane + 1 : lane) + 1;
      same &= o[9] == static_cast<int>(lanes == 32 ? 0xffffffffu : (1u << lanes) - 1);
      same &= o[10] == (lane < 16 ? v(15 - lane) : -1);
    }
  }
  CHECK(same);
}

void test_atomics() {
  const int nb = 8, per_block = 64, T = nb * per_block;
  float f[3] = {0, 0, -1};
  double d = 0;
  int i[4] = {1000, 5, 5, 0};
  unsigned int u[4] = {0, 0xffffffffu, 6, 0};
  unsigned long long ull = 1;
  launch("gpuvec_entry_atomics", kPlain, dim(nb), dim(per_block),
         {pointer("f", f, 3), pointer("d", &d, 1), pointer("i", i, 4), pointer("u", u, 4),
          pointer("ull", &ull, 1)});
  CHECK(f[0] == 0.5f * T && d == 0.25 * T);
  CHECK(i[0] == 1000 - T && i[1] == -(T - 1) && i[2] == T - 1);
  CHECK(i[3] >= 1 && i[3] <= T);
  CHECK(u[0] == 0xffffffffu && u[1] == 0 && u[2] == (6u ^ (T % 2)) && u[3] == T % 10u);
  CHECK(ull == 1 + 3ull * T && f[1] == 7.0f && f[2] == T - 1);
}

void test_math() {
  const int n = 1000;
  std::vector<float> x = normal_floats(n), y(n);
  std::vector<double> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = 2.0 * x[i] + 0.125;
  launch("gpuvec_entry_math", kPlain, dim(blocks(n, 128)), dim(128),
         {pointer("x", (const float*)x.data(), n), pointer("y", y.data(), n),
          pointer("a", (const double*)a.data(), n), pointer("b", b.data(), n), value("n", n)});
  bool same = true;
  for (int i = 0; i < n; ++i) {
    const float v = x[i];
    const float sat = v >= 1.0f ? 1.0f : (v > 0.0f ? v : 0.0f);
    const float expected = sqrtf(fabsf(v)) * v + expf(-v * v) / (1.0f + v * v) + sat +
                           1.0f / sqrtf(1.0f + v * v) + fmaf(v, v, 1.0f) + tanhf(v) + erff(v) +
                           fminf(v, 0.5f) + (float)__builtin_popcount(i) +
                           (float)(i == 0 ? 32 : __builtin_clz(i)) + (float)__builtin_ffs(i) +
                           v / 3.0f + floorf(v) + roundf(v) + truncf(v) + ceilf(v);
    const double w = a[i];
    const double expected_b = sqrt(fabs(w)) * w + exp(-w * w) + 1.0 / sqrt(1.0 + w * w) +
                              fma(w, w, 1.0) + fmax(w, 0.25) + pow(fabs(w), 1.5) + log1p(fabs(w)) +
                              sin(w) + cos(w);
    same &= memcmp(&y[i], &expected, sizeof(float)) == 0;
    same &= memcmp(&b[i], &expected_b, sizeof(double)) == 0;
  }
  CHECK(same);
}

// --- Failures -------------------------------------------------------------------------------

void test_failures() {
  std::vector<int> out(32, 0);
  gpuvec::Error e = error_of([&] {
    launch("gpuvec_entry_deadlock", kCoop, dim(3), dim(32), {pointer("out", out.data(), 32)});
  });
  CHECK(e.status() == GPUVEC_ERROR_CUDA && e.cuda_code() == 702);
  CHECK(contains(e.what(),
                 "deadlocked in block (0, 0, 0): 16 threads wait at "
                 "__syncthreads() and 16 at a warp barrier"));

  std::vector<int> in(128, 0);
  in[37] = 42;
  for (int flags : {kPlain, kCoop}) {
    e = error_of([&] {
      launch("gpuvec_entry_asserts", flags, dim(2), dim(64),
             {pointer("in", (const int*)in.data(), 128)});
    });
    CHECK(e.status() == GPUVEC_ERROR_CUDA && e.cuda_code() == 710);
    CHECK(contains(e.what(), "device-side assert triggered: "));
    CHECK(contains(e.what(),
                   "Assertion `in[i] != 42' failed. (thread (37, 0, 0) of block (0, 0, 0))"));
  }

  e = error_of([&] { launch("gpuvec_entry_traps", kPlain, dim(2), dim(64), {value("n", 70)}); });
  CHECK(e.cuda_code() == 719 &&
        contains(e.what(), "__trap() was called (thread (6, 0, 0) of block (1, 0, 0))"));

  e = error_of(
      [&] { launch("gpuvec_entry_throws_plain", kPlain, dim(1), dim(64), {value("n", 9)}); });
  CHECK(e.cuda_code() == 719 &&
        contains(e.what(), "an exception that is not a std::exception (thread (9, 0, 0)"));
  e = error_of([&] { launch("gpuvec_entry_throws", kCoop, dim(1), dim(64), {value("n", 5)}); });
  CHECK(e.cuda_code() == 719 &&
        contains(e.what(),
                 "a C++ exception left the kernel: thrown in the kernel (thread (5, 0, 0)"));

  std::vector<float> x(256, 1.0f), sums(1);
  e = error_of([&] {
    launch("gpuvec_entry_block_sums", kPlain, dim(1), dim(256),
           {pointer("in", (const float*)x.data(), 256), pointer("out", sums.data(), 1),
            value("n", 256)});
  });
  CHECK(
      e.status() == GPUVEC_ERROR_INTERNAL &&
      contains(e.what(), "__syncthreads was called in a kernel that gpuvec runs as a plain loop"));

  // Everything still works after the failures.
  test_warp_sums();
  test_block_sums();
}

void test_loading(const char* bad_abi_path) {
  gpuvec::Error e = error_of([] { host::load_library("/nonexistent/libk.so"); });
  CHECK(e.status() == GPUVEC_ERROR_INVALID_ARGUMENT &&
        contains(e.what(), "/nonexistent/libk.so") && contains(e.what(), "No such file"));
  e = error_of([] { host::load_library("libm.so.6"); });
  CHECK(contains(e.what(), "no gpuvec_emulation_abi symbol"));
  e = error_of([&] { host::load_library(bad_abi_path); });
  CHECK(contains(e.what(), "emulation ABI version 999"));
  e = error_of([] { host::find_entry(library, "gpuvec_entry_nope"); });
  CHECK(e.status() == GPUVEC_ERROR_INVALID_ARGUMENT && contains(e.what(), "'gpuvec_entry_nope'"));
}

// --- Timings --------------------------------------------------------------------------------

template <class Body>
double best_seconds(int repeats, Body body) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// Two fibers that switch to each other, straight through fiber_switch.
namespace bare {
using namespace gpuvec::host::emulation;
FiberContext home, first, second;
long switches = 0;
constexpr long kSwitches = 10000000;
void run_first(void*) {
  fiber_started();
  for (;;) fiber_switch(first, second);
}
void run_second(void*) {
  fiber_started();
  for (;;) {
    switches += 2;
    fiber_switch(second, switches >= kSwitches ? home : first);
  }
}
}  // namespace bare

double bare_switch_seconds() {
  using namespace bare;
  StackPool stacks;
  fiber_prepare(first, stacks.stack(0), StackPool::kStackBytes, &run_first, nullptr);
  fiber_prepare(second, stacks.stack(1), StackPool::kStackBytes, &run_second, nullptr);
  fiber_describe_thread(home);
  switches = 0;
  const auto start = std::chrono::steady_clock::now();
  fiber_switch(home, first);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
         switches;
}

void bench() {
  {
    const int n = 1 << 24;
    std::vector<float> a = normal_floats(n), b = normal_floats(n), c(n);
    auto run = [&] {
      launch("gpuvec_entry_vecadd", kPlain, dim(blocks(n, 256)), dim(256),
             {pointer("a", (const float*)a.data(), n), pointer("b", (const float*)b.data(), n),
              pointer("c", c.data(), n), value("n", n)});
    };
    printf("vecadd 2^24 float32: %.2f ms\n", 1e3 * best_seconds(10, run));
  }
  {
    const int n = 1 << 20;
    std::vector<float> in = normal_floats(n), out(n / 256);
    auto run = [&] {
      launch("gpuvec_entry_block_sums", kCoop, dim(n / 256), dim(256),
             {pointer("in", (const float*)in.data(), n), pointer("out", out.data(), n / 256),
              value("n", n)});
    };
    printf("shared-memory tree reduction, 2^20 floats in 256-thread blocks: %.1f ms\n",
           1e3 * best_seconds(5, run));
  }
  {
    const int n = 53735;
    std::vector<int> values(n);
    for (int i = 0; i < n; ++i) values[i] = i;
    int total = 0;
    auto run = [&] {
      total = 0;
      launch("gpuvec_entry_sum_kernel", kCoop, dim(blocks(n, 256)), dim(256),
             {pointer("in", (const int*)values.data(), n), pointer("total", &total, 1),
              value("n", n)});
    };
    printf("warp-shuffle sum of arange(53735): %.2f ms\n", 1e3 * best_seconds(10, run));
  }
  {
    // One block on one OS thread: 256 fibers meet 2000 times, each meeting a
    // switch per fiber.
    const int rounds = 2000, threads = 256;
    int out = 0;
    const double s = best_seconds(5, [&] {
      launch("gpuvec_entry_barriers", kCoop, dim(1), dim(threads),
             {value("rounds", rounds), pointer("out", &out, 1)});
    });
    printf(
        "__syncthreads per thread of a 256-thread block (a switch and the bookkeeping): %.1f ns\n",
        1e9 * s / (double(rounds) * threads));
  }
  printf("bare fiber switch, two fibers in turn: %.1f ns\n", 1e9 * bare_switch_seconds());
  {
    std::vector<float> a(256, 1.0f), c(256);
    int n = 256;
    auto plain = [&] {
      launch("gpuvec_entry_vecadd", kPlain, dim(1), dim(256),
             {pointer("a", (const float*)a.data(), n), pointer("b", (const float*)a.data(), n),
              pointer("c", c.data(), n), value("n", n)});
    };
    auto coop = [&] {
      launch(
          "gpuvec_entry_block_sums", kCoop, dim(1), dim(256),
          {pointer("in", (const float*)a.data(), n), pointer("out", c.data(), 1), value("n", n)});
    };
    printf("one-block launch: vecadd of 256 %.1f us, tree reduction of 256 %.1f us\n",
           1e6 * best_seconds(200, plain), 1e6 * best_seconds(200, coop));
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s LIBKERNELS LIBBADABI [--bench]\n", argv[0]);
    return 2;
  }
  library = host::load_library(argv[1]);
  test_doublify();
  test_vecadd();
  test_block_sums();
  test_warp_sums();
  test_histogram();
  test_dynamic_shared();
  test_grids();
  test_templates();
  test_checked();
  test_early_return();
  test_half_warps();
  test_big_blocks_and_grids();
  test_math_overloads();
  test_warp_ops();
  test_atomics();
  test_math();
  test_failures();
  test_loading(argv[2]);
  if (argc > 3 && strcmp(argv[3], "--bench") == 0) bench();
  host::unload_library(library);
  printf(failures == 0 ? "all emulation tests passed\n" : "%d emulation checks failed\n",
         failures);
  return failures == 0 ? 0 : 1;
}
