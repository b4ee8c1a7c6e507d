#!/bin/sh
# Builds the host emulation's runtime with a test driver, compiles kernels.cu
# as gpuvec's Python layer does, and runs the driver.
#
#   tests/emulation/run.sh [--bench] [--sanitize] [--ucontext]
#
# --bench     also time the kernels of the performance targets
# --sanitize  build the runtime, the driver and the kernels with ASan and UBSan
# --ucontext  use the portable ucontext fibers instead of the assembly switch
# CXX picks the compiler (default c++); BUILD the folder (default a new
# temporary one); RUNNER runs the driver (e.g. qemu-aarch64 with
# CXX=aarch64-linux-gnu-g++ and QEMU_LD_PREFIX=/usr/aarch64-linux-gnu).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$(mktemp -d)}
mkdir -p "$build"
cxx=${CXX:-c++}
bench= sanitize= fibers=
for arg in "$@"; do
  case $arg in
    --bench) bench=--bench ;;
    --sanitize) sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g" ;;
    --ucontext) fibers=-DGPUVEC_FIBER_UCONTEXT ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done

# The kernels, exactly as gpuvec compiles a user's source.
$cxx -std=c++17 -O2 -fPIC -shared -ffp-contract=off $sanitize -I "$root/csrc/include" \
  -x c++ "$root/tests/emulation/kernels.cu" -o "$build/libkernels.so"
# A library built against another emulation ABI.
echo 'const unsigned int gpuvec_emulation_abi = 999;' > "$build/bad_abi.c"
$cxx -x c -shared -fPIC "$build/bad_abi.c" -o "$build/libbad_abi.so"
# The runtime as gpuvec builds it, and the driver.
$cxx -std=c++17 -O2 -pthread -fvisibility=hidden -ffp-contract=off $sanitize $fibers \
  -I "$root/csrc/include" "$root"/csrc/host/emulation/*.cpp "$root/csrc/host/parallel.cpp" \
  "$root/tests/emulation/driver.cpp" -ldl -o "$build/driver"
${RUNNER:-} "$build/driver" "$build/libkernels.so" "$build/libbad_abi.so" $bench
