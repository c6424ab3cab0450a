// The row spans of the dequantizing embedding lookup: the scalar reference against
// hand-computed values, and the vector form (NEON on aarch64) against the reference bit
// for bit, at every start parity and length around the 16/32-element steps.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ops/isa.h"
#include "ops/quantized/embedding_rows.h"

using namespace pte::quant;

TEST_CASE("embedding rows: scalar reference values") {
  const uint8_t w[2] = {0x0F, 0x9A};  // nibbles 0, 15, 9, 10 -> -8, 7, 1, 2
  float y[4];
  embed_row_f32_scalar_q4(w, 0, 4, 1.0f, 0.5f, y);
  CHECK(y[0] == -4.5f);
  CHECK(y[1] == 3.0f);
  CHECK(y[2] == 0.0f);
  CHECK(y[3] == 0.5f);
  embed_row_f32_scalar_q4(w, 1, 2, 0.0f, 2.0f, y);
  CHECK(y[0] == 14.0f);
  CHECK(y[1] == 2.0f);
  const uint8_t b[2] = {200, 0x80};
  embed_row_f32_scalar_u8(b, 0, 2, 128.0f, 0.25f, y);
  CHECK(y[0] == 18.0f);
  CHECK(y[1] == 0.0f);
  embed_row_f32_scalar_s8(b, 0, 2, 1.0f, 1.0f, y);
  CHECK(y[0] == -57.0f);
  CHECK(y[1] == -129.0f);
}

TEST_CASE("embedding rows: the vector form equals the scalar reference bit for bit") {
  std::mt19937 g(11);
  std::vector<uint8_t> w(256);
  for (auto& v : w) v = static_cast<uint8_t>(g());
  std::uniform_real_distribution<float> ud(-3.f, 3.f);
  int checked = 0;
  for (EmbedKind kind : {EmbedKind::U8, EmbedKind::S8, EmbedKind::Q4}) {
    const EmbedRowF32 simd = embed_row_f32_simd(kind);
    if (!simd) {
      MESSAGE("skipped: no vector embedding row on this CPU (" << std::string(pte::isa::describe()) << ")");
      continue;
    }
    const EmbedRowF32 ref = embed_row_f32_scalar(kind);
    for (int64_t j0 : {0, 1, 2, 7, 32})
      for (int64_t n : {0, 1, 15, 16, 17, 31, 32, 33, 64, 100}) {
        for (float zp : {0.0f, ud(g), 3.0f}) {
          const float scale = ud(g) * 0.01f;
          std::vector<float> y0(n + 1, 5.f), y1(n + 1, 5.f);
          ref(w.data(), j0, n, zp, scale, y0.data());
          simd(w.data(), j0, n, zp, scale, y1.data());
          CHECK(std::memcmp(y0.data(), y1.data(), 4 * (n + 1)) == 0);  // also: nothing past n written
          ++checked;
        }
      }
  }
  if (embed_row_f32_simd(EmbedKind::Q4)) CHECK(checked == 450);
}
