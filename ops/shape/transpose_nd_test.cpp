// transpose_nd: the reference against explicit indexing (a 3-d case), then the tiled kernel
// against the reference, byte for byte, over ranks 1-6, sizes 1 to past two 64-wide tiles,
// every permutation of rank 3 and 4 and random ones of 5-6, element sizes 1, 2, 3, 4, 8, one
// and two threads; nothing written past the output.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "ops/shape/transpose_nd.h"

namespace {

std::vector<uint8_t> bytes(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>((seed = seed * 1664525u + 1013904223u) >> 24);
  return v;
}

int check(const std::vector<int64_t>& shape, const std::vector<int>& perm, size_t es) {
  const int rank = static_cast<int>(shape.size());
  int64_t total = 1;
  for (int64_t s : shape) total *= s;
  const auto x = bytes(static_cast<size_t>(total) * es, 7u + static_cast<uint32_t>(total));
  std::vector<uint8_t> want(static_cast<size_t>(total) * es + 16, 0xAB);
  pte::shape::transpose_nd_ref(x.data(), shape.data(), perm.data(), rank, es, want.data());
  int bad = 0;
  for (int threads : {1, 2}) {
    std::vector<uint8_t> got(want.size(), 0xAB);
    pte::shape::transpose_nd(threads, x.data(), shape.data(), perm.data(), rank, es, got.data());
    bad += got != want;
  }
  return bad;
}

}  // namespace

TEST_CASE("transpose_nd: the reference is the permutation (3-d, explicit indices)") {
  const int64_t A = 3, B = 4, C = 5;
  std::vector<float> x(A * B * C), y(A * B * C);
  std::iota(x.begin(), x.end(), 0.0f);
  const int64_t shape[] = {A, B, C};
  const int perm[] = {2, 0, 1};  // y [C, A, B]
  pte::shape::transpose_nd_ref(x.data(), shape, perm, 3, sizeof(float), y.data());
  for (int64_t c = 0; c < C; ++c)
    for (int64_t a = 0; a < A; ++a)
      for (int64_t b = 0; b < B; ++b) REQUIRE(y[static_cast<size_t>((c * A + a) * B + b)] == x[static_cast<size_t>((a * B + b) * C + c)]);
}

TEST_CASE("transpose_nd: tiled against the reference, byte for byte (ranks 1-6, element sizes 1-8, 1 and 2 threads)") {
  int cases = 0, bad = 0;
  // the delegate's: NCHW <-> NHWC at ConvNeXt / ResNet sizes, attention heads (inner block)
  bad += check({1, 96, 56, 56}, {0, 2, 3, 1}, 4), ++cases;
  bad += check({1, 56, 56, 96}, {0, 3, 1, 2}, 4), ++cases;
  bad += check({2, 77, 12, 64}, {0, 2, 1, 3}, 4), ++cases;
  bad += check({3, 130, 67}, {0, 2, 1}, 2), ++cases;
  bad += check({129}, {0}, 4), ++cases;
  bad += check({1, 1, 1}, {2, 0, 1}, 8), ++cases;
  bad += check({5, 1, 7}, {2, 1, 0}, 3), ++cases;
  // an image's 2-4 channels moved last (short output rows: long unrolled tiles), and back
  bad += check({1, 3, 224, 224}, {0, 2, 3, 1}, 4), ++cases;
  bad += check({2, 2, 37, 1500}, {0, 2, 3, 1}, 4), ++cases;
  bad += check({1, 4, 9000}, {0, 2, 1}, 4), ++cases;
  bad += check({3, 5000, 3}, {0, 2, 1}, 4), ++cases;
  const std::vector<int64_t> sizes3[] = {{2, 3, 4}, {65, 1, 70}, {1, 129, 2}, {64, 64, 3}};
  for (const auto& s : sizes3) {
    std::vector<int> p{0, 1, 2};
    do {
      for (size_t es : {1, 4, 3}) bad += check(s, p, es), ++cases;
    } while (std::next_permutation(p.begin(), p.end()));
  }
  std::vector<int> p4{0, 1, 2, 3};
  do {
    bad += check({3, 1, 70, 5}, p4, 4), ++cases;
    bad += check({2, 66, 3, 4}, p4, 2), ++cases;
  } while (std::next_permutation(p4.begin(), p4.end()));
  std::mt19937 rng(3);
  for (int t = 0; t < 40; ++t) {
    const int rank = 5 + t % 2;
    std::vector<int64_t> s(static_cast<size_t>(rank));
    for (auto& d : s) d = 1 + static_cast<int64_t>(rng() % 6);
    std::vector<int> p(static_cast<size_t>(rank));
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng);
    bad += check(s, p, t % 3 == 0 ? 8 : 4), ++cases;
  }
  CHECK(cases > 100);
  CHECK(bad == 0);
}
