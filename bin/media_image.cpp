// pte-run MODEL.pte "prompt" --image FILE: an image file to the pixel values a program's
// vision encoder takes (decoded and preprocessed as image/ does for classifiers, with the
// preprocessor_config.json beside the model).
#include <filesystem>

#include "bin/commands.h"
#include "image/decode.h"
#include "image/preprocess.h"

namespace pte::cli {

namespace {

// Decoded from the file, or from `bytes` when given (`name` in messages).
Status pixels(const ImageInput& in, const std::string* bytes, const std::vector<int64_t>& want, std::vector<float>* chw,
              std::vector<int64_t>* sizes) {
  namespace fs = std::filesystem;
  if (want.size() != 4 || want[0] != 1 || want[1] != 3)
    return Status::error("the vision encoder takes an input of " + std::to_string(want.size()) + " dimensions, not [1,3,H,W] pixel values");
  std::string cfg_path = in.preprocessor_path;
  if (cfg_path.empty()) cfg_path = (fs::path(in.model_path).parent_path() / "preprocessor_config.json").string();
  image::PreprocessConfig cfg;
  PTE_TRY(image::load_preprocess_config(cfg_path, &cfg));
  image::DecodeOptions opt;
  opt.max_pixels = in.max_pixels;
  image::RgbImage img;
  if (bytes)
    PTE_TRY(image::decode_image(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), in.image_path, opt, &img));
  else
    PTE_TRY(image::decode_image_file(in.image_path, opt, &img));
  int h = 0, w = 0;
  PTE_TRY(image::preprocess(img, cfg, chw, &h, &w).context(in.image_path));
  if (h != want[2] || w != want[3])
    return Status::error(cfg_path + " makes " + std::to_string(h) + "x" + std::to_string(w) + " pixel values, the vision encoder takes " +
                         std::to_string(want[2]) + "x" + std::to_string(want[3]));
  *sizes = {1, 3, h, w};
  return Status::ok();
}

}  // namespace

Status image_pixels(const ImageInput& in, const std::vector<int64_t>& want, std::vector<float>* chw, std::vector<int64_t>* sizes) {
  return pixels(in, nullptr, want, chw, sizes);
}

Status image_pixels_from_bytes(const ImageInput& in, const std::string& bytes, const std::vector<int64_t>& want,
                               std::vector<float>* chw, std::vector<int64_t>* sizes) {
  return pixels(in, &bytes, want, chw, sizes);
}

}  // namespace pte::cli
