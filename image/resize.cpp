// PIL-equivalent resampling (see resize.h), written from PIL's documented algorithm.
#include "image/resize.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace pte::image {

namespace {

constexpr int kPrecisionBits = 32 - 8 - 2;  // fixed-point bits of the 8-bit coefficients

double filter_support(Filter f) {
  switch (f) {
    case Filter::Box: return 0.5;
    case Filter::Bilinear: return 1.0;
    case Filter::Hamming: return 1.0;
    case Filter::Bicubic: return 2.0;
    case Filter::Lanczos: return 3.0;
    default: return 0.0;
  }
}

double sinc(double x) {
  if (x == 0.0) return 1.0;
  x *= M_PI;
  return std::sin(x) / x;
}

double filter_value(Filter f, double x) {
  switch (f) {
    case Filter::Box: return (x > -0.5 && x <= 0.5) ? 1.0 : 0.0;
    case Filter::Bilinear: x = std::fabs(x); return x < 1.0 ? 1.0 - x : 0.0;
    case Filter::Hamming:
      x = std::fabs(x);
      if (x == 0.0) return 1.0;
      if (x >= 1.0) return 0.0;
      x *= M_PI;
      return std::sin(x) / x * (0.54f + 0.46f * std::cos(x));  // float constants, as PIL
    case Filter::Bicubic: {
      constexpr double a = -0.5;
      x = std::fabs(x);
      if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
      if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
      return 0.0;
    }
    case Filter::Lanczos: return (x >= -3.0 && x < 3.0) ? sinc(x) * sinc(x / 3.0) : 0.0;
    default: return 0.0;
  }
}

// One axis: for each output index its first input index, tap count and fixed-point weights
// (ksize per output index).
struct Taps {
  int ksize = 0;
  std::vector<int> first, count;
  std::vector<int32_t> weight;
};

Taps taps_for(int in_size, int out_size, Filter f) {
  const double scale = static_cast<double>(in_size) / out_size;
  const double filterscale = std::max(scale, 1.0);
  const double support = filter_support(f) * filterscale;
  Taps t;
  t.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
  t.first.resize(out_size);
  t.count.resize(out_size);
  t.weight.assign(static_cast<size_t>(out_size) * t.ksize, 0);
  std::vector<double> k(t.ksize);
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    const double ss = 1.0 / filterscale;
    int xmin = static_cast<int>(center - support + 0.5);  // truncation toward zero, as PIL's (int) cast
    if (xmin < 0) xmin = 0;
    int xmax = static_cast<int>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    double sum = 0.0;
    for (int x = 0; x < xmax; ++x) {
      k[x] = filter_value(f, (x + xmin - center + 0.5) * ss);
      sum += k[x];
    }
    for (int x = 0; x < xmax; ++x) {
      const double w = sum != 0.0 ? k[x] / sum : k[x];
      const double fixed = w * (1 << kPrecisionBits);
      t.weight[static_cast<size_t>(xx) * t.ksize + x] = static_cast<int32_t>(w < 0 ? -0.5 + fixed : 0.5 + fixed);
    }
    t.first[xx] = xmin;
    t.count[xx] = xmax;
  }
  return t;
}

inline uint8_t clip8(int32_t v) {
  if (v >= (int32_t{256} << kPrecisionBits)) return 255;
  if (v <= 0) return 0;
  return static_cast<uint8_t>(v >> kPrecisionBits);
}

// Horizontal pass over rows [y0, y0 + rows) of `in` (width win) into out (width wout).
void horizontal(const uint8_t* in, int win, int y0, int rows, const Taps& t, int wout, uint8_t* out) {
  for (int y = 0; y < rows; ++y) {
    const uint8_t* src = in + static_cast<size_t>(y0 + y) * win * 3;
    uint8_t* dst = out + static_cast<size_t>(y) * wout * 3;
    for (int x = 0; x < wout; ++x) {
      const int32_t* w = t.weight.data() + static_cast<size_t>(x) * t.ksize;
      const uint8_t* p = src + static_cast<size_t>(t.first[x]) * 3;
      for (int c = 0; c < 3; ++c) {
        int32_t acc = int32_t{1} << (kPrecisionBits - 1);
        for (int k = 0; k < t.count[x]; ++k) acc += p[k * 3 + c] * w[k];
        dst[x * 3 + c] = clip8(acc);
      }
    }
  }
}

// Vertical pass: `in` rows start at input row `row0` (the horizontal pass kept only the rows
// the vertical taps read).
void vertical(const uint8_t* in, int width, int row0, const Taps& t, int hout, uint8_t* out) {
  for (int y = 0; y < hout; ++y) {
    const int32_t* w = t.weight.data() + static_cast<size_t>(y) * t.ksize;
    const uint8_t* src = in + static_cast<size_t>(t.first[y] - row0) * width * 3;
    uint8_t* dst = out + static_cast<size_t>(y) * width * 3;
    for (int i = 0; i < width * 3; ++i) {
      int32_t acc = int32_t{1} << (kPrecisionBits - 1);
      for (int k = 0; k < t.count[y]; ++k) acc += src[static_cast<size_t>(k) * width * 3 + i] * w[k];
      dst[i] = clip8(acc);
    }
  }
}

}  // namespace

bool filter_from_id(int64_t id, Filter* out) {
  if (id < 1 || id > 5) return false;
  *out = static_cast<Filter>(id);
  return true;
}

const char* filter_name(Filter f) {
  switch (f) {
    case Filter::Nearest: return "nearest";
    case Filter::Lanczos: return "lanczos";
    case Filter::Bilinear: return "bilinear";
    case Filter::Bicubic: return "bicubic";
    case Filter::Box: return "box";
    case Filter::Hamming: return "hamming";
  }
  return "?";
}

Status resize(const RgbImage& in, int width, int height, Filter filter, RgbImage* out) {
  if (width < 1 || height < 1 || in.width < 1 || in.height < 1 ||
      in.rgb.size() != static_cast<size_t>(in.width) * in.height * 3)
    return Status::error("resize: bad sizes " + std::to_string(in.width) + "x" + std::to_string(in.height) + " -> " +
                         std::to_string(width) + "x" + std::to_string(height));
  if (filter_support(filter) == 0.0) return Status::error(std::string("resize: the ") + filter_name(filter) + " filter is not supported");
  if (width == in.width && height == in.height) {
    *out = in;
    return Status::ok();
  }
  const bool need_h = width != in.width, need_v = height != in.height;
  const Taps tv = taps_for(in.height, height, filter);
  // Pillow 13 runs the vertical pass first when the height loses more than twice as many
  // pixels as the width (the 8-bit intermediate then differs from horizontal-first)
  const int64_t dh = int64_t{in.height} - height, dw = int64_t{in.width} - width;
  if (need_h && need_v && dh > 0 && dh > dw * 2) {
    std::vector<uint8_t> tmp(static_cast<size_t>(in.width) * height * 3);
    vertical(in.rgb.data(), in.width, 0, tv, height, tmp.data());
    const Taps th = taps_for(in.width, width, filter);
    out->width = width;
    out->height = height;
    out->rgb.resize(static_cast<size_t>(width) * height * 3);
    horizontal(tmp.data(), in.width, 0, height, th, width, out->rgb.data());
    return Status::ok();
  }
  // rows of the input the vertical pass reads
  const int row0 = need_v ? tv.first[0] : 0;
  const int row1 = need_v ? tv.first[height - 1] + tv.count[height - 1] : in.height;
  std::vector<uint8_t> tmp;
  const uint8_t* src = in.rgb.data();
  int src_row0 = 0;
  if (need_h) {
    const Taps th = taps_for(in.width, width, filter);
    tmp.resize(static_cast<size_t>(row1 - row0) * width * 3);
    horizontal(in.rgb.data(), in.width, row0, row1 - row0, th, width, tmp.data());
    src = tmp.data();
    src_row0 = row0;
  }
  out->width = width;
  out->height = height;
  if (!need_v) {  // horizontal only: all rows were resampled
    out->rgb = std::move(tmp);
    return Status::ok();
  }
  out->rgb.resize(static_cast<size_t>(width) * height * 3);
  vertical(src, width, src_row0, tv, height, out->rgb.data());
  return Status::ok();
}

}  // namespace pte::image
