// What each backend implements for gpuvec_cast_* (see abi_cast.cpp).
#ifndef GPUVEC_COMMON_CAST_HPP
#define GPUVEC_COMMON_CAST_HPP

#include "gpuvec/layout.hpp"
#include "gpuvec/runtime.h"

namespace gpuvec {

namespace host {
template <class To, class From>
void cast(const Layout<2>& layout, To* out, const From* x);
}  // namespace host

namespace cuda {
template <class To, class From>
void cast(const Layout<2>& layout, To* out, const From* x, gpuvec_stream stream);
}  // namespace cuda

}  // namespace gpuvec

#endif  // GPUVEC_COMMON_CAST_HPP
