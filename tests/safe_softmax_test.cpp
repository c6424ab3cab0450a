// pte-run: the exporter's safe-softmax tail run as one kernel (MethodOptions::fuse_safe_softmax,
// interpreter/passes/fold_safe_softmax.cpp, ops/prim/safe_softmax_rows.cpp). Programs with
// the tail give bit-identical outputs fused and unfused (decoders over every step, the ViT
// portable and XNNPACK, whose fused tails also absorb the expand_copy after them); the
// kernel zeroes exactly the rows whose scores are all -inf, in place over its input too.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ops/kernel.h"
#include "ops/prim/safe_softmax_rows.h"
#include "pte/program.h"
#include "tests/fixture_steps.h"
#include "util/host_tensor.h"

namespace {

struct Run {
  size_t folds = 0;
  std::vector<std::vector<pte::util::HostTensor>> outputs;  // [step][output]
};

Run run_program(const std::string& dir, const std::string& file, const std::string& single, bool fuse) {
  pte::Program::MethodOptions mo;
  mo.num_threads = 1;
  mo.fuse_safe_softmax = fuse;
  pte::test::FixtureRun f = pte::test::run_fixture_steps(dir, file, single, mo);
  return Run{f.method->safe_softmax_folds(), std::move(f.outputs)};
}

pte::Tensor f32_tensor(float* data, int64_t a, int64_t b, int64_t c) {
  pte::Tensor t;
  t.dtype = pte::DType::Float;
  t.dim = 3;
  t.sizes[0] = a, t.sizes[1] = b, t.sizes[2] = c;
  for (int d = 0; d < 3; ++d) t.dim_order[d] = static_cast<uint8_t>(d);
  pte::compute_strides(t);
  t.data = data;
  t.capacity = static_cast<size_t>(a * b * c) * sizeof(float);
  return t;
}

}  // namespace

TEST_CASE("safe softmax: fused tails give the unfused outputs bit for bit") {
  struct Prog {
    const char *dir, *file, *single;
    size_t folds;
  };
  const Prog progs[] = {
      {"decoder_llama", "model.pte", "", 2},
      {"decoder_smollm", "model.pte", "", 2},
      {"decoder_qwen3", "model.pte", "", 2},
      {"image_vit", "model.pte", "pixel_values_rgb_png.npy", 2},
      {"image_vit", "model_xnnpack.pte", "pixel_values_photo_jpg.npy", 2},
  };
  for (const Prog& p : progs) {
    const std::string what = std::string(p.dir) + "/" + p.file;
    CAPTURE(what);
    const std::string dir = std::string("fixtures/data/") + p.dir + "/";
    const Run plain = run_program(dir, p.file, p.single, false), fused = run_program(dir, p.file, p.single, true);
    CHECK(plain.folds == 0);
    CHECK(fused.folds == p.folds);
    REQUIRE(!plain.outputs.empty());
    REQUIRE(plain.outputs.size() == fused.outputs.size());
    for (size_t s = 0; s < plain.outputs.size(); ++s) {
      REQUIRE(plain.outputs[s].size() == fused.outputs[s].size());
      for (size_t o = 0; o < plain.outputs[s].size(); ++o) {
        CAPTURE(s);
        CAPTURE(o);
        CHECK(plain.outputs[s][o].shape == fused.outputs[s][o].shape);
        CHECK(plain.outputs[s][o].bytes == fused.outputs[s][o].bytes);
      }
    }
  }
}

TEST_CASE("safe softmax: the kernel zeroes the rows whose scores are all -inf and copies the others, also in place") {
  const int64_t A = 2, R = 300, C = 37;  // enough rows for the threaded split
  const size_t n = static_cast<size_t>(A * R * C);
  std::vector<float> x(n), s(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = std::sin(static_cast<float>(i) * 0.37f);
    s[i] = 0.5f + std::cos(static_cast<float>(i) * 0.11f) * 0.25f;
  }
  const float ninf = -INFINITY;
  auto row = [&](int64_t a, int64_t r) { return static_cast<size_t>((a * R + r) * C); };
  for (int64_t c = 0; c < C; ++c) {
    x[row(0, 3) + c] = ninf;     // all -inf: zeroed
    x[row(1, 299) + c] = ninf;   // all -inf, last row: zeroed
    s[row(0, 3) + c] = NAN;      // (softmax of such a row)
    s[row(1, 299) + c] = NAN;
  }
  for (int64_t c = 0; c < C - 1; ++c) x[row(0, 7) + c] = ninf;  // all but the last: copied
  s[row(0, 7) + 5] = NAN;
  for (int threads : {1, 2}) {
    for (bool in_place : {false, true}) {
      CAPTURE(threads);
      CAPTURE(in_place);
      std::vector<float> xb = x, out(n, 7.0f);
      float* op = in_place ? xb.data() : out.data();
      pte::Tensor tx = f32_tensor(xb.data(), A, R, C), ts = f32_tensor(s.data(), A, R, C);
      pte::Tensor to = f32_tensor(op, A, R, C);
      pte::EValue ex, es, eo, unused;
      ex.tag = pte::Tag::Tensor, ex.t = &tx;
      es.tag = pte::Tag::Tensor, es.t = &ts;
      eo.tag = pte::Tag::Tensor, eo.t = &to;
      pte::EValue* args[5] = {&ex, &es, &es, &eo, &eo};
      pte::KernelContext ctx;
      ctx.claim_threads = threads;
      REQUIRE(pte::safe_softmax_rows(ctx, args));
      size_t zeroed = 0, bad = 0;
      for (int64_t a = 0; a < A; ++a)
        for (int64_t r = 0; r < R; ++r) {
          const bool masked = (a == 0 && r == 3) || (a == 1 && r == 299);
          for (int64_t c = 0; c < C; ++c) {
            const size_t i = row(a, r) + static_cast<size_t>(c);
            if (masked) {
              zeroed += op[i] == 0.0f;
            } else if (std::memcmp(&op[i], &s[i], sizeof(float)) != 0) {
              ++bad;
            }
          }
        }
      CHECK(zeroed == static_cast<size_t>(2 * C));
      CHECK(bad == 0);
    }
  }
  // shapes that differ are refused with a message, not read past
  std::vector<float> small(static_cast<size_t>(A * R * (C - 1)));
  pte::Tensor tx = f32_tensor(small.data(), A, R, C - 1), ts = f32_tensor(s.data(), A, R, C), to = f32_tensor(x.data(), A, R, C);
  pte::EValue ex, es, eo;
  ex.tag = pte::Tag::Tensor, ex.t = &tx;
  es.tag = pte::Tag::Tensor, es.t = &ts;
  eo.tag = pte::Tag::Tensor, eo.t = &to;
  pte::EValue* args[5] = {&ex, &es, &es, &eo, &eo};
  pte::KernelContext ctx;
  CHECK_FALSE(pte::safe_softmax_rows(ctx, args));
}
