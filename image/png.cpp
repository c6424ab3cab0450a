// PNG through libpng, converted to 8-bit RGB as PIL's convert("RGB") does (see decode.h).
// libpng reports errors by longjmp: the setjmp frame (run) holds no C++ object with a
// destructor; the pixel buffers live in the caller.
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>

#include "image/decode.h"
#include "image/exif.h"

namespace pte::image {

namespace {

struct PngState {
  const uint8_t* data = nullptr;
  size_t size = 0, pos = 0;
  char msg[256] = {};
  const std::string* name = nullptr;
  const DecodeOptions* opt = nullptr;
  png_structp png = nullptr;
  png_infop info = nullptr;
  uint32_t width = 0, height = 0;
  bool over_limit = false;
  int orientation = 0;
  std::vector<uint8_t>* pixels = nullptr;
  std::vector<png_bytep>* rows = nullptr;
};

void on_error(png_structp png, png_const_charp m) {
  auto* s = static_cast<PngState*>(png_get_error_ptr(png));
  std::snprintf(s->msg, sizeof s->msg, "%s", m ? m : "libpng error");
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}  // benign (e.g. an unknown chunk's CRC)

void on_read(png_structp png, png_bytep out, size_t n) {
  auto* s = static_cast<PngState*>(png_get_io_ptr(png));
  if (n > s->size - s->pos) png_error(png, "the file ends early (truncated)");
  std::memcpy(out, s->data + s->pos, n);
  s->pos += n;
}

// false on a libpng error (s->msg) or when the header is over the limit (s->over_limit).
bool run(PngState* s) {
  if (setjmp(png_jmpbuf(s->png))) return false;
  png_set_read_fn(s->png, s, on_read);
  png_set_user_limits(s->png, 0x7fffffffu, 0x7fffffffu);  // our pixel limit decides
  png_read_info(s->png, s->info);
  int depth = 0, color = 0, interlace = 0;
  png_get_IHDR(s->png, s->info, &s->width, &s->height, &depth, &color, &interlace, nullptr, nullptr);
  if (!check_dimensions(s->width, s->height, *s->name, *s->opt)) {
    s->over_limit = true;
    return false;
  }
#ifdef PNG_eXIf_SUPPORTED
  png_uint_32 exif_size = 0;
  png_bytep exif = nullptr;
  if (png_get_eXIf_1(s->png, s->info, &exif_size, &exif) && exif) {
    const bool prefixed = exif_size > 6 && std::memcmp(exif, "Exif\0\0", 6) == 0;  // some writers keep JPEG's prefix
    s->orientation = prefixed ? exif_orientation(exif + 6, exif_size - 6) : exif_orientation(exif, exif_size);
  }
#endif
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(s->png);
  if ((color & PNG_COLOR_MASK_COLOR) == 0 && depth < 8) png_set_expand_gray_1_2_4_to_8(s->png);
  if (depth == 16) png_set_strip_16(s->png);  // the high byte, as PIL's RGB;16B / LA;16B
  if ((color & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(s->png);
  png_set_strip_alpha(s->png);  // PIL's convert("RGB") drops alpha (and a palette's tRNS)
  png_set_interlace_handling(s->png);
  png_read_update_info(s->png, s->info);
  if (png_get_channels(s->png, s->info) != 3 || png_get_bit_depth(s->png, s->info) != 8 ||
      png_get_rowbytes(s->png, s->info) != static_cast<size_t>(s->width) * 3)
    png_error(s->png, "unexpected row layout after conversion to RGB");
  s->pixels->resize(static_cast<size_t>(s->width) * s->height * 3);
  s->rows->resize(s->height);
  for (uint32_t y = 0; y < s->height; ++y) (*s->rows)[y] = s->pixels->data() + static_cast<size_t>(y) * s->width * 3;
  png_read_image(s->png, s->rows->data());
  return true;
}

}  // namespace

Status decode_png(const uint8_t* data, size_t size, const std::string& name, const DecodeOptions& opt, RgbImage* out) {
  std::vector<uint8_t> pixels;
  std::vector<png_bytep> rows;
  PngState s;
  s.data = data;
  s.size = size;
  s.name = &name;
  s.opt = &opt;
  s.pixels = &pixels;
  s.rows = &rows;
  s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
  if (!s.png) return Status::error(name + ": cannot start the PNG decoder");
  s.info = png_create_info_struct(s.png);
  if (!s.info) {
    png_destroy_read_struct(&s.png, nullptr, nullptr);
    return Status::error(name + ": cannot start the PNG decoder");
  }
  const bool ok = run(&s);
  png_destroy_read_struct(&s.png, &s.info, nullptr);
  if (s.over_limit) return check_dimensions(s.width, s.height, name, opt);
  if (!ok) return Status::error(name + ": damaged PNG (" + s.msg + ")");
  out->width = static_cast<int>(s.width);
  out->height = static_cast<int>(s.height);
  out->rgb = std::move(pixels);
  if (opt.exif_orientation) apply_orientation(s.orientation, out);
  return Status::ok();
}

}  // namespace pte::image
