// JPEG through libjpeg-turbo with PIL's decoder settings (accurate integer IDCT, fancy
// upsampling: the library's defaults), so the pixels equal PIL's. libjpeg's default error
// handler calls exit(): ours longjmps back to `run` (whose frame holds no C++ object with a
// destructor) and the message becomes a Status. A premature end of data, which libjpeg only
// warns about (padding the image with grey), is an error here, as PIL raises "image file is
// truncated". More than kMaxScans progressive scans is refused (a slow-decoding bomb).
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <jpeglib.h>
#include <jerror.h>

#include "image/decode.h"
#include "image/exif.h"

namespace pte::image {

namespace {

constexpr int kMaxScans = 500;

struct JpegState {
  jpeg_error_mgr err;  // first: libjpeg hands back its address as cinfo->err
  jpeg_progress_mgr progress;
  jmp_buf jump;
  char msg[JMSG_LENGTH_MAX + 64] = {};
  jpeg_decompress_struct cinfo;
  const std::string* name = nullptr;
  const DecodeOptions* opt = nullptr;
  bool over_limit = false, cmyk = false;
  int orientation = 0;
  std::vector<uint8_t>* pixels = nullptr;
};

[[noreturn]] void fail(j_common_ptr c) {
  auto* s = reinterpret_cast<JpegState*>(c->err);
  char m[JMSG_LENGTH_MAX];
  (*c->err->format_message)(c, m);
  std::snprintf(s->msg, sizeof s->msg, "%s", m);
  std::longjmp(s->jump, 1);
}

void on_message(j_common_ptr c, int level) {
  if (level == -1 && c->err->msg_code == JWRN_JPEG_EOF) {
    auto* s = reinterpret_cast<JpegState*>(c->err);
    std::snprintf(s->msg, sizeof s->msg, "the file ends early (truncated)");
    std::longjmp(s->jump, 1);
  }
  // other warnings (corrupt data libjpeg recovers from) are ignored, as PIL ignores them
}

void on_progress(j_common_ptr c) {
  auto* d = reinterpret_cast<j_decompress_ptr>(c);
  if (c->is_decompressor && d->input_scan_number > kMaxScans) {
    auto* s = reinterpret_cast<JpegState*>(c->err);
    std::snprintf(s->msg, sizeof s->msg, "more than %d progressive scans", kMaxScans);
    std::longjmp(s->jump, 1);
  }
}

bool run(JpegState* s, const uint8_t* data, size_t size) {
  if (setjmp(s->jump)) return false;
  jpeg_mem_src(&s->cinfo, const_cast<unsigned char*>(data), static_cast<unsigned long>(size));
  jpeg_save_markers(&s->cinfo, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&s->cinfo, TRUE);
  for (jpeg_saved_marker_ptr m = s->cinfo.marker_list; m && !s->orientation; m = m->next)
    if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && std::memcmp(m->data, "Exif\0\0", 6) == 0)
      s->orientation = exif_orientation(m->data + 6, m->data_length - 6);
  if (!check_dimensions(s->cinfo.image_width, s->cinfo.image_height, *s->name, *s->opt)) {
    s->over_limit = true;
    return false;
  }
  if (s->cinfo.jpeg_color_space == JCS_CMYK || s->cinfo.jpeg_color_space == JCS_YCCK) {
    s->cmyk = true;
    return false;
  }
  s->cinfo.out_color_space = JCS_RGB;
  s->cinfo.dct_method = JDCT_ISLOW;
  s->cinfo.do_fancy_upsampling = TRUE;
  jpeg_start_decompress(&s->cinfo);
  if (s->cinfo.output_components != 3) {
    std::snprintf(s->msg, sizeof s->msg, "%d output components, expected 3", s->cinfo.output_components);
    return false;
  }
  const size_t stride = static_cast<size_t>(s->cinfo.output_width) * 3;
  s->pixels->resize(stride * s->cinfo.output_height);
  while (s->cinfo.output_scanline < s->cinfo.output_height) {
    JSAMPROW row = s->pixels->data() + stride * s->cinfo.output_scanline;
    jpeg_read_scanlines(&s->cinfo, &row, 1);
  }
  jpeg_finish_decompress(&s->cinfo);
  return true;
}

}  // namespace

Status decode_jpeg(const uint8_t* data, size_t size, const std::string& name, const DecodeOptions& opt, RgbImage* out) {
  std::vector<uint8_t> pixels;
  auto s = std::make_unique<JpegState>();
  s->name = &name;
  s->opt = &opt;
  s->pixels = &pixels;
  s->cinfo.err = jpeg_std_error(&s->err);
  s->err.error_exit = fail;
  s->err.emit_message = on_message;
  s->progress.progress_monitor = on_progress;
  if (setjmp(s->jump)) {  // jpeg_create_decompress can fail (out of memory)
    jpeg_destroy_decompress(&s->cinfo);
    return Status::error(name + ": cannot start the JPEG decoder (" + s->msg + ")");
  }
  jpeg_create_decompress(&s->cinfo);
  s->cinfo.progress = &s->progress;
  const bool ok = run(s.get(), data, size);
  const uint32_t w = s->cinfo.image_width, h = s->cinfo.image_height;
  const uint32_t ow = s->cinfo.output_width, oh = s->cinfo.output_height;
  jpeg_destroy_decompress(&s->cinfo);
  if (s->over_limit) return check_dimensions(w, h, name, opt);
  if (s->cmyk) return Status::error(name + ": a CMYK JPEG; only RGB and grayscale JPEGs are supported (convert it to RGB)");
  if (!ok) return Status::error(name + ": damaged JPEG (" + s->msg + ")");
  out->width = static_cast<int>(ow);
  out->height = static_cast<int>(oh);
  out->rgb = std::move(pixels);
  if (opt.exif_orientation) apply_orientation(s->orientation, out);
  return Status::ok();
}

}  // namespace pte::image
