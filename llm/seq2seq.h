// pte-run: sequence-to-sequence generation over an encoder-decoder program, as
// optimum-executorch exports T5, Bart, Marian and Whisper: one .pte with
//   encoder(input_ids i64[1,S])            -> last_hidden_state f32[1,S,D]   (text)
//   encoder(input_features f32[1,M,3000])  -> last_hidden_state f32[1,1500,D] (speech)
//   text_decoder(decoder_input_ids i64[1,1], encoder_hidden_states f32[1,S,D],
//                cache_position i64[1])    -> logits [1,1,V]
// with the self-attention cache in the decoder's mutable buffers, and constant
// methods (decoder_start_token_id, get_max_seq_len, EOS ids). Everything is read from
// the method names, signatures and constant methods; generation_config.json beside the
// model (optional) adds what transformers' generate would use: the Whisper language /
// task / no-timestamps tokens, suppress_tokens, begin_suppress_tokens, forced_bos_token_id.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "audio/mel.h"
#include "llm/preprocessor.h"
#include "llm/sampler.h"
#include "pte/program.h"
#include "pte/tokenizer.h"

namespace pte {

struct Seq2SeqOptions {
  std::string model_path;
  std::string tokenizer_path;  // empty: next to the model
  std::vector<std::string> data_files;
  int num_threads = 0;
  // speech: a feature program (ExecuTorch's preprocessor.pte) run instead of audio/mel.cpp
  std::string preprocessor_path;
};

struct Seq2SeqConfig {
  int max_new_tokens = 256;   // per 30 s window for speech; < 0: until EOS or a full cache
  SamplerConfig sampling;
  bool ignore_eos = false;
  // Whisper
  std::string language;       // "en", "<|en|>"; empty: the generation config's, else detected
  std::string task;           // "transcribe" | "translate"; empty: the generation config's, else transcribe
  bool timestamps = false;    // <|t.tt|> tokens under transformers' WhisperTimeStampLogitsProcessor rules
  bool previous_text = true;  // long audio: the previous window's text as <|startofprev|> prompt
  // Called with each step's raw logits (before suppression), step 0 = the first generated token.
  std::function<void(int step, const float* logits, int64_t vocab)> on_logits;
};

struct Seq2SeqStats {
  double load_ms = 0, features_ms = 0, encode_ms = 0, decode_ms = 0, ttft_ms = 0;
  double audio_seconds = 0;
  int input_tokens = 0, generated_tokens = 0, windows = 0;
  long peak_rss_kb = 0;
  std::string stop_reason;              // of the last window: "eos", "max_new_tokens", "cache_full"
  std::vector<int32_t> input_ids;       // the encoder's tokens (text)
  std::vector<int32_t> decoder_prompt;  // the forced decoder tokens of the last window
  std::vector<int32_t> tokens;          // generated ids of every window (a final EOS included)
};

enum class Seq2SeqTask { Text2Text, SpeechToText };

struct Seq2SeqMetadata {
  Seq2SeqTask task = Seq2SeqTask::Text2Text;
  std::string encoder_method, decoder_method;
  int64_t max_encoder_len = 0;   // token input bound (text)
  bool encoder_dynamic = false;  // text: the token input has a dynamic length
  int n_mels = 0, frames = 0;    // speech: the encoder's input_features shape
  int64_t hidden = 0;            // D
  int64_t max_cache_len = 0;     // decoder positions (static self-attention cache)
  int64_t vocab_size = 0;
  int64_t decoder_start_id = -1;
  std::vector<int64_t> eos_ids;
  int64_t forced_bos_id = -1;
  std::vector<int32_t> suppress, begin_suppress;
  // Whisper prompt tokens (-1: the tokenizer has none)
  int32_t sot = -1, transcribe = -1, translate = -1, no_timestamps = -1, start_of_prev = -1, timestamp_begin = -1;
  std::vector<std::pair<std::string, int32_t>> languages;  // "en" -> <|en|>
  std::string default_language, default_task;
  int64_t max_initial_timestamp_index = -1;  // generation config; -1: none
};

class Seq2SeqRunner {
 public:
  // True when the program has an encoder method and a text_decoder (or decoder) method.
  static bool is_seq2seq(const ProgramInfo& info);
  static Status create(const Seq2SeqOptions& options, std::unique_ptr<Seq2SeqRunner>* out);

  const Seq2SeqMetadata& metadata() const { return meta_; }
  const Tokenizer& tokenizer() const { return *tok_; }

  // Text to text (T5, Bart, Marian): the input encoded with the tokenizer's special tokens.
  Status generate(const std::string& input, const Seq2SeqConfig& config,
                  const std::function<void(const std::string&)>& on_text, Seq2SeqStats* stats);
  // Speech to text (Whisper): the WAV file in consecutive 30 s windows, streamed.
  Status transcribe(const std::string& wav_path, const Seq2SeqConfig& config,
                    const std::function<void(const std::string&)>& on_text, Seq2SeqStats* stats);
  // One window of log-mel features (n_mels x frames), e.g. from a test.
  Status transcribe_features(const float* features, const Seq2SeqConfig& config,
                             const std::function<void(const std::string&)>& on_text, Seq2SeqStats* stats);

 private:
  Status read_metadata(const std::string& model_path);
  Status read_generation_config(const std::string& path);
  Status encode_tokens(const std::vector<int32_t>& ids);
  Status encode_features(const float* features);
  Status step(int32_t id, int64_t pos, const float** logits);
  // transformers' WhisperTimeStampLogitsProcessor on `work` given the window's tokens so far
  void timestamp_rules(float* work, const std::vector<int32_t>& generated) const;
  Status whisper_prompt(const Seq2SeqConfig& config, const std::vector<int32_t>& previous,
                        std::vector<int32_t>* prompt, bool* detect_language) const;
  // Feeds `prompt` from position 0, then generates; appends generated ids to *out_tokens.
  Status decode(const std::vector<int32_t>& prompt, bool detect_language, const Seq2SeqConfig& config,
                const std::function<void(const std::string&)>& on_text, Seq2SeqStats* st,
                std::vector<int32_t>* window_tokens);

  std::unique_ptr<Program> program_;
  std::unique_ptr<Method> encoder_, decoder_;
  std::unique_ptr<Tokenizer> tok_;
  Seq2SeqMetadata meta_;
  double load_ms_ = 0;
  std::vector<float> enc_out_;
  int64_t enc_len_ = 0;
  std::vector<int64_t> ids_buf_, id1_, pos1_;
  std::vector<float> logits_buf_;
  std::vector<float> features_, window_;
  audio::LogMel mel_;
  std::unique_ptr<FeaturePreprocessor> pre_;  // --preprocessor, else mel_
  Sampler sampler_;
};

}  // namespace pte
