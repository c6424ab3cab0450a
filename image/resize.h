// Resizing 8-bit RGB images as PIL's Image.resize does (what transformers' slow image
// processors call), so the pixels equal PIL's: a separable convolution whose filter support
// is widened by the downscale factor (antialiasing), coefficients normalised per output
// pixel and rounded to 22-bit fixed point, the horizontal pass first into an 8-bit image,
// then the vertical pass, each rounded and clipped to 0..255; the vertical pass first when the
// height loses more than twice as many pixels as the width (Pillow 13's order; Pillow 12 and
// earlier always went horizontal first, which differs by one level in some pixels of such
// resizes). Same size: a copy.
#pragma once
#include "image/decode.h"
#include "pte/status.h"

namespace pte::image {

// PIL's filter ids (Image.Resampling), as preprocessor_config.json's "resample" names them.
enum class Filter { Nearest = 0, Lanczos = 1, Bilinear = 2, Bicubic = 3, Box = 4, Hamming = 5 };

// false for an id we do not implement (nearest, or not a PIL filter).
bool filter_from_id(int64_t id, Filter* out);
const char* filter_name(Filter f);

// width, height >= 1; Filter::Nearest is refused.
Status resize(const RgbImage& in, int width, int height, Filter filter, RgbImage* out);

}  // namespace pte::image
