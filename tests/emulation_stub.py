"""A stand-in for gpuvec's CUDA emulation header, for tests that run the host compiler.

The kernel-source and compile-error tests check that the host source gpuvec
generates compiles, and what the compiler says when it does not. They need
a header that declares what the generated text uses (gpuvec_checked<T>,
gpuvec_shared<A>, gpuvec_dynamic_shared(), GPUVEC_EMULATION_KERNEL) and a few CUDA built-ins,
but none of the real header's machinery, so that they test the rewrites
alone and do not change when the real header does.
"""

import shutil
from pathlib import Path

import pytest

STUB_HEADER = r"""
#pragma once
#include <cstddef>
#include <cstdint>
#define __global__
#define __device__
#define __shared__ static thread_local
struct gpuvec_dim3 { unsigned x, y, z; };
extern thread_local gpuvec_dim3 threadIdx, blockIdx, blockDim, gridDim;
void* gpuvec_dynamic_shared();
void __syncthreads();
template <typename T> struct gpuvec_checked {
  T* data;
  std::int64_t length;
  T& operator[](std::int64_t i) const { return data[i]; }
  friend gpuvec_checked operator+(gpuvec_checked p, std::int64_t i) { p.data += i; return p; }
};
// The marks of what checked mode's source writes (p[gpuvec_emu::WriteIndex((i))] = v).
namespace gpuvec_emu {
template <bool kReads> struct MarkedIndex {
  std::int64_t value;
  explicit MarkedIndex(std::int64_t i) : value(i) {}
  operator std::int64_t() const { return value; }
};
using WriteIndex = MarkedIndex<false>;
using UpdateIndex = MarkedIndex<true>;
}  // namespace gpuvec_emu
template <typename To, typename From> To gpuvec_reinterpret_cast(From&& from) {
  return reinterpret_cast<To>(from);
}
// Checked mode's shared arrays: indexing as the arrays it replaces.
template <typename A> struct gpuvec_shared {
  A data;
  constexpr explicit gpuvec_shared(const char*) : data{} {}
  auto& operator[](std::int64_t i) { return data[i]; }
};
template <typename T> struct gpuvec_shared_dynamic {
  explicit gpuvec_shared_dynamic(const char*) {}
  T& operator[](std::int64_t i) const { return static_cast<T*>(gpuvec_dynamic_shared())[i]; }
};
// Only 32-bit types, to give the tests an error inside the header.
template <typename T> T atomicAdd(T* address, T value) {
  static_assert(sizeof(T) == 4, "atomicAdd supports 32-bit types only");
  T old = *address;
  *address += value;
  return old;
}
#define GPUVEC_EMULATION_KERNEL(symbol, ...) \
  extern "C" void* symbol() { return reinterpret_cast<void*>(&__VA_ARGS__); }
"""


def stub_include_dir(tmp_path: Path) -> Path:
    """A folder holding the stub as ``gpuvec/cuda_emulation.h``, for ``-I``."""
    include = tmp_path / "include"
    (include / "gpuvec").mkdir(parents=True)
    (include / "gpuvec" / "cuda_emulation.h").write_text(STUB_HEADER)
    return include


def available_compilers() -> list[str]:
    """The C++ compilers on this machine, of those whose logs gpuvec reads."""
    return [name for name in ("g++", "clang++") if shutil.which(name)]


def require_compiler(name: str = "c++") -> None:
    if shutil.which(name) is None:
        pytest.skip(f"no {name} on this machine: the host backend's compiler")
