#include "llm/seq2seq.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "audio/resample.h"
#include "audio/wav.h"
#include "ops/util.h"
#include "util/json.h"
#include "util/proc_stats.h"

namespace pte {

namespace {

using util::now_ms;

const MethodInfo* find_method(const ProgramInfo& info, const std::string& name) {
  for (const auto& m : info.methods)
    if (m.name == name) return &m;
  return nullptr;
}

bool const_int(const ProgramInfo& info, const char* name, int64_t* out) {
  const MethodInfo* m = find_method(info, name);
  if (!m || !m->is_constant || m->outputs.empty()) return false;
  const ValueInfo& v = m->outputs[0];
  if (v.tag == Tag::Int) { *out = v.int_value; return true; }
  if (v.tag == Tag::Bool) { *out = v.bool_value; return true; }
  return false;
}

const char* decoder_method_name(const ProgramInfo& info) {
  for (const char* n : {"text_decoder", "decoder"}) {
    const MethodInfo* m = find_method(info, n);
    if (m && !m->is_constant) return n;
  }
  return nullptr;
}

Tensor make_tensor(DType dtype, std::initializer_list<int64_t> sizes, void* data, size_t bytes) {
  Tensor t;
  t.dtype = dtype;
  t.dim = static_cast<int>(sizes.size());
  int i = 0;
  for (int64_t s : sizes) {
    t.sizes[i] = s;
    t.dim_order[i] = static_cast<uint8_t>(i);
    ++i;
  }
  compute_strides(t);
  t.data = data;
  t.capacity = bytes;
  return t;
}

// "<|1.24|>" -> 1.24; false for any other token
bool timestamp_value(const std::string& tok, double* v) {
  if (tok.size() < 7 || tok.compare(0, 2, "<|") || tok.compare(tok.size() - 2, 2, "|>")) return false;
  std::string mid = tok.substr(2, tok.size() - 4);
  if (mid.find('.') == std::string::npos) return false;
  for (char c : mid)
    if (!(c == '.' || (c >= '0' && c <= '9'))) return false;
  *v = std::atof(mid.c_str());
  return true;
}

}  // namespace

bool Seq2SeqRunner::is_seq2seq(const ProgramInfo& info) {
  const MethodInfo* e = find_method(info, "encoder");
  return e && !e->is_constant && decoder_method_name(info);
}

Status Seq2SeqRunner::create(const Seq2SeqOptions& options, std::unique_ptr<Seq2SeqRunner>* out) {
  std::unique_ptr<Seq2SeqRunner> r(new Seq2SeqRunner());
  double t0 = now_ms();
  OpenOptions oo;
  oo.data_files = options.data_files;
  PTE_TRY(Program::open_file(options.model_path, oo, &r->program_));
  const ProgramInfo& info = r->program_->info();
  const MethodInfo* enc = find_method(info, "encoder");
  const char* dec = decoder_method_name(info);
  if (!enc || enc->is_constant)
    return Status::error(options.model_path + ": no encoder method: not an encoder-decoder program");
  if (!dec)
    return Status::error(options.model_path + ": the program has an encoder but no decoder method (text_decoder): "
                         "cannot generate");
  r->meta_.encoder_method = "encoder";
  r->meta_.decoder_method = dec;
  PTE_TRY(Tokenizer::load_for_program(options.model_path, options.tokenizer_path, &r->tok_));
  Program::MethodOptions mo;
  mo.num_threads = options.num_threads;
  PTE_TRY(r->program_->load_method("encoder", mo, &r->encoder_));
  mo.last_row_of_output_only = true;
  PTE_TRY(r->program_->load_method(dec, mo, &r->decoder_));
  PTE_TRY(r->read_metadata(options.model_path).context(options.model_path));
  if (!options.preprocessor_path.empty()) {
    if (r->meta_.task != Seq2SeqTask::SpeechToText)
      return Status::error(options.model_path + ": --preprocessor applies to speech programs; this encoder takes text");
    PTE_TRY(FeaturePreprocessor::open(options.preprocessor_path, r->meta_.n_mels, r->meta_.frames,
                                      static_cast<size_t>(r->meta_.frames) * audio::kWhisperHop, options.num_threads,
                                      &r->pre_));
  }
  r->load_ms_ = now_ms() - t0;
  *out = std::move(r);
  return Status::ok();
}

Status Seq2SeqRunner::read_metadata(const std::string& model_path) {
  const ProgramInfo& info = program_->info();
  const MethodInfo& e = encoder_->info();
  const MethodInfo& d = decoder_->info();
  if (e.inputs.size() != 1 || e.inputs[0].tag != Tag::Tensor || e.outputs.empty() || e.outputs[0].tag != Tag::Tensor)
    return Status::error("method encoder: expected one tensor input (input_ids or input_features) and a hidden-state output");
  const TensorInfo& in = e.inputs[0].tensor;
  const TensorInfo& eo = e.outputs[0].tensor;
  if (eo.sizes.size() != 3 || eo.dtype != DType::Float)
    return Status::error("method encoder: output 0 must be float hidden states [1, S, D]");
  meta_.hidden = eo.sizes[2];
  if (in.dtype == DType::Int64 && in.sizes.size() == 2) {
    meta_.task = Seq2SeqTask::Text2Text;
    meta_.max_encoder_len = in.sizes[1];
    meta_.encoder_dynamic = in.dynamism != Dynamism::Static;
  } else if (in.dtype == DType::Float && in.sizes.size() == 3 && in.sizes[0] == 1) {
    meta_.task = Seq2SeqTask::SpeechToText;
    meta_.n_mels = static_cast<int>(in.sizes[1]);
    meta_.frames = static_cast<int>(in.sizes[2]);
    if (in.dynamism != Dynamism::Static) return Status::error("method encoder: input_features must have a static shape");
    PTE_TRY(mel_.init(meta_.n_mels, meta_.frames));
    features_.assign(static_cast<size_t>(meta_.n_mels) * meta_.frames, 0.f);
  } else {
    return Status::error("method encoder: input 0 must be int64 input_ids [1, S] or float input_features [1, mels, frames]");
  }
  if (d.inputs.size() != 3 || d.outputs.empty())
    return Status::error("method " + d.name + ": expected (decoder_input_ids, encoder_hidden_states, cache_position) -> logits");
  for (const auto& v : d.inputs)
    if (v.tag != Tag::Tensor) return Status::error("method " + d.name + ": every input must be a tensor");
  const TensorInfo& di = d.inputs[0].tensor;
  const TensorInfo& dh = d.inputs[1].tensor;
  const TensorInfo& dp = d.inputs[2].tensor;
  if (di.dtype != DType::Int64 || di.sizes.size() != 2 || dh.dtype != DType::Float || dh.sizes.size() != 3 ||
      dp.dtype != DType::Int64 || dp.sizes.size() != 1)
    return Status::error("method " + d.name + ": expected decoder_input_ids i64[1,1], encoder_hidden_states f32[1,S,D], "
                         "cache_position i64[1]");
  if (dh.sizes[2] != meta_.hidden)
    return Status::error("method " + d.name + ": encoder_hidden_states width " + std::to_string(dh.sizes[2]) +
                         " differs from the encoder's " + std::to_string(meta_.hidden));
  const ValueInfo& lo = d.outputs[0];
  if (lo.tag != Tag::Tensor || lo.tensor.sizes.empty()) return Status::error("method " + d.name + ": output 0 must be logits");
  meta_.vocab_size = lo.tensor.sizes.back();
  int64_t v = 0;
  if (const_int(info, "get_max_seq_len", &v)) meta_.max_cache_len = v;
  else if (const_int(info, "max_cache_len", &v)) meta_.max_cache_len = v;
  if (meta_.max_cache_len <= 0)
    return Status::error("no get_max_seq_len constant method: the decoder's cache length is unknown");
  if (const_int(info, "decoder_start_token_id", &v)) meta_.decoder_start_id = v;
  if (const MethodInfo* m = find_method(info, "get_eos_ids"); m && m->is_constant) {
    for (const auto& o : m->outputs)
      if (o.tag == Tag::Int) meta_.eos_ids.push_back(o.int_value);
  } else if (const_int(info, "get_eos_id", &v)) {
    meta_.eos_ids.push_back(v);
  } else if (const_int(info, "eos_token_id", &v)) {
    meta_.eos_ids.push_back(v);
  }
  namespace fs = std::filesystem;
  fs::path gc = fs::path(model_path).parent_path() / "generation_config.json";
  std::error_code ec;
  if (fs::is_regular_file(gc, ec)) PTE_TRY(read_generation_config(gc.string()));
  if (meta_.eos_ids.empty())
    for (int32_t id : tok_->eos_ids()) meta_.eos_ids.push_back(id);
  // Whisper's special tokens, by name
  meta_.sot = tok_->token_to_id("<|startoftranscript|>");
  meta_.transcribe = tok_->token_to_id("<|transcribe|>");
  meta_.translate = tok_->token_to_id("<|translate|>");
  meta_.no_timestamps = tok_->token_to_id("<|notimestamps|>");
  meta_.start_of_prev = tok_->token_to_id("<|startofprev|>");
  double ts = 0;
  if (meta_.no_timestamps >= 0 && timestamp_value(tok_->id_to_token(meta_.no_timestamps + 1), &ts) && ts == 0)
    meta_.timestamp_begin = meta_.no_timestamps + 1;
  if (meta_.languages.empty() && meta_.sot >= 0) {
    // language tokens follow <|startoftranscript|>: <|en|>, <|zh|>, ... <|yue|>
    for (int32_t id = meta_.sot + 1; id < tok_->vocab_size(); ++id) {
      std::string t = tok_->id_to_token(id);
      if (t.size() < 6 || t.size() > 7 || t.compare(0, 2, "<|") || t.compare(t.size() - 2, 2, "|>")) break;
      std::string code = t.substr(2, t.size() - 4);
      if (!std::all_of(code.begin(), code.end(), [](char c) { return c >= 'a' && c <= 'z'; })) break;
      meta_.languages.emplace_back(code, id);
    }
  }
  if (meta_.decoder_start_id < 0) meta_.decoder_start_id = meta_.sot;
  if (meta_.decoder_start_id < 0 || meta_.decoder_start_id >= meta_.vocab_size)
    return Status::error("no decoder_start_token_id (constant method or generation_config.json)");
  if (tok_->vocab_size() > meta_.vocab_size)
    return Status::error("the tokenizer has " + std::to_string(tok_->vocab_size()) + " tokens but the decoder only " +
                         std::to_string(meta_.vocab_size));
  if (meta_.forced_bos_id >= meta_.vocab_size) meta_.forced_bos_id = -1;  // a config for another vocabulary
  meta_.languages.erase(std::remove_if(meta_.languages.begin(), meta_.languages.end(),
                                      [&](const auto& l) { return l.second < 0 || l.second >= meta_.vocab_size; }),
                       meta_.languages.end());
  for (auto* list : {&meta_.suppress, &meta_.begin_suppress})
    list->erase(std::remove_if(list->begin(), list->end(), [&](int32_t id) { return id < 0 || id >= meta_.vocab_size; }),
                list->end());
  if (meta_.task == Seq2SeqTask::SpeechToText && meta_.sot < 0)
    return Status::error("a speech encoder, but the tokenizer has no <|startoftranscript|> token");
  id1_.assign(1, 0);
  pos1_.assign(1, 0);
  logits_buf_.assign(static_cast<size_t>(meta_.vocab_size), 0.f);
  ids_buf_.assign(static_cast<size_t>(std::max<int64_t>(meta_.max_encoder_len, 1)), 0);
  return Status::ok();
}

Status Seq2SeqRunner::read_generation_config(const std::string& path) {
  json::Value doc;
  PTE_TRY(json::parse_file(path, &doc));
  if (!doc.is_object()) return Status::error(path + ": not a JSON object");
  auto ids = [&](const char* key, std::vector<int32_t>* out) {
    if (const json::Value* a = doc.find(key, json::Type::Array))
      for (const auto& x : a->items())
        if (x.is_int()) out->push_back(static_cast<int32_t>(x.as_int()));
  };
  ids("suppress_tokens", &meta_.suppress);
  ids("begin_suppress_tokens", &meta_.begin_suppress);
  if (const json::Value* x = doc.find("forced_bos_token_id", json::Type::Int)) meta_.forced_bos_id = x->as_int();
  if (meta_.decoder_start_id < 0)
    if (const json::Value* x = doc.find("decoder_start_token_id", json::Type::Int)) meta_.decoder_start_id = x->as_int();
  if (meta_.eos_ids.empty()) {
    if (const json::Value* x = doc.find("eos_token_id", json::Type::Int)) meta_.eos_ids.push_back(x->as_int());
    if (const json::Value* a = doc.find("eos_token_id", json::Type::Array))
      for (const auto& x : a->items()) meta_.eos_ids.push_back(x.as_int());
  }
  if (const json::Value* l = doc.find("lang_to_id", json::Type::Object))
    for (const auto& [k, x] : l->members()) {
      std::string code = k;
      if (code.size() > 4 && !code.compare(0, 2, "<|") && !code.compare(code.size() - 2, 2, "|>"))
        code = code.substr(2, code.size() - 4);
      if (x.is_int() && x.as_int() >= 0 && x.as_int() < meta_.vocab_size)
        meta_.languages.emplace_back(code, static_cast<int32_t>(x.as_int()));
    }
  if (const json::Value* x = doc.find("max_initial_timestamp_index", json::Type::Int))
    if (x->as_int() >= 0 && x->as_int() < (1 << 20)) meta_.max_initial_timestamp_index = x->as_int();
  if (const json::Value* x = doc.find("language", json::Type::String)) meta_.default_language = x->as_string();
  if (const json::Value* x = doc.find("task", json::Type::String)) meta_.default_task = x->as_string();
  return Status::ok();
}

Status Seq2SeqRunner::encode_tokens(const std::vector<int32_t>& ids) {
  const int64_t n = static_cast<int64_t>(ids.size());
  if (n > meta_.max_encoder_len)
    return Status::error(program_->path() + ": the input has " + std::to_string(n) +
                         " tokens; the encoder accepts at most " + std::to_string(meta_.max_encoder_len));
  if (!meta_.encoder_dynamic && n != meta_.max_encoder_len)
    return Status::error(program_->path() + ": the input has " + std::to_string(n) +
                         " tokens; this encoder was exported for exactly " + std::to_string(meta_.max_encoder_len) +
                         " (a static input length)");
  for (int64_t i = 0; i < n; ++i) ids_buf_[i] = ids[i];
  PTE_TRY(encoder_->set_input(0, make_tensor(DType::Int64, {1, n}, ids_buf_.data(), ids_buf_.size() * 8)));
  PTE_TRY(encoder_->execute().context("method encoder"));
  const EValue& o = encoder_->output(0);
  if (!o.is_tensor() || o.t->dtype != DType::Float || o.t->dim != 3 || !o.t->contiguous_order())
    return Status::error("method encoder: output 0 is not a contiguous float [1, S, D] tensor");
  enc_len_ = o.t->sizes[1];
  const float* p = static_cast<const float*>(o.t->data);
  enc_out_.assign(p, p + o.t->numel());
  return Status::ok();
}

Status Seq2SeqRunner::encode_features(const float* features) {
  const size_t n = static_cast<size_t>(meta_.n_mels) * meta_.frames;
  if (features != features_.data()) std::copy(features, features + n, features_.begin());
  PTE_TRY(encoder_->set_input(0, make_tensor(DType::Float, {1, meta_.n_mels, meta_.frames}, features_.data(), n * 4)));
  PTE_TRY(encoder_->execute().context("method encoder"));
  const EValue& o = encoder_->output(0);
  if (!o.is_tensor() || o.t->dtype != DType::Float || o.t->dim != 3 || !o.t->contiguous_order())
    return Status::error("method encoder: output 0 is not a contiguous float [1, S, D] tensor");
  enc_len_ = o.t->sizes[1];
  const float* p = static_cast<const float*>(o.t->data);
  enc_out_.assign(p, p + o.t->numel());
  return Status::ok();
}

Status Seq2SeqRunner::step(int32_t id, int64_t pos, const float** logits) {
  id1_[0] = id;
  pos1_[0] = pos;
  PTE_TRY(decoder_->set_input(0, make_tensor(DType::Int64, {1, 1}, id1_.data(), 8)));
  PTE_TRY(decoder_->set_input(1, make_tensor(DType::Float, {1, enc_len_, meta_.hidden}, enc_out_.data(),
                                             enc_out_.size() * 4)));
  PTE_TRY(decoder_->set_input(2, make_tensor(DType::Int64, {1}, pos1_.data(), 8)));
  PTE_TRY(decoder_->execute().context("method " + meta_.decoder_method));
  const EValue& out = decoder_->output(0);
  if (!out.is_tensor() || !out.t->contiguous_order()) return Status::error("decoder logits are not a contiguous tensor");
  const Tensor& t = *out.t;
  const int64_t V = t.sizes[t.dim - 1];
  if (V != meta_.vocab_size) return Status::error("decoder logits have " + std::to_string(V) + " columns");
  const int64_t row = t.numel() / V - 1;
  const uint8_t* base = static_cast<const uint8_t*>(t.data);
  switch (t.dtype) {
    case DType::Float: std::copy_n(reinterpret_cast<const float*>(base) + row * V, V, logits_buf_.begin()); break;
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

Status Seq2SeqRunner::decode(const std::vector<int32_t>& prompt_in, bool detect_language, const Seq2SeqConfig& config,
                             const std::function<void(const std::string&)>& on_text, Seq2SeqStats* st,
                             std::vector<int32_t>* window_tokens) {
  std::vector<int32_t> prompt = prompt_in;
  if (static_cast<int64_t>(prompt.size()) + (detect_language ? 1 : 0) >= meta_.max_cache_len)
    return Status::error("the decoder prompt (" + std::to_string(prompt.size()) + " tokens) does not fit the decoder's cache of " +
                         std::to_string(meta_.max_cache_len));
  sampler_.build(static_cast<int32_t>(meta_.vocab_size), config.sampling);
  const float* logits = nullptr;
  double t0 = now_ms();
  int64_t pos = 0;
  for (size_t i = 0; i < prompt.size(); ++i) {
    PTE_TRY(step(prompt[i], pos++, &logits));
    if (i == 0 && detect_language) {  // as transformers' detect_language: the best language token after <|startoftranscript|>
      int32_t best = -1;
      for (const auto& [code, id] : meta_.languages)
        if (best < 0 || logits[id] > logits[best]) best = id;
      prompt.insert(prompt.begin() + 1, best);
    }
  }
  st->decoder_prompt = prompt;
  const bool whisper_text = meta_.task == Seq2SeqTask::SpeechToText;
  TokenStream stream(*tok_, /*skip_special_tokens=*/true);
  std::string chunk;
  float* work = logits_buf_.data();
  const float ninf = -std::numeric_limits<float>::infinity();
  st->stop_reason = "max_new_tokens";
  double t_first = 0;
  for (int produced = 0; config.max_new_tokens < 0 || produced < config.max_new_tokens; ++produced) {
    (void)logits;  // logits == work: step() leaves them in logits_buf_
    if (config.on_logits) config.on_logits(produced, work, meta_.vocab_size);
    for (int32_t id : meta_.suppress) work[id] = ninf;
    if (produced == 0)
      for (int32_t id : meta_.begin_suppress) work[id] = ninf;
    // without --timestamps transformers leaves timestamp tokens unsuppressed: so do we
    if (config.timestamps && whisper_text && meta_.timestamp_begin >= 0) timestamp_rules(work, *window_tokens);
    int32_t next = (produced == 0 && meta_.forced_bos_id >= 0) ? static_cast<int32_t>(meta_.forced_bos_id)
                                                                : sampler_.sample(work, *window_tokens);
    if (st->generated_tokens == 0 && produced == 0) t_first = now_ms();
    ++st->generated_tokens;
    st->tokens.push_back(next);
    window_tokens->push_back(next);
    bool eos = std::find(meta_.eos_ids.begin(), meta_.eos_ids.end(), next) != meta_.eos_ids.end();
    if (eos && !config.ignore_eos) {
      st->stop_reason = "eos";
      break;
    }
    double ts = 0;
    if (config.timestamps && meta_.timestamp_begin >= 0 && next >= meta_.timestamp_begin &&
        timestamp_value(tok_->id_to_token(next), &ts)) {
      std::string rest = stream.flush();
      char buf[48];
      std::snprintf(buf, sizeof buf, "<|%.2f|>", ts + st->windows * 30.0);
      on_text(rest + buf);
    } else {
      PTE_TRY(stream.step(next, &chunk));
      if (!chunk.empty()) on_text(chunk);
    }
    if (config.max_new_tokens >= 0 && produced + 1 >= config.max_new_tokens) break;
    if (pos >= meta_.max_cache_len) {
      st->stop_reason = "cache_full";
      break;
    }
    PTE_TRY(step(next, pos++, &logits));
  }
  std::string rest = stream.flush();
  if (!rest.empty()) on_text(rest);
  if (st->ttft_ms == 0 && t_first > 0) st->ttft_ms = t_first - t0 + st->encode_ms + st->features_ms;
  st->decode_ms += now_ms() - t0;
  return Status::ok();
}

void Seq2SeqRunner::timestamp_rules(float* work, const std::vector<int32_t>& seq) const {
  const float ninf = -std::numeric_limits<float>::infinity();
  const int64_t V = meta_.vocab_size, tb = meta_.timestamp_begin;
  const int64_t eos = meta_.eos_ids.empty() ? tb : std::min<int64_t>(meta_.eos_ids.front(), V);
  auto fill = [&](int64_t a, int64_t b) {
    for (int64_t i = std::max<int64_t>(a, 0); i < std::min(b, V); ++i) work[i] = ninf;
  };
  work[meta_.no_timestamps] = ninf;
  const size_t n = seq.size();
  const bool last_ts = n >= 1 && seq[n - 1] >= tb;
  const bool penultimate_ts = n < 2 || seq[n - 2] >= tb;
  if (last_ts) {
    if (penultimate_ts) fill(tb, V);  // timestamps come in pairs: now text
    else fill(0, eos);                // the second of a pair: no text
  }
  int64_t last_timestamp = -1;
  for (int32_t id : seq)
    if (id >= tb) last_timestamp = id;
  if (last_timestamp >= 0) fill(tb, (last_ts && !penultimate_ts) ? last_timestamp : last_timestamp + 1);  // never decrease
  if (n == 0) {  // the first token is a timestamp, at most max_initial_timestamp_index
    fill(0, tb);
    if (meta_.max_initial_timestamp_index >= 0) fill(tb + meta_.max_initial_timestamp_index + 1, V);
  }
  // a timestamp when their total probability beats every text token's
  double mx = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < V; ++i) mx = std::max<double>(mx, work[i]);
  if (!std::isfinite(mx)) return;
  double sum = 0, sum_ts = 0, max_text = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < V; ++i) {
    double e = std::exp(static_cast<double>(work[i]) - mx);
    sum += e;
    if (i >= tb) sum_ts += e;
    else max_text = std::max<double>(max_text, work[i]);
  }
  const double lse = mx + std::log(sum);
  const double ts_logprob = sum_ts > 0 ? mx + std::log(sum_ts) - lse : -std::numeric_limits<double>::infinity();
  if (ts_logprob > max_text - lse) fill(0, tb);
}

Status Seq2SeqRunner::generate(const std::string& input, const Seq2SeqConfig& config,
                               const std::function<void(const std::string&)>& on_text, Seq2SeqStats* stats) {
  if (meta_.task != Seq2SeqTask::Text2Text)
    return Status::error("this program's encoder takes audio features: give a WAV file, not text");
  Seq2SeqStats st;
  st.load_ms = load_ms_;
  std::vector<int32_t> ids;
  PTE_TRY(tok_->encode(input, /*add_special_tokens=*/true, &ids));
  if (ids.empty()) return Status::error("the input encodes to no tokens");
  st.input_ids = ids;
  st.input_tokens = static_cast<int>(ids.size());
  double t0 = now_ms();
  PTE_TRY(encode_tokens(ids));
  st.encode_ms = now_ms() - t0;
  std::vector<int32_t> window;
  PTE_TRY(decode({static_cast<int32_t>(meta_.decoder_start_id)}, false, config, on_text, &st, &window));
  st.windows = 1;
  st.peak_rss_kb = util::peak_rss_kb();
  if (stats) *stats = st;
  return Status::ok();
}

Status Seq2SeqRunner::whisper_prompt(const Seq2SeqConfig& config, const std::vector<int32_t>& previous,
                                     std::vector<int32_t>* prompt, bool* detect_language) const {
  prompt->clear();
  *detect_language = false;
  std::vector<int32_t> forced;
  forced.push_back(meta_.sot);
  if (!meta_.languages.empty()) {
    std::string lang = config.language.empty() ? meta_.default_language : config.language;
    if (lang.size() > 4 && !lang.compare(0, 2, "<|")) lang = lang.substr(2, lang.size() - 4);
    if (lang.empty()) {
      *detect_language = true;
    } else {
      int32_t id = -1;
      for (const auto& [code, tid] : meta_.languages)
        if (code == lang) id = tid;
      if (id < 0) {
        std::string known;
        for (const auto& l : meta_.languages) known += (known.empty() ? "" : " ") + l.first;
        return Status::error("--language " + lang + ": the model knows " + known);
      }
      forced.push_back(id);
    }
    std::string task = config.task.empty() ? (meta_.default_task.empty() ? "transcribe" : meta_.default_task) : config.task;
    int32_t tid = task == "transcribe" ? meta_.transcribe : task == "translate" ? meta_.translate : -2;
    if (tid == -2) return Status::error("--task must be transcribe or translate, not '" + task + "'");
    if (tid < 0) return Status::error("the tokenizer has no <|" + task + "|> token");
    forced.push_back(tid);
  } else if (!config.language.empty() || config.task == "translate") {
    return Status::error("this model has no language or task tokens (an English-only Whisper)");
  }
  if (!config.timestamps) {
    if (meta_.no_timestamps < 0) return Status::error("the tokenizer has no <|notimestamps|> token");
    forced.push_back(meta_.no_timestamps);
  } else if (meta_.timestamp_begin < 0) {
    return Status::error("--timestamps: the tokenizer has no timestamp tokens");
  }
  // the previous window's text, as Whisper conditions on it: <|startofprev|> text <|startoftranscript|> ...
  int64_t room = meta_.max_cache_len / 2 - 1 - static_cast<int64_t>(forced.size()) - 1;
  if (config.previous_text && meta_.start_of_prev >= 0 && !previous.empty() && room > 0) {
    size_t k = std::min<size_t>(previous.size(), static_cast<size_t>(room));
    prompt->push_back(meta_.start_of_prev);
    prompt->insert(prompt->end(), previous.end() - static_cast<long>(k), previous.end());
    if (*detect_language) *detect_language = false;  // only the first window detects; later ones reuse it
  }
  prompt->insert(prompt->end(), forced.begin(), forced.end());
  return Status::ok();
}

Status Seq2SeqRunner::transcribe_features(const float* features, const Seq2SeqConfig& config,
                                          const std::function<void(const std::string&)>& on_text, Seq2SeqStats* stats) {
  if (meta_.task != Seq2SeqTask::SpeechToText) return Status::error("this program's encoder takes text, not audio");
  Seq2SeqStats st;
  st.load_ms = load_ms_;
  double t0 = now_ms();
  PTE_TRY(encode_features(features));
  st.encode_ms = now_ms() - t0;
  std::vector<int32_t> prompt, window;
  bool detect = false;
  PTE_TRY(whisper_prompt(config, {}, &prompt, &detect));
  PTE_TRY(decode(prompt, detect, config, on_text, &st, &window));
  st.windows = 1;
  st.peak_rss_kb = util::peak_rss_kb();
  if (stats) *stats = st;
  return Status::ok();
}

Status Seq2SeqRunner::transcribe(const std::string& wav_path, const Seq2SeqConfig& config,
                                 const std::function<void(const std::string&)>& on_text, Seq2SeqStats* stats) {
  if (meta_.task != Seq2SeqTask::SpeechToText) return Status::error("this program's encoder takes text, not audio");
  Seq2SeqStats st;
  st.load_ms = load_ms_;
  std::unique_ptr<audio::WavReader> wav;
  PTE_TRY(audio::WavReader::open(wav_path, &wav));
  audio::Resampler rs;
  PTE_TRY(rs.init(wav->format().sample_rate, audio::kWhisperRate));
  const size_t win = static_cast<size_t>(meta_.frames) * audio::kWhisperHop;
  std::vector<float> pending, chunk(16384);
  pending.reserve(win + 2 * chunk.size());
  bool eof = false;
  uint64_t total = 0;
  std::vector<int32_t> previous;
  std::string language;  // fixed after the first window
  Seq2SeqConfig cfg = config;
  for (;;) {
    double tf = now_ms();
    while (pending.size() < win && !eof) {
      size_t got = 0;
      PTE_TRY(wav->read(chunk.data(), chunk.size(), &got));
      if (got) rs.push(chunk.data(), got, &pending);
      else { rs.flush(&pending); eof = true; }
    }
    if (pending.empty()) break;
    const size_t n = std::min(win, pending.size());
    total += n;
    if (pre_) PTE_TRY(pre_->compute(pending.data(), n, features_.data()).context("window " + std::to_string(st.windows + 1)));
    else mel_.compute(pending.data(), n, features_.data());
    pending.erase(pending.begin(), pending.begin() + static_cast<long>(n));
    st.features_ms += now_ms() - tf;
    double te = now_ms();
    PTE_TRY(encode_features(features_.data()).context("window " + std::to_string(st.windows + 1)));
    st.encode_ms += now_ms() - te;
    std::vector<int32_t> prompt, window;
    bool detect = false;
    PTE_TRY(whisper_prompt(cfg, previous, &prompt, &detect));
    if (st.windows > 0 && detect) detect = false;
    PTE_TRY(decode(prompt, detect, cfg, on_text, &st, &window));
    if (cfg.language.empty() && !meta_.languages.empty()) {  // keep the first window's language
      for (int32_t id : st.decoder_prompt)
        for (const auto& [code, tid] : meta_.languages)
          if (tid == id) cfg.language = code;
    }
    previous.clear();
    for (int32_t id : window)
      if (!tok_->is_special(id) && (meta_.timestamp_begin < 0 || id < meta_.timestamp_begin)) previous.push_back(id);
    ++st.windows;
    if (eof && pending.empty()) break;
  }
  st.audio_seconds = static_cast<double>(total) / audio::kWhisperRate;
  st.peak_rss_kb = util::peak_rss_kb();
  if (stats) *stats = st;
  return Status::ok();
}

}  // namespace pte
