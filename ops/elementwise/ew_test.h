// pte-run elementwise tests: shared checks (closeness with nan/inf, a thread pool).
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <type_traits>
#include <vector>

#include "tests/op_harness.h"

namespace pte::test {

template <class T>
inline double as_double(T v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return static_cast<double>(static_cast<float>(v));
  else return static_cast<double>(v);
}

// got[i] ~= want[i]: |got - want| <= atol + rtol * |want|; nan matches nan, inf matches
// the same inf exactly.
template <class T>
inline void check_close(const std::vector<T>& got, const std::vector<double>& want, double rtol = 1e-6,
                        double atol = 1e-6) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = as_double(got[i]), w = want[i];
    INFO("element " << i << ": got " << g << ", want " << w);
    if (std::isnan(w)) CHECK(std::isnan(g));
    else if (std::isinf(w)) CHECK(g == w);
    else CHECK(std::fabs(g - w) <= atol + rtol * std::fabs(w));
  }
}

// Exact comparison for integer and bool outputs.
template <class T>
inline void check_equal(const std::vector<T>& got, const std::vector<T>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(as_double(got[i]) == as_double(want[i]));
  }
}

}  // namespace pte::test
