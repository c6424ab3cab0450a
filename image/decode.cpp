// Format sniffing, the file read and the pixel limit (see decode.h); png.cpp and jpeg.cpp decode.
#include "image/decode.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace pte::image {

Format sniff_format(const uint8_t* d, size_t n) {
  auto starts = [&](const char* magic, size_t len) { return n >= len && std::memcmp(d, magic, len) == 0; };
  if (starts("\x89PNG\r\n\x1a\n", 8)) return Format::Png;
  if (starts("\xff\xd8\xff", 3)) return Format::Jpeg;
  if (starts("GIF87a", 6) || starts("GIF89a", 6)) return Format::Gif;
  if (starts("BM", 2) && n >= 26) return Format::Bmp;
  if (starts("RIFF", 4) && n >= 12 && std::memcmp(d + 8, "WEBP", 4) == 0) return Format::Webp;
  if (starts("II*\0", 4) || starts("MM\0*", 4)) return Format::Tiff;
  return Format::Unknown;
}

const char* format_name(Format f) {
  switch (f) {
    case Format::Png: return "PNG";
    case Format::Jpeg: return "JPEG";
    case Format::Gif: return "GIF";
    case Format::Bmp: return "BMP";
    case Format::Webp: return "WebP";
    case Format::Tiff: return "TIFF";
    default: return "unknown";
  }
}

Status check_dimensions(uint64_t w, uint64_t h, const std::string& name, const DecodeOptions& opt) {
  if (w == 0 || h == 0) return Status::error(name + ": the image header says " + std::to_string(w) + "x" + std::to_string(h) + " pixels");
  // w, h < 2^32 each (both formats store at most 32 bits), so the product fits in 64 bits
  if (w * h > opt.max_pixels)
    return Status::error(name + ": the image header claims " + std::to_string(w) + "x" + std::to_string(h) +
                         " pixels, above the limit of " + std::to_string(opt.max_pixels) + " pixels");
  return Status::ok();
}

Status decode_image(const uint8_t* data, size_t size, const std::string& name, const DecodeOptions& opt, RgbImage* out) {
  *out = RgbImage();
  const Format f = sniff_format(data, size);
  switch (f) {
    case Format::Png: return decode_png(data, size, name, opt, out);
    case Format::Jpeg: return decode_jpeg(data, size, name, opt, out);
    case Format::Unknown: return Status::error(name + ": not a PNG or JPEG image");
    default: return Status::error(name + ": a " + std::string(format_name(f)) + " image; only PNG and JPEG are supported");
  }
}

Status decode_image_file(const std::string& path, const DecodeOptions& opt, RgbImage* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::error(path + ": cannot open the image (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) return Status::error(path + ": not a regular file");
  if (static_cast<uint64_t>(st.st_size) > kMaxFileBytes)
    return Status::error(path + ": the file is " + std::to_string(st.st_size) + " bytes, above the image file limit of " +
                         std::to_string(kMaxFileBytes));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Status::error(path + ": cannot open the image (" + std::strerror(errno) + ")");
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  if (!bytes.empty() && std::fread(bytes.data(), 1, bytes.size(), f.get()) != bytes.size())
    return Status::error(path + ": cannot read the image");
  if (bytes.empty()) return Status::error(path + ": the file is empty, not an image");
  return decode_image(bytes.data(), bytes.size(), path, opt, out);
}

}  // namespace pte::image
