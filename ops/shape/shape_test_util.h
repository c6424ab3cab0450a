// Test helpers shared by the ops/shape tests.
#pragma once
#include <doctest/doctest.h>

#include <vector>

#include "op_harness.h"

namespace pte::test {

// start, start+1, ... (n values)
template <class T>
std::vector<T> iota(size_t n, double start = 0) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + static_cast<double>(i));
  return v;
}

// The raw memory of a tensor (numel elements in physical order).
template <class T>
std::vector<T> raw(const EValue* e) {
  const T* p = static_cast<const T*>(e->t->data);
  return std::vector<T>(p, p + e->t->numel());
}

// Logical values as floats (for Half / BFloat16 checks).
template <class T>
std::vector<float> as_float(const EValue* e) {
  std::vector<float> r;
  for (T v : Harness::values<T>(e)) r.push_back(static_cast<float>(v));
  return r;
}

}  // namespace pte::test
