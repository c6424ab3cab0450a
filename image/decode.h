// Image files in, 8-bit RGB pixels out: PNG (libpng) and JPEG (libjpeg-turbo), converted as
// PIL's Image.open(f).convert("RGB") converts them (what transformers' pipelines do), so the
// pixels equal PIL's: grayscale replicated, palette expanded (its transparency ignored),
// alpha dropped (not composited: PIL's convert("RGB") drops it), 16-bit samples to their
// high byte (PIL does this for 16-bit RGB(A); for 16-bit grayscale PIL clips values above
// 255, which we do not copy: we keep the high byte too). CMYK / YCCK JPEGs, other formats,
// files larger than the file limit or whose header claims more than the pixel limit
// (checked from the header, before any pixel is decoded) and damaged or truncated files are
// refused with one line naming the file. The EXIF orientation (JPEG APP1, PNG eXIf before the
// image data) is applied as transformers' load_image applies it (PIL's exif_transpose): exif.h.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pte/status.h"

namespace pte::image {

// Default pixel limit: 64 Mi pixels (e.g. 8192 x 8192), 192 MiB of RGB.
constexpr uint64_t kDefaultMaxPixels = uint64_t{1} << 26;
// Files above this size are refused before they are read.
constexpr uint64_t kMaxFileBytes = uint64_t{256} << 20;

struct RgbImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // height * width * 3, row-major, no padding
};

struct DecodeOptions {
  uint64_t max_pixels = kDefaultMaxPixels;
  bool exif_orientation = true;  // rotate / flip as the EXIF Orientation tag says
};

enum class Format { Unknown, Png, Jpeg, Gif, Bmp, Webp, Tiff };
// The format from the file's first bytes (never from its name).
Format sniff_format(const uint8_t* data, size_t size);
const char* format_name(Format f);

// `name` only appears in messages.
Status decode_image(const uint8_t* data, size_t size, const std::string& name, const DecodeOptions& opt, RgbImage* out);
Status decode_image_file(const std::string& path, const DecodeOptions& opt, RgbImage* out);

// Per-format decoders (decode_image dispatches to them).
Status decode_png(const uint8_t* data, size_t size, const std::string& name, const DecodeOptions& opt, RgbImage* out);
Status decode_jpeg(const uint8_t* data, size_t size, const std::string& name, const DecodeOptions& opt, RgbImage* out);

// The header check both decoders make before decoding: dimensions positive and
// width * height within the limit.
Status check_dimensions(uint64_t width, uint64_t height, const std::string& name, const DecodeOptions& opt);

}  // namespace pte::image
