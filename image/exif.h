// EXIF orientation, applied as PIL's ImageOps.exif_transpose (which transformers' load_image
// calls before convert("RGB")): JPEG APP1 "Exif" segments and PNG eXIf chunks.
#pragma once
#include <cstddef>
#include <cstdint>

#include "image/decode.h"

namespace pte::image {

// The Orientation tag (0x0112) of IFD0 in a TIFF-structured EXIF block (starting at its "II*\0"
// or "MM\0*" header): 1-8, or 0 when absent or unreadable. Every offset is bounds-checked.
int exif_orientation(const uint8_t* tiff, size_t size);

// Rotates / flips the image so orientation 1 holds (2-8 as PIL's exif_transpose; others: no change).
void apply_orientation(int orientation, RgbImage* img);

}  // namespace pte::image
