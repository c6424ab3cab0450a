// Encoder-only programs (BERT family, sentence-transformers exports): fill-mask and
// sentence embeddings. The program's forward takes token ids and an attention mask (and
// optionally token type ids), i64[B, T] each, and returns logits [B, T, V] (fill-mask) or
// hidden states [B, T, H] / pooled vectors [B, H] (embeddings). The model's own tokenizer
// (tokenizer.json beside the model) builds the inputs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pte/program.h"
#include "pte/status.h"
#include "pte/tokenizer.h"

namespace pte {

enum class EncoderTask { None, FillMask, Embedding };
enum class Pooling { Default, Mean, Cls, LastToken, Max };

// "mean", "cls", "last", "max" -> Pooling; false for any other name.
bool parse_pooling(const std::string& name, Pooling* out);
const char* pooling_name(Pooling p);

// The task an encoder program serves, from its forward signature and config.json beside
// it (architectures: *ForMaskedLM -> fill-mask), else a sentence-transformers folder
// (modules.json / 1_Pooling) -> embeddings, else the output width against get_vocab_size
// (fill-mask) or the config's vocab_size / hidden_size; None when forward is not an encoder.
EncoderTask encoder_task(const ProgramInfo& info);

struct EncoderOptions {
  std::string model_path;
  std::string tokenizer_path;            // default: beside the model
  std::vector<std::string> data_files;
  int num_threads = 0;
};

struct MaskCandidate {
  int32_t id = 0;
  float score = 0;          // softmax probability over the vocabulary
  std::string token;        // decode([id])
  std::string sequence;     // the text with this mask filled (special tokens skipped)
};
struct MaskPrediction {
  int position = 0;         // index in input_ids
  std::vector<MaskCandidate> candidates;
};

class EncoderRunner {
 public:
  static Status create(const EncoderOptions& options, std::unique_ptr<EncoderRunner>* out);

  // One text holding the mask token (once or more). Fails with one line when the text has
  // no mask token, is longer than the program takes, or the program is not fill-mask shaped.
  Status fill_mask(const std::string& text, int top_k, std::vector<MaskPrediction>* out);

  // One vector per text. Pooling::Default takes the sentence-transformers folder's
  // 1_Pooling/config.json (mean when there is none). Texts are run `batch()` at a time,
  // padded to the longest and masked. A text longer than max_tokens() is truncated to it, as
  // sentence-transformers does (a closing special token kept last): see truncated().
  Status embed(const std::vector<std::string>& texts, Pooling pooling, bool normalize,
               std::vector<std::vector<float>>* out);

  EncoderTask task() const { return task_; }
  int64_t batch() const { return batch_; }            // texts per forward call
  int64_t max_tokens() const { return max_len_; }
  bool dynamic_length() const { return dynamic_len_; }
  int64_t width() const { return width_; }            // V (fill-mask) or H (embeddings)
  Pooling default_pooling() const { return default_pooling_; }
  bool default_normalize() const { return default_normalize_; }
  const std::string& mask_token() const { return mask_token_; }
  const Tokenizer& tokenizer() const { return *tok_; }
  // The last embed()'s truncated texts: {tokens before, tokens kept}, in text order.
  const std::vector<std::pair<int, int>>& truncated() const { return truncated_; }

 private:
  EncoderRunner() = default;
  Status encode(const std::string& text, std::vector<int32_t>* ids, bool truncate);
  // Runs forward on rows[0..n) (n <= batch_), padded to `len`; the output as C-order floats.
  Status run(const std::vector<std::vector<int32_t>>& rows, std::vector<float>* out, std::vector<int64_t>* shape);

  std::string model_path_;
  std::unique_ptr<Program> program_;
  std::unique_ptr<Method> method_;
  std::unique_ptr<Tokenizer> tok_;
  EncoderTask task_ = EncoderTask::None;
  size_t num_inputs_ = 2;
  int64_t batch_ = 1, max_len_ = 0, width_ = 0;
  bool dynamic_len_ = false;
  int32_t mask_id_ = -1, pad_id_ = 0;
  std::string mask_token_;
  Pooling default_pooling_ = Pooling::Mean;
  bool default_normalize_ = false;
  std::vector<int64_t> ids_buf_, mask_buf_, types_buf_;
  std::vector<std::pair<int, int>> truncated_;
};

}  // namespace pte
