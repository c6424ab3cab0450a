// Tests of the binary arithmetic kernels' load-time steps (add, sub, mul, div; Tensor and
// Scalar overloads): what each refuses at load, which function it picks, and that the
// specialised float body gives bit-identical results to the generic kernel.
#include <cstring>
#include <random>

#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::Harness;

namespace {

struct BinaryCase {
  const char* name;
  bool alpha;   // has an alpha argument
  bool scalar;  // other is a Scalar
};

const BinaryCase kCases[] = {
    {"aten::add.out", true, false}, {"aten::add.Scalar_out", true, true}, {"aten::sub.out", true, false},
    {"aten::sub.Scalar_out", true, true}, {"aten::mul.out", false, false}, {"aten::mul.Scalar_out", false, true},
    {"aten::div.out", false, false}, {"aten::div.Scalar_out", false, true},
};

std::vector<float> random_floats(size_t n, uint32_t seed) { return pte::test::uniform_floats(n, -3.0f, 3.0f, seed); }

}  // namespace

TEST_CASE("prepare: binary arithmetic on Float picks a float body equal to the generic kernel, bit for bit") {
  for (const BinaryCase& c : kCases) {
    CAPTURE(c.name);
    const KernelDef* k = find_kernel(c.name);
    REQUIRE(k);
    REQUIRE((k->prepare != nullptr));
    // broadcast [3,1,5] with [4,5] (Tensor other); a transposed self; a dynamic out
    for (int layout = 0; layout < 2; ++layout) {
      CAPTURE(layout);
      Harness h;
      EValue* x = layout == 0 ? h.tensor<float>({3, 1, 5}, random_floats(15, 1))
                              : h.tensor<float>({3, 4, 5}, random_floats(60, 2), Dynamism::Static, {0, 2, 1});
      EValue* y = c.scalar ? h.d(0.37) : h.tensor<float>({4, 5}, random_floats(20, 3));
      EValue* out_a = h.out<float>({1}, 64);
      EValue* out_b = h.out<float>({1}, 64);
      std::vector<EValue*> a = {x, y}, b = {x, y};
      if (c.alpha) a.push_back(h.i(1)), b.push_back(h.i(1));
      a.push_back(out_a);
      b.push_back(out_b);
      KernelFn fn = h.prepare(c.name, a);
      REQUIRE_MESSAGE(static_cast<bool>(fn), h.message);
      CHECK((fn != k->fn));  // the float body
      REQUIRE_MESSAGE(h.run(fn, a), h.message);
      b.push_back(b.back());
      REQUIRE_MESSAGE(h.run(k->fn, b), h.message);
      const std::vector<int64_t> want = c.scalar && layout == 0 ? std::vector<int64_t>{3, 1, 5} : std::vector<int64_t>{3, 4, 5};
      CHECK(Harness::shape(out_a) == want);
      CHECK(Harness::shape(out_a) == Harness::shape(out_b));
      const std::vector<float> va = Harness::values<float>(out_a), vb = Harness::values<float>(out_b);
      REQUIRE(va.size() == (c.scalar && layout == 0 ? 15u : 60u));
      CHECK(std::memcmp(va.data(), vb.data(), va.size() * sizeof(float)) == 0);
      // a broadcast failure is still found at run time (shapes are not fixed at load)
      if (!c.scalar) {
        EValue* bad = h.tensor<float>({7}, random_floats(7, 4));
        std::vector<EValue*> d = a;
        d[1] = bad;
        CHECK(!h.run(fn, d));
        CHECK(h.message.find("broadcast") != std::string::npos);
      }
    }
  }
}

TEST_CASE("prepare: other dtypes and alphas keep the generic kernel; impossible dtypes are refused at load") {
  for (const BinaryCase& c : kCases) {
    CAPTURE(c.name);
    const KernelDef* k = find_kernel(c.name);
    REQUIRE(k);
    Harness h;
    // int32 self: the generic kernel (promotion and conversion per call)
    {
      std::vector<EValue*> a = {h.tensor<int32_t>({2}, {1, 2}), c.scalar ? h.i(3) : h.tensor<int32_t>({2}, {3, 4})};
      if (c.alpha) a.push_back(h.i(1));
      a.push_back(std::string(c.name).find("div") != std::string::npos ? h.out<float>({2}) : h.out<int32_t>({2}));
      KernelFn fn = h.prepare(c.name, a);
      REQUIRE_MESSAGE(static_cast<bool>(fn), h.message);
      CHECK((fn == k->fn));
    }
    // Float with alpha 2: the generic kernel
    if (c.alpha) {
      std::vector<EValue*> a = {h.tensor<float>({2}, {1, 2}), c.scalar ? h.d(1.5) : h.tensor<float>({2}, {3, 4}), h.i(2),
                                h.out<float>({2})};
      KernelFn fn = h.prepare(c.name, a);
      REQUIRE_MESSAGE(static_cast<bool>(fn), h.message);
      CHECK((fn == k->fn));
      REQUIRE(h.run(fn, a));
      CHECK(Harness::values<float>(a[3])[1] == (std::string(c.name).find("sub") != std::string::npos
                                                    ? (c.scalar ? 2.0f - 3.0f : 2.0f - 8.0f)
                                                    : (c.scalar ? 2.0f + 3.0f : 2.0f + 8.0f)));
    }
    // Float inputs into an Int64 out: torch cannot cast the result, refused at load
    {
      std::vector<EValue*> a = {h.tensor<float>({2}, {1, 2}), c.scalar ? h.d(0.5) : h.tensor<float>({2}, {3, 4})};
      if (c.alpha) a.push_back(h.i(1));
      a.push_back(h.out<int64_t>({2}));
      CHECK((h.prepare(c.name, a) == nullptr));
      CHECK(h.message.find("can't be cast") != std::string::npos);
    }
    // a Scalar where a tensor belongs
    {
      std::vector<EValue*> a = {h.i(1), c.scalar ? h.d(0.5) : h.tensor<float>({2}, {3, 4})};
      if (c.alpha) a.push_back(h.i(1));
      a.push_back(h.out<float>({2}));
      CHECK((h.prepare(c.name, a) == nullptr));
      CHECK(h.message.find("self") != std::string::npos);
    }
  }
  // a Double alpha on integer inputs, and bool subtraction, as torch refuses them
  Harness h;
  std::vector<EValue*> a = {h.tensor<int64_t>({2}, {1, 2}), h.tensor<int64_t>({2}, {3, 4}), h.d(0.5), h.out<int64_t>({2})};
  CHECK((h.prepare("aten::add.out", a) == nullptr));
  CHECK(h.message.find("alpha") != std::string::npos);
  std::vector<EValue*> s = {h.tensor<bool>({2}, {true, false}), h.tensor<bool>({2}, {true, true}), h.i(1), h.out<bool>({2})};
  CHECK((h.prepare("aten::sub.out", s) == nullptr));
  CHECK(h.message.find("bool") != std::string::npos);
}

TEST_CASE("prepare: every kernel has its own operator id") {
  size_t n = 0;
  const KernelDef* ks = all_kernels(&n);
  REQUIRE(n > 100);
  std::vector<uint8_t> seen(65536, 0);
  for (size_t i = 0; i < n; ++i) {
    CAPTURE(ks[i].name);
    CHECK(ks[i].id != OpId::None);
    CHECK(seen[static_cast<uint16_t>(ks[i].id)] == 0);
    seen[static_cast<uint16_t>(ks[i].id)] = 1;
  }
  CHECK(find_kernel("aten::mm.out")->id == OpId::mm_out);
  CHECK(find_kernel("executorch_prim::et_view.default")->id == OpId::et_view_default);
}

TEST_CASE("prepare: floating math of one argument (and sigmoid, silu) on Float picks a float body equal to the generic kernel") {
  const char* names[] = {"exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
                         "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf",
                         "sigmoid", "silu"};
  for (const char* n : names) {
    const std::string name = std::string("aten::") + n + ".out";
    CAPTURE(name);
    const KernelDef* k = find_kernel(name.c_str());
    REQUIRE(k);
    REQUIRE((k->prepare != nullptr));
    Harness h;
    // a transposed [4,6] input (values in [-3, 3]: some outside a domain give the same NaN)
    EValue* x = h.tensor<float>({4, 6}, random_floats(24, 7), Dynamism::Static, {1, 0});
    EValue* oa = h.out<float>({1}, 32);
    EValue* ob = h.out<float>({1}, 32);
    std::vector<EValue*> a = {x, oa}, b = {x, ob, ob};
    KernelFn fn = h.prepare(name.c_str(), a);
    REQUIRE_MESSAGE(static_cast<bool>(fn), h.message);
    CHECK((fn != k->fn));
    REQUIRE_MESSAGE(h.run(fn, a), h.message);
    REQUIRE_MESSAGE(h.run(k->fn, b), h.message);
    CHECK(Harness::shape(oa) == std::vector<int64_t>{4, 6});
    const std::vector<float> va = Harness::values<float>(oa), vb = Harness::values<float>(ob);
    REQUIRE(va.size() == 24);
    CHECK(std::memcmp(va.data(), vb.data(), va.size() * sizeof(float)) == 0);
    // int32 in, Float out: the generic kernel (silu refuses integer input at load); a
    // Long out is refused at load
    std::vector<EValue*> c = {h.tensor<int32_t>({2}, {1, 2}), h.out<float>({2})};
    KernelFn g = h.prepare(name.c_str(), c);
    if (name == "aten::silu.out") {
      CHECK((g == nullptr));
      CHECK(h.message.find("floating dtypes only") != std::string::npos);
    } else {
      REQUIRE_MESSAGE(static_cast<bool>(g), h.message);
      CHECK((g == k->fn));
    }
    std::vector<EValue*> d = {h.tensor<float>({2}, {1, 2}), h.out<int64_t>({2})};
    CHECK((h.prepare(name.c_str(), d) == nullptr));
    CHECK(h.message.find("can't be cast") != std::string::npos);
  }
}
