#include "llm/multimodal.h"

#include <algorithm>
#include <cstring>

#include "ops/util.h"

namespace pte {

namespace {

const MethodInfo* find_method(const ProgramInfo& info, const std::string& name) {
  for (const auto& m : info.methods)
    if (m.name == name) return &m;
  return nullptr;
}

bool const_int(const ProgramInfo& info, const std::string& name, int64_t* out) {
  const MethodInfo* m = find_method(info, name);
  if (!m || !m->is_constant || m->outputs.empty() || m->outputs[0].tag != Tag::Int) return false;
  *out = m->outputs[0].int_value;
  return true;
}

std::string sizes_text(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + "]";
}

// Row r of a float, half or bfloat16 tensor of rows of `h` into out.
Status copy_row(const Tensor& t, int64_t r, int64_t h, float* out) {
  const uint8_t* base = static_cast<const uint8_t*>(t.data);
  switch (t.dtype) {
    case DType::Float: std::memcpy(out, reinterpret_cast<const float*>(base) + r * h, static_cast<size_t>(h) * sizeof(float)); break;
    case DType::Half:
      for (int64_t i = 0; i < h; ++i) out[i] = reinterpret_cast<const Half*>(base)[r * h + i];
      break;
    case DType::BFloat16:
      for (int64_t i = 0; i < h; ++i) out[i] = reinterpret_cast<const BFloat16*>(base)[r * h + i];
      break;
    default: return Status::error(std::string("embeddings of dtype ") + dtype_name(t.dtype) + " are not supported");
  }
  return Status::ok();
}

}  // namespace

bool EmbeddingFront::present(const ProgramInfo& info) {
  const MethodInfo* e = find_method(info, "token_embedding");
  const MethodInfo* d = find_method(info, decoder_method());
  return e && !e->is_constant && d && !d->is_constant;
}

Status EmbeddingFront::create(Program& program, const Program::MethodOptions& options, std::unique_ptr<EmbeddingFront>* out) {
  const ProgramInfo& pi = program.info();
  std::unique_ptr<EmbeddingFront> f(new EmbeddingFront());
  const MethodInfo* e = find_method(pi, "token_embedding");
  if (!e || e->inputs.size() != 1 || e->outputs.empty() || e->inputs[0].tag != Tag::Tensor ||
      e->inputs[0].tensor.dtype != DType::Int64 || e->inputs[0].tensor.sizes.size() != 2 ||
      e->outputs[0].tag != Tag::Tensor || e->outputs[0].tensor.sizes.size() != 3)
    return Status::error(ErrorCode::NotADecoder, "method token_embedding: expected (input_ids i64[1,S]) -> f32[1,S,H]");
  f->info_.hidden = e->outputs[0].tensor.sizes[2];
  f->info_.max_chunk = e->inputs[0].tensor.sizes[1];
  if (f->info_.hidden <= 0 || f->info_.max_chunk <= 0) return Status::error(ErrorCode::NotADecoder, "method token_embedding: empty shapes");
  Program::MethodOptions mo = options;
  mo.inputs_by_pointer.clear();
  PTE_TRY(program.load_method("token_embedding", mo, &f->embedding_));
  f->ids_buf_.assign(static_cast<size_t>(f->info_.max_chunk), 0);

  for (const char* name : {"vision_encoder", "audio_encoder"}) {
    const MethodInfo* m = find_method(pi, name);
    if (!m || m->is_constant) continue;
    if (m->inputs.empty() || m->outputs.empty() || m->inputs[0].tag != Tag::Tensor || m->inputs[0].tensor.dtype != DType::Float ||
        m->outputs[0].tag != Tag::Tensor || m->outputs[0].tensor.sizes.empty() || m->outputs[0].tensor.sizes.back() != f->info_.hidden)
      return Status::error(ErrorCode::NotADecoder, std::string("method ") + name + ": expected (input_features f32[...]) -> f32[1,N," +
                                                       std::to_string(f->info_.hidden) + "] (the decoder's width)");
    f->info_.encoder_method = name;
    f->info_.modality = std::string(name) == "vision_encoder" ? "vision" : "audio";
    f->info_.encoder_input_sizes = m->inputs[0].tensor.sizes;
    const TensorInfo& o = m->outputs[0].tensor;
    if (o.dynamism == Dynamism::Static) {
      int64_t n = 1;
      for (int64_t d : o.sizes) n *= d;
      f->info_.item_tokens = n / f->info_.hidden;
    }
    if (!const_int(pi, f->info_.modality + "_token_id", &f->info_.media_token_id) || f->info_.media_token_id < 0)
      return Status::error(ErrorCode::NotADecoder, std::string("method ") + name + ": the program has no " + f->info_.modality +
                                                       "_token_id constant method: where its output goes in the prompt is unknown");
    PTE_TRY(program.load_method(name, mo, &f->encoder_));
    break;
  }
  *out = std::move(f);
  return Status::ok();
}

Status EmbeddingFront::encode(const float* data, const std::vector<int64_t>& sizes, MediaEmbedding* out) {
  if (!encoder_) return Status::error("this program has no vision or audio encoder");
  const auto& want = info_.encoder_input_sizes;
  if (sizes.size() != want.size() || sizes.size() > static_cast<size_t>(kMaxDims))
    return Status::error(info_.encoder_method + ": input of shape " + sizes_text(sizes) + ", the program takes " + sizes_text(want));
  Tensor in;
  in.dtype = DType::Float;
  in.dim = static_cast<int>(sizes.size());
  for (int i = 0; i < in.dim && i < kMaxDims; ++i) {
    in.sizes[i] = sizes[static_cast<size_t>(i)];
    in.dim_order[i] = static_cast<uint8_t>(i);
  }
  compute_strides(in);
  in.data = const_cast<float*>(data);
  in.capacity = static_cast<size_t>(in.numel()) * sizeof(float);
  Status s = encoder_->set_input(0, in);
  if (!s) return s.context(info_.encoder_method + ": input of shape " + sizes_text(sizes) + " (the program takes " + sizes_text(want) + ")");
  PTE_TRY(encoder_->execute());
  const EValue& o = encoder_->output(0);
  if (!o.is_tensor()) return Status::error(info_.encoder_method + ": output 0 is not a tensor");
  const Tensor& t = *o.t;
  if (!t.contiguous_order() || t.dim < 1 || t.sizes[t.dim - 1] != info_.hidden)
    return Status::error(info_.encoder_method + ": output is not contiguous rows of " + std::to_string(info_.hidden));
  out->tokens = t.numel() / info_.hidden;
  if (out->tokens <= 0) return Status::error(info_.encoder_method + ": the encoder gave no rows");
  out->rows.resize(static_cast<size_t>(out->tokens * info_.hidden));
  for (int64_t r = 0; r < out->tokens; ++r) PTE_TRY(copy_row(t, r, info_.hidden, out->rows.data() + r * info_.hidden));
  return Status::ok();
}

Status EmbeddingFront::embed(const int32_t* ids, int64_t n, const std::vector<float>* media, int64_t* used, float* out) {
  const int64_t H = info_.hidden;
  for (int64_t at = 0; at < n;) {
    const int64_t m = std::min<int64_t>(n - at, info_.max_chunk);
    // a media token's own embedding is never used (it may lie outside the table, as
    // Gemma3's image token does: transformers embeds id 0 there)
    for (int64_t i = 0; i < m; ++i) {
      const int32_t id = ids[at + i];
      ids_buf_[static_cast<size_t>(i)] = media && id == info_.media_token_id ? 0 : id;
    }
    Tensor t;
    t.dtype = DType::Int64;
    t.dim = 2;
    t.sizes[0] = 1;
    t.sizes[1] = m;
    t.dim_order[0] = 0;
    t.dim_order[1] = 1;
    compute_strides(t);
    t.data = ids_buf_.data();
    t.capacity = ids_buf_.size() * sizeof(int64_t);
    PTE_TRY(embedding_->set_input(0, t).context("token_embedding"));
    PTE_TRY(embedding_->execute().context("token_embedding"));
    const EValue& o = embedding_->output(0);
    if (!o.is_tensor() || !o.t->contiguous_order() || o.t->numel() != m * H)
      return Status::error("token_embedding: output is not " + std::to_string(m) + " rows of " + std::to_string(H));
    for (int64_t i = 0; i < m; ++i) {
      float* row = out + (at + i) * H;
      if (media && ids[at + i] == info_.media_token_id) {
        if ((*used + 1) * H > static_cast<int64_t>(media->size()))
          return Status::error("the prompt has more " + info_.modality + " tokens than the encoder gave rows (" +
                               std::to_string(static_cast<int64_t>(media->size()) / H) + ")");
        std::memcpy(row, media->data() + *used * H, static_cast<size_t>(H) * sizeof(float));
        ++*used;
      } else {
        PTE_TRY(copy_row(*o.t, i, H, row));
      }
    }
    at += m;
  }
  return Status::ok();
}

Status EmbeddingFront::expand_placeholders(const std::string& text, const std::vector<int64_t>& tokens_per_item,
                                           const std::string& media_token, const std::string& boi, const std::string& eoi,
                                           std::string* out) {
  auto count = [&](const std::string& s) {
    size_t c = 0;
    if (s.empty()) return c;
    for (size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + s.size())) ++c;
    return c;
  };
  const bool gemma = !boi.empty() && count(boi) == tokens_per_item.size();
  const std::string& mark = gemma ? boi : media_token;
  if (mark.empty() || count(mark) != tokens_per_item.size())
    return Status::error("the prompt has " + std::to_string(count(mark)) + " places for media (" + (mark.empty() ? "no token" : mark) +
                         ") but " + std::to_string(tokens_per_item.size()) + " were given");
  out->clear();
  size_t from = 0, k = 0;
  for (size_t at = text.find(mark); at != std::string::npos; at = text.find(mark, from)) {
    out->append(text, from, at - from);
    std::string run;
    for (int64_t i = 0; i < tokens_per_item[k]; ++i) run += media_token;
    if (gemma) *out += "\n\n" + boi + run + eoi + "\n\n";
    else *out += run;
    from = at + mark.size();
    ++k;
  }
  out->append(text, from, std::string::npos);
  return Status::ok();
}

}  // namespace pte
