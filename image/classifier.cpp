// Image classification over a program (see classifier.h).
#include "image/classifier.h"

#include <cstring>
#include <filesystem>

#include "util/host_tensor.h"

namespace pte::image {

namespace {

bool classifier_shaped(const MethodInfo& m) {
  if (m.inputs.size() != 1 || m.outputs.empty()) return false;
  const ValueInfo& i = m.inputs[0];
  const ValueInfo& o = m.outputs[0];
  return i.tag == Tag::Tensor && i.tensor.dtype == DType::Float && i.tensor.sizes.size() == 4 && i.tensor.sizes[0] == 1 &&
         i.tensor.sizes[1] == 3 && i.tensor.sizes[2] > 0 && i.tensor.sizes[3] > 0 && o.tag == Tag::Tensor &&
         o.tensor.dtype == DType::Float && o.tensor.sizes.size() == 2 && o.tensor.sizes[0] == 1 && o.tensor.sizes[1] > 0;
}

}  // namespace

bool is_image_classifier(const ProgramInfo& info) {
  const MethodInfo* m = info.executable("forward");
  return m && classifier_shaped(*m);
}

Status ImageClassifier::create(const ClassifierOptions& options, std::unique_ptr<ImageClassifier>* out) {
  std::unique_ptr<ImageClassifier> r(new ImageClassifier());
  r->opt_ = options;
  r->model_path_ = options.model_path;
  OpenOptions oo;
  oo.data_files = options.data_files;
  PTE_TRY(Program::open_file(options.model_path, oo, &r->program_));
  const MethodInfo* m = r->program_->info().executable("forward");
  if (!m || !classifier_shaped(*m))
    return Status::error(options.model_path + ": not an image classifier (expected forward(pixel_values f32[1,3,H,W]) -> f32[1,N])");
  r->h_ = m->inputs[0].tensor.sizes[2];
  r->w_ = m->inputs[0].tensor.sizes[3];
  r->n_ = m->outputs[0].tensor.sizes[1];
  if (r->h_ > 16384 || r->w_ > 16384 || r->n_ > (1 << 24))
    return Status::error(options.model_path + ": method forward: shapes too large for an image classifier");
  namespace fs = std::filesystem;
  r->pre_path_ = options.preprocessor_path.empty()
                     ? (fs::path(options.model_path).parent_path() / "preprocessor_config.json").string()
                     : options.preprocessor_path;
  std::error_code ec;
  if (!fs::exists(r->pre_path_, ec))
    return Status::error(r->pre_path_ + ": not found; the image preprocessing comes from the model's "
                         "preprocessor_config.json (beside the model, or --preprocessor-config FILE)");
  PTE_TRY(load_preprocess_config(r->pre_path_, &r->pre_));
  if (r->pre_.do_resize && r->pre_.shortest_edge > 0 && r->pre_.crop_pct == 0 && !r->pre_.do_center_crop)
    return Status::error(r->pre_path_ + ": resizing to a shortest edge without a crop gives sizes that vary with the "
                         "image; " + options.model_path + " takes " + std::to_string(r->h_) + "x" + std::to_string(r->w_));
  PTE_TRY(load_labels(options.model_path, r->n_, &r->labels_));
  Program::MethodOptions mo;
  mo.num_threads = options.num_threads;
  PTE_TRY(r->program_->load_method("forward", mo, &r->method_));
  *out = std::move(r);
  return Status::ok();
}

Status ImageClassifier::classify_file(const std::string& path, int top_k_n, std::vector<Prediction>* out) {
  RgbImage img;
  PTE_TRY(decode_image_file(path, opt_.decode, &img));
  Status s = classify(img, top_k_n, out);
  if (!s) return Status::error(path + ": " + s.message());
  return s;
}

Status ImageClassifier::classify(const RgbImage& img, int top_k_n, std::vector<Prediction>* out) {
  int oh = 0, ow = 0;
  output_size(pre_, img.height, img.width, &oh, &ow);
  if (oh != h_ || ow != w_)
    return Status::error(pre_path_ + " gives " + std::to_string(oh) + "x" + std::to_string(ow) + " pixel values; " +
                         model_path_ + " takes " + std::to_string(h_) + "x" + std::to_string(w_));
  PTE_TRY(preprocess(img, pre_, &pixels_, &oh, &ow));
  Tensor t;
  t.dtype = DType::Float;
  t.dim = 4;
  t.sizes[0] = 1;
  t.sizes[1] = 3;
  t.sizes[2] = h_;
  t.sizes[3] = w_;
  for (int i = 0; i < 4; ++i) t.dim_order[i] = static_cast<uint8_t>(i);
  compute_strides(t);
  t.data = pixels_.data();
  t.capacity = pixels_.size() * sizeof(float);
  PTE_TRY(method_->set_input(0, t));
  PTE_TRY(method_->execute());
  const EValue& o = method_->output(0);
  if (o.tag != Tag::Tensor) return Status::error(model_path_ + ": method forward: output 0 is not a tensor");
  util::HostTensor h;
  PTE_TRY(util::host_from_tensor(*o.t, &h));
  if (h.dtype != DType::Float || h.numel() != n_)
    return Status::error(model_path_ + ": method forward: output 0 is " + util::shape_string(h) + ", expected f32[1," +
                         std::to_string(n_) + "]");
  logits_.resize(static_cast<size_t>(n_));
  std::memcpy(logits_.data(), h.bytes.data(), logits_.size() * sizeof(float));
  *out = top_k(logits_.data(), n_, top_k_n, labels_);
  return Status::ok();
}

}  // namespace pte::image
