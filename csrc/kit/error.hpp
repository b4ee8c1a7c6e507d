// C++ errors inside gpuvec, and the boundary that turns them into a status.
//
// Library code throws gpuvec::Error; every extern "C" function wraps its body
// in guard(), so no C++ exception ever crosses the ABI. record_error is
// defined by the boundary (csrc/common/error.cpp).
#ifndef GPUVEC_KIT_ERROR_HPP
#define GPUVEC_KIT_ERROR_HPP

#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "gpuvec/status.h"

namespace gpuvec {

class Error : public std::runtime_error {
 public:
  Error(gpuvec_status status, const std::string& message, int cuda_code = 0,
        std::string cuda_name = "")
      : std::runtime_error(message),
        status_(status),
        cuda_code_(cuda_code),
        cuda_name_(std::move(cuda_name)) {}

  gpuvec_status status() const { return status_; }
  int cuda_code() const { return cuda_code_; }
  const std::string& cuda_name() const { return cuda_name_; }

 private:
  gpuvec_status status_;
  int cuda_code_;
  std::string cuda_name_;
};

[[noreturn]] inline void throw_invalid_argument(const std::string& message) {
  throw Error(GPUVEC_ERROR_INVALID_ARGUMENT, message);
}

// Records the failure for gpuvec_last_error_* on this thread.
void record_error(gpuvec_status status, const std::string& message, int cuda_code = 0,
                  const std::string& cuda_name = "");

// Runs body and converts whatever it throws into a status.
template <class Body>
gpuvec_status guard(Body&& body) noexcept {
  try {
    body();
    return GPUVEC_SUCCESS;
  } catch (const Error& e) {
    record_error(e.status(), e.what(), e.cuda_code(), e.cuda_name());
    return e.status();
  } catch (const std::bad_alloc&) {
    record_error(GPUVEC_ERROR_OUT_OF_MEMORY, "a host memory allocation failed");
    return GPUVEC_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    record_error(GPUVEC_ERROR_INTERNAL, e.what());
    return GPUVEC_ERROR_INTERNAL;
  } catch (...) {
    record_error(GPUVEC_ERROR_INTERNAL, "unknown C++ exception");
    return GPUVEC_ERROR_INTERNAL;
  }
}

}  // namespace gpuvec

#endif  // GPUVEC_KIT_ERROR_HPP
