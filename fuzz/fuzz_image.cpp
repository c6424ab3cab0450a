// pte-run libFuzzer target: image/ decoders (PNG via libpng, JPEG via libjpeg-turbo) and the
// preprocessing after them. Arbitrary bytes must decode or be refused with one line; a decoded
// image must be well-formed and survive resize + crop + normalise.
#include <cstdio>
#include <cstdlib>

#include "image/decode.h"
#include "image/preprocess.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pte::image::DecodeOptions o;
  o.max_pixels = 1u << 20;  // keeps each run fast and small; the limit logic is the same
  pte::image::RgbImage img;
  pte::Status s = pte::image::decode_image(data, size, "fuzz", o, &img);
  if (!s) {
    if (s.message().empty() || s.message().find('\n') != std::string::npos) std::abort();
    return 0;
  }
  if (img.width < 1 || img.height < 1 || img.rgb.size() != static_cast<size_t>(img.width) * img.height * 3) std::abort();
  pte::image::PreprocessConfig c;
  c.shortest_edge = 16;
  c.crop_pct = 0.875;
  c.resample = static_cast<pte::image::Filter>(1 + size % 5);
  std::vector<float> px;
  int h = 0, w = 0;
  s = pte::image::preprocess(img, c, &px, &h, &w);
  if (!s || h != 16 || w != 16 || px.size() != 3u * 16 * 16) std::abort();
  return 0;
}
