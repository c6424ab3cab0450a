// Image preprocessing as a model's preprocessor_config.json says, equal to transformers'
// slow (PIL-based) image processors: resize (PIL's filters, resize.h), centre crop, rescale,
// normalise, channels first. Supported keys:
//   do_resize, size ({"height", "width"}: warp; {"shortest_edge"}: keep the aspect ratio,
//     int(short * long / short) as transformers rounds; a bare number: shortest_edge for
//     ConvNext / CLIP / Bit processors, else a square), resample (PIL ids 1-5; 0, nearest, is
//     refused),
//   crop_pct (ConvNextImageProcessor: shortest_edge < 384 resizes the short side to
//     int(shortest_edge / crop_pct) and centre-crops shortest_edge square; else warps),
//   do_center_crop, crop_size ({"height", "width"} or a number; zero-padded when larger, as
//     transformers' center_crop),
//   do_rescale, rescale_factor (float64 product cast to float32, as transformers),
//   do_normalize (default: whether image_mean / image_std are given), image_mean, image_std
//     (float32 arithmetic, as transformers),
//   do_flip_channel_order (MobileViT: RGB -> BGR).
// Refused with one line: do_pad, rescale_offset, do_pan_and_scan, size with longest_edge / max_size.
#pragma once
#include <string>
#include <vector>

#include "image/decode.h"
#include "image/resize.h"
#include "pte/status.h"
#include "util/json.h"

namespace pte::image {

struct PreprocessConfig {
  std::string processor_type;      // image_processor_type, informative
  bool do_resize = true;
  int size_h = 0, size_w = 0;      // warp to height x width, or
  int shortest_edge = 0;           // keep the aspect ratio
  double crop_pct = 0;             // > 0: ConvNext's resize-then-crop
  Filter resample = Filter::Bilinear;
  bool do_center_crop = false;
  int crop_h = 0, crop_w = 0;
  bool do_rescale = true;
  double rescale_factor = 1.0 / 255.0;
  bool do_normalize = true;
  float mean[3] = {0.5f, 0.5f, 0.5f}, std[3] = {0.5f, 0.5f, 0.5f};
  bool flip_channel_order = false;
};

// `name` only appears in messages.
Status parse_preprocess_config(const json::Value& v, const std::string& name, PreprocessConfig* out);
Status load_preprocess_config(const std::string& path, PreprocessConfig* out);

// The output size (height, width) the config gives for an input of in_h x in_w.
void output_size(const PreprocessConfig& c, int in_h, int in_w, int* out_h, int* out_w);

// float32 [3, H, W] pixel values.
Status preprocess(const RgbImage& img, const PreprocessConfig& c, std::vector<float>* chw, int* out_h, int* out_w);

// The geometric steps only (resize, crops), on 8-bit pixels.
Status resize_and_crop(const RgbImage& img, const PreprocessConfig& c, RgbImage* out);
// transformers' center_crop on 8-bit pixels: (h - ch) // 2 offsets, zero padding when larger.
void center_crop(const RgbImage& img, int crop_h, int crop_w, RgbImage* out);

}  // namespace pte::image
