// Tests of aten::_fft_r2c.out (fft_r2c.cpp, fft.cpp) against a direct O(n^2) DFT in double,
// and of aten::abs.out on complex input (abs_complex.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <complex>

#include "tests/op_harness.h"

using namespace pte;
using namespace pte::test;

namespace {

using cd = std::complex<double>;

std::vector<cd> dft(const std::vector<cd>& x) {
  const size_t n = x.size();
  std::vector<cd> r(n);
  for (size_t k = 0; k < n; ++k) {
    cd s = 0;
    for (size_t j = 0; j < n; ++j) {
      double a = -2.0 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n);
      s += x[j] * cd(std::cos(a), std::sin(a));
    }
    r[k] = s;
  }
  return r;
}

std::vector<float> signal(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<float>(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
  }
  return v;
}

// A complex64 output tensor of the given sizes (room for `cap` complex elements).
EValue* complex_out(Harness& h, std::vector<int64_t> sizes, int64_t cap) {
  EValue* e = h.out<float>(sizes, 2 * cap);
  e->t->dtype = DType::ComplexFloat;
  return e;
}

std::vector<std::complex<float>> cvalues(const EValue* e) {
  const Tensor& t = *e->t;
  std::vector<std::complex<float>> r(static_cast<size_t>(t.numel()));
  for (int64_t k = 0; k < t.numel(); ++k) r[k] = t.ptr<std::complex<float>>()[strided_offset(t, k)];
  return r;
}

}  // namespace

TEST_CASE("aten::_fft_r2c.out: 1-D lengths (radix-2, Bluestein incl. 400), onesided, normalization") {
  for (int64_t n : {1, 2, 3, 5, 8, 12, 64, 400, 401}) {
    for (int norm : {0, 1, 2}) {
      for (bool onesided : {true, false}) {
        CAPTURE(n); CAPTURE(norm); CAPTURE(onesided);
        Harness h;
        auto x = signal(static_cast<size_t>(3 * n), static_cast<uint32_t>(n * 7 + norm));
        auto* in = h.tensor<float>({3, n}, x);
        int64_t keep = onesided ? n / 2 + 1 : n;
        auto* o = complex_out(h, {3, keep}, 3 * n);
        REQUIRE(h.call("aten::_fft_r2c.out", {in, h.ints({1}), h.i(norm), h.b(onesided), o}));
        REQUIRE(Harness::shape(o) == std::vector<int64_t>{3, keep});
        auto got = cvalues(o);
        double scale = norm == 0 ? 1.0 : norm == 1 ? 1.0 / std::sqrt(double(n)) : 1.0 / double(n);
        double worst = 0;
        for (int64_t r = 0; r < 3; ++r) {
          std::vector<cd> row(x.begin() + r * n, x.begin() + (r + 1) * n);
          auto ref = dft(row);
          for (int64_t k = 0; k < keep; ++k) {
            cd g(got[r * keep + k].real(), got[r * keep + k].imag());
            worst = std::max(worst, std::abs(g - ref[k] * scale) / (scale * std::sqrt(double(n))));
          }
        }
        CHECK(worst < 1e-6);
      }
    }
  }
}

TEST_CASE("aten::_fft_r2c.out: two dims, a transposed input, stft's [1, frames, n_fft] layout") {
  Harness h;
  // 2-D transform of a [4, 6] signal over both dims, onesided on the last
  auto x = signal(24, 11);
  auto* in = h.tensor<float>({4, 6}, x);
  auto* o = complex_out(h, {4, 4}, 24);
  REQUIRE(h.call("aten::_fft_r2c.out", {in, h.ints({0, 1}), h.i(0), h.b(true), o}));
  auto got = cvalues(o);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      cd ref = 0;
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 6; ++k)
          ref += double(x[j * 6 + k]) * std::exp(cd(0, -2.0 * M_PI * (double(a * j) / 4 + double(b * k) / 6)));
      CAPTURE(a); CAPTURE(b);
      CHECK(std::abs(cd(got[a * 4 + b].real(), got[a * 4 + b].imag()) - ref) < 1e-5);
    }
  // the same 1-D transform of a column-major [5, 3] tensor's rows (stride 3 along dim 1... transposed)
  auto y = signal(15, 5);  // physical [3][5]; logical [5,3] with dim_order {1, 0}
  auto* t = h.tensor<float>({5, 3}, y, Dynamism::Static, {1, 0});
  auto* ot = complex_out(h, {2, 3}, 15);
  REQUIRE(h.call("aten::_fft_r2c.out", {t, h.ints({-2}), h.i(0), h.b(true), ot}));
  REQUIRE(Harness::shape(ot) == std::vector<int64_t>{3, 3});
  auto gt = cvalues(ot);
  for (int c = 0; c < 3; ++c) {
    std::vector<cd> col(5);
    for (int r = 0; r < 5; ++r) col[r] = y[c * 5 + r];
    auto ref = dft(col);
    for (int k = 0; k < 3; ++k) CHECK(std::abs(cd(gt[k * 3 + c].real(), gt[k * 3 + c].imag()) - ref[k]) < 1e-5);
  }
}

TEST_CASE("aten::abs.out on complex64; _fft_r2c errors") {
  Harness h;
  auto* in = h.tensor<float>({2, 2}, {3, 4, -5, 12, 0, -1, 8, 15});  // 4 floats = 2 complex per row? no: see below
  // reinterpret as complex64 [2, 2]: (3+4i) (-5+12i) (0-1i) (8+15i)
  in->t->dtype = DType::ComplexFloat;
  auto* o = h.out<float>({2, 2});
  REQUIRE(h.call("aten::abs.out", {in, o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{5, 13, 1, 17});
  auto* o64 = h.out<int64_t>({2, 2});
  CHECK_FALSE(h.call("aten::abs.out", {in, o64}));
  CHECK(h.message.find("expected float32") != std::string::npos);

  auto* x = h.tensor<float>({8}, signal(8, 1));
  auto* co = complex_out(h, {5}, 8);
  CHECK_FALSE(h.call("aten::_fft_r2c.out", {x, h.ints({1}), h.i(0), h.b(true), co}));
  CHECK(h.message.find("out of range") != std::string::npos);
  CHECK_FALSE(h.call("aten::_fft_r2c.out", {x, h.ints({0}), h.i(3), h.b(true), co}));
  CHECK(h.message.find("normalization") != std::string::npos);
  auto* fo = h.out<float>({5});
  CHECK_FALSE(h.call("aten::_fft_r2c.out", {x, h.ints({0}), h.i(0), h.b(true), fo}));
  CHECK(h.message.find("complex64") != std::string::npos);
  auto* xi = h.tensor<int32_t>({8}, std::vector<int32_t>(8, 1));
  CHECK_FALSE(h.call("aten::_fft_r2c.out", {xi, h.ints({0}), h.i(0), h.b(true), co}));
  auto* small = complex_out(h, {2}, 2);
  small->t->dynamism = Dynamism::Static;
  CHECK_FALSE(h.call("aten::_fft_r2c.out", {x, h.ints({0}), h.i(0), h.b(true), small}));
}
