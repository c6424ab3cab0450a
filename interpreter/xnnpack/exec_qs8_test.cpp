// Tests for the qs8 arithmetic (exec_qs8.h): fp32 requantization (round to nearest even,
// saturation at the output range), the fixed-point add, the mean conversion and the
// activation bounds, against independent integer / double references. Whole graphs
// are compared with the official runtime by the qs8_cnn_xnnpack conformance case.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "interpreter/xnnpack/exec_qs8.h"

using namespace pte::xnn;

namespace {

// Exact round-half-even of acc * k / 2^m (integers only), clamped to [lo - zp, hi - zp], + zp.
int32_t ref_requant(int64_t acc, int64_t k, int m, int32_t zp, int32_t lo, int32_t hi) {
  const int64_t num = acc * k;
  const int64_t den = INT64_C(1) << m;
  int64_t q = num >= 0 ? num / den : -((-num) / den);  // toward zero
  int64_t r = num - q * den;                           // same sign as num
  if (2 * std::llabs(r) > den || (2 * std::llabs(r) == den && (q & 1))) q += num >= 0 ? 1 : -1;
  q = std::max<int64_t>(std::min<int64_t>(q, hi - zp), lo - zp);
  return static_cast<int32_t>(q + zp);
}

}  // namespace

TEST_CASE("qs8: requantization rounds half to even and saturates") {
  // ties: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, -3.5 -> -4
  CHECK(qs8_requantize(5, 0.5f, 0, -128, 127) == 2);
  CHECK(qs8_requantize(7, 0.5f, 0, -128, 127) == 4);
  CHECK(qs8_requantize(-5, 0.5f, 0, -128, 127) == -2);
  CHECK(qs8_requantize(-7, 0.5f, 0, -128, 127) == -4);
  // zero point added after rounding; saturation at both ends of [-128, 127]
  CHECK(qs8_requantize(5, 0.5f, -10, -128, 127) == -8);
  CHECK(qs8_requantize(300, 1.0f, -128, -128, 127) == 127);
  CHECK(qs8_requantize(-10, 1.0f, -128, -128, 127) == -128);
  CHECK(qs8_requantize(INT32_MAX, 255.0f, 0, -128, 127) == 127);
  CHECK(qs8_requantize(INT32_MIN, 255.0f, 0, -128, 127) == -128);
  // a fused ReLU range [zp, 127]
  CHECK(qs8_requantize(-1000, 0.01f, 3, 3, 127) == 3);
}

TEST_CASE("qs8: requantization equals exact integer rounding for dyadic scales") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> acc(-(1 << 22), 1 << 22);
  std::uniform_int_distribution<int> kk(1, 255), mm(8, 30), zz(-128, 127);
  int checked = 0;
  for (int it = 0; it < 20001; ++it) {  // odd count
    const int64_t k = kk(rng);
    const int m = mm(rng);
    const float scale = std::ldexp(static_cast<float>(k), -m);
    if (!(scale < 256.0f)) continue;
    // keep acc * k within float's exact range so acc * scale is exact in fp32
    const int32_t a = acc(rng) >> 8;
    const int32_t zp = zz(rng);
    const int32_t lo = std::min(zp, 0), hi = 127;
    REQUIRE(qs8_requantize(a, scale, zp, lo, hi) == ref_requant(a, k, m, zp, lo, hi));
    ++checked;
  }
  CHECK(checked > 19000);
}

TEST_CASE("qs8: add with equal scales is exact saturating integer addition") {
  QS8Add p;
  REQUIRE(qs8_add_params(0.05f, 0, 0.05f, 0, 0.05f, 0, &p));
  CHECK(p.shift == 20 + 0);  // ratio 1.0: exponent 0
  CHECK(p.a_mult == (1 << 20));
  for (int a = -128; a <= 127; a += 5)
    for (int b = -128; b <= 127; b += 7) CHECK(qs8_add(a, b, p) == std::max(-128, std::min(127, a + b)));
}

TEST_CASE("qs8: add within one step of the real-valued sum, zero points and clamp") {
  QS8Add p;
  const float sa = 0.031f, sb = 0.0123f, sy = 0.047f;
  const int za = -7, zb = 12, zy = -3;
  REQUIRE(qs8_add_params(sa, za, sb, zb, sy, zy, &p));
  int exact = 0, total = 0;
  for (int a = -128; a <= 127; ++a)
    for (int b = -128; b <= 127; b += 3) {
      const double r = ((a - za) * (double)sa + (b - zb) * (double)sb) / sy + zy;
      const double c = std::max(-128.0, std::min(127.0, r));
      const int y = qs8_add(a, b, p);
      REQUIRE(std::fabs(y - c) <= 1.0);
      exact += y == static_cast<int>(std::lround(c));
      ++total;
    }
  CHECK(exact > total * 9 / 10);
  p.lo = zy, p.hi = 100;  // a fused ReLU6-like range
  CHECK(qs8_add(-128, -128, p) == zy);
  CHECK(qs8_add(127, 127, p) == 100);
  // ratios outside [2^-10, 2^8) are refused
  CHECK_FALSE(qs8_add_params(1e-4f, 0, 0.05f, 0, 1.0f, 0, &p));
  CHECK_FALSE(qs8_add_params(300.0f, 0, 1.0f, 0, 1.0f, 0, &p));
}

TEST_CASE("qs8: mean over an odd count, offsets and saturation") {
  // equal quantization: the mean of 9 fives is 5; of 9 values summing to 13 (1.44..) is 1
  QS8Mean m = qs8_mean_params(0.1f, 0, 0.1f, 0, 9);
  CHECK(qs8_mean(45, m) == 5);
  CHECK(qs8_mean(13, m) == 1);
  CHECK(qs8_mean(-14, m) == -2);  // -1.55.. -> -2
  // zero points: x in [-128, 127] with zp -128 averaging to the output zp when all at -128
  QS8Mean z = qs8_mean_params(0.02f, -128, 0.01f, -100, 25);
  CHECK(qs8_mean(-128 * 25, z) == -100);
  CHECK(qs8_mean(127 * 25, z) == 127);  // (255 * 2) - 100 = 410 saturates
  // against a double reference within one step
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> v(-128, 127);
  for (int it = 0; it < 501; ++it) {
    const int n = 1 + 2 * (it % 17);
    int32_t s = 0;
    for (int i = 0; i < n; ++i) s += v(rng);
    const double r = std::max(-128.0, std::min(127.0, (s + 128.0 * n) / n * 0.02 / 0.01 - 100));
    QS8Mean q = qs8_mean_params(0.02f, -128, 0.01f, -100, n);
    REQUIRE(std::fabs(qs8_mean(s, q) - r) <= 1.0);
  }
}

TEST_CASE("qs8: activation bounds in the quantized domain") {
  CHECK(qs8_quantize_bound(-INFINITY, 0.1f, 5) == -128);
  CHECK(qs8_quantize_bound(INFINITY, 0.1f, 5) == 127);
  CHECK(qs8_quantize_bound(0.0f, 0.1f, -128) == -128);  // ReLU lower bound = zero point
  CHECK(qs8_quantize_bound(6.0f, 0.05f, -10) == 110);
  CHECK(qs8_quantize_bound(0.125f, 0.25f, 0) == 0);  // 0.5 rounds to even
}

namespace {

Value q8(float scale, int32_t zp, Shape dims) {
  Value v;
  v.dtype = DT::QInt8;
  v.quant = Quant::PerTensor;
  v.scale = scale;
  v.zero_point = zp;
  v.dims = dims;
  return v;
}

Shape sh(std::initializer_list<int64_t> d) {
  Shape s;
  for (int64_t x : d) s.d[s.n++] = x;
  return s;
}

}  // namespace

TEST_CASE("qs8: bad quantized nodes are refused at load with one clear message") {
  Graph g;
  g.values.push_back(q8(0.1f, 0, sh({1, 4})));
  g.values.push_back(q8(0.1f, 0, sh({1, 4})));
  g.values.push_back(q8(1000.0f, 0, sh({1, 4})));  // ratio 1e-4: outside XNNPACK's add range
  Node add;
  add.op = Op::Add;
  add.in[0] = 0, add.in[1] = 1, add.nin = 2, add.out = 2;
  REQUIRE(is_qs8_node(g, add));
  pte::Status s = prepare_node(g, add, nullptr);
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.message().find("XNNAdd") != std::string::npos);
  CHECK(s.message().find("scale ratio") != std::string::npos);
  g.values[2].scale = 0.2f;
  Prepared p;
  CHECK(prepare_node(g, add, &p).is_ok());
  CHECK(p.wsum.size() == 7);
  // a quint8 operand is named, not run on the int8 kernels
  g.values[1].dtype = DT::QUInt8;
  s = prepare_node(g, add, nullptr);
  CHECK_FALSE(s.is_ok());
  // max pooling must keep the quantization
  g.values[1].dtype = DT::QInt8;
  Node mp;
  mp.op = Op::MaxPooling2d;
  mp.conv.kh = mp.conv.kw = 2;
  mp.in[0] = 0, mp.nin = 1, mp.out = 2;
  s = prepare_node(g, mp, nullptr);
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().find("quantization must be equal") != std::string::npos);
  // a quantized concatenation whose inputs differ from the output
  Node cat;
  cat.op = Op::Concatenate2;
  cat.in[0] = 0, cat.in[1] = 1, cat.nin = 2, cat.out = 2;
  s = prepare_node(g, cat, nullptr);
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().find("quantized differently") != std::string::npos);
  g.values[2].scale = 0.1f;
  CHECK(prepare_node(g, cat, nullptr).is_ok());
  // a conv with a non-constant filter
  Node cv;
  cv.op = Op::Conv2d;
  cv.conv.kh = cv.conv.kw = 1, cv.conv.groups = 1, cv.conv.gic = 4, cv.conv.goc = 4;
  cv.in[0] = 0, cv.in[1] = 1, cv.nin = 2, cv.out = 2;
  s = prepare_node(g, cv, nullptr);
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().find("constant") != std::string::npos);
}
