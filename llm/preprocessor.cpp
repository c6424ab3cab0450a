#include "llm/preprocessor.h"

#include <algorithm>
#include <cstring>

namespace pte {

namespace {
std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}
}  // namespace

Status FeaturePreprocessor::open(const std::string& path, int n_mels, int frames, size_t window, int num_threads,
                                 std::unique_ptr<FeaturePreprocessor>* out) {
  std::unique_ptr<FeaturePreprocessor> p(new FeaturePreprocessor());
  p->path_ = path;
  p->n_mels_ = n_mels;
  p->frames_ = frames;
  PTE_TRY(Program::open_file(path, {}, &p->program_).context("--preprocessor"));
  const ProgramInfo& info = p->program_->info();
  const MethodInfo* m = nullptr;
  for (const auto& mi : info.methods)
    if (!mi.is_constant && (mi.name == "forward" || !m)) m = &mi;
  if (!m) return Status::error(path + ": the preprocessor program has no method to run");
  p->method_name_ = m->name;
  const std::string where = path + ": method " + m->name + ": ";
  if (m->inputs.size() != 1 || m->inputs[0].tag != Tag::Tensor || m->inputs[0].tensor.dtype != DType::Float ||
      m->inputs[0].tensor.sizes.size() != 1)
    return Status::error(where + "not a preprocessor: expected one float32 waveform input [samples]");
  const TensorInfo& in = m->inputs[0].tensor;
  if (in.sizes[0] < static_cast<int64_t>(window) ||
      (in.dynamism == Dynamism::Static && in.sizes[0] != static_cast<int64_t>(window)))
    return Status::error(where + "its waveform input takes " + (in.dynamism == Dynamism::Static ? "" : "at most ") +
                         std::to_string(in.sizes[0]) + " samples; one 30 s window is " + std::to_string(window));
  if (m->outputs.empty() || m->outputs[0].tag != Tag::Tensor || m->outputs[0].tensor.dtype != DType::Float ||
      m->outputs[0].tensor.sizes.size() != 3)
    return Status::error(where + "not a preprocessor: expected a float32 output [1, mels, frames]");
  const TensorInfo& o = m->outputs[0].tensor;
  bool dyn = o.dynamism != Dynamism::Static;
  if (o.sizes[1] != n_mels)  // the mel count is fixed at export (a dynamic output's bound is exact)
    return Status::error(where + "it outputs " + shape_str(o.sizes) + " features; the encoder takes [1, " +
                         std::to_string(n_mels) + ", " + std::to_string(frames) + "]");
  if ((dyn && (o.sizes[0] < 1 || o.sizes[2] < frames)) || (!dyn && (o.sizes[0] != 1 || o.sizes[2] != frames)))
    return Status::error(where + "it outputs " + shape_str(o.sizes) + " features; the encoder takes [1, " +
                         std::to_string(n_mels) + ", " + std::to_string(frames) + "]");
  Program::MethodOptions mo;
  mo.num_threads = num_threads;
  PTE_TRY(p->program_->load_method(m->name, mo, &p->method_).context(path));
  p->input_.assign(window, 0.f);
  *out = std::move(p);
  return Status::ok();
}

Status FeaturePreprocessor::compute(const float* samples, size_t n, float* out) {
  if (n > input_.size()) return Status::error(path_ + ": " + std::to_string(n) + " samples exceed one window");
  std::copy(samples, samples + n, input_.begin());
  std::fill(input_.begin() + static_cast<long>(n), input_.end(), 0.f);
  Tensor t;
  t.dtype = DType::Float;
  t.dim = 1;
  t.sizes[0] = static_cast<int64_t>(input_.size());
  t.dim_order[0] = 0;
  compute_strides(t);
  t.data = input_.data();
  t.capacity = input_.size() * sizeof(float);
  Status s = method_->set_input(0, t);
  if (s) s = method_->execute();
  if (!s) return s.context(path_ + ": method " + method_name_);
  const EValue& o = method_->output(0);
  if (!o.is_tensor() || o.t->dtype != DType::Float || o.t->dim != 3 || o.t->sizes[0] != 1 ||
      o.t->sizes[1] != n_mels_ || o.t->sizes[2] != frames_ || !o.t->contiguous_order())
    return Status::error(path_ + ": method " + method_name_ + ": the features are not float [1, " + std::to_string(n_mels_) + ", " +
                         std::to_string(frames_) + "] as the encoder takes");
  std::memcpy(out, o.t->data, static_cast<size_t>(n_mels_) * frames_ * sizeof(float));
  return Status::ok();
}

}  // namespace pte
