// Running the blocks of a launch, and recording its first failure.
#include "launch.hpp"

#include <memory>
#include <new>

#include "../../kit/error.hpp"

namespace gpuvec::host::emulation {
namespace {

// Each OS thread's worker, made when it runs its first block.
Worker& this_thread_worker() {
  thread_local std::unique_ptr<Worker> worker;
  if (!worker) worker = std::make_unique<Worker>();
  return *worker;
}

}  // namespace

int64_t Launch::blocks() const {
  return int64_t{config_.grid.x} * config_.grid.y * config_.grid.z;
}

int64_t Launch::threads_per_block() const {
  return int64_t{config_.block.x} * config_.block.y * config_.block.z;
}

void Launch::run_block(int64_t index) noexcept {
  if (failed()) return;  // after a failure, the blocks not started yet are skipped
  try {
    Worker& worker = this_thread_worker();
    const size_t shared_words =
        (config_.shared_mem + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
    if (worker.dynamic_shared.size() < shared_words) worker.dynamic_shared.resize(shared_words);
    const gpuvec_dim3 grid = config_.grid, block = config_.block;
    gpuvec_emulation_block& b = worker.block;
    b.runtime = &runtime_table;
    b.grid_dim = {grid.x, grid.y, grid.z};
    b.block_dim = {block.x, block.y, block.z};
    b.block_idx = {static_cast<uint32_t>(index % grid.x),
                   static_cast<uint32_t>(index / grid.x % grid.y),
                   static_cast<uint32_t>(index / (int64_t{grid.x} * grid.y))};
    b.dynamic_shared = worker.dynamic_shared.data();
    b.dynamic_shared_size = config_.shared_mem;
    b.cooperative = cooperative_;
    b.runtime_data = &worker;
    worker.launch = this;
    entry_(&b, params_);
  } catch (const Error& e) {
    fail(e.status(), e.what(), e.cuda_code(), e.cuda_name().c_str());
  } catch (const std::bad_alloc&) {
    fail(GPUVEC_ERROR_OUT_OF_MEMORY, "a host memory allocation failed");
  } catch (const std::exception& e) {
    fail(GPUVEC_ERROR_INTERNAL, e.what());
  } catch (...) {
    fail(GPUVEC_ERROR_INTERNAL, "unknown C++ exception in a block of the host emulation");
  }
}

void Launch::fail(gpuvec_status status, const std::string& message, int cuda_code,
                  const char* cuda_name) noexcept {
  if (failed()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed()) return;
  status_ = status;
  cuda_code_ = cuda_code;
  try {
    message_ = message;
    cuda_name_ = cuda_name ? cuda_name : "";
  } catch (...) {  // no memory for the message: the failure itself still counts
    message_.clear();
  }
  failed_.store(true, std::memory_order_relaxed);
}

void Launch::check() const {
  if (failed()) throw Error(status_, message_, cuda_code_, cuda_name_);
}

std::string where(gpuvec_emulation_dim3 thread, gpuvec_emulation_dim3 block) {
  return " (thread (" + std::to_string(thread.x) + ", " + std::to_string(thread.y) + ", " +
         std::to_string(thread.z) + ") of block (" + std::to_string(block.x) + ", " +
         std::to_string(block.y) + ", " + std::to_string(block.z) + "))";
}

}  // namespace gpuvec::host::emulation
