// The thread-local last error behind gpuvec_last_error_*.
#include "../kit/error.hpp"

#include <string>

namespace {

struct LastError {
  std::string message;
  int cuda_code = 0;
  std::string cuda_name;
};

// Thread-local so that two Python threads calling gpuvec never read each
// other's message.
thread_local LastError last_error;

}  // namespace

namespace gpuvec {

void record_error(gpuvec_status status, const std::string& message, int cuda_code,
                  const std::string& cuda_name) {
  (void)status;
  last_error.message = message;
  last_error.cuda_code = cuda_code;
  last_error.cuda_name = cuda_name;
}

}  // namespace gpuvec

extern "C" {

const char* gpuvec_last_error_message(void) { return last_error.message.c_str(); }
int gpuvec_last_error_cuda_code(void) { return last_error.cuda_code; }
const char* gpuvec_last_error_cuda_name(void) { return last_error.cuda_name.c_str(); }

}  // extern "C"
