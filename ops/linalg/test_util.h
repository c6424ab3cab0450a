// Helpers for the linalg/quantized doctest files (test code only).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

namespace pte::test {

// Reorders a C-order (logical) array into the physical order of `dim_order`.
template <class T>
std::vector<T> to_physical(const std::vector<T>& logical, const std::vector<int64_t>& sizes,
                           const std::vector<uint8_t>& order) {
  const size_t nd = sizes.size();
  std::vector<int64_t> strides(nd);
  int64_t s = 1;
  for (size_t i = nd; i-- > 0;) {
    strides[order[i]] = s;
    s *= sizes[order[i]];
  }
  std::vector<T> phys(logical.size());
  for (size_t i = 0; i < logical.size(); ++i) {
    int64_t rem = static_cast<int64_t>(i), off = 0;
    for (size_t d = nd; d-- > 0;) {
      off += (rem % sizes[d]) * strides[d];
      rem /= sizes[d];
    }
    phys[off] = logical[i];
  }
  return phys;
}

// Elementwise |a - b| <= tol (same length).
template <class A, class B>
bool all_close(const std::vector<A>& a, const std::vector<B>& b, double tol) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])) <= tol)) return false;
  return true;
}

// [v..., v + delta...]: a second channel holding the first shifted by delta.
inline std::vector<float> two_channels(const std::vector<float>& v, float delta) {
  std::vector<float> r(v);
  for (float x : v) r.push_back(x + delta);
  return r;
}

// n floats in [-1, 1) from a linear congruential generator (reproducible test data).
inline std::vector<float> seeded(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>((seed = seed * 1664525u + 1013904223u) >> 9) * 0x1p-22f - 1.0f;
  return v;
}

// Output length of a window op along one dim (the XNNPACK delegate's conv arithmetic, with the
// bottom / right padding): 0 when the window does not fit.
inline int64_t out_len(int64_t in, int64_t pa, int64_t pb, int64_t k, int64_t s, int64_t d) {
  const int64_t eff = d * (k - 1) + 1, padded = in + pa + pb;
  return padded < eff ? 0 : (padded - eff) / s + 1;
}

}  // namespace pte::test
