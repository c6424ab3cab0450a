#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::permute_copy.out: 3-d permutation, f32 and bf16") {
  Harness h;
  // x[i,j,k] = 100i + 10j + k, shape [2,3,2]
  std::vector<float> xv;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) xv.push_back(100 * i + 10 * j + k);
  auto* x = h.tensor<float>({2, 3, 2}, xv);
  auto* o = h.out<float>({2, 2, 3});
  REQUIRE(h.call("aten::permute_copy.out", {x, h.ints({2, 0, -2}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 2, 3});
  // out[k,i,j] = x[i,j,k]
  std::vector<float> want;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(100 * i + 10 * j + k);
  CHECK(Harness::values<float>(o) == want);

  std::vector<BFloat16> xb(xv.begin(), xv.end());
  auto* b = h.tensor<BFloat16>({2, 3, 2}, xb);
  auto* ob = h.out<BFloat16>({2, 2, 3});
  REQUIRE(h.call("aten::permute_copy.out", {b, h.ints({2, 0, 1}), ob}));
  CHECK(as_float<BFloat16>(ob) == want);
}

TEST_CASE("aten::permute_copy.out: NCHW -> NHWC of a channels-last input is a plain copy of its memory") {
  Harness h;
  // logical x[0,c,h,w] = 100c + 10h + w, stored channels-last (memory order h, w, c)
  auto* x = h.tensor<int64_t>({1, 2, 2, 2}, {0, 100, 1, 101, 10, 110, 11, 111}, Dynamism::Static, {0, 2, 3, 1});
  auto* o = h.out<int64_t>({1, 2, 2, 2});
  REQUIRE(h.call("aten::permute_copy.out", {x, h.ints({0, 2, 3, 1}), o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{0, 100, 1, 101, 10, 110, 11, 111});
}

TEST_CASE("aten::permute_copy.out: dynamic output and errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({4, 4}, 16);
  REQUIRE(h.call("aten::permute_copy.out", {x, h.ints({1, 0}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 2});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK_FALSE(h.call("aten::permute_copy.out", {x, h.ints({0, 0}), h.out<float>({2, 3})}));
  CHECK(h.message.find("repeated") != std::string::npos);
  CHECK_FALSE(h.call("aten::permute_copy.out", {x, h.ints({0}), h.out<float>({2, 3})}));
  CHECK_FALSE(h.call("aten::permute_copy.out", {x, h.ints({0, 2}), h.out<float>({2, 3})}));
}

// Large transposes take the tiled path of the copy engine; check every element against
// the index formula (sizes not multiples of the tile, several dtypes, outer dims).
template <class T>
static void check_tiled_permute(std::vector<int64_t> shape, std::vector<int64_t> dims) {
  Harness h;
  int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<T> xv(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) xv[i] = static_cast<T>(i % 251);
  auto* x = h.tensor<T>(shape, xv);
  std::vector<int64_t> oshape;
  for (auto d : dims) oshape.push_back(shape[d]);
  auto* o = h.out<T>(oshape);
  REQUIRE(h.call("aten::permute_copy.out", {x, h.ints(dims), o}));
  auto got = Harness::values<T>(o);
  // walk the output index, map it back to the input's row-major index
  std::vector<int64_t> idx(oshape.size(), 0);
  int64_t bad = 0;
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> in_idx(shape.size());
    for (size_t j = 0; j < dims.size(); ++j) in_idx[dims[j]] = idx[j];
    int64_t lin = 0;
    for (size_t j = 0; j < shape.size(); ++j) lin = lin * shape[j] + in_idx[j];
    if (got[k] != static_cast<T>(lin % 251)) ++bad;
    for (int j = static_cast<int>(oshape.size()) - 1; j >= 0; --j) {
      if (++idx[j] < oshape[j]) break;
      idx[j] = 0;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("aten::permute_copy.out: tiled transposes match the index formula") {
  check_tiled_permute<float>({37, 53}, {1, 0});
  check_tiled_permute<uint8_t>({3, 41, 19}, {0, 2, 1});
  check_tiled_permute<int64_t>({2, 9, 3, 33}, {3, 1, 0, 2});
  check_tiled_permute<Half>({64, 64}, {1, 0});
  // 4-byte elements: whole 8 x 8 blocks (AVX2) and the edges
  check_tiled_permute<float>({9, 256, 64}, {0, 2, 1});
  check_tiled_permute<int32_t>({2, 19, 3, 45}, {0, 3, 2, 1});
  check_tiled_permute<float>({8, 8}, {1, 0});
  check_tiled_permute<float>({17, 9}, {1, 0});
}
