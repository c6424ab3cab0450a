#include "llm/runner.h"
#include "llm/session.h"
#include "util/json.h"
#include "util/proc_stats.h"

#include <sys/resource.h>

#include <chrono>
#include <cstring>

#include "ops/util.h"

namespace pte {

namespace {

using util::now_ms;
using util::peak_rss_kb;

const MethodInfo* find_method(const ProgramInfo& info, const std::string& name) {
  for (const auto& m : info.methods)
    if (m.name == name) return &m;
  return nullptr;
}

// First output of a constant method as an integer (Int or Bool), if present.
bool const_int(const ProgramInfo& info, const char* name, int64_t* out) {
  const MethodInfo* m = find_method(info, name);
  if (!m || !m->is_constant || m->outputs.empty()) return false;
  const ValueInfo& v = m->outputs[0];
  if (v.tag == Tag::Int) { *out = v.int_value; return true; }
  if (v.tag == Tag::Bool) { *out = v.bool_value; return true; }
  return false;
}

}  // namespace

Status TextRunner::create(const RunnerOptions& options, std::unique_ptr<TextRunner>* out) {
  std::unique_ptr<TextRunner> r(new TextRunner());
  double t0 = now_ms();
  OpenOptions oo;
  oo.data_files = options.data_files;
  std::unique_ptr<Program> program;
  PTE_TRY(Program::open_file(options.model_path, oo, &program));
  r->program_ = std::move(program);
  PTE_TRY(r->load(options));
  r->load_ms_ = now_ms() - t0;
  *out = std::move(r);
  return Status::ok();
}

Status TextRunner::another(std::unique_ptr<TextRunner>* out) const {
  std::unique_ptr<TextRunner> r(new TextRunner());
  double t0 = now_ms();
  r->program_ = program_;
  PTE_TRY(r->load(options_));
  r->program_hash_ = program_hash_;
  r->load_ms_ = now_ms() - t0;
  *out = std::move(r);
  return Status::ok();
}

// Everything but opening the program: tokenizer, method, metadata, KV cache.
Status TextRunner::load(const RunnerOptions& options) {
  int64_t v = 0;
  // optimum's image-text-to-text export: no forward, a text_decoder fed by token_embedding
  std::string method = options.method;
  if (method == "forward" && !find_method(program_->info(), "forward") && EmbeddingFront::present(program_->info()))
    method = EmbeddingFront::decoder_method();
  // ExecuTorch's static-attention export describes its I/O in constant methods of its own
  const bool static_attention = StaticAttention::present(program_->info(), method);
  if (std::string why = StaticAttention::other_form(program_->info()); !static_attention && !why.empty())
    return Status::error(ErrorCode::NotADecoder, options.model_path + ": " + why);
  if (!static_attention && !const_int(program_->info(), "get_max_seq_len", &v))
    return Status::error(ErrorCode::NotADecoder, options.model_path + ": no get_max_seq_len constant method: not a text-generation export "
                         "(make one with optimum-executorch or ExecuTorch's LLM exporter), or use 'pte-run run'");
  PTE_TRY(Tokenizer::load_for_program(options.model_path, options.tokenizer_path, &tok_).with_default_code(ErrorCode::TokenizerUnavailable));
  const MethodInfo* fwd = find_method(program_->info(), method);
  if (!fwd) return Status::error(ErrorCode::UnknownMethod, options.model_path + ": no method named '" + method + "' to generate with");
  Program::MethodOptions mo;
  mo.num_threads = options.num_threads;
  // only the last position's logits are sampled (a padded static-attention call: another row)
  mo.last_row_of_output_only = !static_attention;
  // a cache passed as inputs: read in place
  mo.inputs_by_pointer = static_attention ? StaticAttention::cache_inputs(program_->info(), options.method) : KvCache::input_candidates(*fwd);
  PTE_TRY(program_->load_method(method, mo, &method_));
  if (method == EmbeddingFront::decoder_method() && EmbeddingFront::present(program_->info())) {
    Program::MethodOptions fo;
    fo.num_threads = options.num_threads;
    PTE_TRY(EmbeddingFront::create(*program_, fo, &front_).context(options.model_path));
  }
  if (static_attention) PTE_TRY(StaticAttention::attach(program_->info(), *method_, &static_).context(options.model_path));
  PTE_TRY(read_metadata().context(options.model_path));
  if (static_)
    PTE_TRY(static_->attach_kv(*method_, &cache_).context(options.model_path));
  else
    PTE_TRY(KvCache::attach(*method_, meta_.max_context_len, &cache_).context(options.model_path));
  model_path_ = options.model_path;
  options_ = options;
  return Status::ok();
}

Status TextRunner::read_metadata() {
  const ProgramInfo& info = program_->info();
  const MethodInfo& m = method_->info();
  // The exporters (optimum-executorch, transformers' ExecuTorch integration, ExecuTorch's
  // export_llm) all record the sequence length as a constant method; a program without it
  // is not an LLM export, and guessing the KV capacity from the input bound would be wrong.
  int64_t max_seq_len = 0;
  const_int(info, "get_max_seq_len", &max_seq_len);  // checked in create()
  // inputs after the token ids and positions: a KV cache passed as inputs (KvCache::attach
  // decides, and refuses inputs that do not pair with outputs)
  if (m.inputs.empty() || m.outputs.empty())
    return Status::error(ErrorCode::NotADecoder, "method " + m.name + " does not look like a decoder: expected (tokens[, positions][, caches]) -> logits");
  in_tokens_ = 0;
  in_pos_ = 1;
  if (front_) {  // (inputs_embeds f32[1,S,H], cache_position i64[S]), in either order
    in_tokens_ = in_pos_ = m.inputs.size();
    for (size_t i = 0; i < m.inputs.size() && i < 2; ++i) {
      const ValueInfo& x = m.inputs[i];
      if (x.tag != Tag::Tensor) continue;
      if (x.tensor.dtype == DType::Float && x.tensor.sizes.size() == 3 && x.tensor.sizes[2] == front_->info().hidden) in_tokens_ = i;
      else if (x.tensor.dtype == DType::Int64 && x.tensor.sizes.size() == 1) in_pos_ = i;
    }
    if (in_tokens_ == m.inputs.size() || in_pos_ == m.inputs.size())
      return Status::error(ErrorCode::NotADecoder, "method " + m.name + ": expected (inputs_embeds f32[1,S," +
                                                       std::to_string(front_->info().hidden) + "], cache_position i64[S])");
  }
  const ValueInfo& in0 = m.inputs[in_tokens_];
  // (a static-attention program: StaticAttention checked its inputs; fixed-length calls, padded)
  if (!static_ && !front_ && (in0.tag != Tag::Tensor || in0.tensor.dtype != DType::Int64 || in0.tensor.sizes.size() != 2))
    return Status::error(ErrorCode::NotADecoder, "method " + m.name + ": input 0 must be int64 token ids [1, S]");
  meta_.use_kv_cache = m.inputs.size() >= 2;
  meta_.embeddings_input = front_ != nullptr;
  int64_t seq_bound = in0.tensor.sizes[1];
  if (front_) seq_bound = std::min(seq_bound, front_->info().max_chunk);
  meta_.dynamic_prefill = in0.tensor.dynamism != Dynamism::Static && seq_bound > 1;
  if (meta_.use_kv_cache && !static_) {
    const ValueInfo& in1 = m.inputs[in_pos_];
    if (in1.tag != Tag::Tensor || in1.tensor.dtype != DType::Int64 || in1.tensor.sizes.size() != 1)
      return Status::error(ErrorCode::NotADecoder, "method " + m.name + ": input 1 must be int64 positions ([S] or [1])");
    meta_.positions_as_range = in1.tensor.sizes[0] > 1 || in1.tensor.dynamism != Dynamism::Static;
  }
  int64_t v = 0;
  meta_.max_seq_len = static_ ? static_->input_len() : max_seq_len;
  meta_.max_context_len = static_ ? static_->cache_len() : const_int(info, "get_max_context_len", &v) ? v : meta_.max_seq_len;
  if (const_int(info, "sliding_window", &v) && v > 0) meta_.sliding_window = v;
  if (meta_.max_seq_len <= 0 || meta_.max_context_len <= 0)
    return Status::error("metadata gives a non-positive sequence length");
  meta_.prefill_chunk = meta_.dynamic_prefill ? std::min(seq_bound, meta_.max_seq_len) : static_ ? static_->input_len() : 1;
  if (const_int(info, "use_kv_cache", &v) && !v && meta_.use_kv_cache)
    meta_.use_kv_cache = meta_.use_kv_cache;  // the signature decides; the flag is informative
  if (const MethodInfo* e = find_method(info, "get_eos_ids"); e && e->is_constant) {
    for (const auto& o : e->outputs)
      if (o.tag == Tag::Int) meta_.eos_ids.push_back(o.int_value);
  } else if (const_int(info, "get_eos_id", &v)) {
    meta_.eos_ids.push_back(v);
  }
  for (int32_t id : tok_->eos_ids())
    if (std::find(meta_.eos_ids.begin(), meta_.eos_ids.end(), id) == meta_.eos_ids.end()) meta_.eos_ids.push_back(id);
  meta_.bos_id = const_int(info, "get_bos_id", &v) ? v : tok_->bos_id();
  const ValueInfo& out0 = m.outputs[0];
  if (out0.tag != Tag::Tensor || out0.tensor.sizes.empty())
    return Status::error(ErrorCode::NotADecoder, "method " + m.name + ": output 0 must be a logits tensor");
  meta_.vocab_size = out0.tensor.sizes.back();
  int64_t tv = tok_->vocab_size();
  if (tv > meta_.vocab_size)
    return Status::error("the tokenizer has " + std::to_string(tv) + " tokens but the model only " + std::to_string(meta_.vocab_size));

  size_t cap = static_cast<size_t>(meta_.use_kv_cache ? meta_.prefill_chunk : std::max<int64_t>(seq_bound, 1));
  tokens_buf_.assign(cap, 0);
  pos_buf_.assign(cap, 0);
  logits_buf_.assign(static_cast<size_t>(meta_.vocab_size), 0.f);
  if (front_) {
    if (!meta_.use_kv_cache) return Status::error(ErrorCode::NotADecoder, "method " + m.name + ": an embeddings decoder without positions");
    embeds_buf_.assign(cap * static_cast<size_t>(front_->info().hidden), 0.f);
  }
  return Status::ok();
}

Status TextRunner::render_prompt(const std::string& prompt, bool chat, std::string* out) const {
  return render_prompt(prompt, chat, "", out);
}

Status TextRunner::render_prompt(const std::string& prompt, bool chat, const std::string& system, std::string* out) const {
  if (!chat) {
    *out = prompt;
    return Status::ok();
  }
  if (!chat_) {
    Status s = ChatTemplate::for_tokenizer(*tok_, &chat_);
    if (!s) return s.context("--chat");
  }
  std::vector<ChatMessage> messages;
  if (!system.empty()) messages.push_back({"system", system});
  messages.push_back({"user", prompt});
  return chat_->render(messages, /*add_generation_prompt=*/true, out);
}

Status TextRunner::media_marks(std::string* media_token, std::string* boi, std::string* eoi) const {
  const MultimodalInfo* mm = multimodal();
  if (!mm || mm->modality.empty()) return Status::error("this program takes no images or audio (no vision_encoder or audio_encoder method)");
  *media_token = tok_->id_to_token(static_cast<int32_t>(mm->media_token_id));
  if (media_token->empty())
    return Status::error("the tokenizer has no token " + std::to_string(mm->media_token_id) + " (the program's " + mm->modality + "_token_id)");
  // Gemma3's begin / end-of-image tokens (tokenizer_config.json's boi_token / eoi_token)
  boi->clear();
  eoi->clear();
  for (const auto& kv : tok_->special_tokens_map()) {
    if (kv.first == "boi_token") *boi = kv.second;
    if (kv.first == "eoi_token") *eoi = kv.second;
  }
  if (boi->empty() && mm->modality == "vision" && tok_->token_to_id("<start_of_image>") >= 0 && tok_->token_to_id("<end_of_image>") >= 0) {
    *boi = "<start_of_image>";
    *eoi = "<end_of_image>";
  }
  return Status::ok();
}

Status TextRunner::render_prompt(const std::string& prompt, bool chat, const std::string& system,
                                 const std::vector<MediaEmbedding>& media, std::string* out) const {
  if (media.empty()) return render_prompt(prompt, chat, system, out);
  const MultimodalInfo* mm = multimodal();
  std::string media_token, boi, eoi;
  PTE_TRY(media_marks(&media_token, &boi, &eoi));
  std::string text;
  if (chat) {
    if (!chat_) {
      Status s = ChatTemplate::for_tokenizer(*tok_, &chat_);
      if (!s) return s.context("--chat");
    }
    json::Value msgs = json::Value::array();
    if (!system.empty()) {
      json::Value& m = msgs.push(json::Value::object());
      m.set("role", json::Value("system"));
      m.set("content", json::Value(system));
    }
    json::Value& u = msgs.push(json::Value::object());
    u.set("role", json::Value("user"));
    json::Value& parts = u.set("content", json::Value::array());
    for (size_t i = 0; i < media.size(); ++i)
      parts.push(json::Value::object()).set("type", json::Value(mm->modality == "vision" ? "image" : "audio"));
    json::Value& t = parts.push(json::Value::object());
    t.set("type", json::Value("text"));
    t.set("text", json::Value(prompt));
    PTE_TRY(chat_->render_json(msgs, /*add_generation_prompt=*/true, &text));
  } else {
    // a raw prompt: its own placeholders if it writes them, else one per item before it
    const std::string& mark = boi.empty() ? media_token : boi;
    size_t have = 0;
    for (size_t at = prompt.find(mark); at != std::string::npos; at = prompt.find(mark, at + mark.size())) ++have;
    if (have != media.size())
      for (size_t i = 0; i < media.size(); ++i) text += mark;
    text += prompt;
  }
  std::vector<int64_t> counts;
  for (const auto& m : media) counts.push_back(m.tokens);
  return EmbeddingFront::expand_placeholders(text, counts, media_token, boi, eoi, out);
}

Status TextRunner::encode_media(const float* data, const std::vector<int64_t>& sizes, MediaEmbedding* out) {
  if (!front_ || front_->info().modality.empty()) return Status::error("this program takes no images or audio (no vision_encoder or audio_encoder method)");
  return front_->encode(data, sizes, out);
}

Status TextRunner::forward(const int32_t* ids, int64_t n, const float** logits) {
  if (static_) PTE_TRY(static_->set_inputs(*method_, ids, n, cache_->length()));  // tokens, masks, RoPE rows
  if (meta_.use_kv_cache && !static_) {
    for (int64_t i = 0; i < n; ++i) {
      tokens_buf_[i] = ids[i];
      pos_buf_[i] = cache_->length() + i;
    }
  }
  if (front_) {  // the decoder's input rows: token embeddings, media rows in a media prompt
    const int64_t H = front_->info().hidden;
    PTE_TRY(front_->embed(ids, n, media_rows_, &media_used_, embeds_buf_.data()));
    Tensor e;
    e.dtype = DType::Float;
    e.dim = 3;
    e.sizes[0] = 1;
    e.sizes[1] = n;
    e.sizes[2] = H;
    for (int d = 0; d < 3; ++d) e.dim_order[d] = static_cast<uint8_t>(d);
    compute_strides(e);
    e.data = embeds_buf_.data();
    e.capacity = embeds_buf_.size() * sizeof(float);
    PTE_TRY(method_->set_input(in_tokens_, e));
  }
  Tensor tokens;
  tokens.dtype = DType::Int64;
  tokens.dim = 2;
  tokens.sizes[0] = 1;
  tokens.sizes[1] = n;
  tokens.dim_order[0] = 0;
  tokens.dim_order[1] = 1;
  compute_strides(tokens);
  tokens.data = tokens_buf_.data();
  tokens.capacity = tokens_buf_.size() * sizeof(int64_t);
  if (!static_ && !front_) PTE_TRY(method_->set_input(0, tokens));
  if (meta_.use_kv_cache && !static_) {
    Tensor p;
    p.dtype = DType::Int64;
    p.dim = 1;
    p.sizes[0] = meta_.positions_as_range ? n : 1;
    compute_strides(p);
    p.data = pos_buf_.data();
    p.capacity = pos_buf_.size() * sizeof(int64_t);
    PTE_TRY(method_->set_input(in_pos_, p));
  }
  PTE_TRY(cache_->feed(*method_));
  Status run = method_->execute();
  if (run) run = cache_->take(*method_, cache_->length(), n);
  if (!run) {
    // transformers' static sliding-window cache, traced by torch.export, keeps only the
    // window and always takes its "not yet full" branch: the program cannot pass it
    if (!cache_->unsupported().empty() && !cache_->ring_slots() && meta_.sliding_window > 0 &&
        cache_->length() + n > meta_.sliding_window)
      return Status::error(run.message() + " (at position " + std::to_string(cache_->length() + n - 1) +
                           ": this export's sliding-window layers hold only " + std::to_string(meta_.sliding_window) +
                           " positions with no ring buffer, so it cannot generate past the window; export it with "
                           "optimum-executorch's custom KV cache and SDPA (use_custom_kv_cache, use_custom_sdpa), whose "
                           "ring buffers pte-run runs)");
    return run;
  }
  const EValue& out = method_->output(0);
  if (!out.is_tensor()) return Status::error("output 0 is not a tensor");
  const Tensor& t = *out.t;
  int64_t V = t.sizes[t.dim - 1];
  if (V != meta_.vocab_size) return Status::error("logits have " + std::to_string(V) + " columns, expected " + std::to_string(meta_.vocab_size));
  int64_t rows = t.numel() / V;
  int64_t row = static_ ? n - 1 : rows - 1;  // the last (real) position
  if (row < 0 || row >= rows) return Status::error("logits have " + std::to_string(rows) + " rows; the call wrote " + std::to_string(n));
  const uint8_t* base = static_cast<const uint8_t*>(t.data);
  if (!t.contiguous_order()) return Status::error("logits must be contiguous");
  switch (t.dtype) {
    case DType::Float: *logits = reinterpret_cast<const float*>(base) + row * V; return Status::ok();
    case DType::Half:
      for (int64_t i = 0; i < V; ++i) logits_buf_[i] = reinterpret_cast<const Half*>(base)[row * V + i];
      break;
    case DType::BFloat16:
      for (int64_t i = 0; i < V; ++i) logits_buf_[i] = reinterpret_cast<const BFloat16*>(base)[row * V + i];
      break;
    default: return Status::error(std::string("logits of dtype ") + dtype_name(t.dtype) + " are not supported");
  }
  *logits = logits_buf_.data();
  return Status::ok();
}

Status TextRunner::encode_prompt(const std::string& prompt, const GenerationConfig& config, std::vector<int32_t>* ids) const {
  std::string text;
  PTE_TRY(render_prompt(prompt, config.chat, config.system_prompt, config.media, &text));
  // apply_chat_template(tokenize=True) encodes without the post-processor's specials
  PTE_TRY(tok_->encode(text, /*add_special_tokens=*/!config.chat && position() == 0, ids));
  if (ids->empty()) return Status::error("the prompt encodes to no tokens");
  return Status::ok();
}

Status TextRunner::generate(const std::string& prompt, const GenerationConfig& config,
                            const std::function<void(const std::string&)>& on_text, GenerationStats* stats) {
  std::vector<int32_t> ids;
  PTE_TRY(encode_prompt(prompt, config, &ids));
  return generate_ids(ids, config, on_text, stats);
}

void TextRunner::reset() {
  cache_->reset();
  history_.clear();
}

Status TextRunner::rewind(int64_t pos) {
  if (pos < 0 || pos > static_cast<int64_t>(history_.size()))
    return Status::error("cannot go back to position " + std::to_string(pos) + ": the conversation holds " + std::to_string(history_.size()) + " tokens");
  if (meta_.use_kv_cache) PTE_TRY(cache_->rewind(pos));
  history_.resize(static_cast<size_t>(pos));
  return Status::ok();
}

Status TextRunner::identity(std::string* out) {
  if (program_hash_.empty()) PTE_TRY(file_identity(model_path_, &program_hash_));
  *out = program_hash_;
  return Status::ok();
}

Status TextRunner::restore(const std::vector<int32_t>& tokens, const uint8_t* cache_data, size_t cache_bytes) {
  if (static_cast<int64_t>(tokens.size()) >= meta_.max_context_len)
    return Status::error("the saved conversation (" + std::to_string(tokens.size()) + " tokens) does not fit the context of " +
                         std::to_string(meta_.max_context_len));
  if (meta_.use_kv_cache) PTE_TRY(cache_->restore(cache_data, cache_bytes, static_cast<int64_t>(tokens.size())));
  history_ = tokens;
  return Status::ok();
}

Status TextRunner::prefill(const std::vector<int32_t>& ids, const float** logits) {
  if (ids.empty()) return Status::error("nothing to prefill");
  if (position() + static_cast<int64_t>(ids.size()) >= meta_.max_context_len)
    return Status::error(ErrorCode::ContextFull, "the prompt (" + std::to_string(ids.size()) + " tokens) does not fit the context of " +
                         std::to_string(meta_.max_context_len) + " tokens" +
                         (position() ? " after the " + std::to_string(position()) + " of the conversation so far" : ""));
  if (meta_.use_kv_cache) {
    const int64_t start = position();
    for (size_t at = 0; at < ids.size();) {
      int64_t n = std::min<int64_t>(meta_.prefill_chunk, static_cast<int64_t>(ids.size() - at));
      Status s = forward(ids.data() + at, n, logits);
      if (!s) {  // what was written of this prompt is given back
        (void)rewind(start);
        return s;
      }
      cache_->advance(n);
      history_.insert(history_.end(), ids.begin() + static_cast<long>(at), ids.begin() + static_cast<long>(at) + n);
      at += static_cast<size_t>(n);
    }
  } else {
    std::vector<int32_t> all = history_;
    all.insert(all.end(), ids.begin(), ids.end());
    if (all.size() > tokens_buf_.size()) return Status::error("the prompt is longer than the model's input bound");
    for (size_t i = 0; i < all.size(); ++i) tokens_buf_[i] = all[i];
    PTE_TRY(forward(all.data(), static_cast<int64_t>(all.size()), logits));
    history_ = all;
  }
  return Status::ok();
}

Status TextRunner::step(int32_t id, const float** logits) {
  if (meta_.use_kv_cache) {
    PTE_TRY(forward(&id, 1, logits));
    cache_->advance(1);
    history_.push_back(id);
    return Status::ok();
  }
  std::vector<int32_t> one{id};
  return prefill(one, logits);
}

namespace {

// Longest suffix of `text` that is a proper prefix of one of `stops`.
size_t held_back(const std::string& text, const std::vector<std::string>& stops) {
  size_t best = 0;
  for (const auto& s : stops)
    for (size_t n = std::min(s.size() - 1, text.size()); n > best; --n)
      if (text.compare(text.size() - n, n, s, 0, n) == 0) { best = n; break; }
  return best;
}

}  // namespace

Status TextRunner::generate_ids(const std::vector<int32_t>& ids, const GenerationConfig& config,
                                const std::function<void(const std::string&)>& on_text, GenerationStats* stats) {
  GenerationStats st;
  st.load_ms = load_ms_;
  st.prompt_tokens = static_cast<int>(ids.size());
  st.prompt_ids = ids;
  st.start_position = position();
  for (const auto& s : config.stop)
    if (s.empty()) return Status::error("--stop: an empty stop string");
  sampler_.build(static_cast<int32_t>(meta_.vocab_size), config.sampling);

  double t0 = now_ms();
  const float* logits = nullptr;
  if (config.media.empty()) {
    PTE_TRY(prefill(ids, &logits));
  } else {  // the media tokens take the encoder's rows, in order
    if (!front_) return Status::error("this program takes no images or audio");
    std::vector<float> rows;
    for (const auto& m : config.media) rows.insert(rows.end(), m.rows.begin(), m.rows.end());
    const int64_t start = position(), want = static_cast<int64_t>(rows.size()) / front_->info().hidden;
    media_rows_ = &rows;
    media_used_ = 0;
    Status s = prefill(ids, &logits);
    media_rows_ = nullptr;
    if (s && media_used_ != want) {
      (void)rewind(start);
      s = Status::error("the prompt has " + std::to_string(media_used_) + " " + front_->info().modality + " tokens but the encoder gave " +
                        std::to_string(want) + " rows");
    }
    PTE_TRY(s);
  }
  double t_prefill = now_ms();
  st.prefill_ms = t_prefill - t0;

  TokenStream stream(*tok_);
  std::string chunk, text;  // text: everything decoded so far; `sent` of it went out
  size_t sent = 0;
  auto emit_upto = [&](size_t end) {
    if (end > sent) {
      on_text(text.substr(sent, end - sent));
      sent = end;
    }
  };
  bool stopped_by_string = false;
  auto take = [&](const std::string& piece) {
    text += piece;
    if (!config.stop.empty()) {
      size_t from = sent > 0 ? sent : 0;
      size_t cut = std::string::npos;
      for (const auto& s : config.stop) {
        size_t look = from >= s.size() ? from - s.size() + 1 : 0;
        size_t at = text.find(s, look);
        if (at != std::string::npos && at < cut) cut = at;
      }
      if (cut != std::string::npos) {
        emit_upto(std::max(cut, sent));
        text.resize(std::max(cut, sent));
        stopped_by_string = true;
        return;
      }
      emit_upto(text.size() - held_back(text, config.stop));
    } else {
      emit_upto(text.size());
    }
  };
  int limit = config.max_new_tokens;
  st.stop_reason = "max_new_tokens";
  std::vector<int32_t> recent = history_;  // for the repetition penalty
  for (int produced = 0; limit < 0 || produced < limit; ++produced) {
    if (config.cancelled && config.cancelled()) {
      st.stop_reason = "cancelled";
      break;
    }
    int32_t next = sampler_.sample(logits, recent);
    if (produced == 0) st.ttft_ms = now_ms() - t0;
    ++st.generated_tokens;
    st.tokens.push_back(next);
    bool eos = std::find(meta_.eos_ids.begin(), meta_.eos_ids.end(), next) != meta_.eos_ids.end();
    if (eos && !config.ignore_eos) {
      st.stop_reason = "eos";
      if (config.on_token) (void)config.on_token(next, std::string());
      break;
    }
    PTE_TRY(stream.step(next, &chunk));
    if (!chunk.empty()) take(chunk);
    if (config.on_token && config.on_token(next, chunk)) {
      st.stop_reason = "cancelled";
      break;
    }
    if (stopped_by_string) {
      st.stop_reason = "stop_string";
      break;
    }
    if (limit >= 0 && produced + 1 >= limit) break;
    if (position() >= meta_.max_context_len || (!meta_.use_kv_cache && history_.size() + 1 > tokens_buf_.size())) {
      st.stop_reason = "context_full";
      break;
    }
    PTE_TRY(step(next, &logits));
    recent.push_back(next);
  }
  if (!stopped_by_string) {
    std::string rest = stream.flush();
    if (!rest.empty()) take(rest);
    if (!stopped_by_string) emit_upto(text.size());
  }
  st.text = text;
  st.decode_ms = now_ms() - t_prefill;
  st.peak_rss_kb = peak_rss_kb();
  st.threads = method_->thread_calls();
  st.end_position = position();
  if (stats) *stats = st;
  return Status::ok();
}

}  // namespace pte
