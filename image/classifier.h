// Image classification programs: forward(pixel_values f32[1, 3, H, W]) -> logits f32[1, N],
// as optimum-executorch exports ViT, ConvNeXt, ResNet, ... (task="image-classification").
// The image is decoded (decode.h), preprocessed as preprocessor_config.json beside the model
// says (preprocess.h), run, and scored with config.json's labels (labels.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "image/decode.h"
#include "image/labels.h"
#include "image/preprocess.h"
#include "pte/program.h"
#include "pte/status.h"

namespace pte::image {

// Whether the program's forward has the image classifier signature above.
bool is_image_classifier(const ProgramInfo& info);

struct ClassifierOptions {
  std::string model_path;
  std::string preprocessor_path;  // default: preprocessor_config.json beside the model
  std::vector<std::string> data_files;
  int num_threads = 0;
  DecodeOptions decode;
};

class ImageClassifier {
 public:
  static Status create(const ClassifierOptions& options, std::unique_ptr<ImageClassifier>* out);

  // Decodes, preprocesses and runs one image file; logits() and pixel_values() then hold its values.
  Status classify_file(const std::string& path, int top_k, std::vector<Prediction>* out);
  Status classify(const RgbImage& img, int top_k, std::vector<Prediction>* out);

  const std::vector<float>& logits() const { return logits_; }
  const std::vector<float>& pixel_values() const { return pixels_; }  // [3, H, W]
  int64_t height() const { return h_; }
  int64_t width() const { return w_; }
  int64_t num_labels() const { return n_; }
  const Labels& labels() const { return labels_; }
  const PreprocessConfig& preprocess_config() const { return pre_; }

 private:
  ImageClassifier() = default;
  std::string model_path_, pre_path_;
  std::unique_ptr<Program> program_;
  std::unique_ptr<Method> method_;
  ClassifierOptions opt_;
  PreprocessConfig pre_;
  Labels labels_;
  int64_t h_ = 0, w_ = 0, n_ = 0;
  std::vector<float> pixels_, logits_;
};

}  // namespace pte::image
