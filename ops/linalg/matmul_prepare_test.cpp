// Tests of the load-time steps of mm, bmm and linear (ops/kernel.h KernelPrepareFn): the
// function they pick gives the generic kernel's bytes, they refuse argument kinds, ranks
// and dtypes at load, and shapes are still checked on every call.
#include <cstring>
#include <random>

#include <doctest/doctest.h>

#include "tests/op_harness.h"

using namespace pte;
using pte::test::Harness;

namespace {

std::vector<float> rnd(size_t n, uint32_t seed) { return pte::test::uniform_floats(n, -1.0f, 1.0f, seed); }

size_t numel(const std::vector<int64_t>& s) {
  size_t n = 1;
  for (int64_t d : s) n *= static_cast<size_t>(d);
  return n;
}

// Runs `name` generically and through its prepare step on the same inputs; the outputs
// must be equal bytes and of shape `want`.
void same_as_generic(const char* name, std::vector<int64_t> sa, std::vector<int64_t> sb, std::vector<int64_t> sbias,
                     std::vector<int64_t> want) {
  CAPTURE(name);
  const KernelDef* k = find_kernel(name);
  REQUIRE(k);
  REQUIRE((k->prepare != nullptr));
  Harness h;
  EValue* a = h.tensor<float>(sa, rnd(numel(sa), 1));
  EValue* b = h.tensor<float>(sb, rnd(numel(sb), 2));
  EValue* bias = sbias.empty() ? nullptr : h.tensor<float>(sbias, rnd(numel(sbias), 3));
  EValue* o1 = h.out<float>({1}, 256);
  EValue* o2 = h.out<float>({1}, 256);
  std::vector<EValue*> p = {a, b}, g = {a, b};
  if (std::string(name) == "aten::linear.out") p.push_back(bias ? bias : h.none()), g.push_back(p.back());
  p.push_back(o1);
  g.push_back(o2);
  g.push_back(o2);
  KernelFn fn = h.prepare(name, p);
  REQUIRE_MESSAGE(static_cast<bool>(fn), h.message);
  CHECK((fn != k->fn));
  REQUIRE_MESSAGE(h.run(fn, p), h.message);
  REQUIRE_MESSAGE(h.run(k->fn, g), h.message);
  CHECK(Harness::shape(o1) == want);
  CHECK(Harness::shape(o2) == want);
  const std::vector<float> v1 = Harness::values<float>(o1), v2 = Harness::values<float>(o2);
  REQUIRE(v1.size() == numel(want));
  CHECK(std::memcmp(v1.data(), v2.data(), v1.size() * sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("matmul prepare: mm, bmm and linear pick a body equal to the generic kernel") {
  same_as_generic("aten::mm.out", {5, 7}, {7, 3}, {}, {5, 3});
  same_as_generic("aten::bmm.out", {2, 4, 6}, {2, 6, 3}, {}, {2, 4, 3});
  same_as_generic("aten::linear.out", {2, 3, 8}, {5, 8}, {5}, {2, 3, 5});
  same_as_generic("aten::linear.out", {4, 8}, {5, 8}, {}, {4, 5});
}

TEST_CASE("matmul prepare: kinds, ranks and dtypes are refused at load; shapes at run time") {
  Harness h;
  // dtypes differ
  std::vector<EValue*> a = {h.tensor<float>({2, 2}, {1, 2, 3, 4}), h.tensor<double>({2, 2}, {1, 2, 3, 4}), h.out<float>({2, 2})};
  CHECK((h.prepare("aten::mm.out", a) == nullptr));
  CHECK(h.message == "mm: dtypes differ (self float32, mat2 float64)");
  // a 3-D mm operand
  std::vector<EValue*> r = {h.tensor<float>({1, 2, 2}, {1, 2, 3, 4}), h.tensor<float>({2, 2}, {1, 2, 3, 4}), h.out<float>({2, 2})};
  CHECK((h.prepare("aten::mm.out", r) == nullptr));
  CHECK(h.message.find("expected 2-D and 2-D tensors, got 3-D and 2-D") != std::string::npos);
  // bool is not a matmul dtype
  std::vector<EValue*> bo = {h.tensor<bool>({1, 2, 2}, {true, false, true, true}), h.tensor<bool>({1, 2, 2}, {true, true, false, true}),
                             h.out<bool>({1, 2, 2})};
  CHECK((h.prepare("aten::bmm.out", bo) == nullptr));
  CHECK(h.message == "bmm: unsupported dtype bool");
  // a scalar where linear's bias belongs; a bias of another dtype
  std::vector<EValue*> lb = {h.tensor<float>({1, 2}, {1, 2}), h.tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}), h.i(1), h.out<float>({1, 3})};
  CHECK((h.prepare("aten::linear.out", lb) == nullptr));
  CHECK(h.message.find("bias: expected a tensor or None") != std::string::npos);
  std::vector<EValue*> ld = {h.tensor<float>({1, 2}, {1, 2}), h.tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
                             h.tensor<double>({3}, {1, 2, 3}), h.out<float>({1, 3})};
  CHECK((h.prepare("aten::linear.out", ld) == nullptr));
  CHECK(h.message == "linear: dtypes differ (input float32, bias float64)");
  // shapes that do not multiply pass the load-time step and fail the call
  std::vector<EValue*> s = {h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), h.tensor<float>({2, 2}, {1, 2, 3, 4}), h.out<float>({2, 2})};
  KernelFn fn = h.prepare("aten::mm.out", s);
  REQUIRE_MESSAGE(static_cast<bool>(fn), h.message);
  CHECK_FALSE(h.run(fn, s));
  CHECK(h.message.find("cannot be multiplied") != std::string::npos);
}
