// EXIF orientation (see exif.h).
#include "image/exif.h"

#include <utility>
#include <vector>

namespace pte::image {

int exif_orientation(const uint8_t* p, size_t n) {
  if (!p || n < 8) return 0;
  bool le;
  if (p[0] == 'I' && p[1] == 'I' && p[2] == 42 && p[3] == 0) le = true;
  else if (p[0] == 'M' && p[1] == 'M' && p[2] == 0 && p[3] == 42) le = false;
  else return 0;
  auto u16 = [&](size_t o) -> uint32_t { return le ? p[o] | p[o + 1] << 8 : p[o] << 8 | p[o + 1]; };
  auto u32 = [&](size_t o) -> uint32_t { return le ? u16(o) | u16(o + 2) << 16 : u16(o) << 16 | u16(o + 2); };
  const uint32_t ifd = u32(4);
  if (ifd > n || n - ifd < 2) return 0;
  const uint32_t count = u16(ifd);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t e = ifd + 2 + static_cast<size_t>(i) * 12;
    if (e > n || n - e < 12) return 0;
    if (u16(e) != 0x0112) continue;
    if (u16(e + 2) != 3 || u32(e + 4) != 1) return 0;  // SHORT, one value, stored inline
    const uint32_t v = u16(e + 8);
    return v >= 1 && v <= 8 ? static_cast<int>(v) : 0;
  }
  return 0;
}

void apply_orientation(int o, RgbImage* img) {
  if (o < 2 || o > 8) return;
  const int w = img->width, h = img->height;
  const bool swap = o >= 5;  // transpose, rotations by 90 and transverse swap the sides
  const int ow = swap ? h : w, oh = swap ? w : h;
  std::vector<uint8_t> out(img->rgb.size());
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x) {
      int sx = x, sy = y;
      switch (o) {
        case 2: sx = w - 1 - x; break;                    // FLIP_LEFT_RIGHT
        case 3: sx = w - 1 - x; sy = h - 1 - y; break;    // ROTATE_180
        case 4: sy = h - 1 - y; break;                    // FLIP_TOP_BOTTOM
        case 5: sx = y; sy = x; break;                    // TRANSPOSE
        case 6: sx = y; sy = h - 1 - x; break;            // ROTATE_270 (90 clockwise)
        case 7: sx = w - 1 - y; sy = h - 1 - x; break;    // TRANSVERSE
        case 8: sx = w - 1 - y; sy = x; break;            // ROTATE_90 (90 counter-clockwise)
      }
      const uint8_t* s = img->rgb.data() + (static_cast<size_t>(sy) * w + sx) * 3;
      uint8_t* d = out.data() + (static_cast<size_t>(y) * ow + x) * 3;
      d[0] = s[0];
      d[1] = s[1];
      d[2] = s[2];
    }
  img->rgb = std::move(out);
  img->width = ow;
  img->height = oh;
}

}  // namespace pte::image
