// Fill-mask and sentence embeddings over an encoder program (see encoder.h).
#include "encoder/encoder.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstring>
#include <system_error>

#include "util/host_tensor.h"
#include "util/json.h"

namespace pte {

namespace fs = std::filesystem;

namespace {

// forward(input_ids i64[B,T], attention_mask i64[B,T] [, token_type_ids i64[B,T]]) -> (f32[B,T,W] | f32[B,W], ...)
bool encoder_shaped(const MethodInfo& m) {
  if (m.inputs.size() < 2 || m.inputs.size() > 3 || m.outputs.empty()) return false;
  for (const auto& v : m.inputs)
    if (v.tag != Tag::Tensor || v.tensor.dtype != DType::Int64 || v.tensor.sizes.size() != 2) return false;
  const ValueInfo& o = m.outputs[0];
  return o.tag == Tag::Tensor && o.tensor.dtype == DType::Float &&
         (o.tensor.sizes.size() == 3 || o.tensor.sizes.size() == 2);
}

bool read_json(const fs::path& p, json::Value* out) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec) || fs::file_size(p, ec) > (64u << 20)) return false;
  return static_cast<bool>(json::parse_file(p.string(), out));
}

bool sentence_transformers_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "modules.json", ec) || fs::is_regular_file(dir / "1_Pooling" / "config.json", ec);
}

// tokenizer_config.json's "mask_token" / "pad_token": a string or {"content": ...}
std::string special_from_config(const json::Value& cfg, const char* key) {
  const json::Value* v = cfg.find(key);
  if (!v) return "";
  if (v->is_string()) return v->as_string();
  if (const json::Value* c = v->find("content", json::Type::String)) return c->as_string();
  return "";
}

}  // namespace

bool parse_pooling(const std::string& name, Pooling* out) {
  if (name == "mean") *out = Pooling::Mean;
  else if (name == "cls") *out = Pooling::Cls;
  else if (name == "last" || name == "lasttoken" || name == "last_token") *out = Pooling::LastToken;
  else if (name == "max") *out = Pooling::Max;
  else return false;
  return true;
}

const char* pooling_name(Pooling p) {
  switch (p) {
    case Pooling::Cls: return "cls";
    case Pooling::LastToken: return "last";
    case Pooling::Max: return "max";
    default: return "mean";
  }
}

EncoderTask encoder_task(const ProgramInfo& info) {
  const MethodInfo* m = info.executable("forward");
  if (!m || !encoder_shaped(*m)) return EncoderTask::None;
  fs::path dir = fs::path(info.path).parent_path();
  json::Value cfg;
  if (read_json(dir / "config.json", &cfg)) {
    if (const json::Value* a = cfg.find("architectures", json::Type::Array))
      for (const auto& x : a->items())
        if (x.is_string() && x.as_string().find("ForMaskedLM") != std::string::npos) return EncoderTask::FillMask;
  }
  if (sentence_transformers_folder(dir)) return EncoderTask::Embedding;
  const TensorInfo& o = m->outputs[0].tensor;
  if (o.sizes.size() == 2) return EncoderTask::Embedding;  // already pooled [B, H]
  for (const auto& c : info.methods)  // optimum records the config's vocab_size as a constant method
    if (c.name == "get_vocab_size" && c.is_constant && !c.outputs.empty() && c.outputs[0].tag == Tag::Int &&
        c.outputs[0].int_value == o.sizes.back())
      return EncoderTask::FillMask;
  if (cfg.is_object()) {
    const json::Value* v = cfg.find("vocab_size", json::Type::Int);
    const json::Value* h = cfg.find("hidden_size", json::Type::Int);
    if (!h) h = cfg.find("dim", json::Type::Int);  // DistilBERT
    if (v && v->as_int() == o.sizes.back()) return EncoderTask::FillMask;
    if (h && h->as_int() == o.sizes.back()) return EncoderTask::Embedding;
  }
  return EncoderTask::None;
}

Status EncoderRunner::create(const EncoderOptions& options, std::unique_ptr<EncoderRunner>* out) {
  std::unique_ptr<EncoderRunner> r(new EncoderRunner());
  r->model_path_ = options.model_path;
  OpenOptions oo;
  oo.data_files = options.data_files;
  PTE_TRY(Program::open_file(options.model_path, oo, &r->program_));
  const ProgramInfo& info = r->program_->info();
  const MethodInfo* m = info.executable("forward");
  if (!m || !encoder_shaped(*m))
    return Status::error(options.model_path + ": not an encoder program (expected forward(input_ids i64[B,T], "
                         "attention_mask i64[B,T]) -> f32[B,T,W])");
  r->task_ = encoder_task(info);
  r->num_inputs_ = m->inputs.size();
  const TensorInfo& in = m->inputs[0].tensor;
  for (const auto& v : m->inputs)
    if (v.tensor.sizes != in.sizes)
      return Status::error(options.model_path + ": method forward: input_ids and attention_mask shapes differ");
  r->batch_ = in.sizes[0];
  r->max_len_ = in.sizes[1];
  if (r->batch_ < 1 || r->max_len_ < 1 || r->batch_ > 4096 || r->max_len_ > (1 << 20))
    return Status::error(options.model_path + ": method forward: input_ids shape [" + std::to_string(r->batch_) + "," +
                         std::to_string(r->max_len_) + "] is not usable");
  r->dynamic_len_ = in.dynamism != Dynamism::Static;
  r->width_ = m->outputs[0].tensor.sizes.back();
  Program::MethodOptions mo;
  mo.num_threads = options.num_threads;
  PTE_TRY(r->program_->load_method("forward", mo, &r->method_));
  PTE_TRY(Tokenizer::load_for_program(options.model_path, options.tokenizer_path, &r->tok_));
  // mask and pad tokens: tokenizer_config.json's names, else the BERT / RoBERTa spellings
  fs::path dir = fs::path(options.model_path).parent_path();
  fs::path tdir = options.tokenizer_path.empty() ? dir : fs::path(options.tokenizer_path);
  std::error_code ec;
  if (!fs::is_directory(tdir, ec)) tdir = tdir.parent_path();
  json::Value tcfg;
  read_json(tdir / "tokenizer_config.json", &tcfg);
  std::vector<std::string> masks{special_from_config(tcfg, "mask_token"), "[MASK]", "<mask>"};
  for (const auto& s : masks)
    if (!s.empty() && r->tok_->token_to_id(s) >= 0) {
      r->mask_token_ = s;
      r->mask_id_ = r->tok_->token_to_id(s);
      break;
    }
  for (const auto& s : {special_from_config(tcfg, "pad_token"), std::string("[PAD]"), std::string("<pad>")})
    if (!s.empty() && r->tok_->token_to_id(s) >= 0) {
      r->pad_id_ = r->tok_->token_to_id(s);
      break;
    }
  // sentence-transformers: pooling and normalisation
  json::Value pc;
  const fs::path pooling_cfg = dir / "1_Pooling" / "config.json";
  if (fs::exists(pooling_cfg, ec) && !read_json(pooling_cfg, &pc))
    return Status::error(pooling_cfg.string() + ": not a readable JSON file");
  if (pc.is_object()) {
    int n = 0;
    auto on = [&](const char* k) {
      const json::Value* v = pc.find(k, json::Type::Bool);
      return v && v->as_bool();
    };
    if (on("pooling_mode_mean_tokens")) { r->default_pooling_ = Pooling::Mean; ++n; }
    if (on("pooling_mode_cls_token")) { r->default_pooling_ = Pooling::Cls; ++n; }
    if (on("pooling_mode_lasttoken")) { r->default_pooling_ = Pooling::LastToken; ++n; }
    if (on("pooling_mode_max_tokens")) { r->default_pooling_ = Pooling::Max; ++n; }
    if (on("pooling_mode_mean_sqrt_len_tokens") || on("pooling_mode_weightedmean_tokens") || n > 1)
      return Status::error(pooling_cfg.string() +
                           ": only one of mean, cls, last token or max pooling is supported (use --pooling)");
  }
  json::Value mods;
  if (read_json(dir / "modules.json", &mods))
    for (const auto& x : mods.items())
      if (const json::Value* t = x.find("type", json::Type::String); t && t->as_string().find("Normalize") != std::string::npos)
        r->default_normalize_ = true;
  *out = std::move(r);
  return Status::ok();
}

Status EncoderRunner::encode(const std::string& text, std::vector<int32_t>* ids, bool truncate) {
  if (!json::valid_utf8(text)) return Status::error("the text is not valid UTF-8");
  PTE_TRY(tok_->encode(text, true, ids));
  if (ids->empty()) return Status::error("the text encodes to no tokens");
  if (truncate && static_cast<int64_t>(ids->size()) > max_len_) {
    // as sentence-transformers truncates (before the template's specials): keep a closing
    // special token ([SEP], </s>) last
    const int32_t last = ids->back();
    truncated_.push_back({static_cast<int>(ids->size()), static_cast<int>(max_len_)});
    ids->resize(static_cast<size_t>(max_len_));
    if (tok_->is_special(last)) ids->back() = last;
    return Status::ok();
  }
  if (static_cast<int64_t>(ids->size()) > max_len_)
    return Status::error("the text is " + std::to_string(ids->size()) + " tokens; " + model_path_ + " takes at most " +
                         std::to_string(max_len_));
  return Status::ok();
}

Status EncoderRunner::run(const std::vector<std::vector<int32_t>>& rows, std::vector<float>* out,
                          std::vector<int64_t>* shape) {
  int64_t len = 0;
  for (const auto& r : rows) len = std::max<int64_t>(len, static_cast<int64_t>(r.size()));
  const int64_t b = batch_;  // a static batch, or a dynamic one at its bound: unused rows are padding
  if (!dynamic_len_) len = max_len_;
  ids_buf_.assign(static_cast<size_t>(b * len), pad_id_);
  mask_buf_.assign(ids_buf_.size(), 0);
  types_buf_.assign(ids_buf_.size(), 0);
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < rows[i].size(); ++j) {
      ids_buf_[i * len + j] = rows[i][j];
      mask_buf_[i * len + j] = 1;
    }
  for (size_t i = rows.size(); i < static_cast<size_t>(b); ++i) mask_buf_[i * len] = 1;  // unused rows: one position
  int64_t* bufs[3] = {ids_buf_.data(), mask_buf_.data(), types_buf_.data()};
  for (size_t k = 0; k < num_inputs_; ++k) {
    Tensor t;
    t.dtype = DType::Int64;
    t.dim = 2;
    t.sizes[0] = b;
    t.sizes[1] = len;
    t.dim_order[0] = 0;
    t.dim_order[1] = 1;
    compute_strides(t);
    t.data = bufs[k];
    t.capacity = static_cast<size_t>(b * len) * 8;
    PTE_TRY(method_->set_input(k, t));
  }
  PTE_TRY(method_->execute());
  const EValue& o = method_->output(0);
  if (o.tag != Tag::Tensor) return Status::error(model_path_ + ": method forward: output 0 is not a tensor");
  util::HostTensor h;
  PTE_TRY(util::host_from_tensor(*o.t, &h));
  if (h.dtype != DType::Float || (h.shape.size() != 3 && h.shape.size() != 2) || h.shape[0] != b ||
      (h.shape.size() == 3 && h.shape[1] != len))
    return Status::error(model_path_ + ": method forward: output 0 is " + util::shape_string(h) + ", expected f32[" +
                         std::to_string(b) + "," + std::to_string(len) + ",W]");
  out->resize(static_cast<size_t>(h.numel()));
  std::memcpy(out->data(), h.bytes.data(), out->size() * 4);
  *shape = h.shape;
  return Status::ok();
}

Status EncoderRunner::fill_mask(const std::string& text, int top_k, std::vector<MaskPrediction>* out) {
  out->clear();
  if (task_ == EncoderTask::Embedding)
    return Status::error(model_path_ + " returns hidden states, not masked-LM logits (a sentence-embedding program: "
                         "use pte-run embed)");
  if (mask_id_ < 0) return Status::error("the tokenizer has no mask token ([MASK] or <mask>)");
  std::vector<int32_t> ids;
  PTE_TRY(encode(text, &ids, false));
  std::vector<int> pos;
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == mask_id_) pos.push_back(static_cast<int>(i));
  if (pos.empty()) return Status::error("the text has no mask token " + mask_token_ + " to fill");
  std::vector<float> y;
  std::vector<int64_t> shape;
  PTE_TRY(run({ids}, &y, &shape));
  if (shape.size() != 3) return Status::error(model_path_ + ": method forward returns no per-token logits");
  const int64_t len = shape[1], v = shape[2];
  top_k = static_cast<int>(std::clamp<int64_t>(top_k, 1, v));
  for (int p : pos) {
    const float* row = y.data() + static_cast<size_t>(p) * v;  // batch row 0
    (void)len;
    double mx = -INFINITY;
    for (int64_t i = 0; i < v; ++i) mx = std::max(mx, static_cast<double>(row[i]));
    double sum = 0;
    for (int64_t i = 0; i < v; ++i) sum += std::exp(static_cast<double>(row[i]) - mx);
    std::vector<int32_t> order(static_cast<size_t>(v));
    for (int64_t i = 0; i < v; ++i) order[i] = static_cast<int32_t>(i);
    std::partial_sort(order.begin(), order.begin() + top_k, order.end(), [&](int32_t a, int32_t b) {
      return row[a] > row[b] || (row[a] == row[b] && a < b);
    });
    MaskPrediction mp;
    mp.position = p;
    for (int k = 0; k < top_k; ++k) {
      MaskCandidate c;
      c.id = order[k];
      c.score = static_cast<float>(std::exp(static_cast<double>(row[c.id]) - mx) / sum);
      c.token = tok_->decode({c.id});
      std::vector<int32_t> filled = ids;
      filled[p] = c.id;
      c.sequence = tok_->decode(filled, true);
      mp.candidates.push_back(std::move(c));
    }
    out->push_back(std::move(mp));
  }
  return Status::ok();
}

Status EncoderRunner::embed(const std::vector<std::string>& texts, Pooling pooling, bool normalize,
                            std::vector<std::vector<float>>* out) {
  out->clear();
  if (pooling == Pooling::Default) pooling = default_pooling_;
  std::vector<std::vector<int32_t>> all(texts.size());
  truncated_.clear();
  for (size_t i = 0; i < texts.size(); ++i) {
    Status s = encode(texts[i], &all[i], true);
    if (!s) return Status::error("text " + std::to_string(i + 1) + ": " + s.message());
  }
  const size_t per_call = static_cast<size_t>(batch_);
  std::vector<float> y;
  std::vector<int64_t> shape;
  for (size_t start = 0; start < all.size(); start += per_call) {
    std::vector<std::vector<int32_t>> rows(all.begin() + start, all.begin() + std::min(all.size(), start + per_call));
    PTE_TRY(run(rows, &y, &shape));
    const int64_t h = shape.back();
    const int64_t len = shape.size() == 3 ? shape[1] : 1;
    for (size_t r = 0; r < rows.size(); ++r) {
      std::vector<float> vec(static_cast<size_t>(h), 0.f);
      const float* base = y.data() + r * static_cast<size_t>(len * h);
      const int64_t n = static_cast<int64_t>(rows[r].size());
      if (shape.size() == 2) {
        std::copy(base, base + h, vec.begin());
      } else if (pooling == Pooling::Cls) {
        std::copy(base, base + h, vec.begin());
      } else if (pooling == Pooling::LastToken) {
        std::copy(base + (n - 1) * h, base + n * h, vec.begin());
      } else if (pooling == Pooling::Max) {
        for (int64_t j = 0; j < h; ++j) {
          float m = -INFINITY;
          for (int64_t t = 0; t < n; ++t) m = std::max(m, base[t * h + j]);
          vec[j] = m;
        }
      } else {  // mean over the unmasked tokens, summed in order as sentence-transformers does
        for (int64_t t = 0; t < n; ++t)
          for (int64_t j = 0; j < h; ++j) vec[j] += base[t * h + j];
        for (auto& x : vec) x /= static_cast<float>(n);
      }
      if (normalize) {
        double ss = 0;
        for (float x : vec) ss += static_cast<double>(x) * x;
        double norm = std::max(std::sqrt(ss), 1e-12);
        for (auto& x : vec) x = static_cast<float>(x / norm);
      }
      out->push_back(std::move(vec));
    }
  }
  return Status::ok();
}

}  // namespace pte
