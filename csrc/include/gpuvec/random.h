// NumPy's Philox stream in a kernel: the values that
// numpy.random.Generator(numpy.random.Philox(key=...)) draws, bit for bit,
// computed from the key and the value's index alone, in any thread, in any
// order, on any device.
//
//   #include <gpuvec/random.h>
//
//   __global__ void fill(double* out, unsigned long long k0, unsigned long long k1, int n) {
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i < n) out[i] = gpuvec_random_double(gpuvec_random_key(k0, k1), i);
//   }
//
// gives Generator(Philox(key=k0 + (k1 << 64))).random(n), with k0 and k1 the
// two words of Philox's bit_generator.state["state"]["key"].
//
// NumPy's Philox is Random123's Philox4x64-10: a 256-bit counter and a 128-bit
// key make a block of four 64-bit words in ten rounds. The generator
// increments the counter before each block, so a stream starting at counter c
// is made of the blocks of c + 1, c + 2, ...; its uint64 number i is word
// i % 4 of the block of c + 1 + i / 4. NumPy's uint32 draws use each uint64
// twice, low half first. random() is (u64 >> 11) * 2**-53 in float64 and
// (u32 >> 8) * 2**-24 in float32 (tests/test_random.py checks each of these
// against NumPy).
//
// The same code compiles under NVRTC, nvcc and the host C++ compiler (with or
// without gpuvec's CUDA emulation): it includes no header, since NVRTC has
// none of the standard ones, and uses only unsigned long long and unsigned int.
#ifndef GPUVEC_RANDOM_H
#define GPUVEC_RANDOM_H

// Callable from kernels and host code alike; the emulation defines the
// qualifiers for the host compiler, plain C++ has none.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define GPUVEC_RANDOM_FN __host__ __device__ __forceinline__
#elif defined(GPUVEC_EMULATION)
#define GPUVEC_RANDOM_FN __host__ __device__ inline
#else
#define GPUVEC_RANDOM_FN inline
#endif

// Philox4x64's counter (word 0 the lowest) and one block of output.
struct gpuvec_philox4x64_counter {
  unsigned long long v[4];
};

// Philox4x64's key (word 0 the lowest), as in Philox's state["state"]["key"].
struct gpuvec_philox4x64_key {
  unsigned long long v[2];
};

GPUVEC_RANDOM_FN gpuvec_philox4x64_key gpuvec_random_key(unsigned long long low,
                                                         unsigned long long high) {
  gpuvec_philox4x64_key key = {{low, high}};
  return key;
}

GPUVEC_RANDOM_FN gpuvec_philox4x64_counter gpuvec_random_counter(unsigned long long v0,
                                                                 unsigned long long v1,
                                                                 unsigned long long v2,
                                                                 unsigned long long v3) {
  gpuvec_philox4x64_counter counter = {{v0, v1, v2, v3}};
  return counter;
}

// The high 64 bits of a * b: one instruction on the GPU, a 128-bit product
// where the host compiler has one, and four 32-bit products elsewhere (MSVC).
GPUVEC_RANDOM_FN unsigned long long gpuvec_random_mulhi64(unsigned long long a,
                                                          unsigned long long b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#elif defined(__SIZEOF_INT128__)
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
#else
  const unsigned long long a_lo = a & 0xffffffffULL, a_hi = a >> 32;
  const unsigned long long b_lo = b & 0xffffffffULL, b_hi = b >> 32;
  const unsigned long long lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo;
  const unsigned long long lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  // The middle column: at most (2**32 - 1)**2 + 2 * (2**32 - 1), below 2**64.
  const unsigned long long middle = (lo_lo >> 32) + (hi_lo & 0xffffffffULL) + lo_hi;
  return hi_hi + (hi_lo >> 32) + (middle >> 32);
#endif
}

// Random123's Philox4x64 with 10 rounds: the block of `counter` under `key`.
GPUVEC_RANDOM_FN gpuvec_philox4x64_counter gpuvec_philox4x64_10(gpuvec_philox4x64_counter counter,
                                                                gpuvec_philox4x64_key key) {
  const unsigned long long m0 = 0xD2E7470EE14C6C93ULL, m1 = 0xCA5A826395121157ULL;
  const unsigned long long w0 = 0x9E3779B97F4A7C15ULL, w1 = 0xBB67AE8584CAA73BULL;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {  // the key is bumped between rounds, not before the first
      key.v[0] += w0;
      key.v[1] += w1;
    }
    const unsigned long long hi0 = gpuvec_random_mulhi64(m0, counter.v[0]);
    const unsigned long long lo0 = m0 * counter.v[0];
    const unsigned long long hi1 = gpuvec_random_mulhi64(m1, counter.v[2]);
    const unsigned long long lo1 = m1 * counter.v[2];
    gpuvec_philox4x64_counter next = {
        {hi1 ^ counter.v[1] ^ key.v[0], lo1, hi0 ^ counter.v[3] ^ key.v[1], lo0}};
    counter = next;
  }
  return counter;
}

// The uint64 number `index` of the stream that a Philox whose state has
// counter `counter` and no buffered values (buffer_pos 4, as after seeding,
// jumped() or advance()) draws next: word index % 4 of the block of
// counter + 1 + index / 4, carried through all 256 bits.
GPUVEC_RANDOM_FN unsigned long long gpuvec_random_uint64_from(gpuvec_philox4x64_counter counter,
                                                              gpuvec_philox4x64_key key,
                                                              unsigned long long index) {
  unsigned long long add = (index >> 2) + 1;  // at most 2**62: no overflow
  for (int word = 0; word < 4 && add != 0; ++word) {
    const unsigned long long sum = counter.v[word] + add;
    add = sum < add ? 1 : 0;
    counter.v[word] = sum;
  }
  return gpuvec_philox4x64_10(counter, key).v[index & 3];
}

// The uint64 number `index` of NumPy's Philox stream for `key` from counter 0:
// Generator(Philox(key=...)).bit_generator.random_raw(index + 1)[index].
GPUVEC_RANDOM_FN unsigned long long gpuvec_random_uint64(gpuvec_philox4x64_key key,
                                                         unsigned long long index) {
  return gpuvec_random_uint64_from(gpuvec_random_counter(0, 0, 0, 0), key, index);
}

// The uint32 number `index` of the stream (NumPy's next_uint32): the low half
// of uint64 number index / 2 when index is even, its high half when odd.
GPUVEC_RANDOM_FN unsigned int gpuvec_random_uint32_from(gpuvec_philox4x64_counter counter,
                                                        gpuvec_philox4x64_key key,
                                                        unsigned long long index) {
  const unsigned long long word = gpuvec_random_uint64_from(counter, key, index >> 1);
  return static_cast<unsigned int>((index & 1) ? word >> 32 : word & 0xffffffffULL);
}

GPUVEC_RANDOM_FN unsigned int gpuvec_random_uint32(gpuvec_philox4x64_key key,
                                                   unsigned long long index) {
  return gpuvec_random_uint32_from(gpuvec_random_counter(0, 0, 0, 0), key, index);
}

// Value number `index` of Generator.random() in float64: the top 53 bits of
// uint64 number `index`, times 2**-53 (exact: no rounding), in [0, 1).
GPUVEC_RANDOM_FN double gpuvec_random_double_from(gpuvec_philox4x64_counter counter,
                                                  gpuvec_philox4x64_key key,
                                                  unsigned long long index) {
  return static_cast<double>(gpuvec_random_uint64_from(counter, key, index) >> 11) *
         (1.0 / 9007199254740992.0);
}

GPUVEC_RANDOM_FN double gpuvec_random_double(gpuvec_philox4x64_key key, unsigned long long index) {
  return gpuvec_random_double_from(gpuvec_random_counter(0, 0, 0, 0), key, index);
}

// Value number `index` of Generator.random(dtype=np.float32): the top 24 bits
// of uint32 number `index`, times 2**-24, in [0, 1).
GPUVEC_RANDOM_FN float gpuvec_random_float_from(gpuvec_philox4x64_counter counter,
                                                gpuvec_philox4x64_key key,
                                                unsigned long long index) {
  return static_cast<float>(gpuvec_random_uint32_from(counter, key, index) >> 8) *
         (1.0f / 16777216.0f);
}

GPUVEC_RANDOM_FN float gpuvec_random_float(gpuvec_philox4x64_key key, unsigned long long index) {
  return gpuvec_random_float_from(gpuvec_random_counter(0, 0, 0, 0), key, index);
}

#endif  // GPUVEC_RANDOM_H
